//! Plain JSON items (`{"pk":"a","n":12,…}`, no type tags, as the DocumentClient and most scripts write them)
//! on the fast path: the keys read where they lie, every other value sized as DynamoDB counts it
//! (`Cursor::plain_size`), the attributes a design needs extracted or its key built in place.

use super::super::item::{KeyNames, Scratch, Tag};
use super::Cursor;
use super::in_place::{Shape, direct_key, note_span, read_plain_value};
use crate::model::KeyType;
use crate::model::bytes::short_eq;

/// Tries the fast path on one plain JSON item (`{"pk":"a","n":12,…}`): key attributes that are strings without
/// escapes (S) or numbers (N); anything else sends the caller to the serde path ([`super::item::PlainItemSeed`]).
pub fn scan_plain_item(text: &[u8], names: &KeyNames, scratch: &mut Scratch) -> bool {
    scratch.size_estimate = None;
    let mut c = Cursor { s: text, i: 0 };
    let size = c.expect(b'{').and_then(|()| c.plain_item(names, scratch));
    c.skip_ws();
    scratch.item_bytes = size;
    let done = size.is_some() && c.i == text.len();
    scratch.direct_ok &= done;
    done
}

impl<'a> Cursor<'a> {
    /// The rest of a plain item (its `{` consumed): the key attributes into `scratch`, the others sized
    /// ([`Self::plain_size`]). The item's size as DynamoDB counts it.
    pub(super) fn plain_item(&mut self, names: &KeyNames, scratch: &mut Scratch) -> Option<u64> {
        scratch.clear();
        if scratch.wants_names() {
            return None;
        }
        let extracting = !scratch.extract.is_empty();
        // As in `item`: the key built from the values where they lie.
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
            size += name.len() as u64;
            let ttl = scratch.ttl.is_ttl(name);
            if short_eq(name, pk) {
                let (t, raw) = self.plain_key_value()?;
                size += super::super::size::key_size(t, raw)?;
                scratch.pk = Some(Tag::Key(t));
                scratch.pk_raw.clear();
                scratch.pk_raw.extend_from_slice(raw);
            } else if sk.is_some_and(|sk| short_eq(sk, name)) {
                let (t, raw) = self.plain_key_value()?;
                size += super::super::size::key_size(t, raw)?;
                scratch.sk = Some(Tag::Key(t));
                scratch.sk_raw.clear();
                scratch.sk_raw.extend_from_slice(raw);
            } else {
                self.skip_ws();
                let start = self.i;
                size += self.plain_size(2).ok()?;
                if ttl {
                    scratch.ttl.value = super::super::ttl::plain_ttl(self.s.get(start..self.i)?);
                }
            }
            if direct && let Some(from) = from {
                note_span(self.s, from, self.i, Shape::Plain, scratch)?;
            } else if let Some((slot, start)) = from {
                read_plain_value(self.s.get(start..self.i)?, slot, scratch)?;
            }
            match self.next_token()? {
                b',' => {}
                b'}' => {
                    if direct {
                        direct_key(self.s, Shape::Plain, scratch)?;
                    }
                    scratch.ttl.item_done();
                    return Some(size);
                }
                _ => return None,
            }
        }
    }

    /// A plain key value: a string without escapes (S) or a number (N, its text).
    fn plain_key_value(&mut self) -> Option<(KeyType, &'a [u8])> {
        match self.next_token()? {
            b'"' => Some((KeyType::S, self.plain_str()?)),
            first @ (b'-' | b'0'..=b'9') => {
                let start = self.i - 1;
                if first == b'-' {
                    let d = self.peek()?;
                    self.i += 1;
                    self.number_rest(d)?;
                } else {
                    self.number_rest(first)?;
                }
                Some((KeyType::N, self.s.get(start..self.i)?))
            }
            _ => None,
        }
    }
}
