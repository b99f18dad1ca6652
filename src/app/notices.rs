//! Messages for the user: one current line per activity, with levels, and a history.
//!
//! Errors never happen in silence and never linger past their time: an info notice fades after
//! [`INFO_SECS`]; warnings and errors stay until dismissed or replaced by a newer notice of the same activity
//! (a new load replaces the last load's error, a new scan the last scan's result). A notice belongs to what
//! it is about and goes when that goes: a load's or a scan's line when other keys replace the keys it was
//! about ([`Notices::keys_replaced`]), a run's line when another run takes the Timeline. The status line
//! shows the newest current notice (what the user did last), the others are counted beside Messages. Every
//! notice is kept in a short history, and written to standard error so that logs show it too.

use std::collections::VecDeque;
use std::time::Duration;
use web_time::Instant;

use crate::source::Hint;

/// How long an info notice stays on screen.
pub const INFO_SECS: u64 = 6;
/// Notices kept in the history.
pub const HISTORY: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Info,
    Warning,
    Error,
}

/// What a notice is about: each activity has at most one current line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    /// Opening files of keys.
    Load,
    /// Scanning a live table.
    Scan,
    /// A table's live traffic: watching its writes, reading its last hours of metrics.
    Live,
    /// The keys in the editor (types, examples, undo).
    Keys,
    /// Sessions and exports.
    File,
    /// The run in the Timeline (a scenario, a trace's or a table's metrics' replay): a new run replaces it.
    Timeline,
    /// A file dialog that could not open (the path field took its place): gone once a path worked.
    Dialog,
    Clipboard,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub level: Level,
    pub activity: Activity,
    pub text: String,
    /// Technical detail for Messages (a D-Bus address, an error chain, a full path), never on the status
    /// line.
    pub detail: Option<String>,
    pub at: Instant,
}

impl Notice {
    /// Whether this notice was an error (a shorthand for tests and callers that only care about that).
    pub fn error(&self) -> bool {
        self.level == Level::Error
    }
}

#[derive(Debug, Default)]
pub struct Notices {
    current: Vec<Notice>,
    history: VecDeque<Notice>,
}

impl Notices {
    /// Shows `text` as the current line of `activity`, replacing what it said before.
    pub fn push(
        &mut self,
        activity: Activity,
        level: Level,
        text: impl Into<String>,
        now: Instant,
    ) {
        self.push_detailed(activity, level, text, None, now);
    }

    /// As [`Self::push`], with technical detail shown in Messages (and on standard error) only.
    pub fn push_detailed(
        &mut self,
        activity: Activity,
        level: Level,
        text: impl Into<String>,
        detail: Option<String>,
        now: Instant,
    ) {
        let notice = Notice {
            level,
            activity,
            text: text.into(),
            detail,
            at: now,
        };
        let tag = match level {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        };
        match &notice.detail {
            Some(d) => eprintln!("shardlens: {tag}: {} — {d}", notice.text),
            None => eprintln!("shardlens: {tag}: {}", notice.text),
        }
        self.current.retain(|n| n.activity != activity);
        self.current.push(notice.clone());
        self.history.push_back(notice);
        while self.history.len() > HISTORY {
            self.history.pop_front();
        }
    }

    /// Removes the current line of `activity` (e.g. when that activity starts again).
    pub fn clear(&mut self, activity: Activity) {
        self.current.retain(|n| n.activity != activity);
    }

    /// The keys on screen were replaced by keys that `by` brought: the lines about the keys before (a load's,
    /// a scan's) go from the screen; Messages keeps them.
    pub fn keys_replaced(&mut self, by: Activity) {
        self.current
            .retain(|n| !matches!(n.activity, Activity::Load | Activity::Scan) || n.activity == by);
    }

    /// Dismisses the current line of `activity` (its × button).
    pub fn dismiss(&mut self, activity: Activity) {
        self.clear(activity);
    }

    /// The lines on screen at `now`, oldest first: info notices younger than [`INFO_SECS`], and every
    /// warning and error.
    pub fn visible(&self, now: Instant) -> impl Iterator<Item = &Notice> {
        self.current.iter().filter(move |n| {
            n.level > Level::Info
                || now.saturating_duration_since(n.at) < Duration::from_secs(INFO_SECS)
        })
    }

