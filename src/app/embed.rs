//! The article widget: the page opened as `index.html?embed` (in an iframe of an article or a slide) shows the
//! seed of shardlens, not the whole app: the key editor ("one partition key per line; repeat a value to
//! simulate a hot key"), the histogram with its bucket and key counts, the bucket count and the shard toggle,
//! and the tree's path. It fits 720×480 side by side and 400×600 stacked; "Open in shardlens" opens the full
//! page on the same keys and view (docs/web.md, "The article widget").

use super::command::Command;
use super::views::KeysChart;
use super::{App, controls, links};

/// Below this width the widget stacks the editor over the chart.
const STACK_BELOW: f32 = 560.0;

impl App {
    /// Shows the article widget instead of the whole app (a page opened with `?embed`).
    pub fn set_embed(&mut self, on: bool) {
        self.panels.embed = on;
    }

    /// Draws the widget; the commands its parts return are applied afterwards, as in [`App::draw`].
    pub(super) fn draw_embed(&mut self, ui: &mut egui::Ui) {
        let mut commands: Vec<Command> = Vec::new();
        let size = ui.ctx().content_rect().size();
        egui::Panel::top("embed-bar").show(ui, |ui| {
            ui.add_space(2.0);
            ui.horizontal_wrapped(|ui| {
                ui.strong("shardlens");
                if ui
                    .button("Open in shardlens ↗")
                    .on_hover_text("the full app on these keys and this view, in a new tab")
                    .clicked()
                {
                    commands.push(Command::OpenFullPage);
                }
            });
            commands.extend(controls::controls_ui(ui, &self.settings));
        });
        egui::Panel::bottom("embed-tree").show(ui, |ui| {
            ui.add_space(2.0);
            commands.extend(self.path_strip_ui(ui));
            ui.add_space(2.0);
        });
        if size.x < STACK_BELOW {
            egui::Panel::top("embed-editor")
                .resizable(true)
                .default_size(size.y * 0.28)
                .show(ui, |ui| self.embed_editor_ui(ui, &mut commands));
        } else {
            egui::Panel::left("embed-editor")
                .resizable(true)
                .default_size((size.x * 0.32).clamp(180.0, 300.0))
                .show(ui, |ui| self.embed_editor_ui(ui, &mut commands));
        }
        egui::CentralPanel::default().show(ui, |ui| {
            let rect = self.keys_chart_ui(ui, KeysChart::Buckets);
            self.panels.chart_rect = Some(rect);
        });
        self.finish_frame(ui, commands);
    }

    /// The widget's editor: the counts and the keys as text (a loaded key set as its list).
    fn embed_editor_ui(&mut self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        ui.small("one partition key per line; repeat a value to simulate a hot key");
        self.editor_panel_ui(ui, commands);
    }

    /// Opens the full page on what the widget shows: the page's address without `?embed`, and the link of the
    /// keys and view.
    pub(super) fn open_full_page(&mut self) {
        let Some(url) = links::full_page_link(self) else {
            return;
        };
        self.ctx.open_url(egui::OpenUrl::new_tab(url));
    }
}
