//! What the histogram, the CLI and the decision tree show: bucket counts, top keys, skew.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use super::keyset::KeySet;
use super::partition::Partitioner;
use super::shard::{PhysicalKey, Sharded};

/// Keys listed per bucket (hover tooltip, inspector preview).
pub const TOP_PER_BUCKET: usize = 3;

/// A physical key with its writes and share of all writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopKey {
    #[serde(skip)]
    pub id: PhysicalKey,
    pub key: String,
    pub count: u64,
    pub share: f64,
}

/// Skew figures of a bucket distribution.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Skew {
    /// Hottest bucket over the mean bucket (1 = perfectly even).
    pub max_over_mean: f64,
    /// Gini coefficient of the bucket counts (0 = even, → 1 = all in one bucket).
    pub gini: f64,
    /// The hottest physical key's share of all writes.
    pub top_key_share: f64,
    /// The hottest bucket's share of all writes.
    pub hottest_bucket_share: f64,
}

/// Everything computed from a key set, a shard plan and a partitioner.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub total: u64,
    /// Distinct logical keys (as loaded).
    pub distinct: usize,
    /// Distinct physical keys (after sharding).
    pub physical_distinct: usize,
    pub buckets: Vec<u64>,
    pub hottest_bucket: usize,
    /// The most-written physical keys, hottest first.
    pub top_keys: Vec<TopKey>,
    /// The most-written physical keys of each bucket, hottest first.
    pub bucket_top: Vec<Vec<TopKey>>,
    pub skew: Skew,
}

/// A bounded min-heap entry: writes, then earlier insertion order first (`Reverse`), then the key.
type Ranked = (u64, Reverse<usize>, PhysicalKey);
type TopHeap = BinaryHeap<Reverse<Ranked>>;

/// Analyses `keys` as `sharded` writes them over `partitions`, listing `top_n` top keys.
pub fn analyze(
    keys: &KeySet,
    sharded: &Sharded,
    partitions: &Partitioner,
    top_n: usize,
) -> Analysis {
    let n = partitions.len();
    let total = keys.total();
    let mut buckets = vec![0u64; n];
    // Min-heaps of (count, Reverse(order)) keep the largest counts; ties favour earlier keys.
    let mut top = TopHeap::new();
    let mut per_bucket: Vec<TopHeap> = vec![TopHeap::new(); n];
    let push =
        |heap: &mut BinaryHeap<_>, limit: usize, item: (u64, Reverse<usize>, PhysicalKey)| {
            if limit == 0 {
                return;
            }
            if heap.len() < limit {
                heap.push(Reverse(item));
            } else if let Some(Reverse(min)) = heap.peek()
                && (item.0, item.1) > (min.0, min.1)
            {
                heap.pop();
                heap.push(Reverse(item));
            }
        };
    // The smallest count a full heap holds: a later key (ties favour earlier keys) with no more writes cannot
    // enter it, which one comparison tells (a look into each heap for every key was 2.5 of the 5.7 ms this
    // pass took over 762,704 keys, `perf record`).
    let floor = |heap: &TopHeap, limit: usize| {
        (heap.len() >= limit)
            .then(|| heap.peek().map(|Reverse(min)| min.0))
            .flatten()
    };
    let mut top_floor = None;
    let mut bucket_floors = vec![None; n];
    for (order, (id, hash, count)) in sharded.physical(keys).enumerate() {
        let b = partitions.partition_of(hash);
        buckets[b] += count;
        if top_floor.is_none_or(|f| count > f) {
            push(&mut top, top_n, (count, Reverse(order), id));
            top_floor = floor(&top, top_n);
        }
        if bucket_floors[b].is_none_or(|f| count > f) {
            push(
                &mut per_bucket[b],
                TOP_PER_BUCKET,
                (count, Reverse(order), id),
            );
            bucket_floors[b] = floor(&per_bucket[b], TOP_PER_BUCKET);
        }
    }
    let to_list = |heap: TopHeap| -> Vec<TopKey> {
        let mut items: Vec<_> = heap.into_iter().map(|Reverse(x)| x).collect();
        items.sort_by_key(|&(count, order, _)| Reverse((count, order)));
        items
            .into_iter()
            .map(|(count, _, id)| TopKey {
                id,
                key: sharded.label(keys, id),
                count,
                share: share(count, total),
            })
            .collect()
    };
    let top_keys = to_list(top);
    let bucket_top = per_bucket.into_iter().map(to_list).collect();
    let hottest_bucket = hottest(&buckets);
    let skew = Skew {
        max_over_mean: max_over_mean(&buckets),
        gini: gini(&buckets),
        top_key_share: top_keys.first().map_or(0.0, |k| k.share),
        hottest_bucket_share: share(buckets.get(hottest_bucket).copied().unwrap_or(0), total),
    };
    Analysis {
        total,
        distinct: keys.len(),
        physical_distinct: sharded.physical_len(keys),
        buckets,
        hottest_bucket,
        top_keys,
        bucket_top,
        skew,
    }
}

