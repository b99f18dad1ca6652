//! The table output: the text a person reads in a terminal, section by section (header, buckets with bars,
//! skew and bucket notes, capacity, top keys, the decision path), and what a load read.

use std::io::{Result, Write};

use super::output::Shown;
use crate::model::capacity::{Capacity, ItemSize};
use crate::model::export::HASH_NOTE;
use crate::model::fmt::{counted, percent, plural, units};
use crate::model::stats::{Analysis, share};
use crate::source::Loaded;

/// Prints the analysis as a table.
pub(super) fn print(out: &mut dyn Write, shown: &Shown<'_>) -> Result<()> {
    let a = &shown.report.analysis;
    if a.total == 0 {
        return writeln!(out, "no keys in {}: nothing to analyse", shown.name);
    }
    // A log of writes (lines) counts writes; exports, scans and models count items.
    let noun = if shown.keys.write_ordered() {
        "writes"
    } else {
        "items"
    };
    print_header(out, shown, noun)?;
    print_buckets(out, a, noun)?;
    writeln!(out)?;
    writeln!(
        out,
        "skew: hottest bucket {} = {:.1}% of {noun}, {:.2}× the mean; Gini {:.3}",
        a.hottest_bucket,
        a.skew.hottest_bucket_share * 100.0,
        a.skew.max_over_mean,
        a.skew.gini
    )?;
    // The buckets the app colours: hot (one key) and uneven ones, with why.
    for (i, h) in shown.report.heat.iter().enumerate() {
        if let Some(note) = &h.note {
            writeln!(out, "  bucket {i}: {note}")?;
        }
    }
    if let Some(c) = shown.capacity() {
        writeln!(out)?;
        print_capacity(out, c)?;
        print_item_size(out, shown)?;
    }
    writeln!(out)?;
    writeln!(out, "top keys:")?;
    for k in &a.top_keys {
        writeln!(
            out,
            "  {:>6.2}%  {:>10}  {}",
            k.share * 100.0,
            k.count,
            k.key
        )?;
    }
    writeln!(out)?;
    print_decision(out, &shown.decision)
}

/// The tree's walk: each question, its answer and its evidence, then the recommendation (`analyze`, and
/// `simulate`'s runs).
pub(super) fn print_decision(
    out: &mut dyn Write,
    decision: &crate::model::decision::Path,
) -> Result<()> {
    writeln!(out, "decision:")?;
    for step in &decision.path {
        writeln!(
            out,
            "  {} {}{}\n      {}",
            step.question,
            step.answer.as_str(),
            if step.supplied { " (your answer)" } else { "" },
            step.evidence
        )?;
    }
    writeln!(out, "  → {}", decision.recommendation)
}

/// The first lines: what was analysed, the sharding in effect and the hash.
fn print_header(out: &mut dyn Write, shown: &Shown<'_>, noun: &str) -> Result<()> {
    let (a, view, rep) = (&shown.report.analysis, &shown.view, &shown.report);
    writeln!(
        out,
        "{}: {}, {} ({}), {}",
        shown.name,
        plural(a.total, noun.strip_suffix('s').unwrap_or(noun)),
        plural(a.distinct as u64, "distinct key"),
        shown.keys.key_type().describe(),
        plural(a.buckets.len() as u64, "bucket")
    )?;
    if view.shard.is_active() {
        writeln!(
            out,
            "sharding: {}, {}, {} sharded → {}; reading one sharded key takes {}",
            plural(u64::from(view.shard.shards), "shard"),
            view.shard.strategy.label(),
            plural(rep.sharded_keys.len() as u64, "key"),
            plural(a.physical_distinct as u64, "physical key"),
            counted(u64::from(rep.read_fan_out), "query", "queries")
        )?;
    }
    writeln!(out, "hash: {HASH_NOTE}")?;
    writeln!(out)
}

/// One line a bucket: its count, share, a bar and its top key.
fn print_buckets(out: &mut dyn Write, a: &Analysis, noun: &str) -> Result<()> {
    let max = a.buckets.iter().copied().max().unwrap_or(0).max(1);
    let width = a.buckets.len().to_string().len();
    let count_width = max.to_string().len();
    writeln!(
        out,
        "{:>width$}  {:>count_width$}  {:>6}  ",
        "#", noun, "share"
    )?;
    for (i, &c) in a.buckets.iter().enumerate() {
        let bar_len = ((c as f64 / max as f64) * 40.0).round() as usize;
        let top = a.bucket_top[i]
            .first()
            .map_or(String::new(), |k| format!("  top: {} ({})", k.key, k.count));
        writeln!(
            out,
            "{i:>width$}  {c:>count_width$}  {:>5.1}%  {:<40}{top}",
            share(c, a.total) * 100.0,
            "█".repeat(bar_len),
        )?;
    }
    Ok(())
}

