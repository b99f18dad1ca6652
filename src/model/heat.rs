//! What each bucket's colour means, decided by the same rules as the decision tree, so the chart and the
//! tree never disagree: a bucket is **hot** only where the tree would say "one key": at least
//! [`HOT_BUCKET_RATIO`]× the mean bucket with one key holding most of it. A bucket as full without one key
//! behind it is **uneven** (several keys, or shards of one key that collide in one bucket, which is said in
//! its note). Buckets near the mean are **even**, and so is every bucket of an input too small to judge.

use super::decision::{
    DOMINANT_OVER_NEXT, DOMINANT_SHARE_OF_BUCKET, HOT_BUCKET_RATIO, too_few_to_judge,
};
use super::keyset::KeySet;
use super::shard::MAX_SHARDS;
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
    let mut stems = StemCounts::new();
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
                    // Shards of one key among this bucket's top keys: a hash collision.
                    if let Some((stem, same, of)) = collided_shards(top, keys, shards, &mut stems) {
                        let at_least = if same >= top.len() { "at least " } else { "" };
                        return BucketHeat {
                            heat: Heat::Collision,
                            note: Some(format!(
                                "{ratio:.1}× the mean bucket: {at_least}{same} of the {of} shards of {stem} land \
                                 here ({of} shards over {n} buckets cannot all land apart; the teaching hash puts \
                                 some together)"
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

/// Keys per literal shard stem (`BOARD#global` of `BOARD#global#3`), counted over the key set once each.
type StemCounts = std::collections::HashMap<String, usize>;

/// The stem of a key that looks like a shard written into the data: text, a separator (`#`, `.`, `_`, `-`,
/// `:`), and a number below [`MAX_SHARDS`]: `BOARD#global#3` → `BOARD#global`.
pub fn shard_stem(label: &str) -> Option<&str> {
    let digits = label.trim_end_matches(|c: char| c.is_ascii_digit());
    let number = &label[digits.len()..];
    if number.is_empty() || number.len() > 3 || number.parse::<u32>().ok()? >= MAX_SHARDS {
        return None;
    }
    let stem = digits.strip_suffix(['#', '.', '_', '-', ':'])?;
    (!stem.is_empty()).then_some(stem)
}

/// Two or more shards of one key among a bucket's top keys: the key's name, how many are here, and how many
/// shards it has. Shards made by the shard plan are known; shards written into the data (`BOARD#global#3`)
/// are recognised by [`shard_stem`] when 2 to [`MAX_SHARDS`] keys of the whole set share the stem (so
/// `USER#1 … USER#5000` are not taken for shards).
fn collided_shards(
    top: &[super::stats::TopKey],
    keys: &KeySet,
    shards: u32,
    stems: &mut StemCounts,
) -> Option<(String, usize, usize)> {
    let mut best: Option<(String, usize, usize)> = None;
    let mut consider = |name: String, same: usize, of: usize| {
        if same >= 2 && best.as_ref().is_none_or(|b| same > b.1) {
            best = Some((name, same, of));
        }
    };
    for k in top.iter().filter(|k| k.id.shard.is_some()) {
        let same = top
            .iter()
            .filter(|o| o.id.key == k.id.key && o.id.shard.is_some())
            .count();
        consider(keys.display(k.id.key).into_owned(), same, shards as usize);
    }
    for k in top.iter().filter(|k| k.id.shard.is_none()) {
        let Some(stem) = shard_stem(&k.key) else {
            continue;
        };
        let same = top
            .iter()
            .filter(|o| o.id.shard.is_none() && shard_stem(&o.key) == Some(stem))
            .count();
        if same < 2 {
            continue;
        }
        let of = *stems.entry(stem.to_owned()).or_insert_with(|| {
            (0..keys.len() as u32)
                .filter(|&i| shard_stem(&keys.display(i)) == Some(stem))
                .count()
        });
        if (2..=MAX_SHARDS as usize).contains(&of) {
            consider(stem.to_owned(), same, of);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::examples::keys::KeyExample;
    use crate::model::partition::Partitioner;
    use crate::model::shard::ShardPlan;
    use crate::model::text::parse_text;
    use crate::model::{KeyType, ViewSettings, analyze, decision, report};

    fn heats(scenario: KeyExample, shards: u32) -> (Vec<Heat>, decision::Path) {
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
        let (heat, path) = heats(KeyExample::Leaderboard, 1);
        assert_eq!(
            path.answer(decision::Question::OneKey),
            Some(decision::Answer::Yes)
        );
        assert_eq!(heat.iter().filter(|h| **h == Heat::Hot).count(), 1);
        // The healthy example has no warning colour at all.
        let (heat, _) = heats(KeyExample::Healthy, 1);
        assert!(heat.iter().all(|h| *h == Heat::Even), "{heat:?}");
        // After sharding the hot key ×10, nothing is red and the tree no longer says one key.
        let (heat, path) = heats(KeyExample::Leaderboard, 10);
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
    fn shards_written_into_the_data_are_recognised_by_their_stem() {
        assert_eq!(shard_stem("BOARD#global#3"), Some("BOARD#global"));
        assert_eq!(shard_stem("orders_12"), Some("orders"));
        assert_eq!(shard_stem("BOARD#chess"), None);
        assert_eq!(shard_stem("key123"), None);
        assert_eq!(shard_stem("USER#1234"), None);
        assert_eq!(shard_stem("#7"), None);
        // The example that writes BOARD#global#0 … #9 into its keys: its fullest bucket is explained.
        let (heat, _) = heats(KeyExample::LeaderboardSharded, 1);
        assert!(!heat.contains(&Heat::Hot), "{heat:?}");
        let keys =
            parse_text(KeyExample::LeaderboardSharded.text().as_bytes(), KeyType::S).unwrap();
        let rep = report(&keys, &ViewSettings::default());
        let notes: Vec<String> = bucket_heat(&rep.analysis, &keys, 1)
            .into_iter()
            .filter(|h| h.heat == Heat::Collision)
            .filter_map(|h| h.note)
            .collect();
        assert!(
            notes
                .iter()
                .any(|n| n.contains("of the 10 shards of BOARD#global")),
            "{notes:?}"
        );
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
