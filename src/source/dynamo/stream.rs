//! Reading a table's DynamoDB Stream, independent of the SDK (`stream_sdk.rs` is the SDK side): every shard
//! in parallel, parents before children, iterators renewed, GetRecords paced and backed off
//! (DYNAMODB-TRAFFIC "DynamoDB Streams" \[AWS\]).
//!
//! - **Shards.** DescribeStream lists the shards; a closed shard has an ending sequence number and its
//!   children name it as their parent. A child is read only once its parent has been read to its end, so the
//!   records of one key arrive in the order they were written \[AWS\]. From `latest`, the shards already
//!   closed are history and skipped; every shard that appears later is read from its start (trim horizon):
//!   all its records are new.
//! - **Iterators** expire after 15 minutes \[AWS\]. Each GetRecords answer carries a fresh one; an iterator
//!   older than [`StreamOptions::iterator_life`] (a long backoff, a stalled network), or one the service says
//!   has expired, is replaced by one *after the last sequence number read*, so nothing is read twice and
//!   nothing is skipped. Records at or below a shard's last sequence number are dropped all the same (counted
//!   as [`StreamProgress::duplicates`]).
//! - **Pace.** GetRecords calls share a token bucket of [`StreamOptions::max_rps`] calls a second over all
//!   shards; an empty page waits [`StreamOptions::poll`] before the next call of its shard. Throttling and
//!   transient errors back off exponentially with jitter ([`Backoff`]); trimmed data (older than 24 hours)
//!   restarts the shard at its trim horizon, with a note.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::error::DynamoError;
use super::pace::{Backoff, Jitter, RcuLimiter};

mod report;

pub use report::{StreamEvent, StreamProgress, StreamRead, StreamStatus};

/// Where a new read of the stream starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StreamStart {
    /// Only records written from now on (`LATEST`).
    #[default]
    Latest,
    /// Every record the stream still holds, the last 24 hours (`TRIM_HORIZON`).
    TrimHorizon,
}

/// How to read a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamOptions {
    pub table: String,
    pub from: StreamStart,
    /// Stop after this long; `None` reads until cancelled (or until every shard is closed and read).
    pub duration: Option<Duration>,
    /// GetRecords calls per second over all shards (a token bucket).
    pub max_rps: f64,
    pub backoff: Backoff,
    /// The wait after an empty page before the shard's next call.
    pub poll: Duration,
    /// How often DescribeStream is asked for new shards (and at once after a shard closes).
    pub describe_every: Duration,
    /// An iterator older than this is renewed before use (they expire after 15 minutes \[AWS\]).
    pub iterator_life: Duration,
    /// Retries of one call after transient server errors before the read fails.
    pub max_transient_retries: u32,
}

/// Default cap on GetRecords calls per second over all shards. DynamoDB Streams serves up to 5 calls a second
/// per shard \[AWS\]; polling each shard about once a second (as Lambda's poller does, 4 a second) leaves
/// room for the table's own consumers.
pub const DEFAULT_MAX_RPS: f64 = 10.0;

impl StreamOptions {
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            from: StreamStart::Latest,
            duration: None,
            max_rps: DEFAULT_MAX_RPS,
            backoff: Backoff::default(),
            poll: Duration::from_secs(1),
            describe_every: Duration::from_secs(10),
            iterator_life: Duration::from_secs(14 * 60),
            max_transient_retries: 8,
        }
    }
}

/// A shard as DescribeStream lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardInfo {
    pub id: String,
    pub parent: Option<String>,
    /// It has an ending sequence number: no record will be added.
    pub closed: bool,
}

/// Where an iterator starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IteratorAt {
    Latest,
    TrimHorizon,
    After(String),
}

/// One record: its sequence number and the record as JSON, in the shape `aws dynamodbstreams get-records`
/// prints (so that it is read by the same code as a saved file, and saved as it is).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRecord {
    pub sequence: String,
    pub json: serde_json::Value,
}

/// One GetRecords answer.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordsPage {
    pub records: Vec<StreamRecord>,
    /// `None` when the shard is closed and every record has been read.
    pub next: Option<String>,
}

