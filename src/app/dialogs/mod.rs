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

use std::path::{Path, PathBuf};
use std::sync::Arc;

mod path_field;
mod probe;

pub use path_field::Dialogs;
use probe::capture_log;
pub use probe::{Unavailable, availability, install_log_capture};

use super::Outcome;
use super::tasks::{Reporter, Task, TaskError};
use crate::source::trace::TraceOptions;

/// What to install when no file dialog can open.
pub const INSTALL_HINT: &str = "install xdg-desktop-portal with a backend such as xdg-desktop-portal-gtk \
     (or -kde, -gnome), or zenity";

/// The environment variable that turns native dialogs off: `SHARDLENS_FILE_DIALOG=path` always asks for paths
/// in the app.
pub const MODE_VAR: &str = "SHARDLENS_FILE_DIALOG";

/// What the chosen path is for.
#[derive(Clone)]
pub enum Action {
    /// A file of keys, or an S3 export folder (anything `App::open_path` takes).
    OpenKeys,
    /// An S3 export folder.
    OpenFolder,
    OpenSession,
    /// A scenario file of the time simulation.
    OpenScenario,
    /// A trace of a table's real traffic (a file or a folder of them), replayed in the Timeline, read with
    /// these options (the Load options' key attribute and bad-record choice).
    OpenTrace(TraceOptions),
    /// A file dropped on the window: a trace when its content is one only traces have (Streams records,
    /// CloudWatch metrics, a Contributor Insights report), else keys.
    OpenDropped(TraceOptions),
    /// Writes the data to the chosen file.
    Save(Payload),
}

/// What a save writes.
#[derive(Clone)]
pub enum Payload {
    Bytes(Arc<[u8]>),
    Png(Arc<egui::ColorImage>),
}

/// A file dialog to show: its title, what the path is for, its filters and, when saving, a suggested name.
#[derive(Clone)]
pub struct Request {
    pub title: &'static str,
    pub action: Action,
    filters: Vec<(&'static str, Vec<&'static str>)>,
    file_name: Option<&'static str>,
}

impl Request {
    pub fn open_keys() -> Self {
        Self {
            title: "Open keys",
            action: Action::OpenKeys,
            filters: vec![
                (
                    "Keys and exports",
                    vec![
                        "txt", "csv", "json", "jsonl", "gz", "zst", "ion", "keys", "lst",
                    ],
                ),
                ("All files", vec!["*"]),
            ],
            file_name: None,
        }
    }

    pub fn open_folder() -> Self {
        Self {
            title: "Open an S3 export folder (AWSDynamoDB/<export-id>)",
            action: Action::OpenFolder,
            filters: Vec::new(),
            file_name: None,
        }
    }

    pub fn open_scenario() -> Self {
        Self {
            title: "Open scenario",
            action: Action::OpenScenario,
            filters: vec![
                ("shardlens scenario", vec!["toml"]),
                ("All files", vec!["*"]),
            ],
            file_name: None,
        }
    }

    pub fn open_trace(options: TraceOptions) -> Self {
        Self {
            title: "Open trace",
            action: Action::OpenTrace(options),
            filters: vec![
                (
                    "Streams records, exports, metrics, logs",
                    vec!["json", "jsonl", "gz", "zst", "csv", "log"],
                ),
                ("All files", vec!["*"]),
            ],
            file_name: None,
        }
    }

    pub fn open_session() -> Self {
        Self {
            title: "Open session",
            action: Action::OpenSession,
            filters: vec![("shardlens session", vec!["json"])],
            file_name: None,
        }
    }

    /// Saves `bytes`, suggesting `file_name`; `kind` and `ext` make the dialog's filter ("CSV", "csv").
    pub fn save(
        title: &'static str,
        file_name: &'static str,
        kind: &'static str,
        ext: &'static str,
        bytes: Vec<u8>,
    ) -> Self {
        Self {
            title,
            action: Action::Save(Payload::Bytes(bytes.into())),
            filters: vec![(kind, vec![ext])],
            file_name: Some(file_name),
        }
    }

    /// Saves an image of the chart as PNG.
    pub fn save_png(image: egui::ColorImage) -> Self {
        Self {
            title: "Export chart as PNG",
            action: Action::Save(Payload::Png(Arc::new(image))),
            filters: vec![("PNG image", vec!["png"])],
            file_name: Some("shardlens-chart.png"),
        }
    }

    fn saves(&self) -> bool {
        matches!(self.action, Action::Save(_))
    }

