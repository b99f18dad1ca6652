//! Whether what a user gave without saying what it is holds traffic only traces have (a drop, a path on the
//! command line): [`holds_only_traffic`] looks at a file's first 64 KB, or at a folder's first files, and is
//! called by [`crate::source::open`] on a task, never on the UI thread.

use std::path::{Path, PathBuf};

use super::{TraceFormat, detect};

/// How much of a file's beginning is looked at.
const HEAD_BYTES: u64 = 64 << 10;
/// How many of a folder's files (by name) are looked at.
const FOLDER_FILES: usize = 20;

/// Whether a file's first 64 KB (or one of a folder's first 20 files') hold a format only traces have (not
/// keys): Streams records, CloudWatch metrics, a Contributor Insights report. Incremental exports and CSV load
/// as keys when dropped; File > Open trace… replays them.
pub fn holds_only_traffic(path: &Path) -> bool {
    if path.is_dir() {
        // A folder of traces: its first files (by name; an S3 export's manifests hold no traffic).
        let Ok(entries) = std::fs::read_dir(path) else {
            return false;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        return files
            .iter()
            .take(FOLDER_FILES)
            .any(|f| file_holds_only_traffic(f));
    }
    // Regular files only: a named pipe or a device would wait for its writer (and take what it writes).
    path.is_file() && file_holds_only_traffic(path)
}

/// [`holds_only_traffic`] for bytes already in memory: their first 64 KB (compressed bytes are not looked into:
/// they open as keys unless opened as a trace).
pub fn bytes_hold_only_traffic(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(HEAD_BYTES as usize)];
    only_traces(head)
}

fn file_holds_only_traffic(path: &Path) -> bool {
    let count = std::sync::atomic::AtomicU64::new(0);
    let Ok(input) = crate::source::read::open(path, &count) else {
        return false;
    };
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    if std::io::Read::read_to_end(
        &mut std::io::Read::take(input.reader, HEAD_BYTES),
        &mut head,
    )
    .is_err()
    {
        return false;
    }
    only_traces(&head)
}

fn only_traces(head: &[u8]) -> bool {
    matches!(
        detect(head),
        Some(TraceFormat::Streams | TraceFormat::Metrics | TraceFormat::Insights)
    )
}
