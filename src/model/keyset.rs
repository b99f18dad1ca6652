//! A set of distinct partition keys with their write counts, compact in memory.
//!
//! Keys live back to back in one byte arena; an open-addressing index of 8-byte slots (the upper half of the
//! key's xxh3 beside its position) finds a key again with one probe into one array, so a lookup touches the
//! slot, the key's end offset, its bytes and its count — and nothing else. Per key we keep its end offset, hash and count: about 28 bytes plus
//! the key itself, against ~80 for a `HashMap<String, u64>`. Insertion order is kept, so the first key typed is
//! key 0. The cached hash makes re-bucketing a pass over a `Vec<u64>`, never a re-hash.

use std::borrow::Cow;

use super::key::{KeyType, compare_keys, display_key};
use super::partition::key_hash;

/// Per-key facts about sort keys, when the input had them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SortKeyFacts {
    /// Distinct sort keys seen for this partition key: the items of its item collection.
    pub items: u64,
    /// Every new sort key was greater than or equal to the one before it, in write order, over at least two
    /// distinct items: the pattern (time-ordered sort keys) that split-for-heat cannot split. Only ever true
    /// when the input's order is the order of writes ([`KeySet::set_write_ordered`]): a Scan or an export
    /// returns each collection in sort-key order, which says nothing about how it was written.
    pub only_increasing: bool,
}

/// Sort-key bookkeeping, allocated only when some input line carries a sort key.
#[derive(Debug, Clone)]
struct SortKeys {
    sk_type: KeyType,
    /// Indexed by key; `items == 0` for keys written without a sort key.
    facts: Vec<SortKeyFacts>,
    /// The last sort key seen for each key (only while it is still "only increasing"); overwritten in place
    /// when the next one has the same length, so time-ordered sort keys cost no allocation per item.
    last: Vec<Option<Box<[u8]>>>,
    /// Hashes of (key index, sort key) pairs seen, to count distinct items.
    seen: HashSet64,
    /// The distinct sort keys themselves within a byte budget (the partition inspector's item collections),
    /// back to back in one arena: (key index, end offset in the arena) per sort key.
    kept: Vec<(u32, u32)>,
    kept_arena: Vec<u8>,
    kept_budget: usize,
    /// Every distinct sort key fitted in the budget.
    kept_all: bool,
}

/// Sort keys kept for the item-collection view, in bytes of sort key: a bounded sample of large inputs.
pub const MAX_KEPT_SORT_KEY_BYTES: usize = 32 << 20;

impl SortKeys {
    fn new(sk_type: KeyType, kept_budget: usize) -> Self {
        Self {
            sk_type,
            facts: Vec::new(),
            last: Vec::new(),
            seen: HashSet64::default(),
            kept: Vec::new(),
            kept_arena: Vec::new(),
            kept_budget,
            kept_all: true,
        }
    }

    fn keep(&mut self, idx: u32, sk: &[u8]) {
        if self.kept_arena.len() + sk.len() > self.kept_budget {
            self.kept_all = false;
            return;
        }
        self.kept_arena.extend_from_slice(sk);
        self.kept.push((idx, self.kept_arena.len() as u32));
    }

    fn kept_iter(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        let mut start = 0usize;
        self.kept.iter().map(move |&(idx, end)| {
            let sk = self.kept_arena.get(start..end as usize).unwrap_or_default();
            start = end as usize;
            (idx, sk)
        })
    }

    fn heap_bytes(&self) -> usize {
        self.facts.capacity() * std::mem::size_of::<SortKeyFacts>()
            + self.last.capacity() * 16
            + self.seen.slots.capacity() * 8
            + self.kept.capacity() * 8
            + self.kept_arena.capacity()
    }
}

/// A set of 64-bit hashes: open addressing with linear probing, at most half full, 0 standing for empty (a
/// hash of 0 is stored as 1).
#[derive(Debug, Clone, Default)]
struct HashSet64 {
    slots: Vec<u64>,
    len: usize,
}

