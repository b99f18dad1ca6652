//! An item collection in sort-key order, and the contiguous range a Query's key condition reads.
//!
//! Items that share a partition key are stored together, ordered by sort key: strings by UTF-8 bytes, numbers
//! numerically, binary by bytes (AWS developer guide, "Partitions and data distribution"). A Query with
//! `begins_with` or `between` on the sort key reads one contiguous run of that order; its cost is the summed
//! size of the items it reads, rounded up to 4 KB units once (half for eventually consistent reads), where a
//! Scan is charged for every item of the table ("Read consumption for Query / Scan").

use std::cmp::Ordering;
use std::ops::Range;

use super::key::{KeyType, compare_keys};

/// A sort-key condition of a Query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortKeyCondition {
    /// `begins_with(SK, :prefix)` (strings and binary).
    BeginsWith(Vec<u8>),
    /// `SK BETWEEN :lo AND :hi`, inclusive.
    Between(Vec<u8>, Vec<u8>),
}

/// Sorts sort keys the way DynamoDB orders them.
pub fn sort(sks: &mut [&[u8]], ty: KeyType) {
    sks.sort_by(|a, b| compare_keys(a, b, ty));
}

/// The positions of `sorted` a condition reads: always one contiguous range.
pub fn query_range(sorted: &[&[u8]], ty: KeyType, cond: &SortKeyCondition) -> Range<usize> {
    match cond {
        SortKeyCondition::BeginsWith(prefix) => {
            let start = sorted.partition_point(|sk| sk < &prefix.as_slice());
            let len = sorted[start..]
                .iter()
                .take_while(|sk| sk.starts_with(prefix))
                .count();
            start..start + len
        }
        SortKeyCondition::Between(lo, hi) => {
            let start = sorted.partition_point(|sk| compare_keys(sk, lo, ty) == Ordering::Less);
            let end = sorted.partition_point(|sk| compare_keys(sk, hi, ty) != Ordering::Greater);
            start..end.max(start)
        }
    }
}

/// Read units of a Query over `items` items of `item_bytes` each: sizes summed, then rounded up to 4 KB
/// units; eventually consistent reads cost half. At least one unit.
pub fn query_units(items: u64, item_bytes: u64, eventual: bool) -> f64 {
    let units = (items * item_bytes).div_ceil(4096).max(1) as f64;
    if eventual { units / 2.0 } else { units }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begins_with_and_between_read_one_run() {
        let mut sks: Vec<&[u8]> = vec![b"EVT#2", b"PROFILE", b"EVT#10", b"EVT#1", b"ORDER#1"];
        sort(&mut sks, KeyType::S);
        assert_eq!(
            sks,
            [
                b"EVT#1".as_slice(),
                b"EVT#10",
                b"EVT#2",
                b"ORDER#1",
                b"PROFILE"
            ]
        );
        let r = query_range(
            &sks,
            KeyType::S,
            &SortKeyCondition::BeginsWith(b"EVT#".to_vec()),
        );
        assert_eq!(r, 0..3);
        let r = query_range(
            &sks,
            KeyType::S,
            &SortKeyCondition::BeginsWith(b"EVT#1".to_vec()),
        );
        assert_eq!(r, 0..2, "EVT#1 and EVT#10 share the prefix");
        let r = query_range(
            &sks,
            KeyType::S,
            &SortKeyCondition::Between(b"EVT#10".to_vec(), b"ORDER#1".to_vec()),
        );
        assert_eq!(r, 1..4, "between is inclusive");
        let none = query_range(
            &sks,
            KeyType::S,
            &SortKeyCondition::BeginsWith(b"ZZZ".to_vec()),
        );
        assert!(none.is_empty());
    }

    #[test]
    fn numbers_order_by_value() {
        let mut sks: Vec<&[u8]> = vec![b"10", b"9", b"100", b"-1"];
        sort(&mut sks, KeyType::N);
        assert_eq!(sks, [b"-1".as_slice(), b"9", b"10", b"100"]);
        let r = query_range(
            &sks,
            KeyType::N,
            &SortKeyCondition::Between(b"9".to_vec(), b"10".to_vec()),
        );
        assert_eq!(r, 1..3);
    }

    #[test]
    fn query_cost_sums_then_rounds() {
        // 10 items of 1 KB: 10 KB summed = 3 units (not 10 as ten GetItems would be).
        assert_eq!(query_units(10, 1024, false), 3.0);
        assert_eq!(query_units(10, 1024, true), 1.5);
        assert_eq!(
            query_units(0, 1024, false),
            1.0,
            "an empty Query still costs a unit"
        );
        assert_eq!(query_units(4, 1024, false), 1.0, "exactly 4 KB is one unit");
        assert_eq!(query_units(1, 4097, false), 2.0);
    }
}
