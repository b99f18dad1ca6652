//! What every format's reader shares: opening a path (gzip and zstd detected by their magic bytes), counting
//! bytes for progress, reading lines with a length cap, messages for bad JSON, and [`FileLoad`], the one value
//! a format's loader takes, with [`SplitFile`], a large file a loader reads in stretches ([`SplitLoad`]), and
//! [`Ctx`], the load's shared state beside either. The records go into a [`Sink`] (`sink.rs`);
//! [`super::load`] dispatches the paths.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{At, LoadOptions, Progress, SourceError};

pub use super::sink::Sink;

/// The longest line (one record) any line-based format accepts. A DynamoDB item is at most 400 KB, so even
/// heavily escaped JSON of one item stays far below this; a longer line is refused without being held.
pub const MAX_LINE_BYTES: usize = 16 << 20;

const BUF_BYTES: usize = 256 << 10;

/// Counts bytes read from the underlying file into a shared counter (compressed bytes for gzip).
pub struct Counting<'a, R> {
    pub inner: R,
    pub count: &'a AtomicU64,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// How an input is compressed (detected by its magic bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The error for compressed data that stops decoding (`after`: the lines read before).
    pub fn corrupt(self, name: &Path, after: Option<u64>, e: &std::io::Error) -> SourceError {
        let format = if self == Self::Zstd { "zstd" } else { "gzip" };
        SourceError::record(
            name,
            At::File,
            format!(
                "{format} data is truncated or corrupt{} ({e}); expected a complete {format} file",
                after.map_or_else(String::new, |n| format!(" after line {n}"))
            ),
        )
    }
}

/// An opened input: buffered, decompressed when it is gzip or zstd.
pub struct Input<'a> {
    pub reader: Box<dyn BufRead + Send + 'a>,
    pub compression: Compression,
}

/// Is `path` standard input (`-`)?
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

/// The name used in messages for `path`.
pub fn display_name(path: &Path) -> PathBuf {
    if is_stdin(path) {
        PathBuf::from("standard input")
    } else {
        path.to_path_buf()
    }
}

/// A file's name for a status line ("export", "keys.txt"): the last part of its path (the whole path when it
/// has none, "standard input" for `-`). Messages keep the full path.
pub fn display_file_name(path: &Path) -> String {
    if is_stdin(path) {
        return "standard input".to_owned();
    }
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Opens a file (or standard input for `-`), decompressing gzip or zstd (detected by their magic bytes).
pub fn open<'a>(path: &Path, count: &'a AtomicU64) -> Result<Input<'a>, SourceError> {
    let name = display_name(path);
    let io_err = |error| SourceError::Io {
        name: name.clone(),
        error,
    };
    let raw: Box<dyn Read + Send> = if is_stdin(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).map_err(io_err)?)
    };
    let mut buffered = BufReader::with_capacity(BUF_BYTES, Counting { inner: raw, count });
    let head = loop {
        match buffered.fill_buf() {
            Ok(head) => break head,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_err(e)),
        }
    };
    let sniffed = sniff(head);
    if sniffed == Compression::Gzip {
        let decoder = super::gzip::gz_decoder(buffered);
        Ok(Input {
            reader: Box::new(BufReader::with_capacity(BUF_BYTES, decoder)),
            compression: Compression::Gzip,
        })
    } else if sniffed == Compression::Zstd {
        // Concatenated frames are read one after the other, like gzip members.
        let decoder = super::zstd::decoder(buffered).map_err(io_err)?;
        Ok(Input {
            reader: Box::new(BufReader::with_capacity(BUF_BYTES, decoder)),
            compression: Compression::Zstd,
        })
    } else {
        Ok(Input {
            reader: Box::new(buffered),
            compression: Compression::None,
        })
    }
}

/// [`open`] for bytes held in memory (a file a web page was given, a download), said by `name` in messages:
/// gzip and zstd undone as for a file; `count` hears the compressed bytes read, as for a file.
pub fn open_bytes<'a>(
    bytes: &'a [u8],
    name: &Path,
    count: &'a AtomicU64,
) -> Result<Input<'a>, SourceError> {
    let buffered = BufReader::with_capacity(
        BUF_BYTES,
        Counting {
            inner: bytes,
            count,
        },
    );
    Ok(match sniff(bytes) {
        Compression::Gzip => Input {
            reader: Box::new(BufReader::with_capacity(
                BUF_BYTES,
                super::gzip::gz_decoder(buffered),
            )),
            compression: Compression::Gzip,
        },
        Compression::Zstd => {
            let decoder = super::zstd::decoder(buffered).map_err(|error| SourceError::Io {
                name: name.to_path_buf(),
                error,
            })?;
            Input {
                reader: Box::new(BufReader::with_capacity(BUF_BYTES, decoder)),
                compression: Compression::Zstd,
            }
        }
        Compression::None => Input {
            reader: Box::new(buffered),
            compression: Compression::None,
        },
    })
}

