//! Plain text, one key per line (optionally `pk<TAB>sk`), streamed in large chunks.

use std::fs::File;
use std::io::{BufRead as _, BufReader, Read, Seek as _, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{Loaded, Progress, SourceError};
use crate::model::KeyType;
use crate::model::key::KeyError;
use crate::model::text::{LineError, LineParser};

const CHUNK: usize = 1 << 20;

/// Reads keys from `reader`, calling `progress` about every megabyte. `name` labels errors. Stops with
/// [`SourceError::Cancelled`] when `cancel` is set.
pub fn load_lines(
    mut reader: impl Read,
    name: &Path,
    key_type: KeyType,
    total_bytes: Option<u64>,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    let mut parser = LineParser::new(key_type);
    let mut buf = vec![0u8; CHUNK];
    // Bytes at buf[..filled] not yet parsed (an incomplete last line).
    let mut filled = 0usize;
    let mut bytes = 0u64;
    let io_err = |source| SourceError::Io {
        name: name.to_path_buf(),
        source,
    };
    let line_err = |error| SourceError::Line {
        name: name.to_path_buf(),
        error,
    };
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(SourceError::Cancelled);
        }
        if filled == buf.len() {
            // A whole chunk without a newline: no valid key is that long, so stop here rather than hold a
            // line of unbounded length in memory.
            return Err(line_err(LineError {
                line: parser.lines() + 1,
                error: KeyError::LineTooLong { at_least: filled },
            }));
        }
        let read = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(e)),
        };
        bytes += read as u64;
        let end = filled + read;
        if read == 0 {
            if end > 0 {
                parser.feed_line(&buf[..end]).map_err(line_err)?;
            }
            break;
        }
        let data = &buf[..end];
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', &data[filled..]) {
            let nl = filled + nl;
            parser.feed_line(&data[start..nl]).map_err(line_err)?;
            start = nl + 1;
        }
        buf.copy_within(start..end, 0);
        filled = end - start;
        progress(Progress {
            bytes,
            total_bytes,
            lines: parser.lines(),
            items: 0,
        });
    }
    let lines = parser.lines();
    let keys = parser.finish();
    Ok(Loaded {
        items: keys.total(),
        keys,
        lines,
        bytes,
        ..Loaded::default()
    })
}

/// Files from this size on are read on two threads by [`load_file_parallel`].
pub const PARALLEL_FROM_BYTES: u64 = 8 << 20;

/// Reads a plain (uncompressed) file of keys on two threads: the file is cut in two at a line end, each half
/// loads into its own key set, and the second merges into the first, so counts and first-seen order are exactly
/// those of a serial read, and an error in the second half names its line in the whole file.
///
/// Returns `Ok(None)` when the file has sort keys (`pk<TAB>sk`): whether a key's sort keys only increase can
/// cross the cut, so the caller reads such a file serially.
pub fn load_file_parallel(
    path: &Path,
    name: &Path,
    key_type: KeyType,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<Loaded>, SourceError> {
    let io_err = |source| SourceError::Io {
        name: name.to_path_buf(),
        source,
    };
    let len = std::fs::metadata(path).map_err(io_err)?.len();
    // The cut: just after the first line end at or past the middle.
    let cut = {
        let mut file = File::open(path).map_err(io_err)?;
        file.seek(SeekFrom::Start(len / 2)).map_err(io_err)?;
        let mut rest = Vec::new();
        let read = BufReader::new(file)
            .take(super::MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut rest)
            .map_err(io_err)?;
        len / 2 + read as u64
    };
    let second_lines = AtomicU64::new(0);
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| -> Result<Loaded, SourceError> {
            let mut file = File::open(path).map_err(io_err)?;
            file.seek(SeekFrom::Start(cut)).map_err(io_err)?;
            load_lines(file, name, key_type, None, cancel, &mut |p| {
                second_lines.store(p.lines, Ordering::Relaxed);
            })
        });
        let first = File::open(path).map_err(io_err).and_then(|file| {
            load_lines(
                file.take(cut),
                name,
                key_type,
                Some(len),
                cancel,
                &mut |p| {
                    let other = second_lines.load(Ordering::Relaxed);
                    progress(Progress {
                        lines: p.lines + other,
                        items: p.lines + other,
                        bytes: p.bytes * 2,
                        total_bytes: Some(len),
                    });
                },
            )
        });
        let second = second
            .join()
            .unwrap_or_else(|_| Err(io_err(std::io::Error::other("the reading thread stopped"))));
        (first, second)
    });
    let mut first = first?;
    let second = match second {
        Ok(s) => s,
        Err(SourceError::Line { name, mut error }) => {
            error.line += first.lines;
            return Err(SourceError::Line { name, error });
        }
        Err(e) => return Err(e),
    };
    if first.keys.has_sort_keys() || second.keys.has_sort_keys() {
        return Ok(None);
    }
    first.keys.merge(&second.keys);
    first.lines += second.lines;
    first.bytes += second.bytes;
    first.items = first.keys.total();
    Ok(Some(first))
}

