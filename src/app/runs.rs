//! Timeline runs in the app, through one door: [`App::start_run`] starts every run (an example, a scenario
//! file, a trace's replay, a live watch's snapshot, CloudWatch's minutes, a What if, the tree's fix, Undo),
//! keeps the run it replaces for Undo ([`TimelineState`]), and is the only place the Timeline's run is set.
//! Reading a trace on a task (File > Open trace…, the command line, a drop) and the table a replay runs on
//! ([`ReplayOn`]) are here too.

use std::path::PathBuf;
use std::sync::Arc;

use super::notices::{Activity, Level};
use super::settings::ChartMode;
use super::timeline::{Origin, Replay, Run, ShardFix, Simulation, TimelineCommand, WhatIf};
use super::{App, dialogs};
use crate::model::decision::Action;
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

    /// The table as DescribeTable gave it: its provisioned capacity, or on-demand with its maximum and warm
    /// throughput; and whether it has a local secondary index (its item collections never split).
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
            Billing::OnDemand => {
                on_demand_as_described(&mut table.billing, &info.throughput);
                let more = info.throughput.describe();
                if more.is_empty() {
                    format!("on {name} as it is: on-demand")
                } else {
                    format!("on {name} as it is: on-demand, {more}")
                }
            }
            Billing::Unknown => format!("an on-demand table (the billing of {name} is unknown)"),
        };
        Self { table, said }
    }
}

/// An on-demand table's maximum and warm throughput as the simulation's: over the maximum it throttles with
/// `Table…MaxOnDemandThroughputExceeded`; a warm throughput W stands for a previous peak of W / 2 (**\[ours\]**,
/// as a scenario's `warm_*_units`: R5 serves twice the previous peak at once), from which the partitions at
/// the start follow (⌈W / 3,000⌉ for reads, ⌈W / 1,000⌉ for writes). What is not said keeps a new table's.
fn on_demand_as_described(
    billing: &mut crate::model::simulate::Billing,
    facts: &crate::source::dynamo::Throughput,
) {
    let crate::model::simulate::Billing::OnDemand {
        previous_peak, max, ..
    } = billing
    else {
        return;
    };
    for (dim, (most, warm)) in [
        (facts.max_read_units, facts.warm_read_units),
        (facts.max_write_units, facts.warm_write_units),
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(m) = crate::source::dynamo::Throughput::maximum(most) {
            max[dim] = m as f64;
        }
        if let Some(w) = warm.filter(|&w| w > 0) {
            previous_peak[dim] = w as f64 / 2.0;
        }
    }
}

/// The files' most throttled keys period by period, merged (two files' periods of the same start add up),
/// oldest first.
fn throttled_periods(
    files: &[crate::source::trace::TraceFile],
) -> Vec<crate::source::trace::ThrottledPeriod> {
    let mut periods: Vec<crate::source::trace::ThrottledPeriod> = Vec::new();
    for p in files.iter().flat_map(|f| &f.throttled_periods) {
        match periods
            .iter_mut()
            .find(|q| q.start == p.start && q.seconds == p.seconds)
        {
            Some(q) => {
                for (key, n) in &p.keys {
                    match q.keys.iter_mut().find(|(k, _)| k == key) {
                        Some((_, m)) => *m += n,
                        None => q.keys.push((key.clone(), *n)),
                    }
                }
                q.keys
                    .sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            }
            None => periods.push(p.clone()),
        }
    }
    periods.sort_by_key(|p| p.start);
    periods
}

/// Runs replaced and kept for Undo.
const UNDO_RUNS: usize = 8;

/// The Timeline's state: the run shown and the runs it replaced (Undo in the Timeline brings them back).
#[derive(Default)]
pub(crate) struct TimelineState {
    pub sim: Option<Simulation>,
    undo: Vec<Run>,
}

impl TimelineState {
    /// What Undo in the Timeline would bring back: the run before this one.
    pub fn undo_label(&self) -> Option<String> {
        self.undo.last().map(Run::name)
    }
}

