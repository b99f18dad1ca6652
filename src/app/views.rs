//! The views the window shows: the keys (a chart of their report), the Timeline (a time simulation) and the
//! Key design. [`View`] is chosen once per frame ([`App::view`]) from the chart mode and what the data
//! offers; each part of the layout that differs between views (the decision tree, its one-line strip in
//! presentation mode, the partition inspector, whether the key editor is beside them, the work each frame)
//! asks the view here, in one `match`, instead of asking "which mode are we in" where it draws, as egui's
//! demo app dispatches to the app shown.
//!
//! Each view owns its state, apart from the keys: the Timeline's run, playback and the runs it replaced
//! (`App::timeline`, [`super::runs::TimelineState`]), the Key design's boxes and comparison (`App::design`);
//! the keys' report is the pipeline's. What draws or ticks a view's content asks [`App::showing`], the view
//! with its state ([`Showing`]), so no part can ask for the Timeline without its run. [`View`] stays a plain tag
//! for the layout's questions (the editor beside, the inspector's kind), which the panels ask while they
//! change their own state.

use super::command::Command;
use super::notices::{Activity, Level};
use super::settings::ChartMode;
use super::{App, decision_ui, inspector, timeline};

/// What the keys' chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeysChart {
    /// Writes (or items) per bucket of the teaching hash.
    Buckets,
    /// % of each partition's capacity under the workload.
    Capacity,
    /// Items per data file of a loaded S3 export.
    DataFiles,
}

/// The view on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The keys: a chart of their report, the decision tree, the partition inspector, the key editor.
    Keys(KeysChart),
    /// A time simulation played: its heatmap and charts, its tree (with what the run showed), the partition
    /// at the playhead.
    Timeline,
    /// Candidate keys over the same items.
    Design,
}

/// The view on screen with its state: what draws or ticks a view's content matches on this.
#[derive(Clone, Copy)]
pub enum Showing<'a> {
    Keys(KeysChart),
    Timeline(&'a timeline::Simulation),
    Design(&'a super::design::DesignState),
}

impl View {
    /// The view of a chart mode (as [`App::chart_mode`] resolves it against what the data offers).
    pub fn of(mode: ChartMode) -> Self {
        match mode {
            ChartMode::Writes => Self::Keys(KeysChart::Buckets),
            ChartMode::Capacity => Self::Keys(KeysChart::Capacity),
            ChartMode::DataFiles => Self::Keys(KeysChart::DataFiles),
            ChartMode::Timeline => Self::Timeline,
            ChartMode::Designs => Self::Design,
        }
    }

    /// The chart mode the view's radio button stands for.
    pub fn mode(self) -> ChartMode {
        match self {
            Self::Keys(KeysChart::Buckets) => ChartMode::Writes,
            Self::Keys(KeysChart::Capacity) => ChartMode::Capacity,
            Self::Keys(KeysChart::DataFiles) => ChartMode::DataFiles,
            Self::Timeline => ChartMode::Timeline,
            Self::Design => ChartMode::Designs,
        }
    }

    /// The key editor stands beside the view (the Timeline is about the scenario, not the editor's keys: it
    /// gets the room).
    pub fn shows_editor(self) -> bool {
        self != Self::Timeline
    }

    /// The partition inspector lists the keys' buckets (the Timeline's shows the partition at the playhead).
    pub fn inspects_keys(self) -> bool {
        self != Self::Timeline
    }
}

impl App {
    /// The view on screen this frame.
    pub fn view(&self) -> View {
        View::of(self.chart_mode())
    }

    /// The view on screen with its state. The chart mode offers the Timeline only with a run; should it ever
    /// not have one, the keys' chart is shown.
    pub fn showing(&self) -> Showing<'_> {
        match self.view() {
            View::Keys(chart) => Showing::Keys(chart),
            View::Timeline => self
                .timeline
                .sim
                .as_ref()
                .map_or(Showing::Keys(KeysChart::Buckets), Showing::Timeline),
            View::Design => Showing::Design(&self.design),
        }
    }

    /// The editor and the tree beside the chart (presentation mode hides them until asked).
    pub(super) fn side_panels_shown(&self) -> bool {
        !self.settings.presentation || self.panels.show_side
    }

    /// The view's decision tree: the scenario's (with what the run showed) or the keys'.
    pub(super) fn tree_ui(&self, ui: &mut egui::Ui) -> Option<Command> {
        match self.showing() {
            Showing::Timeline(sim) => timeline::tree_ui(ui, sim),
            Showing::Keys(_) | Showing::Design(_) => {
                let path = self.pipeline.path.as_ref()?;
                decision_ui::decision_ui(ui, path, &self.pipeline.answers)
            }
        }
    }

    /// Presentation mode's one-line path through the view's tree, with its fix.
    pub(super) fn path_strip_ui(&self, ui: &mut egui::Ui) -> Option<Command> {
        match self.showing() {
            Showing::Timeline(sim) => timeline::path_strip_ui(ui, sim),
            Showing::Keys(_) | Showing::Design(_) => {
                let path = self.pipeline.path.as_ref()?;
                decision_ui::path_strip_ui(ui, path, &self.pipeline.answers)
            }
        }
    }

    /// The view's partition inspector: the partition at the Timeline's playhead, or the keys' buckets.
    pub(super) fn inspector_ui(&mut self, ui: &mut egui::Ui) {
        let noun = self.noun();
        match self.showing() {
            Showing::Timeline(sim) => timeline::inspector_ui(ui, sim),
            Showing::Keys(_) | Showing::Design(_) => {
                if let Some(shown) = &self.pipeline.current {
                    let live = self.data.live();
                    inspector::inspector_ui(ui, &mut self.panels.inspector, shown, noun, live);
                }
            }
        }
    }

    /// The view's work each frame that is not drawing: the inspector's lists and Table health's report while
    /// they are on screen, the Key design's comparison while it is shown (else only its results in).
    pub(super) fn view_tick(&mut self, ctx: &egui::Context) {
        // A watch's newest trace waits for the Timeline to be shown.
        self.replay_watch(false);
        let view = self.view();
        if view.inspects_keys()
            && self.side_panels_shown()
            && let Some(shown) = &self.pipeline.current
            && let Err(e) = self.panels.inspector.tick(ctx, shown)
        {
            self.panels.inspector.failed(&e);
        }
        // Table health beside the inspector: its report while it is open and on screen.
        let on_screen = view.inspects_keys() && self.side_panels_shown();
        let has_lsi = self.pipeline.answers.has_lsi.unwrap_or(false);
        if let Err(e) = self.panels.health.tick(
            ctx,
            self.pipeline.current.as_ref().filter(|_| on_screen),
            has_lsi,
            &self.design,
        ) {
            self.panels.health.failed(&e);
        }
        if view != View::Design {
            self.design.drain();
            return;
        }
        let settings = self.settings.view();
        match self.design.tick(
            ctx,
            self.pipeline.current.as_ref(),
            &settings,
            &self.pipeline.answers,
        ) {
            Ok(Some(wait)) => ctx.request_repaint_after(wait),
            Ok(None) => {}
            Err(e) => self.notify(Activity::Keys, Level::Error, e.to_string()),
        }
    }
}
