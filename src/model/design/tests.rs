//! Unit tests of key designs.

use std::collections::BTreeMap;

use super::*;
use crate::model::ViewSettings;
use crate::model::decision::UserAnswers;
use crate::model::key::KeyType;
use crate::model::partition::key_hash;
use crate::model::shard::{Scope, ShardBy, ShardPlan, Strategy};

fn item(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn s(text: &str) -> Value {
    Value::S(text.to_owned())
}

fn expr(text: &str) -> Expr {
    parse_key(text).unwrap()
}

/// 100 orders: 90 OPEN, 10 CLOSED, one customer per 10 orders; every 4th has no `region`.
fn orders() -> Vec<BTreeMap<String, Value>> {
    (0..100)
        .map(|i| {
            let mut it = item(&[
                ("id", s(&format!("order-{i}"))),
                ("status", s(if i < 90 { "OPEN" } else { "CLOSED" })),
                ("customer", s(&format!("c{}", i / 10))),
            ]);
            if i % 4 != 0 {
                it.insert("region".into(), s("eu"));
            }
            it
        })
        .collect()
}

/// Under a skip-bad policy a candidate that cannot key a record leaves it out of that candidate alone; a
/// strict (current-key) candidate still fails the whole record, and without the policy any candidate does.
#[test]
fn skipping_bad_leaves_a_record_out_of_the_candidate_that_cannot_key_it() {
    let design = Design {
        candidates: vec![
            expr("status"),
            expr("R#{region}"),
            expr("{random 4}#{customer}"),
        ],
        ..Design::default()
    };
    let mut d = Designer::new(&design).skipping_bad(true);
    let mut other = Designer::new(&design).skipping_bad(true);
    for (i, it) in orders().iter().enumerate() {
        // Two designers absorbed into one, as a parallel load merges them.
        let into = if i % 2 == 0 { &mut d } else { &mut other };
        into.add(it, i as u32, None, 3, i as u64).unwrap();
    }
    d.absorb(&other, |k| k);
    let (region_writes, first) = &d.not_keyed()[1];
    assert_eq!(*region_writes, 75, "25 records of 3 writes");
    let first = first.as_ref().expect("the first reason");
    assert_eq!(first.kind, DesignKind::Candidate(2));
    assert!(first.to_string().contains("region"), "{first}");
    assert_eq!(d.not_keyed()[0].0, 0);
    let (keys, _) = d.finish();
    assert_eq!(keys[0].keys.total(), 300, "status keys every record");
    assert_eq!((keys[1].keys.total(), keys[1].absent), (225, 75));
    assert_eq!((keys[2].keys.total(), keys[2].absent), (300, 0));

    // Strict: candidate 2 stands for the current key, so a record it cannot key is a bad record.
    let mut strict = Designer::new(&Design {
        candidates: vec![expr("R#{region}"), expr("status")],
        ..Design::default()
    })
    .skipping_bad(true)
    .strict_first(1);
    let bad = orders()
        .iter()
        .filter(|it| strict.add(*it, 0, None, 1, 0).is_err())
        .count();
    assert_eq!(bad, 25);
    let (keys, _) = strict.finish();
    assert_eq!(keys[1].keys.total(), 75, "left out of every design");

    // No policy: the first record a candidate cannot key is an error.
    let mut stop = Designer::new(&design);
    let e = orders()
        .iter()
        .enumerate()
        .find_map(|(i, it)| stop.add(it, 0, None, 1, i as u64).err())
        .expect("an error");
    assert_eq!(e.kind, DesignKind::Candidate(2));
}

#[test]
fn candidates_and_sparse_gsis_key_the_same_items() {
    let design = Design {
        candidates: vec![expr("status"), expr("CUST#{customer}")],
        gsis: vec![GsiSpec::parse("byRegion=region").unwrap()],
        ..Design::default()
    };
    assert_eq!(design.roots(), ["customer", "region", "status"]);
    let mut d = Designer::new(&design);
    for (i, it) in orders().iter().enumerate() {
        d.add(it, i as u32, None, 1, i as u64).unwrap();
    }
    let (keys, by) = d.finish();
    assert!(by.is_none());
    assert_eq!(keys.len(), 3);
    assert_eq!(keys[0].kind, DesignKind::Candidate(1));
    assert_eq!(keys[0].keys.len(), 2);
    assert_eq!(keys[0].keys.count(0), 90, "OPEN first");
    assert_eq!(keys[1].keys.len(), 10);
    assert_eq!(keys[1].expr, "CUST#{customer}");
    assert_eq!(keys[2].kind, DesignKind::Gsi("byRegion".into()));
    assert_eq!(keys[2].keys.total(), 75);
    assert_eq!(
        keys[2].absent, 25,
        "items without the index key are not in it"
    );
}

#[test]
fn a_bad_record_changes_no_key_set() {
    let design = Design {
        candidates: vec![expr("status"), expr("{region}")],
        ..Design::default()
    };
    let mut d = Designer::new(&design);
    let err = d.add(&orders()[0], 0, None, 1, 0).unwrap_err();
    assert_eq!(err.kind, DesignKind::Candidate(2));
    assert!(err.to_string().contains("no attribute `region`"), "{err}");
    let (keys, _) = d.finish();
    assert!(
        keys[0].keys.is_empty(),
        "candidate 1 did not keep the record"
    );
}

#[test]
fn a_calculated_suffix_keeps_a_hot_item_on_one_shard() {
    // BOARD#global: one player with 9,000 writes, 100 players with 10.
    let mut keys = KeySet::new(KeyType::S);
    // The hashes of each item's `playerId`.
    let mut by = ShardBy::default();
    let idx = keys.add(b"BOARD#global", 10_000);
    by.add(idx, key_hash(b"hot-player"), 9_000);
    for p in 0..100 {
        by.add(idx, key_hash(format!("p{p}").as_bytes()), 10);
    }
    by.finish();
    let plan = |strategy| ShardPlan {
        shards: 10,
        strategy,
        scope: Scope::All,
        ..ShardPlan::default()
    };
    let calculated = plan(Strategy::Calculated).apply_by(&keys, Some(&by));
    let biggest = calculated.subkeys.iter().map(|s| s.count).max().unwrap();
    assert!(biggest >= 9_000, "the hot player's shard: {biggest}");
    let total: u64 = calculated.subkeys.iter().map(|s| s.count).sum();
    assert_eq!(total, 10_000);
    let random = plan(Strategy::Random).apply_by(&keys, Some(&by));
    let biggest = random.subkeys.iter().map(|s| s.count).max().unwrap();
    assert!(biggest < 1_200, "random per write spreads it: {biggest}");
    // Without the attribute, calculated falls back to the write index: an even spread.
    let by_index = plan(Strategy::Calculated).apply(&keys);
    assert!(by_index.subkeys.iter().all(|s| s.count < 1_200));
}

#[test]
fn shard_by_the_sort_key_from_a_designer() {
    let design = Design {
        shard_by: Some(ShardSource::SortKey),
        ..Design::default()
    };
    assert!(design.roots().is_empty());
    let mut d = Designer::new(&design);
    let empty = BTreeMap::<String, Value>::new();
    d.add(&empty, 0, Some((b"a", KeyType::S)), 5, 1).unwrap();
    d.add(&empty, 0, Some((b"a", KeyType::S)), 3, 2).unwrap();
    d.add(&empty, 0, Some((b"b", KeyType::S)), 1, 3).unwrap();
    d.add(&empty, 1, None, 4, 4).unwrap();
    let (_, by) = d.finish();
    let by = by.unwrap();
    let mut pairs: Vec<(u64, u64)> = by.pairs(0).collect();
    pairs.sort_by_key(|p| p.1);
    assert_eq!(pairs, [(key_hash(b"b"), 1), (key_hash(b"a"), 8)]);
    assert_eq!(by.missing, 4);
}

#[test]
fn kept_items_rekey_as_the_load_did() {
    let design = Design {
        candidates: vec![expr("{customer}#{status}")],
        gsis: vec![GsiSpec::parse("byRegion=region").unwrap()],
        ..Design::default()
    };
    let roots = design.roots();
    let mut kept = Items::new(roots.clone());
    let mut d = Designer::new(&design);
    for (i, it) in orders().iter().enumerate() {
        let values: Vec<Option<Value>> = roots.iter().map(|r| it.get(r).cloned()).collect();
        kept.push(&values, 0, None, 1, i as u64);
        d.add(it, 0, None, 1, i as u64).unwrap();
    }
    let (loaded, _) = d.finish();
    let again = kept.rekey(&design);
    assert_eq!(again.designs.len(), 2);
    for (a, b) in loaded.iter().zip(&again.designs) {
        assert_eq!(a.kind, b.keys.kind);
        assert_eq!(a.keys.len(), b.keys.keys.len());
        assert_eq!(a.keys.total(), b.keys.keys.total());
        assert_eq!(a.absent, b.keys.absent);
    }
    assert!(kept.covers(&design));
    let other = Design {
        candidates: vec![expr("{id}")],
        ..Design::default()
    };
    assert!(!kept.covers(&other), "`id` was not kept");
    // A candidate over a missing attribute skips every record, and says why.
    let region = Design {
        candidates: vec![expr("R#{region}"), expr("{status}")],
        ..Design::default()
    };
    let r = kept.rekey(&region);
    assert_eq!(r.designs[0].skipped, 25);
    assert!(r.designs[0].first_error.is_some());
    assert_eq!(r.designs[1].keys.kind, DesignKind::Candidate(2));
    assert_eq!(r.designs[1].skipped, 0);
}

#[test]
fn random_draws_do_not_depend_on_order() {
    let design = Design {
        candidates: vec![expr("B#{random 10}")],
        seed: 7,
        ..Design::default()
    };
    let run = |order: &mut dyn Iterator<Item = usize>| {
        let items = orders();
        let mut d = Designer::new(&design);
        for i in order {
            d.add(
                &items[i],
                0,
                None,
                1,
                item_identity(format!("{i}").as_bytes(), None),
            )
            .unwrap();
        }
        let (k, _) = d.finish();
        let mut counts: Vec<(String, u64)> = k[0]
            .keys
            .iter()
            .map(|(_, b, c)| (String::from_utf8_lossy(b).into_owned(), c))
            .collect();
        counts.sort();
        counts
    };
    let forward = run(&mut (0..100));
    assert_eq!(forward, run(&mut (0..100).rev()));
    assert!(forward.len() >= 8, "{forward:?}");
    // A record of many writes spreads them over its draws.
    let mut d = Designer::new(&design);
    d.add(&orders()[0], 0, None, 1_000, 1).unwrap();
    let (k, _) = d.finish();
    assert_eq!(k[0].keys.total(), 1_000);
    assert_eq!(k[0].keys.len(), 10);
}

#[test]
fn figures_compare_designs_on_one_scale() {
    let design = Design {
        candidates: vec![expr("status"), expr("{customer}")],
        ..Design::default()
    };
    let mut d = Designer::new(&design);
    for (i, it) in orders().iter().enumerate() {
        d.add(it, 0, None, 1, i as u64).unwrap();
    }
    let (keys, _) = d.finish();
    let rows: Vec<(&DesignKeys, u64)> = keys.iter().map(|k| (k, 0)).collect();
    let view = ViewSettings::default();
    let f = figures(&rows, 100, &view, &UserAnswers::default());
    assert_eq!(f[0].distinct_keys, 2);
    assert!((f[0].top_key_share - 0.9).abs() < 1e-9);
    assert_eq!(f[1].distinct_keys, 10);
    assert!(f[1].gini < f[0].gini, "{} vs {}", f[1].gini, f[0].gini);
    assert_eq!(f[0].read_fan_out, 1);
    assert!(f[0].throttled_units.is_none(), "no workload");
}

#[test]
fn gsi_and_key_text() {
    let g = GsiSpec::parse("byDay={createdAt:day}").unwrap();
    assert_eq!(g.name, "byDay");
    assert_eq!(g.key.to_string(), "{createdAt:day}");
    assert!(GsiSpec::parse("status").unwrap_err().contains("NAME=EXPR"));
    assert!(GsiSpec::parse("=status").is_err());
    assert!(GsiSpec::parse("x={a").unwrap_err().contains("column"));
    assert_eq!(parse_key("status").unwrap().to_string(), "{status}");
    let too_many = Design {
        candidates: vec![expr("a"); 4],
        ..Design::default()
    };
    assert!(too_many.validate().is_err());
}

/// A multi-attribute GSI hashes its attributes together: `status+customer` holds the items that have both,
/// one key per pair, and an item without one of them is not in it (sparse, as a one-attribute index).
#[test]
fn a_multi_attribute_gsi_keys_pairs_and_is_sparse() {
    let mut g = GsiSpec::parse("byStatusRegion=status+region").unwrap();
    g.sort_key = vec![
        AttrPath::new(vec!["customer".into()]).unwrap(),
        AttrPath::new(vec!["id".into()]).unwrap(),
    ];
    let design = Design {
        gsis: vec![g, GsiSpec::parse("byStatus=status").unwrap()],
        ..Design::default()
    };
    assert_eq!(design.roots(), ["customer", "id", "region", "status"]);
    let mut d = Designer::new(&design);
    for (i, it) in orders().iter().enumerate() {
        d.add(it, i as u32, None, 1, i as u64).unwrap();
    }
    let (keys, _) = d.finish();
    let multi = &keys[0];
    assert_eq!(multi.expr, "{status}+{region}");
    assert_eq!(multi.keys.total(), 75, "items with both attributes");
    assert_eq!(multi.absent, 25, "items without region are not in it");
    let mut texts: Vec<String> = multi
        .keys
        .iter()
        .map(|(i, ..)| multi.keys.display(i).into_owned())
        .collect();
    texts.sort();
    assert_eq!(texts, [r#"["CLOSED","eu"]"#, r#"["OPEN","eu"]"#]);
    assert_eq!(keys[1].keys.len(), 2);
    assert_eq!(keys[1].absent, 0);
    // Too many attributes is an error when the index is given.
    let e = GsiSpec::parse("wide=a+b+c+d+e").unwrap_err();
    assert!(e.contains("5 attributes") && e.contains("at most 4"), "{e}");
}

/// The multi-attribute candidate: the shard as its own attribute spreads OPEN exactly as the same shard glued
/// onto the string does (the same pairs, hashed), and both take one query per shard value to read a status.
#[test]
fn a_shard_attribute_spreads_as_a_glued_suffix_and_costs_the_same_queries() {
    let glued = GsiSpec::parse("glued={status}#{customer:hash 4}").unwrap();
    let apart = GsiSpec::parse("apart=status+{customer:hash 4}").unwrap();
    let glued_note = glued.query_note().unwrap();
    assert!(
        glued_note.contains("a sharded string key")
            && glued_note.contains("4 queries, one per suffix"),
        "{glued_note}"
    );
    assert!(
        GsiSpec::parse("plain=status")
            .unwrap()
            .query_note()
            .is_none()
    );
    let note = apart.query_note().unwrap();
    assert!(note.contains("4 queries, one per shard value"), "{note}");
    assert!(
        note.contains("GSI.DesignPattern.MultiAttributeKeys"),
        "{note}"
    );
    let design = Design {
        gsis: vec![glued, apart],
        ..Design::default()
    };
    let mut d = Designer::new(&design);
    for (i, it) in orders().iter().enumerate() {
        d.add(it, i as u32, None, 1, i as u64).unwrap();
    }
    let (keys, _) = d.finish();
    assert_eq!(keys[0].keys.len(), keys[1].keys.len());
    assert_eq!(keys[0].fan_out, 4);
    assert_eq!(keys[1].fan_out, 4);
    let mut a: Vec<u64> = keys[0].keys.counts().collect();
    let mut b: Vec<u64> = keys[1].keys.counts().collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "the same keys' writes, only spelled differently");
}
