use super::*;
use crate::model::keyset::SizeProfile;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn one_partition(workload: &Workload) -> PartitionPlan {
    Workload {
        partitions: PartitionCount::Override(1),
        ..workload.clone()
    }
    .partition_plan()
    .unwrap()
}

// AWS: "a strongly consistent read of a 20 KB item … 5 read capacity units" ("Provisioned capacity mode").
#[test]
fn twenty_kb_strong_read_is_five_units_so_a_partition_serves_600() {
    assert_eq!(read_units(20 * 1024, Consistency::Strong), 5.0);
    let w = Workload {
        reads_per_sec: 600.0,
        item_size: ItemSize::Bytes(20 * 1024),
        ..Workload::default()
    };
    let plan = one_partition(&w);
    let c = compute(&w, &plan, &[1]).unwrap();
    assert!(close(c.partitions[0].read_util, 1.0));
    assert_eq!(c.throttled_read_units, 0.0);
    let over = Workload {
        reads_per_sec: 601.0,
        ..w
    };
    let c = compute(&over, &plan, &[1]).unwrap();
    assert!(close(c.throttled_read_units, 5.0));
    assert!(close(c.served_read_units, 3000.0));
}

// AWS: one partition serves 1,000 write units/s; 4,000 writes/s of 1 KB on one key throttle 3,000.
#[test]
fn four_thousand_writes_on_one_key_throttle_three_thousand() {
    let w = Workload {
        writes_per_sec: 4000.0,
        item_size: ItemSize::Bytes(1024),
        ..Workload::default()
    };
    let plan = w.partition_plan().unwrap();
    assert_eq!(plan.count, 4);
    let c = compute(&w, &plan, &[0, 0, 7, 0]).unwrap();
    let hot = c.partitions[2];
    assert!(close(hot.write_units, 4000.0));
    assert!(close(hot.write_util, 4.0));
    assert!(close(hot.served_write_units, 1000.0));
    assert!(close(hot.throttled_write_units, 3000.0));
    assert!(close(c.throttled_write_units, 3000.0));
    assert!(close(c.table_write_util, 1.0));
    assert_eq!(c.hottest_partition, 2);
    assert_eq!(
        c.headline(),
        "table at 100 % of its write capacity · hottest partition at 400 % of its write limit · 3000 write \
         units/s throttled"
    );
}

// AWS: provisioning more than a partition serves does not help a key on one partition.
#[test]
fn forty_thousand_wcu_still_throttle_one_partition() {
    let w = Workload {
        writes_per_sec: 5000.0,
        billing: Billing::Provisioned {
            rcu: 1,
            wcu: 40_000,
        },
        ..Workload::default()
    };
    let plan = w.partition_plan().unwrap();
    assert_eq!(plan.count, 41); // ⌈1 / 3,000 + 40,000 / 1,000⌉ = ⌈40.0003⌉
    assert_eq!(plan.from, PartitionsFrom::Throughput);
    let mut buckets = vec![0; plan.count];
    buckets[7] = 100;
    let c = compute(&w, &plan, &buckets).unwrap();
    assert!(close(c.table_write_util, 5000.0 / 40_000.0));
    assert!(close(c.throttled_write_units, 4000.0));
    assert_eq!(c.table_throttled_write_units, 0.0);
    assert_eq!(c.hottest_partition, 7);
    assert!(c.table_util() < 1.0 && c.hottest_util() > 1.0);
}

#[test]
fn read_rounding_edges() {
    assert_eq!(read_units(4096, Consistency::Strong), 1.0);
    assert_eq!(read_units(4097, Consistency::Strong), 2.0);
    assert_eq!(read_units(4096, Consistency::Eventual), 0.5);
    assert_eq!(read_units(4097, Consistency::Eventual), 1.0);
    assert_eq!(read_units(4097, Consistency::Transactional), 4.0);
    assert_eq!(read_units(20 * 1024, Consistency::Eventual), 2.5);
}

#[test]
fn write_rounding_edges() {
    assert_eq!(write_units(1024, Consistency::Strong), 1.0);
    assert_eq!(write_units(1025, Consistency::Strong), 2.0);
    assert_eq!(write_units(1025, Consistency::Eventual), 2.0);
    assert_eq!(write_units(1025, Consistency::Transactional), 4.0);
    assert_eq!(write_units(3500, Consistency::Strong), 4.0);
}

