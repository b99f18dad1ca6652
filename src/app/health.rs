//! Table health, beside the partition inspector: what the items' sizes and TTL attribute say besides the
//! spread of their keys ([`crate::model::health`]), the same content `shardlens analyze` prints: the storage,
//! items by write units (a small bar chart), the TTL attribute, each finding with its severity, example keys
//! (a click selects the key in the inspector) and source, and what each GSI of the Key design costs per write.
//!
//! The report is computed off the UI thread while the panel is open, once per report of the keys (a new
//! generation: new keys or another view), per answer to "has an LSI" and per Key design comparison (its GSIs);
//! the frame only draws the last one.

use std::sync::Arc;

use egui::text::{LayoutJob, TextFormat};

use super::command::Command;
use super::design::{Compared, DesignState};
use super::jobs::Shown;
use super::tasks::{Query, TaskError};
use super::theme;
use crate::model::fmt::{bytes, grouped, percent, plural};
use crate::model::health::ttl::TtlStats;
use crate::model::health::{
    Finding, GsiCost, GsiInput, Health, HealthInput, health, units_per_write,
};
use crate::model::keyset::SizeGroup;
use crate::model::{KeySet, Report};

/// Write-unit groups drawn one bar each; more are binned by powers of two.
const BARS: usize = 8;
/// The line shown when the input carried no whole items.
pub const NO_ITEMS: &str =
    "Nothing to report: sizes need whole items: an export, scan output or JSON items.";

/// What a report is computed from: the keys' report (its generation), the answer to "has an LSI" and the Key
/// design comparison that gives the GSIs (its generation, 0 without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Asked {
    report: u64,
    has_lsi: bool,
    design: u64,
}

/// The panel's state: open or not, and the report computed off the UI thread.
#[derive(Debug, Default)]
pub struct HealthState {
    /// The panel is open (its header, or View > Table health).
    pub open: bool,
    /// Opened from the menu: the next frames scroll it into view (a few, while a side panel that just
    /// appeared settles its layout).
    pub reveal: u8,
    /// What the report on screen should be computed from (set by [`Self::tick`]).
    wanted: Option<Asked>,
    checked: Query<Asked, Checked>,
    /// Why the report could not be computed (its thread did not start).
    error: Option<String>,
}

/// A computed report, with what the panel draws from it.
pub struct Checked {
    pub health: Health,
    /// The keys it is about ([`Shown::keys_generation`]): a report of the same keys under another view stays
    /// on screen while the next one is computed.
    keys_generation: u64,
    /// Per finding, its distinct examples.
    examples: Vec<Vec<Example>>,
    /// The largest item collection's key, when the keys hold it.
    largest: Option<String>,
    bars: Vec<Bar>,
    /// GSIs of the comparison left out: their keys carry no projected sizes.
    unsized_gsis: Vec<String>,
}

/// An example of a finding: the text shown ("KEY", or "KEY (21 KB)"), and the key it names when the keys on
/// screen hold it (then a click selects it).
struct Example {
    text: String,
    key: Option<String>,
}

/// One bar of items by write units.
struct Bar {
    label: String,
    items: u64,
}

/// A GSI of the Key design comparison, as the report takes it.
struct GsiKeys {
    name: String,
    keys: Arc<KeySet>,
    projection: &'static str,
    throttled_units: Option<f64>,
    partitions: usize,
}

impl HealthState {
    /// The report is being computed off the UI thread.
    pub fn pending(&self) -> bool {
        self.checked.pending()
    }

    /// The report's thread could not start: the panel says why.
    pub fn failed(&mut self, error: &TaskError) {
        self.error = Some(error.to_string());
    }

    /// Per frame (the app's logic): the report in, and, while the panel is open over `shown` (`None`: not on
    /// screen), the report for the keys' report, `has_lsi` and the Key design's GSIs asked for.
    pub fn tick(
        &mut self,
        ctx: &egui::Context,
        shown: Option<&Shown>,
        has_lsi: bool,
        design: &DesignState,
    ) -> Result<(), TaskError> {
        self.checked.drain();
        let Some(shown) = shown.filter(|_| self.open) else {
            return Ok(());
        };
        // The comparison's GSIs, while it is about these keys.
        let compared = design
            .shown
            .as_ref()
            .filter(|c| c.keys_generation() == shown.keys_generation);
        let asked = Asked {
            report: shown.generation,
            has_lsi,
            design: compared.map_or(0, |_| design.shown_generation),
        };
        self.wanted = Some(asked);
        if self.checked.value(&asked).is_some() {
            return Ok(());
        }
        let gsis = compared.map(|c| design_gsis(c)).unwrap_or_default();
        let keys = Arc::clone(&shown.keys);
        let report = Arc::clone(&shown.report);
        let ttl = shown.ttl.clone();
        let keys_generation = shown.keys_generation;
        self.checked.ask(asked, ctx, "health", move || {
            let mut c = check(&keys, &report, has_lsi, ttl.as_deref(), gsis);
            c.keys_generation = keys_generation;
            c
        })
    }
}