impl HashSet64 {
    /// Adds `hash`; returns whether it was new.
    fn insert(&mut self, hash: u64) -> bool {
        let hash = hash.max(1);
        if (self.len + 1) * 2 > self.slots.len() {
            let grown = vec![0; (self.slots.len() * 2).max(16)];
            let old = std::mem::replace(&mut self.slots, grown);
            for h in old.into_iter().filter(|&h| h != 0) {
                self.place(h);
            }
        }
        let mask = self.slots.len() - 1;
        let mut pos = hash as usize & mask;
        loop {
            match self.slots[pos] {
                0 => {
                    self.slots[pos] = hash;
                    self.len += 1;
                    return true;
                }
                h if h == hash => return false,
                _ => pos = (pos + 1) & mask,
            }
        }
    }

    fn place(&mut self, hash: u64) {
        let mask = self.slots.len() - 1;
        let mut pos = hash as usize & mask;
        while self.slots[pos] != 0 {
            pos = (pos + 1) & mask;
        }
        self.slots[pos] = hash;
    }
}

/// The measured size of one key's items, when the input carried item sizes (the bytes of each item's JSON:
/// an estimate of DynamoDB's item size, which counts attribute names and values but no JSON punctuation or
/// type tags, so the estimate runs high).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyBytes {
    /// Items (writes) measured.
    pub items: u64,
    /// Their bytes together: for an export, the size of the key's item collection.
    pub bytes: u64,
    /// The largest one.
    pub max: u64,
}

impl KeyBytes {
    /// Mean bytes per item (0 with none).
    pub fn mean(&self) -> u64 {
        self.bytes.checked_div(self.items).unwrap_or(0)
    }
}

/// Items grouped by size in whole KB, rounded up. Read and write units depend on an item's size only through
/// its size in whole KB (1 KB a write unit, 4 KB a read unit), so the groups give exact unit counts; at most
/// 401 of them for DynamoDB's 400 KB items.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SizeProfile {
    pub groups: Vec<SizeGroup>,
}

/// Items whose size rounds up to `kb` KB, and their bytes together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SizeGroup {
    pub kb: u64,
    pub items: u64,
    pub bytes: u64,
}

impl SizeProfile {
    /// One group of `items` items of `bytes` bytes each.
    pub fn uniform(bytes: u64, items: u64) -> Self {
        Self {
            groups: vec![SizeGroup {
                kb: bytes.div_ceil(1024),
                items,
                bytes: bytes * items,
            }],
        }
    }

    pub fn items(&self) -> u64 {
        self.groups.iter().map(|g| g.items).sum()
    }

    pub fn bytes(&self) -> u64 {
        self.groups.iter().map(|g| g.bytes).sum()
    }

    /// Mean bytes per item (0 with none).
    pub fn mean(&self) -> u64 {
        self.bytes().checked_div(self.items()).unwrap_or(0)
    }

    /// The largest size group's upper bound in bytes (0 with none).
    pub fn max_bytes_bound(&self) -> u64 {
        self.groups.iter().map(|g| g.kb * 1024).max().unwrap_or(0)
    }
}

/// Item-size bookkeeping, allocated only when some record carried its size.
#[derive(Debug, Clone, Default)]
struct ItemSizes {
    /// Indexed by key.
    per_key: Vec<KeyBytes>,
    /// `by_kb[k]`: (items, bytes) of the sizes in (k-1, k] KB; index 0 holds empty items.
    by_kb: Vec<(u64, u64)>,
}

impl ItemSizes {
    fn note(&mut self, idx: usize, bytes: u64, count: u64) {
        if self.per_key.len() <= idx {
            self.per_key.resize(idx + 1, KeyBytes::default());
        }
        let k = &mut self.per_key[idx];
        k.items += count;
        k.bytes += bytes * count;
        k.max = k.max.max(bytes);
        let kb = bytes.div_ceil(1024) as usize;
        if self.by_kb.len() <= kb {
            self.by_kb.resize(kb + 1, (0, 0));
        }
        self.by_kb[kb].0 += count;
        self.by_kb[kb].1 += bytes * count;
    }

