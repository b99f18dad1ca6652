//! The Timeline view: a time simulation ([`crate::model::simulate`]) played like a video. A heatmap of time
//! (x) × partition in hash-range order (y), a line chart of demand, served and throttled units with the
//! run's events, diagnostics in words above them (as Bigtable's Key Visualizer puts them), and "the table at
//! 00:08:12": the partitions at the scrubber's second as bars, and the selected partition in the inspector.
//!
//! The simulation runs on a [`Task`] and streams [`Chunk`]s, so the first minutes show while a long run is
//! still being computed; the frame only appends them and draws. The heatmap is one texture (not thousands of
//! shapes), filled column by column as chunks arrive (`heatmap`).
//!
//! The view draws from a `&Simulation` and returns what its controls ask for as [`TimelineCommand`]s (inside
//! [`super::Command::Timeline`]); the app applies them after drawing through [`Simulation::apply`], the one
//! place a click changes the simulation. The playhead moves while playing in [`Simulation::tick`], which
//! runs per frame before drawing.

mod axes;
mod charts;
mod heatmap;
mod replay;
mod run;

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;

use super::tasks::{Reporter, Task, TaskError};
use crate::model::decision::{Evidence, Path, UserAnswers, evaluate};
use crate::model::simulate::{
    Chunk, Diagnosis, Outcome, Point, Setup, TimeEvidence, Timeline, diagnose, key_set,
    run_streaming, time_evidence,
};
use crate::source::trace::ObservedMinute;

pub use super::command::TimelineCommand;
pub use super::what_if::WhatIf;
pub use charts::inspector_ui;
pub use replay::Clock;
use replay::{what_if_menu_ui, what_if_ui};
pub use run::{Origin, Replay, Run, Saved, ScenarioRun, ShardFix};

/// Playback speeds offered (simulated seconds per second).
pub const SPEEDS: [f64; 6] = [1.0, 10.0, 60.0, 120.0, 300.0, 600.0];

/// What the simulation's task sends.
enum SimMsg {
    /// What the decision tree knows from the scenario's keys (before the run starts).
    Keys(Box<Evidence>),
    Chunk(Box<Chunk>),
    /// The run is over; what it means in words, and the tree's evidence over time.
    Done(Box<(Diagnosis, TimeEvidence)>),
}

/// A simulation being run or played: its result so far, and where the playhead is.
pub struct Simulation {
    /// What this run is: a scenario or a replay, with its what-if and fixes.
    run: Run,
    /// The run's title ([`Run::name`]).
    pub name: String,
    setup: Arc<Setup>,
    task: Option<Task<SimMsg>>,
    pub outcome: Outcome,
    pub timeline: Timeline,
    pub diagnosis: Option<Diagnosis>,
    /// When throttling started and stopped, and why: the timeline's evidence for the tree.
    pub time: Option<TimeEvidence>,
    evidence: Option<Evidence>,
    /// The tree's answers for this scenario: from the timeline, or the user's.
    pub answers: UserAnswers,
    /// The tree's path for the scenario's keys and the answers.
    pub path: Option<Path>,
    /// How far the run has got, in simulated seconds.
    pub done_seconds: u32,
    playing: bool,
    /// Simulated seconds per second of playback.
    speed: f64,
    /// The playhead, in simulated seconds from the start (moved by [`Self::apply`], [`Self::seek`] and, while
    /// playing, [`Self::tick`]).
    pub position: f64,
    last_frame: Option<Instant>,
    /// Colour by the hottest cell of the run (as the Key Visualizers do) instead of by the partition limit.
    relative: bool,
    /// The line chart shows CloudWatch's per-minute view instead of every second.
    per_minute: bool,
    /// The partition range (by its start) picked on the heatmap for the inspector.
    selected: Option<Point>,
    /// What drawing keeps between frames (not the simulation's state; see [`Drawing`]).
    drawing: RefCell<Drawing>,
}

/// What drawing the Timeline keeps between frames, beside the simulation and not part of its state: caches
/// of the run (the heatmap's rows and texture, the line chart's cut-down points), rebuilt from it when it
/// grows, and where the parts were drawn, drawing's output. Drawing takes a `&Simulation` and writes this
/// through its `RefCell`, borrowed once for the whole view in [`timeline_ui`].
#[derive(Default)]
struct Drawing {
    heat: heatmap::Heat,
    lines: charts::Lines,
    rects: Rects,
}

