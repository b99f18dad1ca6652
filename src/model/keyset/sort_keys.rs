//! Sort keys per partition key: how many distinct items each key's collection holds, whether its sort keys
//! only ever increased in write order, and a bounded sample of the sort keys themselves (the partition
//! inspector's item collections).

use super::index::Pairs;
use super::{KeySet, NEW_KEY};
use crate::model::key::{KeyType, compare_keys};

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
pub(super) struct SortKeys {
    pub(super) sk_type: KeyType,
    /// Indexed by key; `items == 0` for keys written without a sort key.
    pub(super) facts: Vec<SortKeyFacts>,
    /// The last sort key seen for each key (only while it is still "only increasing"), when the set tracks
    /// write order (see [`KeySet::set_read_order`]).
    pub(super) last: LastSortKeys,
    /// Per key, the pair hash ([`pair_hash`]) of its first item, while it has one item and items are counted
    /// (not [`KeySet::set_items_distinct`]): it goes into `seen` when a second item comes.
    pub(super) first: Vec<u64>,
    /// Hashes of (key index, sort key) pairs seen, to count distinct items.
    pub(super) seen: Pairs,
    /// The distinct sort keys themselves within a byte budget (the partition inspector's item collections).
    pub(super) kept: KeptSortKeys,
    pub(super) kept_budget: usize,
    /// Every distinct sort key fitted in the budget.
    pub(super) kept_all: bool,
    /// A sort key did not fit the budget as it is: no later one is kept (until the budget grows, as a loader
    /// thread's share of it does when its set becomes the whole load's).
    pub(super) full: bool,
}

/// The last sort key of each key, back to back in one arena: a key's first sort key is one copy onto the end,
/// and a later one of no greater length is written over it. Boxed one by one, each key's first sort key was an
/// allocation: 1.9 million of them when 2,000,000 export items are re-keyed by `{pk}#{status}#{tags.0}`.
#[derive(Debug, Clone, Default)]
pub(super) struct LastSortKeys {
    /// Per key: where its sort key starts in `arena` ([`Self::NONE`]: none), its length and the room it has.
    at: Vec<(u64, u32, u32)>,
    arena: Vec<u8>,
}

impl LastSortKeys {
    const NONE: u64 = u64::MAX;

    /// Makes room for `n` keys (the new ones without a sort key).
    pub(super) fn resize(&mut self, n: usize) {
        self.at.resize(n, (Self::NONE, 0, 0));
    }

    pub(super) fn get(&self, i: usize) -> Option<&[u8]> {
        let &(start, len, _) = self.at.get(i)?;
        if start == Self::NONE {
            return None;
        }
        let start = start as usize;
        self.arena.get(start..start + len as usize)
    }

    /// Sets key `i`'s sort key: over the last one when it fits, else onto the end with twice the room
    /// (a key whose sort keys keep growing wastes at most twice its longest).
    pub(super) fn set(&mut self, i: usize, sk: &[u8]) {
        let Some(at) = self.at.get_mut(i) else {
            return;
        };
        let len = u32::try_from(sk.len()).unwrap_or(u32::MAX);
        if at.0 != Self::NONE && len <= at.2 {
            let start = at.0 as usize;
            if let Some(room) = self.arena.get_mut(start..start + sk.len()) {
                room.copy_from_slice(sk);
                at.1 = len;
                return;
            }
        }
        let room = if at.0 == Self::NONE {
            len
        } else {
            len.max(at.2.saturating_mul(2))
        };
        let start = self.arena.len();
        self.arena.extend_from_slice(sk);
        self.arena.resize(start + room as usize, 0);
        *at = (start as u64, len, room);
    }

    /// Key `i` has no last sort key any more (its room stays in the arena, unused).
    pub(super) fn clear(&mut self, i: usize) {
        if let Some(at) = self.at.get_mut(i) {
            *at = (Self::NONE, 0, 0);
        }
    }

    /// Where key `i`'s entry and bytes are, for a prefetch: its entry, and its first byte if it has one.
    pub(super) fn entry(&self, i: usize) -> Option<&(u64, u32, u32)> {
        self.at.get(i)
    }

    pub(super) fn first_byte(&self, i: usize) -> Option<&u8> {
        let &(start, len, _) = self.at.get(i)?;
        (start != Self::NONE && len > 0)
            .then(|| self.arena.get(start as usize))
            .flatten()
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.at.capacity() * std::mem::size_of::<(u64, u32, u32)>() + self.arena.capacity()
    }
}