/// How the bytes that begin an input are compressed (gzip and zstd by their magic bytes).
fn sniff(head: &[u8]) -> Compression {
    if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// [`open`], for an input read by one reader on a machine of several cores: a gzip or zstd file, or standard
/// input, is decompressed on a thread of its own ([`super::inflate`]) while the reader parses. Anything but a
/// regular file or standard input (a FIFO's bytes can be read only once, and [`open`] reads its first bytes
/// where the reader reads the rest) and uncompressed files open as with [`open`].
pub fn open_apart<'a>(path: &Path, count: &'a AtomicU64) -> Result<Input<'a>, SourceError> {
    let cores = super::threads::cores();
    if cores < 2 {
        return open(path, count);
    }
    let name = display_name(path);
    let io_err = |error| SourceError::Io {
        name: name.clone(),
        error,
    };
    let mut magic = [0u8; 4];
    if is_stdin(path) {
        // The first bytes, read to tell the compression, go back in front of the rest.
        let mut stdin = std::io::stdin();
        let n = read_full(&mut stdin, &mut magic).map_err(io_err)?;
        let raw = std::io::Cursor::new(magic[..n].to_vec()).chain(stdin);
        return Ok(match sniff(&magic[..n]) {
            Compression::None => Input {
                reader: Box::new(BufReader::with_capacity(
                    BUF_BYTES,
                    Counting { inner: raw, count },
                )),
                compression: Compression::None,
            },
            compression => inflated(raw, compression, count),
        });
    }
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return open(path, count);
    }
    let mut file = File::open(path).map_err(io_err)?;
    let n = read_full(&mut file, &mut magic).map_err(io_err)?;
    match sniff(&magic[..n]) {
        Compression::None => open(path, count),
        compression => {
            file.seek(std::io::SeekFrom::Start(0)).map_err(io_err)?;
            Ok(inflated(file, compression, count))
        }
    }
}

