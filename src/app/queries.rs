//! The Queries that read the sharded key back, for "Copy key conditions" (Ctrl+Shift+C): the model's
//! [`shard_queries`] for the shown report, the table the keys came from and the inspector's sort-key
//! condition.

use super::App;
use crate::model::query::{ShardQueries, Target, shard_queries};
use crate::source::Source;

impl App {
    /// What is known about the keys' table: the last load's or scan's facts while their source is still the
    /// keys' source (a scan's table by name, as its pages change the status), else only a table's name.
    pub(crate) fn query_target(&self) -> Target {
        self.data.target().cloned().unwrap_or_else(|| Target {
            table: match self.data.source() {
                Source::Table { name, .. } => Some(name.clone()),
                _ => None,
            },
            ..Target::default()
        })
    }

    /// One Query per shard of the first sharded key of the shown report, with the inspector's `begins_with`
    /// or `between` condition; `None` when sharding is off or nothing is sharded.
    pub(crate) fn shard_queries(&self) -> Option<ShardQueries> {
        let shown = self.pipeline.current.as_ref()?;
        let sort = self.panels.inspector.sort_condition();
        shard_queries(
            &shown.view.shard,
            &shown.keys,
            &shown.report.sharded_keys,
            shown.report.read_fan_out,
            &self.query_target(),
            sort.as_ref(),
        )
    }
}
