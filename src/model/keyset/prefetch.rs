//! Looking keys up in a pipeline: each key's index slot, then its entry (its count, and a short key's
//! bytes), then a long key's bytes are asked for from memory some keys ahead of the lookup that reads them,
//! so that many cache misses are in flight at once instead of one after the other.
//!
//! A million-key set does not fit in cache: a lookup of a key seen long ago misses on its slot, its end
//! offset, its bytes and its count, one after the other, about 100 ns each. Measured on the `analyze`
//! benchmark (10,000,000 lines, 1,000,000 distinct keys, one thread, this 2-core machine, user time):
//! looking each key up alone 1.23 s; batches of 32 whose lookups are first touched by plain loads 0.77 s
//! (a load that misses holds up everything after it once the CPU's window is full). With this pipeline of
//! prefetches, which hold up nothing, the whole `shardlens analyze` of `benches/lines_duckdb.sh`'s file
//! (10,000,000 lines, 762,704 distinct keys) takes 0.43 s on one core, reading and reporting included.
//!
//! The key whose memory is asked for is the first of the probe's next four slots with the hash's tag, not
//! the probe's first slot, whose key is of no use when the probe steps on past it: `Index::find` went from
//! 25 % to 13 % of the run (`perf record`, lookups in the merge included). On the same file on both cores (medians of 9 interleaved runs, a noisy day):
//! 0.46 s -> 0.41 s wall, 0.70 s -> 0.62 s user time.

use super::{Entry, INLINE, KeySet};

/// Asks for the cache line holding `value`; changes nothing (a no-op where the hint is not available).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    safe_arch::prefetch_t0(value);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = value;
}

/// How many keys ahead of its lookup each stage runs: the slot is asked for first, the entry once the slot is
/// in, a long key's bytes once the entry is in.
const AHEAD_SLOT: usize = 24;
const AHEAD_ENTRY: usize = 16;
const AHEAD_BYTES: usize = 8;
const RING: usize = 32;
/// Slots from a probe's start searched for the key a prefetch asks for.
const PROBE_AHEAD: usize = 4;

/// Where a [`Pipeline`]'s keys are read: a text, whose keys are given as `(start, end)`, or another key set,
/// whose keys are given as `(index, _)`.
pub trait KeyText {
    /// The key at `at`.
    fn key(&self, at: (usize, usize)) -> &[u8];

    /// Whether the key at `at` is longer than a key set's entry holds (so its bytes are in the arena).
    fn long(&self, at: (usize, usize)) -> bool;
}

impl KeyText for [u8] {
    #[inline]
    fn key(&self, at: (usize, usize)) -> &[u8] {
        &self[at.0..at.1]
    }

    #[inline]
    fn long(&self, at: (usize, usize)) -> bool {
        at.1.saturating_sub(at.0) > INLINE
    }
}

impl KeyText for KeySet {
    #[inline]
    fn key(&self, at: (usize, usize)) -> &[u8] {
        self.key_bytes(u32::try_from(at.0).unwrap_or(u32::MAX))
    }

    #[inline]
    fn long(&self, at: (usize, usize)) -> bool {
        self.entries.get(at.0).is_some_and(Entry::in_arena)
    }
}

/// Adds keys to a [`KeySet`] in order, each some keys after it was pushed, with its memory asked for ahead.
/// Keys are given as places in a text ([`KeyText`]) that outlives the pipeline's use: [`Self::drain`]
/// before the text goes.
#[derive(Debug, Clone)]
pub struct Pipeline {
    ring: [(usize, usize, u64, u64); RING],
    pushed: usize,
    added: usize,
}

impl Default for Pipeline {
    fn default() -> Self {
        Self {
            ring: [(0, 0, 0, 0); RING],
            pushed: 0,
            added: 0,
        }
    }
}

impl Pipeline {
    /// Queues `count` writes of the key `text[start..end]` (hash `hash`), adding the one queued
    /// [`AHEAD_SLOT`] keys before it; returns that key's index (keys come out in the order they went in).
    #[inline(always)]
    pub fn push<T: KeyText + ?Sized>(
        &mut self,
        keys: &mut KeySet,
        text: &T,
        key: (usize, usize),
        hash: u64,
        count: u64,
    ) -> Option<u32> {
        keys.prefetch_slot(hash);
        self.ring[self.pushed % RING] = (key.0, key.1, hash, count);
        self.pushed += 1;
        let n = self.pushed;
        if n > AHEAD_SLOT - AHEAD_ENTRY {
            keys.prefetch_entry(self.ring[(n - 1 - (AHEAD_SLOT - AHEAD_ENTRY)) % RING].2);
        }
        if n > AHEAD_SLOT - AHEAD_BYTES {
            // Only a long key's match has bytes in the arena: for a short one, finding out would read its
            // entry before it is in.
            let (start, end, hash, _) = self.ring[(n - 1 - (AHEAD_SLOT - AHEAD_BYTES)) % RING];
            if text.long((start, end)) {
                keys.prefetch_bytes(hash);
            }
        }
        (n > AHEAD_SLOT).then(|| self.add_next(keys, text))
    }

