//! DynamoDB JSON lines, as an S3 export (`DYNAMODB_JSON`) writes them: one item a line,
//! `{"Item":{"pk":{"S":"…"},"sk":{"N":"…"},…}}`, plain or gzip. The same reader takes incremental export lines
//! (`{"Metadata":…,"Keys":{…},"NewImage":…,"OldImage":…}`), whose item is the `Keys` object: each line is
//! one write of its key.
//!
//! Each line goes through a hand-written scanner first ([`super::json::fast_json`]), which takes the common
//! shape in one pass; anything else is deserialised from the line's bytes with a [`serde::de::DeserializeSeed`]
//! that copies out only the key attributes and skips the rest with [`serde::de::IgnoredAny`], and which gives
//! the exact error message. Neither builds a DOM or allocates per item (except for the values a key design
//! extracts, `source/json/extract.rs`). The first item decides the key attributes when they are not given (see
//! [`super::json::item`]).

use serde::de::DeserializeSeed as _;

use super::json::dialect::Typed;
use super::json::fast_json::scan_record;
use super::json::item::{ItemSeed, RecordSeed, Scratch};
use super::key_ahead::{KeyAhead, for_each_record_line};
use super::read::{FileLoad, Sink, invalid_json_line};
use super::{At, LoadOptions, SourceError};
use crate::source::Message;

mod split;
pub use split::load_json_lines_split;

/// Loads JSON lines whose item sits under `field` (`"Item"` or `"Keys"`).
///
/// Each line's partition key is looked for a few lines before the line is read, and its key's memory asked
/// for ([`KeyAhead`]). Measured on `benches/export_load.sh` (2,000,000 items, 124,266 distinct
/// keys, 8 gzip files, both cores): without it, `Index::find` was 13 % of the load's CPU time, three cache
/// misses one after the other (slot, end offset, bytes: `perf annotate`); with it 2.9 %, and the load took
/// 1.08 s instead of 1.27 s (medians of 7 interleaved runs; user time 1.82 s instead of 2.12 s).
pub fn load_json_lines(cx: FileLoad<'_, '_>, field: &'static str) -> Result<(), SourceError> {
    let (reader, compression, name, opts, sink, tick) = cx.into_parts();
    let mut scratch = Scratch::for_load(opts);
    if let Some(ttl) = &sink.ttl_seed {
        scratch.ttl = ttl.clone();
    }
    let ahead = KeyAhead::new(sink);
    let lines = for_each_record_line(
        reader,
        name,
        compression,
        tick,
        (ahead, &mut *sink, &mut scratch),
        |line, sink, scratch, n| {
            if line.trim_ascii().is_empty() {
                return Ok(());
            }
            let result = json_line_then(line, field, sink, scratch, opts, true)
                .map_err(|what| SourceError::record(name, At::Line(n), what));
            if field == "Keys" && result.is_ok() {
                count_change(line, sink);
            }
            sink.check(result)
        },
    );
    sink.settle();
    sink.lines += lines?;
    Ok(())
}

/// Counts an incremental export line as an insert (`NewImage` only), an update (`NewImage` and `OldImage`) or a
/// delete (no `NewImage`: only `Keys`, or `OldImage`).
fn count_change(line: &[u8], sink: &mut Sink) {
    #[derive(serde::Deserialize)]
    struct Images {
        #[serde(rename = "NewImage", default)]
        new: Option<serde::de::IgnoredAny>,
        #[serde(rename = "OldImage", default)]
        old: Option<serde::de::IgnoredAny>,
    }
    let (new, old) = super::json::fast_json::image_fields(line).unwrap_or_else(|| {
        serde_json::from_slice::<Images>(line)
            .map_or((false, false), |i| (i.new.is_some(), i.old.is_some()))
    });
    match (new, old) {
        (true, true) => sink.changes.updates += 1,
        (true, false) => sink.changes.inserts += 1,
        _ => sink.changes.deletes += 1,
    }
}

