//! The JSON output, built once as a document: the model's report ([`crate::model::export::ReportDoc`]) and,
//! for a load, an `input` object with what was read.

use std::io::Write;

use serde::Serialize;

use super::output::Shown;
use crate::model::design::Figures;
use crate::model::export::{ReportDoc, report_doc_sized as model_report_doc_sized};
use crate::model::health::Health;
use crate::model::query::QueryParams;
use crate::source::{Changes, Group, Loaded};

/// The report document of an analysis, fields in the document's order.
pub(super) fn report_doc<'a>(shown: &'a Shown<'_>) -> ReportDoc<'a> {
    model_report_doc_sized(
        shown.name.to_owned(),
        shown.keys,
        &shown.view,
        &shown.report,
        &shown.decision,
        shown.item_sizes.clone(),
    )
}

/// The report of a load with its `input` object. It is a [`serde_json::Value`], whose objects keep their keys
/// sorted: the order `analyze --format json` has always printed.
pub(super) fn loaded_doc(
    shown: &Shown<'_>,
    loaded: &Loaded,
) -> Result<serde_json::Value, serde_json::Error> {
    serde_json::to_value(LoadedDoc {
        report: report_doc(shown),
        designs: &shown.designs,
        queries: &shown.queries,
        health: &shown.health,
        input: InputDoc::new(loaded),
    })
}

/// The report document with the comparison's `designs`, when there are any.
pub(super) fn with_designs<'a>(shown: &'a Shown<'_>) -> WithDesigns<'a> {
    WithDesigns {
        report: report_doc(shown),
        designs: &shown.designs,
        queries: &shown.queries,
        health: &shown.health,
    }
}

#[derive(Serialize)]
pub(super) struct WithDesigns<'a> {
    #[serde(flatten)]
    report: ReportDoc<'a>,
    /// One object per design: the current key, the candidates, the GSIs.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    designs: &'a [Figures],
    /// One Query per shard that reads the first sharded key back (empty when nothing is sharded).
    queries: &'a [QueryParams],
    /// The table health report.
    health: &'a Health,
}

/// Writes `doc` pretty-printed, with a final newline.
pub(super) fn write(out: &mut dyn Write, doc: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, doc).map_err(std::io::Error::other)?;
    writeln!(out)
}

#[derive(Serialize)]
struct LoadedDoc<'a> {
    #[serde(flatten)]
    report: ReportDoc<'a>,
    /// One object per design: the current key, the candidates, the GSIs.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    designs: &'a [Figures],
    /// One Query per shard that reads the first sharded key back (empty when nothing is sharded).
    queries: &'a [QueryParams],
    /// The table health report.
    health: &'a Health,
    input: InputDoc<'a>,
}

/// What a load read.
#[derive(Serialize)]
struct InputDoc<'a> {
    items: u64,
    lines: u64,
    bytes: u64,
    skipped: u64,
    key_attribute: Option<&'a str>,
    sort_key_attribute: Option<&'a str>,
    warnings: &'a [crate::source::Message],
    shape: Option<&'a str>,
    tables: &'a [String],
    table: Option<&'a str>,
    changes: ChangesDoc,
    groups: Option<Vec<GroupDoc<'a>>>,
}

#[derive(Serialize)]
struct ChangesDoc {
    inserts: u64,
    updates: u64,
    deletes: u64,
    puts: u64,
}

#[derive(Serialize)]
struct GroupDoc<'a> {
    name: &'a str,
    items: u64,
}

impl<'a> InputDoc<'a> {
    fn new(loaded: &'a Loaded) -> Self {
        let Changes {
            inserts,
            updates,
            deletes,
            puts,
        } = loaded.changes;
        Self {
            items: loaded.items,
            lines: loaded.lines,
            bytes: loaded.bytes,
            skipped: loaded.skipped,
            key_attribute: loaded.key_attribute.as_deref(),
            sort_key_attribute: loaded.sort_key_attribute.as_deref(),
            warnings: &loaded.warnings,
            shape: loaded.shape.as_deref(),
            tables: &loaded.tables,
            table: loaded.table.as_deref(),
            changes: ChangesDoc {
                inserts,
                updates,
                deletes,
                puts,
            },
            groups: loaded.groups.as_ref().map(|groups| {
                groups
                    .iter()
                    .map(|Group { name, items }| GroupDoc {
                        name,
                        items: *items,
                    })
                    .collect()
            }),
        }
    }
}
