//! Plain JSON items (`{"pk":"a","n":12,…}`, no type tags, as the DocumentClient and most scripts write them)
//! on the fast path: the keys read where they lie, every other value sized as DynamoDB counts it
//! (`Cursor::plain_size`), the attributes a design needs extracted or its key built in place.

use super::super::dialect::Plain;
use super::super::item::{KeyNames, Scratch};
use super::Cursor;
use crate::model::KeyType;

/// Tries the fast path on one plain JSON item (`{"pk":"a","n":12,…}`): key attributes that are strings without
/// escapes (S) or numbers (N); anything else sends the caller to the serde path ([`super::super::item::ItemSeed`]
/// of [`Plain`]).
pub fn scan_plain_item(text: &[u8], names: &KeyNames, scratch: &mut Scratch) -> bool {
    scratch.size_estimate = None;
    let mut c = Cursor { s: text, i: 0 };
    let size = c
        .expect(b'{')
        .and_then(|()| c.item::<Plain>(names, scratch));
    c.skip_ws();
    scratch.item_bytes = size;
    let done = size.is_some() && c.i == text.len();
    scratch.direct_ok &= done;
    done
}

impl<'a> Cursor<'a> {
    /// A plain key value: a string without escapes (S) or a number (N, its text).
    pub(super) fn plain_key_value(&mut self) -> Option<(KeyType, &'a [u8])> {
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
