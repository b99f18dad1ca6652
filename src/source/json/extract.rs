//! Attribute values for key designs: the top-level attributes a load's [`Design`](crate::model::design::Design)
//! reads ([`Scratch::extract`]) deserialised into [`Value`]s besides the key attributes, for typed DynamoDB JSON
//! ([`TypedValueSeed`]) and plain JSON ([`plain_to_value`]). The item readers of [`super::item`] call in here
//! only when the load extracts something, so a load without a design runs exactly the code it ran before.
//!
//! Values map as DynamoDB's: `{"S":…}` is a string, `{"N":…}` a number in canonical text (`1.50` is `1.5`; a
//! bad number is a record error naming the attribute), `{"B":…}` base64 decoded to its bytes, `BOOL`, `NULL`,
//! `M` and `L` (recursively), and the sets `SS`/`NS`/`BS` lists of their members. Plain JSON maps as the SDKs'
//! document clients do: a string is `S`, a number `N`, `true`/`false` a boolean, `null` NULL, an object a map and
//! an array a list.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::dialect::Dialect;
use super::item::{Field, KeyNames, Scratch, Tag, TagSeed};
use crate::model::KeyType;
use crate::model::keyexpr::Value;

/// Attribute names noted in [`Scratch::names`], at most (as [`Scratch::wants_names`] says).
const MAX_NAMES: usize = 256;

/// A number's canonical value, or the message naming the attribute.
fn number(text: &str, attr: &str) -> Result<Value, String> {
    Value::number(text).map_err(|e| format!("attribute {attr:?}: {e}"))
}

/// Base64 text's bytes, or the message naming the attribute.
fn binary(text: &str, attr: &str) -> Result<Value, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text.trim_ascii())
        .map(Value::B)
        .map_err(|_| format!("attribute {attr:?}: {text:?} is not valid base64"))
}

/// One typed attribute value (`{"S":"a"}`, `{"M":{…}}`, …) into a [`Value`]. `attr` names the top-level
/// attribute in messages. `key`: the attribute is also a key attribute, so its tag (and, for S/N/B, its text)
/// goes there too, as [`super::item`]'s reader of key attributes leaves them.
pub struct TypedValueSeed<'a> {
    pub attr: &'a str,
    pub key: Option<(&'a mut Option<Tag>, &'a mut Vec<u8>)>,
}

impl<'de> DeserializeSeed<'de> for TypedValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TypedValueSeed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an attribute value like {\"S\":\"…\"}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(tag) = map.next_key_seed(TagSeed)? else {
            return Err(A::Error::custom(
                "an attribute value is an empty object; expected a type tag like {\"S\":\"…\"}",
            ));
        };
        let (attr, mut key) = (self.attr, self.key);
        let value = match &tag {
            Tag::Key(t) => {
                let text: std::borrow::Cow<'de, str> = map.next_value_seed(TextCow)?;
                if let Some((_, raw)) = key.as_mut() {
                    raw.clear();
                    raw.extend_from_slice(text.as_bytes());
                }
                match t {
                    KeyType::S => Value::S(text.into_owned()),
                    KeyType::N => number(&text, attr).map_err(A::Error::custom)?,
                    KeyType::B => binary(&text, attr).map_err(A::Error::custom)?,
                }
            }
            Tag::Other(t) => other_value(&mut map, t, attr)?,
        };
        if let Some((key_tag, _)) = key {
            *key_tag = Some(tag);
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(value)
    }
}

/// The value of a tag no key can have.
fn other_value<'de, A: MapAccess<'de>>(
    map: &mut A,
    tag: &str,
    attr: &str,
) -> Result<Value, A::Error> {
    let set = |members: Vec<String>, f: fn(&str, &str) -> Result<Value, String>| {
        members
            .iter()
            .map(|m| f(m, attr))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::L)
            .map_err(A::Error::custom)
    };
    Ok(match tag {
        "BOOL" => Value::Bool(map.next_value()?),
        "NULL" => {
            map.next_value::<IgnoredAny>()?;
            Value::Null
        }
        "M" => Value::M(map.next_value_seed(TypedMapSeed { attr })?),
        "L" => Value::L(map.next_value_seed(TypedListSeed { attr })?),
        "SS" => Value::L(
            map.next_value::<Vec<String>>()?
                .into_iter()
                .map(Value::S)
                .collect(),
        ),
        "NS" => set(map.next_value()?, number)?,
        "BS" => set(map.next_value()?, binary)?,
        other => {
            return Err(A::Error::custom(format!(
                "attribute {attr:?} has the type tag {other:?}; expected one of S, N, B, BOOL, NULL, M, L, SS, NS, BS"
            )));
        }
    })
}

