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

use serde::{Deserialize, Serialize};

use super::keyset::{SizeGroup, SizeProfile};
use super::stats::Analysis;

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
/// spike ("Burst and adaptive capacity"). Not used by [`compute`] (a steady state); kept for the simulator.
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

/// How reads are made; transactional applies to writes too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Strongly consistent reads, standard writes.
    #[default]
    Strong,
    /// Eventually consistent reads (half a strongly consistent read), standard writes.
    Eventual,
    /// Transactional reads and writes (double).
    Transactional,
}

impl Consistency {
    pub const ALL: [Self; 3] = [Self::Strong, Self::Eventual, Self::Transactional];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Strong => "strong",
            Self::Eventual => "eventual",
            Self::Transactional => "transactional",
        }
    }
}

/// Read units of one read of an item of `bytes` bytes: ⌈bytes / 4 KB⌉ strongly consistent (at least 1, also
/// for a missing item), half of that eventually consistent, double transactional. ("Provisioned capacity mode".)
pub fn read_units(bytes: u64, consistency: Consistency) -> f64 {
    let strong = bytes.div_ceil(READ_UNIT_BYTES).max(1) as f64;
    match consistency {
        Consistency::Strong => strong,
        Consistency::Eventual => strong / 2.0,
        Consistency::Transactional => strong * 2.0,
    }
}

/// Write units of one write of an item of `bytes` bytes: ⌈bytes / 1 KB⌉ (at least 1), double transactional.
/// ("Provisioned capacity mode".) Eventual consistency does not apply to writes.
pub fn write_units(bytes: u64, consistency: Consistency) -> f64 {
    let standard = bytes.div_ceil(WRITE_UNIT_BYTES).max(1) as f64;
    match consistency {
        Consistency::Strong | Consistency::Eventual => standard,
        Consistency::Transactional => standard * 2.0,
    }
}

/// The size of the items read and written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(Default)]
pub enum ItemSize {
    /// Every item has this many bytes.
    Bytes(u64),
    /// Sizes measured from the data, grouped by whole KB: each request touches one of these items, in
    /// proportion to the items of each size, and each is rounded up on its own (as GetItem/PutItem and
    /// BatchGetItem round per item). Measured from JSON, which runs larger than DynamoDB's own item size, a
    /// group over 400 KB counts as 400 KB.
    Measured(SizeProfile),
    /// The loaded items' measured sizes when the input carried them (DynamoDB JSON and Ion exports, scan output), else
    /// 1 KB: turned into [`Self::Measured`] or [`Self::Bytes`] by [`Workload::resolve`].
    #[default]
    FromData,
}

/// The size a [`ItemSize::FromData`] workload assumes when the data has no item sizes.
pub const ASSUMED_ITEM_BYTES: u64 = WRITE_UNIT_BYTES;

impl ItemSize {
    /// (size in whole KB, items, bytes) groups; an unresolved [`Self::FromData`] is 1 KB.
    fn groups(&self) -> Vec<SizeGroup> {
        match self {
            Self::Bytes(b) => SizeProfile::uniform(*b, 1).groups,
            Self::FromData => SizeProfile::uniform(ASSUMED_ITEM_BYTES, 1).groups,
            Self::Measured(p) => p
                .groups
                .iter()
                .map(|g| SizeGroup {
                    kb: g.kb.min(MAX_ITEM_BYTES / 1024),
                    ..*g
                })
                .collect(),
        }
    }

    fn check(&self) -> Result<(), CapacityError> {
        match self {
            Self::Bytes(bytes) if *bytes > MAX_ITEM_BYTES => {
                Err(CapacityError::ItemTooLarge { bytes: *bytes })
            }
            Self::Measured(p) if p.items() == 0 => Err(CapacityError::NoItemSizes),
            _ => Ok(()),
        }
    }

    /// Mean item size in bytes (0 with no sizes).
    pub fn mean_bytes(&self) -> f64 {
        let groups = self.groups();
        let items: u64 = groups.iter().map(|g| g.items).sum();
        if items == 0 {
            return 0.0;
        }
        groups.iter().map(|g| g.bytes as f64).sum::<f64>() / items as f64
    }

    /// Mean read units of one read.
    pub fn read_units(&self, consistency: Consistency) -> f64 {
        mean(&self.groups(), |b| read_units(b, consistency))
    }

    /// Mean write units of one write.
    pub fn write_units(&self, consistency: Consistency) -> f64 {
        mean(&self.groups(), |b| write_units(b, consistency))
    }

    /// What the size is, for people: "1,024 bytes", "measured: mean 212 bytes over 2,000,000 items".
    pub fn describe(&self) -> String {
        match self {
            Self::Bytes(b) => format!("{} bytes", thousands(*b)),
            Self::FromData => format!(
                "from the data (none measured: {} bytes)",
                thousands(ASSUMED_ITEM_BYTES)
            ),
            Self::Measured(p) => format!(
                "measured: mean {} bytes over {} items",
                thousands(p.mean()),
                thousands(p.items())
            ),
        }
    }
}

/// A count with thousands separators: "1,204".
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The mean of `units` over size groups, weighted by their items; each group's size is its whole-KB bound,
/// which gives the same units as each item's own size.
fn mean(groups: &[SizeGroup], units: impl Fn(u64) -> f64) -> f64 {
    let items: u64 = groups.iter().map(|g| g.items).sum();
    if items == 0 {
        return 0.0;
    }
    groups
        .iter()
        .map(|g| units(g.kb * 1024) * g.items as f64)
        .sum::<f64>()
        / items as f64
}