/// The sort keys a set keeps, in input order: back to back in an arena, with (key index, end offset in the
/// arena) per sort key; after a merge that took another set's whole ([`KeySet::merge_taking_sort_keys`]), in
/// runs of such arenas, read one after the other.
///
/// Runs and not one arena: copying a loader thread's kept sort keys onto the end of the other's was half of the
/// S3 export bench's merge after its threads (2,000,000 items, 32-byte sort keys: 16 MB and 500,000 entries
/// copied into fresh pages, 12 of 22 ms on the one thread that merges).
#[derive(Debug, Clone, Default)]
pub(super) struct KeptSortKeys {
    /// Earlier runs, and their bytes of sort key.
    runs: Vec<KeptRun>,
    runs_bytes: usize,
    /// The run sort keys are added to.
    last: KeptRun,
}

/// Sort keys back to back: (key index, end offset in `arena`) per sort key.
#[derive(Debug, Clone, Default)]
struct KeptRun {
    entries: Vec<(u32, u32)>,
    arena: Vec<u8>,
}

impl KeptRun {
    fn iter(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        let mut start = 0usize;
        self.entries.iter().map(move |&(idx, end)| {
            let sk = self.arena.get(start..end as usize).unwrap_or_default();
            start = end as usize;
            (idx, sk)
        })
    }

    fn heap_bytes(&self) -> usize {
        self.entries.capacity() * 8 + self.arena.capacity()
    }
}

impl KeptSortKeys {
    /// Bytes of sort key kept.
    fn bytes(&self) -> usize {
        self.runs_bytes + self.last.arena.len()
    }

    fn push(&mut self, idx: u32, sk: &[u8]) {
        let run = &mut self.last;
        run.arena.extend_from_slice(sk);
        run.entries.push((idx, run.arena.len() as u32));
    }

    /// Each kept sort key with its key's index, in order.
    fn iter(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        self.runs
            .iter()
            .chain(std::iter::once(&self.last))
            .flat_map(KeptRun::iter)
    }

    fn heap_bytes(&self) -> usize {
        self.runs.iter().map(KeptRun::heap_bytes).sum::<usize>() + self.last.heap_bytes()
    }

    /// Puts `other`'s sort keys after these without copying them, its key indices turned into this set's by
    /// `mapped` (the index here of each key of `other`).
    fn append(&mut self, other: KeptSortKeys, mapped: &[u32]) {
        let mut theirs = other.runs;
        theirs.push(other.last);
        for run in &mut theirs {
            for e in &mut run.entries {
                e.0 = mapped.get(e.0 as usize).copied().unwrap_or(e.0);
            }
        }
        let last = theirs.pop().unwrap_or_default();
        let mine = std::mem::replace(&mut self.last, last);
        for run in std::iter::once(mine).chain(theirs) {
            if !run.entries.is_empty() {
                self.runs_bytes += run.arena.len();
                self.runs.push(run);
            }
        }
    }
}

/// Sort keys kept for the item-collection view, in bytes of sort key: a bounded sample of large inputs.
pub const MAX_KEPT_SORT_KEY_BYTES: usize = 32 << 20;

impl SortKeys {
    pub(super) fn new(sk_type: KeyType, kept_budget: usize) -> Self {
        Self {
            sk_type,
            facts: Vec::new(),
            last: LastSortKeys::default(),
            first: Vec::new(),
            seen: Pairs::default(),
            kept: KeptSortKeys::default(),
            kept_budget,
            kept_all: true,
            full: false,
        }
    }

    /// Keeps `sk` for key `idx` while every sort key so far has fitted: the kept sort keys are the first ones of
    /// the input, in order, so sets loaded apart with the whole budget each and merged in input order keep
    /// what one set that read it all would have (a later, shorter sort key is not kept after a longer one did
    /// not fit).
    pub(super) fn keep(&mut self, idx: u32, sk: &[u8]) {
        if self.full || self.kept.bytes() + sk.len() > self.kept_budget {
            self.kept_all = false;
            self.full = true;
            return;
        }
        self.kept.push(idx, sk);
    }

