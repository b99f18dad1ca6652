//! `aws dynamodb scan` (or `query`) output: `{"Items":[{…},…],"Count":2,"ScannedCount":3,…}`, typed DynamoDB
//! JSON (the CLI, the SDKs' low-level clients) or plain JSON (DocumentClient, boto3's resource API). Several
//! pages may be concatenated in one file (as `--starting-token` loops append them). Streamed by
//! [`super::json::json_doc`]: items are cut out one by one and read with the same item reader as DynamoDB JSON;
//! nothing but the current item is held. A page whose `Count` disagrees with the items it holds gives a warning.

use super::read::FileLoad;
use super::{FormatIn, SourceError};

/// Loads scan output pages.
pub fn load_scan(cx: FileLoad<'_, '_>) -> Result<(), SourceError> {
    super::json::json_doc::load_json_doc(cx, FormatIn::ScanJson)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::LoadOptions;
    use crate::source::read::{Sink, load_text};

    fn load(text: &str) -> Result<Sink, SourceError> {
        load_text(text, "scan.json", &LoadOptions::default(), load_scan)
    }

    #[test]
    fn concatenated_pages() {
        let page = r#"{
  "Items": [{"pk": {"S": "a"}, "x": {"L": []}}, {"pk": {"S": "b"}}],
  "Count": 2, "ScannedCount": 2, "ConsumedCapacity": null
}"#;
        let sink = load(&format!("{page}\n{page}{page}\n")).unwrap();
        assert_eq!(sink.keys.total(), 6);
        assert_eq!(sink.keys.len(), 2);
        assert!(sink.warnings.iter().all(|w| !w.contains("Count says")));
        let bad_count = r#"{"Items":[{"pk":{"S":"a"}}],"Count":3}"#;
        let sink = load(bad_count).unwrap();
        assert!(
            sink.warnings.iter().any(|w| w.contains("Count says 3")),
            "{:?}",
            sink.warnings
        );
    }

    #[test]
    fn item_sizes_are_dynamodb_s_pretty_or_not() {
        let items = [
            r#"{"pk":{"S":"a"},"x":{"L":[]}}"#,
            r#"{"pk":{"S":"b c"},"t":{"S":"x \" y"}}"#,
        ];
        let compact = format!("{{\"Items\":[{}],\"Count\":2}}", items.join(","));
        let pretty = format!(
            "{{\n    \"Items\": [\n        {{ \"pk\": {{ \"S\": \"a\" }}, \"x\": {{ \"L\": [ ] }} }},\n        {{\"pk\":{{\"S\":\"b c\"}},\n \"t\": {{\"S\": \"x \\\" y\"}}}}\n    ],\n    \"Count\": 2\n}}\n{compact}",
        );
        for (text, pages) in [(compact.clone(), 1), (pretty, 2)] {
            let sink = load(&text).unwrap();
            for (i, item) in items.iter().enumerate() {
                let key = if i == 0 { b"a".as_slice() } else { b"b c" };
                let b = sink.keys.item_bytes(sink.keys.find(key).unwrap()).unwrap();
                assert_eq!(b.items, pages, "{text}");
                // pk 2+1, x 1+3; pk 2+3, t 1+5 (`x " y`).
                assert_eq!(b.max, [3 + 4, 5 + 6][i], "{item} in {text}");
            }
        }
    }

    #[test]
    fn errors() {
        let e = load("{\"Items\":[{\"pk\":{\"S\":\"a\"}},\n{\"q\":{\"S\":\"a\"}}]}").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("item 2 (line 2): item has no attribute \"pk\""),
            "{e}"
        );
        let e = load("{\"Items\":[{\"pk\":{\"S\":\"a\"}},\n{\"pk\":{\"S\":\"a\"},]}").unwrap_err();
        assert!(
            e.to_string().starts_with("item 2 (line 2): invalid JSON"),
            "{e}"
        );
        let e = load("{\"Items\":[{\"pk\":{\"S\":\"a\"}},\n{\"pk\":{\"S\":\"a\"}}").unwrap_err();
        assert!(e.to_string().contains("never closed"), "{e}");
        let e = load("{\"Count\":1}").unwrap_err();
        assert!(e.to_string().contains("no \"Items\""), "{e}");
    }
}
