//! What the user can do about a message, as data.
//!
//! A loader that cannot go on, or that guessed, says what went wrong and what the user can do: choose the key
//! attribute, skip bad records, name a CSV file's columns. What they can do is a [`Hint`], not words: the command
//! line says it as a flag ([`Hint::flag`], "pass --key ATTR"), the app as the control that does the same ("set
//! Key attribute in File > Load options …", in `app::notices`). A [`Message`] is a message's text with its
//! hints in place, so that each face says the whole message in its own words ([`Message::in_words`]) and
//! nobody rewrites message text afterwards. This layer knows the flags only; the app's words stay in the app.

use std::fmt;

/// What the user can do about a message: an option to set (and load again), or the option a message names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hint {
    /// Name the partition key attribute: the key could not be guessed, or the one named is missing.
    ChooseKey,
    /// Name the key column of a CSV file (its key column was guessed).
    ChooseKeyColumn,
    /// Name the sort key attribute (it was guessed).
    ChooseSortKey,
    /// Name the partition and sort key attributes (they were guessed).
    ChooseKeyOrSortKey,
    /// Name the table to load from a file that holds several.
    ChooseTable,
    /// Skip bad records and count them instead of stopping at the first.
    SkipBad,
    /// Say that a CSV file's first row is its header, or name its columns.
    CsvHeaderOrColumns,
    /// The CSV columns the user named, as a noun ("expected one of the …: a, b").
    CsvColumns,
    /// The list of CSV columns the user named ("the … has 3").
    CsvColumnsList,
    /// Where the CSV columns came from: the option that names them ("columns from …").
    CsvColumnsSetting,
    /// The key type the user gave checks every key ("expected N (number) …").
    KeyTypeSays,
    /// A key expression makes string keys: the key type given must be S.
    KeyTypeMustBeS,
    /// Give the AWS region.
    Region,
    /// Give AWS credentials: a profile, or keys in the environment.
    Credentials,
    /// The option that names a trace file's format (`simulate --trace`).
    TraceFormat,
    /// The option that gives the bytes of one request's item when a trace's records do not.
    ItemSize,
    /// Name a request log's time column.
    TimeColumn,
    /// Say whether a Contributor Insights rule's counts are reads or writes (its name does not say).
    CountsAre,
    /// How a table's owner turns its stream on (shardlens never changes a table).
    EnableStream,
    /// How a table's owner turns Contributor Insights on (billed; shardlens never changes a table).
    EnableInsights,
}

impl Hint {
    /// Every hint, for tests that check each one's words.
    pub const ALL: [Self; 20] = [
        Self::ChooseKey,
        Self::ChooseKeyColumn,
        Self::ChooseSortKey,
        Self::ChooseKeyOrSortKey,
        Self::ChooseTable,
        Self::SkipBad,
        Self::CsvHeaderOrColumns,
        Self::CsvColumns,
        Self::CsvColumnsList,
        Self::CsvColumnsSetting,
        Self::KeyTypeSays,
        Self::KeyTypeMustBeS,
        Self::Region,
        Self::Credentials,
        Self::TraceFormat,
        Self::ItemSize,
        Self::TimeColumn,
        Self::CountsAre,
        Self::EnableStream,
        Self::EnableInsights,
    ];

    /// The command line's words: the flag that does it.
    pub fn flag(self) -> &'static str {
        match self {
            Self::ChooseKey => "pass --key ATTR",
            Self::ChooseKeyColumn => "pass --key COLUMN",
            Self::ChooseSortKey => "pass --sort-key",
            Self::ChooseKeyOrSortKey => "pass --key / --sort-key",
            Self::ChooseTable => "pass --table NAME",
            Self::SkipBad => "--skip-bad skips and counts such items",
            Self::CsvHeaderOrColumns => {
                "pass --csv-header yes if it is a header, or --csv-columns a,b,c to name the columns"
            }
            Self::CsvColumns | Self::CsvColumnsSetting => "--csv-columns",
            Self::CsvColumnsList => "--csv-columns list",
            Self::KeyTypeSays => "as --key-type says",
            Self::KeyTypeMustBeS => "--key-type must be S",
            Self::Region => "pass --region",
            Self::Credentials => {
                "pass --profile NAME (or set AWS_PROFILE), or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \
                 (`aws configure` or `aws sso login` gives a profile its keys)"
            }
            Self::TraceFormat => "--trace-format",
            Self::ItemSize => "--item-size",
            Self::TimeColumn => "pass --time-column COLUMN",
            Self::CountsAre => "pass --counts-are reads|writes",
            Self::EnableStream => {
                "`aws dynamodb update-table --table-name TABLE --stream-specification \
                 StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES` (or the console's Exports and streams tab)"
            }
            Self::EnableInsights => {
                "`aws dynamodb update-contributor-insights --table-name TABLE --contributor-insights-action \
                 ENABLE` (or the console's Monitor tab)"
            }
        }
    }
}

