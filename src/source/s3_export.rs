//! A whole DynamoDB S3 export folder: `AWSDynamoDB/<export-id>/` with `manifest-summary.json`,
//! `manifest-files.json` and `data/*.json.gz` (or `*.ion.gz`).
//!
//! The manifests say which data files make up the export and how many items each holds. Every data file
//! named must be present (a missing one stops the load: the totals would be wrong). Item counts that disagree
//! with the manifests, per data file or in total, are reported as warnings ([`super::Loaded::warnings`]) and
//! the load goes on with what the files hold. A folder without manifests but with a `data/` folder loads
//! every data file in it, with a warning that nothing could be checked.
//!
//! AWS writes at least one data file per partition, and the items of one file all come from one partition's
//! hashed key range, so the per-file item counts ([`super::Loaded::groups`]) are a real grouping by partition.
//!
//! A full export lists every item once, so a key's items are counted without looking for repeated sort keys
//! (an incremental export, which may hold several writes of one item, still looks).
//!
//! Data files load in parallel, one thread per core ([`parallel`]).
//!
//! The export is read from a [`Tree`]: a folder on disk, or the files of a folder a page was given (their
//! paths relative, as the browser says them). Finding the export's folder, its manifests and data files, the
//! checks of the counts and the per-file groups are this one code for both.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

use super::dynamodb_json::json_line;
use super::ion::ion_line;
use super::json::item::Scratch;
use super::json::ttl::TtlProbe;
use super::read::Ctx;
use super::read::{Sink, for_each_line};
use super::tree::{Disk, Tree};
use super::{At, FormatIn, Group, LoadOptions, SourceError};
use crate::model::health::ttl::TtlValue;

mod parallel;
#[cfg(test)]
pub(super) use parallel::TEST_THREADS;
use parallel::load_parallel;

/// One data file of an export.
#[derive(Debug, Clone)]
struct DataFile {
    path: PathBuf,
    /// Name shown to users: `data/<file>`.
    label: String,
    /// The manifest's item count, when there is a manifest.
    expected: Option<u64>,
    bytes: u64,
}

/// Bytes a path will read: a file's size, or the data files of an export folder; `None` for standard input.
pub fn input_bytes(path: &Path) -> Option<u64> {
    input_bytes_in(&Disk, path)
}

/// [`input_bytes`] of a path in `tree`.
pub(super) fn input_bytes_in(tree: &dyn Tree, path: &Path) -> Option<u64> {
    if tree.is_dir(path) {
        let root = find_root(tree, path).ok()?;
        let files = data_files(tree, &root).ok()?;
        return Some(files.0.iter().map(|f| f.bytes).sum());
    }
    tree.size(path)
}

/// The items an S3 export folder holds, from its summary's `itemCount` (`None` for a file, or a summary
/// without the count).
pub fn input_items(path: &Path) -> Option<u64> {
    input_items_in(&Disk, path)
}

/// [`input_items`] of a path in `tree`.
pub(super) fn input_items_in(tree: &dyn Tree, path: &Path) -> Option<u64> {
    if !tree.is_dir(path) {
        return None;
    }
    let root = find_root(tree, path).ok()?;
    read_summary(tree, &root).ok()??.item_count
}

/// The export folder whose manifest `path` is (`manifest-summary.json` or `manifest-files.json`, beside the other
/// manifest and `data/`): a user who exported a table may well pick the manifest, which read as a JSON file is
/// one item of export metadata.
pub fn export_of_manifest(path: &Path) -> Option<PathBuf> {
    export_of_manifest_in(&Disk, path)
}

/// [`export_of_manifest`] of a path in `tree`.
pub(super) fn export_of_manifest_in(tree: &dyn Tree, path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    if (name != "manifest-summary.json" && name != "manifest-files.json") || !tree.is_file(path) {
        return None;
    }
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let export = tree.is_file(&folder.join("manifest-summary.json"))
        && tree.is_file(&folder.join("manifest-files.json"))
        && tree.is_dir(&folder.join("data"));
    export.then(|| folder.to_path_buf())
}