/// How the table is billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum Billing {
    /// Provisioned read and write units per second (each at least 1).
    Provisioned { rcu: u64, wcu: u64 },
    /// On-demand: the table serves up to its partitions' limits (a new table has four partitions: 12,000 read
    /// and 4,000 write units per second of warm throughput).
    #[default]
    OnDemand,
}

/// How many partitions the table has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionCount {
    /// From the billing mode and the table size (see [`Workload::partition_plan`]).
    #[default]
    Auto,
    /// The user's count (e.g. from `DescribeTable`'s warm throughput, or after splits).
    Override(usize),
}

/// What the key set's counts mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RateSource {
    /// Counts are weights: partition `i` gets `rate × buckets[i] / total` of both reads and writes.
    #[default]
    Weights,
    /// Counts are writes per second (a `key,count` file of request rates): partition `i` writes
    /// `buckets[i]` per second; reads/s are still spread by the counts as weights.
    WritesPerSec,
    /// Counts are reads per second: partition `i` reads `buckets[i]` per second; writes/s are spread by the
    /// counts as weights.
    ReadsPerSec,
}

impl RateSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Weights => "weights",
            Self::WritesPerSec => "writes-per-sec",
            Self::ReadsPerSec => "reads-per-sec",
        }
    }
}

/// Traffic and table settings: what a table is asked to do per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Workload {
    /// Reads per second over the whole table (ignored with [`RateSource::ReadsPerSec`]).
    pub reads_per_sec: f64,
    /// Writes per second over the whole table (ignored with [`RateSource::WritesPerSec`]).
    pub writes_per_sec: f64,
    pub consistency: Consistency,
    pub item_size: ItemSize,
    pub billing: Billing,
    pub partitions: PartitionCount,
    /// Table size in bytes, for the size part of the partition count (0 = small).
    pub table_bytes: u64,
    pub rates: RateSource,
}

impl Default for Workload {
    fn default() -> Self {
        Self {
            reads_per_sec: 0.0,
            writes_per_sec: 0.0,
            consistency: Consistency::Strong,
            item_size: ItemSize::default(),
            billing: Billing::OnDemand,
            partitions: PartitionCount::Auto,
            table_bytes: 0,
            rates: RateSource::Weights,
        }
    }
}

/// Where a partition count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionsFrom {
    /// Provisioned: ⌈RCU / 3,000 + WCU / 1,000⌉.
    Throughput,
    /// ⌈table size / 10 GB⌉.
    Size,
    /// A new on-demand table's warm throughput (4 partitions).
    OnDemandWarm,
    /// Given by the user.
    Override,
}

impl PartitionsFrom {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Throughput => "provisioned throughput: RCU / 3,000 + WCU / 1,000, rounded up",
            Self::Size => "table size: size / 10 GB, rounded up",
            Self::OnDemandWarm => {
                "a new on-demand table's warm throughput (12,000 reads, 4,000 writes)"
            }
            Self::Override => "given",
        }
    }
}

/// The partitions a workload runs on and what they, and the table, serve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PartitionPlan {
    pub count: usize,
    pub from: PartitionsFrom,
    /// Read units per second one partition serves.
    pub read_limit: f64,
    /// Write units per second one partition serves.
    pub write_limit: f64,
    /// Read units per second the table serves: provisioned RCU, or on-demand's partitions × per-partition limit.
    pub table_read_capacity: f64,
    /// Write units per second the table serves: provisioned WCU, or on-demand's partitions × limit.
    pub table_write_capacity: f64,
}

fn check_rate(what: &'static str, value: f64) -> Result<(), CapacityError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(CapacityError::BadRate { what, value })
    }
}

fn to_count(count: u64) -> Result<usize, CapacityError> {
    usize::try_from(count)
        .ok()
        .filter(|&c| c <= MAX_PARTITIONS)
        .ok_or(CapacityError::TooManyPartitions { count })
}

impl Workload {
    /// Checks the numbers a user typed.
    pub fn validate(&self) -> Result<(), CapacityError> {
        check_rate("reads per second", self.reads_per_sec)?;
        check_rate("writes per second", self.writes_per_sec)?;
        self.item_size.check()?;
        if let Billing::Provisioned { rcu, wcu } = self.billing {
            if rcu == 0 {
                return Err(CapacityError::ZeroProvisioned { what: "RCU" });
            }
            if wcu == 0 {
                return Err(CapacityError::ZeroProvisioned { what: "WCU" });
            }
        }
        if self.partitions == PartitionCount::Override(0) {
            return Err(CapacityError::ZeroPartitions);
        }
        Ok(())
    }