/// How [`App::start_run`] shows a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Start {
    /// The Timeline shows it, a notice says it, and the run it replaces is kept for Undo.
    Shown,
    /// Undo: shown, and nothing is kept.
    Undo,
    /// A watch's newer trace, quietly: the view stays; a run of the same watch keeps its What if, colour
    /// scale, resolution, pick and playhead (which follows the newest second unless it was moved back).
    Live,
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
    /// The one door of the Timeline: starts `run` (see [`Start`]) in place of the run shown.
    pub(super) fn start_run(&mut self, run: Run, how: Start) {
        let previous = self.timeline.sim.as_ref();
        let kept = match (how, previous) {
            (Start::Live, Some(sim)) if same_watch(sim.run(), &run) => Some(Kept::of(sim)),
            _ => None,
        };
        let run = match (&kept, run.replay()) {
            (Some(k), Some(_)) => run.what_if(k.what_if).unwrap_or(run),
            _ => run,
        };
        let replaced = previous.map(|s| s.run().clone());
        let name = run.name();
        let activity = if how == Start::Live {
            Activity::Live
        } else {
            Activity::Timeline
        };
        let mut sim = match Simulation::start(&self.ctx, run) {
            Ok(sim) => sim,
            Err(e) => {
                self.notify_error(activity, None, e, None);
                return;
            }
        };
        match (how, kept) {
            (Start::Live, Some(k)) => k.restore(&mut sim),
            (Start::Live, None) => sim.seek(sim.duration().saturating_sub(1)),
            _ => {}
        }
        let is_watch =
            how == Start::Live && replaced.as_ref().is_some_and(|r| same_watch(r, sim.run()));
        if let Some(r) = replaced.filter(|_| how != Start::Undo && !is_watch) {
            self.timeline.undo.push(r);
            if self.timeline.undo.len() > UNDO_RUNS {
                self.timeline.undo.remove(0);
            }
        }
        self.timeline.sim = Some(sim);
        if how != Start::Live {
            self.settings.chart = ChartMode::Timeline;
            self.notify(activity, Level::Info, format!("simulating \"{name}\""));
        }
    }

    /// Runs a scenario (its text, for Save scenario) in the Timeline, through the door.
    pub fn start_scenario(&mut self, scenario: crate::model::sim_file::Scenario, toml: String) {
        self.start_run(Run::scenario(scenario, toml), Start::Shown);
    }

    /// Undo in the Timeline: the run before this one, again.
    pub(super) fn undo_run(&mut self) -> bool {
        let Some(run) = self.timeline.undo.pop() else {
            return false;
        };
        let name = run.name();
        self.start_run(run, Start::Undo);
        self.notify(Activity::Timeline, Level::Info, format!("back to {name}"));
        true
    }

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

    /// A trace read from `path`: replayed on an on-demand table in the Timeline, with what CloudWatch observed.
    pub(super) fn start_replay(&mut self, path: PathBuf, load: TraceLoad) {
        let what = load.name.clone();
        self.replay(
            load,
            &ReplayOn::on_demand(),
            Origin::Path(path),
            format!("replay of {what}"),
            &what,
        );
    }

    /// Opens `load` in the Timeline as the run `base` (from `origin`), on the table `on`, and says what it
    /// replays (`what`): its requests, keys and start, and what was assumed reading it.
    pub(super) fn replay(
        &mut self,
        load: TraceLoad,
        on: &ReplayOn,
        origin: Origin,
        base: String,
        what: &str,
    ) {
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
        let recorded = Arc::new(crate::model::trace::replay_setup(trace, on.table.clone()));
        let start = crate::model::trace::iso(recorded.start);
        self.start_run(
            Run::Replay(Replay {
                base,
                origin,
                recorded,
                observed: observed.into(),
                throttled: throttled_periods(&files).into(),
                what_if: WhatIf::AsRecorded,
                fixes: Vec::new(),
            }),
            Start::Shown,
        );
        let assumed: Vec<String> = files
            .iter()
            .flat_map(|f| f.assumed.iter().map(super::notices::said))
            .collect();
        // A save cut short reads to its last whole record: said in the line itself, not only its detail.
        let cut: Vec<String> = files
            .iter()
            .filter_map(|f| {
                let name = crate::source::read::display_file_name(&f.path);
                f.tail_note().map(|note| format!("; {name}: {note}"))
            })
            .collect();
        let text = format!(
            "replaying {what}: {} and {} over {} from {start} ({}; What if changes it){}",
            plural(requests[1].round() as u64, "write"),
            plural(requests[0].round() as u64, "read"),
            plural(keys as u64, key_noun),
            on.said,
            cut.concat(),
        );
        let level = if assumed.is_empty() && cut.is_empty() {
            Level::Info
        } else {
            Level::Warning
        };
        let detail = (!assumed.is_empty()).then(|| format!("assumed: {}", assumed.join("; ")));
        self.notify_detailed(Activity::Timeline, level, text, detail);
    }

    /// A watch's trace so far in the Timeline (its next snapshot), quietly: the run `base`, `watching` while
    /// the watch goes on (see [`Start::Live`]).
    pub(super) fn replay_live(
        &mut self,
        load: TraceLoad,
        on: &ReplayOn,
        base: &str,
        watching: bool,
    ) {
        let TraceLoad {
            trace,
            observed,
            files,
            ..
        } = load;
        let recorded = Arc::new(crate::model::trace::replay_setup(trace, on.table.clone()));
        let run = Run::Replay(Replay {
            base: base.to_owned(),
            origin: Origin::Watch { watching },
            recorded,
            observed: observed.into(),
            throttled: throttled_periods(&files).into(),
            what_if: WhatIf::AsRecorded,
            fixes: Vec::new(),
        });
        self.start_run(run, Start::Live);
    }

    /// The replay shown, again, changed as `w` says (from the trace as recorded).
    pub(super) fn what_if(&mut self, w: WhatIf) {
        if let Some(run) = self.timeline.sim.as_ref().and_then(|s| s.run().what_if(w)) {
            self.start_run(run, Start::Shown);
        }
    }

    /// The tree's fix for the run shown: the same run (a replay stays a replay) with its hot keys (or every
    /// key) write-sharded over the shard count of the shard controls (at least 2; doubled for more shards).
    pub(super) fn fix_run(&mut self, action: Action) {
        let Some(sim) = &self.timeline.sim else {
            return;
        };
        let shards = if action == Action::MoreShards {
            self.settings.shard.shards.saturating_mul(2)
        } else {
            self.settings.shard.shards
        }
        .clamp(2, crate::model::shard::MAX_SHARDS);
        let hot = match action {
            Action::ShardHotKeys => Some(crate::model::shard::DEFAULT_HOT_SHARE),
            Action::ShardAllKeys | Action::MoreShards => None,
        };
        let run = sim.run().fixed(ShardFix {
            shards,
            hot,
            separator: self.settings.shard.separator.clone(),
        });
        self.start_run(run, Start::Shown);
    }

    /// Why File > Save scenario cannot save now (no run shown, a replay of a live read), or `None`.
    pub(super) fn unsaved_why(&self) -> Option<String> {
        match &self.timeline.sim {
            None => Some(
                "no scenario to save: open one, or pick one under Examples > Over time".to_owned(),
            ),
            Some(sim) => sim.run().saved().err(),
        }
    }

    /// File > Save scenario: what the run shown saves ([`Run::saved`]), through a save dialog.
    pub(super) fn save_scenario(&mut self) {
        let Some(sim) = &self.timeline.sim else {
            self.notify(
                Activity::File,
                Level::Warning,
                "no scenario to save: open one, or pick one under Examples > Over time",
            );
            return;
        };
        match sim.run().saved() {
            Ok(saved) => {
                if let Some(out) = saved.leaves_out {
                    self.notify(
                        Activity::Timeline,
                        Level::Info,
                        format!("Save scenario: the file leaves out {out}"),
                    );
                }
                self.save_dialog(
                    "Save scenario",
                    "scenario.toml",
                    "shardlens scenario",
                    "toml",
                    saved.text.into_bytes(),
                );
            }
            Err(why) => self.notify(
                Activity::File,
                Level::Warning,
                format!("cannot save a scenario: {why}"),
            ),
        }
    }
}

