//! The Key design view: the current key and up to three candidate keys (and a GSI) over the same items, as
//! small-multiple histograms on one scale and a table of figures ([`crate::model::design`]).
//!
//! Where the items' attributes come from: an example's items are built with them; a loaded file is read again
//! in the background with the attributes the expressions need ([`LoadOptions::keep_items`]), and those are
//! then kept, so editing an expression over them re-keys at once (off the UI thread, [`DEBOUNCE`] after the
//! last keystroke); pasted keys offer `pk` and `sk`. A scanned table shows the GSIs its scan read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::command::Command;
use super::tasks::{Reporter, Task, TaskError};
use super::theme;
use crate::model::decision::UserAnswers;
use crate::model::design::{
    Design, DesignKeys, DesignKind, Figures, GsiSpec, Items, MAX_CANDIDATES, figures, parse_key,
};
use crate::model::fmt::{grouped, percent};
use crate::model::{KeySet, ViewSettings};
use crate::source::{LoadOptions, Progress};

/// The pause after the last keystroke before the candidates are re-keyed.
pub const DEBOUNCE: Duration = Duration::from_millis(30);
/// The boxes: the candidates, then the GSI.
pub const GSI_SLOT: usize = MAX_CANDIDATES;

/// What the comparison was computed from, to tell whether it is current.
#[derive(Debug, Clone, PartialEq)]
struct Asked {
    design: Design,
    view: ViewSettings,
    keys: usize,
    items: usize,
}

/// A finished comparison.
#[derive(Debug, Clone)]
pub struct Compared {
    /// The current key, then each candidate and GSI.
    pub rows: Vec<Figures>,
    /// The candidates' and GSIs' keys (for "Use as key"), in `rows[1..]` order.
    pub keys: Vec<Arc<KeySet>>,
    /// The box each row after the first came from.
    pub slots: Vec<usize>,
    /// Records a design could not key, per row after the first, with the first reason.
    pub skipped: Vec<(u64, Option<String>)>,
    /// What each row after the first was computed from, to reuse it when only another box changed.
    reuse: Vec<String>,
    /// The view, keys and items it was computed from.
    base: (ViewSettings, usize, usize),
    pub millis: f64,
}

/// Messages of a background re-read of the file for the attributes.
enum Reread {
    Progress(Progress),
    Done(Result<Items, String>),
}

/// Where the items' attributes come from.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemsFrom {
    /// None yet.
    Nothing,
    /// Kept for the data shown (an example's, a re-read file's, pasted keys').
    Kept,
    /// A file that can be read again with more attributes.
    File(std::path::PathBuf, Box<LoadOptions>),
    /// A scanned table: what its scan read.
    Table,
    /// Typed or pasted keys: their `pk` and `sk`, built from the keys shown.
    Keys,
}

/// The view's state between frames.
pub struct DesignState {
    /// The boxes as typed: candidates, then the GSI (`NAME=EXPR`).
    pub texts: [String; MAX_CANDIDATES + 1],
    /// The expression (or attribute) the current keys are keyed by.
    pub current: String,
    pub items: Option<Arc<Items>>,
    pub from: ItemsFrom,
    /// The fix the loaded example teaches.
    pub fix: Option<String>,
    /// GSIs a scan read (shown as they are).
    pub scanned: Vec<DesignKeys>,
    edited_at: Option<Instant>,
    asked: Option<Asked>,
    task: Option<Task<Compared>>,
    reread: Option<(Task<Reread>, Design)>,
    pub progress: Option<Progress>,
    pub shown: Option<Arc<Compared>>,
    /// Why nothing can be compared (shown in the view).
    pub message: Option<String>,
    /// The keys the items were built from ([`ItemsFrom::Keys`]).
    items_of: usize,
}

impl Default for DesignState {
    fn default() -> Self {
        Self {
            texts: Default::default(),
            current: "{pk}".to_owned(),
            items: None,
            from: ItemsFrom::Keys,
            fix: None,
            scanned: Vec::new(),
            edited_at: None,
            asked: None,
            task: None,
            reread: None,
            progress: None,
            shown: None,
            message: None,
            items_of: 0,
        }
    }
}

