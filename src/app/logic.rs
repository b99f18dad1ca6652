//! Per-frame work that does not draw: background results (computations, loads, scans, dialogs), shortcuts,
//! recomputation, fitting the first window to the screen.

use std::path::PathBuf;
use std::sync::Arc;

use super::command::{Command, UICommand};
use super::data::{Keying, NewKeys};
use super::jobs::{Computed, LoadEvent};
use super::notices::{Activity, Level};
use super::pipeline::Arrived;
use super::runs::Start;
use super::settings::ChartMode;
use super::timeline::Run;
use super::{App, Outcome, connect, dialogs, notices, table_picker};
use crate::model::KeyType;
use crate::model::examples::keys::KeyExample;
use crate::source::open::{Expect, Input, OpenError, Opened};
use crate::source::{Message, Source};

impl App {
    /// Starts computing the report for the current keys and settings ([`Pipeline::recompute`]); a result
    /// computed inline arrives at once.
    pub(super) fn recompute(&mut self) {
        let view = self.settings.view();
        if let Some(computed) = self
            .pipeline
            .recompute(&self.data, view, &mut self.background.jobs)
        {
            self.on_computed(computed);
        }
    }

    /// A computed report arrives ([`Pipeline::on_computed`]); what it could not show is said here.
    pub fn on_computed(&mut self, computed: Computed) {
        match self
            .pipeline
            .on_computed(computed, &mut self.data, &mut self.design)
        {
            Arrived::Stale | Arrived::Shown | Arrived::InputError => {}
            Arrived::PasteFailed(e) => self.notify(
                Activity::Keys,
                Level::Error,
                format!("cannot use these keys: {e}; the previous keys stay"),
            ),
            Arrived::KeyTypeFailed {
                wanted,
                kept,
                error,
            } => self.notify(
                Activity::Keys,
                Level::Error,
                format!(
                    "cannot read these keys as {} keys: {error}; the key type stays {}",
                    wanted.as_str(),
                    kept.as_str()
                ),
            ),
        }
    }

    /// What [`crate::source::open`] read from `path` (on the load's task or a dialog's): keys replace what was
    /// there, a session opens, a scenario or a trace runs in the Timeline; on failure what was there stays.
    pub(super) fn on_opened(&mut self, path: PathBuf, result: Result<Opened, OpenError>) {
        self.background.load_progress = None;
        self.background.trace_progress = None;
        let opened = match result {
            Ok(Opened::Keys(loaded)) => return self.on_load_done(Ok(*loaded), path),
            Err(OpenError::Keys(e)) => return self.on_load_done(Err(e), path),
            Err(e) => {
                let text = self.notify_error(Activity::File, None, e, None);
                // A path given at start that failed: the chart says why it is empty.
                if self.data.empty_reason.is_some() {
                    self.data.empty_reason = Some(text);
                }
                return;
            }
            Ok(opened) => opened,
        };
        self.leave_start_placeholder();
        match opened {
            Opened::Session(bytes) => self.open_session(&bytes, &path.display().to_string()),
            Opened::Scenario(scenario, text) => {
                self.start_run(Run::scenario(*scenario, text), Start::Shown);
            }
            Opened::Trace(load) => self.start_replay(path, *load),
            Opened::Keys(loaded) => self.on_load_done(Ok(*loaded), path),
        }
    }

    /// A path given at start held no keys (a scenario, a trace, a session): the empty chart that waited for its
    /// keys gives way to the example, as when the app starts on nothing.
    fn leave_start_placeholder(&mut self) {
        let waiting =
            self.data.empty_reason.is_some() && self.key_set().is_none_or(|k| k.total() == 0);
        if waiting {
            let example = KeyExample::Leaderboard;
            self.replace_keys(NewKeys::text(
                example.text(),
                Source::Example(example),
                KeyType::S,
            ));
            self.data.forget_undo();
        }
    }

