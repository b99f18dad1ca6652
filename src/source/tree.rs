//! Where the files a load reads are: a folder on disk ([`Disk`]), or files a page was given ([`InMemory`],
//! their bytes said by their relative paths). An S3 export is found, checked and read by one piece of code
//! over a [`Tree`] ([`super::s3_export`]), and [`super::dispatch`] walks the inputs of either the same way, so a
//! folder picked in a page reads with the same checks, counts and warnings as the same folder on disk.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use super::SourceError;
use super::read::{Input, is_stdin};

/// Files and folders to read, looked at by path. Shared by the threads that read an export's data files.
pub trait Tree: Sync {
    fn is_file(&self, path: &Path) -> bool;
    fn is_dir(&self, path: &Path) -> bool;
    /// The files and folders in `dir` (in no particular order: callers sort what they show).
    fn entries(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>>;
    /// A whole (small) file: a manifest.
    fn read(&self, path: &Path) -> std::io::Result<Cow<'_, [u8]>>;
    /// A file's size in bytes; `None` when it cannot be told (standard input, a file that cannot be looked at).
    fn size(&self, path: &Path) -> Option<u64>;
    /// Opens a file to read, gzip and zstd undone; `count` hears the bytes read.
    fn open<'a>(&'a self, path: &Path, count: &'a AtomicU64) -> Result<Input<'a>, SourceError>;
    /// A file's bytes when they are held in memory (read by one reader); `None` on disk, where a large file
    /// may be read in stretches.
    fn held(&self, path: &Path) -> Option<&[u8]>;
    /// How a folder is said where a note names it: its full path on disk.
    fn shown(&self, path: &Path) -> PathBuf;
}

/// The file system (and standard input as `-`).
pub struct Disk;

impl Tree for Disk {
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn entries(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        Ok(std::fs::read_dir(dir)?
            .flatten()
            .map(|e| e.path())
            .collect())
    }

    fn read(&self, path: &Path) -> std::io::Result<Cow<'_, [u8]>> {
        std::fs::read(path).map(Cow::Owned)
    }

    fn size(&self, path: &Path) -> Option<u64> {
        if is_stdin(path) {
            return None;
        }
        std::fs::metadata(path).ok().map(|m| m.len())
    }

    fn open<'a>(&'a self, path: &Path, count: &'a AtomicU64) -> Result<Input<'a>, SourceError> {
        super::read::open(path, count)
    }

    fn held(&self, _: &Path) -> Option<&[u8]> {
        None
    }

    fn shown(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// Files held in memory, each said by its path (relative, as a browser gives a folder's files:
/// `AWSDynamoDB/<export-id>/data/x.json.gz`); the folders are those their paths name. A path given twice is
/// its first file's.
pub struct InMemory<'a> {
    files: BTreeMap<PathBuf, &'a [u8]>,
    /// Each folder's files and folders.
    dirs: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
}

impl<'a> InMemory<'a> {
    pub fn new(given: &[(PathBuf, &'a [u8])]) -> Self {
        let mut files = BTreeMap::new();
        let mut dirs: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (path, bytes) in given {
            if files.contains_key(path) {
                continue;
            }
            files.insert(path.clone(), *bytes);
            let mut child = path.as_path();
            while let Some(parent) = child.parent() {
                let known = dirs.contains_key(parent);
                dirs.entry(parent.to_path_buf())
                    .or_default()
                    .insert(child.to_path_buf());
                if known {
                    break;
                }
                child = parent;
            }
        }
        Self { files, dirs }
    }
}

/// The inputs `files` given as `name` stand for, in the order given: the folder `name` when every file lies
/// in it (a folder picked in a page, `name` its name), else each file by its path (several files picked or
/// dropped: `name` is only what messages call them).
pub fn inputs_of(name: &Path, files: &[(PathBuf, &[u8])]) -> Vec<PathBuf> {
    if is_folder(name, files) {
        return vec![name.to_path_buf()];
    }
    let mut seen = BTreeSet::new();
    files
        .iter()
        .filter(|(p, _)| seen.insert(p.as_path()))
        .map(|(p, _)| p.clone())
        .collect()
}

/// Whether `files` are the folder `name`: there are some, and each lies in it.
pub fn is_folder(name: &Path, files: &[(PathBuf, &[u8])]) -> bool {
    !name.as_os_str().is_empty()
        && !files.is_empty()
        && files.iter().all(|(p, _)| p.starts_with(name) && p != name)
}

impl Tree for InMemory<'_> {
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.dirs.contains_key(path)
    }

    fn entries(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        self.dirs
            .get(dir)
            .map(|entries| entries.iter().cloned().collect())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    fn read(&self, path: &Path) -> std::io::Result<Cow<'_, [u8]>> {
        self.held(path)
            .map(Cow::Borrowed)
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    fn size(&self, path: &Path) -> Option<u64> {
        self.held(path).map(|b| b.len() as u64)
    }

    fn open<'b>(&'b self, path: &Path, count: &'b AtomicU64) -> Result<Input<'b>, SourceError> {
        let bytes = self.held(path).ok_or_else(|| SourceError::Io {
            name: path.to_path_buf(),
            error: std::io::Error::from(std::io::ErrorKind::NotFound),
        })?;
        super::read::open_bytes(bytes, path, count)
    }

    fn held(&self, path: &Path) -> Option<&[u8]> {
        self.files.get(path).copied()
    }

    fn shown(&self, path: &Path) -> PathBuf {
        path.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_memory_are_a_tree_of_their_paths() {
        let given: Vec<(PathBuf, &[u8])> = vec![
            ("e/AWSDynamoDB/x/manifest-summary.json".into(), b"{}"),
            ("e/AWSDynamoDB/x/data/a.json.gz".into(), b"a"),
            ("e/AWSDynamoDB/x/data/b.json.gz".into(), b"bb"),
            ("e/AWSDynamoDB/x/data/b.json.gz".into(), b"other"),
        ];
        let tree = InMemory::new(&given);
        assert!(tree.is_dir(Path::new("e/AWSDynamoDB/x/data")));
        assert!(tree.is_dir(Path::new("e")));
        assert!(!tree.is_file(Path::new("e/AWSDynamoDB")));
        assert!(tree.is_file(Path::new("e/AWSDynamoDB/x/manifest-summary.json")));
        let mut data = tree.entries(Path::new("e/AWSDynamoDB/x")).unwrap();
        data.sort();
        assert_eq!(
            data,
            [
                PathBuf::from("e/AWSDynamoDB/x/data"),
                PathBuf::from("e/AWSDynamoDB/x/manifest-summary.json")
            ]
        );
        assert_eq!(
            tree.size(Path::new("e/AWSDynamoDB/x/data/b.json.gz")),
            Some(2)
        );
        assert!(tree.entries(Path::new("nowhere")).is_err());
        // A folder picked in a page is one input; files picked or dropped are each their own, once.
        assert_eq!(inputs_of(Path::new("e"), &given), [PathBuf::from("e")]);
        assert_eq!(inputs_of(Path::new("4 files"), &given).len(), 3);
        assert!(!is_folder(Path::new("e"), &[]));
    }
}
