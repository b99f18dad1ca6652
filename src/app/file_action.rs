//! What a file action is: what a chosen path is for ([`Action`]), what a save writes ([`Payload`]), the file
//! dialog to show for it ([`Request`]) and a path the in-app path field confirmed ([`PathJob`]). The menus, the
//! commands and the dialogs all speak of these; the dialogs (`dialogs`) show them and do them.

use std::path::PathBuf;
use std::sync::Arc;

use crate::source::trace::TraceOptions;

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
    pub(super) filters: Vec<(&'static str, Vec<&'static str>)>,
    pub(super) file_name: Option<&'static str>,
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

    pub(super) fn saves(&self) -> bool {
        matches!(self.action, Action::Save(_))
    }

    pub(super) fn verb(&self) -> &'static str {
        if self.saves() { "Save" } else { "Open" }
    }
}

/// A path the path field confirmed: checked and used by `finish_path`.
#[derive(Clone)]
pub struct PathJob {
    pub(super) id: u64,
    pub(super) action: Action,
    pub(super) path: PathBuf,
    /// The user confirmed replacing this existing file.
    pub(super) replace: bool,
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
