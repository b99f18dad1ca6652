//! Per-frame work that does not draw: background results (computations, loads, scans, dialogs), shortcuts,
//! recomputation, fitting the first window to the screen.

#[allow(clippy::wildcard_imports)]
use super::*;

impl App {
    /// Starts computing the report for the current keys and settings: inline when small, else on the worker.
    pub(super) fn recompute(&mut self) {
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

    pub(super) fn update_path(&mut self) {
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
                    crate::model::fmt::plural(loaded.keys.total(), noun),
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
                if fresh {
                    // The empty start is nothing to go back to.
                    self.undo.clear();
                }
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
    pub(super) fn drain_scan(&mut self) {
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

    pub(super) fn handle_shortcuts(&mut self, ctx: &egui::Context) {
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

    pub(super) fn drain_background(&mut self) {
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

    /// On the first frames: a window larger than its screen (a default size on a small screen or projector)
    /// is made to fit.
    pub(super) fn fit_to_screen(&mut self, ctx: &egui::Context) {
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
