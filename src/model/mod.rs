//! The pure model: keys, partitions, sharding, statistics, capacity, the decision tree and the time
//! simulation, and the report ([`report`]) that puts the analysis together.
//!
//! Nothing here draws, waits or touches the network: no egui, eframe, tokio, aws or rfd. Everything is
//! unit-tested directly, and both the app and the CLI show what these functions return.

pub mod bytes;
pub mod calendar;
pub mod capacity;
pub mod collection;
pub mod decision;
pub mod design;
pub mod examples;
pub mod export;
pub mod fmt;
pub mod health;
pub mod heat;
pub mod item_size;
pub mod key;
pub mod keyexpr;
pub mod keyset;
pub mod partition;
pub mod query;
pub mod shard;
pub mod sim_file;
pub mod simulate;
pub mod sortkey;
pub mod stats;
pub mod text;
pub mod trace;

pub use capacity::{Capacity, CapacityError, Workload};
pub use decision::{Evidence, Path, UserAnswers, evaluate};
pub use key::{KeyError, KeyType};
pub use keyset::KeySet;
pub use partition::{Partitioner, key_hash};
pub use shard::{Scope, ShardPlan, Sharded, Strategy};
pub use stats::{Analysis, analyze};

/// The settings a view of a key set is computed from.
///
/// Buckets and partitions: without a workload, `buckets` is how many equal hash ranges the keys are counted
/// over. With a workload, the table's partition count drives the buckets: [`Self::bucket_count`] (what
/// [`report`] uses) is the workload's partition count, and [`Self::with_workload`] sets `buckets` to it too, so
/// the two agree for every reader. A workload whose numbers are invalid leaves `buckets` in charge (and the
/// report carries the error).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ViewSettings {
    /// Buckets (partitions) the hash space is divided into, when no workload sets the partition count.
    pub buckets: usize,
    pub shard: ShardPlan,
    /// Top keys listed.
    pub top_n: usize,
    /// Request rates and table settings; with one, the report has a capacity result.
    #[serde(default)]
    pub workload: Option<Workload>,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            buckets: 8,
            shard: ShardPlan::default(),
            top_n: 10,
            workload: None,
        }
    }
}

impl ViewSettings {
    /// Sets the workload, and `buckets` to its partition count.
    pub fn with_workload(mut self, workload: Workload) -> Result<Self, CapacityError> {
        self.buckets = workload.partition_plan()?.count;
        self.workload = Some(workload);
        Ok(self)
    }

