//! What a Timeline run is: the one value every run starts from ([`Run`]), so that what a run shows (its name,
//! its What if row, CloudWatch's observed minutes), what can change it (a What if, the tree's fix) and what
//! saves it (File > Save scenario) are asked of the run itself, never told apart by its name.
//!
//! A run is a scenario (an example or a file, with its text) or a replay of a trace (what was recorded and
//! observed, on which table, and the what-if it is), with the tree's fixes applied on top. The app starts
//! every run through one door (`App::start_run`), which keeps the run it replaces for Undo.

use std::path::PathBuf;
use std::sync::Arc;

use super::WhatIf;
use crate::model::simulate::Setup;
use crate::source::trace::ObservedMinute;

/// A Timeline run, as started.
#[derive(Clone)]
pub enum Run {
    Scenario(ScenarioRun),
    Replay(Replay),
}

/// A scenario: a built-in example or a scenario file.
#[derive(Clone)]
pub struct ScenarioRun {
    pub name: String,
    pub description: String,
    /// The scenario as read (before any fix).
    pub setup: Arc<Setup>,
    /// The text it was read from (File > Save scenario writes it).
    pub toml: String,
    /// The tree's fixes, in the order applied.
    pub fixes: Vec<ShardFix>,
}

/// A replayed trace: what was recorded and observed, on the table it was opened on, and what its run changes.
#[derive(Clone)]
pub struct Replay {
    /// What it replays, as its runs' names start: "replay of orders.json", "live writes of Orders".
    pub base: String,
    /// Where the trace came from.
    pub origin: Origin,
    /// The trace on the table it was opened on: every what-if starts from it.
    pub recorded: Arc<Setup>,
    /// CloudWatch's minutes read with the trace.
    pub observed: Arc<[ObservedMinute]>,
    /// Contributor Insights' most throttled keys, period by period (its throttled-keys rules' reports), oldest
    /// first: shown beside the model's throttled partitions at the playhead.
    pub throttled: Arc<[crate::source::trace::ThrottledPeriod]>,
    pub what_if: WhatIf,
    /// The tree's fixes on top of the what-if, in the order applied.
    pub fixes: Vec<ShardFix>,
}

/// Where a replay's trace came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file or folder opened (File > Open trace…, the command line, a drop).
    Path(PathBuf),
    /// A table's stream, watched; `watching` while the watch goes on.
    Watch { watching: bool },
    /// CloudWatch's last hours of a table, read live.
    Metrics,
}

/// The tree's fix: the hot keys (`hot`: at least this share of the writes; `None`: every key) write-sharded
/// over `shards` suffixes after `separator`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardFix {
    pub shards: u32,
    pub hot: Option<f64>,
    pub separator: String,
}

impl ShardFix {
    fn apply(&self, setup: &mut Setup) {
        crate::model::simulate::shard_keys(setup, self.shards, self.hot, &self.separator);
    }
}

/// What File > Save scenario writes for a run.
pub struct Saved {
    pub text: String,
    /// What the saved file leaves out of the run shown, said with "saved".
    pub leaves_out: Option<String>,
}

impl Run {
    /// A scenario as read (an example's or a file's), with its text.
    pub fn scenario(scenario: crate::model::sim_file::Scenario, toml: String) -> Self {
        Self::Scenario(ScenarioRun {
            name: scenario.name,
            description: scenario.description,
            setup: Arc::new(scenario.setup),
            toml,
            fixes: Vec::new(),
        })
    }

    /// The run's title: what it is, its what-if and its fixes.
    pub fn name(&self) -> String {
        let (mut name, fixes) = match self {
            Self::Scenario(s) => (s.name.clone(), &s.fixes),
            Self::Replay(r) => {
                let mut name = r.base.clone();
                if let Origin::Watch { watching: true } = r.origin {
                    name.push_str(" (watching)");
                }
                if r.what_if != WhatIf::AsRecorded {
                    name.push_str(&format!(", what if: {}", r.what_if.label().to_lowercase()));
                }
                (name, &r.fixes)
            }
        };
        for f in fixes {
            name.push_str(&format!(", write-sharded ×{}", f.shards));
        }
        name
    }

    pub fn description(&self) -> &str {
        match self {
            Self::Scenario(s) => &s.description,
            Self::Replay(_) => "",
        }
    }

    /// What the engine runs: the scenario or the recorded trace, changed by the what-if and the fixes.
    pub fn setup(&self) -> Setup {
        let (mut setup, fixes) = match self {
            Self::Scenario(s) => (Setup::clone(&s.setup), &s.fixes),
            Self::Replay(r) => (r.what_if.apply(&r.recorded), &r.fixes),
        };
        for f in fixes {
            f.apply(&mut setup);
        }
        setup
    }

    pub fn replay(&self) -> Option<&Replay> {
        match self {
            Self::Replay(r) => Some(r),
            Self::Scenario(_) => None,
        }
    }

    /// The same run with the tree's fix on top (a replay stays a replay: its What if and observed minutes).
    #[must_use]
    pub fn fixed(&self, fix: ShardFix) -> Self {
        let mut run = self.clone();
        match &mut run {
            Self::Scenario(s) => s.fixes.push(fix),
            Self::Replay(r) => r.fixes.push(fix),
        }
        run
    }

    /// The same replay changed as `w` says, from the trace as recorded (the fixes go: the What if row starts
    /// from the recording); `None` for a scenario.
    pub fn what_if(&self, w: WhatIf) -> Option<Self> {
        let mut r = self.replay()?.clone();
        r.what_if = w;
        r.fixes.clear();
        Some(Self::Replay(r))
    }

    /// The sharded count of the last fix (the tree's "more shards" doubles it).
    pub fn last_fix(&self) -> Option<&ShardFix> {
        match self {
            Self::Scenario(s) => s.fixes.last(),
            Self::Replay(r) => r.fixes.last(),
        }
    }

    /// Whether this run is the live replay of a watch whose runs start `base`.
    pub fn watches(&self, base: &str) -> bool {
        matches!(self, Self::Replay(r) if matches!(r.origin, Origin::Watch { .. }) && r.base == base)
    }

    /// What File > Save scenario writes: a scenario's own text, or for a replay of a file a scenario that
    /// replays it on the table this run has; `Err` says why a run cannot be saved.
    pub fn saved(&self) -> Result<Saved, String> {
        const NO_SHARDING: &str =
            "the write sharding (scenario files do not say it: apply the fix again)";
        match self {
            Self::Scenario(s) => Ok(Saved {
                text: s.toml.clone(),
                leaves_out: (!s.fixes.is_empty()).then(|| NO_SHARDING.to_owned()),
            }),
            Self::Replay(r) => {
                let Origin::Path(path) = &r.origin else {
                    return Err(format!(
                        "\"{}\" replays a live read, which is in no file: a scenario names its trace's file \
                         (save the watch's trace with `shardlens stream --save-trace`, then open that)",
                        r.base
                    ));
                };
                let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
                // The table as the what-if made it; sharding is not a scenario's to say.
                let table = r.what_if.apply(&r.recorded).table;
                let sharded = matches!(r.what_if, WhatIf::Sharded(_)) || !r.fixes.is_empty();
                let name = if sharded { r.base.clone() } else { self.name() };
                let note = format!(
                    "{} — saved by shardlens: the trace replayed on the table the run had.",
                    self.name()
                );
                Ok(Saved {
                    text: crate::model::sim_file::trace_scenario(
                        &name,
                        &note,
                        &table,
                        &path.display().to_string(),
                    ),
                    leaves_out: sharded.then(|| NO_SHARDING.to_owned()),
                })
            }
        }
    }
}
