//! Reading one item element of a JSON document ([`super::json_doc`], [`super::doc_split`]): its compact text
//! through the hand-written fast path ([`super::fast_json`]), then serde for the exact result or message. The
//! first item decides how every item is written ([`Typing`]).

use serde::de::DeserializeSeed as _;

use super::dialect::{Plain, Typed};
use super::fast_json::{scan_item, scan_plain_item};
use super::item::{ItemSeed, KeyNames, Scratch, is_typed_item};
use super::json_stream::kind_of;
use super::ttl::TtlProbe;
use crate::source::read::{Sink, invalid_json_line};
use crate::source::{LoadOptions, Message};

/// How the items of a document are written (decided by the first one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typing {
    /// DynamoDB JSON: `{"pk":{"S":"a"}}`.
    Typed,
    /// Plain JSON: `{"pk":"a"}`.
    Plain,
    /// An export line's wrapper: `{"Item":{"pk":{"S":"a"}}}`.
    Wrapped,
}

impl Typing {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Typed => "typed DynamoDB JSON items",
            Self::Plain => "plain JSON items",
            Self::Wrapped => "{\"Item\":{…}} records",
        }
    }
}

/// Reads item elements into a [`Sink`].
#[derive(Debug)]
pub struct ItemReader {
    pub typing: Option<Typing>,
    scratch: Scratch,
}

impl ItemReader {
    /// A reader whose first item decides how the items are written, extracting what `opts`' design needs.
    pub fn new(opts: &LoadOptions) -> Self {
        Self {
            typing: None,
            scratch: Scratch::for_load(opts),
        }
    }

    /// A reader whose items are typed DynamoDB JSON whatever they look like (request files, Workbench models).
    pub fn typed(opts: &LoadOptions) -> Self {
        Self {
            typing: Some(Typing::Typed),
            scratch: Scratch::for_load(opts),
        }
    }

    /// A reader of a stretch of a file whose first item (read before) decided how items are written and the
    /// TTL attribute `ttl` ([`crate::source::stretches`]).
    pub fn for_stretch(typing: Typing, opts: &LoadOptions, ttl: Option<&TtlProbe>) -> Self {
        let mut scratch = Scratch::for_load(opts);
        if let Some(ttl) = ttl {
            scratch.ttl = ttl.clone();
        }
        Self {
            typing: Some(typing),
            scratch,
        }
    }

    /// The TTL attribute as the items read so far decided it.
    pub fn into_ttl(self) -> TtlProbe {
        self.scratch.ttl
    }

    /// One item's compact JSON text; `Err` is what is wrong with it.
    pub fn item(
        &mut self,
        text: &[u8],
        sink: &mut Sink,
        opts: &LoadOptions,
    ) -> Result<(), Message> {
        if text.first() != Some(&b'{') {
            return Err(format!(
                "{}, not an item; expected an object of attributes",
                kind_of(text.first().copied())
            )
            .into());
        }
        let typing = match self.typing {
            Some(t) => t,
            None => {
                if let Some(deep) = super::fast_json::too_deep(text) {
                    return Err(deep.into());
                }
                let t = typing_of(text)?;
                self.typing = Some(t);
                t
            }
        };
        if typing == Typing::Wrapped {
            return crate::source::dynamodb_json::json_line(
                text,
                "Item",
                sink,
                &mut self.scratch,
                opts,
            );
        }
        let scratch = &mut self.scratch;
        let fast = sink.names.as_ref().is_some_and(|names| match typing {
            Typing::Plain => scan_plain_item(text, names, scratch),
            _ => scan_item(text, names, scratch),
        });
        if !fast {
            // Serde skips unread attributes at any depth (see `too_deep`).
            if let Some(deep) = super::fast_json::too_deep(text) {
                return Err(deep.into());
            }
            let mut de = serde_json::Deserializer::from_slice(text);
            let names = sink.names.as_ref();
            match typing {
                Typing::Plain => ItemSeed {
                    names,
                    scratch,
                    dialect: Plain,
                }
                .deserialize(&mut de),
                _ => ItemSeed {
                    names,
                    scratch,
                    dialect: Typed,
                }
                .deserialize(&mut de),
            }
            .and_then(|()| de.end())
            .map_err(|e| skippable(invalid_json_line(text, &e), opts.on_bad))?;
            if sink.names.is_none() {
                sink.resolve_from_first(scratch, opts)?;
            }
            // The fast path declined this item: it is sized in a second walk (which names a bad value, and
            // estimates the size of an item whose attribute other than a key is malformed).
            let keys = sink
                .names
                .as_ref()
                .map(KeyNames::attributes)
                .unwrap_or_default();
            let size = match typing {
                Typing::Plain => super::size::ItemSize::exact(super::size::plain_item_size(text)?),
                _ => super::size::typed_item_size(text, &keys)
                    .map_err(|e| skippable(e, opts.on_bad))?,
            };
            scratch.item_bytes = Some(size.bytes);
            scratch.size_estimate = size.estimate;
            let typed = typing != Typing::Plain;
            super::ttl::probe_slow(text, None, typed, &mut scratch.ttl);
        }
        sink.add_scratch(scratch, 1)
    }
}

