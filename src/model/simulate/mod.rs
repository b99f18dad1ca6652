//! A table over time, second by second: burst capacity, adaptive capacity, split-for-heat, on-demand growth,
//! provisioned auto scaling and splits for size, from the rules in `shared/DYNAMODB-TIME.md` (R1–R7) and R8
//! (a partition holds about 10 GB: one that grows past it splits). Pure and deterministic for a seed.
//!
//! Each rule is cited where it is encoded; every choice the documentation does not make is marked **\[ours\]**
//! and is a named field of [`Params`] with its default.
//!
//! **Partitions** are ranges of a two-level key space: the 64-bit teaching hash of the partition key, then, for
//! one key, a position in `[0, 1)` of its sort-key range. They start as the equal hash ranges of
//! [`crate::model::partition::Partitioner::equal`]; split-for-heat divides one at the traffic median of its
//! range, which can fall *inside* one key's item collection (R4: "an item collection can be split by sort
//! key"), and partitions never merge. A key's writes sit in that space by its sort key: spread over its whole
//! range (random sort keys), at the end of it (only increasing: every new item is the greatest), or at one
//! point (a single item).
//!
//! **Storage** (R8) is spread over the key space evenly (**\[ours\]**): a partition holds its share of the
//! key space of the table's size, which grows at a constant rate; a partition splits at the middle of its
//! range in the second it passes 10 GB. Its share only changes when it splits, so the second it will pass
//! 10 GB is known in closed form, and a run does no per-second work for R8 until then.
//!
//! The files, by concept: `setup.rs` (what a run takes and gives), `keys.rs` (the key space), `engine.rs`
//! (the state and the phases of a second), `allocate.rs` (R1–R3, R5's ceiling: what a partition serves),
//! `splits.rs` (R4), `size.rs` (R8), `scaling.rs` (R5's peaks, R6), `account.rs` (series and minutes),
//! `record.rs` (the [`Timeline`] and its streamed [`Chunk`]s), `timeline.rs` (the Timeline's data),
//! `diagnose.rs` (the run in words).

use super::capacity::{
    MAX_PARTITIONS, PARTITION_BYTES, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS, ThrottleCause,
};

mod account;
mod allocate;
mod diagnose;
mod engine;
mod episodes;
mod keys;
#[cfg(test)]
mod laws;
mod observed;
mod record;
mod scaling;
mod setup;
mod size;
mod splits;
mod timeline;

/// R1: one partition's read and write ceilings (units per second), never lifted.
const R1: [f64; 2] = [PARTITION_READ_UNITS, PARTITION_WRITE_UNITS];
const READ: usize = 0;
const WRITE: usize = 1;

/// R8 \[doc: "Partitions and data distribution in DynamoDB"\]: a partition that fills up gets a new one beside
/// it; one holds about 10 GB, in the GB that [`Table::size_gb`] counts (2³⁰ bytes, as [`PARTITION_BYTES`]).
pub(crate) const PARTITION_GB: f64 = PARTITION_BYTES as f64 / 1_073_741_824.0;
/// The most partitions a run keeps (its start, and splits for size).
pub(crate) const MAX_RUN_PARTITIONS: usize = MAX_PARTITIONS * 64;

pub use diagnose::*;
pub use engine::initial_partitions;
pub use keys::{
    date_of_day, key_evidence, key_in_partition, key_set, shard_keys, sort_key_facts,
    stand_in_keys_note,
};
pub use observed::{
    Agreement, MinuteComparison, ObservedEvents, ReasonComparison, agreement, reconcile,
    reconcile_time,
};
pub use record::{RANGE_KEYS, chunk_seconds, run_streaming};
pub use setup::*;
pub use timeline::*;

/// A position in the key space: hash, then place in that key's sort-key range.
pub type Point = (u64, f64);

