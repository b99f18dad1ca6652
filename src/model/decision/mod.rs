//! The hot-partition decision tree, as data, answered from the data where the data can answer.
//!
//! From the AWS guidance on hot partitions ("Best practices for designing partition keys", "Burst and adaptive
//! capacity", "Using write sharding"):
//!
//! ```text
//! Throttling concentrated on one key?
//! ├─ yes: Is one item hot (one partition + sort key)?
//! │       ├─ yes: shard the key or cache the reads
//! │       └─ no:  the item collection is hot: shard the key (split-for-heat may help, unless the sort key
//! │               only increases or the table has an LSI)
//! └─ no:  Low-cardinality partition key?
//!         ├─ yes: write-shard the prefix
//!         └─ no:  adaptive capacity will most likely absorb it
//! ```
//!
//! "Throttling concentrated on one key?" is answered, in this order, from:
//! 1. an observed throttling reason ([`ThrottleReason`](crate::model::capacity::ThrottleReason)): `…KeyRangeThroughputExceeded` is a hot partition
//!    (yes); `…ProvisionedThroughputExceeded`, `…AccountLimitExceeded` and `…MaxOnDemandThroughputExceeded`
//!    are table-level limits (no, and the recommendation says so);
//! 2. capacity, when a workload is known ([`CapacityFacts`](crate::model::capacity::CapacityFacts)): yes when the hottest partition is over its
//!    per-partition limit while the table is within its total and one key is most of that partition's demand;
//! 3. the key counts alone: the top key's bucket is hot and one key dominates it.
//!
//! By concept: the tree as data (`tree.rs`: [`Question`], [`Leaf`], [`TREE`]), the [`Evidence`] it is answered
//! from (`evidence.rs`), the user's and the data's answers (`answers.rs`: [`UserAnswers`],
//! [`answer_from_data`]), the walk to a leaf (`path.rs`: [`evaluate`] returns a [`Path`]) and the
//! recommendation text (`advice.rs`). The thresholds the data's answers use are the constants below.

mod advice;
mod answers;
mod evidence;
mod path;
mod tree;

pub use answers::{Answer, UserAnswers, answer_from_data};
pub use evidence::{Evidence, ObservedReason, ShardFacts};
pub use path::{Path, Step, evaluate};
pub use tree::{Action, Branch, Leaf, Node, Question, TABLE_LEVEL, TREE, branch};

/// A bucket counts as hot from this many times the mean bucket.
pub const HOT_BUCKET_RATIO: f64 = 2.0;
/// One key "is" the hot bucket when it holds at least this share of the bucket's writes...
pub const DOMINANT_SHARE_OF_BUCKET: f64 = 0.5;
/// ...and at least this many times the writes of the next key.
pub const DOMINANT_OVER_NEXT: f64 = 2.0;
/// Fewer distinct keys than this many per bucket is low cardinality.
pub const LOW_CARDINALITY_KEYS_PER_BUCKET: usize = 4;
/// A handful of keys (the top three) taking at least this share of writes is low cardinality too.
pub const LOW_CARDINALITY_TOP3_SHARE: f64 = 0.5;
/// Fewer writes than this (or than [`MIN_WRITES_PER_BUCKET`] per bucket) are too few to judge skew: by chance
/// alone a bucket of a handful of writes is often twice the mean. Our own threshold, not an AWS number.
pub const MIN_WRITES_TO_JUDGE: u64 = 100;
/// See [`MIN_WRITES_TO_JUDGE`].
pub const MIN_WRITES_PER_BUCKET: u64 = 10;

/// Whether `total` writes over `buckets` buckets are too few for the tree (and the chart's colours) to judge.
pub fn too_few_to_judge(total: u64, buckets: usize) -> bool {
    total < MIN_WRITES_TO_JUDGE.max(MIN_WRITES_PER_BUCKET * buckets as u64)
}

#[cfg(test)]
mod tests;