#[test]
fn zero_bytes_still_cost_one_unit() {
    assert_eq!(read_units(0, Consistency::Strong), 1.0);
    assert_eq!(read_units(0, Consistency::Eventual), 0.5);
    assert_eq!(read_units(0, Consistency::Transactional), 2.0);
    assert_eq!(write_units(0, Consistency::Strong), 1.0);
    assert_eq!(write_units(0, Consistency::Transactional), 2.0);
}

#[test]
fn measured_sizes_round_each_item() {
    let mut keys = crate::model::KeySet::new(crate::model::KeyType::S);
    let k = keys.add(b"k", 2);
    keys.note_item_bytes(k, 100, 1);
    keys.note_item_bytes(k, 4097, 1);
    let size = ItemSize::Measured(keys.size_profile().unwrap());
    assert_eq!(size.read_units(Consistency::Strong), 1.5);
    assert_eq!(size.write_units(Consistency::Strong), 3.0);
    assert_eq!(size.mean_bytes(), 2098.5);
    assert_eq!(size.describe(), "measured: mean 2,098 bytes over 2 items");
    // JSON runs larger than DynamoDB's item size: a measured 500 KB counts as 400 KB, not an error.
    let big = ItemSize::Measured(SizeProfile::uniform(500 * 1024, 3));
    assert_eq!(big.write_units(Consistency::Strong), 400.0);
    assert_eq!(big.check(), Ok(()));
    assert_eq!(ItemSize::FromData.write_units(Consistency::Strong), 1.0);
    assert_eq!(ItemSize::FromData.mean_bytes(), 1024.0);
    let w = Workload {
        item_size: ItemSize::Measured(SizeProfile::default()),
        ..Workload::default()
    };
    assert_eq!(w.partition_plan(), Err(CapacityError::NoItemSizes));
    let w = Workload {
        item_size: ItemSize::Bytes(MAX_ITEM_BYTES + 1),
        ..Workload::default()
    };
    assert!(matches!(
        w.validate(),
        Err(CapacityError::ItemTooLarge { .. })
    ));
}

#[test]
fn provisioned_partition_count_formula() {
    let plan = |rcu, wcu, table_bytes| {
        Workload {
            billing: Billing::Provisioned { rcu, wcu },
            table_bytes,
            ..Workload::default()
        }
        .partition_plan()
        .unwrap()
    };
    assert_eq!(plan(1, 1, 0).count, 1);
    assert_eq!(plan(3000, 1000, 0).count, 2);
    assert_eq!(plan(3000, 1, 0).count, 2); // 1 + 0.001 rounds up
    assert_eq!(plan(2997, 1, 0).count, 1); // 2,997 / 3,000 + 1 / 1,000 = exactly 1
    assert_eq!(plan(2998, 1, 0).count, 2); // 1.000333… rounds up
    let p = plan(1000, 1000, 0);
    assert_eq!((p.count, p.from), (2, PartitionsFrom::Throughput)); // 0.33 + 1 = 1.33 → 2
    let p = plan(100, 100, 25 * PARTITION_BYTES + 1);
    assert_eq!((p.count, p.from), (26, PartitionsFrom::Size));
    assert_eq!(p.table_write_capacity, 100.0);
    assert_eq!(
        Workload {
            billing: Billing::Provisioned { rcu: 0, wcu: 5 },
            ..Workload::default()
        }
        .partition_plan(),
        Err(CapacityError::ZeroProvisioned { what: "RCU" })
    );
    assert!(matches!(
        Workload {
            billing: Billing::Provisioned {
                rcu: 1,
                wcu: 10_000_000
            },
            ..Workload::default()
        }
        .partition_plan(),
        Err(CapacityError::TooManyPartitions { .. })
    ));
}

