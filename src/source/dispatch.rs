//! [`load`](fn@load): the one entry point the app and the CLI call. It walks the paths (files, S3 export folders, `-`),
//! opens each, detects its format unless told, and hands the opened input to that format's loader as one
//! [`FileLoad`]. [`load_files`] does the same for files held in memory (what a page was given: several files,
//! or a folder's), through the same walk over a [`Tree`], so both say the same things of the same files.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::read::{
    Compression, Ctx, FileLoad, Input, SplitFile, SplitLoad, display_name, is_stdin, open_apart,
};
use super::sink::Sink;
use super::tree::{Disk, InMemory, Tree};
use super::{FormatIn, Group, LoadOptions, Loaded, Progress, SourceError};

/// Loads keys from `paths` (files, S3 export folders, `-` for standard input) into one key set. See the
/// [module docs](super) for formats and the bad-input policy.
pub fn load(
    paths: &[PathBuf],
    opts: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    let stdin = [PathBuf::from("-")];
    let paths = if paths.is_empty() { &stdin[..] } else { paths };
    load_from(&Disk, paths, opts, cancel, progress)
}

/// [`load`] for one input held in memory and said by `name` (a file a web page was given, a download): its
/// format detected from its name and first bytes unless the options say it, gzip and zstd undone, read by one
/// reader in that format's loader (as a compressed file or standard input is; nothing is read in stretches,
/// and a folder cannot be bytes).
pub fn load_bytes(
    name: &Path,
    bytes: &[u8],
    opts: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    load_files(name, &[(name.to_path_buf(), bytes)], opts, cancel, progress)
}

/// [`load`] for several files held in memory, each said by its path, into one key set: the folder `name` when
/// every file lies in it (a folder picked in a page: an S3 export in it reads as the export, with its manifests'
/// checks, as on disk), else each file in the order given, as [`load`] reads several paths
/// ([`super::tree::inputs_of`]). Each file is read by one reader, as [`load_bytes`] reads one.
pub fn load_files(
    name: &Path,
    files: &[(PathBuf, &[u8])],
    opts: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    let inputs = super::tree::inputs_of(name, files);
    load_from(&InMemory::new(files), &inputs, opts, cancel, progress)
}

