//! Records of a table's real traffic, read into a [`Trace`] (DYNAMODB-TRAFFIC.md has the shapes): DynamoDB
//! Streams records (`get-records` pages, JSON lines, Lambda events, Kinesis Data Streams for DynamoDB
//! records, base64-wrapped or not) and incremental export data files (`streams.rs`), request logs (CSV or
//! JSON lines, `logs.rs`), CloudWatch metrics (`metrics.rs`) and Contributor Insights reports
//! (`insights.rs`).
//!
//! Each file's format is detected from its content ([`detect`]) unless [`TraceOptions::format`] names it; a
//! folder is read file by file (an export's manifests and checksums are skipped). Every file says what it
//! held and what was assumed ([`TraceFile`]); CloudWatch's per-minute figures are the **observed** side a
//! replay is compared with ([`ObservedMinute`]).
//!
//! CloudWatch's consumed units are also the table's whole demand: after every file is read, the units of each
//! minute that no per-key record covers are replayed on synthetic keys ([`metrics::OTHER_KEYS`], **\[ours\]**).
//!
//! Each reader is given a `TraceCx` (`cx.rs`: the file, the options, where its records go); CloudWatch's
//! minutes are [`ObservedMinute`]s (`observed.rs`). Records that arrive a batch at a time are read by a
//! [`TraceFeed`] (`feed.rs`), a table's stream read live by a [`StreamFeed`] (`live.rs`); `files.rs` says
//! which files a path stands for. A trace saved as it is read is written by a [`TraceSaver`] (`save.rs`), a
//! page at a time; a save cut short (killed, a full disk) reads back to its last whole record, and says how
//! many trailing bytes it ignored (`tail.rs` has the rule).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::model::trace::{Dim, Trace, TraceBuilder, TraceError};

use super::{At, Hint, Message, OnBad, SourceError};

mod cx;
mod feed;
mod files;
mod insights;
mod live;
mod log_reasons;
mod logs;
mod metrics;
mod observed;
mod save;
mod size;
mod sniff;
mod streams;
mod tail;
mod time;

use cx::dim_index;
pub(crate) use cx::{TraceCx, minutes_of};
pub use feed::TraceFeed;
pub use insights::ThrottledPeriod;
pub use live::{
    KeyRate, LiveKeys, LiveRates, RATE_WINDOW, StreamFeed, metrics_trace, time_of_day, watch_feed,
    watch_trace,
};
pub(crate) use observed::Metric;
pub use observed::ObservedMinute;
pub use save::{SaveError, Saved, TraceSaver};
pub use size::{item_size, number_size};
pub use sniff::{bytes_hold_only_traffic, holds_only_traffic};
pub use time::{micros_of_epoch, micros_of_json_time, micros_of_time};

/// The formats a trace is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// DynamoDB Streams records: `get-records` pages, JSON lines of records, Lambda events, Kinesis Data
    /// Streams for DynamoDB records.
    Streams,
    /// Incremental export data files (`WriteTimestampMicros`).
    Incremental,
    /// Contributor Insights reports (`get-insight-rule-report`).
    Insights,
    /// CloudWatch `get-metric-data` / `get-metric-statistics` output.
    Metrics,
    /// Request logs: CSV with a header, or JSON lines.
    Log,
}

impl TraceFormat {
    pub const ALL: [Self; 5] = [
        Self::Streams,
        Self::Incremental,
        Self::Insights,
        Self::Metrics,
        Self::Log,
    ];

    /// The command line's spelling (`--trace-format`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Streams => "streams",
            Self::Incremental => "incremental",
            Self::Insights => "insights",
            Self::Metrics => "metrics",
            Self::Log => "log",
        }
    }

    /// What it is, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Streams => "DynamoDB Streams records",
            Self::Incremental => "an incremental export",
            Self::Insights => "a Contributor Insights report",
            Self::Metrics => "CloudWatch metrics",
            Self::Log => "a request log",
        }
    }
}

/// How to read traces.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceOptions {
    /// The format of every file; `None` detects it per file.
    pub format: Option<TraceFormat>,
    /// The partition key attribute (records whose `Keys` hold two attributes) or a log's key column.
    pub key: Option<String>,
    /// The bytes of one request's item when the records carry no image (default 1 KB).
    pub item_size: u64,
    /// What a Contributor Insights rule counts when its name does not say.
    pub counts_are: Option<Dim>,
    /// A log's time column (else `time`, `timestamp`, `ts`, `@timestamp`).
    pub time_column: Option<String>,
    pub on_bad: OnBad,
}

