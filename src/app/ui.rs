//! The layout: the menu bar and one function per panel, in presentation mode or not (the status line in
//! `status.rs`).

use super::command::{Command, UICommand};
use super::jobs::Shown;
use super::links;
use super::settings::ChartMode;
use super::views::{KeysChart, Showing, View};
use super::{
    App, Keys, command, connect, controls, design, editor, health, histogram, theme, timeline,
};
use crate::model::examples::keys::KeyExample;

/// The most of the window's width the editor (left) and the tree and inspector (right) can be dragged to:
/// together 65 %, so the chart keeps at least 35 % of any window, whatever the keys' length.
pub const SIDE_SHARE: [f32; 2] = [0.3, 0.35];

impl App {
    /// The window title: where the keys come from and how many writes or items they count, in the key
    /// panel's words ("shardlens — pasted keys · 1,204 writes"), so a glance (or a desktop test) sees what is
    /// loaded.
    pub fn title(&self) -> String {
        match self.key_set() {
            Some(k) => format!(
                "shardlens — {} · {}",
                self.data.source().describe(),
                editor::total(k)
            ),
            None => format!("shardlens — {}", self.data.source().describe()),
        }
    }

    /// The last opened file's name, for File > Reload (`None` before any file was opened).
    fn reload_name(&self) -> Option<String> {
        let path = self.data.last_file.as_ref()?.0.name();
        Some(path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ))
    }

    /// The menu bar: File, Edit and View list the [`UICommand`] table; Examples the teaching examples.
    pub(super) fn menu_ui(&self, ui: &mut egui::Ui) -> Vec<Command> {
        let mut commands = Vec::new();
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                self.menu_items(ui, command::Menu::File, &mut commands);
                ui.separator();
                // Its fields take clicks and typing: only a click outside closes it (a menu's default closes
                // on any click, which made the text fields impossible to type into).
                let options = egui::containers::menu::MenuConfig::new()
                    .close_behavior(egui::PopupCloseBehavior::CloseOnClickOutside);
                egui::containers::menu::SubMenuButton::new("Load options")
                    .config(options)
                    .ui(ui, |ui| {
                        let mut opts = self.data.load_options.clone();
                        let mut keep = self.data.keep_load_options;
                        editor::load_options_ui(ui, &mut opts, &mut keep);
                        if opts != self.data.load_options {
                            commands.push(Command::SetLoadOptions(Box::new(opts)));
                        }
                        if keep != self.data.keep_load_options {
                            commands.push(Command::KeepLoadOptions(keep));
                        }
                        // The options apply to the next load: the last file is one click away.
                        if let Some(name) = self.reload_name() {
                            ui.separator();
                            if ui
                                .button(format!("Reload {name} with these options"))
                                .on_hover_text(UICommand::Reload.tooltip())
                                .clicked()
                            {
                                commands.push(Command::Ui(UICommand::Reload));
                                ui.close();
                            }
                        }
                    });
            });
            ui.menu_button("Edit", |ui| {
                self.menu_items(ui, command::Menu::Edit, &mut commands);
            });
            ui.menu_button("Examples", |ui| examples_menu(ui, &mut commands));
            ui.menu_button("View", |ui| {
                self.menu_items(ui, command::Menu::View, &mut commands);
                ui.separator();
                egui::widgets::global_theme_preference_buttons(ui);
            });
            ui.menu_button("Help", help_ui);
            // Presentation mode's controls share the menu's row: the chart keeps the height.
            if self.settings.presentation {
                ui.separator();
                presentation_bar_ui(ui, self.panels.show_side, &mut commands);
            }
        });
        commands
    }

    /// One menu's items from the [`UICommand`] table, with their shortcuts and a separator between groups;
    /// a chosen item closes the menu, so it does not cover what the command opens.
    fn menu_items(&self, ui: &mut egui::Ui, menu: command::Menu, commands: &mut Vec<Command>) {
        let mut group = None;
        for c in UICommand::ALL.into_iter().filter(|c| c.menu().0 == menu) {
            if group.is_some_and(|g| g != c.menu().1) {
                ui.separator();
            }
            group = Some(c.menu().1);
            let (label, enabled) = match c {
                UICommand::Undo => match self.undo_label() {
                    Some(what) => (format!("Undo: back to {what}"), true),
                    None => ("Undo".to_owned(), false),
                },
                UICommand::Reload => match self.reload_name() {
                    Some(name) => (format!("Reload {name}"), true),
                    None => (c.label().to_owned(), false),
                },
                // Table health is about the keys; the Timeline shows a scenario.
                UICommand::ToggleHealth => (c.label().to_owned(), self.view().inspects_keys()),
                UICommand::SaveScenario => (c.label().to_owned(), self.unsaved_why().is_none()),
                _ => (c.label().to_owned(), c.unavailable().is_none()),
            };
            let selected = match c {
                UICommand::TogglePresentation => Some(self.settings.presentation),
                UICommand::ToggleShard => Some(self.settings.shard_enabled),
                UICommand::ToggleLogScale => Some(self.settings.log_scale),
                UICommand::ToggleHealth => {
                    Some(self.panels.health.open && self.side_panels_shown())
                }
                _ => None,
            };
            let mut button = match selected {
                Some(on) => egui::Button::selectable(on, label),
                None => egui::Button::new(label),
            };
            if !c.shortcuts().is_empty() {
                button = button.shortcut_text(c.shortcut_text(ui.ctx()));
            }
            let why_not = match c {
                UICommand::SaveScenario => self.unsaved_why(),
                _ => c.unavailable().map(str::to_owned),
            };
            if ui
                .add_enabled(enabled, button)
                .on_hover_text(c.tooltip())
                .on_disabled_hover_text(why_not.unwrap_or_else(|| c.tooltip().to_owned()))
                .clicked()
            {
                commands.push(Command::Ui(c));
                ui.close();
            }
        }
    }

    /// Draws every panel; the commands they return are applied afterwards, once.
    pub fn draw(&mut self, ui: &mut egui::Ui) {
        if self.panels.embed {
            return self.draw_embed(ui);
        }
        let mut commands: Vec<Command> = Vec::new();
        commands.extend(self.panels.dialogs.ui(ui.ctx()));
        commands.extend(links::open_link_ui(ui.ctx(), &mut self.panels.open_link));
        if self.panels.connect.open {
            commands.extend(connect::connect_ui(
                ui.ctx(),
                &mut self.panels.connect,
                &self.settings.connect,
            ));
        }
        commands.extend(self.table_picker_frame(ui.ctx()));
        egui::Panel::top("menu").show(ui, |ui| {
            commands.extend(self.menu_ui(ui));
        });
        egui::Panel::bottom("status").show(ui, |ui| self.status_ui(ui, &mut commands));
        // The view on screen is chosen once; each part below asks it, not the chart mode.
        let view = self.view();
        if self.side_panels_shown() {
            self.side_panels_ui(ui, view, &mut commands);
        } else {
            egui::Panel::bottom("decision-strip").show(ui, |ui| {
                ui.add_space(4.0);
                commands.extend(self.path_strip_ui(ui));
                ui.add_space(4.0);
            });
        }
        egui::CentralPanel::default().show(ui, |ui| self.chart_panel_ui(ui, view, &mut commands));
        self.finish_frame(ui, commands);
    }

    /// Applies what the frame's panels asked for, once, and computes what that changed.
    pub(super) fn finish_frame(&mut self, ui: &mut egui::Ui, commands: Vec<Command>) {
        // Export chart in Key design asked before this frame: the frame drew what it saves.
        let design_export = self.panels.design_export;
        for c in commands {
            self.apply(c);
        }
        if design_export > 0 {
            self.panels.design_export = design_export - 1;
            if design_export == 2 {
                self.screenshot_chart();
            }
            ui.ctx().request_repaint();
        }
        // What the commands changed is computed now (inline when small), not a frame later.
        if self.pipeline.dirty {
            self.recompute();
            ui.ctx().request_repaint();
        }
    }

    /// The editor on the left (unless the view is about something else); the view's tree and inspector on
    /// the right. Both start at a share of the window and can be dragged both ways up to a larger share
    /// ([`SIDE_SHARE`]), so the chart keeps at least the rest; what they list (keys of any length) is elided
    /// to their width, never widening them.
    fn side_panels_ui(&mut self, ui: &mut egui::Ui, view: View, commands: &mut Vec<Command>) {
        let width = ui.ctx().content_rect().width();
        if view.shows_editor() {
            egui::Panel::left("editor")
                .resizable(true)
                .default_size((width * 0.22).clamp(200.0, 320.0))
                .size_range(180.0..=(width * SIDE_SHARE[0]).max(200.0))
                .show(ui, |ui| self.editor_panel_ui(ui, commands));
        }
        egui::Panel::right("decision")
            .resizable(true)
            .default_size((width * 0.3).clamp(260.0, 420.0))
            .size_range(240.0..=(width * SIDE_SHARE[1]).max(260.0))
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    commands.extend(self.tree_ui(ui));
                    ui.separator();
                    // A key picked in another panel opens the inspector and scrolls it into view.
                    let reveal = self.panels.inspector.reveal;
                    let inspector = egui::CollapsingHeader::new("Partition inspector")
                        .default_open(true)
                        .open(reveal.then_some(true))
                        .show(ui, |ui| self.inspector_ui(ui));
                    if reveal {
                        inspector
                            .header_response
                            .scroll_to_me(Some(egui::Align::TOP));
                    }
                    if view.inspects_keys() {
                        self.health_section_ui(ui, commands);
                    }
                });
            });
    }

    /// Table health beside the inspector: its header opens and closes it; opened from the View menu it
    /// scrolls into view.
    fn health_section_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        let open = self.panels.health.open;
        let reveal = self.panels.health.reveal > 0;
        // The inspector above may still grow and the report below is not in yet (both are computed off the UI
        // thread; a short panel cannot scroll its header to the top): keep scrolling until they are in.
        if !self.panels.inspector.pending() && !self.panels.health.pending() {
            self.panels.health.reveal = self.panels.health.reveal.saturating_sub(1);
        }
        let section = egui::CollapsingHeader::new("Table health")
            .id_salt("table-health")
            .open(Some(open))
            .show(ui, |ui| {
                if let Some(shown) = &self.pipeline.current {
                    commands.extend(health::health_ui(ui, &self.panels.health, shown));
                }
            });
        if section.header_response.clicked() {
            self.panels.health.open = !open;
        }
        if reveal {
            section.header_response.scroll_to_me(Some(egui::Align::TOP));
            ui.ctx().request_repaint();
        }
    }

    /// The left panel: the key count, the source, the key type, and the keys (text or list).
    pub(super) fn editor_panel_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        ui.add_space(4.0);
        match self.key_set() {
            Some(k) => ui.heading(editor::header(k)),
            None => ui.heading("0 writes · 0 distinct keys"),
        };
        ui.weak(self.data.source().describe());
        let mut key_type = self.data.key_type();
        if editor::key_type_ui(ui, &mut key_type) {
            commands.push(Command::SetKeyType(key_type));
        }
        if let Some(e) = &self.pipeline.input_error {
            ui.colored_label(theme::ERROR, format!("{e} — showing the last valid keys"));
        }
        if self.data.pending_text().is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("reading the pasted keys…");
            });
        }
        match self.data.keys() {
            Keys::Text(text) => {
                let mut edited = text.clone();
                if editor::text_ui(ui, &mut edited) {
                    commands.push(Command::EditText(edited));
                }
            }
            Keys::Data(_) => {
                // The list shows the computed keys (the loaded set once its report is in).
                if let Some(shown) = &self.pipeline.current {
                    commands.extend(editor::list_ui(
                        ui,
                        &mut self.panels.editor,
                        &shown.keys,
                        &shown.by_count,
                    ));
                }
            }
        }
    }

    /// The centre: shard and workload controls, the chart mode, then the chart block (what Export chart as
    /// PNG saves); the Timeline's block is its own.
    pub(super) fn chart_panel_ui(
        &mut self,
        ui: &mut egui::Ui,
        view: View,
        commands: &mut Vec<Command>,
    ) {
        let rect = match self.showing() {
            Showing::Timeline(sim) => {
                chart_mode_radio(ui, true, false, None, ChartMode::Timeline, commands);
                let compact = self.settings.presentation;
                if !compact {
                    ui.separator();
                }
                timeline::timeline_ui(ui, sim, compact, commands)
            }
            Showing::Design(state) => {
                self.above_chart_ui(ui, view, commands);
                self.design_chart_ui(ui, state, commands)
            }
            Showing::Keys(chart) => {
                self.above_chart_ui(ui, view, commands);
                self.keys_chart_ui(ui, chart)
            }
        };
        self.panels.chart_rect = Some(rect);
    }

    /// Above the keys' and Key design's chart: the controls (one folded strip in presentation mode: the chart
    /// is the hero), the chart modes, and a capacity error.
    fn above_chart_ui(&self, ui: &mut egui::Ui, view: View, commands: &mut Vec<Command>) {
        if self.settings.presentation {
            egui::CollapsingHeader::new("Shard and workload controls")
                .id_salt("presentation-controls")
                .default_open(false)
                .show(ui, |ui| self.controls_ui(ui, view, commands));
        } else {
            self.controls_ui(ui, view, commands);
        }
        self.chart_mode_ui(ui, view, commands);
        if let Some(Err(e)) = self.report().and_then(|r| r.capacity.as_ref()) {
            ui.colored_label(theme::ERROR, format!("capacity: {e}"));
        }
        ui.separator();
    }

    /// The shard controls, the workload (off in presentation mode unless on) and the fan-out line (of the
    /// keys on screen; Key design says what the toggle does to each design itself).
    fn controls_ui(&self, ui: &mut egui::Ui, view: View, commands: &mut Vec<Command>) {
        commands.extend(controls::controls_ui(ui, &self.settings));
        let resolved = self
            .report()
            .and_then(|r| r.workload.as_ref())
            .map(|w| w.item_size.clone());
        if !self.settings.presentation || self.settings.workload_enabled {
            commands.extend(controls::workload_ui(
                ui,
                &self.settings,
                &self.pipeline.answers,
                resolved.as_ref(),
            ));
        }
        if let Some(Shown { keys, report, .. }) = &self.pipeline.current
            && view != View::Design
        {
            commands.extend(controls::fan_out_ui(ui, &self.settings, keys, report));
        }
    }

    /// The chart modes the data offers, as radio buttons (none when it offers only one).
    fn chart_mode_ui(&self, ui: &mut egui::Ui, view: View, commands: &mut Vec<Command>) {
        let capacity = matches!(self.report().and_then(|r| r.capacity.as_ref()), Some(Ok(_)));
        let groups = self.data.groups().map(<[_]>::len);
        let timeline = self.timeline.sim.is_some();
        chart_mode_radio(ui, timeline, capacity, groups, view.mode(), commands);
    }

    /// Key design's block: the candidates' cards, or for Export chart the histograms alone over the window for
    /// this frame (the view not drawn); returns its rectangle.
    fn design_chart_ui(
        &self,
        ui: &mut egui::Ui,
        state: &design::DesignState,
        commands: &mut Vec<Command>,
    ) -> egui::Rect {
        if self.panels.design_export > 0
            && let Some(rect) = design::export_ui(ui.ctx(), state, self.noun())
        {
            return rect;
        }
        ui.scope(|ui| {
            commands.extend(design::design_ui(ui, state, self.noun()));
        })
        .response
        .rect
    }

    /// The keys' chart block of the chart shown; returns its rectangle.
    pub(super) fn keys_chart_ui(&self, ui: &mut egui::Ui, chart: KeysChart) -> egui::Rect {
        let log_scale = self.settings.log_scale;
        match (chart, self.data.groups(), self.report()) {
            (KeysChart::DataFiles, Some(groups), _) => histogram::groups_ui(ui, groups, log_scale),
            (_, _, Some(report)) if report.analysis.total > 0 => match &report.capacity {
                Some(Ok(capacity)) if chart == KeysChart::Capacity => {
                    histogram::capacity_ui(ui, capacity)
                }
                _ => histogram::plot_ui(
                    ui,
                    &histogram::HistogramArgs {
                        report,
                        log_scale,
                        noun: self.noun(),
                    },
                ),
            },
            _ if self.background.jobs.loading().is_some() => self.loading_ui(ui),
            _ => {
                let reason = self.data.empty_reason.clone().or_else(|| {
                    self.pipeline
                        .input_error
                        .as_ref()
                        .map(|e| format!("These keys cannot be read: {e}"))
                });
                histogram::empty_ui(ui, reason.as_deref())
            }
        }
    }
}

