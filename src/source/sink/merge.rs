//! Loader threads: a [`Sink`] forked for each, and their sinks (or a file of lines' keys) merged back, keys
//! renumbered for what refers to them by index (designs, kept items, calculated sharding). A large merge runs
//! on two threads here, over the model's single-threaded pieces ([`KeySet::lookup_part`],
//! [`KeySet::merge_apart`], [`KeySet::split_for_counts`]): the model starts no thread.

use super::{Loaded, Sink};
use crate::model::KeySet;
use crate::model::design::{Designer, Items};
use crate::source::{LoadOptions, OnBad};

impl Sink {
    /// An empty sink with this one's settings (names, key types, policy) for one of `of` loader threads, which
    /// share the budget of sort keys kept, so the merged set stays within it.
    pub fn fork(&self, of: usize) -> Self {
        let mut fork = Self::new(&LoadOptions {
            key_type: self.key_type,
            on_bad: self.on_bad,
            ..LoadOptions::default()
        });
        fork.keys =
            KeySet::with_kept_budget(self.keys.key_type(), self.keys.kept_budget() / of.max(1));
        if !self.keys.tracks_order() {
            fork.keys.set_read_order();
        }
        fork.key_type_given = self.key_type_given;
        fork.sk_type = self.sk_type;
        fork.names = self.names.clone();
        fork.designer = self
            .designer
            .as_ref()
            .map(|d| Designer::new(d.design()).skipping_bad(self.on_bad == OnBad::Skip));
        fork.kept = self.kept.as_ref().map(|k| Items::new(k.roots().to_vec()));
        fork
    }

    /// Adds a worker's keys and counts. Items both sinks hold are counted twice when their key has several
    /// items in `other` ([`KeySet::merge_counted`]; [`KeySet::merge_plan`] tells beforehand).
    pub fn absorb(&mut self, other: Sink) {
        self.absorb_planned(other, None);
    }

    /// [`Self::absorb`], `other`'s keys merged by the places `plan` found for them here
    /// ([`KeySet::merge_plan`]), when there is one.
    pub fn absorb_planned(&mut self, mut other: Sink, plan: Option<&[u32]>) {
        self.settle();
        other.settle();
        if self.key_type.is_none() {
            self.key_type = other.key_type;
        }
        let kept = other.kept.take();
        if self.keys.is_empty() && !self.keys.has_sort_keys() {
            self.absorb_designs(&other, kept, &|k| k);
            let budget = self.keys.kept_budget();
            self.keys = std::mem::take(&mut other.keys);
            self.keys.set_kept_budget(budget);
            self.keys.set_items_distinct(false);
        } else {
            match plan {
                Some(plan) => merge_planned(&mut self.keys, &mut other.keys, plan),
                None => {
                    self.keys.merge_taking_sort_keys(&mut other.keys);
                }
            }
            // Where the other sink's keys are now; only needed by what refers to keys by index.
            let needs_map = kept.is_some()
                || self
                    .designer
                    .as_ref()
                    .is_some_and(|d| d.design().shard_by.is_some());
            let map: Vec<u32> = if needs_map {
                (0..other.keys.len() as u32)
                    .map(|k| self.keys.find(other.keys.key_bytes(k)).unwrap_or(k))
                    .collect()
            } else {
                Vec::new()
            };
            self.absorb_designs(&other, kept, &|k| map.get(k as usize).copied().unwrap_or(k));
        }
        if self.attribute_names.is_empty() {
            self.attribute_names = other.attribute_names;
        }
        self.sk_type = self.sk_type.or(other.sk_type);
        self.items += other.items;
        self.lines += other.lines;
        self.skipped += other.skipped;
        self.estimated += other.estimated;
        if self.first_estimate.is_none() {
            self.first_estimate = other.first_estimate;
        }
        self.changes.add(&other.changes);
        match (&mut self.ttl, other.ttl) {
            (Some(mine), Some(theirs)) if mine.attribute == theirs.attribute => mine.merge(&theirs),
            // Two inputs guessed different attributes: the one more items have wins.
            (Some(mine), Some(theirs))
                if theirs.items - theirs.missing > mine.items - mine.missing =>
            {
                *mine = theirs;
            }
            (slot @ None, theirs) => *slot = theirs,
            _ => {}
        }
        for w in other.warnings {
            self.warn(w);
        }
    }

    /// Adds the keys of a file of lines (and what they noted for calculated sharding).
    pub fn absorb_lines(&mut self, loaded: Loaded) {
        let map: Vec<u32>;
        if self.keys.is_empty() && !self.keys.has_sort_keys() {
            map = (0..loaded.keys.len() as u32).collect();
            self.keys = loaded.keys;
        } else {
            self.keys.merge(&loaded.keys);
            map = (0..loaded.keys.len() as u32)
                .map(|k| self.keys.find(loaded.keys.key_bytes(k)).unwrap_or(k))
                .collect();
        }
        if let (Some(d), Some(by)) = (&mut self.designer, &loaded.shard_by)
            && let Some(mine) = &mut d.shard_by
        {
            mine.absorb(by, |k| map.get(k as usize).copied().unwrap_or(k));
        }
    }

    fn absorb_designs(&mut self, other: &Sink, kept: Option<Items>, map: &dyn Fn(u32) -> u32) {
        if let (Some(mine), Some(theirs)) = (&mut self.designer, &other.designer) {
            mine.absorb(theirs, map);
        }
        match (&mut self.kept, kept) {
            (Some(mine), Some(theirs)) => mine.absorb(theirs, map),
            (Some(mine), None) => mine.complete = false,
            _ => {}
        }
    }
}

/// The fewest keys whose merge is spread over two threads ([`plan_merge`], [`merge_planned`],
/// [`merge_counts_on_two`]): below it, a thread's start costs more than it saves.
const TWO_THREAD_KEYS: usize = 1 << 16;

