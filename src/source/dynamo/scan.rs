//! The parallel scan, independent of the SDK: segments started, their pages merged into the key set and the
//! designs, sampling and cancellation; each segment's pagination, limiter share and backoff are in
//! `segment.rs`. Pages come from a [`PageSource`]; the SDK one lives in
//! `client.rs`, and tests drive this logic with a fake one (throttling on demand).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::error::DynamoError;
pub use super::pace::{Backoff, RcuLimiter};
use super::scan_designs::{Designs, ItemKeys};
use super::segment::{PageFacts, PageKeys, SegmentMsg, SegmentTask};
use crate::model::design::{Design, DesignError, DesignKeys};
use crate::model::health::ttl::{TtlStats, TtlValue};
use crate::model::keyexpr::Value;
use crate::model::shard::ShardBy;
use crate::model::{KeySet, KeyType};

/// Parallel segments unless the caller chooses: enough to overlap round trips, gentle on small tables.
pub const DEFAULT_SEGMENTS: u32 = 4;
/// Most segments shardlens will run (DynamoDB allows up to 1,000,000).
pub const MAX_SEGMENTS: u32 = 64;
/// Default read-capacity cap, in consumed read units per second: modest next to an on-demand table's
/// 12,000 units of warm throughput, so an analysis scan does not crowd out production reads.
pub const DEFAULT_MAX_RCU: f64 = 100.0;

/// What to scan and how gently.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanOptions {
    pub table: String,
    /// `TotalSegments`, 1 to [`MAX_SEGMENTS`].
    pub segments: u32,
    /// Cap on consumed read units per second over all segments; `None` scans as fast as the table allows.
    pub max_rcu: Option<f64>,
    /// Stop after this many items; the result is then labelled a sample.
    pub limit: Option<u64>,
    /// Also project the sort key, for per-key item counts and the "sort key only increases" fact.
    pub with_sort_key: bool,
    /// Strongly consistent reads (twice the read units).
    pub consistent: bool,
    /// Items evaluated per request (`Limit`); `None` lets shardlens choose (DynamoDB pages at 1 MB).
    pub page_size: Option<u32>,
    /// Backoff after throttling.
    pub backoff: Backoff,
    /// Key designs evaluated on every item read (GSIs, candidates, `shard_by`; see [`super::gsi_designs`]):
    /// the projection also reads [`Design::roots`], and [`Scanned::designs`] holds their keys. The scan's own
    /// keys stay the partition key attribute: `design.key` is not applied. A candidate that cannot key an
    /// item leaves it out of that candidate alone (counted in its `absent`).
    pub design: Design,
    /// Leading candidates of `design` that stand for the current key (the CLI's `--key-expr`, evaluated as
    /// candidate 1): an item one of them cannot key is left out of every design ([`Scanned::design_skipped`]).
    pub strict_candidates: usize,
    /// Read whole items (no projection) and measure their sizes by DynamoDB's rules, for the health report.
    /// A Scan costs the same read units either way (DynamoDB charges by the items' size, not what is
    /// returned); only the bytes sent grow.
    pub item_sizes: bool,
    /// The TTL attribute to read; `None` asks DescribeTimeToLive, and with whole items guesses from names.
    pub ttl_attr: Option<String>,
}

impl ScanOptions {
    /// Defaults: [`DEFAULT_SEGMENTS`] segments, [`DEFAULT_MAX_RCU`] read units per second, eventual
    /// consistency, partition keys only, no limit.
    pub fn new(table: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            segments: DEFAULT_SEGMENTS,
            max_rcu: Some(DEFAULT_MAX_RCU),
            limit: None,
            with_sort_key: false,
            consistent: false,
            page_size: None,
            backoff: Backoff::default(),
            design: Design::default(),
            strict_candidates: 0,
            item_sizes: false,
            ttl_attr: None,
        }
    }

    /// Checks the options (segments 1–64, a positive cap, limits of at least 1) before any request.
    pub fn check(&self) -> Result<(), DynamoError> {
        if !(1..=MAX_SEGMENTS).contains(&self.segments) {
            return Err(DynamoError::Config(
                format!(
                    "segments must be 1 to {MAX_SEGMENTS}, not {}",
                    self.segments
                )
                .into(),
            ));
        }
        if let Some(r) = self.max_rcu
            && !(r.is_finite() && r > 0.0)
        {
            return Err(DynamoError::Config(
                format!("the read-capacity cap must be a positive number, not {r}").into(),
            ));
        }
        if self.page_size == Some(0) || self.limit == Some(0) {
            return Err(DynamoError::Config(
                "the page size and the item limit must be at least 1".into(),
            ));
        }
        self.design
            .validate()
            .map_err(|e| DynamoError::Config(e.into()))
    }
}