/// A string, borrowed from the input when it has no escapes.
struct TextCow;

impl<'de> DeserializeSeed<'de> for TextCow {
    type Value = std::borrow::Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TextCow {
    type Value = std::borrow::Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Borrowed(v))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(v.to_owned()))
    }
}

/// An `M` value's attribute map.
struct TypedMapSeed<'a> {
    attr: &'a str,
}

impl<'de> DeserializeSeed<'de> for TypedMapSeed<'_> {
    type Value = BTreeMap<String, Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TypedMapSeed<'_> {
    type Value = BTreeMap<String, Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of attribute values")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(name) = map.next_key::<String>()? {
            let v = map.next_value_seed(TypedValueSeed {
                attr: self.attr,
                key: None,
            })?;
            out.insert(name, v);
        }
        Ok(out)
    }
}

/// An `L` value's list.
struct TypedListSeed<'a> {
    attr: &'a str,
}

impl<'de> DeserializeSeed<'de> for TypedListSeed<'_> {
    type Value = Vec<Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TypedListSeed<'_> {
    type Value = Vec<Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of attribute values")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(TypedValueSeed {
            attr: self.attr,
            key: None,
        })? {
            out.push(v);
        }
        Ok(out)
    }
}

/// A typed attribute value's JSON text (as the fast path cuts it out) into a [`Value`]; `None` when serde
/// would refuse it (the caller then runs the serde path for the exact message).
pub fn typed_value(text: &[u8], attr: &str) -> Option<Value> {
    let mut de = serde_json::Deserializer::from_slice(text);
    let v = TypedValueSeed { attr, key: None }
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    Some(v)
}

/// A plain JSON value's text into a [`Value`], as the document clients map JSON to DynamoDB.
pub fn plain_to_value(text: &str, attr: &str) -> Result<Value, String> {
    let bad = |e: serde_json::Error| format!("attribute {attr:?}: {e}");
    Ok(match text.as_bytes().first() {
        Some(b'"') => Value::S(serde_json::from_str(text).map_err(bad)?),
        Some(b'-' | b'0'..=b'9') => number(text, attr)?,
        Some(b't') => Value::Bool(true),
        Some(b'f') => Value::Bool(false),
        Some(b'n') => Value::Null,
        Some(b'[') => {
            let list: Vec<&RawValue> = serde_json::from_str(text).map_err(bad)?;
            let list = list.iter().map(|v| plain_to_value(v.get(), attr));
            Value::L(list.collect::<Result<_, _>>()?)
        }
        _ => {
            let map: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(bad)?;
            let map = map
                .into_iter()
                .map(|(k, v)| plain_to_value(v.get(), attr).map(|v| (k, v)));
            Value::M(map.collect::<Result<_, _>>()?)
        }
    })
}

/// An attribute name as the extracting readers see it: a key attribute or not, its slot in
/// [`Scratch::values`], and (while guessing the key attributes) the name itself.
pub(super) struct XField {
    pub(super) key: Field,
    pub(super) slot: Option<usize>,
    pub(super) name: Option<String>,
}

/// Reads an attribute name for the extracting readers, noting it in `seen` (the first item's names).
pub(super) struct XFieldSeed<'a> {
    pub(super) names: Option<&'a KeyNames>,
    pub(super) extract: &'a [String],
    pub(super) seen: Option<&'a mut Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for XFieldSeed<'_> {
    type Value = XField;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<XField, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for XFieldSeed<'_> {
    type Value = XField;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an attribute name")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<XField, E> {
        if let Some(seen) = self.seen
            && seen.len() < MAX_NAMES
        {
            seen.push(v.to_owned());
        }
        let key = match self.names {
            Some(n) if v == n.pk => Field::Pk,
            Some(n) if n.sk.as_deref() == Some(v) => Field::Sk,
            _ => Field::Other,
        };
        Ok(XField {
            key,
            slot: self.extract.binary_search_by(|e| e.as_str().cmp(v)).ok(),
            name: self.names.is_none().then(|| v.to_owned()),
        })
    }
}