/// The boxes parsed: the design, and each box's error.
pub fn parse_boxes(texts: &[String], seed: u64) -> (Design, Vec<usize>, Vec<Option<String>>) {
    let mut design = Design {
        seed,
        ..Design::default()
    };
    let mut slots = Vec::new();
    let mut errors = vec![None; texts.len()];
    for (i, text) in texts.iter().enumerate() {
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if i == GSI_SLOT {
            match GsiSpec::parse(text) {
                Ok(g) => design.gsis.push(g),
                Err(e) => errors[i] = Some(e),
            }
        } else {
            match parse_key(text) {
                Ok(e) => {
                    design.candidates.push(e);
                    slots.push(i);
                }
                Err(e) => errors[i] = Some(e),
            }
        }
    }
    if !design.gsis.is_empty() {
        slots.push(GSI_SLOT);
    }
    (design, slots, errors)
}

impl DesignState {
    /// New data replaced the keys: its items (if it brings them) and where more come from.
    pub fn reset(&mut self, items: Option<Items>, from: ItemsFrom, current: String) {
        if let Some((task, _)) = self.reread.take() {
            task.cancel();
        }
        self.items = items.map(Arc::new);
        self.from = from;
        self.current = current;
        self.fix = None;
        self.scanned.clear();
        self.asked = None;
        self.shown = None;
        self.progress = None;
        self.message = None;
        self.items_of = 0;
        self.edited_at = None;
    }

    pub fn edit(&mut self, slot: usize, text: String) {
        if let Some(t) = self.texts.get_mut(slot) {
            *t = text;
            self.edited_at = Some(Instant::now());
        }
    }

    /// Whether a comparison or a re-read is under way.
    pub fn busy(&self) -> bool {
        self.task.is_some() || self.reread.is_some()
    }

    /// Per-frame work: results in, and (after the debounce) a new comparison or re-read out. Returns the
    /// time until the debounce ends, to repaint then.
    pub fn tick(
        &mut self,
        ctx: &egui::Context,
        keys: Option<&Arc<KeySet>>,
        view: &ViewSettings,
        answers: &UserAnswers,
    ) -> Result<Option<Duration>, TaskError> {
        self.drain();
        let Some(keys) = keys else {
            return Ok(None);
        };
        // Pasted keys offer `pk` and `sk`: built from the keys shown, again when they change.
        if self.from == ItemsFrom::Keys && self.items_of != Arc::as_ptr(keys) as usize {
            self.items_of = Arc::as_ptr(keys) as usize;
            self.items = Some(Arc::new(Items::from_keys(keys)));
        }
        if let Some(at) = self.edited_at {
            let waited = at.elapsed();
            if waited < DEBOUNCE {
                return Ok(Some(DEBOUNCE - waited));
            }
        }
        let (design, slots, _) = parse_boxes(&self.texts, view.shard.seed);
        let asked = Asked {
            design: design.clone(),
            view: view.clone(),
            keys: Arc::as_ptr(keys) as usize,
            items: self.items.as_ref().map_or(0, |i| Arc::as_ptr(i) as usize),
        };
        if self.asked.as_ref() == Some(&asked) || self.reread.is_some() {
            return Ok(None);
        }
        let base = (asked.view.clone(), asked.keys, asked.items);
        self.edited_at = None;
        let covered = self.items.as_ref().is_some_and(|i| i.covers(&design));
        if !covered && !design.is_empty() {
            self.asked = Some(asked);
            return self.fetch_attributes(ctx, &design).map(|()| None);
        }
        self.message = None;
        self.asked = Some(asked);
        if let Some(t) = self.task.take() {
            t.cancel();
        }
        let items = self.items.clone().unwrap_or_default();
        // The last comparison's rows are reused when the keys, items and view are the same.
        let previous = self.shown.clone().filter(|s| s.base == base);
        let (keys, view, answers) = (Arc::clone(keys), view.clone(), *answers);
        let current = self.current.clone();
        let scanned = self.scanned.clone();
        self.task = Some(Task::spawn(
            "design",
            ctx,
            1,
            move |r: &Reporter<Compared>| {
                let start = Instant::now();
                let result = compare(
                    &items,
                    &keys,
                    &current,
                    &design,
                    slots,
                    &view,
                    &answers,
                    previous.as_deref(),
                    &scanned,
                );
                if !r.cancelled() {
                    r.send(Compared {
                        millis: start.elapsed().as_secs_f64() * 1e3,
                        base,
                        ..result
                    });
                }
            },
        )?);
        Ok(None)
    }