    /// How many pushed keys a push keeps back: a key pushed goes in this many pushes later.
    pub const DELAY: usize = AHEAD_SLOT;

    /// Text positions a queued key may still be read from: `text` places of pushes not yet added are read
    /// up to [`Self::DELAY`] pushes later, so a caller that reuses places must keep this many apart.
    pub const RING: usize = RING;

    /// Adds every key still queued, in order.
    pub fn drain<T: KeyText + ?Sized>(&mut self, keys: &mut KeySet, text: &T) {
        self.drain_each(keys, text, |_| {});
    }

    /// [`Self::drain`], giving each key's index in order.
    pub fn drain_each<T: KeyText + ?Sized>(
        &mut self,
        keys: &mut KeySet,
        text: &T,
        mut each: impl FnMut(u32),
    ) {
        while self.added < self.pushed {
            each(self.add_next(keys, text));
        }
        self.pushed = 0;
        self.added = 0;
    }

    #[inline(always)]
    fn add_next<T: KeyText + ?Sized>(&mut self, keys: &mut KeySet, text: &T) -> u32 {
        let (start, end, hash, count) = self.ring[self.added % RING];
        self.added += 1;
        keys.add_hashed(text.key((start, end)), hash, count)
    }
}

/// Asks for a key's memory a few records before the record is added, for a loader that adds whole records one
/// at a time and can see the ones coming ([`crate::source::read::for_each_line_ahead`]: an export's items).
/// Each coming key's hash goes to [`Self::ahead`] in order; the pushes after it take its later stages: its
/// index slot is asked for at once, its entry [`LOOK_ENTRY`] pushes later, its bytes, item
/// sizes and sort-key facts [`LOOK_ITEM`] pushes later, the last sort key's bytes one push after that.
/// A hint only: a hash that is not the key's costs a wasted fetch, never a wrong count.
///
/// Measured on `benches/export_load.sh` (2,000,000 items, 124,266 distinct keys, 8 gzip files): each
/// lookup alone missed on its slot, its end offset and its bytes one after the other; see the figures in
/// [`crate::source::dynamodb_json`].
#[derive(Debug, Clone, Default)]
pub struct Lookahead {
    ring: [u64; LOOK_RING],
    pushed: usize,
}

const LOOK_ENTRY: usize = 2;
const LOOK_ITEM: usize = 4;
const LOOK_RING: usize = 8;

impl Lookahead {
    /// Asks for the memory of a key of hash `hash`, coming a few records from now, and for later stages of
    /// the keys given before it.
    #[inline]
    pub fn ahead(&mut self, keys: &KeySet, hash: u64) {
        keys.prefetch_slot(hash);
        self.ring[self.pushed % LOOK_RING] = hash;
        self.pushed += 1;
        let n = self.pushed;
        if n > LOOK_ENTRY {
            keys.prefetch_entry(self.ring[(n - 1 - LOOK_ENTRY) % LOOK_RING]);
        }
        if n > LOOK_ITEM {
            keys.prefetch_item(self.ring[(n - 1 - LOOK_ITEM) % LOOK_RING]);
        }
        if n > LOOK_ITEM + 1 {
            keys.prefetch_last_sort_key(self.ring[(n - 2 - LOOK_ITEM) % LOOK_RING]);
        }
    }
}

