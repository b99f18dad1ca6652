//! A trace saved as it is read (`shardlens stream --save-trace`, `shardlens metrics --save-trace`): one JSON
//! value per line, written to the file a page at a time ([`TraceSaver`]).
//!
//! Each page of records goes to the file in one write as it arrives, with no buffer of its own in between:
//! a process killed at any point (SIGKILL) leaves every page written before it whole, and at most the page
//! in flight unfinished (its last line, which the readers ignore and say so: `tail.rs`). After a write
//! fails (a full disk), nothing more is written: the record the failed write cut is cut off again
//! (the file is truncated to its last whole record), so the file holds whole records, never half a record
//! followed by more.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A saved trace that could not be written: "cannot write the saved trace FILE", with the reason as its
/// source (`{:#}` says both: "…: No space left on device (os error 28)").
#[derive(Debug, thiserror::Error)]
#[error("cannot write the saved trace {}", path.display())]
pub struct SaveError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// What a save holds when it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Saved {
    /// Whole records (lines) in the file.
    pub records: u64,
    /// Bytes of those records.
    pub bytes: u64,
    /// Bytes of an unfinished record left after the whole ones, when a failed write's part could not be cut
    /// off (the readers ignore it and say so).
    pub unfinished: u64,
}

/// A trace file written a page at a time (see the module docs).
pub struct TraceSaver {
    path: PathBuf,
    /// `None` once a write failed: nothing more is written.
    file: Option<std::fs::File>,
    saved: Saved,
}

impl TraceSaver {
    /// Creates (or empties) the file at `path`.
    pub fn create(path: &Path) -> Result<Self, SaveError> {
        let file = std::fs::File::create(path).map_err(|source| SaveError {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Some(file),
            saved: Saved::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the file holds so far.
    pub fn saved(&self) -> Saved {
        self.saved
    }

    /// Whether a write failed (then nothing more is written).
    pub fn failed(&self) -> bool {
        self.file.is_none()
    }

    /// Writes one page of JSON lines (each ending in a newline) to the file at once. On an error the part of
    /// the page written is cut back to its last whole line and the error is returned; every later page is
    /// dropped (the caller ends the save: see [`Self::failed`]).
    pub fn write_page(&mut self, lines: &[u8]) -> Result<(), SaveError> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let mut written = 0;
        let failed = loop {
            if written == lines.len() {
                break None;
            }
            match file.write(&lines[written..]) {
                Ok(0) => break Some(std::io::Error::from(std::io::ErrorKind::WriteZero)),
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Some(e),
            }
        };
        let whole = memchr::memrchr(b'\n', &lines[..written]).map_or(0, |i| i + 1);
        self.saved.records += memchr::memchr_iter(b'\n', &lines[..whole]).count() as u64;
        self.saved.bytes += whole as u64;
        let Some(source) = failed else {
            return Ok(());
        };
        if written > whole && file.set_len(self.saved.bytes).is_err() {
            // A device (not a file) cannot be cut; the readers ignore the unfinished record and say so.
            self.saved.unfinished = (written - whole) as u64;
        }
        self.file = None;
        Err(SaveError {
            path: self.path.clone(),
            source,
        })
    }

    /// Ends the save: the file's data is flushed to its disk. What it holds, or the error of that flush.
    pub fn finish(mut self) -> Result<Saved, SaveError> {
        if let Some(file) = self.file.take()
            && let Err(source) = file.sync_data()
            // A device or a pipe has nothing to sync (EINVAL): what was written is all there is.
            && source.raw_os_error() != Some(22)
        {
            return Err(SaveError {
                path: self.path,
                source,
            });
        }
        Ok(self.saved)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn pages_are_written_whole_as_they_come() {
        let dir = std::env::temp_dir().join(format!("shardlens-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("saved.jsonl");
        let mut saver = TraceSaver::create(&path).unwrap();
        saver.write_page(b"{\"a\":1}\n{\"a\":2}\n").unwrap();
        // On the disk at once: nothing waits in a buffer for a kill to lose.
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"a\":1}\n{\"a\":2}\n");
        saver.write_page(b"{\"a\":3}\n").unwrap();
        let saved = saver.finish().unwrap();
        assert_eq!((saved.records, saved.bytes, saved.unfinished), (3, 24, 0));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_full_device_ends_the_save_with_its_error_naming_the_file() {
        let full = Path::new("/dev/full");
        if !full.exists() {
            eprintln!("SKIPPED: no /dev/full here");
            return;
        }
        let mut saver = TraceSaver::create(full).unwrap();
        let e = saver.write_page(b"{\"a\":1}\n").unwrap_err();
        assert_eq!(
            format!("{:#}", anyhow::Error::from(e)),
            "cannot write the saved trace /dev/full: No space left on device (os error 28)"
        );
        assert!(saver.failed());
        // Later pages are dropped, not written after the failure.
        saver.write_page(b"{\"a\":2}\n").unwrap();
        assert_eq!(saver.finish().unwrap().records, 0);
    }
}