/// One request of one segment.
#[derive(Debug, Clone)]
pub struct PageRequest<C> {
    pub segment: u32,
    pub total_segments: u32,
    /// `ExclusiveStartKey`: where the previous page ended.
    pub start: Option<C>,
    /// `Limit`: items to evaluate.
    pub limit: Option<u32>,
}

/// One page of keys, canonical bytes (see [`crate::model::key::canonicalize_into`]).
#[derive(Debug, Clone, Default)]
pub struct Page<C> {
    /// Partition key and sort key of each item. The sort key is there when asked for, or when the table has
    /// one and the scan has a design (it then only seeds the item's `{random N}` draws).
    pub keys: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    /// The design's top-level attributes ([`Design::roots`]) of each item in `keys`, row-major: item `i`'s
    /// value of `roots[r]` is `values[i * roots.len() + r]`, `None` when it has none. Empty without a design.
    pub values: Vec<Option<Value>>,
    /// Items evaluated (`ScannedCount`).
    pub scanned: u64,
    /// Items whose key attributes were missing or unreadable (never expected for a table's own keys).
    pub skipped: u64,
    /// Consumed read units (`ConsumedCapacity.CapacityUnits`), 0 when not reported.
    pub consumed_rcu: f64,
    /// `LastEvaluatedKey`: `None` when the segment is finished.
    pub next: Option<C>,
    /// What each item of `keys` tells besides its keys, when the scan reads whole items or the TTL attribute
    /// ([`ScanOptions::item_sizes`]); empty otherwise.
    pub facts: Vec<ItemFacts>,
    /// The TTL attribute `facts` read, when there is one.
    pub ttl_attr: Option<std::sync::Arc<str>>,
}

/// One item's size (DynamoDB's rules, when the scan read the whole item), its key attributes' size and its
/// TTL attribute's value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ItemFacts {
    pub size: Option<u64>,
    pub key_bytes: u64,
    pub ttl: TtlValue,
}

/// Where pages come from: the SDK, or a fake in tests.
pub trait PageSource: Send + Sync + 'static {
    type Cursor: Clone + Send + Sync + 'static;
    fn page(
        &self,
        request: PageRequest<Self::Cursor>,
    ) -> impl Future<Output = Result<Page<Self::Cursor>, DynamoError>> + Send;
}

/// What one segment is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SegmentState {
    #[default]
    Running,
    /// Waiting after throttling (retry number).
    BackingOff {
        attempt: u32,
    },
    Done,
    Failed,
    /// Stopped early: cancelled, sample complete, or another segment failed.
    Stopped,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SegmentProgress {
    pub pages: u64,
    pub items: u64,
    pub state: SegmentState,
}

/// Progress of a scan so far.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanProgress {
    /// Items read into the key set.
    pub items: u64,
    /// Items evaluated by DynamoDB.
    pub scanned: u64,
    pub pages: u64,
    /// Read units consumed, as DynamoDB reported them.
    pub rcu: f64,
    /// Requests retried after throttling or transient server errors.
    pub retries: u64,
    /// Items without readable key attributes (not added).
    pub skipped: u64,
    pub elapsed: Duration,
    pub segments: Vec<SegmentProgress>,
}

impl ScanProgress {
    pub fn items_per_sec(&self) -> f64 {
        per_sec(self.items as f64, self.elapsed)
    }

    pub fn rcu_per_sec(&self) -> f64 {
        per_sec(self.rcu, self.elapsed)
    }

