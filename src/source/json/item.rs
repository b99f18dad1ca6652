//! Items in DynamoDB JSON (`{"pk":{"S":"a"},"n":{"N":"1"},…}`): targeted, allocation-free extraction of the key
//! attributes with serde, skipping every other attribute with [`IgnoredAny`]. Shared by the DynamoDB JSON,
//! scan, incremental and Workbench formats; the Ion reader fills the same [`Scratch`].
//!
//! Over 600 lines: the serde item reader, written once over both dialects ([`ItemSeed`] of [`Typed`] or
//! `Plain`, see `json/dialect`), beside the seeds it shares with the extracting reader and the [`Scratch`] and
//! key names they fill.

use std::fmt;

use serde::Deserializer;
use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};

use super::dialect::{Dialect, Typed};
use crate::model::KeyType;
use crate::source::{Hint, Message};

/// The type tag of an attribute value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tag {
    Key(KeyType),
    /// A type no key can have (`SS`, `M`, `BOOL`, …): a name written in the code, or one read from the input
    /// (an item is read without allocating for its types).
    Other(std::borrow::Cow<'static, str>),
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Key(t) => write!(f, "{t} ({})", t.describe()),
            Self::Other(t) => write!(f, "{t}"),
        }
    }
}

/// The key attributes' names, once known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyNames {
    pub pk: String,
    pub sk: Option<String>,
    /// The partition key was guessed, not given or read from a model: error messages say so.
    pub guessed: bool,
}

impl KeyNames {
    /// The key attributes' names (the partition key's, then the sort key's): a malformed value of one of
    /// them makes the record bad, of any other attribute only its size an estimate
    /// ([`super::size::ItemSize`]).
    pub fn attributes(&self) -> Vec<&str> {
        std::iter::once(self.pk.as_str())
            .chain(self.sk.as_deref())
            .collect()
    }
}

/// One item's key attributes as read (raw text, not yet canonical), reused from item to item.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The item's size as DynamoDB counts it ([`crate::model::item_size`]), when the record carries the item.
    pub item_bytes: Option<u64>,
    /// `item_bytes` is an estimate: what was wrong with the first attribute (not a key) that could not be read
    /// as the typed value it should be ([`super::size::ItemSize`]). Set by the second walk, cleared by every
    /// item's reading.
    pub size_estimate: Option<String>,
    pub pk: Option<Tag>,
    pub pk_raw: Vec<u8>,
    pub sk: Option<Tag>,
    pub sk_raw: Vec<u8>,
    /// While the key names are unknown: every attribute of the item (name, tag, raw text for S/N/B).
    pub attrs: Option<Vec<(String, Tag, Vec<u8>)>>,
    /// Top-level attributes to extract as values besides the keys (the load's
    /// [`Design::roots`](crate::model::design::Design::roots)), sorted. Set once by the loader
    /// ([`Self::for_load`]).
    pub extract: Vec<String>,
    /// The item's values of `extract` (same order; `None`: the item has no such attribute). An extracted
    /// attribute that is also the partition or sort key is filled here too.
    pub values: Vec<Option<crate::model::keyexpr::Value>>,
    /// With `extract` non-empty: the top-level attribute names of the first item read (for messages).
    pub names: Vec<String>,
    /// `names` is complete (set by [`Self::clear`] once an item has filled it).
    pub names_done: bool,
    /// The TTL attribute and this item's value of it.
    pub ttl: super::ttl::TtlProbe,
    /// Strings and lists of the last item's values, cleared, for the next item's (see [`Spare`]).
    pub spare: Spare,
    /// The load's key expression compiled against `extract`, when the key is all the load extracts for and
    /// the fast path may build it from the values where they lie ([`Self::for_load`]).
    pub direct: Option<crate::model::keyexpr::Direct>,
    /// With `direct`: where each slot's value lies in the record the fast path is reading (start, end).
    pub spans: Vec<Option<(usize, usize)>>,
    /// The item's key when `direct_ok`.
    pub direct_key: String,
    /// The fast path built this item's key in `direct_key`: exactly what the key expression gives on the
    /// item's values, which were not read (`values` is then not the item's, and nothing reads it).
    pub direct_ok: bool,
    /// The shapes of the load's items, for the fast path ([`super::fast_json::Shapes`]); boxed, so that the
    /// fast path takes it out and puts it back by moving a pointer.
    pub(super) shapes: super::fast_json::ShapesSlot,
    /// Where the Ion reader unescapes the strings nobody keeps, kept from line to line (a buffer a line cost an
    /// allocation, its growth and a free on each of an Ion export's lines).
    pub ion_discard: Vec<u8>,
}

