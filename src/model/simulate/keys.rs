//! The key space of a run: where each stream's keys sit (hash, then place in the key's sort-key range), the
//! share of a key inside a range, and the helpers that name keys (dates, keys in a given partition).

use super::super::partition::{Partitioner, key_hash};
use super::{Keys, Point, SortKey, before};

/// Where the writes of an only-increasing collection land: the end of its sort-key range.
const MONOTONIC_AT: f64 = 1.0 - 1e-9;
/// Where a single item sits in its key's sort-key range.
const SINGLE_ITEM_AT: f64 = 0.5;

/// One key of a stream: where it is and its share of the stream.
#[derive(Debug, Clone)]
pub(super) struct Atom {
    pub(super) hash: u64,
    pub(super) share: f64,
    pub(super) name: String,
}

/// `YYYY-MM-DD` of a Unix day number (days since 1970-01-01).
pub fn date_of_day(day: i64) -> String {
    let (y, m, d) = super::super::calendar::civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A key that the teaching hash puts in partition `p` of `n` equal ones: `P{p}-{i}` for the first `i` that
/// lands there.
pub fn key_in_partition(p: usize, n: usize) -> String {
    let parts = Partitioner::equal(n);
    let p = p.min(n.saturating_sub(1));
    (0u64..)
        .map(|i| format!("P{p}-{i}"))
        .find(|k| parts.partition_of(key_hash(k.as_bytes())) == p)
        .unwrap_or_default()
}

pub(super) fn atoms_of(keys: &Keys, day: i64, partitions: usize) -> Vec<Atom> {
    let atom = |name: String, share: f64| Atom {
        hash: key_hash(name.as_bytes()),
        share,
        name,
    };
    match keys {
        Keys::One(k) => vec![atom(k.replace("{date}", &date_of_day(day)), 1.0)],
        Keys::Weighted(list) => {
            let total: f64 = list.iter().map(|(_, w)| w.max(0.0)).sum();
            list.iter()
                .filter(|(_, w)| *w > 0.0)
                .map(|(k, w)| {
                    atom(
                        k.replace("{date}", &date_of_day(day)),
                        w / total.max(f64::MIN_POSITIVE),
                    )
                })
                .collect()
        }
        Keys::Uniform(n) => {
            let share = 1.0 / f64::from((*n).max(1));
            (0..(*n).max(1))
                .map(|i| atom(format!("key#{i}"), share))
                .collect()
        }
        Keys::InPartition(p) => vec![atom(key_in_partition(*p, partitions), 1.0)],
    }
}

/// Where a key's mass sits in its sort-key range: a point, or the whole range.
pub(super) fn mass(sort_key: SortKey) -> Option<f64> {
    match sort_key {
        SortKey::Random => None,
        SortKey::Monotonic => Some(MONOTONIC_AT),
        SortKey::SingleItem => Some(SINGLE_ITEM_AT),
    }
}

/// The share of a key at `hash` (mass `at`, or the whole range) inside `[start, end)`.
pub(super) fn overlap(hash: u64, at: Option<f64>, start: Point, end: Option<Point>) -> f64 {
    let inside = |p: Point| !before(p, start) && end.is_none_or(|e| before(p, e));
    match at {
        Some(f) => f64::from(u8::from(inside((hash, f)))),
        None => {
            let lo = if start.0 < hash {
                0.0
            } else if start.0 == hash {
                start.1
            } else {
                1.0
            };
            let hi = match end {
                None => 1.0,
                Some(e) if e.0 > hash => 1.0,
                Some(e) if e.0 == hash => e.1,
                Some(_) => 0.0,
            };
            (hi.min(1.0) - lo.max(0.0)).max(0.0)
        }
    }
}

pub(super) fn overlap_lo(hash: u64, start: Point) -> f64 {
    if start.0 == hash { start.1 } else { 0.0 }
}

pub(super) fn overlap_hi(hash: u64, end: Option<Point>) -> f64 {
    match end {
        Some(e) if e.0 == hash => e.1,
        _ => 1.0,
    }
}

/// The share of the key space in `[start, end)`: its hash range over 2⁶⁴, a place in one key's sort-key
/// range counting as that fraction of one hash.
pub(super) fn width(start: Point, end: Option<Point>) -> f64 {
    const SPACE: f64 = 18_446_744_073_709_551_616.0; // 2⁶⁴
    let (hash, place) = end.map_or((u64::MAX, 1.0), |e| (e.0, e.1));
    let hashes = hash.saturating_sub(start.0) as f64;
    ((hashes + place - start.1) / SPACE).max(0.0)
}

pub(super) fn midpoint(start: Point, end: Option<Point>) -> Point {
    let end_hash = end.map_or(u64::MAX, |e| e.0);
    (start.0 + (end_hash - start.0) / 2, 0.0)
}

/// The run's keys as a key set at the start of the clock: each key counted by its peak writes and reads per
/// second (at least one), so the decision tree can judge the scenario's keys as it judges loaded ones.
pub fn key_set(setup: &super::Setup) -> super::super::KeySet {
    let mut set = super::super::KeySet::new(super::super::KeyType::S);
    let day = setup.start.div_euclid(86_400);
    let partitions = super::engine::initial_partitions(setup);
    for stream in &setup.traffic {
        let peak = |s: &super::Schedule| s.0.iter().map(|&(_, r)| r).fold(0.0f64, f64::max);
        let rate = peak(&stream.writes_per_sec) + peak(&stream.reads_per_sec);
        for a in atoms_of(&stream.keys, day, partitions) {
            let count = (a.share * rate).round().max(1.0) as u64;
            set.add(a.name.as_bytes(), count);
        }
    }
    if let Some(trace) = &setup.trace {
        // A trace's keys by their requests over the whole trace.
        set.merge(&trace.key_set());
    }
    set
}

/// The decision tree's evidence about a run's keys (the run's own figures come in later): the report of its
/// [`key_set`], its top key's sort keys as the scenario gives them, and why a replay's stand-in keys are no
/// evidence. The app's Timeline and `shardlens simulate` walk the tree from it.
pub fn key_evidence(setup: &super::Setup) -> super::super::decision::Evidence {
    let keys = key_set(setup);
    let view = super::super::ViewSettings::default();
    let mut evidence = super::super::report(&keys, &view).evidence;
    // The scenario's sort keys say what loaded sort keys would: one item, or a collection.
    if let Some((key, _, _)) = &evidence.top_key {
        evidence.top_key_items = sort_key_facts(setup, key);
    }
    // A replay's stand-in keys (CloudWatch's minutes alone) are never evidence about the keys.
    let top = evidence.top_key.as_ref().map(|k| k.0.as_str());
    evidence.keys_unknown = stand_in_keys_note(setup, top);
    evidence
}

/// Why a replay's keys are no evidence for the decision tree, when they are not: every key is a stand-in
/// (CloudWatch's minutes alone), or the hottest, `top_key`, is one. Stand-ins spread traffic known only in
/// total evenly over made-up names, so a hot key can never show among them. Says what would answer the key
/// questions.
pub fn stand_in_keys_note(setup: &super::Setup, top_key: Option<&str>) -> Option<String> {
    let trace = setup.trace.as_ref()?;
    let is_stand_in = |name: &str| trace.keys.iter().any(|k| k.stand_in && k.name == name);
    let all = trace.only_stand_ins();
    if !all && !top_key.is_some_and(is_stand_in) {
        return None;
    }
    Some(format!(
        "{}: the other#… keys are stand-ins that spread CloudWatch's units evenly, never evidence \
         about the keys. Contributor Insights (its most accessed and most throttled keys), the table's stream or \
         a request log would answer it",
        if all {
            "no per-key records, only CloudWatch's minutes"
        } else {
            "most traffic has no per-key records"
        }
    ))
}

/// Write-shards the run's keys as `analyze --shards` does: each key with at least `hot_share` of its stream
/// (every key when `None`) becomes `n` keys `KEY{separator}0 … KEY{separator}{n-1}` with equal parts of its
/// share. Uniform and in-partition keys stay as they are. A replayed trace's keys are sharded by their share
/// of the trace ([`crate::model::trace::Trace::sharded`]).
pub fn shard_keys(setup: &mut super::Setup, n: u32, hot_share: Option<f64>, separator: &str) {
    if n <= 1 {
        return;
    }
    let fan = |key: &str, share: f64| -> Vec<(String, f64)> {
        (0..n)
            .map(|i| (format!("{key}{separator}{i}"), share / f64::from(n)))
            .collect()
    };
    for stream in &mut setup.traffic {
        stream.keys = match std::mem::replace(&mut stream.keys, Keys::Uniform(1)) {
            Keys::One(k) => Keys::Weighted(fan(&k, 1.0)),
            Keys::Weighted(list) => {
                let total: f64 = list
                    .iter()
                    .map(|(_, w)| *w)
                    .sum::<f64>()
                    .max(f64::MIN_POSITIVE);
                let hot = |w: f64| hot_share.is_none_or(|h| w / total >= h);
                Keys::Weighted(
                    list.into_iter()
                        .flat_map(|(k, w)| if hot(w) { fan(&k, w) } else { vec![(k, w)] })
                        .collect(),
                )
            }
            other => other,
        };
    }
    if let Some(trace) = &setup.trace {
        // A replayed trace's keys, by their share of the trace's units.
        setup.trace = Some(std::sync::Arc::new(trace.sharded(n, hot_share, separator)));
    }
}

/// What the scenario says about `key`'s item collection, as loaded sort keys would: one item, or many
/// written in increasing sort-key order (a timestamp), or many in no order (random sort keys). `None` when no
/// stream writes `key`.
pub fn sort_key_facts(
    setup: &super::Setup,
    key: &str,
) -> Option<super::super::keyset::SortKeyFacts> {
    let day = setup.start.div_euclid(86_400);
    let partitions = super::engine::initial_partitions(setup);
    let found = setup.traffic.iter().find(|s| {
        atoms_of(&s.keys, day, partitions)
            .iter()
            .any(|a| a.name == key)
    });
    let Some(stream) = found else {
        // A trace's key: what its records showed of its sort keys.
        let k = setup.trace.as_ref()?.keys.iter().find(|k| k.name == key)?;
        let items = (k.requests[1].round() as u64).max(2);
        return Some(match k.sort_key {
            SortKey::SingleItem => super::super::keyset::SortKeyFacts {
                items: 1,
                only_increasing: false,
            },
            kind => super::super::keyset::SortKeyFacts {
                items,
                only_increasing: kind == SortKey::Monotonic,
            },
        });
    };
    let writes = stream
        .writes_per_sec
        .0
        .iter()
        .map(|&(_, r)| r)
        .fold(0.0f64, f64::max);
    let many = (writes * f64::from(setup.duration)).max(2.0) as u64;
    Some(match stream.sort_key {
        SortKey::SingleItem => super::super::keyset::SortKeyFacts {
            items: 1,
            only_increasing: false,
        },
        SortKey::Monotonic => super::super::keyset::SortKeyFacts {
            items: many,
            only_increasing: true,
        },
        SortKey::Random => super::super::keyset::SortKeyFacts {
            items: many,
            only_increasing: false,
        },
    })
}
