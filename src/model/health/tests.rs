use super::ttl::{TtlStats, TtlValue};
use super::*;
use crate::model::KeyType;
use crate::model::capacity::{Billing, Workload};

fn keys_with(items: &[(&str, u64, u64)]) -> KeySet {
    let mut keys = KeySet::new(KeyType::S);
    for &(k, size, n) in items {
        let idx = keys.add(k.as_bytes(), n);
        keys.note_item_bytes(idx, size, n);
    }
    keys
}

fn input<'a>(keys: &'a KeySet, ttl: Option<&'a TtlStats>) -> HealthInput<'a> {
    HealthInput {
        keys,
        partitions: 4,
        workload: None,
        has_lsi: false,
        ttl,
        now: 1_764_633_600,
        gsis: Vec::new(),
    }
}

fn kinds(h: &Health) -> Vec<(&'static str, Severity)> {
    h.findings.iter().map(|f| (f.kind, f.severity)).collect()
}

#[test]
fn storage_counts_the_overhead_and_fills_the_partitions() {
    let keys = keys_with(&[("a", 1000, 3), ("b", 50, 1)]);
    let h = health(&input(&keys, None));
    let s = h.storage.as_ref().unwrap();
    assert_eq!(s.item_bytes, 3050);
    assert_eq!(s.storage_bytes, 3050 + 400);
    assert_eq!(s.per_partition.iter().sum::<u64>(), 3450);
    assert_eq!(s.partitions_for_size, 1);
    assert_eq!(s.largest_collections[0].key, "a");
    assert_eq!(s.largest_collections[0].storage_bytes, 3300);
    assert_eq!(
        h.by_write_units
            .iter()
            .map(|g| (g.kb, g.items))
            .collect::<Vec<_>>(),
        [(1, 4)]
    );
    assert!(h.findings.is_empty(), "{:?}", h.findings);
}

#[test]
fn items_near_and_over_400_kb() {
    let keys = keys_with(&[
        ("big", 410_000, 1),
        ("near", 350 * 1024, 1),
        ("small", 10, 5),
    ]);
    let h = health(&input(&keys, None));
    assert_eq!(
        kinds(&h)[..2],
        [
            ("item_over_400kb", Severity::Error),
            ("item_near_400kb", Severity::Warning)
        ]
    );
    assert_eq!(h.findings[0].examples, ["big"]);
    assert!(
        h.findings[0].summary.contains("(the largest 400.4 KB)"),
        "{}",
        h.findings[0].summary
    );
    assert_eq!(h.findings[1].examples, ["near"]);
    assert!(
        h.findings[1].summary.contains("costs 88 read units"),
        "{}",
        h.findings[1].summary
    );
    assert_eq!(h.findings[1].numbers["keys"], 1.0);
}

#[test]
fn collections_against_10_gb_only_bind_with_an_lsi() {
    // 6 GB in one key: 2 Mi items of 3 KB.
    let keys = keys_with(&[("hot", 3 * 1024, 2 << 20), ("cold", 100, 1)]);
    let mut i = input(&keys, None);
    assert!(health(&i).findings.is_empty());
    i.has_lsi = true;
    assert_eq!(
        kinds(&health(&i)),
        [("item_collection_size", Severity::Warning)]
    );
}

#[test]
fn hot_reads_of_big_items_say_what_one_partition_serves() {
    let keys = keys_with(&[("hot", 20 * 1024, 900), ("cold", 100, 100)]);
    let mut i = input(&keys, None);
    let h = health(&i);
    let f = &h.findings[0];
    assert_eq!(f.kind, "hot_reads_of_big_items");
    assert_eq!(f.numbers["read_units"], 5.0);
    assert_eq!(f.numbers["reads_per_partition"], 600.0);
    assert!(
        f.summary.contains("only 600 such reads a second"),
        "{}",
        f.summary
    );
    let w = Workload {
        reads_per_sec: 1000.0,
        billing: Billing::OnDemand,
        ..Workload::default()
    };
    i.workload = Some(&w);
    let h = health(&i);
    assert_eq!(
        h.findings[0].severity,
        Severity::Error,
        "900 reads a second > 600"
    );
}

#[test]
fn ttl_findings() {
    let keys = keys_with(&[("a", 100, 10)]);
    let mut t = TtlStats::new("expiresAt", true);
    let k = || "a".to_owned();
    for _ in 0..4 {
        t.note(TtlValue::Number(1_764_633_600_000.0), k);
    }
    t.note(TtlValue::Other("S"), k);
    t.note(TtlValue::Absent, k);
    t.note(TtlValue::Number(1_764_633_600.0 - 3600.0), k);
    for _ in 0..3 {
        t.note(TtlValue::Number(1_764_633_600.0 + 86_400.0), k);
    }
    let h = health(&input(&keys, Some(&t)));
    assert_eq!(
        kinds(&h),
        [
            ("ttl_not_a_number", Severity::Error),
            ("ttl_not_seconds", Severity::Error),
            ("ttl_missing", Severity::Info),
            ("ttl_already_past", Severity::Info),
        ]
    );
    assert!(
        h.findings[1].summary.contains("read as the year 57,889"),
        "{}",
        h.findings[1].summary
    );
    assert_eq!(h.findings[0].numbers["share"], 0.1);
}

#[test]
fn gsi_costs_per_write() {
    // Base items of 1.5 KB (2 WCU each); the index holds half of them, projected to 300 bytes (1 WCU).
    let keys = keys_with(&[("a", 1536, 10)]);
    let mut gsi = KeySet::new(KeyType::S);
    let idx = gsi.add(b"OPEN", 5);
    gsi.note_item_bytes(idx, 300, 5);
    let mut i = input(&keys, None);
    i.gsis.push(GsiInput {
        name: "byStatus".into(),
        keys: &gsi,
        projection: "KEYS_ONLY".into(),
        throttled_units: Some(0.0),
        partitions: 4,
    });
    let h = health(&i);
    let g = &h.gsis[0];
    assert_eq!(
        (g.table_units_per_write, g.index_units_per_write),
        (2.0, 0.5)
    );
    assert!(
        h.findings[0]
            .summary
            .starts_with("each write costs 2 WCU on the table and 0.50 on byStatus"),
        "{}",
        h.findings[0].summary
    );
}