/// The allocations of an item's extracted values, handed back by [`Scratch::clear`] for the next item's
/// values of the same shape. Measured with `shardlens-bench extract` (`{pk}#{status}#{tags.0}`, 2,000,000
/// export lines): `malloc` and `free` for each item's strings and sets were 5 % of the load.
///
/// Each slot's value of the last item is parked whole (`parked`, by slot) and the next item's value of that slot
/// is written into it: the string's bytes replaced, a set's members overwritten in place. Handing each string
/// and list to the free lists and taking it back (`recycle`, `string` and the pushes between) was 8 % of the
/// samples of `shardlens analyze --key-expr '{pk}#{status}#{tags.0}'` on `shardlens-bench extract`'s file;
/// parked, the whole command runs 2.0 % fewer instructions (`valgrind --tool=callgrind`, its first 200,000
/// lines: 1.693 -> 1.659 G), its wall time within the machine's noise.
#[derive(Debug, Default)]
pub struct Spare {
    strings: Vec<String>,
    lists: Vec<Vec<crate::model::keyexpr::Value>>,
    /// By slot of [`Scratch::values`]: the last item's value, kept for the next item's.
    parked: Vec<Option<crate::model::keyexpr::Value>>,
}

/// Allocations kept by a [`Spare`], at most, of each kind (an item with more values allocates as before).
const SPARE_KEPT: usize = 64;

impl Spare {
    /// Keeps the allocations of `value`.
    fn recycle(&mut self, value: crate::model::keyexpr::Value) {
        use crate::model::keyexpr::Value;
        match value {
            Value::S(s) if self.strings.len() < SPARE_KEPT => self.strings.push(s),
            Value::L(mut list) => {
                for v in list.drain(..) {
                    self.recycle(v);
                }
                if self.lists.len() < SPARE_KEPT {
                    self.lists.push(list);
                }
            }
            _ => {}
        }
    }

    /// `text` as an owned string, in a kept allocation when there is one.
    pub fn string(&mut self, text: &str) -> String {
        match self.strings.pop() {
            Some(mut s) => {
                s.clear();
                s.push_str(text);
                s
            }
            None => text.to_owned(),
        }
    }

    /// An empty list, in a kept allocation when there is one.
    pub fn list(&mut self) -> Vec<crate::model::keyexpr::Value> {
        self.lists.pop().unwrap_or_default()
    }

    /// Parks `value`, the value of slot `slot` of an item done with, for the next item's value of that slot;
    /// what was parked there and not taken goes to the free lists.
    fn park(&mut self, slot: usize, value: crate::model::keyexpr::Value) {
        if self.parked.len() <= slot {
            self.parked.resize_with(slot + 1, || None);
        }
        if let Some(old) = self.parked[slot].replace(value) {
            self.recycle(old);
        }
    }

    /// Slot `slot`'s string `text`: written into the string parked there when there is one.
    pub fn string_in(&mut self, slot: usize, text: &str) -> String {
        match self.parked.get_mut(slot).and_then(Option::take) {
            Some(crate::model::keyexpr::Value::S(mut s)) => {
                s.clear();
                s.push_str(text);
                s
            }
            Some(other) => {
                self.recycle(other);
                self.string(text)
            }
            None => self.string(text),
        }
    }

