//! Live traffic of a described table (the Connect dialog's "Live traffic"), off the UI thread.
//!
//! **Watch writes** is a [`WatchJob`]: its thread reads the table's DynamoDB Stream
//! ([`DynamoClient::stream`]), reads each batch of records into a [`TraceFeed`] as it comes (by the reader of
//! saved files; only the trace is kept, not the records), and about once a second when new ones came sends a
//! [`LiveSnapshot`] to the window: the keys counted by their writes, the trace for the Timeline and each key's live rate
//! ([`LiveRates`]). Cancelling it (Stop) keeps what was read. **Last hours of metrics** is a [`MetricsJob`]:
//! CloudWatch's minutes (and Contributor Insights' top keys, when it is on) read as a trace for the Timeline.
//! Read-only: only the source layer's calls.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use super::error::AppError;
use super::tasks::{Reporter, Task, TaskError};
use crate::model::KeySet;
use crate::model::key::{
    MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonical_partition_key, canonicalize_into,
    display_key,
};
use crate::model::trace::{Dim, Trace};
use crate::source::dynamo::{
    ConnectOptions, DynamoClient, KeyAttribute, MetricsOptions, StreamEvent, StreamOptions,
    StreamProgress, StreamRead, TableInfo,
};
use crate::source::trace::{
    TraceFeed, TraceFormat, TraceLoad, TraceLoadError, TraceOptions, load_trace_bytes,
};
use crate::source::{Message, OnBad};

/// The least time between two snapshots of a watch (more when building the trace takes longer: see
/// [`Records::every`]).
const SNAPSHOT_EVERY: Duration = Duration::from_secs(1);
/// The seconds a key's live rate is taken over: the trace's last ones.
pub const RATE_WINDOW: u32 = 10;

/// "Watch writes": the table's stream read from `stream.from`, replayed on the table as `info` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchRequest {
    pub connect: ConnectOptions,
    pub stream: StreamOptions,
    pub info: TableInfo,
}

/// "Last hours of metrics": CloudWatch's last `hours` of the table `info` describes.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsRequest {
    pub connect: ConnectOptions,
    pub info: TableInfo,
    pub hours: u32,
}

/// One key's writes as the trace so far has them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct KeyRate {
    /// Writes per second over the trace's last [`LiveRates::window`] seconds.
    pub recent: f64,
    /// The most writes the key had in one second, and that second (Unix).
    pub peak: f64,
    pub peak_at: i64,
}

/// Every key's live rate, by the key as the key set shows it ([`KeySet::display`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LiveRates {
    /// The Unix second after the trace's last one: the recent window ends there.
    pub end: i64,
    /// Seconds in the recent window (fewer than [`RATE_WINDOW`] when the trace is shorter).
    pub window: u32,
    by_key: HashMap<String, KeyRate>,
}

impl LiveRates {
    /// The rates of `trace`'s keys, each named as `names` (by the trace key's index) says.
    pub fn of(trace: &Trace, names: &[String]) -> Self {
        let window = RATE_WINDOW.min(trace.duration);
        let from = trace.duration - window;
        let mut rates = vec![KeyRate::default(); trace.keys.len()];
        for t in 0..trace.duration {
            for e in trace.at(t).iter().filter(|e| e.dim() == Dim::Write) {
                let Some(r) = rates.get_mut(e.key() as usize) else {
                    continue;
                };
                let writes = f64::from(e.requests);
                if t >= from {
                    r.recent += writes;
                }
                if writes > r.peak {
                    r.peak = writes;
                    r.peak_at = trace.start + i64::from(t);
                }
            }
        }
        let by_key = names
            .iter()
            .cloned()
            .zip(rates)
            .map(|(name, mut r)| {
                r.recent /= f64::from(window.max(1));
                (name, r)
            })
            .collect();
        Self {
            end: trace.start + i64::from(trace.duration),
            window,
            by_key,
        }
    }

    pub fn get(&self, key: &str) -> Option<&KeyRate> {
        self.by_key.get(key)
    }

