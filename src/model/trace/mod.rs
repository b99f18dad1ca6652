//! A table's real traffic: per key, per second, read and write units and requests, built from records that
//! arrive in any order (an export's data files are not in time order), and replayed by
//! [`crate::model::simulate`] beside (or instead of) the synthetic streams.
//!
//! A [`TraceBuilder`] takes one request at a time ([`TraceBuilder::add`]) or a count spread over a period
//! ([`TraceBuilder::spread`], for per-minute sources); [`TraceBuilder::build`] sorts and merges them into a
//! [`Trace`]: the keys, and per second the entries of the keys that had traffic then. Memory is one 16-byte
//! entry per record while building (merged in place per key and second), so 10 M writes take about 160 MB.
//!
//! **Sort keys in write order** (DYNAMODB-TRAFFIC "Incremental exports": records are not in time order): a
//! key's collection is "only increasing" when every record's sort key agrees with its write time against the
//! earliest and the latest write seen so far of that key, "one item" when every record has the same sort key
//! (or the records carry none and the source says the table has no sort key), and random otherwise. Checking
//! each record against the two extremes is **\[ours\]**: it keeps two sort keys per key instead of every
//! record's, and any record that arrives out of order with its sort key shows a collection is not increasing.
//!
//! By concept: this file holds the trace, its keys and its errors; `builder` builds it from records.

use thiserror::Error;

use super::simulate::SortKey;
use super::{KeySet, KeyType};

mod builder;
pub use builder::{SortValue, TraceBuilder};

/// The longest trace the simulator replays (it steps every second): 7 days.
pub const MAX_TRACE_SECONDS: u32 = 7 * 86_400;
/// Traces longer than this are reported per minute (`step` 60) instead of per second.
pub const PER_SECOND_UP_TO: u32 = 86_400;

const READ_BIT: u32 = 1 << 31;

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    Read,
    Write,
}

/// One key's traffic in one second: units and requests of one dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The second (from the builder's base while building; from t = 0 in a [`Trace`]).
    second: u32,
    /// The key's index, with [`READ_BIT`] set for reads.
    key: u32,
    pub units: f32,
    pub requests: f32,
}

impl Entry {
    pub fn key(&self) -> u32 {
        self.key & !READ_BIT
    }

    pub fn dim(&self) -> Dim {
        if self.key & READ_BIT == 0 {
            Dim::Write
        } else {
            Dim::Read
        }
    }
}

/// A key of a trace: its name, how its items are written, and its totals.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceKey {
    pub name: String,
    pub hash: u64,
    pub sort_key: SortKey,
    /// Read and write units over the whole trace.
    pub units: [f64; 2],
    /// Read and write requests over the whole trace.
    pub requests: [f64; 2],
    /// A stand-in, not a key of the table: a name made up to carry traffic known only in total
    /// (CloudWatch's consumed units beyond the per-key records). Never evidence about the key design.
    pub stand_in: bool,
}

/// Real traffic, per second from t = 0 (the first whole second of the trace).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// Unix seconds of t = 0.
    pub start: i64,
    /// Seconds covered: the last record's second + 1.
    pub duration: u32,
    pub keys: Vec<TraceKey>,
    entries: Vec<Entry>,
    /// `entries[offsets[t]..offsets[t + 1]]` are second `t`'s.
    offsets: Vec<u32>,
}

