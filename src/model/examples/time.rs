//! Built-in scenarios over time (`shardlens simulate --example NAME`; Examples > Over time in the app), each
//! a scenario file that tells one story from the documentation and reaches its own outcome.

/// A built-in scenario: its name on the command line, and its TOML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    pub name: &'static str,
    pub toml: &'static str,
}

pub const EXAMPLES: [Example; 10] = [
    Example {
        name: "adaptive",
        toml: r#"name = "Adaptive capacity (AWS's example)"
description = "400 WCU over 4 partitions (100 each). Three get 50 WCU/s, one gets 150: adaptive capacity lets it borrow what the others leave unused, at once. Turn adaptive_capacity off to see the share-plus-burst days: burst lasts 600 s, then 50 WCU/s throttle."
duration = "20m"
[table]
billing = "provisioned"
wcu = 400
partitions = 4
[[traffic]]
keys = "partition:0"
writes_per_sec = 50
[[traffic]]
keys = "partition:1"
writes_per_sec = 50
[[traffic]]
keys = "partition:2"
writes_per_sec = 50
[[traffic]]
keys = "partition:3"
writes_per_sec = 150
"#,
    },
    Example {
        name: "burst",
        toml: r#"name = "Burst after idle"
description = "150 RCU, idle for 5 minutes: 45,000 units banked. 200 strongly consistent reads/s of 4 KB are served for 900 s, then 50 RCU/s throttle."
duration = "20m"
[table]
billing = "provisioned"
rcu = 150
idle_before = "5m"
[[traffic]]
key = "REPORT#daily"
reads_per_sec = 200
item_size = 4096
"#,
    },
    Example {
        name: "tournament-monotonic",
        toml: r#"name = "Tournament final: an only-increasing sort key"
description = "ARENA#7f3a takes 4,000 writes/s of 1 KB with a timestamp sort key. Every new item lands at the end of the collection, so split-for-heat cannot divide it: 1,000 served every second, 3,000 throttled for ever."
duration = "30m"
[[traffic]]
key = "ARENA#7f3a"
writes_per_sec = 4000
sort_key = "monotonic"
"#,
    },
    Example {
        name: "tournament-random",
        toml: r#"name = "Tournament final: a random sort key"
description = "The same 4,000 writes/s, with random sort keys. After about 8 minutes near its limit, split-for-heat divides the collection, and again, until every partition is under 1,000 WCU."
duration = "40m"
[[traffic]]
key = "ARENA#7f3a"
writes_per_sec = 4000
sort_key = "random"
"#,
    },
    Example {
        name: "tournament-sharded",
        toml: r#"name = "Tournament final, write-sharded ×10"
description = "ARENA#7f3a#0 … #9 share the 4,000 writes/s: 400 each, on a table that has served 4,000 writes/s before (8 partitions). At most two shards share a partition, so nothing throttles from the first second. On a new table's 4 partitions, three shards share one and 200 WCU/s still throttle: shards collide."
duration = "30m"
[table]
billing = "on-demand"
previous_peak_writes = 4000
[[traffic]]
keys = "tournament-shards.txt"
writes_per_sec = 4000
sort_key = "monotonic"
"#,
    },
    Example {
        name: "celebrity-reads",
        toml: r#"name = "Celebrity leaderboard reads"
description = "BOARD#global is read 9,000 times a second (strongly consistent, 4 KB): one item, capped at 3,000 read units. No split divides one item: cache it, or shard it."
duration = "20m"
[[traffic]]
key = "BOARD#global"
reads_per_sec = 9000
item_size = 4096
sort_key = "single-item"
[[traffic]]
keys = "uniform:10000"
reads_per_sec = 2000
"#,
    },
    Example {
        name: "date-key",
        toml: r#"name = "Today's date as the key, across midnight"
description = "ORDERS#<today> takes 2,500 writes/s. Splits relieve it after a while, then at midnight a new key starts on one partition and throttles again."
duration = "50m"
start = "2026-06-23T23:35:00Z"
[[traffic]]
key = "ORDERS#{date}"
writes_per_sec = 2500
sort_key = "random"
"#,
    },
    Example {
        name: "spike",
        toml: r#"name = "A one-second spike"
description = "100 writes/s on a 1,000 WCU table, and one second of 5,000: 4,000 throttled in that second, in a minute whose consumed sum is 6,900 WCU, an average of 11.5 %."
duration = "3m"
[table]
billing = "provisioned"
wcu = 1000
idle_before = "0s"
[[traffic]]
key = "EVENTS#live"
writes_per_sec = [[0, 100], [90, 5000], [91, 100]]
"#,
    },
    Example {
        name: "on-demand-growth",
        toml: r#"name = "On-demand from a 50,000/s peak to 250,000/s"
description = "On-demand serves twice the previous peak at once; the peak it has served becomes the new one after 30 minutes. 100,000, then 200,000, then all 250,000: about an hour."
duration = "90m"
step = "1m"
[table]
billing = "on-demand"
previous_peak_writes = 50000
quota_writes = 1000000
split_for_heat = false
[[traffic]]
keys = "uniform:100000"
writes_per_sec = 250000
"#,
    },
    Example {
        name: "autoscaling",
        toml: r#"name = "Provisioned auto scaling under a step"
description = "500 WCU with target tracking at 70 %. Traffic steps from 300 to 1,200 writes/s at 10 minutes: it throttles until auto scaling has seen two minutes over its target and the new capacity applies."
duration = "40m"
[table]
billing = "provisioned"
wcu = 500
idle_before = "0s"
[table.autoscaling]
target = 0.7
min_wcu = 100
max_wcu = 4000
[[traffic]]
keys = "uniform:5000"
writes_per_sec = [[0, 300], ["10m", 1200]]
"#,
    },
];

