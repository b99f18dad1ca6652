//! The fast path's half of a [`Dialect`]: how [`Cursor::item`] reads a key attribute's value, sizes and checks
//! any other, reads a TTL attribute's and an extracted one's, and how the key built in place ([`super::in_place`])
//! reads a value where it lies. Every method is a call the reader of one dialect made itself before it was
//! written once (the small ones inlined), so `Cursor::item::<Typed>` and `Cursor::item::<Plain>` compile as
//! those two readers did.

use super::super::dialect::{Dialect, Plain, Typed};
use super::super::extract::{plain_to_value, typed_value};
use super::super::item::Scratch;
use super::super::ttl::{plain_ttl, typed_ttl};
use super::Cursor;
use super::value::{Record, plain_scalar_value, scalar_value, simple_value};
use crate::model::KeyType;
use crate::model::health::ttl::TtlValue;
use crate::model::keyexpr::Scalar;

/// A [`Dialect`] as the fast path reads it.
pub(super) trait FastDialect: Dialect {
    /// A key attribute's value, the common way only (no escapes): its type and its text. Typed: exactly
    /// `{"S":"…"}`, `{"N":"…"}` or `{"B":"…"}`; plain: a string (S) or a number (N).
    fn key_value<'a>(c: &mut Cursor<'a>) -> Option<(KeyType, &'a [u8])>;

    /// Any other attribute's value (the white space before it skipped): its size as DynamoDB counts it,
    /// checked as serde would read it.
    fn value_size(c: &mut Cursor<'_>) -> Option<u64>;

    /// The TTL attribute's reading of its value's text.
    fn ttl(span: &[u8]) -> TtlValue;

    /// The extracted value `span` (checked by [`Self::key_value`] or [`Self::value_size`] already) into slot
    /// `slot` of `scratch.values`; `None` when it is not valid as serde would read it (the caller declines).
    fn read_value(span: &[u8], slot: usize, scratch: &mut Scratch) -> Option<()>;

    /// The value at `record[start..end]` read in place ([`scalar_value`], [`plain_scalar_value`]).
    fn scalar(record: Record<'_>, span: (usize, usize), index: Option<usize>)
    -> Option<Scalar<'_>>;
}

impl FastDialect for Typed {
    #[inline(always)]
    fn key_value<'a>(c: &mut Cursor<'a>) -> Option<(KeyType, &'a [u8])> {
        c.key_value()
    }

    #[inline(always)]
    fn value_size(c: &mut Cursor<'_>) -> Option<u64> {
        c.typed_size(3).ok()
    }

    #[inline(always)]
    fn ttl(span: &[u8]) -> TtlValue {
        typed_ttl(span)
    }

    fn read_value(span: &[u8], slot: usize, scratch: &mut Scratch) -> Option<()> {
        let out = scratch.values.get_mut(slot)?;
        match simple_value(span, &mut scratch.spare, slot, out) {
            Some(read) => read.then_some(()),
            None => {
                *out = Some(typed_value(span, scratch.extract.get(slot)?)?);
                Some(())
            }
        }
    }

    #[inline(always)]
    fn scalar(
        record: Record<'_>,
        (start, end): (usize, usize),
        index: Option<usize>,
    ) -> Option<Scalar<'_>> {
        scalar_value(record, start, end, index)
    }
}

impl FastDialect for Plain {
    #[inline(always)]
    fn key_value<'a>(c: &mut Cursor<'a>) -> Option<(KeyType, &'a [u8])> {
        c.plain_key_value()
    }

    #[inline(always)]
    fn value_size(c: &mut Cursor<'_>) -> Option<u64> {
        c.plain_size(2).ok()
    }

    #[inline(always)]
    fn ttl(span: &[u8]) -> TtlValue {
        plain_ttl(span)
    }

    /// As the document clients map it.
    fn read_value(span: &[u8], slot: usize, scratch: &mut Scratch) -> Option<()> {
        let text = std::str::from_utf8(span).ok()?;
        let value = plain_to_value(text, scratch.extract.get(slot)?).ok()?;
        *scratch.values.get_mut(slot)? = Some(value);
        Some(())
    }

    #[inline(always)]
    fn scalar(
        record: Record<'_>,
        (start, end): (usize, usize),
        index: Option<usize>,
    ) -> Option<Scalar<'_>> {
        plain_scalar_value(record, start, end, index)
    }
}