/// One line: `Err` is what is wrong with it.
pub fn json_line(
    line: &[u8],
    field: &'static str,
    sink: &mut Sink,
    scratch: &mut Scratch,
    opts: &LoadOptions,
) -> Result<(), Message> {
    json_line_then(line, field, sink, scratch, opts, false)
}

/// [`json_line`]; with `defer`, the item may go into the key set only with the next line
/// ([`Sink::add_scratch_deferred`]: the caller settles the sink at the end).
fn json_line_then(
    line: &[u8],
    field: &'static str,
    sink: &mut Sink,
    scratch: &mut Scratch,
    opts: &LoadOptions,
    defer: bool,
) -> Result<(), Message> {
    let add = |sink: &mut Sink, scratch: &Scratch| {
        if defer {
            sink.add_scratch_deferred(scratch, 1)
        } else {
            sink.add_scratch(scratch, 1)
        }
    };
    if let Some(names) = sink.names.as_ref()
        && scan_record(line, field, names, scratch)
    {
        return add(sink, scratch);
    }
    // Serde skips unread attributes at any depth: refuse what nests deeper than the fast path takes first.
    if let Some(deep) = super::json::fast_json::too_deep(line) {
        return Err(deep.into());
    }
    let mut de = serde_json::Deserializer::from_slice(line);
    let found = RecordSeed {
        field,
        item: ItemSeed {
            names: sink.names.as_ref(),
            scratch,
            dialect: Typed,
        },
    }
    .deserialize(&mut de)
    .and_then(|found| de.end().map(|()| found))
    .map_err(|e| super::json::item_reader::skippable(invalid_json_line(line, &e), opts.on_bad))?;
    if !found {
        return Err(format!(
            "expected a JSON object with an {field:?} field ({})",
            if field == "Item" {
                "a DynamoDB JSON export line"
            } else {
                "an incremental export line"
            }
        )
        .into());
    }
    if sink.names.is_none() {
        sink.resolve_from_first(scratch, opts)?;
    }
    // The fast path declined this line: its item is sized in a second walk (which names a bad value, and
    // estimates the size of an item whose attribute other than a key is malformed).
    let sized = if field == "Item" { "Item" } else { "NewImage" };
    let keys = sink
        .names
        .as_ref()
        .map(super::json::item::KeyNames::attributes)
        .unwrap_or_default();
    let size = super::json::size::record_size(line, sized, &keys)
        .map_err(|e| super::json::item_reader::skippable(e, opts.on_bad))?;
    scratch.item_bytes = size.as_ref().map(|s| s.bytes);
    scratch.size_estimate = size.and_then(|s| s.estimate);
    if field == "Item" {
        super::json::ttl::probe_slow(line, Some(sized), true, &mut scratch.ttl);
    }
    add(sink, scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;
    use crate::source::read::load_text;

    fn load(text: &str, opts: &LoadOptions) -> Result<Sink, SourceError> {
        load_text(text, "x.json", opts, |cx| load_json_lines(cx, "Item"))
    }

    #[test]
    fn loads_items_and_canonicalises_numbers() {
        let text = "{\"Item\":{\"id\":{\"N\":\"1\"},\"v\":{\"S\":\"x\"}}}\n\n{\"Item\":{\"v\":{\"S\":\"y\"},\"id\":{\"N\":\"1.0\"}}}\r\n{\"Item\":{\"id\":{\"N\":\"2E0\"}}}";
        let sink = load(text, &LoadOptions::default()).unwrap();
        assert_eq!(sink.keys.key_type(), KeyType::N);
        assert_eq!(sink.keys.total(), 3);
        assert_eq!(sink.keys.count(sink.keys.find(b"1").unwrap()), 2);
        assert_eq!(sink.keys.count(sink.keys.find(b"2").unwrap()), 1);
        assert_eq!(sink.names.unwrap().pk, "id");
        assert_eq!(sink.lines, 4);
    }

    #[test]
    fn errors_name_the_line() {
        let opts = LoadOptions::default();
        let ok = "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n";
        let e = load(&format!("{ok}{ok}{{\"Item\":"), &opts).unwrap_err();
        assert!(e.to_string().starts_with("line 3: invalid JSON"), "{e}");
        let e = load(
            &format!("{ok}{{\"Item\":{{\"x\":{{\"S\":\"a\"}}}}}}"),
            &opts,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: item has no attribute \"pk\""),
            "{e}"
        );
        let e = load(
            &format!("{ok}{{\"Item\":{{\"pk\":{{\"N\":\"1\"}}}}}}"),
            &opts,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains(
                "line 2: partition key \"pk\" is of type N (number); expected S (string)"
            ),
            "{e}"
        );
        let e = load(&format!("{ok}{{\"other\":1}}"), &opts).unwrap_err();
        assert!(
            e.to_string()
                .contains("line 2: expected a JSON object with an \"Item\" field"),
            "{e}"
        );
    }

    #[test]
    fn skip_policy_counts() {
        let opts = LoadOptions {
            on_bad: super::super::OnBad::Skip,
            ..LoadOptions::default()
        };
        let ok = "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n";
        let sink = load(&format!("{ok}nope\n{ok}{{}}\n"), &opts).unwrap();
        assert_eq!(sink.keys.total(), 2);
        assert_eq!(sink.skipped, 2);
        assert!(
            sink.warnings
                .iter()
                .any(|w| w.starts_with("skipped: line 2: invalid JSON"))
        );
    }
}