/// Where the Timeline's parts were drawn in the last frame (for tests and for lining the charts up).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rects {
    /// The scenario's name at the top.
    pub title: Option<egui::Rect>,
    /// The top of the charts' block: their legends, above the heatmap.
    pub charts_top: f32,
    /// The bottom of the charts' block: under the line chart's time labels, or of "the table at …" when
    /// that is lower.
    pub charts_bottom: f32,
    /// The heatmap's cells (without its time labels).
    pub heatmap: Option<egui::Rect>,
    /// The seconds the heatmap's width spans (whole columns, so at least the run's duration).
    pub heat_seconds: f64,
    /// The line chart's frame (inside its axes).
    pub throughput: Option<egui::Rect>,
    /// The line chart's x bounds, in seconds.
    pub throughput_bounds: (f64, f64),
    /// "The table at …": from its title to the bottom of its bars' plot.
    pub snapshot: Option<egui::Rect>,
}

impl Rects {
    /// The x of second `t` on the heatmap.
    pub fn heatmap_x(&self, t: f64) -> Option<f32> {
        let r = self.heatmap?;
        Some(r.left() + (t / self.heat_seconds.max(1.0)) as f32 * r.width())
    }

    /// The x of second `t` on the line chart.
    pub fn throughput_x(&self, t: f64) -> Option<f32> {
        let r = self.throughput?;
        let (a, b) = self.throughput_bounds;
        Some(r.left() + ((t - a) / (b - a).max(1e-9)) as f32 * r.width())
    }
}

impl Simulation {
    /// Starts computing `run` in the background. A replay with CloudWatch's minutes starts on the per-minute
    /// view, where they are drawn beside the modelled ones.
    pub fn start(ctx: &egui::Context, run: Run) -> Result<Self, TaskError> {
        let setup = Arc::new(run.setup());
        let lsi = setup.table.lsi;
        let per_minute = run.replay().is_some_and(|r| !r.observed.is_empty());
        let computed = Arc::clone(&setup);
        let task = Task::spawn("simulate", ctx, 8, move |r: &Reporter<SimMsg>| {
            let keys = key_set(&computed);
            let view = crate::model::ViewSettings::default();
            let mut evidence = crate::model::report(&keys, &view).evidence;
            // The scenario's sort keys say what loaded sort keys would: one item, or a collection.
            if let Some((key, _, _)) = &evidence.top_key {
                evidence.top_key_items = crate::model::simulate::sort_key_facts(&computed, key);
            }
            // A replay's stand-in keys (CloudWatch's minutes alone) are never evidence about the keys.
            let top = evidence.top_key.as_ref().map(|k| k.0.as_str());
            evidence.keys_unknown = crate::model::simulate::stand_in_keys_note(&computed, top);
            r.send(SimMsg::Keys(Box::new(evidence)));
            let result = run_streaming(&computed, &mut |chunk| {
                r.send(SimMsg::Chunk(Box::new(chunk))) && !r.cancelled()
            });
            if let Some((outcome, timeline)) = result {
                let diagnosis = diagnose(&computed, &outcome, &timeline);
                let time = time_evidence(&computed, &outcome, &timeline);
                r.send(SimMsg::Done(Box::new((diagnosis, time))));
            }
        })?;
        Ok(Self {
            name: run.name(),
            run,
            setup,
            task: Some(task),
            outcome: Outcome::default(),
            timeline: Timeline::default(),
            diagnosis: None,
            time: None,
            evidence: None,
            answers: UserAnswers {
                has_lsi: Some(lsi),
                ..UserAnswers::default()
            },
            path: None,
            done_seconds: 0,
            playing: false,
            speed: 60.0,
            position: 0.0,
            last_frame: None,
            relative: false,
            per_minute,
            selected: None,
            drawing: RefCell::default(),
        })
    }

    /// Where the view's parts were drawn in the last frame.
    pub fn rects(&self) -> Rects {
        self.drawing.borrow().rects
    }

    /// Whether the playhead moves.
    pub fn playing(&self) -> bool {
        self.playing
    }

    /// Simulated seconds per second of playback.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Whether the heatmap is coloured by the run's hottest cell rather than the partition limit.
    pub fn relative(&self) -> bool {
        self.relative
    }

    /// Whether the line chart shows CloudWatch's per-minute view.
    pub fn per_minute(&self) -> bool {
        self.per_minute
    }

    /// The partition range (by its start) picked for the inspector, if any.
    pub fn selected(&self) -> Option<Point> {
        self.selected
    }

