//! What can go wrong in the app's background work, typed until a notice says it.
//!
//! A task's error travels as the error it is (a load's [`SourceError`], a connection's [`DynamoError`], a file
//! dialog's [`FileError`], a session's, a thread that could not start) and is said once, where the user sees it: [`AppError::said`] formats it with
//! `{:#}` and says its hints ([`crate::source::Hint`]) in the window's words ([`super::notices::control`]), so
//! the command line's flags never reach the window and nobody rewrites message text.

use crate::source::Message;
use crate::source::SourceError;
use crate::source::dynamo::DynamoError;
use crate::source::session::SessionError;

use super::dialogs::FileError;
use super::tasks::TaskError;

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
            other => Message::new(format!("{other:#}")),
        }
    }

    /// The error in the window's words: `{:#}`, its hints named as the app's controls.
    pub fn said(&self) -> String {
        self.message().in_words(super::notices::control)
    }
}