/// `raw`, compressed as `compression` says, decompressed on a thread of its own.
fn inflated<'a, R: Read + Send + 'static>(
    raw: R,
    compression: Compression,
    count: &'a AtomicU64,
) -> Input<'a> {
    let reader = super::inflate::inflate_on_thread(
        raw,
        move |raw| -> std::io::Result<Box<dyn Read>> {
            let buffered = BufReader::with_capacity(BUF_BYTES, raw);
            Ok(match compression {
                Compression::Zstd => super::zstd::decoder(buffered)?,
                _ => super::gzip::gz_decoder(buffered),
            })
        },
        count,
    );
    Input {
        reader: Box::new(reader),
        compression,
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
pub fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match reader.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Called every [`TICK_LINES`] lines with the lines read in the current file; returns `Err(Cancelled)` to stop.
pub type Tick<'t> = dyn FnMut(u64, u64) -> Result<(), SourceError> + 't;

/// Lines between progress reports and cancel checks.
pub const TICK_LINES: u64 = 1 << 16;

/// Reads `reader` line by line (without the `\n` and a `\r` before it), calling `f(line, line_number)`,
/// and `tick(lines, 0)` every [`TICK_LINES`] lines. A line over [`MAX_LINE_BYTES`] stops with an error before
/// it is held in memory.
pub fn for_each_line(
    reader: &mut dyn BufRead,
    name: &Path,
    compression: Compression,
    tick: &mut Tick<'_>,
    mut f: impl FnMut(&[u8], u64) -> Result<(), SourceError>,
) -> Result<u64, SourceError> {
    for_each_line_ahead(
        reader,
        name,
        compression,
        tick,
        &mut (),
        |(), _| {},
        |(), line, n| f(line, n),
    )
}

/// Line ends [`for_each_line_ahead`] lists from one fill before it handles those lines.
const ENDS_AT_ONCE: usize = 4096;

/// Lines a reader shows [`for_each_line_ahead`]'s `ahead` before they go to its `f`.
pub const LINES_AHEAD: usize = 6;

/// [`for_each_line`], showing each line to `ahead` (with `state`) up to [`LINES_AHEAD`] lines before it goes
/// to `f`, so that a loader can ask for the memory a line will need while it handles the lines before (a
/// line that crosses the reader's buffer is shown only just before it goes to `f`). `ahead` sees every line
/// once, in order; its lines have their `\r` but are not checked against [`MAX_LINE_BYTES`] yet.
///
/// Lines are handed out from the reader's own buffer, not copied, but for a line split across two fills.
pub fn for_each_line_ahead<S>(
    reader: &mut dyn BufRead,
    name: &Path,
    compression: Compression,
    tick: &mut Tick<'_>,
    state: &mut S,
    mut ahead: impl FnMut(&mut S, &[u8]),
    mut f: impl FnMut(&mut S, &[u8], u64) -> Result<(), SourceError>,
) -> Result<u64, SourceError> {
    let mut carry: Vec<u8> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    let mut n = 0u64;
    let mut emit = |state: &mut S, line: &[u8], n: &mut u64| -> Result<(), SourceError> {
        *n += 1;
        if line.len() > MAX_LINE_BYTES {
            return Err(line_too_long(name, *n));
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if n.is_multiple_of(TICK_LINES) {
            tick(*n, 0)?;
        }
        f(state, line, *n)
    };
    loop {
        let buf = fill_lines(reader, name, compression, n)?;
        let len = buf.len();
        if len == 0 {
            if !carry.is_empty() {
                ahead(state, &carry);
                emit(state, &carry, &mut n)?;
            }
            return Ok(n);
        }
        let mut from = 0;
        if !carry.is_empty() {
            // The rest of a line begun in the last fill.
            let Some(at) = memchr::memchr(b'\n', buf) else {
                if carry.len() + len > MAX_LINE_BYTES {
                    return Err(line_too_long(name, n + 1));
                }
                carry.extend_from_slice(buf);
                reader.consume(len);
                continue;
            };
            carry.extend_from_slice(&buf[..at]);
            ahead(state, &carry);
            emit(state, &carry, &mut n)?;
            carry.clear();
            from = at + 1;
        }
        ends.clear();
        // At most ENDS_AT_ONCE lines of the fill at a time: a reader whose buffer is its whole input (a
        // slice) would otherwise have every line's end listed first.
        ends.extend(
            memchr::memchr_iter(b'\n', &buf[from..])
                .map(|at| from + at)
                .take(ENDS_AT_ONCE),
        );
        let starts = std::iter::once(from).chain(ends.iter().map(|&e| e + 1));
        let mut shown = 0;
        for (j, (start, &end)) in starts.zip(&ends).enumerate() {
            while shown < ends.len() && shown <= j + LINES_AHEAD {
                let s = if shown == 0 {
                    from
                } else {
                    ends[shown - 1] + 1
                };
                ahead(state, &buf[s..ends[shown]]);
                shown += 1;
            }
            emit(state, &buf[start..end], &mut n)?;
        }
        let rest = ends.last().map_or(from, |&e| e + 1);
        if ends.len() == ENDS_AT_ONCE {
            // More lines may follow in this fill: the next pass over it finds them.
            reader.consume(rest);
            continue;
        }
        if len - rest > MAX_LINE_BYTES {
            return Err(line_too_long(name, n + 1));
        }
        carry.extend_from_slice(&buf[rest..]);
        reader.consume(len);
    }
}

/// The reader's next bytes (retrying an interrupted read); an error names the file, and for compressed data
/// the lines read before (`n`).
fn fill_lines<'r>(
    reader: &'r mut dyn BufRead,
    name: &Path,
    compression: Compression,
    n: u64,
) -> Result<&'r [u8], SourceError> {
    loop {
        match reader.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if compression != Compression::None => {
                return Err(compression.corrupt(name, Some(n), &e));
            }
            Err(error) => {
                return Err(SourceError::Io {
                    name: name.to_path_buf(),
                    error,
                });
            }
        }
    }
    // Filled: this returns the same buffer without reading.
    reader.fill_buf().map_err(|error| SourceError::Io {
        name: name.to_path_buf(),
        error,
    })
}

fn line_too_long(name: &Path, n: u64) -> SourceError {
    SourceError::record(
        name,
        At::Line(n),
        format!(
            "line is over {MAX_LINE_BYTES} bytes; expected one record a line (a DynamoDB item is at most 400 KB)"
        ),
    )
}

