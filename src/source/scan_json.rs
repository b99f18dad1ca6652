//! `aws dynamodb scan` (or `query`) output: `{"Items":[{…},…],"Count":2,"ScannedCount":3,…}`. Several pages may
//! be concatenated in one file (as `--starting-token` loops append them). Streamed with serde_json: items are
//! read one by one with the same targeted item reader as DynamoDB JSON; nothing but the current item is held.
//! A page whose `Count` disagrees with the items it holds gives a warning.

use std::fmt;
use std::io::BufRead;
use std::path::Path;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::item::{ItemSeed, Scratch};
use super::read::{Sink, TICK_LINES, Tick, json_reason};
use super::{At, LoadOptions, SourceError};

struct State<'a, 't> {
    sink: &'a mut Sink,
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
    let mut state = State {
        sink,
        scratch: Scratch::default(),
        opts,
        name,
        item: 0,
        stash: None,
        tick,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
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
        loop {
            let seed = ItemSeed {
                names: st.sink.names.as_ref(),
                scratch: &mut st.scratch,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
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
