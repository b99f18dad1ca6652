//! The evidence: the facts the tree is answered from, collected from an analysis of a key set
//! ([`Evidence::from_analysis`]) and completed by the caller (capacity, sharding, table facts).

use crate::model::capacity::{CapacityFacts, ReasonMetric, ThrottleReason, ThrottleResource};
use crate::model::keyset::{KeySet, SortKeyFacts};
use crate::model::sortkey::TimeOrdered;
use crate::model::stats::Analysis;

/// The facts the tree is answered from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    pub total: u64,
    /// The counts are items (a file, an export, a scan), not writes in order (pasted lines, a log): the
    /// words say "items" then.
    pub counts_items: bool,
    pub buckets: usize,
    /// Distinct logical keys (as loaded, before sharding): cardinality is a property of the key design, so the
    /// suffixes of one sharded key do not count as many values.
    pub distinct: usize,
    /// Hottest physical key, its writes, and its share of all writes.
    pub top_key: Option<(String, u64, f64)>,
    /// Writes of the next-hottest physical key.
    pub next_key_count: u64,
    /// The top key's bucket: its writes over the mean bucket, and the top key's share of that bucket.
    pub top_bucket_over_mean: f64,
    pub top_key_share_of_bucket: f64,
    /// Share of writes taken by the three hottest logical keys, each counted by its hottest physical key (so
    /// a sharded key counts by its hottest shard, and the shards of one key are one value).
    pub top3_share: f64,
    /// Sort-key facts of the top key's logical key, when sort keys were loaded.
    pub top_key_items: Option<SortKeyFacts>,
    /// Whether the table has a local secondary index, when known.
    pub has_lsi: Option<bool>,
    /// Per-partition capacity, when a workload is known.
    pub capacity: Option<CapacityFacts>,
    /// The throttling reason DynamoDB reported, when known.
    pub throttle_reason: Option<ThrottleReason>,
    /// Mean item size in bytes, when a workload gives one (for the item-collection size).
    pub item_bytes: Option<f64>,
    /// The top key's items measured while loading (bytes of their JSON together), when the input carried
    /// item sizes: the item-collection size without assuming a mean.
    pub top_key_bytes: Option<u64>,
    /// The top key's sort keys look time-ordered by their values (an inference, for inputs in read order).
    pub top_key_time: Option<TimeOrdered>,
    /// The shard plan in effect, when one is.
    pub sharding: Option<ShardFacts>,
    /// A bucket well above the mean because shards of one key landed together (see `model::heat`), in words.
    pub collision: Option<String>,
    /// Why the keys are no evidence (a replay whose keys are stand-ins for traffic known only in total), and
    /// what would answer the key questions: they are then unknown, whatever the counts say.
    pub keys_unknown: Option<String>,
    /// Throttle events observed (CloudWatch) on the table the keys came from, when known: adaptive capacity
    /// did not absorb them.
    pub observed_throttling: Option<f64>,
    /// Throttle events CloudWatch observed by reason (its reason metrics, read with a replay's minutes): the
    /// tree's first answer when present, since only KeyRange events are a hot partition (DYNAMODB-TRAFFIC
    /// "Throttling by its reason (2025)" \[AWS\]).
    pub observed_reasons: Vec<ObservedReason>,
}

/// One reason's throttle events as CloudWatch observed them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObservedReason {
    pub metric: ReasonMetric,
    /// The table, or a global secondary index when the metrics were read for one.
    pub resource: ThrottleResource,
    pub events: f64,
    /// Unix seconds: the start of the first minute with events and the end of the last.
    pub span: Option<(i64, i64)>,
    /// Who observed them: "CloudWatch", "the request log", ….
    pub observer: &'static str,
}

impl ObservedReason {
    /// The reason a throttled request carried for these events.
    pub fn reason(&self) -> ThrottleReason {
        self.metric.reason(self.resource)
    }
}

/// The shard plan the evidence was computed under.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShardFacts {
    pub shards: u32,
    /// Every key is sharded (not only hot ones).
    pub all_keys: bool,
    /// The hottest physical key is a shard of a sharded key.
    pub top_key_sharded: bool,
    /// Physical keys after sharding.
    pub physical_distinct: usize,
    /// The suffix is calculated from an item attribute (`--shard-by`): every write of one item takes the same
    /// shard.
    pub by_item: bool,
}

