//! The layout: the menu bar, the status line and one function per panel, in presentation mode or not.

#[allow(clippy::wildcard_imports)]
use super::*;

impl App {
    /// The window title: where the keys come from and how many are shown ("shardlens — pasted keys ·
    /// 1,204 keys"), so a glance (or a desktop test) sees what is loaded.
    pub fn title(&self) -> String {
        match self.key_set() {
            Some(k) => format!(
                "shardlens — {} · {}",
                self.source.describe(),
                crate::model::fmt::plural(k.total(), "key")
            ),
            None => format!("shardlens — {}", self.source.describe()),
        }
    }

    pub(super) fn menu_ui(&mut self, ui: &mut egui::Ui) -> Option<Command> {
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
    pub(super) fn status_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
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
    pub(super) fn editor_panel_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
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
    pub(super) fn chart_panel_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
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
}

/// Larger text for projectors: every text style at least 18 px, and roomier widgets; the normal sizes when
/// `on` is false. The chart's own text (axes, tooltips) follows the styles.
pub(super) fn set_presentation_style(ctx: &egui::Context, on: bool) {
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
pub(super) fn help_ui(ui: &mut egui::Ui) {
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