    /// Slot `slot`'s list, to be filled by [`Self::member_in`] and cut by [`Self::end_list`]: the list
    /// parked there with its members (to be overwritten) when there is one.
    pub fn list_in(&mut self, slot: usize) -> Vec<crate::model::keyexpr::Value> {
        match self.parked.get_mut(slot).and_then(Option::take) {
            Some(crate::model::keyexpr::Value::L(list)) => list,
            Some(other) => {
                self.recycle(other);
                self.list()
            }
            None => self.list(),
        }
    }

    /// Makes member `at` of `list` the string `text`, over the member there when it is a string.
    pub fn member_in(
        &mut self,
        list: &mut Vec<crate::model::keyexpr::Value>,
        at: usize,
        text: &str,
    ) {
        match list.get_mut(at) {
            Some(crate::model::keyexpr::Value::S(s)) => {
                s.clear();
                s.push_str(text);
            }
            Some(other) => *other = crate::model::keyexpr::Value::S(self.string(text)),
            None => list.push(crate::model::keyexpr::Value::S(self.string(text))),
        }
    }

    /// Cuts `list` to its first `len` members (the members after them go to the free lists).
    pub fn end_list(&mut self, list: &mut Vec<crate::model::keyexpr::Value>, len: usize) {
        if list.len() > len {
            for v in list.drain(len..) {
                self.recycle(v);
            }
        }
    }
}

impl Scratch {
    /// A scratch that extracts what `opts`' design needs.
    pub fn for_load(opts: &crate::source::LoadOptions) -> Self {
        let extract = opts.design.roots();
        // Values are kept for nothing but the key: the fast path may build it in place.
        let direct = (!opts.keep_items)
            .then(|| opts.design.key_alone())
            .flatten()
            .and_then(|key| key.direct(&extract));
        Self {
            values: vec![None; extract.len()],
            spans: vec![None; extract.len()],
            direct,
            extract,
            ttl: super::ttl::TtlProbe::new(opts.ttl_attr.as_deref()),
            ..Self::default()
        }
    }

    /// Whether `name` is an attribute to extract, and its slot in `values`.
    pub fn extract_slot(&self, name: &str) -> Option<usize> {
        self.extract_slot_of(name.as_bytes())
    }

    /// [`Self::extract_slot`] of a name as bytes. A design extracts a few attributes, so the names are
    /// walked comparing lengths first: the binary search's byte compares of every attribute of every item
    /// were 8 % of `shardlens analyze --key-expr '{pk}#{status}#{tags.0}'` over 2,000,000 export lines
    /// (`perf record`).
    #[inline]
    pub fn extract_slot_of(&self, name: &[u8]) -> Option<usize> {
        if self.extract.len() > 8 {
            return self
                .extract
                .binary_search_by(|e| e.as_bytes().cmp(name))
                .ok();
        }
        self.extract
            .iter()
            .position(|e| e.len() == name.len() && e.as_bytes() == name)
    }

    /// Whether the loader should note `name` in [`Self::names`] (extraction on, first item, not too many).
    pub fn wants_names(&self) -> bool {
        !self.extract.is_empty() && !self.names_done && self.names.len() < 256
    }

    pub fn clear(&mut self) {
        self.item_bytes = None;
        self.size_estimate = None;
        self.ttl.value = crate::model::health::ttl::TtlValue::Absent;
        self.pk = None;
        self.sk = None;
        if self.direct.is_some() {
            self.direct_ok = false;
            self.spans.iter_mut().for_each(|s| *s = None);
        }
        for (slot, v) in self.values.iter_mut().enumerate() {
            if let Some(v) = v.take() {
                self.spare.park(slot, v);
            }
        }
        if !self.names.is_empty() {
            self.names_done = true;
        }
    }

    /// Takes the key attributes of `names` from the collected attributes of the first item (its size and
    /// extracted values stay).
    pub fn take_from_attrs(&mut self, names: &KeyNames) {
        self.pk = None;
        self.sk = None;
        let Some(attrs) = self.attrs.take() else {
            return;
        };
        for (name, tag, raw) in attrs {
            if name == names.pk {
                self.pk = Some(tag);
                self.pk_raw = raw;
            } else if names.sk.as_deref() == Some(name.as_str()) {
                self.sk = Some(tag);
                self.sk_raw = raw;
            }
        }
    }
}

