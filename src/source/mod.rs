//! I/O: streams keys from files, folders, standard input and live DynamoDB tables ([`dynamo`]) into a
//! [`KeySet`].
//!
//! [`load`] is the one entry point the app and the CLI call: it takes one or more paths (files, S3 export
//! folders, `-` for standard input), detects each one's format ([`detect`]) unless told, and loads every key
//! into one [`KeySet`]. One module per format:
//!
//! | format | module | key attribute from |
//! |---|---|---|
//! | plain text, one key a line (`pk<TAB>sk`) | [`lines`] | — |
//! | CSV with a header or `--csv-columns` (RFC 4180), optional `count` column | [`csv`] | `--key`, a column named like `pk`/`id`, else the first |
//! | DynamoDB JSON lines (`{"Item":{…}}`), plain or `.gz` | [`dynamodb_json`] | `--key`, else guessed from the first item |
//! | S3 export folder (manifests + `data/*.json.gz` or `*.ion.gz`) | [`s3_export`] | as the data files |
//! | `aws dynamodb scan` output, typed or plain, pages concatenated | [`scan_json`], [`json::json_doc`] | as DynamoDB JSON |
//! | a JSON array of items, typed or plain; items one after another; BatchWriteItem request files | [`json::json_doc`] | as DynamoDB JSON |
//! | Ion text export lines (`$ion_1_0 {Item:{…}}`) | [`ion`] | as DynamoDB JSON |
//! | incremental export lines (`{"Metadata":…,"Keys":…}`) | [`incremental`] | the `Keys` object |
//! | NoSQL Workbench model (`TableData`, `TableFacets`) | [`workbench`] | the table's `KeyAttributes` |
//!
//! A file whose first byte is `{` or `[` is JSON and is never read as lines ([`detect`]).
//!
//! What the formats share: [`read`] opens a path (gzip, zstd), reads lines with a length cap and defines
//! [`read::FileLoad`], the one value each format's loader takes, [`read::SplitFile`], a large file a loader
//! reads in stretches, and [`read::Ctx`], the load's shared state beside either; the records go into a
//! [`sink::Sink`] (key types, canonical keys, counts, the bad-input policy); [`load`] ([`dispatch`]) walks the
//! paths and hands each opened input to its format.
//!
//! # Bad input: one policy for every format
//!
//! Sources never panic on input. A bad record (invalid JSON or Ion on a line, a CSV row with the wrong number of
//! fields, an item without the key attribute, a key of the wrong type or an invalid key value, invalid UTF-8)
//! gives a [`SourceError`] that names the file, the line (or item number in whole-document formats) and what was
//! expected, with the path last; what the user can do about it (choose the key attribute, skip bad records) is a
//! [`Hint`] in its [`Message`], which the CLI says as a flag and the app as a control ([`hint`]).
//!
//! - By default ([`OnBad::Stop`]) the load **stops at the first bad record** and returns that error; nothing is
//!   half-loaded.
//! - With [`OnBad::Skip`] a bad record is skipped and counted in [`Loaded::skipped`]; the first few messages
//!   are kept in [`Loaded::warnings`] so the user sees what was skipped and where.
//! - Some problems always stop, whatever the policy, because the rest of the file cannot be trusted or read:
//!   I/O errors, truncated or corrupt gzip, a line longer than [`MAX_LINE_BYTES`] (a DynamoDB item is at most
//!   400 KB, so such a line is not an item; it is refused without holding it in memory), a binary file, a JSON
//!   syntax error inside a whole-document format (scan output, Workbench model), and an S3 export manifest
//!   that names a data file that is missing.
//! - S3 export item counts that disagree with the manifests (per data file or in total) do **not** stop the
//!   load: each mismatch becomes one line in [`Loaded::warnings`], which the CLI prints to standard error and
//!   the app shows in its notification list. The keys loaded are what the data files hold.
//! - An empty file loads as zero keys, with a warning naming it.
//! - A value that is not what its type tag says in an attribute that is **not a key** does not make a bad
//!   record: the item is kept and counted, its size is an estimate (`json::size::ItemSize`), and one line in
//!   [`Loaded::warnings`] counts such items and names the first by its key and the attribute; the health report
//!   says how many sizes are estimates. In a key attribute it is a bad record whose message names Skip bad
//!   records ([`Hint::SkipBad`]).

