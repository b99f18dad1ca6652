//! The in-app path field: asks for a path when no file dialog can open (or native dialogs are turned off),
//! says why, and keeps its window open with the reason when a typed path does not work.

use std::path::{Path, PathBuf};

use super::{Fallback, INSTALL_HINT, MODE_VAR, PathJob, Problem, Reply, Request, resolve};
use crate::app::{Command, theme};

pub struct Dialogs {
    /// Native dialogs first (the default); false always asks for paths in the app ([`MODE_VAR`]).
    pub native: bool,
    window: Option<PathWindow>,
    next_id: u64,
    /// The folder of the last path that worked, where the next path field starts.
    last_dir: Option<PathBuf>,
}

struct PathWindow {
    id: u64,
    request: Request,
    reason: Option<String>,
    text: String,
    error: Option<String>,
    /// A typed path is being checked (or written) on a thread.
    busy: bool,
    /// The existing file that the next confirm replaces.
    replace: Option<PathBuf>,
    focus: bool,
}

impl Default for Dialogs {
    fn default() -> Self {
        Self::new()
    }
}

impl Dialogs {
    /// Native dialogs unless [`MODE_VAR`] is `path`.
    pub fn new() -> Self {
        let native = std::env::var(MODE_VAR).map_or(true, |v| v.trim() != "path");
        Self {
            native,
            window: None,
            next_id: 0,
            last_dir: None,
        }
    }

    /// Whether the path field is showing.
    pub fn path_field_open(&self) -> bool {
        self.window.is_some()
    }

    /// The title of the path field's request, when it is showing.
    pub fn path_field_title(&self) -> Option<&'static str> {
        self.window.as_ref().map(|w| w.request.title)
    }

    /// Handles a reply from a dialog thread; returns a notice for the status bar (which prints it on stderr).
    pub(in crate::app) fn on_reply(&mut self, reply: Reply) -> Option<(String, String)> {
        match reply {
            Reply::Ask(fallback) => {
                let notice = fallback.reason.as_ref().map(|reason| {
                    (
                        format!(
                            "No file dialog could open for {}: type the path in the window instead",
                            fallback.request.title
                        ),
                        format!("{reason}; {INSTALL_HINT}"),
                    )
                });
                self.open(fallback);
                notice
            }
            Reply::Done(id, path) => {
                if self.window.as_ref().is_some_and(|w| w.id == id) {
                    self.window = None;
                }
                self.last_dir = path.parent().map(Path::to_path_buf);
                None
            }
            Reply::Problem(id, problem) => {
                let w = self.window.as_mut().filter(|w| w.id == id)?;
                w.busy = false;
                match problem {
                    Problem::Exists(path) => {
                        w.error = Some(format!(
                            "This file exists; Replace overwrites it: {}",
                            path.display()
                        ));
                        w.replace = Some(path);
                    }
                    Problem::Other(e) => w.error = Some(crate::app::notices::said(&e.message())),
                }
                w.focus = true;
                None
            }
        }
    }

    /// Shows the path field for a request (replacing one already showing).
    fn open(&mut self, fallback: Fallback) {
        let dir = self
            .last_dir
            .clone()
            .or_else(|| std::env::current_dir().ok());
        let mut text = dir.map(|d| d.display().to_string()).unwrap_or_default();
        if !text.is_empty() && !text.ends_with('/') {
            text.push('/');
        }
        if let Some(name) = fallback.request.file_name {
            text.push_str(name);
        }
        self.next_id += 1;
        self.window = Some(PathWindow {
            id: self.next_id,
            request: fallback.request,
            reason: fallback.reason.map(|r| r.to_string()),
            text,
            error: None,
            busy: false,
            replace: None,
            focus: true,
        });
    }

    /// Draws the path field when it is showing. A confirmed path comes back as [`Command::FinishPath`]; its
    /// task's replies arrive as [`Outcome::Path`].
    pub(in crate::app) fn ui(&mut self, ctx: &egui::Context) -> Option<Command> {
        let Some(w) = &mut self.window else {
            return None;
        };
        let (mut confirm, mut cancel) = (false, false);
        egui::Window::new(w.request.title)
            .id(egui::Id::unique("path-field"))
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_TOP, [0.0, 80.0])
            .show(ctx, |ui| (confirm, cancel) = window_ui(ui, w));
        if ctx.input(|i| i.key_pressed(egui::Key::Escape)) {
            cancel = true;
        }
        if cancel {
            self.window = None;
            return None;
        }
        if !confirm || w.busy {
            return None;
        }
        let path = match resolve(&w.text) {
            Ok(p) => p,
            Err(e) => {
                w.error = Some(e.to_string());
                w.focus = true;
                return None;
            }
        };
        w.busy = true;
        w.error = None;
        let replace = w.replace.as_ref() == Some(&path);
        Some(Command::FinishPath(Box::new(PathJob {
            id: w.id,
            action: w.request.action.clone(),
            path,
            replace,
        })))
    }
}

/// The path field's window: why no dialog opened, the path, the suggested name, what went wrong, and the
/// buttons. Returns (confirmed, cancelled).
fn window_ui(ui: &mut egui::Ui, w: &mut PathWindow) -> (bool, bool) {
    let (mut confirm, mut cancel) = (false, false);
    ui.set_max_width(560.0);
    if let Some(reason) = &w.reason {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!("No file dialog could open: {reason}."))
                    .color(theme::UNKNOWN),
            )
            .wrap(),
        );
        ui.add(egui::Label::new(format!("For file dialogs, {INSTALL_HINT}.")).wrap());
        ui.add_space(4.0);
    }
    ui.label(if w.request.saves() {
        "Type the path to save to:"
    } else {
        "Type the path to open:"
    });
    ui.horizontal(|ui| {
        let label = ui.label("Path");
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut w.text)
                    .desired_width(480.0)
                    .hint_text("/path/to/file"),
            )
            .labelled_by(label.id);
        if w.focus {
            response.request_focus();
            w.focus = false;
        }
        if response.changed() {
            w.error = None;
            w.replace = None;
        }
        if response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
            confirm = true;
        }
    });
    if let Some(name) = w.request.file_name {
        ui.weak(format!("Suggested name: {name}"));
    }
    if let Some(e) = &w.error {
        ui.add(egui::Label::new(egui::RichText::new(e).color(theme::ERROR)).wrap());
    }
    ui.horizontal(|ui| {
        let verb = if w.replace.is_some() {
            "Replace"
        } else {
            w.request.verb()
        };
        if ui.add_enabled(!w.busy, egui::Button::new(verb)).clicked() {
            confirm = true;
        }
        if ui.button("Cancel").clicked() {
            cancel = true;
        }
        if w.busy {
            ui.spinner();
        }
    });
    (confirm, cancel)
}
