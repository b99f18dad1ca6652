//! A hand-written fast path for one DynamoDB JSON line (`{"Item":{…}}`, or an incremental line's `"Keys"`):
//! one pass over the bytes that copies the key attributes into a [`Scratch`](super::item::Scratch) as [`RecordSeed`](super::item::RecordSeed)
//! does, with no allocation, and checks everything it skips as strictly as serde_json's `IgnoredAny`.
//!
//! With a key design ([`Scratch::extract`](super::item::Scratch::extract) not empty) it also cuts out the value of each attribute to extract
//! and reads it: the common shapes (`{"S"|"N"|"B":"…"}`, sets of such text, `BOOL`, `NULL`) directly, anything
//! else with serde (`extract::typed_value`); the first item of such a load goes to serde, which notes
//! its attribute names. Measured with `shardlens-bench extract` (2,000,000 export lines, 466 MB from the page
//! cache, release, medians of 5 interleaved runs, two runs on this 2-core machine while two other builds ran:
//! load average 2.4–2.6, so the plain load itself took 2.20–2.30 s): extracting `sk` and `status` 1.22–1.23×
//! the plain load, `amount` (a number, canonicalised) 1.12–1.32×, `amount`, `status` and `tags` (a set)
//! 1.44–1.66×. Extracting with serde alone instead (the fast path bypassed) took 1.30–1.41×, 1.34–1.52× and
//! 1.82–1.97×, so the fast path stays on when extracting. Evaluating the expressions is the sink's cost, on top.
//!
//! When the key expression is all a load extracts for and compiles to a [`Direct`](crate::model::keyexpr::Direct)
//! ([`Scratch::direct`](super::item::Scratch::direct)), the values are not read as they are met: their spans are
//! noted, and at the item's end the key is built from them in place (`direct_key`), with no [`Value`] made;
//! where that gives up, the values are read from the spans as above. Typed items and plain ones alike.
//! `shardlens-bench extract`'s `{pk}#{status}#{tags.0}`: 0.89 -> 0.71 s, 1.63× -> 1.28× the plain load; the same
//! items as plain JSON lines 1.27 -> 0.84 s.
//!
//! An export line or an item alone whose names and separators are those of an item already read is read by
//! comparing them and reading only its values ([`shapes`]): the export bench 0.47 -> 0.44 s.
//!
//! It is a pure optimisation and only takes the common shape: attribute names without backslash escapes, key
//! values `{"S":"…"}`, `{"N":"…"}` or `{"B":"…"}` without escapes. On anything else (an escape where it
//! matters, another type tag on a key attribute, a missing field, invalid JSON, nesting deeper than serde's
//! recursion limit) it returns `None` and the caller runs the serde path, which gives the exact result or
//! error message. When it returns `Some`, the serde path would have succeeded and left the same key
//! attributes in the [`Scratch`](super::item::Scratch); the tests check this on hand-written lines and on thousands of mutated ones.
//!
//! Why hand-written and not a SIMD JSON crate (measured for issue 12, commit 7c6c05f's `benches/peers.sh`:
//! the 2,000,000 lines of `benches/gen_export.py`'s export, 466 MB uncompressed, read line by line; medians of
//! 5 interleaved runs, release, this 2-core machine with AVX2 shared with other builds):
//!
//! | parser, each line into a `Scratch`                    | parse only | parse + add to the key set | peak RSS (with adds) |
//! |--------------------------------------------------------|-----------:|---------------------------:|---------------------:|
//! | this fast path                                         |     1.45 s |                     3.27 s |  106 MB  |
//! | serde_json with `item::RecordSeed` (our fallback)          | 2.25 s |                     4.43 s |  106 MB  |
//! | simd-json 0.19 with `RecordSeed` (AVX2 found at run time) |  2.34 s |                     4.20 s |  105 MB  |
//! | sonic-rs 0.5 with `RecordSeed`                         |     2.57 s |                     4.61 s |  106 MB  |
//! | sonic-rs 0.5 lazy object iterators (only keys decoded) |     3.76 s |                     6.66 s |  106 MB  |
//!
//! sonic-rs picks its SIMD at compile time: built with `-C target-cpu=native` (which a shipped binary cannot
//! be), a typed serde parse of the same lines took 1.45–1.58 s against serde_json's 1.19–1.36 s in the same
//! scratch program, so it stays behind serde_json, which this path beats by 1.55× (above). Our reading:
//! lines of ~230 bytes leave a SIMD parser little to vectorise beyond its per-document setup (simd-json also
//! copies each line to parse it in place), while this path decodes only the two key attributes. Clean
//! release build cost the crates would add (per-crate compile times from `cargo build --timings` on this
//! machine): sonic-rs ~113 s (11 new crates), simd-json ~28 s (8 new crates).

use super::dialect::Typed;
use super::item::{KeyNames, Scratch, Tag};
use crate::model::KeyType;
use crate::model::bytes::short_eq;
use crate::model::keyexpr::Value;

mod dialect;
mod in_place;
mod plain;
mod scan;
mod shapes;
mod value;
use dialect::FastDialect;
use in_place::{direct_key, note_span};
pub use plain::scan_plain_item;
pub(super) use scan::find_special;
use scan::find_special_ascii;
use shapes::Context;
pub(super) use shapes::ShapesSlot;

/// Deepest nesting taken (the top-level object is depth 1), as serde_json's recursion limit.
pub(super) const MAX_DEPTH: u32 = 128;