#[test]
fn on_demand_starts_with_warm_throughput() {
    let p = Workload::default().partition_plan().unwrap();
    assert_eq!((p.count, p.from), (4, PartitionsFrom::OnDemandWarm));
    assert_eq!(p.table_read_capacity, ON_DEMAND_WARM_READ_UNITS);
    assert_eq!(p.table_write_capacity, ON_DEMAND_WARM_WRITE_UNITS);
    let big = Workload {
        table_bytes: 50 * PARTITION_BYTES,
        ..Workload::default()
    }
    .partition_plan()
    .unwrap();
    assert_eq!((big.count, big.from), (50, PartitionsFrom::Size));
    assert_eq!(big.table_write_capacity, 50_000.0);
    let given = Workload {
        partitions: PartitionCount::Override(9),
        ..Workload::default()
    }
    .partition_plan()
    .unwrap();
    assert_eq!((given.count, given.from), (9, PartitionsFrom::Override));
    assert_eq!(given.table_read_capacity, 27_000.0);
    assert_eq!(
        Workload {
            partitions: PartitionCount::Override(0),
            ..Workload::default()
        }
        .partition_plan(),
        Err(CapacityError::ZeroPartitions)
    );
}

#[test]
fn an_even_spread_uses_every_partition_alike() {
    let w = Workload {
        reads_per_sec: 6000.0,
        writes_per_sec: 2000.0,
        consistency: Consistency::Eventual,
        item_size: ItemSize::Bytes(8 * 1024),
        ..Workload::default()
    };
    let plan = w.partition_plan().unwrap();
    let c = compute(&w, &plan, &[25, 25, 25, 25]).unwrap();
    for p in &c.partitions {
        // 1,500 reads × 1 unit (8 KB eventual) and 500 writes × 8 units.
        assert!(close(p.read_units, 1500.0));
        assert!(close(p.read_util, 0.5));
        assert!(close(p.write_units, 4000.0));
        assert!(close(p.write_util, 4.0));
    }
    assert!(close(c.table_read_util, 0.5));
    assert!(close(c.table_write_util, 4.0));
    assert!(close(c.throttled_write_units, 12_000.0));
    assert!(close(c.table_util(), c.hottest_util()));
    let calm = Workload {
        writes_per_sec: 400.0,
        ..w
    };
    let c = compute(&calm, &plan, &[1, 1, 1, 1]).unwrap();
    assert!(c.utilisation().iter().all(|&u| close(u, 0.8)));
    assert_eq!(c.throttled_units(), 0.0);
}

#[test]
fn a_provisioned_table_throttles_at_its_total() {
    // 2 partitions (⌈3,000 / 3,000 + 1,000 / 1,000⌉), 1,000 WCU provisioned; 1,500 writes/s evenly spread:
    // each partition could serve its 750, the table only 1,000.
    let w = Workload {
        writes_per_sec: 1500.0,
        billing: Billing::Provisioned {
            rcu: 3000,
            wcu: 1000,
        },
        ..Workload::default()
    };
    let plan = w.partition_plan().unwrap();
    assert_eq!(plan.count, 2);
    let c = compute(&w, &plan, &[5, 5]).unwrap();
    assert!(close(c.table_write_util, 1.5));
    assert!(close(c.served_write_units, 1000.0));
    assert!(close(c.throttled_write_units, 500.0));
    assert!(close(c.table_throttled_write_units, 500.0));
    assert!(close(c.partitions[0].write_util, 0.75));
}

#[test]
fn transactional_writes_cost_double() {
    let w = Workload {
        writes_per_sec: 600.0,
        consistency: Consistency::Transactional,
        item_size: ItemSize::Bytes(1025),
        partitions: PartitionCount::Override(1),
        ..Workload::default()
    };
    let c = compute(&w, &w.partition_plan().unwrap(), &[3]).unwrap();
    assert!(close(c.write_units, 2400.0));
    assert!(close(c.throttled_write_units, 1400.0));
}

#[test]
fn counts_as_rates() {
    let w = Workload {
        reads_per_sec: 300.0,
        rates: RateSource::WritesPerSec,
        ..Workload::default()
    };
    let plan = w.partition_plan().unwrap();
    let c = compute(&w, &plan, &[1500, 300, 200, 0]).unwrap();
    assert!(close(c.writes_per_sec, 2000.0));
    assert!(close(c.partitions[0].write_units, 1500.0));
    assert!(close(c.partitions[0].throttled_write_units, 500.0));
    assert!(close(c.partitions[1].write_units, 300.0));
    assert!(close(c.partitions[0].read_units, 225.0));
    let r = Workload {
        rates: RateSource::ReadsPerSec,
        ..w
    };
    let c = compute(&r, &plan, &[1500, 300, 200, 0]).unwrap();
    assert!(close(c.partitions[0].read_units, 1500.0));
    assert!(close(c.reads_per_sec, 2000.0));
}

