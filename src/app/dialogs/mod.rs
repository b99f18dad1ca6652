//! File dialogs that never fail silently.
//!
//! Every file action — open keys, open an S3 export folder, open and save a session, every export — goes
//! through `start`. On a thread of its own it asks whether a native dialog can open at all, opens it, and
//! finishes the action (reads or writes the file) off the UI thread. When no dialog can open, or one fails, the
//! app says why and what to install (status bar and stderr), and [`Dialogs`] asks for the path in a small
//! window instead, so the action still works.
//!
//! How rfd 0.17 shows a dialog on Linux (feature `xdg-portal`), and why its result alone cannot tell a failure
//! from a cancel: it calls the xdg-desktop-portal's `org.freedesktop.portal.FileChooser` over libdbus (opened
//! with dlopen). When libdbus is missing, the session bus cannot be reached or the call fails (no portal
//! installed: `ServiceUnknown`; a portal without a file-chooser backend: no such interface), it logs an error
//! and runs `zenity --file-selection` instead. When zenity cannot be started either, it logs "Failed to … with
//! zenity: …" and returns `None` — the same `None` as a cancelled dialog. So [`availability`] checks both ways
//! before a dialog is tried (the portal through zbus, zenity on `PATH`), and [`install_log_capture`] catches
//! rfd's log on the dialog thread, which is how a dialog that was tried and failed is told from a cancel.

use std::path::PathBuf;

mod path_field;
mod probe;
// Files in a page: the browser's picker, dropped files' bytes, downloads.
#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub(super) use web::dropped;

pub use path_field::Dialogs;
#[cfg(not(target_arch = "wasm32"))]
use probe::capture_log;
pub use probe::{Unavailable, availability, install_log_capture};

use super::Outcome;
pub use super::error::FileError;
pub use super::file_action::{Action, PathJob, Payload, Request};
use super::tasks::{Reporter, Task, TaskError};
use crate::source::open::{Expect, Input, OpenError, missing};

/// What to install when no file dialog can open.
pub const INSTALL_HINT: &str = "install xdg-desktop-portal with a backend such as xdg-desktop-portal-gtk \
     (or -kde, -gnome), or zenity";

/// The environment variable that turns native dialogs off: `SHARDLENS_FILE_DIALOG=path` always asks for paths
/// in the app.
pub const MODE_VAR: &str = "SHARDLENS_FILE_DIALOG";

/// The path field's way in: a request that no dialog could serve, and why.
pub struct Fallback {
    pub request: Request,
    /// Why no dialog opened; `None` when native dialogs are turned off ([`MODE_VAR`]).
    pub reason: Option<Unavailable>,
}

/// What the dialog threads tell the app about the path field.
pub(super) enum Reply {
    /// No dialog could open, or one failed: ask for the path in the app.
    Ask(Fallback),
    /// The path field's path worked: its window closes (the action's own outcome follows on the channel).
    Done(u64, PathBuf),
    /// The path field's path did not work: said in its window, which stays open.
    Problem(u64, Problem),
}

/// Why a typed path did not work.
#[derive(Debug)]
pub(super) enum Problem {
    /// The file to save exists: saving again replaces it.
    Exists(PathBuf),
    Other(FileError),
}

/// A problem with a path chosen in a native dialog (or given without one), as the outcome the app hears.
fn problem_outcome(problem: Problem) -> Outcome {
    match problem {
        Problem::Exists(p) => Outcome::Saved(Err(FileError::NotReplaced(p))),
        Problem::Other(e) => Outcome::Saved(Err(e)),
    }
}

/// Shows the native file dialog for `request` on a task of its own and finishes the action there; what
/// happened comes back from the task: the action's outcome, [`Outcome::Nothing`] when cancelled, or
/// [`Reply::Ask`] when no dialog could open (then the path field takes over). With `native` false it asks for
/// the path straight away.
pub(super) fn start(
    request: Request,
    native: bool,
    ctx: &egui::Context,
) -> Result<Task<Outcome>, TaskError> {
    #[cfg(target_arch = "wasm32")]
    if native {
        return web::start(&request, ctx);
    }
    Task::spawn("dialog", ctx, 2, move |r: &Reporter<Outcome>| {
        if !native {
            r.send(Outcome::Path(Reply::Ask(Fallback {
                request,
                reason: None,
            })));
            return;
        }
        let outcome = match native_dialog(&request) {
            Native::Picked(path) => {
                finish(&request.action, path, true, Some(r)).unwrap_or_else(problem_outcome)
            }
            Native::Cancelled => Outcome::Nothing,
            Native::Unavailable(reason) => Outcome::Path(Reply::Ask(Fallback {
                request,
                reason: Some(reason),
            })),
        };
        r.send(outcome);
    })
}