fn before(a: Point, b: Point) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// Runs `setup` and returns its series, minutes, events and final partitions.
pub fn run(setup: &Setup) -> Outcome {
    let mut sim = engine::Sim::new(setup);
    for t in 0..setup.duration {
        sim.step(t);
    }
    sim.finish()
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::Consistency;

    /// A run of `traffic` on `table` from 2026-06-23T00:00:00Z, reported every second (the module's tests and
    /// the diagnosis's).
    pub(super) fn setup(table: Table, traffic: Vec<Stream>, duration: u32) -> Setup {
        Setup {
            table,
            traffic,
            duration,
            step: 1,
            start: 1_782_172_800, // 2026-06-23T00:00:00Z
            seed: 1,
            params: Params::default(),
            trace: None,
        }
    }

    /// One key written `rate` times a second.
    pub(super) fn writes(key: &str, rate: f64, sort_key: SortKey) -> Stream {
        Stream {
            keys: Keys::One(key.to_owned()),
            writes_per_sec: Schedule::constant(rate),
            sort_key,
            ..Stream::default()
        }
    }

    fn key_in(p: usize, n: usize) -> String {
        key_in_partition(p, n)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn dates_from_day_numbers() {
        assert_eq!(date_of_day(0), "1970-01-01");
        assert_eq!(date_of_day(1_782_172_800 / 86_400), "2026-06-23");
        assert_eq!(date_of_day(11_016), "2000-02-29");
    }

    // R3 [doc: burst-adaptive-capacity]: 400 WCU over 4 partitions; three get 50 WCU/s, one 150.
    #[test]
    fn aws_adaptive_capacity_example() {
        let traffic: Vec<Stream> = [50.0, 50.0, 50.0, 150.0]
            .iter()
            .enumerate()
            .map(|(p, &rate)| writes(&key_in(p, 4), rate, SortKey::Random))
            .collect();
        let table = Table {
            billing: Billing::Provisioned {
                units: [0.0, 400.0],
            },
            partitions: Some(4),
            ..Table::default()
        };
        let on = run(&setup(table.clone(), traffic.clone(), 1_200));
        assert!(on.series.write_throttled_units.iter().all(|&x| x == 0.0));
        assert!(
            on.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 400.0 - 100.0))
        );
        // Without adaptive capacity: the share (100) plus burst (300 s × 100 banked while idle) lasts 600 s,
        // then 50 WCU/s throttle.
        let off = run(&setup(
            Table {
                adaptive_capacity: false,
                ..table
            },
            traffic,
            1_200,
        ));
        let thr = &off.series.write_throttled_units;
        assert!(thr[..600].iter().all(|&x| x == 0.0), "{:?}", &thr[590..610]);
        assert!(
            thr[601..].iter().all(|&x| close(x, 50.0)),
            "{:?}",
            &thr[598..605]
        );
        assert!(
            off.events
                .iter()
                .any(|e| e.kind == EventKind::BurstExhausted)
        );
    }

    // R2 [doc: re:Post "spiky workloads"]: 150 RCU, idle 5 min → 45,000 units banked; 200 RCU/s lasts 900 s.
    #[test]
    fn burst_after_idle() {
        let reads = |consistency| Stream {
            keys: Keys::One("REPORT".into()),
            reads_per_sec: Schedule::constant(200.0),
            item_size: 4096,
            consistency,
            ..Stream::default()
        };
        let table = |idle| Table {
            billing: Billing::Provisioned {
                units: [150.0, 0.0],
            },
            idle_before: idle,
            ..Table::default()
        };
        let out = run(&setup(table(300), vec![reads(Consistency::Strong)], 1_200));
        let thr = &out.series.read_throttled_units;
        assert!(thr[..900].iter().all(|&x| x == 0.0), "{:?}", &thr[895..905]);
        assert!(thr[901..].iter().all(|&x| close(x, 50.0)));
        let out = run(&setup(table(120), vec![reads(Consistency::Strong)], 600));
        let thr = &out.series.read_throttled_units;
        assert!(thr[..360].iter().all(|&x| x == 0.0));
        assert!(close(thr[361], 50.0));
        // Eventually consistent reads cost half: 100 RCU/s, within the 150 provisioned.
        let out = run(&setup(table(0), vec![reads(Consistency::Eventual)], 600));
        assert!(out.series.read_throttled_units.iter().all(|&x| x == 0.0));
    }

    // R1, R4: one key at 4,000 writes/s of 1 KB with an only-increasing sort key on a new on-demand table.
    #[test]
    fn a_monotonic_key_is_capped_for_ever() {
        let out = run(&setup(
            Table::default(),
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Monotonic)],
            1_800,
        ));
        assert!(
            out.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 1_000.0))
        );
        assert!(
            out.series
                .write_throttled_units
                .iter()
                .all(|&x| close(x, 3_000.0))
        );
        let m = &out.minutes[3];
        assert!(close(m.write_throttle_events, 180_000.0), "{m:?}");
        assert_eq!(m.throttle_reasons.len(), 1);
        assert_eq!(
            m.throttle_reasons[0].0,
            "TableWriteKeyRangeThroughputExceeded"
        );
        assert!(!out.events.iter().any(|e| e.kind == EventKind::Split));
        let skipped = out
            .events
            .iter()
            .find(|e| e.kind == EventKind::SplitSkipped)
            .unwrap();
        assert!(
            skipped.detail.contains("sort key only increases"),
            "{}",
            skipped.detail
        );
        assert!(skipped.t >= 8 * 60);
        // 1.5 KB items cost 2 units each: 500 writes/s are served.
        let mut big = writes("ARENA#7f3a", 4_000.0, SortKey::Monotonic);
        big.item_size = 1_536;
        let out = run(&setup(Table::default(), vec![big], 120));
        assert!(
            out.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 1_000.0))
        );
        let served_requests = 4_000.0 - out.series.throttled_requests[60];
        assert!(close(served_requests, 500.0), "{served_requests}");
    }

    // R4: the same key with random sort keys is relieved by splits, in steps, never before `split_after`.
    #[test]
    fn a_random_sort_key_is_relieved_by_splits() {
        let out = run(&setup(
            Table::default(),
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Random)],
            3_600,
        ));
        let served = &out.series.write_served_units;
        let first = out
            .events
            .iter()
            .find(|e| e.kind == EventKind::Split)
            .unwrap();
        assert!(first.t + 1 >= 8 * 60, "no split before 8 min: {}", first.t);
        assert!(first.t < 8 * 60 + 120, "{first:?}");
        assert!(served[..8 * 60].iter().all(|&x| close(x, 1_000.0)));
        assert!(
            close(served[first.t as usize + 1], 2_000.0),
            "{}",
            served[first.t as usize + 1]
        );
        assert!(
            close(*served.last().unwrap(), 4_000.0),
            "{:?}",
            served.last()
        );
        // Partitions never fewer; served rises in steps, never falls.
        for w in out.series.partitions.windows(2) {
            assert!(w[1] >= w[0]);
        }
        for w in served.windows(2) {
            assert!(w[1] + 1e-9 >= w[0]);
        }
        // With a local secondary index the collection is never split.
        let lsi = run(&setup(
            Table {
                lsi: true,
                ..Table::default()
            },
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Random)],
            1_200,
        ));
        assert!(
            lsi.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 1_000.0))
        );
        assert!(lsi.events.iter().any(
            |e| e.kind == EventKind::SplitSkipped && e.detail.contains("local secondary index")
        ));
    }

    // R5 [doc blog "Demystifying on-demand"]: from a 50,000/s peak to 250,000/s takes about an hour.
    #[test]
    fn on_demand_doubles_its_previous_peak() {
        let table = Table {
            billing: Billing::OnDemand {
                previous_peak: [0.0, 50_000.0],
                quota: [1e6, 1e6],
                max: [0.0, 0.0],
            },
            split_for_heat: false,
            ..Table::default()
        };
        let traffic = vec![Stream {
            keys: Keys::Uniform(100_000),
            writes_per_sec: Schedule::constant(250_000.0),
            ..Stream::default()
        }];
        let out = run(&setup(table, traffic, 2 * 3_600));
        let served = &out.series.write_served_units;
        let near = |x: f64, want: f64| (x - want).abs() <= 0.02 * want;
        assert!(near(served[60], 100_000.0), "{}", served[60]);
        assert!(near(served[40 * 60], 200_000.0), "{}", served[40 * 60]);
        assert!(near(served[100 * 60], 250_000.0), "{}", served[100 * 60]);
        let adopted: Vec<u32> = out
            .events
            .iter()
            .filter(|e| e.kind == EventKind::PeakAdopted)
            .map(|e| e.t)
            .collect();
        // 100,000 after 30 min, 200,000 after another 30: about an hour to 250,000 (then 250,000 is adopted).
        assert!(adopted.len() >= 2, "{:?}", out.events);
        assert!(adopted[0] >= 30 * 60 && adopted[1] < 65 * 60, "{adopted:?}");
    }

    // R7: a one-second spike throttles thousands of requests inside a minute whose average looks calm.
    #[test]
    fn a_one_second_spike_hides_in_the_minute() {
        let table = Table {
            billing: Billing::Provisioned {
                units: [0.0, 1_000.0],
            },
            idle_before: 0,
            ..Table::default()
        };
        let traffic = vec![Stream {
            keys: Keys::One("EVENT".into()),
            writes_per_sec: Schedule(vec![(0, 100.0), (30, 5_000.0), (31, 100.0)]),
            ..Stream::default()
        }];
        let out = run(&setup(table, traffic, 60));
        assert!(close(out.series.write_throttled_units[30], 4_000.0));
        assert!(close(out.minutes[0].write_throttle_events, 4_000.0));
        assert!(
            close(out.minutes[0].consumed_write_units, 6_900.0),
            "{}",
            out.minutes[0].consumed_write_units
        );
    }

    #[test]
    fn a_date_key_rotates_at_midnight() {
        let mut s = setup(
            Table::default(),
            vec![writes("ORDERS#{date}", 2_000.0, SortKey::Random)],
            600,
        );
        s.start = 1_782_172_800 - 300; // five minutes before midnight
        let out = run(&s);
        let rotated: Vec<&Event> = out
            .events
            .iter()
            .filter(|e| e.kind == EventKind::KeyRotated)
            .collect();
        assert_eq!(rotated.len(), 1);
        assert_eq!(rotated[0].t, 300);
        assert!(rotated[0].detail.contains("ORDERS#2026-06-23"));
    }

    #[test]
    fn laws_served_within_demand_and_units_conserved() {
        for sort_key in [SortKey::Random, SortKey::Monotonic, SortKey::SingleItem] {
            let traffic = vec![
                writes("HOT", 3_000.0, sort_key),
                Stream {
                    keys: Keys::Uniform(500),
                    writes_per_sec: Schedule(vec![(0, 500.0), (300, 4_000.0)]),
                    reads_per_sec: Schedule::constant(2_000.0),
                    ..Stream::default()
                },
            ];
            let out = run(&setup(Table::default(), traffic, 1_500));
            let s = &out.series;
            for i in 0..s.t.len() {
                assert!(s.write_served_units[i] <= s.write_demand_units[i] + 1e-6);
                assert!(close(
                    s.write_served_units[i] + s.write_throttled_units[i],
                    s.write_demand_units[i]
                ));
                assert!(close(
                    s.read_served_units[i] + s.read_throttled_units[i],
                    s.read_demand_units[i]
                ));
                // R1 per partition bounds the table.
                assert!(s.write_served_units[i] <= s.partitions[i] as f64 * 1_000.0 + 1e-6);
            }
            for w in s.partitions.windows(2) {
                assert!(w[1] >= w[0]);
            }
        }
    }

    /// Runs `s` streaming, and checks that the chunks rebuild exactly what `run` and `run_streaming` return.
    pub(super) fn streamed(s: &Setup) -> (Outcome, Timeline, usize) {
        let mut outcome = Outcome::default();
        let mut timeline = Timeline::default();
        let mut chunks = 0;
        let (o, tl) = run_streaming(s, &mut |chunk| {
            chunks += 1;
            outcome.push(&chunk);
            timeline.push(chunk);
            true
        })
        .unwrap();
        assert_eq!(o, run(s));
        assert_eq!(outcome, o);
        assert_eq!(timeline, tl);
        (o, tl, chunks)
    }

    #[test]
    fn streaming_records_columns_layouts_and_keys() {
        let s = setup(
            Table::default(),
            vec![
                writes("ARENA#7f3a", 4_000.0, SortKey::Random),
                Stream {
                    keys: Keys::Uniform(50),
                    writes_per_sec: Schedule::constant(100.0),
                    ..Stream::default()
                },
            ],
            1_800,
        );
        let (o, tl, chunks) = streamed(&s);
        // 30 min at 1 s: one-second columns, a chunk every minute.
        assert_eq!(tl.column_seconds, 1);
        assert_eq!(tl.columns.len(), 1_800);
        assert_eq!(chunks, 30);
        // A new layout after every split, each with one more partition; every key counted once per layout
        // (the hot collection once per range it spans).
        let splits = o
            .events
            .iter()
            .filter(|e| e.kind == EventKind::Split)
            .count();
        assert!(splits >= 2, "{:?}", o.events);
        assert_eq!(tl.layouts.len(), splits + 1);
        for w in tl.layouts.windows(2) {
            assert_eq!(w[1].len(), w[0].len() + 1);
        }
        let first = &tl.layouts[0];
        assert_eq!(first.iter().map(|r| r.key_count).sum::<usize>(), 51);
        assert!(
            first
                .iter()
                .all(|r| r.keys.len() <= RANGE_KEYS.min(r.key_count))
        );
        assert!(
            first
                .iter()
                .any(|r| r.keys.iter().any(|k| k == "ARENA#7f3a"))
        );
        // The hot partition's cell at 00:01:00: 4,000 + its share of 100 asked (over 400 % of R1), 1,000
        // served, the rest thrown back as a key-range reason.
        let (col, layout) = tl.column_at(60).unwrap();
        assert_eq!(col.t, 60);
        assert_eq!(col.cells.len(), layout.len());
        let hot = col
            .cells
            .iter()
            .max_by(|a, b| a.peak_use[1].total_cmp(&b.peak_use[1]))
            .unwrap();
        assert!(hot.peak_use[1] >= 4.0, "{hot:?}");
        assert!(close(f64::from(hot.served[1]), 1_000.0), "{hot:?}");
        assert_eq!(
            hot.reason,
            Some((Dim::Write, ThrottleCause::KeyRangeThroughputExceeded))
        );
        // Served over all cells of a column is the series' served at that second.
        for i in [0usize, 600, 1_799] {
            let (col, _) = tl.column_at(i as u32).unwrap();
            let sum: f64 = col.cells.iter().map(|c| f64::from(c.served[1])).sum();
            assert!(
                (sum - o.series.write_served_units[i]).abs() < 0.5,
                "{i}: {sum}"
            );
        }
        assert!(tl.column_at(1_800).is_none());
    }

    #[test]
    fn long_runs_get_wider_columns_and_cancel_stops_them() {
        let mut s = setup(
            Table::default(),
            vec![writes("HOT", 500.0, SortKey::Random)],
            6 * 3_600,
        );
        let (_, tl, chunks) = streamed(&s);
        assert_eq!(tl.column_seconds, column_seconds(6 * 3_600, 1));
        assert_eq!(tl.column_seconds, 12);
        assert!(tl.columns.len() <= MAX_COLUMNS);
        assert_eq!(chunk_seconds(6 * 3_600, 1), 120);
        assert_eq!(chunks, 6 * 3_600 / 120);
        // A mean over a wide column: 500 served per second.
        let (col, _) = tl.column_at(3_000).unwrap();
        let sum: f32 = col.cells.iter().map(|c| c.served[1]).sum();
        assert!((sum - 500.0).abs() < 0.01, "{sum}");
        // The sink says stop: no result, and no more chunks after it.
        let mut seen = 0;
        assert!(
            run_streaming(&s, &mut |_| {
                seen += 1;
                seen < 3
            })
            .is_none()
        );
        assert_eq!(seen, 3);
        s.duration = 0;
        let (o, tl, chunks) = streamed(&s);
        assert_eq!(
            (chunks, tl.columns.len(), o.final_partitions.len()),
            (1, 0, 4)
        );
    }

    #[test]
    fn a_cell_is_36_bytes() {
        // The figure the Timeline's documentation gives for a 24 h run's memory.
        assert_eq!(std::mem::size_of::<Cell>(), 36);
    }
}