/// The export folder (holding `manifest-summary.json` or `data/`) at or under `path` (four levels deep: the
/// `AWSDynamoDB` folder with one export in it, or a copy of the bucket with the export under its `s3Prefix`,
/// also work).
fn find_root(tree: &dyn Tree, path: &Path) -> Result<PathBuf, SourceError> {
    let is_export = |dir: &Path| tree.is_file(&dir.join("manifest-summary.json"));
    if is_export(path) {
        return Ok(path.to_path_buf());
    }
    if path.file_name().is_some_and(|n| n == "data")
        && let Some(parent) = path.parent()
        && is_export(parent)
    {
        return Ok(parent.to_path_buf());
    }
    let mut found = Vec::new();
    let mut level = vec![path.to_path_buf()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(entries) = tree.entries(dir) else {
                continue;
            };
            for p in entries {
                if tree.is_dir(&p) {
                    if is_export(&p) {
                        found.push(p);
                    } else {
                        next.push(p);
                    }
                }
            }
        }
        if !found.is_empty() {
            break;
        }
        level = next;
    }
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        // A folder of data files without manifests.
        0 if tree.is_dir(&path.join("data")) => Ok(path.to_path_buf()),
        0 => Err(SourceError::record(
            path,
            At::File,
            "not an S3 export folder: expected manifest-summary.json, manifest-files.json and data/",
        )),
        n => Err(SourceError::record(
            path,
            At::File,
            format!(
                "holds {n} exports ({}); expected one: pass the folder of the export to load",
                found
                    .iter()
                    .filter_map(|p| p.file_name())
                    .map(|n| n.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The summary's facts.
#[derive(Debug, Default)]
struct Summary {
    item_count: Option<u64>,
    ion: bool,
    incremental: bool,
    /// The export's `s3Prefix`: data file keys are relative to the bucket root, above it.
    s3_prefix: Option<String>,
}

fn read_summary(tree: &dyn Tree, root: &Path) -> Result<Option<Summary>, SourceError> {
    let path = root.join("manifest-summary.json");
    if !tree.is_file(&path) {
        return Ok(None);
    }
    let text = tree.read(&path).map_err(|error| SourceError::Io {
        name: path.clone(),
        error,
    })?;
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
        SourceError::record(
            &path,
            At::Line(e.line() as u64),
            format!(
                "invalid JSON: {}; expected the export's summary",
                super::read::json_reason(&e)
            ),
        )
    })?;
    let text_of = |k: &str| {
        value
            .get(k)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_ascii_uppercase()
    };
    Ok(Some(Summary {
        item_count: value.get("itemCount").and_then(serde_json::Value::as_u64),
        ion: text_of("outputFormat") == "ION",
        incremental: text_of("exportType").contains("INCREMENTAL"),
        s3_prefix: value
            .get("s3Prefix")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
    }))
}

/// The data files of the export at `root`, from `manifest-files.json` (checked to exist) or, without one, every
/// file in `data/`. The flag says whether a manifest listed them.
/// Where a manifest's `dataFileS3Key` is on disk. The key is relative to the bucket root: the folder above
/// `AWSDynamoDB/`, or above the export's `s3Prefix` (`prefix/AWSDynamoDB/<id>/data/<file>`); an incremental
/// export keeps its data files in a shared `AWSDynamoDB/data/` beside the export folders. A copy of the export
/// folder alone (its `data/` beside the manifests) is found too. `Err` lists where it looked.
fn resolve_data_file(
    tree: &dyn Tree,
    root: &Path,
    key: &str,
    prefix: Option<&str>,
) -> Result<PathBuf, Vec<PathBuf>> {
    let mut tried: Vec<PathBuf> = Vec::new();
    let aws = root
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "AWSDynamoDB"));
    if let Some(above) = aws.and_then(Path::parent) {
        if let Some(i) = key.rfind("AWSDynamoDB/") {
            tried.push(above.join(&key[i..]));
        }
        // The bucket root: the folder above AWSDynamoDB less the prefix's folders.
        let mut bucket = above.to_path_buf();
        for part in prefix.unwrap_or_default().split('/').rev() {
            if part.is_empty() {
                continue;
            }
            if bucket.file_name().is_some_and(|n| n == part) {
                bucket.pop();
            } else {
                break;
            }
        }
        tried.push(bucket.join(key));
    }
    let file_name = key.rsplit('/').next().unwrap_or(key);
    tried.push(root.join("data").join(file_name));
    match tried.iter().find(|p| tree.is_file(p)) {
        Some(found) => Ok(found.clone()),
        None => {
            tried.dedup();
            Err(tried)
        }
    }
}

