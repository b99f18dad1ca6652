//! The findings of the health report, each from one rule, most severe first.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Health, HealthInput};
use crate::model::KeySet;
use crate::model::capacity::{Consistency, PARTITION_READ_UNITS};
use crate::model::fmt::{bytes, grouped, percent};
use crate::model::item_size::{MAX_ITEM_BYTES, PARTITION_BYTES};

/// Items this close to 400 KB are near it (over 300 KB) \[ours\].
const NEAR_ITEM_LIMIT: u64 = MAX_ITEM_BYTES * 3 / 4;
/// A collection at half the 10 GB limit is worth a warning on a table with an LSI \[ours\].
const NEAR_COLLECTION_LIMIT: u64 = PARTITION_BYTES / 2;
/// Example keys per finding.
const EXAMPLES: usize = 5;

const SRC_SIZE: &str = "AWS developer guide, \"DynamoDB item sizes and formats\" and \"Service quotas\": an item is at most 400 KB";
const SRC_LSI: &str = "AWS developer guide, \"Item collections\": with a local secondary index, one item collection holds at most 10 GB";
const SRC_UNITS: &str = "AWS developer guide, \"Read/write capacity mode\": a strongly consistent read costs 1 unit per 4 KB, and a partition serves at most 3,000 read units a second";
const SRC_TTL: &str = "AWS developer guide, \"Using DynamoDB Time to Live\": a top-level Number of epoch seconds, no more than five years past";
const SRC_GSI: &str = "AWS developer guide, \"Global secondary indexes\": each table write that changes an indexed item also writes the index, in units of its projected size";
const SRC_PARTITIONS: &str =
    "AWS developer guide, \"Partitions and data distribution\": a partition holds about 10 GB";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// What it is about, e.g. `item_over_400kb`.
    pub kind: &'static str,
    pub severity: Severity,
    /// What it means, in one or two sentences with the numbers.
    pub summary: String,
    /// The numbers, by name.
    pub numbers: BTreeMap<&'static str, f64>,
    /// Keys of items it is about.
    pub examples: Vec<String>,
    /// Where the rule comes from.
    pub source: &'static str,
}