    /// When the next info notice fades (for a repaint then).
    pub fn next_fade(&self, now: Instant) -> Option<Duration> {
        self.current
            .iter()
            .filter(|n| n.level == Level::Info)
            .map(|n| (n.at + Duration::from_secs(INFO_SECS)).saturating_duration_since(now))
            .filter(|d| !d.is_zero())
            .min()
    }

    /// Every notice of this run, newest last (at most [`HISTORY`]).
    pub fn history(&self) -> impl DoubleEndedIterator<Item = &Notice> {
        self.history.iter()
    }

    /// The newest notice, shown or not.
    pub fn last(&self) -> Option<&Notice> {
        self.history.back()
    }
}

/// The notice the status line shows: the newest current one, so that what the user just did (a chart saved)
/// is said even while an older warning stands; that warning is back once the info fades, and counted in
/// Messages meanwhile. Of notices at the same instant, the one pushed last.
pub fn headline(notices: &Notices, now: Instant) -> Option<&Notice> {
    notices.visible(now).max_by_key(|n| n.at)
}

/// A hint ([`Hint`]) in the window's words: the control that does what the command line's flag does. A load's
/// (or a connection's) error or warning says it this way ([`crate::source::Message::in_words`]), so "pass --key
/// ATTR" reads "set Key attribute in File > Load options and reload (Ctrl+R)".
pub fn control(hint: Hint) -> &'static str {
    match hint {
        Hint::ChooseKey | Hint::ChooseKeyColumn => {
            "set Key attribute in File > Load options and reload (Ctrl+R)"
        }
        Hint::ChooseSortKey => "set Sort key attribute in File > Load options and reload (Ctrl+R)",
        Hint::ChooseKeyOrSortKey => {
            "set Key attribute / Sort key attribute in File > Load options and reload (Ctrl+R)"
        }
        Hint::ChooseTable => "choose one in the Choose a table window",
        Hint::SkipBad => {
            "tick Skip bad records in File > Load options and reload (Ctrl+R) to skip and count such items"
        }
        Hint::CsvHeaderOrColumns => {
            "set First row is a header to Yes in File > Load options and reload (Ctrl+R) if it is a header, or \
             name the columns in CSV columns there"
        }
        Hint::CsvColumns => "CSV columns of File > Load options",
        Hint::CsvColumnsList => "list of CSV columns in File > Load options",
        Hint::CsvColumnsSetting => "File > Load options > CSV columns",
        Hint::KeyTypeSays => {
            "as Key type in File > Load options says (set it to \"from the data\" and reload (Ctrl+R) to read \
             each file's own)"
        }
        Hint::KeyTypeMustBeS => "Key type in File > Load options must be S or \"from the data\"",
        Hint::Region => "fill in Region",
        Hint::Credentials => {
            "fill in Profile, or start shardlens with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set \
             (`aws configure` or `aws sso login` gives a profile its keys)"
        }
        Hint::TraceFormat => "the trace's format",
        Hint::ItemSize => "the item size",
        Hint::TimeColumn => "name the log's time column",
        Hint::CountsAre => "say whether the counts are reads or writes",
        Hint::EnableStream => {
            "turn the stream on in the DynamoDB console (the table's Exports and streams tab)"
        }
        Hint::EnableInsights => {
            "turn Contributor Insights on in the DynamoDB console (the table's Monitor tab)"
        }
    }
}

