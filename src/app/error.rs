//! What can go wrong in the app's background work, typed until a notice says it.
//!
//! A task's error travels as the error it is (a load's [`SourceError`], a connection's [`DynamoError`], a file
//! dialog's [`FileError`], an opened file's [`OpenError`], a session's, a thread that could not start) and is said once, where the user sees it: [`AppError::said`] formats it with
//! `{:#}` and says its hints ([`crate::source::Hint`]) in the window's words ([`super::notices::control`]), so
//! the command line's flags never reach the window and nobody rewrites message text.

use crate::source::Message;
use crate::source::SourceError;
use crate::source::dynamo::DynamoError;
use crate::source::session::SessionError;

use super::tasks::TaskError;
use crate::source::open::OpenError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A load: a file's keys, or the attributes the Key design reads.
    #[error(transparent)]
    Load(#[from] SourceError),
    /// Talking to DynamoDB.
    #[error(transparent)]
    Dynamo(#[from] DynamoError),
    /// A file opened or saved (a scenario's, with its key files).
    #[error(transparent)]
    File(#[from] FileError),
    /// A file or folder opened through the source's door (a session, a scenario, a trace).
    #[error(transparent)]
    Opened(#[from] OpenError),
    /// A session file.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A background thread could not start.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// A task's thread ended without sending its result ("the scan thread").
    #[error("the {0} ended without a result")]
    Ended(&'static str),
    /// Anything else a task can say: a mix of causes, said as its chain.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl AppError {
    /// The error as a message with its hints (a load's and a connection's have them).
    pub fn message(&self) -> Message {
        match self {
            Self::Load(e) => e.message(),
            Self::Dynamo(e) => e.message(),
            Self::File(e) => e.message(),
            Self::Opened(e) => e.message(),
            other => Message::new(format!("{other:#}")),
        }
    }

    /// The error in the window's words: `{:#}`, its hints named as the app's controls.
    pub fn said(&self) -> String {
        self.message().in_words(super::notices::control)
    }
}

/// Why a file action (open, save, a typed path) did not work: the reason, the path last. What opening a file
/// can meet is the source's ([`OpenError`]); the rest is about saving and typed paths.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error(transparent)]
    Opened(#[from] OpenError),
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
    /// The browser could not read a file given to the page, or could not download a save.
    #[error("{reason}: {}", path.display())]
    Browser { path: PathBuf, reason: String },
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
    /// The error as a message with its hints (a scenario's key file's or a trace's load error has them).
    pub fn message(&self) -> crate::source::Message {
        match self {
            Self::Opened(e) => e.message(),
            other => crate::source::Message::new(other.to_string()),
        }
    }
}
