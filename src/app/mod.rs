//! The desktop app (eframe/egui): key editor, live bucket histogram, shard toggle, decision tree, partition
//! inspector, and the Timeline of a time simulation.
//!
//! Split by role, as rerun's viewer is: this file holds the [`App`] struct (its state grouped by role), its
//! construction and accessors and `impl eframe::App`; `logic` the per-frame work that does not draw (draining
//! background results, shortcuts, recomputation); `command_handling` applying [`Command`]s (examples, fixes,
//! dialogs, exports, sessions); `data` the one owner of the key set and its facts, whose doors `key_changes` calls (replace,
//! type, undo); `ui`
//! the layout, one function per panel; `assets` the icon and fonts.
//! Panels draw from plain state and return [`Command`]s ([`command`]), which the app applies after drawing;
//! no drawing code writes the app's fields. Work that is not drawing (parsing, bucketing large key sets,
//! inspector queries, file I/O, scans, simulations) runs as [`tasks::Task`]s.

pub mod command;
pub mod connect;
pub mod controls;
pub mod decision_ui;
pub mod design;
pub mod dialogs;
pub mod editor;
pub mod error;
pub mod health;
pub mod histogram;
pub mod inspector;
pub mod jobs;
pub mod live;
pub mod messages;
pub mod notices;
pub mod settings;
pub mod table_picker;
pub mod tasks;
pub mod theme;
pub mod timeline;
/// The page: the app in a browser (wasm32 builds only; docs/web.md).
#[cfg(target_arch = "wasm32")]
pub mod web;
#[cfg(target_arch = "wasm32")]
pub mod workers;

mod assets;
mod chart_words;
mod command_handling;
mod data;
mod embed;
mod file_action;
mod key_changes;
mod links;
mod live_logic;
mod logic;
mod pipeline;
mod queries;
mod runs;
mod status;
mod ui;
mod views;
mod what_if;

pub use assets::icon;
use assets::install_fallback_fonts;
pub use command::{Command, UICommand};
use data::Data;
pub use data::Keys;
use pipeline::Pipeline;
use theme::set_presentation_style;

use std::path::PathBuf;

use crate::model::decision::{Path, UserAnswers};
use crate::model::examples::keys::KeyExample;
use crate::model::{KeySet, KeyType, Report};
use crate::source::{Group, LoadOptions, Source};
use jobs::Jobs;
use notices::{Activity, Level, Notices};
use settings::{ChartMode, Settings};
use tasks::{Task, TaskSet};

pub const APP_ID: &str = "io.github.shardlens.Shardlens";
/// A scan that has heard nothing from DynamoDB for this long says so.
const SCAN_QUIET_SECS: u64 = 4;

/// Results of file dialogs and exports, which run off the UI thread.
enum Outcome {
    /// A path of keys to load (checked; the load reads it).
    OpenKeys(PathBuf),
    /// Files given to the page (picked or dropped): one file's bytes, or several files or a folder's together
    /// ([`crate::source::open::Input::Files`]), and what they are opened as.
    #[cfg_attr(
        not(target_arch = "wasm32"),
        allow(dead_code, reason = "a page's files: the desktop's have paths")
    )]
    Open(crate::source::open::Input, crate::source::open::Expect),
    /// What [`crate::source::open`] read from a path: a session, a scenario, a trace.
    Opened(PathBuf, Box<crate::source::open::Opened>),
    Saved(Result<String, dialogs::FileError>),
    /// A file dialog closed without a choice.
    Nothing,
    /// The in-app path field: no dialog could open, or its typed path worked or did not.
    Path(dialogs::Reply),
    /// How far the read of a trace is: its path, the bytes got through, and when it started.
    TraceProgress(PathBuf, crate::source::Progress, web_time::Instant),
}

/// Everything running off the UI thread.
pub(crate) struct Background {
    jobs: Jobs,
    scan: Option<connect::ScanJob>,
    scan_heard_at: Option<web_time::Instant>,
    /// A table's live traffic: a watch of its writes, a read of its last hours of metrics.
    live: live_logic::LiveJobs,
    load_progress: Option<crate::source::Progress>,
    /// The trace being read (File > Open trace…), how far, since when; `None` once it is read or failed.
    trace_progress: Option<(PathBuf, crate::source::Progress, web_time::Instant)>,
    /// File dialogs and what they do with the chosen file.
    dialogs: TaskSet<Outcome>,
    /// Export chart as PNG: the screenshot arrives in a later frame; its save dialog's task comes back here.
    screenshots: TaskSet<Result<Task<Outcome>, tasks::TaskError>>,
}