#[cfg(test)]
mod extract_tests {
    use super::*;
    use crate::model::design::{Design, parse_key};
    use crate::model::keyexpr::Value;

    #[test]
    fn lines_fill_values_and_a_bad_number_names_the_attribute() {
        let opts = LoadOptions {
            design: Design {
                // A sparse index only extracts: no record is bad for lacking an attribute.
                gsis: vec![crate::model::design::GsiSpec {
                    name: "t".into(),
                    key: crate::model::keyexpr::KeyTuple::one(parse_key("{pk}#{amount}").unwrap()),
                    sort_key: Vec::new(),
                    projection: crate::model::design::Projection::All,
                }],
                ..Design::default()
            },
            ..LoadOptions::default()
        };
        let mut sink = Sink::new(&opts);
        let mut scratch = Scratch::for_load(&opts);
        let lines = [
            r#"{"Item":{"pk":{"S":"a"},"amount":{"N":"10.0"}}}"#,
            r#"{"Item":{"pk":{"S":"b"},"amount":{"N":"1E1"}}}"#,
        ];
        for (line, pk) in lines.iter().zip(["a", "b"]) {
            json_line(line.as_bytes(), "Item", &mut sink, &mut scratch, &opts).unwrap();
            assert_eq!(
                scratch.values,
                [
                    Some(Value::number("10").unwrap()),
                    Some(Value::S(pk.into()))
                ]
            );
        }
        assert_eq!(scratch.names, ["pk", "amount"]);
        let bad = br#"{"Item":{"pk":{"S":"c"},"amount":{"N":"ten"}}}"#;
        let e = json_line(bad, "Item", &mut sink, &mut scratch, &opts).unwrap_err();
        assert!(
            e.contains("attribute \"amount\": \"ten\" is not a number"),
            "{e}"
        );
        assert_eq!(sink.keys.total(), 2);
    }
}

#[cfg(test)]
mod deferred_tests {
    use super::*;
    use crate::model::design::{Design, parse_key};
    use crate::source::read::load_text;

    fn keyed(expr: &str, on_bad: super::super::OnBad) -> LoadOptions {
        LoadOptions {
            design: Design {
                key: parse_key(expr).ok(),
                ..Design::default()
            },
            on_bad,
            ..LoadOptions::default()
        }
    }

