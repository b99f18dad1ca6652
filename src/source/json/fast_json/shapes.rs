//! Items of the same shape read without reading their names again: the bytes between one item's values (the
//! separators and any white space, the quoted attribute names and their colons, the export line's
//! `{"Item":{`, and the head of a scalar value, `{"S":"` or `{"S": "`) are noted once the fast path has read
//! an item, and a later
//! item whose bytes between values are those same bytes is read by comparing them and reading only its values,
//! each with the function the fast path would have used at that point ([`Cursor::key_value`]'s or
//! `Cursor::typed_size`'s readers, or the whole [`Cursor::typed_attribute`]).
//!
//! Why the result is the fast path's: the fast path's walk over an item depends only on the bytes it reads
//! and on what stays the same for a whole load (the key names, the TTL attribute once it is settled, the
//! attributes extracted and whether the key is built in place). Where a shape matches, every byte outside the
//! values is the noted item's, so the walk takes the same steps there; each value is read by the same function
//! from the same place. A shape that does not match sends the item down the fast path; once that has read it
//! whole, its shape is noted for the items after it ([`learn`], a second walk over that item alone, so that
//! the fast path itself is unchanged). `shapes_read_items_as_the_fast_path_does` checks both ways of reading
//! on items of a few shapes, others and mutated ones, with nothing extracted, values extracted and keys built
//! in place.
//!
//! Measured (`valgrind --tool=callgrind`, `shardlens analyze` of two files of `benches/export_load.sh`,
//! 500,000 items): 2,936 M instructions before, 2,555 M with shapes (ISA-L's inflate is 987 M of either),
//! the item reader 2,453 -> 1,650 instructions an item. The whole export bench (2,000,000 items, 8 files,
//! both cores): 0.47-0.48 s -> 0.44 s, medians of 9 interleaved runs. Items whose attributes come in a
//! different order each time (600,000 export lines shuffled) cost 0.8 % more instructions: no shape
//! matches, and after [`TRIAL`] items shapes stop for the load. Export lines written by Python's `json.dumps`
//! (white space between tokens, `benches/json_array.sh`'s spaced lines), before shapes took white space:
//! 0.77 s against 0.48 s for the same items compact; after, 0.52 s (callgrind on 200,000 of them: 1,282 M ->
//! 956 M instructions; the compact lines 856.0 -> 856.9 M).

use super::super::dialect::Typed;
use super::super::item::{KeyNames, Scratch, Tag};
use super::Cursor;
use super::dialect::FastDialect as _;
use super::in_place::{direct_key, note_span};
use crate::model::KeyType;
use crate::model::bytes::short_eq;
use crate::model::keyexpr::Value;

/// Shapes kept at once, the last one matched first: a table of a single-table design holds items of a few
/// shapes, one after the other.
const KEPT: usize = 4;
/// Attributes of a shape at most, and bytes of its names and separators: larger items are read as before.
const MAX_ATTRS: usize = 64;
const MAX_BYTES: usize = 4096;
/// Items read before a load whose items rarely match a shape stops trying (each try that fails costs the
/// values read before the bytes that differ): after this many, shapes go on only while at least half match.
const TRIAL: u64 = 1024;

/// What the value after a shape's bytes is read as: the fast path's branch for its attribute's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// The partition key ([`Cursor::key_value`]).
    Pk,
    /// The sort key.
    Sk,
    /// Any other attribute, sized ([`Cursor::typed_size`]).
    Other,
    /// The TTL attribute: sized, and its value read.
    Ttl,
}

/// How much of a value's head a shape holds among its bytes, read there and not again: nothing, or the head of
/// a value the way [`Cursor::key_value_rest`] (a key attribute), `Cursor::compact_scalar_rest` or
/// `Cursor::compact_set_rest` (any other attribute) read its rest: a scalar's `{"S":"` or a set's
/// `{"SS":["`, with or without white space between their tokens (`{"S": "` as Python's `json.dumps` writes
/// it, or over lines as pretty printers do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Head {
    /// The value is read whole ([`Cursor::typed_attribute`]).
    Any,
    /// `{"S":"`, `{"N":"` or `{"B":"` of a key attribute ([`Cursor::key_value_rest`]).
    Key(KeyType),
    /// `{"S":"` or `{"N":"` of another attribute (`Cursor::compact_scalar_rest`).
    Scalar(u8),
    /// `{"SS":["` or `{"NS":["` (numbers) of another attribute (`Cursor::compact_set_rest`).
    Set(bool),
}

