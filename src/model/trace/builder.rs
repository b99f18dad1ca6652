//! Building a [`Trace`] from records in any order: [`TraceBuilder`], and the judgement of each key's sort keys
//! in write order ([`Judged`]).

use std::cmp::Ordering;
use std::collections::VecDeque;

use super::{Dim, Entry, MAX_TRACE_SECONDS, READ_BIT, SortKey, Trace, TraceError, TraceKey};
use crate::model::key::MAX_PARTITION_KEY_BYTES;
use crate::model::keyset::{Pipeline, prefetch};
use crate::model::partition::key_hash;
use crate::model::{KeySet, KeyType};

/// A sort key's value, compared as DynamoDB orders them: numbers by value, strings and binary by bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    Number(f64),
    Bytes(Box<[u8]>),
}

impl SortValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Number(a), Self::Number(b)) => a.total_cmp(b),
            (Self::Bytes(a), Self::Bytes(b)) => a.cmp(b),
            (Self::Number(_), Self::Bytes(_)) => Ordering::Less,
            (Self::Bytes(_), Self::Number(_)) => Ordering::Greater,
        }
    }
}

/// What the records of one key have shown of its sort keys so far.
#[derive(Debug, Clone)]
struct Judged {
    /// The earliest and the latest write seen (time in µs, sort key).
    earliest: (i64, Option<SortValue>),
    latest: (i64, Option<SortValue>),
    increasing: bool,
    same: bool,
}

impl Judged {
    fn new(micros: i64, sk: Option<SortValue>) -> Self {
        Self {
            earliest: (micros, sk.clone()),
            latest: (micros, sk),
            increasing: true,
            same: true,
        }
    }

    fn see(&mut self, micros: i64, sk: Option<SortValue>) {
        if sk.is_none() {
            // Nothing to judge (a record without its sort key).
            return;
        }
        if self.earliest.1.is_none() {
            *self = Self::new(micros, sk);
            return;
        }
        let order = |a: &Option<SortValue>, b: &Option<SortValue>| match (a, b) {
            (Some(a), Some(b)) => a.cmp(b),
            _ => Ordering::Equal,
        };
        if self.same && order(&sk, &self.earliest.1) != Ordering::Equal {
            self.same = false;
        }
        if self.increasing {
            let after_earliest = micros >= self.earliest.0;
            let after_latest = micros >= self.latest.0;
            let vs_earliest = order(&sk, &self.earliest.1);
            let vs_latest = order(&sk, &self.latest.1);
            let fits = if after_latest {
                vs_latest != Ordering::Less
            } else if after_earliest {
                vs_earliest != Ordering::Less && vs_latest != Ordering::Greater
            } else {
                vs_earliest != Ordering::Greater
            };
            self.increasing = fits;
        }
        if micros < self.earliest.0 {
            self.earliest = (micros, sk);
        } else if micros >= self.latest.0 {
            self.latest = (micros, sk);
        }
    }

    fn kind(&self, has_sort_keys: bool) -> SortKey {
        if !has_sort_keys || self.same {
            SortKey::SingleItem
        } else if self.increasing {
            SortKey::Monotonic
        } else {
            SortKey::Random
        }
    }
}

/// Builds a [`Trace`] from records in any order.
#[derive(Debug, Clone)]
pub struct TraceBuilder {
    keys: KeySet,
    judged: Vec<Judged>,
    units: Vec<[f64; 2]>,
    requests: Vec<[f64; 2]>,
    entries: Vec<Entry>,
    /// Unix second that entry second 0 stands for (the first record's second minus 2^31).
    base: Option<i64>,
    first: i64,
    last: i64,
    /// Some record carried a sort key: keys whose records carry none are one item.
    has_sort_keys: bool,
    /// Entries since the last merge: merged when they double.
    merged_len: usize,
    /// Records whose keys are being looked up ahead of them (see [`Self::add`]).
    pipeline: Pipeline,
    /// The queued records' keys: push `n`'s bytes start at `(n % Pipeline::RING) * QUEUED_KEY_BYTES`.
    queued_text: Vec<u8>,
    queued: VecDeque<Queued>,
    pushed: usize,
    /// Records whose key is known, taken in [`TAKE_DELAY`] records after their key's totals and judgement
    /// were asked for from memory.
    taking: VecDeque<(u32, Queued)>,
    /// The file being read ([`Self::begin_file`]) and the last file each key was seen in.
    file: u32,
    file_of_key: Vec<u32>,
    /// Distinct keys of the file being read.
    file_keys: u64,
    /// Keys from this index on are stand-ins ([`Self::begin_stand_ins`]).
    stand_ins_from: Option<usize>,
}

