//! A set of distinct partition keys with their write counts, compact in memory.
//!
//! Each key is held in a 24-byte entry beside its count, a key of up to 12 bytes in the entry itself and a
//! longer one back to back with the others in one byte arena ([`Entry`]); an open-addressing index of
//! 8-byte slots (the upper half of the key's xxh3 beside its position) finds a key again with one probe
//! into one array, so a lookup touches the slot and the entry (and a long key's bytes) — and nothing else.
//! Per key we keep its entry and hash: 32 bytes, plus a long key's bytes, against ~80 for a
//! `HashMap<String, u64>`. Insertion order is kept, so the first key typed is key 0. The cached hash makes
//! re-bucketing a pass over a `Vec<u64>`, never a re-hash.
//!
//! By concept: this file holds the keys and counts; `index` the hash tables, `merge` merging one set into
//! another (loader threads' sets, in input order; in parts that the loaders' `sink::merge` may run on two
//! threads), `sort_keys` the per-key sort-key facts and kept item
//! collections, `sizes` the item sizes.

use std::borrow::Cow;

use super::key::{KeyType, display_key};
use super::partition::key_hash;

mod index;
mod merge;
mod prefetch;
mod sizes;
mod sort_keys;

use index::Index;
pub use merge::{AddedKeys, FoundCounts, MergeApart, NEW_KEY, NewKeys};
pub(crate) use prefetch::prefetch;
pub use prefetch::{Lookahead, Pipeline};
use sizes::ItemSizes;
pub use sizes::{KeyBytes, Largest, SizeGroup, SizeProfile};
use sort_keys::SortKeys;
pub use sort_keys::{MAX_KEPT_SORT_KEY_BYTES, SortKeyFacts};

#[derive(Debug, Clone)]
pub struct KeySet {
    key_type: KeyType,
    /// The keys longer than [`INLINE`] bytes, back to back (shorter ones are held in their entries).
    arena: Vec<u8>,
    /// Each key's bytes (or where they are in `arena`) and its count: a lookup of a key of up to [`INLINE`]
    /// bytes reads its slot and its entry, one cache line (see [`Entry`]).
    entries: Vec<Entry>,
    /// The bytes of all keys together.
    key_bytes: u64,
    hashes: Vec<u64>,
    index: Index,
    total: u64,
    sort_keys: Option<SortKeys>,
    /// Every item added is a distinct item (a full export lists each item once): items per key are counted
    /// without looking for repeats.
    items_distinct: bool,
    /// Budget for the sort keys kept (see [`Self::with_kept_budget`]).
    kept_budget: usize,
    sizes: Option<ItemSizes>,
    /// The input's order is the order of writes (pasted lines), so "only increasing" can be read from it.
    write_ordered: bool,
    /// Whether each key's last sort key is kept to tell "only increasing" (see [`Self::set_read_order`]).
    track_order: bool,
}

impl Default for KeySet {
    fn default() -> Self {
        Self::new(KeyType::S)
    }
}

impl KeySet {
    pub fn new(key_type: KeyType) -> Self {
        Self {
            key_type,
            arena: Vec::new(),
            entries: Vec::new(),
            key_bytes: 0,
            hashes: Vec::new(),
            index: Index::default(),
            total: 0,
            sort_keys: None,
            items_distinct: false,
            kept_budget: MAX_KEPT_SORT_KEY_BYTES,
            sizes: None,
            write_ordered: false,
            track_order: true,
        }
    }

    /// Promises (or stops promising) that every item added from now on is a new item, as in a full export,
    /// where each item appears once: counting a key's items then skips the check for repeats.
    pub fn set_items_distinct(&mut self, distinct: bool) {
        self.items_distinct = distinct;
    }

    /// Whether every item added is taken as distinct ([`Self::set_items_distinct`]).
    pub fn items_distinct(&self) -> bool {
        self.items_distinct
    }

    /// Declares that items were added in the order they were written (pasted lines, a log of writes), so a
    /// key's sort keys that only increase in input order were written in increasing order. Every other input
    /// (scans, exports, models, JSON arrays) is in read order, where collections come back sorted.
    pub fn set_write_ordered(&mut self, write_ordered: bool) {
        self.write_ordered = write_ordered;
    }

    /// Whether the input's order is the order of writes (see [`Self::set_write_ordered`]).
    pub fn write_ordered(&self) -> bool {
        self.write_ordered && self.track_order
    }