    /// Applies what the view's controls asked for: the one place a click changes the simulation.
    pub fn apply(&mut self, command: TimelineCommand) {
        match command {
            TimelineCommand::TogglePlay => self.toggle_play(),
            TimelineCommand::Speed(speed) => self.speed = speed,
            TimelineCommand::Seek(t) => self.seek(t),
            TimelineCommand::Show { t, partition } => {
                self.seek(t);
                self.playing = false;
                if partition.is_some() {
                    self.selected = partition;
                }
            }
            TimelineCommand::Relative(relative) => self.relative = relative,
            TimelineCommand::PerMinute(per_minute) => self.per_minute = per_minute,
            TimelineCommand::Pick(partition) => self.selected = partition,
            // A new run: the app starts it (`App::what_if`).
            TimelineCommand::WhatIf(_) => {}
        }
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// How this run says its seconds: real UTC times for a replayed trace.
    pub fn clock(&self) -> Clock {
        Clock::of(&self.setup)
    }

    /// The replay's parts, when this run replays a trace.
    pub fn replay(&self) -> Option<&Replay> {
        self.run.replay()
    }

    /// What this run is (what Undo, a What if, the tree's fix and Save scenario start from).
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// A scenario's story (empty for a replay).
    pub fn description(&self) -> &str {
        self.run.description()
    }

    /// A live watch's replay once the watch has ended: its title stops saying "(watching)".
    pub fn watch_ended(&mut self) {
        if let Run::Replay(r) = &mut self.run
            && let Origin::Watch { watching } = &mut r.origin
        {
            *watching = false;
            self.name = self.run.name();
        }
    }

    pub fn observed(&self) -> &[ObservedMinute] {
        self.run.replay().map_or(&[], |r| &r.observed)
    }

    pub fn duration(&self) -> u32 {
        self.setup.duration
    }

    /// Whether the run is still being computed.
    pub fn running(&self) -> bool {
        self.task.is_some()
    }

    /// Per frame, before drawing: appends what the run sent, and moves the playhead.
    pub fn tick(&mut self, now: Instant) {
        self.drain();
        self.advance(now);
    }

    /// Appends what the run sent since the last frame.
    fn drain(&mut self) {
        let Some(task) = &mut self.task else {
            return;
        };
        let msgs = task.drain();
        let finished = task.finished();
        for msg in msgs {
            match msg {
                SimMsg::Chunk(chunk) => {
                    self.done_seconds = chunk.done_seconds;
                    self.outcome.push(&chunk);
                    self.timeline.push(*chunk);
                }
                SimMsg::Keys(evidence) => {
                    self.evidence = Some(*evidence);
                    self.answer(None);
                }
                SimMsg::Done(done) => {
                    let (mut diagnosis, mut time) = *done;
                    self.reconcile(&mut diagnosis, &mut time);
                    self.diagnosis = Some(diagnosis);
                    self.done_seconds = self.setup.duration;
                    self.time = Some(time);
                    self.answer(None);
                }
            }
        }
        if finished {
            self.task = None;
        }
    }

    /// Sets an answer of the tree (`None`: only re-evaluates) and walks it again, with the throttling
    /// CloudWatch observed when this run replays a trace with its minutes.
    pub fn answer(&mut self, answer: Option<(crate::model::decision::Question, Option<bool>)>) {
        if let Some((q, a)) = answer {
            self.answers.set(q, a);
        }
        if let Some(e) = &self.evidence {
            let observed = self.agreement().map(|a| a.observed_total);
            let e = Evidence {
                observed_throttling: observed.or(e.observed_throttling),
                ..e.clone()
            };
            self.path = Some(evaluate(&e, &self.answers));
        }
    }

    /// CloudWatch's throttle events beside the model's, on whole UTC minutes, when this run replays a trace
    /// with CloudWatch's minutes (a few hundred minutes at most: cheap to compute when asked).
    pub fn agreement(&self) -> Option<crate::model::simulate::Agreement> {
        let replay = self.run.replay()?;
        let events = ObservedMinute::events(&replay.observed);
        (!events.is_empty())
            .then(|| crate::model::simulate::agreement(&self.setup, &self.outcome, &events))
    }

    /// Makes the run's words (and its "over time" evidence) say what CloudWatch observed beside what the
    /// model throttles.
    fn reconcile(&self, d: &mut Diagnosis, time: &mut TimeEvidence) {
        if let Some(a) = self.agreement() {
            let keys_known = !self
                .setup
                .trace
                .as_ref()
                .is_some_and(|t| t.only_stand_ins());
            crate::model::simulate::reconcile(d, &self.setup, &a, keys_known);
            crate::model::simulate::reconcile_time(time, &a);
        }
    }

    /// Moves the playhead while playing (stopping at what has been computed, and at the end).
    fn advance(&mut self, now: Instant) {
        let last = self.last_frame.replace(now);
        if !self.playing {
            return;
        }
        if let Some(last) = last {
            let dt = now.saturating_duration_since(last).as_secs_f64().min(0.25);
            self.position += dt * self.speed;
        }
        let end = f64::from(self.duration().saturating_sub(1));
        let limit = f64::from(self.done_seconds.saturating_sub(1)).min(end);
        if self.position >= limit {
            self.position = limit.max(0.0);
            if self.task.is_none() {
                self.playing = false;
            }
        }
    }

    /// The playhead as a whole second.
    pub fn second(&self) -> u32 {
        self.position.max(0.0) as u32
    }

    pub fn seek(&mut self, t: u32) {
        self.position = f64::from(t.min(self.duration().saturating_sub(1)));
    }

    /// Play from the start again when at the end; else toggle.
    pub fn toggle_play(&mut self) {
        if !self.playing && self.second() + 1 >= self.duration() {
            self.position = 0.0;
        }
        self.playing = !self.playing;
        self.last_frame = None;
    }
}

impl Drop for Simulation {
    fn drop(&mut self) {
        if let Some(task) = &self.task {
            task.cancel();
        }
    }
}

/// `hh:mm:ss` of a simulated second (with days for runs over a day).
pub fn clock(t: u32) -> String {
    let (d, h, m, s) = (t / 86_400, t / 3_600 % 24, t / 60 % 60, t % 60);
    if d > 0 {
        format!("{d}d {h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

/// The step between time labels on the Timeline's shared axis: a clock-friendly number of seconds, at
/// least `min_px` apart on an axis `width` px wide spanning `span` seconds.
/// The first time mark of a time axis stepped by `step` seconds: 0 for a scenario, and for a replay the first
/// second on a whole multiple of the step in UTC (a replay from 10:00:20 marks 10:00:30, 10:01:00, … rather
/// than 10:00:20, 10:00:50, …), so the marks fall on whole UTC minutes as its per-minute points do.
pub(super) fn first_mark(setup: &Setup, step: f64) -> f64 {
    if setup.trace.is_none() || step < 1.0 {
        return 0.0;
    }
    let step = step as i64;
    ((step - setup.start.rem_euclid(step)) % step) as f64
}

pub(super) fn time_step(span: f64, width: f32, min_px: f32) -> f64 {
    const STEPS: [f64; 19] = [
        1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1_800.0, 3_600.0,
        7_200.0, 10_800.0, 21_600.0, 43_200.0, 86_400.0, 172_800.0,
    ];
    let per_px = span / f64::from(width.max(1.0));
    STEPS
        .into_iter()
        .find(|s| s / per_px >= f64::from(min_px))
        .unwrap_or_else(|| (span / 4.0 / 86_400.0).ceil().max(1.0) * 86_400.0)
}

/// The whole view: headline and findings, the playback bar, the heatmap, the line chart under it on the same
/// time axis (one playhead through both), and the table at the playhead. Returns the rectangle of the chart
/// block (what Export chart as PNG saves); what its controls ask for goes into `commands`, for the app to
/// apply after drawing.
///
/// The words come first; the charts share what is left of the panel's height, so the words never squeeze the
/// heatmap off screen; below a floor the view scrolls. `compact` (presentation mode) puts the headline and
/// the table beside the time charts ([`side_by_side_ui`]) and folds the findings and the colour and metric
/// choices into menus on the playback row.
pub fn timeline_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    compact: bool,
    commands: &mut Vec<super::Command>,
) -> egui::Rect {
    if sim.playing || sim.running() {
        ui.ctx().request_repaint();
    }
    let mut drawing = sim.drawing.borrow_mut();
    let d = &mut *drawing;
    let mut out = Vec::new();
    let total = ui.available_height();
    let rect = egui::ScrollArea::vertical()
        .id_salt("timeline")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.scope(|ui| {
                let top = ui.cursor().top();
                // A replay's What if row first, where nothing above it changes: under the headline it
                // moved down a line when the findings came, and a click aimed at it missed. On a
                // projector it folds into a menu on the playback row.
                if !compact {
                    what_if_ui(ui, sim, &mut out);
                }
                charts::headline_ui(ui, sim, &mut d.rects, compact, &mut out);
                playback_ui(ui, sim, compact, &mut out);
                d.rects.charts_top = ui.cursor().top();
                // On a projector the legends are in the "Legend" menu: their two
                // wrapped rows would take the charts' height.
                if !compact {
                    heatmap::legend_ui(ui, sim.relative);
                    charts::throughput_legend_ui(ui, sim);
                }
                let row =
                    ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
                let left = total - (ui.cursor().top() - top);
                if compact {
                    side_by_side_ui(ui, sim, d, left, &mut out);
                    return;
                }
                // What is left for the three charts, less the rows between and under them (the line chart's
                // time labels, the events' header, the table's title and legend).
                let words = 4.0 * row + ui.spacing().interact_size.y;
                let room = left - words - 8.0;
                let heat_top = ui.cursor().top();
                heatmap::heatmap_ui(ui, sim, d, (room * 0.4).max(140.0), &mut out);
                charts::throughput_ui(ui, sim, d, (room * 0.22).max(100.0), false, &mut out);
                playhead_ui(ui, sim, &d.rects, heat_top);
                let rest = total - (ui.cursor().top() - top) - row - 8.0;
                charts::snapshot_ui(ui, sim, &mut d.rects, rest.max(190.0), &mut out);
                d.rects.charts_bottom = ui.min_rect().bottom();
            })
            .response
            .rect
        })
        .inner;
    commands.extend(out.into_iter().map(super::Command::Timeline));
    rect
}

/// Presentation mode's charts: the heatmap over the line chart (one time axis) on the left; the headline,
/// the findings (wrapped whole) and "the table at …" beside them on the right; all in the `height` left
/// under the title and the playback row. At a projector's 1024×768 the time charts get the block's full
/// height and nothing is cut mid-line (stacked, three charts and two cut findings had ~100 px each).
fn side_by_side_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    d: &mut Drawing,
    height: f32,
    out: &mut Vec<TimelineCommand>,
) {
    let sp = ui.spacing().item_spacing;
    let height = (height - sp.y).max(330.0);
    let width = ui.available_width();
    let side_w = (width * 0.36).clamp(300.0, 560.0);
    // The two columns and the space egui puts between them (plus a gap) fill the width.
    let charts_w = (width - side_w - 3.0 * sp.x).max(200.0);
    let line = (height * 0.3).clamp(110.0, 220.0);
    let heat = height - line - 2.0 * sp.y;
    let layout = egui::Layout::top_down(egui::Align::Min);
    let block = ui.horizontal_top(|ui| {
        ui.allocate_ui_with_layout(egui::vec2(charts_w, height), layout, |ui| {
            ui.set_width(charts_w);
            let heat_top = ui.cursor().top();
            heatmap::heatmap_ui(ui, sim, d, heat.max(120.0), out);
            charts::throughput_ui(ui, sim, d, line, true, out);
            playhead_ui(ui, sim, &d.rects, heat_top);
        });
        ui.add_space(sp.x);
        ui.allocate_ui_with_layout(egui::vec2(side_w, height), layout, |ui| {
            ui.set_width(side_w);
            let top = ui.cursor().top();
            charts::words_ui(ui, sim);
            ui.add_space(sp.y);
            let rest = height - (ui.cursor().top() - top);
            charts::snapshot_ui(ui, sim, &mut d.rects, rest.max(200.0), out);
        });
    });
    d.rects.charts_bottom = block.response.rect.bottom();
}

