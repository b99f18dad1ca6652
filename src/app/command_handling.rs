//! Applying commands: examples, answers and fixes, undo, file dialogs, exports and sessions; replacing keys.

use std::path::PathBuf;
use std::sync::Arc;

use super::command::{Command, UICommand};
use super::data::{Keying, NewKeys};
use super::jobs::Shown;
use super::notices::{Activity, Level};
use super::settings::{ChartMode, SESSION_FORMAT, SESSION_VERSION, Session, SessionKeys, Settings};
use super::tasks::Task;
use super::theme::set_presentation_style;
use super::timeline::TimelineCommand;
use super::{App, Keys, design, dialogs, timeline};
use crate::model::decision::Action;
use crate::model::examples::keys::KeyExample;
use crate::model::examples::time::Example;
use crate::model::export::{buckets_csv, report_doc};
use crate::model::shard::Scope;
use crate::model::{KeySet, KeyType};
use crate::source::Source;

impl App {
    /// Opens the window on a file given on the command line: until it has loaded, and if it fails, the chart
    /// is empty (with the error), never an example that could be read as the file's analysis.
    /// Whatever it is (a scenario, a session, a trace) is decided on the load's task ([`Self::open_any`]).
    pub fn open_at_start(&mut self, path: PathBuf) {
        let empty = Arc::new(KeySet::new(self.data.key_type()));
        self.replace_keys(NewKeys::data(empty, Source::File(path.clone())));
        self.data.forget_undo();
        self.data.empty_reason = Some(format!("loading {}…", path.display()));
        self.open_any(path);
    }

    /// Re-keys the data by a candidate of the Key design comparison; its items stay for the next candidate.
    fn use_design(&mut self, n: usize) {
        let Some(shown) = self.design.shown.clone() else {
            return;
        };
        let (Some(keys), Some(row)) = (shown.keys.get(n), shown.rows.get(n + 1)) else {
            return;
        };
        let source = self.data.source().clone();
        // The same items: what was read of their TTL attribute stays.
        let ttl = self.data.ttl().cloned();
        self.replace_keys(
            NewKeys::data(Arc::clone(keys), source)
                .keying(Keying::Rekey(row.expr.clone()))
                .ttl(ttl),
        );
        self.notify(
            Activity::Keys,
            Level::Info,
            format!(
                "re-keyed by {} ({}): Ctrl+Z (Edit > Undo) brings the previous keys back",
                row.expr,
                crate::model::fmt::plural(row.distinct_keys as u64, "key")
            ),
        );
    }

    /// Examples > Key design: whole items with their attributes, the candidates to start from, the Key
    /// design view.
    fn load_design_example(&mut self, e: crate::model::examples::design::DesignScenario) {
        let ex = e.build();
        let current = crate::model::keyexpr::Expr::attribute(ex.key_attribute)
            .map_or_else(String::new, |x| x.to_string());
        self.replace_keys(
            NewKeys::data(Arc::new(ex.keys), Source::Items(ex.title))
                .keying(Keying::Items(ex.items, current)),
        );
        let mut texts: [String; design::GSI_SLOT + 1] = Default::default();
        for (t, c) in texts.iter_mut().zip(&ex.candidates) {
            *t = (*c).to_owned();
        }
        if let Some(g) = ex.gsis.first() {
            texts[design::GSI_SLOT] = (*g).to_owned();
        }
        // The fix is one click away, not already in a box.
        if let Some(fix) = ex.fix {
            for t in &mut texts {
                if t == fix {
                    t.clear();
                }
            }
        }
        self.design.texts = texts;
        self.design.fix = ex.fix.map(str::to_owned);
        self.design.gsi_fix = ex.gsi_fix.map(str::to_owned);
        self.settings.shard_enabled = false;
        self.settings.chart = ChartMode::Designs;
    }