/// The GSI rows of a comparison (named "GSI …"), with their keys and projection.
fn design_gsis(c: &Compared) -> Vec<GsiKeys> {
    c.rows
        .iter()
        .skip(1)
        .zip(&c.keys)
        .enumerate()
        .filter_map(|(i, (row, keys))| {
            let name = row.design.strip_prefix("GSI ")?;
            Some(GsiKeys {
                name: name.to_owned(),
                keys: Arc::clone(keys),
                projection: c
                    .projections
                    .get(i)
                    .and_then(Option::as_ref)
                    .map_or("ALL", crate::model::design::Projection::name),
                throttled_units: row.throttled_units,
                partitions: row.buckets.len(),
            })
        })
        .collect()
}

/// Now, in epoch seconds.
fn now() -> i64 {
    web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The report of `keys` under `report`'s view (off the UI thread), with what the panel draws from it.
fn check(
    keys: &KeySet,
    report: &Report,
    has_lsi: bool,
    ttl: Option<&TtlStats>,
    gsis: Vec<GsiKeys>,
) -> Checked {
    // A GSI's write cost needs its items' projected sizes; re-keyed kept attributes carry none.
    let (sized, no_sizes): (Vec<GsiKeys>, Vec<GsiKeys>) = gsis
        .into_iter()
        .partition(|g| g.keys.size_profile().is_some());
    let health = health(&HealthInput {
        keys,
        partitions: report.analysis.buckets.len(),
        workload: report.workload.as_ref(),
        has_lsi,
        ttl,
        now: now(),
        gsis: sized
            .iter()
            .map(|g| GsiInput {
                name: g.name.clone(),
                keys: &g.keys,
                projection: g.projection.to_owned(),
                throttled_units: g.throttled_units,
                partitions: g.partitions,
            })
            .collect(),
    });
    let examples = health
        .findings
        .iter()
        .map(|f| examples(keys, &f.examples))
        .collect();
    let largest = health
        .storage
        .as_ref()
        .and_then(|s| s.largest_collections.first())
        .and_then(|c| key_named(keys, &c.key));
    let bars = bars(&health.by_write_units);
    Checked {
        health,
        keys_generation: 0,
        examples,
        largest,
        bars,
        unsized_gsis: no_sizes.into_iter().map(|g| g.name).collect(),
    }
}

/// `text` when the keys hold a key displayed so.
fn key_named(keys: &KeySet, text: &str) -> Option<String> {
    let canonical =
        crate::model::key::canonical_partition_key(text.as_bytes(), keys.key_type()).ok()?;
    keys.find(&canonical).map(|_| text.to_owned())
}

/// A finding's examples, each once, with the key each names ("KEY (21 KB)" names KEY).
fn examples(keys: &KeySet, texts: &[String]) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    for text in texts {
        if out.iter().any(|e| e.text == *text) {
            continue;
        }
        let key = key_named(keys, text).or_else(|| {
            let (key, rest) = text.rsplit_once(" (")?;
            rest.ends_with(')').then(|| key_named(keys, key))?
        });
        out.push(Example {
            text: text.clone(),
            key,
        });
    }
    out
}

/// Items by write units as bars: one per number of units, or, with more than [`BARS`] of them, one per
/// power-of-two range (1, 2, 3–4, 5–8, …), labelled by the units seen in it.
fn bars(groups: &[SizeGroup]) -> Vec<Bar> {
    // (units, items); an item under 1 byte still costs a unit.
    let mut units: Vec<(u64, u64)> = Vec::new();
    for g in groups {
        let u = g.kb.max(1);
        match units.last_mut() {
            Some((k, n)) if *k == u => *n += g.items,
            _ => units.push((u, g.items)),
        }
    }
    let label = |lo: u64, hi: u64| {
        if lo == hi {
            format!("{lo} WCU")
        } else {
            format!("{lo}–{hi} WCU")
        }
    };
    if units.len() <= BARS {
        return units
            .into_iter()
            .map(|(u, items)| Bar {
                label: label(u, u),
                items,
            })
            .collect();
    }
    // (the range's top, the lowest and highest units seen in it, items)
    let mut bins: Vec<(u64, u64, u64, u64)> = Vec::new();
    for (u, n) in units {
        let top = u.next_power_of_two();
        match bins.last_mut() {
            Some((t, _, hi, items)) if *t == top => {
                *hi = u;
                *items += n;
            }
            _ => bins.push((top, u, u, n)),
        }
    }
    bins.into_iter()
        .map(|(_, lo, hi, items)| Bar {
            label: label(lo, hi),
            items,
        })
        .collect()
}

