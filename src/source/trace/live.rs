//! A table's DynamoDB Stream read live into what a watch shows ([`StreamFeed`]): the one place Streams records
//! become a trace (the CLI's `shardlens stream`, the app's Watch writes), with the table's keys counted by their
//! writes ([`LiveKeys`]) and each key's live rate ([`LiveRates`]) when asked. The records are read by the same
//! reader as a saved file ([`TraceFeed`]); only the trace is kept, not the records. CloudWatch's last hours of a
//! table become a trace here too ([`metrics_trace`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{TraceFeed, TraceFormat, TraceLoad, TraceLoadError, TraceOptions, load_trace_bytes};
use crate::model::KeySet;
use crate::model::key::{
    MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonical_partition_key, canonicalize_into,
    display_key,
};
use crate::model::trace::{Dim, Trace};
use crate::source::OnBad;
use crate::source::dynamo::{KeyAttribute, MetricsRead, TableInfo};

/// The seconds a key's live rate is taken over: the trace's last ones.
pub const RATE_WINDOW: u32 = 10;

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

/// The feed a watch reads its records into (batches of JSON lines): only the trace is kept, not the records.
/// `on_bad` says whether one odd record (counted in the file's `skipped`) stops the trace.
pub fn watch_feed(name: &str, key: &KeyAttribute, on_bad: OnBad) -> TraceFeed {
    let opts = TraceOptions {
        key: Some(key.name.clone()),
        on_bad,
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

/// A table's stream records as they arrive, a batch at a time (each batch as `aws dynamodbstreams
/// get-records` prints its records): read into one trace ([`watch_feed`]), the table's keys counted by their
/// writes when asked ([`Self::counting_keys`]), and the first batch that could not be read kept until it is
/// taken. The records themselves are not kept.
pub struct StreamFeed {
    feed: TraceFeed,
    partition_key: KeyAttribute,
    keys: Option<LiveKeys>,
    /// The first batch the feed could not read.
    unreadable: Option<TraceLoadError>,
    /// The last batch as JSON lines (the bytes a saved trace holds).
    batch: Vec<u8>,
}

impl StreamFeed {
    /// A feed named `name` (in messages and the trace's file) of the records of the table `info` describes.
    pub fn new(name: &str, info: &TableInfo, on_bad: OnBad) -> Self {
        Self {
            feed: watch_feed(name, &info.partition_key, on_bad),
            partition_key: info.partition_key.clone(),
            keys: None,
            unreadable: None,
            batch: Vec::new(),
        }
    }

    /// Also counts the table's keys by their writes, as the records arrive ([`LiveKeys`]).
    #[must_use]
    pub fn counting_keys(mut self, info: &TableInfo) -> Self {
        self.keys = Some(LiveKeys::new(info));
        self
    }

    /// Reads a batch of records; returns them as JSON lines (what a saved trace holds). A batch that cannot be
    /// read is kept ([`Self::take_unreadable`], the first one only) and the feed goes on.
    pub fn add(&mut self, records: &[serde_json::Value]) -> &[u8] {
        self.batch.clear();
        for record in records {
            if serde_json::to_writer(&mut self.batch, record).is_ok() {
                self.batch.push(b'\n');
            }
            if let Some(keys) = &mut self.keys {
                keys.add(record);
            }
        }
        if let Err(e) = self.feed.add(&self.batch) {
            self.unreadable.get_or_insert(e);
        }
        &self.batch
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.feed.records()
    }

    /// Whether a batch could not be read (and it was not taken yet).
    pub fn has_unreadable(&self) -> bool {
        self.unreadable.is_some()
    }

    /// The first batch that could not be read, once.
    pub fn take_unreadable(&mut self) -> Option<TraceLoadError> {
        self.unreadable.take()
    }

    /// The trace of every record so far (a copy: the feed goes on).
    pub fn trace(&self) -> Result<TraceLoad, TraceLoadError> {
        self.feed.snapshot()
    }

    /// Each key's live rate and the trace of every record so far, or the batch that could not be read if one
    /// was not taken yet (then once).
    pub fn rates_and_trace(&mut self) -> Result<(LiveRates, TraceLoad), TraceLoadError> {
        if let Some(e) = self.unreadable.take() {
            return Err(e);
        }
        watch_trace(&self.feed, &self.partition_key)
    }

    /// The table's keys counted by their writes so far, when counted ([`Self::counting_keys`]).
    pub fn keys(&self) -> Option<&KeySet> {
        self.keys.as_ref().map(LiveKeys::keys)
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

/// CloudWatch's read of a table (its documents, as `get-metric-data` and each rule's report print them) as a
/// trace named `name`; `None` when CloudWatch has no consumed-capacity or throttling datapoint in the window.
pub fn metrics_trace(read: &MetricsRead, name: &str) -> Result<Option<TraceLoad>, TraceLoadError> {
    let datapoints: usize = TRAFFIC
        .iter()
        .filter_map(|m| read.series.get(m))
        .map(Vec::len)
        .sum();
    if datapoints == 0 {
        return Ok(None);
    }
    let bytes = read.trace_bytes(None);
    let trace = TraceOptions {
        format: Some(TraceFormat::Metrics),
        ..TraceOptions::default()
    };
    load_trace_bytes(&[(PathBuf::from(name), &bytes)], &trace).map(Some)
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
        let mut feed = watch_feed("writes to T", &info.partition_key, OnBad::Skip);
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
            throughput: Default::default(),
            index_throughput: Default::default(),
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

    #[test]
    fn a_stream_feed_gives_each_batch_as_lines_and_keeps_the_first_it_cannot_read_once() {
        let t0 = 1_750_000_000;
        let info = table(("pk", KeyType::S), None);
        let mut feed = StreamFeed::new("writes to T", &info, OnBad::Stop).counting_keys(&info);
        let good = [record("a", t0, 1), record("b", t0 + 1, 2)];
        let lines: Vec<serde_json::Value> = feed
            .add(&good)
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines, good, "the batch as JSON lines, one a record");
        assert_eq!(feed.records(), 2);
        assert!(!feed.has_unreadable());
        let mut timeless = record("c", t0 + 2, 3);
        timeless["dynamodb"]
            .as_object_mut()
            .unwrap()
            .remove("ApproximateCreationDateTime");
        feed.add(&[timeless]);
        assert!(
            feed.has_unreadable(),
            "OnBad::Stop: a record without its time"
        );
        assert!(feed.rates_and_trace().is_err(), "said once");
        let (rates, _) = feed.rates_and_trace().unwrap();
        assert!(rates.get("a").is_some() && rates.get("b").is_some());
        assert_eq!(
            feed.keys().unwrap().total(),
            3,
            "every record with the table's key is a write"
        );
        assert!(
            StreamFeed::new("writes to T", &info, OnBad::Stop)
                .keys()
                .is_none(),
            "keys are counted only when asked"
        );
    }

    #[test]
    fn cloudwatchs_minutes_are_a_trace_only_when_they_show_traffic() {
        let t0 = 1_750_000_020 / 60 * 60;
        let mut read = MetricsRead {
            series: std::collections::BTreeMap::new(),
            insights: crate::source::dynamo::Insights::Off("DISABLED".into()),
            insights_mode: None,
            reports: Vec::new(),
            notes: Vec::new(),
        };
        read.series
            .insert("ProvisionedWriteCapacityUnits", vec![(t0, 5.0)]);
        assert!(
            metrics_trace(&read, "CloudWatch metrics of T")
                .unwrap()
                .is_none(),
            "an idle table's provisioned capacity is no traffic"
        );
        read.series.insert(
            "ConsumedWriteCapacityUnits",
            vec![(t0, 600.0), (t0 + 60, 1_200.0)],
        );
        read.series
            .insert("WriteThrottleEvents", vec![(t0 + 60, 3.0)]);
        let load = metrics_trace(&read, "CloudWatch metrics of T")
            .unwrap()
            .unwrap();
        assert_eq!(load.observed.len(), 2, "two minutes observed");
        assert_eq!(
            load.files[0].path,
            std::path::Path::new("CloudWatch metrics of T")
        );
    }
}