impl Head {
    /// The head `value` starts with (white space before it included), as a value of `role` with no extract
    /// slot reads it, and its length.
    fn of(value: &[u8], role: Role) -> (Head, usize) {
        let Some((tag, set, len)) = value_head(value) else {
            return (Head::Any, 0);
        };
        match (role, tag, set) {
            (Role::Pk | Role::Sk, b'S', false) => (Head::Key(KeyType::S), len),
            (Role::Pk | Role::Sk, b'N', false) => (Head::Key(KeyType::N), len),
            (Role::Pk | Role::Sk, b'B', false) => (Head::Key(KeyType::B), len),
            (Role::Other, b'S' | b'N', false) => (Head::Scalar(tag), len),
            (Role::Other, b'S', true) => (Head::Set(false), len),
            (Role::Other, b'N', true) => (Head::Set(true), len),
            _ => (Head::Any, 0),
        }
    }
}

/// The head at the start of `value` of a scalar, `{"S":"`, or of a set, `{"SS":["`, with any white space
/// before and between their tokens: the type's first letter, whether it is a set, and the head's length.
fn value_head(value: &[u8]) -> Option<(u8, bool, usize)> {
    let mut c = Cursor { s: value, i: 0 };
    c.expect(b'{')?;
    c.expect(b'"')?;
    let tag = *value.get(c.i)?;
    let set = match value.get(c.i + 1..c.i + 3)? {
        [b'"', _] => false,
        [b'S', b'"'] => true,
        _ => return None,
    };
    c.i += if set { 3 } else { 2 };
    c.expect(b':')?;
    if set {
        c.expect(b'[')?;
    }
    c.expect(b'"')?;
    Some((tag, set, c.i))
}

/// Where the readers come from: an export line's item under `"Item"` ([`super::scan_record`]) or an item
/// alone ([`super::scan_item`]). A shape noted by one is never used by the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Context {
    #[default]
    Record,
    Item,
}

/// One noted shape.
#[derive(Debug, Default)]
struct ItemShape {
    /// The bytes before each value, one after the other, then the bytes after the last value to the end.
    bytes: Vec<u8>,
    attrs: Vec<Attr>,
}

/// One attribute of a noted shape.
#[derive(Debug, Clone, Copy)]
struct Attr {
    /// Where its bytes end in [`ItemShape::bytes`] (its value's head included).
    to: u32,
    /// Its name's length (the item's size counts it).
    name_len: u32,
    role: Role,
    /// Its extract slot.
    slot: Option<usize>,
    /// How much of its value's head the shape's bytes hold.
    head: Head,
    /// How far back from the head's end its value starts (its `{`, after any white space): where an extracted
    /// value read by its head lies, for the key built in place.
    back: u32,
}

/// Where a [`Scratch`] keeps its [`Shapes`]: `on` until they stop paying off for the load, the shapes boxed so
/// that [`scan`] takes them out and puts them back by moving a pointer.
#[derive(Debug)]
pub(in crate::source::json) struct ShapesSlot {
    pub(super) on: bool,
    inner: Option<Box<Shapes>>,
}

impl Default for ShapesSlot {
    fn default() -> Self {
        Self {
            on: true,
            inner: Some(Box::default()),
        }
    }
}

impl ShapesSlot {
    /// No shapes: every item read by the fast path.
    #[cfg(test)]
    pub(super) fn off() -> Self {
        Self {
            on: false,
            inner: None,
        }
    }

    /// Items a shape has read.
    #[cfg(test)]
    pub(super) fn hits(&self) -> u64 {
        self.inner.as_ref().map_or(0, |s| s.hits)
    }
}

/// The shapes of a load's items.
#[derive(Debug, Default)]
struct Shapes {
    shapes: Vec<ItemShape>,
    /// What the shapes were noted under: the reader, the number of attributes extracted and whether the key
    /// is built in place (a load sets both once, [`Scratch::for_load`]), the key names, the TTL attribute.
    context: Context,
    extracting: (usize, bool),
    pk: Vec<u8>,
    sk: Option<Vec<u8>>,
    ttl: Option<Vec<u8>>,
    /// No shape matched the item being read: [`learn`] notes its shape once the fast path has read it.
    learning: bool,
    /// Items looked at, and those a shape matched.
    tried: u64,
    hits: u64,
    /// Set once shapes have stopped paying off for this load.
    off: bool,
}