    /// Adds another set's sizes; `mapped[i]` is the index here of the other set's key `i`.
    fn merge(&mut self, other: &ItemSizes, mapped: &[u32]) {
        for (i, k) in other.per_key.iter().enumerate() {
            let Some(&idx) = mapped.get(i).filter(|_| k.items > 0) else {
                continue;
            };
            let idx = idx as usize;
            if self.per_key.len() <= idx {
                self.per_key.resize(idx + 1, KeyBytes::default());
            }
            let m = &mut self.per_key[idx];
            m.items += k.items;
            m.bytes += k.bytes;
            m.max = m.max.max(k.max);
        }
        if self.by_kb.len() < other.by_kb.len() {
            self.by_kb.resize(other.by_kb.len(), (0, 0));
        }
        for (m, t) in self.by_kb.iter_mut().zip(&other.by_kb) {
            m.0 += t.0;
            m.1 += t.1;
        }
    }
}

#[derive(Debug, Clone)]
pub struct KeySet {
    key_type: KeyType,
    arena: Vec<u8>,
    ends: Vec<u64>,
    hashes: Vec<u64>,
    counts: Vec<u64>,
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
            ends: Vec::new(),
            hashes: Vec::new(),
            counts: Vec::new(),
            index: Index::default(),
            total: 0,
            sort_keys: None,
            items_distinct: false,
            kept_budget: MAX_KEPT_SORT_KEY_BYTES,
            sizes: None,
            write_ordered: false,
        }
    }

    /// Promises (or stops promising) that every item added from now on is a new item, as in a full export,
    /// where each item appears once: counting a key's items then skips the check for repeats.
    pub fn set_items_distinct(&mut self, distinct: bool) {
        self.items_distinct = distinct;
    }

    /// Declares that items were added in the order they were written (pasted lines, a log of writes), so a
    /// key's sort keys that only increase in input order were written in increasing order. Every other input
    /// (scans, exports, models, JSON arrays) is in read order, where collections come back sorted.
    pub fn set_write_ordered(&mut self, write_ordered: bool) {
        self.write_ordered = write_ordered;
    }

    /// Whether the input's order is the order of writes (see [`Self::set_write_ordered`]).
    pub fn write_ordered(&self) -> bool {
        self.write_ordered
    }

    /// Changes the budget for kept sort keys (what is kept already stays).
    pub fn set_kept_budget(&mut self, bytes: usize) {
        self.kept_budget = bytes.min(MAX_KEPT_SORT_KEY_BYTES);
        if let Some(t) = self.sort_keys.as_mut() {
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
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
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
            span(&self.arena, &self.ends, i as usize) == canonical
        });
        let idx = match found {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.counts.len()).unwrap_or(u32::MAX);
                self.arena.extend_from_slice(canonical);
                self.ends.push(self.arena.len() as u64);
                self.hashes.push(hash);
                self.counts.push(0);
                self.index.insert(hash, i, &self.hashes);
                i
            }
        };
        self.counts[idx as usize] += count;
        self.total += count;
        idx
    }

    /// Touches what adding a key of this hash will read (its index slot, and for a key already present its
    /// bytes and count), so that lookups of a batch of keys wait for memory together instead of one after the
    /// other. Changes nothing; returns a value only so the reads are not optimised away.
    pub fn warm(&self, hash: u64) -> u64 {
        let Some(mask) = self.index.slots.len().checked_sub(1) else {
            return 0;
        };
        let slot = self.index.slots[hash as usize & mask];
        if slot == 0 || slot & Index::TAG != hash & Index::TAG {
            return slot;
        }
        let i = (slot as u32).wrapping_sub(1) as usize;
        let start = if i == 0 {
            0
        } else {
            self.ends.get(i - 1).copied().unwrap_or(0) as usize
        };
        let first = self.arena.get(start).copied().unwrap_or(0);
        slot ^ u64::from(first) ^ self.counts.get(i).copied().unwrap_or(0)
    }

    /// Adds one write of an item: partition key plus optional sort key (both canonical bytes), tracking the
    /// per-key sort-key facts.
    pub fn add_item(&mut self, pk: &[u8], sk: Option<(&[u8], KeyType)>, count: u64) -> u32 {
        let idx = self.add(pk, count);
        if let Some((sk, sk_type)) = sk {
            self.note_sort_key(idx, sk, sk_type);
        }
        idx
    }

    fn note_sort_key(&mut self, idx: u32, sk: &[u8], sk_type: KeyType) {
        let n = self.counts.len();
        let (budget, distinct) = (self.kept_budget, self.items_distinct);
        let tracker = self
            .sort_keys
            .get_or_insert_with(|| SortKeys::new(sk_type, budget));
        if tracker.facts.len() < n {
            tracker.facts.resize(n, SortKeyFacts::default());
            tracker.last.resize(n, None);
        }
        let i = idx as usize;
        let new_item = distinct || tracker.seen.insert(pair_hash(idx, sk));
        if new_item {
            tracker.keep(idx, sk);
        }
        let facts = &mut tracker.facts[i];
        if new_item {
            facts.items += 1;
        }
        match (&tracker.last[i], facts.items) {
            (None, 1) if new_item => {
                facts.only_increasing = true;
                tracker.last[i] = Some(sk.into());
            }
            (Some(last), _) => {
                if compare_keys(sk, last, tracker.sk_type).is_lt() {
                    facts.only_increasing = false;
                    tracker.last[i] = None;
                } else if let Some(last) = tracker.last[i].as_mut().filter(|l| l.len() == sk.len())
                {
                    last.copy_from_slice(sk);
                } else {
                    tracker.last[i] = Some(sk.into());
                }
            }
            _ => {}
        }
    }

    /// Records that `count` writes of key `idx` carried an item of `bytes` bytes.
    pub fn note_item_bytes(&mut self, idx: u32, bytes: u64, count: u64) {
        self.sizes
            .get_or_insert_with(ItemSizes::default)
            .note(idx as usize, bytes, count);
    }

    /// The measured size of key `idx`'s items, when the input carried item sizes.
    pub fn item_bytes(&self, idx: u32) -> Option<KeyBytes> {
        let k = *self.sizes.as_ref()?.per_key.get(idx as usize)?;
        (k.items > 0).then_some(k)
    }

    /// Item sizes over the whole set, when the input carried them.
    pub fn size_profile(&self) -> Option<SizeProfile> {
        let sizes = self.sizes.as_ref()?;
        let groups: Vec<SizeGroup> = sizes
            .by_kb
            .iter()
            .enumerate()
            .filter(|(_, (items, _))| *items > 0)
            .map(|(kb, &(items, bytes))| SizeGroup {
                kb: kb as u64,
                items,
                bytes,
            })
            .collect();
        (!groups.is_empty()).then_some(SizeProfile { groups })
    }

    /// The key whose measured items take the most bytes together (for an export: the largest item
    /// collection), with its sizes.
    pub fn largest_collection(&self) -> Option<(u32, KeyBytes)> {
        let sizes = self.sizes.as_ref()?;
        sizes
            .per_key
            .iter()
            .enumerate()
            .filter(|(_, k)| k.items > 0)
            .max_by_key(|(i, k)| (k.bytes, std::cmp::Reverse(*i)))
            .map(|(i, k)| (i as u32, *k))
    }

    /// Sort-key facts of a key, when sort keys were loaded.
    pub fn sort_key_facts(&self, idx: u32) -> Option<SortKeyFacts> {
        let facts = *self.sort_keys.as_ref()?.facts.get(idx as usize)?;
        (facts.items > 0).then_some(SortKeyFacts {
            only_increasing: self.write_ordered && facts.only_increasing && facts.items >= 2,
            ..facts
        })
    }

    /// Whether key `idx`'s kept sort keys look time-ordered by their values (timestamps, epoch numbers,
    /// counters, ULID/KSUID-like ids): an inference for inputs whose order is not the order of writes.
    pub fn sort_key_time_pattern(&self, idx: u32) -> Option<super::sortkey::TimeOrdered> {
        let ty = self.sort_key_type()?;
        let t = self.sort_keys.as_ref()?;
        let sks: Vec<&[u8]> = t
            .kept_iter()
            .filter(|(i, _)| *i == idx)
            .map(|(_, sk)| sk)
            .take(super::sortkey::SAMPLE)
            .collect();
        super::sortkey::infer(&sks, ty)
    }

    pub fn has_sort_keys(&self) -> bool {
        self.sort_keys.is_some()
    }

    pub fn sort_key_type(&self) -> Option<KeyType> {
        self.sort_keys.as_ref().map(|s| s.sk_type)
    }

    /// Canonical bytes of key `idx`.
    pub fn key_bytes(&self, idx: u32) -> &[u8] {
        span(&self.arena, &self.ends, idx as usize)
    }

    /// Key `idx` as text (numbers canonical, binary as base64).
    pub fn display(&self, idx: u32) -> Cow<'_, str> {
        display_key(self.key_bytes(idx), self.key_type)
    }

    pub fn count(&self, idx: u32) -> u64 {
        self.counts.get(idx as usize).copied().unwrap_or(0)
    }

    pub fn hash(&self, idx: u32) -> u64 {
        self.hashes.get(idx as usize).copied().unwrap_or(0)
    }

    /// Cached [`key_hash`] of every key, by index.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// Write count of every key, by index.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Index of a key given as canonical bytes.
    pub fn find(&self, canonical: &[u8]) -> Option<u32> {
        let hash = key_hash(canonical);
        self.index.find(hash, |i| {
            span(&self.arena, &self.ends, i as usize) == canonical
        })
    }

    /// Bytes of all distinct keys together.
    pub fn key_bytes_total(&self) -> usize {
        self.arena.len()
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity()
            + (self.ends.capacity() + self.hashes.capacity() + self.counts.capacity()) * 8
            + self.index.slots.capacity() * 8
            + self.sort_keys.as_ref().map_or(0, SortKeys::heap_bytes)
            + self.sizes.as_ref().map_or(0, |s| {
                s.per_key.capacity() * std::mem::size_of::<KeyBytes>() + s.by_kb.capacity() * 16
            })
    }

    /// Adds every key and count of `other` (which must be of the same key type) to this set.
    pub fn merge(&mut self, other: &KeySet) {
        self.write_ordered = if self.is_empty() {
            other.write_ordered
        } else {
            self.write_ordered && other.write_ordered
        };
        let mut mapped = Vec::with_capacity(other.len());
        for i in 0..other.len() as u32 {
            let idx = self.add_hashed(other.key_bytes(i), other.hash(i), other.count(i));
            mapped.push(idx);
            if let (Some(facts), Some(theirs)) = (other.sort_key_facts(i), other.sort_keys.as_ref())
            {
                let budget = self.kept_budget;
                let tracker = self
                    .sort_keys
                    .get_or_insert_with(|| SortKeys::new(theirs.sk_type, budget));
                if tracker.facts.len() <= idx as usize {
                    tracker
                        .facts
                        .resize(idx as usize + 1, SortKeyFacts::default());
                    tracker.last.resize(idx as usize + 1, None);
                }
                let mine = &mut tracker.facts[idx as usize];
                let was_empty = mine.items == 0;
                mine.items += facts.items;
                mine.only_increasing = was_empty && facts.only_increasing;
            }
        }
        if let (Some(theirs), Some(mine)) = (other.sort_keys.as_ref(), self.sort_keys.as_mut()) {
            for (i, sk) in theirs.kept_iter() {
                mine.keep(mapped[i as usize], sk);
            }
            mine.kept_all &= theirs.kept_all;
        }
        if let Some(theirs) = other.sizes.as_ref() {
            let mine = self.sizes.get_or_insert_with(ItemSizes::default);
            mine.merge(theirs, &mapped);
        }
    }

    /// The distinct sort keys kept for key `idx`, in input order, and whether they are all of its items (a
    /// very large input keeps a bounded sample, see [`MAX_KEPT_SORT_KEY_BYTES`]).
    pub fn item_sort_keys(&self, idx: u32) -> (Vec<&[u8]>, bool) {
        let Some(t) = self.sort_keys.as_ref() else {
            return (Vec::new(), true);
        };
        let sks: Vec<&[u8]> = t
            .kept_iter()
            .filter(|(i, _)| *i == idx)
            .map(|(_, sk)| sk)
            .collect();
        (sks, t.kept_all)
    }

    /// Keys in insertion order with their counts.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[u8], u64)> + '_ {
        (0..self.len() as u32).map(|i| (i, self.key_bytes(i), self.count(i)))
    }

    /// Key indices ordered by count, highest first (ties by insertion order), at most `n` of them.
    pub fn top(&self, n: usize) -> Vec<u32> {
        top_indices(&self.counts, n)
    }
}