/// The chart modes on offer as radio buttons: the simulation's Timeline, % of capacity, the export's data
/// files; nothing when only writes per bucket is on offer.
fn chart_mode_radio(
    ui: &mut egui::Ui,
    timeline: bool,
    capacity: bool,
    groups: Option<usize>,
    shown: ChartMode,
    commands: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
        let mut pick = |ui: &mut egui::Ui, mode: ChartMode, label: &str| {
            let r = ui.radio(shown == mode, label);
            if r.clicked() && shown != mode {
                commands.push(Command::SetChart(mode));
            }
            r
        };
        if timeline {
            pick(ui, ChartMode::Writes, "Keys");
            pick(ui, ChartMode::Timeline, "Timeline (simulation)");
        }
        if capacity {
            pick(ui, ChartMode::Writes, "Writes per bucket");
            pick(ui, ChartMode::Capacity, "% of partition capacity");
        }
        if let Some(files) = groups {
            pick(ui, ChartMode::Writes, "By teaching hash");
            pick(ui, ChartMode::DataFiles, "By export data file").on_hover_text(
                "AWS writes at least one data file per partition, and a file's items come from one \
                 partition's key range: this is the export's real grouping",
            );
            ui.weak(format!("{files} data files"));
        }
        if !timeline && !capacity && groups.is_none() {
            pick(ui, ChartMode::Writes, "Writes per bucket");
        }
        pick(ui, ChartMode::Designs, "Key design").on_hover_text(
            "Candidate partition keys (attributes or expressions) and GSIs over the same items, side by side",
        );
    });
}

