//! The app's files: small persisted settings, and sessions (keys + every setting) saved as one versioned JSON
//! file. Here, not in `app`, so the headless build (and the fuzz targets, `fuzz/src/targets.rs`) can read
//! them: a session file is input nobody controls, like any other.

use serde::{Deserialize, Serialize};

use crate::model::capacity::Workload;
use crate::model::decision::UserAnswers;
use crate::model::key::{MAX_PARTITION_KEY_BYTES, canonicalize_into};
use crate::model::{KeySet, KeyType, ShardPlan, ViewSettings};
use crate::source::dynamo::ConnectOptions;

pub const SETTINGS_VERSION: u32 = 1;
pub const SESSION_FORMAT: &str = "shardlens-session";
pub const SESSION_VERSION: u32 = 1;
/// The last keys are remembered between runs only up to this size.
pub const REMEMBER_KEYS_BYTES: usize = 1 << 20;

/// What the app remembers between runs (never runtime state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub version: u32,
    pub buckets: usize,
    pub shard_enabled: bool,
    pub shard: ShardPlan,
    pub key_type: KeyType,
    pub log_scale: bool,
    pub presentation: bool,
    pub top_n: usize,
    /// The editor's text at exit, if small.
    pub last_keys: Option<String>,
    /// Model read/write capacity per partition.
    pub workload_enabled: bool,
    pub workload: Workload,
    /// What the chart shows; a mode the data cannot show falls back to writes per bucket
    /// ([`ChartMode::shown`]).
    pub chart: ChartMode,
    /// Where "Connect to DynamoDB" connects (never credentials).
    pub connect: ConnectSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            version: SETTINGS_VERSION,
            buckets: 8,
            shard_enabled: false,
            shard: ShardPlan {
                shards: 10,
                ..ShardPlan::default()
            },
            key_type: KeyType::S,
            log_scale: false,
            presentation: false,
            top_n: 10,
            last_keys: None,
            workload_enabled: false,
            workload: Workload {
                writes_per_sec: 2000.0,
                reads_per_sec: 0.0,
                ..Workload::default()
            },
            chart: ChartMode::Capacity,
            connect: ConnectSettings::default(),
        }
    }
}

/// Where to connect; remembered between runs (never credentials).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ConnectSettings {
    pub profile: String,
    pub region: String,
    pub endpoint: String,
}

impl ConnectSettings {
    pub fn options(&self) -> ConnectOptions {
        let some = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_owned());
        ConnectOptions {
            profile: some(&self.profile),
            region: some(&self.region),
            endpoint: some(&self.endpoint),
            ..ConnectOptions::default()
        }
    }
}

/// What the centre of the window shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChartMode {
    /// Writes (or items) per bucket of the teaching hash.
    #[default]
    Writes,
    /// % of each partition's capacity, when a workload is modelled.
    Capacity,
    /// Items per data file of a loaded S3 export: the export's real grouping.
    DataFiles,
    /// A time simulation: time × partition heatmap and throughput over time.
    Timeline,
    /// Key design: candidate keys over the same items, side by side.
    Designs,
}

impl ChartMode {
    /// The mode actually shown, given what the data offers: capacity needs a computed workload, data files an
    /// S3 export, the timeline a simulation; otherwise writes per bucket.
    pub fn shown(self, capacity: bool, data_files: bool, timeline: bool) -> Self {
        match self {
            Self::Capacity if capacity => self,
            Self::DataFiles if data_files => self,
            Self::Timeline if timeline => self,
            Self::Designs => self,
            _ => Self::Writes,
        }
    }
}

impl Settings {
    /// The view the model computes: sharding off unless enabled.
    pub fn view(&self) -> ViewSettings {
        let mut shard = self.shard.clone();
        if !self.shard_enabled {
            shard.shards = 1;
        }
        let view = ViewSettings {
            buckets: self.buckets.clamp(1, 64),
            shard,
            top_n: self.top_n.max(1),
            workload: None,
        };
        if !self.workload_enabled {
            return view;
        }
        // The workload's partition count drives the buckets; an invalid workload leaves the report to say why.
        match view.clone().with_workload(self.workload.clone()) {
            Ok(v) => v,
            Err(_) => ViewSettings {
                workload: Some(self.workload.clone()),
                ..view
            },
        }
    }
}