impl Default for TraceOptions {
    fn default() -> Self {
        Self {
            format: None,
            key: None,
            item_size: 1024,
            counts_are: None,
            time_column: None,
            on_bad: OnBad::Stop,
        }
    }
}

/// What one file held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceFile {
    pub path: PathBuf,
    pub format: Option<TraceFormat>,
    /// How the format was chosen: "detected", the option that names it ([`Hint::TraceFormat`]), or
    /// "manifest-summary.json" (an incremental export's data file, read through its export's folder).
    pub chosen: &'static str,
    /// Records read (requests, or per-period counts for Insights and metrics).
    pub records: u64,
    /// Distinct partition keys of its records.
    pub keys: u64,
    /// First and last record time, Unix µs.
    pub first: Option<i64>,
    pub last: Option<i64>,
    /// Records skipped as bad (`--skip-bad`).
    pub skipped: u64,
    /// What was assumed, in words (each an **\[ours\]** choice or a default the records did not settle).
    pub assumed: Vec<Message>,
    /// Throttled requests per key over the file, most first: Contributor Insights' most throttled keys
    /// (observed throttling, not traffic).
    pub throttled_keys: Vec<(String, f64)>,
    /// The same, period by period (a `-PKT-`/`-SKT-` rule's datapoints), oldest first: what Contributor Insights
    /// observed as the most throttled keys of each period.
    pub throttled_periods: Vec<ThrottledPeriod>,
    /// Trailing bytes ignored: an unfinished last record of a save that was cut (`tail.rs` has the rule).
    pub ignored_tail: u64,
}

impl TraceFile {
    fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            ..Self::default()
        }
    }

    fn saw(&mut self, micros: i64) {
        self.records += 1;
        self.first = Some(self.first.map_or(micros, |f| f.min(micros)));
        self.last = Some(self.last.map_or(micros, |l| l.max(micros)));
    }

    /// What the file says of its ignored trailing bytes, when it ignored some: "ignored 37 trailing bytes (an
    /// unfinished last record: the save was cut)".
    pub fn tail_note(&self) -> Option<String> {
        (self.ignored_tail > 0).then(|| tail::ignored_note(self.ignored_tail))
    }

    fn assume(&mut self, what: impl Into<Message>) {
        let what = what.into();
        if !self.assumed.contains(&what) {
            self.assumed.push(what);
        }
    }
}

/// Traces read: the replayable trace, the files, and the observed minutes (sorted, one per minute).
#[derive(Debug, Clone)]
pub struct TraceLoad {
    /// What was read, for titles ("replay of …"): the names of the paths given (a folder, an export's folder,
    /// by its own name: an export may hold hundreds of data files), or of the files read from memory.
    pub name: String,
    pub trace: Trace,
    pub files: Vec<TraceFile>,
    pub observed: Vec<ObservedMinute>,
}

#[derive(Debug, thiserror::Error)]
pub enum TraceLoadError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("{error} (in {})", paths.join(", "))]
    Trace {
        error: TraceError,
        paths: Vec<String>,
    },
}

impl TraceLoadError {
    /// The error as a message with its hints.
    pub fn message(&self) -> super::Message {
        match self {
            Self::Source(e) => e.message(),
            other => super::Message::new(other.to_string()),
        }
    }
}

/// Everything read so far, across files.
#[derive(Clone)]
struct Loading {
    builder: TraceBuilder,
    files: Vec<TraceFile>,
    observed: BTreeMap<i64, ObservedMinute>,
    covered: BTreeMap<i64, [f64; 2]>,
}

/// The JSON values of a file one after another (pretty or not; `get-metric-data` pages, reports), each
/// handed to `each` with where it is (`item N`, 1-based). A syntax error is a bad record at its line, and ends
/// the file: nothing after it can be trusted to start a value. Returns how many values there were.
pub(crate) fn for_each_json_value<'a>(
    cx: &mut TraceCx<'a>,
    bytes: &[u8],
    mut each: impl FnMut(&mut TraceCx<'a>, serde_json::Value, At) -> Result<(), ReadError>,
) -> Result<u64, ReadError> {
    let mut n = 0u64;
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>();
    while let Some(value) = values.next() {
        cx.parsed(values.byte_offset());
        match value {
            Ok(v) => {
                n += 1;
                each(
                    cx,
                    v,
                    At::Item {
                        item: n,
                        line: None,
                    },
                )?;
            }
            Err(e) => {
                cx.bad(
                    At::Line(e.line() as u64),
                    format!("not JSON: {}", super::read::json_reason(&e)),
                )?;
                break;
            }
        }
    }
    Ok(n)
}