    /// The inspector's line for `key`: "Live: 3.0 writes/s over the trace's last 10 s (to 12:00:41 UTC),
    /// peak 12 writes/s at 12:00:35 UTC".
    pub fn describe(&self, key: &str) -> Option<String> {
        let r = self.get(key)?;
        Some(format!(
            "Live: {} writes/s over the stream's last {} s (to {}), peak {} writes/s at {}",
            rate(r.recent),
            self.window,
            time_of_day(self.end),
            rate(r.peak),
            time_of_day(r.peak_at),
        ))
    }
}

/// A rate in words: one decimal below 10, whole numbers above.
fn rate(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.1}")
    } else {
        crate::model::fmt::grouped(r.round() as u64)
    }
}

/// `12:00:41 UTC` of a Unix second.
pub fn time_of_day(unix: i64) -> String {
    let iso = crate::model::trace::iso(unix);
    format!("{} UTC", iso.get(11..19).unwrap_or_default())
}

/// What a watch shows: the records read so far as keys, rates and a trace.
pub struct LiveSnapshot {
    /// The table's keys, each counted by its writes.
    pub keys: Arc<KeySet>,
    pub rates: Arc<LiveRates>,
    pub load: TraceLoad,
    pub progress: StreamProgress,
}

/// The feed a watch reads its records into (batches of JSON lines): only the trace is kept, not the records.
pub fn watch_feed(name: &str, key: &KeyAttribute) -> TraceFeed {
    let opts = TraceOptions {
        key: Some(key.name.clone()),
        // One odd record (counted in the file's `skipped`) does not stop a live view.
        on_bad: OnBad::Skip,
        ..TraceOptions::default()
    };
    TraceFeed::new(Path::new(name), TraceFormat::Streams, opts)
}

/// The records read so far as a trace, and each key's live rate from it (keyed as a key set of `key`'s type
/// shows the key).
pub fn watch_trace(
    feed: &TraceFeed,
    key: &KeyAttribute,
) -> Result<(LiveRates, TraceLoad), TraceLoadError> {
    let load = feed.snapshot()?;
    let names: Vec<String> = load
        .trace
        .keys
        .iter()
        .map(
            |k| match canonical_partition_key(k.name.as_bytes(), key.key_type) {
                Ok(canonical) => display_key(&canonical, key.key_type).into_owned(),
                Err(_) => k.name.clone(),
            },
        )
        .collect();
    let rates = LiveRates::of(&load.trace, &names);
    Ok((rates, load))
}

/// The table's keys counted by their writes as the records arrive, with each key's sort keys in the order
/// they were written (the inspector's item collection, the tree's "one item hot?").
pub struct LiveKeys {
    keys: KeySet,
    partition_key: KeyAttribute,
    sort_key: Option<KeyAttribute>,
    pk: Vec<u8>,
    sk: Vec<u8>,
}

impl LiveKeys {
    pub fn new(info: &TableInfo) -> Self {
        let mut keys = KeySet::new(info.partition_key.key_type);
        // The counts are writes, in the order they were written.
        keys.set_write_ordered(true);
        Self {
            keys,
            partition_key: info.partition_key.clone(),
            sort_key: info.sort_key.clone(),
            pk: Vec::new(),
            sk: Vec::new(),
        }
    }

    /// Counts a record (`aws dynamodbstreams get-records`' shape) as one write of its item; a record without
    /// the table's key is left to the trace, which counts it as skipped.
    pub fn add(&mut self, record: &serde_json::Value) {
        let Some(keys) = record.get("dynamodb").and_then(|d| d.get("Keys")) else {
            return;
        };
        let raw = |a: &KeyAttribute| keys.get(&a.name)?.get(a.key_type.as_str())?.as_str();
        let pk = &self.partition_key;
        let Some(value) = raw(pk) else {
            return;
        };
        if canonicalize_into(
            value.as_bytes(),
            pk.key_type,
            MAX_PARTITION_KEY_BYTES,
            &mut self.pk,
        )
        .is_err()
        {
            return;
        }
        let sk = match self.sort_key.as_ref() {
            Some(a) => raw(a).and_then(|value| {
                canonicalize_into(
                    value.as_bytes(),
                    a.key_type,
                    MAX_SORT_KEY_BYTES,
                    &mut self.sk,
                )
                .ok()?;
                Some((self.sk.as_slice(), a.key_type))
            }),
            // Without a sort key, each partition key is one item: every write to it goes to that item.
            None => Some((self.pk.as_slice(), pk.key_type)),
        };
        self.keys.add_item(&self.pk, sk, 1);
    }