fn finding(
    kind: &'static str,
    severity: Severity,
    summary: String,
    numbers: &[(&'static str, f64)],
    examples: Vec<String>,
    source: &'static str,
) -> Finding {
    Finding {
        kind,
        severity,
        summary,
        numbers: numbers.iter().copied().collect(),
        examples,
        source,
    }
}

/// The findings of the rules that read every key (item sizes near the limit, big items among the hottest
/// keys), apart from the rest ([`findings`]): a caller may look for them while it sums the storage
/// ([`super::storage_of`]), as the CLI does for a large set.
#[derive(Debug, Default)]
pub struct KeyFindings {
    item_limit: Vec<Finding>,
    hot_reads: Vec<Finding>,
}

/// The findings [`KeyFindings`] holds.
pub fn key_findings(input: &HealthInput<'_>) -> KeyFindings {
    let mut found = KeyFindings::default();
    item_limit(input.keys, &mut found.item_limit);
    big_hot_reads(input, &mut found.hot_reads);
    found
}

/// Every rule's findings, most severe first, with those of [`key_findings`].
pub fn findings(h: &Health, input: &HealthInput<'_>, keyed: KeyFindings) -> Vec<Finding> {
    let mut out = keyed.item_limit;
    collections(h, input, &mut out);
    out.extend(keyed.hot_reads);
    ttl(h, &mut out);
    gsis(h, &mut out);
    partitions(h, input, &mut out);
    out.sort_by_key(|f| f.severity);
    out
}

/// The keys whose largest item is over [`NEAR_ITEM_LIMIT`], largest first (ties by key index), and the largest
/// item at or under [`MAX_ITEM_BYTES`]: one pass over the measured keys, where the findings made three (16 ms
/// for 1.9 million keys, now 6–7 ms).
fn large_items(keys: &KeySet) -> (Vec<(u64, u32)>, u64) {
    let mut near: Vec<(u64, u32)> = Vec::new();
    let mut largest_fitting = 0;
    for (idx, b) in keys.measured() {
        if b.max > NEAR_ITEM_LIMIT {
            near.push((b.max, idx));
        }
        if b.max <= MAX_ITEM_BYTES {
            largest_fitting = largest_fitting.max(b.max);
        }
    }
    near.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    (near, largest_fitting)
}

/// Keys whose largest item is over `above` bytes (at least [`NEAR_ITEM_LIMIT`]), of [`large_items`]'s list:
/// how many, the largest item's size, and the first keys, largest first.
fn items_over(keys: &KeySet, large: &[(u64, u32)], above: u64) -> (u64, u64, Vec<String>) {
    let over: Vec<&(u64, u32)> = large.iter().filter(|(max, _)| *max > above).collect();
    let examples = over
        .iter()
        .take(EXAMPLES)
        .map(|&&(_, idx)| keys.display(idx).into_owned())
        .collect();
    (over.len() as u64, over.first().map_or(0, |o| o.0), examples)
}

fn item_limit(keys: &KeySet, out: &mut Vec<Finding>) {
    let (large, largest_fitting) = large_items(keys);
    let (over, largest, examples) = items_over(keys, &large, MAX_ITEM_BYTES);
    if over > 0 {
        out.push(finding(
            "item_over_400kb",
            Severity::Error,
            format!(
                "{} over DynamoDB's 400 KB item limit (the largest {}): DynamoDB refuses such an item, so these \
                 were not written by DynamoDB as they are (or they sit right at the limit, where AWS's size \
                 rules are approximate)",
                keys_phrase(over),
                bytes(largest as f64)
            ),
            &[
                ("keys", over as f64),
                ("largest_bytes", largest as f64),
                ("limit_bytes", MAX_ITEM_BYTES as f64),
            ],
            examples,
            SRC_SIZE,
        ));
    }
    let (near, largest, examples) = items_over(keys, &large, NEAR_ITEM_LIMIT);
    let near = near - over;
    if near > 0 {
        // The largest item under the limit: the examples past the ones over it.
        let examples: Vec<String> = examples.into_iter().skip(over as usize).collect();
        let largest = if over > 0 { largest_fitting } else { largest };
        out.push(finding(
            "item_near_400kb",
            Severity::Warning,
            format!(
                "{} an item over 300 KB, within 100 KB of the 400 KB limit (the largest {}): an update that grows \
                 it past the limit fails, and each strongly consistent read of it costs {} read units",
                keys_phrase(near),
                bytes(largest as f64),
                largest.div_ceil(4096)
            ),
            &[
                ("keys", near as f64),
                ("largest_bytes", largest as f64),
                ("limit_bytes", MAX_ITEM_BYTES as f64),
            ],
            examples,
            SRC_SIZE,
        ));
    }
}

fn keys_phrase(n: u64) -> String {
    if n == 1 {
        "1 key has".to_owned()
    } else {
        format!("{} keys have", grouped(n))
    }
}

fn collections(h: &Health, input: &HealthInput<'_>, out: &mut Vec<Finding>) {
    let Some(top) = h
        .storage
        .as_ref()
        .and_then(|s| s.largest_collections.first())
    else {
        return;
    };
    let size = top.storage_bytes;
    let numbers = [
        ("storage_bytes", size as f64),
        ("items", top.items as f64),
        ("limit_bytes", PARTITION_BYTES as f64),
    ];
    let examples = vec![top.key.clone()];
    let (severity, summary) = match (input.has_lsi, size) {
        (true, s) if s > PARTITION_BYTES => (
            Severity::Error,
            format!(
                "the item collection of {} holds {}, over the 10 GB a collection may hold on a table with a \
                 local secondary index: writes that grow it fail",
                top.key,
                bytes(s as f64)
            ),
        ),
        (true, s) if s > NEAR_COLLECTION_LIMIT => (
            Severity::Warning,
            format!(
                "the item collection of {} holds {}, over half the 10 GB limit of a table with a local \
                 secondary index",
                top.key,
                bytes(s as f64)
            ),
        ),
        (false, s) if s > PARTITION_BYTES => (
            Severity::Info,
            format!(
                "the item collection of {} holds {}: more than one partition's 10 GB (no limit without a local \
                 secondary index; its partition splits by size)",
                top.key,
                bytes(s as f64)
            ),
        ),
        _ => return,
    };
    out.push(finding(
        "item_collection_size",
        severity,
        summary,
        &numbers,
        examples,
        SRC_LSI,
    ));
}

fn big_hot_reads(input: &HealthInput<'_>, out: &mut Vec<Finding>) {
    let keys = input.keys;
    if keys.size_profile().is_none() {
        // No item was measured (key lines): no key's items are big, and the hottest keys need not be found
        // (a pass over every key: 2.4 ms of `analyze`'s 0.22 s on 10 M key lines).
        return;
    }
    let eventual = input
        .workload
        .is_some_and(|w| w.consistency == Consistency::Eventual);
    for idx in keys.top(3) {
        let Some(b) = keys.item_bytes(idx).filter(|b| b.mean() > 4096) else {
            continue;
        };
        let units = b.mean().div_ceil(4096) as f64 * if eventual { 0.5 } else { 1.0 };
        let per_partition = PARTITION_READ_UNITS / units;
        let share = keys.count(idx) as f64 / keys.total().max(1) as f64;
        let reads = input.workload.map(|w| w.reads_per_sec * share);
        let over = reads.is_some_and(|r| r > per_partition);
        let key = keys.display(idx).into_owned();
        let rate = reads.map_or_else(String::new, |r| {
            format!(
                "; it gets {} reads a second ({} of the reads)",
                grouped(r.round() as u64),
                percent(share)
            )
        });
        out.push(finding(
            "hot_reads_of_big_items",
            if over { Severity::Error } else { Severity::Warning },
            format!(
                "{key} is among the hottest keys and its items average {}: each {} read costs {} read units, so \
                 one partition serves only {} such reads a second{rate}{}",
                bytes(b.mean() as f64),
                if eventual { "eventually consistent" } else { "strongly consistent" },
                units,
                grouped(per_partition.floor() as u64),
                if over { ": more than one partition can serve, so they throttle" } else { "" }
            ),
            &[
                ("mean_bytes", b.mean() as f64),
                ("read_units", units),
                ("reads_per_partition", per_partition.floor()),
                ("reads_per_sec", reads.unwrap_or(0.0)),
            ],
            vec![key],
            SRC_UNITS,
        ));
    }
}

fn ttl(h: &Health, out: &mut Vec<Finding>) {
    let Some(t) = &h.ttl else {
        return;
    };
    let s = &t.stats;
    let share = |n: u64| n as f64 / s.items.max(1) as f64;
    let attr = &s.attribute;
    let not_number: u64 = s.not_number.values().sum();
    if not_number > 0 {
        let types: Vec<String> = s
            .not_number
            .iter()
            .map(|(t, n)| format!("{t} ({})", grouped(*n)))
            .collect();
        out.push(finding(
            "ttl_not_a_number",
            Severity::Error,
            format!(
                "{} of items ({}) hold {attr} as {}, not a Number: TTL ignores them, so they never expire",
                percent(share(not_number)),
                grouped(not_number),
                types.join(", ")
            ),
            &[("items", not_number as f64), ("share", share(not_number))],
            s.examples_not_number.clone(),
            SRC_TTL,
        ));
    }
    if s.not_seconds > 0 {
        out.push(finding(
            "ttl_not_seconds",
            Severity::Error,
            format!(
                "{} of items ({}) hold {attr} values too large for epoch seconds (milliseconds?): these values \
                 read as the year {}, so these items never expire",
                percent(share(s.not_seconds)),
                grouped(s.not_seconds),
                grouped(super::ttl::year_of(s.not_seconds_max).max(0) as u64)
            ),
            &[("items", s.not_seconds as f64), ("share", share(s.not_seconds))],
            s.examples_not_seconds.clone(),
            SRC_TTL,
        ));
    }
    ttl_over_time(t, out);
}

/// Items without the attribute, and values in seconds already past (within five years, or longer ago).
fn ttl_over_time(t: &super::TtlReport, out: &mut Vec<Finding>) {
    let s = &t.stats;
    let share = |n: u64| n as f64 / s.items.max(1) as f64;
    let attr = &s.attribute;
    if s.missing > 0 {
        out.push(finding(
            "ttl_missing",
            if share(s.missing) > 0.5 {
                Severity::Warning
            } else {
                Severity::Info
            },
            format!(
                "{} of items ({}) have no {attr}: TTL never deletes them",
                percent(share(s.missing)),
                grouped(s.missing)
            ),
            &[("items", s.missing as f64), ("share", share(s.missing))],
            Vec::new(),
            SRC_TTL,
        ));
    }
    let sp = &t.split;
    if sp.too_old > 0 {
        out.push(finding(
            "ttl_too_old",
            Severity::Warning,
            format!(
                "{} of items ({}) hold a {attr} more than five years past: TTL never deletes these",
                percent(share(sp.too_old)),
                grouped(sp.too_old)
            ),
            &[("items", sp.too_old as f64), ("share", share(sp.too_old))],
            Vec::new(),
            SRC_TTL,
        ));
    }
    if sp.expired > 0 {
        out.push(finding(
            "ttl_already_past",
            Severity::Info,
            format!(
                "{} of items ({}) are already past their {attr}: TTL deletes them in the background, typically \
                 within a few days, and they stay readable (and count in scans) until then",
                percent(share(sp.expired)),
                grouped(sp.expired)
            ),
            &[("items", sp.expired as f64), ("share", share(sp.expired))],
            Vec::new(),
            SRC_TTL,
        ));
    }
}

fn gsis(h: &Health, out: &mut Vec<Finding>) {
    for g in &h.gsis {
        let throttles = g.throttled_units.is_some_and(|u| u > 0.0);
        out.push(finding(
            "gsi_write_cost",
            if throttles { Severity::Error } else { Severity::Info },
            format!(
                "each write costs {} WCU on the table and {} on {} ({} projection, {} of the writes land in it, \
                 {} each{}){}",
                units_per_write(g.table_units_per_write),
                units_per_write(g.index_units_per_write),
                g.name,
                g.projection,
                grouped(g.writes),
                bytes(g.mean_projected_bytes as f64),
                if g.throttled_units.is_some() {
                    format!(", over {} partitions under the workload", g.partitions)
                } else {
                    String::new()
                },
                if throttles {
                    format!(
                        "; under the workload the index throttles {} units a second, and a throttled GSI \
                         throttles the table's writes",
                        units_per_write(g.throttled_units.unwrap_or(0.0))
                    )
                } else {
                    String::new()
                }
            ),
            &[
                ("table_units_per_write", g.table_units_per_write),
                ("index_units_per_write", g.index_units_per_write),
                ("writes", g.writes as f64),
                ("throttled_units", g.throttled_units.unwrap_or(0.0)),
            ],
            Vec::new(),
            SRC_GSI,
        ));
    }
}

/// Write units per write as the findings write them: whole when whole, else two decimals ("0.95").
pub fn units_per_write(u: f64) -> String {
    if (u - u.round()).abs() < 0.005 {
        format!("{}", u.round())
    } else {
        format!("{u:.2}")
    }
}

fn partitions(h: &Health, input: &HealthInput<'_>, out: &mut Vec<Finding>) {
    let Some(s) = &h.storage else {
        return;
    };
    if s.partitions_for_size <= 1 {
        return;
    }
    let by_plan = input
        .workload
        .and_then(|w| w.partition_plan().ok())
        .map_or(0, |p| p.count as u64);
    out.push(finding(
        "partitions_for_size",
        Severity::Info,
        format!(
            "{} of storage needs at least {} partitions of about 10 GB{}",
            bytes(s.storage_bytes as f64),
            grouped(s.partitions_for_size),
            if s.partitions_for_size > by_plan && by_plan > 0 {
                ", more than the throughput needs: size sets the partition count"
            } else {
                ""
            }
        ),
        &[
            ("storage_bytes", s.storage_bytes as f64),
            ("partitions", s.partitions_for_size as f64),
        ],
        Vec::new(),
        SRC_PARTITIONS,
    ));
}
