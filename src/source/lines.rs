//! Plain text, one key per line (optionally `pk<TAB>sk`), streamed in large chunks.

use std::io::{Read, Seek as _, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::read::{SplitFile, read_full};
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
    let (bytes, _) = read_lines(
        &mut reader,
        name,
        &mut parser,
        false,
        cancel,
        &mut |bytes, lines| {
            progress(Progress {
                bytes,
                total_bytes,
                lines,
                items: 0,
                total_items: None,
            });
        },
    )?;
    Ok(finish(parser, bytes))
}

/// The load of `parser`'s lines, `bytes` read.
fn finish(parser: LineParser, bytes: u64) -> Loaded {
    let lines = parser.lines();
    let (keys, shard_by) = parser.finish_by();
    Loaded {
        items: keys.total(),
        keys,
        lines,
        bytes,
        shard_by,
        ..Loaded::default()
    }
}

/// What [`read_lines`] stopped at.
enum Stop {
    /// The end of the input.
    End,
    /// A line with a tab (a sort key), when asked to stop there.
    Tab,
}

/// Feeds every line of `reader` to `parser` in chunks of whole lines; returns the bytes read and why it
/// stopped: the end, or with `stop_at_tab` the first chunk holding a tab. `tick(bytes, lines)` runs after each
/// chunk.
fn read_lines(
    reader: &mut dyn Read,
    name: &Path,
    parser: &mut LineParser,
    stop_at_tab: bool,
    cancel: &AtomicBool,
    tick: &mut dyn FnMut(u64, u64),
) -> Result<(u64, Stop), SourceError> {
    let mut buf = vec![0u8; CHUNK];
    // Bytes at buf[..filled] not yet parsed (an incomplete last line).
    let mut filled = 0usize;
    let mut bytes = 0u64;
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
            Err(error) => {
                return Err(SourceError::Io {
                    name: name.to_path_buf(),
                    error,
                });
            }
        };
        bytes += read as u64;
        let end = filled + read;
        if stop_at_tab && memchr::memchr(b'\t', &buf[filled..end]).is_some() {
            return Ok((bytes, Stop::Tab));
        }
        if read == 0 {
            if end > 0 {
                parser.feed_line(&buf[..end]).map_err(line_err)?;
            }
            return Ok((bytes, Stop::End));
        }
        let data = &buf[..end];
        // Whole lines go to the parser as one text; the last, incomplete line waits for the next read.
        let start = memchr::memrchr(b'\n', &data[filled..]).map_or(0, |nl| filled + nl + 1);
        if start > 0 {
            parser.feed_text(&data[..start]).map_err(line_err)?;
        }
        buf.copy_within(start..end, 0);
        filled = end - start;
        tick(bytes, parser.lines());
    }
}

/// Files at least this large are split between threads ([`stretch_threads`]: key lines, DynamoDB JSON lines,
/// JSON items one a line and JSON arrays); below it a thread's start-up and the merge cost more than they
/// save.
pub const SPLIT_MIN_BYTES: u64 = 16 << 20;

/// How many threads read a file of `size` bytes in stretches: as many as the machine has cores, up to four;
/// `None` on a single core or below [`SPLIT_MIN_BYTES`].
pub fn stretch_threads(size: u64) -> Option<usize> {
    let threads = crate::source::threads::cores().min(4);
    (threads >= 2 && size >= SPLIT_MIN_BYTES).then_some(threads)
}

