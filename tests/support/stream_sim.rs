//! A simulated DynamoDB Streams service behind the reader's `StreamApi` seam, on tokio's clock: run on a
//! paused current-thread runtime ([`soak`]), a simulated day passes in seconds, since the clock jumps to the
//! next timer whenever every task waits (the reader's polls, backoffs and pacing all sleep on tokio's clock).
//!
//! The script ([`Script`]): the stream already holds `history_hours` of records when the watch starts (from
//! the trim horizon) and is written to for `hours` more at `rate` records a second, over `keys` distinct keys;
//! then it is disabled (every shard closes, no child). Every hour every open shard closes (as DynamoDB's shards
//! roll over) and has one child, and one of them (in turn) splits into two, up to `max_shards` open shards; one
//! hour's children in `late_every` are listed by DescribeStream only `late` after their parents closed.
//! GetRecords answers `ExpiredIteratorException` for an iterator older than 15 minutes and for every
//! `expire_every`-th call, `LimitExceededException` and `ProvisionedThroughputExceededException` during the
//! throttling bursts, and `TrimmedDataAccessException` for an iterator below the trim horizon: records older
//! than 24 hours are trimmed, once a minute.
//!
//! "Every record once": every record is delivered exactly once, in its shard's order and after its parent's,
//! except the records that were trimmed before the reader reached them. Those the service notes as the gap it
//! skips when it serves a page past them ([`Shard::gaps`]); a page served past a record still retained is a
//! violation. [`Check`] follows the delivered records shard by shard and [`Check::finish`] asks that every
//! shard was read to its end.
#![allow(dead_code)] // each test and the bench use their part

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use shardlens::model::KeyType;
use shardlens::source::OnBad;
use shardlens::source::dynamo::{
    Billing, DynamoError, IteratorAt, KeyAttribute, RecordsPage, ShardInfo, StreamApi, StreamEvent,
    StreamOptions, StreamRead, StreamRecord, StreamStart, TableInfo, run_stream,
};
use shardlens::source::trace::StreamFeed;
use tokio::time::Instant;

const SEC_US: u64 = 1_000_000;
pub const HOUR_US: u64 = 3_600 * SEC_US;
/// The Unix second the stream's history starts at.
pub const EPOCH: u64 = 1_782_172_800;
/// Sequence numbers: this plus the record's number over the whole stream (21 digits, as DynamoDB's are long).
const SEQ_BASE: u128 = 100_000_000_000_000_000_000;

/// What the simulated stream does.
#[derive(Debug, Clone)]
pub struct Script {
    /// Hours of records the stream holds when the watch starts.
    pub history_hours: u64,
    /// Hours written while watched; then the stream is disabled.
    pub hours: u64,
    /// Open shards at the start of the history, and at most.
    pub shards: usize,
    pub max_shards: usize,
    /// Records a second over all shards.
    pub rate: f64,
    /// Distinct keys: the records' keys go round all of them.
    pub keys: u64,
    /// Records per GetRecords answer at most.
    pub page: u64,
    pub retention: Duration,
    /// Records are trimmed in steps this long.
    pub trim_every: Duration,
    pub iterator_life: Duration,
    /// Every this-th GetRecords call answers ExpiredIteratorException (0: none).
    pub expire_every: u64,
    /// A throttling burst of `burst` starts at the watch's start and every `burst_every` after.
    pub burst_every: Duration,
    pub burst: Duration,
    /// One hour's children in this many are listed only `late` after their parents closed (0: none).
    pub late_every: u64,
    pub late: Duration,
}

impl Script {
    /// A day watched after a day of history, at `rate` records a second over `keys` keys.
    pub fn day(rate: f64, keys: u64) -> Self {
        Self {
            history_hours: 24,
            hours: 24,
            shards: 2,
            max_shards: 12,
            rate,
            keys,
            page: 1_000,
            retention: Duration::from_secs(24 * 3_600),
            trim_every: Duration::from_secs(60),
            iterator_life: Duration::from_secs(15 * 60),
            expire_every: 97,
            burst_every: Duration::from_secs(3 * 3_600),
            burst: Duration::from_secs(150),
            late_every: 5,
            late: Duration::from_secs(90),
        }
    }
}