impl KeySet {
    /// Adds one write of each key of a run, in order: key `j` is `text[spans[j].0..spans[j].1]`, of hash
    /// `hashes[j]`. The same set as [`Pipeline`] (or [`Self::add_hashed`] key by key) leaves.
    ///
    /// Each key's slot is asked for [`AHEAD_SLOT`] keys before it is added, as the pipeline does; [`AHEAD_ENTRY`]
    /// keys before, the slot is read for its candidate (the first of the probe's next few slots with the
    /// hash's tag), whose entry is asked for and noted. When the key's turn comes, a candidate that holds the
    /// key takes the write with no second probe; any other key (new, or its candidate stale after an insert)
    /// is added by [`Self::add_hashed`]. A candidate only names an entry, and entries never move, so a stale
    /// one costs a probe, never a wrong count.
    ///
    /// Why not the [`Pipeline`]: its ring of queued keys and the checks for how far along it is were about 50
    /// instructions a key, and each key was probed twice, once for its candidate and once to add it.
    /// Measured on `benches/lines_duckdb.sh`'s file (10,000,000 lines, this 2-core machine): 2.65 G -> 2.34 G
    /// instructions in all (`valgrind --tool=callgrind`), `shardlens analyze` 0.23 -> 0.21 s wall and 0.31 ->
    /// 0.29 s user time (medians of 21 interleaved runs). On long keys (5,000,000 lines of 36-byte UUIDs over
    /// 500,000 keys, Zipf), with their arena bytes asked for ahead ([`Self::run_ahead`]): 0.19 -> 0.16 s
    /// (medians of 15).
    pub fn add_run(&mut self, text: &[u8], spans: &[(usize, usize)], hashes: &[u64]) {
        let n = spans.len().min(hashes.len());
        let mut candidates = self.run_start(&hashes[..n]);
        for j in 0..n {
            self.run_ahead(&hashes[..n], &mut candidates, j);
            let (start, end) = spans[j];
            let key = &text[start..end];
            match self.entries.get_mut(candidates[j % RING]) {
                Some(e) if e.is(key, &self.arena) => {
                    e.count += 1;
                    self.total += 1;
                }
                _ => {
                    self.add_hashed(key, hashes[j], 1);
                }
            }
        }
    }

    /// Where each key `range` of `other` is in this set ([`super::NEW_KEY`] for a key it does not hold), in
    /// order: looked up as [`Self::add_run`] adds, each key's slot asked for ahead, then its candidate entry,
    /// which is taken when it holds the key (changes nothing, so no candidate goes stale).
    ///
    /// Measured on the key lines bench's merge (its second stretch's 570,878 keys looked up in the first's
    /// 571,546): 85 -> 57 M instructions (`valgrind --tool=callgrind`) against asking for each key's slot,
    /// entry and bytes ahead and then probing for it.
    pub fn lookup_part(&self, other: &KeySet, range: std::ops::Range<usize>) -> Vec<u32> {
        let range = range.start.min(other.len())..range.end.min(other.len());
        let hashes = &other.hashes[range.clone()];
        let mut candidates = self.run_start(hashes);
        let mut places = Vec::with_capacity(hashes.len());
        for (j, &hash) in hashes.iter().enumerate() {
            self.run_ahead(hashes, &mut candidates, j);
            let key = other.key_bytes((range.start + j) as u32);
            let place = match self.entries.get(candidates[j % RING]) {
                Some(e) if e.is(key, &self.arena) => Some(candidates[j % RING] as u32),
                _ => self.find_hashed(key, hash),
            };
            places.push(place.unwrap_or(super::NEW_KEY));
        }
        places
    }

    /// Before a run of lookups of keys of `hashes`: the first [`AHEAD_SLOT`] keys' slots asked for, and the
    /// candidates of the first [`AHEAD_ENTRY`] (by key, modulo [`RING`]).
    fn run_start(&self, hashes: &[u64]) -> [usize; RING] {
        let mut candidates = [usize::MAX; RING];
        for &h in hashes.iter().take(AHEAD_SLOT) {
            self.prefetch_slot(h);
        }
        for (j, &h) in hashes.iter().enumerate().take(AHEAD_ENTRY) {
            candidates[j % RING] = self.candidate(h);
        }
        candidates
    }

    /// At lookup `j` of a run of keys of `hashes`: asks for the slot of the key [`AHEAD_SLOT`] on, notes the
    /// candidate of the one [`AHEAD_ENTRY`] on (its entry asked for), and asks for the arena bytes of the
    /// candidate of the one [`AHEAD_BYTES`] on when it holds them (a long key; its entry, asked for eight keys
    /// before, tells). On short keys, where it asks for nothing, this stage is 2 % of the key lines bench's
    /// instructions (2.39 against 2.34 G).
    #[inline(always)]
    fn run_ahead(&self, hashes: &[u64], candidates: &mut [usize; RING], j: usize) {
        if let Some(&h) = hashes.get(j + AHEAD_SLOT) {
            self.prefetch_slot(h);
        }
        if let Some(&h) = hashes.get(j + AHEAD_ENTRY) {
            candidates[(j + AHEAD_ENTRY) % RING] = self.candidate(h);
        }
        if let Some(e) = self.entries.get(candidates[(j + AHEAD_BYTES) % RING])
            && e.in_arena()
            && let Some(first) = self.arena.get(e.start())
        {
            prefetch(first);
        }
    }

