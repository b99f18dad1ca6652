//! Capacity: what a workload asks of each partition, in read and write units, against what a partition serves.
//!
//! Counting keys per bucket shows skew; what throttles a real table is throughput per partition. A
//! [`Workload`] (request rates, item size, consistency, billing mode, partition count) is spread over the
//! partitions exactly as a key set's bucket counts say, and [`compute`] returns each partition's demand,
//! utilisation, served and throttled units, and the table's totals.
//!
//! The numbers come from the AWS DynamoDB developer guide:
//!
//! - Units: "Read/write capacity mode" / "Provisioned capacity mode"
//!   (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/provisioned-capacity-mode.html>):
//!   a strongly consistent read of up to 4 KB is one read unit, eventually consistent half of that,
//!   transactional double; a write of up to 1 KB is one write unit, transactional double.
//! - Per-partition limits: "Best practices for designing and using partition keys effectively"
//!   (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html>):
//!   3,000 read units and 1,000 write units per second per partition.
//! - Partition size and count: "Partitions and data distribution"
//!   (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html>) and
//!   "Local secondary indexes" (the 10 GB item-collection limit).
//! - On-demand: "Warm throughput" and "On-demand capacity mode"
//!   (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html>,
//!   <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html>).
//! - Burst and adaptive capacity: "Burst and adaptive capacity"
//!   (<https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html>).
//!
//! What is modelled, and what is not: a partition serves up to its per-partition limit and the rest of its
//! demand is throttled (this is the `KeyRangeThroughputExceeded` case). A provisioned table also serves no more
//! than its provisioned units in total; when the partitions together would, the served units are cut back in
//! proportion (the `ProvisionedThroughputExceeded` case). Adaptive capacity is assumed to let any partition use
//! up to its full per-partition limit; burst capacity, split-for-heat and on-demand's growth after a new peak
//! are not modelled here (a time-step simulation does that).
//!
//! By concept: the units one request costs by item size and consistency (`units.rs`: [`read_units`],
//! [`ItemSize`]), the [`Workload`] and the [`PartitionPlan`] it runs on (`workload.rs`), [`compute`] and what it
//! returns (`compute.rs`: [`Capacity`], [`CapacityFacts`]), and observed [`ThrottleReason`]s (`throttle.rs`).
//! The limits are the constants below.

mod compute;
mod throttle;
mod units;
mod workload;

pub use compute::{Capacity, CapacityFacts, PartitionLoad, compute};
pub use throttle::{
    BadThrottleReason, ReasonMetric, ThrottleCause, ThrottleOp, ThrottleReason, ThrottleResource,
};
pub use units::{ASSUMED_ITEM_BYTES, Consistency, ItemSize, read_units, write_units};
pub use workload::{Billing, PartitionCount, PartitionPlan, PartitionsFrom, RateSource, Workload};

/// Read units one partition serves per second. ("Best practices for designing and using partition keys
/// effectively": "3,000 RCUs or 1,000 WCUs per partition".)
pub const PARTITION_READ_UNITS: f64 = 3_000.0;
/// Write units one partition serves per second (same page).
pub const PARTITION_WRITE_UNITS: f64 = 1_000.0;
/// Bytes of one read unit (strongly consistent, up to 4 KB). ("Provisioned capacity mode".)
pub const READ_UNIT_BYTES: u64 = 4 * 1024;
/// Bytes of one write unit (up to 1 KB; 1 KB = 1,024 bytes). ("Provisioned capacity mode".)
pub const WRITE_UNIT_BYTES: u64 = 1024;
/// About 10 GB of data per partition, and the item-collection limit of a table with a local secondary index
/// ("Partitions and data distribution"; "Local secondary indexes": `ItemCollectionSizeLimitExceededException`).
pub const PARTITION_BYTES: u64 = 10 * 1024 * 1024 * 1024;
/// The item-collection size limit of a table with a local secondary index ("Local secondary indexes").
pub const ITEM_COLLECTION_LIMIT_BYTES: u64 = PARTITION_BYTES;
/// Largest item DynamoDB stores: 400 KB ("Service, account, and table quotas in Amazon DynamoDB").
pub const MAX_ITEM_BYTES: u64 = 400 * 1024;
/// A new on-demand table's warm throughput: 12,000 read units/s ("Warm throughput"; "On-demand capacity mode").
pub const ON_DEMAND_WARM_READ_UNITS: f64 = 12_000.0;
/// A new on-demand table's warm throughput: 4,000 write units/s (same pages).
pub const ON_DEMAND_WARM_WRITE_UNITS: f64 = 4_000.0;
/// Partitions of a new on-demand table: its warm throughput over the per-partition limits (12,000 / 3,000 =
/// 4,000 / 1,000 = 4).
pub const ON_DEMAND_WARM_PARTITIONS: usize = 4;
/// Burst capacity: DynamoDB keeps up to 300 seconds of a partition's unused capacity and may spend it in a
/// spike ("Burst and adaptive capacity"). Not used by [`compute`] (a steady state); the time simulation
/// ([`crate::model::simulate`]) has its own `burst_seconds` parameter, 300 by default.
pub const BURST_SECONDS: u32 = 300;
/// The most partitions the model handles (the CLI's `--buckets` limit too).
pub const MAX_PARTITIONS: usize = 4096;

/// Why a workload cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CapacityError {
    #[error("{what} must be a finite number at least 0, not {value}")]
    BadRate { what: &'static str, value: f64 },
    #[error("provisioned {what} must be at least 1 unit per second")]
    ZeroProvisioned { what: &'static str },
    #[error("the partition count must be at least 1")]
    ZeroPartitions,
    #[error("{count} partitions is more than the {MAX_PARTITIONS} the model handles")]
    TooManyPartitions { count: u64 },
    #[error("no measured item sizes")]
    NoItemSizes,
    #[error(
        "an item of {bytes} bytes is larger than DynamoDB's 400 KB ({MAX_ITEM_BYTES} bytes) item limit"
    )]
    ItemTooLarge { bytes: u64 },
    #[error("{buckets} buckets given for {partitions} partitions")]
    BucketMismatch { buckets: usize, partitions: usize },
}

#[cfg(test)]
mod tests;