    /// One line for a status bar or a terminal.
    pub fn summary(&self) -> String {
        let done = self
            .segments
            .iter()
            .filter(|s| s.state == SegmentState::Done)
            .count();
        let waiting = self
            .segments
            .iter()
            .filter(|s| matches!(s.state, SegmentState::BackingOff { .. }))
            .count();
        let mut line = format!(
            "{} items, {} pages, {:.1} RCU ({:.0} items/s, {:.1} RCU/s), segments {done}/{} done",
            self.items,
            self.pages,
            self.rcu,
            self.items_per_sec(),
            self.rcu_per_sec(),
            self.segments.len()
        );
        if waiting > 0 {
            line.push_str(&format!(", {waiting} backing off"));
        }
        if self.retries > 0 {
            line.push_str(&format!(", {} retries", self.retries));
        }
        line
    }
}

fn per_sec(amount: f64, elapsed: Duration) -> f64 {
    let s = elapsed.as_secs_f64();
    if s > 0.0 { amount / s } else { 0.0 }
}

/// How a scan ended. Whatever was read is kept in every case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanStatus {
    /// Every segment read to its end.
    Complete,
    /// Stopped at the item limit: a sample, not the whole table.
    Sample { limit: u64 },
    /// Stopped by the user: partial.
    Cancelled,
    /// Stopped by an error: partial.
    Failed(DynamoError),
}

impl ScanStatus {
    /// Whether the key set holds the whole table.
    pub fn is_complete(&self) -> bool {
        matches!(self, Self::Complete)
    }

    /// A short label: "complete", "sample of the first 1000 items", "partial: cancelled", …
    pub fn describe(&self) -> String {
        match self {
            Self::Complete => "complete".to_owned(),
            Self::Sample { limit } => format!("sample of the first {limit} items"),
            Self::Cancelled => "partial: cancelled".to_owned(),
            Self::Failed(e) => format!("partial: stopped by an error: {e}"),
        }
    }
}

/// A finished scan.
#[derive(Debug, Clone)]
pub struct Scanned {
    pub keys: KeySet,
    pub progress: ScanProgress,
    pub status: ScanStatus,
    /// The keys of each candidate and GSI of [`ScanOptions::design`], in its order (a GSI's `absent`: the
    /// items without its key attributes).
    pub designs: Vec<DesignKeys>,
    /// What the design's `shard_by` splits, when it has one.
    pub shard_by: Option<ShardBy>,
    /// Items the design could not key at all (a GSI's key of a bad type), left out of every design.
    pub design_skipped: u64,
    /// The first of them.
    pub design_error: Option<DesignError>,
    /// Per candidate that could not key some items (a missing attribute, a bad date): how many, and the first
    /// reason. Those items are left out of that candidate alone (its `absent`).
    pub not_keyed: Vec<(u64, DesignError)>,
    /// The table's partition and sort key attribute names (from DescribeTable), when the scan knows them.
    pub key_attribute: Option<String>,
    pub sort_key_attribute: Option<String>,
    /// The TTL attribute's values, when the scan read one.
    pub ttl: Option<TtlStats>,
    /// The table has a local secondary index (from DescribeTable): its item collections hold at most 10 GB.
    pub has_lsi: bool,
}

/// What a scan reports while it runs.
#[derive(Debug)]
pub enum ScanEvent {
    /// A page arrived: its keys (merge them into a live view with [`KeySet::merge`]) and the progress.
    /// The final [`Scanned::keys`] is the authority: merging pages cannot tell whether a sort key kept
    /// increasing across pages.
    Page {
        keys: Box<KeySet>,
        /// This page's keys of each design (empty without one); merge them by position.
        designs: Vec<DesignKeys>,
        progress: ScanProgress,
    },
    /// A segment is backing off after throttling; progress shows which.
    Throttled { progress: ScanProgress },
    /// The end (only from [`super::DynamoClient::scan_to_channel`]): `Err` when nothing could be read at all
    /// (no such table, no connection), otherwise the result with its status.
    Done(Result<Box<Scanned>, DynamoError>),
}