/// The stream's API: the SDK, or a fake in tests.
pub trait StreamApi: Send + Sync + 'static {
    /// Every shard (all pages of DescribeStream).
    fn shards(&self) -> impl Future<Output = Result<Vec<ShardInfo>, DynamoError>> + Send;
    /// GetShardIterator.
    fn iterator(
        &self,
        shard: &str,
        at: &IteratorAt,
    ) -> impl Future<Output = Result<String, DynamoError>> + Send;
    /// GetRecords.
    fn records(
        &self,
        iterator: &str,
    ) -> impl Future<Output = Result<RecordsPage, DynamoError>> + Send;
    /// Whether the stream is still enabled (DescribeStream's `StreamStatus`), asked only when every shard
    /// listed is closed and read: while it is, a closed shard's children are still to come, even though
    /// DescribeStream does not list them yet. By default, not: every shard closed ends the read.
    fn enabled(&self) -> impl Future<Output = Result<bool, DynamoError>> + Send {
        async { Ok(false) }
    }
}

/// What a shard's task tells the reader.
enum ShardMsg {
    Records {
        shard: String,
        records: Vec<StreamRecord>,
    },
    Retried,
    /// An iterator was obtained: the shard is being read from its position.
    Iterator,
    Renewed,
    Note(String),
    Closed(String),
    Failed(DynamoError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for its parent to be read to its end.
    Waiting,
    Reading,
    Done,
}

/// Sequence numbers are decimal strings of up to 40 digits \[AWS\]: compared by length, then by digits.
fn seq_after(a: &str, b: &str) -> bool {
    (a.len(), a) > (b.len(), b)
}

/// Reads the stream until the duration passes, `cancel` is set, a call fails for good, or every shard is
/// closed and read; `on_event` gets the records as they arrive, on this task.
pub async fn run_stream<A: StreamApi>(
    api: Arc<A>,
    opts: &StreamOptions,
    cancel: &AtomicBool,
    on_event: &mut dyn FnMut(StreamEvent),
) -> StreamRead {
    let started = Instant::now();
    let mut reader = Reader {
        api,
        opts: opts.clone(),
        limiter: Arc::new(RcuLimiter::new(opts.max_rps.max(0.01))),
        stop: Arc::new(AtomicBool::new(false)),
        phases: HashMap::new(),
        parents: HashMap::new(),
        last_seq: HashMap::new(),
        progress: StreamProgress::default(),
        notes: Vec::new(),
        tasks: JoinSet::new(),
        seeded: 0,
    };
    let (tx, mut rx) = mpsc::channel::<ShardMsg>(64);
    let status = match reader.api.shards().await {
        Err(e) => StreamStatus::Failed(e),
        Ok(shards) => {
            reader.first_shards(shards, &tx);
            reader
                .receive(&mut rx, &tx, cancel, started, on_event)
                .await
        }
    };
    reader.stop.store(true, Ordering::Relaxed);
    reader.tasks.abort_all();
    while reader.tasks.join_next().await.is_some() {}
    reader.progress.elapsed = started.elapsed();
    StreamRead {
        status,
        progress: reader.progress,
        notes: reader.notes,
    }
}

struct Reader<A: StreamApi> {
    api: Arc<A>,
    opts: StreamOptions,
    limiter: Arc<RcuLimiter>,
    stop: Arc<AtomicBool>,
    phases: HashMap<String, Phase>,
    parents: HashMap<String, Option<String>>,
    last_seq: HashMap<String, String>,
    progress: StreamProgress,
    notes: Vec<String>,
    tasks: JoinSet<()>,
    seeded: u64,
}

impl<A: StreamApi> Reader<A> {
    fn note(&mut self, what: String) {
        if !self.notes.contains(&what) {
            self.notes.push(what);
        }
    }

    /// The shards at the start: from `latest` the closed ones are skipped and the open ones read from now on;
    /// from the trim horizon every shard is read from its start, children after their parents.
    fn first_shards(&mut self, shards: Vec<ShardInfo>, tx: &mpsc::Sender<ShardMsg>) {
        for s in &shards {
            self.parents.insert(s.id.clone(), s.parent.clone());
        }
        for s in shards {
            match self.opts.from {
                StreamStart::Latest if s.closed => {
                    self.phases.insert(s.id, Phase::Done);
                }
                StreamStart::Latest => self.start(s.id, IteratorAt::Latest, tx),
                StreamStart::TrimHorizon => {
                    self.phases.insert(s.id, Phase::Waiting);
                }
            }
        }
        self.start_ready(tx);
    }

    /// Shards found later: each is read from its start once its parent is done.
    fn new_shards(&mut self, shards: Vec<ShardInfo>, tx: &mpsc::Sender<ShardMsg>) {
        for s in shards {
            if self.phases.contains_key(&s.id) {
                continue;
            }
            self.parents.insert(s.id.clone(), s.parent.clone());
            self.phases.insert(s.id, Phase::Waiting);
        }
        self.start_ready(tx);
    }

