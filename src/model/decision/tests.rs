use super::*;
use crate::model::capacity::CapacityFacts;
use crate::model::keyset::SortKeyFacts;

fn hot_key_evidence() -> Evidence {
    Evidence {
        total: 1000,
        counts_items: false,
        buckets: 8,
        distinct: 50,
        top_key: Some(("BOARD#global".into(), 710, 0.71)),
        next_key_count: 20,
        top_bucket_over_mean: 5.9,
        top_key_share_of_bucket: 0.96,
        top3_share: 0.75,
        top_key_items: None,
        has_lsi: None,
        capacity: None,
        throttle_reason: None,
        item_bytes: None,
        top_key_bytes: None,
        top_key_time: None,
        sharding: None,
        collision: None,
        keys_unknown: None,
        observed_throttling: None,
        observed_reasons: Vec::new(),
    }
}

#[test]
fn one_item_hot_reaches_shard_or_cache() {
    let ev = Evidence {
        top_key_items: Some(SortKeyFacts {
            items: 1,
            only_increasing: false,
        }),
        ..hot_key_evidence()
    };
    let path = evaluate(&ev, &UserAnswers::default());
    assert_eq!(path.leaf, Some(Leaf::ShardOrCache));
    assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
    assert!(
        path.path[0]
            .evidence
            .contains("BOARD#global = 71 % of writes"),
        "{}",
        path.path[0].evidence
    );
    assert!(
        path.recommendation
            .starts_with("Shard the key or cache the reads")
    );
}

#[test]
fn hot_collection_names_its_blockers() {
    let ev = Evidence {
        top_key_items: Some(SortKeyFacts {
            items: 400,
            only_increasing: true,
        }),
        has_lsi: Some(true),
        ..hot_key_evidence()
    };
    let path = evaluate(&ev, &UserAnswers::default());
    assert_eq!(path.leaf, Some(Leaf::ItemCollection));
    assert!(path.recommendation.contains("sort key only increases"));
    assert!(path.recommendation.contains("local secondary index"));
    let fine = Evidence {
        top_key_items: Some(SortKeyFacts {
            items: 400,
            only_increasing: false,
        }),
        ..hot_key_evidence()
    };
    assert!(
        evaluate(&fine, &UserAnswers::default())
            .recommendation
            .contains("can help")
    );
}

#[test]
fn unknown_stops_until_the_user_answers() {
    let ev = hot_key_evidence();
    let path = evaluate(&ev, &UserAnswers::default());
    assert_eq!(path.leaf, None);
    assert_eq!(path.answer(Question::OneItem), Some(Answer::Unknown));
    let answered = evaluate(
        &ev,
        &UserAnswers {
            one_item: Some(false),
            ..UserAnswers::default()
        },
    );
    assert_eq!(answered.leaf, Some(Leaf::ItemCollection));
    assert!(answered.path[1].supplied);
}