    /// The table's partitions:
    /// - provisioned: max(⌈size / 10 GB⌉, ⌈RCU / 3,000 + WCU / 1,000⌉), at least 1 ("Partitions and data
    ///   distribution"; the heuristic AWS published for provisioned tables);
    /// - on-demand: a new table's 4 partitions (warm throughput 12,000 / 4,000 units, "Warm throughput"), or
    ///   more when the size needs them;
    /// - or the user's count.
    pub fn partition_plan(&self) -> Result<PartitionPlan, CapacityError> {
        self.validate()?;
        let by_size = self.table_bytes.div_ceil(PARTITION_BYTES);
        let (count, from) = match (self.partitions, self.billing) {
            (PartitionCount::Override(n), _) => (n as u64, PartitionsFrom::Override),
            (PartitionCount::Auto, Billing::Provisioned { rcu, wcu }) => {
                // ⌈RCU / 3,000 + WCU / 1,000⌉ in integers: ⌈(RCU + 3 WCU) / 3,000⌉.
                let by_throughput = rcu.saturating_add(wcu.saturating_mul(3)).div_ceil(3_000);
                if by_size > by_throughput {
                    (by_size, PartitionsFrom::Size)
                } else {
                    (by_throughput.max(1), PartitionsFrom::Throughput)
                }
            }
            (PartitionCount::Auto, Billing::OnDemand) => {
                if by_size > ON_DEMAND_WARM_PARTITIONS as u64 {
                    (by_size, PartitionsFrom::Size)
                } else {
                    (
                        ON_DEMAND_WARM_PARTITIONS as u64,
                        PartitionsFrom::OnDemandWarm,
                    )
                }
            }
        };
        let count = to_count(count)?;
        let (table_read_capacity, table_write_capacity) = match self.billing {
            Billing::Provisioned { rcu, wcu } => (rcu as f64, wcu as f64),
            Billing::OnDemand => (
                count as f64 * PARTITION_READ_UNITS,
                count as f64 * PARTITION_WRITE_UNITS,
            ),
        };
        Ok(PartitionPlan {
            count,
            from,
            read_limit: PARTITION_READ_UNITS,
            write_limit: PARTITION_WRITE_UNITS,
            table_read_capacity,
            table_write_capacity,
        })
    }

    /// This workload with [`ItemSize::FromData`] replaced by the data's measured sizes (`measured`), or by
    /// [`ASSUMED_ITEM_BYTES`] when the data has none.
    pub fn resolve(&self, measured: Option<SizeProfile>) -> Workload {
        let mut w = self.clone();
        if w.item_size == ItemSize::FromData {
            w.item_size = measured
                .filter(|p| p.items() > 0)
                .map_or(ItemSize::Bytes(ASSUMED_ITEM_BYTES), ItemSize::Measured);
        }
        w
    }

    /// Read units of one read (mean over measured sizes).
    pub fn units_per_read(&self) -> f64 {
        self.item_size.read_units(self.consistency)
    }

    /// Write units of one write (mean over measured sizes).
    pub fn units_per_write(&self) -> f64 {
        self.item_size.write_units(self.consistency)
    }
}

/// One partition under a workload. Units are per second.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct PartitionLoad {
    /// Read units asked of this partition.
    pub read_units: f64,
    /// Write units asked of this partition.
    pub write_units: f64,
    /// Read demand over the per-partition read limit (1.0 = at the limit).
    pub read_util: f64,
    /// Write demand over the per-partition write limit.
    pub write_util: f64,
    pub served_read_units: f64,
    pub served_write_units: f64,
    pub throttled_read_units: f64,
    pub throttled_write_units: f64,
}

impl PartitionLoad {
    /// The larger of the read and write utilisation: the histogram's "% of partition capacity".
    pub fn util(&self) -> f64 {
        self.read_util.max(self.write_util)
    }
}

/// A workload over the partitions: per-partition demand and the table's totals. Units are per second.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Capacity {
    pub partition_count: usize,
    /// How the partition count was derived.
    pub partitions_from: PartitionsFrom,
    pub partition_read_limit: f64,
    pub partition_write_limit: f64,
    pub table_read_capacity: f64,
    pub table_write_capacity: f64,
    pub units_per_read: f64,
    pub units_per_write: f64,
    /// Reads and writes per second the table is asked for.
    pub reads_per_sec: f64,
    pub writes_per_sec: f64,
    /// Read and write units per second asked of the table.
    pub read_units: f64,
    pub write_units: f64,
    /// Total demand over the table's capacity (provisioned RCU/WCU, or on-demand's partitions × limit).
    pub table_read_util: f64,
    pub table_write_util: f64,
    pub served_read_units: f64,
    pub served_write_units: f64,
    pub throttled_read_units: f64,
    pub throttled_write_units: f64,
    /// The part of the throttled units due to the table's provisioned total, not a partition's limit.
    pub table_throttled_read_units: f64,
    pub table_throttled_write_units: f64,
    /// The partition with the highest utilisation (the first on ties).
    pub hottest_partition: usize,
    pub partitions: Vec<PartitionLoad>,
}

impl Capacity {
    /// The larger of the table's read and write utilisation.
    pub fn table_util(&self) -> f64 {
        self.table_read_util.max(self.table_write_util)
    }

    /// The hottest partition's utilisation (the larger of read and write).
    pub fn hottest_util(&self) -> f64 {
        self.partitions
            .get(self.hottest_partition)
            .map_or(0.0, PartitionLoad::util)
    }

    /// Throttled read plus write units per second.
    pub fn throttled_units(&self) -> f64 {
        self.throttled_read_units + self.throttled_write_units
    }

    /// Per-partition utilisation (the larger of read and write), for a histogram of "% of partition capacity".
    pub fn utilisation(&self) -> Vec<f64> {
        self.partitions.iter().map(PartitionLoad::util).collect()
    }