#[cfg(test)]
impl Scratch {
    /// A scratch that extracts `roots` (in any order), for tests.
    pub(crate) fn extracting(roots: &[&str]) -> Self {
        let mut extract: Vec<String> = roots.iter().map(|r| (*r).to_owned()).collect();
        extract.sort();
        extract.dedup();
        Self {
            values: vec![None; extract.len()],
            extract,
            ..Self::default()
        }
    }

    /// The value extracted for `root`.
    pub(crate) fn value(&self, root: &str) -> Option<&crate::model::keyexpr::Value> {
        self.values.get(self.extract_slot(root)?)?.as_ref()
    }
}

/// Names that usually hold the partition key, in order of preference (compared ignoring case).
pub(in crate::source) const PK_NAMES: [&str; 8] = [
    "pk",
    "partitionkey",
    "partition_key",
    "hashkey",
    "hash_key",
    "id",
    "key",
    "_id",
];
/// Names that usually hold the sort key (compared ignoring case).
pub(in crate::source) const SK_NAMES: [&str; 5] =
    ["sk", "sortkey", "sort_key", "rangekey", "range_key"];
/// One more for items: an attribute `sort` of a key type is a sort key (a CSV column `sort` is more often an
/// ordering, so CSV does not take it).
const ITEM_SK_NAMES: [&str; 1] = ["sort"];

/// The number after a key name of `names` (`PK0` → 0, `sk1` → 1): single-table designs that overload their keys
/// for indexes name them `PK0`/`SK0`, `PK1`/`SK1`, … (the table's own keys first).
fn numbered(name: &str, names: &[&str]) -> Option<u32> {
    let digits = name.trim_start_matches(|c: char| !c.is_ascii_digit());
    let stem = &name[..name.len() - digits.len()];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    names
        .iter()
        .any(|n| stem.eq_ignore_ascii_case(n))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The sort key of an item keyed by `pk`: a name like `sk`, else (for a numbered `PK0`) the sort key of the
/// same number (`SK0`).
fn guess_sort_key(attrs: &[(&str, Option<KeyType>)], pk: &str) -> Option<String> {
    let attrs = attrs.iter().copied();
    SK_NAMES
        .iter()
        .chain(&ITEM_SK_NAMES)
        .find_map(|want| {
            attrs
                .clone()
                .find(|(n, t)| n.eq_ignore_ascii_case(want) && *n != pk && t.is_some())
                .map(|(n, _)| n.to_owned())
        })
        .or_else(|| {
            let number = numbered(pk, &PK_NAMES)?;
            attrs
                .clone()
                .find(|(n, t)| t.is_some() && numbered(n, &SK_NAMES) == Some(number))
                .map(|(n, _)| n.to_owned())
        })
}

/// Picks the key attributes: the given ones, else guesses from the first item's attribute names (a name like
/// `pk`/`id`, else a numbered one like `PK0` (the lowest number, with the sort key `SK` of the same number),
/// else one ending in `id`, else the only attribute of a key type). Returns the names and a note for the user
/// when guessed.
pub fn resolve_names(
    attrs: &[(&str, Option<KeyType>)],
    key: Option<&str>,
    sort_key: Option<&str>,
) -> Result<(KeyNames, Option<Message>), Message> {
    let is_key = |t: Option<KeyType>| t.is_some();
    let listed = attrs;
    let attrs = attrs.iter().copied();
    let (pk, guessed) = match key {
        Some(k) => (k.to_owned(), false),
        None => {
            let by_list = PK_NAMES.iter().find_map(|want| {
                attrs
                    .clone()
                    .find(|(n, t)| n.eq_ignore_ascii_case(want) && is_key(*t))
            });
            let by_number = || {
                attrs
                    .clone()
                    .filter(|(_, t)| is_key(*t))
                    .filter_map(|a| Some((numbered(a.0, &PK_NAMES)?, a)))
                    .min_by_key(|(n, _)| *n)
                    .map(|(_, a)| a)
            };
            let by_suffix = || {
                attrs.clone().find(|(n, t)| {
                    n.len() > 2 && n.to_ascii_lowercase().ends_with("id") && is_key(*t)
                })
            };
            let only = || {
                let mut keyish = attrs.clone().filter(|(_, t)| is_key(*t));
                match (keyish.next(), keyish.next()) {
                    (Some(one), None) => Some(one),
                    _ => None,
                }
            };
            match by_list.or_else(by_number).or_else(by_suffix).or_else(only) {
                Some((n, _)) => (n.to_owned(), true),
                None => {
                    let all: Vec<&str> = attrs.clone().map(|(n, _)| n).collect();
                    let has = if all.is_empty() {
                        "no attributes".to_owned()
                    } else {
                        all.join(", ")
                    };
                    return Err(Message::hinted(
                        format!(
                            "cannot tell which attribute is the partition key (the first item has {has}); "
                        ),
                        Hint::ChooseKey,
                        "",
                    ));
                }
            }
        }
    };
    let sk = match sort_key {
        Some(s) => Some(s.to_owned()),
        None => guess_sort_key(listed, &pk),
    };
    let note = (guessed || (sort_key.is_none() && sk.is_some())).then(|| {
        let sk_said = sk
            .as_ref()
            .map_or_else(String::new, |s| format!(", sort key {s:?}"));
        Message::hinted(
            format!("key attributes guessed from the first item: partition key {pk:?}{sk_said} ("),
            Hint::ChooseKeyOrSortKey,
            " to choose)",
        )
    });
    Ok((KeyNames { pk, sk, guessed }, note))
}

/// Deserialises one item (an attribute map) whose values are written as `D` says ([`Typed`] DynamoDB JSON, or
/// [`super::dialect::Plain`] JSON, which needs a `serde_json` deserializer over a slice) into a [`Scratch`]:
/// either only the key attributes of `names`, or, when `names` is `None`, every attribute (for guessing).
pub struct ItemSeed<'a, D: Dialect = Typed> {
    pub names: Option<&'a KeyNames>,
    pub scratch: &'a mut Scratch,
    /// How the item's values are written.
    pub dialect: D,
}

