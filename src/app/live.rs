//! Live traffic of a described table (the Connect dialog's "Live traffic"), off the UI thread: the app
//! schedules the reads and forwards what the source layer reports.
//!
//! **Watch writes** is a [`WatchJob`]: its thread reads the table's DynamoDB Stream
//! ([`DynamoClient::stream`]), hands each batch of records to a [`StreamFeed`] as it comes (the source layer
//! reads them into a trace by the reader of saved files, and counts the keys by their writes; only the trace
//! is kept, not the records), and about once a second when new ones came sends a [`LiveSnapshot`] to the
//! window: the keys counted by their writes, the trace for the Timeline and each key's live rate
//! ([`LiveRates`]). Cancelling it (Stop) keeps what was read. **Last hours of metrics** is a [`MetricsJob`]:
//! CloudWatch's minutes (and Contributor Insights' top keys, when it is on) read as a trace for the Timeline.
//! Read-only: only the source layer's calls.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{RecvTimeoutError, sync_channel};
use std::time::Duration;
use web_time::Instant;

use super::error::AppError;
use super::tasks::{Reporter, Task, TaskError};
use crate::model::KeySet;
use crate::source::dynamo::{
    ConnectOptions, DynamoClient, DynamoError, MetricsOptions, StreamEvent, StreamOptions,
    StreamProgress, StreamRead, TableInfo,
};
use crate::source::trace::{StreamFeed, TraceLoad, TraceLoadError, metrics_trace};
use crate::source::{Message, OnBad};

/// A key's live rate and the time of day it is said in, read by the source layer ([`StreamFeed`]); used here
/// under their app names.
pub use crate::source::trace::{KeyRate, LiveRates, RATE_WINDOW, time_of_day};

/// The least time between two snapshots of a watch (more when building the trace takes longer: see
/// [`Records::every`]).
const SNAPSHOT_EVERY: Duration = Duration::from_secs(1);

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

/// What a watch shows: the records read so far as keys, rates and a trace.
pub struct LiveSnapshot {
    /// The table's keys, each counted by its writes.
    pub keys: Arc<KeySet>,
    pub rates: Arc<LiveRates>,
    pub load: TraceLoad,
    pub progress: StreamProgress,
}

/// What reads a watch's stream (until `cancel`), giving its events to `on_event` as they come.
pub trait StreamReader:
    FnOnce(&AtomicBool, &mut dyn FnMut(StreamEvent)) -> Result<StreamRead, DynamoError> + Send + 'static
{
}

impl<F> StreamReader for F where
    F: FnOnce(&AtomicBool, &mut dyn FnMut(StreamEvent)) -> Result<StreamRead, DynamoError>
        + Send
        + 'static
{
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
        let WatchRequest {
            connect,
            stream,
            info,
        } = request;
        let from = stream.from;
        Self::start_reading(ctx, info, from, move |cancel, on_event| {
            let client = DynamoClient::connect(&connect)?;
            client
                .stream(&stream, cancel, on_event)
                .map(|(_, read)| read)
        })
    }

    /// A watch of the table `info` describes whose stream `read` reads, on a thread of its own (the table's
    /// stream through the SDK in [`Self::start`]; a simulated stream in the soak benchmark).
    pub fn start_reading(
        ctx: &egui::Context,
        info: TableInfo,
        from: crate::source::dynamo::StreamStart,
        read: impl StreamReader,
    ) -> Result<Self, TaskError> {
        let table = info.name.clone();
        let shown = info.clone();
        let task = Task::spawn("watch", ctx, 8, move |r: &Reporter<WatchMsg>| {
            run_watch(read, &info, r);
        })?;
        Ok(Self {
            table,
            info: shown,
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

/// The records read so far (the source layer's [`StreamFeed`]) and when they were last shown.
struct Records {
    feed: StreamFeed,
    /// Records (and the progress) not in a snapshot yet.
    unsent: Option<StreamProgress>,
    shown_at: Option<Instant>,
    /// How long the last trace took to build: snapshots come at most every four times that.
    build: Duration,
    said: Option<String>,
}

impl Records {
    fn new(info: &TableInfo) -> Self {
        // One odd record (counted in the file's `skipped`) does not stop a live view.
        let feed = StreamFeed::new(&format!("writes to {}", info.name), info, OnBad::Skip)
            .counting_keys(info);
        Self {
            feed,
            unsent: None,
            shown_at: None,
            build: Duration::ZERO,
            said: None,
        }
    }

    fn add(&mut self, records: &[serde_json::Value], progress: StreamProgress) {
        self.feed.add(records);
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

    /// Sends a snapshot of every record so far when new ones are due (or `now`, at the end).
    fn show(&mut self, r: &Reporter<WatchMsg>, now: bool) {
        if self.unsent.is_none() || (!now && !self.due_in().is_zero()) {
            return;
        }
        let Some(progress) = self.unsent.take() else {
            return;
        };
        if self.feed.records() == 0 && !self.feed.has_unreadable() {
            return;
        }
        let started = Instant::now();
        let built = self.feed.rates_and_trace();
        self.build = started.elapsed();
        self.shown_at = Some(Instant::now());
        match built {
            Ok((rates, load)) => {
                let keys = self.feed.keys().cloned().unwrap_or_default();
                r.send(WatchMsg::Snapshot(Box::new(LiveSnapshot {
                    keys: Arc::new(keys),
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
fn run_watch(read: impl StreamReader, info: &TableInfo, r: &Reporter<WatchMsg>) {
    let (tx, rx) = sync_channel::<StreamEvent>(64);
    let cancel = r.cancel_flag();
    std::thread::scope(|s| {
        let reader = std::thread::Builder::new()
            .name("shardlens-watch-stream".to_owned())
            .spawn_scoped(s, move || {
                read(cancel, &mut |event| {
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
        let mut records = Records::new(info);
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
            Ok(Ok(read)) => Ok(read),
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
    /// Contributor Insights' mode, when DynamoDB said one.
    pub insights_mode: Option<crate::source::dynamo::InsightsMode>,
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
        let until = web_time::SystemTime::now()
            .duration_since(web_time::UNIX_EPOCH)
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

/// On the metrics' thread: GetMetricData (and Contributor Insights), then the documents read as a trace by
/// the source layer.
fn read_metrics(connect: &ConnectOptions, opts: &MetricsOptions) -> Result<MetricsRead, AppError> {
    let client = DynamoClient::connect(connect)?;
    let read = client.metrics(opts)?;
    let name = format!("CloudWatch metrics of {}", opts.table);
    let load = metrics_trace(&read, &name).map_err(trace_error)?;
    Ok(MetricsRead {
        load,
        notes: read.notes,
        insights_mode: read.insights_mode,
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
