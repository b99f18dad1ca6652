//! The Key design view: the current key and up to three candidate keys (and a GSI) over the same items, as
//! small-multiple histograms on one scale and a table of figures ([`crate::model::design`]).
//!
//! Where the items' attributes come from: an example's items are built with them; a loaded file is read again
//! in the background with the attributes the expressions need ([`LoadOptions::keep_items`]), and those are
//! then kept, so editing an expression over them re-keys at once (off the UI thread, [`DEBOUNCE`] after the
//! last keystroke); pasted keys offer `pk` and `sk`. A scanned table shows the GSIs its scan read.

use std::sync::Arc;
use std::time::Duration;
use web_time::Instant;

use super::command::Command;
use super::jobs::Shown;
use super::tasks::{Reporter, Task, TaskError};
use super::theme;
use crate::model::decision::UserAnswers;
use crate::model::design::{
    Design, DesignKeys, DesignKind, Figures, GsiSpec, Items, MAX_CANDIDATES, Projection, figures,
    parse_key,
};
use crate::model::fmt::{grouped, percent};
use crate::model::{KeySet, ViewSettings};
use crate::source::{LoadOptions, Progress};

mod view;

pub use view::{design_ui, export_ui};

/// The pause after the last keystroke before the candidates are re-keyed.
pub const DEBOUNCE: Duration = Duration::from_millis(30);
/// The boxes: the candidates, then the GSI.
pub const GSI_SLOT: usize = MAX_CANDIDATES;

/// What the comparison was computed from, to tell whether it is current.
#[derive(Debug, Clone, PartialEq)]
struct Asked {
    design: Design,
    view: ViewSettings,
    /// The keys' generation ([`Shown::keys_generation`]) and the items' ([`DesignState::items_generation`]).
    keys: u64,
    items: u64,
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
    /// What each row after the first projects, when it is a GSI (Table health's write costs).
    pub projections: Vec<Option<Projection>>,
    /// Records a design could not key, per row after the first, with the first reason.
    pub skipped: Vec<(u64, Option<String>)>,
    /// What each row after the first was computed from, to reuse it when only another box changed.
    reuse: Vec<String>,
    /// The view, keys and items it was computed from.
    base: (ViewSettings, u64, u64),
    pub millis: f64,
}

impl Compared {
    /// The generation of the keys it was computed over ([`Shown::keys_generation`]).
    pub fn keys_generation(&self) -> u64 {
        self.base.1
    }

    /// The view's sharding its rows were computed under (Shard hot keys on), as `--shards` applies to every
    /// `--compare` row on the command line; `None` when every design is compared as written.
    pub fn shard(&self) -> Option<&crate::model::shard::ShardPlan> {
        Some(&self.base.0.shard).filter(|p| p.is_active())
    }
}

/// Messages of a background re-read of the file for the attributes.
enum Reread {
    Progress(Progress),
    Done(Result<Items, super::error::AppError>),
}

/// The items a re-read kept, all of them, or why not.
fn kept_items(
    result: Result<crate::source::Loaded, crate::source::SourceError>,
) -> Result<Items, super::error::AppError> {
    let kept = result?
        .kept
        .ok_or_else(|| anyhow::anyhow!("no items kept"))?;
    if kept.complete {
        Ok(kept)
    } else {
        Err(anyhow::anyhow!(
            "the file has more items than the {} values the app keeps",
            grouped(crate::model::design::MAX_KEPT_VALUES as u64)
        )
        .into())
    }
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
    items: Option<Arc<Items>>,
    pub from: ItemsFrom,
    /// The fix the loaded example teaches.
    pub fix: Option<String>,
    /// The multi-attribute GSI the loaded example offers (`NAME=a+b`), one click away.
    pub gsi_fix: Option<String>,
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
    /// The generation of the keys the items were built from ([`ItemsFrom::Keys`]).
    items_of: Option<u64>,
    /// Bumped whenever the items change: what a comparison's items are known by.
    items_generation: u64,
    /// Bumped whenever [`Self::shown`] changes: what work over the comparison (Table health's GSIs) is keyed by.
    pub shown_generation: u64,
}

