//! A short soak of the stream reader (issue 61): a simulated DynamoDB Streams service
//! (`tests/support/stream_sim.rs`) on a paused clock, a day of history and a day watched, shards rolling
//! over and splitting every hour, iterators expiring, throttling bursts, trimmed records and children listed
//! late. Every record is read once (but those trimmed before they could be read), in its shard's order, and
//! the feed's counts are the script's. `scripts/soak.sh` runs the long one.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/stream_sim.rs"]
mod stream_sim;

use shardlens::source::dynamo::StreamStatus;
use stream_sim::{Script, key_name, soak};

#[test]
fn a_simulated_day_of_a_stream_is_read_once_with_every_fault() {
    let script = Script {
        max_shards: 6,
        ..Script::day(1.0, 20_000)
    };
    let soaked = soak(script, &mut |_| {}).unwrap();
    let (read, check, sim) = (&soaked.read, &soaked.check, &soaked.sim);
    let counts = sim.counts();
    eprintln!(
        "{:?} in {:.1} s wall; {:?}; {:?}; {counts:?}",
        read.status,
        soaked.wall.as_secs_f64(),
        read.progress,
        (
            check.delivered,
            check.skipped_trimmed,
            check.lost,
            check.duplicates,
            &check.said
        )
    );
    assert_eq!(read.status, StreamStatus::Closed, "{read:?}");
    assert!(check.clean(), "{check:?}");
    assert!(counts.violations.is_empty(), "{:?}", counts.violations);
    assert_eq!(
        read.progress.duplicates, 0,
        "the service never served twice"
    );
    // Every fault happened.
    assert!(
        counts.expired_scripted > 0 && counts.throttled > 0 && counts.trimmed > 0,
        "{counts:?}"
    );
    assert!(read.progress.renewed > 0 && read.progress.retries > 0);
    assert!(
        read.notes.iter().any(|n| n.contains("trimmed")),
        "{:?}",
        read.notes
    );
    // The counts: what was written, less what was trimmed before it could be read.
    let (written, unread, per_key) = sim.expected();
    assert!(unread > 0 && unread < written / 10, "{unread} of {written}");
    assert_eq!(check.delivered, written - unread);
    assert_eq!(check.skipped_trimmed, unread);
    assert_eq!(soaked.feed.records(), written - unread);
    assert_eq!(read.progress.records, written - unread);
    let keys = soaked.feed.keys().unwrap();
    assert_eq!(keys.total(), written - unread);
    let distinct = per_key.iter().filter(|&&n| n > 0).count();
    assert_eq!(keys.len(), distinct);
    for (k, &n) in per_key.iter().enumerate() {
        if n > 0 {
            let idx = keys.find(key_name(k as u64).as_bytes()).unwrap();
            assert_eq!(keys.count(idx), u64::from(n), "{}", key_name(k as u64));
        }
    }
    assert_eq!(soaked.hours.len(), 24, "{:?}", soaked.hours);
}
