//! Items' sizes as DynamoDB counts them ([`crate::model::item_size`]), measured on the JSON text in the same
//! pass that reads the keys: the fast path ([`super::fast_json`]) walks each attribute it does not keep with
//! [`Cursor::typed_size`] (or [`Cursor::plain_size`]) instead of skipping it, which checks the JSON as strictly
//! as the skip did and also checks each value against its type tag. Strings count their decoded bytes
//! (`\u00e9` is 2 bytes, a surrogate pair 4), numbers their significant digits, binary its decoded bytes.
//!
//! When the fast path declines a record (an escape in a name, a key of another type, the first item of a
//! design…), serde reads its keys and [`typed_item_size`], [`plain_item_size`] or [`record_size`] walk its
//! text once more for the size: a second pass on those records only, which gives the message that names the
//! attribute whose value is not what its tag says.
//!
//! Over 600 lines: one `Cursor` walks an item's JSON text in both dialects, a method per kind of value (strings and their escapes, numbers, sets, lists, maps): its `impl` is one walker.

use super::fast_json::{Cursor, MAX_DEPTH};
use crate::model::KeyType;
use crate::model::item_size::{
    CONTAINER_BYTES, ELEMENT_BYTES, FLAG_BYTES, base64_size, checked_number_size, number_size,
};

/// Why a value could not be sized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeErr {
    /// Not JSON this walker takes (invalid, or nested too deep): the caller's JSON reader says why.
    Json,
    /// Valid JSON whose value is not what its type tag says: where (attribute names and list indexes, outermost
    /// first) and what. Boxed: the error is rare, and a small `Result` keeps the walk fast (measured: the
    /// unboxed 48-byte error's drop glue took 3.7 % of a load).
    Bad(Box<(Vec<String>, String)>),
}

impl SizeErr {
    #[cold]
    fn bad(what: impl Into<String>) -> Self {
        Self::Bad(Box::new((Vec::new(), what.into())))
    }

    /// The same error one level further out, inside `name`.
    #[cold]
    fn inside(self, name: impl FnOnce() -> String) -> Self {
        match self {
            Self::Bad(mut b) => {
                b.0.insert(0, name());
                Self::Bad(b)
            }
            json => json,
        }
    }

    /// The message: `attribute "a.b[2]": "abc" is not a number (N)`.
    pub fn message(&self) -> String {
        match self {
            Self::Json => "invalid JSON".to_owned(),
            Self::Bad(b) => {
                let (path, what) = &**b;
                let mut at = String::new();
                for p in path {
                    if p.starts_with('[') || at.is_empty() {
                        at.push_str(p);
                    } else {
                        at.push('.');
                        at.push_str(p);
                    }
                }
                format!("attribute {at:?}: {what}")
            }
        }
    }
}

type Sized = Result<u64, SizeErr>;

fn json<T>(v: Option<T>) -> Result<T, SizeErr> {
    v.ok_or(SizeErr::Json)
}

/// An item's size as the second walk measured it. When an attribute that is not a key could not be read as
/// the typed value it should be (`{"M": {"M": {"HP": {"N": "50"}}}}`: a map whose member is not a typed
/// value), the item is kept and its size is an **estimate**: `estimate` says what was wrong with the first such
/// attribute (`attribute "a.M": "HP" is not a DynamoDB type …`), and `bytes` counts it by
/// [`estimated_value_size`]. A key attribute so written stays an error: the item cannot be placed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemSize {
    pub bytes: u64,
    pub estimate: Option<String>,
}

impl ItemSize {
    /// A size measured exactly.
    pub fn exact(bytes: u64) -> Self {
        Self {
            bytes,
            estimate: None,
        }
    }
}

/// The size of the typed item that is the whole of `text` (`{"pk":{"S":"a"},…}`); a malformed attribute
/// named in `keys` is an error, any other makes the size an estimate ([`ItemSize`]).
pub fn typed_item_size(text: &[u8], keys: &[&str]) -> Result<ItemSize, String> {
    let mut estimate = None;
    let bytes = whole_item(text, |c| c.item_members(1, keys, &mut estimate))?;
    Ok(ItemSize { bytes, estimate })
}

