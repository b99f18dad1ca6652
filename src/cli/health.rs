//! The table health report in the CLI: built with the analysis ([`super::output::Shown`]) and printed as the
//! `health` object of the JSON or a section of the table.

use std::io::{Result, Write};

use crate::model::design::{DesignKeys, DesignKind, Figures};
use crate::model::fmt::{bytes, percent};
use crate::model::health::findings::key_findings;
use crate::model::health::ttl::TtlStats;
use crate::model::health::{GsiInput, Health, HealthInput, health, health_from, storage_of};
use crate::model::{KeySet, Report};

/// The health report of `keys` under `report`'s view: `designs` and their `figures` (the comparison rows, the
/// current key first) give the GSIs' costs and throttling.
pub(super) fn build(
    keys: &KeySet,
    report: &Report,
    has_lsi: bool,
    ttl: Option<&TtlStats>,
    (designs, figures): (&[DesignKeys], &[Figures]),
) -> Health {
    let gsis = designs
        .iter()
        .filter_map(|d| {
            let DesignKind::Gsi(name) = &d.kind else {
                return None;
            };
            let row = figures.iter().find(|f| f.design == d.kind.to_string());
            Some(GsiInput {
                name: name.clone(),
                keys: &d.keys,
                projection: d
                    .projection
                    .as_ref()
                    .map_or("ALL", crate::model::design::Projection::name)
                    .to_owned(),
                throttled_units: row.and_then(|r| r.throttled_units),
                partitions: row.map_or(0, |r| r.buckets.len()),
            })
        })
        .collect();
    let input = HealthInput {
        keys,
        partitions: report.analysis.buckets.len(),
        workload: report.workload.as_ref(),
        has_lsi,
        ttl,
        now: now(),
        gsis,
    };
    if keys.len() < TWO_THREAD_KEYS {
        return health(&input);
    }
    // The storage and the findings that read every key are each a pass over all keys: on two threads.
    // Measured (1.9 million keys: `{pk}#{status}#{tags.0}` on `shardlens-bench extract`'s file, this 2-core
    // machine): 11–19 ms and 12–13 ms one after the other; the whole command 0.78 -> 0.76 s.
    let (storage, keyed) = std::thread::scope(|scope| {
        let keyed = scope.spawn(|| key_findings(&input));
        let storage = storage_of(&input);
        match keyed.join() {
            Ok(keyed) => (storage, keyed),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    health_from(&input, storage, keyed)
}

/// The fewest keys whose health passes run on two threads.
const TWO_THREAD_KEYS: usize = 1 << 16;

/// Now, in epoch seconds.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The table section: storage, sizes by write units, TTL, each finding with its source.
pub(super) fn print(out: &mut dyn Write, h: &Health) -> Result<()> {
    if h.items == 0 && h.findings.is_empty() && h.ttl.is_none() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "table health:")?;
    if let Some(s) = &h.storage {
        writeln!(out, "  storage: {}", s.describe(h.items))?;
        if let Some(line) = h.estimates_line() {
            writeln!(out, "  estimated: {line}")?;
        }
        if let Some(c) = s.largest_collections.first() {
            writeln!(
                out,
                "  largest item collection: {} ({}, {})",
                c.key,
                plural_items(c.items),
                bytes(c.storage_bytes as f64)
            )?;
        }
        let sizes: Vec<String> = h
            .by_write_units
            .iter()
            .take(8)
            .map(|g| {
                format!(
                    "{} WCU: {}",
                    g.kb.max(1),
                    percent(g.items as f64 / h.items.max(1) as f64)
                )
            })
            .collect();
        let more = if h.by_write_units.len() > 8 {
            ", …"
        } else {
            ""
        };
        writeln!(out, "  items by write units: {}{more}", sizes.join(", "))?;
    }
    if let Some(t) = &h.ttl {
        writeln!(out, "  {}", t.describe())?;
    }
    for f in &h.findings {
        writeln!(out, "  {}: {}", f.severity.as_str(), f.summary)?;
        if !f.examples.is_empty() {
            writeln!(out, "    e.g. {}", f.examples.join(", "))?;
        }
        writeln!(out, "    source: {}", f.source)?;
    }
    Ok(())
}

fn plural_items(n: u64) -> String {
    crate::model::fmt::plural(n, "item")
}