/// One shard of the simulated stream: record `k` is written at `start + k × period`, `k < cap`.
#[derive(Debug, Clone)]
pub struct Shard {
    pub id: String,
    pub parent: Option<usize>,
    pub start: u64,
    pub end: u64,
    pub period: u64,
    pub cap: u64,
    /// The stream-wide number of its first record.
    pub base: u64,
    /// When DescribeStream first lists it.
    pub listed_at: u64,
    /// DescribeStream listed it at least once.
    pub listed: bool,
    /// The end of the highest page served.
    pub served_to: u64,
    /// Records skipped because they were trimmed before they were read: `[from, to)`.
    pub gaps: Vec<(u64, u64)>,
}

impl Shard {
    /// Records written before `t`.
    fn before(&self, t: u64) -> u64 {
        if t <= self.start {
            0
        } else {
            (t - self.start).div_ceil(self.period).min(self.cap)
        }
    }

    fn closed(&self, now: u64) -> bool {
        now >= self.end
    }

    /// Where a gap that starts at `from` ends, if one does.
    pub fn gap_from(&self, from: u64) -> Option<u64> {
        self.gaps.iter().find(|g| g.0 == from).map(|g| g.1)
    }
}

/// What the service counted.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    pub describes: u64,
    pub iterators: u64,
    pub calls: u64,
    pub expired_by_age: u64,
    pub expired_scripted: u64,
    pub throttled: u64,
    pub trimmed: u64,
    /// Pages served past a record that was not trimmed yet (must stay empty).
    pub violations: Vec<String>,
}

struct State {
    shards: Vec<Shard>,
    by_id: HashMap<String, usize>,
    counts: Counts,
}

/// The simulated service. Make it on the runtime that reads it: its clock is that runtime's.
pub struct Sim {
    pub script: Script,
    t0: Instant,
    state: Mutex<State>,
}

fn error(operation: &'static str, code: &str) -> DynamoError {
    DynamoError::Service {
        operation,
        code: code.to_owned(),
        message: "simulated".to_owned(),
    }
}