/// The physical keys of one bucket, most written first: at most `limit` of them, with how many the bucket holds
/// in all. Shares are of all writes.
pub fn bucket_keys(
    keys: &KeySet,
    sharded: &Sharded,
    partitions: &Partitioner,
    bucket: usize,
    limit: usize,
) -> (Vec<TopKey>, usize) {
    let total = keys.total();
    let mut inside: Vec<(PhysicalKey, u64)> = sharded
        .physical(keys)
        .filter(|&(_, hash, _)| partitions.partition_of(hash) == bucket)
        .map(|(id, _, count)| (id, count))
        .collect();
    let all = inside.len();
    inside.sort_by_key(|&(id, count)| (Reverse(count), id));
    inside.truncate(limit);
    let list = inside
        .into_iter()
        .map(|(id, count)| TopKey {
            id,
            key: sharded.label(keys, id),
            count,
            share: share(count, total),
        })
        .collect();
    (list, all)
}

pub fn share(count: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        count as f64 / total as f64
    }
}

/// Index of the largest count (the first one on ties).
pub fn hottest(counts: &[u64]) -> usize {
    let mut best = 0;
    for (i, &c) in counts.iter().enumerate() {
        if c > counts[best] {
            best = i;
        }
    }
    best
}

pub fn max_over_mean(counts: &[u64]) -> f64 {
    let sum: u64 = counts.iter().sum();
    if sum == 0 || counts.is_empty() {
        return 0.0;
    }
    let max = counts.iter().copied().max().unwrap_or(0);
    max as f64 / (sum as f64 / counts.len() as f64)
}

