//! The fast path's half of a [`Dialect`]: how [`Cursor::item`] reads a key attribute's value, sizes and checks
//! any other, reads a TTL attribute's and an extracted one's, and how the key built in place ([`super::in_place`])
//! reads a value where it lies. Every method is a call the reader of one dialect made itself before it was
//! written once; they are inlined, so `Cursor::item::<Typed>` and `Cursor::item::<Plain>` compile as those two
//! readers did.

use super::super::dialect::{Dialect, Plain, Typed};
use super::super::item::Scratch;
use super::super::ttl::{plain_ttl, typed_ttl};
use super::Cursor;
use super::in_place::{read_plain_value, read_value};
use super::value::{Record, plain_scalar_value, scalar_value};
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

    /// The extracted value `span` into slot `slot` of `scratch.values` ([`read_value`], [`read_plain_value`]).
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

    #[inline(always)]
    fn read_value(span: &[u8], slot: usize, scratch: &mut Scratch) -> Option<()> {
        read_value(span, slot, scratch)
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

    #[inline(always)]
    fn read_value(span: &[u8], slot: usize, scratch: &mut Scratch) -> Option<()> {
        read_plain_value(span, slot, scratch)
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