impl Sim {
    pub fn new(script: Script) -> Self {
        let mut shards: Vec<Shard> = Vec::new();
        let mut open: Vec<Option<usize>> = vec![None; script.shards.max(1)];
        let mut base = 0;
        let total = script.history_hours + script.hours;
        for h in 0..total {
            let n = open.len() as u64;
            let period = ((n as f64 * SEC_US as f64 / script.rate.max(1e-6)).round() as u64).max(1);
            let (start, end) = (h * HOUR_US, (h + 1) * HOUR_US);
            let late = script.late_every > 0 && h > 0 && h % script.late_every == 0;
            let listed_at = start
                + if late {
                    script.late.as_micros() as u64
                } else {
                    0
                };
            let first = shards.len();
            for (i, parent) in open.iter().enumerate() {
                let cap = (end - start).div_ceil(period);
                shards.push(Shard {
                    id: format!("shardId-{h:03}-{i:03}"),
                    parent: *parent,
                    start,
                    end,
                    period,
                    cap,
                    base,
                    listed_at,
                    listed: false,
                    served_to: 0,
                    gaps: Vec::new(),
                });
                base += cap;
            }
            let split = (h as usize) % open.len();
            let grow = open.len() < script.max_shards;
            let mut next = Vec::new();
            for (i, idx) in (first..shards.len()).enumerate() {
                next.push(Some(idx));
                if grow && i == split {
                    next.push(Some(idx));
                }
            }
            open = next;
        }
        let by_id = shards
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.clone(), i))
            .collect();
        Self {
            script,
            t0: Instant::now(),
            state: Mutex::new(State {
                shards,
                by_id,
                counts: Counts::default(),
            }),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Simulated microseconds since the history's start.
    pub fn now(&self) -> u64 {
        self.script.history_hours * HOUR_US
            + Instant::now().duration_since(self.t0).as_micros() as u64
    }

    /// When the stream is disabled.
    pub fn end(&self) -> u64 {
        (self.script.history_hours + self.script.hours) * HOUR_US
    }

    /// Records written before this trim step are gone.
    fn horizon(&self, now: u64) -> u64 {
        let step = (self.script.trim_every.as_micros() as u64).max(1);
        (now / step * step).saturating_sub(self.script.retention.as_micros() as u64)
    }

    fn bursting(&self, now: u64) -> bool {
        let watched = now.saturating_sub(self.script.history_hours * HOUR_US);
        let every = (self.script.burst_every.as_micros() as u64).max(1);
        watched % every < self.script.burst.as_micros() as u64
    }

    pub fn shards(&self) -> Vec<Shard> {
        self.with(|s| s.shards.clone())
    }

    pub fn counts(&self) -> Counts {
        self.with(|s| s.counts.clone())
    }

    /// The number and key of the record `k` of shard `idx`.
    fn record(&self, shard: &Shard, idx: usize, k: u64) -> StreamRecord {
        let g = shard.base + k;
        let written = shard.start + k * shard.period;
        let sequence = (SEQ_BASE + u128::from(g)).to_string();
        let json = json!({
            "eventID": format!("{idx}.{k}"),
            "eventName": "INSERT",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": {
                "ApproximateCreationDateTime": EPOCH + written / SEC_US,
                "Keys": { "pk": { "S": key_name(self.key_of(g)) } },
                "SequenceNumber": sequence,
                "SizeBytes": 40,
                "StreamViewType": "KEYS_ONLY"
            }
        });
        StreamRecord { sequence, json }
    }

    /// Record `g`'s key: the records go round the keys in a scattered order, each key once a round.
    pub fn key_of(&self, g: u64) -> u64 {
        let keys = self.script.keys.max(1);
        let stride = if gcd(STRIDE, keys) == 1 { STRIDE } else { 1 };
        ((u128::from(g) * u128::from(stride)) % u128::from(keys)) as u64
    }

    /// Records written in all, and each key's writes, not counting the records trimmed before they were
    /// read (the gaps, and the shards trimmed before any DescribeStream listed them).
    pub fn expected(&self) -> (u64, u64, Vec<u32>) {
        let shards = self.shards();
        let mut counts = vec![0u32; self.script.keys.max(1) as usize];
        let (mut written, mut unread) = (0, 0);
        for s in &shards {
            written += s.cap;
            if !s.listed {
                unread += s.cap;
                continue;
            }
            let mut k = 0;
            while k < s.cap {
                if let Some(to) = s.gap_from(k) {
                    unread += to - k;
                    k = to;
                    continue;
                }
                counts[self.key_of(s.base + k) as usize] += 1;
                k += 1;
            }
        }
        (written, unread, counts)
    }
}

const STRIDE: u64 = 1_000_003;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

pub fn key_name(k: u64) -> String {
    format!("user-{k:07}")
}

fn parse_iterator(it: &str) -> Option<(usize, u64, u64)> {
    let mut parts = it.split('/');
    let idx = parts.next()?.parse().ok()?;
    let pos = parts.next()?.parse().ok()?;
    let issued = parts.next()?.parse().ok()?;
    Some((idx, pos, issued))
}