/// The reason a serde_json error gives, without serde's " at line L column C" (we say where ourselves).
pub fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => format!("{} at column {}", &text[..i], e.column()),
        None => text,
    }
}

/// Why a line is not valid JSON: invalid UTF-8 is named as such.
pub fn invalid_json_line(line: &[u8], e: &serde_json::Error) -> String {
    match std::str::from_utf8(line) {
        Err(u) => format!(
            "not valid UTF-8 at byte {}; expected UTF-8 JSON",
            u.valid_up_to() + 1
        ),
        Ok(_) if e.is_data() => format!("unexpected JSON: {}", json_reason(e)),
        Ok(_) => format!("invalid JSON: {}", json_reason(e)),
    }
}

/// One opened input as a format's loader reads it: the reader and its compression, the name messages use,
/// the options, the [`Sink`] the records go into and the progress tick.
pub struct FileLoad<'a, 't> {
    pub reader: &'a mut dyn BufRead,
    pub compression: Compression,
    pub name: &'a Path,
    pub opts: &'a LoadOptions,
    pub sink: &'a mut Sink,
    pub tick: &'a mut Tick<'t>,
}

/// A [`FileLoad`]'s parts, for a loader that reads them one by one.
pub type FileParts<'a, 't> = (
    &'a mut dyn BufRead,
    Compression,
    &'a Path,
    &'a LoadOptions,
    &'a mut Sink,
    &'a mut Tick<'t>,
);

impl<'a, 't> FileLoad<'a, 't> {
    /// The parts: reader, compression, name, options, sink and tick.
    pub fn into_parts(self) -> FileParts<'a, 't> {
        (
            self.reader,
            self.compression,
            self.name,
            self.opts,
            self.sink,
            self.tick,
        )
    }
}

/// Shared state of one load ([`super::load`]), which each file's loader is given beside its [`FileLoad`] or
/// [`SplitFile`]: options, cancel flag, byte counter and the progress callback.
pub struct Ctx<'a, 'p> {
    pub opts: &'a LoadOptions,
    pub cancel: &'a AtomicBool,
    pub bytes: &'a AtomicU64,
    pub total_bytes: Option<u64>,
    pub total_items: Option<u64>,
    pub progress: &'a mut (dyn FnMut(Progress) + 'p),
}

impl Ctx<'_, '_> {
    /// A [`Tick`] for the calling thread: checks cancel and reports progress (lines and items so far plus
    /// those of the current file).
    pub fn tick(
        &mut self,
        lines_before: u64,
        items_before: u64,
        lines: u64,
        items: u64,
    ) -> Result<(), SourceError> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(SourceError::Cancelled);
        }
        self.report(lines_before + lines, items_before + items);
        Ok(())
    }

    pub fn report(&mut self, lines: u64, items: u64) {
        (self.progress)(Progress {
            bytes: self.bytes.load(Ordering::Relaxed),
            total_bytes: self.total_bytes,
            lines,
            items,
            total_items: self.total_items,
        });
    }
}

/// A large, regular, uncompressed file to be read in stretches on several threads ([`SplitLoad`]).
#[derive(Debug, Clone, Copy)]
pub struct SplitFile<'a> {
    /// Where the file is.
    pub path: &'a Path,
    /// Its name in messages.
    pub name: &'a Path,
    /// Its size in bytes when the load began.
    pub size: u64,
    /// The threads to read it on ([`super::lines::stretch_threads`]).
    pub threads: usize,
    /// The load's byte count before the file was opened (its readers count the whole file again).
    pub read_before: u64,
}