    fn verb(&self) -> &'static str {
        if self.saves() { "Save" } else { "Open" }
    }
}

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

/// Why a file action (open, save, a typed path) did not work: the reason, the path last.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("no such file or folder: {}", .0.display())]
    NotFound(PathBuf),
    #[error("cannot open ({source}): {}", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("not a folder (an S3 export is a folder, AWSDynamoDB/<export-id>): {}", .0.display())]
    NotAFolder(PathBuf),
    /// A folder where a file to open was wanted (`what`: "session", "scenario").
    #[error("a folder, not a {what} file: {}", path.display())]
    AFolder { what: &'static str, path: PathBuf },
    #[error("cannot read ({source}): {}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A scenario file that does not parse, or whose key files do not load.
    #[error(transparent)]
    Scenario(#[from] crate::source::scenario::ScenarioFileError),
    /// A trace whose records cannot be read or replayed.
    #[error(transparent)]
    Trace(#[from] crate::source::trace::TraceLoadError),
    /// A folder where a file to save was wanted.
    #[error("a folder: add a file name: {}", .0.display())]
    NoFileName(PathBuf),
    #[error("no such folder: {}", .0.display())]
    NoFolder(PathBuf),
    #[error("cannot write ({source}): {}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Png {
        path: PathBuf,
        source: png::EncodingError,
    },
    /// The file exists and the user did not say to replace it.
    #[error("not replaced: {}", .0.display())]
    NotReplaced(PathBuf),
    /// The path field is empty.
    #[error("type a path")]
    NoPath,
    #[error("~: HOME is not set")]
    NoHome,
    #[error("cannot find the current folder ({source}) for {}", path.display())]
    NoCurrentFolder {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl FileError {
    /// The error as a message with its hints (a scenario's key file's load error has them).
    pub fn message(&self) -> crate::source::Message {
        match self {
            Self::Scenario(e) => e.message(),
            Self::Trace(e) => e.message(),
            other => crate::source::Message::new(other.to_string()),
        }
    }
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

/// Opens a scenario file chosen without a dialog (the command line, drag and drop, a `.toml` given to Open
/// keys): read, parsed and its key files loaded on a task; a problem comes back as an error notice.
pub(super) fn open_scenario(
    path: PathBuf,
    ctx: &egui::Context,
) -> Result<Task<Outcome>, TaskError> {
    Task::spawn("scenario", ctx, 1, move |r: &Reporter<Outcome>| {
        r.send(finish(&Action::OpenScenario, path, false, Some(r)).unwrap_or_else(problem_outcome));
    })
}

/// Opens a trace (or a dropped file that may be one) without a dialog: read on a task.
pub(super) fn open_trace(
    path: PathBuf,
    action: Action,
    ctx: &egui::Context,
) -> Result<Task<Outcome>, TaskError> {
    Task::spawn("trace", ctx, 1, move |r: &Reporter<Outcome>| {
        r.send(finish(&action, path, false, Some(r)).unwrap_or_else(problem_outcome));
    })
}

/// A path the path field confirmed: checked and used by `finish_path`.
#[derive(Clone)]
pub struct PathJob {
    id: u64,
    action: Action,
    path: PathBuf,
    /// The user confirmed replacing this existing file.
    replace: bool,
}

impl std::fmt::Debug for PathJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathJob")
            .field("id", &self.id)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl PartialEq for PathJob {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.path == other.path && self.replace == other.replace
    }
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

enum Native {
    Picked(PathBuf),
    Cancelled,
    Unavailable(Unavailable),
}

/// Opens rfd's dialog when one can open; blocks until it closes.
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
        Action::OpenKeys
        | Action::OpenSession
        | Action::OpenScenario
        | Action::OpenTrace(_)
        | Action::OpenDropped(_) => dialog.pick_file(),
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

/// Does what the path is for: checks an opened path, reads a session, writes a save. `replace` allows
/// overwriting an existing file (a native dialog has asked already). A trace's read tells `r` how far it is
/// ([`Outcome::TraceProgress`]).
fn finish(
    action: &Action,
    path: PathBuf,
    replace: bool,
    r: Option<&Reporter<Outcome>>,
) -> Result<Outcome, Problem> {
    let meta = std::fs::metadata(&path);
    let missing = |e: std::io::Error| {
        Problem::Other(if e.kind() == std::io::ErrorKind::NotFound {
            FileError::NotFound(path.clone())
        } else {
            FileError::Open {
                path: path.clone(),
                source: e,
            }
        })
    };
    let folder = |what| {
        Err(Problem::Other(FileError::AFolder {
            what,
            path: path.clone(),
        }))
    };
    match action {
        Action::OpenKeys => match meta {
            Ok(_) => Ok(Outcome::OpenKeys(path)),
            Err(e) => Err(missing(e)),
        },
        Action::OpenFolder => match meta {
            Ok(m) if m.is_dir() => Ok(Outcome::OpenKeys(path)),
            Ok(_) => Err(Problem::Other(FileError::NotAFolder(path))),
            Err(e) => Err(missing(e)),
        },
        Action::OpenSession => match meta {
            Ok(m) if m.is_dir() => folder("session"),
            Ok(_) => match std::fs::read(&path) {
                Ok(bytes) => Ok(Outcome::OpenSession(path, Ok(bytes))),
                Err(source) => Err(Problem::Other(FileError::Read { path, source })),
            },
            Err(e) => Err(missing(e)),
        },
        Action::OpenScenario => match meta {
            Ok(m) if m.is_dir() => folder("scenario"),
            Ok(_) => {
                let text = match std::fs::read_to_string(&path) {
                    Ok(text) => text,
                    Err(source) => return Err(Problem::Other(FileError::Read { path, source })),
                };
                let label = path.display().to_string();
                match crate::source::scenario::parse_scenario(&text, path.parent(), &label) {
                    Ok(s) => Ok(Outcome::OpenScenario(Box::new(s), text)),
                    Err(e) => Err(Problem::Other(e.into())),
                }
            }
            Err(e) => Err(missing(e)),
        },
        Action::OpenTrace(options) => match meta {
            Ok(_) => read_trace(&path, options, r),
            Err(e) => Err(missing(e)),
        },
        Action::OpenDropped(options) => match meta {
            Ok(_) if holds_only_traffic(&path) => read_trace(&path, options, r),
            Ok(_) => Ok(Outcome::OpenKeys(path)),
            Err(e) => Err(missing(e)),
        },
        Action::Save(payload) => save(payload, path, meta.ok(), replace),
    }
}

/// Reads a trace (a file or a folder) into a replay on an on-demand table.
fn read_trace(
    path: &Path,
    options: &TraceOptions,
    r: Option<&Reporter<Outcome>>,
) -> Result<Outcome, Problem> {
    let started = std::time::Instant::now();
    let progress = |p: crate::source::Progress| {
        if let Some(r) = r {
            r.offer(Outcome::TraceProgress(path.to_path_buf(), p, started));
        }
    };
    match crate::source::trace::load_traces_reporting(&[path.to_path_buf()], options, &progress) {
        Ok(load) => Ok(Outcome::OpenTrace(path.to_path_buf(), Box::new(load))),
        Err(e) => Err(Problem::Other(FileError::Trace(e))),
    }
}

/// Whether a file's first 64 KB (or one of a folder's first 20 files') hold a format only traces have (not
/// keys): Streams records, CloudWatch metrics, a Contributor Insights report. Incremental exports and CSV load
/// as keys when dropped; File > Open trace… replays them.
pub(super) fn holds_only_traffic(path: &Path) -> bool {
    if path.is_dir() {
        // A folder of traces: its first files (by name; an S3 export's manifests hold no traffic).
        let Ok(entries) = std::fs::read_dir(path) else {
            return false;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        return files.iter().take(20).any(|f| file_holds_only_traffic(f));
    }
    // Regular files only: a named pipe or a device would wait for its writer (and take what it writes).
    path.is_file() && file_holds_only_traffic(path)
}

fn file_holds_only_traffic(path: &Path) -> bool {
    use crate::source::trace::{TraceFormat, detect};
    let count = std::sync::atomic::AtomicU64::new(0);
    let Ok(input) = crate::source::read::open(path, &count) else {
        return false;
    };
    let mut head = Vec::with_capacity(64 << 10);
    if std::io::Read::read_to_end(&mut std::io::Read::take(input.reader, 64 << 10), &mut head)
        .is_err()
    {
        return false;
    }
    matches!(
        detect(&head),
        Some(TraceFormat::Streams | TraceFormat::Metrics | TraceFormat::Insights)
    )
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
        Payload::Png(image) => super::command_handling::write_png(&path, image),
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
        let save = Action::Save(Payload::Bytes(Arc::from(&b"new"[..])));
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