    /// Everything a key set says about its keys, in index order.
    fn facts(keys: &crate::model::KeySet) -> Vec<(String, u64, Option<u64>, Option<u64>)> {
        keys.iter()
            .map(|(i, _, c)| {
                (
                    keys.display(i).into_owned(),
                    c,
                    keys.sort_key_facts(i).map(|f| f.items),
                    keys.item_bytes(i).map(|b| b.bytes),
                )
            })
            .collect()
    }

    /// Items keyed by a key expression are added a few items late by the lines loader: the same keys in the same
    /// order, counts, items and sizes as adding each at once, bad lines skipped in between included.
    #[test]
    fn a_key_expression_load_adds_every_item_as_at_once() {
        let mut text = String::new();
        for i in 0..40 {
            let status = ["OPEN", "DONE", "LATE"][i % 3];
            // Repeats of a sort key under the same new key are one item; a line with no status is bad.
            let sk = i % 7;
            if i % 11 == 5 {
                text.push_str(&format!(
                    "{{\"Item\":{{\"pk\":{{\"S\":\"u{i}\"}},\"sk\":{{\"S\":\"s{sk}\"}}}}}}\n"
                ));
            } else {
                text.push_str(&format!(
                    "{{\"Item\":{{\"pk\":{{\"S\":\"u{}\"}},\"sk\":{{\"S\":\"s{sk}\"}},\"status\":{{\"S\":\"{status}\"}}}}}}\n",
                    i % 5
                ));
            }
        }
        for expr in ["{status}", "{pk}#{status}", "{status}#{sk}"] {
            let opts = keyed(expr, super::super::OnBad::Skip);
            let lines =
                load_text(&text, "x.json", &opts, |cx| load_json_lines(cx, "Item")).unwrap();
            let mut at_once = Sink::new(&opts);
            let mut scratch = Scratch::for_load(&opts);
            for line in text.lines() {
                let r = json_line(line.as_bytes(), "Item", &mut at_once, &mut scratch, &opts);
                at_once
                    .check(r.map_err(|w| {
                        SourceError::record(std::path::Path::new("x.json"), At::Line(1), w)
                    }))
                    .unwrap();
            }
            assert_eq!(facts(&lines.keys), facts(&at_once.keys), "{expr}");
            assert_eq!(
                (lines.items, lines.skipped),
                (at_once.items, at_once.skipped),
                "{expr}"
            );
            assert_eq!(lines.skipped, 4, "{expr}");
            assert!(lines.keys.len() > 1, "{expr}");
        }
    }

    /// A bad line under the stop policy ends the load with its own line number, and the item before it, added
    /// late, was not lost by a load that goes on after skipping.
    #[test]
    fn a_deferred_item_before_a_bad_line() {
        let ok = |pk: &str| {
            format!("{{\"Item\":{{\"pk\":{{\"S\":\"{pk}\"}},\"status\":{{\"S\":\"X\"}}}}}}\n")
        };
        let text = format!(
            "{}{}{{\"Item\":{{\"pk\":{{\"S\":\"c\"}}}}}}\n",
            ok("a"),
            ok("b")
        );
        let stop = keyed("{pk}#{status}", super::super::OnBad::Stop);
        let e = load_text(&text, "x.json", &stop, |cx| load_json_lines(cx, "Item")).unwrap_err();
        assert!(e.to_string().starts_with("line 3: "), "{e}");
        let skip = keyed("{pk}#{status}", super::super::OnBad::Skip);
        let sink = load_text(&text, "x.json", &skip, |cx| load_json_lines(cx, "Item")).unwrap();
        assert_eq!(
            facts(&sink.keys)
                .iter()
                .map(|f| f.0.as_str())
                .collect::<Vec<_>>(),
            ["a#X", "b#X"]
        );
        assert_eq!(sink.keys.total(), 2);
    }
}