/// What the panels keep between frames.
pub(crate) struct Panels {
    editor: editor::EditorState,
    inspector: inspector::InspectorState,
    /// Table health beside the inspector: open or not, and its report.
    health: health::HealthState,
    connect: connect::ConnectState,
    /// The tables of a loaded file that holds several, to pick one ([`table_picker`]).
    table_picker: Option<table_picker::TablePicker>,
    /// Native file dialogs, and the path field when none can open.
    dialogs: dialogs::Dialogs,
    /// File > Open link…'s window.
    open_link: links::OpenLinkState,
    /// The article widget (`index.html?embed`) instead of the whole app.
    embed: bool,
    /// Presentation mode shows the side panels (hidden by default, so the chart is the hero).
    show_side: bool,
    chart_rect: Option<egui::Rect>,
    /// Export chart in Key design: the frames left that draw the histograms alone: an area's first frame only
    /// sizes it, the second asks for the screenshot, and the third is drawn too (eframe reads the pixels of
    /// the frame it renders after the request).
    design_export: u8,
    /// The first window was fitted to the screen.
    fitted: bool,
    shown_title: String,
}

pub struct App {
    /// What is remembered between runs and saved in sessions.
    pub(crate) settings: Settings,
    pub(crate) data: Data,
    /// The Timeline's run and the runs it replaced.
    pub(crate) timeline: runs::TimelineState,
    /// The Key design view: candidate keys over the items' attributes.
    pub(crate) design: design::DesignState,
    pub(crate) pipeline: Pipeline,
    pub(crate) background: Background,
    pub(crate) panels: Panels,
    pub(crate) notices: Notices,
    /// Stored settings this shardlens could not use (unreadable, or a newer one's): written back under
    /// [`BAD_SETTINGS_KEY`] at the next save, so they are not lost.
    bad_settings: Option<String>,
    ctx: egui::Context,
}

/// Where stored settings this shardlens could not use are kept (beside [`crate::source::app_state::SETTINGS_KEY`]).
pub const BAD_SETTINGS_KEY: &str = "app.bad";