/// Runs a parallel scan over `source`, calling `on_event` with a [`ScanEvent::Page`] for every page (on the
/// caller's task), and returns what was read. Key types come from the table's description.
pub async fn run_scan<P: PageSource>(
    source: Arc<P>,
    opts: &ScanOptions,
    key_type: KeyType,
    sort_key_type: Option<KeyType>,
    cancel: &AtomicBool,
    on_event: &mut dyn FnMut(ScanEvent),
) -> Scanned {
    let started = Instant::now();
    let segments = opts.segments.clamp(1, MAX_SEGMENTS);
    let limiter = opts.max_rcu.map(|r| Arc::new(RcuLimiter::new(r)));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::channel::<SegmentMsg>(segments as usize * 2);
    let mut tasks = JoinSet::new();
    for segment in 0..segments {
        let task = SegmentTask {
            segment,
            total: segments,
            page_size: opts.page_size.or(opts
                .limit
                .map(|l| u32::try_from(l.div_ceil(u64::from(segments))).unwrap_or(u32::MAX))),
            limiter: limiter.clone(),
            backoff: opts.backoff,
            stop: stop.clone(),
            tx: tx.clone(),
        };
        tasks.spawn(task.run(source.clone()));
    }
    drop(tx);

    // A scan returns each item collection in sort-key order, which says nothing of the order of writes.
    let mut read_order = KeySet::new(key_type);
    read_order.set_read_order();
    let mut collect = Collect {
        keys: read_order,
        progress: ScanProgress {
            segments: vec![SegmentProgress::default(); segments as usize],
            ..ScanProgress::default()
        },
        key_type,
        sort_key_type,
        limit: opts.limit,
        design: (!opts.design.is_empty())
            .then(|| Designs::new(&opts.design, opts.strict_candidates)),
        ttl: None,
        on_event,
    };
    let status = collect.receive(&mut rx, cancel, started).await;
    let Collect {
        keys,
        mut progress,
        design,
        ttl,
        ..
    } = collect;
    stop.store(true, Ordering::Relaxed);
    tasks.abort_all();
    while tasks.join_next().await.is_some() {}
    for s in &mut progress.segments {
        if matches!(
            s.state,
            SegmentState::Running | SegmentState::BackingOff { .. }
        ) {
            s.state = SegmentState::Stopped;
        }
    }
    progress.elapsed = started.elapsed();
    let d = design.map(Designs::finish).unwrap_or_default();
    Scanned {
        keys,
        progress,
        status,
        designs: d.designs,
        shard_by: d.shard_by,
        design_skipped: d.skipped,
        design_error: d.first_error,
        not_keyed: d.not_keyed,
        key_attribute: None,
        sort_key_attribute: None,
        ttl,
        has_lsi: false,
    }
}

/// What the scan has gathered so far, and where its events go.
struct Collect<'e> {
    keys: KeySet,
    progress: ScanProgress,
    key_type: KeyType,
    sort_key_type: Option<KeyType>,
    limit: Option<u64>,
    design: Option<Designs>,
    ttl: Option<TtlStats>,
    on_event: &'e mut dyn FnMut(ScanEvent),
}

