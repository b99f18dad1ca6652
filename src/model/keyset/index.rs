//! The two hash tables of a key set, both open addressing with linear probing over `u64` slots, at most
//! half full: [`Index`] finds a key's position from its hash, [`HashSet64`] counts distinct (key, sort key)
//! pairs by their hashes ([`Pairs`]: one such table a load adds to, and those of the sets merged into it).

/// Open addressing with linear probing over `u64` slots: `(hash >> 32) << 32 | (index + 1)`, 0 = empty.
/// At most half full, so probes are short; the 32-bit tag makes a false match (then checked against the
/// key's bytes) a one-in-four-billion event.
///
/// Why our own table and not `hashbrown::HashTable` holding indices (measured for issue 12, commit 7c6c05f's
/// `benches/peers.sh`, medians of 5 interleaved runs, release, this 2-core shared machine): 10,000,000 adds
/// of the `analyze` benchmark's keys (1,000,000 distinct, Zipf), the hash given:
///
/// | index                                                           | adds    | held    |
/// |-----------------------------------------------------------------|---------|---------|
/// | this table, batches of 32 touched first ([`super::KeySet::warm`]) | 1.39 s  | 73.4 MB |
/// | this table, no touching                                          | 1.99 s  | 73.4 MB |
/// | `hashbrown::HashTable<u64>` (index + hash tag, 0.17)             | 2.90 s  | 75.5 MB |
/// | `hashbrown::HashTable<u32>` (index only)                         | 2.87 s  | 75.5 MB |
///
/// hashbrown's control-byte groups are a second array to touch before the entry, and its API has no way to
/// read a probe's first entry without running the whole lookup, so `warm` cannot hide the miss; it was 2.1×
/// slower (1.4× without `warm` on our side). The crate is already in the build graph, so it would have cost
/// no build time; it lost on speed alone.
#[derive(Debug, Clone, Default)]
pub(super) struct Index {
    pub(super) slots: Vec<u64>,
    len: usize,
}

impl Index {
    pub(super) const TAG: u64 = 0xffff_ffff_0000_0000;

    #[inline(always)]
    pub(super) fn find(&self, hash: u64, eq: impl Fn(u32) -> bool) -> Option<u32> {
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
    pub(super) fn insert(&mut self, hash: u64, i: u32, hashes: &[u64]) {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow_to((self.slots.len() * 2).max(16), hashes, Some(i));
        }
        self.place(hash, i);
    }

    /// Grows, if need be, to hold `keys` keys at most half full, so that inserting up to that many grows no
    /// more; `hashes` holds the hash of every key in the index.
    pub(super) fn reserve(&mut self, keys: usize, hashes: &[u64]) {
        let cap = keys.saturating_mul(2).next_power_of_two().max(16);
        if cap > self.slots.len() {
            self.grow_to(cap, hashes, None);
        }
    }

