//! The Timeline view: a time simulation ([`crate::model::simulate`]) played like a video. A heatmap of time
//! (x) × partition in hash-range order (y), a line chart of demand, served and throttled units with the
//! run's events, diagnostics in words above them (as Bigtable's Key Visualizer puts them), and "the table at
//! 00:08:12": the partitions at the scrubber's second as bars, and the selected partition in the inspector.
//!
//! The simulation runs on a [`Task`] and streams [`Chunk`]s, so the first minutes show while a long run is
//! still being computed; the frame only appends them and draws. The heatmap is one texture (not thousands of
//! shapes), filled column by column as chunks arrive (`heatmap`).

mod charts;
mod heatmap;

use std::sync::Arc;
use std::time::Instant;

use super::tasks::{Reporter, Task, TaskError};
use crate::model::decision::{Evidence, Path, UserAnswers, evaluate};
use crate::model::simulate::{
    Chunk, Diagnosis, Outcome, Point, Setup, TimeEvidence, Timeline, diagnose, key_set,
    run_streaming, time_evidence,
};

pub use charts::inspector_ui;

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
    pub name: String,
    pub description: String,
    /// The scenario's TOML, for File > Save scenario.
    pub toml: String,
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
    pub playing: bool,
    /// Simulated seconds per second of playback.
    pub speed: f64,
    /// The playhead, in simulated seconds from the start.
    pub position: f64,
    last_frame: Option<Instant>,
    /// Colour by the hottest cell of the run (as the Key Visualizers do) instead of by the partition limit.
    pub relative: bool,
    /// The line chart shows CloudWatch's per-minute view instead of every second.
    pub per_minute: bool,
    /// The partition range (by its start) picked on the heatmap for the inspector.
    pub selected: Option<Point>,
    heat: heatmap::Heat,
    lines: charts::Lines,
}

impl Simulation {
    /// Starts running `setup` in the background.
    pub fn start(
        ctx: &egui::Context,
        scenario: crate::model::sim_file::Scenario,
        toml: String,
    ) -> Result<Self, TaskError> {
        let crate::model::sim_file::Scenario {
            name,
            description,
            setup,
            ..
        } = scenario;
        let lsi = setup.table.lsi;
        let setup = Arc::new(setup);
        let run = Arc::clone(&setup);
        let task = Task::spawn("simulate", ctx, 8, move |r: &Reporter<SimMsg>| {
            let keys = key_set(&run);
            let view = crate::model::ViewSettings::default();
            let mut evidence = crate::model::report(&keys, &view).evidence;
            // The scenario's sort keys say what loaded sort keys would: one item, or a collection.
            if let Some((key, _, _)) = &evidence.top_key {
                evidence.top_key_items = crate::model::simulate::sort_key_facts(&run, key);
            }
            r.send(SimMsg::Keys(Box::new(evidence)));
            let result = run_streaming(&run, &mut |chunk| {
                r.send(SimMsg::Chunk(Box::new(chunk))) && !r.cancelled()
            });
            if let Some((outcome, timeline)) = result {
                let diagnosis = diagnose(&run, &outcome, &timeline);
                let time = time_evidence(&run, &outcome, &timeline);
                r.send(SimMsg::Done(Box::new((diagnosis, time))));
            }
        })?;
        Ok(Self {
            name,
            description,
            toml,
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
            per_minute: false,
            selected: None,
            heat: heatmap::Heat::default(),
            lines: charts::Lines::default(),
        })
    }

    pub fn setup(&self) -> &Setup {
        &self.setup
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
                    let (diagnosis, time) = *done;
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

    /// Sets an answer of the tree (`None`: only re-evaluates) and walks it again.
    pub fn answer(&mut self, answer: Option<(crate::model::decision::Question, Option<bool>)>) {
        if let Some((q, a)) = answer {
            self.answers.set(q, a);
        }
        if let Some(e) = &self.evidence {
            self.path = Some(evaluate(e, &self.answers));
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

/// The whole view: headline and findings, the playback bar, the heatmap, the line chart and the table at the
/// playhead. Returns the rectangle of the chart block (what Export chart as PNG saves).
///
/// The charts get shares of the whole panel's height, so words above them never squeeze the heatmap; what does
/// not fit scrolls. `compact` (presentation mode) keeps the words to the headline and two findings.
pub fn timeline_ui(ui: &mut egui::Ui, sim: &mut Simulation, compact: bool) -> egui::Rect {
    if sim.playing || sim.running() {
        ui.ctx().request_repaint();
    }
    let total = ui.available_height();
    egui::ScrollArea::vertical()
        .id_salt("timeline")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.scope(|ui| {
                charts::headline_ui(ui, sim, compact);
                playback_ui(ui, sim);
                heatmap::legend_ui(ui, sim.relative);
                heatmap::heatmap_ui(ui, sim, (total * 0.34).max(120.0));
                charts::throughput_ui(ui, sim, (total * 0.2).max(90.0));
                let rest = ui.available_height() - 4.0;
                charts::snapshot_ui(ui, sim, rest.max(total * 0.2).max(90.0));
            })
            .response
            .rect
        })
        .inner
}

/// Play/pause, speed, the scrubber, and the colour and metric choices.
fn playback_ui(ui: &mut egui::Ui, sim: &mut Simulation) {
    ui.horizontal_wrapped(|ui| {
        let label = if sim.playing { "Pause" } else { "Play" };
        if ui.button(label).clicked() {
            sim.toggle_play();
        }
        let speed_label = ui.label("Speed");
        egui::ComboBox::from_id_salt("timeline-speed")
            .selected_text(format!("{}×", sim.speed))
            .show_ui(ui, |ui| {
                for s in SPEEDS {
                    ui.selectable_value(&mut sim.speed, s, format!("{s}×"));
                }
            })
            .response
            .labelled_by(speed_label.id);
        let end = sim.duration().saturating_sub(1);
        let mut t = sim.second();
        let time_label = ui.label("Time");
        let slider = egui::Slider::new(&mut t, 0..=end)
            .show_value(false)
            .trailing_fill(true);
        if ui
            .add_sized([ui.available_width().clamp(160.0, 420.0), 18.0], slider)
            .labelled_by(time_label.id)
            .changed()
        {
            sim.seek(t);
        }
        ui.monospace(format!(
            "{} / {}",
            clock(sim.second()),
            clock(sim.duration())
        ));
        ui.separator();
        ui.radio_value(&mut sim.relative, false, "Absolute")
            .on_hover_text("Red at 100 % of a partition's limit (3,000 RCU or 1,000 WCU)");
        ui.radio_value(&mut sim.relative, true, "Relative")
            .on_hover_text("Red at the run's hottest cell, as the Key Visualizers colour");
        ui.separator();
        ui.radio_value(&mut sim.per_minute, false, "Per second");
        ui.radio_value(&mut sim.per_minute, true, "Per minute (CloudWatch)");
    });
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