/// Reads a file of keys.
pub fn load_path(
    path: &Path,
    key_type: KeyType,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    let io_err = |source| SourceError::Io {
        name: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_err)?;
    let total = file.metadata().ok().map(|m| m.len());
    load_lines(file, path, key_type, total, cancel, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &[u8], ty: KeyType) -> Result<Loaded, SourceError> {
        load_lines(
            text,
            Path::new("keys.txt"),
            ty,
            None,
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    #[test]
    fn lines_across_chunk_boundaries() {
        let mut text = Vec::new();
        for i in 0..300_000 {
            text.extend_from_slice(format!("key-{}\n", i % 1000).as_bytes());
        }
        text.extend_from_slice(b"last-without-newline");
        let loaded = load(&text, KeyType::S).unwrap();
        assert_eq!(loaded.keys.total(), 300_001);
        assert_eq!(loaded.keys.len(), 1001);
        assert_eq!(loaded.bytes, text.len() as u64);
    }

    #[test]
    fn error_names_file_and_line() {
        let err = load(b"1\n2\nx\n", KeyType::N).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 3: \"x\" is not a number (in keys.txt)"
        );
    }

    #[test]
    fn a_huge_line_is_an_error_not_a_crash() {
        let mut text = vec![b'a'; 5 << 20];
        text.push(b'\n');
        let err = load(&text, KeyType::S).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: line is over 1048576 bytes; a key is at most 2048 bytes (in keys.txt)"
        );
    }

    #[test]
    fn two_threads_read_exactly_what_one_does() {
        let dir = std::env::temp_dir().join(format!("shardlens-par-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("keys.txt");
        let mut text = String::new();
        for i in 0..50_000u32 {
            text.push_str(&format!("k{}\n", (i * 7919) % 3001));
        }
        std::fs::write(&path, &text).unwrap();
        let never = AtomicBool::new(false);
        let serial = load(text.as_bytes(), KeyType::S).unwrap();
        let parallel = load_file_parallel(&path, &path, KeyType::S, &never, &mut |_| {})
            .unwrap()
            .unwrap();
        assert_eq!(parallel.lines, serial.lines);
        assert_eq!(parallel.keys.len(), serial.keys.len());
        let order = |k: &crate::model::KeySet| -> Vec<(Vec<u8>, u64)> {
            k.iter().map(|(_, b, c)| (b.to_vec(), c)).collect()
        };
        assert_eq!(
            order(&parallel.keys),
            order(&serial.keys),
            "same counts, same first-seen order"
        );
        // An error in the second half names its line in the whole file.
        std::fs::write(&path, format!("{text}{}\n", "x".repeat(3000))).unwrap();
        let err = load_file_parallel(&path, &path, KeyType::S, &never, &mut |_| {}).unwrap_err();
        assert!(
            err.to_string().starts_with("line 50001: key is 3000 bytes"),
            "{err}"
        );
        // Sort keys: left to the serial reader.
        std::fs::write(&path, "a\tx\nb\ty\n".repeat(1000)).unwrap();
        assert!(
            load_file_parallel(&path, &path, KeyType::S, &never, &mut |_| {})
                .unwrap()
                .is_none()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn cancel_stops() {
        let cancel = AtomicBool::new(true);
        let err = load_lines(
            &b"a\n"[..],
            Path::new("-"),
            KeyType::S,
            None,
            &cancel,
            &mut |_| {},
        );
        assert!(matches!(err, Err(SourceError::Cancelled)));
    }
}