impl Shapes {
    /// Whether shapes may be used for items read by `context` with `names` into `scratch`: past the first
    /// item of an extracting load (whose attribute names serde notes), and the TTL attribute settled (so that
    /// whether a name is it no longer changes). Forgets the shapes noted under anything else.
    fn usable(&mut self, context: Context, names: &KeyNames, scratch: &Scratch) -> bool {
        if scratch.wants_names() || !(scratch.ttl.decided || scratch.ttl.name.is_some()) {
            return false;
        }
        let extracting = (scratch.extract.len(), scratch.direct.is_some());
        let same = self.context == context
            && self.extracting == extracting
            && short_eq(&self.pk, names.pk.as_bytes())
            && match (&self.sk, &names.sk) {
                (Some(a), Some(b)) => short_eq(a, b.as_bytes()),
                (a, b) => a.is_none() && b.is_none(),
            }
            && match (&self.ttl, &scratch.ttl.name) {
                (Some(a), Some(b)) => short_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            };
        if !same {
            self.shapes.clear();
            self.context = context;
            self.extracting = extracting;
            self.pk = names.pk.as_bytes().to_vec();
            self.sk = names.sk.as_ref().map(|s| s.as_bytes().to_vec());
            self.ttl.clone_from(&scratch.ttl.name);
        }
        true
    }

    /// After [`TRIAL`] items with fewer than half matched, shapes stop for the load.
    fn count(&mut self, hit: bool) {
        self.tried += 1;
        self.hits += u64::from(hit);
        if self.tried >= TRIAL && self.hits * 2 < self.tried {
            self.off = true;
            self.shapes.clear();
        }
    }
}

/// Reads `text` (an export line for [`Context::Record`], an item alone for [`Context::Item`]) by a shape of
/// `scratch`'s, as the fast path would have read it: `Some(size)` with the keys, TTL value and extracted
/// values in `scratch`. `None` when no shape matches: the fast path must read it, then [`learn`] its shape.
pub(super) fn scan(
    text: &[u8],
    context: Context,
    names: &KeyNames,
    scratch: &mut Scratch,
) -> Option<u64> {
    let mut shapes = scratch.shapes.inner.take()?;
    let mut found = None;
    let usable = shapes.usable(context, names, scratch);
    if usable {
        for k in 0..shapes.shapes.len() {
            if let Some(size) = read_by(&shapes.shapes[k], text, scratch) {
                if k > 0 {
                    let shape = shapes.shapes.remove(k);
                    shapes.shapes.insert(0, shape);
                }
                found = Some(size);
                break;
            }
        }
        shapes.count(found.is_some());
        if found.is_none() && !shapes.shapes.is_empty() {
            // A shape that matched only part of the way has set some of the item's keys.
            scratch.clear();
        }
    }
    shapes.learning = usable && found.is_none() && !shapes.off;
    scratch.shapes.on = !shapes.off;
    scratch.shapes.inner = Some(shapes);
    found
}

/// After the fast path has read `text` whole, when no shape matched it: notes its shape, the fifth one
/// replacing the one matched longest ago. A walk over the item's names alone (each value skipped): its bytes
/// between values, and each attribute's role as the fast path decided it from its name.
pub(super) fn learn(text: &[u8], context: Context, names: &KeyNames, scratch: &mut Scratch) {
    let Some(mut shapes) = scratch.shapes.inner.take() else {
        return;
    };
    if std::mem::take(&mut shapes.learning) {
        let mut shape = if shapes.shapes.len() >= KEPT {
            shapes.shapes.pop().unwrap_or_default()
        } else {
            ItemShape::default()
        };
        if walk(text, context, names, scratch, &mut shape).is_some() {
            shapes.shapes.insert(0, shape);
        }
    }
    scratch.shapes.inner = Some(shapes);
}