/// Where `text` (JSON) nests deeper than [`MAX_DEPTH`] levels, as a message with the 1-based byte column of
/// the first bracket too deep; `None` when it does not. One pass with no stack: strings are skipped to their
/// closing quote (escapes included), brackets outside them counted.
///
/// Why: the loaders' serde path skips the attributes it does not read with serde's `IgnoredAny`, which
/// serde_json skips with a loop and a byte per level, at any depth. So a line nested 10,000 levels deep in an
/// attribute nobody read loaded (no stack at risk), while the same item as a JSON array's first item, a scan's
/// or one whose attribute a design extracts (read through seeds that recurse, under serde_json's recursion
/// limit) was an error. The callers run this where the fast path declined a record, before serde reads it,
/// so a record nested deeper than this path takes is one error in every shape. (DynamoDB itself refuses items
/// nested more than 32 levels deep.)
pub(crate) fn too_deep(text: &[u8]) -> Option<String> {
    let mut depth = 0u32;
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        match c {
            b'"' => {
                i += 1;
                while let Some(&c) = text.get(i) {
                    match c {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(format!(
                        "invalid JSON: nested deeper than {MAX_DEPTH} levels at column {} (DynamoDB allows 32)",
                        i + 1
                    ));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Tries the fast path on one line `{"Item":{...}}` (field = "Item") or an incremental line with the item under
/// `field` ("Keys"). `true` when the line was handled completely: the keys are in `scratch`, and its
/// `item_bytes` is the item's size as DynamoDB counts it (the `Item`; for an incremental line its `NewImage`,
/// none without one). `false` when the line has anything the fast path does not handle, or is invalid, or
/// lacks `field` (the caller then runs the serde path, which gives the exact result or error message).
pub fn scan_record(line: &[u8], field: &str, names: &KeyNames, scratch: &mut Scratch) -> bool {
    scratch.size_estimate = None;
    let shaped = field == "Item" && scratch.shapes.on;
    if shaped && let Some(size) = shapes::scan(line, Context::Record, names, scratch) {
        scratch.item_bytes = Some(size);
        return true;
    }
    let done = scan_record_size(line, field, names, scratch).is_some();
    if shaped && done {
        shapes::learn(line, Context::Record, names, scratch);
    }
    // A key built for an item the caller now hands to serde is not that item's.
    scratch.direct_ok &= done;
    done
}

fn scan_record_size(
    line: &[u8],
    field: &str,
    names: &KeyNames,
    scratch: &mut Scratch,
) -> Option<()> {
    let mut c = Cursor { s: line, i: 0 };
    c.expect(b'{')?;
    let mut found = false;
    let mut size = None;
    let sized_here = field == "Item";
    if !c.close(b'}') {
        loop {
            c.expect(b'"')?;
            let name = c.plain_str()?;
            c.expect(b':')?;
            if !found && short_eq(name, field.as_bytes()) {
                c.expect(b'{')?;
                let item = c.item::<Typed>(names, scratch)?;
                if sized_here {
                    size = Some(item);
                }
                found = true;
            } else if !sized_here && size.is_none() && name == b"NewImage" {
                c.skip_ws();
                if c.peek() == Some(b'{') {
                    c.i += 1;
                    size = Some(c.typed_members(2, true).ok()?);
                } else {
                    c.skip_value(2)?;
                }
            } else {
                c.skip_value(2)?;
            }
            match c.next_token()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    c.skip_ws();
    if c.i != line.len() || !found {
        return None;
    }
    scratch.item_bytes = size;
    Some(())
}

/// Tries the fast path on one typed item without a wrapper (`{"pk":{"S":"a"},…}`, as an array element or a
/// put-item line): the whole of `text` must be the one object. `true` when handled completely (the serde path
/// would have left the same key attributes in `scratch`); `false` sends the caller to the serde path.
pub fn scan_item(text: &[u8], names: &KeyNames, scratch: &mut Scratch) -> bool {
    scratch.size_estimate = None;
    let shaped = scratch.shapes.on;
    if shaped && let Some(size) = shapes::scan(text, Context::Item, names, scratch) {
        scratch.item_bytes = Some(size);
        return true;
    }
    let mut c = Cursor { s: text, i: 0 };
    let size = c
        .expect(b'{')
        .and_then(|()| c.item::<Typed>(names, scratch));
    c.skip_ws();
    scratch.item_bytes = size;
    let done = size.is_some() && c.i == text.len();
    if shaped && done {
        shapes::learn(text, Context::Item, names, scratch);
    }
    scratch.direct_ok &= done;
    done
}

/// Which of `NewImage` and `OldImage` an incremental export line has at its top level (a `null` value counts
/// as absent); `None` when the line is not one plain object (the caller then asks serde).
pub fn image_fields(line: &[u8]) -> Option<(bool, bool)> {
    let mut c = Cursor { s: line, i: 0 };
    c.expect(b'{')?;
    let (mut new, mut old) = (false, false);
    if !c.close(b'}') {
        loop {
            c.expect(b'"')?;
            let name = c.plain_str()?;
            c.expect(b':')?;
            c.skip_ws();
            let is_null = c.s.get(c.i..c.i + 4) == Some(b"null");
            c.skip_value(2)?;
            match name {
                b"NewImage" => new = !is_null,
                b"OldImage" => old = !is_null,
                _ => {}
            }
            match c.next_token()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
    }
    Some((new, old))
}

pub(super) struct Cursor<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    #[inline]
    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    #[inline]
    pub(super) fn next_token(&mut self) -> Option<u8> {
        self.skip_ws();
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    #[inline]
    pub(super) fn expect(&mut self, want: u8) -> Option<()> {
        (self.next_token()? == want).then_some(())
    }

    /// Skips whitespace, then consumes `end` if it comes next (an empty object or array).
    #[inline]
    pub(super) fn close(&mut self, end: u8) -> bool {
        self.skip_ws();
        let here = self.peek() == Some(end);
        if here {
            self.i += 1;
        }
        here
    }

    /// The rest of a string (the opening quote consumed) that serde would read as a `&str` borrowed from the
    /// line: no escape, no control character, valid UTF-8. Its bytes, without the quotes.
    #[inline]
    pub(super) fn plain_str(&mut self) -> Option<&'a [u8]> {
        let rest = self.s.get(self.i..)?;
        let (n, ascii) = find_special_ascii(rest);
        if rest.get(n) != Some(&b'"') {
            return None;
        }
        let text = rest.get(..n)?;
        if !ascii {
            std::str::from_utf8(text).ok()?;
        }
        self.i += n + 1;
        Some(text)
    }

    /// As [`Self::plain_str`], as text: for values, where the text is needed (one UTF-8 check, not an ASCII
    /// test and then the check).
    #[inline]
    pub(super) fn plain_text(&mut self) -> Option<&'a str> {
        let (from, to) = self.plain_range()?;
        std::str::from_utf8(self.s.get(from..to)?).ok()
    }

    /// The rest of a string (the opening quote consumed) with no escape and no control character: where its
    /// bytes lie in the line, without the quotes. UTF-8 is not checked (see `value::Record::str`).
    #[inline]
    pub(super) fn plain_range(&mut self) -> Option<(usize, usize)> {
        let rest = self.s.get(self.i..)?;
        let n = find_special(rest);
        if rest.get(n) != Some(&b'"') {
            return None;
        }
        let at = self.i;
        self.i += n + 1;
        Some((at, at + n))
    }

    /// Skips the rest of a string (the opening quote consumed) as serde_json's `ignore_str` does: escapes are
    /// checked, control characters refused, UTF-8 not checked.
    pub(super) fn skip_str(&mut self) -> Option<()> {
        loop {
            let rest = self.s.get(self.i..)?;
            let n = find_special(rest);
            match rest.get(n)? {
                b'"' => {
                    self.i += n + 1;
                    return Some(());
                }
                b'\\' => {
                    let len = match rest.get(n + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                        b'u' => {
                            let hex = rest.get(n + 2..n + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            6
                        }
                        _ => return None,
                    };
                    self.i += n + len;
                }
                _ => return None,
            }
        }
    }

    /// Consumes `rest` exactly (the tail of `true`, `false` or `null`).
    pub(super) fn literal(&mut self, rest: &[u8]) -> Option<()> {
        let end = self.i + rest.len();
        if self.s.get(self.i..end)? != rest {
            return None;
        }
        self.i = end;
        Some(())
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
    }

    /// At least one digit.
    fn digits1(&mut self) -> Option<()> {
        let start = self.i;
        self.digits();
        (self.i > start).then_some(())
    }

    /// The rest of a number whose first digit `first` was consumed: JSON's grammar, as serde_json checks it.
    pub(super) fn number_rest(&mut self, first: u8) -> Option<()> {
        match first {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            self.digits1()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            self.digits1()?;
        }
        Some(())
    }

    /// Skips any JSON value as serde_json's `IgnoredAny` does; a container here would be at `depth`.
    pub(super) fn skip_value(&mut self, depth: u32) -> Option<()> {
        match self.next_token()? {
            b'"' => self.skip_str(),
            b'{' => {
                if depth > MAX_DEPTH {
                    return None;
                }
                if self.close(b'}') {
                    return Some(());
                }
                loop {
                    self.expect(b'"')?;
                    self.skip_str()?;
                    self.expect(b':')?;
                    self.skip_value(depth + 1)?;
                    match self.next_token()? {
                        b',' => {}
                        b'}' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b'[' => {
                if depth > MAX_DEPTH {
                    return None;
                }
                if self.close(b']') {
                    return Some(());
                }
                loop {
                    self.skip_value(depth + 1)?;
                    match self.next_token()? {
                        b',' => {}
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            }
            b't' => self.literal(b"rue"),
            b'f' => self.literal(b"alse"),
            b'n' => self.literal(b"ull"),
            b'-' => {
                let first = self.peek()?;
                self.i += 1;
                self.number_rest(first)
            }
            first @ b'0'..=b'9' => self.number_rest(first),
            _ => None,
        }
    }

    /// The rest of an item (its `{` consumed) written in the dialect `D`: the key attributes into `scratch`, the
    /// others sized and checked ([`FastDialect::value_size`]: [`Self::typed_size`], [`Self::plain_size`]); the
    /// values of [`Scratch::extract`] cut out and read ([`FastDialect::read_value`]), or, for the key built in
    /// place, their spans noted. The item's size as DynamoDB counts it.
    fn item<D: FastDialect>(&mut self, names: &KeyNames, scratch: &mut Scratch) -> Option<u64> {
        scratch.clear();
        if scratch.wants_names() {
            // The first item of an extracting load: serde notes its attribute names.
            return None;
        }
        let extracting = !scratch.extract.is_empty();
        // The key built from the values where they lie: each extracted value's span noted, read at the end.
        let direct = extracting && scratch.direct.is_some();
        let mut size = 0;
        if self.close(b'}') {
            return Some(size);
        }
        let pk = names.pk.as_bytes();
        let sk = names.sk.as_deref().map(str::as_bytes);
        loop {
            self.expect(b'"')?;
            let name = self.plain_str()?;
            self.expect(b':')?;
            let from = if extracting {
                self.extract_from(name, scratch)
            } else {
                None
            };
            // As serde: the partition key first when both names are the same, and the last occurrence wins.
            size += name.len() as u64;
            let ttl = scratch.ttl.is_ttl(name);
            // A string key attribute's text, when the attribute is also extracted: its value, read once.
            let mut key_text = None;
            if short_eq(name, pk) {
                let (t, raw) = D::key_value(self)?;
                size += super::size::key_size(t, raw)?;
                scratch.pk = Some(Tag::Key(t));
                scratch.pk_raw.clear();
                scratch.pk_raw.extend_from_slice(raw);
                key_text = (t == KeyType::S).then_some(raw);
            } else if sk.is_some_and(|sk| short_eq(sk, name)) {
                let (t, raw) = D::key_value(self)?;
                size += super::size::key_size(t, raw)?;
                scratch.sk = Some(Tag::Key(t));
                scratch.sk_raw.clear();
                scratch.sk_raw.extend_from_slice(raw);
                key_text = (t == KeyType::S).then_some(raw);
            } else {
                self.skip_ws();
                let start = self.i;
                size += D::value_size(self)?;
                if ttl {
                    scratch.ttl.value = D::ttl(self.s.get(start..self.i)?);
                }
            }
            if direct && let Some(from) = from {
                note_span::<D>(self.s, from, self.i, scratch)?;
            } else if let (Some((slot, _)), Some(raw)) = (from, key_text) {
                // `key_value` took exactly a string with valid UTF-8 and no escapes (`{"S":"…"}` or `"…"`): the
                // value is the text, as `simple_value` or `plain_to_value` would read it from the span again.
                let text = std::str::from_utf8(raw).ok()?;
                let value = scratch.spare.string_in(slot, text);
                *scratch.values.get_mut(slot)? = Some(Value::S(value));
            } else if let Some((slot, start)) = from {
                D::read_value(self.s.get(start..self.i)?, slot, scratch)?;
            }
            match self.next_token()? {
                b',' => {}
                b'}' => {
                    if direct {
                        direct_key::<D>(self.s, scratch)?;
                    }
                    scratch.ttl.item_done();
                    return Some(size);
                }
                _ => return None,
            }
        }
    }

    /// When `name` is an attribute to extract: its slot and where its value starts (white space skipped). The
    /// callers test whether anything is extracted first: the call was not inlined, and every attribute of a plain
    /// load paid for it (`valgrind --tool=callgrind`, one file of `benches/export_load.sh`: 1.7 % of the
    /// instructions).
    #[inline]
    fn extract_from(&mut self, name: &[u8], scratch: &Scratch) -> Option<(usize, usize)> {
        let slot = scratch.extract_slot_of(name)?;
        self.skip_ws();
        Some((slot, self.i))
    }

    /// The rest of a key attribute's value after its head `{"S":"` (or `N`, `B`) written without white space:
    /// its text (without escapes) and the closing `"` and `}`.
    #[inline(always)]
    pub(super) fn key_value_rest(&mut self) -> Option<&'a [u8]> {
        let raw = self.plain_str()?;
        self.expect(b'}')?;
        Some(raw)
    }

    /// A key attribute's value: exactly `{"S":"…"}`, `{"N":"…"}` or `{"B":"…"}`, the text without escapes.
    fn key_value(&mut self) -> Option<(KeyType, &'a [u8])> {
        // Written as exports write it (no white space): the six bytes before the text at once.
        if let Some(head) = self.s.get(self.i..self.i + 6)
            && head[..2] == *b"{\""
            && head[3..] == *b"\":\""
            && let Some(t) = match head[2] {
                b'S' => Some(KeyType::S),
                b'N' => Some(KeyType::N),
                b'B' => Some(KeyType::B),
                _ => None,
            }
        {
            self.i += 6;
            return Some((t, self.key_value_rest()?));
        }
        self.expect(b'{')?;
        self.expect(b'"')?;
        let t = match self.plain_str()? {
            b"S" => KeyType::S,
            b"N" => KeyType::N,
            b"B" => KeyType::B,
            _ => return None,
        };
        self.expect(b':')?;
        self.expect(b'"')?;
        let raw = self.plain_str()?;
        self.expect(b'}')?;
        Some((t, raw))
    }
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeSeed as _;

    use super::*;
    use crate::model::keyexpr::Value;
    use crate::source::json::dialect::{Plain, Typed};
    use crate::source::json::item::{ItemSeed, RecordSeed};

    const TYPICAL: &str = r#"{"Item":{"pk":{"S":"user#000123"},"sk":{"S":"2024-05-03T02:02:14.002Z#0000002"},"status":{"S":"ACTIVE"},"amount":{"N":"123.45"},"tags":{"SS":["t2","t2"]},"payload":{"S":"0123456789abcdef0123456789abcdef0123456789abcdef01234567"}}}"#;

    fn names(pk: &str, sk: Option<&str>) -> KeyNames {
        KeyNames {
            pk: pk.into(),
            sk: sk.map(Into::into),
            guessed: false,
        }
    }

    /// A scratch left over from an earlier line: the fast path must not let any of it through.
    fn stale() -> Scratch {
        Scratch {
            pk: Some(Tag::Key(KeyType::B)),
            pk_raw: b"stale pk".to_vec(),
            sk: Some(Tag::Other("SS".into())),
            sk_raw: b"stale sk".to_vec(),
            attrs: None,
            item_bytes: Some(7),
            ..Scratch::default()
        }
    }

    /// The serde path: the scratch when it succeeds with the field found.
    fn serde(line: &[u8], field: &'static str, names: &KeyNames) -> Option<Scratch> {
        let mut s = Scratch::default();
        let mut de = serde_json::Deserializer::from_slice(line);
        let found = RecordSeed {
            field,
            item: ItemSeed {
                names: Some(names),
                scratch: &mut s,
                dialect: Typed,
            },
        }
        .deserialize(&mut de)
        .and_then(|found| de.end().map(|()| found))
        .ok()?;
        found.then_some(s)
    }

    /// The key attributes as the caller reads them: the raw text only counts under a key tag.
    fn keys(s: &Scratch) -> [(Option<Tag>, Option<&[u8]>); 2] {
        [
            (
                s.pk.clone(),
                matches!(s.pk, Some(Tag::Key(_))).then_some(s.pk_raw.as_slice()),
            ),
            (
                s.sk.clone(),
                matches!(s.sk, Some(Tag::Key(_))).then_some(s.sk_raw.as_slice()),
            ),
        ]
    }

    /// Runs the fast path on a stale scratch and checks the contract against serde; returns what it returned.
    /// The size is the item's as the second walk ([`crate::source::json::size::record_size`]) gives it.
    fn check(line: &[u8], field: &'static str, names: &KeyNames) -> Option<(Option<u64>, Scratch)> {
        let mut fast = stale();
        if !scan_record(line, field, names, &mut fast) {
            return None;
        }
        let sized = if field == "Item" { "Item" } else { "NewImage" };
        let walked =
            crate::source::json::size::record_size(line, sized, &[]).map(|s| s.map(|s| s.bytes));
        assert_eq!(
            Ok(fast.item_bytes),
            walked,
            "sizes differ on {}",
            String::from_utf8_lossy(line)
        );
        let n = fast.item_bytes;
        let Some(slow) = serde(line, field, names) else {
            panic!(
                "the fast path took a line serde refuses: {}",
                String::from_utf8_lossy(line)
            );
        };
        assert_eq!(
            keys(&fast),
            keys(&slow),
            "fast and serde disagree on {}",
            String::from_utf8_lossy(line)
        );
        Some((n, fast))
    }

    fn key(t: KeyType, raw: &str) -> (Option<Tag>, Option<&[u8]>) {
        (Some(Tag::Key(t)), Some(raw.as_bytes()))
    }

    /// `{"Item":ITEM}` through the fast path: the scratch, after checking the item's length.
    fn item(item: &str, names: &KeyNames) -> Scratch {
        let line = format!("{{\"Item\":{item}}}");
        let (n, s) = check(line.as_bytes(), "Item", names)
            .unwrap_or_else(|| panic!("fast path refused {line}"));
        assert_eq!(
            n,
            crate::source::json::size::typed_item_size(item.as_bytes(), &[])
                .ok()
                .map(|s| s.bytes),
            "{line}"
        );
        s
    }

    #[test]
    fn takes_the_typical_line() {
        let n = names("pk", Some("sk"));
        let (size, s) = check(TYPICAL.as_bytes(), "Item", &n).unwrap();
        // pk 2+11, sk 2+32, status 6+6, amount 6+(5 digits: 3+1), tags 4+2+2, payload 7+56
        assert_eq!(size, Some(13 + 34 + 12 + 10 + 8 + 63));
        assert_eq!(
            keys(&s),
            [
                key(KeyType::S, "user#000123"),
                key(KeyType::S, "2024-05-03T02:02:14.002Z#0000002")
            ]
        );
    }

    #[test]
    fn takes_keys_in_any_order_and_of_any_key_type() {
        let n = names("pk", Some("sk"));
        let s = item(
            r#"{"x":{"S":"1"},"sk":{"N":"-1.5e3"},"pk":{"B":"AAEC"}}"#,
            &n,
        );
        assert_eq!(
            keys(&s),
            [key(KeyType::B, "AAEC"), key(KeyType::N, "-1.5e3")]
        );
        let s = item(r#"{"pk":{"N":"7"},"v":{"N":"1"}}"#, &n);
        assert_eq!(keys(&s), [key(KeyType::N, "7"), (None, None)], "no sk");
        let s = item("{}", &n);
        assert_eq!(keys(&s), [(None, None), (None, None)]);
        let s = item(r#"{"pk":{"S":"a"},"sk":{"S":"b"}}"#, &names("pk", None));
        assert_eq!(keys(&s), [key(KeyType::S, "a"), (None, None)]);
        let s = item(r#"{"ünï":{"S":"é✓"}}"#, &names("ünï", None));
        assert_eq!(keys(&s), [key(KeyType::S, "é✓"), (None, None)]);
        let s = item(r#"{"pk":{"S":""}}"#, &n);
        assert_eq!(keys(&s), [key(KeyType::S, ""), (None, None)]);
    }

    #[test]
    fn ignores_key_names_inside_other_values() {
        let n = names("pk", Some("sk"));
        let s = item(
            r#"{"m":{"M":{"pk":{"S":"no"},"sk":{"SS":["x"]}}},"pk":{"S":"yes"},"l":{"L":[{"M":{"pk":{"N":"1"}}},{"S":"pk"},{"NULL":true},{"BOOL":false},{"N":"-0.5E+2"},{"L":[]},{"M":{}}]},"s":{"S":"a\"b\\c\/\b\f\n\r\t\u00e9\uD83D"}}"#,
            &n,
        );
        assert_eq!(keys(&s), [key(KeyType::S, "yes"), (None, None)]);
    }

    #[test]
    fn takes_whitespace_everywhere() {
        let n = names("pk", Some("sk"));
        let it = " {\t\"pk\" :\r{ \"S\" : \"a b\" } ,\n\"sk\":{\"N\":\"1\"\n} , \"x\" : { \"L\" : [ { \"N\" : \"1\" } , { \"M\" : { \"y\" : { \"NULL\" : true } } } ] } } ";
        let line = format!(" \r\n{{ \"Item\" :{it},\"z\" : \"w\"\t}}\n\r ");
        let (size, s) = check(line.as_bytes(), "Item", &n).unwrap();
        // pk 2+3, sk 2+2, x 1+L(3 + 1+2 + 1+M(3 + 1+1+1))
        assert_eq!(size, Some(5 + 4 + 14));
        assert_eq!(keys(&s), [key(KeyType::S, "a b"), key(KeyType::N, "1")]);
    }

    #[test]
    fn the_last_duplicate_key_wins_and_the_first_field() {
        let n = names("pk", Some("sk"));
        let s = item(
            r#"{"pk":{"S":"first"},"sk":{"N":"1"},"pk":{"N":"2"},"sk":{"N":"3"}}"#,
            &n,
        );
        assert_eq!(keys(&s), [key(KeyType::N, "2"), key(KeyType::N, "3")]);
        let line = br#"{"Item":{"pk":{"S":"a"}},"Item":{"pk":{"S":"b"}},"Item":7}"#;
        let (size, s) = check(line, "Item", &n).unwrap();
        assert_eq!(size, Some(3), "the first Item field's");
        assert_eq!(keys(&s), [key(KeyType::S, "a"), (None, None)]);
    }

    #[test]
    fn takes_incremental_lines() {
        let n = names("pk", Some("sk"));
        let line = br#"{"Metadata":{"WriteTimestampMicros":{"N":"1"}},"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"sk":{"S":"not a key"},"v":{"BOOL":true}},"OldImage":null}"#;
        let (size, s) = check(line, "Keys", &n).unwrap();
        assert_eq!(size, Some(3 + 11 + 2), "the NewImage's size");
        assert_eq!(keys(&s), [key(KeyType::S, "a"), (None, None)]);
        assert!(check(line, "Item", &n).is_none(), "no Item field");
    }

    #[test]
    fn too_deep_counts_brackets_outside_strings() {
        let nest = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert_eq!(too_deep(nest(128).as_bytes()), None);
        assert_eq!(
            too_deep(nest(129).as_bytes()).as_deref(),
            Some("invalid JSON: nested deeper than 128 levels at column 129 (DynamoDB allows 32)")
        );
        // Brackets in strings (escaped quotes too) are text; closing brackets bring the depth back down.
        let text = format!(
            r#"{{"a":"{}\"{}","b":[{}]}}"#,
            "[".repeat(200),
            "{".repeat(200),
            nest(126)
        );
        assert_eq!(too_deep(text.as_bytes()), None);
        let text = format!(r#"{{"a":[{}],"b":{}}}"#, nest(126), nest(128));
        assert_eq!(
            too_deep(text.as_bytes()).as_deref(),
            Some(format!(
                "invalid JSON: nested deeper than 128 levels at column {} (DynamoDB allows 32)",
                r#"{"a":["#.len() + 126 * 2 + r#"],"b":"#.len() + 128
            ))
            .as_deref()
        );
    }

    #[test]
    fn takes_nesting_up_to_serde_s_limit() {
        let n = names("pk", None);
        let deep = |levels: usize| {
            format!(
                "{{\"Item\":{{\"pk\":{{\"S\":\"a\"}},\"x\":{}{}}}}}",
                "{\"L\":[".repeat(levels),
                "]}".repeat(levels)
            )
        };
        // The top-level object, the item and `x`'s lists (two levels each): 128 levels in all.
        assert!(check(deep(63).as_bytes(), "Item", &n).is_some());
        assert!(check(deep(64).as_bytes(), "Item", &n).is_none());
        assert!(check(deep(1000).as_bytes(), "Item", &n).is_none());
    }

    #[test]
    fn refuses_what_it_does_not_handle() {
        let n = names("pk", Some("sk"));
        let ok = r#"{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}}"#;
        assert!(check(ok.as_bytes(), "Item", &n).is_some());
        let refused: &[&[u8]] = &[
            // Truncated.
            b"",
            b"{",
            br#"{"Item":{"pk":{"S":"a"},"n":{"N":"1"}}"#,
            br#"{"Item":{"pk":{"S":"a"#,
            br#"{"Item":{"pk":{"S":"a"},"n":{"N":"1"#,
            br#"{"Item":{"pk":{"S":"a"},"n":{"N":"1"}},"x":tru}"#,
            // Trailing garbage, trailing commas, missing commas and colons.
            br#"{"Item":{"pk":{"S":"a"}}}x"#,
            br#"{"Item":{"pk":{"S":"a"}}}}"#,
            br#"{"Item":{"pk":{"S":"a"}}} {}"#,
            br#"{"Item":{"pk":{"S":"a"},}}"#,
            br#"{"Item":{"pk":{"S":"a"}},}"#,
            br#"{"Item":{"pk":{"S":"a"},"l":{"L":[1,]}}}"#,
            br#"{"Item":{"pk":{"S":"a"},"l":{"L":[,]}}}"#,
            br#"{"Item":{"pk":{"S":"a"},"m":{"M":{"x":1,}}}}"#,
            br#"{"Item":{"pk":{"S":"a"} "n":{"N":"1"}}}"#,
            br#"{"Item":{"pk" {"S":"a"}}}"#,
            br#"{,"Item":{"pk":{"S":"a"}}}"#,
            // Invalid numbers and literals.
            br#"{"Item":{"pk":{"S":"a"},"x":01}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":1.}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":-}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":1e}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":.5}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":+1}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":- 1}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":nul}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":True}}"#,
            // Bad escapes and control characters in skipped strings.
            br#"{"Item":{"pk":{"S":"a"},"x":{"S":"\x"}}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":{"S":"\u12G4"}}}"#,
            br#"{"Item":{"pk":{"S":"a"},"x":{"S":"\u12"}}}"#,
            b"{\"Item\":{\"pk\":{\"S\":\"a\"},\"x\":{\"S\":\"tab\there\"}}}",
            b"{\"Item\":{\"pk\":{\"S\":\"a\"},\"x\":{\"S\":\"nul\x00\"}}}",
            // Escapes where the fast path does not decode them.
            br#"{"Item":{"pk":{"S":"a\"b"}}}"#,
            br#"{"Item":{"pk":{"S":"\u0061"}}}"#,
            br#"{"Item":{"p\u006b":{"S":"a"}}}"#,
            br#"{"It\u0065m":{"pk":{"S":"a"}}}"#,
            br#"{"Item":{"pk":{"\u0053":"a"}}}"#,
            // Key values of another shape.
            br#"{"Item":{"pk":{"SS":["a"]}}}"#,
            br#"{"Item":{"pk":{"N":1}}}"#,
            br#"{"Item":{"pk":{"S":"a","N":"1"}}}"#,
            br#"{"Item":{"pk":{}}}"#,
            br#"{"Item":{"pk":"a"}}"#,
            br#"{"Item":{"sk":{"NULL":true}}}"#,
            // No field, or not an object.
            br#"{}"#,
            br#"{"Items":{"pk":{"S":"a"}}}"#,
            br#"{"Item":[{"pk":{"S":"a"}}]}"#,
            br#"{"Item":null}"#,
            br#"[{"Item":{"pk":{"S":"a"}}}]"#,
            // Invalid UTF-8 in a key value or a name.
            b"{\"Item\":{\"pk\":{\"S\":\"a\xff\"}}}",
            b"{\"Item\":{\"pk\":{\"S\":\"\xc3\"}}}",
            b"{\"Item\":{\"p\xe9\":{\"S\":\"a\"}}}",
            b"{\"It\xffem\":{\"pk\":{\"S\":\"a\"}}}",
        ];
        for line in refused {
            assert!(
                check(line, "Item", &n).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn skips_strings_as_serde_does() {
        // serde_json checks neither UTF-8 nor surrogates in a string it ignores...
        let n = names("pk", None);
        let line = b"{\"Item\":{\"pk\":{\"S\":\"a\"},\"x\":{\"S\":\"\xff\xfe\\uDC00\"},\"m\":{\"M\":{\"\xff\":{\"NULL\":true}}}},\"o\":[\"\xc3\"]}";
        assert!(check(line, "Item", &n).is_some());
        // ...but it reads attribute names and top-level names as text, which must be valid UTF-8.
        let line = b"{\"Item\":{\"pk\":{\"S\":\"a\"},\"\xff\":1}}";
        assert!(serde(line, "Item", &n).is_none());
        assert!(check(line, "Item", &n).is_none());
        let line = b"{\"Item\":{\"pk\":{\"S\":\"a\"}},\"\xc3\":[]}";
        assert!(serde(line, "Item", &n).is_none());
        assert!(check(line, "Item", &n).is_none());
    }

    /// A tiny deterministic PRNG (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
        }

        fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
            &from[self.below(from.len())]
        }
    }

    const WS: [&str; 6] = ["", "", "", " ", "\n\t", " \r "];

    /// Attribute values, some of them with the key attributes' names inside.
    const VALUES: [&str; 14] = [
        r#"{"S":"user#000123"}"#,
        r#"{"N":"-12.5e3"}"#,
        r#"{"B":"AAEC"}"#,
        r#"{"S":"é✓ 日本"}"#,
        r#"{"S":"2024-05-03T02:02:14.002Z#0000002"}"#,
        r#"{"N":"0"}"#,
        r#"{"SS":["t2","t2"]}"#,
        r#"{"S":"0123456789abcdef0123456789abcdef0123456789abcdef01234567"}"#,
        r#"{"BOOL":true}"#,
        r#"{"NULL":true}"#,
        r#"{"M":{"pk":{"S":"inner"},"sk":{"N":"1"}}}"#,
        r#"{"L":[{"S":"a\"b\u00e9"},{"N":"1E+2"},{"NULL":true},{"BOOL":false},{"L":[]},{"M":{}}]}"#,
        r#"{"S":"tab\there\\"}"#,
        r#"{ "NS" : [ "1" , "2.5" ] }"#,
    ];

    /// Values the fast path takes on a key attribute.
    const KEY_VALUES: [&str; 5] = [
        r#"{"S":"user#000123"}"#,
        r#"{"N":"-12.5e3"}"#,
        r#"{"B":"AAEC"}"#,
        r#"{"S":"é✓ 日本"}"#,
        r#"{ "S" :"2024-05-03T02:02:14.002Z#0000002"
        }"#,
    ];

    const NAMES: [&str; 8] = ["pk", "sk", "pk", "sk", "status", "amount", "ünï", "payload"];

    fn gen_value(rng: &mut Rng, depth: usize) -> String {
        let v = *rng.pick(&VALUES);
        match rng.below(6) {
            0 if depth < 4 => format!("{{\"M\":{{\"pk\":{}}}}}", gen_value(rng, depth + 1)),
            1 if depth < 4 => format!("{{\"L\":[{},{}]}}", gen_value(rng, depth + 1), v),
            _ => v.to_owned(),
        }
    }

    fn gen_item(rng: &mut Rng) -> String {
        let count = rng.below(7);
        let attrs: Vec<String> = (0..count)
            .map(|_| {
                let name = *rng.pick(&NAMES);
                let value = if name == "pk" || name == "sk" {
                    (*rng.pick(&KEY_VALUES)).to_owned()
                } else {
                    gen_value(rng, 0)
                };
                format!(
                    "{}\"{name}\"{}:{}{value}{}",
                    rng.pick(&WS),
                    rng.pick(&WS),
                    rng.pick(&WS),
                    rng.pick(&WS)
                )
            })
            .collect();
        format!("{{{}{}}}", attrs.join(","), rng.pick(&WS))
    }

    /// A valid line and its field.
    fn gen_line(rng: &mut Rng) -> (Vec<u8>, &'static str) {
        let it = gen_item(rng);
        let ws = |rng: &mut Rng| *rng.pick(&WS);
        let (line, field) = match rng.below(4) {
            0 => (
                format!(
                    "{}{{{}\"Metadata\":{{\"WriteTimestampMicros\":{{\"N\":\"1\"}}}},\"Keys\":{}{it}{},\"NewImage\":{}}}{}",
                    ws(rng),
                    ws(rng),
                    ws(rng),
                    ws(rng),
                    gen_item(rng),
                    ws(rng)
                ),
                "Keys",
            ),
            1 => (
                format!(
                    "{{\"x\":[1,2.5e-3,\"y\"],\"Item\":{it},\"Item\":{}}}",
                    gen_item(rng)
                ),
                "Item",
            ),
            _ => (
                format!(
                    "{}{{\"Item\":{}{it}{}}}{}",
                    ws(rng),
                    ws(rng),
                    ws(rng),
                    ws(rng)
                ),
                "Item",
            ),
        };
        (line.into_bytes(), field)
    }

    const MUTANTS: &[u8] = b"{}[]\":,\\ 0123456789eE.+-aSNBzZ\x01\xff\xc3\t";

    fn mutate(rng: &mut Rng, line: &mut Vec<u8>) {
        for _ in 0..=rng.below(3) {
            let at = rng.below(line.len() + 1);
            let b = *rng.pick(MUTANTS);
            match rng.below(3) {
                0 if at < line.len() => {
                    line.remove(at);
                }
                1 if at < line.len() => line[at] = b,
                _ => line.insert(at, b),
            }
        }
    }

    /// Roots the extraction tests take: keys, plain values, nested ones and an absent one.
    const ROOTS: [&str; 6] = ["amount", "pk", "status", "tags", "ünï", "absent"];

    /// A scratch extracting [`ROOTS`] past its first item (names noted), left over from an earlier line.
    fn stale_extracting() -> Scratch {
        let mut s = Scratch::extracting(&ROOTS);
        s.values.iter_mut().for_each(|v| *v = Some(Value::Null));
        s.names = vec!["first".into()];
        s.names_done = true;
        s.pk = Some(Tag::Key(KeyType::B));
        s.pk_raw = b"stale".to_vec();
        s
    }

    /// The serde path extracting [`ROOTS`]: the scratch when it succeeds with the field found.
    fn serde_values(line: &[u8], field: &'static str, names: &KeyNames) -> Option<Scratch> {
        let mut s = stale_extracting();
        let mut de = serde_json::Deserializer::from_slice(line);
        let found = RecordSeed {
            field,
            item: ItemSeed {
                names: Some(names),
                scratch: &mut s,
                dialect: Typed,
            },
        }
        .deserialize(&mut de)
        .and_then(|found| de.end().map(|()| found))
        .ok()?;
        found.then_some(s)
    }

    /// The fast path and serde, both extracting [`ROOTS`]: when the fast path takes the line, serde must too,
    /// with the same keys and values. Returns whether the fast path took it.
    fn check_values(line: &[u8], field: &'static str, names: &KeyNames) -> bool {
        let mut fast = stale_extracting();
        if !scan_record(line, field, names, &mut fast) {
            return false;
        }
        let text = String::from_utf8_lossy(line);
        let Some(slow) = serde_values(line, field, names) else {
            panic!("serde refuses what the fast path took: {text}");
        };
        assert_eq!(keys(&fast), keys(&slow), "keys differ on {text}");
        assert_eq!(fast.values, slow.values, "values differ on {text}");
        true
    }

    #[test]
    fn extracts_values_as_serde_does() {
        let n = names("pk", Some("sk"));
        let mut sc = stale_extracting();
        assert!(scan_record(TYPICAL.as_bytes(), "Item", &n, &mut sc));
        assert_eq!(sc.value("pk"), Some(&Value::S("user#000123".into())));
        assert_eq!(sc.pk_raw, b"user#000123");
        assert_eq!(sc.value("amount"), Some(&Value::number("123.45").unwrap()));
        assert_eq!(
            sc.value("tags"),
            Some(&Value::L(vec![
                Value::S("t2".into()),
                Value::S("t2".into())
            ]))
        );
        assert_eq!(sc.value("absent"), None);
        assert!(check_values(TYPICAL.as_bytes(), "Item", &n));
        // A number the value reader refuses sends the line to serde (which names the attribute).
        let bad = br#"{"Item":{"pk":{"S":"a"},"amount":{"N":"1.2.3"}}}"#;
        assert!(!check_values(bad, "Item", &n));
        // The first item of an extracting load goes to serde, which notes the attribute names.
        let mut first = Scratch::extracting(&ROOTS);
        assert!(!scan_record(TYPICAL.as_bytes(), "Item", &n, &mut first));
        assert!(!scan_item(br#"{"pk":{"S":"a"}}"#, &n, &mut first));
        assert!(!scan_plain_item(br#"{"pk":"a"}"#, &n, &mut first));
    }

    #[test]
    fn plain_fast_path_extracts_as_serde_does() {
        let n = names("pk", None);
        let text = br#"{"pk":"a","amount":1.50,"status":{"x":[true,null]},"tags":["t"],"other":1}"#;
        let mut fast = stale_extracting();
        assert!(scan_plain_item(text, &n, &mut fast));
        let mut slow = stale_extracting();
        let mut de = serde_json::Deserializer::from_slice(text);
        ItemSeed {
            names: Some(&n),
            scratch: &mut slow,
            dialect: Plain,
        }
        .deserialize(&mut de)
        .unwrap();
        assert_eq!(fast.values, slow.values);
        assert_eq!(fast.value("amount"), Some(&Value::number("1.5").unwrap()));
        assert_eq!(fast.value("pk"), Some(&Value::S("a".into())));
        assert_eq!(fast.pk_raw, b"a");
    }

    #[test]
    fn extraction_agrees_with_serde_on_generated_and_mutated_lines() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let all = names("pk", Some("sk"));
        let (mut taken, mut mutated_taken) = (0, 0);
        for _ in 0..3000 {
            let (line, field) = gen_line(&mut rng);
            let took = check_values(&line, field, &all);
            // Generated lines hold values no attribute can have (`null` in a list): both refuse those.
            assert_eq!(
                took,
                serde_values(&line, field, &all).is_some(),
                "the fast path refused a line serde reads: {}",
                String::from_utf8_lossy(&line)
            );
            taken += usize::from(took);
            for _ in 0..3 {
                let mut bad = line.clone();
                mutate(&mut rng, &mut bad);
                mutated_taken += usize::from(check_values(&bad, field, &all));
            }
        }
        assert!(taken > 2000, "{taken} of 3000 valid lines taken");
        assert!(
            mutated_taken > 9000 / 20,
            "{mutated_taken} mutated lines taken"
        );
    }

    /// A scratch extracting `expr`'s attributes alone with the key built in place, past its first item (names
    /// noted), as a load of `--key-expr expr` makes it.
    fn direct_scratch(expr: &crate::model::keyexpr::Expr) -> Scratch {
        let roots: Vec<String> = expr
            .attributes()
            .iter()
            .map(|p| p.root().to_owned())
            .collect();
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        let mut fast = Scratch::extracting(&roots);
        fast.names = vec!["first".into()];
        fast.names_done = true;
        fast.direct = expr.direct(&fast.extract);
        assert!(fast.direct.is_some(), "{expr}");
        fast.spans = vec![None; fast.extract.len()];
        fast
    }

    /// `fast` (the fast path's scratch of item `text`) agrees with `slow` (serde's): the same keys, and the key
    /// built in place is `expr`'s key on serde's values, or the values are serde's. Returns whether the key was
    /// built in place.
    fn agrees_built_in_place(
        expr: &crate::model::keyexpr::Expr,
        fast: &Scratch,
        slow: &Scratch,
        text: &str,
    ) -> bool {
        use crate::model::design::RootValues;
        assert_eq!(keys(fast), keys(slow), "keys differ on {text}");
        if !fast.direct_ok {
            assert_eq!(fast.values, slow.values, "values differ on {text}");
            return false;
        }
        let view = RootValues {
            roots: &slow.extract,
            values: &slow.values,
        };
        let want = expr.eval(&view, crate::model::keyexpr::ItemSeed::default());
        assert_eq!(
            want.as_deref(),
            Ok(&fast.direct_key[..]),
            "{expr} on {text}"
        );
        true
    }

    /// A key built in place ([`Scratch::direct`]) is the key expression's key on serde's values, line after
    /// line with one scratch (the values of a line whose key is not built in place are serde's): on generated
    /// lines and mutated ones, where `payload` is renamed `tags` so that sets and lists come under it (a set's
    /// members told apart).
    #[test]
    fn keys_built_in_place_are_the_expression_s_keys() {
        use crate::model::keyexpr::parse;
        let mut rng = Rng(0x0DDB_A11C_0FFE_E123);
        let all = names("pk", Some("sk"));
        let (mut built, mut declined, mut taken) = (0, 0, 0);
        for expr in [
            "{pk}#{status}#{tags.0}",
            "{amount:hash 7}~{ünï:first 2}",
            "X{tags.1}",
            "{pk}",
            "{status:first 3}{pk:hash 1000}",
        ] {
            let expr = parse(expr).unwrap();
            let mut fast = direct_scratch(&expr);
            let extract = fast.extract.clone();
            let roots: Vec<&str> = extract.iter().map(String::as_str).collect();
            for _ in 0..3000 {
                let (line, field) = gen_line(&mut rng);
                let line = String::from_utf8(line)
                    .unwrap()
                    .replace("\"payload\"", "\"tags\"")
                    .replace(r#"["t2","t2"]"#, r#"["t1","t2","t3"]"#);
                let mut lines = vec![line.clone().into_bytes()];
                for _ in 0..2 {
                    let mut bad = line.clone().into_bytes();
                    mutate(&mut rng, &mut bad);
                    lines.push(bad);
                }
                for line in lines {
                    if !scan_record(&line, field, &all, &mut fast) {
                        assert!(!fast.direct_ok, "a declined line left its key");
                        continue;
                    }
                    taken += 1;
                    let text = String::from_utf8_lossy(&line);
                    let mut slow = Scratch::extracting(&roots);
                    slow.names_done = true;
                    let mut de = serde_json::Deserializer::from_slice(&line);
                    let read = RecordSeed {
                        field,
                        item: ItemSeed {
                            names: Some(&all),
                            scratch: &mut slow,
                            dialect: Typed,
                        },
                    }
                    .deserialize(&mut de)
                    .and_then(|found| de.end().map(|()| found));
                    assert!(
                        matches!(read, Ok(true)),
                        "serde refuses what the fast path took: {text}"
                    );
                    if agrees_built_in_place(&expr, &fast, &slow, &text) {
                        built += 1;
                    } else {
                        declined += 1;
                    }
                }
            }
        }
        assert!(
            built > 1500 && declined > 1500,
            "{built} keys built, {declined} not ({taken} lines taken)"
        );
    }

    /// Plain JSON values, some of which no key can be built from in place (escapes, lists of other things,
    /// maps, numbers DynamoDB refuses).
    const PLAIN_VALUES: [&str; 16] = [
        r#""ACTIVE""#,
        r#""user#000123""#,
        r#""é✓ 日本""#,
        r#""a\"b""#,
        r#""tab\there""#,
        "12.50",
        "-0",
        "1E3",
        "1e400",
        "true",
        "null",
        r#"["t1","t2","t3"]"#,
        r#"[ "x" , "y" ]"#,
        r#"["t1",2]"#,
        "[]",
        r#"{"a":"b"}"#,
    ];

    /// The same as [`keys_built_in_place_are_the_expression_s_keys`] for plain JSON items, against
    /// `ItemSeed`'s values for `Plain` items.
    #[test]
    fn plain_keys_built_in_place_are_the_expression_s_keys() {
        use crate::model::keyexpr::parse;
        let mut rng = Rng(0x5EED_F00D_9A1A_7E57);
        let all = names("pk", Some("sk"));
        let (mut built, mut declined) = (0, 0);
        for expr in [
            "{pk}#{status}#{tags.0}",
            "{amount:hash 7}~{status:first 2}",
            "X{tags.1}{pk}",
        ] {
            let expr = parse(expr).unwrap();
            let mut fast = direct_scratch(&expr);
            let extract = fast.extract.clone();
            let roots: Vec<&str> = extract.iter().map(String::as_str).collect();
            for _ in 0..4000 {
                // Each name most of the time, one sometimes twice; lists mostly under `tags`.
                let mut attrs = Vec::new();
                for name in ["pk", "status", "tags", "amount", "other", "pk"] {
                    if rng.below(6) == 0 {
                        continue;
                    }
                    let (a, b) = (*rng.pick(&WS), *rng.pick(&WS));
                    let value = if name == "tags" && rng.below(3) != 0 {
                        rng.pick(&PLAIN_VALUES[11..])
                    } else {
                        rng.pick(&PLAIN_VALUES[..11])
                    };
                    attrs.push(format!("{a}\"{name}\"{b}:{value}{a}"));
                }
                let first = rng.below(attrs.len() + 1) % attrs.len().max(1);
                attrs.rotate_left(first);
                let item = format!("{{{}}}", attrs.join(","));
                let mut lines = vec![item.clone().into_bytes()];
                let mut bad = item.into_bytes();
                mutate(&mut rng, &mut bad);
                lines.push(bad);
                for line in lines {
                    if !scan_plain_item(&line, &all, &mut fast) {
                        assert!(!fast.direct_ok, "a declined item left its key");
                        continue;
                    }
                    let text = String::from_utf8_lossy(&line);
                    let mut slow = Scratch::extracting(&roots);
                    slow.names_done = true;
                    let mut de = serde_json::Deserializer::from_slice(&line);
                    let read = ItemSeed {
                        names: Some(&all),
                        scratch: &mut slow,
                        dialect: Plain,
                    }
                    .deserialize(&mut de)
                    .and_then(|()| de.end());
                    assert!(
                        read.is_ok(),
                        "serde refuses what the fast path took: {text}"
                    );
                    if agrees_built_in_place(&expr, &fast, &slow, &text) {
                        built += 1;
                    } else {
                        declined += 1;
                    }
                }
            }
        }
        assert!(
            built > 700 && declined > 3000,
            "{built} keys built, {declined} not"
        );
    }

    /// One scratch reused line after line, as a load uses it (each item's values written over the last item's
    /// value of the same slot, whatever its shape): every line's values are serde's.
    #[test]
    fn a_reused_scratch_extracts_each_line_as_serde_does() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        let all = names("pk", Some("sk"));
        let mut fast = stale_extracting();
        let (mut taken, mut lists) = (0, 0);
        for _ in 0..3000 {
            let (line, field) = gen_line(&mut rng);
            if !scan_record(&line, field, &all, &mut fast) {
                continue;
            }
            let text = String::from_utf8_lossy(&line);
            let Some(slow) = serde_values(&line, field, &all) else {
                panic!("serde refuses what the fast path took: {text}");
            };
            assert_eq!(fast.values, slow.values, "values differ on {text}");
            taken += 1;
            lists += fast
                .values
                .iter()
                .filter(|v| matches!(v, Some(Value::L(_))))
                .count();
        }
        assert!(taken > 2000, "{taken} of 3000 lines taken");
        assert!(lists > 500, "{lists} lists read");
    }

    #[test]
    fn agrees_with_serde_on_generated_and_mutated_lines() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let all = names("pk", Some("sk"));
        let pk_only = names("pk", None);
        let (mut valid, mut mutated, mut fast, mut slow) = (0, 0, 0, 0);
        for round in 0..4000 {
            let (line, field) = gen_line(&mut rng);
            let n = if round % 3 == 0 { &pk_only } else { &all };
            // `check` also compares the size with the second walk's.
            let got = check(&line, field, n);
            assert!(
                got.is_some(),
                "a valid line the fast path refused: {}",
                String::from_utf8_lossy(&line)
            );
            valid += 1;
            for _ in 0..4 {
                let mut bad = line.clone();
                mutate(&mut rng, &mut bad);
                mutated += 1;
                fast += usize::from(check(&bad, field, n).is_some());
                slow += usize::from(serde(&bad, field, n).is_some());
            }
        }
        assert_eq!(valid, 4000);
        // The mutations must exercise both outcomes for the test to mean something.
        assert!(
            fast > mutated / 20,
            "{fast} of {mutated} mutated lines taken"
        );
        assert!(slow < mutated, "{slow} of {mutated}");
        eprintln!("mutated lines: {mutated}, taken by the fast path: {fast}, by serde: {slow}");
    }

    /// What a reader left in a scratch when it read the item whole, to compare two ways of reading: the keys,
    /// the size, the TTL value, and the key built in place or else the values extracted. (An item not read
    /// whole goes to serde, which reads it from the start.)
    fn outcome(s: &Scratch, done: bool) -> String {
        if !done {
            return "not read".to_owned();
        }
        let extracted = if s.direct_ok {
            format!("built {:?}", s.direct_key)
        } else {
            format!("{:?}", s.values)
        };
        format!(
            "{:?} {:?} {:?} {extracted}",
            keys(s),
            s.item_bytes,
            s.ttl.value
        )
    }

    /// An item's attributes as a template: names and white space fixed, values drawn anew for each line, so
    /// that lines of one template share their bytes between values (one shape).
    fn gen_template(rng: &mut Rng) -> Vec<(String, &'static str)> {
        const SHAPE_NAMES: [&str; 7] = ["pk", "sk", "ttl", "status", "amount", "ünï", "payload"];
        (0..=rng.below(6))
            .map(|k| {
                let name = *rng.pick(&SHAPE_NAMES);
                let sep = if k == 0 { "" } else { "," };
                let ws = |rng: &mut Rng| {
                    if rng.below(4) == 0 {
                        *rng.pick(&WS)
                    } else {
                        ""
                    }
                };
                (
                    format!("{sep}{}\"{name}\"{}:{}", ws(rng), ws(rng), ws(rng)),
                    name,
                )
            })
            .collect()
    }

    /// How a template's values are written: as exports write them (`{"S":"a"}`), as Python's `json.dumps`
    /// does (`{"S": "a"}`, `["a", "b"]`), or pretty-printed over lines.
    #[derive(Clone, Copy)]
    enum Spacing {
        Compact,
        Python,
        Pretty,
    }

    /// A value of the type `kind` names (`S`, `N`, `SS`, `NS`), its text drawn: escapes, multi-byte and
    /// control characters, numbers DynamoDB refuses, sets of any size; written as `spacing` says.
    fn typed_of(rng: &mut Rng, kind: &str, spacing: Spacing) -> String {
        let compact = compact_typed_of(rng, kind);
        match spacing {
            Spacing::Compact => compact,
            Spacing::Python => compact
                .replacen("\":", "\": ", 1)
                .replace("\",\"", "\", \""),
            Spacing::Pretty => {
                let open = compact
                    .replacen("{\"", "{\n        \"", 1)
                    .replacen("\":", "\": ", 1);
                let inner = open.strip_suffix('}').unwrap_or(&open);
                format!("{inner}\n    }}")
            }
        }
    }

    /// [`typed_of`] as exports write it.
    fn compact_typed_of(rng: &mut Rng, kind: &str) -> String {
        const TEXT: [&str; 8] = [
            "a",
            "é",
            "#",
            "\\\"",
            "\\u00e9",
            "\t",
            "0123456789abcdef",
            "日本",
        ];
        const NUMBERS: [&str; 7] = [
            "0",
            "-12.5",
            "1E+2",
            "007",
            "1.",
            "abc",
            "99999999999999999999",
        ];
        let text = |rng: &mut Rng| {
            (0..rng.below(4))
                .map(|_| *rng.pick(&TEXT))
                .collect::<String>()
        };
        let members = |rng: &mut Rng, numbers: bool| {
            (0..=rng.below(3))
                .map(|_| {
                    if numbers {
                        format!("\"{}\"", rng.pick(&NUMBERS))
                    } else {
                        format!("\"{}\"", text(rng))
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        match kind {
            "S" => format!("{{\"S\":\"{}\"}}", text(rng)),
            "N" => format!("{{\"N\":\"{}\"}}", rng.pick(&NUMBERS)),
            "SS" => format!("{{\"SS\":[{}]}}", members(rng, false)),
            _ => format!("{{\"NS\":[{}]}}", members(rng, true)),
        }
    }

    /// An item of `template`, its values drawn: of one type for each attribute in half the templates (as a
    /// table's items mostly are), of any type in the others.
    fn fill(rng: &mut Rng, template: &[(String, &'static str)]) -> String {
        const TTL_VALUES: [&str; 4] = [
            r#"{"N":"1700000000"}"#,
            r#"{"N":"1.7e9"}"#,
            r#"{"S":"soon"}"#,
            r#"{"BOOL":true}"#,
        ];
        const KINDS: [&str; 4] = ["S", "N", "SS", "NS"];
        // One type per attribute, from the template's bytes (the same for every item of it).
        let bytes = template.iter().map(|(h, _)| h.len()).sum::<usize>();
        let fixed = bytes % 2 == 0;
        let spacing = [Spacing::Compact, Spacing::Python, Spacing::Pretty][bytes / 2 % 3];
        let mut item = String::from("{");
        for (k, (head, name)) in template.iter().enumerate() {
            item.push_str(head);
            item.push_str(&match *name {
                "pk" | "sk" if fixed => typed_of(rng, KINDS[(head.len() + k) % 2], spacing),
                "pk" | "sk" => (*rng.pick(&KEY_VALUES)).to_owned(),
                "ttl" => (*rng.pick(&TTL_VALUES)).to_owned(),
                _ if fixed => typed_of(rng, KINDS[(head.len() + k) % KINDS.len()], spacing),
                _ => gen_value(rng, 0),
            });
        }
        item.push('}');
        item
    }

    /// Items read by a shape are read as the fast path reads them: export lines and items alone, lines of a
    /// few shapes mixed with others and with mutated ones, through one scratch each (as a load reads them)
    /// against one whose shapes are off; nothing extracted, values extracted, or the key built in place; the
    /// TTL attribute given or guessed.
    /// Export lines and items written with white space, as Python's `json.dumps` and pretty printers write
    /// them, are read by shapes: each as the fast path reads it, and all but the first two by a shape (this
    /// fails when a scalar's head or rest is taken only without white space).
    #[test]
    fn white_spaced_items_are_read_by_their_shapes() {
        let n = names("pk", Some("sk"));
        let python = |k: u32| {
            format!(
                "{{\"Item\": {{\"pk\": {{\"S\": \"user#{}\"}}, \"sk\": {{\"N\": \"{k}\"}}, \"status\": {{\"S\": \"OPEN é\"}}, \"amount\": {{\"N\": \"{}.5\"}}, \"tags\": {{\"SS\": [\"a\", \"b\"]}}}}}}",
                k % 7,
                k * 3
            )
        };
        let pretty = |k: u32| {
            format!(
                "{{\n    \"pk\": {{\n        \"S\": \"user#{}\"\n    }},\n    \"sk\": {{\n        \"N\": \"{k}\"\n    }},\n    \"amount\" : {{ \"N\" :\"{}\" }},\n    \"m\": {{\n        \"M\": {{}}\n    }}\n}}",
                k % 7,
                k * 3
            )
        };
        for (record, text) in [(true, &python as &dyn Fn(u32) -> String), (false, &pretty)] {
            let mut shaped = stale();
            let mut plain = Scratch {
                shapes: ShapesSlot::off(),
                ..stale()
            };
            for k in 0..200 {
                let line = text(k);
                let read = |s: &mut Scratch| {
                    let done = if record {
                        scan_record(line.as_bytes(), "Item", &n, s)
                    } else {
                        scan_item(line.as_bytes(), &n, s)
                    };
                    outcome(s, done)
                };
                let (a, b) = (read(&mut shaped), read(&mut plain));
                assert_eq!(a, b, "{line}");
                assert_ne!(a, "not read", "{line}");
            }
            // The first item settles the TTL attribute, the second's shape is noted.
            assert_eq!(shaped.shapes.hits(), 198, "{}", text(0));
        }
    }

    #[test]
    fn shapes_read_items_as_the_fast_path_does() {
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        let (mut hits, mut lines, mut taken) = (0u64, 0u64, 0u64);
        for round in 0..60 {
            let n = if round % 3 == 0 {
                names("pk", None)
            } else {
                names("pk", Some("sk"))
            };
            let record = round % 2 == 0;
            let ttl = if round % 4 < 2 {
                super::super::ttl::TtlProbe::new(Some("ttl"))
            } else {
                super::super::ttl::TtlProbe::new(None)
            };
            let base = || match (round / 3) % 3 {
                0 => stale(),
                1 => stale_extracting(),
                _ => direct_scratch(
                    &crate::model::keyexpr::parse("{pk}#{status}#{amount:hash 7}").unwrap(),
                ),
            };
            let mut shaped = Scratch {
                ttl: ttl.clone(),
                ..base()
            };
            let mut plain = Scratch {
                ttl,
                shapes: ShapesSlot::off(),
                ..base()
            };
            let templates: Vec<_> = (0..3).map(|_| gen_template(&mut rng)).collect();
            for _ in 0..300 {
                let item = match rng.below(10) {
                    0 => gen_item(&mut rng),
                    k => fill(&mut rng, &templates[k % templates.len()]),
                };
                let mut text = if record && round % 4 == 0 {
                    format!("{{\"Item\":{item}}}").into_bytes()
                } else if record {
                    format!("{{ \"Item\": {item}\n}}").into_bytes()
                } else {
                    item.into_bytes()
                };
                if rng.below(8) == 0 {
                    mutate(&mut rng, &mut text);
                }
                let read = |s: &mut Scratch| {
                    let done = if record {
                        scan_record(&text, "Item", &n, s)
                    } else {
                        scan_item(&text, &n, s)
                    };
                    outcome(s, done)
                };
                let (a, b) = (read(&mut shaped), read(&mut plain));
                assert_eq!(
                    a,
                    b,
                    "shapes and the fast path disagree on {}",
                    String::from_utf8_lossy(&text)
                );
                lines += 1;
                taken += u64::from(a != "not read");
            }
            hits += shaped.shapes.hits();
        }
        // Both ways must be exercised for the test to mean something.
        assert!(hits > lines / 3, "{hits} of {lines} lines read by a shape");
        assert!(taken < lines, "{taken} of {lines}");
        eprintln!("lines: {lines}, read whole: {taken}, by a shape: {hits}");
    }
}
