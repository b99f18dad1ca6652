//! Incremental export lines: `{"Metadata":{"WriteTimestampMicros":{"N":"…"}},"Keys":{"id":{"N":"123"}},
//! "NewImage":{…},"OldImage":{…}}`. Inserts and updates carry `NewImage`, deletes only `OldImage`; every line
//! is one write of the item named by `Keys`, so the key set counts writes per key over the export's window.
//!
//! The key attributes are those of `Keys`: a single attribute is the partition key; with two, the one named
//! like a sort key (`sk`, `SK`, …) is the sort key, or `--key`/`--sort-key` say which. The lines are read by the
//! DynamoDB JSON reader ([`super::dynamodb_json`]) with `Keys` as the item.

use super::SourceError;
use super::read::FileLoad;

/// Loads incremental export lines (plain or gzip).
pub fn load_incremental(cx: FileLoad<'_, '_>) -> Result<(), SourceError> {
    super::dynamodb_json::load_json_lines(cx, "Keys")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::LoadOptions;
    use crate::source::read::load_text;

    #[test]
    fn counts_writes_per_key() {
        let text = r#"{"Metadata":{"WriteTimestampMicros":{"N":"1"}},"Keys":{"id":{"N":"123"}},"NewImage":{"id":{"N":"123"},"v":{"S":"a"}}}
{"Metadata":{"WriteTimestampMicros":{"N":"2"}},"Keys":{"id":{"N":"123.0"}},"NewImage":{"id":{"N":"123"}},"OldImage":{"id":{"N":"123"}}}
{"Metadata":{"WriteTimestampMicros":{"N":"3"}},"Keys":{"id":{"N":"7"}},"OldImage":{"id":{"N":"7"}}}
"#;
        let sink = load_text(text, "i.json", &LoadOptions::default(), load_incremental).unwrap();
        assert_eq!(sink.keys.total(), 3);
        assert_eq!(sink.keys.count(sink.keys.find(b"123").unwrap()), 2);
        assert_eq!(
            (
                sink.changes.inserts,
                sink.changes.updates,
                sink.changes.deletes
            ),
            (1, 1, 1)
        );
    }
}