/// A saved session: the keys and every setting, to reopen a prepared scenario in class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub format: String,
    pub version: u32,
    pub settings: Settings,
    #[serde(default)]
    pub answers: UserAnswers,
    /// Keys as editor text (`pk` or `pk<TAB>sk` per line).
    #[serde(default)]
    pub text: Option<String>,
    /// Keys with counts (large key sets held as data).
    #[serde(default)]
    pub keys: Option<Vec<(String, u64)>>,
    /// The Timeline's scenario file (TOML), when the session was saved or shared on a scenario's run: it runs
    /// again when the session opens. Older sessions have none; older shardlens ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("not a shardlens session: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a shardlens session (format is {0:?})")]
    Format(String),
    #[error("session version {0} is newer than this shardlens understands ({SESSION_VERSION})")]
    Version(u32),
    #[error("the session holds no keys")]
    Empty,
    #[error("key {index}: {reason}")]
    Key { index: usize, reason: String },
    /// The session file could not be read (the caller names the file).
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// The session file is larger than [`MAX_SESSION_BYTES`].
    #[error(
        "a session of {}, larger than the {} a session may be",
        crate::model::fmt::bytes(*size as f64),
        crate::model::fmt::bytes(MAX_SESSION_BYTES as f64)
    )]
    TooLarge { size: u64 },
}

/// A session's keys, ready to show.
#[derive(Debug, Clone)]
pub enum SessionKeys {
    /// Editor text (`pk` or `pk<TAB>sk` per line).
    Text(String),
    /// Keys with counts, as a key set of the session's key type.
    Data(Box<KeySet>),
}

/// Whether the file at `path` is a session file: a JSON object whose first member is `"format":
/// "shardlens-session"` (as [`Session::to_json`] writes it). For a file opened as keys (a path on the command line,
/// File > Open, a drop) that is a session, so it opens as one instead of being read as items.
/// Only a regular file is looked at: reading the head of a FIFO or a device would take it from the load.
pub fn looks_like_session(path: &std::path::Path) -> bool {
    use std::io::Read as _;
    if !path.is_file() {
        return false;
    }
    let mut head = Vec::with_capacity(1024);
    let read = std::fs::File::open(path).and_then(|f| f.take(1024).read_to_end(&mut head));
    read.is_ok() && head_is_session(&head)
}

/// Whether bytes that begin a file are a session's head: `{`, then `"format"`, `:` and the format's name in
/// quotes, white space between them ([`looks_like_session`] for a path).
pub fn head_is_session(head: &[u8]) -> bool {
    let quoted = format!("\"{SESSION_FORMAT}\"");
    let mut rest = head.trim_ascii_start();
    for part in [&b"{"[..], b"\"format\"", b":", quoted.as_bytes()] {
        match rest.strip_prefix(part) {
            Some(r) => rest = r.trim_ascii_start(),
            None => return false,
        }
    }
    true
}

/// Sessions larger than this are refused before they are read (the app keeps big key sets as data; a session
/// of 10,000,000 keys is ~300 MB).
pub const MAX_SESSION_BYTES: u64 = 1 << 30;

/// Reads a session file whole, refusing one larger than [`MAX_SESSION_BYTES`]. The error is the reason alone
/// (the caller names the file).
pub fn read_session(path: &std::path::Path) -> Result<Vec<u8>, SessionError> {
    let size = std::fs::metadata(path)?.len();
    if size > MAX_SESSION_BYTES {
        return Err(SessionError::TooLarge { size });
    }
    Ok(std::fs::read(path)?)
}

impl Session {
    pub fn parse(bytes: &[u8]) -> Result<Self, SessionError> {
        let session: Session = serde_json::from_slice(bytes)?;
        if session.format != SESSION_FORMAT {
            return Err(SessionError::Format(session.format));
        }
        if session.version > SESSION_VERSION {
            return Err(SessionError::Version(session.version));
        }
        if session.text.is_none() && session.keys.is_none() {
            return Err(SessionError::Empty);
        }
        Ok(session)
    }

