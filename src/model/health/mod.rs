//! The table health report: what an export's whole items tell besides the spread of their keys. Storage
//! (each item's size by DynamoDB's rules plus 100 bytes of indexing overhead \[AWS\]) per key and per partition,
//! and the partitions that size alone needs (⌈storage / 10 GB⌉); items by write units; and findings, each with
//! its kind, severity, numbers, example keys and source: items near or over 400 KB, item collections against
//! 10 GB, hot reads of big items, the TTL attribute, and what each global secondary index costs per write.
//! The rules are DYNAMODB-TRAFFIC's "Item size" and "TTL"; thresholds of our own are marked \[ours\].

pub mod findings;
pub mod ttl;

use serde::Serialize;

use super::KeySet;
use super::capacity::Workload;
use super::fmt::{bytes, grouped, plural};
use super::item_size::{PARTITION_BYTES, STORAGE_OVERHEAD_BYTES};
use super::keyset::SizeGroup;
use super::partition::Partitioner;
pub use findings::{Finding, Severity, units_per_write};
use ttl::{TtlSplit, TtlStats};

/// Collections listed, largest first.
const COLLECTIONS: usize = 5;

/// What the health report is built from.
pub struct HealthInput<'a> {
    pub keys: &'a KeySet,
    /// Partitions (buckets) the view divides the hash space into.
    pub partitions: usize,
    /// The view's workload, resolved (measured sizes in), when it has one.
    pub workload: Option<&'a Workload>,
    /// The table has a local secondary index: an item collection is limited to 10 GB.
    pub has_lsi: bool,
    /// The TTL attribute's values, when the items had one.
    pub ttl: Option<&'a TtlStats>,
    /// Now, in epoch seconds (for TTL values already past).
    pub now: i64,
    /// The global secondary indexes of the design, each with its keys (projected sizes noted).
    pub gsis: Vec<GsiInput<'a>>,
}

/// One global secondary index of the design.
pub struct GsiInput<'a> {
    pub name: String,
    /// Its keys: the writes of items it holds, each with its projected size.
    pub keys: &'a KeySet,
    /// What it projects (for the report's words): `ALL`, `KEYS_ONLY`, `INCLUDE`.
    pub projection: String,
    /// Units per second it throttles under the workload (its own partitions, its share of the writes).
    pub throttled_units: Option<f64>,
    /// Its partitions under the workload (the comparison's buckets).
    pub partitions: usize,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// Items whose size was measured (0: the input carried no whole items).
    pub items: u64,
    /// Of them, items whose size is an estimate: an attribute that is not a key was not the typed value it
    /// should be, and was sized from what could be read (the load's warning names the first).
    pub estimated_sizes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage: Option<Storage>,
    /// Items by the write units one write of them costs (⌈size / 1 KB⌉).
    pub by_write_units: Vec<SizeGroup>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<TtlReport>,
    pub gsis: Vec<GsiCost>,
    /// Most severe first.
    pub findings: Vec<Finding>,
}

