//! Guesses a file's format from its name and first bytes (after gzip decompression).
//!
//! Folders are S3 exports. Otherwise, skipping a UTF-8 byte order mark and white space: `$ion_1_0` or
//! `{Item:` is Ion; a first byte `{` or `[` is JSON, **never lines**: its shape is told from the top level of
//! the first bytes ([`super::json_doc::detect_json`]: `DataModel` → NoSQL Workbench, `Items` → scan output,
//! `Keys`+`NewImage`/`OldImage`/`Metadata` → incremental export, `Item` on one line → DynamoDB JSON lines,
//! tables of `PutRequest`s → request file, an array → items, an item → items one after another), and a
//! document that fits none is refused with one line naming what it holds; a `.csv` name is CSV; anything else
//! that is text is plain lines. NUL bytes at the start mean a binary file, which is an error
//! rather than a guess (invalid UTF-8 is left to the format's reader, which names the line).

use std::path::Path;
use std::sync::atomic::AtomicU64;

use super::read::{Input, open};
use super::{At, SourceError};

/// Input formats `load` understands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum FormatIn {
    /// Detect per path.
    #[default]
    Auto,
    /// Plain text, one key per line.
    Lines,
    /// CSV with a header.
    Csv,
    /// DynamoDB JSON lines (`{"Item":{…}}`), as an S3 export writes them.
    DynamodbJson,
    /// `aws dynamodb scan` output (`{"Items":[…]}`), pages may be concatenated.
    ScanJson,
    /// Ion text export lines.
    Ion,
    /// Incremental export lines (`{"Keys":{…},…}`).
    Incremental,
    /// NoSQL Workbench model.
    Workbench,
    /// A JSON array of items, typed or plain (`[{"pk":{"S":"a"}},…]`, `[{"pk":"a"},…]`).
    JsonArray,
    /// Items one after another, typed or plain: plain JSON lines, put-item input, pretty-printed items.
    JsonItems,
    /// BatchWriteItem request file (`{"Table":[{"PutRequest":{"Item":{…}}},…]}`).
    BatchWrite,
}

impl FormatIn {
    pub const ALL: [Self; 11] = [
        Self::Auto,
        Self::Lines,
        Self::Csv,
        Self::DynamodbJson,
        Self::ScanJson,
        Self::Ion,
        Self::Incremental,
        Self::Workbench,
        Self::JsonArray,
        Self::JsonItems,
        Self::BatchWrite,
    ];

    /// The command-line spelling (`--format-in`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Lines => "lines",
            Self::Csv => "csv",
            Self::DynamodbJson => "dynamodb-json",
            Self::ScanJson => "scan-json",
            Self::Ion => "ion",
            Self::Incremental => "incremental",
            Self::Workbench => "workbench",
            Self::JsonArray => "json-array",
            Self::JsonItems => "json-items",
            Self::BatchWrite => "batch-write",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Self::Auto => "detect from the file",
            Self::Lines => "plain text, one key per line",
            Self::Csv => "CSV (a header, or --csv-columns)",
            Self::DynamodbJson => "DynamoDB JSON lines (S3 export)",
            Self::ScanJson => "aws dynamodb scan output",
            Self::Ion => "Ion text (S3 export)",
            Self::Incremental => "incremental export",
            Self::Workbench => "NoSQL Workbench model",
            Self::JsonArray => "JSON array of items (typed or plain)",
            Self::JsonItems => "JSON items one after another (typed or plain)",
            Self::BatchWrite => "BatchWriteItem request file",
        }
    }
}

/// Detects the format of the first bytes `head` of a file called `path`; `Err` names why it is not loadable.
pub fn detect_bytes(head: &[u8], path: &Path) -> Result<FormatIn, String> {
    let sniff = &head[..head.len().min(8192)];
    if sniff.contains(&0) {
        return Err(
            "binary data (NUL bytes); expected text: lines, CSV, JSON, Ion, or gzip of those"
                .to_owned(),
        );
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let trimmed = text.trim_ascii_start();
    if trimmed.starts_with(b"$ion_1_0") || trimmed.starts_with(b"{Item:") {
        return Ok(FormatIn::Ion);
    }
    // JSON is never lines: a document that fits no shape is refused with what it holds.
    if trimmed.starts_with(b"{") || trimmed.starts_with(b"[") {
        return super::json_doc::detect_json(trimmed);
    }
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let ext_csv = [".csv", ".csv.gz", ".csv.zst"]
        .iter()
        .any(|e| file_name.ends_with(e));
    if ext_csv {
        return Ok(FormatIn::Csv);
    }
    Ok(FormatIn::Lines)
}

/// Detects the format of an opened input without consuming it.
pub fn detect_input(
    input: &mut Input<'_>,
    path: &Path,
    name: &Path,
) -> Result<FormatIn, SourceError> {
    // Fill up to 64 KiB so JSON fields past a long first attribute are still seen.
    let head = loop {
        match input.reader.fill_buf() {
            Ok(h) => break h,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if input.compression != super::read::Compression::None => {
                return Err(input.compression.corrupt(name, None, &e));
            }
            Err(source) => {
                return Err(SourceError::Io {
                    name: name.to_path_buf(),
                    source,
                });
            }
        }
    };
    // A gzip name inside tells the inner name: `x.csv.gz` is CSV.
    detect_bytes(head, path).map_err(|what| SourceError::record(name, At::File, what))
}

/// Detects the format of a path: folders are S3 exports ([`None`]), files are sniffed.
pub fn detect_format(path: &Path) -> Result<Option<FormatIn>, SourceError> {
    if path.is_dir() {
        return Ok(None);
    }
    let count = AtomicU64::new(0);
    let mut input = open(path, &count)?;
    let name = super::read::display_name(path);
    detect_input(&mut input, path, &name).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str, name: &str) -> FormatIn {
        detect_bytes(text.as_bytes(), Path::new(name)).unwrap()
    }

    #[test]
    fn detects_each_format() {
        assert_eq!(d("a\nb\n", "k.txt"), FormatIn::Lines);
        assert_eq!(d("pk,count\na,1\n", "k.csv"), FormatIn::Csv);
        assert_eq!(
            d("{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n", "x.json"),
            FormatIn::DynamodbJson
        );
        assert_eq!(
            d("{\"Items\":[],\"Count\":0,\"ScannedCount\":0}", "scan.json"),
            FormatIn::ScanJson
        );
        assert_eq!(d("$ion_1_0 {Item:{pk:\"a\"}}", "x.ion"), FormatIn::Ion);
        assert_eq!(
            d(
                "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1\"}},\"Keys\":{\"id\":{\"N\":\"1\"}},\"NewImage\":{}}",
                "i.json"
            ),
            FormatIn::Incremental
        );
        assert_eq!(
            d("{\"ModelName\":\"m\",\"DataModel\":[]}", "m.json"),
            FormatIn::Workbench
        );
        assert!(detect_bytes(b"\x00\x01\x02", Path::new("x")).is_err());
    }
}