impl StreamApi for Sim {
    async fn shards(&self) -> Result<Vec<ShardInfo>, DynamoError> {
        let now = self.now();
        let horizon = self.horizon(now);
        Ok(self.with(|st| {
            st.counts.describes += 1;
            let mut out = Vec::new();
            for s in &mut st.shards {
                // Listed once it exists, until every record it held is trimmed.
                if now < s.listed_at || (s.closed(now) && s.end <= horizon) {
                    continue;
                }
                s.listed = true;
                out.push((s.id.clone(), s.parent, s.closed(now)));
            }
            out.into_iter()
                .map(|(id, parent, closed)| ShardInfo {
                    id,
                    parent: parent.map(|p| st.shards[p].id.clone()),
                    closed,
                })
                .collect()
        }))
    }

    async fn enabled(&self) -> Result<bool, DynamoError> {
        Ok(self.now() < self.end())
    }

    async fn iterator(&self, shard: &str, at: &IteratorAt) -> Result<String, DynamoError> {
        let now = self.now();
        let horizon = self.horizon(now);
        self.with(|st| {
            st.counts.iterators += 1;
            let Some(&idx) = st.by_id.get(shard) else {
                return Err(error("GetShardIterator", "ResourceNotFoundException"));
            };
            let s = &st.shards[idx];
            let trimmed = s.before(horizon);
            let pos = match at {
                IteratorAt::TrimHorizon => trimmed,
                IteratorAt::Latest => s.before(now + 1),
                IteratorAt::After(seq) => {
                    let g = seq
                        .parse::<u128>()
                        .ok()
                        .and_then(|q| q.checked_sub(SEQ_BASE))
                        .and_then(|g| u64::try_from(g).ok())
                        .filter(|g| (s.base..s.base + s.cap).contains(g))
                        .ok_or_else(|| error("GetShardIterator", "ValidationException"))?;
                    let k = g - s.base;
                    if k < trimmed {
                        st.counts.trimmed += 1;
                        return Err(error("GetShardIterator", "TrimmedDataAccessException"));
                    }
                    k + 1
                }
            };
            Ok(format!("{idx}/{pos}/{now}"))
        })
    }

    async fn records(&self, iterator: &str) -> Result<RecordsPage, DynamoError> {
        let now = self.now();
        let horizon = self.horizon(now);
        let bursting = self.bursting(now);
        let (expire_every, life, page) = (
            self.script.expire_every,
            self.script.iterator_life.as_micros() as u64,
            self.script.page.max(1),
        );
        let (idx, shard, pos, end) = self.with(|st| {
            st.counts.calls += 1;
            let Some((idx, pos, issued)) = parse_iterator(iterator) else {
                return Err(error("GetRecords", "ValidationException"));
            };
            let c = &mut st.counts;
            if now.saturating_sub(issued) > life {
                c.expired_by_age += 1;
                return Err(error("GetRecords", "ExpiredIteratorException"));
            }
            if expire_every > 0 && c.calls % expire_every == 0 {
                c.expired_scripted += 1;
                return Err(error("GetRecords", "ExpiredIteratorException"));
            }
            if bursting {
                c.throttled += 1;
                let code = if c.throttled % 2 == 0 {
                    "LimitExceededException"
                } else {
                    "ProvisionedThroughputExceededException"
                };
                return Err(error("GetRecords", code));
            }
            let Some(s) = st.shards.get_mut(idx) else {
                return Err(error("GetRecords", "ResourceNotFoundException"));
            };
            let trimmed = s.before(horizon);
            if pos < trimmed {
                st.counts.trimmed += 1;
                return Err(error("GetRecords", "TrimmedDataAccessException"));
            }
            let end = (pos + page).min(s.before(now + 1));
            if pos > s.served_to {
                if pos > trimmed {
                    let what = format!(
                        "{}: served from {pos} past {}..{pos}, which were not trimmed (horizon {trimmed})",
                        s.id, s.served_to
                    );
                    st.counts.violations.push(what);
                }
                s.gaps.push((s.served_to, pos));
            }
            s.served_to = s.served_to.max(end);
            Ok((idx, s.clone(), pos, end))
        })?;
        let records = (pos..end).map(|k| self.record(&shard, idx, k)).collect();
        let next = (!(shard.closed(now) && end == shard.cap)).then(|| format!("{idx}/{end}/{now}"));
        Ok(RecordsPage { records, next })
    }
}