/// The size of the plain item that is the whole of `text` (`{"pk":"a","n":1}`, as the document clients store
/// it: a string is S, a number N, a boolean BOOL, null NULL, an array L, an object M).
pub fn plain_item_size(text: &[u8]) -> Result<u64, String> {
    whole_item(text, |c| c.plain_members(1, true))
}

/// `members` over the object that is the whole of `text`.
fn whole_item(text: &[u8], members: impl FnOnce(&mut Cursor<'_>) -> Sized) -> Result<u64, String> {
    let mut c = Cursor { s: text, i: 0 };
    let size = json(c.expect(b'{'))
        .and_then(|()| members(&mut c))
        .map_err(|e| e.message())?;
    c.skip_ws();
    if c.i == text.len() {
        Ok(size)
    } else {
        Err(SizeErr::Json.message())
    }
}

/// The size of the typed item under `field` of the object that is `line` (`{"Item":{…}}`, an incremental
/// line's `"NewImage"`); `None` when the line has no such field (or it is `null`). Malformed attributes as
/// [`typed_item_size`].
pub fn record_size(line: &[u8], field: &str, keys: &[&str]) -> Result<Option<ItemSize>, String> {
    let mut c = Cursor { s: line, i: 0 };
    let mut estimate = None;
    let bytes = c
        .record_field_size(field, keys, &mut estimate)
        .map_err(|e| e.message())?;
    Ok(bytes.map(|bytes| ItemSize { bytes, estimate }))
}

/// A key value's size from its text (no escapes, as the fast path's key readers
/// take it): a string's bytes, a number's digits, binary's decoded bytes. `None` when the text is not of its
/// type (the serde path then gives the message).
pub(super) fn key_size(t: KeyType, raw: &[u8]) -> Option<u64> {
    match t {
        KeyType::S => Some(raw.len() as u64),
        KeyType::N => checked_number_size(raw),
        KeyType::B => base64_size(raw),
    }
}

impl<'a> Cursor<'a> {
    /// See [`record_size`].
    fn record_field_size(
        &mut self,
        field: &str,
        keys: &[&str],
        estimate: &mut Option<String>,
    ) -> Result<Option<u64>, SizeErr> {
        json(self.expect(b'{'))?;
        let mut size = None;
        if self.close(b'}') {
            return Ok(None);
        }
        loop {
            json(self.expect(b'"'))?;
            let name = self.str_text()?;
            json(self.expect(b':'))?;
            self.skip_ws();
            if size.is_none() && name == field.as_bytes() && self.peek() == Some(b'{') {
                self.i += 1;
                size = Some(self.item_members(2, keys, estimate)?);
            } else {
                json(self.skip_value(2))?;
            }
            match json(self.next_token())? {
                b',' => {}
                b'}' => return Ok(size),
                _ => return Err(SizeErr::Json),
            }
        }
    }

    /// The attributes of an item after its `{` at `depth` (as [`Self::typed_members`] at the top): a value that is
    /// not the typed value it should be is an error when its attribute is one of `keys`, else its size is
    /// estimated ([`estimated_value_size`]) and the first such error noted in `estimate`.
    fn item_members(&mut self, depth: u32, keys: &[&str], estimate: &mut Option<String>) -> Sized {
        let mut size = 0;
        if self.close(b'}') {
            return Ok(size);
        }
        loop {
            json(self.expect(b'"'))?;
            let (name, raw) = json(self.str_size_and_raw())?;
            json(self.expect(b':'))?;
            let at = self.i;
            let value = match self.typed_size(depth + 1) {
                Ok(v) => v,
                Err(e @ SizeErr::Bad(_)) if !keys.iter().any(|k| k.as_bytes() == raw) => {
                    self.i = at;
                    self.skip_ws();
                    let from = self.i;
                    json(self.skip_value(depth + 1))?;
                    let text = json(self.s.get(from..self.i))?;
                    let v: serde_json::Value =
                        serde_json::from_slice(text).map_err(|_| SizeErr::Json)?;
                    // A value Go wrote with every type tag, all null but one, is exact ([`typed_entry`]).
                    if let Ok(size) = value_size(&v) {
                        size
                    } else {
                        if estimate.is_none() {
                            let e = e.inside(|| String::from_utf8_lossy(raw).into_owned());
                            *estimate = Some(e.message());
                        }
                        estimated_value_size(&v)
                    }
                }
                Err(e) => return Err(e.inside(|| String::from_utf8_lossy(raw).into_owned())),
            };
            size += name + value;
            match json(self.next_token())? {
                b',' => {}
                b'}' => return Ok(size),
                _ => return Err(SizeErr::Json),
            }
        }
    }

    /// A name's text (the opening quote consumed): its bytes when it has no escapes, else `Json` (only the
    /// record wrapper's field names come here).
    fn str_text(&mut self) -> Result<&'a [u8], SizeErr> {
        json(self.plain_str())
    }

    /// The rest of a string (its opening quote consumed), checked as [`Cursor::skip_str`] checks it: the bytes
    /// of its decoded text.
    pub(super) fn str_size(&mut self) -> Option<u64> {
        let mut size = 0u64;
        loop {
            let rest = self.s.get(self.i..)?;
            let n = super::fast_json::find_special(rest);
            size += n as u64;
            match rest.get(n)? {
                b'"' => {
                    self.i += n + 1;
                    return Some(size);
                }
                b'\\' => {
                    let (len, bytes) = escape(rest.get(n..)?)?;
                    size += bytes;
                    self.i += n + len;
                }
                _ => return None,
            }
        }
    }

    /// The members of an object after its `{`: each name's bytes plus its typed value's size, plus, inside a
    /// map (`top` false), one byte per member. `depth` is the object's own depth.
    pub(super) fn typed_members(&mut self, depth: u32, top: bool) -> Sized {
        let mut size = 0;
        if self.close(b'}') {
            return Ok(size);
        }
        loop {
            json(self.expect(b'"'))?;
            let (name, raw) = json(self.str_size_and_raw())?;
            json(self.expect(b':'))?;
            let value = self
                .typed_size(depth + 1)
                .map_err(|e| e.inside(|| String::from_utf8_lossy(raw).into_owned()))?;
            size += name + value + if top { 0 } else { ELEMENT_BYTES };
            match json(self.next_token())? {
                b',' => {}
                b'}' => return Ok(size),
                _ => return Err(SizeErr::Json),
            }
        }
    }

    /// A name: its decoded bytes and its raw text (escapes as written), with no allocation: messages build
    /// text from it only when there is an error.
    fn str_size_and_raw(&mut self) -> Option<(u64, &'a [u8])> {
        let start = self.i;
        let size = self.str_size()?;
        let raw = self.s.get(start..self.i - 1)?;
        Some((size, raw))
    }

    /// A type tag (its opening quote consumed): the common one-letter tags read directly (measured: scanning
    /// each 1-byte tag for its closing quote like any string cost about 3 % of an export's load), any other
    /// as a string.
    #[inline]
    fn tag(&mut self) -> Option<&'a [u8]> {
        let first = *self.s.get(self.i)?;
        if self.s.get(self.i + 1) == Some(&b'"') && !matches!(first, b'\\' | b'"') && first >= 0x20
        {
            let tag = self.s.get(self.i..=self.i)?;
            self.i += 2;
            return Some(tag);
        }
        Some(self.str_size_and_raw()?.1)
    }

    /// One typed value (`{"S":"…"}`, `{"L":[…]}`, …) at `depth`: its size.
    pub(super) fn typed_size(&mut self, depth: u32) -> Sized {
        if depth > MAX_DEPTH {
            return Err(SizeErr::Json);
        }
        if let Some(size) = self.compact_scalar().or_else(|| self.compact_set()) {
            return Ok(size);
        }
        self.skip_ws();
        if self.peek() != Some(b'{') {
            json(self.skip_value(depth))?;
            return Err(SizeErr::bad(
                "not a typed value; expected an object like {\"S\": \"…\"}",
            ));
        }
        self.i += 1;
        if self.close(b'}') {
            return Err(SizeErr::bad("an empty object, not a typed value"));
        }
        json(self.expect(b'"'))?;
        let tag = json(self.tag())?;
        json(self.expect(b':'))?;
        let size = self.tagged(tag, depth)?;
        match json(self.next_token())? {
            b'}' => Ok(size),
            b',' => Err(SizeErr::bad(format!(
                "more than one type tag ({} and another)",
                String::from_utf8_lossy(tag)
            ))),
            _ => Err(SizeErr::Json),
        }
    }

    /// A string or number written as exports write them, `{"S":"…"}` or `{"N":"…"}` without white space, read
    /// without the token-by-token walk of [`Self::typed_size`]: its size, or `None` with the cursor where it
    /// was (anything else, or anything wrong, goes the general way, which gives the same size or the message).
    /// Measured on `benches/export_load.sh`'s files unzipped (2,000,000 items of six attributes, both cores),
    /// with the same shortcut in `Cursor::key_value`: user time 0.95 s -> 0.88 s, wall 0.63 s -> 0.60 s
    /// (medians of 7 interleaved runs).
    #[inline]
    fn compact_scalar(&mut self) -> Option<u64> {
        let start = self.i;
        let tag = self.compact_head(b"\":\"")?;
        let size = self.compact_scalar_rest(tag);
        if size.is_none() {
            self.i = start;
        }
        size
    }

    /// The rest of a scalar after its head `{"` + `tag` + `":"` (as [`Self::compact_scalar`] takes it, or with
    /// white space between its tokens, as the shapes take it): its text, its closing quote, any white space and
    /// the closing `}`. Its size, or `None` (the cursor then somewhere inside).
    #[inline(always)]
    pub(super) fn compact_scalar_rest(&mut self, tag: u8) -> Option<u64> {
        let size = match tag {
            b'S' => self.str_size(),
            b'N' => self.plain_str().and_then(checked_number_size),
            _ => None,
        }?;
        if self.peek() != Some(b'}') {
            self.skip_ws();
            if self.peek() != Some(b'}') {
                return None;
            }
        }
        self.i += 1;
        Some(size)
    }

    /// The one-letter type tag of a typed value written without white space, `{"` + tag + `rest`, and the
    /// cursor moved past it; `None` (the cursor unmoved) for anything else.
    #[inline]
    fn compact_head(&mut self, rest: &[u8]) -> Option<u8> {
        let head = self.s.get(self.i..self.i + 3 + rest.len())?;
        if head[..2] != *b"{\"" || head[3..] != *rest {
            return None;
        }
        self.i += head.len();
        Some(head[2])
    }

    /// A string or number set written as exports write it, `{"SS":["…","…"]}` or `{"NS":["…"]}` without white
    /// space, read as [`Self::compact_scalar`] reads a scalar: its size, or `None` with the cursor where it was
    /// (anything else goes the general way, which gives the same size or the message). Measured with
    /// `valgrind --tool=callgrind` on one file of `benches/export_load.sh` (a two-member `SS` in each item): the
    /// general walk took about 320 instructions a set.
    #[inline]
    fn compact_set(&mut self) -> Option<u64> {
        let start = self.i;
        let numbers = match self.compact_head(b"S\":[\"")? {
            b'S' => false,
            b'N' => true,
            _ => {
                self.i = start;
                return None;
            }
        };
        let size = self.compact_set_rest(numbers);
        if size.is_none() {
            self.i = start;
        }
        size
    }

    /// The rest of a set after its head `{"SS":["` or `{"NS":["` (`numbers`), as [`Self::compact_set`] takes it
    /// or with white space between its tokens, as the shapes take it: its members and the closing `"]}`. Its
    /// size, or `None` (the cursor then somewhere inside).
    #[inline(always)]
    pub(super) fn compact_set_rest(&mut self, numbers: bool) -> Option<u64> {
        let mut size = 0;
        loop {
            let member = if numbers {
                self.plain_str().and_then(checked_number_size)
            } else {
                self.str_size()
            };
            size += member?;
            match self.s.get(self.i..self.i + 2) {
                Some([b',', b'"']) => self.i += 2,
                Some([b']', b'}']) => {
                    self.i += 2;
                    return Some(size);
                }
                _ => match self.next_token()? {
                    b',' => self.expect(b'"')?,
                    b']' => return self.expect(b'}').map(|()| size),
                    _ => return None,
                },
            }
        }
    }

    /// The value of type tag `tag` (its raw bytes), after its `:`.
    fn tagged(&mut self, tag: &[u8], depth: u32) -> Sized {
        match tag {
            b"S" => self.string_member("S"),
            b"N" => self.scalar("N", checked_number_size, "not a number"),
            b"B" => self.scalar("B", base64_size, "not base64"),
            b"BOOL" => match json(self.next_token())? {
                b't' => json(self.literal(b"rue")).map(|()| FLAG_BYTES),
                b'f' => json(self.literal(b"alse")).map(|()| FLAG_BYTES),
                _ => Err(SizeErr::bad("BOOL is not true or false")),
            },
            b"NULL" => match json(self.next_token())? {
                b't' => json(self.literal(b"rue")).map(|()| FLAG_BYTES),
                b'f' => json(self.literal(b"alse")).map(|()| FLAG_BYTES),
                _ => Err(SizeErr::bad("NULL is not true")),
            },
            b"SS" => self.set("SS"),
            b"NS" => self.set("NS"),
            b"BS" => self.set("BS"),
            b"L" => {
                if json(self.next_token())? != b'[' {
                    return Err(SizeErr::bad("L is not a list"));
                }
                if depth + 1 > MAX_DEPTH {
                    return Err(SizeErr::Json);
                }
                let mut size = CONTAINER_BYTES;
                let mut n = 0usize;
                if self.close(b']') {
                    return Ok(size);
                }
                loop {
                    let v = self
                        .typed_size(depth + 2)
                        .map_err(|e| e.inside(|| format!("[{n}]")))?;
                    size += ELEMENT_BYTES + v;
                    n += 1;
                    match json(self.next_token())? {
                        b',' => {}
                        b']' => return Ok(size),
                        _ => return Err(SizeErr::Json),
                    }
                }
            }
            b"M" => {
                if json(self.next_token())? != b'{' {
                    return Err(SizeErr::bad("M is not a map"));
                }
                if depth + 1 > MAX_DEPTH {
                    return Err(SizeErr::Json);
                }
                Ok(CONTAINER_BYTES + self.typed_members(depth + 1, false)?)
            }
            other => Err(SizeErr::bad(format!(
                "{:?} is not a DynamoDB type (S, N, B, BOOL, NULL, SS, NS, BS, L or M)",
                String::from_utf8_lossy(other)
            ))),
        }
    }

    /// A string member: its decoded bytes; anything but a string is an error naming `tag`.
    fn string_member(&mut self, tag: &str) -> Sized {
        if json(self.next_token())? != b'"' {
            return Err(SizeErr::bad(format!("{tag} is not a string")));
        }
        json(self.str_size())
    }

    /// A number or binary member: its text (without escapes) checked and sized by `size`.
    #[inline]
    fn scalar(&mut self, tag: &str, size: impl Fn(&[u8]) -> Option<u64>, not: &str) -> Sized {
        if json(self.next_token())? != b'"' {
            return Err(SizeErr::bad(format!("{tag} is not a string")));
        }
        let start = self.i;
        let Some(raw) = self.plain_str() else {
            self.i = start;
            json(self.skip_str())?;
            return Err(SizeErr::bad(format!(
                "{tag} is written with escapes, which shardlens does not read"
            )));
        };
        size(raw).ok_or_else(|| {
            SizeErr::bad(format!(
                "{:?} is {not} ({tag})",
                String::from_utf8_lossy(raw)
            ))
        })
    }

    /// A set's members: the sum of their sizes.
    fn set(&mut self, tag: &str) -> Sized {
        if json(self.next_token())? != b'[' {
            return Err(SizeErr::bad(format!("{tag} is not a list of members")));
        }
        let member = &tag[..1];
        let mut size = 0;
        if self.close(b']') {
            return Ok(size);
        }
        loop {
            size += match member {
                "S" => self.string_member(tag)?,
                "N" => self.scalar(tag, checked_number_size, "not a number")?,
                _ => self.scalar(tag, base64_size, "not base64")?,
            };
            match json(self.next_token())? {
                b',' => {}
                b']' => return Ok(size),
                _ => return Err(SizeErr::Json),
            }
        }
    }

    /// The members of a plain object after its `{` (as [`Self::typed_members`]).
    pub(super) fn plain_members(&mut self, depth: u32, top: bool) -> Sized {
        let mut size = 0;
        if self.close(b'}') {
            return Ok(size);
        }
        loop {
            json(self.expect(b'"'))?;
            let name = json(self.str_size())?;
            json(self.expect(b':'))?;
            size += name + self.plain_size(depth + 1)? + if top { 0 } else { ELEMENT_BYTES };
            match json(self.next_token())? {
                b',' => {}
                b'}' => return Ok(size),
                _ => return Err(SizeErr::Json),
            }
        }
    }

    /// One plain JSON value at `depth`, sized as the document clients would store it.
    pub(super) fn plain_size(&mut self, depth: u32) -> Sized {
        if depth > MAX_DEPTH {
            return Err(SizeErr::Json);
        }
        match json(self.next_token())? {
            b'"' => json(self.str_size()),
            b'{' => Ok(CONTAINER_BYTES + self.plain_members(depth, false)?),
            b'[' => {
                let mut size = CONTAINER_BYTES;
                if self.close(b']') {
                    return Ok(size);
                }
                loop {
                    size += ELEMENT_BYTES + self.plain_size(depth + 1)?;
                    match json(self.next_token())? {
                        b',' => {}
                        b']' => return Ok(size),
                        _ => return Err(SizeErr::Json),
                    }
                }
            }
            b't' => json(self.literal(b"rue")).map(|()| FLAG_BYTES),
            b'f' => json(self.literal(b"alse")).map(|()| FLAG_BYTES),
            b'n' => json(self.literal(b"ull")).map(|()| FLAG_BYTES),
            first @ (b'-' | b'0'..=b'9') => {
                let start = self.i - 1;
                if first == b'-' {
                    let d = json(self.peek())?;
                    self.i += 1;
                    json(self.number_rest(d))?;
                } else {
                    json(self.number_rest(first))?;
                }
                let text = std::str::from_utf8(json(self.s.get(start..self.i))?)
                    .map_err(|_| SizeErr::Json)?;
                Ok(number_size(text))
            }
            _ => Err(SizeErr::Json),
        }
    }
}

/// One escape at the start of `esc` (`\n`, `\u00e9`, a `\ud83d\ude00` pair): the bytes it takes in the text
/// and the UTF-8 bytes it decodes to; `None` when it is not a valid JSON escape.
fn escape(esc: &[u8]) -> Option<(usize, u64)> {
    match esc.get(1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some((2, 1)),
        b'u' => {
            let cp = hex4(esc.get(2..6)?)?;
            if (0xD800..0xDC00).contains(&cp)
                && esc.get(6..8) == Some(b"\\u")
                && esc
                    .get(8..12)
                    .and_then(hex4)
                    .is_some_and(|lo| (0xDC00..0xE000).contains(&lo))
            {
                return Some((12, 4));
            }
            // A lone surrogate decodes to U+FFFD (3 bytes) where it is taken at all.
            let bytes = match cp {
                0..0x80 => 1,
                0x80..0x800 => 2,
                _ => 3,
            };
            Some((6, bytes))
        }
        _ => None,
    }
}

fn hex4(h: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(h).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

mod value;
pub use value::{estimated_value_size, typed_entry, value_size};

#[cfg(test)]
mod tests;