/// Opens a trace without a dialog (File > Open trace… given a path by a command): read on a task.
pub(super) fn open_trace(
    path: PathBuf,
    action: Action,
    ctx: &egui::Context,
) -> Result<Task<Outcome>, TaskError> {
    Task::spawn("trace", ctx, 1, move |r: &Reporter<Outcome>| {
        r.send(finish(&action, path, false, Some(r)).unwrap_or_else(problem_outcome));
    })
}

/// Uses a typed path off the UI thread: the path field's window hears whether it worked.
pub(super) fn finish_path(job: PathJob, ctx: &egui::Context) -> Result<Task<Outcome>, TaskError> {
    Task::spawn("path", ctx, 2, move |r: &Reporter<Outcome>| {
        match finish(&job.action, job.path.clone(), job.replace, Some(r)) {
            Ok(outcome) => {
                r.send(Outcome::Path(Reply::Done(job.id, job.path)));
                r.send(outcome);
            }
            Err(problem) => {
                r.send(Outcome::Path(Reply::Problem(job.id, problem)));
            }
        }
    })
}

#[cfg_attr(
    target_arch = "wasm32",
    allow(dead_code, reason = "a page's picker is web.rs's")
)]
enum Native {
    Picked(PathBuf),
    Cancelled,
    Unavailable(Unavailable),
}

/// Opens rfd's dialog when one can open; blocks until it closes.
#[cfg(target_arch = "wasm32")]
fn native_dialog(_: &Request) -> Native {
    Native::Cancelled
}

/// Opens rfd's dialog when one can open; blocks until it closes.
#[cfg(not(target_arch = "wasm32"))]
fn native_dialog(request: &Request) -> Native {
    if let Err(reason) = availability() {
        return Native::Unavailable(reason);
    }
    let mut dialog = rfd::FileDialog::new().set_title(request.title);
    for (name, exts) in &request.filters {
        dialog = dialog.add_filter(*name, exts);
    }
    if let Some(name) = request.file_name {
        dialog = dialog.set_file_name(name);
    }
    let (picked, errors) = capture_log(|| match request.action {
        Action::OpenKeys | Action::OpenSession | Action::OpenScenario | Action::OpenTrace(_) => {
            dialog.pick_file()
        }
        Action::OpenFolder => dialog.pick_folder(),
        Action::Save(_) => dialog.save_file(),
    });
    match picked {
        Some(path) => Native::Picked(path),
        // rfd's last resort failed (see the module documentation); its other errors are portal errors that
        // zenity then made up for.
        None if errors.iter().any(|e| e.contains("zenity")) => {
            Native::Unavailable(Unavailable::Failed(errors))
        }
        None => Native::Cancelled,
    }
}

/// Does what the path is for: checks a path of keys (their load reads them), reads a session, a scenario or
/// a trace through [`crate::source::open`], writes a save. `replace` allows overwriting an existing file (a
/// native dialog has asked already). A trace's read tells `r` how far it is ([`Outcome::TraceProgress`]).
fn finish(
    action: &Action,
    path: PathBuf,
    replace: bool,
    r: Option<&Reporter<Outcome>>,
) -> Result<Outcome, Problem> {
    let expect = match action {
        Action::Save(payload) => {
            let meta = std::fs::metadata(&path).ok();
            return save(payload, path, meta, replace);
        }
        // The load reads them (with its progress and Cancel); here the path is only checked.
        Action::OpenKeys | Action::OpenFolder => {
            let is_folder = std::fs::metadata(&path)
                .map_err(|e| Problem::Other(missing(&path, e).into()))?
                .is_dir();
            if matches!(action, Action::OpenFolder) && !is_folder {
                return Err(Problem::Other(OpenError::NotAFolder(path).into()));
            }
            return Ok(Outcome::OpenKeys(path));
        }
        Action::OpenSession => Expect::Session,
        Action::OpenScenario => Expect::Scenario,
        Action::OpenTrace(options) => Expect::Trace(options.clone()),
    };
    let started = web_time::Instant::now();
    let input = Input::Path(path.clone());
    let mut progress = |p: crate::source::Progress| {
        if let Some(r) = r {
            r.offer(Outcome::TraceProgress(path.clone(), p, started));
        }
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    match crate::source::open::open(&input, &expect, &Default::default(), &never, &mut progress) {
        Ok(opened) => Ok(Outcome::Opened(path, Box::new(opened))),
        Err(e) => Err(Problem::Other(e.into())),
    }
}

/// Writes a save to `path` (`meta`: what is there now): never over a folder, over a file only when the user
/// said so, and into a folder that exists.
fn save(
    payload: &Payload,
    path: PathBuf,
    meta: Option<std::fs::Metadata>,
    replace: bool,
) -> Result<Outcome, Problem> {
    match meta {
        Some(m) if m.is_dir() => {
            return Err(Problem::Other(FileError::NoFileName(path)));
        }
        Some(_) if !replace => return Err(Problem::Exists(path)),
        _ => {}
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.is_dir()
    {
        return Err(Problem::Other(FileError::NoFolder(dir.to_path_buf())));
    }
    let written = match payload {
        Payload::Bytes(bytes) => match std::fs::write(&path, bytes) {
            Ok(()) => Ok(format!("saved {}", path.display())),
            Err(source) => Err(FileError::Write { path, source }),
        },
        Payload::Png(image) => write_png(&path, image),
    };
    written
        .map(|msg| Outcome::Saved(Ok(msg)))
        .map_err(Problem::Other)
}

/// Turns what the user typed into a path: surrounding quotes and a `file://` prefix go, `~` is the home
/// folder, and a relative path is taken from the current folder.
pub fn resolve(text: &str) -> Result<PathBuf, FileError> {
    let mut t = text.trim();
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            t = &t[1..t.len() - 1];
        }
    }
    let t = t.strip_prefix("file://").unwrap_or(t);
    if t.is_empty() {
        return Err(FileError::NoPath);
    }
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    let path = if t == "~" {
        home().ok_or(FileError::NoHome)?
    } else if let Some(rest) = t.strip_prefix("~/") {
        home().ok_or(FileError::NoHome)?.join(rest)
    } else {
        PathBuf::from(t)
    };
    if path.is_absolute() {
        return Ok(path);
    }
    match std::env::current_dir() {
        Ok(d) => Ok(d.join(&path)),
        Err(source) => Err(FileError::NoCurrentFolder { path, source }),
    }
}