/// One playhead, through the heatmap and the line chart (which map the same second to the same x).
fn playhead_ui(ui: &egui::Ui, sim: &Simulation, rects: &Rects, top: f32) {
    let (Some(x), Some(line)) = (rects.heatmap_x(sim.position), rects.throughput) else {
        return;
    };
    ui.painter().line_segment(
        [egui::pos2(x, top), egui::pos2(x, line.bottom())],
        egui::Stroke::new(2.0, ui.visuals().strong_text_color()),
    );
}

/// Play/pause, speed, the scrubber, and the colour and metric choices.
fn playback_ui(ui: &mut egui::Ui, sim: &Simulation, compact: bool, out: &mut Vec<TimelineCommand>) {
    ui.horizontal_wrapped(|ui| {
        let label = if sim.playing { "Pause" } else { "Play" };
        if ui.button(label).clicked() {
            out.push(TimelineCommand::TogglePlay);
        }
        let speed_label = ui.label("Speed");
        let mut speed = sim.speed;
        egui::ComboBox::from_id_salt("timeline-speed")
            .selected_text(format!("{}×", sim.speed))
            .show_ui(ui, |ui| {
                for s in SPEEDS {
                    if ui
                        .selectable_value(&mut speed, s, format!("{s}×"))
                        .changed()
                    {
                        out.push(TimelineCommand::Speed(s));
                    }
                }
            })
            .response
            .labelled_by(speed_label.id);
        let end = sim.duration().saturating_sub(1);
        let mut t = sim.second();
        // On a projector the row's text is larger: a shorter scrubber keeps the row on one line at 1024 px.
        // On a projector the row also holds Findings, Legend (and a replay's What if): a shorter scrubber
        // keeps them on the one row at 1024 px.
        let slider_max = match (compact, sim.replay().is_some()) {
            (true, true) => 200.0,
            (true, false) => 260.0,
            (false, _) => 420.0,
        };
        let time_label = ui.label("Time");
        let slider = egui::Slider::new(&mut t, 0..=end)
            .show_value(false)
            .trailing_fill(true);
        if ui
            .add_sized(
                [ui.available_width().clamp(120.0, slider_max), 18.0],
                slider,
            )
            .labelled_by(time_label.id)
            .changed()
        {
            out.push(TimelineCommand::Seek(t));
        }
        // "00:08:12 / 00:30:00"; a replay's "10:08:12 / 10:30:00 UTC" (the zone once). A replay on a
        // projector says the playhead's time only (the axis shows the span), so its row fits 1024 px.
        if compact && sim.replay().is_some() {
            ui.monospace(sim.clock().at(sim.second()));
        } else {
            ui.monospace(format!(
                "{} / {}",
                sim.clock().axis(sim.second()),
                sim.clock().at(sim.duration())
            ));
        }
        if compact {
            charts::findings_menu_ui(ui, sim, out);
            what_if_menu_ui(ui, sim, out);
            ui.menu_button("Legend", |ui| {
                choices_ui(ui, sim, out);
                ui.separator();
                heatmap::legend_ui(ui, sim.relative);
                charts::throughput_legend_ui(ui, sim);
            });
        } else {
            ui.separator();
            choices_ui(ui, sim, out);
        }
    });
}

