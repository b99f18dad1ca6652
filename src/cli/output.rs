//! What `analyze` and `scan` print: the report of a key set computed once ([`Shown`]), then written as a table
//! ([`super::table`]), JSON ([`super::json`]) or the buckets as CSV.

use std::io::Write;

use anyhow::Context as _;

use super::args::{OutputFormat, ViewArgs};
use super::{design, health, json, table};
use crate::model::capacity::Capacity;
use crate::model::design::{DesignKeys, Figures, figures};
use crate::model::export::{ItemSizesDoc, buckets_csv, item_sizes_doc};
use crate::model::health::Health;
use crate::model::health::ttl::TtlStats;
use crate::model::query::{QueryParams, Target, shard_queries};
use crate::model::shard::ShardBy;
use crate::model::{KeySet, Path, Report, ViewSettings, evaluate, report_reusing};
use crate::source::Loaded;

/// The key designs evaluated with the keys: candidates and GSIs, what calculated sharding hashes, what the
/// current key is, and what is known of the table's names.
#[derive(Default, Clone, Copy)]
pub struct Designs<'a> {
    pub list: &'a [DesignKeys],
    pub shard_by: Option<&'a ShardBy>,
    pub key_expr: Option<&'a str>,
    pub key_attribute: Option<&'a str>,
    /// The table's name and key attributes, as far as known, for the Queries that read a sharded key back.
    pub target: Option<&'a Target>,
    /// The TTL attribute's values, when the items had one (for the health report).
    pub ttl: Option<&'a TtlStats>,
    /// The table is known to have a local secondary index (a scan's DescribeTable).
    pub has_lsi: bool,
}

/// One analysis as every format shows it: the keys, the view they were analysed under, the report and the
/// decision path.
pub(super) struct Shown<'a> {
    pub name: &'a str,
    pub keys: &'a KeySet,
    pub view: ViewSettings,
    pub report: Report,
    pub decision: Path,
    /// The comparison: the current key, then each candidate and GSI (empty without designs).
    pub designs: Vec<Figures>,
    /// One Query per shard of the first sharded key (empty when nothing is sharded).
    pub queries: Vec<QueryParams>,
    /// The table health report.
    pub health: Health,
    /// The JSON report's `item_sizes` object, made beside the report.
    pub item_sizes: Option<ItemSizesDoc>,
}

impl<'a> Shown<'a> {
    /// Analyses `keys` under the options; a workload whose capacity cannot be computed is an error.
    fn compute(
        name: &'a str,
        keys: &'a KeySet,
        view_args: &ViewArgs,
        designs: Designs<'_>,
    ) -> anyhow::Result<Self> {
        let view = view_args.view_settings()?;
        // The item sizes' pass over every key on a thread of its own, beside the report's: 8–11 ms each over
        // the 1.9 million keys of `shardlens-bench extract`'s re-keyed load, on one core while the other idled.
        let (report, item_sizes) = std::thread::scope(|scope| {
            let sizes = scope.spawn(|| item_sizes_doc(keys));
            let report = report_reusing(keys, &view, None, designs.shard_by);
            let sizes = sizes
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (report, sizes)
        });
        let target = designs.target.cloned().unwrap_or_default();
        if let Some(Err(e)) = &report.capacity {
            return Err(anyhow::anyhow!("{e}").context("cannot compute the capacity"));
        }
        let answers = view_args.answers();
        let decision = evaluate(&report.evidence, &answers);
        let given = designs;
        let designs = if given.list.is_empty() {
            Vec::new()
        } else {
            let current = design::current(keys, given.key_expr, given.key_attribute);
            let rows: Vec<(&DesignKeys, u64)> = std::iter::once(&current)
                .chain(given.list)
                .map(|d| (d, 0))
                .collect();
            figures(&rows, keys.total(), &view, &answers)
        };
        let health = health::build(
            keys,
            &report,
            view_args.has_lsi || given.has_lsi,
            given.ttl,
            (given.list, &designs),
        );
        let queries = shard_queries(
            &view.shard,
            keys,
            &report.sharded_keys,
            report.read_fan_out,
            &target,
            None,
        )
        .map(|q| q.queries)
        .unwrap_or_default();
        Ok(Self {
            name,
            keys,
            view,
            report,
            decision,
            designs,
            queries,
            health,
            item_sizes,
        })
    }