    pub fn keys(&self) -> &KeySet {
        &self.keys
    }
}

/// What the watch's thread sends.
enum WatchMsg {
    Snapshot(Box<LiveSnapshot>),
    Progress(StreamProgress),
    /// The records so far could not be read as a trace (said once per new reason; the watch goes on).
    Unreadable(Message),
    Done(Result<StreamRead, AppError>),
}

/// What draining a watch gives the app.
pub enum WatchUpdate {
    Snapshot(Box<LiveSnapshot>),
    /// Progress without new records.
    Heard,
    Unreadable(Message),
    Done(Result<StreamRead, AppError>),
}

/// A watch under way: the stream's records reach the window as snapshots.
pub struct WatchJob {
    pub table: String,
    /// The table as the Connect dialog described it: its key and its capacity, for the replays.
    pub info: TableInfo,
    pub from: crate::source::dynamo::StreamStart,
    task: Task<WatchMsg>,
    pub progress: Option<StreamProgress>,
    /// Stop was clicked: the thread is ending.
    pub stopping: bool,
    /// The last snapshot's keys and rates (the end's notice gives them their final source).
    pub last: Option<(Arc<KeySet>, Arc<LiveRates>)>,
}

impl WatchJob {
    pub fn start(ctx: &egui::Context, request: WatchRequest) -> Result<Self, TaskError> {
        let table = request.info.name.clone();
        let info = request.info.clone();
        let from = request.stream.from;
        let task =
            Task::spawn(
                "watch",
                ctx,
                8,
                move |r: &Reporter<WatchMsg>| match DynamoClient::connect(&request.connect) {
                    Ok(client) => run_watch(&client, &request, r),
                    Err(e) => {
                        r.send(WatchMsg::Done(Err(e.into())));
                    }
                },
            )?;
        Ok(Self {
            table,
            info,
            from,
            task,
            progress: None,
            stopping: false,
            last: None,
        })
    }

    /// Stop: the stream's reader ends, and what was read stays.
    pub fn stop(&mut self) {
        self.stopping = true;
        self.task.cancel();
    }

    /// What came since the last frame: the newest snapshot, else progress; the end as soon as it came.
    pub fn drain(&mut self) -> Vec<WatchUpdate> {
        let mut snapshot = None;
        let mut out = Vec::new();
        let mut heard = false;
        for msg in self.task.drain() {
            match msg {
                WatchMsg::Snapshot(s) => {
                    self.progress = Some(s.progress.clone());
                    snapshot = Some(WatchUpdate::Snapshot(s));
                }
                WatchMsg::Progress(p) => {
                    self.progress = Some(p);
                    heard = true;
                }
                WatchMsg::Unreadable(m) => out.push(WatchUpdate::Unreadable(m)),
                WatchMsg::Done(result) => {
                    out.extend(snapshot.take());
                    out.push(WatchUpdate::Done(result));
                    return out;
                }
            }
        }
        if let Some(s) = snapshot {
            out.push(s);
        } else if heard {
            out.push(WatchUpdate::Heard);
        }
        if self.task.finished() {
            out.push(WatchUpdate::Done(Err(AppError::Ended("watch thread"))));
        }
        out
    }
}

/// The records read so far and when they were last shown.
struct Records<'a> {
    key: &'a KeyAttribute,
    feed: TraceFeed,
    /// The first batch the feed could not read.
    unreadable: Option<TraceLoadError>,
    keys: LiveKeys,
    /// Records (and the progress) not in a snapshot yet.
    unsent: Option<StreamProgress>,
    shown_at: Option<Instant>,
    /// How long the last trace took to build: snapshots come at most every four times that.
    build: Duration,
    said: Option<String>,
}