impl App {
    /// The app as eframe creates it: settings and last keys restored, or the leaderboard example.
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        // Read here rather than with eframe's `get_value`, which takes unreadable settings for none: they are
        // said, and kept (`save`) under another name (source::app_state).
        let stored = cc
            .storage
            .and_then(|s| s.get_string(crate::source::app_state::SETTINGS_KEY));
        let (settings, bad) = match stored.as_deref().map(Settings::from_ron) {
            None => (None, None),
            Some(Ok(s)) => (Some(s), None),
            Some(Err(e)) => (None, Some(e)),
        };
        install_fallback_fonts(&cc.egui_ctx);
        dialogs::install_log_capture();
        let mut app = Self::with_settings(cc.egui_ctx.clone(), settings);
        if let (Some(error), Some(text)) = (bad, stored) {
            app.notify(
                Activity::File,
                Level::Warning,
                format!(
                    "Your settings {error}: started fresh; the old ones are kept as \"{BAD_SETTINGS_KEY}\" in {}",
                    if cfg!(target_arch = "wasm32") {
                        "this page's storage"
                    } else {
                        "the app's storage file"
                    }
                ),
            );
            app.bad_settings = Some(text);
        }
        app
    }

    /// Says what the start found wrong with the app's storage file and did about it (main.rs checks the file
    /// before eframe opens it: [`crate::source::app_state::check_state_file`]).
    pub fn say_state_note(&mut self, note: &crate::source::app_state::StateNote) {
        self.notify_detailed(
            Activity::File,
            Level::Warning,
            note.words(),
            Some(note.detail()),
        );
    }

    /// The app on a bare context (tests, benchmarks).
    pub fn with_settings(ctx: egui::Context, settings: Option<Settings>) -> Self {
        let restored = settings.is_some();
        let mut settings = settings.unwrap_or_default();
        let last = settings.last_keys.take();
        // The key type is remembered with the keys it reads; the example's keys are strings.
        let (keys, source, key_type) = match last {
            Some(text) if restored && !text.trim().is_empty() => {
                (Keys::Text(text), Source::Paste, settings.key_type)
            }
            _ => (
                Keys::Text(KeyExample::Leaderboard.text()),
                Source::Example(KeyExample::Leaderboard),
                KeyType::S,
            ),
        };
        set_presentation_style(&ctx, settings.presentation);
        let (jobs, worker_error) = Jobs::new(ctx.clone());
        let mut app = Self {
            settings,
            data: Data::new(keys, source, key_type),
            timeline: runs::TimelineState::default(),
            design: design::DesignState::default(),
            pipeline: Pipeline::default(),
            background: Background {
                jobs,
                scan: None,
                scan_heard_at: None,
                live: live_logic::LiveJobs::default(),
                load_progress: None,
                trace_progress: None,
                dialogs: TaskSet::default(),
                screenshots: TaskSet::default(),
            },
            panels: Panels {
                editor: editor::EditorState::default(),
                inspector: inspector::InspectorState::default(),
                health: health::HealthState::default(),
                connect: connect::ConnectState::default(),
                table_picker: None,
                dialogs: dialogs::Dialogs::new(),
                open_link: links::OpenLinkState::default(),
                embed: false,
                show_side: false,
                chart_rect: None,
                design_export: 0,
                fitted: false,
                shown_title: String::new(),
            },
            notices: Notices::default(),
            bad_settings: None,
            ctx,
        };
        if let Some(e) = worker_error {
            app.notify(
                Activity::Keys,
                Level::Error,
                format!("{e}: large key sets are computed on the UI thread"),
            );
        }
        app.recompute();
        app
    }

    pub fn report(&self) -> Option<&Report> {
        self.pipeline.current.as_ref().map(|s| s.report.as_ref())
    }

    /// The chart block on screen (headline, legend, plot with axes, caption): what Export chart as PNG saves.
    pub fn chart_rect(&self) -> Option<egui::Rect> {
        self.panels.chart_rect
    }

    pub fn key_set(&self) -> Option<&KeySet> {
        self.pipeline.current.as_ref().map(|s| s.keys.as_ref())
    }

    /// The keys' report (or the key design's comparison) is being computed: the status bar's spinner.
    pub fn computing(&self) -> bool {
        self.pipeline.computing() || self.data.pending_text().is_some() || self.design.busy()
    }

    /// Whether any work is still under way off the UI thread (or due at the end of this frame): the
    /// compute worker, a load, a scan, a watch or a metrics read, an SDK call, the key design, an inspector list, a simulation, a file
    /// dialog or a screenshot. Tests step until it is false (and nothing asks for a repaint).
    pub fn busy(&self) -> bool {
        self.computing()
            || self.background.jobs.loading().is_some()
            || self.background.scan.is_some()
            || self.background.live.busy()
            || !self.background.dialogs.is_empty()
            || !self.background.screenshots.is_empty()
            || self.panels.design_export > 0
            || self.panels.connect.waiting()
            || self.panels.inspector.pending()
            || self.panels.health.pending()
            || self
                .timeline
                .sim
                .as_ref()
                .is_some_and(timeline::Simulation::running)
    }

    /// The settings as a session or the next run would keep them (the key type is the keys' own, which
    /// [`data::Data`] owns at run time).
    pub fn settings(&self) -> Settings {
        Settings {
            key_type: self.data.key_type(),
            ..self.settings.clone()
        }
    }

    /// The decision tree's path for the shown report.
    pub fn path(&self) -> Option<&Path> {
        self.pipeline.path.as_ref()
    }

    /// The tree's answers (the user's and the table facts).
    pub fn answers(&self) -> &UserAnswers {
        &self.pipeline.answers
    }

    pub fn keys(&self) -> &Keys {
        self.data.keys()
    }

    pub fn source(&self) -> &Source {
        self.data.source()
    }

    /// Items per data file of a loaded S3 export.
    pub fn groups(&self) -> Option<&[Group]> {
        self.data.groups()
    }

    /// How the next file is read (File > Load options).
    pub fn load_options(&self) -> &LoadOptions {
        &self.data.load_options
    }

    /// The parse error of the current input, if any.
    pub fn input_error(&self) -> Option<&str> {
        self.pipeline.input_error.as_deref()
    }

    pub fn notices(&self) -> &Notices {
        &self.notices
    }

    pub fn dialogs(&self) -> &dialogs::Dialogs {
        &self.panels.dialogs
    }

    /// Native file dialogs (true) or the in-app path field straight away (false; tests).
    pub fn set_native_dialogs(&mut self, native: bool) {
        self.panels.dialogs.native = native;
    }

    /// The time simulation shown in the Timeline, if any.
    pub fn simulation(&self) -> Option<&timeline::Simulation> {
        self.timeline.sim.as_ref()
    }

    pub fn simulation_mut(&mut self) -> Option<&mut timeline::Simulation> {
        self.timeline.sim.as_mut()
    }

    /// Table health: whether it is open, and its report.
    pub fn health(&self) -> &health::HealthState {
        &self.panels.health
    }

    /// The key selected in the partition inspector, as displayed.
    pub fn inspected_key(&self) -> Option<String> {
        let id = self.panels.inspector.selected?;
        Some(self.key_set()?.display(id.key).into_owned())
    }

    /// The Key design view's state.
    pub fn design(&self) -> &design::DesignState {
        &self.design
    }

    pub fn table_picker(&self) -> Option<&table_picker::TablePicker> {
        self.panels.table_picker.as_ref()
    }

    /// What the chart shows now (the chosen mode, or writes per bucket when the data cannot show it).
    pub fn chart_mode(&self) -> ChartMode {
        let capacity = matches!(self.report().and_then(|r| r.capacity.as_ref()), Some(Ok(_)));
        self.settings.chart.shown(
            capacity,
            self.data.groups().is_some(),
            self.timeline.sim.is_some(),
        )
    }

    /// Shows a notice as the current line of its activity (and in the history).
    fn notify(&mut self, activity: Activity, level: Level, text: impl Into<String>) {
        self.notify_detailed(activity, level, text, None);
    }

    /// A notice whose technical detail (an error chain, a bus address, a full path) goes to Messages only.
    fn notify_detailed(
        &mut self,
        activity: Activity,
        level: Level,
        text: impl Into<String>,
        detail: Option<String>,
    ) {
        self.notices
            .push_detailed(activity, level, text, detail, web_time::Instant::now());
    }

    /// An error's notice: what failed (if the error does not say it), then the error said once
    /// ([`error::AppError::said`]: `{:#}`, its hints in the window's words); returns the line.
    fn notify_error(
        &mut self,
        activity: Activity,
        what: Option<&str>,
        error: impl Into<error::AppError>,
        detail: Option<String>,
    ) -> String {
        let said = error.into().said();
        let text = match what {
            Some(what) => format!("{what}: {said}"),
            None => said,
        };
        self.notify_detailed(activity, Level::Error, text.clone(), detail);
        text
    }

    /// What the counts are: writes when the input is a log of writes (pasted lines), else items.
    pub fn noun(&self) -> &'static str {
        match self.key_set() {
            Some(k) if !k.write_ordered() => "items",
            _ => "writes",
        }
    }
}