impl<'de, D: Dialect> DeserializeSeed<'de> for ItemSeed<'_, D> {
    type Value = ();
    fn deserialize<De: Deserializer<'de>>(self, d: De) -> Result<(), De::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, D: Dialect> Visitor<'de> for ItemSeed<'_, D> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an item (an object of attributes)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.scratch.clear();
        if !self.scratch.extract.is_empty() {
            let collecting = self.scratch.wants_names();
            let read = super::extract::read_item::<D, A>(self.names, self.scratch, map);
            if read.is_err() && collecting {
                // Not the names of an item: the next item notes its own.
                self.scratch.names.clear();
            }
            return read;
        }
        match self.names {
            Some(names) => {
                while let Some(field) = map.next_key_seed(FieldSeed(names))? {
                    match field {
                        Field::Pk => {
                            self.scratch.pk = D::key_attr(&mut map, &mut self.scratch.pk_raw)?;
                        }
                        Field::Sk => {
                            self.scratch.sk = D::key_attr(&mut map, &mut self.scratch.sk_raw)?;
                        }
                        Field::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
            }
            None => {
                // The first item, every attribute read for guessing the keys ([`Dialect::guess_attr`]).
                let mut attrs = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    if let Some((tag, raw)) = D::guess_attr(&mut map)? {
                        attrs.push((name, tag, raw));
                    }
                }
                self.scratch.attrs = Some(attrs);
            }
        }
        Ok(())
    }
}

