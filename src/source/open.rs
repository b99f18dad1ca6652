//! The one door for what a user gives: [`open`] reads a file or folder (keys, an S3 export, a trace, a
//! scenario, a session) from a path, from bytes with a name, or from several files in memory (what a page was
//! given: files picked or dropped together, a folder's files), and returns what it read ([`Opened`]); the app
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

/// What is opened: a path (a file or folder), bytes with the name they are said by (a file the page was
/// given, a download), or several files in memory.
#[derive(Debug, Clone)]
pub enum Input {
    Path(PathBuf),
    Bytes {
        name: PathBuf,
        bytes: Arc<[u8]>,
    },
    /// Files a page was given together, each with its path (a folder's files: their paths relative to the
    /// folder above it, as `AWSDynamoDB/<export-id>/data/x.json.gz`, as browsers give them). `name` is what
    /// messages call them: the folder's name when every file lies in it (then they are that folder: an S3
    /// export in it reads as the export), else a description ("3 files"), and each file is read as itself
    /// ([`super::load_files`]).
    Files {
        name: PathBuf,
        files: Vec<(PathBuf, Arc<[u8]>)>,
    },
}

impl Input {
    /// The name it is said by in messages.
    pub fn name(&self) -> &Path {
        match self {
            Self::Path(p) => p,
            Self::Bytes { name, .. } | Self::Files { name, .. } => name,
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
    /// Several files where one was wanted (`what`: "session", "scenario").
    #[error("several files, not one {what} file: {}", path.display())]
    SeveralFiles { what: &'static str, path: PathBuf },
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
    /// Keys that cannot be loaded from a file holding traffic only traces have (Streams records, CloudWatch
    /// metrics, a Contributor Insights report), opened as keys: the error says where it opens.
    #[error("{}: {TRAFFIC_NOT_KEYS} (as keys: {source})", file_name(path))]
    TrafficNotKeys { path: PathBuf, source: SourceError },
}

/// A path's last part, as a message names the file.
fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned()
}

/// What the error of traffic opened as keys adds.
const TRAFFIC_NOT_KEYS: &str = "traffic, not keys (Streams records, CloudWatch metrics or a Contributor \
     Insights report): open it with File > Open trace…, or drop it on the window";

/// A keys load's error, said as traffic opened as keys when `traffic` (the input, `path`, holds only traces'
/// formats): where it opens first, so that a status line cut short still says it.
fn keys_error(e: OpenError, path: &Path, traffic: impl FnOnce() -> bool) -> OpenError {
    match e {
        OpenError::Keys(source) if traffic() => OpenError::TrafficNotKeys {
            path: path.to_path_buf(),
            source,
        },
        e => e,
    }
}

impl OpenError {
    /// The error as a message with its hints (a load's, a scenario's key file's, a trace's).
    pub fn message(&self) -> Message {
        match self {
            Self::Scenario(e) => e.message(),
            Self::Trace(e) => e.message(),
            Self::Keys(e) => e.message(),
            Self::TrafficNotKeys { path, source } => {
                let mut m = Message::new(format!(
                    "{}: {TRAFFIC_NOT_KEYS} (as keys: ",
                    file_name(path)
                ));
                m.push(&source.message());
                m.push_str(")");
                m
            }
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
        Input::Bytes { name, bytes } => open_bytes(name, bytes, expect, load, cancel, progress),
        Input::Files { name, files } => open_files(name, files, expect, load, cancel, progress),
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
        Expect::Keys => keys(progress)
            .map_err(|e| keys_error(e, path, || super::trace::holds_only_traffic(path))),
        Expect::Folder | Expect::Any(_) => keys(progress),
    }
}

/// Bytes with a name: a session, a scenario (its key files and traces cannot be found without a folder), a
/// trace, or keys, told apart as for a path ([`open_path`]); keys are read by the same loaders as a file's
/// ([`super::load_bytes`]). A folder cannot be bytes.
fn open_bytes(
    name: &Path,
    bytes: &[u8],
    expect: &Expect,
    load: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Opened, OpenError> {
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
        Expect::Folder => Err(OpenError::NotAFolder(name.to_path_buf())),
        Expect::Keys | Expect::Any(_) if is_scenario(name) => parse_scenario(text()?, None, name),
        Expect::Keys | Expect::Any(_) if super::session::head_is_session(head(bytes)) => {
            Ok(Opened::Session(bytes.to_vec()))
        }
        Expect::Any(options) if super::trace::bytes_hold_only_traffic(bytes) => traffic(options),
        Expect::Keys | Expect::Any(_) => {
            let loaded = super::load_bytes(name, bytes, load, cancel, progress).map_err(|e| {
                keys_error(e.into(), name, || {
                    super::trace::bytes_hold_only_traffic(bytes)
                })
            })?;
            Ok(Opened::Keys(Box::new(loaded)))
        }
    }
}

/// Several files in memory: keys read into one key set ([`super::load_files`]: a folder's files as the
/// folder, an S3 export as the export, else each file), or a trace of them all (when opened as one, or when
/// every file holds traffic only traces have and the user did not say). A session or a scenario is one file;
/// as an S3 export folder, they must be a folder.
fn open_files(
    name: &Path,
    files: &[(PathBuf, Arc<[u8]>)],
    expect: &Expect,
    load: &LoadOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Opened, OpenError> {
    let held: Vec<(PathBuf, &[u8])> = files.iter().map(|(p, b)| (p.clone(), &b[..])).collect();
    let traffic = |options: &TraceOptions| {
        super::trace::load_trace_bytes(&held, options)
            .map(|load| Opened::Trace(Box::new(load)))
            .map_err(OpenError::from)
    };
    let several = |what| {
        Err(OpenError::SeveralFiles {
            what,
            path: name.to_path_buf(),
        })
    };
    let folder = super::tree::is_folder(name, &held);
    match expect {
        _ if held.is_empty() => Err(OpenError::NotFound(name.to_path_buf())),
        Expect::Session => several("session"),
        Expect::Scenario => several("scenario"),
        Expect::Trace(options) => traffic(options),
        Expect::Folder if !folder => Err(OpenError::NotAFolder(name.to_path_buf())),
        Expect::Any(options)
            if held
                .iter()
                .all(|(_, b)| super::trace::bytes_hold_only_traffic(b)) =>
        {
            traffic(options)
        }
        Expect::Keys | Expect::Folder | Expect::Any(_) => {
            let loaded = super::load_files(name, &held, load, cancel, progress)?;
            Ok(Opened::Keys(Box::new(loaded)))
        }
    }
}

/// The first KiB of `bytes`, what a session's head is looked for in (as for a file).
fn head(bytes: &[u8]) -> &[u8] {
    bytes.get(..1024).unwrap_or(bytes)
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

    /// What a load read, to compare two loads of the same content: the keys with their counts, the counts
    /// of lines, bytes, items and skipped records, the key attributes, the shape, the groups (an export's
    /// data files) and every warning; or the error's message.
    fn read_of(opened: Result<Opened, OpenError>) -> Result<String, String> {
        match opened {
            Ok(Opened::Keys(l)) => {
                let mut keys: Vec<(Vec<u8>, u64)> =
                    l.keys.iter().map(|(_, k, n)| (k.to_vec(), n)).collect();
                keys.sort();
                Ok(format!(
                    "{keys:?} {} {} {} {} {:?} {:?} {:?} {:?} {:?}",
                    l.lines,
                    l.bytes,
                    l.items,
                    l.skipped,
                    l.key_attribute,
                    l.sort_key_attribute,
                    l.shape.map(|m| m.to_string()),
                    l.groups
                        .iter()
                        .flatten()
                        .map(|g| (g.name.as_str(), g.items))
                        .collect::<Vec<_>>(),
                    l.warnings
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                ))
            }
            Ok(_) => Err("not keys".to_owned()),
            Err(e) => Err(e.message().to_string()),
        }
    }

    #[test]
    fn keys_from_bytes_read_as_the_same_file_does() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut files = vec![
            "keys.txt",
            "keys.csv",
            "items.json",
            "items.json.gz",
            "items.json.zst",
            "scan.json",
            "items.ion",
            "incremental.json",
            "workbench.json",
            "numbers.json",
        ];
        let bad: Vec<String> = std::fs::read_dir(fixtures.join("bad"))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.path().is_file())
            .map(|e| format!("bad/{}", e.file_name().to_string_lossy()))
            .collect();
        files.extend(bad.iter().map(String::as_str));
        assert!(files.len() > 15, "{files:?}");
        for f in files {
            let path = fixtures.join(f);
            let by_path = read_of(open(
                &Input::Path(path.clone()),
                &Expect::Keys,
                &LoadOptions::default(),
                &AtomicBool::new(false),
                &mut |_| {},
            ));
            let bytes = Input::Bytes {
                name: path.clone(),
                bytes: std::fs::read(&path).unwrap().into(),
            };
            let by_bytes = read_of(open(
                &bytes,
                &Expect::Keys,
                &LoadOptions::default(),
                &AtomicBool::new(false),
                &mut |_| {},
            ));
            assert_eq!(by_bytes, by_path, "{f}");
        }
        // A folder cannot be bytes; a session's bytes open as a session.
        let named = |name: &str, text: &str| Input::Bytes {
            name: PathBuf::from(name),
            bytes: text.as_bytes().into(),
        };
        let folder = open(
            &named("export", "a\n"),
            &Expect::Folder,
            &LoadOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert!(matches!(folder, Err(OpenError::NotAFolder(_))));
        let session = format!(
            "{{ \"format\" : \"{}\" }}",
            super::super::session::SESSION_FORMAT
        );
        let opened = open(
            &named("s.json", &session),
            &Expect::Keys,
            &LoadOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert!(matches!(opened, Ok(Opened::Session(_))));
    }

    // A CloudWatch file opened with Open keys (Ctrl+O) is refused with where it opens, from a path and as bytes.
    #[test]
    fn traffic_opened_as_keys_says_to_open_it_as_a_trace() {
        let metrics = br#"{"MetricDataResults":[{"Id":"w","Label":"WriteThrottleEvents","Timestamps":["2026-06-23T10:00:00Z"],"Values":[5.0]}],"Messages":[]}"#;
        let dir = std::env::temp_dir().join(format!("shardlens-open-cw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("metrics.json");
        std::fs::write(&path, metrics).unwrap();
        for input in [
            Input::Path(path.clone()),
            Input::Bytes {
                name: path.clone(),
                bytes: std::sync::Arc::from(&metrics[..]),
            },
        ] {
            let said = read_of(open_as(&input, &Expect::Keys)).unwrap_err();
            // Where it opens comes first, so that a status line cut short still says it.
            assert!(
                said.starts_with(
                    "metrics.json: traffic, not keys (Streams records, CloudWatch metrics or a Contributor \
                     Insights report): open it with File > Open trace…, or drop it on the window (as keys: "
                ),
                "{said}"
            );
            assert!(said.contains("MetricDataResults"), "{said}");
        }
        // Keys that do not load for another reason say only that.
        let bad = dir.join("bad.json");
        std::fs::write(&bad, "{}").unwrap();
        let said = read_of(open_as(&Input::Path(bad), &Expect::Keys)).unwrap_err();
        assert!(!said.contains("Open trace"), "{said}");
        std::fs::remove_dir_all(dir).ok();
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

    fn open_as(input: &Input, expect: &Expect) -> Result<Opened, OpenError> {
        open(
            input,
            expect,
            &LoadOptions::default(),
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    /// The files of `base`/`folder`, as a page is given a folder it picked: each path relative to `base`
    /// (so starting with `folder`), the files in reverse name order (a browser's order is its own).
    fn picked_folder(base: &Path, folder: &str) -> Vec<(PathBuf, Arc<[u8]>)> {
        let mut files = Vec::new();
        let mut dirs = vec![base.join(folder)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    let bytes: Arc<[u8]> = std::fs::read(&path).unwrap().into();
                    files.push((path.strip_prefix(base).unwrap().to_path_buf(), bytes));
                }
            }
        }
        files.sort_by(|a, b| b.0.cmp(&a.0));
        files
    }

    #[test]
    fn an_export_folder_in_memory_reads_as_the_folder_on_disk() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        // (the folder above the picked one, the picked one, the error's words when it is one)
        let cases = [
            ("", "export", None),
            ("bad", "count-mismatch", None),
            ("shapes", "export-prefix", None),
            ("shapes", "incremental-export", None),
            ("shapes/incremental-export/inc", "AWSDynamoDB", None),
            ("export/AWSDynamoDB", "01700000000000-abcdef12", None),
            ("bad", "missing-data", Some("which is missing")),
        ];
        for (above, folder, error) in cases {
            let base = fixtures.join(above);
            let on_disk = read_of(open_as(&Input::Path(base.join(folder)), &Expect::Folder))
                .map_err(|e| e.replace(&format!("{}/", base.display()), ""))
                .map(|r| r.replace(&format!("{}/", base.display()), ""));
            let files = picked_folder(&base, folder);
            assert!(files.len() >= 3, "{folder}: {files:?}");
            let picked = Input::Files {
                name: PathBuf::from(folder),
                files,
            };
            let in_memory = read_of(open_as(&picked, &Expect::Folder));
            match error {
                Some(words) => {
                    let e = in_memory.as_ref().unwrap_err();
                    assert!(e.contains(words) && e.contains(folder), "{folder}: {e}");
                }
                None => {
                    let r = in_memory.as_ref().unwrap();
                    assert!(r.contains("S3 export folder"), "{folder}: {r}");
                    assert!(r.contains("data/"), "{folder}: the groups: {r}");
                }
            }
            assert_eq!(in_memory, on_disk, "{folder}");
            // Read again (Reload) as keys, and on one thread (as in a page): the same.
            assert_eq!(
                read_of(open_as(&picked, &Expect::Keys)),
                on_disk,
                "{folder}"
            );
            super::super::s3_export::TEST_THREADS.set(Some((1, None)));
            let one_thread = read_of(open_as(&picked, &Expect::Keys));
            super::super::s3_export::TEST_THREADS.set(None);
            assert_eq!(one_thread, on_disk, "{folder} on one thread");
        }
        // The manifests' checks are the export's: a count that disagrees is said as on disk.
        let picked = Input::Files {
            name: PathBuf::from("count-mismatch"),
            files: picked_folder(&fixtures.join("bad"), "count-mismatch"),
        };
        let r = read_of(open_as(&picked, &Expect::Folder)).unwrap();
        assert!(
            r.contains("the export holds 5 items, but manifest-summary.json says 10 (in count-mismatch/AWSDynamoDB/"),
            "{r}"
        );
    }

    #[test]
    fn files_in_memory_read_as_the_same_paths_do() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let sets: [&[&str]; 3] = [
            &["keys.txt", "keys.csv", "bad/empty.json"],
            &["items.json", "items.json.gz", "items.json.zst", "scan.json"],
            &["items.json", "bad/no-key.json"],
        ];
        for set in sets {
            let paths: Vec<PathBuf> = set.iter().map(|f| fixtures.join(f)).collect();
            let on_disk = read_of(open_as(&Input::Path(paths[0].clone()), &Expect::Keys));
            let on_disk_all = super::super::load(
                &paths,
                &LoadOptions::default(),
                &AtomicBool::new(false),
                &mut |_| {},
            )
            .map(|l| Opened::Keys(Box::new(l)))
            .map_err(OpenError::from);
            let files = Input::Files {
                name: PathBuf::from(format!("{} files", set.len())),
                files: paths
                    .iter()
                    .map(|p| (p.clone(), std::fs::read(p).unwrap().into()))
                    .collect(),
            };
            let want = read_of(on_disk_all);
            assert_ne!(want, on_disk, "{set:?}: the files add to the first");
            assert_eq!(read_of(open_as(&files, &Expect::Keys)), want, "{set:?}");
            assert_eq!(
                read_of(open_as(&files, &Expect::Any(TraceOptions::default()))),
                want,
                "{set:?}"
            );
        }
        let empty = fixtures.join("bad/empty.json");
        let r = read_of(open_as(
            &Input::Files {
                name: PathBuf::from("2 files"),
                files: vec![
                    (
                        fixtures.join("keys.txt"),
                        std::fs::read(fixtures.join("keys.txt")).unwrap().into(),
                    ),
                    (empty.clone(), Arc::from(&b""[..])),
                ],
            },
            &Expect::Keys,
        ))
        .unwrap();
        assert!(
            r.contains(&format!("{} is empty: no keys", empty.display())),
            "{r}"
        );
    }

    #[test]
    fn files_in_memory_are_what_they_are_opened_as() {
        let named = |name: &str, files: &[(&str, &str)]| Input::Files {
            name: PathBuf::from(name),
            files: files
                .iter()
                .map(|(p, text)| (PathBuf::from(p), Arc::from(text.as_bytes())))
                .collect(),
        };
        // A folder without an export's manifests (nor data/) is not an export, said with its name.
        let plain = named("notes", &[("notes/a.txt", "a\n"), ("notes/b.txt", "b\n")]);
        let e = read_of(open_as(&plain, &Expect::Folder)).unwrap_err();
        assert!(
            e.contains("not an S3 export folder: expected manifest-summary.json")
                && e.contains("notes"),
            "{e}"
        );
        // Files that are not one folder are not a folder; several are not one session or scenario.
        let flat = named("2 files", &[("a.txt", "a\n"), ("b.txt", "b\n")]);
        assert!(matches!(
            open_as(&flat, &Expect::Folder),
            Err(OpenError::NotAFolder(_))
        ));
        let e = open_as(&flat, &Expect::Session).err().unwrap();
        assert_eq!(
            e.to_string(),
            "several files, not one session file: 2 files"
        );
        assert!(matches!(
            open_as(&flat, &Expect::Scenario),
            Err(OpenError::SeveralFiles { .. })
        ));
        assert!(matches!(
            open_as(&named("0 files", &[]), &Expect::Keys),
            Err(OpenError::NotFound(_))
        ));
        // Streams records dropped together are a trace, unless opened as keys.
        let record = r#"{"Records":[{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208800,"Keys":{"pk":{"S":"a"}}}}]}"#;
        let streams = named("2 files", &[("p1.json", record), ("p2.json", record)]);
        assert!(matches!(
            open_as(&streams, &Expect::Any(TraceOptions::default())),
            Ok(Opened::Trace(_))
        ));
        let mixed = named("2 files", &[("p1.json", record), ("k.txt", "a\n")]);
        assert!(!matches!(
            open_as(&mixed, &Expect::Any(TraceOptions::default())),
            Ok(Opened::Trace(_))
        ));
    }
}
