//! `aws dynamodb scan` (or `query`) output: `{"Items":[{…},…],"Count":2,"ScannedCount":3,…}`. Several pages may
//! be concatenated in one file (as `--starting-token` loops append them). Streamed with serde_json: items are
//! read one by one with the same targeted item reader as DynamoDB JSON; nothing but the current item is held.
//! A page whose `Count` disagrees with the items it holds gives a warning.

use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, Read};
use std::path::Path;
use std::rc::Rc;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::item::{ItemSeed, Scratch};
use super::read::{Sink, TICK_LINES, Tick, json_reason};
use super::{At, LoadOptions, SourceError};

/// Counts the bytes read that compact JSON would keep (whitespace outside strings left out): item sizes of
/// pretty-printed scan output then match those of the same items on one line.
struct Compact<'r> {
    inner: &'r mut dyn BufRead,
    count: Rc<Cell<u64>>,
    in_str: bool,
    escaped: bool,
}

impl Read for Compact<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut kept = 0u64;
        for &b in buf.get(..n).unwrap_or_default() {
            if self.in_str {
                kept += 1;
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_str = false;
                }
            } else if !b.is_ascii_whitespace() {
                kept += 1;
                self.in_str = b == b'"';
            }
        }
        self.count.set(self.count.get() + kept);
        Ok(n)
    }
}

struct State<'a, 't> {
    sink: &'a mut Sink,
    /// Compact JSON bytes read so far (see [`Compact`]).
    read: Rc<Cell<u64>>,
    scratch: Scratch,
    opts: &'a LoadOptions,
    name: &'a Path,
    item: u64,
    stash: Option<SourceError>,
    tick: &'a mut Tick<'t>,
}

/// Loads scan output pages.
pub fn load_scan(
    reader: &mut dyn BufRead,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
    tick: &mut Tick<'_>,
) -> Result<(), SourceError> {
    let read = Rc::new(Cell::new(0));
    let compact = Compact {
        inner: reader,
        count: Rc::clone(&read),
        in_str: false,
        escaped: false,
    };
    let mut state = State {
        sink,
        read,
        scratch: Scratch::default(),
        opts,
        name,
        item: 0,
        stash: None,
        tick,
    };
    let mut de = serde_json::Deserializer::from_reader(compact);
    let mut page = 0u64;
    loop {
        page += 1;
        let before = state.item;
        let result = PageSeed(&mut state).deserialize(&mut de);
        let (has_items, count) = match result {
            Ok(r) => r,
            Err(e) => {
                return Err(state.stash.take().unwrap_or_else(|| {
                    let what = if e.is_data() {
                        format!(
                            "unexpected JSON: {}; expected scan output {{\"Items\":[…],…}}",
                            json_reason(&e)
                        )
                    } else {
                        format!("invalid JSON: {}", json_reason(&e))
                    };
                    SourceError::record(name, At::Line(e.line() as u64), what)
                }));
            }
        };
        if !has_items {
            return Err(SourceError::record(
                name,
                At::Item {
                    item: state.item + 1,
                    line: None,
                },
                format!(
                    "page {page} has no \"Items\"; expected scan output {{\"Items\":[…],\"Count\":…}}"
                ),
            ));
        }
        let items = state.item - before;
        if let Some(count) = count
            && count != items
        {
            state.sink.warn(format!(
                "page {page} holds {items} items, but its Count says {count} (in {})",
                name.display()
            ));
        }
        if de.end().is_ok() {
            break;
        }
    }
    state.sink.lines += state.item;
    Ok(())
}

struct PageSeed<'s, 'a, 't>(&'s mut State<'a, 't>);

impl<'de> DeserializeSeed<'de> for PageSeed<'_, '_, '_> {
    type Value = (bool, Option<u64>);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PageSeed<'_, '_, '_> {
    type Value = (bool, Option<u64>);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a scan output page {\"Items\":[…],…}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut has_items = false;
        let mut count = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "Items" => {
                    has_items = true;
                    map.next_value_seed(ItemsSeed(&mut *self.0))?;
                }
                "Count" => count = Some(map.next_value::<u64>()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((has_items, count))
    }
}

struct ItemsSeed<'s, 'a, 't>(&'s mut State<'a, 't>);

impl<'de> DeserializeSeed<'de> for ItemsSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of items")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let st = self.0;
        let mut first = true;
        loop {
            let seed = ItemSeed {
                names: st.sink.names.as_ref(),
                scratch: &mut st.scratch,
            };
            let start = st.read.get();
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            // The item's compact JSON, less the comma before it (read with it).
            let bytes = (st.read.get() - start).saturating_sub(u64::from(!first));
            first = false;
            st.scratch.item_bytes = Some(bytes);
            st.item += 1;
            let mut result = Ok(());
            if st.sink.names.is_none() {
                result = st.sink.resolve_from_first(&mut st.scratch, st.opts);
            }
            let result = result
                .and_then(|()| st.sink.add_scratch(&st.scratch, 1))
                .map_err(|what| {
                    SourceError::record(
                        st.name,
                        At::Item {
                            item: st.item,
                            line: None,
                        },
                        what,
                    )
                });
            let mut result = st.sink.check(result);
            if result.is_ok() && st.item.is_multiple_of(TICK_LINES) {
                result = (st.tick)(st.item, st.item);
            }
            if let Err(e) = result {
                st.stash = Some(e);
                return Err(A::Error::custom("stopped"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Sink, SourceError> {
        let opts = LoadOptions::default();
        let mut sink = Sink::new(&opts);
        load_scan(
            &mut text.as_bytes(),
            Path::new("scan.json"),
            &mut sink,
            &opts,
            &mut |_, _| Ok(()),
        )?;
        Ok(sink)
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
    fn item_sizes_are_compact_json_bytes_pretty_or_not() {
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
                assert_eq!(b.max, item.len() as u64, "{text}");
            }
        }
    }

    #[test]
    fn errors() {
        let e = load("{\"Items\":[{\"pk\":{\"S\":\"a\"}},\n{\"q\":{\"S\":\"a\"}}]}").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("item 2: item has no attribute \"pk\""),
            "{e}"
        );
        let e = load("{\"Items\":[{\"pk\":{\"S\":\"a\"}},\n{\"pk\":{\"S\":\"a\"},]}").unwrap_err();
        assert!(e.to_string().starts_with("line 2: invalid JSON"), "{e}");
        let e = load("{\"Count\":1}").unwrap_err();
        assert!(e.to_string().contains("no \"Items\""), "{e}");
    }
}