impl<'a> Records<'a> {
    fn new(info: &'a TableInfo) -> Self {
        Self {
            key: &info.partition_key,
            feed: watch_feed(&format!("writes to {}", info.name), &info.partition_key),
            unreadable: None,
            keys: LiveKeys::new(info),
            unsent: None,
            shown_at: None,
            build: Duration::ZERO,
            said: None,
        }
    }

    fn add(&mut self, records: &[serde_json::Value], progress: StreamProgress) {
        let mut batch = Vec::new();
        for record in records {
            if serde_json::to_writer(&mut batch, record).is_ok() {
                batch.push(b'\n');
            }
            self.keys.add(record);
        }
        if let Err(e) = self.feed.add(&batch) {
            self.unreadable.get_or_insert(e);
        }
        self.unsent = Some(progress);
    }

    fn every(&self) -> Duration {
        SNAPSHOT_EVERY.max(self.build * 4)
    }

    /// How long until the unsent records are due (a while when there are none).
    fn due_in(&self) -> Duration {
        match (&self.unsent, self.shown_at) {
            (None, _) => SNAPSHOT_EVERY,
            (Some(_), None) => Duration::ZERO,
            (Some(_), Some(at)) => (at + self.every()).saturating_duration_since(Instant::now()),
        }
    }

    /// Builds and sends a snapshot of every record so far when new ones are due (or `now`, at the end).
    fn show(&mut self, r: &Reporter<WatchMsg>, now: bool) {
        if self.unsent.is_none() || (!now && !self.due_in().is_zero()) {
            return;
        }
        let Some(progress) = self.unsent.take() else {
            return;
        };
        if self.feed.records() == 0 && self.unreadable.is_none() {
            return;
        }
        let started = Instant::now();
        let built = match self.unreadable.take() {
            Some(e) => Err(e),
            None => watch_trace(&self.feed, self.key),
        };
        self.build = started.elapsed();
        self.shown_at = Some(Instant::now());
        match built {
            Ok((rates, load)) => {
                r.send(WatchMsg::Snapshot(Box::new(LiveSnapshot {
                    keys: Arc::new(self.keys.keys().clone()),
                    rates: Arc::new(rates),
                    load,
                    progress,
                })));
            }
            Err(e) => {
                let message = e.message();
                let text = message.to_string();
                if self.said.as_deref() != Some(text.as_str()) {
                    self.said = Some(text);
                    r.send(WatchMsg::Unreadable(message));
                }
            }
        }
    }
}