/// The key type of a plain JSON value, as the SDKs map it, and its text into `out` (strings decoded).
pub(super) fn plain_value(
    raw: &serde_json::value::RawValue,
    out: &mut Vec<u8>,
) -> Result<Tag, String> {
    let text = raw.get();
    out.clear();
    Ok(match text.as_bytes().first() {
        Some(b'"') => {
            let s: std::borrow::Cow<'_, str> =
                serde_json::from_str(text).map_err(|e| e.to_string())?;
            out.extend_from_slice(s.as_bytes());
            Tag::Key(KeyType::S)
        }
        Some(b'-' | b'0'..=b'9') => {
            out.extend_from_slice(text.as_bytes());
            Tag::Key(KeyType::N)
        }
        Some(b't' | b'f') => Tag::Other("BOOL (a JSON boolean)".into()),
        Some(b'n') => Tag::Other("NULL (JSON null)".into()),
        Some(b'[') => Tag::Other("L (a JSON array)".into()),
        _ => Tag::Other("M (a JSON object)".into()),
    })
}

/// The DynamoDB JSON type tags.
const TYPE_TAGS: [&str; 10] = ["S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"];

/// Whether an item object is typed DynamoDB JSON: every attribute value is an object with exactly one type
/// tag (`{"S":"…"}`). `Err` names what the value is when it is not an object at all.
pub fn is_typed_item(value: &serde_json::Value) -> Result<bool, String> {
    let Some(map) = value.as_object() else {
        return Err(format!(
            "{}, not an item; expected an object of attributes",
            json_kind(value)
        ));
    };
    Ok(map.values().all(|v| {
        v.as_object().is_some_and(|attr| {
            attr.len() == 1 && attr.keys().all(|k| TYPE_TAGS.contains(&k.as_str()))
        })
    }))
}

/// A JSON value's kind, for messages.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

pub(super) enum Field {
    Pk,
    Sk,
    Other,
}

struct FieldSeed<'a>(&'a KeyNames);

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Field;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldSeed<'_> {
    type Value = Field;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an attribute name")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Field, E> {
        Ok(if v == self.0.pk {
            Field::Pk
        } else if self.0.sk.as_deref() == Some(v) {
            Field::Sk
        } else {
            Field::Other
        })
    }
}

/// One attribute value `{"S":"…"}`: records the tag and, for S/N/B, the text.
/// An attribute's tag and key text as [`AttrSeed`] reads them, from its JSON; a value that is not a typed value
/// is a type no key can have (not an error: on the first item, read to guess the keys, as on later items, a
/// malformed attribute that is not a key only makes the item's size an estimate, and one that is a key is named
/// by the size walk once the keys are known).
pub(super) fn attr_leniently(value: &serde_json::value::RawValue) -> Option<(Tag, Vec<u8>)> {
    let mut tag = None;
    let mut raw = Vec::new();
    let mut de = serde_json::Deserializer::from_str(value.get());
    let read = AttrSeed {
        tag: &mut tag,
        raw: &mut raw,
    }
    .deserialize(&mut de);
    match read {
        Ok(()) => tag.map(|t| (t, raw)),
        Err(_) => Some((Tag::Other("not a typed value".into()), Vec::new())),
    }
}

pub(super) struct AttrSeed<'a> {
    pub tag: &'a mut Option<Tag>,
    pub raw: &'a mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for AttrSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AttrSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an attribute value like {\"S\":\"…\"}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some(tag) = map.next_key_seed(TagSeed)? else {
            return Err(A::Error::custom(
                "an attribute value is an empty object; expected a type tag like {\"S\":\"…\"}",
            ));
        };
        match tag {
            Tag::Key(_) => {
                self.raw.clear();
                map.next_value_seed(TextSeed(self.raw))?;
            }
            Tag::Other(_) => {
                map.next_value::<IgnoredAny>()?;
            }
        }
        *self.tag = Some(tag);
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

pub(super) struct TagSeed;

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = Tag;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Tag, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for TagSeed {
    type Value = Tag;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a type tag")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Tag, E> {
        Ok(match v {
            "S" => Tag::Key(KeyType::S),
            "N" => Tag::Key(KeyType::N),
            "B" => Tag::Key(KeyType::B),
            other => Tag::Other(other.chars().take(16).collect::<String>().into()),
        })
    }
}

struct TextSeed<'a>(&'a mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for TextSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.0.extend_from_slice(v.as_bytes());
        Ok(())
    }
}

