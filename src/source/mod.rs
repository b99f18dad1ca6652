//! I/O: streams keys from files, standard input and live DynamoDB tables ([`dynamo`]) into a [`KeySet`].
//!
//! Sources never panic on input: every problem becomes a [`SourceError`] that names the file and the line.

pub mod dynamo;
pub mod lines;

use std::path::PathBuf;

use crate::model::KeySet;
use crate::model::text::LineError;

pub use lines::{load_lines, load_path};

/// Where keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Typed or pasted into the editor.
    Paste,
    /// A built-in teaching scenario.
    Example(crate::model::scenario::Scenario),
    /// A file of keys (plain text, one per line).
    File(PathBuf),
    /// Standard input.
    Stdin,
}

impl Source {
    /// A short description for titles and status lines.
    pub fn describe(&self) -> String {
        match self {
            Self::Paste => "pasted keys".to_owned(),
            Self::Example(s) => format!("example: {}", s.title()),
            Self::File(p) => p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            Self::Stdin => "standard input".to_owned(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read {}: {source}", name.display())]
    Io {
        name: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{error} (in {})", name.display())]
    Line { name: PathBuf, error: LineError },
    #[error("loading cancelled")]
    Cancelled,
}

/// Progress of a load: bytes read so far, and the total when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub bytes: u64,
    pub total_bytes: Option<u64>,
    pub lines: u64,
}

/// A finished load.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub keys: KeySet,
    pub lines: u64,
    pub bytes: u64,
}
