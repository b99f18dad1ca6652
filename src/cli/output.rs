//! What `analyze` and `scan` print: the report of a key set computed once ([`Shown`]), then written as a table
//! ([`super::table`]), JSON ([`super::json`]) or the buckets as CSV.

use std::io::Write;

use anyhow::Context as _;

use super::args::{OutputFormat, ViewArgs};
use super::{json, table};
use crate::model::capacity::Capacity;
use crate::model::export::buckets_csv;
use crate::model::{KeySet, Path, Report, ViewSettings, evaluate, report};
use crate::source::Loaded;

/// One analysis as every format shows it: the keys, the view they were analysed under, the report and the
/// decision path.
pub(super) struct Shown<'a> {
    pub name: &'a str,
    pub keys: &'a KeySet,
    pub view: ViewSettings,
    pub report: Report,
    pub decision: Path,
}

impl<'a> Shown<'a> {
    /// Analyses `keys` under the options; a workload whose capacity cannot be computed is an error.
    fn compute(name: &'a str, keys: &'a KeySet, view_args: &ViewArgs) -> anyhow::Result<Self> {
        let view = view_args.view_settings()?;
        let report = report(keys, &view);
        if let Some(Err(e)) = &report.capacity {
            return Err(anyhow::anyhow!("{e}").context("cannot compute the capacity"));
        }
        let decision = evaluate(&report.evidence, &view_args.answers());
        Ok(Self {
            name,
            keys,
            view,
            report,
            decision,
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
) -> anyhow::Result<()> {
    let shown = Shown::compute(name, &loaded.keys, view_args)?;
    match view_args.format {
        OutputFormat::Json => json::write(out, &json::loaded_doc(&shown, loaded)?),
        OutputFormat::Csv => write_csv(out, &shown),
        OutputFormat::Table => {
            table::print(out, &shown).and_then(|()| table::print_input(out, loaded, view_args.top))
        }
    }
    .context("cannot write the output")
}

/// Prints the analysis of `keys` in the chosen format.
pub fn print_analysis(
    out: &mut dyn Write,
    name: &str,
    keys: &KeySet,
    view_args: &ViewArgs,
) -> anyhow::Result<()> {
    let shown = Shown::compute(name, keys, view_args)?;
    match view_args.format {
        OutputFormat::Json => json::write(out, &json::report_doc(&shown)),
        OutputFormat::Csv => write_csv(out, &shown),
        OutputFormat::Table => table::print(out, &shown),
    }
    .context("cannot write the output")
}

fn write_csv(out: &mut dyn Write, shown: &Shown<'_>) -> std::io::Result<()> {
    out.write_all(buckets_csv(&shown.report, shown.view.bucket_count()).as_bytes())
}
