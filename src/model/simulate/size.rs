//! Splits for size (R8): a partition holds about 10 GB, and one whose data grows past it splits in two
//! \[doc: "Partitions and data distribution in DynamoDB": DynamoDB allocates more partitions "if an existing
//! partition fills to capacity and more storage space is required"; about 10 GB a partition is AWS's
//! published figure, as [`crate::model::capacity::PARTITION_BYTES`]\]. Splitting by size lifts no limit: each
//! half has R1 of its own and its share of the table's capacity, as after any split.
//!
//! **\[ours\]**: the table's storage is spread evenly over the key space and grows at a constant rate, so a
//! partition holds its share of the key space of `size_gb + growth_gb_per_day × days`. It splits at the middle
//! of its hash range (the median of its storage under an even spread, and never inside one key's item
//! collection) in the second it passes 10 GB. Its share only changes when it splits, so that second is known
//! in closed form ([`due_second`]): the widest partition passes first, and until that second a run does
//! nothing for R8.

use super::engine::Sim;
use super::keys::{midpoint, width};
use super::{Event, EventKind, MAX_RUN_PARTITIONS, PARTITION_GB, Point, Table, before};

const DAY: f64 = 86_400.0;
/// \[ours\] "Past 10 GB" is more than 10 GB by this factor, so that the float noise of equal ranges never
/// splits a partition that holds exactly 10 GB (a 30 GB table's three partitions).
const PAST: f64 = 1.0 + 1e-9;
/// What the detail of a split for size says (an [`EventKind::Split`] like the others): the diagnosis tells
/// it from split-for-heat by it.
const FOR_SIZE: &str = "split for size";

/// Whether `e` is a split for size (R8).
pub(super) fn is_size_split(e: &Event) -> bool {
    e.kind == EventKind::Split && e.detail.contains(FOR_SIZE)
}

/// The partitions `size_gb` needs at least: ⌈size / 10 GB⌉ (0 for an empty table).
pub(super) fn partitions_for(size_gb: f64) -> usize {
    let n = (size_gb / PARTITION_GB).ceil();
    if n.is_finite() && n > 0.0 {
        n.min(MAX_RUN_PARTITIONS as f64) as usize
    } else {
        0
    }
}

/// The table's storage after `seconds`, GB.
fn storage_gb(table: &Table, seconds: f64) -> f64 {
    table.size_gb + table.growth_gb_per_day * seconds / DAY
}

/// The second in which a partition holding `width` of the key space passes 10 GB: the first `t` whose end
/// finds it past, `width × storage(t + 1) > 10 GB`, that is ⌊(10 GB / width − size) × 1 day / growth⌋.
/// 0 when it starts past 10 GB; `None` when it never passes it.
pub(super) fn due_second(table: &Table, width: f64) -> Option<u32> {
    let limit = PARTITION_GB * PAST;
    if width <= 0.0 {
        return None;
    }
    if width * table.size_gb > limit {
        return Some(0);
    }
    if table.growth_gb_per_day <= 0.0 {
        return None;
    }
    let x = (limit / width - table.size_gb) * DAY / table.growth_gb_per_day;
    // A tiny negative x is float noise at the limit: `as` saturates it to 0.
    (x < f64::from(u32::MAX)).then(|| x.floor() as u32)
}

