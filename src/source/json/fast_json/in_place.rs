//! The key built in place: where an item's extracted values lie in its record ([`note_span`]), the key
//! expression evaluated on them there ([`direct_key`], through [`crate::model::keyexpr::Direct`]), and reading
//! the values into [`Scratch::values`] where it gives up, as the fast path reads them otherwise
//! ([`FastDialect::read_value`]). For typed DynamoDB JSON items and plain JSON ones alike ([`FastDialect`]).

use super::super::item::Scratch;
use super::dialect::FastDialect;
use super::value::Record;

/// Notes where the value of slot `slot` lies in `record` (`start..end`) for the key built in place. A repeated
/// attribute's last value is the value, but the earlier one must read as the values path reads it (or the item
/// goes to serde, as there): it is read now.
pub(super) fn note_span<D: FastDialect>(
    record: &[u8],
    (slot, start): (usize, usize),
    end: usize,
    scratch: &mut Scratch,
) -> Option<()> {
    if let Some((a, b)) = scratch.spans.get_mut(slot)?.replace((start, end)) {
        D::read_value(record.get(a..b)?, slot, scratch)?;
    }
    Some(())
}

/// The item's key by [`Scratch::direct`] from the values at [`Scratch::spans`] of `record`, into
/// [`Scratch::direct_key`] (`direct_ok`); where it gives up, every value is read into `values` instead, as
/// without it. `None` when a value is not valid as serde would read it (the caller declines).
pub(super) fn direct_key<D: FastDialect>(record: &[u8], scratch: &mut Scratch) -> Option<()> {
    let Scratch {
        direct: Some(direct),
        spans,
        direct_key,
        ..
    } = scratch
    else {
        return None;
    };
    let spans = &*spans;
    let whole = Record::new(record);
    let read = |slot: usize, index| {
        let span = (*spans.get(slot)?)?;
        D::scalar(whole, span, index)
    };
    if direct.eval_into(read, direct_key) {
        scratch.direct_ok = true;
        return Some(());
    }
    for slot in 0..scratch.spans.len() {
        if let Some((start, end)) = scratch.spans[slot] {
            D::read_value(record.get(start..end)?, slot, scratch)?;
        }
    }
    Some(())
}
