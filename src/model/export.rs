//! The report as a document: the fields of `shardlens analyze --format json`, and the app's JSON export.

use serde::Serialize;

use super::capacity::{Capacity, Workload};
use super::decision::{Path, Step};
use super::partition::Partitioner;
use super::shard::Scope;
use super::stats::TopKey;
use super::{KeySet, Report, ViewSettings};

pub const HASH_NOTE: &str =
    "teaching hash (xxh3-64 of the key's canonical bytes), not DynamoDB's internal hash";

#[derive(Debug, Serialize)]
pub struct ReportDoc<'a> {
    pub source: String,
    pub key_type: &'static str,
    pub hash: &'static str,
    pub total: u64,
    pub distinct: usize,
    pub physical_distinct: usize,
    pub buckets: &'a [u64],
    pub bucket_ranges: Vec<[String; 2]>,
    pub top_keys: &'a [TopKey],
    pub stats: StatsDoc,
    pub shard: ShardDoc,
    pub decision: DecisionDoc<'a>,
    /// The workload, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// The workload over the partitions, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<&'a Capacity>,
    /// Item sizes, when the input carried them (DynamoDB JSON and Ion exports, scan output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_sizes: Option<ItemSizesDoc>,
}

/// Item sizes measured while loading, by DynamoDB's rules ([`super::item_size`]).
#[derive(Debug, Clone, Serialize)]
pub struct ItemSizesDoc {
    pub items: u64,
    /// The items' sizes together.
    pub bytes: u64,
    pub mean_bytes: u64,
    /// Storage as billed: `bytes` plus 100 bytes of indexing overhead an item.
    pub storage_bytes: u64,
    /// Items over DynamoDB's 400 KB limit, and the largest items.
    pub over_400kb: OverLimitDoc,
    /// Items by size in whole KB (rounded up), which is what read and write units depend on.
    pub by_kb: Vec<super::keyset::SizeGroup>,
    /// The key whose items take the most bytes together: for an export, the largest item collection.
    pub largest_collection: Option<CollectionDoc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OverLimitDoc {
    pub items: u64,
    /// The keys of the largest items, largest first (over the limit or not).
    pub largest: Vec<LargestItemDoc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LargestItemDoc {
    pub key: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CollectionDoc {
    pub key: String,
    pub items: u64,
    pub bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct StatsDoc {
    pub max_over_mean: f64,
    pub gini: f64,
    pub top_key_share: f64,
    pub hottest_bucket: usize,
    pub hottest_bucket_share: f64,
}

#[derive(Debug, Serialize)]
pub struct ShardDoc {
    pub count: u32,
    pub strategy: &'static str,
    pub scope: &'static str,
    pub hot_share: Option<f64>,
    pub separator: String,
    pub seed: u64,
    pub sharded_keys: Vec<String>,
    pub read_fan_out: u32,
}

#[derive(Debug, Serialize)]
pub struct DecisionDoc<'a> {
    pub path: &'a [Step],
    pub leaf: Option<&'static str>,
    pub recommendation: &'a str,
    /// Set when the input is too small to judge: the leaf is then no advice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<&'a str>,
}

impl<'a> DecisionDoc<'a> {
    /// The document of a walk of the tree (`analyze`'s `decision`, and a simulated run's).
    pub fn of(decision: &'a Path) -> Self {
        Self {
            path: &decision.path,
            leaf: decision.leaf.map(super::decision::Leaf::title),
            recommendation: &decision.recommendation,
            caveat: decision.caveat.as_deref(),
        }
    }
}

/// Builds the document for a report of `keys` under `view`.
pub fn report_doc<'a>(
    source: String,
    keys: &KeySet,
    view: &ViewSettings,
    report: &'a Report,
    decision: &'a Path,
) -> ReportDoc<'a> {
    report_doc_sized(source, keys, view, report, decision, item_sizes_doc(keys))
}

/// [`report_doc`] with its `item_sizes` object made already ([`item_sizes_doc`], which a caller may make on
/// another thread while the report is computed: a pass over every key's sizes).
pub fn report_doc_sized<'a>(
    source: String,
    keys: &KeySet,
    view: &ViewSettings,
    report: &'a Report,
    decision: &'a Path,
    item_sizes: Option<ItemSizesDoc>,
) -> ReportDoc<'a> {
    let a = &report.analysis;
    let partitions = Partitioner::equal(view.bucket_count());
    let plan = &view.shard;
    ReportDoc {
        source,
        key_type: keys.key_type().as_str(),
        hash: HASH_NOTE,
        total: a.total,
        distinct: a.distinct,
        physical_distinct: a.physical_distinct,
        buckets: &a.buckets,
        bucket_ranges: (0..partitions.len())
            .map(|i| {
                let r = partitions.range(i);
                [format!("{:#018x}", r.start()), format!("{:#018x}", r.end())]
            })
            .collect(),
        top_keys: &a.top_keys,
        stats: StatsDoc {
            max_over_mean: a.skew.max_over_mean,
            gini: a.skew.gini,
            top_key_share: a.skew.top_key_share,
            hottest_bucket: a.hottest_bucket,
            hottest_bucket_share: a.skew.hottest_bucket_share,
        },
        shard: ShardDoc {
            count: plan.shards.max(1),
            strategy: if plan.is_active() {
                plan.strategy.as_str()
            } else {
                "none"
            },
            scope: match plan.scope {
                Scope::All => "all",
                Scope::Hot { .. } => "hot",
            },
            hot_share: match plan.scope {
                Scope::All => None,
                Scope::Hot { threshold } => Some(threshold),
            },
            separator: plan.separator.clone(),
            seed: plan.seed,
            sharded_keys: report
                .sharded_keys
                .iter()
                .map(|&k| keys.display(k).into_owned())
                .collect(),
            read_fan_out: report.read_fan_out,
        },
        decision: DecisionDoc::of(decision),
        workload: report.workload.clone(),
        capacity: report.capacity.as_ref().and_then(|c| c.as_ref().ok()),
        item_sizes,
    }
}

