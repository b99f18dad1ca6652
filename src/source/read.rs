//! What every format shares: opening a path (gzip and zstd detected by their magic bytes), counting bytes for progress,
//! reading lines with a length cap, the [`Sink`] that turns records into keys under the bad-input policy, and
//! [`load`], which dispatches paths to their format.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::item::{KeyNames, Scratch, Tag};
use super::{At, Changes, FormatIn, Group, LoadOptions, Loaded, OnBad, Progress, SourceError};
use crate::model::KeySet;
use crate::model::KeyType;
use crate::model::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonicalize_into};

/// The longest line (one record) any line-based format accepts. A DynamoDB item is at most 400 KB, so even
/// heavily escaped JSON of one item stays far below this; a longer line is refused without being held.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// Bad-record messages kept in [`Loaded::warnings`] under [`OnBad::Skip`].
const MAX_SKIP_MESSAGES: usize = 5;

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

/// Opens a file (or standard input for `-`), decompressing gzip or zstd (detected by their magic bytes).
pub fn open<'a>(path: &Path, count: &'a AtomicU64) -> Result<Input<'a>, SourceError> {
    let name = display_name(path);
    let io_err = |source| SourceError::Io {
        name: name.clone(),
        source,
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
    if head.starts_with(&[0x1f, 0x8b]) {
        let decoder = flate2::bufread::MultiGzDecoder::new(buffered);
        Ok(Input {
            reader: Box::new(BufReader::with_capacity(BUF_BYTES, decoder)),
            compression: Compression::Gzip,
        })
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        // Concatenated frames are read one after the other, like gzip members.
        let decoder = zstd::stream::read::Decoder::with_buffer(buffered).map_err(io_err)?;
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
    let mut line = Vec::with_capacity(64 << 10);
    let mut n = 0u64;
    loop {
        line.clear();
        let limit = MAX_LINE_BYTES as u64 + 1;
        let read = loop {
            match reader.take(limit).read_until(b'\n', &mut line) {
                Ok(read) => break read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if compression != Compression::None => {
                    return Err(compression.corrupt(name, Some(n), &e));
                }
                Err(source) => {
                    return Err(SourceError::Io {
                        name: name.to_path_buf(),
                        source,
                    });
                }
            }
        };
        if read == 0 {
            return Ok(n);
        }
        n += 1;
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() > MAX_LINE_BYTES {
            return Err(SourceError::record(
                name,
                At::Line(n),
                format!(
                    "line is over {MAX_LINE_BYTES} bytes; expected one record a line (a DynamoDB item is at most 400 KB)"
                ),
            ));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if n.is_multiple_of(TICK_LINES) {
            tick(n, 0)?;
        }
        f(&line, n)?;
    }
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

/// Turns records into keys: checks key types, canonicalises, counts, and applies the bad-record policy.
#[derive(Debug)]
pub struct Sink {
    pub keys: KeySet,
    /// The partition key type, once known (given, or from the first item).
    pub key_type: Option<KeyType>,
    key_type_given: bool,
    sk_type: Option<KeyType>,
    pub items: u64,
    pub lines: u64,
    pub skipped: u64,
    pub warnings: Vec<String>,
    pub on_bad: OnBad,
    pub names: Option<KeyNames>,
    /// What the current input turned out to be, set by its loader (see [`Loaded::shape`]).
    pub shape: Option<String>,
    /// The shapes of the inputs read so far, each once.
    pub shapes: Vec<String>,
    /// The tables of a file that holds several, and the one loaded.
    pub tables: Vec<String>,
    pub table: Option<String>,
    pub changes: Changes,
    pk_buf: Vec<u8>,
    sk_buf: Vec<u8>,
}

impl Sink {
    pub fn new(opts: &LoadOptions) -> Self {
        Self {
            keys: KeySet::new(opts.key_type.unwrap_or_default()),
            key_type: opts.key_type,
            key_type_given: opts.key_type.is_some(),
            sk_type: None,
            items: 0,
            lines: 0,
            skipped: 0,
            warnings: Vec::new(),
            on_bad: opts.on_bad,
            names: None,
            shape: None,
            shapes: Vec::new(),
            tables: Vec::new(),
            table: None,
            changes: Changes::default(),
            pk_buf: Vec::with_capacity(64),
            sk_buf: Vec::with_capacity(64),
        }
    }

    /// A sink for a worker thread: same names and types as `self`, nothing counted.
    /// An empty sink with this one's settings for one of `of` loader threads (which share the budget of
    /// sort keys kept, so the merged set stays within it).
    pub fn fork(&self, of: usize) -> Self {
        Self {
            keys: KeySet::with_kept_budget(
                self.keys.key_type(),
                crate::model::keyset::MAX_KEPT_SORT_KEY_BYTES / of.max(1),
            ),
            key_type: self.key_type,
            key_type_given: self.key_type_given,
            sk_type: self.sk_type,
            items: 0,
            lines: 0,
            skipped: 0,
            warnings: Vec::new(),
            on_bad: self.on_bad,
            names: self.names.clone(),
            shape: None,
            shapes: Vec::new(),
            tables: Vec::new(),
            table: None,
            changes: Changes::default(),
            pk_buf: Vec::with_capacity(64),
            sk_buf: Vec::with_capacity(64),
        }
    }

    /// Adds a worker's keys and counts.
    pub fn absorb(&mut self, other: Sink) {
        if self.key_type.is_none() {
            self.key_type = other.key_type;
        }
        if self.keys.is_empty() && !self.keys.has_sort_keys() {
            self.keys = other.keys;
            self.keys
                .set_kept_budget(crate::model::keyset::MAX_KEPT_SORT_KEY_BYTES);
            self.keys.set_items_distinct(false);
        } else {
            self.keys.merge(&other.keys);
        }
        self.sk_type = self.sk_type.or(other.sk_type);
        self.items += other.items;
        self.lines += other.lines;
        self.skipped += other.skipped;
        self.changes.add(&other.changes);
        for w in other.warnings {
            self.warn(w);
        }
    }

    /// Records the shape of the input just read: the loader's, else `fallback`.
    pub fn note_shape(&mut self, fallback: &str) {
        let shape = self.shape.take().unwrap_or_else(|| fallback.to_owned());
        if !self.shapes.contains(&shape) {
            self.shapes.push(shape);
        }
    }

    pub fn warn(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    /// Applies the bad-record policy to a record's result.
    pub fn check(&mut self, result: Result<(), SourceError>) -> Result<(), SourceError> {
        match result {
            Err(e) if self.on_bad == OnBad::Skip && !e.is_fatal() => {
                self.skipped += 1;
                if self.skipped <= MAX_SKIP_MESSAGES as u64 {
                    self.warnings.push(format!("skipped: {e}"));
                }
                Ok(())
            }
            other => other,
        }
    }

    /// Fixes the key type from the first key seen (typed formats), or checks it against the known one.
    fn check_type(&mut self, ty: KeyType, what: &str) -> Result<(), String> {
        match self.key_type {
            None => {
                self.key_type = Some(ty);
                if self.keys.is_empty() {
                    self.keys = KeySet::new(ty);
                }
                Ok(())
            }
            Some(t) if t == ty => Ok(()),
            Some(t) => Err(format!(
                "{what} is of type {}; expected {} ({}) {}",
                Tag::Key(ty),
                t,
                t.describe(),
                if self.key_type_given {
                    "as --key-type says"
                } else {
                    "like the first item's"
                }
            )),
        }
    }

    /// Adds the key of one item read into `scratch`; `Err` is the reason it is not a valid item.
    pub fn add_scratch(&mut self, scratch: &Scratch, count: u64) -> Result<(), String> {
        let Some(names) = self.names.take() else {
            return Err("key attributes unknown".to_owned());
        };
        let result = self.add_named(&names, scratch, count);
        self.names = Some(names);
        result
    }

    fn add_named(&mut self, names: &KeyNames, scratch: &Scratch, count: u64) -> Result<(), String> {
        let pk_name = &names.pk;
        let Some(tag) = scratch.pk.as_ref() else {
            return Err(format!(
                "item has no attribute {pk_name:?}; expected the partition key{} (pass --key ATTR to choose another)",
                if names.guessed {
                    ", guessed from the first item,"
                } else {
                    ""
                }
            ));
        };
        let ty = match tag {
            Tag::Key(t) => *t,
            Tag::Other(t) => {
                return Err(format!(
                    "partition key {pk_name:?} is of type {t}; expected S, N or B"
                ));
            }
        };
        if self.key_type != Some(ty) {
            self.check_type(ty, &format!("partition key {pk_name:?}"))?;
        }
        if ty == KeyType::S
            && !scratch.pk_raw.is_empty()
            && scratch.pk_raw.len() <= MAX_PARTITION_KEY_BYTES
        {
            // Text read from a parsed `&str` is UTF-8 already: a string key is its bytes.
            self.pk_buf.clear();
            self.pk_buf.extend_from_slice(&scratch.pk_raw);
        } else {
            canonicalize_into(
                &scratch.pk_raw,
                ty,
                MAX_PARTITION_KEY_BYTES,
                &mut self.pk_buf,
            )
            .map_err(|e| format!("partition key {pk_name:?}: {e}"))?;
        }
        let sk = match (&scratch.sk, names.sk.as_ref()) {
            (Some(Tag::Key(st)), Some(sk_name)) => {
                let st = *st;
                match self.sk_type {
                    None => self.sk_type = Some(st),
                    Some(t) if t == st => {}
                    Some(t) => {
                        return Err(format!(
                            "sort key {sk_name:?} is of type {}; expected {} like the first item's",
                            Tag::Key(st),
                            Tag::Key(t)
                        ));
                    }
                }
                canonicalize_into(&scratch.sk_raw, st, MAX_SORT_KEY_BYTES, &mut self.sk_buf)
                    .map_err(|e| format!("sort key {sk_name:?}: {e}"))?;
                Some(st)
            }
            (Some(Tag::Other(t)), Some(sk_name)) => {
                return Err(format!(
                    "sort key {sk_name:?} is of type {t}; expected S, N or B"
                ));
            }
            _ => None,
        };
        let idx = match sk {
            Some(st) => self
                .keys
                .add_item(&self.pk_buf, Some((&self.sk_buf, st)), count),
            None => self.keys.add(&self.pk_buf, count),
        };
        if let Some(bytes) = scratch.item_bytes {
            self.keys.note_item_bytes(idx, bytes, count);
        }
        self.items += count;
        Ok(())
    }

    /// Adds a key given as text of the sink's key type (text formats: CSV).
    pub fn add_text(
        &mut self,
        pk: &[u8],
        sk: Option<&[u8]>,
        count: u64,
    ) -> Result<(), crate::model::key::KeyError> {
        let ty = self.keys.key_type();
        canonicalize_into(pk, ty, MAX_PARTITION_KEY_BYTES, &mut self.pk_buf)?;
        match sk.filter(|s| !s.is_empty()) {
            Some(sk) => {
                canonicalize_into(sk, KeyType::S, MAX_SORT_KEY_BYTES, &mut self.sk_buf)?;
                self.keys
                    .add_item(&self.pk_buf, Some((&self.sk_buf, KeyType::S)), count);
            }
            None => {
                self.keys.add(&self.pk_buf, count);
            }
        }
        self.items += count;
        Ok(())
    }

    /// Resolves the key names from the first item's attributes in `scratch.attrs`, then moves that item's
    /// keys into place.
    pub fn resolve_from_first(
        &mut self,
        scratch: &mut Scratch,
        opts: &LoadOptions,
    ) -> Result<(), String> {
        let attrs = scratch.attrs.take().unwrap_or_default();
        let listed: Vec<(&str, Option<KeyType>)> = attrs
            .iter()
            .map(|(n, t, _)| {
                (
                    n.as_str(),
                    match t {
                        Tag::Key(k) => Some(*k),
                        Tag::Other(_) => None,
                    },
                )
            })
            .collect();
        let (names, note) =
            super::item::resolve_names(&listed, opts.key.as_deref(), opts.sort_key.as_deref())?;
        if let Some(note) = note {
            self.warn(note);
        }
        scratch.attrs = Some(attrs);
        scratch.take_from_attrs(&names);
        self.names = Some(names);
        Ok(())
    }

    pub fn into_loaded(self, bytes: u64, groups: Option<Vec<Group>>) -> Loaded {
        let (key_attribute, sort_key_attribute) = match self.names {
            Some(n) => (Some(n.pk), n.sk),
            None => (None, None),
        };
        Loaded {
            keys: self.keys,
            lines: self.lines,
            bytes,
            items: self.items,
            groups,
            skipped: self.skipped,
            warnings: self.warnings,
            key_attribute,
            sort_key_attribute,
            shape: (!self.shapes.is_empty()).then(|| self.shapes.join("; ")),
            tables: self.tables,
            table: self.table,
            changes: self.changes,
        }
    }
}

/// Shared state of one load: options, cancel flag, byte counter and the progress callback.
pub struct Ctx<'a, 'p> {
    pub opts: &'a LoadOptions,
    pub cancel: &'a AtomicBool,
    pub bytes: &'a AtomicU64,
    pub total_bytes: Option<u64>,
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
        });
    }
}

/// Loads keys from `paths` (files, S3 export folders, `-` for standard input) into one key set. See the
/// [module docs](super) for formats and the bad-input policy.
pub fn load(
    paths: &[PathBuf],
    opts: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    let bytes = AtomicU64::new(0);
    let total_bytes = paths
        .iter()
        .map(|p| super::s3_export::input_bytes(p))
        .sum::<Option<u64>>();
    let mut ctx = Ctx {
        opts,
        cancel,
        bytes: &bytes,
        total_bytes,
        progress,
    };
    let mut sink = Sink::new(opts);
    let mut groups: Option<Vec<Group>> = None;
    let stdin = [PathBuf::from("-")];
    let paths = if paths.is_empty() { &stdin[..] } else { paths };
    for path in paths {
        if cancel.load(Ordering::Relaxed) {
            return Err(SourceError::Cancelled);
        }
        let before_items = sink.items;
        if path.is_dir() {
            let g = super::s3_export::load_folder(path, &mut sink, &mut ctx)?;
            groups.get_or_insert_with(Vec::new).extend(g);
            sink.note_shape("S3 export folder");
        } else {
            load_file(path, &mut sink, &mut ctx)?;
        }
        if sink.items == before_items && sink.skipped == 0 && !path.is_dir() {
            let empty = !is_stdin(path) && std::fs::metadata(path).is_ok_and(|m| m.len() == 0);
            if empty {
                sink.warn(format!(
                    "{} is empty: no keys",
                    display_name(path).display()
                ));
            }
        }
    }
    ctx.report(sink.lines, sink.items);
    Ok(sink.into_loaded(bytes.load(Ordering::Relaxed), groups))
}

/// Loads one file (not a folder) in the format the options say, or the detected one.
pub fn load_file(path: &Path, sink: &mut Sink, ctx: &mut Ctx<'_, '_>) -> Result<(), SourceError> {
    let name = display_name(path);
    let mut input = open(path, ctx.bytes)?;
    let format = match ctx.opts.format {
        FormatIn::Auto => super::detect::detect_input(&mut input, path, &name)?,
        f => f,
    };
    sink.shape = None;
    let result = load_format(format, &mut input, &name, sink, ctx);
    sink.note_shape(format.describe());
    result
}

/// Loads an opened input in `format`.
fn load_format(
    format: FormatIn,
    input: &mut Input<'_>,
    name: &Path,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<(), SourceError> {
    // An empty input (or gzip of nothing) is zero keys in every format; `load` warns about it.
    if matches!(input.reader.fill_buf(), Ok([])) {
        return Ok(());
    }
    let opts = ctx.opts;
    let cancel = ctx.cancel;
    let (lines_before, items_before) = (sink.lines, sink.items);
    let mut tick = |lines: u64, _items: u64| ctx.tick(lines_before, items_before, lines, lines);
    let reader = &mut *input.reader;
    let compression = input.compression;
    match format {
        FormatIn::Auto | FormatIn::Lines => {
            let ty = sink.key_type.unwrap_or_default();
            let loaded = super::lines::load_lines(reader, name, ty, None, cancel, &mut |p| {
                let _ = tick(p.lines, p.lines);
            })?;
            sink.key_type = Some(ty);
            sink.lines += loaded.lines;
            sink.items += loaded.keys.total();
            if sink.keys.is_empty() && !sink.keys.has_sort_keys() {
                sink.keys = loaded.keys;
            } else {
                sink.keys.merge(&loaded.keys);
            }
            Ok(())
        }
        FormatIn::Csv => super::csv::load_csv(reader, compression, name, sink, opts, &mut tick),
        FormatIn::DynamodbJson => super::dynamodb_json::load_json_lines(
            reader,
            compression,
            name,
            "Item",
            sink,
            opts,
            &mut tick,
        ),
        FormatIn::Incremental => {
            super::incremental::load_incremental(reader, compression, name, sink, opts, &mut tick)
        }
        FormatIn::Ion => super::ion::load_ion(reader, compression, name, sink, opts, &mut tick),
        FormatIn::Workbench => {
            skip_bom(reader);
            super::workbench::load_workbench(reader, name, sink, opts)
        }
        FormatIn::ScanJson | FormatIn::JsonArray | FormatIn::JsonItems | FormatIn::BatchWrite => {
            skip_bom(reader);
            super::json_doc::load_json_doc(reader, compression, name, format, sink, opts, &mut tick)
        }
    }
}

/// Skips a UTF-8 byte order mark at the start of `reader`.
fn skip_bom(reader: &mut dyn BufRead) {
    if reader
        .fill_buf()
        .is_ok_and(|b| b.starts_with(b"\xEF\xBB\xBF"))
    {
        reader.consume(3);
    }
}