impl Default for DesignState {
    fn default() -> Self {
        Self {
            texts: Default::default(),
            current: "{pk}".to_owned(),
            items: None,
            from: ItemsFrom::Keys,
            fix: None,
            gsi_fix: None,
            scanned: Vec::new(),
            edited_at: None,
            asked: None,
            task: None,
            reread: None,
            progress: None,
            shown: None,
            message: None,
            items_of: None,
            items_generation: 0,
            shown_generation: 0,
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

/// The candidates and GSIs of `design` that `items` can key, with their boxes' slots.
fn covered_part(items: Option<&Items>, design: &Design, slots: &[usize]) -> (Design, Vec<usize>) {
    let alone = |candidates: Vec<crate::model::keyexpr::Expr>, gsis: Vec<GsiSpec>| Design {
        candidates,
        gsis,
        ..design.clone()
    };
    let covers = |d: &Design| items.is_some_and(|i| i.covers(d));
    let mut out = alone(Vec::new(), Vec::new());
    let mut out_slots = Vec::new();
    for (c, &slot) in design.candidates.iter().zip(slots) {
        if covers(&alone(vec![c.clone()], Vec::new())) {
            out.candidates.push(c.clone());
            out_slots.push(slot);
        }
    }
    out.gsis = design
        .gsis
        .iter()
        .filter(|g| covers(&alone(Vec::new(), vec![(*g).clone()])))
        .cloned()
        .collect();
    if !out.gsis.is_empty() {
        out_slots.push(GSI_SLOT);
    }
    (out, out_slots)
}

/// What the keys on screen are keyed by, with their items and where more come from: kept with an undo step
/// of the key set.
pub struct DesignKeying {
    current: String,
    items: Option<Arc<Items>>,
    from: ItemsFrom,
}

impl DesignState {
    /// What the keys on screen are keyed by, for an undo step.
    pub fn keying(&self) -> DesignKeying {
        DesignKeying {
            current: self.current.clone(),
            items: self.items.clone(),
            from: self.from.clone(),
        }
    }

    /// Brings back the keying of an undo step: the comparison starts over on those items.
    pub fn restore(&mut self, keying: DesignKeying) {
        self.reset(None, keying.from, keying.current);
        self.set_items(keying.items);
    }

    /// The same items re-keyed by `current` ("Use as key"): the comparison starts over on them.
    pub fn rekey(&mut self, current: String) {
        let items = self.items.take();
        let from = std::mem::replace(&mut self.from, ItemsFrom::Nothing);
        self.reset(None, from, current);
        self.set_items(items);
    }

    /// The one writer of the items: each change gets a new generation, so a comparison asked for other
    /// items is never taken for current.
    fn set_items(&mut self, items: Option<Arc<Items>>) {
        self.items = items;
        self.items_generation += 1;
    }

    /// New data replaced the keys: its items (if it brings them) and where more come from.
    pub fn reset(&mut self, items: Option<Items>, from: ItemsFrom, current: String) {
        if let Some((task, _)) = self.reread.take() {
            task.cancel();
        }
        self.set_items(items.map(Arc::new));
        self.from = from;
        self.current = current;
        self.fix = None;
        self.gsi_fix = None;
        self.scanned.clear();
        self.asked = None;
        self.shown = None;
        self.shown_generation += 1;
        self.progress = None;
        self.message = None;
        self.items_of = None;
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
        shown: Option<&Shown>,
        view: &ViewSettings,
        answers: &UserAnswers,
    ) -> Result<Option<Duration>, TaskError> {
        self.drain();
        let Some(shown) = shown else {
            return Ok(None);
        };
        let keys = &shown.keys;
        // Pasted keys offer `pk` and `sk`: built from the keys shown, again when they change.
        if self.from == ItemsFrom::Keys && self.items_of != Some(shown.keys_generation) {
            self.items_of = Some(shown.keys_generation);
            self.set_items(Some(Arc::new(Items::from_keys(keys))));
        }
        if let Some(at) = self.edited_at {
            let waited = at.elapsed();
            if waited < DEBOUNCE {
                return Ok(Some(DEBOUNCE - waited));
            }
        }
        let (mut design, mut slots, _) = parse_boxes(&self.texts, view.shard.seed);
        let asked = Asked {
            design: design.clone(),
            view: view.clone(),
            keys: shown.keys_generation,
            items: self.items_generation,
        };
        if self.asked.as_ref() == Some(&asked) || self.reread.is_some() {
            return Ok(None);
        }
        let base = (asked.view.clone(), asked.keys, asked.items);
        self.edited_at = None;
        let covered = self.items.as_ref().is_some_and(|i| i.covers(&design));
        if !covered && !design.is_empty() {
            self.asked = Some(asked.clone());
            self.fetch_attributes(ctx, &design)?;
            if self.reread.is_some() {
                return Ok(None);
            }
            // Nothing more can be read: the message names what the items lack, and the candidates they can
            // key are compared anyway (the view is never left blank by one candidate it cannot key).
            (design, slots) = covered_part(self.items.as_deref(), &design, &slots);
        } else {
            self.message = None;
        }
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
                        .filter_map(|r| GsiSpec::on_attribute(r, r))
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
                    r.send(Reread::Done(kept_items(result)));
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
                self.shown_generation += 1;
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
                        self.set_items(Some(Arc::new(items)));
                        self.message = None;
                        self.asked = None;
                    }
                    Err(e) => {
                        self.message = Some(format!("cannot read the attributes: {}", e.said()));
                    }
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
        projection: None,
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
        projections: Vec::new(),
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
            out.projections.push(p.projections[i].clone());
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
        out.projections
            .push(single.gsis.first().map(|g| g.projection.clone()));
        out.skipped
            .push((r.skipped, r.first_error.as_ref().map(ToString::to_string)));
        out.reuse.push(id);
    }
    // The GSIs a scan read, as they are.
    for d in scanned {
        let f = figures(&[(d, 0)], keys.total(), view, answers).remove(0);
        out.rows.push(f);
        out.keys.push(Arc::new(d.keys.clone()));
        out.projections.push(d.projection.clone());
        out.skipped.push((0, None));
        out.slots.push(GSI_SLOT);
        out.reuse.push(String::new());
    }
    out
}