/// Follows the delivered records shard by shard: each must be the next of its shard (or the first after a
/// gap of trimmed records), and a shard's first after its parent's last.
#[derive(Debug, Default)]
pub struct Check {
    /// Each shard's id, parent and records, as the script made them.
    shards: Vec<(String, Option<usize>, u64)>,
    next: Vec<u64>,
    started: Vec<bool>,
    pub delivered: u64,
    pub skipped_trimmed: u64,
    pub duplicates: u64,
    pub lost: u64,
    pub out_of_order: u64,
    pub said: Vec<String>,
}

impl Sim {
    /// Where shard `idx` is read to from `at`, over the gaps of trimmed records that follow.
    pub fn settled(&self, idx: usize, mut at: u64) -> u64 {
        self.with(|st| {
            while let Some(to) = st.shards[idx].gap_from(at) {
                if to <= at {
                    break;
                }
                at = to;
            }
            at
        })
    }

    fn listed(&self, idx: usize) -> bool {
        self.with(|st| st.shards[idx].listed)
    }
}

impl Check {
    pub fn new(sim: &Sim) -> Self {
        let shards: Vec<_> = sim
            .shards()
            .into_iter()
            .map(|s| (s.id, s.parent, s.cap))
            .collect();
        Self {
            next: vec![0; shards.len()],
            started: vec![false; shards.len()],
            shards,
            ..Self::default()
        }
    }

    pub fn say(&mut self, what: String) {
        if self.said.len() < 20 {
            self.said.push(what);
        }
    }

    /// One delivered record.
    pub fn record(&mut self, sim: &Sim, record: &Value) {
        self.delivered += 1;
        let id = record["eventID"].as_str().unwrap_or_default();
        let parsed = id
            .split_once('.')
            .and_then(|(i, k)| Some((i.parse::<usize>().ok()?, k.parse::<u64>().ok()?)));
        let Some((idx, k)) = parsed.filter(|(i, _)| *i < self.shards.len()) else {
            self.lost += 1;
            self.say(format!("a record that is not the script's: {record}"));
            return;
        };
        if !self.started[idx] {
            self.started[idx] = true;
            if let Some(p) = self.shards[idx].1 {
                let at = sim.settled(p, self.next[p]);
                if at < self.shards[p].2 && sim.listed(p) {
                    self.out_of_order += 1;
                    let what = format!(
                        "{} began before its parent {} was read ({at} of {})",
                        self.shards[idx].0, self.shards[p].0, self.shards[p].2
                    );
                    self.say(what);
                }
            }
        }
        let next = self.next[idx];
        if k == next {
            self.next[idx] = k + 1;
            return;
        }
        if k < next {
            self.duplicates += 1;
            self.say(format!(
                "{} record {k} again (next {next})",
                self.shards[idx].0
            ));
            return;
        }
        let at = sim.settled(idx, next);
        if k != at {
            self.lost += k.saturating_sub(at);
            let what = format!(
                "{}: record {k} came after {next} (gaps to {at})",
                self.shards[idx].0
            );
            self.say(what);
        }
        self.skipped_trimmed += at.min(k) - next;
        self.next[idx] = k + 1;
    }

    /// At the end: every shard the stream listed was read to its end (or to a gap of trimmed records).
    pub fn finish(&mut self, sim: &Sim) {
        for idx in 0..self.shards.len() {
            if !sim.listed(idx) {
                continue;
            }
            let (next, cap) = (self.next[idx], self.shards[idx].2);
            let at = sim.settled(idx, next);
            self.skipped_trimmed += at - next;
            if at != cap {
                self.lost += cap - at;
                self.say(format!("{}: read to {at} of {cap}", self.shards[idx].0));
            }
        }
    }

