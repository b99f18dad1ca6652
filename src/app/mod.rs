//! The desktop app (eframe/egui): key editor, live bucket histogram, shard toggle, decision tree.
//!
//! Panels are functions over plain state; they return [`Command`]s that the app applies after drawing, so no
//! panel reaches into another's state. Work that is not drawing (parsing, bucketing large key sets, file I/O)
//! runs in [`jobs`]; `logic` drains its results each frame.

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

    /// Opens the window on a file given on the command line: until it has loaded, and if it fails, the chart
    /// is empty (with the error), never an example that could be read as the file's analysis.
    pub fn open_at_start(&mut self, path: PathBuf) {
        self.set_keys(
            Keys::Data(Arc::new(KeySet::new(self.settings.key_type))),
            Source::File(path.clone()),
        );
        self.undo.clear();
        self.empty_reason = Some(format!("loading {}…", path.display()));
        self.open_path(path);
    }

    /// What the counts are: writes when the input is a log of writes (pasted lines), else items.
    pub fn noun(&self) -> &'static str {
        match self.key_set() {
            Some(k) if !k.write_ordered() => "items",
            _ => "writes",
        }
    }

    /// Starts computing the report for the current keys and settings: inline when small, else on the worker.
    fn recompute(&mut self) {
        self.dirty = false;
        self.wanted += 1;
        let view = self.settings.view();
        let input = match &self.keys {
            Keys::Text(t) => {
                let small = t.len() <= INLINE_BYTES;
                let input = Input::Text(Arc::new(t.clone()), self.settings.key_type);
                if small {
                    let result = jobs::compute(input, &view, self.current.as_ref());
                    self.on_computed(Computed {
                        generation: self.wanted,
                        result,
                    });
                    return;
                }
                input
            }
            Keys::Data(k) => {
                if k.len() <= 20_000 {
                    let result =
                        jobs::compute(Input::Keys(Arc::clone(k)), &view, self.current.as_ref());
                    self.on_computed(Computed {
                        generation: self.wanted,
                        result,
                    });
                    return;
                }
                Input::Keys(Arc::clone(k))
            }
        };
        self.jobs.submit(Request {
            generation: self.wanted,
            input,
            view,
        });
    }

    /// A computed report arrives: shown if it is the newest; a parse error keeps the previous data.
    pub fn on_computed(&mut self, computed: Computed) {
        if computed.generation != self.wanted {
            return;
        }
        self.generation = computed.generation;
        match computed.result {
            Ok(shown) => {
                self.input_error = None;
                self.key_type_before = None;
                self.current = Some(shown);
                self.update_path();
            }
            Err(e) => match self.key_type_before.take() {
                // The keys cannot be read as the type just chosen: keep them as they were, and say why.
                Some(before) if before != self.settings.key_type => {
                    let wanted = self.settings.key_type;
                    self.settings.key_type = before;
                    self.notify(
                        Activity::Keys,
                        Level::Error,
                        format!(
                            "cannot read these keys as {} keys: {e}; the key type stays {}",
                            wanted.as_str(),
                            before.as_str()
                        ),
                    );
                    self.dirty = true;
                }
                _ => self.input_error = Some(e),
            },
        }
    }

    fn update_path(&mut self) {
        if let Some(shown) = &self.current {
            self.path = Some(evaluate(&shown.report.evidence, &self.answers));
        }
    }

    /// A file load finished: on success the keys replace what was there; on failure what was there stays.
    pub fn on_load_done(&mut self, result: Result<crate::source::Loaded, String>, path: PathBuf) {
        self.load_progress = None;
        let fresh = self.empty_reason.is_some();
        match result {
            Ok(loaded) if loaded.keys.total() == 0 => {
                let text = if fresh {
                    format!("{} has no keys", path.display())
                } else {
                    format!("{} has no keys: the previous keys stay", path.display())
                };
                if fresh {
                    self.empty_reason = Some(text.clone());
                }
                self.notify(Activity::Load, Level::Warning, text);
            }
            Ok(loaded) => {
                self.empty_reason = None;
                let noun = if loaded.keys.write_ordered() {
                    "write"
                } else {
                    "item"
                };
                let mut text = format!(
                    "loaded {} from {}",
                    crate::model::decision::plural(loaded.keys.total(), noun),
                    path.display()
                );
                if loaded.skipped > 0 {
                    text.push_str(&format!(" ({} bad records skipped)", loaded.skipped));
                }
                if let Some(attr) = &loaded.key_attribute {
                    text.push_str(&format!("; key attribute {attr}"));
                }
                if let Some(shape) = &loaded.shape {
                    text.push_str(&format!(" (read as {shape})"));
                }
                // Warnings stay on the load's line, after what was loaded.
                let level = if loaded.warnings.is_empty() {
                    Level::Info
                } else {
                    text.push_str(" — ");
                    text.push_str(&loaded.warnings.join("; "));
                    Level::Warning
                };
                self.notify(Activity::Load, level, text);
                self.table_picker = table_picker::TablePicker::for_load(&path, &loaded);
                self.settings.key_type = loaded.keys.key_type();
                self.set_keys(Keys::Data(Arc::new(loaded.keys)), Source::File(path));
                self.groups = loaded.groups;
                self.by_data_file = false;
            }
            Err(e) => {
                let text = format!("could not load {}: {e}", path.display());
                if fresh {
                    self.empty_reason = Some(text.clone());
                }
                self.notify(Activity::Load, Level::Error, text);
            }
        }
    }

    /// Starts a keys-only scan of a live table in the background (the Connect dialog's "Scan keys"); a scan
    /// under way is cancelled first.
    pub fn start_scan(
        &mut self,
        connect: crate::source::dynamo::ConnectOptions,
        scan: crate::source::dynamo::ScanOptions,
    ) {
        if let Some(job) = &self.scan {
            job.cancel();
        }
        self.scan = connect::ScanJob::start(&self.ctx, connect, scan);
        self.scan_heard_at = Some(std::time::Instant::now());
        self.notices.clear(Activity::Scan);
        if self.scan.is_none() {
            self.notify(Activity::Scan, Level::Error, "cannot start the scan thread");
        }
    }

    /// Whether a table scan is under way.
    pub fn scanning(&self) -> bool {
        self.scan.is_some()
    }

    /// Shows a scan's pages as they arrive (at most a few times a second) and its result when done; a scan that
    /// stops early keeps what it read, labelled.
    fn drain_scan(&mut self) {
        let Some(job) = &mut self.scan else { return };
        let update = job.drain();
        if update.is_some() {
            self.scan_heard_at = Some(std::time::Instant::now());
        }
        match update {
            None => {}
            Some(connect::ScanUpdate::Grew) => {
                let due = self
                    .scan_shown_at
                    .is_none_or(|t| t.elapsed() >= std::time::Duration::from_millis(400));
                if due {
                    self.scan_shown_at = Some(std::time::Instant::now());
                    let keys = job.live.clone();
                    let source = Source::Table {
                        name: job.table.clone(),
                        status: format!("scanning: {} items", keys.total()),
                    };
                    self.set_keys(Keys::Data(Arc::new(keys)), source);
                }
            }
            Some(connect::ScanUpdate::Done(result)) => {
                let table = job.table.clone();
                self.scan = None;
                self.scan_shown_at = None;
                match result {
                    Ok(scanned) => {
                        let status = scanned.status.describe();
                        let complete = scanned.status.is_complete();
                        self.notify(
                            Activity::Scan,
                            if complete {
                                Level::Info
                            } else {
                                Level::Warning
                            },
                            format!("{table}: {} — {}", status, scanned.progress.summary()),
                        );
                        self.settings.key_type = scanned.keys.key_type();
                        let status = if complete { String::new() } else { status };
                        self.set_keys(
                            Keys::Data(Arc::new(scanned.keys)),
                            Source::Table {
                                name: table,
                                status,
                            },
                        );
                    }
                    Err(e) => self.notify(
                        Activity::Scan,
                        Level::Error,
                        format!("cannot scan {table}: {e}"),
                    ),
                }
            }
        }
    }

    /// Starts loading a file of keys in the background (the command line, drag and drop, File > Open).
    pub fn open_path(&mut self, path: PathBuf) {
        let mut opts = self.load_options.clone();
        // Text formats read keys as the editor's type; typed formats (JSON, Ion) carry their own.
        if opts.key_type.is_none() && self.settings.key_type != crate::model::KeyType::S {
            opts.key_type = Some(self.settings.key_type);
        }
        self.notices.clear(Activity::Load);
        self.jobs.load_file(path, opts);
    }

    /// Replaces the keys with a key set held as data (a loaded file, a benchmark).
    pub fn set_key_set(&mut self, keys: KeySet, source: Source) {
        self.set_keys(Keys::Data(Arc::new(keys)), source);
    }

    /// Pastes keys: appended to the editor's text, or replacing keys held as data.
    pub fn paste(&mut self, text: &str) {
        let mut joined = match &self.keys {
            Keys::Text(t) => t.clone(),
            Keys::Data(_) => String::new(),
        };
        if !joined.is_empty() && !joined.ends_with('\n') {
            joined.push('\n');
        }
        joined.push_str(text);
        self.set_text(joined);
    }

    /// Replaces the keys with text.
    pub fn set_text(&mut self, text: String) {
        self.set_keys(Keys::Text(text), Source::Paste);
    }

    fn set_keys(&mut self, keys: Keys, source: Source) {
        // Large text becomes data: a TextEdit cannot hold it smoothly.
        let keys = match keys {
            Keys::Text(t) if t.lines().count() > editor::TEXT_LINE_LIMIT => {
                match crate::model::text::parse_text(t.as_bytes(), self.settings.key_type) {
                    Ok(k) => Keys::Data(Arc::new(k)),
                    Err(e) => {
                        self.notify(
                            Activity::Keys,
                            Level::Error,
                            format!("cannot use these keys: {e}"),
                        );
                        return;
                    }
                }
            }
            other => other,
        };
        // Answers are about the data: new data clears them, except more of the same table (a live scan's
        // pages, or a scan of the table again), whose answers the user gave while watching it grow.
        let same_table = matches!(
            (&self.source, &source),
            (Source::Table { name: a, .. }, Source::Table { name: b, .. }) if a == b
        );
        if !same_table {
            self.answers = UserAnswers::default();
        }
        // Keys replaced by something other than typing can be brought back (Ctrl+Z); a live scan's pages
        // replace its own earlier pages, which is no loss.
        if !matches!(source, Source::Paste) && !same_table {
            let replaced = Replaced {
                keys: std::mem::replace(&mut self.keys, Keys::Text(String::new())),
                source: self.source.clone(),
                key_type: self.settings.key_type,
                groups: self.groups.take(),
            };
            self.undo.push(replaced);
            if self.undo.len() > UNDO_STEPS {
                self.undo.remove(0);
            }
        }
        self.empty_reason = None;
        self.keys = keys;
        self.source = source;
        self.groups = None;
        self.dirty = true;
    }

    /// Applies a command from a panel or a menu.
    pub fn apply(&mut self, command: Command) {
        match command {
            Command::LoadExample(s) => {
                let had_own = !matches!(self.source, Source::Example(_))
                    && self.key_set().is_some_and(|k| k.total() > 0);
                self.set_keys(Keys::Text(s.text()), Source::Example(s));
                self.settings.shard_enabled = false;
                self.settings.key_type = crate::model::KeyType::S;
                if had_own {
                    self.notify(
                        Activity::Keys,
                        Level::Info,
                        format!(
                            "example \"{}\" replaced your keys: Ctrl+Z (Edit > Undo) brings them back",
                            s.title()
                        ),
                    );
                }
            }
            Command::Undo => self.undo(),
            Command::DismissNotice(activity) => self.notices.dismiss(activity),
            Command::ToggleSidePanels => self.show_side = !self.show_side,
            Command::Answer(q, a) => {
                self.answers.set(q, a);
                self.update_path();
            }
            Command::Apply(Action::MoreShards) => {
                self.settings.shard_enabled = true;
                self.settings.shard.shards =
                    (self.settings.shard.shards * 2).clamp(2, crate::model::shard::MAX_SHARDS);
                self.dirty = true;
            }
            Command::Apply(action) => {
                self.settings.shard_enabled = true;
                self.settings.shard.shards = self.settings.shard.shards.max(2);
                self.settings.shard.scope = match action {
                    Action::ShardHotKeys => Scope::Hot {
                        threshold: match self.settings.shard.scope {
                            Scope::Hot { threshold } => threshold,
                            Scope::All => crate::model::shard::DEFAULT_HOT_SHARE,
                        },
                    },
                    Action::ShardAllKeys | Action::MoreShards => Scope::All,
                };
                self.dirty = true;
            }
            Command::Copy(text) => {
                self.ctx.copy_text(text);
                self.notify(Activity::Clipboard, Level::Info, "copied to the clipboard");
            }
            Command::EditAsText => {
                if let Keys::Data(k) = &self.keys {
                    let mut text = String::new();
                    for (i, _, count) in k.iter() {
                        let key = k.display(i);
                        for _ in 0..count {
                            text.push_str(&key);
                            text.push('\n');
                        }
                    }
                    self.keys = Keys::Text(text);
                    self.dirty = true;
                }
            }
            Command::OpenFile => self.file_dialog(dialogs::Request::open_keys()),
            Command::OpenFolder => self.file_dialog(dialogs::Request::open_folder()),
            Command::Connect => self.connect.open = true,
            Command::CancelScan => {
                if let Some(job) = &self.scan {
                    job.cancel();
                }
            }
            Command::CancelLoad => {
                self.jobs.cancel_load();
                self.load_progress = None;
                self.notify(
                    Activity::Load,
                    Level::Info,
                    "loading cancelled; the previous keys stay",
                );
            }
            Command::OpenSession => self.file_dialog(dialogs::Request::open_session()),
            Command::SaveSession => match self.session().to_json() {
                Ok(json) => self.save_dialog(
                    "Save session",
                    "session.shardlens.json",
                    "shardlens session",
                    "json",
                    json.into_bytes(),
                ),
                Err(e) => self.notify(
                    Activity::File,
                    Level::Error,
                    format!("cannot write the session: {e}"),
                ),
            },
            Command::ExportCsv => {
                if let Some(shown) = &self.current {
                    let csv = buckets_csv(&shown.report, self.settings.view().bucket_count());
                    self.save_dialog(
                        "Export buckets as CSV",
                        "buckets.csv",
                        "CSV",
                        "csv",
                        csv.into_bytes(),
                    );
                }
            }
            Command::ExportJson => {
                if let Some(Shown { keys, report, .. }) = &self.current
                    && let Some(path) = &self.path
                {
                    let doc = report_doc(
                        self.source.describe(),
                        keys,
                        &self.settings.view(),
                        report,
                        path,
                    );
                    match serde_json::to_vec_pretty(&doc) {
                        Ok(json) => self.save_dialog(
                            "Export buckets as JSON",
                            "buckets.json",
                            "JSON",
                            "json",
                            json,
                        ),
                        Err(e) => self.notify(
                            Activity::File,
                            Level::Error,
                            format!("cannot write JSON: {e}"),
                        ),
                    }
                }
            }
            Command::ExportPng => self.export_png(),
            Command::TogglePresentation => {
                self.settings.presentation = !self.settings.presentation;
                self.show_side = false;
                set_presentation_style(&self.ctx, self.settings.presentation);
            }
        }
    }

    /// Brings back the keys the last example, file, session or scan replaced.
    fn undo(&mut self) {
        let Some(r) = self.undo.pop() else {
            self.notify(Activity::Keys, Level::Info, "nothing to undo");
            return;
        };
        let what = r.source.describe();
        self.keys = r.keys;
        self.source = r.source;
        self.settings.key_type = r.key_type;
        self.groups = r.groups;
        self.answers = UserAnswers::default();
        self.empty_reason = None;
        self.dirty = true;
        self.notify(Activity::Keys, Level::Info, format!("back to {what}"));
    }

    /// What Undo would bring back, for the Edit menu.
    pub fn undo_label(&self) -> Option<String> {
        self.undo.last().map(|r| r.source.describe())
    }

    /// Shows a file dialog (or the path field when none can open) and finishes its action off the UI thread.
    fn file_dialog(&self, request: dialogs::Request) {
        dialogs::start(
            request,
            self.dialogs.native,
            self.outcomes.0.clone(),
            self.ctx.clone(),
        );
    }

    fn save_dialog(
        &self,
        title: &'static str,
        name: &'static str,
        kind: &'static str,
        ext: &'static str,
        bytes: Vec<u8>,
    ) {
        self.file_dialog(dialogs::Request::save(title, name, kind, ext, bytes));
    }

    fn export_png(&mut self) {
        let Some(rect) = self.chart_rect else {
            self.notify(Activity::File, Level::Error, "no chart to export");
            return;
        };
        let tx = self.outcomes.0.clone();
        let ctx = self.ctx.clone();
        let ppp = self.ctx.pixels_per_point();
        let native = self.dialogs.native;
        self.ctx.request_screenshot(move |image| {
            let region = image.region(&rect, Some(ppp));
            dialogs::start(dialogs::Request::save_png(region), native, tx, ctx);
        });
    }

    /// Keys and every setting, for Save session.
    pub fn session(&self) -> Session {
        let (text, keys) = match &self.keys {
            Keys::Text(t) => (Some(t.clone()), None),
            Keys::Data(k) => (
                None,
                Some(
                    k.iter()
                        .map(|(i, _, c)| (k.display(i).into_owned(), c))
                        .collect(),
                ),
            ),
        };
        Session {
            format: SESSION_FORMAT.to_owned(),
            version: SESSION_VERSION,
            settings: Settings {
                last_keys: None,
                ..self.settings.clone()
            },
            answers: self.answers,
            text,
            keys,
        }
    }

    /// Opens a session; a malformed one leaves everything as it was and says why.
    pub fn open_session(&mut self, bytes: &[u8], name: &str) {
        let session = match Session::parse(bytes) {
            Ok(s) => s,
            Err(e) => {
                self.notify(
                    Activity::File,
                    Level::Error,
                    format!("cannot open session {name}: {e}"),
                );
                return;
            }
        };
        let keys = match (session.text, session.keys) {
            (Some(t), _) => Keys::Text(t),
            (None, Some(list)) => {
                let mut set = KeySet::new(session.settings.key_type);
                let mut buf = Vec::new();
                for (i, (k, c)) in list.iter().enumerate() {
                    if let Err(e) = crate::model::key::canonicalize_into(
                        k.as_bytes(),
                        session.settings.key_type,
                        crate::model::key::MAX_PARTITION_KEY_BYTES,
                        &mut buf,
                    ) {
                        self.notify(
                            Activity::File,
                            Level::Error,
                            format!("cannot open session {name}: key {}: {e}", i + 1),
                        );
                        return;
                    }
                    set.add(&buf, *c);
                }
                Keys::Data(Arc::new(set))
            }
            (None, None) => return,
        };
        let presentation = self.settings.presentation;
        self.settings = session.settings;
        self.settings.presentation = presentation;
        self.set_keys(keys, Source::File(PathBuf::from(name)));
        self.answers = session.answers;
        self.notify(
            Activity::File,
            Level::Info,
            format!("opened session {name}"),
        );
    }

    /// The window title: where the keys come from and how many are shown ("shardlens — pasted keys ·
    /// 1,204 keys"), so a glance (or a desktop test) sees what is loaded.
    pub fn title(&self) -> String {
        match self.key_set() {
            Some(k) => format!(
                "shardlens — {} · {}",
                self.source.describe(),
                crate::model::decision::plural(k.total(), "key")
            ),
            None => format!("shardlens — {}", self.source.describe()),
        }
    }

    fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let open = KeyboardShortcut::new(Modifiers::COMMAND, Key::O);
        let save = KeyboardShortcut::new(Modifiers::COMMAND, Key::S);
        let zoom = KeyboardShortcut::new(Modifiers::COMMAND, Key::Equals);
        let shard = KeyboardShortcut::new(Modifiers::COMMAND, Key::K);
        let copy_conditions = KeyboardShortcut::new(Modifiers::COMMAND | Modifiers::SHIFT, Key::C);
        let undo = KeyboardShortcut::new(Modifiers::COMMAND, Key::Z);
        // In a text field Ctrl+Z is the field's own undo.
        let typing = ctx.memory(|m| m.focused().is_some());
        let mut commands = Vec::new();
        let (mut toggle_shard, mut copy) = (false, false);
        ctx.input_mut(|i| {
            if !typing && i.consume_shortcut(&undo) {
                commands.push(Command::Undo);
            }
            toggle_shard = i.consume_shortcut(&shard);
            copy = i.consume_shortcut(&copy_conditions);
            if i.consume_shortcut(&open) {
                commands.push(Command::OpenFile);
            }
            if i.consume_shortcut(&save) {
                commands.push(Command::SaveSession);
            }
            if i.consume_shortcut(&zoom) || i.consume_key(Modifiers::NONE, Key::F11) {
                commands.push(Command::TogglePresentation);
            }
        });
        if toggle_shard {
            self.settings.shard_enabled = !self.settings.shard_enabled;
            self.dirty = true;
        }
        if copy {
            let conditions = self
                .current
                .as_ref()
                .and_then(|s| controls::key_conditions(&self.settings, &s.keys, &s.report));
            match conditions {
                Some(text) => commands.push(Command::Copy(text)),
                None if !self.settings.shard_enabled => self.notify(
                    Activity::Clipboard,
                    Level::Warning,
                    "no key conditions to copy: turn on \"Shard hot keys\" (Ctrl+K) first",
                ),
                None => self.notify(
                    Activity::Clipboard,
                    Level::Warning,
                    "no key conditions to copy: no key is above the hot threshold, so nothing is sharded",
                ),
            }
        }
        for c in commands {
            self.apply(c);
        }
    }

    fn menu_ui(&mut self, ui: &mut egui::Ui) -> Option<Command> {
        let mut command = None;
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open keys…  (Ctrl+O)").clicked() {
                    command = Some(Command::OpenFile);
                }
                if ui.button("Open S3 export folder…").clicked() {
                    command = Some(Command::OpenFolder);
                }
                if ui.button("Connect to DynamoDB…").clicked() {
                    command = Some(Command::Connect);
                }
                ui.menu_button("Load options", |ui| {
                    editor::load_options_ui(ui, &mut self.load_options);
                });
                ui.separator();
                if ui.button("Open session…").clicked() {
                    command = Some(Command::OpenSession);
                }
                if ui.button("Save session…  (Ctrl+S)").clicked() {
                    command = Some(Command::SaveSession);
                }
                ui.separator();
                if ui.button("Export chart as PNG…").clicked() {
                    command = Some(Command::ExportPng);
                }
                if ui.button("Export buckets as CSV…").clicked() {
                    command = Some(Command::ExportCsv);
                }
                if ui.button("Export buckets as JSON…").clicked() {
                    command = Some(Command::ExportJson);
                }
                ui.separator();
                if ui.button("Quit").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
                }
                // A chosen item closes the menu, so it does not cover what the command opens.
                if command.is_some() {
                    ui.close();
                }
            });
            ui.menu_button("Edit", |ui| {
                let label = self
                    .undo_label()
                    .map_or_else(|| "Undo".to_owned(), |w| format!("Undo: back to {w}"));
                if ui
                    .add_enabled(self.undo_label().is_some(), egui::Button::new(label))
                    .on_hover_text("Ctrl+Z: bring back the keys an example, a file, a session or a scan replaced")
                    .clicked()
                {
                    command = Some(Command::Undo);
                }
                if ui.button("Paste keys  (Ctrl+V)").clicked() {
                    ui.ctx().send_viewport_cmd(egui::ViewportCommand::RequestPaste);
                    ui.close();
                }
                if command.is_some() {
                    ui.close();
                }
            });
            ui.menu_button("Examples", |ui| {
                for s in Scenario::ALL {
                    if ui.button(s.title()).on_hover_text(s.story()).clicked() {
                        command = Some(Command::LoadExample(s));
                    }
                }
                if command.is_some() {
                    ui.close();
                }
            });
            ui.menu_button("View", |ui| {
                let mut on = self.settings.presentation;
                if ui.checkbox(&mut on, "Presentation mode  (F11, Ctrl+=)").clicked() {
                    command = Some(Command::TogglePresentation);
                }
                if ui.checkbox(&mut self.settings.log_scale, "Log scale").changed() {
                    ui.close();
                }
                ui.separator();
                egui::widgets::global_theme_preference_buttons(ui);
            });
            ui.menu_button("Help", help_ui);
        });
        command
    }

    fn drain_background(&mut self) {
        for computed in self.jobs.drain() {
            self.on_computed(computed);
        }
        for event in self.jobs.drain_load() {
            match event {
                LoadEvent::Progress(p) => self.load_progress = Some(p),
                LoadEvent::Done(result, path) => self.on_load_done(*result, path),
            }
        }
        while let Ok(outcome) = self.outcomes.1.try_recv() {
            match outcome {
                Outcome::OpenKeys(path) => self.open_path(path),
                Outcome::OpenSession(path, Ok(bytes)) => {
                    self.open_session(&bytes, &path.display().to_string());
                }
                Outcome::OpenSession(path, Err(e)) => {
                    self.notify(
                        Activity::File,
                        Level::Error,
                        format!("cannot read {}: {e}", path.display()),
                    );
                }
                Outcome::Saved(Ok(msg)) => self.notify(Activity::File, Level::Info, msg),
                Outcome::Saved(Err(msg)) => self.notify(Activity::File, Level::Error, msg),
                Outcome::Nothing => {}
                Outcome::Path(reply) => {
                    if let Some(text) = self.dialogs.on_reply(reply) {
                        self.notify(Activity::File, Level::Warning, text);
                    }
                }
            }
        }
    }
}