    /// Applies a command from a panel or a menu.
    pub fn apply(&mut self, command: Command) {
        match command {
            Command::Ui(c) => self.apply_ui(c),
            Command::LoadExample(s) => self.load_example(s),
            Command::OpenLink(text) => self.open_link(&text),
            Command::OpenFullPage => self.open_full_page(),
            Command::LoadSimulation(e) => self.load_simulation(e),
            Command::OpenTrace(path) => {
                let options = self.trace_options();
                self.open_trace(path, dialogs::Action::OpenTrace(options));
            }
            Command::SimulationAnswer(q, a) => {
                if let Some(sim) = &mut self.timeline.sim {
                    sim.answer(Some((q, a)));
                }
            }
            Command::ShardSimulation(action) => self.fix_run(action),
            Command::Timeline(TimelineCommand::WhatIf(w)) => self.what_if(w),
            Command::Timeline(c) => {
                if let Some(sim) = &mut self.timeline.sim {
                    sim.apply(c);
                }
            }
            Command::DismissNotice(activity) => self.notices.dismiss(activity),
            Command::ToggleSidePanels => self.panels.show_side = !self.panels.show_side,
            Command::EditDesign(slot, text) => self.design.edit(slot, text),
            Command::UseDesign(n) => self.use_design(n),
            Command::LoadDesignExample(e) => self.load_design_example(e),
            Command::InspectKey(key) => self.inspect_key(&key),
            Command::Answer(q, a) => {
                self.pipeline.answers.set(q, a);
                self.pipeline.answers_changed();
            }
            Command::SetAnswers(answers) => {
                self.pipeline.answers = answers;
                self.pipeline.answers_changed();
            }
            Command::Apply(action) => self.apply_fix(action),
            Command::Copy(text) => {
                self.ctx.copy_text(text);
                self.notify(Activity::Clipboard, Level::Info, "copied to the clipboard");
            }
            Command::EditAsText => self.edit_as_text(),
            Command::EditText(text) => self.edit_text(text),
            Command::SetKeyType(key_type) => self.set_key_type(key_type),
            Command::Set(change) => self.change_setting(change),
            Command::SetChart(mode) => self.settings.chart = mode,
            Command::SetLoadOptions(opts) => {
                self.data.load_options = *opts;
                // Chosen for the next load, whichever file it reads.
                self.data.options_for = None;
            }
            Command::KeepLoadOptions(keep) => self.data.keep_load_options = keep,
            Command::SetConnectSettings(c) => self.settings.connect = c,
            Command::ListTables(c) => self.panels.connect.list_tables(&self.ctx, &c),
            Command::DescribeTable(c, table) => self.panels.connect.describe(&self.ctx, &c, table),
            Command::Connect => self.panels.connect.open = true,
            Command::Scan(args) => {
                let (connect, scan) = *args;
                self.start_scan(connect, scan);
            }
            Command::CancelScan => {
                if let Some(job) = &self.background.scan {
                    job.cancel();
                }
            }
            Command::Watch(request) => self.start_watch(*request),
            Command::StopWatch => self.stop_watch(),
            Command::Metrics(request) => self.start_metrics(*request),
            Command::CancelLoad => self.cancel_load(),
            Command::OpenTable(path, table) => self.open_table(path, table),
            Command::CloseTablePicker => self.panels.table_picker = None,
            Command::FinishPath(job) => match dialogs::finish_path(*job, &self.ctx) {
                Ok(task) => self.background.dialogs.push(task),
                Err(e) => self.notify(Activity::File, Level::Error, e.to_string()),
            },
        }
    }

    /// Selects a key by its displayed text in the partition inspector (shown, in presentation mode, with the
    /// side panels); a key the data on screen does not hold is said so.
    fn inspect_key(&mut self, text: &str) {
        let Some(shown) = &self.pipeline.current else {
            return;
        };
        let keys = &shown.keys;
        let found = crate::model::key::canonical_partition_key(text.as_bytes(), keys.key_type())
            .ok()
            .and_then(|c| keys.find(&c));
        match found {
            Some(idx) => {
                self.panels.inspector.inspect(shown.keys_generation, idx);
                self.panels.show_side = true;
            }
            None => self.notify(
                Activity::Keys,
                Level::Info,
                format!("{text} is not among the keys on screen"),
            ),
        }
    }

    /// Starts a built-in simulation (Examples > Over time).
    fn load_simulation(&mut self, e: Example) {
        match crate::source::scenario::parse_scenario(e.toml, None, e.name) {
            Ok(s) => self.start_run(
                timeline::Run::scenario(s, e.toml.to_owned()),
                super::runs::Start::Shown,
            ),
            Err(err) => self.notify(Activity::File, Level::Error, err.to_string()),
        }
    }

    /// A setting a control changed; the pipeline recomputes only when the view changed.
    fn change_setting(&mut self, change: super::command::SettingChange) {
        let before = (self.settings.view(), self.settings.buckets);
        change.apply(&mut self.settings);
        if (self.settings.view(), self.settings.buckets) != before {
            self.pipeline.input_changed();
        }
    }

    /// Stops the load under way; the keys on screen stay.
    fn cancel_load(&mut self) {
        self.background.jobs.cancel_load();
        self.background.load_progress = None;
        self.notify(
            Activity::Load,
            Level::Info,
            "loading cancelled; the previous keys stay",
        );
    }

