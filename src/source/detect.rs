//! Guesses a file's format from its name and first bytes (after gzip decompression).
//!
//! Folders are S3 exports. Otherwise, skipping a UTF-8 byte order mark and white space: `$ion_1_0` or
//! `{Item:` is Ion; a first byte `{` or `[` is JSON, **never lines**: its shape is told from the top level of
//! the first bytes ([`detect_json`]: `DataModel` → NoSQL Workbench, `Items` → scan output,
//! `Keys`+`NewImage`/`OldImage`/`Metadata` → incremental export, `Item` on one line → DynamoDB JSON lines,
//! tables of `PutRequest`s → request file, an array → items, an item → items one after another), and a
//! document that fits none is refused with one line naming what it holds; a `.csv` name is CSV; anything else
//! that is text is plain lines. NUL bytes at the start mean a binary file, which is an error
//! rather than a guess (invalid UTF-8 is left to the format's reader, which names the line).

use std::path::Path;
use std::sync::atomic::AtomicU64;

use super::json::item::is_typed_item;
use super::json::json_stream::{End, JsonStream, kind_of};
use super::read::{Compression, Input, open};
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
            Self::Csv => "CSV (a header row, or the columns named)",
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
        return detect_json(trimmed);
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
            Err(error) => {
                return Err(SourceError::Io {
                    name: name.to_path_buf(),
                    error,
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

/// What the top level of a JSON document (its first bytes `head`) holds, to choose its shape. `Err` is the
/// one line that says why no shape fits. `head` may end inside the document.
pub fn detect_json(head: &[u8]) -> Result<FormatIn, String> {
    let mut r = head;
    let name = Path::new("");
    let mut js = JsonStream::new(&mut r, name, Compression::None);
    if js.peek().ok().flatten() == Some(b'[') {
        js.bump();
        return match js.peek().ok().flatten() {
            Some(b'{' | b']') | None => Ok(FormatIn::JsonArray),
            other => Err(format!(
                "a JSON array of {}s: not an export, scan, request file or Workbench model; expected an array of items (objects)",
                kind_of(other)
                    .trim_start_matches("an ")
                    .trim_start_matches("a ")
            )),
        };
    }
    js.bump();
    object_shape(&TopLevel::read(&mut js))
}

/// The top-level fields of a JSON object as far as the head shows them: each one's name, value (when it ends
/// within the head) and first byte.
struct TopLevel {
    fields: Vec<(String, Option<serde_json::Value>, Option<u8>)>,
    /// The object ends within the head.
    complete: bool,
    /// The first object ends on its first line, or its first line is longer than the bytes seen.
    one_line: bool,
    /// Another object follows the first.
    another: bool,
}

impl TopLevel {
    /// Reads the fields of the object `js` is inside (after its `{`).
    fn read(js: &mut JsonStream<'_>) -> Self {
        let mut buf = Vec::new();
        let mut fields = Vec::new();
        let mut complete = false;
        let mut line_of_end = 0;
        if js.peek().ok().flatten() == Some(b'}') {
            js.bump();
            complete = true;
            line_of_end = js.line;
        } else {
            while let Ok(name) = js.field_name(&mut buf) {
                let start = js.peek().ok().flatten();
                buf.clear();
                let value = match js.capture(&mut buf, true) {
                    Ok(End::Complete) => serde_json::from_slice::<serde_json::Value>(&buf).ok(),
                    _ => None,
                };
                let ended = value.is_some();
                fields.push((name, value, start));
                if !ended {
                    break;
                }
                match js.next_or_close(b'}', "") {
                    Ok(true) => {}
                    Ok(false) => {
                        complete = true;
                        line_of_end = js.line;
                        break;
                    }
                    Err(_) => break,
                }
            }
        }
        Self {
            fields,
            complete,
            one_line: (complete && line_of_end == 1) || (!complete && js.line == 1),
            another: complete && js.peek().ok().flatten() == Some(b'{'),
        }
    }

    fn has(&self, field: &str) -> bool {
        self.fields.iter().any(|(n, _, _)| n == field)
    }

    /// Every field is a table of `PutRequest`s / `DeleteRequest`s (or an array the head cuts off), and at
    /// least one shows a request or is cut off.
    fn is_request_file(&self) -> bool {
        let is_request = |v: &serde_json::Value| {
            v.as_object()
                .is_some_and(|o| o.contains_key("PutRequest") || o.contains_key("DeleteRequest"))
        };
        !self.fields.is_empty()
            && self.fields.iter().all(|(_, v, start)| match v {
                Some(serde_json::Value::Array(a)) => a.first().is_none_or(is_request),
                None => *start == Some(b'['),
                _ => false,
            })
            && self.fields.iter().any(|(_, v, _)| match v {
                Some(serde_json::Value::Array(a)) => a.first().is_some_and(is_request),
                _ => true,
            })
    }
}

/// The shape of a document whose top level is an object.
fn object_shape(top: &TopLevel) -> Result<FormatIn, String> {
    if top.has("DataModel") || top.has("ModelName") {
        return Ok(FormatIn::Workbench);
    }
    if top.has("Items") {
        return Ok(FormatIn::ScanJson);
    }
    if top.has("Keys") && (top.has("NewImage") || top.has("OldImage") || top.has("Metadata")) {
        return Ok(FormatIn::Incremental);
    }
    if top.has("Item") {
        return Ok(if top.one_line {
            FormatIn::DynamodbJson
        } else {
            FormatIn::JsonItems
        });
    }
    if top.is_request_file() {
        return Ok(FormatIn::BatchWrite);
    }
    let typed = top.complete
        && top
            .fields
            .iter()
            .all(|(_, v, _)| v.as_ref().is_some_and(is_typed_attr));
    // Items one a line, or one typed item (put-item input), or several pretty-printed items back to back.
    if top.one_line || (typed && !top.fields.is_empty()) || top.another {
        return Ok(FormatIn::JsonItems);
    }
    let names: Vec<&str> = top
        .fields
        .iter()
        .map(|(n, _, _)| n.as_str())
        .take(8)
        .collect();
    Err(format!(
        "{}: not an export, scan, request file or Workbench model",
        if names.is_empty() {
            "an empty JSON object".to_owned()
        } else {
            format!(
                "a JSON object with key{} {}{}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                if top.fields.len() > names.len() {
                    ", …"
                } else {
                    ""
                }
            )
        }
    ))
}

/// An attribute value of typed DynamoDB JSON: one type tag.
fn is_typed_attr(v: &serde_json::Value) -> bool {
    let wrapped = serde_json::json!({ "a": v });
    is_typed_item(&wrapped) == Ok(true)
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