/// `shape` made from `text`; `None` for an item this does not note (not written as `{"Item":{` or `{` with
/// any white space, empty, too large, or not what the fast path read whole).
fn walk(
    text: &[u8],
    context: Context,
    names: &KeyNames,
    scratch: &Scratch,
    shape: &mut ItemShape,
) -> Option<()> {
    shape.bytes.clear();
    shape.attrs.clear();
    // `{"Item":{` or `{`, white space allowed between the tokens as anywhere else.
    let mut c = Cursor { s: text, i: 0 };
    c.expect(b'{')?;
    if context == Context::Record {
        c.expect(b'"')?;
        if c.plain_str()? != b"Item" {
            return None;
        }
        c.expect(b':')?;
        c.expect(b'{')?;
    }
    let extracting = !scratch.extract.is_empty();
    let mut from = 0;
    loop {
        c.expect(b'"')?;
        let name = c.plain_str()?;
        c.expect(b':')?;
        let value_at = c.i;
        // As `Cursor::item` decides; the TTL attribute is settled ([`Shapes::usable`]).
        let role = if short_eq(name, names.pk.as_bytes()) {
            Role::Pk
        } else if names
            .sk
            .as_ref()
            .is_some_and(|sk| short_eq(sk.as_bytes(), name))
        {
            Role::Sk
        } else if scratch
            .ttl
            .name
            .as_deref()
            .is_some_and(|t| short_eq(t, name))
        {
            Role::Ttl
        } else {
            Role::Other
        };
        let slot = if extracting {
            scratch.extract_slot_of(name)
        } else {
            None
        };
        // An extracted value is read by its head too when the key is built in place: its span is then noted
        // (`note_span`) as `Cursor::typed_attribute` would note it. `shardlens analyze --key-expr
        // '{pk}#{status}#{tags.0}'` over 200,000 of `shardlens-bench extract`'s lines: 1,084 -> 1,053 M
        // instructions (`valgrind --tool=callgrind`); on all 2,000,000, CPU 1.33 -> 1.30 s (medians of 11).
        let (head, head_len) = match slot {
            None => Head::of(text.get(value_at..)?, role),
            Some(_) if scratch.direct.is_some() => Head::of(text.get(value_at..)?, role),
            Some(_) => (Head::Any, 0),
        };
        let lead = text
            .get(value_at..)?
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        c.skip_value(3)?;
        shape
            .bytes
            .extend_from_slice(text.get(from..value_at + head_len)?);
        shape.attrs.push(Attr {
            to: shape.bytes.len() as u32,
            name_len: name.len() as u32,
            role,
            slot,
            head,
            back: head_len.saturating_sub(lead) as u32,
        });
        from = c.i;
        if shape.attrs.len() > MAX_ATTRS || shape.bytes.len() > MAX_BYTES {
            return None;
        }
        match c.next_token()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    shape.bytes.extend_from_slice(text.get(from..)?);
    (shape.bytes.len() <= MAX_BYTES).then_some(())
}

/// `text` read by `shape`: each attribute's bytes compared, then its value read as the fast path reads it.
fn read_by(shape: &ItemShape, text: &[u8], scratch: &mut Scratch) -> Option<u64> {
    scratch.clear();
    let direct = !scratch.extract.is_empty() && scratch.direct.is_some();
    let mut c = Cursor { s: text, i: 0 };
    let mut size = 0u64;
    let mut from = 0usize;
    for &Attr {
        to,
        name_len,
        role,
        slot,
        head,
        back,
    } in &shape.attrs
    {
        let between = shape.bytes.get(from..to as usize)?;
        from = to as usize;
        let here = text.get(c.i..c.i + between.len())?;
        if !same(here, between) {
            return None;
        }
        c.i += between.len();
        size += u64::from(name_len);
        let start = c.i - back as usize;
        size += match head {
            Head::Any => c.typed_attribute(role, slot, direct, scratch)?,
            Head::Key(t) => key_found(role == Role::Pk, t, c.key_value_rest()?, scratch)?,
            Head::Scalar(tag) => c.compact_scalar_rest(tag)?,
            Head::Set(numbers) => c.compact_set_rest(numbers)?,
        };
        if let Some(slot) = slot
            && head != Head::Any
        {
            // Only a load that builds its key in place reads an extracted value by its head ([`walk`]).
            note_span::<Typed>(text, (slot, start), c.i, scratch)?;
        }
    }
    let rest = shape.bytes.get(from..)?;
    if !same(text.get(c.i..)?, rest) {
        return None;
    }
    if direct {
        direct_key::<Typed>(text, scratch)?;
    }
    scratch.ttl.item_done();
    Some(size)
}

/// `a == b`, the short ones compared in place ([`short_eq`]).
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    short_eq(a, b)
}