/// A record waiting in the builder's pipeline for its key's index.
#[derive(Debug, Clone)]
struct Queued {
    micros: i64,
    sort_key: Option<SortValue>,
    dim: Dim,
    units: f64,
}

/// How many records wait between their key's index being known and their being taken in.
const TAKE_DELAY: usize = 8;

/// Room for one queued key: keys longer than this (longer than a partition key may be) skip the pipeline.
const QUEUED_KEY_BYTES: usize = MAX_PARTITION_KEY_BYTES;

impl Default for TraceBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceBuilder {
    pub fn new() -> Self {
        Self {
            keys: KeySet::new(KeyType::S),
            judged: Vec::new(),
            units: Vec::new(),
            requests: Vec::new(),
            entries: Vec::new(),
            base: None,
            first: i64::MAX,
            last: i64::MIN,
            has_sort_keys: false,
            merged_len: 0,
            pipeline: Pipeline::default(),
            queued_text: vec![0; Pipeline::RING * QUEUED_KEY_BYTES],
            queued: VecDeque::with_capacity(Pipeline::RING),
            pushed: 0,
            taking: VecDeque::with_capacity(TAKE_DELAY + 1),
            file: 0,
            file_of_key: Vec::new(),
            file_keys: 0,
            stand_ins_from: None,
        }
    }

    /// Says that the keys added from now on are stand-ins, not keys of the table: names made up to carry
    /// traffic known only in total (CloudWatch's units beyond the per-key records). A key seen before keeps
    /// being a real one. [`TraceKey::stand_in`] says which they are.
    pub fn begin_stand_ins(&mut self) -> Result<(), TraceError> {
        self.flush()?;
        self.stand_ins_from = Some(self.keys.len());
        Ok(())
    }

    /// Says that the table has a sort key even if no record carried one (keys are then collections).
    pub fn set_has_sort_keys(&mut self) {
        self.has_sort_keys = true;
    }