/// The words a face says hints in: [`Hint::flag`] on the command line, the names of its controls in the app.
pub type Words = fn(Hint) -> &'static str;

/// A message for the user with its hints in place: the text around them, and each hint as data.
///
/// It reads (`Display`, `Deref<Target = str>`, JSON) in the command line's words, which is what the CLI prints
/// and the loaders' tests compare; [`Self::in_words`] says it in other words, hint by hint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Message {
    /// The whole message in the command line's words.
    text: String,
    /// Each hint, in order, and where its flag starts in `text` (a byte offset).
    hints: Vec<(usize, Hint)>,
}

impl Message {
    /// A message without a hint.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            hints: Vec::new(),
        }
    }

    /// `before`, then `hint`, then `after`: the shape of most hinted messages.
    pub fn hinted(before: impl Into<String>, hint: Hint, after: &str) -> Self {
        let mut m = Self::new(before);
        m.push_hint(hint);
        m.push_str(after);
        m
    }

    pub fn push_str(&mut self, text: &str) {
        self.text.push_str(text);
    }

    pub fn push_hint(&mut self, hint: Hint) {
        self.hints.push((self.text.len(), hint));
        self.text.push_str(hint.flag());
    }

    /// Appends `other`, its hints with it.
    pub fn push(&mut self, other: &Self) {
        let at = self.text.len();
        self.text.push_str(&other.text);
        self.hints
            .extend(other.hints.iter().map(|&(i, h)| (at + i, h)));
    }

    /// `prefix` then this message.
    #[must_use]
    pub fn after(self, prefix: &str) -> Self {
        let mut m = Self::new(prefix);
        m.push(&self);
        m
    }

    /// The messages one after another, `sep` between them.
    pub fn join(parts: &[Self], sep: &str) -> Self {
        let mut m = Self::default();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                m.push_str(sep);
            }
            m.push(part);
        }
        m
    }

    /// The message's hints, in order.
    pub fn hints(&self) -> impl Iterator<Item = Hint> + '_ {
        self.hints.iter().map(|&(_, h)| h)
    }

    /// The message in the command line's words.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The message with every hint in `words`, the text around them as it is.
    pub fn in_words(&self, words: Words) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut from = 0;
        for &(at, hint) in &self.hints {
            out.push_str(self.text.get(from..at).unwrap_or_default());
            out.push_str(words(hint));
            from = at + hint.flag().len();
        }
        out.push_str(self.text.get(from..).unwrap_or_default());
        out
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::ops::Deref for Message {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl std::borrow::Borrow<str> for Message {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl AsRef<str> for Message {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl PartialEq<str> for Message {
    fn eq(&self, other: &str) -> bool {
        self.text == other
    }
}

impl PartialEq<String> for Message {
    fn eq(&self, other: &String) -> bool {
        self.text == *other
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl serde::Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shout(h: Hint) -> &'static str {
        match h {
            Hint::ChooseKey => "SET KEY",
            _ => "OTHER",
        }
    }

    #[test]
    fn a_message_reads_in_flags_and_in_other_words_hint_by_hint() {
        let mut m = Message::hinted("no key (", Hint::ChooseKey, ")");
        m.push_str("; and ");
        m.push_hint(Hint::SkipBad);
        assert_eq!(
            m.as_str(),
            "no key (pass --key ATTR); and --skip-bad skips and counts such items"
        );
        assert_eq!(m.to_string(), m.as_str());
        assert_eq!(m.in_words(shout), "no key (SET KEY); and OTHER");
        assert_eq!(m.in_words(Hint::flag), m.as_str());
        assert_eq!(
            m.hints().collect::<Vec<_>>(),
            [Hint::ChooseKey, Hint::SkipBad]
        );
        // Joined and prefixed, the hints move with their text.
        let joined = Message::join(&[Message::new("a"), m.clone().after("b: ")], "; ");
        assert_eq!(joined.in_words(shout), "a; b: no key (SET KEY); and OTHER");
        assert_eq!(Message::new("plain").in_words(shout), "plain");
    }

    #[test]
    fn every_flag_names_a_flag() {
        for h in Hint::ALL {
            assert!(h.flag().contains("--"), "{h:?}: {}", h.flag());
        }
    }
}
