//! The app's persisted state at start: eframe keeps it in one storage file (`app.ron` in the app's data
//! folder on the desktop, the browser's local storage in the page), a RON map of strings whose entry
//! [`SETTINGS_KEY`] holds the [`Settings`] (with the last keys) as RON. eframe treats a file it cannot read as
//! no file and writes over it at exit, silently; a shardlens that finds its settings unreadable, or written by
//! a newer shardlens, starts fresh **and says so**, after moving the file aside (`app.ron.bad`, then
//! `app.ron.bad.2`, …) so nothing the user had is lost (issue 61: the app starts whatever it finds).
//!
//! Input nobody controls (the file may be cut by a crash, edited by hand, or written by another version): the
//! `app_state` fuzz target (`fuzz/src/targets.rs`) reads whatever bytes through [`Settings::from_ron`] and
//! [`read_state`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::session::{SETTINGS_VERSION, Settings};

/// The storage entry holding the settings (eframe's `APP_KEY`).
pub const SETTINGS_KEY: &str = "app";

/// A storage file larger than this is not one shardlens wrote (the settings keep at most 1 MB of last keys,
/// egui's memory a few KB): it is moved aside unread rather than parsed at every start.
pub const MAX_STATE_BYTES: u64 = 16 << 20;

/// Why the stored settings are not used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// Not RON, or not the settings' shape (a cut or hand-edited file).
    #[error("cannot be read ({0})")]
    Unreadable(String),
    /// A newer shardlens wrote them: their fields may mean what this one does not know.
    #[error(
        "were written by a newer shardlens (settings version {0}; this one reads version {SETTINGS_VERSION})"
    )]
    Newer(u32),
    /// The storage file is larger than [`MAX_STATE_BYTES`].
    #[error("are in a file of {}, larger than shardlens writes", crate::model::fmt::bytes(*.0 as f64))]
    TooLarge(u64),
}

impl Settings {
    /// The settings as the app stored them (RON). A version newer than [`SETTINGS_VERSION`] is refused, not read
    /// in part: its fields may mean something else.
    pub fn from_ron(text: &str) -> Result<Self, SettingsError> {
        let settings: Self = ron::from_str(text).map_err(|e| unreadable(&e))?;
        if settings.version > SETTINGS_VERSION {
            return Err(SettingsError::Newer(settings.version));
        }
        Ok(settings.sane())
    }

    /// The numbers no control of the app can set, put back to their defaults: a share threshold or a rate that
    /// is not a finite number in its range (RON reads `NaN` and `inf`; the `app_state` fuzz target found a NaN
    /// threshold, which made no key hot and showed as "NaN %").
    fn sane(mut self) -> Self {
        let defaults = Self::default();
        if let crate::model::shard::Scope::Hot { threshold } = &mut self.shard.scope
            && !(0.0..1.0).contains(threshold)
        {
            *threshold = crate::model::shard::DEFAULT_HOT_SHARE;
        }
        for (rate, default) in [
            (
                &mut self.workload.reads_per_sec,
                defaults.workload.reads_per_sec,
            ),
            (
                &mut self.workload.writes_per_sec,
                defaults.workload.writes_per_sec,
            ),
        ] {
            if !(rate.is_finite() && *rate >= 0.0) {
                *rate = default;
            }
        }
        self
    }

    /// The settings as RON, as the app stores them (eframe's `set_value`).
    pub fn to_ron(&self) -> Result<String, SettingsError> {
        ron::to_string(self).map_err(|e| SettingsError::Unreadable(e.to_string()))
    }
}

/// The settings in a storage file's text (the RON map eframe writes), or why they cannot be used. `Ok(None)`:
/// a readable file without settings (a first run that saved only the window).
pub fn read_state(text: &str) -> Result<Option<Settings>, SettingsError> {
    let map: HashMap<String, String> = ron::from_str(text).map_err(|e| unreadable(&e))?;
    map.get(SETTINGS_KEY)
        .map(|s| Settings::from_ron(s))
        .transpose()
}

/// RON's error in words: "line 2, column 135: expected end of string".
fn unreadable(e: &ron::error::SpannedError) -> SettingsError {
    let code = e.code.to_string();
    let mut said = code.chars();
    let code: String = said
        .next()
        .map(|c| c.to_lowercase().chain(said).collect())
        .unwrap_or_default();
    SettingsError::Unreadable(format!(
        "line {}, column {}: {code}",
        e.span.start.line, e.span.start.col
    ))
}

/// What [`check_state_file`] found wrong and did.
#[derive(Debug, Clone, PartialEq)]
pub struct StateNote {
    /// The storage file.
    pub path: PathBuf,
    pub error: SettingsError,
    /// Where the bad file now is; `Err` says why it could not be moved (it will be written over at exit).
    pub kept_as: Result<PathBuf, String>,
}

impl StateNote {
    /// For the status line: what was wrong and what shardlens did.
    pub fn words(&self) -> String {
        let kept = match &self.kept_as {
            Ok(p) => format!(
                "the old file is kept as {}",
                p.file_name()
                    .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
            ),
            Err(e) => format!("the old file could not be kept ({e}) and will be replaced at exit"),
        };
        format!("Your settings {}: started fresh; {kept}", self.error)
    }

    /// For Messages: the full paths.
    pub fn detail(&self) -> String {
        match &self.kept_as {
            Ok(p) => format!("{} moved to {}", self.path.display(), p.display()),
            Err(e) => format!("{}: {e}", self.path.display()),
        }
    }
}

