//! Replaying a trace in the app: reading it on a task (File > Open trace…, the command line, a drop), opening
//! its replay in the Timeline, and re-running it as a What if asks.

use std::path::PathBuf;
use std::sync::Arc;

use super::notices::{Activity, Level};
use super::timeline::{Simulation, TimelineCommand, WhatIf};
use super::{App, dialogs};
use crate::model::fmt::{grouped, plural};
use crate::source::dynamo::{Billing, TableInfo};
use crate::source::trace::TraceLoad;

/// The table a replay runs on, and how its notice says it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReplayOn {
    pub table: crate::model::simulate::Table,
    /// "an on-demand table", "on Orders as it is: provisioned 100 RCU and 50 WCU".
    pub said: String,
}

impl ReplayOn {
    /// A new on-demand table (a trace file says nothing of its table).
    pub fn on_demand() -> Self {
        Self {
            table: crate::model::simulate::Table::default(),
            said: "an on-demand table".to_owned(),
        }
    }

    /// The table as DescribeTable gave it: its provisioned capacity, or on-demand; and whether it has a
    /// local secondary index (its item collections never split).
    pub fn described(info: &TableInfo) -> Self {
        use crate::model::simulate::Billing as Sim;
        let mut table = crate::model::simulate::Table {
            lsi: !info.local_indexes.is_empty(),
            ..crate::model::simulate::Table::default()
        };
        let name = &info.name;
        let said = match info.billing {
            Billing::Provisioned { read, write } => {
                let (read, write) = (read.max(1) as u64, write.max(1) as u64);
                table.billing = Sim::Provisioned {
                    units: [read as f64, write as f64],
                };
                format!(
                    "on {name} as it is: provisioned {} RCU and {} WCU",
                    grouped(read),
                    grouped(write)
                )
            }
            Billing::OnDemand => format!("on {name} as it is: on-demand"),
            Billing::Unknown => format!("an on-demand table (the billing of {name} is unknown)"),
        };
        Self { table, said }
    }
}

/// What a live run shown keeps into the next one.
struct Kept {
    what_if: WhatIf,
    relative: bool,
    per_minute: bool,
    selected: Option<crate::model::simulate::Point>,
    /// The playhead, as a Unix second; `None` at the newest second (it follows the end).
    at: Option<i64>,
}

impl Kept {
    fn of(sim: &Simulation) -> Self {
        let at_end = sim.position + 2.0 >= f64::from(sim.duration());
        Self {
            what_if: sim.replay().map_or(WhatIf::AsRecorded, |r| r.what_if),
            relative: sim.relative(),
            per_minute: sim.per_minute(),
            selected: sim.selected(),
            at: (!at_end).then(|| sim.setup().start + sim.position as i64),
        }
    }

    fn restore(self, sim: &mut Simulation) {
        sim.apply(TimelineCommand::Relative(self.relative));
        sim.apply(TimelineCommand::PerMinute(self.per_minute));
        sim.apply(TimelineCommand::Pick(self.selected));
        let t = self.at.map_or(sim.duration(), |at| {
            u32::try_from(at - sim.setup().start).unwrap_or(0)
        });
        sim.seek(t);
    }
}

impl App {
    /// Reads a trace (or a dropped file that may be one, `action`) on a task; it opens in the Timeline.
    pub(super) fn open_trace(&mut self, path: PathBuf, action: dialogs::Action) {
        match dialogs::open_trace(path, action, &self.ctx) {
            Ok(task) => self.background.dialogs.push(task),
            Err(e) => {
                self.notify_error(Activity::File, None, e, None);
            }
        }
    }

    /// How traces are read: with the Load options' key attribute and bad-record choice.
    pub(super) fn trace_options(&self) -> crate::source::trace::TraceOptions {
        crate::source::trace::TraceOptions {
            key: self.data.load_options.key.clone(),
            on_bad: self.data.load_options.on_bad,
            ..crate::source::trace::TraceOptions::default()
        }
    }

    /// A trace read: replayed on an on-demand table in the Timeline, with what CloudWatch observed.
    pub(super) fn start_replay(&mut self, load: TraceLoad) {
        let what = load.name.clone();
        self.replay(
            load,
            &ReplayOn::on_demand(),
            format!("replay of {what}"),
            &what,
        );
    }