/// Where each key of `other` is in `keys` ([`KeySet::merge_plan`]; `None` when they share an item), a large
/// `other`'s two halves looked up at once (the lookups change nothing).
///
/// Measured on `shardlens-bench extract`'s file re-keyed by `{pk}#{status}#{tags.0}` (983,732 keys looked up
/// in 983,375, nearly all missing; this 2-core machine): `shardlens analyze` 0.78–0.84 → 0.74–0.77 s, output
/// identical. (Key lines merge their counts on two threads their own way: [`merge_counts_on_two`].)
pub fn plan_merge(keys: &KeySet, other: &KeySet) -> Option<Vec<u32>> {
    if other.len() < TWO_THREAD_KEYS {
        return keys.merge_plan(other);
    }
    keys.plan_from(other, lookup_halves(keys, other))
}

/// Where each key of `other` is in `keys` ([`crate::model::keyset::NEW_KEY`] for a key it does not hold), in
/// order: the two halves of `other` looked up at once, on this thread and another
/// ([`KeySet::lookup_part`]; the lookups change nothing).
fn lookup_halves(keys: &KeySet, other: &KeySet) -> Vec<u32> {
    let n = other.len();
    std::thread::scope(|scope| {
        let second = scope.spawn(|| keys.lookup_part(other, n / 2..n));
        let mut all = keys.lookup_part(other, 0..n / 2);
        match second.join() {
            Ok(rest) => all.extend(rest),
            Err(panic) => std::panic::resume_unwind(panic),
        }
        all
    })
}

/// [`KeySet::merge`] of a set of keys and counts alone (no sort-key facts or item sizes on either side) on two
/// threads: the keys' places in `keys` looked up in two halves at once ([`lookup_halves`]), then the counts
/// of the keys found added on one thread while the new keys go in, in order, on the other
/// ([`KeySet::split_for_counts`]). The same set as [`KeySet::merge`] leaves. Below [`TWO_THREAD_KEYS`] keys,
/// or with more than counts, it is that merge.
///
/// Why: a file of key lines is read in stretches on every core and their sets merged at the end, on one
/// core while the others idle (`lines::load_lines_split`). Measured on `benches/lines_duckdb.sh`'s file
/// (the second stretch's 570,878 keys into the first's 571,546; this 2-core machine): the one pipelined
/// pass took 31–32 ms of the command's 0.25 s.
pub fn merge_counts_on_two(keys: &mut KeySet, other: &KeySet) {
    if other.len() < TWO_THREAD_KEYS || keys.has_more_than_counts() || other.has_more_than_counts()
    {
        keys.merge(other);
        return;
    }
    let plan = lookup_halves(keys, other);
    let (found, new) = keys.split_for_counts(other, &plan);
    let added = std::thread::scope(|scope| {
        let adding = scope.spawn(|| new.append(other));
        // The counts of the keys found, meanwhile.
        found.add(other, &plan);
        match adding.join() {
            Ok(added) => added,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    keys.end_counts_merge(other, added);
}

/// [`KeySet::merge_planned`]: for a large `other` with sort-key facts or item sizes, those merge on a second
/// thread while the keys go in ([`KeySet::merge_apart`]).
///
/// Measured on the same file and key expression (the second stretch's 983,732 keys, nearly all new): the keys
/// took 65–72 ms and the rest 50 ms one after the other; `shardlens analyze` 0.84 → 0.80 s, output identical.
pub fn merge_planned(keys: &mut KeySet, other: &mut KeySet, plan: &[u32]) {
    if other.len() < TWO_THREAD_KEYS || !other.has_more_than_counts() {
        keys.merge_planned(other, plan);
        return;
    }
    let mut apart = keys.merge_apart(other, plan);
    let other = &*other;
    let apart = std::thread::scope(|scope| {
        let rest = scope.spawn(move || {
            apart.merge_rest(other);
            apart
        });
        keys.add_planned(other, plan);
        match rest.join() {
            Ok(apart) => apart,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    keys.rejoin(apart);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyType;
    use crate::model::keyset::sized_items as items;

    /// A merge on two threads (the plan's halves looked up at once, the facts and sizes merged beside the
    /// keys) leaves what the merge on one thread leaves.
    #[test]
    fn merging_on_two_threads_is_merging_on_one() {
        let (a, b) = (items(0, 100_000, "a"), items(60_000, 220_000, "b"));
        assert!(b.len() >= TWO_THREAD_KEYS);
        let mut one = a.clone();
        let plan = one.merge_plan(&b).unwrap();
        one.merge_planned(&mut b.clone(), &plan);
        let mut two = a.clone();
        let halves = plan_merge(&two, &b).unwrap();
        assert_eq!(halves, plan);
        merge_planned(&mut two, &mut b.clone(), &halves);
        assert_eq!((two.len(), two.total()), (110_000, one.total()));
        for (i, k, c) in one.iter() {
            assert_eq!((two.key_bytes(i), two.count(i)), (k, c));
            assert_eq!(two.sort_key_facts(i), one.sort_key_facts(i));
            assert_eq!(two.item_bytes(i), one.item_bytes(i));
        }
        assert_eq!(two.size_profile(), one.size_profile());
    }

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
            merge_counts_on_two(&mut two, &b);
            assert_eq!((two.len(), two.total()), (one.len(), one.total()));
            assert_eq!(two.key_bytes_total(), one.key_bytes_total());
            for ((i, k, c), (j, l, d)) in one.iter().zip(two.iter()) {
                assert_eq!((i, k, c), (j, l, d));
                assert_eq!(two.find(k), Some(i));
            }
            assert!(b.len() < TWO_THREAD_KEYS || two.len() > a.len());
        }
    }
}