    /// The capacity result, when the view has a workload.
    pub fn capacity(&self) -> Option<&Capacity> {
        self.report.capacity.as_ref().and_then(|c| c.as_ref().ok())
    }
}

/// Prints the analysis of a load: the analysis of its keys, plus (JSON) an `input` object with what was read
/// and (table) what was read and the items per export data file.
pub fn print_loaded(
    out: &mut dyn Write,
    name: &str,
    loaded: &Loaded,
    view_args: &ViewArgs,
    key_expr: Option<&str>,
) -> anyhow::Result<()> {
    let designs = Designs {
        list: &loaded.designs,
        shard_by: loaded.shard_by.as_ref(),
        key_expr,
        key_attribute: loaded.key_attribute.as_deref(),
        target: Some(&Target {
            table: loaded.table.clone(),
            partition_key: loaded.key_attribute.clone(),
            sort_key: loaded.sort_key_attribute.clone(),
        }),
        ttl: loaded.ttl.as_ref(),
        has_lsi: false,
    };
    let shown = Shown::compute(name, &loaded.keys, view_args, designs)?;
    let has_workload = shown.view.workload.is_some();
    match view_args.format {
        OutputFormat::Json => json::write(out, &json::loaded_doc(&shown, loaded)?),
        OutputFormat::Csv => write_csv(out, &shown),
        OutputFormat::Table => table::print(out, &shown)
            .and_then(|()| design::print(out, &shown.designs, has_workload))
            .and_then(|()| health::print(out, &shown.health))
            .and_then(|()| table::print_input(out, loaded, view_args.top)),
    }
    .context("cannot write the output")
}

/// Prints the analysis of `keys` in the chosen format.
pub fn print_analysis(
    out: &mut dyn Write,
    name: &str,
    keys: &KeySet,
    view_args: &ViewArgs,
    designs: Designs<'_>,
) -> anyhow::Result<()> {
    let shown = Shown::compute(name, keys, view_args, designs)?;
    let has_workload = shown.view.workload.is_some();
    match view_args.format {
        OutputFormat::Json => json::write(out, &json::with_designs(&shown)),
        OutputFormat::Csv => write_csv(out, &shown),
        OutputFormat::Table => table::print(out, &shown)
            .and_then(|()| design::print(out, &shown.designs, has_workload))
            .and_then(|()| health::print(out, &shown.health)),
    }
    .context("cannot write the output")
}

/// [`print_analysis`] with more: `extra` fields in the JSON document, `lines` after the table.
pub(super) fn print_analysis_and(
    out: &mut dyn Write,
    name: &str,
    keys: &KeySet,
    view_args: &ViewArgs,
    designs: Designs<'_>,
    extra: serde_json::Map<String, serde_json::Value>,
    lines: &[String],
) -> anyhow::Result<()> {
    let shown = Shown::compute(name, keys, view_args, designs)?;
    let has_workload = shown.view.workload.is_some();
    match view_args.format {
        OutputFormat::Json => {
            let mut doc = serde_json::to_value(json::with_designs(&shown))?;
            if let Some(obj) = doc.as_object_mut() {
                obj.extend(extra);
            }
            json::write(out, &doc)
        }
        OutputFormat::Csv => write_csv(out, &shown),
        OutputFormat::Table => table::print(out, &shown)
            .and_then(|()| design::print(out, &shown.designs, has_workload))
            .and_then(|()| health::print(out, &shown.health))
            .and_then(|()| lines.iter().try_for_each(|l| writeln!(out, "{l}"))),
    }
    .context("cannot write the output")
}

fn write_csv(out: &mut dyn Write, shown: &Shown<'_>) -> std::io::Result<()> {
    out.write_all(buckets_csv(&shown.report, shown.view.bucket_count()).as_bytes())
}