/// Loads a regular, uncompressed file of keys of `size` bytes on `threads` threads (as many as the machine
/// has cores, up to four: [`stretch_threads`]): each reads its own stretch of the file, cut at line ends, into
/// a key set of its own, and the sets are merged in file order, so keys keep the order in which they first
/// appear and every count is what one reader would have found.
///
/// Returns `Ok(None)` when the file is better read by [`load_lines`] from the start: a line with a tab (sort
/// keys: a key's facts depend on all its lines in order), or any bad line (one reader then names it by its
/// line number in the whole file).
///
/// Measured (`benches/lines_duckdb.sh`: 10,000,000 lines, 762,704 distinct keys, this 2-core machine,
/// `perf stat -r 5`): one core 0.43 s, two 0.26 s. Merging the second set is on both cores too
/// ([`crate::source::sink::merge_counts_on_two`]).
pub fn load_lines_split(
    file: &SplitFile<'_>,
    parser: &(dyn Fn() -> LineParser + Sync),
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Option<Loaded>, SourceError> {
    let &SplitFile {
        path,
        name,
        size,
        threads,
        ..
    } = file;
    let Some(cuts) = cut_points(file)? else {
        return Ok(None);
    };
    let shared = Stretches {
        path,
        name,
        cuts,
        parser,
        cancel,
        bail: AtomicBool::new(false),
        bytes: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        lines: (0..threads).map(|_| AtomicU64::new(0)).collect(),
    };
    let results = std::thread::scope(|scope| {
        let shared = &shared;
        let others: Vec<_> = (1..threads)
            .map(|k| scope.spawn(move || shared.read(k, &mut || {})))
            .collect();
        let first = shared.read(0, &mut || {
            let sum = |v: &[AtomicU64]| v.iter().map(|a| a.load(Ordering::Relaxed)).sum();
            progress(Progress {
                bytes: sum(&shared.bytes),
                total_bytes: Some(size),
                lines: sum(&shared.lines),
                items: 0,
                total_items: None,
            });
        });
        let mut all = vec![first];
        all.extend(others.into_iter().map(|h| h.join().unwrap_or(Ok(None))));
        all
    });
    let mut loaded: Option<Loaded> = None;
    for part in results {
        let Some((parser, bytes)) = part? else {
            return Ok(None);
        };
        let part = finish(parser, bytes);
        match loaded.as_mut() {
            None => loaded = Some(part),
            Some(l) => {
                l.lines += part.lines;
                l.bytes += part.bytes;
                crate::source::sink::merge_counts_on_two(&mut l.keys, &part.keys);
                l.items = l.keys.total();
            }
        }
    }
    Ok(loaded)
}

/// What the threads of [`load_stretches`] share.
struct Stretches<'a> {
    path: &'a Path,
    name: &'a Path,
    /// Stretch `k` is `cuts[k]..cuts[k + 1]`.
    cuts: Vec<u64>,
    parser: &'a (dyn Fn() -> LineParser + Sync),
    cancel: &'a AtomicBool,
    /// Set once a stretch finds what sends the file to a single reader: every reader stops.
    bail: AtomicBool,
    /// Bytes and lines read so far, by stretch.
    bytes: Vec<AtomicU64>,
    lines: Vec<AtomicU64>,
}

impl Stretches<'_> {
    /// Reads stretch `k` into a parser of its own; `Ok(None)` when the file is to go to one reader (a tab, a
    /// bad line, or another stretch's). `tick` runs after each chunk.
    fn read(
        &self,
        k: usize,
        tick: &mut dyn FnMut(),
    ) -> Result<Option<(LineParser, u64)>, SourceError> {
        let (from, to) = (self.cuts[k], self.cuts[k + 1]);
        let io_err = |error| SourceError::Io {
            name: self.name.to_path_buf(),
            error,
        };
        let mut file = std::fs::File::open(self.path).map_err(io_err)?;
        file.seek(SeekFrom::Start(from)).map_err(io_err)?;
        let mut reader = file.take(to - from);
        let mut parser = (self.parser)();
        let stop = AtomicBool::new(false);
        let outcome = read_lines(
            &mut reader,
            self.name,
            &mut parser,
            true,
            &stop,
            &mut |b, l| {
                self.bytes[k].store(b, Ordering::Relaxed);
                self.lines[k].store(l, Ordering::Relaxed);
                if self.bail.load(Ordering::Relaxed) || self.cancel.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                }
                tick();
            },
        );
        match outcome {
            Ok((bytes, Stop::End)) => Ok(Some((parser, bytes))),
            Err(SourceError::Cancelled) if self.cancel.load(Ordering::Relaxed) => {
                Err(SourceError::Cancelled)
            }
            Ok((_, Stop::Tab)) | Err(_) => {
                self.bail.store(true, Ordering::Relaxed);
                Ok(None)
            }
        }
    }
}