    /// The session's keys: its text if it has one, else its key list canonicalised as the session's key type
    /// (the first key that is not one is an error naming it, counting from 1).
    pub fn keys(&self) -> Result<SessionKeys, SessionError> {
        if let Some(text) = &self.text {
            return Ok(SessionKeys::Text(text.clone()));
        }
        let Some(list) = &self.keys else {
            return Err(SessionError::Empty);
        };
        let key_type = self.settings.key_type;
        let mut set = KeySet::new(key_type);
        let mut buf = Vec::new();
        for (i, (k, c)) in list.iter().enumerate() {
            canonicalize_into(k.as_bytes(), key_type, MAX_PARTITION_KEY_BYTES, &mut buf).map_err(
                |e| SessionError::Key {
                    index: i + 1,
                    reason: e.to_string(),
                },
            )?;
            set.add(&buf, *c);
        }
        Ok(SessionKeys::Data(Box::new(set)))
    }

    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_round_trip_and_errors() {
        let s = Session {
            format: SESSION_FORMAT.into(),
            version: SESSION_VERSION,
            settings: Settings::default(),
            answers: UserAnswers::default(),
            text: Some("a\nb\n".into()),
            keys: None,
            scenario: None,
        };
        let json = s.to_json().unwrap();
        assert_eq!(Session::parse(json.as_bytes()).unwrap(), s);
        assert!(matches!(
            Session::parse(b"{not json"),
            Err(SessionError::Json(_))
        ));
        let other = json.replace(SESSION_FORMAT, "something-else");
        assert!(matches!(
            Session::parse(other.as_bytes()),
            Err(SessionError::Format(_))
        ));
        let newer = json.replace("\"version\": 1", "\"version\": 99");
        assert!(matches!(
            Session::parse(newer.as_bytes()),
            Err(SessionError::Version(99))
        ));
    }

    #[test]
    fn session_keys_are_canonical_and_a_bad_one_is_named() {
        let mut s = Session {
            format: SESSION_FORMAT.into(),
            version: SESSION_VERSION,
            settings: Settings {
                key_type: KeyType::N,
                ..Settings::default()
            },
            answers: UserAnswers::default(),
            text: None,
            keys: Some(vec![
                ("1.50".into(), 3),
                ("01.5".into(), 2),
                ("7".into(), 1),
            ]),
            scenario: None,
        };
        let Ok(SessionKeys::Data(set)) = s.keys() else {
            panic!("numbers are keys of an N session")
        };
        assert_eq!(
            (set.len(), set.total()),
            (2, 6),
            "1.50 and 01.5 are one number"
        );
        s.keys = Some(vec![("1".into(), 1), ("one".into(), 1)]);
        let err = s.keys().unwrap_err();
        assert!(matches!(err, SessionError::Key { index: 2, .. }), "{err}");
        s.keys = None;
        assert!(matches!(s.keys(), Err(SessionError::Empty)));
    }

    #[test]
    fn a_session_file_is_told_from_keys_by_its_head() {
        let dir = std::env::temp_dir().join(format!("shardlens-sniff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let session = dir.join("s.json");
        std::fs::write(
            &session,
            "\n  {\"format\": \"shardlens-session\", \"version\": 1}",
        )
        .unwrap();
        let items = dir.join("i.json");
        std::fs::write(&items, "{\"Item\":{\"pk\":{\"S\":\"shardlens-session\"}}}").unwrap();
        let lines = dir.join("k.txt");
        std::fs::write(&lines, "shardlens-session\n").unwrap();
        assert!(looks_like_session(&session));
        assert!(
            !looks_like_session(&items),
            "an item that holds the format's name"
        );
        assert!(!looks_like_session(&lines), "not a JSON object");
        assert!(!looks_like_session(&dir), "a folder is not read");
        assert!(!looks_like_session(&dir.join("missing")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn settings_tolerate_missing_fields() {
        let s: Settings = serde_json::from_str("{\"buckets\": 16}").unwrap();
        assert_eq!(s.buckets, 16);
        assert_eq!(s.shard.shards, 10);
        assert_eq!(s.view().shard.shards, 1, "sharding is off until enabled");
    }
}
