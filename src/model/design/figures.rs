//! Comparing designs: one row of [`Figures`] per design.

use super::*;
use crate::model::decision::{UserAnswers, evaluate};
use crate::model::{ViewSettings, report};

/// One row of the comparison: a design's spread and its consequences under the view's workload.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Figures {
    /// "current key", "candidate 2", "GSI byStatus".
    pub design: String,
    pub expr: String,
    /// Writes keyed (a GSI: the writes of items in it).
    pub writes: u64,
    pub distinct_keys: usize,
    /// The hottest partition over the mean partition.
    pub max_over_mean: f64,
    /// The hottest physical key's share of the writes (after the view's sharding).
    pub top_key_share: f64,
    /// The hottest key's share as the design writes it, before the view's sharding (the same as
    /// [`Self::top_key_share`] when the view shards none of its keys).
    pub unsharded_top_key_share: f64,
    /// The design's logical keys the view's sharding splits (its hot keys, or every key): 0 when it shards
    /// none, whatever the shard setting.
    pub sharded_keys: usize,
    pub gini: f64,
    /// Units per second throttled under the view's workload (after its sharding), when it has one.
    pub throttled_units: Option<f64>,
    /// Queries to read one logical key back: the expression's `:hash`/`{random}` fan-out times the view's
    /// shard count where it shards.
    pub read_fan_out: u64,
    /// The decision tree's leaf for this design's keys, or "asks: …" where it stops at a question the data
    /// cannot answer.
    pub leaf: Option<String>,
    /// Items not in it (GSI) or not keyed (bad records skipped).
    pub absent: u64,
    /// Writes per partition (bucket) of the teaching hash, after the view's sharding.
    pub buckets: Vec<u64>,
    /// What reading one logical key back costs, for a sharded or multi-attribute key ([`query_note`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// The comparison's figures of `designs` (each keys the same items) under `view`. A GSI's workload is the
/// view's writes in proportion to the writes of the items it holds (every write of such an item writes the
/// index too), and no reads (the table's reads go to the table, and the queries of the index are not in the
/// data); the rest of the view applies as it is.
pub fn figures(
    designs: &[(&DesignKeys, u64)],
    base_writes: u64,
    view: &ViewSettings,
    answers: &UserAnswers,
) -> Vec<Figures> {
    designs
        .iter()
        .map(|&(d, absent)| {
            let mut v = view.clone();
            if let (DesignKind::Gsi(_), Some(w)) = (&d.kind, v.workload.as_mut())
                && base_writes > 0
            {
                w.writes_per_sec *= d.keys.total() as f64 / base_writes as f64;
                // The table's reads go to the table; the index's own queries are not in the data.
                w.reads_per_sec = 0.0;
            }
            let r = report(&d.keys, &v);
            let path = evaluate(&r.evidence, answers);
            let throttled = r
                .capacity
                .as_ref()
                .and_then(|c| c.as_ref().ok())
                .map(|c| c.throttled_read_units + c.throttled_write_units);
            Figures {
                design: d.kind.to_string(),
                expr: d.expr.clone(),
                writes: d.keys.total(),
                distinct_keys: d.keys.len(),
                max_over_mean: r.analysis.skew.max_over_mean,
                top_key_share: r.analysis.skew.top_key_share,
                unsharded_top_key_share: r
                    .unsharded
                    .as_ref()
                    .map_or(r.analysis.skew.top_key_share, |u| u.skew.top_key_share),
                sharded_keys: r.sharded_keys.len(),
                gini: r.analysis.skew.gini,
                throttled_units: throttled,
                read_fan_out: d.fan_out.saturating_mul(u64::from(r.read_fan_out)),
                leaf: Some(match path.leaf {
                    Some(l) => l.title().to_owned(),
                    // Where the tree stops: the question the data cannot answer.
                    None => path
                        .path
                        .last()
                        .map_or_else(|| "-".to_owned(), |s| format!("asks: {}", s.question)),
                }),
                absent: d.absent + absent,
                buckets: r.analysis.buckets.clone(),
                query: query_note(&d.kind, &d.expr),
            }
        })
        .collect()
}
