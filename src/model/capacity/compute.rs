//! A workload spread over the partitions as the key counts say ([`compute`]): each partition's demand,
//! utilisation, served and throttled units, the table's totals, the headline, and the facts the decision tree
//! reasons from ([`CapacityFacts`]).

use serde::Serialize;

use super::{CapacityError, PartitionPlan, PartitionsFrom, RateSource, Workload};
use crate::model::fmt::{percent, units};
use crate::model::stats::{Analysis, share};

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
            hottest_top_key_share: top.map_or(0.0, |t| share(t.count, bucket)),
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
    let (reads_per_sec, writes_per_sec) = match workload.rates {
        RateSource::Weights => (workload.reads_per_sec, workload.writes_per_sec),
        RateSource::WritesPerSec => (workload.reads_per_sec, total as f64),
        RateSource::ReadsPerSec => (total as f64, workload.writes_per_sec),
    };
    let mut partitions = demand(workload, plan, buckets);
    let (table_throttled_read_units, table_throttled_write_units) =
        cut_to_table(&mut partitions, plan);
    let sum = |f: fn(&PartitionLoad) -> f64| partitions.iter().map(f).sum::<f64>();
    let (read_units, write_units) = (sum(|p| p.read_units), sum(|p| p.write_units));
    let hottest_partition = hottest(&partitions);
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

/// Each partition's demand (request rates × units) and what it serves of it under its own limit.
fn demand(workload: &Workload, plan: &PartitionPlan, buckets: &[u64]) -> Vec<PartitionLoad> {
    let total: u64 = buckets.iter().sum();
    let (per_read, per_write) = (workload.units_per_read(), workload.units_per_write());
    let weight = |c: u64| share(c, total);
    buckets
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
        .collect()
}

/// A provisioned table serves no more than its provisioned units: cuts every partition's served units back in
/// proportion, sets what each throttles, and returns the read and write units the table's total throttled.
fn cut_to_table(partitions: &mut [PartitionLoad], plan: &PartitionPlan) -> (f64, f64) {
    let served_reads: f64 = partitions.iter().map(|p| p.served_read_units).sum();
    let served_writes: f64 = partitions.iter().map(|p| p.served_write_units).sum();
    let read_cut = cut(served_reads, plan.table_read_capacity);
    let write_cut = cut(served_writes, plan.table_write_capacity);
    let (mut table_throttled_read_units, mut table_throttled_write_units) = (0.0, 0.0);
    for p in partitions.iter_mut() {
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
    (table_throttled_read_units, table_throttled_write_units)
}

/// The partition with the highest utilisation (the first on ties; 0 with none).
fn hottest(partitions: &[PartitionLoad]) -> usize {
    let mut hottest = 0;
    for (i, p) in partitions.iter().enumerate() {
        if p.util() > partitions[hottest].util() {
            hottest = i;
        }
    }
    hottest
}

/// The factor that brings `served` down to `capacity` (1 when it fits).
fn cut(served: f64, capacity: f64) -> f64 {
    if served > capacity && served > 0.0 {
        capacity / served
    } else {
        1.0
    }
}