pub mod app_state;
pub mod csv;
pub mod detect;
pub mod dispatch;
pub mod dynamo;
pub mod dynamodb_json;
pub mod gzip;
pub mod hint;
pub mod incremental;
pub mod inflate;
pub mod ion;
pub mod json;
pub mod key_ahead;
pub mod lines;
pub mod link;
pub mod open;
pub mod read;
pub mod s3_export;
pub mod scan_json;
pub mod scenario;
pub mod session;
pub mod sink;
pub mod sql;
pub mod stretches;
pub mod threads;
pub mod trace;
pub mod tree;
pub mod workbench;
pub mod zstd;

use std::fmt;
use std::path::PathBuf;

use crate::model::KeySet;
use crate::model::text::LineError;

pub use detect::{FormatIn, detect_format};
pub use dispatch::{load, load_bytes, load_files};
pub use hint::{Hint, Message};
pub use lines::load_lines;
pub use read::{MAX_LINE_BYTES, display_file_name};

/// Where keys come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Typed or pasted into the editor.
    Paste,
    /// A built-in teaching scenario.
    Example(crate::model::examples::keys::KeyExample),
    /// A file of keys (plain text, one per line).
    File(PathBuf),
    /// A live DynamoDB table, with how far its scan got (e.g. "partial: 41200 items read").
    Table { name: String, status: String },
    /// A built-in key-design example: whole items ([`crate::model::examples::design`]).
    Items(&'static str),
}

impl Source {
    /// A short description for titles and status lines.
    pub fn describe(&self) -> String {
        let short = |p: &PathBuf| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        };
        match self {
            Self::Paste => "pasted keys".to_owned(),
            Self::Example(s) => format!("example: {}", s.title()),
            Self::File(p) => short(p),
            Self::Table { name, status } if status.is_empty() => format!("table {name}"),
            Self::Table { name, status } => format!("table {name} ({status})"),
            Self::Items(title) => format!("example: {title}"),
        }
    }
}

/// Where in a file a bad record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// 1-based line.
    Line(u64),
    /// 1-based item of a whole-document format, and the line it starts on when known.
    Item { item: u64, line: Option<u64> },
    /// The file as a whole.
    File,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Line(l) => write!(f, "line {l}: "),
            Self::Item {
                item,
                line: Some(l),
            } => write!(f, "item {item} (line {l}): "),
            Self::Item { item, line: None } => write!(f, "item {item}: "),
            Self::File => Ok(()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The reason is part of the message and not also its `source()`: the CLI prints an error with its chain
    /// (`{:#}`), which said it twice ("No such file or directory (os error 2): No such file or directory").
    #[error("cannot read {}: {error}", name.display())]
    Io {
        name: PathBuf,
        error: std::io::Error,
    },
    #[error("{error} (in {})", name.display())]
    Line { name: PathBuf, error: LineError },
    /// A record (line, row or item) that is not what the format expects; `what` may say what to do
    /// ([`Hint`]).
    #[error("{}", record_message(.name, .at, .what))]
    Record {
        name: PathBuf,
        at: At,
        what: Message,
    },
    #[error("loading cancelled")]
    Cancelled,
}

/// A record's error: where, what, the file last.
fn record_message(name: &std::path::Path, at: &At, what: &Message) -> Message {
    let mut m = Message::new(at.to_string());
    m.push(what);
    m.push_str(&format!(" (in {})", name.display()));
    m
}