/// The colour scale and the line chart's resolution.
fn choices_ui(ui: &mut egui::Ui, sim: &Simulation, out: &mut Vec<TimelineCommand>) {
    let mut relative = sim.relative;
    let absolute = ui
        .radio_value(&mut relative, false, "Absolute")
        .on_hover_text("Red at 100 % of a partition's limit (3,000 RCU or 1,000 WCU)");
    let rel = ui
        .radio_value(&mut relative, true, "Relative")
        .on_hover_text("Red at the run's hottest cell, as the Key Visualizers colour");
    if absolute.changed() || rel.changed() {
        out.push(TimelineCommand::Relative(relative));
    }
    ui.separator();
    let mut per_minute = sim.per_minute;
    let second = ui.radio_value(&mut per_minute, false, "Per second");
    let minute = ui.radio_value(&mut per_minute, true, "Per minute (CloudWatch)");
    if second.changed() || minute.changed() {
        out.push(TimelineCommand::PerMinute(per_minute));
    }
}

/// Presentation mode's one-line path through the tree, for the simulated scenario.
pub fn path_strip_ui(ui: &mut egui::Ui, sim: &Simulation) -> Option<super::Command> {
    let path = sim.path.as_ref()?;
    scenario_command(super::decision_ui::path_strip_ui(ui, path, &sim.answers)?)
}

/// A tree command about the scenario: answers stay with the simulation, the fix re-runs it sharded.
fn scenario_command(c: super::Command) -> Option<super::Command> {
    use super::Command;
    Some(match c {
        Command::Answer(q, a) => Command::SimulationAnswer(q, a),
        Command::Apply(action) => Command::ShardSimulation(action),
        other => other,
    })
}

/// The decision tree for the simulated scenario's keys, with what the timeline showed: the answers it gives
/// and the fix, which runs the scenario again write-sharded.
pub fn tree_ui(ui: &mut egui::Ui, sim: &Simulation) -> Option<super::Command> {
    ui.label(egui::RichText::new("Over time").strong());
    match &sim.time {
        Some(t) => ui.label(&t.text),
        None => ui.weak("the timeline's evidence comes when the run is done"),
    };
    ui.separator();
    let path = sim.path.as_ref()?;
    scenario_command(super::decision_ui::decision_ui(ui, path, &sim.answers)?)
}
