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
mod table;
mod view;

use std::cell::RefCell;
use std::sync::Arc;
use web_time::Instant;

use super::tasks::{Reporter, Task, TaskError};
use crate::model::capacity::ThrottleResource;
use crate::model::decision::{Evidence, Path, UserAnswers, evaluate};
use crate::model::simulate::{
    Chunk, Diagnosis, Outcome, Point, Setup, TimeEvidence, Timeline, diagnose, run_streaming,
    time_evidence,
};
use crate::source::trace::ObservedMinute;

pub use super::command::TimelineCommand;
pub use super::what_if::WhatIf;
pub use replay::Clock;

pub use run::{Origin, Replay, Run, Saved, ScenarioRun, ShardFix};
pub use table::inspector_ui;
pub use view::{path_strip_ui, timeline_ui, tree_ui};

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
            let evidence = crate::model::simulate::key_evidence(&computed);
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
            let e = match self.agreement() {
                Some(a) => a.evidence(e, ThrottleResource::Table),
                None => e.clone(),
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