    /// The headline, naming read or write units: "table at 40 % of its write capacity · hottest partition at
    /// 150 % of its write limit · 500 write units/s throttled".
    pub fn headline(&self) -> String {
        let table_kind = if self.table_read_util > self.table_write_util {
            "read"
        } else {
            "write"
        };
        let hot_kind = match self.partitions.get(self.hottest_partition) {
            Some(p) if p.read_util > p.write_util => "read",
            _ => "write",
        };
        let throttled = match (
            self.throttled_read_units > 0.0,
            self.throttled_write_units > 0.0,
        ) {
            (true, true) => format!(
                "{} read + {} write units/s throttled",
                units(self.throttled_read_units),
                units(self.throttled_write_units)
            ),
            (true, false) => format!(
                "{} read units/s throttled",
                units(self.throttled_read_units)
            ),
            (false, true) => format!(
                "{} write units/s throttled",
                units(self.throttled_write_units)
            ),
            (false, false) => "nothing throttled".to_owned(),
        };
        format!(
            "table at {} of its {table_kind} capacity · hottest partition at {} of its {hot_kind} limit · {throttled}",
            percent(self.table_util()),
            percent(self.hottest_util()),
        )
    }

    /// The facts the decision tree reasons from; `analysis` must be the analysis the capacity was computed
    /// from (its buckets and per-bucket top keys).
    pub fn facts(&self, analysis: &Analysis) -> CapacityFacts {
        let hot = self.partitions.get(self.hottest_partition);
        let top = analysis
            .bucket_top
            .get(self.hottest_partition)
            .and_then(|t| t.first());
        let bucket = analysis
            .buckets
            .get(self.hottest_partition)
            .copied()
            .unwrap_or(0);
        CapacityFacts {
            table_read_util: self.table_read_util,
            table_write_util: self.table_write_util,
            hottest_partition: self.hottest_partition,
            hottest_read_util: hot.map_or(0.0, |p| p.read_util),
            hottest_write_util: hot.map_or(0.0, |p| p.write_util),
            hottest_top_key: top.map(|t| t.key.clone()),
            // Reads and writes are spread by the same counts, so a key's share of its partition's demand is
            // its share of the partition's count.
            hottest_top_key_share: top.map_or(0.0, |t| super::stats::share(t.count, bucket)),
            throttled_units: self.throttled_units(),
        }
    }
}

/// Capacity figures the decision tree answers "Throttling concentrated on one key?" from.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct CapacityFacts {
    pub table_read_util: f64,
    pub table_write_util: f64,
    pub hottest_partition: usize,
    pub hottest_read_util: f64,
    pub hottest_write_util: f64,
    /// The hottest partition's top key and its share of that partition's demand.
    pub hottest_top_key: Option<String>,
    pub hottest_top_key_share: f64,
    pub throttled_units: f64,
}

impl CapacityFacts {
    pub fn table_util(&self) -> f64 {
        self.table_read_util.max(self.table_write_util)
    }
    pub fn hottest_util(&self) -> f64 {
        self.hottest_read_util.max(self.hottest_write_util)
    }
    /// "reads" or "writes": the dimension that makes the hottest partition hottest.
    pub fn hottest_kind(&self) -> &'static str {
        if self.hottest_read_util > self.hottest_write_util {
            "reads"
        } else {
            "writes"
        }
    }
}