    /// A file load finished: on success the keys replace what was there; on failure what was there stays.
    pub fn on_load_done(
        &mut self,
        result: Result<crate::source::Loaded, crate::source::SourceError>,
        path: PathBuf,
    ) {
        self.background.load_progress = None;
        let fresh = self.data.empty_reason.is_some();
        // The status line names the file; its full path is the notice's detail.
        let name = crate::source::display_file_name(&path);
        let full = Some(path.display().to_string());
        match result {
            Ok(loaded) if loaded.keys.total() == 0 => {
                let text = if fresh {
                    format!("{name} has no keys")
                } else {
                    format!("{name} has no keys: the previous keys stay")
                };
                if fresh {
                    self.data.empty_reason = Some(text.clone());
                }
                self.notify_detailed(Activity::Load, Level::Warning, text, full);
            }
            Ok(loaded) => {
                self.data.empty_reason = None;
                let noun = if loaded.keys.write_ordered() {
                    "write"
                } else {
                    "item"
                };
                let mut text = format!(
                    "loaded {} from {name}",
                    crate::model::fmt::plural(loaded.keys.total(), noun),
                );
                if loaded.skipped > 0 {
                    let skipped = crate::model::fmt::plural(loaded.skipped, "bad record");
                    text.push_str(&format!(" ({skipped} skipped)"));
                }
                if let Some(attr) = &loaded.key_attribute {
                    text.push_str(&format!("; key attribute {attr}"));
                }
                if let Some(shape) = &loaded.shape {
                    text.push_str(&format!(" (read as {})", notices::said(shape)));
                }
                // Warnings stay on the load's line, after what was loaded, their hints in the window's words.
                let level = if loaded.warnings.is_empty() {
                    Level::Info
                } else {
                    text.push_str(" — ");
                    text.push_str(&notices::said(&Message::join(&loaded.warnings, "; ")));
                    Level::Warning
                };
                self.notify_detailed(Activity::Load, level, text, full);
                // A file that loaded is a path that worked: the "no file dialog" warning has done its job.
                self.notices.clear(Activity::Dialog);
                self.panels.table_picker = table_picker::TablePicker::for_load(&path, &loaded);
                if self.settings.chart == ChartMode::DataFiles {
                    self.settings.chart = ChartMode::Capacity;
                }
                let target = crate::model::query::Target {
                    table: loaded.table.clone(),
                    partition_key: loaded.key_attribute.clone(),
                    sort_key: loaded.sort_key_attribute.clone(),
                };
                // The Key design view says the keys are keyed by the attribute the load used.
                let keyed_by = loaded
                    .key_attribute
                    .as_deref()
                    .and_then(crate::model::keyexpr::Expr::attribute)
                    .map(|e| e.to_string());
                self.replace_keys(
                    NewKeys::data(Arc::new(loaded.keys), Source::File(path))
                        .groups(loaded.groups)
                        .ttl(loaded.ttl.map(Arc::new))
                        .keying(Keying::Source(keyed_by))
                        .target(target),
                );
                if fresh {
                    // The empty start is nothing to go back to.
                    self.data.forget_undo();
                }
            }
            Err(e) => {
                // The line also stands where the chart would be.
                let what = format!("could not load {name}");
                let text = self.notify_error(Activity::Load, Some(&what), e, full);
                if fresh {
                    self.data.empty_reason = Some(text);
                }
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
        if let Some(job) = self.background.scan.take() {
            job.cancel();
        }
        self.stop_watch_for_scan();
        self.notices.clear(Activity::Scan);
        match connect::ScanJob::start(&self.ctx, connect, scan) {
            Ok(job) => {
                self.background.scan = Some(job);
                self.background.scan_heard_at = Some(web_time::Instant::now());
            }
            Err(e) => {
                self.notify_error(Activity::Scan, None, e, None);
            }
        }
    }

    /// Whether a table scan is under way.
    pub fn scanning(&self) -> bool {
        self.background.scan.is_some()
    }

    /// Shows a scan's pages as the scan thread merges them (a snapshot at most a few times a second) and its
    /// result when done; a scan that stops early keeps what it read, labelled.
    pub(super) fn drain_scan(&mut self) {
        let Some(job) = &mut self.background.scan else {
            return;
        };
        let update = job.drain();
        if update.is_some() {
            self.background.scan_heard_at = Some(web_time::Instant::now());
        }
        let table = job.table.clone();
        match update {
            None | Some(connect::ScanUpdate::Heard) => {}
            Some(connect::ScanUpdate::Snapshot(keys)) => {
                let source = Source::Table {
                    name: table,
                    status: format!(
                        "scanning: {}",
                        crate::model::fmt::plural(keys.total(), "item")
                    ),
                };
                self.replace_keys(NewKeys::data(keys, source));
            }
            Some(connect::ScanUpdate::Done(result)) => {
                self.background.scan = None;
                match result {
                    Ok(scanned) => {
                        let status = scanned.status.describe();
                        let complete = scanned.status.is_complete();
                        let level = if complete {
                            Level::Info
                        } else {
                            Level::Warning
                        };
                        let text = format!("{table}: {} — {}", status, scanned.progress.summary());
                        self.notify(Activity::Scan, level, text);
                        let status = if complete { String::new() } else { status };
                        let target = crate::model::query::Target {
                            table: Some(table.clone()),
                            partition_key: scanned.key_attribute,
                            sort_key: scanned.sort_key_attribute,
                        };
                        let source = Source::Table {
                            name: table,
                            status,
                        };
                        let designs = scanned.designs;
                        self.replace_keys(
                            NewKeys::data(Arc::new(scanned.keys), source).target(target),
                        );
                        // The GSIs chosen in Connect: the Key design view shows their spread.
                        self.design.scanned = designs;
                    }
                    Err(e) => {
                        let what = format!("cannot scan {table}");
                        self.notify_error(Activity::Scan, Some(&what), e, None);
                    }
                }
            }
        }
    }

    /// Starts loading a file of keys in the background (File > Open, Reload): a scenario file or a session
    /// opens as what it is.
    pub fn open_path(&mut self, path: PathBuf) {
        self.open_input(Input::Path(path), Expect::Keys);
    }

    /// Opens whatever `path` is in the background (the command line, drag and drop): keys, a session, a
    /// scenario, or a trace when it holds traffic only traces have ([`crate::source::open`] decides, on its
    /// task).
    pub fn open_any(&mut self, path: PathBuf) {
        self.open_input(Input::Path(path), Expect::Any(self.trace_options()));
    }

    /// Opens bytes with a name (a file given to the page, dropped on it or picked in it) as [`Self::open_any`]
    /// opens a path: keys, a session, a scenario or a trace.
    pub fn open_bytes(&mut self, name: PathBuf, bytes: Arc<[u8]>) {
        self.open_input(
            Input::Bytes { name, bytes },
            Expect::Any(self.trace_options()),
        );
    }

    /// Opens files dropped on the window in one frame: the first by its path on the desktop; in a page, whose
    /// files have no path, all of them together once the browser has read their bytes ([`dialogs::dropped`]).
    fn open_dropped(&mut self, files: &[egui::DroppedFileHandle]) {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(file) = files.first() {
            self.open_any(file.path().to_path_buf());
        }
        #[cfg(target_arch = "wasm32")]
        if !files.is_empty() {
            self.background
                .dialogs
                .push(dialogs::dropped(files.to_vec(), &self.ctx));
        }
    }

    /// Opens what a page was given (picked or dropped): a drop, which says nothing of what it is, as
    /// [`Self::open_any`] opens a path, with the trace options as they are now.
    fn open_given(&mut self, input: Input, expect: Expect) {
        let expect = match expect {
            Expect::Any(_) => Expect::Any(self.trace_options()),
            other => other,
        };
        self.open_input(input, expect);
    }

    /// Starts opening `input` as `expect` says on the load's task.
    pub(super) fn open_input(&mut self, input: Input, expect: Expect) {
        let path = input.name().to_path_buf();
        self.data.last_file = Some((input.clone(), self.data.load_options.table.clone()));
        // Options chosen for one file apply to it (and to File > Reload), not to the next (unless kept).
        let another = self.data.options_for.as_ref().is_some_and(|p| *p != path);
        if another && !self.data.keep_load_options {
            let o = &mut self.data.load_options;
            o.format = crate::source::FormatIn::Auto;
            o.key = None;
            o.sort_key = None;
            o.csv_columns = None;
            o.csv_header = crate::source::CsvHeader::Auto;
            o.key_type = None;
        }
        self.data.options_for = Some(path.clone());
        // A file's key type is its data's (typed formats carry it, plain JSON's values have a kind, lines and
        // CSV are strings) unless Load options name one, as `--key-type` does: the editor's Key type is for
        // typed and pasted keys, and the last file's type never carries over to the next.
        let opts = self.data.load_options.clone();
        self.notices.clear(Activity::Load);
        if let Err(e) = self.background.jobs.load_file(input, opts, expect) {
            self.notify_error(Activity::Load, None, e, None);
        }
    }

    /// The shortcuts of the [`UICommand`] table (Ctrl+V arrives as a paste event, handled in [`Self::tick`]).
    pub(super) fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        let typing = ctx.memory(|m| m.focused().is_some());
        let mut commands = Vec::new();
        ctx.input_mut(|i| {
            for c in UICommand::ALL {
                if c == UICommand::Paste || (typing && !c.while_typing()) {
                    continue;
                }
                if c.shortcuts().iter().any(|s| i.consume_shortcut(s)) {
                    commands.push(Command::Ui(c));
                }
            }
        });
        for c in commands {
            self.apply(c);
        }
    }

    pub(super) fn drain_background(&mut self) {
        for computed in self.background.jobs.drain() {
            self.on_computed(computed);
        }
        for event in self.background.jobs.drain_load() {
            match event {
                LoadEvent::Progress(p) => self.background.load_progress = Some(p),
                LoadEvent::Done(result, path) => self.on_opened(path, *result),
            }
        }
        for started in self.background.screenshots.drain() {
            match started {
                Ok(task) => self.background.dialogs.push(task),
                Err(e) => {
                    self.notify_error(Activity::File, None, e, None);
                }
            }
        }
        for outcome in self.background.dialogs.drain() {
            self.on_outcome(outcome);
        }
    }

    fn on_outcome(&mut self, outcome: Outcome) {
        if let Outcome::TraceProgress(path, p, started) = outcome {
            self.background.trace_progress = Some((path, p, started));
            return;
        }
        // Whatever else a dialog's task says, a trace it was reading is done (read, or failed).
        self.background.trace_progress = None;
        match outcome {
            Outcome::OpenKeys(path) => self.open_path(path),
            Outcome::Open(input, expect) => self.open_given(input, expect),
            Outcome::Opened(path, opened) => self.on_opened(path, Ok(*opened)),
            Outcome::Saved(Ok(msg)) => self.notify(Activity::File, Level::Info, msg),
            Outcome::Saved(Err(e)) => {
                self.notify_error(Activity::File, None, e, None);
            }
            Outcome::Nothing | Outcome::TraceProgress(..) => {}
            Outcome::Path(reply) => {
                // A path that worked ends the "no file dialog" warning: that activity succeeded.
                if matches!(reply, dialogs::Reply::Done(..)) {
                    self.notices.clear(Activity::Dialog);
                }
                if let Some((text, detail)) = self.panels.dialogs.on_reply(reply) {
                    self.notify_detailed(Activity::Dialog, Level::Warning, text, Some(detail));
                }
            }
        }
    }

    /// Per-frame work that is not drawing: results from the background, shortcuts, recomputation.
    pub fn tick(&mut self, ctx: &egui::Context) {
        self.fit_to_screen(ctx);
        self.drain_background();
        self.drain_scan();
        self.drain_watch();
        self.drain_metrics();
        self.panels.connect.drain();
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        if !dropped.is_empty() {
            self.open_dropped(&dropped);
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
        if let Some(sim) = &mut self.timeline.sim {
            sim.tick(web_time::Instant::now());
        }
        if self.pipeline.dirty {
            self.recompute();
        }
        self.view_tick(ctx);
        let title = self.title();
        if title != self.panels.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.panels.shown_title = title;
        }
    }

    /// On the first frames: a window larger than its screen (a default size on a small screen or projector)
    /// is made to fit.
    pub(super) fn fit_to_screen(&mut self, ctx: &egui::Context) {
        if self.panels.fitted {
            return;
        }
        let (monitor, inner) = ctx.input(|i| {
            let v = i.viewport();
            (v.monitor_size, v.inner_rect.map(|r| r.size()))
        });
        let (Some(monitor), Some(inner)) = (monitor, inner) else {
            return;
        };
        self.panels.fitted = true;
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
