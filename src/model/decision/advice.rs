//! The recommendation text of a leaf: its advice, and what the evidence adds to it (what blocks split-for-heat,
//! sharding already in effect, colliding shards, partitions over their limit, table-level limits).

use super::Evidence;
use super::tree::Leaf;
use crate::model::capacity::{ITEM_COLLECTION_LIMIT_BYTES, ThrottleCause};
use crate::model::fmt::{bytes, grouped, percent};

/// The recommendation at `leaf`: its title and advice, and what the evidence adds to them.
pub(super) fn recommendation(leaf: Leaf, ev: &Evidence) -> String {
    let mut text = format!("{}. {}", leaf.title(), leaf.advice());
    if leaf == Leaf::ItemCollection {
        text.push_str(&split_for_heat(ev));
    }
    if let Some(s) = ev.sharding {
        match leaf {
            Leaf::ShardOrCache | Leaf::ItemCollection if s.top_key_sharded && s.by_item => {
                text.push_str(&format!(
                    " Sharding is on ({} shards), calculated from an item attribute: every write of one item \
                     takes the same shard, so a hot item stays on one shard however many there are. A random \
                     suffix per write (or a cache) spreads one hot item; a calculated suffix spreads many items.",
                    s.shards
                ));
            }
            Leaf::ShardOrCache | Leaf::ItemCollection if s.top_key_sharded => {
                text.push_str(&format!(
                    " Sharding is on ({} shards) and one shard still takes most of a hot bucket: more shards \
                     spread it further (each shard is one more Query on read).",
                    s.shards
                ));
            }
            Leaf::WriteShardPrefix if s.all_keys => text.push_str(&format!(
                " Every key is sharded already ({} shards, {} physical keys): the few values now spread over more \
                 partitions.",
                s.shards,
                grouped(s.physical_distinct as u64)
            )),
            _ => {}
        }
    }
    if let Some(note) = &ev.collision
        && matches!(leaf, Leaf::AdaptiveCapacity | Leaf::WriteShardPrefix)
    {
        text.push_str(&format!(
            " One bucket stays uneven where shards collide ({note}): more shards, or a calculated suffix, spread \
             them further."
        ));
    }
    if leaf == Leaf::AdaptiveCapacity
        && let Some(c) = ev.capacity.as_ref().filter(|c| c.hottest_util() > 1.0)
    {
        text.push_str(&format!(
            " Partition {} is over its limit ({}) with no single key behind it: split-for-heat divides such a \
             partition after some minutes of sustained load; until then its excess requests throttle.",
            c.hottest_partition,
            percent(c.hottest_util())
        ));
    }
    if let Some(n) = ev.observed_throttling.filter(|&n| n > 0.0)
        && matches!(leaf, Leaf::TableLimit | Leaf::AdaptiveCapacity)
    {
        text.push_str(&format!(
            " CloudWatch observed {} throttle events while the writes spread over many keys: adaptive capacity \
             did not absorb them, so the table's capacity (or its on-demand peak) is the limit to raise.",
            grouped(n.round() as u64)
        ));
    }
    text.push_str(&table_level(leaf, ev));
    text
}

/// What blocks split-for-heat for a hot item collection (an only-increasing sort key, a local secondary index)
/// or may (sort keys that look time-ordered), as a sentence to append.
fn split_for_heat(ev: &Evidence) -> String {
    let mut text = String::new();
    let mut blockers = Vec::new();
    let mut likely = Vec::new();
    if ev.top_key_items.is_some_and(|f| f.only_increasing) {
        blockers.push(
            "its sort key only increases, so every write lands at the end of the collection"
                .to_owned(),
        );
    } else if let Some(t) = &ev.top_key_time {
        likely.push(format!(
            "its {}: if new items are written at the end of the range, every write lands there",
            t.describe()
        ));
    }
    if ev.has_lsi == Some(true) {
        let size = ev
            .collection_bytes()
            .map(|b| {
                let limit = ITEM_COLLECTION_LIMIT_BYTES as f64;
                if b > limit {
                    format!(
                        " (its item collection, ≈ {}, is over the 10 GB an LSI allows: writes to it fail with \
                         ItemCollectionSizeLimitExceededException)",
                        bytes(b)
                    )
                } else {
                    format!(
                        " (its item collection ≈ {} = {} of the 10 GB an LSI allows)",
                        bytes(b),
                        percent(b / limit)
                    )
                }
            })
            .unwrap_or_default();
        blockers.push(format!("the table has a local secondary index{size}"));
    }
    if !blockers.is_empty() {
        text.push_str(" Split-for-heat cannot help: ");
        blockers.extend(likely);
        text.push_str(&blockers.join("; "));
        text.push('.');
    } else if !likely.is_empty() {
        text.push_str(" Split-for-heat may not help: ");
        text.push_str(&likely.join("; "));
        text.push('.');
    } else {
        text.push_str(" Split-for-heat can help here: nothing found that blocks it.");
    }
    text
}

/// What a table-level limit adds: an observed reason and what to raise, or the table's utilisation at the
/// table-limit leaf.
fn table_level(leaf: Leaf, ev: &Evidence) -> String {
    let mut text = String::new();
    if let Some(reason) = ev.table_level_reason() {
        let raise = match reason.cause {
            ThrottleCause::ProvisionedThroughputExceeded => {
                "provisioned units (or let auto scaling raise them)"
            }
            ThrottleCause::AccountLimitExceeded => "account's per-table quota (Service Quotas)",
            _ => "table's maximum on-demand throughput",
        };
        if leaf == Leaf::TableLimit {
            text.push_str(&format!(" The observed {reason}: raise the {raise}."));
        } else {
            text.push_str(&format!(
                " Note: the observed {reason} is a table-level limit, not a hot partition: raise the {raise}, or \
                 spread the load over time; reshaping the key alone will not stop it."
            ));
        }
    } else if leaf == Leaf::TableLimit
        && let Some(c) = &ev.capacity
    {
        text.push_str(&format!(
            " The workload puts the table at {} of its capacity.",
            percent(c.table_util())
        ));
    }
    text
}