    /// A menu or shortcut command.
    fn apply_ui(&mut self, command: UICommand) {
        match command {
            UICommand::OpenFile => self.file_dialog(dialogs::Request::open_keys()),
            UICommand::OpenFolder => self.file_dialog(dialogs::Request::open_folder()),
            UICommand::Reload => match self.data.last_file.clone() {
                Some((input, Some(table))) => self.open_table(input.name().to_path_buf(), table),
                Some((input, None)) => self.open_input(input, crate::source::open::Expect::Keys),
                None => self.notify(
                    Activity::Load,
                    Level::Info,
                    "no file to reload yet: open one with File > Open keys",
                ),
            },
            UICommand::Connect => self.panels.connect.open = true,
            UICommand::OpenSession => self.file_dialog(dialogs::Request::open_session()),
            UICommand::SaveSession => self.save_session(),
            UICommand::OpenLink => self.panels.open_link.text = Some(String::new()),
            UICommand::CopyLink => self.copy_link(),
            UICommand::OpenScenario => self.file_dialog(dialogs::Request::open_scenario()),
            UICommand::OpenTrace => {
                self.file_dialog(dialogs::Request::open_trace(self.trace_options()));
            }
            UICommand::SaveScenario => self.save_scenario(),
            UICommand::ExportPng => self.export_png(),
            UICommand::ExportCsv => self.export_csv(),
            UICommand::ExportJson => self.export_json(),
            UICommand::Quit => self.ctx.send_viewport_cmd(egui::ViewportCommand::Close),
            UICommand::Undo => self.undo(),
            UICommand::Paste => self
                .ctx
                .send_viewport_cmd(egui::ViewportCommand::RequestPaste),
            UICommand::ToggleShard => {
                self.settings.shard_enabled = !self.settings.shard_enabled;
                self.pipeline.input_changed();
            }
            UICommand::CopyConditions => self.copy_conditions(),
            UICommand::TogglePresentation => {
                self.settings.presentation = !self.settings.presentation;
                self.panels.show_side = false;
                set_presentation_style(&self.ctx, self.settings.presentation);
            }
            UICommand::ToggleLogScale => self.settings.log_scale = !self.settings.log_scale,
            UICommand::ToggleHealth => self.toggle_health(),
        }
    }

    /// View > Table health: opens it beside the inspector (with the side panels in presentation mode) and
    /// scrolls it into view, or closes it when it is on screen.
    fn toggle_health(&mut self) {
        let on_screen = self.panels.health.open && self.side_panels_shown();
        let health = &mut self.panels.health;
        health.open = !on_screen;
        health.reveal = if health.open { 5 } else { 0 };
        if health.open {
            self.panels.show_side = true;
        }
    }

