//! Plain text, one key per line (optionally `pk<TAB>sk`), streamed in large chunks.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{Loaded, Progress, SourceError};
use crate::model::key::KeyError;
use crate::model::text::{LineError, LineParser};

const CHUNK: usize = 1 << 20;

/// Reads keys from `reader`, calling `progress` about every megabyte. `name` labels errors. Stops with
/// [`SourceError::Cancelled`] when `cancel` is set.
/// `parser` says how keys are read (their type, and whether to note sort keys for calculated sharding).
pub fn load_lines(
    mut reader: impl Read,
    name: &Path,
    mut parser: LineParser,
    total_bytes: Option<u64>,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
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
            total_items: None,
        });
    }
    let lines = parser.lines();
    let (keys, shard_by) = parser.finish_by();
    Ok(Loaded {
        items: keys.total(),
        keys,
        lines,
        bytes,
        shard_by,
        ..Loaded::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;

    fn load(text: &[u8], ty: KeyType) -> Result<Loaded, SourceError> {
        load_lines(
            text,
            Path::new("keys.txt"),
            LineParser::new(ty),
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
    fn cancel_stops() {
        let cancel = AtomicBool::new(true);
        let err = load_lines(
            &b"a\n"[..],
            Path::new("-"),
            LineParser::new(KeyType::S),
            None,
            &cancel,
            &mut |_| {},
        );
        assert!(matches!(err, Err(SourceError::Cancelled)));
    }
}