    /// Records seen so far (requests added one by one or spread).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.queued.is_empty() && self.taking.is_empty()
    }

    /// Starts counting the distinct keys of a new file ([`Self::end_file`]).
    pub fn begin_file(&mut self) {
        self.file += 1;
        self.file_keys = 0;
    }

    /// Every record of the file begun last is in: its distinct keys.
    pub fn end_file(&mut self) -> Result<u64, TraceError> {
        self.flush()?;
        Ok(self.file_keys)
    }

    /// Distinct keys of the file begun last, among the records taken in so far.
    pub fn file_keys(&self) -> u64 {
        self.file_keys
    }

    /// One request at `micros` (Unix µs) to `key` (canonical bytes) of `units` read or write units, with
    /// the item's sort key when the record carries it.
    ///
    /// The record waits in a pipeline until its key's index slot, entry and bytes have been asked for from
    /// memory ([`Pipeline`]), [`Pipeline::DELAY`] records later (or at [`Self::end_file`] or
    /// [`Self::build`]); an error such a record meets (a trace too long, too many keys) is returned then.
    /// A record whose key is known waits [`TAKE_DELAY`] more while its key's totals and judgement are asked
    /// for. Measured (`shardlens-bench trace`: 10,000,000 writes, 962,661 keys, this machine, best of 2): each
    /// record's key looked up and its totals updated on their own, one cache miss after another (60 % of
    /// building in `Index::find`, `perf record`), built the trace in 3.95 s; this way, 2.75 s.
    pub fn add(
        &mut self,
        micros: i64,
        key: &[u8],
        sort_key: Option<SortValue>,
        dim: Dim,
        units: f64,
    ) -> Result<(), TraceError> {
        if sort_key.is_some() {
            self.has_sort_keys = true;
        }
        let record = Queued {
            micros,
            sort_key,
            dim,
            units,
        };
        if key.len() > QUEUED_KEY_BYTES {
            self.flush()?;
            let k = self.keys.add(key, 1);
            return self.take(k, record);
        }
        let at = (self.pushed % Pipeline::RING) * QUEUED_KEY_BYTES;
        self.pushed += 1;
        self.queued_text[at..at + key.len()].copy_from_slice(key);
        self.queued.push_back(record);
        let added = self.pipeline.push(
            &mut self.keys,
            self.queued_text.as_slice(),
            (at, at + key.len()),
            key_hash(key),
            1,
        );
        if let Some(k) = added
            && let Some(record) = self.queued.pop_front()
        {
            self.prefetch_key(k);
            self.taking.push_back((k, record));
            if self.taking.len() > TAKE_DELAY
                && let Some((k, record)) = self.taking.pop_front()
            {
                return self.take(k, record);
            }
        }
        Ok(())
    }

    /// Asks for what taking in a record of key `k` reads and writes.
    #[inline]
    fn prefetch_key(&self, k: u32) {
        let k = k as usize;
        if let (Some(u), Some(r), Some(j), Some(f)) = (
            self.units.get(k),
            self.requests.get(k),
            self.judged.get(k),
            self.file_of_key.get(k),
        ) {
            prefetch(u);
            prefetch(r);
            prefetch(j);
            prefetch(f);
        }
    }

    /// Takes every queued record in.
    fn flush(&mut self) -> Result<(), TraceError> {
        while let Some((k, record)) = self.taking.pop_front() {
            self.take(k, record)?;
        }
        let mut keys = Vec::with_capacity(self.queued.len());
        self.pipeline
            .drain_each(&mut self.keys, self.queued_text.as_slice(), |k| {
                keys.push(k);
            });
        for k in keys {
            if let Some(record) = self.queued.pop_front() {
                self.take(k, record)?;
            }
        }
        Ok(())
    }

    /// A record whose key is key `k`.
    fn take(&mut self, k: u32, record: Queued) -> Result<(), TraceError> {
        self.key_seen(k)?;
        match self.judged.get_mut(k as usize) {
            Some(j) => j.see(record.micros, record.sort_key),
            None => self
                .judged
                .push(Judged::new(record.micros, record.sort_key)),
        }
        let second = record.micros.div_euclid(1_000_000);
        self.push(second, k, record.dim, record.units, 1.0)
    }

    /// `requests` requests of `units` in total to `key` during `[from, from + seconds)` (Unix seconds),
    /// spread evenly over the period's seconds (**\[ours\]**: a per-period count says nothing of how it was
    /// spread inside the period).
    pub fn spread(
        &mut self,
        from: i64,
        seconds: u32,
        key: &[u8],
        dim: Dim,
        units: f64,
        requests: f64,
    ) -> Result<(), TraceError> {
        self.flush()?;
        let k = self.keys.add(key, 1);
        self.key_seen(k)?;
        if self.judged.len() <= k as usize {
            self.judged.push(Judged::new(from * 1_000_000, None));
        }
        if seconds >= MAX_TRACE_SECONDS {
            return Err(TraceError::TooLong {
                first: from,
                last: from + i64::from(seconds) - 1,
                seconds: i64::from(seconds) - 1,
            });
        }
        let n = f64::from(seconds.max(1));
        for s in 0..i64::from(seconds.max(1)) {
            self.push(from + s, k, dim, units / n, requests / n)?;
        }
        Ok(())
    }

    /// Notes a record of key `k` (just interned, or seen before) in the file being read.
    fn key_seen(&mut self, k: u32) -> Result<(), TraceError> {
        if k >= READ_BIT {
            return Err(TraceError::TooManyKeys);
        }
        if self.units.len() <= k as usize {
            self.units.push([0.0; 2]);
            self.requests.push([0.0; 2]);
            self.file_of_key.push(0);
        }
        if let Some(f) = self.file_of_key.get_mut(k as usize)
            && *f != self.file
        {
            *f = self.file;
            self.file_keys += 1;
        }
        Ok(())
    }

    fn push(
        &mut self,
        second: i64,
        k: u32,
        dim: Dim,
        units: f64,
        requests: f64,
    ) -> Result<(), TraceError> {
        let base = *self.base.get_or_insert(second - (1 << 31));
        let rel = second - base;
        let Ok(rel) = u32::try_from(rel) else {
            return Err(TraceError::TooLong {
                first: self.first.min(second),
                last: self.last.max(second),
                seconds: (self.last.max(second) - self.first.min(second)).abs(),
            });
        };
        self.first = self.first.min(second);
        self.last = self.last.max(second);
        // Said as soon as the records span more than a replay can: what `build` would say, before records
        // spread over years (a period of them, from a time typed wrong) fill the memory.
        if self.last - self.first >= i64::from(MAX_TRACE_SECONDS) {
            return Err(TraceError::TooLong {
                first: self.first,
                last: self.last,
                seconds: self.last - self.first,
            });
        }
        let d = usize::from(dim == Dim::Write);
        self.units[k as usize][d] += units;
        self.requests[k as usize][d] += requests;
        self.entries.push(Entry {
            second: rel,
            key: if dim == Dim::Read { k | READ_BIT } else { k },
            units: units as f32,
            requests: requests as f32,
        });
        if self.entries.len() >= 2 * self.merged_len.max(1 << 20) {
            self.merge();
        }
        Ok(())
    }

    /// Sorts the entries by second and key and adds up those of one key in one second, in place.
    fn merge(&mut self) {
        let e = &mut self.entries;
        e.sort_unstable_by_key(|x| (x.second, x.key));
        let mut w = 0;
        for r in 0..e.len() {
            if w > 0 && e[w - 1].second == e[r].second && e[w - 1].key == e[r].key {
                e[w - 1].units += e[r].units;
                e[w - 1].requests += e[r].requests;
            } else {
                e[w] = e[r];
                w += 1;
            }
        }
        e.truncate(w);
        e.shrink_to(w.max(1 << 20) * 2);
        self.merged_len = w;
    }

    /// The trace: t = 0 is the first record's whole second. (A replay's minutes are whole UTC minutes all the
    /// same: the simulator closes them on `hh:mm:00`, so one that starts mid-minute has a partial first minute.)
    pub fn build(mut self) -> Result<Trace, TraceError> {
        self.flush()?;
        let Some(base) = self.base else {
            return Err(TraceError::Empty);
        };
        let seconds = self.last - self.first;
        if seconds >= i64::from(MAX_TRACE_SECONDS) {
            return Err(TraceError::TooLong {
                first: self.first,
                last: self.last,
                seconds,
            });
        }
        self.merge();
        let shift = (self.first - base) as u32;
        let duration = (seconds + 1) as u32;
        let mut offsets = Vec::with_capacity(duration as usize + 1);
        let mut i = 0;
        for t in 0..=duration {
            while i < self.entries.len() && self.entries[i].second - shift < t {
                i += 1;
            }
            offsets.push(i as u32);
        }
        for e in &mut self.entries {
            e.second -= shift;
        }
        let stand_ins_from = self.stand_ins_from.unwrap_or(usize::MAX);
        let has_sk = self.has_sort_keys;
        let keys = self
            .keys
            .iter()
            .map(|(i, bytes, _)| {
                let i = i as usize;
                TraceKey {
                    name: String::from_utf8_lossy(bytes).into_owned(),
                    hash: self.keys.hash(i as u32),
                    sort_key: self
                        .judged
                        .get(i)
                        .map_or(SortKey::Random, |j| j.kind(has_sk)),
                    units: self.units[i],
                    requests: self.requests[i],
                    stand_in: i >= stand_ins_from,
                }
            })
            .collect();
        Ok(Trace {
            start: self.first,
            duration,
            keys,
            entries: self.entries,
            offsets,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{iso, replay_setup};
    use super::*;

    fn s(x: &str) -> Option<SortValue> {
        Some(SortValue::Bytes(x.as_bytes().into()))
    }

    #[test]
    fn records_in_any_order_give_per_second_units_from_the_first_second() {
        let mut b = TraceBuilder::new();
        // 10:00:02.5, 10:00:00.9, 10:00:02.1 (Unix 1_782_208_800 = 2026-06-23T10:00:00Z)
        let t0 = 1_782_208_800_i64 * 1_000_000;
        b.add(t0 + 2_500_000, b"A", None, Dim::Write, 2.0).unwrap();
        b.add(t0 + 900_000, b"B", None, Dim::Write, 1.0).unwrap();
        b.add(t0 + 2_100_000, b"A", None, Dim::Write, 1.0).unwrap();
        b.add(t0 + 2_200_000, b"A", None, Dim::Read, 0.5).unwrap();
        let t = b.build().unwrap();
        assert_eq!(t.start, 1_782_208_800);
        assert_eq!(iso(t.start), "2026-06-23T10:00:00Z");
        assert_eq!(t.duration, 3);
        assert_eq!(t.at(0).len(), 1);
        assert!(t.at(1).is_empty());
        let a = t.keys.iter().position(|k| k.name == "A").unwrap() as u32;
        let w: Vec<_> = t.at(2).iter().filter(|e| e.dim() == Dim::Write).collect();
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].key(), w[0].units, w[0].requests), (a, 3.0, 2.0));
        assert_eq!(t.requests(), [1.0, 3.0]);
        assert_eq!(t.units(), [0.5, 4.0]);
    }

    // Issue 57: a trace whose first record is mid-minute (10:00:20) starts there, and its replay's minutes are
    // whole UTC minutes like CloudWatch's: a partial first minute [10:00:20, 10:01:00), then 10:01:00.
    #[test]
    fn a_replay_from_mid_minute_has_whole_utc_minutes() {
        let mut b = TraceBuilder::new();
        let t0 = 1_782_208_800_i64; // 10:00:00Z
        b.add((t0 + 20) * 1_000_000 + 5, b"A", None, Dim::Write, 1.0)
            .unwrap();
        b.add((t0 + 95) * 1_000_000, b"A", None, Dim::Write, 2.0)
            .unwrap();
        let t = b.build().unwrap();
        assert_eq!(iso(t.start), "2026-06-23T10:00:20Z");
        assert_eq!(t.duration, 76);
        let setup = replay_setup(t, crate::model::simulate::Table::default());
        let o = crate::model::simulate::run(&setup);
        let starts: Vec<u32> = o.minutes.iter().map(|m| m.t).collect();
        assert_eq!(starts, [0, 40]);
        assert_eq!(iso(setup.start + 40), "2026-06-23T10:01:00Z");
        assert_eq!(o.minutes[0].consumed_write_units, 1.0);
        assert_eq!(o.minutes[1].consumed_write_units, 2.0);
    }

    #[test]
    fn keys_added_after_begin_stand_ins_are_stand_ins() {
        let mut b = TraceBuilder::new();
        b.add(1_000_000, b"real", None, Dim::Write, 1.0).unwrap();
        b.begin_stand_ins().unwrap();
        b.spread(0, 60, b"other#0", Dim::Write, 60.0, 60.0).unwrap();
        b.spread(0, 60, b"real", Dim::Write, 60.0, 60.0).unwrap();
        let t = b.build().unwrap();
        let stand_in = |n: &str| t.keys.iter().find(|k| k.name == n).unwrap().stand_in;
        assert!(!stand_in("real"));
        assert!(stand_in("other#0"));
        assert!(!t.only_stand_ins());
        let mut b = TraceBuilder::new();
        b.begin_stand_ins().unwrap();
        b.spread(0, 60, b"other#0", Dim::Write, 60.0, 60.0).unwrap();
        assert!(b.build().unwrap().only_stand_ins());
    }

    #[test]
    fn sort_keys_are_judged_in_write_order_not_arrival_order() {
        let mut b = TraceBuilder::new();
        // Timestamps written in time order, arriving shuffled: increasing.
        for (t, sk) in [(5, "05"), (1, "01"), (9, "09"), (3, "03"), (7, "07")] {
            b.add(t * 1_000_000, b"LOG", s(sk), Dim::Write, 1.0)
                .unwrap();
        }
        // Random sort keys.
        for (t, sk) in [(1, "m"), (2, "c"), (3, "x"), (4, "a")] {
            b.add(t * 1_000_000, b"RND", s(sk), Dim::Write, 1.0)
                .unwrap();
        }
        // One item written again and again.
        for t in 1..5 {
            b.add(t * 1_000_000, b"ONE", s("profile"), Dim::Write, 1.0)
                .unwrap();
        }
        let t = b.build().unwrap();
        let kind = |n: &str| t.keys.iter().find(|k| k.name == n).unwrap().sort_key;
        assert_eq!(kind("LOG"), SortKey::Monotonic);
        assert_eq!(kind("RND"), SortKey::Random);
        assert_eq!(kind("ONE"), SortKey::SingleItem);
    }

    #[test]
    fn numbers_compare_by_value() {
        let mut b = TraceBuilder::new();
        for (t, v) in [(1, 9.0), (2, 10.0), (3, 100.0)] {
            b.add(t, b"K", Some(SortValue::Number(v)), Dim::Write, 1.0)
                .unwrap();
        }
        assert_eq!(b.build().unwrap().keys[0].sort_key, SortKey::Monotonic);
    }

    #[test]
    fn keys_without_sort_keys_are_one_item_unless_the_table_has_them() {
        let mut b = TraceBuilder::new();
        b.add(0, b"K", None, Dim::Write, 1.0).unwrap();
        assert_eq!(b.build().unwrap().keys[0].sort_key, SortKey::SingleItem);
    }

    #[test]
    fn a_trace_over_the_horizon_is_refused_with_its_span() {
        let mut b = TraceBuilder::new();
        b.add(1_428_537_600_000_000, b"101", None, Dim::Write, 1.0)
            .unwrap();
        b.add(1_635_734_407_123_456, b"101", None, Dim::Write, 1.0)
            .unwrap();
        let e = b.build().unwrap_err();
        let text = e.to_string();
        assert!(text.contains("spans 2,398 days"), "{text}");
        assert!(text.contains("2015-04-09T00:00:00Z"), "{text}");
        assert!(text.contains("at most 7 days"), "{text}");
    }

    #[test]
    fn spread_counts_fill_their_period_evenly() {
        let mut b = TraceBuilder::new();
        b.spread(600, 60, b"HOT", Dim::Write, 6_000.0, 6_000.0)
            .unwrap();
        let t = b.build().unwrap();
        assert_eq!(t.duration, 60);
        assert!((0..60).all(|s| t.at(s).len() == 1 && t.at(s)[0].units == 100.0));
    }

    #[test]
    fn sharding_splits_a_hot_key_and_keeps_the_totals() {
        let mut b = TraceBuilder::new();
        for i in 0..100 {
            b.add(i * 10_000, b"HOT", None, Dim::Write, 1.0).unwrap();
        }
        b.add(0, b"cold", None, Dim::Write, 1.0).unwrap();
        let t = b.build().unwrap();
        let s = t.sharded(4, Some(0.5), "#");
        assert_eq!(s.keys.len(), 5);
        assert!(s.keys.iter().any(|k| k.name == "HOT#3"));
        assert_eq!(s.units(), t.units());
        assert_eq!(s.at(0).len(), 5);
        let sum: f32 = s.at(0).iter().map(|e| e.units).sum();
        assert_eq!(sum, 101.0);
    }

    #[test]
    fn queued_records_count_per_file_and_their_errors_still_come_out() {
        let mut b = TraceBuilder::new();
        b.begin_file();
        for i in 0..100i64 {
            let key = format!("K{}", i % 40);
            b.add(i * 1_000_000, key.as_bytes(), None, Dim::Write, 1.0)
                .unwrap();
        }
        assert_eq!(b.end_file().unwrap(), 40);
        b.begin_file();
        for i in 0..10i64 {
            let key = format!("K{}", 35 + i);
            b.add(i * 1_000_000, key.as_bytes(), None, Dim::Read, 1.0)
                .unwrap();
        }
        // A key far too long for the pipeline goes straight in, after what is queued.
        let long = vec![b'L'; QUEUED_KEY_BYTES + 1];
        b.add(0, &long, None, Dim::Write, 1.0).unwrap();
        assert_eq!(
            b.end_file().unwrap(),
            11,
            "5 keys seen before, 5 new, and the long one"
        );
        let t = b.build().unwrap();
        assert_eq!(t.keys.len(), 46);
        assert_eq!(t.requests(), [10.0, 101.0]);

        // A record a month away is still queued when `add` returns; building names the span.
        let mut b = TraceBuilder::new();
        b.add(0, b"A", None, Dim::Write, 1.0).unwrap();
        b.add(30 * 86_400 * 1_000_000, b"B", None, Dim::Write, 1.0)
            .unwrap();
        assert!(matches!(b.build(), Err(TraceError::TooLong { .. })));
    }

    #[test]
    fn merging_keeps_the_sums_when_records_outnumber_a_merge() {
        let mut b = TraceBuilder::new();
        for i in 0..3_000_000_i64 {
            b.add((i % 7) * 1_000_000, b"K", None, Dim::Write, 1.0)
                .unwrap();
        }
        let t = b.build().unwrap();
        let sum: f64 = (0..7).map(|s| f64::from(t.at(s)[0].units)).sum();
        assert_eq!(sum, 3_000_000.0);
    }

    fn replay(
        trace: Trace,
        table: crate::model::simulate::Table,
    ) -> crate::model::simulate::Outcome {
        crate::model::simulate::run(&replay_setup(trace, table))
    }

    // R1: a single item written 1,800 times a second is served 1,000 write units a second, whatever the table.
    #[test]
    fn a_replayed_hot_item_is_held_to_one_partitions_ceiling() {
        let mut b = TraceBuilder::new();
        for s in 0..120_i64 {
            for i in 0..1_800 {
                b.add(s * 1_000_000 + i * 500, b"HOT", None, Dim::Write, 1.0)
                    .unwrap();
            }
        }
        let out = replay(b.build().unwrap(), crate::model::simulate::Table::default());
        let s = &out.series;
        assert_eq!(s.write_demand_units.len(), 120);
        assert!(s.write_demand_units.iter().all(|&d| d == 1_800.0));
        assert!(
            s.write_served_units
                .iter()
                .all(|&x| (x - 1_000.0).abs() < 1e-6)
        );
        assert!(
            s.write_throttled_units
                .iter()
                .all(|&x| (x - 800.0).abs() < 1e-6)
        );
    }

    // A trace and the stream it records give the same series: 40 keys, 10 writes a second each.
    #[test]
    fn a_trace_replays_as_the_stream_it_records() {
        use crate::model::simulate::{Billing, Keys, Params, Schedule, Setup, Stream, Table, run};
        let table = Table {
            billing: Billing::Provisioned {
                units: [0.0, 300.0],
            },
            partitions: Some(4),
            ..Table::default()
        };
        let keys: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
        let mut b = TraceBuilder::new();
        b.set_has_sort_keys();
        for s in 0..600_i64 {
            for k in &keys {
                for j in 0..10 {
                    // Random sort keys (UUID-like).
                    let sk = crate::model::partition::mix64((s * 10 + j) as u64 ^ k.len() as u64);
                    let sk = Some(SortValue::Bytes(format!("{sk:016x}").into_bytes().into()));
                    b.add(s * 1_000_000 + j, k.as_bytes(), sk, Dim::Write, 1.0)
                        .unwrap();
                }
            }
        }
        let trace = b.build().unwrap();
        assert!(trace.keys.iter().all(|k| k.sort_key == SortKey::Random));
        let from_trace = replay(trace, table.clone());
        let from_stream = run(&Setup {
            table,
            traffic: vec![Stream {
                keys: Keys::Weighted(keys.iter().map(|k| (k.clone(), 1.0)).collect()),
                writes_per_sec: Schedule::constant(400.0),
                ..Stream::default()
            }],
            duration: 600,
            step: 1,
            start: 0,
            seed: 1,
            params: Params::default(),
            trace: None,
        });
        let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3);
        assert!(close(
            &from_trace.series.write_demand_units,
            &from_stream.series.write_demand_units
        ));
        assert!(close(
            &from_trace.series.write_served_units,
            &from_stream.series.write_served_units
        ));
        assert!(close(
            &from_trace.series.write_throttled_units,
            &from_stream.series.write_throttled_units
        ));
        assert!(from_trace.series.write_throttled_units.iter().sum::<f64>() > 0.0);
    }
}
