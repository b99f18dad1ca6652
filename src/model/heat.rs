//! What each bucket's colour means, decided by the same rules as the decision tree, so the chart and the
//! tree never disagree: a bucket is **hot** only where the tree would say "one key": at least
//! [`HOT_BUCKET_RATIO`]× the mean bucket with one key holding most of it. A bucket as full without one key
//! behind it is **uneven** (several keys, or shards of one key that collide in one bucket, which is said in
//! its note). Buckets near the mean are **even**, and so is every bucket of an input too small to judge.

use super::decision::{
    DOMINANT_OVER_NEXT, DOMINANT_SHARE_OF_BUCKET, HOT_BUCKET_RATIO, too_few_to_judge,
};
use super::keyset::KeySet;
use super::stats::Analysis;

/// From this many times the mean bucket, a bucket is uneven (our own threshold: a healthy key spreads its
/// buckets well within ±50 % once there are enough writes to judge).
pub const UNEVEN_RATIO: f64 = 1.5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heat {
    /// Near the mean (or too few writes to judge).
    Even,
    /// Well above the mean, but no single key makes it so.
    Uneven,
    /// Well above the mean because shards of one sharded key landed together.
    Collision,
    /// A hot partition: one key dominates a bucket at least twice the mean (the tree's "one key").
    Hot,
}

/// A bucket's heat and, when it is not even, why, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketHeat {
    pub heat: Heat,
    pub note: Option<String>,
}

