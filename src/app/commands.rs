//! Applying commands: examples, answers and fixes, undo, file dialogs, exports and sessions; replacing keys.

#[allow(clippy::wildcard_imports)]
use super::*;

impl App {
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

    pub(super) fn set_keys(&mut self, keys: Keys, source: Source) {
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
    pub(super) fn undo(&mut self) {
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
    pub(super) fn file_dialog(&self, request: dialogs::Request) {
        dialogs::start(
            request,
            self.dialogs.native,
            self.outcomes.0.clone(),
            self.ctx.clone(),
        );
    }

    pub(super) fn save_dialog(
        &self,
        title: &'static str,
        name: &'static str,
        kind: &'static str,
        ext: &'static str,
        bytes: Vec<u8>,
    ) {
        self.file_dialog(dialogs::Request::save(title, name, kind, ext, bytes));
    }

    pub(super) fn export_png(&mut self) {
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
}

pub(super) fn write_png(
    path: &std::path::Path,
    image: &egui::ColorImage,
) -> Result<String, String> {
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