    /// `cap` empty slots, then every key of `hashes` (key `j` of hash `hashes[j]`) but `skip` placed again.
    fn grow_to(&mut self, cap: usize, hashes: &[u64], skip: Option<u32>) {
        self.slots = written_zeros(cap);
        self.len = 0;
        for (j, &h) in hashes.iter().enumerate() {
            // The slot of the key some keys on, asked for now: the places are random, and one after the
            // other each waited for its slot's memory.
            if let Some(&ahead) = hashes.get(j + GROW_AHEAD) {
                self.prefetch_slot(ahead);
            }
            if Some(j as u32) != skip {
                self.place(h, j as u32);
            }
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8
    }

    /// Asks for the slot a lookup (or an insert) of `hash` starts at.
    #[inline]
    pub(super) fn prefetch_slot(&self, hash: u64) {
        if let Some(mask) = self.slots.len().checked_sub(1) {
            super::prefetch::prefetch(&self.slots[hash as usize & mask]);
        }
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

/// How many keys ahead of its placing a growing index asks for a key's slot.
const GROW_AHEAD: usize = 16;

/// `n` zero slots whose pages are already written.
///
/// `vec![0; n]` of a large `n` is fresh zero pages from the kernel; probing reads them first, which maps the
/// shared zero page, and the insert that follows takes a copy-on-write fault that flushes the TLB of every
/// core the process runs on (an inter-processor interrupt each). With the key-line readers on both cores,
/// that was 36 % of `analyze`'s 10 M lines (`perf record -g`: `do_wp_page` → `flush_tlb_mm_range`, 0.46 s of
/// system time). One write per 4 KiB page turns those into plain first-touch faults.
fn written_zeros(n: usize) -> Vec<u64> {
    let mut v = vec![0u64; n];
    for slot in v.iter_mut().step_by(512) {
        // `black_box`: the compiler knows the memory is zero and would drop a plain store of 0.
        *slot = std::hint::black_box(0);
    }
    v
}

/// A set of 64-bit hashes: open addressing with linear probing, at most half full, 0 standing for empty (a
/// hash of 0 is stored as 1).
#[derive(Debug, Clone, Default)]
pub(super) struct HashSet64 {
    slots: Vec<u64>,
    len: usize,
}

impl HashSet64 {
    /// Whether `hash` was added.
    pub(super) fn contains(&self, hash: u64) -> bool {
        let hash = hash.max(1);
        let Some(mask) = self.slots.len().checked_sub(1) else {
            return false;
        };
        let mut pos = hash as usize & mask;
        loop {
            match self.slots[pos] {
                0 => return false,
                h if h == hash => return true,
                _ => pos = (pos + 1) & mask,
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The hashes held (as stored: 0 as 1), in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.slots.iter().copied().filter(|&h| h != 0)
    }

    /// Adds `hash`; returns whether it was new.
    pub(super) fn insert(&mut self, hash: u64) -> bool {
        let hash = hash.max(1);
        if (self.len + 1) * 2 > self.slots.len() {
            let grown = written_zeros((self.slots.len() * 2).max(16));
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

    /// Asks for the slot an insert of `hash` starts its probe at (changes nothing).
    #[inline]
    pub(super) fn prefetch(&self, hash: u64) {
        if let Some(mask) = self.slots.len().checked_sub(1) {
            super::prefetch::prefetch(&self.slots[hash.max(1) as usize & mask]);
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 8
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

/// The most tables [`Pairs`] keeps apart; one more and they are joined into one.
const MAX_PARTS: usize = 4;

/// Distinct (key, sort key) pair hashes: the table a load adds to, and the tables of the sets merged into this
/// one by plan, kept as they came ([`Self::append`]). The tables share no hash, so the set is their union.
///
/// Why apart: a file read in stretches merges their sets at the end, on one core while the other waits, and
/// adding the second stretch's million pairs to the first's table, growing it to 32 MB, was the longest step
/// of that merge (`perf record` of `benches/json_array.sh`'s lines, 2,000,000 items: about 50 ms of the
/// merge's 100 under `perf`). A table moved in is one pointer; what looks a pair up asks each table (a few
/// at most), and a load that adds pairs after a merge checks the merged tables before its own.
#[derive(Debug, Clone, Default)]
pub(super) struct Pairs {
    /// Where new pairs go.
    own: HashSet64,
    /// Tables moved in whole, none sharing a hash with another or with `own`.
    merged: Vec<HashSet64>,
}

impl Pairs {
    /// Whether `hash` was added.
    pub(super) fn contains(&self, hash: u64) -> bool {
        self.own.contains(hash) || self.merged.iter().any(|t| t.contains(hash))
    }

    pub(super) fn len(&self) -> usize {
        self.own.len() + self.merged.iter().map(HashSet64::len).sum::<usize>()
    }

    /// The hashes held (as stored: 0 as 1), in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(&self.own)
            .chain(&self.merged)
            .flat_map(HashSet64::iter)
    }

    /// Adds `hash`; returns whether it was new.
    pub(super) fn insert(&mut self, hash: u64) -> bool {
        if self.merged.iter().any(|t| t.contains(hash)) {
            return false;
        }
        self.own.insert(hash)
    }

    /// Asks for the slot an insert of `hash` into the table loads add to starts its probe at.
    #[inline]
    pub(super) fn prefetch(&self, hash: u64) {
        self.own.prefetch(hash);
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.own.heap_bytes() + self.merged.iter().map(HashSet64::heap_bytes).sum::<usize>()
    }

    /// Adds every hash of `other`; `false` when one was here already. (Growing once for all of them and asking
    /// for each slot some hashes ahead was measured: no faster on a merge of two million-pair tables.)
    pub(super) fn insert_all(&mut self, other: &Pairs) -> bool {
        let mut all_new = true;
        for h in other.iter() {
            all_new &= self.insert(h);
        }
        all_new
    }

    /// Whether any hash of `other` is here.
    pub(super) fn shares_any(&self, other: &Pairs) -> bool {
        other.iter().any(|h| self.contains(h))
    }

    /// Takes in `other`'s tables whole, which must share no hash with this set (a merge by plan has checked:
    /// [`super::KeySet::merge_plan`]). Past [`MAX_PARTS`] tables, they are joined into one.
    pub(super) fn append(&mut self, other: Pairs) {
        let tables = std::iter::once(other.own).chain(other.merged);
        self.merged.extend(tables.filter(|t| t.len() > 0));
        if self.merged.len() >= MAX_PARTS {
            for table in std::mem::take(&mut self.merged) {
                for h in table.iter() {
                    self.own.insert(h);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KeySet, KeyType};

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

    #[test]
    fn pairs_apart_are_their_union() {
        let table = |from: u64, to: u64| {
            let mut p = Pairs::default();
            for h in from..to {
                p.insert(h.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            }
            p
        };
        let mut all = table(0, 1000);
        for k in 1..7u64 {
            // Each merged in apart; the fourth join makes one table again.
            all.append(table(1000 * k, 1000 * k + 1000));
            assert_eq!(all.len(), 1000 * (k as usize + 1));
            assert!(all.merged.len() < MAX_PARTS);
            let mut seen: Vec<u64> = all.iter().collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), all.len());
        }
        assert_eq!(
            all.merged.len(),
            2,
            "joined at the fourth, then two more apart"
        );
        for h in [0u64, 999, 1000, 6999] {
            let h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            assert!(all.contains(h));
            assert!(!all.insert(h), "a hash of a merged table is not new");
        }
        assert!(all.insert(7000u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        assert!(all.shares_any(&table(6990, 7010)));
        assert!(!all.shares_any(&table(7001, 7010)));
        assert_eq!(all.len(), 7001);
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
}