impl Sim<'_> {
    /// R8, in each second's settling: the partitions past 10 GB split. O(1) until the second the widest one
    /// passes 10 GB (computed again only after the partitions change); a loop only for a table that starts
    /// past what its partitions hold (more partitions than a run keeps).
    pub(super) fn split_for_size(&mut self, t: u32) {
        loop {
            if self.size_stale {
                self.size_due = self.next_size_split();
                self.size_stale = false;
            }
            if self.size_due.is_none_or(|due| due > t) {
                return;
            }
            if !self.split_past_10_gb(t) {
                // No range could divide: not again until the partitions change.
                self.size_due = None;
                return;
            }
        }
    }

    /// The earliest second a partition passes 10 GB: the widest one's.
    fn next_size_split(&self) -> Option<u32> {
        let table = &self.setup.table;
        let empty = table.size_gb <= 0.0 && table.growth_gb_per_day <= 0.0;
        if empty || self.parts.len() >= MAX_RUN_PARTITIONS {
            return None;
        }
        let widest = (0..self.parts.len())
            .map(|p| width(self.parts[p].start, self.end_of(p)))
            .fold(0.0, f64::max);
        due_second(table, widest)
    }

    /// Splits every partition past 10 GB at second `t` at the middle of its range, the highest index first
    /// (so earlier indices stay valid), and says so in one event. Returns whether any split.
    fn split_past_10_gb(&mut self, t: u32) -> bool {
        let table = &self.setup.table;
        let from = self.parts.len();
        let chosen: Vec<(usize, f64, Point)> = (0..from)
            .filter_map(|p| {
                let (start, end) = (self.parts[p].start, self.end_of(p));
                let w = width(start, end);
                let point = midpoint(start, end);
                let inside = before(start, point) && end.is_none_or(|e| before(point, e));
                (inside && due_second(table, w).is_some_and(|due| due <= t))
                    .then_some((p, w, point))
            })
            .take(MAX_RUN_PARTITIONS.saturating_sub(from))
            .collect();
        if chosen.is_empty() {
            return false;
        }
        for &(p, _, point) in chosen.iter().rev() {
            self.split(p, point);
        }
        self.reweighed = true;
        let storage = storage_gb(table, f64::from(t) + 1.0);
        let held = chosen.iter().map(|c| c.1).fold(0.0, f64::max) * storage;
        let (partition, which) = match chosen.as_slice() {
            [(p, ..)] => (Some(*p), format!("partition {p}")),
            _ => (None, format!("{} partitions", chosen.len())),
        };
        let detail = format!(
            "{which} {FOR_SIZE} at {held:.1} GB: from {from} to {} partitions (the table holds {storage:.1} GB)",
            self.parts.len()
        );
        self.event(t, EventKind::Split, partition, detail);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{setup, streamed, writes};
    use super::super::{
        Billing, Keys, Outcome, Schedule, SortKey, Stream, Why, initial_partitions, run,
        time_evidence,
    };
    use super::*;

    /// A provisioned table of 100 WCU (one partition by the throughput formula) holding `size_gb` and
    /// growing by `growth` GB a day.
    fn table(size_gb: f64, growth: f64) -> Table {
        Table {
            billing: Billing::Provisioned {
                units: [0.0, 100.0],
            },
            size_gb,
            growth_gb_per_day: growth,
            ..Table::default()
        }
    }

    fn size_splits(o: &Outcome) -> Vec<&Event> {
        o.events.iter().filter(|e| is_size_split(e)).collect()
    }

    #[test]
    fn a_25_gb_table_starts_with_3_partitions() {
        let s = setup(
            table(25.0, 0.0),
            vec![writes("K", 50.0, SortKey::Random)],
            600,
        );
        assert_eq!(initial_partitions(&s), 3);
        let o = run(&s);
        assert!(o.series.partitions.iter().all(|&n| n == 3));
        assert!(size_splits(&o).is_empty(), "{:?}", o.events);
        // Beside the throughput formula: the larger count wins.
        let count = |table: Table| initial_partitions(&setup(table, Vec::new(), 1));
        let provisioned = |wcu: f64, size_gb: f64| Table {
            billing: Billing::Provisioned { units: [0.0, wcu] },
            size_gb,
            ..Table::default()
        };
        assert_eq!(count(provisioned(10_000.0, 25.0)), 10);
        assert_eq!(count(provisioned(100.0, 0.0)), 1);
        let on_demand = |size_gb: f64| Table {
            size_gb,
            ..Table::default()
        };
        assert_eq!(count(on_demand(25.0)), 4);
        assert_eq!(count(on_demand(45.0)), 5);
        // A given count below what the size needs is raised.
        let given = Table {
            partitions: Some(1),
            ..table(25.0, 0.0)
        };
        assert_eq!(count(given), 3);
        // 30 GB in three partitions: exactly 10 GB each is not past it.
        let o = run(&setup(
            table(30.0, 0.0),
            vec![writes("K", 50.0, SortKey::Random)],
            60,
        ));
        assert!(o.series.partitions.iter().all(|&n| n == 3));
    }

    // R8: 9 GB growing 2 GB a day passes 10 GB after half a day, once.
    #[test]
    fn a_table_growing_past_10_gb_splits_once() {
        let s = setup(
            table(9.0, 2.0),
            vec![writes("K", 50.0, SortKey::Random)],
            86_400,
        );
        let (o, tl, _) = streamed(&s);
        let splits = size_splits(&o);
        assert_eq!(splits.len(), 1, "{:?}", o.events);
        assert_eq!(
            o.events
                .iter()
                .filter(|e| e.kind == EventKind::Split)
                .count(),
            1
        );
        let e = splits[0];
        assert!((43_199..=43_201).contains(&e.t), "{e:?}");
        assert_eq!(e.partition, Some(0));
        assert_eq!(
            e.detail,
            "partition 0 split for size at 10.0 GB: from 1 to 2 partitions (the table holds 10.0 GB)"
        );
        let two = o.series.partitions.iter().position(|&n| n == 2).unwrap();
        assert!(two.abs_diff(43_201) <= 1, "{two}");
        assert!(o.series.partitions[..two].iter().all(|&n| n == 1));
        assert!(o.series.partitions[two..].iter().all(|&n| n == 2));
        // The Timeline follows: a second layout, its two ranges split at the middle of the key space.
        assert_eq!(tl.layouts.len(), 2);
        let halves: Vec<Point> = tl.layouts[1].iter().map(|r| r.start).collect();
        assert_eq!(halves, vec![(0, 0.0), (u64::MAX / 2, 0.0)]);
        // Nothing throttled: each half has its share of the 100 WCU, and adaptive capacity lends the rest.
        assert!(o.series.write_throttled_units.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn without_growth_nothing_splits_for_size() {
        let traffic = vec![writes("K", 50.0, SortKey::Random)];
        let still = run(&setup(table(9.9, 0.0), traffic.clone(), 86_400));
        assert!(size_splits(&still).is_empty(), "{:?}", still.events);
        assert!(still.series.partitions.iter().all(|&n| n == 1));
        // A size that needs no more partitions changes nothing else.
        assert_eq!(still, run(&setup(table(0.0, 0.0), traffic, 86_400)));
    }

    // Even partitions pass 10 GB together: one event for all of them.
    #[test]
    fn even_partitions_split_together() {
        let o = run(&setup(
            table(25.0, 40.0),
            vec![writes("K", 50.0, SortKey::Random)],
            86_400,
        ));
        let splits = size_splits(&o);
        // 3 × 10 GB after (30 − 25) / 40 of a day; 6 × 10 GB after (60 − 25) / 40.
        assert_eq!(splits.len(), 2, "{:?}", o.events);
        assert_eq!((splits[0].t, splits[0].partition), (10_800, None));
        assert!(
            splits[0]
                .detail
                .starts_with("3 partitions split for size at 10.0 GB: from 3 to 6 partitions"),
            "{}",
            splits[0].detail
        );
        assert_eq!(splits[1].t, 75_600);
        assert_eq!(*o.series.partitions.last().unwrap(), 12);
    }

    #[test]
    fn the_second_a_partition_passes_10_gb() {
        assert_eq!(due_second(&table(9.0, 2.0), 1.0), Some(43_200));
        assert_eq!(due_second(&table(9.0, 2.0), 0.5), Some(475_200));
        assert_eq!(due_second(&table(9.0, 0.0), 1.0), None);
        assert_eq!(due_second(&table(12.0, 0.0), 1.0), Some(0));
        assert_eq!(due_second(&table(9.0, 2.0), 0.0), None);
        // Past the run's clock: never.
        assert_eq!(due_second(&table(0.0, 1e-9), 1e-9), None);
        assert_eq!(partitions_for(0.0), 0);
        assert_eq!(partitions_for(10.0), 1);
        assert_eq!(partitions_for(10.5), 2);
    }

    // One partition at R1 throttles until a split for size gives the range a second one; the diagnosis says so.
    #[test]
    fn a_split_for_size_can_relieve_throttling() {
        let table = Table {
            billing: Billing::Provisioned {
                units: [0.0, 2_000.0],
            },
            partitions: Some(1),
            split_for_heat: false,
            size_gb: 9.99,
            growth_gb_per_day: 86.4, // 0.001 GB a second: past 10 GB in the 10th second
            ..Table::default()
        };
        let traffic = vec![Stream {
            keys: Keys::Uniform(1_000),
            writes_per_sec: Schedule::constant(1_500.0),
            ..Stream::default()
        }];
        let s = setup(table, traffic, 600);
        let (o, tl, _) = streamed(&s);
        assert_eq!(size_splits(&o).len(), 1, "{:?}", o.events);
        let thr = &o.series.write_throttled_units;
        assert!((thr[0] - 500.0).abs() < 1e-6, "{}", thr[0]);
        assert!(thr[20..].iter().all(|&x| x == 0.0));
        let evidence = time_evidence(&s, &o, &tl);
        assert_eq!(evidence.why, Why::SplitForSize, "{evidence:?}");
        assert!(
            evidence.text.contains("a split for size"),
            "{}",
            evidence.text
        );
    }
}