/// The window icon, from the 256 px render in `assets/`.
pub fn icon() -> Option<egui::IconData> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(include_bytes!(
        "../../assets/icon-256.png"
    )));
    // Palette and low bit depths expand to 8-bit RGB(A).
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        _ => return None,
    };
    Some(egui::IconData {
        rgba,
        width: info.width,
        height: info.height,
    })
}

fn write_png(path: &std::path::Path, image: &egui::ColorImage) -> Result<String, String> {
    let file =
        std::fs::File::create(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let [w, h] = image.size;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let bytes: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(egui::Color32::to_array)
        .collect();
    writer
        .write_image_data(&bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!("saved chart to {}", path.display()))
}

/// Adds a system font with CJK glyphs as a fallback, when one is installed (emoji come with egui).
fn install_fallback_fonts(ctx: &egui::Context) {
    const CANDIDATES: [&str; 6] = [
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
        "/System/Library/Fonts/PingFang.ttc",
        "C:\\Windows\\Fonts\\msyh.ttc",
    ];
    let Some(bytes) = CANDIDATES.iter().find_map(|p| std::fs::read(p).ok()) else {
        return;
    };
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "cjk-fallback".to_owned(),
        Arc::new(egui::FontData::from_owned(bytes)),
    );
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts
            .families
            .entry(family)
            .or_default()
            .push("cjk-fallback".to_owned());
    }
    ctx.set_fonts(fonts);
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