    /// Declares, before any item is added, that items come in read order (an export, a scan, a JSON
    /// document), never in the order they were written: whether a key's sort keys only increase is then not
    /// tracked, and each key's last sort key, kept only for that, is not kept. Measured on
    /// `shardlens analyze --key-expr '{pk}#{status}#{tags.0}'` over `shardlens-bench extract`'s file (2,000,000
    /// items, 1.9 million keys; medians of 7 interleaved runs): the key set's heap 374 -> 274 MB, peak RSS
    /// 333 -> 259 MB, wall 1.27 -> 1.21 s. A key's first item waits in 8 bytes (its pair hash), not in a copy
    /// of its sort key.
    pub fn set_read_order(&mut self) {
        self.track_order = false;
    }

    /// An empty set of key type `key_type` with this one's settings: its budget of kept sort keys, its read
    /// order ([`Self::set_read_order`]) and its distinct items ([`Self::set_items_distinct`]).
    pub fn empty_like(&self, key_type: KeyType) -> Self {
        Self {
            kept_budget: self.kept_budget,
            track_order: self.track_order,
            items_distinct: self.items_distinct,
            ..Self::new(key_type)
        }
    }

    /// Whether sort keys are tracked in write order (not [`Self::set_read_order`]).
    pub fn tracks_order(&self) -> bool {
        self.track_order
    }

    /// The budget for kept sort keys, in bytes.
    pub fn kept_budget(&self) -> usize {
        self.kept_budget
    }

    /// Changes the budget for kept sort keys (what is kept already stays).
    pub fn set_kept_budget(&mut self, bytes: usize) {
        self.kept_budget = bytes.min(MAX_KEPT_SORT_KEY_BYTES);
        if let Some(t) = self.sort_keys.as_mut() {
            // A set that filled a smaller budget (a loader thread's share) takes more sort keys again.
            t.full &= self.kept_budget <= t.kept_budget;
            t.kept_budget = self.kept_budget;
        }
    }

    /// An empty set that keeps at most `bytes` of distinct sort keys (loader threads share the budget of the
    /// set they merge into).
    pub fn with_kept_budget(key_type: KeyType, bytes: usize) -> Self {
        Self {
            kept_budget: bytes.min(MAX_KEPT_SORT_KEY_BYTES),
            ..Self::new(key_type)
        }
    }

    pub fn key_type(&self) -> KeyType {
        self.key_type
    }

    /// Distinct keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes: the sum of all counts.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Adds `count` writes of a key given as canonical bytes (see [`super::key::canonicalize_into`]).
    /// Returns the key's index.
    pub fn add(&mut self, canonical: &[u8], count: u64) -> u32 {
        let hash = key_hash(canonical);
        self.add_hashed(canonical, hash, count)
    }

    /// Like [`Self::add`] with the key's [`key_hash`] already computed.
    pub fn add_hashed(&mut self, canonical: &[u8], hash: u64, count: u64) -> u32 {
        let found = self.index.find(hash, |i| {
            self.entries
                .get(i as usize)
                .is_some_and(|e| e.is(canonical, &self.arena))
        });
        match found {
            Some(i) => {
                self.entries[i as usize].count += count;
                self.total += count;
                i
            }
            None => self.add_new_hashed(canonical, hash, count),
        }
    }

    /// Adds a key known not to be in the set yet.
    fn add_new_hashed(&mut self, canonical: &[u8], hash: u64, count: u64) -> u32 {
        let i = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        self.entries
            .push(Entry::new(canonical, count, &mut self.arena));
        self.key_bytes += canonical.len() as u64;
        self.hashes.push(hash);
        self.index.insert(hash, i, &self.hashes);
        self.total += count;
        i
    }