    /// Starts every waiting shard whose parent is read to its end (or is not listed: trimmed, or read before).
    fn start_ready(&mut self, tx: &mpsc::Sender<ShardMsg>) {
        let mut ready: Vec<String> = self
            .phases
            .iter()
            .filter(|(id, phase)| {
                **phase == Phase::Waiting
                    && self
                        .parents
                        .get(*id)
                        .and_then(Option::as_ref)
                        .and_then(|p| self.phases.get(p))
                        .is_none_or(|p| *p == Phase::Done)
            })
            .map(|(id, _)| id.clone())
            .collect();
        ready.sort();
        for id in ready {
            self.start(id, IteratorAt::TrimHorizon, tx);
        }
    }

    fn start(&mut self, id: String, at: IteratorAt, tx: &mpsc::Sender<ShardMsg>) {
        self.phases.insert(id.clone(), Phase::Reading);
        self.progress.shards_reading += 1;
        self.seeded += 1;
        let task = ShardTask {
            shard: id,
            at,
            opts: self.opts.clone(),
            limiter: self.limiter.clone(),
            stop: self.stop.clone(),
            tx: tx.clone(),
            jitter: Jitter::new(self.seeded),
        };
        self.tasks.spawn(task.run(self.api.clone()));
    }

    /// The reader's loop: messages from the shards, new shards, the clock and `cancel`.
    async fn receive(
        &mut self,
        rx: &mut mpsc::Receiver<ShardMsg>,
        tx: &mpsc::Sender<ShardMsg>,
        cancel: &AtomicBool,
        started: Instant,
        on_event: &mut dyn FnMut(StreamEvent),
    ) -> StreamStatus {
        let mut next_describe = Instant::now() + self.opts.describe_every;
        let deadline = self.opts.duration.map(|d| started + d);
        let tick = Duration::from_millis(50);
        loop {
            if cancel.load(Ordering::Relaxed) {
                return StreamStatus::Cancelled;
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return StreamStatus::Finished;
            }
            if Instant::now() >= next_describe {
                next_describe = Instant::now() + self.opts.describe_every;
                match self.api.shards().await {
                    Ok(shards) => self.new_shards(shards, tx),
                    Err(e) => self.note(format!("could not look for new shards (retried): {e}")),
                }
                if self.phases.values().all(|p| *p == Phase::Done) {
                    // Every shard listed is read; the stream ends only if it is disabled, not when a closed
                    // shard's children are not listed yet (the soak's "child found late").
                    match self.api.enabled().await {
                        Ok(false) => return StreamStatus::Closed,
                        Ok(true) => {}
                        Err(e) => self.note(format!(
                            "could not ask whether the stream is enabled (retried): {e}"
                        )),
                    }
                }
            }
            let msg = match tokio::time::timeout(tick, rx.recv()).await {
                Err(_) | Ok(None) => continue,
                Ok(Some(m)) => m,
            };
            self.progress.elapsed = started.elapsed();
            match msg {
                ShardMsg::Records { shard, records } => {
                    self.progress.calls += 1;
                    let json = self.fresh(&shard, records);
                    on_event(StreamEvent::Records {
                        records: json,
                        progress: self.progress.clone(),
                    });
                }
                ShardMsg::Retried => {
                    self.progress.retries += 1;
                    on_event(StreamEvent::Progress(self.progress.clone()));
                }
                ShardMsg::Renewed => self.progress.renewed += 1,
                ShardMsg::Iterator => {
                    self.progress.iterators += 1;
                    on_event(StreamEvent::Progress(self.progress.clone()));
                }
                ShardMsg::Note(n) => self.note(n),
                ShardMsg::Closed(shard) => {
                    self.phases.insert(shard, Phase::Done);
                    self.progress.shards_reading = self.progress.shards_reading.saturating_sub(1);
                    self.progress.shards_done += 1;
                    on_event(StreamEvent::Progress(self.progress.clone()));
                    // Its children: look now.
                    next_describe = Instant::now();
                }
                ShardMsg::Failed(e) => return StreamStatus::Failed(e),
            }
        }
    }

