//! The one door for what a user gives: [`open`] reads a file or folder (keys, an S3 export, a trace, a
//! scenario, a session) from a path, or from bytes with a name, and returns what it read ([`Opened`]); the app
//! calls it on a task and the CLI's commands read through the loaders it calls. Which of them a path is, when
//! the user did not say ([`Expect::Any`]: the command line, a drop), is decided here from its name and first
//! bytes, never on the UI thread: a scenario by its `.toml` name, a session by its head
//! ([`super::session::looks_like_session`]), a trace when its content is one only traces have
//! ([`super::trace::holds_only_traffic`]), else keys.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::trace::{TraceLoad, TraceLoadError, TraceOptions};
use super::{LoadOptions, Loaded, Message, Progress, SourceError};
use crate::model::sim_file::Scenario;

/// What is opened: a path (a file or folder), or bytes with the name they are said by (a file the page was
/// given, a download).
#[derive(Debug, Clone)]
pub enum Input {
    Path(PathBuf),
    Bytes { name: PathBuf, bytes: Arc<[u8]> },
}

impl Input {
    /// The name it is said by in messages.
    pub fn name(&self) -> &Path {
        match self {
            Self::Path(p) => p,
            Self::Bytes { name, .. } => name,
        }
    }
}

/// What the user said the input is.
#[derive(Debug, Clone)]
pub enum Expect {
    /// Keys (File > Open keys, Reload): a scenario by its `.toml` name and a session by its head open as what
    /// they are; anything else is keys.
    Keys,
    /// An S3 export folder.
    Folder,
    Session,
    Scenario,
    /// A trace of real traffic (a file or a folder of them), read with these options.
    Trace(TraceOptions),
    /// Whatever it is (the command line, a drop): as [`Self::Keys`], and a trace when its content is one only
    /// traces have (Streams records, CloudWatch metrics, a Contributor Insights report; an incremental export
    /// or a CSV log is keys unless opened as a trace).
    Any(TraceOptions),
}

/// What was read.
pub enum Opened {
    Keys(Box<Loaded>),
    /// A session file's bytes (parsed by [`super::session::Session::parse`]).
    Session(Vec<u8>),
    /// A scenario, read and parsed with its key files and traces, and its text.
    Scenario(Box<Scenario>, String),
    Trace(Box<TraceLoad>),
}