/// The item size the capacity was computed with, and whether it was assumed.
fn print_item_size(out: &mut dyn Write, shown: &Shown<'_>) -> Result<()> {
    let Some(w) = &shown.report.workload else {
        return Ok(());
    };
    let assumed = shown
        .view
        .workload
        .as_ref()
        .is_some_and(|v| v.item_size == ItemSize::FromData)
        && matches!(w.item_size, ItemSize::Bytes(_));
    if assumed {
        writeln!(
            out,
            "  item size: {} assumed (the input carries no item sizes; --item-size sets one)",
            w.item_size.describe()
        )
    } else {
        writeln!(out, "  item size: {}", w.item_size.describe())
    }
}

/// After the analysis of a load: what was read (its shape, items and changes) and, for an S3 export, the
/// items per data file, the most first (up to `top`).
pub(super) fn print_input(out: &mut dyn Write, loaded: &Loaded, top: usize) -> Result<()> {
    if let Some(shape) = &loaded.shape {
        writeln!(out)?;
        writeln!(
            out,
            "read as: {shape}; {}{}",
            plural(loaded.items, "item"),
            if loaded.changes.is_empty() {
                String::new()
            } else {
                format!(" ({})", loaded.changes.describe())
            }
        )?;
    }
    if let Some(groups) = &loaded.groups
        && loaded.keys.total() > 0
    {
        writeln!(out)?;
        writeln!(
            out,
            "items by export data file ({}, one partition's key range each):",
            plural(groups.len() as u64, "file")
        )?;
        let mut sorted: Vec<_> = groups.iter().collect();
        sorted.sort_by(|a, b| b.items.cmp(&a.items).then(a.name.cmp(&b.name)));
        for g in sorted.iter().take(top.max(1)) {
            writeln!(out, "  {:>10}  {}", g.items, g.name)?;
        }
    }
    Ok(())
}

/// The capacity section of the table format.
fn print_capacity(out: &mut dyn Write, c: &Capacity) -> Result<()> {
    writeln!(out, "capacity: {}", c.headline())?;
    writeln!(
        out,
        "  {} ({}); each serves {} read / {} write units/s; the table {} read / {} write units/s",
        plural(c.partition_count as u64, "partition"),
        c.partitions_from.describe(),
        units(c.partition_read_limit),
        units(c.partition_write_limit),
        units(c.table_read_capacity),
        units(c.table_write_capacity),
    )?;
    writeln!(
        out,
        "  {} reads/s × {} units = {} read units/s ({} of the table); {} writes/s × {} units = {} write units/s ({} of the table)",
        units(c.reads_per_sec),
        units(c.units_per_read),
        units(c.read_units),
        percent(c.table_read_util),
        units(c.writes_per_sec),
        units(c.units_per_write),
        units(c.write_units),
        percent(c.table_write_util),
    )?;
    writeln!(
        out,
        "  throttled: {} read and {} write units/s{}",
        units(c.throttled_read_units),
        units(c.throttled_write_units),
        if c.table_throttled_read_units + c.table_throttled_write_units > 0.0 {
            format!(
                " ({} read and {} write units/s of it by the table's provisioned total)",
                units(c.table_throttled_read_units),
                units(c.table_throttled_write_units)
            )
        } else {
            String::new()
        }
    )?;
    let width = c
        .partitions
        .len()
        .saturating_sub(1)
        .to_string()
        .len()
        .max(1);
    writeln!(
        out,
        "  {:>width$}  {:>10}  {:>7}  {:>10}  {:>7}  {:>14}",
        "#", "read u/s", "read %", "write u/s", "write %", "throttled r/w"
    )?;
    for (i, p) in c.partitions.iter().enumerate() {
        writeln!(
            out,
            "  {i:>width$}  {:>10.1}  {:>7}  {:>10.1}  {:>7}  {:>14}{}",
            p.read_units,
            percent(p.read_util),
            p.write_units,
            percent(p.write_util),
            format!(
                "{} / {}",
                units(p.throttled_read_units),
                units(p.throttled_write_units)
            ),
            if p.util() > 1.0 {
                "  over the limit"
            } else {
                ""
            },
        )?;
    }
    Ok(())
}