    /// Touches what adding a key of this hash will read (its index slot, and for a key already present its
    /// bytes and count), so that lookups of a batch of keys wait for memory together instead of one after the
    /// other. Changes nothing; returns a value only so the reads are not optimised away.
    ///
    /// Branch-free on what it reads: a branch on a slot still in flight is mispredicted about as often as a
    /// key is new, and each misprediction throws away the other loads in flight (the batch's wait was 44 % of
    /// the load with the branch; the branch-free version was not measured on its own). Whatever the slot
    /// holds, some key's end, first byte and count are touched; only a matching key's are of use.
    pub fn warm(&self, hash: u64) -> u64 {
        let (Some(mask), Some(last)) = (
            self.index.slots.len().checked_sub(1),
            self.entries.len().checked_sub(1),
        ) else {
            return 0;
        };
        let slot = self.index.slots[hash as usize & mask];
        let i = ((slot as u32).wrapping_sub(1) as usize).min(last);
        let start = self.entries.get(i).map_or(0, Entry::start);
        let first = self.arena.get(start).copied().unwrap_or(0);
        slot ^ u64::from(first) ^ self.entries.get(i).map_or(0, |e| e.count)
    }

    /// Touches the index slot a key of this hash starts its probe at (the first half of [`Self::warm`], for a
    /// batch whose slots are all fetched before any key's bytes).
    pub fn warm_slot(&self, hash: u64) -> u64 {
        self.index
            .slots
            .len()
            .checked_sub(1)
            .map_or(0, |mask| self.index.slots[hash as usize & mask])
    }

    /// Adds one write of an item: partition key plus optional sort key (both canonical bytes), tracking the
    /// per-key sort-key facts.
    pub fn add_item(&mut self, pk: &[u8], sk: Option<(&[u8], KeyType)>, count: u64) -> u32 {
        self.add_item_hashed(pk, key_hash(pk), sk, count)
    }

    /// Like [`Self::add_item`] with the partition key's [`key_hash`] already computed.
    pub fn add_item_hashed(
        &mut self,
        pk: &[u8],
        hash: u64,
        sk: Option<(&[u8], KeyType)>,
        count: u64,
    ) -> u32 {
        let idx = self.add_hashed(pk, hash, count);
        if let Some((sk, sk_type)) = sk {
            self.note_sort_key(idx, hash, sk, sk_type);
        }
        idx
    }

    /// Canonical bytes of key `idx`.
    pub fn key_bytes(&self, idx: u32) -> &[u8] {
        self.entries
            .get(idx as usize)
            .map_or(&[], |e| e.bytes(&self.arena))
    }

    /// Key `idx` as text (numbers canonical, binary as base64).
    pub fn display(&self, idx: u32) -> Cow<'_, str> {
        display_key(self.key_bytes(idx), self.key_type)
    }

    pub fn count(&self, idx: u32) -> u64 {
        self.entries.get(idx as usize).map_or(0, |e| e.count)
    }

    pub fn hash(&self, idx: u32) -> u64 {
        self.hashes.get(idx as usize).copied().unwrap_or(0)
    }

    /// Cached [`key_hash`] of every key, by index.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Write count of every key, by index.
    pub fn counts(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        self.entries.iter().map(|e| e.count)
    }

    /// Index of a key given as canonical bytes.
    pub fn find(&self, canonical: &[u8]) -> Option<u32> {
        self.find_hashed(canonical, key_hash(canonical))
    }

    /// [`Self::find`] of a key whose hash is known.
    fn find_hashed(&self, canonical: &[u8], hash: u64) -> Option<u32> {
        self.index.find(hash, |i| {
            self.entries
                .get(i as usize)
                .is_some_and(|e| e.is(canonical, &self.arena))
        })
    }

    /// Bytes of all distinct keys together.
    pub fn key_bytes_total(&self) -> usize {
        self.key_bytes as usize
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.hashes.capacity() * 8
            + self.index.heap_bytes()
            + self.sort_keys.as_ref().map_or(0, SortKeys::heap_bytes)
            + self.sizes.as_ref().map_or(0, |s| {
                s.per_key.capacity() * std::mem::size_of::<KeyBytes>() + s.by_kb.capacity() * 16
            })
    }

    /// Keys in insertion order with their counts.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[u8], u64)> + '_ {
        (0..self.len() as u32).map(|i| (i, self.key_bytes(i), self.count(i)))
    }

    /// Key indices ordered by count, highest first (ties by insertion order), at most `n` of them.
    pub fn top(&self, n: usize) -> Vec<u32> {
        // Counts beside their indices, compared as they stand: looking each count up by index through the
        // comparison, the pass over 1.9 million keys took 7–9 ms, this way about 6 ms.
        let counts = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.count, i as u32));
        first_n_of(counts, n, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)))
            .into_iter()
            .map(|(_, i)| i)
            .collect()
    }
}