    /// Opens `load` in the Timeline as the run `name`, on the table `on`, and says what it replays (`what`):
    /// its requests, keys and start, and what was assumed reading it.
    pub(super) fn replay(&mut self, load: TraceLoad, on: &ReplayOn, name: String, what: &str) {
        let TraceLoad {
            trace,
            files,
            observed,
            ..
        } = load;
        let requests = trace.requests();
        let keys = trace.keys.len();
        // CloudWatch's minutes alone: the keys are made-up stand-ins, said as such.
        let key_noun = if trace.only_stand_ins() {
            "stand-in key"
        } else {
            "key"
        };
        let setup = crate::model::trace::replay_setup(trace, on.table.clone());
        let start = crate::model::trace::iso(setup.start);
        let scenario = crate::model::sim_file::Scenario {
            name,
            description: String::new(),
            setup,
            keys: Vec::new(),
        };
        let recorded = Arc::new(scenario.setup.clone());
        self.start_simulation(scenario, String::new());
        if let Some(sim) = &mut self.data.simulation {
            sim.set_replay(recorded, observed.into(), WhatIf::AsRecorded);
        }
        let assumed: Vec<String> = files
            .iter()
            .flat_map(|f| f.assumed.iter().map(super::notices::said))
            .collect();
        let text = format!(
            "replaying {what}: {} and {} over {} from {start} ({}; What if changes it)",
            plural(requests[1].round() as u64, "write"),
            plural(requests[0].round() as u64, "read"),
            plural(keys as u64, key_noun),
            on.said,
        );
        let level = if assumed.is_empty() {
            Level::Info
        } else {
            Level::Warning
        };
        let detail = (!assumed.is_empty()).then(|| format!("assumed: {}", assumed.join("; ")));
        self.notify_detailed(Activity::Timeline, level, text, detail);
    }

    /// A live trace so far in the Timeline as the run `name` (a watch's next snapshot), quietly: no notice,
    /// the view stays. When the Timeline already shows a run of this live trace (its name starts with
    /// `base`), the new run keeps its What if, colour scale, resolution and picked partition, and its
    /// playhead follows the newest second unless it was moved back.
    pub(super) fn replay_live(&mut self, load: TraceLoad, on: &ReplayOn, name: &str, base: &str) {
        let kept = self
            .data
            .simulation
            .as_ref()
            .filter(|s| s.name.starts_with(base))
            .map(Kept::of);
        let TraceLoad {
            trace, observed, ..
        } = load;
        let recorded = Arc::new(crate::model::trace::replay_setup(trace, on.table.clone()));
        let what_if = kept.as_ref().map_or(WhatIf::AsRecorded, |k| k.what_if);
        let scenario = crate::model::sim_file::Scenario {
            name: if what_if == WhatIf::AsRecorded {
                name.to_owned()
            } else {
                format!("{name}, what if: {}", what_if.label().to_lowercase())
            },
            description: String::new(),
            setup: what_if.apply(&recorded),
            keys: Vec::new(),
        };
        match super::timeline::Simulation::start(&self.ctx, scenario, String::new()) {
            Ok(mut sim) => {
                sim.set_replay(recorded, observed.into(), what_if);
                let end = sim.duration().saturating_sub(1);
                match kept {
                    Some(k) => k.restore(&mut sim),
                    None => sim.seek(end),
                }
                self.data.simulation = Some(sim);
            }
            Err(e) => {
                self.notify_error(Activity::Live, None, e, None);
            }
        }
    }

    /// The replay shown, again, changed as `w` says (from the trace as recorded).
    pub(super) fn what_if(&mut self, w: WhatIf) {
        let Some(sim) = &self.data.simulation else {
            return;
        };
        let Some(replay) = sim.replay() else {
            return;
        };
        let (recorded, observed) = (Arc::clone(&replay.recorded), Arc::clone(&replay.observed));
        let base = sim
            .name
            .split(", what if")
            .next()
            .unwrap_or_default()
            .to_owned();
        let name = if w == WhatIf::AsRecorded {
            base
        } else {
            format!("{base}, what if: {}", w.label().to_lowercase())
        };
        let scenario = crate::model::sim_file::Scenario {
            name,
            description: String::new(),
            setup: w.apply(&recorded),
            keys: Vec::new(),
        };
        self.start_simulation(scenario, String::new());
        if let Some(sim) = &mut self.data.simulation {
            sim.set_replay(recorded, observed, w);
        }
    }
}