impl Evidence {
    /// What the counts are, singular: "write" or "item".
    pub fn noun(&self) -> &'static str {
        if self.counts_items { "item" } else { "write" }
    }

    /// The table-level reason the data gives: the reported reason when there is one (and it is not KeyRange),
    /// else the observed table-level reason with the most events.
    pub fn table_level_reason(&self) -> Option<ThrottleReason> {
        if let Some(r) = self.throttle_reason {
            return (!r.is_key_range()).then_some(r);
        }
        self.observed_reasons
            .iter()
            .filter(|r| !r.metric.is_key_range() && r.events > 0.0)
            .max_by(|a, b| a.events.total_cmp(&b.events))
            .map(ObservedReason::reason)
    }

    /// Estimated size of the top key's item collection: its items as measured, else its items × the mean
    /// item size.
    pub fn collection_bytes(&self) -> Option<f64> {
        if let Some(b) = self.top_key_bytes {
            return Some(b as f64);
        }
        let items = self.top_key_items?.items;
        Some(items as f64 * self.item_bytes?)
    }

    /// Collects the evidence from an analysis of `keys`.
    pub fn from_analysis(keys: &KeySet, analysis: &Analysis) -> Self {
        let top = analysis.top_keys.first();
        let mean = if analysis.buckets.is_empty() {
            0.0
        } else {
            analysis.total as f64 / analysis.buckets.len() as f64
        };
        let (over_mean, share_of_bucket) = top
            .and_then(|t| {
                let b = analysis
                    .bucket_top
                    .iter()
                    .position(|list| list.first().is_some_and(|k| k.id == t.id))?;
                let count = analysis.buckets[b];
                Some((
                    if mean > 0.0 { count as f64 / mean } else { 0.0 },
                    if count > 0 {
                        t.count as f64 / count as f64
                    } else {
                        0.0
                    },
                ))
            })
            .unwrap_or((0.0, 0.0));
        let top_key_items = top.and_then(|t| keys.sort_key_facts(t.id.key));
        Self {
            total: analysis.total,
            counts_items: !keys.write_ordered(),
            buckets: analysis.buckets.len(),
            distinct: analysis.distinct,
            top_key: top.map(|t| (t.key.clone(), t.count, t.share)),
            next_key_count: analysis.top_keys.get(1).map_or(0, |k| k.count),
            top_bucket_over_mean: over_mean,
            top_key_share_of_bucket: share_of_bucket,
            top3_share: top_values_share(analysis, 3),
            top_key_items,
            // Only when the order of writes is unknown, and only for a collection (one item has no order).
            top_key_time: top
                .filter(|_| !keys.write_ordered() && top_key_items.is_some_and(|f| f.items >= 2))
                .and_then(|t| keys.sort_key_time_pattern(t.id.key)),
            sharding: None,
            collision: None,
            keys_unknown: None,
            observed_throttling: None,
            observed_reasons: Vec::new(),
            has_lsi: None,
            capacity: None,
            throttle_reason: None,
            item_bytes: None,
            top_key_bytes: top.and_then(|t| keys.item_bytes(t.id.key)).map(|b| b.bytes),
        }
    }
}

/// The share of writes of the `n` hottest logical keys, each by its hottest physical key, from the analysis'
/// top list (physical keys, hottest first). When that list holds fewer than `n` logical keys, each missing one
/// counts as the smallest listed share: an upper bound, since every key not listed writes no more than that.
fn top_values_share(analysis: &Analysis, n: usize) -> f64 {
    let mut seen: Vec<u32> = Vec::with_capacity(n);
    let mut sum = 0.0;
    for k in &analysis.top_keys {
        if seen.len() == n {
            break;
        }
        if !seen.contains(&k.id.key) {
            seen.push(k.id.key);
            sum += k.share;
        }
    }
    let more = analysis.physical_distinct > analysis.top_keys.len();
    if seen.len() < n && more {
        let smallest = analysis.top_keys.last().map_or(0.0, |k| k.share);
        let missing = (n - seen.len()).min(analysis.distinct.saturating_sub(seen.len()));
        sum += smallest * missing as f64;
    }
    sum
}