/// Loads `paths` of `tree` (files, S3 export folders, `-` on disk) into one key set.
fn load_from(
    tree: &dyn Tree,
    paths: &[PathBuf],
    opts: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Loaded, SourceError> {
    // An S3 export's manifest stands for its export (detection is on: a format given reads the file itself).
    let mut notes = Vec::new();
    let paths: Vec<PathBuf> = paths
        .iter()
        .map(|p| match super::s3_export::export_of_manifest_in(tree, p) {
            Some(folder) if opts.format == FormatIn::Auto => {
                notes.push(format!(
                    "{} is an S3 export's manifest: read as the export in {} (--format-in json-items reads the \
                     file itself)",
                    display_name(p).display(),
                    tree.shown(&folder).display()
                ));
                folder
            }
            _ => p.clone(),
        })
        .collect();
    let bytes = AtomicU64::new(0);
    let total_bytes = paths
        .iter()
        .map(|p| super::s3_export::input_bytes_in(tree, p))
        .sum::<Option<u64>>();
    let total_items = paths
        .iter()
        .map(|p| super::s3_export::input_items_in(tree, p))
        .sum::<Option<u64>>();
    let mut ctx = Ctx {
        opts,
        cancel,
        bytes: &bytes,
        total_bytes,
        total_items,
        progress,
    };
    let mut sink = Sink::new(opts);
    for note in notes {
        sink.warn(note);
    }
    let mut groups: Option<Vec<Group>> = None;
    for path in &paths {
        if cancel.load(Ordering::Relaxed) {
            return Err(SourceError::Cancelled);
        }
        let before_items = sink.items;
        let is_dir = tree.is_dir(path);
        if is_dir {
            let g = super::s3_export::load_folder(tree, path, &mut sink, &mut ctx)?;
            groups.get_or_insert_with(Vec::new).extend(g);
            sink.note_shape("S3 export folder");
        } else if let Some(held) = tree.held(path) {
            load_held(path, held, &mut sink, &mut ctx)?;
        } else {
            load_file(path, &mut sink, &mut ctx)?;
        }
        if sink.items == before_items && sink.skipped == 0 && !is_dir && tree.size(path) == Some(0)
        {
            sink.warn(format!(
                "{} is empty: no keys",
                display_name(path).display()
            ));
        }
    }
    ctx.report(sink.lines, sink.items);
    Ok(sink.into_loaded(bytes.load(Ordering::Relaxed), groups))
}

/// Loads one file held in memory, in the format the options say or the detected one, by one reader.
fn load_held(
    name: &Path,
    bytes: &[u8],
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<(), SourceError> {
    let mut input = super::read::open_bytes(bytes, name, ctx.bytes)?;
    let format = match ctx.opts.format {
        FormatIn::Auto => super::detect::detect_input(&mut input, name, name)?,
        f => f,
    };
    sink.shape = None;
    let result = load_format(format, &mut input, name, sink, ctx);
    sink.note_shape(format.describe());
    result
}

/// Loads one file (not a folder) in the format the options say, or the detected one.
///
/// A regular file that grew while it was read (a log still being written, an export still being copied) is
/// read to the end it had when the reader got there, as `cat` would; a warning says so, since the keys are
/// then neither the file as it was when the load began nor as it is now.
pub fn load_file(path: &Path, sink: &mut Sink, ctx: &mut Ctx<'_, '_>) -> Result<(), SourceError> {
    let name = display_name(path);
    let size = std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    let read_before = ctx.bytes.load(Ordering::Relaxed);
    let mut input = open_apart(path, ctx.bytes)?;
    let format = match ctx.opts.format {
        FormatIn::Auto => super::detect::detect_input(&mut input, path, &name)?,
        f => f,
    };
    sink.shape = None;
    // A large plain file is read in stretches on every core when its format can be.
    let in_stretches: Option<SplitLoad> = match format {
        FormatIn::Auto | FormatIn::Lines => Some(load_lines_split_into),
        FormatIn::DynamodbJson => Some(super::dynamodb_json::load_json_lines_split),
        FormatIn::JsonArray => Some(super::json::doc_split::load_json_array_split),
        FormatIn::JsonItems => Some(super::json::doc_split::load_json_items_split),
        FormatIn::ScanJson => Some(super::json::doc_split::load_scan_split),
        _ => None,
    };
    let plain = input.compression == Compression::None && !is_stdin(path);
    let split = size
        .zip(in_stretches)
        .filter(|_| plain)
        .and_then(|(size, load)| Some((size, super::lines::stretch_threads(size)?, load)))
        .map(|(size, threads, load)| {
            let file = SplitFile {
                path,
                name: &name,
                size,
                threads,
                read_before,
            };
            load(&file, sink, ctx)
        });
    let result = match split {
        Some(Ok(true)) => Ok(()),
        Some(Err(e)) => Err(e),
        Some(Ok(false)) | None => load_format(format, &mut input, &name, sink, ctx),
    };
    sink.note_shape(format.describe());
    let read = ctx
        .bytes
        .load(Ordering::Relaxed)
        .saturating_sub(read_before);
    if let Some(size) = size
        && result.is_ok()
        && read > size
    {
        sink.warn(format!(
            "{} grew while it was read: {size} bytes when the load began, {read} read; the keys are those of \
             the {read} bytes (load it again once it is complete)",
            name.display()
        ));
    }
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
    let cx = FileLoad {
        reader: &mut *input.reader,
        compression: input.compression,
        name,
        opts,
        sink,
        tick: &mut tick,
    };
    match format {
        FormatIn::Auto | FormatIn::Lines => load_lines_into(cx, cancel),
        FormatIn::Csv => super::csv::load_csv(cx),
        FormatIn::DynamodbJson => super::dynamodb_json::load_json_lines(cx, "Item"),
        FormatIn::Incremental => super::incremental::load_incremental(cx),
        FormatIn::Ion => {
            let (reader, compression, name, opts, sink, tick) = cx.into_parts();
            super::ion::load_ion(reader, compression, name, sink, opts, tick)
        }
        FormatIn::Workbench => {
            skip_bom(cx.reader);
            super::workbench::load_workbench(cx)
        }
        FormatIn::ScanJson | FormatIn::JsonArray | FormatIn::JsonItems | FormatIn::BatchWrite => {
            skip_bom(cx.reader);
            super::json::json_doc::load_json_doc(cx, format)
        }
    }
}

/// Plain lines: read by [`super::lines::load_lines`] into a key set of their own, then merged into the sink.
fn load_lines_into(cx: FileLoad<'_, '_>, cancel: &AtomicBool) -> Result<(), SourceError> {
    let FileLoad {
        reader,
        name,
        sink,
        tick,
        ..
    } = cx;
    let ty = sink.key_type.unwrap_or_default();
    let mut parser = crate::model::text::LineParser::new(ty);
    if sink.shards_by_sort_key() {
        parser = parser.with_shard_by_sort_key();
    }
    let loaded = super::lines::load_lines(reader, name, parser, None, cancel, &mut |p| {
        let _ = tick(p.lines, p.lines);
    })?;
    sink.key_type = Some(ty);
    sink.lines += loaded.lines;
    sink.items += loaded.keys.total();
    sink.absorb_lines(loaded);
    Ok(())
}

/// A large file of plain lines read by several threads ([`super::lines::load_lines_split`]) into the sink;
/// `Ok(false)` when it is to be read by one (nothing is added then, and the byte count is as it was).
fn load_lines_split_into(
    file: &SplitFile<'_>,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<bool, SourceError> {
    let ty = sink.key_type.unwrap_or_default();
    let by_sort_key = sink.shards_by_sort_key();
    let parser = move || {
        let parser = crate::model::text::LineParser::new(ty);
        if by_sort_key {
            parser.with_shard_by_sort_key()
        } else {
            parser
        }
    };
    let (lines_before, items_before) = (sink.lines, sink.items);
    // The count holds what opening the file read (its first buffer); the readers count the file from 0.
    let bytes_before = ctx.bytes.load(Ordering::Relaxed);
    let base = file.read_before;
    let loaded = super::lines::load_lines_split(file, &parser, ctx.cancel, &mut |p| {
        ctx.bytes.store(base + p.bytes, Ordering::Relaxed);
        ctx.report(lines_before + p.lines, items_before + p.lines);
    });
    match loaded {
        Ok(Some(loaded)) => {
            ctx.bytes.store(base + loaded.bytes, Ordering::Relaxed);
            sink.key_type = Some(ty);
            sink.lines += loaded.lines;
            sink.items += loaded.keys.total();
            sink.absorb_lines(loaded);
            Ok(true)
        }
        Ok(None) => {
            ctx.bytes.store(bytes_before, Ordering::Relaxed);
            Ok(false)
        }
        Err(e) => Err(e),
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
