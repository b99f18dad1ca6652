//! The stream reader against a scripted stream: shards that close and have children, throttling, expired
//! iterators and trimmed data. Nothing may be lost or counted twice.

use std::collections::HashMap;
use std::sync::Mutex;

use super::*;

/// A shard of the fake: its records' sequence numbers and whether it is closed.
#[derive(Default)]
struct FakeShard {
    parent: Option<String>,
    seqs: Vec<u64>,
    closed: bool,
}

#[derive(Default)]
struct State {
    shards: Vec<(String, FakeShard)>,
    /// GetRecords calls so far, and the error code to answer call `n` with.
    calls: u64,
    faults: HashMap<u64, &'static str>,
    /// Records per GetRecords page.
    page: usize,
    /// DescribeStream's `StreamStatus` is ENABLED (children may come though none is listed).
    enabled: bool,
}

#[derive(Default)]
struct Fake(Mutex<State>);

fn service(code: &str) -> DynamoError {
    DynamoError::Service {
        operation: "GetRecords",
        code: code.to_owned(),
        message: "scripted".to_owned(),
    }
}

impl Fake {
    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.0.lock().unwrap())
    }

    fn shard(&self, id: &str, parent: Option<&str>, seqs: std::ops::Range<u64>, closed: bool) {
        self.with(|s| {
            s.shards.push((
                id.to_owned(),
                FakeShard {
                    parent: parent.map(str::to_owned),
                    seqs: seqs.collect(),
                    closed,
                },
            ));
        });
    }

    fn push(&self, id: &str, seqs: std::ops::Range<u64>) {
        self.with(|s| {
            if let Some((_, sh)) = s.shards.iter_mut().find(|(i, _)| i == id) {
                sh.seqs.extend(seqs);
            }
        });
    }

    fn close(&self, id: &str) {
        self.with(|s| {
            if let Some((_, sh)) = s.shards.iter_mut().find(|(i, _)| i == id) {
                sh.closed = true;
            }
        });
    }
}

impl StreamApi for Fake {
    async fn shards(&self) -> Result<Vec<ShardInfo>, DynamoError> {
        Ok(self.with(|s| {
            s.shards
                .iter()
                .map(|(id, sh)| ShardInfo {
                    id: id.clone(),
                    parent: sh.parent.clone(),
                    closed: sh.closed,
                })
                .collect()
        }))
    }

    async fn iterator(&self, shard: &str, at: &IteratorAt) -> Result<String, DynamoError> {
        self.with(|s| {
            let (_, sh) = s.shards.iter().find(|(i, _)| i == shard).unwrap();
            let pos = match at {
                IteratorAt::TrimHorizon => 0,
                IteratorAt::Latest => sh.seqs.len(),
                IteratorAt::After(seq) => {
                    let seq: u64 = seq.parse().unwrap();
                    sh.seqs.iter().position(|&q| q == seq).unwrap() + 1
                }
            };
            Ok(format!("{shard}|{pos}"))
        })
    }

    async fn records(&self, iterator: &str) -> Result<RecordsPage, DynamoError> {
        self.with(|s| {
            let n = s.calls;
            s.calls += 1;
            if let Some(code) = s.faults.get(&n) {
                return Err(service(code));
            }
            let (shard, pos) = iterator.split_once('|').unwrap();
            let pos: usize = pos.parse().unwrap();
            let page = s.page.max(1);
            let (_, sh) = s.shards.iter().find(|(i, _)| i == shard).unwrap();
            let end = (pos + page).min(sh.seqs.len());
            let records = sh.seqs[pos..end]
                .iter()
                .map(|q| StreamRecord {
                    sequence: q.to_string(),
                    json: serde_json::json!({ "seq": q, "shard": shard }),
                })
                .collect();
            let next = (!(sh.closed && end == sh.seqs.len())).then(|| format!("{shard}|{end}"));
            Ok(RecordsPage { records, next })
        })
    }

    async fn enabled(&self) -> Result<bool, DynamoError> {
        Ok(self.with(|s| s.enabled))
    }
}

fn quick(from: StreamStart) -> StreamOptions {
    StreamOptions {
        from,
        max_rps: 10_000.0,
        backoff: Backoff {
            base: Duration::from_millis(1),
            max: Duration::from_millis(5),
        },
        poll: Duration::from_millis(5),
        describe_every: Duration::from_millis(20),
        ..StreamOptions::new("t")
    }
}

/// Runs the reader until it ends; the sequence numbers in the order they arrived.
fn read(fake: Arc<Fake>, opts: &StreamOptions) -> (Vec<u64>, StreamRead) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut seen = Vec::new();
    let cancel = AtomicBool::new(false);
    let read = rt.block_on(run_stream(fake, opts, &cancel, &mut |e| {
        if let StreamEvent::Records { records, .. } = e {
            seen.extend(records.iter().map(|r| r["seq"].as_u64().unwrap()));
        }
    }));
    (seen, read)
}