/// A key's bytes and its count, held the way DuckDB's `string_t` (after Umbra's "German strings") holds a
/// string: a key of up to [`INLINE`] (12) bytes in the entry itself, a longer one's first [`PREFIX`] bytes
/// there and the whole key in the set's arena, at the offset the entry gives.
///
/// Why: a lookup of a key seen long ago missed on three cache lines one after the other, its index slot,
/// its entry (then a 16-byte end offset and count, beside the end before it, where its bytes start) and its
/// bytes in the arena. A key held in its entry is compared there, so such a lookup misses on two. Measured
/// on `benches/lines_duckdb.sh`'s file (10,000,000 lines of 12-byte keys, this 2-core machine): with the
/// bytes neither asked for nor compared (a measurement only, not a correct count), its stretches took
/// 171–189 ms instead of 243–247 ms, so a quarter of their time waited on the keys' bytes. With this entry,
/// `analyze` of the file took about 10 % less CPU (user time, medians of 15 to 21 interleaved runs on a
/// noisy host) and 89 MB at its peak instead of 93 MB.
///
/// 24 bytes: a key of up to 8 bytes takes as much memory as with the 16-byte entry, one of 9 to 12 bytes
/// less, a longer one 8 bytes more (`shardlens-bench extract`'s file keyed by `{pk}#{status}#{tags.0}`, 1.9
/// million keys of 20 to 30 bytes: peak RSS 405–409 MB -> 418 MB). Tried and dropped: a 32-byte entry,
/// aligned to 32, holding up to 20 bytes (no faster on the key lines; 30 MB more on the keyed extract, and
/// growing a `Vec` of entries aligned past 16 bytes copies it, as the system's `realloc` does not keep that
/// alignment).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub(super) struct Entry {
    pub(super) count: u64,
    len: u32,
    /// The key (up to [`INLINE`] bytes, zeros after it), or its first [`PREFIX`] bytes and its offset in the
    /// arena (little-endian `u64`).
    data: [u8; INLINE],
}

/// The longest key an [`Entry`] holds in itself.
pub(super) const INLINE: usize = 12;
/// The bytes of a longer key an [`Entry`] holds beside its offset in the arena.
const PREFIX: usize = INLINE - 8;

impl Entry {
    /// The entry of `key` with `count` writes; a key longer than [`INLINE`] bytes goes onto `arena`.
    ///
    /// A key is at most 4 GiB: every reader stops far below (a line at 16 MiB, an item at 400 KB).
    pub(super) fn new(key: &[u8], count: u64, arena: &mut Vec<u8>) -> Self {
        let mut data = [0u8; INLINE];
        if key.len() <= INLINE {
            data[..key.len()].copy_from_slice(key);
        } else {
            data[..PREFIX].copy_from_slice(&key[..PREFIX]);
            data[PREFIX..].copy_from_slice(&(arena.len() as u64).to_le_bytes());
            arena.extend_from_slice(key);
        }
        Self {
            count,
            len: u32::try_from(key.len()).unwrap_or(u32::MAX),
            data,
        }
    }

    /// The entry's last byte (to ask for the cache line it ends in).
    #[inline]
    pub(super) fn last_byte(&self) -> &u8 {
        &self.data[INLINE - 1]
    }

    /// Whether the key is held in the arena (it is longer than [`INLINE`] bytes).
    #[inline]
    pub(super) fn in_arena(&self) -> bool {
        self.len as usize > INLINE
    }

    /// The bytes the key takes in the arena (0 for a key held here).
    #[inline]
    pub(super) fn arena_len(&self) -> usize {
        if self.in_arena() {
            self.len as usize
        } else {
            0
        }
    }

    /// Where a key held in the arena starts there (0 for a key held here).
    #[inline]
    pub(super) fn start(&self) -> usize {
        if !self.in_arena() {
            return 0;
        }
        let mut at = [0u8; 8];
        at.copy_from_slice(&self.data[PREFIX..]);
        u64::from_le_bytes(at) as usize
    }

    /// The key's bytes (`arena`: its set's).
    #[inline]
    pub(super) fn bytes<'a>(&'a self, arena: &'a [u8]) -> &'a [u8] {
        let len = self.len as usize;
        if len <= INLINE {
            return &self.data[..len];
        }
        let start = self.start();
        arena.get(start..start + len).unwrap_or_default()
    }