/// Presentation mode's bar under the menu: show or hide the side panels, leave the mode.
fn presentation_bar_ui(ui: &mut egui::Ui, show_side: bool, commands: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        ui.strong("Presentation mode");
        let side = if show_side {
            "Hide keys and tree"
        } else {
            "Show keys and tree"
        };
        if ui.button(side).clicked() {
            commands.push(Command::ToggleSidePanels);
        }
        if ui.button("Leave presentation (F11)").clicked() {
            commands.push(Command::Ui(UICommand::TogglePresentation));
        }
    });
}

/// Examples: the teaching key sets, then the time simulations (Over time).
fn examples_menu(ui: &mut egui::Ui, commands: &mut Vec<Command>) {
    for s in KeyExample::ALL {
        if ui.button(s.title()).on_hover_text(s.story()).clicked() {
            commands.push(Command::LoadExample(s));
            ui.close();
        }
    }
    ui.separator();
    ui.menu_button("Key design", |ui| {
        for e in crate::model::examples::design::DesignScenario::ALL {
            if ui.button(e.title()).clicked() {
                commands.push(Command::LoadDesignExample(e));
                ui.close();
            }
        }
    });
    ui.menu_button("Over time", |ui| {
        for e in crate::model::examples::time::EXAMPLES {
            // Each built-in is a scenario file; its name and story are in its TOML.
            let (title, story) = crate::model::sim_file::parse(e.toml, 0).map_or_else(
                |_| (e.name.to_owned(), String::new()),
                |s| (s.name, s.description),
            );
            if ui.button(title).on_hover_text(story).clicked() {
                commands.push(Command::LoadSimulation(e));
                ui.close();
            }
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
        for c in UICommand::ALL {
            if c.shortcuts().is_empty() {
                continue;
            }
            ui.monospace(c.shortcut_text(ui.ctx()));
            ui.label(c.tooltip());
            ui.end_row();
        }
    });
}