/// The key file the sharded tournament names: ARENA#7f3a#0 … #9, one write each (equal shares).
pub const TOURNAMENT_SHARDS: &str = "ARENA#7f3a#0\nARENA#7f3a#1\nARENA#7f3a#2\nARENA#7f3a#3\nARENA#7f3a#4\nARENA#7f3a#5\nARENA#7f3a#6\nARENA#7f3a#7\nARENA#7f3a#8\nARENA#7f3a#9\n";

/// The built-in scenario called `name`.
pub fn example(name: &str) -> Option<Example> {
    EXAMPLES.iter().copied().find(|e| e.name == name)
}

/// A built-in scenario's key files, by the name the scenario uses.
pub fn example_key_file(name: &str) -> Option<&'static str> {
    (name == "tournament-shards.txt").then_some(TOURNAMENT_SHARDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sim_file::{KeySource, parse};
    use crate::model::simulate::{
        Diagnosis, EventKind, FindingKind, Keys, Why, diagnose, run, run_streaming, time_evidence,
    };

    fn setup_of(name: &str) -> crate::model::simulate::Setup {
        let e = example(name).unwrap();
        let mut s = parse(e.toml, 1_782_172_800).unwrap();
        for (i, k) in s.keys.iter().enumerate() {
            if let KeySource::File(f) = k {
                let text = example_key_file(f).unwrap_or_else(|| panic!("{name}: {f}"));
                s.setup.traffic[i].keys =
                    Keys::Weighted(text.lines().map(|l| (l.to_owned(), 1.0)).collect());
            }
        }
        s.setup
    }

    fn outcome(name: &str) -> crate::model::simulate::Outcome {
        run(&setup_of(name))
    }

    fn diagnosis(name: &str) -> Diagnosis {
        let s = setup_of(name);
        let (o, tl) = run_streaming(&s, &mut |_| true).unwrap();
        let d = diagnose(&s, &o, &tl);
        eprintln!("{name}: {}", d.headline);
        for f in &d.findings {
            eprintln!(
                "    {:?} {}–{} {:?}: {}",
                f.kind, f.from, f.until, f.partition, f.text
            );
        }
        d
    }

    #[test]
    fn every_example_is_diagnosed_in_words() {
        for e in EXAMPLES {
            diagnosis(e.name);
        }
        let calm =
            |name: &str| diagnosis(name).headline == "No throttling: every request was served";
        assert!(calm("adaptive") && calm("tournament-sharded"));
        let d = diagnosis("tournament-monotonic");
        assert!(d.headline.starts_with("Never stopped"), "{}", d.headline);
        assert!(
            d.headline.contains("sort key only increases"),
            "{}",
            d.headline
        );
        let hot = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::HotPartition)
            .unwrap();
        assert!(
            hot.text.contains("at 400 % of 1,000 WCU for 30 min"),
            "{}",
            hot.text
        );
        assert_eq!((hot.from, hot.until), (0, 1_800));
        assert!(hot.partition.is_some());
        let d = diagnosis("tournament-random");
        assert!(
            d.headline.contains("split-for-heat relieved it"),
            "{}",
            d.headline
        );
        assert!(d.findings.iter().any(|f| f.kind == FindingKind::Episode
            && f.text.starts_with("throttling stopped after")
            && f.text.contains("split-for-heat divided partition")));
        let d = diagnosis("celebrity-reads");
        assert!(d.headline.contains("single hot item"), "{}", d.headline);
        let d = diagnosis("burst");
        assert!(d.findings.iter().any(|f| f.kind == FindingKind::BurstSpent
            && f.text.starts_with("burst capacity ran out after 15 min")
            && f.from == 900));
        let d = diagnosis("spike");
        let spike = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::HiddenSpike)
            .unwrap();
        assert!(
            spike.text.contains("reads 12 %") && spike.text.contains("4,000 writes"),
            "{}",
            spike.text
        );
        assert_eq!((spike.from, spike.until), (60, 120));
        assert!(
            diagnosis("autoscaling")
                .headline
                .contains("auto scaling relieved it")
        );
        assert!(
            !diagnosis("autoscaling")
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::BurstSpent)
        );
        assert!(
            diagnosis("on-demand-growth")
                .headline
                .contains("on-demand growth relieved it")
        );
        assert!(
            diagnosis("date-key")
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::KeyRotated)
        );
    }

    #[test]
    fn time_evidence_says_when_and_why() {
        let evidence = |name: &str| {
            let s = setup_of(name);
            let (o, tl) = run_streaming(&s, &mut |_| true).unwrap();
            time_evidence(&s, &o, &tl)
        };
        let e = evidence("tournament-monotonic");
        assert_eq!(
            (e.started, e.stopped, e.why),
            (Some(0), None, Why::SortKeyIncreases)
        );
        assert_eq!(e.text, "never stopped: the sort key only increases");
        let e = evidence("tournament-random");
        assert_eq!(e.why, Why::SplitForHeat);
        assert!(e.stopped.is_some_and(|t| t > 8 * 60));
        assert!(
            e.text.starts_with("throttling stopped after") && e.text.ends_with("split-for-heat")
        );
        assert_eq!(evidence("celebrity-reads").why, Why::SingleItem);
        assert_eq!(evidence("adaptive").why, Why::NoThrottling);
    }

    fn throttled(o: &crate::model::simulate::Outcome, at: usize) -> f64 {
        o.series.write_throttled_units[at] + o.series.read_throttled_units[at]
    }

    #[test]
    fn every_example_parses_and_tells_its_story() {
        for e in EXAMPLES {
            if let Err(err) = parse(e.toml, 0) {
                panic!("{}: {err}", e.name);
            }
        }
        let o = outcome("adaptive");
        assert!(o.series.write_throttled_units.iter().all(|&x| x == 0.0));
        let o = outcome("burst");
        assert_eq!(throttled(&o, 899), 0.0);
        assert!(throttled(&o, 950) > 0.0);
        let o = outcome("tournament-monotonic");
        assert!(throttled(&o, 1_799) > 2_999.0);
        let o = outcome("tournament-random");
        assert!(throttled(&o, 60) > 0.0);
        assert_eq!(throttled(&o, 2_399), 0.0);
        let o = outcome("tournament-sharded");
        assert!(o.series.write_throttled_units.iter().all(|&x| x == 0.0));
        let o = outcome("celebrity-reads");
        assert!(
            o.series
                .read_throttled_units
                .last()
                .is_some_and(|&x| x > 5_000.0)
        );
        let o = outcome("date-key");
        assert!(o.events.iter().any(|e| e.kind == EventKind::KeyRotated));
        let o = outcome("spike");
        assert!((o.minutes[1].consumed_write_units - 6_900.0).abs() < 1e-6);
        let o = outcome("on-demand-growth");
        assert!(
            o.series
                .write_throttled_units
                .last()
                .is_some_and(|&x| x < 1.0)
        );
        let o = outcome("autoscaling");
        assert!(o.events.iter().any(|e| e.kind == EventKind::Scale));
        assert!(throttled(&o, 11) == 0.0);
        assert!(
            o.series
                .write_throttled_units
                .last()
                .is_some_and(|&x| x == 0.0)
        );
    }
}