/// A record whose item sits under one field: `{"Item":{…}}` (S3 export) or `{"Keys":{…}}` (incremental).
/// Other fields are skipped. Returns whether the field was there.
pub struct RecordSeed<'a> {
    pub field: &'static str,
    pub item: ItemSeed<'a>,
}

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object with {:?}", self.field)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let RecordSeed { field, item } = self;
        let mut item = Some(item);
        while let Some(is_item) = map.next_key_seed(NameIs(field))? {
            match (is_item, item.take()) {
                (true, Some(seed)) => map.next_value_seed(seed)?,
                (_, rest) => {
                    item = rest;
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(item.is_none())
    }
}

struct NameIs(&'static str);

impl<'de> DeserializeSeed<'de> for NameIs {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NameIs {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(pk: &str, sk: Option<&str>) -> KeyNames {
        KeyNames {
            pk: pk.into(),
            sk: sk.map(Into::into),
            guessed: false,
        }
    }

    #[test]
    fn extracts_only_the_keys() {
        let line = br#"{"Item":{"x":{"M":{"pk":{"S":"no"}}},"pk":{"S":"a\"b"},"sk":{"N":"1.50"},"l":{"L":[]}}}"#;
        let n = names("pk", Some("sk"));
        let mut s = Scratch::default();
        let mut de = serde_json::Deserializer::from_slice(line);
        let found = RecordSeed {
            field: "Item",
            item: ItemSeed {
                names: Some(&n),
                scratch: &mut s,
                dialect: Typed,
            },
        }
        .deserialize(&mut de)
        .unwrap();
        assert!(found);
        assert_eq!(s.pk, Some(Tag::Key(KeyType::S)));
        assert_eq!(s.pk_raw, b"a\"b");
        assert_eq!(s.sk, Some(Tag::Key(KeyType::N)));
        assert_eq!(s.sk_raw, b"1.50");
    }

    #[test]
    fn guesses_names() {
        let attrs = [
            ("data", Some(KeyType::S)),
            ("PK", Some(KeyType::S)),
            ("SK", Some(KeyType::N)),
        ];
        let (n, note) = resolve_names(&attrs, None, None).unwrap();
        assert_eq!(n.pk, "PK");
        assert_eq!(n.sk.as_deref(), Some("SK"));
        assert!(note.unwrap().contains("guessed"));
        // A single-table design's overloaded keys: the lowest number, and the sort key of the same number.
        let attrs = [
            ("SK1", Some(KeyType::S)),
            ("PK1", Some(KeyType::S)),
            ("email", Some(KeyType::S)),
            ("SK0", Some(KeyType::S)),
            ("PK0", Some(KeyType::S)),
            ("PK10x", Some(KeyType::S)),
        ];
        let (n, note) = resolve_names(&attrs, None, None).unwrap();
        assert_eq!(n.pk, "PK0");
        assert_eq!(n.sk.as_deref(), Some("SK0"));
        let note = note.unwrap().to_string();
        assert!(
            note.contains("partition key \"PK0\", sort key \"SK0\""),
            "{note}"
        );
        let attrs = [("pk2", Some(KeyType::S)), ("data", Some(KeyType::S))];
        let (n, _) = resolve_names(&attrs, None, None).unwrap();
        assert_eq!((n.pk.as_str(), n.sk), ("pk2", None));
        let attrs = [("DeviceID", Some(KeyType::S)), ("v", Some(KeyType::N))];
        let (n, _) = resolve_names(&attrs, None, None).unwrap();
        assert_eq!(n.pk, "DeviceID");
        assert_eq!(n.sk, None);
        let attrs = [("only", Some(KeyType::S)), ("set", None)];
        let (n, _) = resolve_names(&attrs, None, None).unwrap();
        assert_eq!(n.pk, "only", "the only attribute of a key type");
        let attrs = [("a", Some(KeyType::S)), ("b", Some(KeyType::S))];
        let err = resolve_names(&attrs, None, None).unwrap_err();
        assert!(err.contains("the first item has a, b"), "{err}");
        let (n, note) = resolve_names(&attrs, Some("a"), None).unwrap();
        assert_eq!(n.pk, "a");
        assert!(note.is_none());
    }
}
