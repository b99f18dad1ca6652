//! The desktop app (eframe/egui): key editor, live bucket histogram, shard toggle, decision tree.
//!
//! Split by role, as rerun's viewer is: this file holds the [`App`] struct, its construction and accessors and
//! `impl eframe::App`; `logic` the per-frame work that does not draw (draining background results, shortcuts,
//! recomputation); `commands` applying [`Command`]s (examples, fixes, undo, dialogs, exports, sessions); `ui`
//! the layout, one function per panel; `assets` the icon and fonts. Panels are functions over plain state;
//! they return [`Command`]s that the app applies after drawing. Work that is not drawing (parsing, bucketing
//! large key sets, file I/O) runs in [`jobs`] and [`dialogs`].

pub mod connect;
pub mod controls;
pub mod decision_ui;
pub mod dialogs;
pub mod editor;
pub mod histogram;
pub mod inspector;
pub mod jobs;
pub mod notices;
pub mod settings;
pub mod table_picker;
pub mod theme;

mod assets;
mod commands;
mod logic;
mod ui;

pub use assets::icon;
use assets::install_fallback_fonts;
use ui::set_presentation_style;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use crate::model::decision::{Action, Path, Question, UserAnswers, evaluate};
use crate::model::export::{buckets_csv, report_doc};
use crate::model::scenario::Scenario;
use crate::model::shard::Scope;
use crate::model::{KeySet, Report};
use crate::source::{Group, LoadOptions, Source};
use jobs::{Computed, Input, Jobs, LoadEvent, Request, Shown};
use notices::{Activity, Level, Notices};
use settings::{SESSION_FORMAT, SESSION_VERSION, Session, Settings};

pub const APP_ID: &str = "io.github.shardlens.Shardlens";
/// Inputs up to this many bytes are computed inline (a few milliseconds); larger ones on the worker.
const INLINE_BYTES: usize = 256 * 1024;
/// Text sizes in presentation mode, in points (readable from the back of a room; the smallest text is
/// 18 px at 1 px per point).
const PRESENTATION_TEXT: [(egui::TextStyle, f32); 5] = [
    (egui::TextStyle::Small, 18.0),
    (egui::TextStyle::Body, 21.0),
    (egui::TextStyle::Button, 21.0),
    (egui::TextStyle::Monospace, 19.0),
    (egui::TextStyle::Heading, 30.0),
];
/// Undo steps kept for keys replaced by an example, a file, a session or a scan.
const UNDO_STEPS: usize = 8;
/// A scan that has heard nothing from DynamoDB for this long says so.
const SCAN_QUIET_SECS: u64 = 4;

/// What a panel asks the app to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    LoadExample(Scenario),
    Answer(Question, Option<bool>),
    Apply(Action),
    Copy(String),
    EditAsText,
    OpenFile,
    OpenFolder,
    Connect,
    CancelScan,
    CancelLoad,
    OpenSession,
    SaveSession,
    ExportPng,
    ExportCsv,
    ExportJson,
    TogglePresentation,
    /// Bring back the keys an example, a file, a session or a scan replaced.
    Undo,
    DismissNotice(Activity),
    /// Presentation mode: show or hide the editor and the tree beside the chart.
    ToggleSidePanels,
}

/// Where the keys live: as text in the editor, or as data (large sets, loaded files).
#[derive(Debug, Clone)]
pub enum Keys {
    Text(String),
    Data(Arc<KeySet>),
}

/// Keys that something else replaced, for Undo.
struct Replaced {
    keys: Keys,
    source: Source,
    key_type: crate::model::KeyType,
    groups: Option<Vec<Group>>,
}

/// Results of file dialogs and exports, which run off the UI thread.
enum Outcome {
    OpenKeys(PathBuf),
    OpenSession(PathBuf, Result<Vec<u8>, String>),
    Saved(Result<String, String>),
    /// A file dialog closed without a choice.
    Nothing,
    /// The in-app path field: no dialog could open, or its typed path worked or did not.
    Path(dialogs::Reply),
}