/// The heat of every bucket of `a` (keys as in `keys`; `shards` is the shard count in effect, 1 for none).
pub fn bucket_heat(a: &Analysis, keys: &KeySet, shards: u32) -> Vec<BucketHeat> {
    let n = a.buckets.len();
    let even = || BucketHeat {
        heat: Heat::Even,
        note: None,
    };
    if a.total == 0 || too_few_to_judge(a.total, n) {
        return vec![even(); n];
    }
    let mean = a.total as f64 / n as f64;
    a.buckets
        .iter()
        .enumerate()
        .map(|(b, &count)| {
            let ratio = count as f64 / mean;
            let top = a.bucket_top.get(b).map_or(&[][..], Vec::as_slice);
            if ratio >= HOT_BUCKET_RATIO {
                if let Some(first) = top.first() {
                    let next = top.get(1).map_or(0, |k| k.count);
                    let dominant = first.count as f64 >= DOMINANT_SHARE_OF_BUCKET * count as f64
                        && first.count as f64 >= DOMINANT_OVER_NEXT * next as f64;
                    if dominant {
                        return BucketHeat {
                            heat: Heat::Hot,
                            note: Some(format!(
                                "hot: {ratio:.1}× the mean bucket, and {} holds {:.0} % of it",
                                first.key,
                                first.count as f64 / count as f64 * 100.0
                            )),
                        };
                    }
                    // Shards of one logical key among this bucket's top keys: a hash collision.
                    let mut best: Option<(u32, usize)> = None;
                    for k in top.iter().filter(|k| k.id.shard.is_some()) {
                        let same = top
                            .iter()
                            .filter(|o| o.id.key == k.id.key && o.id.shard.is_some())
                            .count();
                        if same >= 2 && best.is_none_or(|(_, c)| same > c) {
                            best = Some((k.id.key, same));
                        }
                    }
                    if let Some((key, same)) = best {
                        let at_least = if same >= top.len() { "at least " } else { "" };
                        return BucketHeat {
                            heat: Heat::Collision,
                            note: Some(format!(
                                "{ratio:.1}× the mean bucket: {at_least}{same} of the {shards} shards of {} land \
                                 here ({shards} shards over {n} buckets cannot all land apart; the teaching hash \
                                 puts some together)",
                                keys.display(key)
                            )),
                        };
                    }
                }
                return BucketHeat {
                    heat: Heat::Uneven,
                    note: Some(format!(
                        "{ratio:.1}× the mean bucket, shared by several keys (no one key holds most of it)"
                    )),
                };
            }
            if ratio >= UNEVEN_RATIO {
                return BucketHeat {
                    heat: Heat::Uneven,
                    note: Some(format!("{ratio:.1}× the mean bucket")),
                };
            }
            even()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::partition::Partitioner;
    use crate::model::scenario::Scenario;
    use crate::model::shard::ShardPlan;
    use crate::model::text::parse_text;
    use crate::model::{KeyType, ViewSettings, analyze, decision, report};

    fn heats(scenario: Scenario, shards: u32) -> (Vec<Heat>, decision::Path) {
        let keys = parse_text(scenario.text().as_bytes(), KeyType::S).unwrap();
        let view = ViewSettings {
            shard: ShardPlan {
                shards,
                ..ShardPlan::default()
            },
            ..ViewSettings::default()
        };
        let rep = report(&keys, &view);
        let heat = bucket_heat(&rep.analysis, &keys, shards)
            .into_iter()
            .map(|h| h.heat)
            .collect();
        (heat, decision::evaluate(&rep.evidence, &Default::default()))
    }

    #[test]
    fn red_exactly_where_the_tree_says_one_key() {
        let (heat, path) = heats(Scenario::Leaderboard, 1);
        assert_eq!(
            path.answer(decision::Question::OneKey),
            Some(decision::Answer::Yes)
        );
        assert_eq!(heat.iter().filter(|h| **h == Heat::Hot).count(), 1);
        // The healthy example has no warning colour at all.
        let (heat, _) = heats(Scenario::Healthy, 1);
        assert!(heat.iter().all(|h| *h == Heat::Even), "{heat:?}");
        // After sharding the hot key ×10, nothing is red and the tree no longer says one key.
        let (heat, path) = heats(Scenario::Leaderboard, 10);
        assert!(!heat.contains(&Heat::Hot), "{heat:?}");
        assert_eq!(
            path.answer(decision::Question::OneKey),
            Some(decision::Answer::No)
        );
    }

    #[test]
    fn shards_that_collide_are_named_and_not_red() {
        use crate::model::shard::PhysicalKey;
        use crate::model::stats::TopKey;
        let mut keys = KeySet::new(KeyType::S);
        keys.add(b"BOARD#global", 2_000);
        keys.add(b"USER#1", 400);
        let top = |key: u32, shard: Option<u32>, count: u64| TopKey {
            id: PhysicalKey { key, shard },
            key: String::new(),
            count,
            share: 0.0,
        };
        // Eight buckets, mean 400: bucket 0 holds two of the shards (2.0×), bucket 1 one shard alone (2.5×,
        // hot), bucket 2 one shard with some writes of USER#1 (1.5×, uneven), the rest below the mean.
        let mut buckets = vec![800, 1_000, 600];
        buckets.extend([160; 5]);
        let mut bucket_top = vec![
            vec![top(0, Some(0), 400), top(0, Some(3), 400)],
            vec![top(0, Some(1), 1_000)],
            vec![top(0, Some(2), 350), top(1, None, 250)],
        ];
        bucket_top.extend(std::iter::repeat_n(vec![top(1, None, 160)], 5));
        let a = Analysis {
            total: 3_200,
            distinct: 2,
            physical_distinct: 5,
            buckets,
            bucket_top,
            ..Analysis::default()
        };
        let heat = bucket_heat(&a, &keys, 4);
        assert_eq!(heat[0].heat, Heat::Collision, "{heat:?}");
        let note = heat[0].note.as_deref().unwrap();
        assert!(note.contains("2 of the 4 shards of BOARD#global"), "{note}");
        assert_eq!(heat[1].heat, Heat::Hot);
        assert_eq!(heat[2].heat, Heat::Uneven);
        assert_eq!(heat[3].heat, Heat::Even);
    }

    #[test]
    fn too_few_writes_are_never_coloured() {
        let keys = parse_text(b"a\na\na\n", KeyType::S).unwrap();
        let a = analyze(
            &keys,
            &ShardPlan::none().apply(&keys),
            &Partitioner::equal(8),
            10,
        );
        assert!(
            bucket_heat(&a, &keys, 1)
                .iter()
                .all(|h| h.heat == Heat::Even)
        );
    }
}