/// Gini coefficient: `Σ (2i − n − 1) x_i / (n Σ x)` over counts sorted ascending, `i` from 1.
pub fn gini(counts: &[u64]) -> f64 {
    let n = counts.len();
    let sum: u64 = counts.iter().sum();
    if n == 0 || sum == 0 {
        return 0.0;
    }
    let mut sorted = counts.to_vec();
    sorted.sort_unstable();
    let weighted: f64 = sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| (2.0 * (i as f64 + 1.0) - n as f64 - 1.0) * x as f64)
        .sum();
    weighted / (n as f64 * sum as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::KeyType;
    use crate::model::shard::{Scope, ShardPlan, Strategy};

    #[test]
    fn skew_figures() {
        assert_eq!(gini(&[5, 5, 5, 5]), 0.0);
        assert!((gini(&[0, 0, 0, 8]) - 0.75).abs() < 1e-12);
        assert_eq!(gini(&[]), 0.0);
        assert_eq!(gini(&[0, 0]), 0.0);
        assert!((max_over_mean(&[1, 1, 2]) - 1.5).abs() < 1e-12);
        assert_eq!(max_over_mean(&[0, 0]), 0.0);
        assert_eq!(hottest(&[3, 9, 9, 1]), 1);
    }

    proptest::proptest! {
        /// The top keys, overall and by bucket, are those of sorting every key by its writes (ties by the
        /// order keys came in) and keeping the first: many ties, small and large lists.
        #[test]
        fn top_keys_are_the_first_of_all_sorted(
            counts in proptest::collection::vec(1u64..12, 0..400),
            top_n in 0usize..15,
            buckets in 1usize..6,
        ) {
            let mut keys = KeySet::new(KeyType::S);
            for (i, &c) in counts.iter().enumerate() {
                keys.add(format!("k{i}").as_bytes(), c);
            }
            let parts = Partitioner::equal(buckets);
            let a = analyze(&keys, &ShardPlan::none().apply(&keys), &parts, top_n);
            let first = |of: &mut dyn Iterator<Item = u32>, n: usize| {
                let mut all: Vec<u32> = of.collect();
                all.sort_by_key(|&i| (std::cmp::Reverse(keys.count(i)), i));
                all.truncate(n);
                all
            };
            let ids = |list: &[TopKey]| list.iter().map(|t| t.id.key).collect::<Vec<_>>();
            let n = keys.len() as u32;
            proptest::prop_assert_eq!(ids(&a.top_keys), first(&mut (0..n), top_n));
            for (b, tops) in a.bucket_top.iter().enumerate() {
                let mut inside = (0..n).filter(|&i| parts.partition_of(keys.hash(i)) == b);
                proptest::prop_assert_eq!(ids(tops), first(&mut inside, TOP_PER_BUCKET));
            }
        }
    }

    #[test]
    fn analysis_of_a_hot_key() {
        let mut keys = KeySet::new(KeyType::S);
        keys.add(b"HOT", 900);
        for i in 0..100 {
            keys.add(format!("k{i}").as_bytes(), 1);
        }
        let parts = Partitioner::equal(8);
        let plain = analyze(&keys, &ShardPlan::none().apply(&keys), &parts, 5);
        assert_eq!(plain.total, 1000);
        assert_eq!(plain.buckets.iter().sum::<u64>(), 1000);
        assert_eq!(plain.top_keys[0].key, "HOT");
        assert!((plain.skew.top_key_share - 0.9).abs() < 1e-12);
        assert!(plain.skew.hottest_bucket_share >= 0.9);
        assert_eq!(plain.top_keys.len(), 5);
        assert_eq!(plain.bucket_top[plain.hottest_bucket][0].key, "HOT");

        let plan = ShardPlan {
            shards: 10,
            strategy: Strategy::RoundRobin,
            scope: Scope::default(),
            ..ShardPlan::default()
        };
        let sharded = analyze(&keys, &plan.apply(&keys), &parts, 5);
        assert_eq!(sharded.total, 1000);
        assert_eq!(sharded.physical_distinct, 110);
        assert!(sharded.skew.hottest_bucket_share < plain.skew.hottest_bucket_share);
        assert!((sharded.skew.top_key_share - 0.09).abs() < 1e-12);
        assert!(sharded.top_keys[0].key.starts_with("HOT#"));
    }

    #[test]
    fn the_keys_of_a_bucket() {
        let mut keys = KeySet::new(KeyType::S);
        keys.add(b"HOT", 900);
        for i in 0..100 {
            keys.add(format!("k{i}").as_bytes(), 1);
        }
        let parts = Partitioner::equal(4);
        let sharded = ShardPlan::none().apply(&keys);
        let a = analyze(&keys, &sharded, &parts, 5);
        let mut seen = 0;
        for b in 0..4 {
            let (list, all) = bucket_keys(&keys, &sharded, &parts, b, 1000);
            assert_eq!(list.len(), all);
            assert_eq!(list.iter().map(|k| k.count).sum::<u64>(), a.buckets[b]);
            seen += all;
        }
        assert_eq!(seen, 101);
        let (list, all) = bucket_keys(&keys, &sharded, &parts, a.hottest_bucket, 3);
        assert_eq!(list.len(), 3);
        assert!(all > 3);
        assert_eq!(list[0].key, "HOT");
    }

    #[test]
    fn empty_analysis() {
        let keys = KeySet::new(KeyType::S);
        let a = analyze(
            &keys,
            &ShardPlan::none().apply(&keys),
            &Partitioner::equal(4),
            10,
        );
        assert_eq!(a.total, 0);
        assert_eq!(a.buckets, [0, 0, 0, 0]);
        assert!(a.top_keys.is_empty());
        assert_eq!(a.skew, Skew::default());
    }
}