/// The panel's content (under its header); returns the commands of example keys clicked.
pub fn health_ui(ui: &mut egui::Ui, state: &HealthState, shown: &Shown) -> Vec<Command> {
    let mut commands = Vec::new();
    let current = state.wanted.and_then(|a| state.checked.value(&a));
    if current.is_none() {
        match (&state.error, state.wanted) {
            (Some(e), _) => {
                ui.colored_label(theme::ERROR, e);
            }
            (None, Some(a)) if state.checked.failed(&a) => {
                ui.colored_label(theme::ERROR, "the health report could not be computed");
            }
            _ => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak("checking the items…");
                });
            }
        }
    }
    // While a report for another view of the same keys is computed, the last one stays.
    let checked = current.or_else(|| {
        state
            .checked
            .last()
            .filter(|c| c.keys_generation == shown.keys_generation)
    });
    if let Some(c) = checked {
        report_ui(ui, &c, &mut commands);
    }
    commands
}

fn report_ui(ui: &mut egui::Ui, c: &Checked, commands: &mut Vec<Command>) {
    let h = &c.health;
    if h.items == 0 && h.ttl.is_none() && h.findings.is_empty() {
        ui.label(NO_ITEMS);
        return;
    }
    storage_ui(ui, c, commands);
    ttl_ui(ui, h);
    findings_ui(ui, c, commands);
    gsis_ui(ui, c);
}

/// A key: a link that selects it in the inspector when the keys hold it, else plain text.
fn key_ui(ui: &mut egui::Ui, text: &str, key: Option<&str>, commands: &mut Vec<Command>) {
    match key {
        Some(key) => {
            if ui
                .link(text)
                .on_hover_text("Select this key in the partition inspector")
                .clicked()
            {
                commands.push(Command::InspectKey(key.to_owned()));
            }
        }
        None => {
            ui.label(text);
        }
    }
}

/// The storage line, the largest item collection and the items by write units.
fn storage_ui(ui: &mut egui::Ui, c: &Checked, commands: &mut Vec<Command>) {
    let h = &c.health;
    let Some(s) = &h.storage else {
        ui.label("No item sizes: sizes need whole items: an export, scan output or JSON items.");
        return;
    };
    ui.label(format!("Storage: {}", s.describe(h.items)));
    if let Some(line) = h.estimates_line() {
        ui.label(format!("Estimated: {line}"));
    }
    if let Some(top) = s.largest_collections.first() {
        ui.horizontal_wrapped(|ui| {
            ui.label("Largest item collection:");
            key_ui(ui, &top.key, c.largest.as_deref(), commands);
            ui.label(format!(
                "({}, {})",
                plural(top.items, "item"),
                bytes(top.storage_bytes as f64)
            ));
        });
    }
    sizes_ui(ui, &c.bars, h.items);
}

/// Items by write units: a bar per group, its share and count beside it.
fn sizes_ui(ui: &mut egui::Ui, bars: &[Bar], items: u64) {
    if bars.is_empty() {
        return;
    }
    ui.add_space(4.0);
    ui.label("Items by write units (one write of an item costs a unit per KB):");
    let most = bars.iter().map(|b| b.items).max().unwrap_or(1).max(1) as f32;
    let height = ui.text_style_height(&egui::TextStyle::Body) * 0.75;
    let width = (ui.available_width() * 0.35).clamp(40.0, 180.0);
    egui::Grid::new("health-sizes")
        .num_columns(3)
        .spacing([8.0, 3.0])
        .show(ui, |ui| {
            for b in bars {
                ui.label(&b.label);
                let (rect, _) =
                    ui.allocate_exact_size(egui::vec2(width, height), egui::Sense::hover());
                let filled = (width * b.items as f32 / most).max(2.0);
                let bar = egui::Rect::from_min_size(rect.min, egui::vec2(filled, height));
                ui.painter().rect_filled(bar, 2.0, theme::COOL);
                ui.label(format!(
                    "{} ({})",
                    percent(b.items as f64 / items.max(1) as f64),
                    grouped(b.items)
                ));
                ui.end_row();
            }
        });
}

/// The TTL attribute: its values in seconds, past and to come.
fn ttl_ui(ui: &mut egui::Ui, h: &Health) {
    let Some(t) = &h.ttl else {
        return;
    };
    ui.add_space(4.0);
    ui.label(t.describe());
}