/// Why an input could not be opened: the reason, the path last.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("no such file or folder: {}", .0.display())]
    NotFound(PathBuf),
    #[error("cannot open ({source}): {}", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("not a folder (an S3 export is a folder, AWSDynamoDB/<export-id>): {}", .0.display())]
    NotAFolder(PathBuf),
    /// A folder where a file was wanted (`what`: "session", "scenario").
    #[error("a folder, not a {what} file: {}", path.display())]
    AFolder { what: &'static str, path: PathBuf },
    #[error("cannot read ({source}): {}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A session file that cannot be read whole (too large, or an I/O error).
    #[error("cannot read {}: {error}", path.display())]
    Session {
        path: PathBuf,
        error: super::session::SessionError,
    },
    /// A scenario file that does not parse, or whose key files do not load.
    #[error(transparent)]
    Scenario(#[from] super::scenario::ScenarioFileError),
    /// A trace whose records cannot be read or replayed.
    #[error(transparent)]
    Trace(#[from] TraceLoadError),
    /// Keys that cannot be loaded.
    #[error(transparent)]
    Keys(#[from] SourceError),
}

impl OpenError {
    /// The error as a message with its hints (a load's, a scenario's key file's, a trace's).
    pub fn message(&self) -> Message {
        match self {
            Self::Scenario(e) => e.message(),
            Self::Trace(e) => e.message(),
            Self::Keys(e) => e.message(),
            other => Message::new(other.to_string()),
        }
    }
}

/// A scenario file of the time simulation (`.toml`), not keys.
pub fn is_scenario(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// Reads `input` as `expect` says, with the Load options for keys; `progress` hears how far a load or a trace
/// is, and `cancel` stops a load of keys.
pub fn open(
    input: &Input,
    expect: &Expect,
    load: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Opened, OpenError> {
    match input {
        Input::Path(path) => open_path(path, expect, load, cancel, progress),
        Input::Bytes { name, bytes } => open_bytes(name, bytes, expect),
    }
}

fn open_path(
    path: &Path,
    expect: &Expect,
    load: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Opened, OpenError> {
    let meta = std::fs::metadata(path).map_err(|e| missing(path, e))?;
    let folder = |what| {
        Err(OpenError::AFolder {
            what,
            path: path.to_path_buf(),
        })
    };
    let keys = |progress: &mut dyn FnMut(Progress)| {
        if super::session::looks_like_session(path) {
            return read_session(path);
        }
        let loaded = super::load(&[path.to_path_buf()], load, cancel, progress)?;
        Ok(Opened::Keys(Box::new(loaded)))
    };
    match expect {
        Expect::Folder if !meta.is_dir() => Err(OpenError::NotAFolder(path.to_path_buf())),
        Expect::Session | Expect::Scenario if meta.is_dir() => folder(match expect {
            Expect::Session => "session",
            _ => "scenario",
        }),
        Expect::Session => read_session(path),
        Expect::Scenario => read_scenario(path),
        Expect::Trace(options) => read_trace(path, options, progress),
        Expect::Keys | Expect::Any(_) if is_scenario(path) && !meta.is_dir() => read_scenario(path),
        Expect::Any(options) if super::trace::holds_only_traffic(path) => {
            read_trace(path, options, progress)
        }
        Expect::Keys | Expect::Folder | Expect::Any(_) => keys(progress),
    }
}

/// Bytes with a name: a session, a scenario (its key files and traces cannot be found without a folder), a
/// trace; keys from bytes are read by the web build's loaders (issue 59), so they are refused here by name.
fn open_bytes(name: &Path, bytes: &[u8], expect: &Expect) -> Result<Opened, OpenError> {
    let text = || {
        std::str::from_utf8(bytes).map_err(|e| OpenError::Read {
            path: name.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        })
    };
    let traffic = |options: &TraceOptions| {
        super::trace::load_trace_bytes(&[(name.to_path_buf(), bytes)], options)
            .map(|load| Opened::Trace(Box::new(load)))
            .map_err(OpenError::from)
    };
    match expect {
        Expect::Session => Ok(Opened::Session(bytes.to_vec())),
        Expect::Scenario => parse_scenario(text()?, None, name),
        Expect::Trace(options) => traffic(options),
        Expect::Keys | Expect::Any(_) if is_scenario(name) => parse_scenario(text()?, None, name),
        Expect::Any(options) if super::trace::bytes_hold_only_traffic(bytes) => traffic(options),
        Expect::Keys | Expect::Folder | Expect::Any(_) => Err(OpenError::Read {
            path: name.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "keys are read from files and folders here",
            ),
        }),
    }
}

/// The error of a path that cannot be looked at: missing, or not opened (permissions). Also what a dialog
/// says of a path it only checks.
pub fn missing(path: &Path, e: std::io::Error) -> OpenError {
    if e.kind() == std::io::ErrorKind::NotFound {
        OpenError::NotFound(path.to_path_buf())
    } else {
        OpenError::Open {
            path: path.to_path_buf(),
            source: e,
        }
    }
}

fn read_session(path: &Path) -> Result<Opened, OpenError> {
    super::session::read_session(path)
        .map(Opened::Session)
        .map_err(|error| OpenError::Session {
            path: path.to_path_buf(),
            error,
        })
}

fn read_scenario(path: &Path) -> Result<Opened, OpenError> {
    let text = std::fs::read_to_string(path).map_err(|source| OpenError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_scenario(&text, path.parent(), path)
}

fn parse_scenario(text: &str, base: Option<&Path>, name: &Path) -> Result<Opened, OpenError> {
    let label = name.display().to_string();
    let scenario = super::scenario::parse_scenario(text, base, &label)?;
    Ok(Opened::Scenario(Box::new(scenario), text.to_owned()))
}

/// Reads a trace (a file or a folder), telling `progress` how far it is.
fn read_trace(
    path: &Path,
    options: &TraceOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Opened, OpenError> {
    let progress = std::cell::RefCell::new(progress);
    let load = super::trace::load_traces_reporting(&[path.to_path_buf()], options, &|p| {
        (progress.borrow_mut())(p);
    })?;
    Ok(Opened::Trace(Box::new(load)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_any(path: &Path) -> Result<Opened, OpenError> {
        open(
            &Input::Path(path.to_path_buf()),
            &Expect::Any(TraceOptions::default()),
            &LoadOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    #[test]
    fn anything_given_opens_as_what_it_is() {
        let dir = std::env::temp_dir().join(format!("shardlens-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let keys = dir.join("keys.txt");
        std::fs::write(&keys, "a\nb\na\n").unwrap();
        assert!(matches!(open_any(&keys), Ok(Opened::Keys(l)) if l.keys.total() == 3));
        let streams = dir.join("pages.json");
        std::fs::write(
            &streams,
            r#"{"Records":[{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208800,"Keys":{"pk":{"S":"a"}}}}]}"#,
        )
        .unwrap();
        assert!(matches!(open_any(&streams), Ok(Opened::Trace(_))));
        let scenario = dir.join("s.toml");
        std::fs::write(&scenario, "[[traffic]]\nkey = \"a\"\nwrites_per_sec = 10\n").unwrap();
        assert!(matches!(open_any(&scenario), Ok(Opened::Scenario(..))));
        let session = dir.join("s.json");
        std::fs::write(&session, "{\"format\": \"shardlens-session\"}").unwrap();
        assert!(matches!(open_any(&session), Ok(Opened::Session(_))));
        let missing = dir.join("nothing.txt");
        let e = open_any(&missing).err().unwrap();
        assert_eq!(
            e.to_string(),
            format!("no such file or folder: {}", missing.display())
        );
        // Bytes with a name: a trace by its content, a scenario by its name.
        let bytes = Input::Bytes {
            name: PathBuf::from("pages.json"),
            bytes: std::fs::read(&streams).unwrap().into(),
        };
        let opened = open(
            &bytes,
            &Expect::Any(TraceOptions::default()),
            &LoadOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert!(matches!(opened, Ok(Opened::Trace(_))));
        std::fs::remove_dir_all(dir).ok();
    }
}