/// A utilisation as a percentage: "140 %", "5 %", "0.4 %".
pub fn percent(util: f64) -> String {
    let p = util * 100.0;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// Units per second, without a fraction when whole: "3000", "2.5".
pub fn units(u: f64) -> String {
    if (u - u.round()).abs() < 1e-9 {
        format!("{u:.0}")
    } else {
        format!("{u:.1}")
    }
}

fn ratio(demand: f64, capacity: f64) -> f64 {
    if capacity > 0.0 {
        demand / capacity
    } else {
        0.0
    }
}

/// Spreads `workload` over the partitions as `buckets` (one count per partition of `plan`) say.
///
/// With [`RateSource::Weights`], partition `i` gets `rate × buckets[i] / total` reads and writes per second
/// (sharded or not: the buckets already say where each physical key lands). With no counts at all there are
/// no weights and the demand is zero. With [`RateSource::WritesPerSec`] (or `ReadsPerSec`) partition `i`
/// writes (reads) `buckets[i]` per second.
pub fn compute(
    workload: &Workload,
    plan: &PartitionPlan,
    buckets: &[u64],
) -> Result<Capacity, CapacityError> {
    workload.validate()?;
    if buckets.len() != plan.count {
        return Err(CapacityError::BucketMismatch {
            buckets: buckets.len(),
            partitions: plan.count,
        });
    }
    let total: u64 = buckets.iter().sum();
    let (per_read, per_write) = (workload.units_per_read(), workload.units_per_write());
    let weight = |c: u64| super::stats::share(c, total);
    let (reads_per_sec, writes_per_sec) = match workload.rates {
        RateSource::Weights => (workload.reads_per_sec, workload.writes_per_sec),
        RateSource::WritesPerSec => (workload.reads_per_sec, total as f64),
        RateSource::ReadsPerSec => (total as f64, workload.writes_per_sec),
    };
    let mut partitions: Vec<PartitionLoad> = buckets
        .iter()
        .map(|&c| {
            let reads = match workload.rates {
                RateSource::ReadsPerSec => c as f64,
                _ => workload.reads_per_sec * weight(c),
            };
            let writes = match workload.rates {
                RateSource::WritesPerSec => c as f64,
                _ => workload.writes_per_sec * weight(c),
            };
            let (read_units, write_units) = (reads * per_read, writes * per_write);
            PartitionLoad {
                read_units,
                write_units,
                read_util: ratio(read_units, plan.read_limit),
                write_util: ratio(write_units, plan.write_limit),
                served_read_units: read_units.min(plan.read_limit),
                served_write_units: write_units.min(plan.write_limit),
                ..PartitionLoad::default()
            }
        })
        .collect();
    // A provisioned table serves no more than its provisioned units: cut every partition back in proportion.
    let served_reads: f64 = partitions.iter().map(|p| p.served_read_units).sum();
    let served_writes: f64 = partitions.iter().map(|p| p.served_write_units).sum();
    let read_cut = cut(served_reads, plan.table_read_capacity);
    let write_cut = cut(served_writes, plan.table_write_capacity);
    let (mut table_throttled_read_units, mut table_throttled_write_units) = (0.0, 0.0);
    for p in &mut partitions {
        let (r, w) = (
            p.served_read_units * read_cut,
            p.served_write_units * write_cut,
        );
        table_throttled_read_units += p.served_read_units - r;
        table_throttled_write_units += p.served_write_units - w;
        p.served_read_units = r;
        p.served_write_units = w;
        p.throttled_read_units = p.read_units - r;
        p.throttled_write_units = p.write_units - w;
    }
    let sum = |f: fn(&PartitionLoad) -> f64| partitions.iter().map(f).sum::<f64>();
    let (read_units, write_units) = (sum(|p| p.read_units), sum(|p| p.write_units));
    let mut hottest_partition = 0;
    for (i, p) in partitions.iter().enumerate() {
        if p.util() > partitions[hottest_partition].util() {
            hottest_partition = i;
        }
    }
    Ok(Capacity {
        partition_count: plan.count,
        partitions_from: plan.from,
        partition_read_limit: plan.read_limit,
        partition_write_limit: plan.write_limit,
        table_read_capacity: plan.table_read_capacity,
        table_write_capacity: plan.table_write_capacity,
        units_per_read: per_read,
        units_per_write: per_write,
        reads_per_sec,
        writes_per_sec,
        read_units,
        write_units,
        table_read_util: ratio(read_units, plan.table_read_capacity),
        table_write_util: ratio(write_units, plan.table_write_capacity),
        served_read_units: sum(|p| p.served_read_units),
        served_write_units: sum(|p| p.served_write_units),
        throttled_read_units: sum(|p| p.throttled_read_units),
        throttled_write_units: sum(|p| p.throttled_write_units),
        table_throttled_read_units,
        table_throttled_write_units,
        hottest_partition,
        partitions,
    })
}

/// The factor that brings `served` down to `capacity` (1 when it fits).
fn cut(served: f64, capacity: f64) -> f64 {
    if served > capacity && served > 0.0 {
        capacity / served
    } else {
        1.0
    }
}

/// An observed throttling reason, as DynamoDB reports it on a throttled request:
/// `{Table|Index}{Read|Write}{ProvisionedThroughputExceeded|AccountLimitExceeded|KeyRangeThroughputExceeded|
/// MaxOnDemandThroughputExceeded}` ("Troubleshooting throttling issues in DynamoDB",
/// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottling.html>).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ThrottleReason {
    pub resource: ThrottleResource,
    pub op: ThrottleOp,
    pub cause: ThrottleCause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleResource {
    Table,
    Index,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleOp {
    Read,
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleCause {
    /// The table's (or index's) provisioned units: table-level.
    ProvisionedThroughputExceeded,
    /// The account's per-table limit: table-level.
    AccountLimitExceeded,
    /// One partition's limit: a hot partition.
    KeyRangeThroughputExceeded,
    /// The on-demand table's configured maximum: table-level.
    MaxOnDemandThroughputExceeded,
}

impl ThrottleCause {
    pub const ALL: [Self; 4] = [
        Self::ProvisionedThroughputExceeded,
        Self::AccountLimitExceeded,
        Self::KeyRangeThroughputExceeded,
        Self::MaxOnDemandThroughputExceeded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ProvisionedThroughputExceeded => "ProvisionedThroughputExceeded",
            Self::AccountLimitExceeded => "AccountLimitExceeded",
            Self::KeyRangeThroughputExceeded => "KeyRangeThroughputExceeded",
            Self::MaxOnDemandThroughputExceeded => "MaxOnDemandThroughputExceeded",
        }
    }
}

impl ThrottleReason {
    /// Every reason, for a picker.
    pub fn all() -> Vec<Self> {
        let mut all = Vec::with_capacity(16);
        for resource in [ThrottleResource::Table, ThrottleResource::Index] {
            for op in [ThrottleOp::Read, ThrottleOp::Write] {
                for cause in ThrottleCause::ALL {
                    all.push(Self {
                        resource,
                        op,
                        cause,
                    });
                }
            }
        }
        all
    }

    /// A hot partition (key range), as opposed to a table-level limit.
    pub fn is_key_range(self) -> bool {
        self.cause == ThrottleCause::KeyRangeThroughputExceeded
    }
}

impl std::fmt::Display for ThrottleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let resource = match self.resource {
            ThrottleResource::Table => "Table",
            ThrottleResource::Index => "Index",
        };
        let op = match self.op {
            ThrottleOp::Read => "Read",
            ThrottleOp::Write => "Write",
        };
        write!(f, "{resource}{op}{}", self.cause.as_str())
    }
}

/// A string that is not one of the sixteen throttling reasons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a throttling reason: expected {{Table|Index}}{{Read|Write}}{{ProvisionedThroughputExceeded|\
     AccountLimitExceeded|KeyRangeThroughputExceeded|MaxOnDemandThroughputExceeded}}"
)]
pub struct BadThrottleReason(pub String);