/// A key attribute's value `raw` of type `t` into `scratch`'s partition key (`pk`) or sort key: its size.
#[inline(always)]
fn key_found(pk: bool, t: KeyType, raw: &[u8], scratch: &mut Scratch) -> Option<u64> {
    let size = super::super::size::key_size(t, raw)?;
    let (tag, bytes) = if pk {
        (&mut scratch.pk, &mut scratch.pk_raw)
    } else {
        (&mut scratch.sk, &mut scratch.sk_raw)
    };
    *tag = Some(Tag::Key(t));
    bytes.clear();
    bytes.extend_from_slice(raw);
    Some(size)
}

/// The attribute readers a shape reads values with: the steps of `Cursor::item`'s loop, one role at a time.
impl<'a> Cursor<'a> {
    /// One attribute's value (the cursor right after its name's colon) read as `role` says, as [`Self::item`]
    /// reads it, for items read by a shape ([`shapes`]): a key attribute into `scratch`'s keys, any other sized
    /// (the TTL attribute's value read too), and the value of extract slot `slot` read into `scratch.values`,
    /// or its span noted when the key is built in place (`direct`). The value's size.
    ///
    /// `Self::item` writes the same steps out itself rather than calling these helpers: called from its loop
    /// (inlined), they made the fast path run 79 M more instructions over 600,000 export lines whose
    /// attributes are in a different order on each line (`valgrind --tool=callgrind`, shapes off: 2,860 M ->
    /// 2,939 M; the tail alone, [`Self::extracted`], 54 M). `shapes_read_items_as_the_fast_path_does` checks
    /// that both read every item alike.
    #[inline(always)]
    fn typed_attribute(
        &mut self,
        role: Role,
        slot: Option<usize>,
        direct: bool,
        scratch: &mut Scratch,
    ) -> Option<u64> {
        let from = slot.map(|slot| {
            self.skip_ws();
            (slot, self.i)
        });
        let (size, key_text) = match role {
            Role::Pk => self.key_attribute(true, scratch)?,
            Role::Sk => self.key_attribute(false, scratch)?,
            Role::Other => (self.other_attribute(false, scratch)?, None),
            Role::Ttl => (self.other_attribute(true, scratch)?, None),
        };
        self.extracted(from, key_text, direct, scratch)?;
        Some(size)
    }

    /// A key attribute's value into `scratch`'s partition key (`pk`) or sort key: its size, and its text when
    /// it is a string.
    #[inline(always)]
    fn key_attribute(
        &mut self,
        pk: bool,
        scratch: &mut Scratch,
    ) -> Option<(u64, Option<&'a [u8]>)> {
        let (t, raw) = self.key_value()?;
        let size = key_found(pk, t, raw, scratch)?;
        Some((size, (t == KeyType::S).then_some(raw)))
    }

    /// Any other attribute's value, sized (the TTL attribute's, `ttl`, also read into `scratch`).
    #[inline(always)]
    fn other_attribute(&mut self, ttl: bool, scratch: &mut Scratch) -> Option<u64> {
        self.skip_ws();
        let start = self.i;
        let size = self.typed_size(3).ok()?;
        if ttl {
            scratch.ttl.value = super::super::ttl::typed_ttl(self.s.get(start..self.i)?);
        }
        Some(size)
    }

    /// After an attribute's value (the cursor at its end): the value of the extract slot `from` names read into
    /// `scratch.values` (a string key attribute's from its text, `key_text`), or its span noted when the key is
    /// built in place (`direct`).
    #[inline(always)]
    fn extracted(
        &mut self,
        from: Option<(usize, usize)>,
        key_text: Option<&[u8]>,
        direct: bool,
        scratch: &mut Scratch,
    ) -> Option<()> {
        if direct && let Some(from) = from {
            note_span::<Typed>(self.s, from, self.i, scratch)?;
        } else if let (Some((slot, _)), Some(raw)) = (from, key_text) {
            // `key_value` took exactly `{"S":"…"}` with valid UTF-8 and no escapes: the value is the text,
            // as `simple_value` would read it from the span again.
            let text = std::str::from_utf8(raw).ok()?;
            let value = scratch.spare.string_in(slot, text);
            *scratch.values.get_mut(slot)? = Some(Value::S(value));
        } else if let Some((slot, start)) = from {
            Typed::read_value(self.s.get(start..self.i)?, slot, scratch)?;
        }
        Some(())
    }
}