impl SourceError {
    pub(crate) fn record(name: &std::path::Path, at: At, what: impl Into<Message>) -> Self {
        Self::Record {
            name: name.to_path_buf(),
            at,
            what: what.into(),
        }
    }

    /// The error as a message with its hints, to be said in other words ([`Message::in_words`]).
    pub fn message(&self) -> Message {
        match self {
            Self::Record { name, at, what } => record_message(name, at, what),
            other => Message::new(other.to_string()),
        }
    }

    /// Problems that stop a load whatever [`OnBad`] says.
    pub(crate) fn is_fatal(&self) -> bool {
        !matches!(self, Self::Line { .. } | Self::Record { .. })
    }
}

/// Progress of a load: bytes read so far (compressed bytes for `.gz`), and the totals when known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub bytes: u64,
    pub total_bytes: Option<u64>,
    pub lines: u64,
    /// Items (records with a key) loaded so far.
    pub items: u64,
    /// Items the load will bring, when known before it (an S3 export's `manifest-summary.json` `itemCount`).
    pub total_items: Option<u64>,
}

impl Progress {
    /// The share of the load done, from 0 to 1: items of the known item count, else bytes of the files'
    /// total; `None` when neither total is known (standard input).
    pub fn done_share(&self) -> Option<f64> {
        let share = match (self.total_items, self.total_bytes) {
            (Some(t), _) if t > 0 => self.items as f64 / t as f64,
            (_, Some(t)) if t > 0 => self.bytes as f64 / t as f64,
            _ => return None,
        };
        Some(share.clamp(0.0, 1.0))
    }
}

/// What to do with a bad record (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OnBad {
    /// Stop at the first bad record with an error naming it.
    #[default]
    Stop,
    /// Skip bad records, counting them in [`Loaded::skipped`].
    Skip,
}

/// Whether a CSV file's first row is its header (`--csv-header`, File > Load options > First row is a header).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CsvHeader {
    /// Look at the first rows: a first row shaped like the rows below it is data (see `source::csv`).
    #[default]
    Auto,
    /// The first row names the columns.
    Yes,
    /// Every row is data; the columns are `col1, col2, …` unless `--csv-columns` names them.
    No,
}

impl CsvHeader {
    pub const ALL: [Self; 3] = [Self::Auto, Self::Yes, Self::No];

    /// The command line's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Yes => "yes",
            Self::No => "no",
        }
    }
}

/// How to load: the format and which attributes are the keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The input format; [`FormatIn::Auto`] detects it per path.
    pub format: FormatIn,
    /// Partition key attribute (or CSV column); `None` takes it from the format (manifest, Workbench model,
    /// incremental `Keys`) or guesses it from the first item (names like `pk`, `PK`, `id`).
    pub key: Option<String>,
    /// The partition key's type. Typed formats (DynamoDB JSON, Ion, …) carry it in the data: `None` takes the
    /// first item's, and a given type is checked against every item. Text formats (lines, CSV) read keys as
    /// this type, `S` when `None`.
    pub key_type: Option<crate::model::KeyType>,
    /// Sort key attribute (or CSV column); `None` takes it from the format or guesses it (names like `sk`,
    /// `SK`), and no sort key is used when nothing fits.
    pub sort_key: Option<String>,
    /// Bad records: stop (default) or skip and count.
    pub on_bad: OnBad,
    /// The table to load from a file that holds several (a Workbench model, a BatchWriteItem request file);
    /// `None` loads the first and warns naming the others.
    pub table: Option<String>,
    /// The column names of a CSV file without a header (`--csv-columns a,b,c`, as DynamoDB's Import from S3
    /// takes them); `None` reads them from the first row.
    pub csv_columns: Option<Vec<String>>,
    /// Whether a CSV file's first row is its header; ignored when [`Self::csv_columns`] names the columns.
    pub csv_header: CsvHeader,
    /// Key designs to evaluate on every item (key expressions, candidates, GSIs, `--shard-by`): the loaders
    /// extract the attributes [`Design::roots`](crate::model::design::Design::roots) names besides the keys.
    pub design: crate::model::design::Design,
    /// Keep the extracted attributes of every item ([`Loaded::items`]) so the app can re-key them without
    /// reading the input again (up to [`crate::model::design::MAX_KEPT_VALUES`] values; [`Loaded::kept`]).
    pub keep_items: bool,
    /// The TTL attribute (`--ttl-attr`, or the table's DescribeTimeToLive on a live scan); `None` guesses it
    /// from the first item's attribute names.
    pub ttl_attr: Option<String>,
}