/// Reads every path (files or folders) into one trace: every file, then CloudWatch's uncovered units
/// ([`metrics::add_other_traffic`]), then the trace.
pub fn load_traces(paths: &[PathBuf], opts: &TraceOptions) -> Result<TraceLoad, TraceLoadError> {
    load_traces_reporting(paths, opts, &|_| {})
}

/// [`load_traces`], telling `progress` how far it is: the bytes of the files' total size on disk
/// (`total_bytes`) got through (a file's share by how far its reader is into its bytes, decompressed or not),
/// as a file load's progress says it.
pub fn load_traces_reporting(
    paths: &[PathBuf],
    opts: &TraceOptions,
    progress: &dyn Fn(super::Progress),
) -> Result<TraceLoad, TraceLoadError> {
    let mut files = Vec::new();
    for path in paths {
        let found = files::files_of(path)?;
        if found.is_empty() {
            return Err(SourceError::record(
                path,
                At::File,
                format!(
                    "holds no file to read; expected {}, or an S3 export folder",
                    TraceFormat::ALL.map(TraceFormat::describe).join(", ")
                ),
            )
            .into());
        }
        for (file, format) in found {
            let size = std::fs::metadata(&file).map_or(0, |m| m.len());
            files.push((file, format, size));
        }
    }
    let total: u64 = files.iter().map(|f| f.2).sum();
    let said = |bytes: u64| {
        progress(super::Progress {
            bytes: bytes.min(total),
            total_bytes: Some(total),
            ..super::Progress::default()
        });
    };
    said(0);
    let mut st = Loading::new();
    let mut before = 0u64;
    for (file, format, size) in &files {
        let bytes = files::read_all(file)?;
        let len = bytes.len().max(1) as f64;
        // Told at most every 1/500 of the file, so a record's work is not a message's.
        let step = (bytes.len() / 500).max(64 << 10);
        let last = std::cell::Cell::new(0usize);
        let at = |offset: u64| {
            let offset = offset as usize;
            if offset >= last.get() + step {
                last.set(offset);
                said(before + (*size as f64 * (offset as f64 / len)) as u64);
            }
        };
        read_file(&mut st, file, &bytes, opts, *format, Some(&at))?;
        before += size;
        said(before);
    }
    finish(st, opts, paths)
}

/// [`load_traces`] over what is already in memory: each input's name (said in messages and
/// [`TraceFile::path`]) and its bytes, as a file would hold them (records read from a live table).
pub fn load_trace_bytes(
    inputs: &[(PathBuf, &[u8])],
    opts: &TraceOptions,
) -> Result<TraceLoad, TraceLoadError> {
    let mut st = Loading::new();
    for (name, bytes) in inputs {
        read_file(&mut st, name, bytes, opts, None, None)?;
    }
    let names: Vec<PathBuf> = inputs.iter().map(|(name, _)| name.clone()).collect();
    finish(st, opts, &names)
}

impl Loading {
    fn new() -> Self {
        Self {
            builder: TraceBuilder::new(),
            files: Vec::new(),
            observed: BTreeMap::new(),
            covered: BTreeMap::new(),
        }
    }
}