#[test]
fn parents_are_read_before_children_and_every_record_once() {
    let fake = Arc::new(Fake::default());
    fake.with(|s| s.page = 3);
    fake.shard("b-child", Some("a-parent"), 100..107, true);
    fake.shard("a-parent", None, 0..10, true);
    fake.shard("c-other", None, 200..204, true);
    let (seen, read) = read(fake, &quick(StreamStart::TrimHorizon));
    assert_eq!(read.status, StreamStatus::Closed, "{read:?}");
    let mut sorted = seen.clone();
    sorted.sort_unstable();
    let want: Vec<u64> = (0..10).chain(100..107).chain(200..204).collect();
    assert_eq!(sorted, want, "every record exactly once");
    let last_parent = seen.iter().position(|&q| q == 9).unwrap();
    let first_child = seen.iter().position(|&q| q == 100).unwrap();
    assert!(last_parent < first_child, "{seen:?}");
    assert_eq!(read.progress.records, 21);
    assert_eq!(read.progress.shards_done, 3);
}

#[test]
fn throttling_expired_iterators_and_trimmed_data_lose_nothing_and_repeat_nothing() {
    let fake = Arc::new(Fake::default());
    fake.with(|s| {
        s.page = 2;
        s.faults = HashMap::from([
            (1, "LimitExceededException"),
            (2, "ProvisionedThroughputExceededException"),
            (4, "ExpiredIteratorException"),
            (6, "InternalServerError"),
            (8, "ExpiredIteratorException"),
        ]);
    });
    fake.shard("s1", None, 0..13, true);
    let (seen, read) = read(fake.clone(), &quick(StreamStart::TrimHorizon));
    assert_eq!(read.status, StreamStatus::Closed, "{read:?}");
    assert_eq!(seen, (0..13).collect::<Vec<_>>());
    assert_eq!(read.progress.retries, 3, "{:?}", read.progress);
    assert_eq!(read.progress.renewed, 2, "{:?}", read.progress);
    assert_eq!(read.progress.duplicates, 0);
}

#[test]
fn from_latest_skips_history_and_follows_a_shard_that_closes_into_a_child() {
    let fake = Arc::new(Fake::default());
    fake.with(|s| s.page = 4);
    fake.shard("old", None, 0..50, true);
    fake.shard("live", Some("old"), 50..60, false);
    let writer = {
        let fake = fake.clone();
        std::thread::spawn(move || {
            // Wait until the reader has its iterator (its first GetRecords), then write.
            let deadline = web_time::Instant::now() + Duration::from_secs(10);
            while fake.with(|s| s.calls) == 0 && web_time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            fake.push("live", 60..66);
            // The shard closes; its child takes the next writes.
            fake.close("live");
            fake.shard("next", Some("live"), 66..70, true);
        })
    };
    let (seen, read) = read(fake, &quick(StreamStart::Latest));
    writer.join().unwrap();
    assert_eq!(read.status, StreamStatus::Closed, "{read:?}");
    assert_eq!(seen, (60..70).collect::<Vec<_>>());
}

#[test]
fn a_child_listed_late_is_waited_for_while_the_stream_is_enabled() {
    // One shard closes; DescribeStream lists its child only a while later. The stream is still enabled:
    // the read goes on and reads the child (before, every listed shard read ended it as "closed").
    let fake = Arc::new(Fake::default());
    fake.with(|s| {
        s.page = 10;
        s.enabled = true;
    });
    fake.shard("a", None, 0..5, true);
    let writer = {
        let fake = fake.clone();
        std::thread::spawn(move || {
            let deadline = web_time::Instant::now() + Duration::from_secs(10);
            while fake.with(|s| s.calls) == 0 && web_time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            // Several of the reader's looks for new shards find none.
            std::thread::sleep(Duration::from_millis(200));
            fake.shard("b", Some("a"), 5..8, true);
            fake.with(|s| s.enabled = false);
        })
    };
    let (seen, read) = read(fake, &quick(StreamStart::TrimHorizon));
    writer.join().unwrap();
    assert_eq!(read.status, StreamStatus::Closed, "{read:?}");
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

#[test]
fn a_call_that_fails_for_good_ends_the_read_keeping_what_was_read() {
    let fake = Arc::new(Fake::default());
    fake.with(|s| {
        s.page = 5;
        s.faults = HashMap::from([(1, "AccessDeniedException")]);
    });
    fake.shard("s1", None, 0..20, false);
    let (seen, read) = read(fake, &quick(StreamStart::TrimHorizon));
    assert!(
        matches!(&read.status, StreamStatus::Failed(DynamoError::Service { code, .. }) if code == "AccessDeniedException"),
        "{read:?}"
    );
    assert_eq!(seen, (0..5).collect::<Vec<_>>());
}

#[test]
fn the_duration_ends_an_open_stream() {
    let fake = Arc::new(Fake::default());
    fake.shard("s1", None, 0..3, false);
    let opts = StreamOptions {
        duration: Some(Duration::from_millis(200)),
        ..quick(StreamStart::TrimHorizon)
    };
    let (seen, read) = read(fake, &opts);
    assert_eq!(read.status, StreamStatus::Finished);
    assert_eq!(seen, vec![0, 1, 2]);
}

#[test]
fn sequence_numbers_compare_as_numbers() {
    assert!(seq_after("100", "99"));
    assert!(!seq_after("99", "100"));
    assert!(seq_after(
        "1100000000017454423010",
        "1100000000017454423009"
    ));
    assert!(!seq_after("5", "5"));
}