/// The file dialogs' state in the app: whether native dialogs are used, and the path field's window.
/// Writes the chart's image as an 8-bit RGBA PNG.
fn write_png(path: &std::path::Path, image: &egui::ColorImage) -> Result<String, FileError> {
    let failed = |e: png::EncodingError| FileError::Png {
        path: path.to_path_buf(),
        source: e,
    };
    let bytes = png_bytes(image).map_err(failed)?;
    std::fs::write(path, bytes).map_err(|e| failed(e.into()))?;
    Ok(format!("saved chart to {}", path.display()))
}

/// The chart's image as an 8-bit RGBA PNG file's bytes (written to a path, or downloaded in a page).
fn png_bytes(image: &egui::ColorImage) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let [w, h] = image.size;
    let mut encoder = png::Encoder::new(&mut out, w as u32, h as u32);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    let pixels: Vec<u8> = image
        .pixels
        .iter()
        .flat_map(egui::Color32::to_array)
        .collect();
    writer.write_image_data(&pixels)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_paths_lose_quotes_and_file_urls_and_expand_home() {
        assert_eq!(
            resolve("  '/tmp/a b.txt' ").ok(),
            Some(PathBuf::from("/tmp/a b.txt"))
        );
        assert_eq!(resolve("file:///tmp/x").ok(), Some(PathBuf::from("/tmp/x")));
        assert!(resolve("   ").is_err());
        if let Some(home) = std::env::var_os("HOME") {
            assert_eq!(
                resolve("~/k.txt").ok(),
                Some(PathBuf::from(home).join("k.txt"))
            );
        }
        let relative = resolve("keys.txt").ok();
        assert!(
            relative
                .as_ref()
                .is_some_and(|p| p.is_absolute() && p.ends_with("keys.txt"))
        );
    }

    #[test]
    fn saving_never_replaces_a_file_unasked_and_names_a_missing_folder() {
        let dir = std::env::temp_dir().join(format!("shardlens-dialogs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let file = dir.join("out.csv");
        std::fs::write(&file, "old").ok();
        let save = Action::Save(Payload::Bytes(std::sync::Arc::from(&b"new"[..])));
        assert!(matches!(
            finish(&save, file.clone(), false, None),
            Err(Problem::Exists(_))
        ));
        assert_eq!(std::fs::read(&file).ok(), Some(b"old".to_vec()));
        assert!(matches!(
            finish(&save, file.clone(), true, None),
            Ok(Outcome::Saved(Ok(_)))
        ));
        assert_eq!(std::fs::read(&file).ok(), Some(b"new".to_vec()));
        let nowhere = dir.join("no-such-dir").join("out.csv");
        match finish(&save, nowhere, false, None) {
            Err(Problem::Other(e)) => {
                let e = e.to_string();
                assert!(e.starts_with("no such folder"), "{e}");
            }
            _ => panic!("a missing folder is an error"),
        }
        match finish(&Action::OpenFolder, file, false, None) {
            Err(Problem::Other(e)) => {
                let e = e.to_string();
                assert!(e.starts_with("not a folder"), "{e}");
            }
            _ => panic!("a file is not an export folder"),
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