/// Whether `next` is a newer snapshot of the watch `run` replays.
fn same_watch(run: &Run, next: &Run) -> bool {
    next.replay().is_some_and(|r| run.watches(&r.base))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::KeyType;
    use crate::model::simulate::Billing as Sim;
    use crate::source::dynamo::{KeyAttribute, Throughput};

    fn info(billing: Billing, throughput: Throughput) -> TableInfo {
        TableInfo {
            name: "Orders".into(),
            status: "ACTIVE".into(),
            partition_key: KeyAttribute {
                name: "pk".into(),
                key_type: KeyType::S,
            },
            sort_key: None,
            billing,
            item_count: None,
            size_bytes: None,
            local_indexes: Vec::new(),
            global_indexes: Vec::new(),
            stream_arn: None,
            throughput,
            index_throughput: Default::default(),
        }
    }

    #[test]
    fn a_described_on_demand_table_brings_its_maximum_and_warm_throughput() {
        let facts = Throughput {
            max_read_units: Some(-1),
            max_write_units: Some(25),
            warm_read_units: Some(12_000),
            warm_write_units: Some(8_000),
            warm_status: Some("ACTIVE".into()),
        };
        let on = ReplayOn::described(&info(Billing::OnDemand, facts));
        let Sim::OnDemand {
            previous_peak,
            quota,
            max,
        } = &on.table.billing
        else {
            panic!("{:?}", on.table.billing)
        };
        assert_eq!(*max, [0.0, 25.0]);
        assert_eq!(*previous_peak, [6_000.0, 4_000.0]);
        assert_eq!(*quota, [40_000.0, 40_000.0]);
        assert!(
            on.said.contains("at most 25 writes a second"),
            "{}",
            on.said
        );
        assert!(
            on.said.contains("warm 12,000 reads and 8,000 writes"),
            "{}",
            on.said
        );
        // Nothing said: a new on-demand table's.
        let plain = ReplayOn::described(&info(Billing::OnDemand, Throughput::default()));
        assert_eq!(plain.table.billing, Sim::on_demand());
        assert_eq!(plain.said, "on Orders as it is: on-demand");
    }

    #[test]
    fn two_files_throttled_keys_of_one_period_add_up_most_first() {
        use crate::source::trace::{ThrottledPeriod, TraceFile};
        let period = |start: i64, keys: &[(&str, f64)]| ThrottledPeriod {
            start,
            seconds: 60,
            keys: keys.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect(),
        };
        let file = |periods: Vec<ThrottledPeriod>| TraceFile {
            throttled_periods: periods,
            ..TraceFile::default()
        };
        let merged = throttled_periods(&[
            file(vec![period(120, &[("a", 5.0)]), period(60, &[("b", 3.0)])]),
            file(vec![period(60, &[("a", 2.0), ("b", 1.0)])]),
        ]);
        assert_eq!(
            merged,
            [
                period(60, &[("b", 4.0), ("a", 2.0)]),
                period(120, &[("a", 5.0)])
            ]
        );
    }

    #[test]
    fn a_replay_over_the_described_maximum_throttles_as_the_maximum() {
        use crate::model::simulate::{Keys, Params, Schedule, Setup, Stream, run};
        let facts = Throughput {
            max_write_units: Some(25),
            ..Throughput::default()
        };
        let on = ReplayOn::described(&info(Billing::OnDemand, facts));
        let setup = Setup {
            table: on.table,
            traffic: vec![Stream {
                keys: Keys::Uniform(1_000),
                writes_per_sec: Schedule::constant(100.0),
                ..Stream::default()
            }],
            duration: 120,
            step: 1,
            start: 1_782_172_800,
            seed: 1,
            params: Params::default(),
            trace: None,
        };
        let out = run(&setup);
        let served = out.series.write_served_units[60];
        assert!((served - 25.0).abs() < 0.5, "{served}");
        let reasons = format!("{:?}", out.minutes);
        assert!(
            reasons.contains("TableWriteMaxOnDemandThroughputExceeded"),
            "{reasons}"
        );
    }
}
