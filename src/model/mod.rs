//! The pure model: keys, partitions, sharding, statistics and the decision tree.
//!
//! Nothing here draws, waits or touches the network: no egui, eframe, tokio, aws or rfd. Everything is
//! unit-tested directly, and both the app and the CLI show what these functions return.

pub mod decision;
pub mod export;
pub mod key;
pub mod keyset;
pub mod partition;
pub mod scenario;
pub mod shard;
pub mod stats;
pub mod text;

pub use decision::{Evidence, Path, UserAnswers, evaluate};
pub use key::{KeyError, KeyType};
pub use keyset::KeySet;
pub use partition::{Partitioner, key_hash};
pub use shard::{Scope, ShardPlan, Sharded, Strategy};
pub use stats::{Analysis, analyze};

/// The settings a view of a key set is computed from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ViewSettings {
    /// Buckets (partitions) the hash space is divided into.
    pub buckets: usize,
    pub shard: ShardPlan,
    /// Top keys listed.
    pub top_n: usize,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            buckets: 8,
            shard: ShardPlan::default(),
            top_n: 10,
        }
    }
}

/// Everything shown for one key set under one set of view settings.
#[derive(Debug, Clone)]
pub struct Report {
    pub analysis: Analysis,
    /// The same keys without sharding (the ghost bars behind a sharded histogram).
    pub unsharded: Option<Analysis>,
    pub read_fan_out: u32,
    /// Logical keys the plan sharded.
    pub sharded_keys: Vec<u32>,
    pub evidence: Evidence,
}

/// Computes the report of `keys` under `view`.
pub fn report(keys: &KeySet, view: &ViewSettings) -> Report {
    report_reusing(keys, view, None)
}

/// Like [`report`], reusing the unsharded analysis of a previous report of the same keys when the bucket
/// count and top-N are unchanged: a change of shard setting then analyses only the sharded keys.
pub fn report_reusing(
    keys: &KeySet,
    view: &ViewSettings,
    previous: Option<(&ViewSettings, &Report)>,
) -> Report {
    let partitions = Partitioner::equal(view.buckets);
    let reusable = previous
        .filter(|(v, _)| v.buckets == view.buckets && v.top_n == view.top_n)
        .and_then(|(v, r)| {
            if v.shard.is_active() {
                r.unsharded.clone()
            } else {
                Some(r.analysis.clone())
            }
        });
    let plain = || {
        reusable.unwrap_or_else(|| {
            analyze(
                keys,
                &ShardPlan::none().apply(keys),
                &partitions,
                view.top_n,
            )
        })
    };
    let sharded = view.shard.apply(keys);
    let (analysis, unsharded) = if view.shard.is_active() {
        let analysis = analyze(keys, &sharded, &partitions, view.top_n);
        (analysis, Some(plain()))
    } else {
        (plain(), None)
    };
    let evidence = Evidence::from_analysis(keys, &analysis);
    Report {
        read_fan_out: sharded.read_fan_out(),
        sharded_keys: sharded.sharded_keys,
        analysis,
        unsharded,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reusing_a_previous_report_gives_the_same_report() {
        let keys = text::parse_text(
            scenario::Scenario::Leaderboard.text().as_bytes(),
            KeyType::S,
        )
        .unwrap();
        let plain = ViewSettings::default();
        let sharded = ViewSettings {
            shard: ShardPlan {
                shards: 10,
                ..ShardPlan::default()
            },
            ..ViewSettings::default()
        };
        let first = report(&keys, &plain);
        let reused = report_reusing(&keys, &sharded, Some((&plain, &first)));
        let fresh = report(&keys, &sharded);
        assert_eq!(reused.analysis.buckets, fresh.analysis.buckets);
        assert_eq!(
            reused.unsharded.as_ref().unwrap().buckets,
            fresh.unsharded.as_ref().unwrap().buckets
        );
        let back = report_reusing(&keys, &plain, Some((&sharded, &fresh)));
        assert_eq!(back.analysis.buckets, first.analysis.buckets);
        assert!(back.unsharded.is_none());
        // A different bucket count is not reused.
        let sixteen = ViewSettings {
            buckets: 16,
            ..ViewSettings::default()
        };
        assert_eq!(
            report_reusing(&keys, &sixteen, Some((&plain, &first)))
                .analysis
                .buckets
                .len(),
            16
        );
    }
}
