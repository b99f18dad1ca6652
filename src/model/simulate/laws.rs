//! Property tests of the laws over random small setups: served ≤ demand, served + throttled = demand, each
//! cell within R1, partitions never fewer and tiling the key space after every split, enough of them for the
//! storage (R8), and the streamed chunks rebuild `run`'s outcome exactly.

#![allow(clippy::unwrap_used)] // test code: a failed step fails the test

use proptest::prelude::*;

use super::super::capacity::Consistency;
use super::*;

fn stream() -> impl Strategy<Value = Stream> {
    (
        prop_oneof![
            "[A-Z]{1,6}".prop_map(Keys::One),
            (1u32..60).prop_map(Keys::Uniform),
        ],
        prop::collection::vec((0u32..600, 0.0f64..6_000.0), 1..4),
        0.0f64..4_000.0,
        prop_oneof![
            Just(SortKey::Random),
            Just(SortKey::Monotonic),
            Just(SortKey::SingleItem)
        ],
        prop_oneof![Just(Consistency::Strong), Just(Consistency::Eventual)],
        prop_oneof![Just(400u64), Just(1_024), Just(5_000)],
    )
        .prop_map(
            |(keys, mut points, reads, sort_key, consistency, item_size)| {
                points.sort_by_key(|p| p.0);
                points.dedup_by_key(|p| p.0);
                Stream {
                    keys,
                    writes_per_sec: Schedule(points),
                    reads_per_sec: Schedule::constant(reads),
                    item_size,
                    consistency,
                    sort_key,
                    ..Stream::default()
                }
            },
        )
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        prop_oneof![
            (100.0f64..5_000.0, 100.0f64..3_000.0)
                .prop_map(|(r, w)| Billing::Provisioned { units: [r, w] }),
            (100.0f64..8_000.0).prop_map(|w| Billing::OnDemand {
                previous_peak: [6_000.0, w],
                quota: [40_000.0, 40_000.0],
                max: [0.0, 0.0],
            }),
        ],
        any::<bool>(),
        any::<bool>(),
        60u32..300,
        prop_oneof![Just(Limits::Independent), Just(Limits::Combined)],
        any::<bool>(),
        prop::collection::vec(stream(), 1..3),
        (30u32..900, prop_oneof![Just(1u32), Just(60)], any::<u64>()),
        // R8: no storage, or up to 60 GB growing up to 20,000 GB a day (a split for size every few seconds).
        prop_oneof![Just((0.0, 0.0)), (0.0f64..60.0, 0.0f64..20_000.0)],
    )
        .prop_map(
            |(
                billing,
                adaptive,
                split,
                split_after,
                limits,
                scaling,
                traffic,
                (duration, step, seed),
                (size_gb, growth_gb_per_day),
            )| {
                let autoscaling = (scaling && matches!(billing, Billing::Provisioned { .. }))
                    .then_some(AutoScaling {
                        target: 0.7,
                        min: [100.0, 100.0],
                        max: [10_000.0, 10_000.0],
                    });
                Setup {
                    table: Table {
                        billing,
                        adaptive_capacity: adaptive,
                        split_for_heat: split,
                        split_after,
                        limits,
                        autoscaling,
                        size_gb,
                        growth_gb_per_day,
                        ..Table::default()
                    },
                    traffic,
                    duration,
                    step,
                    start: 1_782_172_800 - 200,
                    seed,
                    params: Params::default(),
                    trace: None,
                }
            },
        )
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn the_laws_hold(s in setup()) {
        let mut rebuilt = Outcome::default();
        let mut timeline = Timeline::default();
        let (o, tl) = run_streaming(&s, &mut |chunk| {
            rebuilt.push(&chunk);
            timeline.push(chunk);
            true
        })
        .unwrap();
        prop_assert_eq!(&o, &run(&s));
        prop_assert_eq!(&rebuilt, &o);
        prop_assert_eq!(&timeline, &tl);
        let x = &o.series;
        for i in 0..x.t.len() {
            prop_assert!(x.write_served_units[i] <= x.write_demand_units[i] + 1e-6);
            prop_assert!(x.read_served_units[i] <= x.read_demand_units[i] + 1e-6);
            prop_assert!(near(x.write_served_units[i] + x.write_throttled_units[i], x.write_demand_units[i]));
            prop_assert!(near(x.read_served_units[i] + x.read_throttled_units[i], x.read_demand_units[i]));
        }
        prop_assert!(x.partitions.windows(2).all(|w| w[1] >= w[0]));
        // R8: at the end no partition holds more than 10 GB, so there are enough of them for the storage.
        let storage = s.table.size_gb + s.table.growth_gb_per_day * f64::from(s.duration) / 86_400.0;
        prop_assert!(o.final_partitions.len() as f64 * PARTITION_GB * (1.0 + 1e-6) >= storage);
        prop_assert!(tl.layouts.windows(2).all(|w| w[1].len() >= w[0].len()));
        // Every layout tiles the key space: it starts at its beginning and its ranges follow in order (each
        // ends where the next starts); a split only adds a boundary, so a layout keeps every earlier start.
        for layout in &tl.layouts {
            prop_assert_eq!(layout.first().map(|r| r.start), Some((0, 0.0)));
            prop_assert!(layout.windows(2).all(|w| before(w[0].start, w[1].start)));
        }
        for w in tl.layouts.windows(2) {
            prop_assert!(w[0].iter().all(|r| w[1].iter().any(|q| q.start == r.start)));
        }
        for col in &tl.columns {
            prop_assert_eq!(col.cells.len(), tl.layouts[col.layout].len());
            for c in &col.cells {
                prop_assert!(f64::from(c.served[0]) <= R1[READ] * (1.0 + 1e-6));
                prop_assert!(f64::from(c.served[1]) <= R1[WRITE] * (1.0 + 1e-6));
            }
        }
        prop_assert!(tl.columns.len() <= MAX_COLUMNS);
        prop_assert_eq!(tl.seconds(), s.duration.div_ceil(tl.column_seconds) * tl.column_seconds);
    }
}