/// Each finding, most severe first.
fn findings_ui(ui: &mut egui::Ui, c: &Checked, commands: &mut Vec<Command>) {
    ui.add_space(6.0);
    if c.health.findings.is_empty() {
        ui.label("No findings: nothing in these items is near a limit.");
        return;
    }
    ui.strong(format!("Findings ({})", c.health.findings.len()));
    for (f, examples) in c.health.findings.iter().zip(&c.examples) {
        finding_ui(ui, f, examples, commands);
    }
}

/// One finding: a marker in its severity's colour, "error: …" (one label, so a screen reader says both), its
/// example keys and its source.
fn finding_ui(ui: &mut egui::Ui, f: &Finding, examples: &[Example], commands: &mut Vec<Command>) {
    let colour = theme::severity(f.severity);
    let font = egui::TextStyle::Body.resolve(ui.style());
    let size = ui.text_style_height(&egui::TextStyle::Body);
    ui.horizontal_top(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(size * 0.6, size), egui::Sense::hover());
        ui.painter()
            .circle_filled(rect.center(), size * 0.25, colour);
        ui.vertical(|ui| {
            let mut job = LayoutJob::default();
            let format = |color| TextFormat {
                font_id: font.clone(),
                color,
                ..TextFormat::default()
            };
            job.append(f.severity.as_str(), 0.0, format(colour));
            job.append(": ", 0.0, format(ui.visuals().text_color()));
            job.append(&f.summary, 0.0, format(ui.visuals().text_color()));
            ui.label(job);
            if !examples.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.weak("e.g.");
                    for e in examples {
                        key_ui(ui, &e.text, e.key.as_deref(), commands);
                    }
                });
            }
            // At the body's size (weak): a finding's source is read, not decoration.
            ui.label(egui::RichText::new(format!("source: {}", f.source)).weak());
        });
    });
    ui.add_space(4.0);
}

/// What each GSI of the Key design costs per write; those without projected sizes are named.
fn gsis_ui(ui: &mut egui::Ui, c: &Checked) {
    if c.health.gsis.is_empty() && c.unsized_gsis.is_empty() {
        return;
    }
    ui.add_space(4.0);
    ui.strong("GSI write costs (the Key design's GSIs)");
    for g in &c.health.gsis {
        ui.label(gsi_line(g));
    }
    for name in &c.unsized_gsis {
        ui.label(format!(
            "{name}: no write cost: its items carry no projected sizes (the input has no whole items to size)"
        ));
    }
}

fn gsi_line(g: &GsiCost) -> String {
    let throttled = g
        .throttled_units
        .filter(|u| *u > 0.0)
        .map_or_else(String::new, |u| {
            format!("; throttles {} units a second", units_per_write(u))
        });
    format!(
        "{} ({}): a write costs {} WCU on the table and {} on the index; {} of the writes land in it, {} \
         each{throttled}",
        g.name,
        g.projection,
        units_per_write(g.table_units_per_write),
        units_per_write(g.index_units_per_write),
        grouped(g.writes),
        bytes(g.mean_projected_bytes as f64),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(kb: u64, items: u64) -> SizeGroup {
        SizeGroup {
            kb,
            items,
            bytes: kb * 1024 * items,
        }
    }

    #[test]
    fn a_few_sizes_get_a_bar_each_and_many_are_binned_by_powers_of_two() {
        let few = bars(&[group(0, 2), group(1, 3), group(21, 4)]);
        let labels: Vec<&str> = few.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["1 WCU", "21 WCU"]);
        assert_eq!(few[0].items, 5, "under a KB costs a unit too");
        let many: Vec<SizeGroup> = (1..=12).map(|kb| group(kb, 1)).collect();
        let binned = bars(&many);
        let labels: Vec<&str> = binned.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["1 WCU", "2 WCU", "3–4 WCU", "5–8 WCU", "9–12 WCU"]);
        assert_eq!(binned.iter().map(|b| b.items).sum::<u64>(), 12);
    }

    #[test]
    fn examples_are_listed_once_and_name_their_key() {
        let mut keys = KeySet::new(crate::model::KeyType::S);
        keys.add(b"ORDER#big", 1);
        let got = examples(
            &keys,
            &[
                "ORDER#big".to_owned(),
                "ORDER#big".to_owned(),
                "ORDER#big (20.6 KB)".to_owned(),
                "gone (1 KB)".to_owned(),
            ],
        );
        let shown: Vec<(&str, Option<&str>)> = got
            .iter()
            .map(|e| (e.text.as_str(), e.key.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                ("ORDER#big", Some("ORDER#big")),
                ("ORDER#big (20.6 KB)", Some("ORDER#big")),
                ("gone (1 KB)", None),
            ]
        );
    }
}