#[test]
fn bad_input_is_an_error() {
    let w = Workload {
        writes_per_sec: f64::NAN,
        ..Workload::default()
    };
    assert!(matches!(w.validate(), Err(CapacityError::BadRate { .. })));
    let ok = Workload::default();
    let plan = ok.partition_plan().unwrap();
    assert_eq!(
        compute(&ok, &plan, &[1, 2]),
        Err(CapacityError::BucketMismatch {
            buckets: 2,
            partitions: 4
        })
    );
    // No keys: no weights, no demand.
    let c = compute(
        &Workload {
            writes_per_sec: 10.0,
            ..ok
        },
        &plan,
        &[0; 4],
    )
    .unwrap();
    assert_eq!(c.write_units, 0.0);
}

#[test]
fn throttle_reasons_parse() {
    let r: ThrottleReason = "TableWriteKeyRangeThroughputExceeded".parse().unwrap();
    assert!(r.is_key_range());
    assert_eq!(r.op, ThrottleOp::Write);
    let r: ThrottleReason = "indexreadprovisionedthroughputexceeded".parse().unwrap();
    assert_eq!(r.resource, ThrottleResource::Index);
    assert_eq!(r.to_string(), "IndexReadProvisionedThroughputExceeded");
    assert!(!r.is_key_range());
    assert_eq!(ThrottleReason::all().len(), 16);
    for r in ThrottleReason::all() {
        assert_eq!(r.to_string().parse::<ThrottleReason>(), Ok(r));
    }
    assert!("TableWriteThrottled".parse::<ThrottleReason>().is_err());
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(json, "\"IndexReadProvisionedThroughputExceeded\"");
    assert_eq!(serde_json::from_str::<ThrottleReason>(&json).unwrap(), r);
}

#[test]
fn workload_round_trips_through_json() {
    let w = Workload {
        reads_per_sec: 10.0,
        item_size: ItemSize::Measured(SizeProfile::uniform(10, 2)),
        billing: Billing::Provisioned { rcu: 5, wcu: 6 },
        partitions: PartitionCount::Override(3),
        ..Workload::default()
    };
    let text = serde_json::to_string(&w).unwrap();
    assert_eq!(serde_json::from_str::<Workload>(&text).unwrap(), w);
    assert_eq!(
        serde_json::from_str::<Workload>("{}").unwrap(),
        Workload::default()
    );
}

#[test]
fn reason_metrics_are_cloudwatch_names() {
    assert_eq!(ReasonMetric::ALL.len(), 8);
    for (i, m) in ReasonMetric::ALL.into_iter().enumerate() {
        assert_eq!(m.index(), i);
        let reason = m.reason(ThrottleResource::Table).to_string();
        // `TableWriteKeyRangeThroughputExceeded` ↔ `WriteKeyRangeThroughputThrottleEvents`.
        let cause = m.cause.as_str().trim_end_matches("Exceeded");
        assert!(reason.ends_with(m.cause.as_str()));
        assert!(m.name().contains(cause), "{}", m.name());
        assert!(m.name().ends_with("ThrottleEvents"));
    }
    let m = ReasonMetric {
        op: ThrottleOp::Write,
        cause: ThrottleCause::KeyRangeThroughputExceeded,
    };
    assert_eq!(m.name(), "WriteKeyRangeThroughputThrottleEvents");
    assert_eq!(m.snake_name(), "write_key_range_throughput_throttle_events");
    assert_eq!(m.short(), "KeyRange write");
    let m = ReasonMetric {
        op: ThrottleOp::Read,
        cause: ThrottleCause::AccountLimitExceeded,
    };
    assert_eq!(m.name(), "ReadAccountLimitThrottleEvents");
    assert_eq!(m.snake_name(), "read_account_limit_throttle_events");
}