    pub fn clean(&self) -> bool {
        self.duplicates == 0 && self.lost == 0 && self.out_of_order == 0
    }
}

/// The simulated table: `pk` (S), streams on.
pub fn table() -> TableInfo {
    TableInfo {
        name: "soak".to_owned(),
        status: "ACTIVE".to_owned(),
        partition_key: KeyAttribute {
            name: "pk".to_owned(),
            key_type: KeyType::S,
        },
        sort_key: None,
        billing: Billing::OnDemand,
        item_count: None,
        size_bytes: None,
        local_indexes: Vec::new(),
        global_indexes: Vec::new(),
        stream_arn: Some(
            "arn:aws:dynamodb:us-east-1:000000000000:table/soak/stream/sim".to_owned(),
        ),
        throughput: Default::default(),
        index_throughput: Default::default(),
    }
}

/// The reader's options for a soak: the defaults (pacing, polls, backoff, renewal), from the trim horizon,
/// with a safety stop an hour after the stream is disabled.
pub fn options(script: &Script) -> StreamOptions {
    StreamOptions {
        from: StreamStart::TrimHorizon,
        duration: Some(Duration::from_secs((script.hours + 1) * 3_600)),
        ..StreamOptions::new("soak")
    }
}

/// A simulated hour of the soak, as it passed.
#[derive(Debug, Clone)]
pub struct Hour {
    /// Simulated hours since the watch began.
    pub hour: u64,
    pub records: u64,
    pub distinct_keys: usize,
    pub rss_mb: f64,
    pub wall: std::time::Duration,
    /// How long the feed took to build its trace at this hour (the app does so about once a second).
    pub trace_build: std::time::Duration,
}

/// What a soak gave.
pub struct Soaked {
    pub read: StreamRead,
    pub check: Check,
    pub feed: StreamFeed,
    pub sim: Arc<Sim>,
    pub hours: Vec<Hour>,
    pub wall: std::time::Duration,
}

/// The process's resident memory (`VmRSS`), in MB; 0 where it cannot be read.
pub fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Runs the reader over the script on a paused runtime: every delivered record checked and read into a
/// [`StreamFeed`] counting the keys, as a watch does; `on_hour` hears each simulated hour.
pub fn soak(script: Script, on_hour: &mut dyn FnMut(&Hour)) -> Result<Soaked, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let started = std::time::Instant::now();
    let info = table();
    let mut feed = StreamFeed::new("writes to soak", &info, OnBad::Stop).counting_keys(&info);
    let mut hours = Vec::new();
    let opts = options(&script);
    let (read, sim, mut check) = rt.block_on(async {
        let sim = Arc::new(Sim::new(script));
        let mut check = Check::new(&sim);
        let cancel = AtomicBool::new(false);
        let mut next_hour = 1;
        let watch_start = sim.script.history_hours * HOUR_US;
        let mut on_event = |e: StreamEvent| {
            let StreamEvent::Records { records, .. } = e else {
                return;
            };
            for r in &records {
                check.record(&sim, r);
            }
            feed.add(&records);
            while sim.now() >= watch_start + next_hour * HOUR_US {
                let t = std::time::Instant::now();
                let built = feed.trace().map(|_| ());
                let hour = Hour {
                    hour: next_hour,
                    records: feed.records(),
                    distinct_keys: feed.keys().map_or(0, shardlens::model::KeySet::len),
                    rss_mb: rss_mb(),
                    wall: started.elapsed(),
                    trace_build: t.elapsed(),
                };
                if let Err(e) = built {
                    check.say(format!("the trace could not be built: {e}"));
                }
                on_hour(&hour);
                hours.push(hour);
                next_hour += 1;
            }
        };
        let read = run_stream(sim.clone(), &opts, &cancel, &mut on_event).await;
        (read, sim, check)
    });
    check.finish(&sim);
    Ok(Soaked {
        read,
        check,
        feed,
        sim,
        hours,
        wall: started.elapsed(),
    })
}
