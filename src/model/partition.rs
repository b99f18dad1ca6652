//! From a key to a partition: xxh3-64 over the key's canonical bytes, and partitions that own contiguous
//! ranges of the 64-bit hash space.
//!
//! This is a *teaching* hash. DynamoDB hashes partition keys with an internal, unpublished function
//! (AWS developer guide, "Partitions and data distribution"); shardlens shows the same kind of behaviour —
//! a key always lands on one partition, distinct keys spread evenly — but not the partition a real table
//! would pick.

use std::ops::RangeInclusive;

/// The teaching hash: xxh3-64 (seed 0) of a key's canonical bytes. Stable across runs and platforms.
#[inline]
pub fn key_hash(canonical: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(canonical)
}

/// SplitMix64's finaliser: a stable, well-mixed hash of an integer.
pub fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Partitions as contiguous ranges of the hash space. Partition `i` owns `starts[i] ..= starts[i + 1] - 1`
/// (the last one up to `u64::MAX`). Equal ranges map a hash with one multiply; after a split, a binary search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partitioner {
    starts: Vec<u64>,
    equal: bool,
}

impl Partitioner {
    /// `n` partitions (at least 1) with equal ranges: partition = `(hash as u128 * n) >> 64`.
    pub fn equal(n: usize) -> Self {
        let n = n.max(1);
        let starts = (0..n)
            .map(|i| {
                // Smallest h with floor(h * n / 2^64) = i, i.e. ceil(i * 2^64 / n).
                let num = (i as u128) << 64;
                let n = n as u128;
                num.div_ceil(n) as u64
            })
            .collect();
        Self {
            starts,
            equal: true,
        }
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The partition that owns `hash`.
    #[inline]
    pub fn partition_of(&self, hash: u64) -> usize {
        if self.equal {
            ((u128::from(hash) * self.starts.len() as u128) >> 64) as usize
        } else {
            self.starts.partition_point(|&s| s <= hash) - 1
        }
    }

    /// The hash range partition `i` owns.
    pub fn range(&self, i: usize) -> RangeInclusive<u64> {
        let start = self.starts.get(i).copied().unwrap_or(u64::MAX);
        let end = self
            .starts
            .get(i + 1)
            .map_or(u64::MAX, |&next| next.saturating_sub(1));
        start..=end
    }

    /// Splits partition `i` into two halves of its hash range, as DynamoDB splits a partition that grows past
    /// its size or its throughput. Partition numbers after `i` shift up by one. A one-hash range cannot split.
    pub fn split(&mut self, i: usize) -> bool {
        let range = self.range(i);
        let (start, end) = (*range.start(), *range.end());
        if i >= self.starts.len() || start >= end {
            return false;
        }
        let mid = start + (end - start) / 2 + 1;
        self.starts.insert(i + 1, mid);
        self.equal = false;
        true
    }

    /// Counts per partition of `(hash, count)` pairs.
    pub fn bucket_counts(&self, pairs: impl Iterator<Item = (u64, u64)>) -> Vec<u64> {
        let mut buckets = vec![0u64; self.len()];
        for (hash, count) in pairs {
            buckets[self.partition_of(hash)] += count;
        }
        buckets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_hashes_and_buckets_are_stable() {
        // If these change, every saved session and every lesson built on shardlens changes: don't.
        // xxh3-64("") = 0x2d06800538d394c2 is the reference value of the xxHash specification.
        let golden: [(&str, u64, usize, usize); 5] = [
            ("BOARD#global", 0xa1f5_4aad_53c3_0605, 5, 40),
            ("status=OPEN", 0xd04f_9b01_0971_f7ae, 6, 52),
            ("2026-06-23", 0xd9d0_da48_a3d2_d989, 6, 54),
            ("USER#1", 0xe8cf_c00f_17d9_8d40, 7, 58),
            ("", 0x2d06_8005_38d3_94c2, 1, 11),
        ];
        let eight = Partitioner::equal(8);
        let sixty_four = Partitioner::equal(64);
        for (key, hash, bucket8, bucket64) in golden {
            let h = key_hash(key.as_bytes());
            assert_eq!(h, hash, "{key}");
            assert_eq!(eight.partition_of(h), bucket8, "{key}");
            assert_eq!(sixty_four.partition_of(h), bucket64, "{key}");
        }
    }

    #[test]
    fn equal_ranges_agree_with_the_multiply() {
        for n in [1, 2, 3, 7, 8, 10, 64, 1000] {
            let p = Partitioner::equal(n);
            let generic = Partitioner {
                starts: p.starts.clone(),
                equal: false,
            };
            for i in 0..n {
                let r = p.range(i);
                for h in [*r.start(), *r.end(), r.start() / 2 + r.end() / 2] {
                    assert_eq!(p.partition_of(h), i, "n={n} h={h}");
                    assert_eq!(generic.partition_of(h), i, "n={n} h={h}");
                }
            }
            assert_eq!(p.partition_of(u64::MAX), n - 1);
            assert_eq!(p.partition_of(0), 0);
        }
    }

    #[test]
    fn split_halves_a_range() {
        let mut p = Partitioner::equal(2);
        assert!(p.split(0));
        assert_eq!(p.len(), 3);
        assert_eq!(*p.range(0).start(), 0);
        assert_eq!(*p.range(0).end(), (1u64 << 62) - 1);
        assert_eq!(*p.range(1).start(), 1u64 << 62);
        assert_eq!(*p.range(2).start(), 1u64 << 63);
        assert_eq!(p.partition_of(u64::MAX), 2);
        assert_eq!(p.partition_of((1 << 62) + 5), 1);
        let counts = p.bucket_counts([(0, 2), (1 << 62, 3), (u64::MAX, 4)].into_iter());
        assert_eq!(counts, [2, 3, 4]);
    }
}
