//! Merging one key set into another: the sets of a file's stretches or an export's loader threads, in input
//! order, so that the merged set is what one reader would have built (see [`KeySet::merge_counted`]).

use super::index::{Index, Pairs};
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

    /// Begins a merge of keys and counts by `plan` ([`Self::lookup_part`]s joined in order) in two parts
    /// that touch different memory, so that each may run on a thread of its own (the source's
    /// `sink::merge_counts_on_two` runs them): [`FoundCounts::add`], the counts of the keys this set holds,
    /// and [`NewKeys::append`], the keys it does not, in order; then [`Self::end_counts_merge`]. Only for sets
    /// of keys and counts alone (neither [`Self::has_more_than_counts`]). The same set as [`Self::merge`]
    /// leaves.
    pub fn split_for_counts<'a>(
        &'a mut self,
        other: &KeySet,
        plan: &[u32],
    ) -> (FoundCounts<'a>, NewKeys<'a>) {
        self.merge_write_order(other);
        self.reserve_for(other, plan);
        let new: Vec<u32> = (0..other.len() as u32)
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
        (
            FoundCounts { entries },
            NewKeys {
                arena,
                hashes,
                index,
                key_bytes,
                new,
                first_new,
            },
        )
    }

    /// Ends a merge begun by [`Self::split_for_counts`]: the new keys' entries go on after the counts, and
    /// `other`'s total is added.
    pub fn end_counts_merge(&mut self, other: &KeySet, added: AddedKeys) {
        self.entries.extend(added.0);
        self.total += other.total;
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

/// The counts part of a merge of keys and counts by plan ([`KeySet::split_for_counts`]): the set's entries.
#[derive(Debug)]
pub struct FoundCounts<'a> {
    entries: &'a mut Vec<Entry>,
}

impl FoundCounts<'_> {
    /// Adds the count of each key of `other` that `plan` found here to its entry.
    pub fn add(self, other: &KeySet, plan: &[u32]) {
        for (i, &idx) in plan.iter().enumerate() {
            if let Some(&ahead) = plan.get(i + MERGE_AHEAD)
                && let Some(e) = self.entries.get(ahead as usize)
            {
                prefetch(e);
            }
            if let Some(e) = self.entries.get_mut(idx as usize) {
                e.count += other.count(i as u32);
            }
        }
    }
}

/// The new keys' part of a merge of keys and counts by plan ([`KeySet::split_for_counts`]): the set's key
/// bytes, hashes and index, and which keys of the other set are new here.
#[derive(Debug)]
pub struct NewKeys<'a> {
    arena: &'a mut Vec<u8>,
    hashes: &'a mut Vec<u64>,
    index: &'a mut Index,
    key_bytes: &'a mut u64,
    /// The keys of the other set this one does not hold, in order.
    new: Vec<u32>,
    /// Where the first of them goes.
    first_new: usize,
}

impl NewKeys<'_> {
    /// The new keys, in order: their bytes, hashes and index slots (the index grows no more: room was made),
    /// their entries gathered to go on after the counts ([`KeySet::end_counts_merge`]).
    pub fn append(self, other: &KeySet) -> AddedKeys {
        let NewKeys {
            arena,
            hashes,
            index,
            key_bytes,
            new,
            first_new,
        } = self;
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
        AddedKeys(ends)
    }
}

/// The entries of the keys a merge of counts added ([`NewKeys::append`]), to go on after the counts.
#[derive(Debug)]
pub struct AddedKeys(Vec<Entry>);