/// A loader that reads a large plain file in stretches on several threads into the sink; `Ok(false)` when it
/// is to be read by one.
pub(crate) type SplitLoad =
    fn(&SplitFile<'_>, &mut Sink, &mut Ctx<'_, '_>) -> Result<bool, SourceError>;

/// For the formats' unit tests: runs `loader` over `text` (uncompressed, named `name`) into a new sink.
#[cfg(test)]
pub(crate) fn load_text(
    text: &str,
    name: &str,
    opts: &LoadOptions,
    loader: impl FnOnce(FileLoad<'_, '_>) -> Result<(), SourceError>,
) -> Result<Sink, SourceError> {
    let mut sink = Sink::new(opts);
    let mut reader = text.as_bytes();
    loader(FileLoad {
        reader: &mut reader,
        compression: Compression::None,
        name: Path::new(name),
        opts,
        sink: &mut sink,
        tick: &mut |_, _| Ok(()),
    })?;
    Ok(sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `f` was given: (line, number) each.
    type Given = Vec<(Vec<u8>, u64)>;
    /// What `ahead` was shown: each line with how many lines `f` had had by then.
    type Shown = Vec<(Vec<u8>, usize)>;

    /// Every line `for_each_line_ahead` gives through a buffer of `cap` bytes, and what `ahead` saw.
    fn lines(text: &[u8], cap: usize) -> (Given, Shown) {
        let mut reader = BufReader::with_capacity(cap, text);
        let mut seen = (Vec::new(), Vec::new());
        let n = for_each_line_ahead(
            &mut reader,
            Path::new("t"),
            Compression::None,
            &mut |_, _| Ok(()),
            &mut seen,
            |s, line| s.1.push((line.to_vec(), s.0.len())),
            |s, line, n| {
                s.0.push((line.to_vec(), n));
                Ok(())
            },
        );
        assert_eq!(n.ok(), Some(seen.0.len() as u64));
        seen
    }

    #[test]
    fn lines_come_whole_through_any_buffer_and_are_seen_ahead() {
        let text = b"a\r\nbb\n\nccc\r\nlast";
        let want: Given = [&b"a"[..], b"bb", b"", b"ccc", b"last"]
            .iter()
            .zip(1..)
            .map(|(l, n)| (l.to_vec(), n))
            .collect();
        for cap in [1, 2, 3, 5, 64] {
            let (got, ahead) = lines(text, cap);
            assert_eq!(got, want, "buffer of {cap}");
            // `ahead` sees each line once, in order, never after `f` had it, at most LINES_AHEAD before.
            assert_eq!(ahead.len(), want.len(), "buffer of {cap}");
            for (i, (line, had)) in ahead.iter().enumerate() {
                let bare = line.strip_suffix(b"\r").unwrap_or(line);
                assert_eq!(bare, &want[i].0[..], "buffer of {cap}");
                assert!(
                    *had <= i && i - *had <= LINES_AHEAD,
                    "buffer of {cap}: {i} {had}"
                );
            }
        }
        // In one buffer, lines are seen ahead by LINES_AHEAD.
        let many: Vec<u8> = (0..20)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let (_, ahead) = lines(&many, 1 << 10);
        assert!(ahead[..=LINES_AHEAD].iter().all(|(_, had)| *had == 0));
        assert_eq!(ahead[LINES_AHEAD + 3].1, 3);
        // A reader whose buffer is its whole input, with more lines than are listed at once.
        let long: Vec<u8> = (0..ENDS_AT_ONCE * 2 + 5)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        let (got, ahead) = lines(&long, long.len());
        assert_eq!(got.len(), ENDS_AT_ONCE * 2 + 5);
        assert!(
            got.iter()
                .zip(1..)
                .all(|((l, n), i)| *n == i && *l == format!("{}", i - 1).into_bytes())
        );
        assert_eq!(ahead.len(), got.len());
        assert_eq!(lines(b"", 4).0, Vec::new());
        assert_eq!(lines(b"\n", 4).0, vec![(Vec::new(), 1)]);
    }

    #[test]
    fn a_line_over_the_limit_is_refused_with_its_number() {
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 1));
        text.extend(b"\nafter\n");
        for cap in [256 << 10, MAX_LINE_BYTES * 2] {
            let mut reader = BufReader::with_capacity(cap, &text[..]);
            let mut got = Vec::new();
            let err = for_each_line(
                &mut reader,
                Path::new("t"),
                Compression::None,
                &mut |_, _| Ok(()),
                |line, _| {
                    got.push(line.len());
                    Ok(())
                },
            );
            let Err(e) = err else {
                panic!("a long line was taken (buffer of {cap})");
            };
            assert!(e.to_string().contains("line 2: line is over"), "{e}");
            assert_eq!(got, vec![2], "buffer of {cap}");
        }
        // Exactly the limit is taken.
        let mut text = vec![b'y'; MAX_LINE_BYTES];
        text.push(b'\n');
        let mut reader = BufReader::with_capacity(256 << 10, &text[..]);
        let n = for_each_line(
            &mut reader,
            Path::new("t"),
            Compression::None,
            &mut |_, _| Ok(()),
            |line, _| {
                assert_eq!(line.len(), MAX_LINE_BYTES);
                Ok(())
            },
        );
        assert_eq!(n.ok(), Some(1));
    }
}
