//! Merging one key set into another: the sets of a file's stretches or an export's loader threads, in input
//! order, so that the merged set is what one reader would have built (see [`KeySet::merge_counted`]).

use super::index::Pairs;
use super::prefetch::{Pipeline, prefetch};
use super::sizes::ItemSizes;
use super::{Entry, KeySet, sort_keys};

impl KeySet {
    /// Adds every key and count of `other` (which must be of the same key type) to this set.
    pub fn merge(&mut self, other: &KeySet) {
        let _ = self.merge_counted(other);
    }

    /// [`Self::merge`]; `true` when every distinct item is counted once: `false` when both sets count distinct
    /// items (not [`Self::set_items_distinct`]) and held one item in common, which is then counted twice if its
    /// key had more than one item in `other` (and its sort key may be kept twice).
    pub fn merge_counted(&mut self, other: &KeySet) -> bool {
        self.merge_counted_taking(other, None)
    }

    /// [`Self::merge_counted`], taking `other`'s kept sort keys (the partition inspector's item collections)
    /// instead of copying them: `other` is left without them.
    pub fn merge_taking_sort_keys(&mut self, other: &mut KeySet) -> bool {
        let taken = other
            .sort_keys
            .as_mut()
            .map(|t| std::mem::take(&mut t.kept));
        self.merge_counted_taking(other, taken)
    }

    fn merge_counted_taking(
        &mut self,
        other: &KeySet,
        taken: Option<sort_keys::KeptSortKeys>,
    ) -> bool {
        self.merge_write_order(other);
        if other.sort_keys.is_none() && other.sizes.is_none() {
            // Only keys and counts: their lookups pipelined, as a load's are.
            let mut pipeline = Pipeline::default();
            for i in 0..other.len() {
                let count = other.entries[i].count;
                pipeline.push(self, other, (i, 0), other.hashes[i], count);
            }
            pipeline.drain(self, other);
            return true;
        }
        // The keys pipelined too, noting where each went (5.7-6.4 -> 5.1-5.7 ms for the S3 export bench's
        // 88,103 keys of its second loader thread).
        let mut mapped = Vec::with_capacity(other.len());
        let mut pipeline = Pipeline::default();
        for i in 0..other.len() {
            let count = other.entries[i].count;
            if let Some(k) = pipeline.push(self, other, (i, 0), other.hashes[i], count) {
                mapped.push(k);
            }
        }
        pipeline.drain_each(self, other, |k| mapped.push(k));
        let exact = self.merge_mapped(other, &mapped, None);
        if let Some(taken) = taken {
            self.append_kept_sort_keys(taken, &mapped);
        }
        exact
    }