/// A bad record's reason (a key attribute's value that is not what its type tag says, a line serde refuses),
/// with Skip bad records said as what skips it while the load stops at bad records.
pub(crate) fn skippable(what: String, on_bad: crate::source::OnBad) -> Message {
    if on_bad == crate::source::OnBad::Stop {
        Message::hinted(format!("{what} ("), crate::source::Hint::SkipBad, ")")
    } else {
        what.into()
    }
}

/// How the first item is written.
fn typing_of(text: &[u8]) -> Result<Typing, String> {
    let value: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| invalid_json_line(text, &e))?;
    if is_typed_item(&value)? {
        return Ok(Typing::Typed);
    }
    let wrapped = value.as_object().is_some_and(|o| {
        o.get("Item")
            .is_some_and(|item| item.is_object() && is_typed_item(item) == Ok(true))
    });
    Ok(if wrapped {
        Typing::Wrapped
    } else {
        Typing::Plain
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::design::{Design, parse_key};
    use crate::model::keyexpr::Value;

    fn extracting(expr: &str) -> LoadOptions {
        LoadOptions {
            design: Design {
                // A sparse index only extracts: no record is bad for lacking an attribute.
                gsis: vec![crate::model::design::GsiSpec {
                    name: "t".into(),
                    key: crate::model::keyexpr::KeyTuple::one(parse_key(expr).unwrap()),
                    sort_key: Vec::new(),
                    projection: crate::model::design::Projection::All,
                }],
                ..Design::default()
            },
            ..LoadOptions::default()
        }
    }

    /// The first item goes through serde (guessing the keys, noting the names), later ones through the fast
    /// path: both fill the values.
    #[test]
    fn items_fill_values_on_both_paths() {
        let opts = extracting("{status}#{n}");
        for (typed, items) in [
            (
                false,
                [r#"{"pk":"a","status":"X","n":1.50}"#, r#"{"pk":"b","n":2}"#],
            ),
            (
                true,
                [
                    r#"{"pk":{"S":"a"},"status":{"S":"X"},"n":{"N":"1.50"}}"#,
                    r#"{"pk":{"S":"b"},"n":{"N":"2"}}"#,
                ],
            ),
        ] {
            let mut sink = Sink::new(&opts);
            let mut r = ItemReader::new(&opts);
            r.item(items[0].as_bytes(), &mut sink, &opts).unwrap();
            assert_eq!(
                r.typing,
                Some(if typed { Typing::Typed } else { Typing::Plain })
            );
            assert_eq!(r.scratch.extract, ["n", "status"]);
            assert_eq!(
                r.scratch.values,
                [
                    Some(Value::number("1.5").unwrap()),
                    Some(Value::S("X".into()))
                ]
            );
            assert_eq!(r.scratch.names, ["pk", "status", "n"]);
            r.item(items[1].as_bytes(), &mut sink, &opts).unwrap();
            assert_eq!(r.scratch.values, [Some(Value::number("2").unwrap()), None]);
            assert_eq!(r.scratch.names, ["pk", "status", "n"]);
            assert_eq!(sink.keys.total(), 2);
        }
    }

    /// A first item (read by serde to guess its keys) with attributes that are not typed values: kept as later
    /// items are, its size an estimate, with a design extracting values and without; a key so written is a bad
    /// record that names Skip bad records.
    #[test]
    fn a_first_item_with_a_malformed_attribute_is_kept_with_an_estimate() {
        let item =
            br#"{"pk":{"S":"p1"},"t":"plain","a":{"M":{"M":{"HP":{"N":"50"}}}},"n":{"N":"2"}}"#;
        for opts in [LoadOptions::default(), extracting("{n}")] {
            let mut sink = Sink::new(&opts);
            let mut r = ItemReader::typed(&opts);
            r.item(item, &mut sink, &opts).unwrap();
            assert_eq!(sink.keys.total(), 1);
            assert_eq!(sink.names.as_ref().map(|n| n.pk.as_str()), Some("pk"));
            assert_eq!(sink.estimated, 1);
            assert_eq!(
                sink.first_estimate.as_deref(),
                Some(
                    r#"item "p1": attribute "t": not a typed value; expected an object like {"S": "…"}"#
                )
            );
            assert_eq!(sink.keys.estimated_sizes(), 1);
        }
        let opts = LoadOptions {
            key: Some("pk".into()),
            ..LoadOptions::default()
        };
        let mut sink = Sink::new(&opts);
        let e = ItemReader::typed(&opts)
            .item(br#"{"pk":{"N":"abc"},"n":{"N":"2"}}"#, &mut sink, &opts)
            .unwrap_err();
        assert_eq!(
            e.in_words(crate::source::Hint::flag),
            r#"attribute "pk": "abc" is not a number (N) (--skip-bad skips and counts such items)"#
        );
    }
}