    /// The entry a key of hash `hash` is most likely in ([`Self::home_key`]), asked for from memory;
    /// `usize::MAX` for none.
    #[inline(always)]
    fn candidate(&self, hash: u64) -> usize {
        match self.home_key(hash) {
            Some(i) => {
                let e = &self.entries[i];
                prefetch(e);
                prefetch(e.last_byte());
                i
            }
            None => usize::MAX,
        }
    }

    /// Asks for the home key's bytes, its item sizes and its sort-key facts.
    #[inline]
    fn prefetch_item(&self, hash: u64) {
        let Some(i) = self.home_key(hash) else {
            return;
        };
        self.prefetch_bytes(hash);
        if let Some(k) = self.sizes.as_ref().and_then(|s| s.per_key.get(i)) {
            prefetch(k);
        }
        if let Some(t) = &self.sort_keys {
            if let Some(f) = t.facts.get(i) {
                prefetch(f);
            }
            if let Some(l) = t.last.entry(i) {
                prefetch(l);
            }
            if let Some(f) = t.first.get(i) {
                prefetch(f);
            }
        }
    }

    /// Asks for the home key's last sort key's bytes (its entry, asked for by [`Self::prefetch_item`]).
    #[inline]
    fn prefetch_last_sort_key(&self, hash: u64) {
        let Some(i) = self.home_key(hash) else {
            return;
        };
        if let Some(b) = self.sort_keys.as_ref().and_then(|t| t.last.first_byte(i)) {
            prefetch(b);
        }
    }

    /// Asks for the slot the distinct-item test of key hash `hash` and sort key `sk` starts at, when items
    /// are counted (not an export's, which are distinct).
    #[inline]
    pub fn prefetch_seen(&self, hash: u64, sk: &[u8]) {
        if let (Some(t), false) = (&self.sort_keys, self.items_distinct) {
            t.seen.prefetch(super::sort_keys::pair_hash(hash, sk));
        }
    }

    /// Asks for the index slot a lookup of `hash` starts at.
    #[inline]
    fn prefetch_slot(&self, hash: u64) {
        self.index.prefetch_slot(hash);
    }

    /// The key a lookup of `hash` will compare against: the first of the probe's next few slots whose tag is
    /// the hash's (its slot was asked for a stage before, so these reads hit the cache), if any. Taking the
    /// home slot's key alone asked for the wrong key's memory whenever a probe had to step on (measured: see
    /// the module's notes). A key not found there is most likely new, and any other key's memory is of no use
    /// to its lookup: asking for it anyway (as this did until the key-expression loads staged their items with
    /// [`Lookahead`], whose keys are mostly new for `{pk}#{status}#{tags.0}`) made that load 8 % slower.
    #[inline]
    fn home_key(&self, hash: u64) -> Option<usize> {
        let mask = self.index.slots.len().checked_sub(1)?;
        let home = hash as usize & mask;
        let tag = hash & super::Index::TAG;
        let mut slot = 0;
        for step in 0..PROBE_AHEAD {
            let s = self.index.slots[(home + step) & mask];
            if s == 0 {
                break;
            }
            if s & super::Index::TAG == tag {
                slot = s;
                break;
            }
        }
        let i = (slot as u32).wrapping_sub(1) as usize;
        (i < self.entries.len()).then_some(i)
    }

    /// Asks for the home key's entry: its count, and its bytes when it is held there (both ends, for an
    /// entry across two cache lines).
    #[inline]
    fn prefetch_entry(&self, hash: u64) {
        if let Some(e) = self.home_key(hash).map(|i| &self.entries[i]) {
            prefetch(e);
            prefetch(e.last_byte());
        }
    }

    /// Asks for the home key's first bytes in the arena, for a key held there (a longer one).
    #[inline]
    fn prefetch_bytes(&self, hash: u64) {
        if let Some(e) = self.home_key(hash).map(|i| &self.entries[i])
            && e.in_arena()
            && let Some(b) = self.arena.get(e.start())
        {
            prefetch(b);
        }
    }
}
