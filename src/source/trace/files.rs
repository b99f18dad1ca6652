//! Which files a trace path stands for, and their bytes: a file itself, a folder's files (an export's
//! manifests and checksums left out), or the data files an S3 export's manifest lists wherever they live.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use super::TraceFormat;
use crate::source::SourceError;

/// The files of a path: itself, or a folder's files in name order (recursively), without an export's
/// manifests and checksums; each with its format when the path says it. An S3 export's folder (the one
/// holding `manifest-summary.json`; also when `path` is one of its manifests) gives the data files its manifest
/// lists, found as `analyze` finds them ([`crate::source::s3_export::data_file_paths`]): an incremental export
/// keeps them in the shared `AWSDynamoDB/data/` beside the export's folder, not under it. They are
/// [`TraceFormat::Incremental`] when the summary says the export is (an empty data file, which AWS writes,
/// then holds no records rather than no format). A file met twice (the `AWSDynamoDB` folder holds both the
/// export's folder and `data/`) is read once.
pub(super) fn files_of(path: &Path) -> Result<Vec<(PathBuf, Option<TraceFormat>)>, SourceError> {
    let io = |error| SourceError::Io {
        name: path.to_path_buf(),
        error,
    };
    let is_export = |dir: &Path| dir.join("manifest-summary.json").is_file();
    let export = |dir: &Path| {
        crate::source::s3_export::data_file_paths(dir).map(|(files, incremental)| {
            let format = incremental.then_some(TraceFormat::Incremental);
            let mut files: Vec<_> = files.into_iter().map(|f| (f, format)).collect();
            files.sort_by(|a, b| a.0.cmp(&b.0));
            files
        })
    };
    if !path.is_dir() {
        let manifest = path
            .file_name()
            .is_some_and(|n| n == "manifest-summary.json" || n == "manifest-files.json");
        if let Some(dir) = path.parent().filter(|p| manifest && is_export(p)) {
            return export(dir);
        }
        return Ok(vec![(path.to_path_buf(), None)]);
    }
    let mut out: BTreeMap<PathBuf, Option<TraceFormat>> = BTreeMap::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        if is_export(&dir) {
            for (file, format) in export(&dir)? {
                let said = out.entry(file).or_default();
                *said = said.or(format);
            }
            continue;
        }
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let p = entry.map_err(io)?.path();
            if p.is_dir() {
                dirs.push(p);
            } else if !skipped_in_folder(&p) {
                out.entry(p).or_default();
            }
        }
    }
    Ok(out.into_iter().collect())
}

fn skipped_in_folder(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.starts_with("manifest")
        || name.starts_with('.')
        || name.ends_with(".md5")
        || name.ends_with(".checksum")
        || name == "_started"
}

/// The whole file, decompressed (gzip and zstd by their magic bytes).
pub(super) fn read_all(path: &Path) -> Result<Vec<u8>, SourceError> {
    let count = AtomicU64::new(0);
    let mut input = crate::source::read::open(path, &count)?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut input.reader, &mut bytes).map_err(|e| {
        match input.compression {
            crate::source::read::Compression::None => SourceError::Io {
                name: path.to_path_buf(),
                error: e,
            },
            c => c.corrupt(path, None, &e),
        }
    })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::trace::{TraceOptions, load_traces};

    #[test]
    fn an_export_folder_gives_the_data_files_its_manifest_lists_wherever_they_are() {
        let root = std::env::temp_dir().join(format!("shardlens-files-of-{}", std::process::id()));
        let aws = root.join("AWSDynamoDB");
        let export = aws.join("01782208920000-abc");
        std::fs::create_dir_all(&export).unwrap();
        std::fs::create_dir_all(aws.join("data")).unwrap();
        for name in ["one.json.gz", "two.json.gz", "of-another-export.json.gz"] {
            std::fs::write(aws.join("data").join(name), "").unwrap();
        }
        std::fs::write(
            export.join("manifest-summary.json"),
            r#"{"itemCount":0,"exportType":"INCREMENTAL_EXPORT"}"#,
        )
        .unwrap();
        std::fs::write(
            export.join("manifest-files.json"),
            "{\"itemCount\":0,\"dataFileS3Key\":\"AWSDynamoDB/data/two.json.gz\"}\n\
             {\"itemCount\":0,\"dataFileS3Key\":\"AWSDynamoDB/data/one.json.gz\"}\n",
        )
        .unwrap();
        let inc = Some(TraceFormat::Incremental);
        let listed = vec![
            (aws.join("data/one.json.gz"), inc),
            (aws.join("data/two.json.gz"), inc),
        ];
        assert_eq!(files_of(&export).unwrap(), listed);
        assert_eq!(
            files_of(&export.join("manifest-files.json")).unwrap(),
            listed
        );
        // The folder above holds the shared data/ too: each file once, the listed ones as the summary says.
        let above = files_of(&aws).unwrap();
        assert_eq!(above.len(), 3);
        assert_eq!(above[0], (aws.join("data/of-another-export.json.gz"), None));
        assert_eq!(above[1..], listed);
        // The export's empty data files hold no records: the trace is refused as empty, not as unknown.
        let e = load_traces(std::slice::from_ref(&export), &TraceOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no records with a time"), "{e}");
        assert!(e.contains("one.json.gz"), "{e}");
        // An empty folder is an error that names it, not a trace of nothing "(in )".
        let empty = root.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let e = load_traces(std::slice::from_ref(&empty), &TraceOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains(&empty.display().to_string()), "{e}");
        assert!(e.contains("holds no file to read"), "{e}");
        let _ = std::fs::remove_dir_all(&root);
    }
}
