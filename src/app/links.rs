//! Share links in the app: File > Copy link puts the keys and the view in a link ([`crate::source::link`]) on
//! the clipboard; File > Open link… (a small window with a text field), a link pasted into the key editor, and
//! in a page the link it was opened with, open one. A link opens as a session does: the keys it replaces come
//! back with Undo.

use super::App;
use super::command::Command;
use super::notices::{Activity, Level};
use super::runs::Start;
use super::timeline::Run;
use crate::source::link;
use crate::source::open::{Expect, Input, Opened, open};

/// The Open link window's text, while it is open.
#[derive(Default)]
pub struct OpenLinkState {
    pub text: Option<String>,
}

/// Draws the Open link window; returns the link to open (or `CloseOpenLink`).
pub fn open_link_ui(ctx: &egui::Context, state: &mut OpenLinkState) -> Option<Command> {
    let text = state.text.as_mut()?;
    let mut command = None;
    let mut open_window = true;
    egui::Window::new("Open link")
        .open(&mut open_window)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            ui.label("Paste a shardlens link (it holds …#shardlens1=…):");
            let field = ui.add(
                egui::TextEdit::singleline(text)
                    .desired_width(420.0)
                    .hint_text("https://…/index.html#shardlens1=…"),
            );
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.horizontal(|ui| {
                let ok = link::is_link(text);
                if ui.add_enabled(ok, egui::Button::new("Open")).clicked() || (entered && ok) {
                    command = Some(Command::OpenLink(text.trim().to_owned()));
                }
                if !text.trim().is_empty() && !ok {
                    ui.label(format!("not a shardlens link (no #{})", link::TAG));
                }
            });
        });
    if !open_window {
        state.text = None;
    }
    if command.is_some() {
        state.text = None;
    }
    command
}

impl App {
    /// The link of what is shown: the keys and settings as a session, and the Timeline's scenario when it
    /// shows one; on the clipboard, or a notice saying why not (too long: share the file).
    pub(super) fn copy_link(&mut self) {
        let mut session = self.session();
        if let Some(Run::Scenario(s)) = self
            .timeline
            .sim
            .as_ref()
            .map(super::timeline::Simulation::run)
        {
            session.scenario = Some(s.toml.clone());
        }
        match link::encode(&link::shareable(session), &share_base()) {
            Ok(url) => {
                let size = crate::model::fmt::bytes(url.len() as f64);
                self.ctx.copy_text(url);
                self.notify(
                    Activity::File,
                    Level::Info,
                    format!(
                        "link copied ({size}): it holds the keys and the view; whoever opens it sees the same"
                    ),
                );
            }
            Err(e) => self.notify(
                Activity::File,
                Level::Error,
                format!("cannot copy a link: {e}"),
            ),
        }
    }

    /// Opens a share link: its session replaces the keys and settings (Undo brings the keys back), and its
    /// scenario, if any, runs in the Timeline. A damaged or foreign link changes nothing and says why.
    pub fn open_link(&mut self, text: &str) {
        let json = match link::decode(text) {
            Ok(json) => json,
            Err(e) => {
                self.notify(
                    Activity::File,
                    Level::Error,
                    format!("cannot open the link: {e}"),
                );
                return;
            }
        };
        let scenario = crate::source::session::Session::parse(&json)
            .ok()
            .and_then(|s| s.scenario);
        self.open_session(&json, "from the shared link");
        if let Some(toml) = scenario {
            let name = std::path::PathBuf::from("shared-link.toml");
            let input = Input::Bytes {
                name: name.clone(),
                bytes: std::sync::Arc::from(toml.into_bytes()),
            };
            let never = std::sync::atomic::AtomicBool::new(false);
            match open(
                &input,
                &Expect::Scenario,
                &Default::default(),
                &never,
                &mut |_| {},
            ) {
                Ok(Opened::Scenario(scenario, text)) => {
                    self.start_run(Run::scenario(*scenario, text), Start::Shown);
                }
                Ok(_) => {}
                Err(e) => {
                    self.notify_error(Activity::File, Some("the link's scenario"), e, None);
                }
            }
        }
    }
}

/// The full page on what the widget shows (`?embed` taken out of the page's address, the link of the keys
/// and view as its fragment); the page alone when the keys are too many for a link.
pub(super) fn full_page_link(app: &App) -> Option<String> {
    let base = share_base();
    let (path, query) = base.split_once('?').unwrap_or((&base, ""));
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && *p != "embed" && !p.starts_with("embed="))
        .collect();
    let page = if kept.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", kept.join("&"))
    };
    Some(link::encode(&link::shareable(app.session()), &page).unwrap_or(page))
}

/// The page links open: in a page, the page itself; on the desktop, `index.html` beside whoever opens it
/// (docs/web.md, "Share links").
fn share_base() -> String {
    #[cfg(target_arch = "wasm32")]
    {
        super::web::page_url().unwrap_or_else(|| link::DEFAULT_BASE.to_owned())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        link::DEFAULT_BASE.to_owned()
    }
}