    /// [`Self::merge`] of a set of keys and counts alone (no sort-key facts or item sizes on either side) on two
    /// threads: the keys' places here looked up in two halves at once ([`Self::lookup_part`]), then the counts
    /// of the keys found added on one thread while the new keys go in, in order, on the other. The same set as
    /// [`Self::merge`] leaves. Below [`TWO_THREAD_COUNTS`] keys, or with more than counts, it is that merge.
    ///
    /// Why: a file of key lines is read in stretches on every core and their sets merged at the end, on one
    /// core while the others idle (`lines::load_lines_split`). Measured on `benches/lines_duckdb.sh`'s file
    /// (the second stretch's 570,878 keys into the first's 571,546; this 2-core machine): the one pipelined
    /// pass took 31–32 ms of the command's 0.25 s.
    pub fn merge_counts_on_two(&mut self, other: &KeySet) {
        if other.len() < TWO_THREAD_COUNTS
            || self.has_more_than_counts()
            || other.has_more_than_counts()
        {
            self.merge(other);
            return;
        }
        self.merge_write_order(other);
        let n = other.len();
        let plan = self.lookup_halves(other);
        self.reserve_for(other, &plan);
        let new: Vec<u32> = (0..n as u32)
            .filter(|&i| plan.get(i as usize) == Some(&NEW_KEY))
            .collect();
        let first_new = self.entries.len();
        let KeySet {
            arena,
            entries,
            hashes,
            index,
            key_bytes,
            ..
        } = self;
        let added = std::thread::scope(|scope| {
            let adding = scope.spawn(|| {
                // The new keys, in order: their bytes, hashes and index slots (the index grows no more: room
                // was made above), their entries gathered to go on after the counts.
                let mut ends = Vec::with_capacity(new.len());
                for (j, &i) in new.iter().enumerate() {
                    if let Some(&ahead) = new.get(j + MERGE_AHEAD) {
                        index.prefetch_slot(other.hash(ahead));
                    }
                    let key = other.key_bytes(i);
                    *key_bytes += key.len() as u64;
                    ends.push(Entry::new(key, other.count(i), arena));
                    hashes.push(other.hash(i));
                    let idx = u32::try_from(first_new + j).unwrap_or(u32::MAX);
                    index.insert(other.hash(i), idx, hashes);
                }
                ends
            });
            // The counts of the keys found, meanwhile.
            for (i, &idx) in plan.iter().enumerate() {
                if let Some(&ahead) = plan.get(i + MERGE_AHEAD)
                    && let Some(e) = entries.get(ahead as usize)
                {
                    prefetch(e);
                }
                if let Some(e) = entries.get_mut(idx as usize) {
                    e.count += other.count(i as u32);
                }
            }
            match adding.join() {
                Ok(ends) => ends,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        });
        self.entries.extend(added);
        self.total += other.total;
    }

    /// Where each key of `other` is here ([`NEW_KEY`] for a key this set does not hold), in order: the two
    /// halves of `other` looked up at once, on this thread and another ([`Self::lookup_part`]; the lookups change
    /// nothing).
    pub fn lookup_halves(&self, other: &KeySet) -> Vec<u32> {
        let n = other.len();
        std::thread::scope(|scope| {
            let second = scope.spawn(|| self.lookup_part(other, n / 2..n));
            let mut all = self.lookup_part(other, 0..n / 2);
            match second.join() {
                Ok(rest) => all.extend(rest),
                Err(panic) => std::panic::resume_unwind(panic),
            }
            all
        })
    }

    /// [`Self::merge_counted`] of a set whose every key's place here [`Self::merge_plan`] found (and which
    /// shares no item with this one): no key is looked up again. The same as [`Self::merge_apart`], then
    /// [`Self::add_planned`] and [`MergeApart::merge_rest`] (which a loader may run at once), then
    /// [`Self::rejoin`].
    pub fn merge_planned(&mut self, other: &mut KeySet, plan: &[u32]) {
        let mut apart = self.merge_apart(other, plan);
        self.add_planned(other, plan);
        apart.merge_rest(other);
        self.rejoin(apart);
    }

    /// Begins a merge by plan (see [`Self::merge_planned`]): takes this set's sort-key facts and item sizes
    /// out, with where each key of `other` will be, to be merged apart from the keys. The plan tells each
    /// key's place before it is added, so the two parts touch different memory. `other`'s kept sort keys are
    /// taken, not copied ([`Self::merge_taking_sort_keys`]).
    pub fn merge_apart(&mut self, other: &mut KeySet, plan: &[u32]) -> MergeApart {
        self.merge_write_order(other);
        let mut next = u32::try_from(self.len()).unwrap_or(u32::MAX);
        let places = (0..other.len())
            .map(|i| match plan.get(i) {
                Some(&idx) if idx != NEW_KEY => idx,
                _ => {
                    next = next.saturating_add(1);
                    next - 1
                }
            })
            .collect();
        MergeApart {
            rest: KeySet {
                sort_keys: self.sort_keys.take(),
                sizes: self.sizes.take(),
                ..self.empty_like(self.key_type)
            },
            places,
            taken: other
                .sort_keys
                .as_mut()
                .map(|t| std::mem::take(&mut t.kept)),
            seen: other
                .sort_keys
                .as_mut()
                .map(|t| std::mem::take(&mut t.seen)),
        }
    }

    /// Ends a merge by plan: the sort-key facts and item sizes merged apart come back.
    pub fn rejoin(&mut self, apart: MergeApart) {
        self.sort_keys = apart.rest.sort_keys;
        self.sizes = apart.rest.sizes;
    }

    /// Whether this set holds more than keys and counts (sort-key facts or item sizes): what
    /// [`MergeApart::merge_rest`] has to merge.
    pub fn has_more_than_counts(&self) -> bool {
        self.sort_keys.is_some() || self.sizes.is_some()
    }

    /// Adds the keys and counts of `other` where `plan` says they are (a new key at the end); the rest of a
    /// merge by plan ([`Self::merge_apart`]).
    pub fn add_planned(&mut self, other: &KeySet, plan: &[u32]) {
        self.reserve_for(other, plan);
        for i in 0..other.len() as u32 {
            // What adding the key `AHEAD` keys on will touch: its entry here, or the index slot a new key
            // goes in (from `reserve_for`, the index does not grow).
            if let Some(&ahead) = plan.get(i as usize + MERGE_AHEAD) {
                if let Some(e) = self.entries.get(ahead as usize) {
                    prefetch(e);
                } else {
                    self.index.prefetch_slot(other.hash(i + MERGE_AHEAD as u32));
                }
            }
            let (bytes, hash, count) = (other.key_bytes(i), other.hash(i), other.count(i));
            match plan.get(i as usize) {
                Some(&idx) if idx != NEW_KEY => {
                    if let Some(e) = self.entries.get_mut(idx as usize) {
                        e.count += count;
                    }
                    self.total += count;
                }
                _ => {
                    self.add_new_hashed(bytes, hash, count);
                }
            }
        }
    }

    /// Makes room for the keys of `other` that `plan` finds new here: the index grows once to hold them all,
    /// and the arrays they go onto once each.
    ///
    /// With this and the memory of each key's addition asked for [`MERGE_AHEAD`] keys before it, adding the
    /// 983,732 keys of the second stretch of `shardlens-bench extract`'s file keyed by
    /// `{pk}#{status}#{tags.0}` (nearly all new) went from 91 ms to 65–72 ms, growing included (this 2-core
    /// machine): one after the other, each new key's insert waited for its index slot's memory.
    fn reserve_for(&mut self, other: &KeySet, plan: &[u32]) {
        let (mut new, mut bytes) = (0, 0);
        for (i, _) in plan.iter().enumerate().filter(|&(_, &p)| p == NEW_KEY) {
            new += 1;
            bytes += other.entries[i].arena_len();
        }
        self.arena.reserve(bytes);
        self.entries.reserve(new);
        self.hashes.reserve(new);
        self.index.reserve(self.len() + new, &self.hashes);
    }

    /// Whether the merged keys were written in order: both sets' were (or only `other` holds keys).
    fn merge_write_order(&mut self, other: &KeySet) {
        self.write_ordered = if self.is_empty() {
            other.write_ordered
        } else {
            self.write_ordered && other.write_ordered
        };
    }

    /// The rest of a merge once `other`'s keys are added here (`mapped[i]`: the index here of its key `i`):
    /// their sort-key facts, item pairs, kept sort keys and item sizes. `false` as [`Self::merge_counted`].
    /// `seen`: `other`'s item pairs taken out of it by a merge by plan, which shares none with this set.
    fn merge_mapped(&mut self, other: &KeySet, mapped: &[u32], seen: Option<Pairs>) -> bool {
        let mut exact = true;
        for (i, &idx) in mapped.iter().enumerate() {
            exact &= self.merge_sort_key_facts(idx, other, i as u32);
        }
        match seen {
            Some(seen) => self.append_seen(seen),
            None => exact &= self.merge_seen(other),
        }
        self.merge_kept_sort_keys(other, mapped);
        if let Some(theirs) = other.sizes.as_ref() {
            let mine = self.sizes.get_or_insert_with(ItemSizes::default);
            mine.merge(theirs, mapped);
        }
        exact
    }
}

/// How many keys ahead of its addition a merge asks for the memory a key's addition touches.
const MERGE_AHEAD: usize = 16;

/// The fewest keys [`KeySet::merge_counts_on_two`] spreads over two threads: below it, a thread's start costs
/// more than it saves.
const TWO_THREAD_COUNTS: usize = 1 << 16;

/// In a [`KeySet::merge_plan`], a key the set does not hold yet.
pub const NEW_KEY: u32 = u32::MAX;

/// The sort-key facts and item sizes of a set being merged by plan ([`KeySet::merge_apart`]), merged apart
/// from its keys: nothing here reads the keys, so a loader may run [`Self::merge_rest`] on one thread while
/// [`KeySet::add_planned`] runs on another.
#[derive(Debug)]
pub struct MergeApart {
    /// An empty set holding the merged set's facts and sizes, with its settings.
    rest: KeySet,
    /// Where each key of the other set is (or will be) in the merged set.
    places: Vec<u32>,
    /// The other set's kept sort keys, taken out of it.
    taken: Option<sort_keys::KeptSortKeys>,
    /// The other set's item pairs, taken out of it.
    seen: Option<Pairs>,
}

impl MergeApart {
    /// Merges `other`'s sort-key facts, item pairs, kept sort keys and item sizes.
    pub fn merge_rest(&mut self, other: &KeySet) {
        let _ = self
            .rest
            .merge_mapped(other, &self.places, self.seen.take());
        if let Some(taken) = self.taken.take() {
            self.rest.append_kept_sort_keys(taken, &self.places);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;

    /// A set of `n` adds of keys drawn from `distinct` (`tag` in every key for some of them, so that two sets
    /// share some keys and not others; one in four longer than an entry holds), counts from 1 to 3.
    fn drawn(seed: u64, n: usize, distinct: u64, tag: &str) -> KeySet {
        let mut keys = KeySet::new(KeyType::S);
        let mut x = seed;
        for _ in 0..n {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let k = (x >> 33) % distinct;
            let key = match (k % 3, k % 4) {
                (0, 0) => format!("{tag}#{k}#a-tail-past-the-entry"),
                (0, _) => format!("{tag}#{k}"),
                (_, 0) => format!("shared#{k}#a-tail-past-the-entry"),
                _ => format!("shared#{k}"),
            };
            keys.add(key.as_bytes(), 1 + (x >> 20) % 3);
        }
        keys
    }

    /// The counts merged on two threads are the one-pass merge's: every key in the same place with the same
    /// count, the total, and every key found where it is.
    #[test]
    fn counts_merged_on_two_threads_are_the_one_pass_merge() {
        for (a, b) in [
            (
                drawn(1, 200_000, 150_000, "a"),
                drawn(2, 300_000, 180_000, "b"),
            ),
            (KeySet::new(KeyType::S), drawn(3, 100_000, 90_000, "b")),
            (drawn(4, 1_000, 500, "a"), drawn(5, 1_000, 500, "b")),
        ] {
            let mut one = a.clone();
            one.merge(&b);
            let mut two = a.clone();
            two.merge_counts_on_two(&b);
            assert_eq!((two.len(), two.total()), (one.len(), one.total()));
            assert_eq!(two.key_bytes_total(), one.key_bytes_total());
            for ((i, k, c), (j, l, d)) in one.iter().zip(two.iter()) {
                assert_eq!((i, k, c), (j, l, d));
                assert_eq!(two.find(k), Some(i));
            }
            assert!(b.len() < TWO_THREAD_COUNTS || two.len() > a.len());
        }
    }
}