fn data_files(tree: &dyn Tree, root: &Path) -> Result<(Vec<DataFile>, bool), SourceError> {
    let prefix = read_summary(tree, root)
        .ok()
        .flatten()
        .and_then(|s| s.s3_prefix);
    let manifest = root.join("manifest-files.json");
    let data = root.join("data");
    if tree.is_file(&manifest) {
        return Ok((
            listed_files(tree, root, &manifest, prefix.as_deref())?,
            true,
        ));
    }
    let entries = tree.entries(&data).map_err(|error| SourceError::Io {
        name: data.clone(),
        error,
    })?;
    let mut files: Vec<DataFile> = entries
        .into_iter()
        .filter(|p| tree.is_file(p))
        .filter(|p| {
            let n = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            !n.starts_with('.') && !n.ends_with(".md5") && !n.ends_with(".checksum")
        })
        .map(|path| DataFile {
            bytes: tree.size(&path).unwrap_or(0),
            label: format!(
                "data/{}",
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
            expected: None,
            path,
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, false))
}

/// The data files of the export folder `root` (the one holding `manifest-summary.json`), for readers that take
/// them one by one (`simulate --trace`): those `manifest-files.json` lists, each found where
/// [`resolve_data_file`] looks (an incremental export's shared `AWSDynamoDB/data/` among them; one missing is
/// an error naming the manifest's line), or without that manifest every file in `data/`; and whether the
/// summary says the export is incremental.
pub fn data_file_paths(root: &Path) -> Result<(Vec<PathBuf>, bool), SourceError> {
    let incremental = read_summary(&Disk, root)?.is_some_and(|s| s.incremental);
    let files = data_files(&Disk, root)?
        .0
        .into_iter()
        .map(|f| f.path)
        .collect();
    Ok((files, incremental))
}

/// The data files `manifest-files.json` lists, each resolved to a file of `tree`.
fn listed_files(
    tree: &dyn Tree,
    root: &Path,
    manifest: &Path,
    prefix: Option<&str>,
) -> Result<Vec<DataFile>, SourceError> {
    let text = tree.read(manifest).map_err(|error| SourceError::Io {
        name: manifest.to_path_buf(),
        error,
    })?;
    let mut files = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let at = At::Line(i as u64 + 1);
        if line.trim_ascii().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_slice(line).map_err(|e| {
            SourceError::record(
                manifest,
                at,
                format!("invalid JSON: {}", super::read::json_reason(&e)),
            )
        })?;
        let Some(key) = value
            .get("dataFileS3Key")
            .and_then(serde_json::Value::as_str)
        else {
            return Err(SourceError::record(
                manifest,
                at,
                "no \"dataFileS3Key\"; expected {\"itemCount\":…,\"dataFileS3Key\":\"…/data/<file>\"}",
            ));
        };
        let file_name = key.rsplit('/').next().unwrap_or(key);
        let path = resolve_data_file(tree, root, key, prefix).map_err(|tried| {
            SourceError::record(
                manifest,
                at,
                format!(
                    "names data file {key:?}, which is missing (looked for {}); expected every data file of the export",
                    tried
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        files.push(DataFile {
            bytes: tree.size(&path).unwrap_or(0),
            label: format!("data/{file_name}"),
            expected: value.get("itemCount").and_then(serde_json::Value::as_u64),
            path,
        });
    }
    Ok(files)
}

/// Loads an export folder of `tree` into `sink`; returns the item count of each data file, in manifest order.
pub fn load_folder(
    tree: &dyn Tree,
    path: &Path,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<Vec<Group>, SourceError> {
    let root = find_root(tree, path)?;
    let summary = read_summary(tree, &root)?;
    let (files, listed) = data_files(tree, &root)?;
    if summary.is_none() || !listed {
        sink.warn(format!(
            "no {}: item counts cannot be checked (in {})",
            if summary.is_none() {
                "manifest-summary.json"
            } else {
                "manifest-files.json"
            },
            root.display()
        ));
    }
    let summary = summary.unwrap_or_default();
    let format = match ctx.opts.format {
        FormatIn::Ion => FormatIn::Ion,
        FormatIn::Incremental => FormatIn::Incremental,
        FormatIn::DynamodbJson => FormatIn::DynamodbJson,
        _ if summary.ion => FormatIn::Ion,
        _ if summary.incremental => FormatIn::Incremental,
        _ => FormatIn::DynamodbJson,
    };
    let opts = ctx.opts;
    if sink.names.is_none() {
        for f in &files {
            resolve_names_in(tree, &f.path, format, sink, opts)?;
            if sink.names.is_some() {
                break;
            }
        }
    }
    // A full export lists every item once; an incremental one may hold several writes of one item.
    let distinct = format != FormatIn::Incremental;
    let counts = load_parallel(tree, &files, format, distinct, sink, ctx)?;
    let groups = check_counts(&files, &counts, &root, sink);
    let total: u64 = counts.iter().sum();
    let empty = counts.iter().filter(|&&n| n == 0).count();
    sink.shape = Some(
        format!(
            "S3 export folder ({}, {} data files{})",
            match format {
                FormatIn::Ion => "Ion",
                FormatIn::Incremental => "incremental export",
                _ => "DynamoDB JSON",
            },
            files.len(),
            if empty > 0 {
                format!(", {empty} of them empty")
            } else {
                String::new()
            }
        )
        .into(),
    );
    if let Some(expected) = summary.item_count
        && expected != total
    {
        sink.warn(format!(
            "the export holds {total} items, but manifest-summary.json says {expected} (in {})",
            root.display()
        ));
    }
    Ok(groups)
}

/// Each data file's items as a [`Group`], with a warning for each file (the first ten, then how many more)
/// whose count disagrees with `manifest-files.json`.
fn check_counts(files: &[DataFile], counts: &[u64], root: &Path, sink: &mut Sink) -> Vec<Group> {
    let mut groups = Vec::with_capacity(files.len());
    let mut mismatches = Vec::new();
    for (f, &items) in files.iter().zip(counts) {
        if let Some(expected) = f.expected
            && expected != items
        {
            mismatches.push(format!(
                "{} holds {items} items, but manifest-files.json says {expected}",
                f.label
            ));
        }
        groups.push(Group {
            name: f.label.clone(),
            items,
        });
    }
    const SHOWN: usize = 10;
    let more = mismatches.len().saturating_sub(SHOWN);
    for m in mismatches.into_iter().take(SHOWN) {
        sink.warn(format!("{m} (in {})", root.display()));
    }
    if more > 0 {
        sink.warn(format!(
            "{more} more data files disagree with manifest-files.json (in {})",
            root.display()
        ));
    }
    groups
}

/// Reads the first item of a data file to fix the key attributes before the files load in parallel; returns
/// what that item decided about the TTL attribute (`None` when no item was read: the real load reports why).
pub(super) fn resolve_names(
    path: &Path,
    format: FormatIn,
    sink: &mut Sink,
    opts: &LoadOptions,
    bytes: &AtomicU64,
) -> Result<Option<TtlProbe>, SourceError> {
    // Bytes read here are read again by the real load: count them apart.
    let _ = bytes;
    resolve_names_in(&Disk, path, format, sink, opts)
}

/// [`resolve_names`] for a data file of `tree`.
fn resolve_names_in(
    tree: &dyn Tree,
    path: &Path,
    format: FormatIn,
    sink: &mut Sink,
    opts: &LoadOptions,
) -> Result<Option<TtlProbe>, SourceError> {
    let scratch_bytes = AtomicU64::new(0);
    let mut input = tree.open(path, &scratch_bytes)?;
    let mut probe = Sink::new(opts);
    let mut scratch = Scratch::for_load(opts);
    let stop = "first item found";
    let result = for_each_line(
        &mut *input.reader,
        path,
        input.compression,
        &mut |_, _| Ok(()),
        |line, n| {
            if line.trim_ascii().is_empty() {
                return Ok(());
            }
            let r = match format {
                FormatIn::Ion => ion_line(line, &mut probe, &mut scratch, opts),
                FormatIn::Incremental => json_line(line, "Keys", &mut probe, &mut scratch, opts),
                _ => json_line(line, "Item", &mut probe, &mut scratch, opts),
            };
            r.map_err(|what| SourceError::record(path, At::Line(n), what))?;
            if probe.names.is_some() {
                Err(SourceError::record(path, At::File, stop))
            } else {
                Ok(())
            }
        },
    );
    match result {
        Err(SourceError::Record { what, .. }) if what == stop => {
            Ok(Some(adopt_first(sink, probe, scratch.ttl)))
        }
        // Errors are reported by the real load, with the policy applied.
        _ => Ok(None),
    }
}

/// Takes into `sink` what `probe`, a sink that read a file's first item and nothing else, decided: the key
/// attributes (and the warnings deciding them gave), the key type. Returns the TTL attribute decided with
/// them (`ttl`, the item reader's), its value forgotten: the state every stretch of the file starts from.
pub(super) fn adopt_first(sink: &mut Sink, mut probe: Sink, ttl: TtlProbe) -> TtlProbe {
    sink.names = probe.names.take();
    for w in probe.warnings.drain(..) {
        sink.warn(w);
    }
    if sink.key_type.is_none() {
        sink.key_type = probe.key_type;
        sink.keys = sink.keys.empty_like(probe.keys.key_type());
    }
    TtlProbe {
        value: TtlValue::Absent,
        ..ttl
    }
}