    /// The design needs attributes the kept items lack: read the file again for them, or say why not.
    fn fetch_attributes(&mut self, ctx: &egui::Context, design: &Design) -> Result<(), TaskError> {
        let missing: Vec<String> = design
            .roots()
            .into_iter()
            .filter(|r| !self.items.as_ref().is_some_and(|i| i.roots().contains(r)))
            .collect();
        match &self.from {
            ItemsFrom::File(path, opts) => {
                let mut opts = (**opts).clone();
                // Only extraction: every root as a sparse index (an item without it is no bad record), with
                // what was kept before, so editing back does not read the file again.
                let mut roots = design.roots();
                if let Some(items) = &self.items {
                    roots.extend(items.roots().iter().cloned());
                }
                roots.sort();
                roots.dedup();
                opts.design = Design {
                    gsis: roots
                        .iter()
                        .filter_map(|r| {
                            Some(GsiSpec {
                                name: r.clone(),
                                key: crate::model::keyexpr::Expr::attribute(r)?,
                                sort_key: None,
                            })
                        })
                        .collect(),
                    ..Design::default()
                };
                opts.keep_items = true;
                let paths = [path.clone()];
                let task = Task::spawn("design-read", ctx, 16, move |r: &Reporter<Reread>| {
                    let mut last = Instant::now();
                    let result = crate::source::load(&paths, &opts, r.cancel_flag(), &mut |p| {
                        if last.elapsed() >= Duration::from_millis(50) {
                            last = Instant::now();
                            r.offer(Reread::Progress(p));
                        }
                    });
                    let items = result
                        .map_err(|e| format!("{e:#}"))
                        .and_then(|l| l.kept.ok_or_else(|| "no items kept".to_owned()))
                        .and_then(|k| {
                            if k.complete {
                                Ok(k)
                            } else {
                                Err(format!(
                                    "the file has more items than the {} values the app keeps",
                                    grouped(crate::model::design::MAX_KEPT_VALUES as u64)
                                ))
                            }
                        });
                    r.send(Reread::Done(items));
                })?;
                self.message = Some(format!(
                    "reading {} from {}…",
                    missing.join(", "),
                    path.display()
                ));
                self.reread = Some((task, design.clone()));
            }
            ItemsFrom::Table => {
                self.message = Some(format!(
                    "a scanned table has only what its scan read: no {} (choose GSIs in Connect, or compare \
                     candidates on an export of the table)",
                    missing.join(", ")
                ));
            }
            ItemsFrom::Kept | ItemsFrom::Nothing | ItemsFrom::Keys => {
                let have = self
                    .items
                    .as_ref()
                    .map(|i| i.roots().join(", "))
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "none".to_owned());
                self.message = Some(format!(
                    "these items have no {} (their attributes: {have})",
                    missing.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Takes in what the background tasks finished (also while the view is not shown, so nothing stays busy).
    pub fn drain(&mut self) {
        if let Some(task) = &mut self.task {
            let done = task.drain();
            let finished = task.finished();
            if let Some(c) = done.into_iter().last() {
                self.shown = Some(Arc::new(c));
                self.task = None;
            } else if finished {
                self.task = None;
            }
        }
        if let Some((task, _)) = &mut self.reread {
            let mut done = None;
            for m in task.drain() {
                match m {
                    Reread::Progress(p) => self.progress = Some(p),
                    Reread::Done(r) => done = Some(r),
                }
            }
            let finished = task.finished();
            if let Some(result) = done {
                self.reread = None;
                self.progress = None;
                match result {
                    Ok(items) => {
                        self.items = Some(Arc::new(items));
                        self.message = None;
                        self.asked = None;
                    }
                    Err(e) => self.message = Some(format!("cannot read the attributes: {e}")),
                }
            } else if finished {
                self.reread = None;
            }
        }
    }
}

/// The comparison: the current keys, then each candidate and GSI re-keyed from the kept items. Rows of
/// `previous` (the last comparison of the same keys, items and view) are reused: editing one candidate
/// re-keys that one only.
#[allow(clippy::too_many_arguments)] // one call site, the task's inputs
fn compare(
    items: &Items,
    keys: &KeySet,
    current: &str,
    design: &Design,
    slots: Vec<usize>,
    view: &ViewSettings,
    answers: &UserAnswers,
    previous: Option<&Compared>,
    scanned: &[DesignKeys],
) -> Compared {
    let base = || DesignKeys {
        kind: DesignKind::Current,
        expr: current.to_owned(),
        fan_out: parse_key(current).map_or(1, |e| e.fan_out()),
        keys: keys.clone(),
        absent: 0,
    };
    let first = previous
        .and_then(|p| p.rows.first())
        .filter(|r| r.expr == current)
        .cloned()
        .unwrap_or_else(|| {
            let b = base();
            figures(&[(&b, 0)], keys.total(), view, answers).remove(0)
        });
    let mut out = Compared {
        rows: vec![first],
        keys: Vec::new(),
        slots,
        skipped: Vec::new(),
        reuse: Vec::new(),
        base: (ViewSettings::default(), 0, 0),
        millis: 0.0,
    };
    let mut n = 0;
    for single in design.singles().filter(|d| d.shard_by.is_none()) {
        let id = format!("{single:?}");
        let is_candidate = !single.candidates.is_empty();
        n += usize::from(is_candidate);
        let label = |f: &mut Figures| {
            if is_candidate {
                f.design = DesignKind::Candidate(n).to_string();
            }
        };
        if let Some(i) = previous.and_then(|p| p.reuse.iter().position(|r| *r == id))
            && let Some(p) = previous
        {
            let mut f = p.rows[i + 1].clone();
            label(&mut f);
            out.rows.push(f);
            out.keys.push(Arc::clone(&p.keys[i]));
            out.skipped.push(p.skipped[i].clone());
            out.reuse.push(id);
            continue;
        }
        let Some(r) = items.rekey(&single).designs.into_iter().next() else {
            continue;
        };
        let mut f = figures(&[(&r.keys, r.skipped)], keys.total(), view, answers).remove(0);
        label(&mut f);
        out.rows.push(f);
        out.keys.push(Arc::new(r.keys.keys));
        out.skipped
            .push((r.skipped, r.first_error.as_ref().map(ToString::to_string)));
        out.reuse.push(id);
    }
    // The GSIs a scan read, as they are.
    for d in scanned {
        let f = figures(&[(d, 0)], keys.total(), view, answers).remove(0);
        out.rows.push(f);
        out.keys.push(Arc::new(d.keys.clone()));
        out.skipped.push((0, None));
        out.slots.push(GSI_SLOT);
        out.reuse.push(String::new());
    }
    out
}

/// The view: the boxes, the small multiples and the table.
pub fn design_ui(ui: &mut egui::Ui, state: &DesignState, noun: &str) -> Vec<Command> {
    let mut commands = Vec::new();
    ui.heading("Key design");
    ui.weak(
        "Try a new partition key on these items before changing any code: an attribute (status) or an \
         expression (TENANT#{tenantId}#{createdAt:day}, BOARD#global#{playerId:hash 10}). Partitions by \
         shardlens's teaching hash, not DynamoDB's.",
    );
    ui.horizontal(|ui| {
        ui.label("Current key:");
        ui.monospace(if state.current.is_empty() {
            "(the keys as loaded)"
        } else {
            &state.current
        });
    });
    boxes_ui(ui, state, &mut commands);
    if let Some(fix) = &state.fix {
        let shown = state.texts.iter().any(|t| t.trim() == fix);
        if !shown
            && ui
                .button(format!("Try the guide's fix: {fix}"))
                .on_hover_text("AWS's write-sharding guide: a calculated suffix from an attribute")
                .clicked()
        {
            commands.push(Command::EditDesign(0, fix.clone()));
        }
    }
    if let Some(m) = &state.message {
        ui.colored_label(theme::WARM, m);
    }
    if state.busy() {
        ui.horizontal(|ui| {
            ui.spinner();
            match &state.progress {
                Some(p) => ui.label(format!(
                    "reading attributes: {} items, {:.1} MB",
                    grouped(p.items),
                    p.bytes as f64 / 1e6
                )),
                None => ui.label("re-keying…"),
            };
        });
    }
    let Some(shown) = &state.shown else {
        return commands;
    };
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("design-scroll")
        .show(ui, |ui| {
            small_multiples_ui(ui, &shown.rows, noun);
            ui.add_space(8.0);
            table_ui(ui, shown, &mut commands);
            for (row, (skipped, why)) in shown.rows.iter().skip(1).zip(&shown.skipped) {
                if *skipped > 0 {
                    ui.colored_label(
                        theme::WARM,
                        format!(
                            "{}: {} {noun} could not be keyed and are left out{}",
                            row.design,
                            grouped(*skipped),
                            why.as_ref().map_or_else(String::new, |w| format!(" ({w})"))
                        ),
                    );
                }
            }
            for row in &shown.rows {
                if row.design.starts_with("GSI") && row.absent > 0 {
                    ui.weak(format!(
                        "{}: {} items lack its key attributes and are not in it (a sparse index)",
                        row.design,
                        grouped(row.absent)
                    ));
                }
                if row.design.starts_with("GSI") && row.throttled_units.is_some_and(|t| t > 0.0) {
                    ui.colored_label(
                        theme::HOT,
                        format!(
                            "{} throttles, and a throttled GSI throttles the base table's writes too",
                            row.design
                        ),
                    );
                }
            }
            if shown.rows.iter().any(|r| r.expr.contains(":hash")) {
                ui.weak(
                    "A calculated suffix (:hash N) gives all writes of one item the same shard: one hot item \
                     stays on one shard. A random suffix per write ({random N}, or the shard toggle) spreads \
                     it, at N queries per read.",
                );
            }
        });
    commands
}

/// The candidate boxes and the GSI box, each with its parse error.
fn boxes_ui(ui: &mut egui::Ui, state: &DesignState, commands: &mut Vec<Command>) {
    let (_, _, errors) = parse_boxes(&state.texts, 0);
    egui::Grid::new("design-boxes")
        .num_columns(2)
        .spacing([8.0, 4.0])
        .show(ui, |ui| {
            for (i, text) in state.texts.iter().enumerate() {
                let label = if i == GSI_SLOT {
                    "GSI (NAME=EXPR)".to_owned()
                } else {
                    format!("Candidate {}", i + 1)
                };
                let label_id = ui.label(&label).id;
                ui.vertical(|ui| {
                    let mut edited = text.clone();
                    let hint = if i == GSI_SLOT {
                        "byStatus=status"
                    } else {
                        "CUST#{customerId}#{createdAt:day}"
                    };
                    let r = ui.add(
                        egui::TextEdit::singleline(&mut edited)
                            .hint_text(hint)
                            .desired_width(360.0)
                            .font(egui::TextStyle::Monospace),
                    );
                    let r = r.labelled_by(label_id);
                    if r.changed() {
                        commands.push(Command::EditDesign(i, edited));
                    }
                    if let Some(Some(e)) = errors.get(i) {
                        ui.colored_label(theme::ERROR, e);
                    }
                });
                ui.end_row();
            }
        });
}

/// One histogram per design, side by side, on one scale (the largest bucket of any).
fn small_multiples_ui(ui: &mut egui::Ui, rows: &[Figures], noun: &str) {
    let max = rows
        .iter()
        .flat_map(|r| r.buckets.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1);
    let width = ui.available_width();
    let per_row = if width > 900.0 { 4 } else { 2 };
    let cell_w = (width / per_row as f32 - 12.0).max(120.0);
    ui.label(format!(
        "{noun} per partition, one scale for all (the tallest bar is {})",
        grouped(max)
    ));
    ui.horizontal_wrapped(|ui| {
        for r in rows {
            ui.allocate_ui(egui::vec2(cell_w, 150.0), |ui| {
                ui.vertical(|ui| {
                    ui.strong(&r.design);
                    ui.monospace(&r.expr);
                    let (rect, _) =
                        ui.allocate_exact_size(egui::vec2(cell_w, 90.0), egui::Sense::hover());
                    bars(ui, rect, &r.buckets, max);
                    ui.weak(format!(
                        "{} keys · top key {} · {:.2}× mean",
                        grouped(r.distinct_keys as u64),
                        percent(r.top_key_share),
                        r.max_over_mean
                    ));
                });
            });
        }
    });
}

fn bars(ui: &egui::Ui, rect: egui::Rect, buckets: &[u64], max: u64) {
    let painter = ui.painter_at(rect);
    painter.rect_stroke(
        rect,
        2.0,
        egui::Stroke::new(1.0, ui.visuals().weak_text_color()),
        egui::StrokeKind::Inside,
    );
    let n = buckets.len().max(1);
    let mean = buckets.iter().sum::<u64>() as f64 / n as f64;
    let w = rect.width() / n as f32;
    for (i, &b) in buckets.iter().enumerate() {
        let h = rect.height() * (b as f32 / max as f32);
        let x = rect.left() + i as f32 * w;
        let bar = egui::Rect::from_min_max(
            egui::pos2(x + w * 0.1, rect.bottom() - h),
            egui::pos2(x + w * 0.9, rect.bottom()),
        );
        let colour = if mean > 0.0 && b as f64 > 2.0 * mean {
            theme::HOT
        } else if mean > 0.0 && b as f64 > 1.25 * mean {
            theme::WARM
        } else {
            theme::COOL
        };
        painter.rect_filled(bar, 1.0, colour);
    }
}

/// The figures, one row per design, with "Use as key" for the candidates.
fn table_ui(ui: &mut egui::Ui, shown: &Compared, commands: &mut Vec<Command>) {
    let throttled = shown.rows.iter().any(|r| r.throttled_units.is_some());
    egui::ScrollArea::horizontal()
        .id_salt("design-table-scroll")
        .show(ui, |ui| table_grid_ui(ui, shown, commands));
    if !throttled {
        ui.weak("Throttled units need a workload: tick Model capacity and give reads or writes per second.");
    }
    ui.weak(format!("computed in {:.0} ms", shown.millis));
}

fn table_grid_ui(ui: &mut egui::Ui, shown: &Compared, commands: &mut Vec<Command>) {
    egui::Grid::new("design-table")
        .striped(true)
        .spacing([12.0, 4.0])
        .show(ui, |ui| {
            for h in [
                "",
                "design",
                "expression",
                "distinct keys",
                "max/mean",
                "top-key share",
                "Gini",
                "throttled /s",
                "read fan-out",
                "decision tree",
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for (i, r) in shown.rows.iter().enumerate() {
                let candidate = i > 0 && shown.slots.get(i - 1).is_some_and(|&s| s < GSI_SLOT);
                if candidate {
                    if ui
                        .button("Use as key")
                        .on_hover_text("Re-key the loaded data by this candidate (Ctrl+Z undoes)")
                        .clicked()
                    {
                        commands.push(Command::UseDesign(i - 1));
                    }
                } else {
                    ui.label("");
                }
                ui.label(&r.design);
                ui.monospace(&r.expr);
                ui.label(grouped(r.distinct_keys as u64));
                ui.label(format!("{:.2}×", r.max_over_mean));
                ui.label(percent(r.top_key_share));
                ui.label(format!("{:.3}", r.gini));
                ui.label(
                    r.throttled_units
                        .map_or_else(|| "-".to_owned(), |t| format!("{t:.0}")),
                );
                ui.label(r.read_fan_out.to_string());
                ui.label(r.leaf.as_deref().unwrap_or("-"));
                ui.end_row();
            }
        });
}