impl Trace {
    /// The entries of second `t` (empty past the end).
    pub fn at(&self, t: u32) -> &[Entry] {
        let t = t as usize;
        match (self.offsets.get(t), self.offsets.get(t + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Records (requests) of the whole trace, reads and writes.
    pub fn requests(&self) -> [f64; 2] {
        self.keys.iter().fold([0.0; 2], |acc, k| {
            [acc[0] + k.requests[0], acc[1] + k.requests[1]]
        })
    }

    /// Units of the whole trace, reads and writes.
    pub fn units(&self) -> [f64; 2] {
        self.keys.iter().fold([0.0; 2], |acc, k| {
            [acc[0] + k.units[0], acc[1] + k.units[1]]
        })
    }

    /// The per-second step of the output: every second up to a day, every minute beyond.
    pub fn step(&self) -> u32 {
        if self.duration <= PER_SECOND_UP_TO {
            1
        } else {
            60
        }
    }

    /// Whether every key is a stand-in ([`TraceKey::stand_in`]): nothing per key is known.
    pub fn only_stand_ins(&self) -> bool {
        !self.keys.is_empty() && self.keys.iter().all(|k| k.stand_in)
    }

    /// The keys as a key set counted by requests (reads and writes), for the decision tree and the
    /// histogram.
    pub fn key_set(&self) -> KeySet {
        let mut set = KeySet::new(KeyType::S);
        for k in &self.keys {
            let n = (k.requests[0] + k.requests[1]).round().max(1.0) as u64;
            set.add(k.name.as_bytes(), n);
        }
        set
    }

    /// The same traffic write-sharded as `analyze --shards` does: each key with at least `hot_share` of the
    /// trace's units (every key when `None`) becomes `n` keys `KEY{separator}0 … KEY{separator}{n-1}`, each
    /// taking an equal part of every second's units and requests. A sharded key's items are many (random
    /// suffixes spread its writes), so its collections keep its sort-key kind.
    pub fn sharded(&self, n: u32, hot_share: Option<f64>, separator: &str) -> Trace {
        if n <= 1 {
            return self.clone();
        }
        let total: f64 = self.units().iter().sum::<f64>().max(f64::MIN_POSITIVE);
        let mut keys = Vec::with_capacity(self.keys.len());
        // Per old key: its first new index and how many.
        let mut map: Vec<(u32, u32)> = Vec::with_capacity(self.keys.len());
        for k in &self.keys {
            let first = keys.len() as u32;
            let share = (k.units[0] + k.units[1]) / total;
            if hot_share.is_none_or(|h| share >= h) {
                let part = 1.0 / f64::from(n);
                for i in 0..n {
                    let name = format!("{}{separator}{i}", k.name);
                    keys.push(TraceKey {
                        hash: super::key_hash(name.as_bytes()),
                        name,
                        sort_key: k.sort_key,
                        units: [k.units[0] * part, k.units[1] * part],
                        requests: [k.requests[0] * part, k.requests[1] * part],
                        stand_in: k.stand_in,
                    });
                }
                map.push((first, n));
            } else {
                keys.push(k.clone());
                map.push((first, 1));
            }
        }
        let mut entries = Vec::with_capacity(self.entries.len());
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        for t in 0..self.duration {
            for e in self.at(t) {
                let (first, count) = map[e.key() as usize];
                let part = 1.0 / count as f32;
                for i in 0..count {
                    entries.push(Entry {
                        second: t,
                        key: (first + i) | (e.key & READ_BIT),
                        units: e.units * part,
                        requests: e.requests * part,
                    });
                }
            }
            offsets.push(entries.len() as u32);
        }
        Trace {
            start: self.start,
            duration: self.duration,
            keys,
            entries,
            offsets,
        }
    }
}

/// A run that replays `trace` on `table`: from the trace's first second to its last, reported per second
/// up to a day and per minute beyond ([`Trace::step`]).
pub fn replay_setup(trace: Trace, table: super::simulate::Table) -> super::simulate::Setup {
    super::simulate::Setup {
        table,
        traffic: Vec::new(),
        duration: trace.duration,
        step: trace.step(),
        start: trace.start,
        seed: 1,
        params: super::simulate::Params::default(),
        trace: Some(std::sync::Arc::new(trace)),
    }
}

/// Why a trace cannot be built.
#[derive(Debug, Error, PartialEq)]
pub enum TraceError {
    #[error("the trace holds no records with a time")]
    Empty,
    #[error(
        "the trace spans {} ({} to {}); the simulator replays at most {} days: give the records of a shorter \
         window",
        span_words(*.seconds),
        iso(*.first),
        iso(*.last),
        MAX_TRACE_SECONDS / 86_400
    )]
    TooLong { first: i64, last: i64, seconds: i64 },
    #[error("the trace has more than 2,147,483,647 distinct keys")]
    TooManyKeys,
}

fn span_words(seconds: i64) -> String {
    let days = seconds as f64 / 86_400.0;
    if days >= 2.0 {
        format!("{} days", super::fmt::grouped(days.round() as u64))
    } else {
        format!("{} hours", (seconds as f64 / 3_600.0).round())
    }
}

/// ISO 8601 UTC of Unix seconds: `2026-06-23T10:00:00Z`.
pub fn iso(unix: i64) -> String {
    let (y, m, d) = super::calendar::civil_from_days(unix.div_euclid(86_400));
    let s = unix.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3_600,
        s / 60 % 60,
        s % 60
    )
}