impl App {
    /// Per-frame work that is not drawing: results from the background, shortcuts, recomputation.
    pub fn tick(&mut self, ctx: &egui::Context) {
        self.fit_to_screen(ctx);
        self.drain_background();
        self.drain_scan();
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            self.open_path(path);
        }
        // Ctrl+V anywhere but in a text field pastes keys into the editor.
        let focused = ctx.memory(|m| m.focused().is_some());
        if !focused {
            let pasted: Vec<String> = ctx.input(|i| {
                i.events
                    .iter()
                    .filter_map(|e| match e {
                        egui::Event::Paste(text) => Some(text.clone()),
                        _ => None,
                    })
                    .collect()
            });
            for text in pasted {
                self.paste(&text);
            }
        }
        self.handle_shortcuts(ctx);
        if self.dirty {
            self.recompute();
        }
        let title = self.title();
        if title != self.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shown_title = title;
        }
    }

    /// Draws every panel; the commands they return are applied afterwards.
    pub fn draw(&mut self, ui: &mut egui::Ui) {
        let mut commands: Vec<Command> = Vec::new();
        let presenting = self.settings.presentation;
        self.dialogs.ui(ui.ctx(), &self.outcomes.0);
        if self.connect.open
            && let Some(connect::ConnectCommand::Scan(opts, scan)) =
                connect::connect_ui(ui.ctx(), &mut self.connect, &mut self.settings.connect)
        {
            self.start_scan(opts, scan);
        }
        self.table_picker_frame(ui.ctx());
        egui::Panel::top("menu").show(ui, |ui| {
            if let Some(c) = self.menu_ui(ui) {
                commands.push(c);
            }
            if presenting {
                ui.horizontal(|ui| {
                    ui.strong("Presentation mode");
                    let side = if self.show_side {
                        "Hide keys and tree"
                    } else {
                        "Show keys and tree"
                    };
                    if ui.button(side).clicked() {
                        commands.push(Command::ToggleSidePanels);
                    }
                    if ui.button("Leave presentation (F11)").clicked() {
                        commands.push(Command::TogglePresentation);
                    }
                });
            }
        });
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui, &mut commands));
        if presenting && !self.show_side {
            egui::Panel::bottom("decision-strip").show(ui, |ui| {
                ui.add_space(4.0);
                if let Some(path) = &self.path
                    && let Some(c) = decision_ui::path_strip_ui(ui, path, &self.answers)
                {
                    commands.push(c);
                }
                ui.add_space(4.0);
            });
        }
        if !presenting || self.show_side {
            // Side panels start at a share of the window, so a small screen still leaves the chart room.
            let width = ui.ctx().content_rect().width();
            egui::Panel::left("editor")
                .resizable(true)
                .default_size((width * 0.22).clamp(200.0, 320.0))
                .size_range(180.0..=700.0)
                .show(ui, |ui| self.editor_panel_ui(ui, &mut commands));
            let noun = self.noun();
            egui::Panel::right("decision")
                .resizable(true)
                .default_size((width * 0.3).clamp(260.0, 420.0))
                .size_range(240.0..=800.0)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        if let Some(path) = &self.path
                            && let Some(c) = decision_ui::decision_ui(ui, path, &self.answers)
                        {
                            commands.push(c);
                        }
                        ui.separator();
                        egui::CollapsingHeader::new("Partition inspector")
                            .default_open(true)
                            .show(ui, |ui| {
                                if let Some(shown) = &self.current {
                                    inspector::inspector_ui(ui, &mut self.inspector, shown, noun);
                                }
                            });
                    });
                });
        }
        egui::CentralPanel::default().show(ui, |ui| self.chart_panel_ui(ui, &mut commands));
        for c in commands {
            self.apply(c);
        }
        if self.dirty {
            ui.ctx().request_repaint();
        }
    }

    /// The status bar: the activity under way (scan, load, computing) and the current notices.
    fn status_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        let now = std::time::Instant::now();
        ui.horizontal_wrapped(|ui| {
            if let Some(job) = &self.scan {
                ui.spinner();
                let mut text = job.progress.as_ref().map_or_else(
                    || format!("connecting to scan {}…", job.table),
                    |p| format!("scanning {}: {}", job.table, p.summary()),
                );
                let quiet = self.scan_heard_at.map(|t| now.saturating_duration_since(t));
                if let Some(q) = quiet.filter(|q| q.as_secs() >= SCAN_QUIET_SECS) {
                    text.push_str(&format!(
                        " — no reply from DynamoDB for {} s, still trying",
                        q.as_secs()
                    ));
                }
                ui.label(text);
                if ui.button("Cancel scan").clicked() {
                    commands.push(Command::CancelScan);
                }
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_secs(1));
            } else if let Some(p) = self.load_progress {
                let fraction = p
                    .total_bytes
                    .map_or(0.0, |t| p.bytes as f32 / t.max(1) as f32);
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .desired_width(200.0)
                        .text(format!("{} lines, {:.1} MB", p.lines, p.bytes as f64 / 1e6)),
                );
                if ui.button("Cancel").clicked() {
                    commands.push(Command::CancelLoad);
                }
            } else if self.busy() {
                ui.spinner();
                ui.label("computing…");
            }
            for n in self.notices.visible(now) {
                ui.separator();
                match n.level {
                    Level::Error => {
                        ui.colored_label(theme::ERROR, &n.text);
                    }
                    Level::Warning => {
                        ui.colored_label(theme::UNKNOWN, &n.text);
                    }
                    Level::Info => {
                        ui.label(&n.text);
                    }
                }
                if n.level > Level::Info
                    && ui
                        .small_button("×")
                        .on_hover_text("Dismiss this message")
                        .clicked()
                {
                    commands.push(Command::DismissNotice(n.activity));
                }
            }
            if self.notices.history().next().is_some() {
                ui.menu_button("Messages", |ui| {
                    egui::ScrollArea::vertical()
                        .max_height(300.0)
                        .show(ui, |ui| {
                            for n in self.notices.history().rev() {
                                let text = egui::RichText::new(&n.text);
                                ui.label(match n.level {
                                    Level::Error => text.color(theme::ERROR),
                                    Level::Warning => text.color(theme::UNKNOWN),
                                    Level::Info => text,
                                });
                            }
                        });
                });
            }
        });
        if let Some(wait) = self.notices.next_fade(now) {
            ui.ctx().request_repaint_after(wait);
        }
    }

    /// The left panel: the key count, the source, the key type, and the keys (text or list).
    fn editor_panel_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        ui.add_space(4.0);
        match self.key_set() {
            Some(k) => ui.heading(editor::header(k)),
            None => ui.heading("0 writes · 0 distinct keys"),
        };
        ui.weak(self.source.describe());
        let before = self.settings.key_type;
        if editor::key_type_ui(ui, &mut self.settings.key_type) {
            self.key_type_before = Some(before);
            self.dirty = true;
        }
        if let Some(e) = &self.input_error {
            ui.colored_label(theme::ERROR, format!("{e} — showing the last valid keys"));
        }
        match &mut self.keys {
            Keys::Text(text) => {
                if editor::text_ui(ui, text) {
                    self.source = Source::Paste;
                    self.dirty = true;
                }
            }
            Keys::Data(_) => {
                // The list shows the computed keys (the loaded set once its report is in).
                if let Some(shown) = &self.current
                    && let Some(c) =
                        editor::list_ui(ui, &mut self.editor, &shown.keys, &shown.by_count)
                {
                    commands.push(c);
                }
            }
        }
    }

    /// The centre: shard and workload controls, then the chart block (what Export chart as PNG saves).
    fn chart_panel_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        if controls::controls_ui(ui, &mut self.settings) {
            self.dirty = true;
        }
        let resolved = self
            .current
            .as_ref()
            .and_then(|s| s.report.workload.as_ref())
            .map(|w| w.item_size.clone());
        if !self.settings.presentation || self.settings.workload_enabled {
            let (view_changed, answers_changed) =
                controls::workload_ui(ui, &mut self.settings, &mut self.answers, resolved.as_ref());
            if view_changed {
                self.dirty = true;
            }
            if answers_changed {
                self.update_path();
            }
        }
        if let Some(Shown { keys, report, .. }) = &self.current
            && let Some(c) = controls::fan_out_ui(ui, &self.settings, keys, report)
        {
            commands.push(c);
        }
        let capacity_ok = matches!(self.report().and_then(|r| r.capacity.as_ref()), Some(Ok(_)));
        if capacity_ok || self.groups.is_some() {
            ui.horizontal_wrapped(|ui| {
                if capacity_ok {
                    ui.radio_value(&mut self.settings.capacity_view, false, "Writes per bucket");
                    ui.radio_value(
                        &mut self.settings.capacity_view,
                        true,
                        "% of partition capacity",
                    );
                }
                if let Some(groups) = &self.groups {
                    ui.radio_value(&mut self.by_data_file, false, "By teaching hash");
                    ui.radio_value(&mut self.by_data_file, true, "By export data file")
                        .on_hover_text(
                            "AWS writes at least one data file per partition, and a file's items come from one \
                             partition's key range: this is the export's real grouping",
                        );
                    ui.weak(format!("{} data files", groups.len()));
                }
            });
        }
        if let Some(Err(e)) = self.report().and_then(|r| r.capacity.as_ref()) {
            ui.colored_label(theme::ERROR, format!("capacity: {e}"));
        }
        ui.separator();
        if self.by_data_file
            && let Some(groups) = &self.groups
        {
            self.chart_rect = Some(histogram::groups_ui(ui, groups, self.settings.log_scale));
            return;
        }
        let Some(shown) = self.current.clone().filter(|s| s.report.analysis.total > 0) else {
            let reason = self.empty_reason.clone().or_else(|| {
                self.input_error
                    .as_ref()
                    .map(|e| format!("These keys cannot be read: {e}"))
            });
            self.chart_rect = Some(histogram::empty_ui(ui, reason.as_deref()));
            return;
        };
        if self.settings.capacity_view
            && let Some(Ok(capacity)) = shown.report.capacity.as_ref()
        {
            self.chart_rect = Some(histogram::capacity_ui(ui, capacity));
            return;
        }
        self.chart_rect = Some(histogram::plot_ui(
            ui,
            &histogram::HistogramArgs {
                report: &shown.report,
                log_scale: self.settings.log_scale,
                noun: self.noun(),
            },
        ));
    }

    /// On the first frames: a window larger than its screen (a default size on a small screen or projector)
    /// is made to fit.
    fn fit_to_screen(&mut self, ctx: &egui::Context) {
        if self.fitted {
            return;
        }
        let (monitor, inner) = ctx.input(|i| {
            let v = i.viewport();
            (v.monitor_size, v.inner_rect.map(|r| r.size()))
        });
        let (Some(monitor), Some(inner)) = (monitor, inner) else {
            return;
        };
        self.fitted = true;
        let fit = egui::vec2(inner.x.min(monitor.x * 0.96), inner.y.min(monitor.y * 0.9));
        if fit != inner {
            ctx.send_viewport_cmd(egui::ViewportCommand::InnerSize(fit));
            ctx.send_viewport_cmd(egui::ViewportCommand::OuterPosition(egui::pos2(
                monitor.x * 0.02,
                monitor.y * 0.02,
            )));
        }
    }
}

