//! The table health report in the CLI: built with the analysis ([`super::output::Shown`]) and printed as the
//! `health` object of the JSON or a section of the table.

use std::io::{Result, Write};

use crate::model::design::{DesignKeys, DesignKind, Figures};
use crate::model::fmt::{bytes, percent};
use crate::model::health::ttl::TtlStats;
use crate::model::health::{GsiInput, Health, HealthInput, health};
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
    health(&HealthInput {
        keys,
        partitions: report.analysis.buckets.len(),
        workload: report.workload.as_ref(),
        has_lsi,
        ttl,
        now: now(),
        gsis,
    })
}

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