/// After every file: CloudWatch's uncovered units, then the trace. An error names the files read, else the
/// paths `given`.
fn finish(
    mut st: Loading,
    opts: &TraceOptions,
    given: &[PathBuf],
) -> Result<TraceLoad, TraceLoadError> {
    let paths_said = |files: &[TraceFile]| {
        if files.is_empty() {
            given.iter().map(|p| p.display().to_string()).collect()
        } else {
            files
                .iter()
                .map(|f| f.path.display().to_string())
                .collect::<Vec<_>>()
        }
    };
    // The keys that carry CloudWatch's uncovered units are stand-ins, never evidence about the keys.
    st.builder
        .begin_stand_ins()
        .and_then(|()| metrics::add_other_traffic(&mut st, opts))
        .map_err(|error| TraceLoadError::Trace {
            error,
            paths: paths_said(&st.files),
        })?;
    let trace = match st.builder.build() {
        // CloudWatch minutes without consumed units (throttle events alone) and nothing else: say so.
        Err(TraceError::Empty) if !st.observed.is_empty() => {
            let file = st
                .files
                .iter()
                .find(|f| f.format == Some(TraceFormat::Metrics))
                .map(|f| f.path.clone())
                .or_else(|| given.first().cloned())
                .unwrap_or_default();
            return Err(SourceError::record(
                &file,
                At::File,
                format!(
                    "CloudWatch's minutes hold no consumed units to replay (throttle events alone, or zeros): \
                     add the {} and {} series (the units served each minute), or records of the requests \
                     (Streams, an export, a log)",
                    Metric::ConsumedRead.name(),
                    Metric::ConsumedWrite.name()
                ),
            )
            .into());
        }
        built => built.map_err(|error| TraceLoadError::Trace {
            error,
            paths: paths_said(&st.files),
        })?,
    };
    let names: Vec<String> = if given.is_empty() {
        st.files
            .iter()
            .map(|f| super::read::display_file_name(&f.path))
            .collect()
    } else {
        given
            .iter()
            .map(|p| super::read::display_file_name(p))
            .collect()
    };
    Ok(TraceLoad {
        name: names.join(", "),
        trace,
        files: st.files,
        observed: st.observed.into_values().collect(),
    })
}

/// Reads one file by its format: given, said by its export's summary (`said`), or detected.
fn read_file(
    st: &mut Loading,
    file: &Path,
    bytes: &[u8],
    opts: &TraceOptions,
    said: Option<TraceFormat>,
    progress: Option<&dyn Fn(u64)>,
) -> Result<(), TraceLoadError> {
    let mut info = TraceFile::new(file);
    let format = match (opts.format, said) {
        (Some(f), _) => {
            info.chosen = Hint::TraceFormat.flag();
            f
        }
        (None, Some(f)) => {
            info.chosen = "manifest-summary.json";
            f
        }
        (None, None) => {
            info.chosen = "detected";
            detect(bytes).ok_or_else(|| {
                let mut m = Message::new(format!(
                    "not a traffic record shardlens knows (expected {}); name the format with ",
                    TraceFormat::ALL.map(TraceFormat::describe).join(", "),
                ));
                m.push_hint(Hint::TraceFormat);
                m.push_str(&format!(
                    " {}",
                    TraceFormat::ALL.map(TraceFormat::as_str).join("|")
                ));
                SourceError::record(file, At::File, m)
            })?
        }
    };
    info.format = Some(format);
    // A save cut short: its unfinished last record is ignored, and said (`tail.rs`). Not a log's CSV rows.
    let (bytes, ignored) = match format {
        TraceFormat::Log => (bytes, 0),
        _ => tail::whole_records(bytes),
    };
    if ignored > 0 && bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(SourceError::record(file, At::File, tail::nothing_whole(ignored)).into());
    }
    info.ignored_tail = ignored;
    let mut cx = TraceCx {
        path: file,
        opts,
        builder: &mut st.builder,
        file: &mut info,
        observed: &mut st.observed,
        covered: &mut st.covered,
        progress,
    };
    cx.builder.begin_file();
    let keys = read_format(&mut cx, format, bytes)
        .and_then(|()| Ok(cx.builder.end_file()?))
        .map_err(|e| read_error(e, file))?;
    info.keys = keys;
    st.files.push(info);
    Ok(())
}

/// Reads `bytes` with the reader of `format`.
fn read_format(cx: &mut TraceCx<'_>, format: TraceFormat, bytes: &[u8]) -> Result<(), ReadError> {
    match format {
        TraceFormat::Streams => streams::read_streams(cx, bytes),
        TraceFormat::Incremental => streams::read_incremental(cx, bytes),
        TraceFormat::Log => logs::read_log(cx, bytes),
        TraceFormat::Metrics => metrics::read_metrics(cx, bytes),
        TraceFormat::Insights => insights::read_insights(cx, bytes),
    }
}

fn read_error(e: ReadError, file: &Path) -> TraceLoadError {
    match e {
        ReadError::Source(e) => TraceLoadError::Source(e),
        ReadError::Trace(error) => TraceLoadError::Trace {
            error,
            paths: vec![file.display().to_string()],
        },
    }
}

