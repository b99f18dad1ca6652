//! Items keyed by a key expression, added to the key set a few items late ([`Sink::add_scratch_deferred`]).

use super::Sink;
use crate::model::KeyType;
use crate::model::design::Prepared;
use crate::model::keyset::Lookahead;

/// Items waiting to go into the key set, oldest first, with what each will read asked for from memory in
/// stages while the items after it are read.
///
/// A key expression's key is only known once the item is read, so it cannot be looked for ahead the way a
/// partition key is ([`crate::source::key_ahead::KeyAhead`]). Each item is added [`STAGED_DEPTH`] items late: its
/// index slot and distinct-item slot are asked for as it is staged, its end offset and count two items later,
/// its bytes, item sizes and sort-key facts four items later ([`Lookahead`]). Measured with `shardlens
/// analyze --key-expr` on `shardlens-bench extract`'s file (2,000,000 export lines): with one item of delay and
/// only the slots asked for, a key seen before still missed on its entry, its bytes and its facts one after
/// the other: `{pk}` (the plain load's own 200,000 keys, ten items each) took 1.29 s against the plain load's
/// 0.92 s. Staged five deep: `{pk}` 1.29 -> 1.07 s, `{pk}#{status}` 1.71 -> 1.39 s, `{pk}#{status}#{tags.0}`
/// (1.9 million keys, most of them new, whose lookups no stage can help) 1.45 -> 1.44 s, the plain load
/// unchanged (wall, medians of 5 interleaved runs; outputs identical). Before any delay, the index slot's miss
/// had been 11 % of `{pk}#{status}#{tags.0}`'s load (`perf annotate`, one load).
#[derive(Debug, Default)]
pub(super) struct StagedRing {
    items: [Staged; STAGED_DEPTH],
    /// The oldest item's place in `items`.
    head: usize,
    len: usize,
    ahead: Lookahead,
}

/// How many items late a staged item goes into the key set: one more than the stage at which
/// [`Lookahead`] asks for its bytes and facts.
const STAGED_DEPTH: usize = 5;

/// An item waiting to go into the key set: its key, sort key and what the designer prepared for it.
#[derive(Debug, Default)]
struct Staged {
    pk: Vec<u8>,
    hash: u64,
    sk: Vec<u8>,
    sk_type: Option<KeyType>,
    count: u64,
    prepared: Option<Prepared>,
    item_bytes: Option<u64>,
}

impl Sink {
    /// Adds the items staged by [`Self::add_scratch_deferred`], in order.
    pub fn settle(&mut self) {
        while self.settle_one() {}
    }

    /// Adds the oldest staged item, if any; whether there was one.
    fn settle_one(&mut self) -> bool {
        let ring = &mut self.staged;
        if ring.len == 0 {
            return false;
        }
        let st = &mut ring.items[ring.head];
        ring.head = (ring.head + 1) % STAGED_DEPTH;
        ring.len -= 1;
        let sk = st.sk_type.map(|t| (&st.sk[..], t));
        let idx = self.keys.add_item_hashed(&st.pk, st.hash, sk, st.count);
        if let (Some(d), Some(p)) = (&mut self.designer, st.prepared.take()) {
            d.commit(p, idx);
        }
        if let Some(bytes) = st.item_bytes {
            self.keys.note_item_bytes(idx, bytes, st.count);
        }
        true
    }

    /// Stages the item whose key is in `pk_buf` (and sort key of type `sk` in `sk_buf`): it goes into the key
    /// set [`STAGED_DEPTH`] items from now, or at [`Self::settle`].
    pub(super) fn stage(
        &mut self,
        sk: Option<KeyType>,
        count: u64,
        prepared: Option<Prepared>,
        item_bytes: Option<u64>,
    ) {
        let hash = crate::model::key_hash(&self.pk_buf);
        // The index slot now (and the earlier items' later stages), the distinct-item slot now.
        self.staged.ahead.ahead(&self.keys, hash);
        if sk.is_some() {
            self.keys.prefetch_seen(hash, &self.sk_buf);
        }
        if self.staged.len == STAGED_DEPTH {
            self.settle_one();
        }
        let ring = &mut self.staged;
        let st = &mut ring.items[(ring.head + ring.len) % STAGED_DEPTH];
        ring.len += 1;
        std::mem::swap(&mut self.pk_buf, &mut st.pk);
        std::mem::swap(&mut self.sk_buf, &mut st.sk);
        st.hash = hash;
        st.sk_type = sk;
        st.count = count;
        st.prepared = prepared;
        st.item_bytes = item_bytes;
    }
}