    /// The records of `shard` after the last one it gave (a renewed iterator may overlap).
    fn fresh(&mut self, shard: &str, records: Vec<StreamRecord>) -> Vec<serde_json::Value> {
        let mut out = Vec::with_capacity(records.len());
        for r in records {
            let last = self.last_seq.get(shard);
            if last.is_some_and(|l| !seq_after(&r.sequence, l)) {
                self.progress.duplicates += 1;
                continue;
            }
            self.last_seq.insert(shard.to_owned(), r.sequence);
            out.push(r.json);
        }
        self.progress.records += out.len() as u64;
        out
    }
}

/// One shard's reading.
struct ShardTask {
    shard: String,
    at: IteratorAt,
    opts: StreamOptions,
    limiter: Arc<RcuLimiter>,
    stop: Arc<AtomicBool>,
    tx: mpsc::Sender<ShardMsg>,
    jitter: Jitter,
}

/// What to do after an error.
enum Then {
    /// Wait, then call again.
    Retry(Duration),
    /// Get a new iterator.
    Renew,
    /// Start again at the trim horizon.
    Trimmed,
    Fail,
}

impl ShardTask {
    async fn run<A: StreamApi>(mut self, api: Arc<A>) {
        let mut last: Option<String> = None;
        let mut attempt = 0u32;
        'iterator: loop {
            let at = match &last {
                Some(seq) => IteratorAt::After(seq.clone()),
                None => self.at.clone(),
            };
            let mut iterator = loop {
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
                match api.iterator(&self.shard, &at).await {
                    Ok(it) => break it,
                    Err(e) => match self.then(&e, &mut attempt) {
                        Then::Retry(wait) => self.retry(wait).await,
                        Then::Trimmed => {
                            self.trimmed(&mut last).await;
                            continue 'iterator;
                        }
                        Then::Renew | Then::Fail => return self.send(ShardMsg::Failed(e)).await,
                    },
                }
            };
            self.send(ShardMsg::Iterator).await;
            let mut issued = Instant::now();
            loop {
                if self.stop.load(Ordering::Relaxed) {
                    return;
                }
                if issued.elapsed() >= self.opts.iterator_life {
                    self.send(ShardMsg::Renewed).await;
                    continue 'iterator;
                }
                self.limiter.acquire(1.0).await;
                match api.records(&iterator).await {
                    Ok(page) => {
                        attempt = 0;
                        let empty = page.records.is_empty();
                        if let Some(r) = page.records.last() {
                            last = Some(r.sequence.clone());
                        }
                        self.send(ShardMsg::Records {
                            shard: self.shard.clone(),
                            records: page.records,
                        })
                        .await;
                        match page.next {
                            None => return self.send(ShardMsg::Closed(self.shard.clone())).await,
                            Some(next) => {
                                iterator = next;
                                issued = Instant::now();
                            }
                        }
                        if empty {
                            tokio::time::sleep(self.opts.poll).await;
                        }
                    }
                    Err(e) => match self.then(&e, &mut attempt) {
                        Then::Retry(wait) => self.retry(wait).await,
                        Then::Renew => {
                            self.send(ShardMsg::Renewed).await;
                            continue 'iterator;
                        }
                        Then::Trimmed => {
                            self.trimmed(&mut last).await;
                            continue 'iterator;
                        }
                        Then::Fail => return self.send(ShardMsg::Failed(e)).await,
                    },
                }
            }
        }
    }

    /// Records past the 24 hours were trimmed before they were read: go on from the oldest one left.
    async fn trimmed(&mut self, last: &mut Option<String>) {
        *last = None;
        self.at = IteratorAt::TrimHorizon;
        self.send(ShardMsg::Note(
            "some records were trimmed (older than 24 hours) before they could be read; reading went on \
             from the oldest record left"
                .to_owned(),
        ))
        .await;
    }

    fn then(&mut self, e: &DynamoError, attempt: &mut u32) -> Then {
        let code = match e {
            DynamoError::Service { code, .. } => code.as_str(),
            _ => "",
        };
        match code {
            "ExpiredIteratorException" => return Then::Renew,
            "TrimmedDataAccessException" => return Then::Trimmed,
            _ => {}
        }
        let transient = e.is_transient()
            || matches!(e, DynamoError::Timeout { .. } | DynamoError::Connect { .. });
        if e.is_throttling() || (transient && *attempt < self.opts.max_transient_retries) {
            *attempt += 1;
            Then::Retry(self.opts.backoff.delay(*attempt, self.jitter.next()))
        } else {
            Then::Fail
        }
    }

    async fn retry(&self, wait: Duration) {
        self.send(ShardMsg::Retried).await;
        tokio::time::sleep(wait).await;
    }

    async fn send(&self, msg: ShardMsg) {
        // The reader is gone only when the read is over.
        let _ = self.tx.send(msg).await;
    }
}

#[cfg(test)]
mod tests;