pub struct App {
    pub settings: Settings,
    pub keys: Keys,
    pub source: Source,
    pub answers: UserAnswers,
    /// The last good keys and report: stay on screen while newer input is invalid or computing.
    pub current: Option<Shown>,
    pub path: Option<Path>,
    /// The parse error of the current input, if any.
    pub input_error: Option<String>,
    pub notices: Notices,
    /// Keys replaced by examples, files, sessions and scans, newest last.
    undo: Vec<Replaced>,
    /// Why the chart is empty when it is not the user's choice (a file given at start that failed to load).
    pub empty_reason: Option<String>,
    /// The key type before the user switched it: restored if the keys cannot be read as the new type.
    key_type_before: Option<crate::model::KeyType>,
    /// The first window was fitted to the screen.
    fitted: bool,
    /// Presentation mode shows the side panels (hidden by default, so the chart is the hero).
    show_side: bool,
    scan_heard_at: Option<std::time::Instant>,
    editor: editor::EditorState,
    inspector: inspector::InspectorState,
    connect: connect::ConnectState,
    scan: Option<connect::ScanJob>,
    scan_shown_at: Option<std::time::Instant>,
    jobs: Jobs,
    generation: u64,
    /// Generation of the newest request; results of older ones are dropped.
    wanted: u64,
    dirty: bool,
    load_progress: Option<crate::source::Progress>,
    /// How files are read (format, key attributes, bad-record policy).
    pub load_options: LoadOptions,
    /// Items per data file of a loaded S3 export: the real grouping by partition.
    pub groups: Option<Vec<Group>>,
    /// Show the export's data files instead of the teaching hash's buckets.
    pub by_data_file: bool,
    /// The tables of a loaded file that holds several, to pick one ([`table_picker`]).
    pub table_picker: Option<table_picker::TablePicker>,
    outcomes: (Sender<Outcome>, Receiver<Outcome>),
    /// Native file dialogs, and the path field when none can open.
    pub dialogs: dialogs::Dialogs,
    chart_rect: Option<egui::Rect>,
    shown_title: String,
    ctx: egui::Context,
}

impl App {
    /// The app as eframe creates it: settings and last keys restored, or the leaderboard example.
    pub fn new(cc: &eframe::CreationContext<'_>) -> Self {
        let settings: Option<Settings> = cc
            .storage
            .and_then(|s| eframe::get_value(s, eframe::APP_KEY));
        install_fallback_fonts(&cc.egui_ctx);
        dialogs::install_log_capture();
        Self::with_settings(cc.egui_ctx.clone(), settings)
    }

    /// The app on a bare context (tests, benchmarks).
    pub fn with_settings(ctx: egui::Context, settings: Option<Settings>) -> Self {
        let restored = settings.is_some();
        let mut settings = settings.unwrap_or_default();
        let last = settings.last_keys.take();
        let (keys, source) = match last {
            Some(text) if restored && !text.trim().is_empty() => (Keys::Text(text), Source::Paste),
            _ => (
                Keys::Text(Scenario::Leaderboard.text()),
                Source::Example(Scenario::Leaderboard),
            ),
        };
        set_presentation_style(&ctx, settings.presentation);
        let mut app = Self {
            settings,
            keys,
            source,
            answers: UserAnswers::default(),
            current: None,
            path: None,
            input_error: None,
            notices: Notices::default(),
            undo: Vec::new(),
            empty_reason: None,
            key_type_before: None,
            fitted: false,
            show_side: false,
            scan_heard_at: None,
            editor: editor::EditorState::default(),
            inspector: inspector::InspectorState::default(),
            connect: connect::ConnectState::default(),
            scan: None,
            scan_shown_at: None,
            jobs: Jobs::new(ctx.clone()),
            generation: 0,
            wanted: 0,
            dirty: true,
            load_progress: None,
            load_options: LoadOptions::default(),
            groups: None,
            by_data_file: false,
            table_picker: None,
            outcomes: channel(),
            dialogs: dialogs::Dialogs::new(),
            chart_rect: None,
            shown_title: String::new(),
            ctx,
        };
        app.recompute();
        app
    }

    pub fn report(&self) -> Option<&Report> {
        self.current.as_ref().map(|s| s.report.as_ref())
    }

    /// The chart block on screen (headline, legend, plot with axes, caption): what Export chart as PNG saves.
    pub fn chart_rect(&self) -> Option<egui::Rect> {
        self.chart_rect
    }

    pub fn key_set(&self) -> Option<&KeySet> {
        self.current.as_ref().map(|s| s.keys.as_ref())
    }

    /// Whether a computation is still under way.
    pub fn busy(&self) -> bool {
        self.dirty || self.wanted != self.generation
    }

    /// Shows a notice as the current line of its activity (and in the history).
    fn notify(&mut self, activity: Activity, level: Level, text: impl Into<String>) {
        self.notices
            .push(activity, level, text, std::time::Instant::now());
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
        self.tick(ctx);
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.draw(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let mut settings = self.settings.clone();
        settings.last_keys = match &self.keys {
            Keys::Text(t) if t.len() <= settings::REMEMBER_KEYS_BYTES => Some(t.clone()),
            _ => None,
        };
        eframe::set_value(storage, eframe::APP_KEY, &settings);
    }
}

impl App {}
