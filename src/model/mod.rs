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
    let partitions = Partitioner::equal(view.buckets);
    let sharded = view.shard.apply(keys);
    let analysis = analyze(keys, &sharded, &partitions, view.top_n);
    let unsharded = view.shard.is_active().then(|| {
        analyze(
            keys,
            &ShardPlan::none().apply(keys),
            &partitions,
            view.top_n,
        )
    });
    let evidence = Evidence::from_analysis(keys, &analysis);
    Report {
        read_fan_out: sharded.read_fan_out(),
        sharded_keys: sharded.sharded_keys,
        analysis,
        unsharded,
        evidence,
    }
}