    /// Whether the key is `key` (`arena`: its set's); a key held here is compared without reading the arena.
    #[inline(always)]
    pub(super) fn is(&self, key: &[u8], arena: &[u8]) -> bool {
        if self.len as usize != key.len() {
            return false;
        }
        if key.len() <= INLINE {
            return crate::model::bytes::short_eq(&self.data[..key.len()], key);
        }
        self.data[..PREFIX] == key[..PREFIX] && same_bytes(self.bytes(arena), key)
    }
}

/// Whether two keys' bytes are equal: keys of 8 to 32 bytes (most keys) are compared a word at a time
/// inline, the rest by `==`. Measured: the call to the C library's `memcmp` for each lookup was 15 % of the
/// `analyze` benchmark's time (10,000,000 lines of 15 to 19 bytes). Measured again with the prefetch pipeline
/// (`benches/lines_duckdb.sh`'s file on one core, `perf stat -r 5`): `a == b` 0.455 s, this 0.431 s.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if !(8..=32).contains(&n) {
        return a == b;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
    };
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// The first `n` of `items` in the order `order` (a total order: equal only for equal elements), sorted: as
/// [`first_n`] on all of them collected, in linear time and `O(n)` memory. The items are never all held:
/// a buffer of `4n` is cut back to its best `n` when full, and an item after the `n`-th of those is passed
/// over with one comparison. Collected first, the storage of each of 1.9 million keys was 46 MB of fresh
/// pages for a health report that shows five (11 % of `shardlens analyze`'s run keyed by an expression,
/// `perf record --call-graph dwarf`: the kernel zeroing the pages the growing vector touched).
pub fn first_n_of<T>(
    items: impl IntoIterator<Item = T>,
    n: usize,
    mut order: impl FnMut(&T, &T) -> std::cmp::Ordering,
) -> Vec<T> {
    if n == 0 {
        return Vec::new();
    }
    let cap = n.saturating_mul(4).max(64);
    let mut kept: Vec<T> = Vec::new();
    // Once cut back, `kept[n - 1]` is the worst of the best `n` so far; later pushes go after it.
    let mut cut = false;
    for item in items {
        if cut && order(&item, &kept[n - 1]) != std::cmp::Ordering::Less {
            continue;
        }
        if kept.len() == cap {
            kept.select_nth_unstable_by(n - 1, &mut order);
            kept.truncate(n);
            cut = true;
            if order(&item, &kept[n - 1]) != std::cmp::Ordering::Less {
                continue;
            }
        }
        kept.push(item);
    }
    first_n(&mut kept, n, order);
    kept
}

/// Keeps the first `n` of `v` in the order `order` (a total order: equal only for equal elements), sorted:
/// the same as sorting all of `v` and truncating, in linear time plus `n log n`. A health report sorted the
/// storage of each of 1.9 million keys to show ten (4 % of `shardlens analyze`'s run, `perf record`).
pub fn first_n<T>(v: &mut Vec<T>, n: usize, mut order: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    if n == 0 {
        v.clear();
        return;
    }
    if n < v.len() {
        v.select_nth_unstable_by(n - 1, &mut order);
        v.truncate(n);
    }
    v.sort_unstable_by(order);
}