impl std::str::FromStr for ThrottleReason {
    type Err = BadThrottleReason;

    /// Parses e.g. `TableWriteKeyRangeThroughputExceeded` (ASCII case ignored).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        Self::all()
            .into_iter()
            .find(|r| r.to_string().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| BadThrottleReason(text.to_owned()))
    }
}

impl TryFrom<String> for ThrottleReason {
    type Error = BadThrottleReason;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<ThrottleReason> for String {
    fn from(r: ThrottleReason) -> Self {
        r.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    fn one_partition(workload: &Workload) -> PartitionPlan {
        Workload {
            partitions: PartitionCount::Override(1),
            ..workload.clone()
        }
        .partition_plan()
        .unwrap()
    }

    // AWS: "a strongly consistent read of a 20 KB item … 5 read capacity units" ("Provisioned capacity mode").
    #[test]
    fn twenty_kb_strong_read_is_five_units_so_a_partition_serves_600() {
        assert_eq!(read_units(20 * 1024, Consistency::Strong), 5.0);
        let w = Workload {
            reads_per_sec: 600.0,
            item_size: ItemSize::Bytes(20 * 1024),
            ..Workload::default()
        };
        let plan = one_partition(&w);
        let c = compute(&w, &plan, &[1]).unwrap();
        assert!(close(c.partitions[0].read_util, 1.0));
        assert_eq!(c.throttled_read_units, 0.0);
        let over = Workload {
            reads_per_sec: 601.0,
            ..w
        };
        let c = compute(&over, &plan, &[1]).unwrap();
        assert!(close(c.throttled_read_units, 5.0));
        assert!(close(c.served_read_units, 3000.0));
    }

    // AWS: one partition serves 1,000 write units/s; 4,000 writes/s of 1 KB on one key throttle 3,000.
    #[test]
    fn four_thousand_writes_on_one_key_throttle_three_thousand() {
        let w = Workload {
            writes_per_sec: 4000.0,
            item_size: ItemSize::Bytes(1024),
            ..Workload::default()
        };
        let plan = w.partition_plan().unwrap();
        assert_eq!(plan.count, 4);
        let c = compute(&w, &plan, &[0, 0, 7, 0]).unwrap();
        let hot = c.partitions[2];
        assert!(close(hot.write_units, 4000.0));
        assert!(close(hot.write_util, 4.0));
        assert!(close(hot.served_write_units, 1000.0));
        assert!(close(hot.throttled_write_units, 3000.0));
        assert!(close(c.throttled_write_units, 3000.0));
        assert!(close(c.table_write_util, 1.0));
        assert_eq!(c.hottest_partition, 2);
        assert_eq!(
            c.headline(),
            "table at 100 % of its write capacity · hottest partition at 400 % of its write limit · 3000 write \
             units/s throttled"
        );
    }

    // AWS: provisioning more than a partition serves does not help a key on one partition.
    #[test]
    fn forty_thousand_wcu_still_throttle_one_partition() {
        let w = Workload {
            writes_per_sec: 5000.0,
            billing: Billing::Provisioned {
                rcu: 1,
                wcu: 40_000,
            },
            ..Workload::default()
        };
        let plan = w.partition_plan().unwrap();
        assert_eq!(plan.count, 41); // ⌈1 / 3,000 + 40,000 / 1,000⌉ = ⌈40.0003⌉
        assert_eq!(plan.from, PartitionsFrom::Throughput);
        let mut buckets = vec![0; plan.count];
        buckets[7] = 100;
        let c = compute(&w, &plan, &buckets).unwrap();
        assert!(close(c.table_write_util, 5000.0 / 40_000.0));
        assert!(close(c.throttled_write_units, 4000.0));
        assert_eq!(c.table_throttled_write_units, 0.0);
        assert_eq!(c.hottest_partition, 7);
        assert!(c.table_util() < 1.0 && c.hottest_util() > 1.0);
    }

    #[test]
    fn read_rounding_edges() {
        assert_eq!(read_units(4096, Consistency::Strong), 1.0);
        assert_eq!(read_units(4097, Consistency::Strong), 2.0);
        assert_eq!(read_units(4096, Consistency::Eventual), 0.5);
        assert_eq!(read_units(4097, Consistency::Eventual), 1.0);
        assert_eq!(read_units(4097, Consistency::Transactional), 4.0);
        assert_eq!(read_units(20 * 1024, Consistency::Eventual), 2.5);
    }

    #[test]
    fn write_rounding_edges() {
        assert_eq!(write_units(1024, Consistency::Strong), 1.0);
        assert_eq!(write_units(1025, Consistency::Strong), 2.0);
        assert_eq!(write_units(1025, Consistency::Eventual), 2.0);
        assert_eq!(write_units(1025, Consistency::Transactional), 4.0);
        assert_eq!(write_units(3500, Consistency::Strong), 4.0);
    }

    #[test]
    fn zero_bytes_still_cost_one_unit() {
        assert_eq!(read_units(0, Consistency::Strong), 1.0);
        assert_eq!(read_units(0, Consistency::Eventual), 0.5);
        assert_eq!(read_units(0, Consistency::Transactional), 2.0);
        assert_eq!(write_units(0, Consistency::Strong), 1.0);
        assert_eq!(write_units(0, Consistency::Transactional), 2.0);
    }

    #[test]
    fn measured_sizes_round_each_item() {
        let mut keys = crate::model::KeySet::new(crate::model::KeyType::S);
        let k = keys.add(b"k", 2);
        keys.note_item_bytes(k, 100, 1);
        keys.note_item_bytes(k, 4097, 1);
        let size = ItemSize::Measured(keys.size_profile().unwrap());
        assert_eq!(size.read_units(Consistency::Strong), 1.5);
        assert_eq!(size.write_units(Consistency::Strong), 3.0);
        assert_eq!(size.mean_bytes(), 2098.5);
        assert_eq!(size.describe(), "measured: mean 2,098 bytes over 2 items");
        // JSON runs larger than DynamoDB's item size: a measured 500 KB counts as 400 KB, not an error.
        let big = ItemSize::Measured(SizeProfile::uniform(500 * 1024, 3));
        assert_eq!(big.write_units(Consistency::Strong), 400.0);
        assert_eq!(big.check(), Ok(()));
        assert_eq!(ItemSize::FromData.write_units(Consistency::Strong), 1.0);
        assert_eq!(ItemSize::FromData.mean_bytes(), 1024.0);
        let w = Workload {
            item_size: ItemSize::Measured(SizeProfile::default()),
            ..Workload::default()
        };
        assert_eq!(w.partition_plan(), Err(CapacityError::NoItemSizes));
        let w = Workload {
            item_size: ItemSize::Bytes(MAX_ITEM_BYTES + 1),
            ..Workload::default()
        };
        assert!(matches!(
            w.validate(),
            Err(CapacityError::ItemTooLarge { .. })
        ));
    }

    #[test]
    fn provisioned_partition_count_formula() {
        let plan = |rcu, wcu, table_bytes| {
            Workload {
                billing: Billing::Provisioned { rcu, wcu },
                table_bytes,
                ..Workload::default()
            }
            .partition_plan()
            .unwrap()
        };
        assert_eq!(plan(1, 1, 0).count, 1);
        assert_eq!(plan(3000, 1000, 0).count, 2);
        assert_eq!(plan(3000, 1, 0).count, 2); // 1 + 0.001 rounds up
        assert_eq!(plan(2997, 1, 0).count, 1); // 2,997 / 3,000 + 1 / 1,000 = exactly 1
        assert_eq!(plan(2998, 1, 0).count, 2); // 1.000333… rounds up
        let p = plan(1000, 1000, 0);
        assert_eq!((p.count, p.from), (2, PartitionsFrom::Throughput)); // 0.33 + 1 = 1.33 → 2
        let p = plan(100, 100, 25 * PARTITION_BYTES + 1);
        assert_eq!((p.count, p.from), (26, PartitionsFrom::Size));
        assert_eq!(p.table_write_capacity, 100.0);
        assert_eq!(
            Workload {
                billing: Billing::Provisioned { rcu: 0, wcu: 5 },
                ..Workload::default()
            }
            .partition_plan(),
            Err(CapacityError::ZeroProvisioned { what: "RCU" })
        );
        assert!(matches!(
            Workload {
                billing: Billing::Provisioned {
                    rcu: 1,
                    wcu: 10_000_000
                },
                ..Workload::default()
            }
            .partition_plan(),
            Err(CapacityError::TooManyPartitions { .. })
        ));
    }

    #[test]
    fn on_demand_starts_with_warm_throughput() {
        let p = Workload::default().partition_plan().unwrap();
        assert_eq!((p.count, p.from), (4, PartitionsFrom::OnDemandWarm));
        assert_eq!(p.table_read_capacity, ON_DEMAND_WARM_READ_UNITS);
        assert_eq!(p.table_write_capacity, ON_DEMAND_WARM_WRITE_UNITS);
        let big = Workload {
            table_bytes: 50 * PARTITION_BYTES,
            ..Workload::default()
        }
        .partition_plan()
        .unwrap();
        assert_eq!((big.count, big.from), (50, PartitionsFrom::Size));
        assert_eq!(big.table_write_capacity, 50_000.0);
        let given = Workload {
            partitions: PartitionCount::Override(9),
            ..Workload::default()
        }
        .partition_plan()
        .unwrap();
        assert_eq!((given.count, given.from), (9, PartitionsFrom::Override));
        assert_eq!(given.table_read_capacity, 27_000.0);
        assert_eq!(
            Workload {
                partitions: PartitionCount::Override(0),
                ..Workload::default()
            }
            .partition_plan(),
            Err(CapacityError::ZeroPartitions)
        );
    }

    #[test]
    fn an_even_spread_uses_every_partition_alike() {
        let w = Workload {
            reads_per_sec: 6000.0,
            writes_per_sec: 2000.0,
            consistency: Consistency::Eventual,
            item_size: ItemSize::Bytes(8 * 1024),
            ..Workload::default()
        };
        let plan = w.partition_plan().unwrap();
        let c = compute(&w, &plan, &[25, 25, 25, 25]).unwrap();
        for p in &c.partitions {
            // 1,500 reads × 1 unit (8 KB eventual) and 500 writes × 8 units.
            assert!(close(p.read_units, 1500.0));
            assert!(close(p.read_util, 0.5));
            assert!(close(p.write_units, 4000.0));
            assert!(close(p.write_util, 4.0));
        }
        assert!(close(c.table_read_util, 0.5));
        assert!(close(c.table_write_util, 4.0));
        assert!(close(c.throttled_write_units, 12_000.0));
        assert!(close(c.table_util(), c.hottest_util()));
        let calm = Workload {
            writes_per_sec: 400.0,
            ..w
        };
        let c = compute(&calm, &plan, &[1, 1, 1, 1]).unwrap();
        assert!(c.utilisation().iter().all(|&u| close(u, 0.8)));
        assert_eq!(c.throttled_units(), 0.0);
    }

    #[test]
    fn a_provisioned_table_throttles_at_its_total() {
        // 2 partitions (⌈3,000 / 3,000 + 1,000 / 1,000⌉), 1,000 WCU provisioned; 1,500 writes/s evenly spread:
        // each partition could serve its 750, the table only 1,000.
        let w = Workload {
            writes_per_sec: 1500.0,
            billing: Billing::Provisioned {
                rcu: 3000,
                wcu: 1000,
            },
            ..Workload::default()
        };
        let plan = w.partition_plan().unwrap();
        assert_eq!(plan.count, 2);
        let c = compute(&w, &plan, &[5, 5]).unwrap();
        assert!(close(c.table_write_util, 1.5));
        assert!(close(c.served_write_units, 1000.0));
        assert!(close(c.throttled_write_units, 500.0));
        assert!(close(c.table_throttled_write_units, 500.0));
        assert!(close(c.partitions[0].write_util, 0.75));
    }

    #[test]
    fn transactional_writes_cost_double() {
        let w = Workload {
            writes_per_sec: 600.0,
            consistency: Consistency::Transactional,
            item_size: ItemSize::Bytes(1025),
            partitions: PartitionCount::Override(1),
            ..Workload::default()
        };
        let c = compute(&w, &w.partition_plan().unwrap(), &[3]).unwrap();
        assert!(close(c.write_units, 2400.0));
        assert!(close(c.throttled_write_units, 1400.0));
    }

    #[test]
    fn counts_as_rates() {
        let w = Workload {
            reads_per_sec: 300.0,
            rates: RateSource::WritesPerSec,
            ..Workload::default()
        };
        let plan = w.partition_plan().unwrap();
        let c = compute(&w, &plan, &[1500, 300, 200, 0]).unwrap();
        assert!(close(c.writes_per_sec, 2000.0));
        assert!(close(c.partitions[0].write_units, 1500.0));
        assert!(close(c.partitions[0].throttled_write_units, 500.0));
        assert!(close(c.partitions[1].write_units, 300.0));
        assert!(close(c.partitions[0].read_units, 225.0));
        let r = Workload {
            rates: RateSource::ReadsPerSec,
            ..w
        };
        let c = compute(&r, &plan, &[1500, 300, 200, 0]).unwrap();
        assert!(close(c.partitions[0].read_units, 1500.0));
        assert!(close(c.reads_per_sec, 2000.0));
    }

    #[test]
    fn bad_input_is_an_error() {
        let w = Workload {
            writes_per_sec: f64::NAN,
            ..Workload::default()
        };
        assert!(matches!(w.validate(), Err(CapacityError::BadRate { .. })));
        let ok = Workload::default();
        let plan = ok.partition_plan().unwrap();
        assert_eq!(
            compute(&ok, &plan, &[1, 2]),
            Err(CapacityError::BucketMismatch {
                buckets: 2,
                partitions: 4
            })
        );
        // No keys: no weights, no demand.
        let c = compute(
            &Workload {
                writes_per_sec: 10.0,
                ..ok
            },
            &plan,
            &[0; 4],
        )
        .unwrap();
        assert_eq!(c.write_units, 0.0);
    }

    #[test]
    fn throttle_reasons_parse() {
        let r: ThrottleReason = "TableWriteKeyRangeThroughputExceeded".parse().unwrap();
        assert!(r.is_key_range());
        assert_eq!(r.op, ThrottleOp::Write);
        let r: ThrottleReason = "indexreadprovisionedthroughputexceeded".parse().unwrap();
        assert_eq!(r.resource, ThrottleResource::Index);
        assert_eq!(r.to_string(), "IndexReadProvisionedThroughputExceeded");
        assert!(!r.is_key_range());
        assert_eq!(ThrottleReason::all().len(), 16);
        for r in ThrottleReason::all() {
            assert_eq!(r.to_string().parse::<ThrottleReason>(), Ok(r));
        }
        assert!("TableWriteThrottled".parse::<ThrottleReason>().is_err());
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(json, "\"IndexReadProvisionedThroughputExceeded\"");
        assert_eq!(serde_json::from_str::<ThrottleReason>(&json).unwrap(), r);
    }

    #[test]
    fn workload_round_trips_through_json() {
        let w = Workload {
            reads_per_sec: 10.0,
            item_size: ItemSize::Measured(SizeProfile::uniform(10, 2)),
            billing: Billing::Provisioned { rcu: 5, wcu: 6 },
            partitions: PartitionCount::Override(3),
            ..Workload::default()
        };
        let text = serde_json::to_string(&w).unwrap();
        assert_eq!(serde_json::from_str::<Workload>(&text).unwrap(), w);
        assert_eq!(
            serde_json::from_str::<Workload>("{}").unwrap(),
            Workload::default()
        );
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(0.05), "5.0 %");
        assert_eq!(percent(1.4), "140 %");
        assert_eq!(percent(0.0), "0 %");
        assert_eq!(units(3000.0), "3000");
        assert_eq!(units(2.5), "2.5");
    }
}