/// Where `file` is cut into as many stretches of whole lines as it has threads: `threads + 1` offsets from 0
/// to its size, each inner one just after a newline. `None` when a stretch would be empty or no newline is
/// near a cut (a line longer than a read: the single reader reports it).
pub(super) fn cut_points(file: &SplitFile<'_>) -> Result<Option<Vec<u64>>, SourceError> {
    let &SplitFile {
        path,
        name,
        size,
        threads: parts,
        ..
    } = file;
    let io_err = |error| SourceError::Io {
        name: name.to_path_buf(),
        error,
    };
    let mut file = std::fs::File::open(path).map_err(io_err)?;
    let mut cuts = vec![0u64];
    let mut window = vec![0u8; 64 << 10];
    for k in 1..parts as u64 {
        let at = size * k / parts as u64;
        file.seek(SeekFrom::Start(at)).map_err(io_err)?;
        let n = read_full(&mut file, &mut window).map_err(io_err)?;
        let Some(nl) = memchr::memchr(b'\n', &window[..n]) else {
            return Ok(None);
        };
        let cut = at + nl as u64 + 1;
        if cut <= cuts[cuts.len() - 1] || cut >= size {
            return Ok(None);
        }
        cuts.push(cut);
    }
    cuts.push(size);
    Ok(Some(cuts))
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

    /// `text` written to a file and loaded in `threads` stretches, or `None` when it went to one reader.
    fn split(text: &[u8], threads: usize, ty: KeyType) -> Result<Option<Loaded>, SourceError> {
        let dir = std::env::temp_dir().join(format!(
            "shardlens-split-{}-{threads}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("keys.txt");
        std::fs::write(&path, text).unwrap();
        let file = SplitFile {
            path: &path,
            name: Path::new("keys.txt"),
            size: text.len() as u64,
            threads,
            read_before: 0,
        };
        let out = load_lines_split(
            &file,
            &|| LineParser::new(ty),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        std::fs::remove_dir_all(&dir).unwrap();
        out
    }

    /// The keys in order with their counts, then total, lines, bytes and write order.
    fn summary(l: &Loaded) -> String {
        let keys: Vec<(&[u8], u64)> = l.keys.iter().map(|(_, k, c)| (k, c)).collect();
        let ordered = l.keys.write_ordered();
        format!(
            "{keys:?} {} {} {} {ordered}",
            l.keys.total(),
            l.lines,
            l.bytes
        )
    }

    #[test]
    fn stretches_load_what_one_reader_loads() {
        // Keys that first appear in every stretch, repeats across stretches, blank and CRLF lines, a key
        // longer than a word, and a last line without a newline.
        let mut text = Vec::new();
        let mut x = 7u64;
        for i in 0..40_000u64 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let k = (x >> 33) % (1 + i / 10);
            match i % 97 {
                0 => text.extend_from_slice(b"\n"),
                1 => text.extend_from_slice(format!("key-{k}\r\n").as_bytes()),
                2 => text
                    .extend_from_slice(format!("a-much-longer-key-of-many-bytes-{k}\n").as_bytes()),
                _ => text.extend_from_slice(format!("key-{k}\n").as_bytes()),
            }
        }
        text.extend_from_slice(b"tail");
        let one = load(&text, KeyType::S).unwrap();
        for threads in [2, 3, 4] {
            let many = split(&text, threads, KeyType::S).unwrap().unwrap();
            assert_eq!(summary(&many), summary(&one), "{threads} threads");
        }
        let numbers: Vec<u8> = (0..5000)
            .flat_map(|i| format!("{}\n", i % 700).into_bytes())
            .collect();
        let one = load(&numbers, KeyType::N).unwrap();
        let many = split(&numbers, 3, KeyType::N).unwrap().unwrap();
        assert_eq!(summary(&many), summary(&one));
    }

    #[test]
    fn stretches_give_way_to_one_reader_for_sort_keys_and_bad_lines() {
        let mut text: Vec<u8> = (0..5000)
            .flat_map(|i| format!("k{}\n", i % 300).into_bytes())
            .collect();
        let mut tab = text.clone();
        tab.extend_from_slice(b"k1\tsk\n");
        assert!(split(&tab, 2, KeyType::S).unwrap().is_none());
        let mut bad = text.clone();
        bad.extend_from_slice(b"\xff\xfe\n");
        assert!(split(&bad, 2, KeyType::S).unwrap().is_none());
        text.extend_from_slice(b"abc\n");
        assert!(split(&text, 3, KeyType::N).unwrap().is_none());
        // Too small to cut into stretches of whole lines.
        assert!(split(b"a\nb\n", 4, KeyType::S).unwrap().is_none());
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