/// A reader's error: a bad record or file, or a trace the builder refuses.
#[derive(Debug)]
pub(crate) enum ReadError {
    Source(SourceError),
    Trace(TraceError),
}

impl From<SourceError> for ReadError {
    fn from(e: SourceError) -> Self {
        Self::Source(e)
    }
}

impl From<TraceError> for ReadError {
    fn from(e: TraceError) -> Self {
        Self::Trace(e)
    }
}

/// The format of a file from its first 64 KB: the field names each format is made of.
pub fn detect(bytes: &[u8]) -> Option<TraceFormat> {
    let head = &bytes[..bytes.len().min(64 << 10)];
    let has = |s: &str| memchr::memmem::find(head, s.as_bytes()).is_some();
    let first = head.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if has("\"WriteTimestampMicros\"") {
        Some(TraceFormat::Incremental)
    } else if has("\"MetricDataResults\"") || (has("\"Datapoints\"") && has("\"Label\"")) {
        Some(TraceFormat::Metrics)
    } else if has("\"Contributors\"") && has("\"KeyLabels\"") {
        Some(TraceFormat::Insights)
    } else if has("\"dynamodb\"")
        || has("\"eventName\"")
        || (has("\"Records\"") && has("\"kinesis\""))
    {
        Some(TraceFormat::Streams)
    } else if has("\"Timestamps\"") && has("\"Values\"") && has("\"StatusCode\"") {
        // get-metric-data's results alone (`--query MetricDataResults`); after Streams, whose images may hold
        // attributes of any name.
        Some(TraceFormat::Metrics)
    } else if first.is_some() {
        Some(TraceFormat::Log)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streams records of `key` at `second`, one JSON line each.
    fn records(keys: &[(&str, i64)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, (key, second)) in keys.iter().enumerate() {
            out.extend_from_slice(
                format!(
                    r#"{{"eventName":"INSERT","dynamodb":{{"ApproximateCreationDateTime":{second},"Keys":{{"pk":{{"S":"{key}"}},"sk":{{"N":"{i}"}}}},"NewImage":{{"pk":{{"S":"{key}"}},"sk":{{"N":"{i}"}},"v":{{"S":"{}"}}}}}}}}"#,
                    "x".repeat(i * 90)
                )
                .as_bytes(),
            );
            out.push(b'\n');
        }
        out
    }

    /// Open trace's progress: bytes of the files' total, rising through each file as its reader goes, to all
    /// of them at the end.
    #[test]
    fn a_trace_read_says_how_far_it_is() {
        let dir =
            std::env::temp_dir().join(format!("shardlens-trace-progress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let all: Vec<(&str, i64)> = (0..300).map(|i| ("k", 1_700_000_000 + i / 10)).collect();
        let one = records(&all);
        std::fs::write(dir.join("a.json"), &one).unwrap();
        std::fs::write(dir.join("b.json"), &one).unwrap();
        let total = 2 * one.len() as u64;
        let seen = std::cell::RefCell::new(Vec::new());
        let opts = TraceOptions {
            key: Some("pk".into()),
            ..TraceOptions::default()
        };
        let load = load_traces_reporting(std::slice::from_ref(&dir), &opts, &|p| {
            assert_eq!(p.total_bytes, Some(total));
            seen.borrow_mut().push(p.bytes);
        })
        .unwrap();
        assert_eq!(load.files.len(), 2);
        let seen = seen.into_inner();
        assert_eq!(seen.first(), Some(&0));
        assert_eq!(seen.last(), Some(&total));
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
        // Within each file, not only at its end.
        let inside = seen
            .iter()
            .filter(|&&b| b > 0 && b < total && b != total / 2)
            .count();
        assert!(inside >= 4, "{seen:?}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_feed_read_in_batches_is_the_trace_of_the_whole_file() {
        let all: Vec<(&str, i64)> = (0..40)
            .map(|i| {
                (
                    if i % 3 == 0 { "hot" } else { "cold" },
                    1_700_000_000 + i / 7,
                )
            })
            .collect();
        let opts = TraceOptions {
            key: Some("pk".into()),
            ..TraceOptions::default()
        };
        let name = PathBuf::from("writes to T");
        let whole = records(&all);
        let file = load_trace_bytes(&[(name.clone(), &whole)], &opts).unwrap();
        let mut feed = TraceFeed::new(&name, TraceFormat::Streams, opts);
        for part in whole
            .split_inclusive(|&b| b == b'\n')
            .collect::<Vec<_>>()
            .chunks(9)
        {
            feed.add(&part.concat()).unwrap();
            // A snapshot in the middle leaves the feed as it was.
            feed.snapshot().unwrap();
        }
        feed.add(b"\n  ").unwrap();
        assert_eq!(feed.records(), 40);
        let fed = feed.snapshot().unwrap();
        assert_eq!(fed.trace, file.trace);
        assert_eq!(fed.files[0].records, file.files[0].records);
        assert_eq!(fed.files[0].keys, 2);
        assert_eq!(fed.files[0].first, file.files[0].first);
        assert_eq!(fed.files[0].last, file.files[0].last);
    }

    #[test]
    fn formats_are_told_by_their_fields() {
        let d = |s: &str| detect(s.as_bytes());
        assert_eq!(
            d(r#"{"Metadata":{"WriteTimestampMicros":{"N":"1"}},"Keys":{}}"#),
            Some(TraceFormat::Incremental)
        );
        assert_eq!(
            d(r#"{"Records":[{"eventName":"INSERT"}]}"#),
            Some(TraceFormat::Streams)
        );
        assert_eq!(
            d(r#"{"Records":[{"kinesis":{"data":"e30="}}]}"#),
            Some(TraceFormat::Streams)
        );
        assert_eq!(d(r#"{"MetricDataResults":[]}"#), Some(TraceFormat::Metrics));
        // `get-metric-data --query MetricDataResults`: the results alone.
        assert_eq!(
            d(r#"[{"Id":"a","Label":"x","Timestamps":[],"Values":[],"StatusCode":"Complete"}]"#),
            Some(TraceFormat::Metrics)
        );
        // A stream record whose item has attributes of those names stays a stream record.
        assert_eq!(
            d(
                r#"{"eventName":"INSERT","dynamodb":{"NewImage":{"Timestamps":{"L":[]},"Values":{"L":[]},"StatusCode":{"S":"x"}}}}"#
            ),
            Some(TraceFormat::Streams)
        );
        assert_eq!(
            d(r#"{"KeyLabels":["pk"],"Contributors":[]}"#),
            Some(TraceFormat::Insights)
        );
        assert_eq!(d("time,key\n1,a\n"), Some(TraceFormat::Log));
        assert_eq!(d("  \n"), None);
    }

    #[test]
    fn epoch_numbers_by_magnitude() {
        assert_eq!(
            micros_of_epoch(1_685_154_852.0),
            Some(1_685_154_852_000_000)
        );
        assert_eq!(
            micros_of_epoch(1_731_924_555_370.0),
            Some(1_731_924_555_370_000)
        );
        assert_eq!(
            micros_of_epoch(1_731_924_555_370_123.0),
            Some(1_731_924_555_370_123)
        );
        assert_eq!(micros_of_epoch(-1.0), None);
    }

    #[test]
    fn iso_times_with_zones_fractions_and_spaces() {
        let t = |s: &str| micros_of_time(s);
        let ten = 1_782_208_800_000_000;
        assert_eq!(t("2026-06-23T10:00:00Z"), Some((ten, true)));
        assert_eq!(t("2026-06-23 10:00:00"), Some((ten, false)));
        assert_eq!(
            t("2026-06-23T12:00:00.123+02:00"),
            Some((ten + 123_000, true))
        );
        assert_eq!(
            t("2026-06-23T10:00:00.1234567Z"),
            Some((ten + 123_456, true))
        );
        assert_eq!(t("2026-06-23T09:30:00-0030"), Some((ten, true)));
        assert_eq!(t("2026-06-23T10:00Z"), Some((ten, true)));
        assert_eq!(t("1782208800"), Some((ten, true)));
        assert_eq!(t("1782208800123"), Some((ten + 123_000, true)));
        for bad in [
            "2026-02-30T10:00:00Z",
            "2026-06-23T25:00:00Z",
            "yesterday",
            "2026-06-23T10:00:00+2",
        ] {
            assert_eq!(t(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_period_is_shared_among_the_minutes_it_overlaps() {
        assert_eq!(minutes_of(600, 300).len(), 5);
        assert_eq!(minutes_of(630, 60), vec![(600, 0.5), (660, 0.5)]);
    }
}