impl eframe::App for App {
    fn logic(&mut self, ctx: &egui::Context, _frame: &mut eframe::Frame) {
        #[cfg(target_arch = "wasm32")]
        tasks::run_pending();
        self.tick(ctx);
        #[cfg(target_arch = "wasm32")]
        tasks::poll_workers(ctx);
        #[cfg(target_arch = "wasm32")]
        web::fonts_tick(ctx, |font| self.needs_font(font));
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.draw(ui);
        #[cfg(target_arch = "wasm32")]
        web::mirror(self.report().map(|r| chart_words::in_words(r, self.noun())));
        #[cfg(target_arch = "wasm32")]
        web::mirror_progress(self.load_progress_text(web_time::Instant::now()));
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let mut settings = self.settings();
        settings.last_keys = match self.data.keys() {
            Keys::Text(t) if t.len() <= settings::REMEMBER_KEYS_BYTES => Some(t.clone()),
            _ => None,
        };
        if let Some(bad) = self.bad_settings.take() {
            storage.set_string(BAD_SETTINGS_KEY, bad);
        }
        match settings.to_ron() {
            Ok(text) => storage.set_string(crate::source::app_state::SETTINGS_KEY, text),
            Err(e) => log::warn!("cannot save the settings: {e}"),
        }
    }
}