    pub(super) fn kept_iter(&self) -> impl Iterator<Item = (u32, &[u8])> + '_ {
        self.kept.iter()
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.facts.capacity() * std::mem::size_of::<SortKeyFacts>()
            + self.last.heap_bytes()
            + self.first.capacity() * 8
            + self.seen.heap_bytes()
            + self.kept.heap_bytes()
    }
}

impl KeySet {
    /// Notes key `idx`'s (of [`key_hash`](crate::model::key_hash) `key_hash`) sort key `sk`.
    pub(super) fn note_sort_key(&mut self, idx: u32, key_hash: u64, sk: &[u8], sk_type: KeyType) {
        let n = self.entries.len();
        let (budget, distinct, track) = (self.kept_budget, self.items_distinct, self.track_order);
        let tracker = self
            .sort_keys
            .get_or_insert_with(|| SortKeys::new(sk_type, budget));
        if tracker.facts.len() < n {
            tracker.facts.resize(n, SortKeyFacts::default());
            if track {
                tracker.last.resize(n);
            }
        }
        let i = idx as usize;
        let new_item = distinct || {
            // A key's first item goes into `seen` only when a second one comes (its pair hash waits in
            // `first`): most keys of a re-keyed export have one item, and each insert is a cache miss in
            // a table of millions (`perf record`, `{pk}#{status}#{tags.0}` over 2,000,000 items: the inserts
            // were 9 % of the load).
            if tracker.first.len() < n {
                tracker.first.resize(n, 0);
            }
            let pair = pair_hash(key_hash, sk);
            match tracker.facts[i].items {
                0 => {
                    tracker.first[i] = pair;
                    true
                }
                1 => {
                    tracker.seen.insert(tracker.first[i]);
                    tracker.seen.insert(pair)
                }
                _ => tracker.seen.insert(pair),
            }
        };
        if new_item {
            tracker.keep(idx, sk);
        }
        let facts = &mut tracker.facts[i];
        if new_item {
            facts.items += 1;
        }
        if !track {
            return;
        }
        match (tracker.last.get(i), facts.items) {
            (None, 1) if new_item => {
                facts.only_increasing = true;
                tracker.last.set(i, sk);
            }
            (Some(last), _) => {
                if compare_keys(sk, last, tracker.sk_type).is_lt() {
                    facts.only_increasing = false;
                    tracker.last.clear(i);
                } else {
                    tracker.last.set(i, sk);
                }
            }
            _ => {}
        }
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
    pub fn sort_key_time_pattern(&self, idx: u32) -> Option<crate::model::sortkey::TimeOrdered> {
        let ty = self.sort_key_type()?;
        let t = self.sort_keys.as_ref()?;
        let sks: Vec<&[u8]> = t
            .kept_iter()
            .filter(|(i, _)| *i == idx)
            .map(|(_, sk)| sk)
            .take(crate::model::sortkey::SAMPLE)
            .collect();
        crate::model::sortkey::infer(&sks, ty)
    }

    pub fn has_sort_keys(&self) -> bool {
        self.sort_keys.is_some()
    }

    pub fn sort_key_type(&self) -> Option<KeyType> {
        self.sort_keys.as_ref().map(|s| s.sk_type)
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

    /// Adds the sort-key facts of `other`'s key `i` to this set's key `idx` (the same key). When both sets count
    /// distinct items, the key's item pairs go where a set that read both inputs would have them (a key with
    /// one item keeps its pair in `first`, a key with more has all of them in `seen`; the pairs `other` holds
    /// in its `seen` are added by [`Self::merge_seen`]). `false` when `other`'s one item of this key is one this
    /// set has already: it is not counted twice, but the kept sort keys may hold it twice.
    pub(super) fn merge_sort_key_facts(&mut self, idx: u32, other: &KeySet, i: u32) -> bool {
        let (Some(facts), Some(theirs)) = (other.sort_key_facts(i), other.sort_keys.as_ref())
        else {
            return true;
        };
        let counting = !self.items_distinct && !other.items_distinct;
        let budget = self.kept_budget;
        let (at, track) = (idx as usize, self.track_order);
        let tracker = self
            .sort_keys
            .get_or_insert_with(|| SortKeys::new(theirs.sk_type, budget));
        if tracker.facts.len() <= at {
            tracker.facts.resize(at + 1, SortKeyFacts::default());
            if track {
                tracker.last.resize(at + 1);
            }
        }
        let before = tracker.facts[at].items;
        let mut exact = true;
        let mut added = facts.items;
        if counting && before + facts.items >= 2 {
            if before == 1
                && let Some(&pair) = tracker.first.get(at)
            {
                tracker.seen.insert(pair);
            }
            if facts.items == 1
                && let Some(&pair) = theirs.first.get(i as usize)
                && !tracker.seen.insert(pair)
            {
                added = 0;
                exact = false;
            }
        }
        let mine = &mut tracker.facts[at];
        mine.items += added;
        mine.only_increasing = before == 0 && facts.only_increasing;
        // A key that arrives with one item keeps that item's hash, for the items added after the merge.
        if let (0, 1, Some(&pair)) = (before, facts.items, theirs.first.get(i as usize)) {
            if tracker.first.len() <= at {
                tracker.first.resize(at + 1, 0);
            }
            tracker.first[at] = pair;
        }
        exact
    }

    /// Where each key of `other` is in this set ([`NEW_KEY`] for a key it does not hold); `None` when both sets
    /// count distinct items and hold one in common (then [`Self::merge_counted`] would count it twice). Changes
    /// nothing; [`Self::merge_planned`] merges by it without looking the keys up again. (Asking for each key's
    /// memory some keys ahead, as loads do, was measured: 42–45 ms either way for a million keys.) A loader
    /// may look up parts of `other` at once ([`Self::lookup_part`], then [`Self::plan_from`]).
    pub fn merge_plan(&self, other: &KeySet) -> Option<Vec<u32>> {
        self.plan_from(other, self.lookup_part(other, 0..other.len()))
    }

    /// [`Self::merge_plan`] from the places of all of `other`'s keys ([`Self::lookup_part`]s joined in order);
    /// `None` too when `plan` does not hold one place per key.
    pub fn plan_from(&self, other: &KeySet, plan: Vec<u32>) -> Option<Vec<u32>> {
        if plan.len() != other.len() {
            return None;
        }
        if self.items_distinct || other.items_distinct {
            return Some(plan);
        }
        let (Some(mine), Some(theirs)) = (self.sort_keys.as_ref(), other.sort_keys.as_ref()) else {
            return Some(plan);
        };
        let items = |t: &SortKeys, i: usize| t.facts.get(i).map_or(0, |f| f.items);
        for (i, &idx) in plan.iter().enumerate() {
            let t = items(theirs, i);
            if t == 0 || idx == NEW_KEY {
                continue;
            }
            let (at, m) = (idx as usize, items(mine, idx as usize));
            let shared = match (m, t) {
                (0, _) => false,
                (1, 1) => mine.first.get(at) == theirs.first.get(i),
                (1, _) => mine.first.get(at).is_some_and(|&p| theirs.seen.contains(p)),
                (_, 1) => theirs.first.get(i).is_some_and(|&p| mine.seen.contains(p)),
                // Both hold several: their pairs are in both `seen` tables, checked below.
                _ => false,
            };
            if shared {
                return None;
            }
        }
        let (small, large) = if mine.seen.len() <= theirs.seen.len() {
            (&mine.seen, &theirs.seen)
        } else {
            (&theirs.seen, &mine.seen)
        };
        (!large.shares_any(small)).then_some(plan)
    }

    /// Adds the item pairs `other` holds in its `seen` (its keys' with two items or more) to this set's, after
    /// [`Self::merge_sort_key_facts`] for every key. `false` when one of them is here already: an item both
    /// sets counted, which this set then counts twice (the pair does not say whose key it is).
    pub(super) fn merge_seen(&mut self, other: &KeySet) -> bool {
        if self.items_distinct || other.items_distinct {
            return true;
        }
        let (Some(mine), Some(theirs)) = (self.sort_keys.as_mut(), other.sort_keys.as_ref()) else {
            return true;
        };
        mine.seen.insert_all(&theirs.seen)
    }

    /// [`Self::merge_seen`] of item pairs taken out of a set merged by plan, which shares none with this set
    /// ([`Self::merge_plan`] checked): its tables are moved in whole ([`Pairs::append`]).
    pub(super) fn append_seen(&mut self, seen: Pairs) {
        if self.items_distinct {
            return;
        }
        if let Some(mine) = self.sort_keys.as_mut() {
            mine.seen.append(seen);
        }
    }

    /// Keeps `other`'s kept sort keys too; `mapped[i]` is the index here of `other`'s key `i`.
    /// Keeps `taken` (the sort keys another set kept, taken out of it before the merge) after this set's, as
    /// keeping them one by one would: moved whole when they all fit the budget.
    pub(super) fn append_kept_sort_keys(&mut self, taken: KeptSortKeys, mapped: &[u32]) {
        let Some(mine) = self.sort_keys.as_mut() else {
            return;
        };
        if !mine.full && mine.kept.bytes() + taken.bytes() <= mine.kept_budget {
            mine.kept.append(taken, mapped);
        } else {
            for (i, sk) in taken.iter() {
                mine.keep(mapped.get(i as usize).copied().unwrap_or(i), sk);
            }
        }
    }

    pub(super) fn merge_kept_sort_keys(&mut self, other: &KeySet, mapped: &[u32]) {
        if let (Some(theirs), Some(mine)) = (other.sort_keys.as_ref(), self.sort_keys.as_mut()) {
            for (i, sk) in theirs.kept_iter() {
                mine.keep(mapped[i as usize], sk);
            }
            mine.kept_all &= theirs.kept_all;
        }
    }
}

/// A 64-bit hash of (key, sort key) without building the pair: the sort key's xxh3 seeded with the key's
/// [`key_hash`](crate::model::key_hash). Known before the key is looked up, so a loader can ask for the
/// slot it will test ([`KeySet::prefetch_seen`]).
pub(super) fn pair_hash(key_hash: u64, sk: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(sk, key_hash.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn last_sort_keys_are_written_over_or_moved_when_longer() {
        let mut last = LastSortKeys::default();
        last.resize(3);
        assert_eq!(last.get(0), None);
        last.set(1, b"abcd");
        last.set(1, b"xy");
        assert_eq!(last.get(1), Some(&b"xy"[..]));
        // Longer than the room: moved, with twice the room; what fits after stays in place.
        last.set(1, b"longer!");
        assert_eq!(last.get(1), Some(&b"longer!"[..]));
        let arena = last.arena.len();
        last.set(1, b"12345678");
        assert_eq!(
            (last.get(1), last.arena.len()),
            (Some(&b"12345678"[..]), arena)
        );
        last.set(2, b"");
        assert_eq!(last.get(2), Some(&b""[..]));
        last.clear(1);
        assert_eq!((last.get(1), last.get(2)), (None, Some(&b""[..])));
        assert_eq!(last.first_byte(2), None);
    }

    /// A key's first item is only entered in the distinct-item set when a second comes: the counts are as if
    /// every item were entered.
    #[test]
    fn a_first_item_is_counted_once_its_second_comes() {
        let mut set = KeySet::new(KeyType::S);
        let add = |set: &mut KeySet, k: &str, sk: &str| {
            set.add_item(k.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1)
        };
        for (k, sk) in [
            ("A", "1"),
            ("B", "9"),
            ("A", "1"),
            ("A", "2"),
            ("A", "1"),
            ("B", "9"),
            ("C", "5"),
        ] {
            add(&mut set, k, sk);
        }
        // A decrease (A: 1, 1, 2, 1) drops the last sort key; the items stay counted.
        add(&mut set, "A", "3");
        add(&mut set, "A", "2");
        let items = |k: &str| {
            set.sort_key_facts(set.find(k.as_bytes()).unwrap())
                .unwrap()
                .items
        };
        assert_eq!((items("A"), items("B"), items("C")), (3, 1, 1));
        assert_eq!(set.total(), 9);
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
    fn read_order_counts_the_same_items_without_keeping_last_sort_keys() {
        let items = [("A", "x"), ("B", "x"), ("A", "x"), ("A", "y"), ("C", "1")];
        let load = |read_order: bool| {
            let mut set = KeySet::new(KeyType::S);
            if read_order {
                set.set_read_order();
            }
            for (pk, sk) in items {
                set.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
            }
            set.set_write_ordered(true);
            set
        };
        let (tracked, read) = (load(false), load(true));
        for i in 0..3 {
            assert_eq!(
                tracked.sort_key_facts(i).map(|f| f.items),
                read.sort_key_facts(i).map(|f| f.items)
            );
        }
        assert_eq!(read.sort_key_facts(0).unwrap().items, 2);
        assert!(tracked.sort_key_facts(0).unwrap().only_increasing);
        assert!(
            !read.sort_key_facts(0).unwrap().only_increasing && !read.write_ordered(),
            "a set in read order never claims write order"
        );
        assert!(read.sort_keys.as_ref().unwrap().last.heap_bytes() == 0);
        // A key that came with one item from a merged set still knows that item.
        let mut whole = KeySet::new(KeyType::S);
        whole.set_read_order();
        whole.add_item(b"Z", Some((b"z".as_slice(), KeyType::S)), 1);
        let mut part = KeySet::new(KeyType::S);
        part.set_read_order();
        part.add_item(b"K", Some((b"k1".as_slice(), KeyType::S)), 1);
        whole.merge(&part);
        let k = whole.find(b"K").unwrap();
        whole.add_item(b"K", Some((b"k1".as_slice(), KeyType::S)), 1);
        assert_eq!(
            whole.sort_key_facts(k).unwrap().items,
            1,
            "the same item again"
        );
        whole.add_item(b"K", Some((b"k2".as_slice(), KeyType::S)), 1);
        assert_eq!(whole.sort_key_facts(k).unwrap().items, 2);
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

    /// Sets in read order that count distinct items, one per part of `items`.
    fn counted(items: &[(&str, &str)]) -> KeySet {
        let mut set = KeySet::new(KeyType::S);
        set.set_read_order();
        for (pk, sk) in items {
            set.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
        }
        set
    }

    fn items_of(set: &KeySet, pk: &str) -> u64 {
        set.sort_key_facts(set.find(pk.as_bytes()).unwrap())
            .unwrap()
            .items
    }

    #[test]
    fn merged_sets_count_each_item_once_and_know_them_all_afterwards() {
        let first = [("A", "1"), ("B", "1"), ("B", "2"), ("C", "1")];
        let second = [("A", "2"), ("B", "3"), ("D", "1"), ("D", "2"), ("E", "1")];
        let mut merged = counted(&first);
        assert!(merged.merge_counted(&counted(&second)), "no item in common");
        let whole = counted(&[&first[..], &second[..]].concat());
        for pk in ["A", "B", "C", "D", "E"] {
            assert_eq!(items_of(&merged, pk), items_of(&whole, pk), "{pk}");
        }
        // Every item of both parts is known after the merge, whichever table its pair waited in: one item of
        // each key again changes no count, a new one adds one.
        for (pk, sk) in [
            ("A", "1"),
            ("A", "2"),
            ("B", "2"),
            ("C", "1"),
            ("D", "1"),
            ("E", "1"),
        ] {
            merged.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
        }
        merged.add_item(b"E", Some((b"2".as_slice(), KeyType::S)), 1);
        let want = [("A", 2), ("B", 3), ("C", 1), ("D", 2), ("E", 2)];
        for (pk, n) in want {
            assert_eq!(
                items_of(&merged, pk),
                n,
                "{pk} after adding the items again"
            );
        }
    }

    /// Sets merged by plan one after the other, more than [`Pairs`] keeps apart, then the items read again and
    /// new ones: each key's item count is what one set reading it all counts, and every item is known.
    #[test]
    fn item_pairs_merged_apart_count_as_one_set_counts() {
        use rand::{RngExt as _, SeedableRng as _};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2606);
        for round in 0..40 {
            // Distinct items dealt to 2-7 parts in turn, so the parts share keys but no item.
            let parts_n = rng.random_range(2..8usize);
            let mut items: Vec<(String, String)> = (0..rng.random_range(1..400))
                .map(|_| {
                    let pk = format!("K{}", rng.random_range(0..30));
                    (pk, rng.random_range(0..40u32).to_string())
                })
                .collect();
            items.sort();
            items.dedup();
            let mut parts: Vec<Vec<(&str, &str)>> = vec![Vec::new(); parts_n];
            for (n, (pk, sk)) in items.iter().enumerate() {
                parts[(n * 7 + round) % parts_n].push((pk.as_str(), sk.as_str()));
            }
            let mut merged = counted(&parts[0]);
            let mut whole = merged.clone();
            for part in &parts[1..] {
                let mut theirs = counted(part);
                let plan = merged.merge_plan(&theirs).expect("no item in common");
                merged.merge_planned(&mut theirs, &plan);
                for (pk, sk) in part {
                    whole.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
                }
            }
            // Every item again (no count changes), and some new ones.
            let again = items
                .iter()
                .map(|(pk, sk)| (pk.clone(), sk.clone()))
                .chain((0..20).map(|n| (format!("K{}", n % 35), format!("new{n}"))));
            for (pk, sk) in again {
                for set in [&mut merged, &mut whole] {
                    set.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
                }
            }
            for k in 0..35 {
                let pk = format!("K{k}");
                if whole.find(pk.as_bytes()).is_some() {
                    assert_eq!(
                        items_of(&merged, &pk),
                        items_of(&whole, &pk),
                        "round {round}, {pk}"
                    );
                }
            }
            let seen = |s: &KeySet| s.sort_keys.as_ref().map(|t| t.seen.len());
            assert_eq!(seen(&merged), seen(&whole), "round {round}");
        }
    }

    #[test]
    fn a_planned_merge_is_the_merge() {
        let first = [("A", "1"), ("B", "1"), ("B", "2"), ("C", "1")];
        let second = [("A", "2"), ("D", "1"), ("B", "3"), ("D", "2"), ("E", "1")];
        let (mut plain, mut planned) = (counted(&first), counted(&first));
        for s in [&mut plain, &mut planned] {
            s.note_item_bytes(0, 100, 1);
        }
        let mut theirs = counted(&second);
        theirs.note_item_bytes(1, 300, 1);
        let plan = planned.merge_plan(&theirs).unwrap();
        // Its keys in order: A (here at 0), D (new), B (here at 1), E (new).
        assert_eq!(plan, [0, NEW_KEY, 1, NEW_KEY]);
        plain.merge(&theirs);
        planned.merge_planned(&mut theirs.clone(), &plan);
        let describe = |s: &KeySet| {
            s.iter()
                .map(|(i, k, c)| {
                    format!(
                        "{} {c} {:?} {:?} {:?}",
                        String::from_utf8_lossy(k),
                        s.sort_key_facts(i),
                        s.item_sort_keys(i),
                        s.item_bytes(i)
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(describe(&planned), describe(&plain));
        assert_eq!(planned.total(), plain.total());
        for (pk, sk) in second {
            planned.add_item(pk.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
        }
        assert_eq!(items_of(&planned, "D"), 2, "the merged pairs are known");
    }

    #[test]
    fn a_merge_says_when_the_sets_shared_an_item() {
        // The same one item of a key on both sides: counted once, and said.
        let shares = |x: &[(&str, &str)], y: &[(&str, &str)]| {
            let (a, b) = (counted(x), counted(y));
            let said = a.merge_plan(&b).is_none();
            let mut merged = a.clone();
            assert_eq!(said, !merged.merge_counted(&b), "{x:?} {y:?}");
            said
        };
        for (x, y, want) in [
            (&[("A", "1")][..], &[("A", "1")][..], true),
            (&[("A", "1")], &[("A", "2")], false),
            (&[("B", "1"), ("B", "2")], &[("B", "2"), ("B", "3")], true),
            (&[("B", "1"), ("B", "2")], &[("B", "3"), ("B", "4")], false),
            (&[("C", "1")], &[("C", "0"), ("C", "1")], true),
            (&[("C", "0"), ("C", "1")], &[("C", "1")], true),
            (&[("C", "0"), ("C", "1")], &[("C", "2")], false),
            (&[("D", "1")], &[("E", "1")], false),
        ] {
            assert_eq!(shares(x, y), want, "{x:?} {y:?}");
        }
        let mut a = counted(&[("A", "1")]);
        assert!(!a.merge_counted(&counted(&[("A", "1")])));
        assert_eq!(items_of(&a, "A"), 1);
        // A key with several items on both sides, one of them shared.
        let mut b = counted(&[("B", "1"), ("B", "2")]);
        assert!(!b.merge_counted(&counted(&[("B", "2"), ("B", "3")])));
        // One item here, the same among several there.
        let mut c = counted(&[("C", "1")]);
        assert!(!c.merge_counted(&counted(&[("C", "0"), ("C", "1")])));
        // Sets that take their items as distinct are not checked.
        let mut d = counted(&[("D", "1")]);
        let mut e = counted(&[("D", "1")]);
        e.set_items_distinct(true);
        assert!(d.merge_counted(&e));
    }

    #[test]
    fn kept_sort_keys_are_the_first_ones_of_the_input() {
        let mut a = KeySet::with_kept_budget(KeyType::S, 4);
        for sk in ["aaa", "bb", "c"] {
            a.add_item(b"K", Some((sk.as_bytes(), KeyType::S)), 1);
        }
        let (kept, all) = a.item_sort_keys(0);
        assert_eq!(
            kept,
            [b"aaa".as_slice()],
            "\"c\" would fit, after \"bb\" did not"
        );
        assert!(!all);
        // Loaded in two parts and merged in input order: what one set kept.
        let mut first = KeySet::with_kept_budget(KeyType::S, 4);
        first.add_item(b"K", Some((b"aaa".as_slice(), KeyType::S)), 1);
        let mut second = KeySet::with_kept_budget(KeyType::S, 4);
        for sk in ["bb", "c"] {
            second.add_item(b"K", Some((sk.as_bytes(), KeyType::S)), 1);
        }
        first.merge(&second);
        assert_eq!(first.item_sort_keys(0), (vec![b"aaa".as_slice()], false));
    }

    #[test]
    fn a_thread_share_of_the_budget_that_filled_takes_more_once_it_is_the_whole_budget() {
        let keep = |sks: &[&str]| {
            let mut set = KeySet::with_kept_budget(KeyType::S, 4);
            for sk in sks {
                set.add_item(b"K", Some((sk.as_bytes(), KeyType::S)), 1);
            }
            set
        };
        let mut first = keep(&["aa", "bb", "cc"]);
        assert_eq!(first.item_sort_keys(0).0.len(), 2, "its share is full");
        first.set_kept_budget(8);
        first.merge(&keep(&["dd", "ee"]));
        let (kept, all) = first.item_sort_keys(0);
        assert_eq!(kept, [b"aa".as_slice(), b"bb", b"dd", b"ee"]);
        assert!(!all, "\"cc\" is not among them");
    }

    /// Taking a set's kept sort keys whole in a merge keeps what copying them one by one keeps: over merges in
    /// a row (runs after runs), budgets that fit or not, and items added after the merges.
    #[test]
    fn a_merge_that_takes_the_kept_sort_keys_keeps_what_copying_them_keeps() {
        use rand::{RngExt as _, SeedableRng as _};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(26);
        for round in 0..200 {
            let budget = rng.random_range(0..60usize);
            let part = |rng: &mut rand_pcg::Pcg64| {
                let mut set = KeySet::with_kept_budget(KeyType::S, budget);
                for _ in 0..rng.random_range(0..12) {
                    let key = format!("K{}", rng.random_range(0..4));
                    let sk =
                        "s".repeat(rng.random_range(1..6)) + &rng.random_range(0..9).to_string();
                    set.add_item(key.as_bytes(), Some((sk.as_bytes(), KeyType::S)), 1);
                }
                set
            };
            let parts: Vec<KeySet> = (0..4).map(|_| part(&mut rng)).collect();
            let mut copied = parts[0].clone();
            let (mut taken, mut planned) = (copied.clone(), copied.clone());
            if round % 2 == 0 {
                // As a loader's first thread: its share of the budget becomes the whole.
                for set in [&mut copied, &mut taken, &mut planned] {
                    set.set_kept_budget(budget * 2);
                }
            }
            for p in &parts[1..] {
                copied.merge(p);
                taken.merge_taking_sort_keys(&mut p.clone());
                // Parts may share an item (the plan's merge is for sets that do not): not planned then.
                match planned.merge_plan(p) {
                    Some(plan) => planned.merge_planned(&mut p.clone(), &plan),
                    None => planned.merge(p),
                }
            }
            for set in [&mut copied, &mut taken, &mut planned] {
                set.add_item(b"K9", Some((b"late".as_slice(), KeyType::S)), 1);
                set.add_item(b"K0", Some((b"later".as_slice(), KeyType::S)), 1);
            }
            let kept = |set: &KeySet| {
                let t = set.sort_keys.as_ref();
                let all = t.map(|t| {
                    t.kept_iter()
                        .map(|(i, sk)| (i, sk.to_vec()))
                        .collect::<Vec<_>>()
                });
                (
                    set.len(),
                    all,
                    (0..set.len() as u32)
                        .map(|k| set.item_sort_keys(k).1)
                        .collect::<Vec<_>>(),
                )
            };
            assert_eq!(kept(&taken), kept(&copied), "round {round}");
            assert_eq!(kept(&planned), kept(&copied), "round {round}, planned");
        }
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