/// On the watch's thread: the stream is read on a thread of its own, whose events come here; the records are
/// shown when due, even when no event follows them.
fn run_watch(client: &DynamoClient, request: &WatchRequest, r: &Reporter<WatchMsg>) {
    let (tx, rx) = sync_channel::<StreamEvent>(64);
    let cancel = r.cancel_flag();
    std::thread::scope(|s| {
        let reader = std::thread::Builder::new()
            .name("shardlens-watch-stream".to_owned())
            .spawn_scoped(s, move || {
                client.stream(&request.stream, cancel, &mut |event| {
                    // The receiver is gone only when the watch's thread is ending.
                    let _ = tx.send(event);
                })
            });
        let reader = match reader {
            Ok(handle) => handle,
            Err(e) => {
                r.send(WatchMsg::Done(
                    Err(TaskError::new("watch-stream", e).into()),
                ));
                return;
            }
        };
        let mut records = Records::new(&request.info);
        loop {
            match rx.recv_timeout(records.due_in()) {
                Ok(StreamEvent::Records {
                    records: got,
                    progress,
                }) if !got.is_empty() => {
                    records.add(&got, progress);
                }
                Ok(StreamEvent::Records { progress, .. } | StreamEvent::Progress(progress)) => {
                    r.offer(WatchMsg::Progress(progress));
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            records.show(r, false);
        }
        records.show(r, true);
        let result = match reader.join() {
            Ok(Ok((_, read))) => Ok(read),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err(AppError::Ended("stream reader")),
        };
        r.send(WatchMsg::Done(result));
    });
}

/// CloudWatch's last hours of a table, read as a trace.
pub struct MetricsRead {
    /// `None` when CloudWatch has no consumed-capacity or throttling datapoint in the window.
    pub load: Option<TraceLoad>,
    /// What the reader should know (Contributor Insights off or not available, a rule that failed).
    pub notes: Vec<Message>,
    /// The window, Unix seconds.
    pub since: i64,
    pub until: i64,
}

/// A metrics read under way.
pub struct MetricsJob {
    pub table: String,
    pub hours: u32,
    pub info: TableInfo,
    task: Task<Result<MetricsRead, AppError>>,
}

impl MetricsJob {
    pub fn start(ctx: &egui::Context, request: MetricsRequest) -> Result<Self, TaskError> {
        let MetricsRequest {
            connect,
            info,
            hours,
        } = request;
        let table = info.name.clone();
        let until = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let opts = MetricsOptions {
            table: table.clone(),
            index: None,
            since: until - i64::from(hours) * 3_600,
            until,
        };
        let task = Task::spawn("metrics", ctx, 1, move |r| {
            r.send(read_metrics(&connect, &opts));
        })?;
        Ok(Self {
            table,
            hours,
            info,
            task,
        })
    }

    /// The read, once it came.
    pub fn drain(&mut self) -> Option<Result<MetricsRead, AppError>> {
        let result = self.task.drain().pop();
        if result.is_none() && self.task.finished() {
            return Some(Err(AppError::Ended("metrics thread")));
        }
        result
    }
}

/// CloudWatch's metrics that show traffic (not the provisioned capacity, which has datapoints on an idle
/// table too).
const TRAFFIC: [&str; 5] = [
    "ConsumedReadCapacityUnits",
    "ConsumedWriteCapacityUnits",
    "ReadThrottleEvents",
    "WriteThrottleEvents",
    "ThrottledRequests",
];

/// On the metrics' thread: GetMetricData (and Contributor Insights), then the documents read as a trace.
fn read_metrics(connect: &ConnectOptions, opts: &MetricsOptions) -> Result<MetricsRead, AppError> {
    let client = DynamoClient::connect(connect)?;
    let read = client.metrics(opts)?;
    let datapoints: usize = TRAFFIC
        .iter()
        .filter_map(|m| read.series.get(m))
        .map(Vec::len)
        .sum();
    let load = if datapoints == 0 {
        None
    } else {
        let bytes = read.trace_bytes(None);
        let name = PathBuf::from(format!("CloudWatch metrics of {}", opts.table));
        let trace = TraceOptions {
            format: Some(TraceFormat::Metrics),
            ..TraceOptions::default()
        };
        Some(load_trace_bytes(&[(name, &bytes)], &trace).map_err(trace_error)?)
    };
    Ok(MetricsRead {
        load,
        notes: read.notes,
        since: opts.since,
        until: opts.until,
    })
}

/// A trace that could not be read, as the app's error (a source error keeps its hints).
fn trace_error(e: TraceLoadError) -> AppError {
    match e {
        TraceLoadError::Source(e) => AppError::Load(e),
        other => AppError::Other(anyhow::Error::new(other)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::KeyType;

    /// A record as `aws dynamodbstreams get-records` prints it: an INSERT of `key` at `second`.
    fn record(key: &str, second: i64, seq: u64) -> serde_json::Value {
        serde_json::json!({
            "eventID": format!("e{seq}"),
            "eventName": "INSERT",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "ApproximateCreationDateTime": second,
                "Keys": { "pk": { "S": key } },
                "NewImage": { "pk": { "S": key }, "v": { "N": "1" } },
                "SequenceNumber": format!("{seq:021}"),
                "SizeBytes": 40,
                "StreamViewType": "NEW_AND_OLD_IMAGES"
            }
        })
    }

    /// A feed that has read `records`, in two batches.
    fn fed(records: &[serde_json::Value], info: &TableInfo) -> TraceFeed {
        let mut feed = watch_feed("writes to T", &info.partition_key);
        let half = records.len() / 2;
        for part in [&records[..half], &records[half..]] {
            let mut out = Vec::new();
            for r in part {
                serde_json::to_writer(&mut out, r).unwrap();
                out.push(b'\n');
            }
            feed.add(&out).unwrap();
        }
        feed
    }

    fn table(pk: (&str, KeyType), sk: Option<(&str, KeyType)>) -> TableInfo {
        let attr = |(name, key_type): (&str, KeyType)| KeyAttribute {
            name: name.into(),
            key_type,
        };
        TableInfo {
            name: "T".into(),
            status: "ACTIVE".into(),
            partition_key: attr(pk),
            sort_key: sk.map(attr),
            billing: crate::source::dynamo::Billing::OnDemand,
            item_count: None,
            size_bytes: None,
            local_indexes: Vec::new(),
            global_indexes: Vec::new(),
            stream_arn: Some("arn".into()),
        }
    }

    #[test]
    fn the_trace_gives_each_keys_live_rate_and_the_records_its_writes() {
        let t0 = 1_750_000_000;
        let mut records = Vec::new();
        let mut seq = 0;
        // hot: 2 writes a second for 20 s, then 6 in its last second; cold: one write at the start.
        for s in 0..20 {
            for _ in 0..2 {
                seq += 1;
                records.push(record("hot", t0 + s, seq));
            }
        }
        for _ in 0..6 {
            seq += 1;
            records.push(record("hot", t0 + 20, seq));
        }
        records.push(record("cold", t0, seq + 1));
        let info = table(("pk", KeyType::S), None);
        let (rates, load) = watch_trace(&fed(&records, &info), &info.partition_key).unwrap();
        assert_eq!(load.trace.duration, 21);
        let hot = rates.get("hot").unwrap();
        // The last 10 s: 9 seconds of 2 writes and the last second's 6.
        assert!((hot.recent - 2.4).abs() < 1e-9, "{hot:?}");
        assert!((hot.peak - 6.0).abs() < 1e-9);
        assert_eq!(hot.peak_at, t0 + 20);
        assert_eq!(rates.end, t0 + 21);
        assert!(rates.get("cold").unwrap().recent.abs() < 1e-9);
        let said = rates.describe("hot").unwrap();
        assert!(
            said.contains("2.4 writes/s over the stream's last 10 s"),
            "{said}"
        );
        assert!(said.contains("peak 6.0 writes/s at"), "{said}");
        assert!(rates.describe("nobody").is_none());

        let mut keys = LiveKeys::new(&info);
        for r in &records {
            keys.add(r);
        }
        let keys = keys.keys();
        assert_eq!(keys.total(), 47);
        assert!(keys.write_ordered(), "the counts are writes");
        assert_eq!(keys.count(keys.find(b"hot").unwrap()), 46);
    }

    #[test]
    fn number_keys_and_sort_keys_are_kept_as_the_table_keys_them() {
        let info = table(("id", KeyType::N), Some(("at", KeyType::N)));
        let mut keys = LiveKeys::new(&info);
        let mut records = Vec::new();
        for (i, at) in ["3", "1", "2"].into_iter().enumerate() {
            let mut r = record("x", 1_750_000_000, i as u64 + 1);
            r["dynamodb"]["Keys"] = serde_json::json!({ "id": { "N": "42.0" }, "at": { "N": at } });
            keys.add(&r);
            records.push(r);
        }
        let set = keys.keys();
        assert_eq!(set.key_type(), KeyType::N);
        assert_eq!(set.display(0), "42");
        let facts = set.sort_key_facts(0).unwrap();
        assert_eq!(facts.items, 3);
        assert!(!facts.only_increasing, "written 3, 1, 2");
        let (rates, _) = watch_trace(&fed(&records, &info), &info.partition_key).unwrap();
        assert!(
            rates.get("42").is_some(),
            "the trace's key as the key set shows it"
        );
    }
}