impl Collect<'_> {
    /// Takes the segments' messages until the scan ends (every segment done, a limit, a failure) or `cancel`
    /// is set, which is looked at every 50 ms; returns how it ended.
    async fn receive(
        &mut self,
        rx: &mut mpsc::Receiver<SegmentMsg>,
        cancel: &AtomicBool,
        started: Instant,
    ) -> ScanStatus {
        let tick = Duration::from_millis(50);
        loop {
            let msg = tokio::select! {
                msg = rx.recv() => msg,
                () = tokio::time::sleep(tick) => {
                    if cancel.load(Ordering::Relaxed) {
                        return ScanStatus::Cancelled;
                    }
                    continue;
                }
            };
            let Some(msg) = msg else {
                return ScanStatus::Complete;
            };
            if cancel.load(Ordering::Relaxed) {
                return ScanStatus::Cancelled;
            }
            self.progress.elapsed = started.elapsed();
            if let Some(end) = self.take(msg) {
                return end;
            }
        }
    }

    /// Takes one message from a segment; `Some(status)` ends the scan with that status.
    fn take(&mut self, msg: SegmentMsg) -> Option<ScanStatus> {
        let progress = &mut self.progress;
        match msg {
            SegmentMsg::Page {
                segment,
                page_keys,
                values,
                facts,
                scanned,
                skipped,
                rcu,
                last,
            } => {
                let sample_done = self.page(
                    segment,
                    (page_keys, values, facts),
                    [scanned, skipped],
                    rcu,
                    last,
                );
                if sample_done && let Some(limit) = self.limit {
                    // Reaching the limit exactly on the table's last page is still the whole table.
                    let all_done = self
                        .progress
                        .segments
                        .iter()
                        .all(|s| s.state == SegmentState::Done);
                    return Some(if all_done {
                        ScanStatus::Complete
                    } else {
                        ScanStatus::Sample { limit }
                    });
                }
            }
            SegmentMsg::Retry { segment, attempt } => {
                progress.retries += 1;
                if let Some(s) = progress.segments.get_mut(segment as usize) {
                    s.state = SegmentState::BackingOff { attempt };
                }
                (self.on_event)(ScanEvent::Throttled {
                    progress: progress.clone(),
                });
            }
            SegmentMsg::Resumed { segment } => {
                if let Some(s) = progress.segments.get_mut(segment as usize) {
                    s.state = SegmentState::Running;
                }
            }
            SegmentMsg::Failed { segment, error } => {
                if let Some(s) = progress.segments.get_mut(segment as usize) {
                    s.state = SegmentState::Failed;
                }
                return Some(ScanStatus::Failed(error));
            }
        }
        None
    }

    /// Adds a page's keys (cut at the sample limit) and counts, and sends them as an event; returns whether
    /// the sample limit was reached.
    fn page(
        &mut self,
        segment: u32,
        (mut page_keys, mut values, (facts, ttl_attr)): (PageKeys, Vec<Option<Value>>, PageFacts),
        [scanned, skipped]: [u64; 2],
        rcu: f64,
        last: bool,
    ) -> bool {
        let mut sample_done = false;
        if let Some(limit) = self.limit {
            let room = limit.saturating_sub(self.progress.items);
            if page_keys.len() as u64 >= room {
                let room = usize::try_from(room).unwrap_or(usize::MAX);
                page_keys.truncate(room);
                let width = self.design.as_ref().map_or(0, |d| d.width);
                values.truncate(room.saturating_mul(width));
                sample_done = true;
            }
        }
        let mut delta = KeySet::new(self.key_type);
        let mut page_design = self.design.as_ref().map(Designs::for_page);
        for (i, (pk, raw_sk)) in page_keys.iter().enumerate() {
            let sk = match (raw_sk, self.sort_key_type) {
                (Some(sk), Some(t)) => Some((sk.as_slice(), t)),
                _ => None,
            };
            let key = self.keys.add_item(pk, sk, 1);
            let page_key = delta.add_item(pk, sk, 1);
            let fact = facts.get(i);
            if let Some(size) = fact.and_then(|f| f.size) {
                self.keys.note_item_bytes(key, size, 1);
                delta.note_item_bytes(page_key, size, 1);
            }
            if let (Some(f), Some(name)) = (fact, &ttl_attr) {
                let keys = &self.keys;
                self.ttl
                    .get_or_insert_with(|| TtlStats::new(name, false))
                    .note(f.ttl, || keys.display(key).into_owned());
            }
            if let (Some(design), Some(page)) = (&mut self.design, &mut page_design) {
                let sized = fact.and_then(|f| f.size.map(|s| (s, f.key_bytes)));
                design.designer.sized(sized);
                let item = ItemKeys {
                    pk,
                    raw_sk: raw_sk.as_deref(),
                    sk,
                    key,
                    page_key,
                };
                design.add(page, &values, i, item);
            }
        }
        let designs = page_design.map(|d| d.finish().0).unwrap_or_default();
        let progress = &mut self.progress;
        let n = page_keys.len() as u64;
        progress.items += n;
        progress.scanned += scanned;
        progress.skipped += skipped;
        progress.pages += 1;
        progress.rcu += rcu;
        if let Some(s) = progress.segments.get_mut(segment as usize) {
            s.pages += 1;
            s.items += n;
            s.state = if last {
                SegmentState::Done
            } else {
                SegmentState::Running
            };
        }
        (self.on_event)(ScanEvent::Page {
            keys: Box::new(delta),
            designs,
            progress: progress.clone(),
        });
        sample_done
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::sync::atomic::AtomicU64;

    use super::super::pace::Jitter;
    use super::*;

    /// A table in memory, split into segments by key index; throttles the first `throttle` requests of
    /// every segment, and can fail a segment at a given page.
    struct Fake {
        items: Vec<(String, Option<String>)>,
        page: usize,
        throttle: u64,
        fail_at: Option<(u32, usize)>,
        rcu_per_item: f64,
        /// Each item's `status`, as a design reading `["status"]` gets it: see [`status_of`].
        with_status: bool,
        requests: Mutex<HashMap<u32, u64>>,
        calls: AtomicU64,
    }

    /// Item `i`'s status: OPEN for 8 in 10, CLOSED for 1, none for the last.
    fn status_of(i: usize) -> Option<Value> {
        match i % 10 {
            9 => None,
            8 => Some(Value::S("CLOSED".into())),
            _ => Some(Value::S("OPEN".into())),
        }
    }

    impl Fake {
        fn new(n: usize) -> Self {
            Self {
                items: (0..n)
                    .map(|i| (format!("k{}", i % 97), Some(format!("{i:06}"))))
                    .collect(),
                page: 7,
                throttle: 0,
                fail_at: None,
                rcu_per_item: 0.5,
                with_status: false,
                requests: Mutex::new(HashMap::new()),
                calls: AtomicU64::new(0),
            }
        }
    }

    impl PageSource for Fake {
        type Cursor = usize;
        fn page(
            &self,
            req: PageRequest<usize>,
        ) -> impl Future<Output = Result<Page<usize>, DynamoError>> + Send {
            self.calls.fetch_add(1, Ordering::Relaxed);
            let nth = {
                let mut r = self.requests.lock().unwrap();
                let e = r.entry(req.segment).or_default();
                *e += 1;
                *e
            };
            let result = if nth <= self.throttle {
                Err(DynamoError::Service {
                    operation: "Scan",
                    code: "ProvisionedThroughputExceededException".into(),
                    message: "slow down".into(),
                })
            } else {
                let mine: Vec<_> = self
                    .items
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i as u32 % req.total_segments == req.segment)
                    .collect();
                let start = req.start.unwrap_or(0);
                let size = req.limit.map_or(self.page, |l| l as usize).min(self.page);
                let end = (start + size).min(mine.len());
                if self.fail_at == Some((req.segment, start / self.page.max(1))) && start > 0 {
                    Err(DynamoError::Connect {
                        operation: "Scan",
                        reason: "Connection refused".into(),
                        endpoint: None,
                    })
                } else {
                    Ok(Page {
                        keys: mine[start..end]
                            .iter()
                            .map(|(_, (pk, sk))| {
                                (
                                    pk.as_bytes().to_vec(),
                                    sk.as_ref().map(|s| s.as_bytes().to_vec()),
                                )
                            })
                            .collect(),
                        values: mine[start..end]
                            .iter()
                            .filter(|_| self.with_status)
                            .map(|(i, _)| status_of(*i))
                            .collect(),
                        scanned: (end - start) as u64,
                        skipped: 0,
                        consumed_rcu: (end - start) as f64 * self.rcu_per_item,
                        next: (end < mine.len()).then_some(end),
                        facts: Vec::new(),
                        ttl_attr: None,
                    })
                }
            };
            async move { result }
        }
    }

    fn fast() -> ScanOptions {
        ScanOptions {
            max_rcu: None,
            backoff: Backoff {
                base: Duration::from_millis(1),
                max: Duration::from_millis(5),
            },
            ..ScanOptions::new("t")
        }
    }

    async fn scan(fake: Fake, opts: &ScanOptions) -> (Scanned, usize, Arc<Fake>) {
        let fake = Arc::new(fake);
        let cancel = AtomicBool::new(false);
        let mut events = 0;
        let s = run_scan(
            fake.clone(),
            opts,
            KeyType::S,
            opts.with_sort_key.then_some(KeyType::S),
            &cancel,
            &mut |e| {
                if matches!(e, ScanEvent::Page { .. }) {
                    events += 1;
                }
            },
        )
        .await;
        (s, events, fake)
    }

    #[tokio::test]
    async fn every_item_once_over_segments_and_pages() {
        for segments in [1, 4, 13] {
            let opts = ScanOptions { segments, ..fast() };
            let (s, events, _) = scan(Fake::new(1000), &opts).await;
            assert_eq!(s.status, ScanStatus::Complete);
            assert_eq!(s.keys.total(), 1000);
            assert_eq!(s.keys.len(), 97);
            assert_eq!(s.progress.items, 1000);
            assert_eq!(events as u64, s.progress.pages);
            assert!(
                s.progress
                    .segments
                    .iter()
                    .all(|p| p.state == SegmentState::Done)
            );
        }
    }

    #[tokio::test]
    async fn throttling_backs_off_and_completes() {
        let fake = Fake {
            throttle: 3,
            ..Fake::new(500)
        };
        let (s, _, fake) = scan(fake, &fast()).await;
        assert_eq!(s.status, ScanStatus::Complete, "{}", s.status.describe());
        assert_eq!(s.keys.total(), 500);
        assert_eq!(s.progress.retries, 3 * 4);
        assert!(fake.calls.load(Ordering::Relaxed) > 12);
    }

    #[tokio::test]
    async fn an_error_keeps_what_was_read() {
        let fake = Fake {
            fail_at: Some((2, 3)),
            ..Fake::new(2000)
        };
        let (s, _, _) = scan(fake, &fast()).await;
        assert!(matches!(s.status, ScanStatus::Failed(_)), "{:?}", s.status);
        assert!(s.status.describe().contains("Connection refused"));
        assert!(s.keys.total() > 0 && s.keys.total() < 2000);
        assert_eq!(s.keys.total(), s.progress.items);
        assert_eq!(s.progress.segments[2].state, SegmentState::Failed);
    }

    #[tokio::test]
    async fn sample_stops_at_the_limit() {
        let opts = ScanOptions {
            limit: Some(123),
            ..fast()
        };
        let (s, _, _) = scan(Fake::new(1000), &opts).await;
        assert_eq!(s.status, ScanStatus::Sample { limit: 123 });
        assert_eq!(s.keys.total(), 123);
        // A limit above the table's size reads it all and says so.
        let opts = ScanOptions {
            limit: Some(5000),
            ..fast()
        };
        let (s, _, _) = scan(Fake::new(1000), &opts).await;
        assert_eq!(s.status, ScanStatus::Complete);
        assert_eq!(s.keys.total(), 1000);
    }

    #[tokio::test]
    async fn sort_keys_give_item_counts() {
        let opts = ScanOptions {
            with_sort_key: true,
            ..fast()
        };
        let (s, _, _) = scan(Fake::new(970), &opts).await;
        let k0 = s.keys.find(b"k0").unwrap();
        assert_eq!(s.keys.sort_key_facts(k0).unwrap().items, 10);
    }

    #[tokio::test]
    async fn cancel_keeps_partial() {
        let fake = Arc::new(Fake {
            rcu_per_item: 1.0,
            ..Fake::new(100_000)
        });
        let cancel = AtomicBool::new(false);
        let opts = ScanOptions {
            max_rcu: Some(2000.0),
            ..fast()
        };
        let s = run_scan(fake, &opts, KeyType::S, None, &cancel, &mut |e| {
            if let ScanEvent::Page { progress, .. } = e
                && progress.items > 100
            {
                cancel.store(true, Ordering::Relaxed);
            }
        })
        .await;
        assert_eq!(s.status, ScanStatus::Cancelled);
        assert!(s.keys.total() > 100 && s.keys.total() < 100_000);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn limiter_holds_the_rate() {
        let fake = Arc::new(Fake {
            rcu_per_item: 0.25,
            page: 1000,
            ..Fake::new(6_000)
        });
        let cancel = AtomicBool::new(false);
        let opts = ScanOptions {
            max_rcu: Some(1000.0),
            segments: 8,
            ..fast()
        };
        let s = run_scan(fake, &opts, KeyType::S, None, &cancel, &mut |_| {}).await;
        assert_eq!(s.status, ScanStatus::Complete);
        // 6,000 items × 0.25 units = 1,500 units at 1,000/s: about 1.5 s, the bucket starting empty.
        let rate = s.progress.rcu_per_sec();
        assert!(
            (900.0..=1100.0).contains(&rate),
            "{rate} RCU/s over {:?}",
            s.progress.elapsed
        );
    }

    fn by_status() -> Design {
        Design {
            gsis: vec![crate::model::design::GsiSpec {
                name: "byStatus".into(),
                key: crate::model::keyexpr::KeyTuple::one(
                    crate::model::keyexpr::Expr::attribute("status").unwrap(),
                ),
                sort_key: Vec::new(),
                projection: crate::model::design::Projection::All,
            }],
            ..Design::default()
        }
    }

    #[tokio::test]
    async fn a_gsi_is_keyed_from_each_items_values() {
        let fake = Fake {
            with_status: true,
            ..Fake::new(1000)
        };
        let opts = ScanOptions {
            design: by_status(),
            ..fast()
        };
        let fake = Arc::new(fake);
        let cancel = AtomicBool::new(false);
        let mut live: Option<(KeySet, u64)> = None;
        let s = run_scan(fake, &opts, KeyType::S, None, &cancel, &mut |e| {
            if let ScanEvent::Page { designs, .. } = e {
                assert_eq!(designs.len(), 1);
                let (keys, absent) = live.get_or_insert_with(|| (KeySet::new(KeyType::S), 0));
                keys.merge(&designs[0].keys);
                *absent += designs[0].absent;
            }
        })
        .await;
        assert_eq!(s.status, ScanStatus::Complete);
        assert_eq!(s.keys.total(), 1000, "the table's own keys are unchanged");
        assert_eq!(s.keys.len(), 97);
        assert!(
            !s.keys.has_sort_keys(),
            "sort keys read for the design only seed its draws"
        );
        assert_eq!(s.designs.len(), 1);
        let gsi = &s.designs[0];
        assert_eq!(
            gsi.kind,
            crate::model::design::DesignKind::Gsi("byStatus".into())
        );
        assert_eq!(gsi.keys.len(), 2);
        assert_eq!(gsi.keys.count(gsi.keys.find(b"OPEN").unwrap()), 800);
        assert_eq!(gsi.keys.count(gsi.keys.find(b"CLOSED").unwrap()), 100);
        assert_eq!(gsi.absent, 100);
        assert_eq!(s.design_skipped, 0);
        let (live, absent) = live.unwrap();
        assert_eq!(
            (live.total(), absent),
            (900, 100),
            "pages add up to the result"
        );

        // A sample keys only the items it kept.
        let opts = ScanOptions {
            limit: Some(95),
            ..opts
        };
        let (s, _, _) = scan(
            Fake {
                with_status: true,
                ..Fake::new(1000)
            },
            &opts,
        )
        .await;
        assert_eq!(s.designs[0].keys.total() + s.designs[0].absent, 95);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let b = Backoff::default();
        assert_eq!(b.ceiling(1), Duration::from_millis(100));
        assert_eq!(b.ceiling(3), Duration::from_millis(400));
        assert_eq!(b.ceiling(40), Duration::from_secs(20));
        assert!(b.delay(3, 0.5) <= Duration::from_millis(200));
        assert!(b.delay(3, 0.0) >= Duration::from_millis(1));
        let mut j = Jitter::new(1);
        for _ in 0..1000 {
            let x = j.next();
            assert!((0.0..1.0).contains(&x));
        }
    }

    #[test]
    fn options_are_checked() {
        assert!(ScanOptions::new("t").check().is_ok());
        for bad in [
            ScanOptions {
                segments: 0,
                ..ScanOptions::new("t")
            },
            ScanOptions {
                segments: 65,
                ..ScanOptions::new("t")
            },
            ScanOptions {
                max_rcu: Some(0.0),
                ..ScanOptions::new("t")
            },
            ScanOptions {
                limit: Some(0),
                ..ScanOptions::new("t")
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }
}