/// Checks the app's storage file before eframe opens it: when it cannot be read, holds unreadable settings, or
/// settings from a newer shardlens, it is moved aside ([`kept_name`]) so the app starts fresh, and the note says
/// so. `None`: no file, or a good one (an unreadable file that cannot even be opened is left to eframe, which
/// starts fresh from it too).
pub fn check_state_file(path: &Path) -> Option<StateNote> {
    let size = std::fs::metadata(path).ok()?.len();
    let error = if size > MAX_STATE_BYTES {
        SettingsError::TooLarge(size)
    } else {
        let bytes = std::fs::read(path).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        read_state(&text).err()?
    };
    let kept_as = kept_name(path).and_then(|to| {
        std::fs::rename(path, &to)
            .map(|()| to)
            .map_err(|e| e.to_string())
    });
    Some(StateNote {
        path: path.to_path_buf(),
        error,
        kept_as,
    })
}

/// The first free name of `app.ron.bad`, `app.ron.bad.2`, … `app.ron.bad.100` beside `path`.
fn kept_name(path: &Path) -> Result<PathBuf, String> {
    let name = path
        .file_name()
        .map_or_else(|| "app.ron".into(), |n| n.to_string_lossy().into_owned());
    (1..=100)
        .map(|i| match i {
            1 => path.with_file_name(format!("{name}.bad")),
            _ => path.with_file_name(format!("{name}.bad.{i}")),
        })
        .find(|p| !p.exists())
        .ok_or_else(|| format!("{name}.bad … {name}.bad.100 all exist"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("shardlens-app-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A storage file as eframe writes it: the settings as RON inside a RON map of strings.
    fn storage(settings: &str) -> String {
        let map: HashMap<String, String> = [
            (SETTINGS_KEY.to_owned(), settings.to_owned()),
            ("egui".to_owned(), "(windows: {})".to_owned()),
        ]
        .into();
        ron::to_string(&map).unwrap()
    }

    #[test]
    fn settings_round_trip_through_ron() {
        let s = Settings {
            buckets: 12,
            last_keys: Some("a\nb\t\"quoted\"".into()),
            ..Settings::default()
        };
        let text = s.to_ron().unwrap();
        assert_eq!(Settings::from_ron(&text).unwrap(), s);
        assert_eq!(read_state(&storage(&text)).unwrap(), Some(s));
        assert_eq!(read_state("{}").unwrap(), None);
    }

    #[test]
    fn numbers_no_control_can_set_are_put_back_to_their_defaults() {
        let text = Settings::default()
            .to_ron()
            .unwrap()
            .replace("threshold:0.05", "threshold:-NaN")
            .replace("writes_per_sec:2000.0", "writes_per_sec:inf")
            .replace("reads_per_sec:0.0", "reads_per_sec:-3.0");
        assert!(text.contains("-NaN") && text.contains("inf"), "{text}");
        let read = Settings::from_ron(&text).unwrap();
        assert_eq!(read, Settings::default());
        assert_eq!(Settings::from_ron(&read.to_ron().unwrap()).unwrap(), read);
    }

    #[test]
    fn a_good_file_is_left_alone() {
        let d = dir("good");
        let path = d.join("app.ron");
        std::fs::write(&path, storage(&Settings::default().to_ron().unwrap())).unwrap();
        assert_eq!(check_state_file(&path), None);
        assert!(path.exists());
        assert_eq!(check_state_file(&d.join("none.ron")), None);
    }

    #[test]
    fn a_cut_file_is_moved_aside_and_said() {
        let d = dir("cut");
        let path = d.join("app.ron");
        let whole = storage(&Settings::default().to_ron().unwrap());
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        let note = check_state_file(&path).unwrap();
        assert!(
            matches!(note.error, SettingsError::Unreadable(_)),
            "{note:?}"
        );
        assert_eq!(note.kept_as, Ok(d.join("app.ron.bad")));
        assert!(!path.exists());
        assert_eq!(
            std::fs::read_to_string(d.join("app.ron.bad")).unwrap(),
            whole[..whole.len() / 2]
        );
        let words = note.words();
        assert!(
            words.starts_with("Your settings cannot be read (")
                && words.ends_with("started fresh; the old file is kept as app.ron.bad"),
            "{words}"
        );
        // A second bad file does not replace the first one kept.
        std::fs::write(&path, "garbage").unwrap();
        let again = check_state_file(&path).unwrap();
        assert_eq!(again.kept_as, Ok(d.join("app.ron.bad.2")));
        assert_eq!(
            std::fs::read_to_string(d.join("app.ron.bad")).unwrap(),
            whole[..whole.len() / 2]
        );
    }

    #[test]
    fn settings_of_a_newer_version_are_kept_for_it() {
        let d = dir("newer");
        let path = d.join("app.ron");
        let newer = Settings {
            version: SETTINGS_VERSION + 1,
            ..Settings::default()
        };
        std::fs::write(&path, storage(&newer.to_ron().unwrap())).unwrap();
        let note = check_state_file(&path).unwrap();
        assert_eq!(note.error, SettingsError::Newer(SETTINGS_VERSION + 1));
        assert!(
            note.words().starts_with(
                "Your settings were written by a newer shardlens (settings version 2;"
            ),
            "{}",
            note.words()
        );
        assert!(d.join("app.ron.bad").exists());
    }

    #[test]
    fn settings_of_the_wrong_shape_are_unreadable_and_unknown_fields_are_not() {
        assert!(matches!(
            read_state(&storage("(buckets: \"eight\")")),
            Err(SettingsError::Unreadable(_))
        ));
        // A field this version does not know (an older or newer one's, same version) is ignored.
        let read = read_state(&storage("(buckets: 9, someday: true)")).unwrap();
        assert_eq!(read.map(|s| s.buckets), Some(9));
        assert!(matches!(
            read_state("not ron at all"),
            Err(SettingsError::Unreadable(_))
        ));
    }
}
