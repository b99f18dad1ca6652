//! Key designs on the command line: `--key-expr`, `--compare`, `--gsi` and `--shard-by` become a [`Design`]
//! the load evaluates, and the designs' figures a table after the analysis.

use std::io::{Result, Write};

use anyhow::Context as _;

use super::args::{DesignArgs, ViewArgs};
use crate::model::Strategy;
use crate::model::design::{
    Design, DesignKeys, DesignKind, Figures, GsiSpec, MAX_CANDIDATES, Projection, ShardSource,
    parse_key,
};
use crate::model::fmt::{grouped, percent};
use crate::model::keyexpr::{AttrPath, Part};

/// The design the options describe. `gsis` are the indexes already resolved (a scan's, from DescribeTable);
/// for files they come from `--gsi NAME=EXPR` (`NAME=a+b+c`: a multi-attribute key, up to four attributes
/// hashed together in order).
pub(super) fn design(
    args: &DesignArgs,
    view: &ViewArgs,
    gsis: Option<Vec<GsiSpec>>,
) -> anyhow::Result<Design> {
    if args.compare.len() > MAX_CANDIDATES {
        anyhow::bail!(
            "--compare takes up to {MAX_CANDIDATES} candidates, not {}",
            args.compare.len()
        );
    }
    let key = args
        .key_expr
        .as_deref()
        .map(parse_key)
        .transpose()
        .map_err(anyhow::Error::msg)
        .context("--key-expr")?;
    let candidates = args
        .compare
        .iter()
        .map(|c| parse_key(c))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(anyhow::Error::msg)
        .context("--compare")?;
    let mut gsis = match gsis {
        Some(g) => g,
        None => args
            .gsi
            .iter()
            .map(|g| GsiSpec::parse(g))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(anyhow::Error::msg)
            .context("--gsi")?,
    };
    for p in &args.gsi_projection {
        let (name, projection) = p.split_once('=').ok_or_else(|| {
            anyhow::anyhow!(
                "--gsi-projection {p:?}: expected NAME=all, NAME=keys or NAME=include:a,b"
            )
        })?;
        let projection = Projection::parse(projection)
            .map_err(anyhow::Error::msg)
            .context("--gsi-projection")?;
        let Some(g) = gsis.iter_mut().find(|g| g.name == name.trim()) else {
            let names: Vec<&str> = gsis.iter().map(|g| g.name.as_str()).collect();
            anyhow::bail!(
                "--gsi-projection {p:?}: no index named {:?} (the indexes: {})",
                name.trim(),
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            );
        };
        g.projection = projection;
    }
    let shard_by = match (&view.shard_by, view.shard_strategy) {
        (Some(attr), Strategy::Calculated) => Some(ShardSource::Attr(attribute_path(attr)?)),
        (Some(_), _) => anyhow::bail!(
            "--shard-by names what a calculated suffix hashes: give --shard-strategy calculated too"
        ),
        (None, Strategy::Calculated) if view.shards > 1 => Some(ShardSource::SortKey),
        (None, _) => None,
    };
    let design = Design {
        key,
        candidates,
        gsis,
        shard_by,
        seed: view.seed,
    };
    design.validate().map_err(anyhow::Error::msg)?;
    Ok(design)
}

/// `--shard-by`'s attribute: a name or a path (`address.city`), as a placeholder would write it.
fn attribute_path(text: &str) -> anyhow::Result<AttrPath> {
    let expr = parse_key(text)
        .map_err(anyhow::Error::msg)
        .context("--shard-by")?;
    match expr.parts() {
        [Part::Attr { path, .. }] => Ok(path.clone()),
        _ => anyhow::bail!("--shard-by takes one attribute (e.g. playerId), not {text:?}"),
    }
}

/// The current key as a design, for the comparison: the loaded keys under the expression or attribute that
/// made them.
pub(super) fn current(
    keys: &crate::model::KeySet,
    key_expr: Option<&str>,
    key_attribute: Option<&str>,
) -> DesignKeys {
    let expr = key_expr.and_then(|k| parse_key(k).ok());
    DesignKeys {
        kind: DesignKind::Current,
        expr: match (&expr, key_attribute) {
            (Some(e), _) => e.to_string(),
            (None, Some(a)) => crate::model::keyexpr::Expr::attribute(a)
                .map_or_else(|| a.to_owned(), |e| e.to_string()),
            (None, None) => "(the keys as read)".to_owned(),
        },
        fan_out: expr
            .as_ref()
            .map_or(1, crate::model::keyexpr::Expr::fan_out),
        keys: keys.clone(),
        absent: 0,
        projection: None,
    }
}

/// The comparison table.
pub(super) fn print(out: &mut dyn Write, rows: &[Figures], has_workload: bool) -> Result<()> {
    if rows.len() < 2 && !rows.iter().any(|r| r.design.starts_with("GSI")) {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "key designs over the same items (max/mean over the partitions; fan-out = queries to read one logical key back):"
    )?;
    let header = [
        "design",
        "expression",
        "writes",
        "keys",
        "max/mean",
        "top key",
        "Gini",
        "throttled/s",
        "fan-out",
        "decision",
    ];
    let cells: Vec<[String; 10]> = rows
        .iter()
        .map(|r| {
            [
                r.design.clone(),
                r.expr.clone(),
                grouped(r.writes),
                grouped(r.distinct_keys as u64),
                format!("{:.2}×", r.max_over_mean),
                percent(r.top_key_share),
                format!("{:.3}", r.gini),
                r.throttled_units
                    .map_or_else(|| "-".to_owned(), |t| format!("{t:.0}")),
                r.read_fan_out.to_string(),
                r.leaf.clone().unwrap_or_else(|| "-".to_owned()),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |out: &mut dyn Write, row: &[&str]| -> Result<()> {
        let mut text = String::from(" ");
        for (i, (c, w)) in row.iter().zip(widths).enumerate() {
            let pad = w.saturating_sub(c.chars().count());
            if (2..9).contains(&i) {
                text.push_str(&format!(" {}{c}", " ".repeat(pad)));
            } else if i == 9 {
                text.push_str(&format!(" {c}"));
            } else {
                text.push_str(&format!(" {c}{}", " ".repeat(pad)));
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(out, &header)?;
    for row in &cells {
        let refs: Vec<&str> = row.iter().map(String::as_str).collect();
        line(out, &refs)?;
    }
    print_notes(out, rows, has_workload)
}

/// Under the table: items a design could not key or a sparse GSI leaves out, throttling GSIs, and how to get
/// throttled units without a workload.
fn print_notes(out: &mut dyn Write, rows: &[Figures], has_workload: bool) -> Result<()> {
    for r in rows {
        if r.absent > 0 && r.design.starts_with("GSI") {
            writeln!(
                out,
                "  {}: {} items lack its key attributes and are not in it (a sparse index)",
                r.design,
                grouped(r.absent)
            )?;
        } else if r.absent > 0 {
            writeln!(
                out,
                "  {}: could not key {}, left out of its figures only",
                r.design,
                crate::model::fmt::plural(r.absent, "item")
            )?;
        }
        if r.design.starts_with("GSI") && r.throttled_units.is_some_and(|t| t > 0.0) {
            writeln!(
                out,
                "  {}: its writes throttle, and a throttled GSI throttles the base table's writes too",
                r.design
            )?;
        }
        if let Some(q) = &r.query {
            writeln!(out, "  {q}")?;
        }
    }
    if !has_workload {
        writeln!(
            out,
            "  (give --writes-per-sec or --reads-per-sec for throttled units per design)"
        )?;
    }
    Ok(())
}