    fn load_example(&mut self, s: KeyExample) {
        let had_own = !matches!(self.data.source(), Source::Example(_))
            && self.key_set().is_some_and(|k| k.total() > 0);
        self.replace_keys(NewKeys::text(s.text(), Source::Example(s), KeyType::S));
        self.settings.shard_enabled = false;
        if self.settings.chart == ChartMode::Timeline {
            self.settings.chart = ChartMode::Capacity;
        }
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

    /// The tree's fix: shard the hot keys (or every key), or double the shards already in effect.
    fn apply_fix(&mut self, action: Action) {
        self.settings.shard_enabled = true;
        if action == Action::MoreShards {
            self.settings.shard.shards =
                (self.settings.shard.shards * 2).clamp(2, crate::model::shard::MAX_SHARDS);
        } else {
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
        }
        self.pipeline.input_changed();
    }

    fn copy_conditions(&mut self) {
        match self.shard_queries() {
            Some(q) => {
                self.ctx.copy_text(q.command_lines());
                let mut text = format!(
                    "copied {} aws dynamodb query command lines for {}",
                    q.queries.len(),
                    q.key
                );
                for note in &q.notes {
                    text.push_str("; ");
                    text.push_str(note);
                }
                self.notify(Activity::Clipboard, Level::Info, text);
            }
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

    fn save_session(&mut self) {
        match self.session().to_json() {
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
        }
    }

    /// The buckets of the report on screen, with the hash ranges of the view it was computed with (not the
    /// live settings, which may already ask for another bucket count).
    fn export_csv(&mut self) {
        if let Some(shown) = &self.pipeline.current {
            let csv = buckets_csv(&shown.report, shown.view.bucket_count());
            self.save_dialog(
                "Export buckets as CSV",
                "buckets.csv",
                "CSV",
                "csv",
                csv.into_bytes(),
            );
        }
    }

    /// The report on screen as JSON, with the view it was computed with.
    fn export_json(&mut self) {
        let (
            Some(Shown {
                keys, report, view, ..
            }),
            Some(path),
        ) = (&self.pipeline.current, &self.pipeline.path)
        else {
            return;
        };
        let doc = report_doc(self.data.source().describe(), keys, view, report, path);
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

    /// Shows a file dialog (or the path field when none can open) and finishes its action off the UI thread.
    pub(super) fn file_dialog(&mut self, request: dialogs::Request) {
        match dialogs::start(request, self.panels.dialogs.native, &self.ctx) {
            Ok(task) => self.background.dialogs.push(task),
            Err(e) => self.notify(Activity::File, Level::Error, e.to_string()),
        }
    }

    pub(super) fn save_dialog(
        &mut self,
        title: &'static str,
        name: &'static str,
        kind: &'static str,
        ext: &'static str,
        bytes: Vec<u8>,
    ) {
        self.file_dialog(dialogs::Request::save(title, name, kind, ext, bytes));
    }

    /// Export chart: the chart block on screen as a PNG. In Key design the next frame draws the designs'
    /// histograms alone and saves that ([`design::export_ui`]): the view itself scrolls, and a grab of it
    /// held half a card and its buttons.
    pub(super) fn export_png(&mut self) {
        if self.view() == super::views::View::Design {
            if self.design.shown.is_none() {
                self.notify(
                    Activity::File,
                    Level::Error,
                    "no chart to export: type a candidate key to compare first",
                );
                return;
            }
            self.panels.design_export = 3;
            self.ctx.request_repaint();
            return;
        }
        self.screenshot_chart();
    }

    /// Saves the chart block drawn this frame: a screenshot is requested, and its region goes to a save dialog.
    pub(super) fn screenshot_chart(&mut self) {
        let Some(rect) = self.panels.chart_rect else {
            self.notify(Activity::File, Level::Error, "no chart to export");
            return;
        };
        // The screenshot arrives in a later frame, outside this call: its dialog starts there and reports
        // back through a task of its own, drained with the other dialogs. In a page the screenshot's callback
        // sends it (no thread may wait for it there).
        #[cfg(target_arch = "wasm32")]
        {
            let (task, reporter) = Task::later(&self.ctx);
            let ctx = self.ctx.clone();
            let ppp = self.ctx.pixels_per_point();
            let native = self.panels.dialogs.native;
            self.ctx.request_screenshot(move |image| {
                let region = image.region(&rect, Some(ppp));
                reporter.send(dialogs::start(
                    dialogs::Request::save_png(region),
                    native,
                    &ctx,
                ));
            });
            self.background.screenshots.push(task);
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let ctx = self.ctx.clone();
            let ppp = self.ctx.pixels_per_point();
            let native = self.panels.dialogs.native;
            self.ctx.request_screenshot(move |image| {
                let region = image.region(&rect, Some(ppp));
                let _ = tx.send(dialogs::start(
                    dialogs::Request::save_png(region),
                    native,
                    &ctx,
                ));
            });
            match Task::spawn("screenshot", &self.ctx, 1, move |r| {
                if let Ok(started) = rx.recv() {
                    r.send(started);
                }
            }) {
                Ok(task) => self.background.screenshots.push(task),
                Err(e) => self.notify(Activity::File, Level::Error, e.to_string()),
            }
        }
    }

    /// Keys and every setting, for Save session.
    pub fn session(&self) -> Session {
        let (text, keys) = match self.data.keys() {
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
                ..self.settings()
            },
            answers: self.pipeline.answers,
            text,
            keys,
            scenario: None,
        }
    }

    /// Opens a session; a malformed one leaves everything as it was and says why.
    pub fn open_session(&mut self, bytes: &[u8], name: &str) {
        let opened = Session::parse(bytes).and_then(|s| s.keys().map(|keys| (s, keys)));
        let source = Source::File(PathBuf::from(name));
        let (session, keys) = match opened {
            Ok((s, SessionKeys::Text(t))) => {
                let key_type = s.settings.key_type;
                (s, NewKeys::text(t, source, key_type))
            }
            Ok((s, SessionKeys::Data(set))) => (s, NewKeys::data(Arc::new(*set), source)),
            Err(e) => {
                self.notify(
                    Activity::File,
                    Level::Error,
                    format!("cannot open session {name}: {e}"),
                );
                return;
            }
        };
        let presentation = self.settings.presentation;
        self.settings = session.settings;
        self.settings.presentation = presentation;
        self.replace_keys(keys);
        self.pipeline.answers = session.answers;
        self.notify(
            Activity::File,
            Level::Info,
            format!("opened session {name}"),
        );
    }
}