    /// The buckets the analysis uses: the workload's partition count when a valid workload is set, else
    /// `buckets`.
    pub fn bucket_count(&self) -> usize {
        self.workload
            .as_ref()
            .and_then(|w| w.partition_plan().ok())
            .map_or(self.buckets, |p| p.count)
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
    /// The workload over the partitions, when the view has a workload (or why it cannot be computed).
    pub capacity: Option<Result<Capacity, CapacityError>>,
    /// The view's workload as computed: an item size "from the data" resolved to the keys' measured sizes.
    pub workload: Option<Workload>,
    /// What each bucket's colour means, by the decision tree's rules (see [`heat`]).
    pub heat: Vec<heat::BucketHeat>,
}

/// Computes the report of `keys` under `view`.
///
/// With a workload, the buckets are the workload's partitions (see [`ViewSettings`]) and the capacity of each
/// is computed from the (sharded) bucket counts; the decision evidence then includes the capacity facts.
pub fn report(keys: &KeySet, view: &ViewSettings) -> Report {
    report_reusing(keys, view, None, None)
}

/// Like [`report`], reusing the unsharded analysis of a previous report of the same keys when the bucket
/// count and top-N are unchanged: a change of shard setting (or of the workload's rates) then analyses only the
/// sharded keys. `by` is what a calculated suffix hashes per item (`--shard-by`; see [`ShardPlan::apply_by`]).
pub fn report_reusing(
    keys: &KeySet,
    view: &ViewSettings,
    previous: Option<(&ViewSettings, &Report)>,
    by: Option<&shard::ShardBy>,
) -> Report {
    let workload = view
        .workload
        .as_ref()
        .map(|w| w.resolve(keys.size_profile()));
    let plan = workload.as_ref().map(Workload::partition_plan);
    let buckets = match &plan {
        Some(Ok(p)) => p.count,
        _ => view.buckets,
    };
    let partitions = Partitioner::equal(buckets);
    let reusable = previous
        .filter(|(v, r)| r.analysis.buckets.len() == buckets && v.top_n == view.top_n)
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
    let by = by.filter(|_| view.shard.strategy == Strategy::Calculated);
    let sharded = view.shard.apply_by(keys, by);
    let (analysis, unsharded) = if view.shard.is_active() {
        let analysis = analyze(keys, &sharded, &partitions, view.top_n);
        (analysis, Some(plain()))
    } else {
        (plain(), None)
    };
    let capacity = workload.as_ref().zip(plan).map(|(workload, plan)| {
        plan.and_then(|plan| capacity::compute(workload, &plan, &analysis.buckets))
    });
    let mut evidence = Evidence::from_analysis(keys, &analysis);
    if let Some(Ok(c)) = &capacity {
        evidence.capacity = Some(c.facts(&analysis));
    }
    if let Some(w) = &workload {
        evidence.item_bytes = Some(w.item_size.mean_bytes());
    }
    if view.shard.is_active() && !sharded.sharded_keys.is_empty() {
        evidence.sharding = Some(decision::ShardFacts {
            shards: view.shard.shards,
            all_keys: view.shard.scope == Scope::All,
            top_key_sharded: analysis
                .top_keys
                .first()
                .is_some_and(|k| k.id.shard.is_some()),
            physical_distinct: analysis.physical_distinct,
            by_item: by.is_some_and(|b| !b.is_empty()),
        });
    }
    let shards = if view.shard.is_active() {
        view.shard.shards
    } else {
        1
    };
    let heat = heat::bucket_heat(&analysis, keys, shards);
    evidence.collision = heat
        .iter()
        .enumerate()
        .find(|(_, h)| h.heat == heat::Heat::Collision)
        .and_then(|(b, h)| h.note.as_ref().map(|n| format!("bucket {b}: {n}")));
    Report {
        heat,
        read_fan_out: sharded.read_fan_out(),
        sharded_keys: sharded.sharded_keys,
        analysis,
        unsharded,
        evidence,
        capacity,
        workload,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::{CapacityError, PartitionCount};

    #[test]
    fn a_workload_sets_the_buckets_and_the_capacity() {
        let mut keys = KeySet::new(KeyType::S);
        keys.add(b"HOT", 90);
        keys.add(b"cold", 10);
        let workload = Workload {
            writes_per_sec: 2000.0,
            partitions: PartitionCount::Override(5),
            ..Workload::default()
        };
        let view = ViewSettings::default()
            .with_workload(workload.clone())
            .unwrap();
        assert_eq!((view.buckets, view.bucket_count()), (5, 5));
        let rep = report(&keys, &view);
        assert_eq!(rep.analysis.buckets.len(), 5);
        let c = rep.capacity.unwrap().unwrap();
        assert_eq!(c.partitions.len(), 5);
        assert!((c.write_units - 2000.0).abs() < 1e-9);
        let facts = rep.evidence.capacity.unwrap();
        assert_eq!(facts.hottest_top_key.as_deref(), Some("HOT"));
        assert_eq!(rep.evidence.item_bytes, Some(1024.0));

        // A workload set by hand drives the buckets too, whatever `buckets` says.
        let by_hand = ViewSettings {
            workload: Some(workload),
            ..ViewSettings::default()
        };
        assert_eq!(by_hand.bucket_count(), 5);
        assert_eq!(report(&keys, &by_hand).analysis.buckets.len(), 5);

        // An invalid workload leaves `buckets` in charge and the report carries the error.
        let bad = ViewSettings {
            workload: Some(Workload {
                partitions: PartitionCount::Override(0),
                ..Workload::default()
            }),
            ..ViewSettings::default()
        };
        assert!(
            ViewSettings::default()
                .with_workload(Workload {
                    partitions: PartitionCount::Override(0),
                    ..Workload::default()
                })
                .is_err()
        );
        let rep = report(&keys, &bad);
        assert_eq!(rep.analysis.buckets.len(), 8);
        assert_eq!(rep.capacity, Some(Err(CapacityError::ZeroPartitions)));
        assert_eq!(rep.evidence.capacity, None);
        // No workload, no capacity.
        assert!(report(&keys, &ViewSettings::default()).capacity.is_none());
    }
}

#[cfg(test)]
mod reuse_tests {
    use super::*;

    #[test]
    fn reusing_a_previous_report_gives_the_same_report() {
        let keys = text::parse_text(
            examples::keys::KeyExample::Leaderboard.text().as_bytes(),
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
        let reused = report_reusing(&keys, &sharded, Some((&plain, &first)), None);
        let fresh = report(&keys, &sharded);
        assert_eq!(reused.analysis.buckets, fresh.analysis.buckets);
        assert_eq!(
            reused.unsharded.as_ref().unwrap().buckets,
            fresh.unsharded.as_ref().unwrap().buckets
        );
        let back = report_reusing(&keys, &plain, Some((&sharded, &fresh)), None);
        assert_eq!(back.analysis.buckets, first.analysis.buckets);
        assert!(back.unsharded.is_none());
        // A different bucket count is not reused.
        let sixteen = ViewSettings {
            buckets: 16,
            ..ViewSettings::default()
        };
        assert_eq!(
            report_reusing(&keys, &sixteen, Some((&plain, &first)), None)
                .analysis
                .buckets
                .len(),
            16
        );
    }
}
