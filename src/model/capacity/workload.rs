//! The workload: request rates, item size, consistency, billing mode and partition count, checked, and the
//! partitions it runs on ([`PartitionPlan`]: how many, where the count came from, what each serves).

use serde::{Deserialize, Serialize};

use super::{
    ASSUMED_ITEM_BYTES, CapacityError, Consistency, ItemSize, MAX_PARTITIONS,
    ON_DEMAND_WARM_PARTITIONS, PARTITION_BYTES, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS,
};
use crate::model::keyset::SizeProfile;

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
    pub const ALL: [Self; 3] = [Self::Weights, Self::WritesPerSec, Self::ReadsPerSec];

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
    ///
    /// A table size of 0 (none given) becomes the data's measured storage: the sizes together plus 100 bytes of
    /// indexing overhead an item (DYNAMODB-TRAFFIC "Item size" \[AWS\]), for the ⌈size / 10 GB⌉ part of the
    /// partition count.
    pub fn resolve(&self, measured: Option<SizeProfile>) -> Workload {
        let mut w = self.clone();
        let measured = measured.filter(|p| p.items() > 0);
        if w.table_bytes == 0
            && let Some(p) = &measured
        {
            w.table_bytes = p.bytes() + p.items() * crate::model::item_size::STORAGE_OVERHEAD_BYTES;
        }
        if w.item_size == ItemSize::FromData {
            w.item_size = measured.map_or(ItemSize::Bytes(ASSUMED_ITEM_BYTES), ItemSize::Measured);
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