/// Larger text for projectors: every text style at least 18 px, and roomier widgets; the normal sizes when
/// `on` is false. The chart's own text (axes, tooltips) follows the styles.
fn set_presentation_style(ctx: &egui::Context, on: bool) {
    let base = egui::Style::default();
    ctx.all_styles_mut(|style| {
        style.text_styles = base.text_styles.clone();
        style.spacing = base.spacing.clone();
        if on {
            for (text_style, size) in PRESENTATION_TEXT {
                if let Some(font) = style.text_styles.get_mut(&text_style) {
                    font.size = size;
                }
            }
            style.spacing.interact_size *= 1.6;
            style.spacing.button_padding *= 1.5;
            style.spacing.item_spacing *= 1.4;
        }
    });
}

/// The Help menu: shortcuts, and how to read the chart and the tree.
fn help_ui(ui: &mut egui::Ui) {
    ui.set_max_width(520.0);
    ui.strong(format!("shardlens {}", env!("CARGO_PKG_VERSION")));
    ui.label("See how DynamoDB partition keys spread over partitions.");
    ui.separator();
    ui.strong("How to read the chart");
    ui.label(
        "Each bar is one bucket, an equal range of the hash space (with a workload: one partition). Its height \
         is the writes (or items) whose key hashes into it. Blue: even. Amber: well above the mean, but no one \
         key makes it so (hover for why, e.g. shards of one key that collide). Red: one key holds a bucket at \
         least twice the mean, which is what the tree calls a hot key. Grey bars behind: the spread before \
         sharding.",
    );
    ui.label(
        "Each partition serves at most 3,000 read units and 1,000 write units per second: a hot partition \
         throttles while the rest of the table idles.",
    );
    ui.label(histogram::HASH_CAPTION);
    ui.separator();
    ui.strong("Shortcuts");
    egui::Grid::new("shortcuts").striped(true).show(ui, |ui| {
        for (keys, what) in [
            ("Ctrl+V", "paste keys (outside a text field)"),
            (
                "Ctrl+Z",
                "bring back keys an example, file or scan replaced",
            ),
            ("Ctrl+K", "shard hot keys on or off"),
            ("Ctrl+Shift+C", "copy the key conditions of the sharded key"),
            ("Ctrl+O", "open keys"),
            ("Ctrl+S", "save the session"),
            ("F11 or Ctrl+=", "presentation mode"),
        ] {
            ui.monospace(keys);
            ui.label(what);
            ui.end_row();
        }
    });
}