/// `to - from` items of keys `user#…` (two items a key), their sort keys tagged `tag` (sets of different tags
/// share keys, not items), with item sizes: for tests of merges.
#[cfg(test)]
pub(crate) fn sized_items(from: u32, to: u32, tag: &str) -> KeySet {
    let mut s = KeySet::new(KeyType::S);
    for k in from..to {
        let pk = format!("user#{:07}", k / 2);
        let sk = format!("2024-05-{:02}#{k}{tag}", k % 28 + 1);
        let idx = s.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
        s.note_item_bytes(idx, u64::from(k % 5000 + 100), 1);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_repeats_and_keeps_order() {
        let mut set = KeySet::new(KeyType::S);
        for k in ["b", "a", "b", "c", "b", "a"] {
            set.add(k.as_bytes(), 1);
        }
        assert_eq!(set.len(), 3);
        assert_eq!(set.total(), 6);
        let keys: Vec<(String, u64)> = set
            .iter()
            .map(|(i, _, c)| (set.display(i).into_owned(), c))
            .collect();
        assert_eq!(keys, [("b".into(), 3), ("a".into(), 2), ("c".into(), 1)]);
        assert_eq!(set.find(b"a"), Some(1));
        assert_eq!(set.find(b"zz"), None);
        assert_eq!(set.top(2), [0, 1]);
        assert_eq!(set.key_bytes_total(), 3);
    }

    proptest::proptest! {
        /// Keys held in their entries and keys held in the arena (lengths 0 to 40 over three bytes, NUL
        /// included, so that many share a prefix or differ only past an entry's 12 bytes or in length): the set
        /// keeps what a list and a map keep, in order, finds each again, and merging two sets (by key and by
        /// plan) adds what adding the second's keys one by one adds.
        #[test]
        fn keys_in_entries_and_in_the_arena_are_kept_and_found(
            adds in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(vec![0u8, b'a', b'b']), 0..41), 1u64..4),
                0..400,
            ),
            cut in 0usize..400,
        ) {
            let mut set = KeySet::new(KeyType::B);
            let mut order: Vec<Vec<u8>> = Vec::new();
            let mut counts = std::collections::HashMap::new();
            for (k, n) in &adds {
                let i = set.add(k, *n);
                let at = order.iter().position(|o| o == k).unwrap_or_else(|| {
                    order.push(k.clone());
                    order.len() - 1
                });
                proptest::prop_assert_eq!(i as usize, at);
                *counts.entry(k.clone()).or_insert(0) += n;
            }
            proptest::prop_assert_eq!(set.len(), order.len());
            proptest::prop_assert_eq!(set.key_bytes_total(), order.iter().map(Vec::len).sum::<usize>());
            for (i, k) in order.iter().enumerate() {
                proptest::prop_assert_eq!(set.key_bytes(i as u32), &k[..]);
                proptest::prop_assert_eq!(set.count(i as u32), counts[k]);
                proptest::prop_assert_eq!(set.find(k), Some(i as u32));
            }
            let mut other = order.last().cloned().unwrap_or_default();
            other.push(b'a');
            proptest::prop_assert_eq!(set.find(&other), order.iter().position(|o| *o == other).map(|i| i as u32));

            let cut = cut.min(adds.len());
            let (mut first, mut second) = (KeySet::new(KeyType::B), KeySet::new(KeyType::B));
            for (k, n) in &adds[..cut] {
                first.add(k, *n);
            }
            for (k, n) in &adds[cut..] {
                second.add(k, *n);
            }
            let mut planned = first.clone();
            if let Some(plan) = planned.merge_plan(&second) {
                planned.merge_planned(&mut second.clone(), &plan);
            }
            first.merge(&second);
            for merged in [&first, &planned] {
                proptest::prop_assert_eq!(merged.len(), set.len());
                proptest::prop_assert_eq!(merged.key_bytes_total(), set.key_bytes_total());
                proptest::prop_assert_eq!(merged.total(), set.total());
                for (i, k, c) in set.iter() {
                    proptest::prop_assert_eq!(merged.key_bytes(i), k);
                    proptest::prop_assert_eq!(merged.count(i), c);
                    proptest::prop_assert_eq!(merged.find(k), Some(i));
                }
            }
        }
    }

    /// An entry is its key and no other (lookups compare only keys whose hashes share a tag, so this is
    /// where a wrong comparison would show): keys that differ in length alone, in a trailing NUL, past
    /// the prefix of a key held in the arena, or at the edge of what an entry holds.
    #[test]
    fn an_entry_is_its_key_and_no_other() {
        let long = |tail: &str| format!("0123456789ab{tail}").into_bytes();
        let keys: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"a".to_vec(),
            b"a\0".to_vec(),
            b"\0a".to_vec(),
            b"user#0055504".to_vec(),
            b"user#0055505".to_vec(),
            b"1123456789abcdefghij".to_vec(),
            vec![b'x'; INLINE],
            vec![b'x'; INLINE + 1],
            [vec![b'x'; INLINE - 1], vec![0]].concat(),
            long("cdefghij"),
            long("cdefghiJ"),
            long("cdefghijk"),
            long("Cdefghij"),
            [long("cdefghij"), vec![0]].concat(),
        ];
        let mut arena = b"something before".to_vec();
        let entries: Vec<Entry> = keys.iter().map(|k| Entry::new(k, 1, &mut arena)).collect();
        for (e, k) in entries.iter().zip(&keys) {
            assert_eq!(e.bytes(&arena), &k[..]);
            assert_eq!(e.in_arena(), k.len() > INLINE);
            for other in &keys {
                assert_eq!(e.is(other, &arena), k == other, "{k:?} against {other:?}");
            }
        }
    }

    #[test]
    fn top_breaks_ties_by_insertion_order() {
        let mut set = KeySet::new(KeyType::S);
        for (k, n) in [("a", 5), ("b", 9), ("c", 5), ("d", 1), ("e", 9), ("f", 0)] {
            set.add(k.as_bytes(), n);
        }
        assert_eq!(set.top(3), [1, 4, 0]);
        assert_eq!(set.top(10), [1, 4, 0, 2, 3, 5]);
        assert!(set.top(0).is_empty());
        assert!(KeySet::new(KeyType::S).top(3).is_empty());
    }

    proptest::proptest! {
        /// The bounded collector keeps what sorting everything and truncating keeps, past its buffer's cuts
        /// (long runs, ties, small and large `n`).
        #[test]
        fn first_n_of_is_sort_then_truncate(
            counts in proptest::collection::vec(0u64..20, 0..700),
            n in 0usize..300,
        ) {
            let order = |a: &u32, b: &u32| counts[*b as usize].cmp(&counts[*a as usize]).then(a.cmp(b));
            let mut all: Vec<u32> = (0..counts.len() as u32).collect();
            all.sort_unstable_by(order);
            all.truncate(n);
            proptest::prop_assert_eq!(first_n_of(0..counts.len() as u32, n, order), all);
        }
    }

    /// A merge by plan (the index grown once, each key's memory asked for ahead) leaves what a merge key by
    /// key leaves: the same keys in the same order, counts and total, and every key found again.
    #[test]
    fn planned_merge_of_many_keys_is_the_plain_merge() {
        let set = |from: u32, to: u32, step: u32| {
            let mut s = KeySet::new(KeyType::S);
            for k in (from..to).step_by(step as usize) {
                s.add(format!("user#{k:07}").as_bytes(), u64::from(k % 7 + 1));
            }
            s
        };
        let (a, b) = (set(0, 30_000, 3), set(10_000, 50_000, 2));
        let mut plain = a.clone();
        plain.merge(&b);
        let mut planned = a.clone();
        let plan = planned.merge_plan(&b).unwrap();
        assert_eq!(plan.iter().filter(|&&p| p == NEW_KEY).count(), 16_667);
        planned.merge_planned(&mut b.clone(), &plan);
        let all = |s: &KeySet| {
            s.iter()
                .map(|(_, k, c)| (k.to_vec(), c))
                .collect::<Vec<_>>()
        };
        assert_eq!(all(&planned), all(&plain));
        assert_eq!(planned.total(), plain.total());
        for (i, k, _) in plain.iter() {
            assert_eq!(planned.find(k), Some(i));
        }
        assert_eq!(planned.find(b"user#0000001"), None);
    }

    /// A merge by plan of items with sort keys and sizes (their facts and sizes merged apart from the keys):
    /// the same facts, sizes and counts as a merge key by key.
    #[test]
    fn planned_merge_of_items_is_the_plain_merge() {
        // Keys in common, items not.
        let (a, b) = (sized_items(0, 10_000, "a"), sized_items(6_000, 22_000, "b"));
        let mut plain = a.clone();
        assert!(plain.merge_counted(&b));
        let mut planned = a.clone();
        let plan = planned.merge_plan(&b).unwrap();
        planned.merge_planned(&mut b.clone(), &plan);
        assert_eq!(planned.len(), 11_000);
        assert_eq!(planned.total(), plain.total());
        for (i, k, c) in plain.iter() {
            assert_eq!(planned.key_bytes(i), k);
            assert_eq!(planned.count(i), c);
            assert_eq!(planned.sort_key_facts(i), plain.sort_key_facts(i));
            assert_eq!(planned.item_bytes(i), plain.item_bytes(i));
        }
        assert_eq!(planned.size_profile(), plain.size_profile());
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = KeySet::new(KeyType::S);
        a.add(b"x", 2);
        let mut b = KeySet::new(KeyType::S);
        b.add(b"y", 1);
        b.add(b"x", 3);
        a.merge(&b);
        assert_eq!(a.total(), 6);
        assert_eq!(a.count(a.find(b"x").unwrap()), 5);
        assert_eq!(a.len(), 2);
    }
}
