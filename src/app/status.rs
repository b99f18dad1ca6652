//! The status line: the activity under way (a scan, a watch, a metrics read, a trace or file load with its
//! progress and Cancel, a computation) beside the notices, and the chart's place while a file given at start
//! loads.

use super::command::Command;
use super::{App, SCAN_QUIET_SECS, histogram, jobs, messages};

impl App {
    /// The load under way as a bar's fraction and text (its file's name, the share done, the time left).
    pub(super) fn load_progress_text(
        &self,
        now: web_time::Instant,
    ) -> Option<(Option<f32>, String)> {
        let path = self.background.jobs.loading()?;
        let name = crate::source::display_file_name(path);
        let elapsed = self
            .background
            .jobs
            .load_started()
            .map_or_else(Default::default, |t| now.saturating_duration_since(t));
        let p = self.background.load_progress.unwrap_or_default();
        Some(jobs::progress_text(&name, &p, elapsed))
    }

    /// The chart's place while a file given at start loads: its name and progress, in a neutral colour.
    pub(super) fn loading_ui(&self, ui: &mut egui::Ui) -> egui::Rect {
        let rect = ui.available_rect_before_wrap();
        let now = web_time::Instant::now();
        if let Some((fraction, text)) = self.load_progress_text(now) {
            histogram::centred_block(ui, |ui| {
                ui.heading("Loading…");
                let bar = egui::ProgressBar::new(fraction.unwrap_or(0.0)).text(text);
                ui.add(if fraction.is_none() {
                    bar.animate(true)
                } else {
                    bar
                });
            });
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        rect
    }

    /// The status bar: the activity under way (scan, load, computing) and the current notices.
    pub(super) fn status_ui(&self, ui: &mut egui::Ui, commands: &mut Vec<Command>) {
        let now = web_time::Instant::now();
        ui.horizontal(|ui| {
            self.activity_ui(ui, now, commands);
            messages::notices_ui(ui, &self.notices, now, commands);
        });
        if let Some(wait) = self.notices.next_fade(now) {
            ui.ctx().request_repaint_after(wait);
        }
    }

    /// What is under way: a scan (with Cancel), a load (progress and Cancel), or a computation.
    fn activity_ui(&self, ui: &mut egui::Ui, now: web_time::Instant, commands: &mut Vec<Command>) {
        if let Some(job) = &self.background.scan {
            ui.spinner();
            let mut text = job.progress.as_ref().map_or_else(
                || format!("connecting to scan {}…", job.table),
                |p| format!("scanning {}: {}", job.table, p.summary()),
            );
            let quiet = self
                .background
                .scan_heard_at
                .map(|t| now.saturating_duration_since(t));
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
        } else if self.live_activity_ui(ui, commands) {
            // A watch or a metrics read: drawn.
        } else if let Some((path, p, started)) = &self.background.trace_progress
            && !self.background.dialogs.is_empty()
        {
            // A trace being read: its share done and time left, as a file load's.
            let name = format!("reading trace {}", crate::source::display_file_name(path));
            let (fraction, text) =
                jobs::progress_text(&name, p, now.saturating_duration_since(*started));
            ui.add(
                egui::ProgressBar::new(fraction.unwrap_or(0.0))
                    .desired_width(420.0)
                    .text(text),
            );
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(200));
        } else if let Some((fraction, text)) = self.load_progress_text(now) {
            let bar = egui::ProgressBar::new(fraction.unwrap_or(0.0))
                .desired_width(360.0)
                .text(text);
            ui.add(if fraction.is_none() {
                bar.animate(true)
            } else {
                bar
            });
            if ui.button("Cancel").clicked() {
                commands.push(Command::CancelLoad);
            }
        } else if self.computing() {
            ui.spinner();
            ui.label("computing…");
        }
    }

    /// A watch of a table's writes (its figures, and Stop) or a metrics read under way; whether one is.
    fn live_activity_ui(&self, ui: &mut egui::Ui, commands: &mut Vec<Command>) -> bool {
        let live = &self.background.live;
        if let Some(job) = &live.watch {
            ui.spinner();
            ui.label(match (&job.progress, job.stopping) {
                (_, true) => format!("stopping the watch of {}…", job.table),
                (None, false) => format!("watching the writes of {}: connecting…", job.table),
                (Some(p), false) if p.iterators == 0 => {
                    format!("watching the writes of {}: opening the stream…", job.table)
                }
                (Some(p), false) => {
                    format!("watching the writes of {}: {}", job.table, p.summary())
                }
            });
            if ui
                .add_enabled(!job.stopping, egui::Button::new("Stop"))
                .on_hover_text("Stop reading the stream; what was read stays")
                .clicked()
            {
                commands.push(Command::StopWatch);
            }
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs(1));
            return true;
        }
        if let Some(job) = &live.metrics {
            ui.spinner();
            ui.label(format!(
                "reading the last {} of metrics of {} from CloudWatch…",
                crate::model::fmt::plural(u64::from(job.hours), "hour"),
                job.table
            ));
            return true;
        }
        false
    }
}