/// [`super::item::ItemSeed`]'s reading of an item when the load extracts values: the key attributes (or, with
/// `names` `None`, every attribute's tag and key text) as without extraction, and the values of
/// [`Scratch::extract`] into [`Scratch::values`], each value read as the dialect `D` writes it
/// ([`Dialect::extracted_attr`]).
pub fn read_item<'de, D: Dialect, A: MapAccess<'de>>(
    names: Option<&KeyNames>,
    s: &mut Scratch,
    mut map: A,
) -> Result<(), A::Error> {
    let collect = s.wants_names();
    let mut attrs = names.is_none().then(Vec::new);
    let Scratch {
        extract,
        values,
        names: seen,
        pk,
        pk_raw,
        sk,
        sk_raw,
        ..
    } = s;
    while let Some(f) = map.next_key_seed(XFieldSeed {
        names,
        extract,
        seen: collect.then_some(&mut *seen),
    })? {
        let guessing = attrs.is_some();
        let mut tag = None;
        let mut raw = Vec::new();
        let key = match (&f.key, guessing) {
            (_, true) => Some((&mut tag, &mut raw)),
            (Field::Pk, _) => Some((&mut *pk, &mut *pk_raw)),
            (Field::Sk, _) => Some((&mut *sk, &mut *sk_raw)),
            (Field::Other, _) => None,
        };
        let value = f.slot.map(|i| (extract[i].as_str(), &mut values[i]));
        D::extracted_attr(&mut map, value, key, guessing)?;
        if let (Some(attrs), Some(name), Some(tag)) = (attrs.as_mut(), f.name, tag) {
            attrs.push((name, tag, raw));
        }
    }
    if attrs.is_some() {
        s.attrs = attrs;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeSeed as _;

    use super::*;
    use crate::source::json::dialect::{Plain, Typed};
    use crate::source::json::item::ItemSeed;

    fn names(pk: &str, sk: Option<&str>) -> KeyNames {
        KeyNames {
            pk: pk.into(),
            sk: sk.map(Into::into),
            guessed: false,
        }
    }

    fn typed(text: &str, names: Option<&KeyNames>, s: &mut Scratch) -> Result<(), String> {
        let mut de = serde_json::Deserializer::from_slice(text.as_bytes());
        let seed = ItemSeed {
            names,
            scratch: s,
            dialect: Typed,
        };
        seed.deserialize(&mut de)
            .and_then(|()| de.end())
            .map_err(|e| e.to_string())
    }

    fn plain(text: &str, names: Option<&KeyNames>, s: &mut Scratch) -> Result<(), String> {
        let mut de = serde_json::Deserializer::from_slice(text.as_bytes());
        let seed = ItemSeed {
            names,
            scratch: s,
            dialect: Plain,
        };
        seed.deserialize(&mut de)
            .and_then(|()| de.end())
            .map_err(|e| e.to_string())
    }

    fn s(v: &str) -> Value {
        Value::S(v.to_owned())
    }

    fn n(v: &str) -> Value {
        Value::number(v).unwrap()
    }

    fn m(entries: &[(&str, Value)]) -> Value {
        Value::M(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    const ITEM: &str = r#"{"pk":{"S":"u#1"},"sk":{"N":"7"},"amount":{"N":"1.50"},"blob":{"B":"AAEC"},"ok":{"BOOL":true},"none":{"NULL":true},"addr":{"M":{"zip":{"S":"12345"},"geo":{"L":[{"N":"1E2"},{"S":"x\"y"}]}}},"tags":{"SS":["a","b"]},"nums":{"NS":["2.0","3"]},"bins":{"BS":["AQ=="]},"skipped":{"S":"not extracted"}}"#;

    #[test]
    fn typed_values_of_every_type() {
        let roots = [
            "amount", "blob", "ok", "none", "addr", "tags", "nums", "bins", "gone",
        ];
        let mut sc = Scratch::extracting(&roots);
        typed(ITEM, Some(&names("pk", Some("sk"))), &mut sc).unwrap();
        assert_eq!(sc.value("amount"), Some(&n("1.5")));
        assert_eq!(
            sc.value("amount").map(|v| v.canonical_bytes()),
            Some(Some(&b"1.5"[..]))
        );
        assert_eq!(sc.value("blob"), Some(&Value::B(vec![0, 1, 2])));
        assert_eq!(sc.value("ok"), Some(&Value::Bool(true)));
        assert_eq!(sc.value("none"), Some(&Value::Null));
        assert_eq!(
            sc.value("addr"),
            Some(&m(&[
                ("zip", s("12345")),
                ("geo", Value::L(vec![n("100"), s("x\"y")]))
            ]))
        );
        assert_eq!(sc.value("tags"), Some(&Value::L(vec![s("a"), s("b")])));
        assert_eq!(sc.value("nums"), Some(&Value::L(vec![n("2"), n("3")])));
        assert_eq!(sc.value("bins"), Some(&Value::L(vec![Value::B(vec![1])])));
        assert_eq!(sc.value("gone"), None, "a missing attribute stays None");
        assert_eq!(sc.pk, Some(Tag::Key(KeyType::S)));
        assert_eq!(sc.pk_raw, b"u#1");
        assert_eq!(sc.sk_raw, b"7");
    }

    #[test]
    fn a_key_attribute_extracted_is_filled_in_both() {
        let mut sc = Scratch::extracting(&["pk", "sk"]);
        typed(ITEM, Some(&names("pk", Some("sk"))), &mut sc).unwrap();
        assert_eq!(
            (sc.pk.clone(), sc.pk_raw.as_slice()),
            (Some(Tag::Key(KeyType::S)), &b"u#1"[..])
        );
        assert_eq!(
            (sc.sk.clone(), sc.sk_raw.as_slice()),
            (Some(Tag::Key(KeyType::N)), &b"7"[..])
        );
        assert_eq!(sc.value("pk"), Some(&s("u#1")));
        assert_eq!(sc.value("sk"), Some(&n("7")));
        // A binary key keeps its base64 text for the key set and its bytes as the value.
        typed(r#"{"pk":{"B":"AAEC"}}"#, Some(&names("pk", None)), &mut sc).unwrap();
        assert_eq!(sc.pk_raw, b"AAEC");
        assert_eq!(sc.value("pk"), Some(&Value::B(vec![0, 1, 2])));
        assert_eq!(sc.value("sk"), None, "cleared from the item before");
    }

    #[test]
    fn guessing_keeps_the_values_and_notes_the_names_of_the_first_item_only() {
        let mut sc = Scratch::extracting(&["amount", "pk"]);
        typed(ITEM, None, &mut sc).unwrap();
        let attrs = sc.attrs.as_ref().unwrap();
        assert_eq!(attrs.len(), 11);
        assert_eq!(
            attrs[2],
            ("amount".into(), Tag::Key(KeyType::N), b"1.50".to_vec())
        );
        sc.take_from_attrs(&names("pk", Some("sk")));
        assert_eq!(sc.pk_raw, b"u#1");
        assert_eq!(sc.sk_raw, b"7");
        assert_eq!(
            sc.value("amount"),
            Some(&n("1.5")),
            "kept by take_from_attrs"
        );
        assert_eq!(sc.value("pk"), Some(&s("u#1")));
        let first = [
            "pk", "sk", "amount", "blob", "ok", "none", "addr", "tags", "nums", "bins", "skipped",
        ];
        assert_eq!(sc.names, first);
        typed(
            r#"{"pk":{"S":"b"},"other":{"N":"1"}}"#,
            Some(&names("pk", None)),
            &mut sc,
        )
        .unwrap();
        assert!(sc.names_done);
        assert_eq!(sc.names, first, "the second item adds nothing");
        assert_eq!(sc.value("amount"), None);
    }

    #[test]
    fn an_item_that_fails_to_read_notes_no_names() {
        let k = names("pk", None);
        let mut sc = Scratch::extracting(&["amount"]);
        typed(
            r#"{"pk":{"S":"a"},"x":{"S":"b"},"amount":{"N":"no"}}"#,
            Some(&k),
            &mut sc,
        )
        .unwrap_err();
        assert!(sc.names.is_empty());
        typed(r#"{"pk":{"S":"a"},"y":{"S":"b"}}"#, Some(&k), &mut sc).unwrap();
        assert_eq!(sc.names, ["pk", "y"]);
        let mut sc = Scratch::extracting(&["n"]);
        plain(r#"{"pk":"a","n":"x","m":[1,}"#, Some(&k), &mut sc).unwrap_err();
        assert!(sc.names.is_empty());
    }

    #[test]
    fn bad_values_are_record_errors_naming_the_attribute() {
        let k = names("pk", None);
        let mut sc = Scratch::extracting(&["amount", "b"]);
        let e = typed(
            r#"{"pk":{"S":"a"},"amount":{"N":"1.2.3"}}"#,
            Some(&k),
            &mut sc,
        )
        .unwrap_err();
        assert!(
            e.starts_with("attribute \"amount\": \"1.2.3\" is not a number"),
            "{e}"
        );
        let e = typed(r#"{"pk":{"S":"a"},"b":{"B":"!!"}}"#, Some(&k), &mut sc).unwrap_err();
        assert!(
            e.starts_with("attribute \"b\": \"!!\" is not valid base64"),
            "{e}"
        );
        let e = typed(r#"{"b":{"X":1},"pk":{"S":"a"}}"#, Some(&k), &mut sc).unwrap_err();
        assert!(
            e.starts_with("attribute \"b\" has the type tag \"X\""),
            "{e}"
        );
        // Not extracted: not read, so not an error (as without a design).
        let mut sc = Scratch::extracting(&["other"]);
        typed(
            r#"{"pk":{"S":"a"},"amount":{"N":"1.2.3"}}"#,
            Some(&k),
            &mut sc,
        )
        .unwrap();
        assert_eq!(sc.pk_raw, b"a");
    }

    #[test]
    fn plain_values_of_every_type() {
        let text = r#"{"pk":"u#1","n":1.50,"neg":-0.0e0,"t":true,"f":false,"z":null,"m":{"a":[1,"x\u00e9"],"b":{}},"l":[],"other":{"deep":[[]]}}"#;
        let roots = ["pk", "n", "neg", "t", "f", "z", "m", "l", "gone"];
        for guess in [false, true] {
            let mut sc = Scratch::extracting(&roots);
            let k = names("pk", None);
            plain(text, (!guess).then_some(&k), &mut sc).unwrap();
            if guess {
                assert_eq!(sc.attrs.as_ref().map(Vec::len), Some(9));
                sc.take_from_attrs(&k);
            }
            assert_eq!(
                (sc.pk.clone(), sc.pk_raw.as_slice()),
                (Some(Tag::Key(KeyType::S)), &b"u#1"[..])
            );
            assert_eq!(sc.value("pk"), Some(&s("u#1")));
            assert_eq!(sc.value("n"), Some(&n("1.5")));
            assert_eq!(sc.value("neg"), Some(&n("0")));
            assert_eq!(sc.value("t"), Some(&Value::Bool(true)));
            assert_eq!(sc.value("f"), Some(&Value::Bool(false)));
            assert_eq!(sc.value("z"), Some(&Value::Null));
            assert_eq!(
                sc.value("m"),
                Some(&m(&[("a", Value::L(vec![n("1"), s("xé")])), ("b", m(&[]))]))
            );
            assert_eq!(sc.value("l"), Some(&Value::L(vec![])));
            assert_eq!(sc.value("gone"), None);
            assert_eq!(sc.names.len(), 9);
        }
    }

    #[test]
    fn without_extraction_nothing_is_noted() {
        let mut sc = Scratch::default();
        typed(ITEM, None, &mut sc).unwrap();
        assert!(sc.values.is_empty() && sc.names.is_empty());
        assert!(!sc.wants_names());
    }
}
