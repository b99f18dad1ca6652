//! What a replay's run changes of the recorded one ([`WhatIf`]): the choices of the Timeline's What if row, and
//! how each changes the recorded setup. The row is drawn in `timeline/replay.rs`; a run holds its what-if
//! (`timeline/run.rs`).

use crate::model::simulate::Setup;

/// What a replay's run changes of the recorded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhatIf {
    /// The trace as recorded, on the table it was opened on.
    AsRecorded,
    /// Hot keys (at least the default hot share of the trace) write-sharded over N suffixes.
    Sharded(u32),
    /// The table on-demand.
    OnDemand,
    /// Twice the provisioned capacity (or, on-demand, twice the previous peak) and partitions.
    TwiceCapacity,
    /// A provisioned table of these read and write capacity units (its partitions from the capacity formula).
    Provisioned { rcu: u32, wcu: u32 },
}

impl WhatIf {
    /// The button's label.
    pub fn label(self) -> String {
        match self {
            Self::AsRecorded => "As recorded".to_owned(),
            Self::Sharded(n) => format!("Shard hot keys ×{n}"),
            Self::OnDemand => "On-demand".to_owned(),
            Self::TwiceCapacity => "Twice the capacity".to_owned(),
            Self::Provisioned { rcu, wcu } => format!(
                "Provisioned {} RCU / {} WCU",
                crate::model::fmt::grouped(u64::from(rcu)),
                crate::model::fmt::grouped(u64::from(wcu))
            ),
        }
    }

    /// The recorded run changed as this what-if says.
    pub fn apply(self, recorded: &Setup) -> Setup {
        use crate::model::simulate::Billing;
        let mut setup = recorded.clone();
        match self {
            Self::AsRecorded => {}
            Self::Sharded(n) => crate::model::simulate::shard_keys(
                &mut setup,
                n,
                Some(crate::model::shard::DEFAULT_HOT_SHARE),
                "#",
            ),
            Self::OnDemand => setup.table = setup.table.on_demand(),
            Self::Provisioned { rcu, wcu } => {
                setup.table.billing = Billing::Provisioned {
                    units: [f64::from(rcu), f64::from(wcu)],
                };
                setup.table.autoscaling = None;
                setup.table.partitions = None;
            }
            Self::TwiceCapacity => setup.table = setup.table.twice_the_capacity(),
        }
        setup
    }
}