/// Open addressing with linear probing over `u64` slots: `(hash >> 32) << 32 | (index + 1)`, 0 = empty.
/// At most half full, so probes are short; the 32-bit tag makes a false match (then checked against the
/// key's bytes) a one-in-four-billion event.
#[derive(Debug, Clone, Default)]
struct Index {
    slots: Vec<u64>,
    len: usize,
}

impl Index {
    const TAG: u64 = 0xffff_ffff_0000_0000;

    fn find(&self, hash: u64, eq: impl Fn(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let tag = hash & Self::TAG;
        let mut pos = hash as usize & mask;
        loop {
            let slot = self.slots[pos];
            if slot == 0 {
                return None;
            }
            if slot & Self::TAG == tag {
                let i = (slot as u32).wrapping_sub(1);
                if eq(i) {
                    return Some(i);
                }
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Inserts key `i` (not present yet); `hashes` holds every key's hash for growing.
    fn insert(&mut self, hash: u64, i: u32, hashes: &[u64]) {
        if (self.len + 1) * 2 > self.slots.len() {
            let cap = (self.slots.len() * 2).max(16);
            self.slots = vec![0; cap];
            self.len = 0;
            for (j, &h) in hashes.iter().enumerate() {
                if j as u32 != i {
                    self.place(h, j as u32);
                }
            }
        }
        self.place(hash, i);
    }

    fn place(&mut self, hash: u64, i: u32) {
        let mask = self.slots.len() - 1;
        let mut pos = hash as usize & mask;
        while self.slots[pos] != 0 {
            pos = (pos + 1) & mask;
        }
        self.slots[pos] = (hash & Self::TAG) | (u64::from(i) + 1);
        self.len += 1;
    }
}

/// A 64-bit hash of (key index, sort key) without building the pair: the sort key's xxh3 seeded with the index.
fn pair_hash(idx: u32, sk: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(sk, u64::from(idx).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn span<'a>(arena: &'a [u8], ends: &[u64], i: usize) -> &'a [u8] {
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    let end = ends[i] as usize;
    &arena[start..end]
}

/// Indices of the `n` largest counts, largest first, ties by index; linear time plus `n log n`.
pub fn top_indices(counts: &[u64], n: usize) -> Vec<u32> {
    if n == 0 || counts.is_empty() {
        return Vec::new();
    }
    let mut idx: Vec<u32> = (0..counts.len() as u32).collect();
    let by_count = |a: &u32, b: &u32| counts[*b as usize].cmp(&counts[*a as usize]).then(a.cmp(b));
    if n < idx.len() {
        idx.select_nth_unstable_by(n - 1, by_count);
        idx.truncate(n);
    }
    idx.sort_unstable_by(by_count);
    idx
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

    #[test]
    fn top_breaks_ties_by_insertion_order() {
        let counts = [5, 9, 5, 1, 9, 0];
        assert_eq!(top_indices(&counts, 3), [1, 4, 0]);
        assert_eq!(top_indices(&counts, 10), [1, 4, 0, 2, 3, 5]);
        assert!(top_indices(&counts, 0).is_empty());
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

    #[test]
    fn sort_key_facts() {
        let mut set = KeySet::new(KeyType::S);
        set.set_write_ordered(true);
        let s = Some;
        // A time-ordered collection.
        for sk in ["EVT#001", "EVT#002", "EVT#002", "EVT#010"] {
            set.add_item(b"ARENA", s((sk.as_bytes(), KeyType::S)), 1);
        }
        // One item written again and again.
        for _ in 0..5 {
            set.add_item(b"BOARD", s((b"TOP".as_slice(), KeyType::S)), 1);
        }
        // A collection written out of order.
        for sk in ["b", "a", "c"] {
            set.add_item(b"MIXED", s((sk.as_bytes(), KeyType::S)), 1);
        }
        set.add(b"NOSK", 1);
        let arena = set.sort_key_facts(set.find(b"ARENA").unwrap()).unwrap();
        assert_eq!(arena.items, 3);
        assert!(arena.only_increasing);
        let board = set.sort_key_facts(set.find(b"BOARD").unwrap()).unwrap();
        assert_eq!(board.items, 1);
        assert!(
            !board.only_increasing,
            "one item is not an increasing collection"
        );
        let mixed = set.sort_key_facts(set.find(b"MIXED").unwrap()).unwrap();
        assert_eq!(mixed.items, 3);
        assert!(!mixed.only_increasing);
        assert_eq!(set.sort_key_facts(set.find(b"NOSK").unwrap()), None);
        // In read order (a scan, an export) the same collection is never called "only increasing", but its
        // values say it looks time-ordered.
        set.set_write_ordered(false);
        let arena = set.find(b"ARENA").unwrap();
        assert!(!set.sort_key_facts(arena).unwrap().only_increasing);
        let time = set.sort_key_time_pattern(arena).unwrap();
        assert_eq!(time.pattern, crate::model::sortkey::TimePattern::ZeroPadded);
        assert_eq!(time.prefix, "EVT#");
        assert_eq!(set.sort_key_time_pattern(set.find(b"MIXED").unwrap()), None);
    }

    #[test]
    fn pair_hash_separates_keys_and_sort_keys() {
        assert_ne!(pair_hash(0, b"a"), pair_hash(1, b"a"));
        assert_ne!(pair_hash(0, b"a"), pair_hash(0, b"b"));
        assert_eq!(pair_hash(7, b"sk"), pair_hash(7, b"sk"));
        // The same sort key under two keys is two items.
        let mut set = KeySet::new(KeyType::S);
        set.add_item(b"A", Some((b"x".as_slice(), KeyType::S)), 1);
        set.add_item(b"B", Some((b"x".as_slice(), KeyType::S)), 1);
        set.add_item(b"A", Some((b"x".as_slice(), KeyType::S)), 1);
        assert_eq!(set.sort_key_facts(0).unwrap().items, 1);
        assert_eq!(set.sort_key_facts(1).unwrap().items, 1);
    }

    #[test]
    fn numeric_sort_keys_compare_by_value() {
        let mut set = KeySet::new(KeyType::S);
        set.set_write_ordered(true);
        for sk in ["9", "10", "100"] {
            set.add_item(b"K", Some((sk.as_bytes(), KeyType::N)), 1);
        }
        assert!(set.sort_key_facts(0).unwrap().only_increasing);
    }
}

#[cfg(test)]
mod index_tests {
    use super::*;

    #[test]
    fn colliding_tags_and_growth_keep_every_key() {
        // Hashes that share their upper half (the tag) and their probe start: only the bytes tell them apart.
        let mut set = KeySet::new(KeyType::S);
        for i in 0..5000u64 {
            let key = format!("k{i}");
            set.add_hashed(key.as_bytes(), 0xabcd_0000_0000_0000 | (i % 7), 1);
        }
        for i in 0..5000u64 {
            let key = format!("k{i}");
            set.add_hashed(key.as_bytes(), 0xabcd_0000_0000_0000 | (i % 7), 2);
        }
        assert_eq!(set.len(), 5000);
        assert_eq!(set.total(), 15000);
        for i in [0u32, 1, 4999] {
            assert_eq!(set.count(i), 3);
            assert_eq!(set.key_bytes(i), format!("k{i}").as_bytes());
        }
    }
}

#[cfg(test)]
mod kept_tests {
    use super::*;

    #[test]
    fn item_sort_keys_are_kept_per_key_and_survive_a_merge() {
        let mut a = KeySet::new(KeyType::S);
        a.add_item(b"K", Some((b"s2".as_slice(), KeyType::S)), 1);
        a.add_item(b"K", Some((b"s1".as_slice(), KeyType::S)), 1);
        a.add_item(b"K", Some((b"s1".as_slice(), KeyType::S)), 1);
        a.add_item(b"J", Some((b"x".as_slice(), KeyType::S)), 1);
        let (k, all) = a.item_sort_keys(a.find(b"K").unwrap());
        assert_eq!(k, [b"s2".as_slice(), b"s1"]);
        assert!(all);
        let mut b = KeySet::new(KeyType::S);
        b.add_item(b"J", Some((b"y".as_slice(), KeyType::S)), 1);
        a.merge(&b);
        let (j, _) = a.item_sort_keys(a.find(b"J").unwrap());
        assert_eq!(j, [b"x".as_slice(), b"y"]);
        assert_eq!(KeySet::new(KeyType::S).item_sort_keys(0).0.len(), 0);
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    #[test]
    fn item_sizes_per_key_and_by_kb_survive_a_merge() {
        let mut a = KeySet::new(KeyType::S);
        let k = a.add(b"K", 1);
        a.note_item_bytes(k, 100, 1);
        a.note_item_bytes(k, 1024, 1);
        let j = a.add(b"J", 2);
        a.note_item_bytes(j, 5000, 2);
        assert_eq!(
            a.item_bytes(k),
            Some(KeyBytes {
                items: 2,
                bytes: 1124,
                max: 1024
            })
        );
        assert_eq!(a.item_bytes(k).unwrap().mean(), 562);
        let plain = a.add(b"plain", 1);
        assert_eq!(a.item_bytes(plain), None, "a key written without a size");
        let p = a.size_profile().unwrap();
        let kb: Vec<(u64, u64, u64)> = p.groups.iter().map(|g| (g.kb, g.items, g.bytes)).collect();
        assert_eq!(kb, [(1, 2, 1124), (5, 2, 10000)]);
        assert_eq!((p.items(), p.bytes(), p.mean()), (4, 11124, 2781));
        assert_eq!(a.largest_collection(), Some((j, a.item_bytes(j).unwrap())));

        let mut b = KeySet::new(KeyType::S);
        let j2 = b.add(b"J", 1);
        b.note_item_bytes(j2, 7000, 1);
        let n = b.add(b"N", 1);
        b.note_item_bytes(n, 1, 1);
        a.merge(&b);
        let j = a.find(b"J").unwrap();
        assert_eq!(a.item_bytes(j).unwrap().bytes, 17000);
        assert_eq!(a.item_bytes(j).unwrap().max, 7000);
        assert_eq!(a.item_bytes(a.find(b"N").unwrap()).unwrap().items, 1);
        assert_eq!(a.size_profile().unwrap().items(), 6);
        assert_eq!(KeySet::new(KeyType::S).size_profile(), None);
    }

    #[test]
    fn hash_set_counts_distinct_hashes_through_growth() {
        let mut set = HashSet64::default();
        for h in 0..10_000u64 {
            assert!(set.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
        for h in (0..10_000u64).step_by(7) {
            assert!(!set.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
        assert_eq!(set.len, 10_000);
        // Colliding probe starts still tell hashes apart.
        let mut set = HashSet64::default();
        for i in 0..100u64 {
            assert!(set.insert((i << 40) | 5));
        }
        assert!(!set.insert((7 << 40) | 5));
    }

    #[test]
    fn kept_sort_keys_stay_within_a_shared_budget() {
        let mut a = KeySet::with_kept_budget(KeyType::S, 4);
        for sk in ["aa", "bb", "cc"] {
            a.add_item(b"K", Some((sk.as_bytes(), KeyType::S)), 1);
        }
        let (kept, all) = a.item_sort_keys(0);
        assert_eq!(kept, [b"aa".as_slice(), b"bb"]);
        assert!(!all);
        assert_eq!(
            a.sort_key_facts(0).unwrap().items,
            3,
            "facts count every item"
        );
    }
}