/// Items in one group of the input, e.g. one S3 export data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The data file's name, e.g. `data/abc.json.gz`.
    pub name: String,
    /// Items (writes) loaded from it.
    pub items: u64,
}

/// A finished load.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub keys: KeySet,
    /// Lines (or records) read.
    pub lines: u64,
    /// Bytes read (compressed bytes for `.gz`).
    pub bytes: u64,
    /// Items loaded: records that gave a key (a CSV row with a count is one item of `count` writes).
    pub items: u64,
    /// Per data file item counts of an S3 export. AWS writes at least one data file per partition and a file's
    /// items all come from one partition's key range, so this is a real grouping by partition.
    pub groups: Option<Vec<Group>>,
    /// Bad records skipped under [`OnBad::Skip`].
    pub skipped: u64,
    /// Things the user should see that did not stop the load (manifest count mismatches, skipped records,
    /// empty files, the attribute guessed as key), each with what the user can do about it, if anything.
    pub warnings: Vec<Message>,
    /// The partition key attribute used, when the format has attributes.
    pub key_attribute: Option<String>,
    /// The sort key attribute used, if any.
    pub sort_key_attribute: Option<String>,
    /// What was read, e.g. "JSON array of plain JSON items" (several inputs: each shape once, `; ` between);
    /// a message, as it may name an option ("columns from --csv-columns").
    pub shape: Option<Message>,
    /// The tables of a file that holds several (Workbench model, request file), in file order.
    pub tables: Vec<String>,
    /// The table loaded from such a file.
    pub table: Option<String>,
    /// Writes by kind, for formats that tell them apart (incremental exports, request files).
    pub changes: Changes,
    /// The keys of each candidate and GSI of [`LoadOptions::design`], in its order.
    pub designs: Vec<crate::model::design::DesignKeys>,
    /// What `--shard-by` calculated sharding splits, when the design has one.
    pub shard_by: Option<crate::model::shard::ShardBy>,
    /// The extracted attributes of every item, with [`LoadOptions::keep_items`].
    pub kept: Option<crate::model::design::Items>,
    /// The top-level attribute names of the first item, when the design needed attributes (for "no item has
    /// `x`; the items have a, b, c").
    pub attribute_names: Vec<String>,
    /// The TTL attribute's values, when the items had one (given or guessed).
    pub ttl: Option<crate::model::health::ttl::TtlStats>,
}

/// Writes by kind: an incremental export's inserts (`NewImage` only), updates (`NewImage` and `OldImage`) and
/// deletes (no `NewImage`), and a request file's put and delete requests. Each is one write of its key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changes {
    pub inserts: u64,
    pub updates: u64,
    pub deletes: u64,
    pub puts: u64,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    pub fn add(&mut self, o: &Self) {
        self.inserts += o.inserts;
        self.updates += o.updates;
        self.deletes += o.deletes;
        self.puts += o.puts;
    }

    /// "3 inserts, 1 update, 2 deletes" (only the kinds seen).
    pub fn describe(&self) -> String {
        let part = |n: u64, one: &str, many: &str| {
            (n > 0).then(|| format!("{n} {}", if n == 1 { one } else { many }))
        };
        [
            part(self.puts, "put request", "put requests"),
            part(self.inserts, "insert", "inserts"),
            part(self.updates, "update", "updates"),
            part(self.deletes, "delete", "deletes"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
    }
}