/// Storage as DynamoDB bills and partitions it.
#[derive(Debug, Clone, Serialize)]
pub struct Storage {
    /// The items' sizes together.
    pub item_bytes: u64,
    /// With the 100-byte overhead of each item.
    pub storage_bytes: u64,
    /// Partitions the storage alone needs: ⌈storage / 10 GB⌉ (at least 1).
    pub partitions_for_size: u64,
    /// Storage per partition of the view (its hash ranges).
    pub per_partition: Vec<u64>,
    /// The largest item collections (all items of one partition key), largest first.
    pub largest_collections: Vec<Collection>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Collection {
    pub key: String,
    pub items: u64,
    pub storage_bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TtlReport {
    #[serde(flatten)]
    pub stats: TtlStats,
    #[serde(flatten)]
    pub split: TtlSplit,
}

/// What one GSI costs per base-table write.
#[derive(Debug, Clone, Serialize)]
pub struct GsiCost {
    pub name: String,
    pub projection: String,
    /// Writes of items it holds (a sparse index holds only the items with its key attributes).
    pub writes: u64,
    /// Mean projected size of its items.
    pub mean_projected_bytes: u64,
    /// Mean write units one base write costs on the table, and on the index (0 for items it does not hold).
    pub table_units_per_write: f64,
    pub index_units_per_write: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttled_units: Option<f64>,
    pub partitions: usize,
}

impl Storage {
    /// In words, for `items` sized items: "1.2 MB in 200 items (the items 1.1 MB by DynamoDB's size rules, +
    /// 100 bytes each); fits one partition of about 10 GB". The app and the CLI both show it.
    pub fn describe(&self, items: u64) -> String {
        let fits = if self.partitions_for_size == 1 {
            "fits one partition of about 10 GB".to_owned()
        } else {
            format!(
                "needs {} partitions of about 10 GB",
                grouped(self.partitions_for_size)
            )
        };
        format!(
            "{} in {} (the items {} by DynamoDB's size rules, + 100 bytes each); {fits}",
            bytes(self.storage_bytes as f64),
            plural(items, "item"),
            bytes(self.item_bytes as f64),
        )
    }
}

impl Health {
    /// In words, when some sizes are estimates: "the sizes of 1 of 6 items are estimates: an attribute that is
    /// not a key is not a DynamoDB typed value (the load's warning names the first)". The app and the CLI both
    /// show it.
    pub fn estimates_line(&self) -> Option<String> {
        (self.estimated_sizes > 0).then(|| {
            format!(
                "the sizes of {} of {} are estimates: an attribute that is not a key is not a DynamoDB typed \
                 value (the load's warning names the first)",
                grouped(self.estimated_sizes),
                plural(self.items, "item"),
            )
        })
    }
}

impl TtlReport {
    /// In words: "TTL attribute "expiresAt" (guessed from its name): 50 in epoch seconds, 25 past, 25 to come".
    pub fn describe(&self) -> String {
        format!(
            "TTL attribute \"{}\"{}: {} in epoch seconds, {} past, {} to come",
            self.stats.attribute,
            if self.stats.guessed {
                " (guessed from its name)"
            } else {
                ""
            },
            grouped(self.stats.in_seconds()),
            grouped(self.split.expired + self.split.too_old),
            grouped(self.split.future)
        )
    }
}

/// The health report of `input`.
pub fn health(input: &HealthInput<'_>) -> Health {
    health_from(input, storage_of(input), findings::key_findings(input))
}

/// The storage of `input`'s keys, when their item sizes were measured: a pass over every key, which a caller
/// may run beside [`findings::key_findings`] before [`health_from`].
pub fn storage_of(input: &HealthInput<'_>) -> Option<Storage> {
    input
        .keys
        .size_profile()
        .map(|_| storage(input.keys, input.partitions))
}

/// [`health`] from its two passes over every key: the storage ([`storage_of`]) and the findings that read
/// every key ([`findings::key_findings`]).
pub fn health_from(
    input: &HealthInput<'_>,
    storage: Option<Storage>,
    keyed: findings::KeyFindings,
) -> Health {
    let keys = input.keys;
    let profile = keys.size_profile();
    let items = profile
        .as_ref()
        .map_or(0, super::keyset::SizeProfile::items);
    let ttl = input.ttl.map(|t| TtlReport {
        stats: t.clone(),
        split: t.split_at(input.now),
    });
    let base_units = profile.as_ref().map_or(1.0, |p| {
        let units: u64 = p.groups.iter().map(|g| g.items * g.kb.max(1)).sum();
        units as f64 / p.items().max(1) as f64
    });
    let gsis: Vec<GsiCost> = input
        .gsis
        .iter()
        .map(|g| gsi_cost(g, keys.total(), base_units))
        .collect();
    let mut h = Health {
        items,
        estimated_sizes: keys.estimated_sizes().min(items),
        storage,
        by_write_units: profile.map(|p| p.groups).unwrap_or_default(),
        ttl,
        gsis,
        findings: Vec::new(),
    };
    h.findings = findings::findings(&h, input, keyed);
    h
}

fn storage(keys: &KeySet, partitions: usize) -> Storage {
    let parts = Partitioner::equal(partitions.max(1));
    let mut per_partition = vec![0u64; parts.len()];
    let (mut item_bytes, mut storage_bytes) = (0u64, 0u64);
    let hashes = keys.hashes();
    let sized = keys.measured().map(|(idx, b)| {
        let stored = b.bytes + b.items * STORAGE_OVERHEAD_BYTES;
        item_bytes += b.bytes;
        storage_bytes += stored;
        let hash = hashes.get(idx as usize).copied().unwrap_or(0);
        per_partition[parts.partition_of(hash)] += stored;
        (stored, idx, b.items)
    });
    let collections = crate::model::keyset::first_n_of(sized, COLLECTIONS, |a, b| {
        b.0.cmp(&a.0).then(a.1.cmp(&b.1))
    });
    Storage {
        item_bytes,
        storage_bytes,
        partitions_for_size: storage_bytes.div_ceil(PARTITION_BYTES).max(1),
        per_partition,
        largest_collections: collections
            .into_iter()
            .take(COLLECTIONS)
            .map(|(stored, idx, items)| Collection {
                key: keys.display(idx).into_owned(),
                items,
                storage_bytes: stored,
            })
            .collect(),
    }
}

fn gsi_cost(g: &GsiInput<'_>, base_writes: u64, base_units: f64) -> GsiCost {
    let profile = g.keys.size_profile();
    let (units, bytes, sized) = profile.as_ref().map_or((0, 0, 0), |p| {
        let units: u64 = p.groups.iter().map(|g| g.items * g.kb.max(1)).sum();
        (units, p.bytes(), p.items())
    });
    GsiCost {
        name: g.name.clone(),
        projection: g.projection.clone(),
        writes: g.keys.total(),
        mean_projected_bytes: bytes.checked_div(sized).unwrap_or(0),
        table_units_per_write: base_units,
        index_units_per_write: units as f64 / base_writes.max(1) as f64,
        throttled_units: g.throttled_units,
        partitions: g.partitions,
    }
}

#[cfg(test)]
mod tests;