#[test]
fn few_values_reach_write_shard_the_prefix() {
    let ev = Evidence {
        total: 1000,
        counts_items: false,
        buckets: 8,
        distinct: 3,
        top_key: Some(("status=OPEN".into(), 500, 0.5)),
        next_key_count: 300,
        top_bucket_over_mean: 4.0,
        top_key_share_of_bucket: 1.0,
        top3_share: 1.0,
        top_key_items: None,
        has_lsi: None,
        capacity: None,
        throttle_reason: None,
        item_bytes: None,
        top_key_bytes: None,
        top_key_time: None,
        sharding: None,
        collision: None,
        keys_unknown: None,
        observed_throttling: None,
        observed_reasons: Vec::new(),
    };
    let path = evaluate(&ev, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
    assert_eq!(path.leaf, Some(Leaf::WriteShardPrefix));
    assert_eq!(Leaf::WriteShardPrefix.action(), Some(Action::ShardAllKeys));
}

#[test]
fn spread_keys_reach_adaptive_capacity() {
    let ev = Evidence {
        total: 10_000,
        counts_items: false,
        buckets: 8,
        distinct: 5_000,
        top_key: Some(("USER#1".into(), 5, 0.0005)),
        next_key_count: 5,
        top_bucket_over_mean: 1.05,
        top_key_share_of_bucket: 0.004,
        top3_share: 0.0015,
        top_key_items: None,
        has_lsi: None,
        capacity: None,
        throttle_reason: None,
        item_bytes: None,
        top_key_bytes: None,
        top_key_time: None,
        sharding: None,
        collision: None,
        keys_unknown: None,
        observed_throttling: None,
        observed_reasons: Vec::new(),
    };
    let path = evaluate(&ev, &UserAnswers::default());
    assert_eq!(path.leaf, Some(Leaf::AdaptiveCapacity));
    assert!(!path.visits(Question::OneItem));
    assert_eq!(Leaf::AdaptiveCapacity.action(), None);
    // Issue 57: the same spread keys beside 4,400 observed throttle events: adaptive capacity did not absorb
    // them, the tree ends at the table's limit and says why.
    let throttled = Evidence {
        observed_throttling: Some(4_400.0),
        ..ev.clone()
    };
    let path = evaluate(&throttled, &UserAnswers::default());
    assert_eq!(path.leaf, Some(Leaf::TableLimit));
    assert!(
        path.recommendation
            .contains("CloudWatch observed 4,400 throttle events"),
        "{}",
        path.recommendation
    );
    // Stand-in keys (CloudWatch's minutes alone) are never evidence: every key question is unknown, says
    // what would answer it, and the tree stops there.
    let stand_ins = Evidence {
        keys_unknown: Some(
            "no per-key records: … Contributor Insights, the table's stream or a request log would answer it"
                .to_owned(),
        ),
        ..throttled
    };
    let path = evaluate(&stand_ins, &UserAnswers::default());
    assert_eq!(path.leaf, None);
    assert_eq!(path.answer(Question::OneKey), Some(Answer::Unknown));
    assert!(path.path[0].evidence.contains("Contributor Insights"));
    let said_no = UserAnswers {
        one_key: Some(false),
        ..UserAnswers::default()
    };
    let path = evaluate(&stand_ins, &said_no);
    assert_eq!(path.answer(Question::LowCardinality), Some(Answer::Unknown));
    assert_eq!(path.leaf, None);
}

fn capacity_facts(table: f64, hottest: f64, share: f64) -> CapacityFacts {
    CapacityFacts {
        table_read_util: 0.0,
        table_write_util: table,
        hottest_partition: 3,
        hottest_read_util: 0.0,
        hottest_write_util: hottest,
        hottest_top_key: Some("BOARD#global".into()),
        hottest_top_key_share: share,
        throttled_units: 0.0,
    }
}

#[test]
fn capacity_answers_one_key_with_its_numbers() {
    let ev = Evidence {
        capacity: Some(capacity_facts(0.05, 1.4, 0.96)),
        ..hot_key_evidence()
    };
    let path = evaluate(&ev, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
    assert!(
        path.path[0].evidence.contains(
            "table at 5.0 % of its capacity · hottest partition 3 at 140 % of its write limit"
        ),
        "{}",
        path.path[0].evidence
    );
    // The counts say one key is hot, but no partition is over its limit: capacity decides.
    let calm = Evidence {
        capacity: Some(capacity_facts(0.05, 0.6, 0.96)),
        ..hot_key_evidence()
    };
    let path = evaluate(&calm, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
    assert!(
        path.path[0]
            .evidence
            .contains("no partition is over its limit")
    );
    // Over its limit, but the whole table is over too: table-level.
    let table = Evidence {
        capacity: Some(capacity_facts(1.5, 1.4, 0.96)),
        ..hot_key_evidence()
    };
    let path = evaluate(&table, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
    assert!(path.path[0].evidence.contains("table-level"));
    // Over its limit with room in the table, but many keys share that partition.
    let shared = Evidence {
        capacity: Some(capacity_facts(0.3, 1.4, 0.2)),
        ..hot_key_evidence()
    };
    assert_eq!(
        evaluate(&shared, &UserAnswers::default()).answer(Question::OneKey),
        Some(Answer::No)
    );
}

#[test]
fn an_observed_reason_steers_the_first_question() {
    let spread = Evidence {
        total: 10_000,
        buckets: 8,
        distinct: 5_000,
        top_key: Some(("USER#1".into(), 5, 0.0005)),
        next_key_count: 5,
        top_bucket_over_mean: 1.05,
        top_key_share_of_bucket: 0.004,
        top3_share: 0.0015,
        ..Evidence::default()
    };
    let key_range = UserAnswers {
        throttle_reason: Some("TableWriteKeyRangeThroughputExceeded".parse().unwrap()),
        ..UserAnswers::default()
    };
    let path = evaluate(&spread, &key_range);
    assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
    assert!(path.path[0].evidence.contains("hot partition"));

    let table_level = UserAnswers {
        throttle_reason: Some("TableWriteProvisionedThroughputExceeded".parse().unwrap()),
        ..UserAnswers::default()
    };
    let hot = Evidence {
        capacity: Some(capacity_facts(1.2, 1.4, 0.96)),
        ..hot_key_evidence()
    };
    let path = evaluate(&hot, &table_level);
    assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
    assert!(path.path[0].evidence.contains("table-level"));
    assert!(path.path[0].evidence.contains("table at 120 %"));
    assert!(path.recommendation.contains("table-level limit"));
    assert!(path.recommendation.contains("provisioned units"));
    for reason in [
        "TableReadAccountLimitExceeded",
        "IndexWriteMaxOnDemandThroughputExceeded",
    ] {
        let user = UserAnswers {
            throttle_reason: Some(reason.parse().unwrap()),
            ..UserAnswers::default()
        };
        assert_eq!(
            evaluate(&hot, &user).answer(Question::OneKey),
            Some(Answer::No),
            "{reason}"
        );
    }
}

#[test]
fn the_collection_leaf_reports_its_size_against_the_lsi_limit() {
    let ev = Evidence {
        top_key_items: Some(SortKeyFacts {
            items: 2_000_000,
            only_increasing: true,
        }),
        item_bytes: Some(8192.0),
        top_key_bytes: None,
        capacity: Some(capacity_facts(0.1, 2.0, 0.9)),
        ..hot_key_evidence()
    };
    let user = UserAnswers {
        has_lsi: Some(true),
        ..UserAnswers::default()
    };
    let path = evaluate(&ev, &user);
    assert_eq!(path.leaf, Some(Leaf::ItemCollection));
    assert!(
        path.path[1].evidence.contains("item collection ≈ 15.3 GB"),
        "{}",
        path.path[1].evidence
    );
    assert!(path.recommendation.contains("sort key only increases"));
    assert!(
        path.recommendation
            .contains("ItemCollectionSizeLimitExceededException"),
        "{}",
        path.recommendation
    );
    let small = Evidence {
        item_bytes: Some(1000.0),
        top_key_bytes: None,
        top_key_items: Some(SortKeyFacts {
            items: 1000,
            only_increasing: false,
        }),
        ..ev
    };
    let path = evaluate(&small, &user);
    assert!(
        path.recommendation.contains("of the 10 GB an LSI allows"),
        "{}",
        path.recommendation
    );
    // Without the switch, no LSI blocker.
    assert!(
        evaluate(&small, &UserAnswers::default())
            .recommendation
            .contains("can help")
    );
    // Sizes measured while loading win over items × the mean.
    let measured = Evidence {
        top_key_bytes: Some(11 * 1024 * 1024 * 1024),
        ..small
    };
    let path = evaluate(&measured, &user);
    assert!(
        path.path[1]
            .evidence
            .contains("item collection ≈ 11.0 GB (1,000 items, sizes measured from the data)"),
        "{}",
        path.path[1].evidence
    );
}

#[test]
fn the_tree_reaches_every_leaf_and_every_question() {
    let mut leaves: Vec<Leaf> = Vec::new();
    for b in TREE {
        for node in [b.yes, b.no] {
            if let Node::Leaf(l) = node {
                leaves.push(l);
            }
        }
    }
    leaves.push(TABLE_LEVEL.1);
    assert_eq!(leaves.len(), Leaf::ALL.len());
    for l in Leaf::ALL {
        assert!(leaves.contains(&l));
    }
    for q in Question::ALL {
        assert_eq!(branch(q).question, q);
    }
}

// Issue 60: CloudWatch's reason metrics answer "throttling concentrated on one key?" before the counts do.
#[test]
fn observed_reasons_answer_the_first_question() {
    use crate::model::capacity::{ReasonMetric, ThrottleCause, ThrottleOp, ThrottleResource};
    let start = 1_782_208_980; // 2026-06-23T10:03:00Z
    let reason = |cause, events: f64, minutes: i64| ObservedReason {
        metric: ReasonMetric {
            op: ThrottleOp::Write,
            cause,
        },
        resource: ThrottleResource::Table,
        events,
        span: Some((start, start + 60 * minutes)),
        observer: "CloudWatch",
    };
    // Spread keys: by the counts alone, no hot key.
    let spread = Evidence {
        total: 10_000,
        buckets: 8,
        distinct: 5_000,
        top_key: Some(("USER#1".into(), 5, 0.0005)),
        next_key_count: 5,
        top_bucket_over_mean: 1.05,
        top_key_share_of_bucket: 0.004,
        top3_share: 0.0015,
        ..Evidence::default()
    };
    let key_range = Evidence {
        observed_reasons: vec![reason(
            ThrottleCause::KeyRangeThroughputExceeded,
            1_234.0,
            8,
        )],
        ..spread.clone()
    };
    let path = evaluate(&key_range, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
    assert_eq!(
        path.path[0].evidence,
        "1,234 KeyRange write throttle events from 10:03 to 10:11 UTC (CloudWatch): one partition's key \
         range over its limit, a hot partition"
    );

    let provisioned = Evidence {
        observed_reasons: vec![reason(
            ThrottleCause::ProvisionedThroughputExceeded,
            2_000.0,
            1,
        )],
        ..hot_key_evidence()
    };
    let path = evaluate(&provisioned, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
    assert_eq!(
        path.path[0].evidence,
        "2,000 Provisioned write throttle events in the minute from 10:03 UTC (CloudWatch): the table's limit \
         (TableWriteProvisionedThroughputExceeded), not one key: raise capacity, not the key"
    );
    assert_eq!(path.leaf, Some(Leaf::TableLimit), "{path:?}");
    assert!(
        path.recommendation.contains("provisioned units"),
        "{}",
        path.recommendation
    );

    let both = Evidence {
        observed_reasons: vec![
            reason(ThrottleCause::KeyRangeThroughputExceeded, 300.0, 2),
            reason(ThrottleCause::ProvisionedThroughputExceeded, 100.0, 2),
        ],
        top_key_items: Some(SortKeyFacts {
            items: 1,
            only_increasing: false,
        }),
        ..hot_key_evidence()
    };
    let path = evaluate(&both, &UserAnswers::default());
    assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
    let said = &path.path[0].evidence;
    assert!(
        said.starts_with("both (CloudWatch): 75 % KeyRange"),
        "{said}"
    );
    assert!(
        said.contains("25 % the table's or the account's limit"),
        "{said}"
    );
    // The hot-key leaf's advice still says the table-level part.
    assert!(
        path.recommendation.contains("table-level limit"),
        "{}",
        path.recommendation
    );

    // What the user says they saw wins over the metrics.
    let user = UserAnswers {
        throttle_reason: Some("TableWriteProvisionedThroughputExceeded".parse().unwrap()),
        ..UserAnswers::default()
    };
    assert_eq!(
        evaluate(&key_range, &user).answer(Question::OneKey),
        Some(Answer::No)
    );
}