/// A message from a source in the window's words (see [`control`]).
pub fn said(message: &crate::source::Message) -> String {
    message.in_words(control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_fades_errors_stay_until_replaced_or_dismissed() {
        let t0 = Instant::now();
        let mut n = Notices::default();
        n.push(Activity::Clipboard, Level::Info, "copied", t0);
        n.push(Activity::Load, Level::Error, "cannot load x", t0);
        assert_eq!(n.visible(t0).count(), 2);
        let later = t0 + Duration::from_secs(INFO_SECS + 1);
        let shown: Vec<&str> = n.visible(later).map(|n| n.text.as_str()).collect();
        assert_eq!(shown, ["cannot load x"]);
        assert!(n.next_fade(t0).is_some());
        assert!(n.next_fade(later).is_none());
        // A new load replaces the old load's error: one line per activity.
        n.push(Activity::Load, Level::Info, "loaded 3 keys", later);
        let shown: Vec<&str> = n.visible(later).map(|n| n.text.as_str()).collect();
        assert_eq!(shown, ["loaded 3 keys"]);
        n.push(Activity::Scan, Level::Warning, "partial", later);
        n.dismiss(Activity::Scan);
        assert!(n.visible(later).all(|n| n.activity != Activity::Scan));
        // The history keeps everything, newest last.
        assert_eq!(n.history().count(), 4);
        assert_eq!(n.last().map(|n| n.text.as_str()), Some("partial"));
    }

    #[test]
    fn the_status_line_shows_the_newest_notice_and_an_older_warning_comes_back() {
        let t0 = Instant::now();
        let t1 = t0 + Duration::from_secs(1);
        let mut n = Notices::default();
        n.push(
            Activity::Load,
            Level::Warning,
            "loaded 3 items from a.json — 1 attribute malformed",
            t0,
        );
        n.push(Activity::File, Level::Info, "saved chart to c.png", t1);
        let line = |n: &Notices, at| headline(n, at).map(|n| n.text.clone());
        assert_eq!(line(&n, t1).as_deref(), Some("saved chart to c.png"));
        let later = t1 + Duration::from_secs(INFO_SECS + 1);
        assert_eq!(
            line(&n, later).as_deref(),
            Some("loaded 3 items from a.json — 1 attribute malformed")
        );
    }

    #[test]
    fn a_loads_line_goes_when_other_keys_replace_its_keys() {
        let t0 = Instant::now();
        let mut n = Notices::default();
        n.push(Activity::Load, Level::Warning, "loaded a.json — warned", t0);
        n.push(Activity::Live, Level::Info, "watching T", t0);
        // More keys of the same load keep it.
        n.keys_replaced(Activity::Load);
        assert_eq!(n.visible(t0).count(), 2);
        n.keys_replaced(Activity::Scan);
        let shown: Vec<&str> = n.visible(t0).map(|n| n.text.as_str()).collect();
        assert_eq!(shown, ["watching T"]);
        assert_eq!(n.history().count(), 2, "Messages keeps it");
    }

    #[test]
    fn loader_hints_name_the_apps_controls_not_flags() {
        use crate::source::Message;
        let said = said(&Message::hinted(
            "cannot tell which attribute is the partition key (the first item has a, b); ",
            Hint::ChooseKey,
            "",
        ));
        assert_eq!(
            said,
            "cannot tell which attribute is the partition key (the first item has a, b); set Key attribute in File > Load options and reload (Ctrl+R)"
        );
        assert_eq!(
            super::said(&Message::hinted(
                "expected one of the ",
                Hint::CsvColumns,
                ": a, b"
            )),
            "expected one of the CSV columns of File > Load options: a, b"
        );
        // Every hint names a control, never a flag.
        for h in Hint::ALL {
            assert!(!control(h).contains("--"), "{h:?}: {}", control(h));
        }
    }

    /// No string literal outside the tests of `src/source` names a flag (`--key`), except the flags of
    /// [`Hint::flag`]: a source that tells the user what to do says it as a [`Hint`], which the window says in
    /// its own words, so no flag reaches the window.
    #[test]
    fn no_source_message_names_a_flag_outside_a_hint() {
        fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    files(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        /// Whether `t` names a flag: `--` then a lower-case letter.
        fn flag(t: &str) -> bool {
            t.match_indices("--")
                .any(|(i, _)| t[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()))
        }
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/source");
        let hints = source.join("hint.rs");
        let mut all = Vec::new();
        files(&source, &mut all);
        let (mut checked, mut flags) = (0, 0);
        for path in all {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                // The line's string literals, one after another (an escaped quote stays inside).
                let mut rest = line;
                while let Some(start) = rest.find('"') {
                    let body = &rest[start + 1..];
                    let mut escaped = false;
                    let Some(end) = body.char_indices().find_map(|(i, c)| {
                        let closes = c == '"' && !escaped;
                        escaped = c == '\\' && !escaped;
                        closes.then_some(i)
                    }) else {
                        break;
                    };
                    let literal = &body[..end];
                    checked += 1;
                    if flag(literal) {
                        flags += 1;
                        assert!(
                            path == hints,
                            "{}: {literal:?} names a flag: say it as a source::Hint",
                            path.display()
                        );
                    }
                    rest = &body[end + 1..];
                }
            }
        }
        // The scan works: it reads the literals, and finds the flags of the hints.
        assert!(
            checked > 500 && flags >= 10,
            "{checked} literals, {flags} flags"
        );
    }
}