/// The `item_sizes` object, when the input carried whole items.
pub fn item_sizes_doc(keys: &KeySet) -> Option<ItemSizesDoc> {
    let p = keys.size_profile()?;
    let largest = keys.largest(5);
    Some(ItemSizesDoc {
        items: p.items(),
        bytes: p.bytes(),
        mean_bytes: p.mean(),
        storage_bytes: p.bytes() + p.items() * super::item_size::STORAGE_OVERHEAD_BYTES,
        over_400kb: OverLimitDoc {
            items: p
                .groups
                .iter()
                .filter(|g| g.kb * 1024 > super::item_size::MAX_ITEM_BYTES)
                .map(|g| g.items)
                .sum(),
            largest: largest
                .items
                .into_iter()
                .map(|(k, bytes)| LargestItemDoc {
                    key: keys.display(k).into_owned(),
                    bytes,
                })
                .collect(),
        },
        largest_collection: largest.collection.map(|(k, b)| CollectionDoc {
            key: keys.display(k).into_owned(),
            items: b.items,
            bytes: b.bytes,
        }),
        by_kb: p.groups,
    })
}

/// Buckets as CSV rows: `bucket,range_start,range_end,count,share,top_key,top_key_count`.
pub fn buckets_csv(report: &Report, buckets: usize) -> String {
    let a = &report.analysis;
    let partitions = Partitioner::equal(buckets);
    // With a workload, each bucket is a partition: its units per second, use of its limits and what throttles.
    let loads = report
        .capacity
        .as_ref()
        .and_then(|c| c.as_ref().ok())
        .map(|c| &c.partitions);
    let mut out = String::from("bucket,range_start,range_end,count,share,top_key,top_key_count");
    if loads.is_some() {
        out.push_str(
            ",read_units,write_units,read_util,write_util,throttled_read_units,throttled_write_units",
        );
    }
    out.push('\n');
    for (i, &count) in a.buckets.iter().enumerate() {
        let r = partitions.range(i);
        let top = a.bucket_top.get(i).and_then(|t| t.first());
        out.push_str(&format!(
            "{i},{:#018x},{:#018x},{count},{:.6},{},{}",
            r.start(),
            r.end(),
            super::stats::share(count, a.total),
            csv_field(top.map_or("", |t| t.key.as_str())),
            top.map_or(0, |t| t.count),
        ));
        if let Some(p) = loads.map(|l| l.get(i).copied().unwrap_or_default()) {
            out.push_str(&format!(
                ",{:.3},{:.3},{:.6},{:.6},{:.3},{:.3}",
                p.read_units,
                p.write_units,
                p.read_util,
                p.write_util,
                p.throttled_read_units,
                p.throttled_write_units
            ));
        }
        out.push('\n');
    }
    out
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
