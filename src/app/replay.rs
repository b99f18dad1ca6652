//! Replaying a trace in the app: reading it on a task (File > Open trace…, the command line, a drop), opening
//! its replay in the Timeline, and re-running it as a What if asks.

use std::path::PathBuf;
use std::sync::Arc;

use super::notices::{Activity, Level};
use super::timeline::WhatIf;
use super::{App, dialogs};

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
    pub(super) fn start_replay(&mut self, load: crate::source::trace::TraceLoad) {
        use crate::model::fmt::grouped;
        let crate::source::trace::TraceLoad {
            trace,
            files,
            observed,
        } = load;
        let names: Vec<String> = files
            .iter()
            .map(|f| crate::source::display_file_name(&f.path))
            .collect();
        let requests = trace.requests();
        let keys = trace.keys.len();
        let setup =
            crate::model::trace::replay_setup(trace, crate::model::simulate::Table::default());
        let start = crate::model::trace::iso(setup.start);
        let scenario = crate::model::sim_file::Scenario {
            name: format!("replay of {}", names.join(", ")),
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
            "replaying {}: {} writes and {} reads over {} keys from {start} (an on-demand table; What if \
             changes it)",
            names.join(", "),
            grouped(requests[1].round() as u64),
            grouped(requests[0].round() as u64),
            grouped(keys as u64),
        );
        let level = if assumed.is_empty() {
            Level::Info
        } else {
            Level::Warning
        };
        let detail = (!assumed.is_empty()).then(|| format!("assumed: {}", assumed.join("; ")));
        self.notify_detailed(Activity::File, level, text, detail);
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
