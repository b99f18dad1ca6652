//! The app's side of a table's live traffic ([`super::live`]), in logic: a watch's snapshots replace the keys
//! as a scan's pages do (with each key's live rate for the inspector) and are replayed in the Timeline on the
//! table's capacity (the first at once, then while the Timeline is the view, at most every few seconds, and
//! at the end); the last hours of metrics open in the Timeline with CloudWatch's observed minutes. What ends
//! (a watch, a read) is said once, in the window's words; an error keeps what was on screen.

use std::sync::Arc;
use std::time::Duration;
use web_time::Instant;

use super::App;
use super::data::NewKeys;
use super::live::{
    LiveSnapshot, MetricsJob, MetricsRead, MetricsRequest, StreamReader, WatchJob, WatchRequest,
    WatchUpdate, time_of_day,
};
use super::notices::{self, Activity, Level};
use super::runs::ReplayOn;
use super::views::View;
use crate::model::fmt::{grouped, plural};
use crate::source::Source;
use crate::source::dynamo::{StreamRead, StreamStart, StreamStatus, TableInfo};
use crate::source::trace::{ObservedMinute, TraceLoad};

/// A watch's trace is replayed in the Timeline at most this often while it is the view.
const REPLAY_EVERY: Duration = Duration::from_secs(3);

/// What runs for a table's live traffic, and the watch's trace waiting for the Timeline.
#[derive(Default)]
pub(crate) struct LiveJobs {
    pub(crate) watch: Option<WatchJob>,
    pub(crate) metrics: Option<MetricsJob>,
    /// The watch's newest trace, not replayed in the Timeline yet.
    pending: Option<TraceLoad>,
    /// The watched table's replays: the table they run on and their runs' name.
    replays: Option<(ReplayOn, String)>,
    /// When the watch's trace was last replayed (`None`: not yet for this watch).
    replayed_at: Option<Instant>,
}

impl LiveJobs {
    pub(crate) fn busy(&self) -> bool {
        self.watch.is_some() || self.metrics.is_some()
    }
}

/// What the key conditions Copy gives are about: the watched table's keys.
fn target(info: &TableInfo) -> crate::model::query::Target {
    crate::model::query::Target {
        table: Some(info.name.clone()),
        partition_key: Some(info.partition_key.name.clone()),
        sort_key: info.sort_key.as_ref().map(|k| k.name.clone()),
    }
}

impl App {
    /// Starts watching a table's writes (the Connect dialog's "Watch writes"); a watch or a scan under way
    /// stops first (each would replace the keys).
    pub fn start_watch(&mut self, request: WatchRequest) {
        let info = request.info.clone();
        self.begin_watch(&info, |ctx| WatchJob::start(ctx, request));
    }

    /// Starts watching the writes of the table `info` describes as `read` reads its stream (a simulated
    /// stream in the soak benchmark): the same watch as [`Self::start_watch`] from there on.
    pub fn start_watch_reading(
        &mut self,
        info: TableInfo,
        from: StreamStart,
        read: impl StreamReader,
    ) {
        let table = info.clone();
        self.begin_watch(&table, |ctx| WatchJob::start_reading(ctx, info, from, read));
    }

    fn begin_watch(
        &mut self,
        info: &TableInfo,
        start: impl FnOnce(&egui::Context) -> Result<WatchJob, super::tasks::TaskError>,
    ) {
        if let Some(scan) = self.background.scan.take() {
            scan.cancel();
        }
        self.background.live.watch = None;
        self.background.live.pending = None;
        self.background.live.replayed_at = None;
        self.background.live.replays = Some((
            ReplayOn::described(info),
            format!("writes to {}", info.name),
        ));
        self.notices.clear(Activity::Live);
        match start(&self.ctx) {
            Ok(job) => self.background.live.watch = Some(job),
            Err(e) => {
                self.notify_error(Activity::Live, None, e, None);
            }
        }
    }

    /// Whether a watch of a table's writes is under way.
    pub fn watching(&self) -> bool {
        self.background.live.watch.is_some()
    }

    /// The figures of the watch under way, once it has some (its status line).
    pub fn watch_progress(&self) -> Option<&crate::source::dynamo::StreamProgress> {
        self.background.live.watch.as_ref()?.progress.as_ref()
    }

    /// Stop: the watch ends (its end comes through [`Self::drain_watch`]); what was read stays.
    pub(super) fn stop_watch(&mut self) {
        if let Some(job) = &mut self.background.live.watch {
            job.stop();
        }
    }

    /// A scan replaces the keys: the watch under way stops, and says so.
    pub(super) fn stop_watch_for_scan(&mut self) {
        if let Some(job) = self.background.live.watch.take() {
            self.background.live.pending = None;
            self.notify(
                Activity::Live,
                Level::Info,
                format!("stopped watching {} for the scan", job.table),
            );
        }
    }

    /// A watch's snapshots and its end (the app's logic, each frame).
    pub(super) fn drain_watch(&mut self) {
        let Some(job) = &mut self.background.live.watch else {
            return;
        };
        let table = job.table.clone();
        for update in job.drain() {
            match update {
                WatchUpdate::Snapshot(s) => self.on_watch_snapshot(*s),
                WatchUpdate::Heard => {}
                WatchUpdate::Unreadable(m) => self.notify(
                    Activity::Live,
                    Level::Warning,
                    format!(
                        "the writes of {table} read so far cannot be replayed: {}",
                        notices::said(&m)
                    ),
                ),
                WatchUpdate::Done(result) => self.on_watch_done(result),
            }
        }
    }

    /// The records read so far: the keys (counted by their writes) replace the shown keys, and the trace
    /// waits for the Timeline.
    fn on_watch_snapshot(&mut self, s: LiveSnapshot) {
        let Some(job) = &mut self.background.live.watch else {
            return;
        };
        job.last = Some((Arc::clone(&s.keys), Arc::clone(&s.rates)));
        let source = Source::Table {
            name: job.table.clone(),
            status: format!(
                "watching: {} from the stream",
                plural(s.keys.total(), "write")
            ),
        };
        let target = target(&job.info);
        self.replace_keys(NewKeys::data(s.keys, source).target(target).live(s.rates));
        // The watch's keys replaced a scan's too: its line goes with them.
        self.notices.clear(Activity::Scan);
        self.background.live.pending = Some(s.load);
        self.replay_watch(false);
    }

    /// The watch's newest trace in the Timeline: the first at once (so the Timeline can be chosen), then
    /// while the Timeline is the view at most every [`REPLAY_EVERY`] (and not while a run is still being
    /// computed), and at the end (`now`). Once another run took the Timeline (a trace, an example, the
    /// metrics), the watch leaves it there.
    pub(super) fn replay_watch(&mut self, now: bool) {
        let live = &self.background.live;
        let (Some(_), Some((on, base))) = (&live.pending, &live.replays) else {
            return;
        };
        let sim = self.timeline.sim.as_ref();
        let ours = sim.is_some_and(|s| s.run().watches(base));
        let due = match live.replayed_at {
            None => true,
            Some(_) if !ours => false,
            Some(_) if now => true,
            Some(at) => {
                self.view() == View::Timeline
                    && at.elapsed() >= REPLAY_EVERY
                    && !sim.is_some_and(super::timeline::Simulation::running)
            }
        };
        if !due {
            return;
        }
        let (on, base) = (on.clone(), base.clone());
        let Some(load) = self.background.live.pending.take() else {
            return;
        };
        let watching = self.background.live.watch.is_some() && !now;
        self.replay_live(load, &on, &base, watching);
        self.background.live.replayed_at = Some(Instant::now());
    }

    /// The watch ended (Stop, its end, an error): what was read stays, with its final source; the Timeline
    /// gets the whole trace; a notice says how it ended, its figures and notes.
    fn on_watch_done(&mut self, result: Result<StreamRead, super::error::AppError>) {
        let Some(job) = self.background.live.watch.take() else {
            return;
        };
        let table = job.table.clone();
        let read = match result {
            Ok(read) => read,
            Err(e) => {
                let what = format!("cannot watch the writes of {table}");
                self.notify_error(Activity::Live, Some(&what), e, None);
                return;
            }
        };
        if let Some((keys, rates)) = job.last.clone() {
            let status = match read.status {
                StreamStatus::Finished | StreamStatus::Closed => "watched",
                StreamStatus::Cancelled => "stopped",
                StreamStatus::Failed(_) => "cut short by an error",
            };
            let source = Source::Table {
                name: table.clone(),
                status: format!(
                    "{status}: {} from the stream",
                    plural(keys.total(), "write")
                ),
            };
            self.replace_keys(
                NewKeys::data(keys, source)
                    .target(target(&job.info))
                    .live(rates),
            );
        }
        self.replay_watch(true);
        if let Some(sim) = &mut self.timeline.sim
            && let Some((_, base)) = &self.background.live.replays
            && sim.run().watches(base)
        {
            sim.watch_ended();
        }
        self.say_watch_end(&job, &read);
    }

    fn say_watch_end(&mut self, job: &WatchJob, read: &StreamRead) {
        let mut text = format!(
            "{}: {} — {}",
            job.table,
            read.status.describe(),
            read.progress.summary()
        );
        if read.progress.records == 0 {
            text.push_str(&format!(
                "; no writes were read: nothing was written to {} while it was watched{}",
                job.table,
                if job.from == StreamStart::Latest {
                    " (New writes reads only what is written from the start of the watch; Last 24 hours \
                     reads what the stream holds)"
                } else {
                    ""
                }
            ));
        }
        for note in &read.notes {
            text.push_str("; ");
            text.push_str(note);
        }
        let level = if matches!(read.status, StreamStatus::Failed(_)) || !read.notes.is_empty() {
            Level::Warning
        } else {
            Level::Info
        };
        self.notify(Activity::Live, level, text);
    }

    /// Reads the last hours of a table's metrics (the Connect dialog's "Last hours of metrics").
    pub fn start_metrics(&mut self, request: MetricsRequest) {
        match MetricsJob::start(&self.ctx, request) {
            Ok(job) => self.background.live.metrics = Some(job),
            Err(e) => {
                self.notify_error(Activity::Live, None, e, None);
            }
        }
    }

    /// The metrics' read, once it came (the app's logic, each frame).
    pub(super) fn drain_metrics(&mut self) {
        let Some(job) = &mut self.background.live.metrics else {
            return;
        };
        let Some(result) = job.drain() else {
            return;
        };
        let Some(job) = self.background.live.metrics.take() else {
            return;
        };
        match result {
            Ok(read) => self.on_metrics(&job, read),
            Err(e) => {
                let what = format!("cannot read the metrics of {}", job.table);
                self.notify_error(Activity::Live, Some(&what), e, None);
            }
        }
    }

    /// CloudWatch's minutes in the Timeline, replayed on the table's capacity, with the observed throttling
    /// and (when Contributor Insights is on) the most throttled keys said; no datapoints is said, not drawn.
    fn on_metrics(&mut self, job: &MetricsJob, read: MetricsRead) {
        let table = &job.table;
        let hours = plural(u64::from(job.hours), "hour");
        let notes: Vec<String> = read.notes.iter().map(notices::said).collect();
        let Some(load) = read.load else {
            let mut text = format!(
                "CloudWatch has no consumed capacity or throttling of {table} in the last {hours} ({} to {}): \
                 the table had no traffic then, or it is in another region; the Timeline is unchanged",
                time_of_day(read.since),
                time_of_day(read.until),
            );
            for note in &notes {
                text.push_str("; ");
                text.push_str(note);
            }
            self.notify(Activity::Live, Level::Warning, text);
            return;
        };
        let minutes = load.observed.len();
        let throttles: f64 = load
            .observed
            .iter()
            .filter_map(ObservedMinute::throttle_events)
            .sum();
        let mut throttled: Vec<(String, f64)> = load
            .files
            .iter()
            .flat_map(|f| f.throttled_keys.iter().cloned())
            .collect();
        throttled.sort_by(|a, b| b.1.total_cmp(&a.1));
        let on = ReplayOn::described(&job.info);
        let what = format!("CloudWatch's last {hours} of {table}");
        self.replay(
            load,
            &on,
            super::timeline::Origin::Metrics,
            format!("last {hours} of {table}"),
            &what,
        );
        let mut text = format!(
            "{table}: {} of CloudWatch with data, {} throttle events observed (the dashed line in the \
             Timeline's per-minute view)",
            plural(minutes as u64, "minute"),
            grouped(throttles.round() as u64),
        );
        if !throttled.is_empty() {
            let top: Vec<String> = throttled
                .iter()
                .take(5)
                .map(|(k, n)| format!("{k} ({})", grouped(n.round() as u64)))
                .collect();
            text.push_str(&format!(
                "; most throttled keys (Contributor Insights): {}",
                top.join(", ")
            ));
        }
        if let Some(mode) = &read.insights_mode {
            text.push_str(&format!(
                "; Contributor Insights is in {} mode: {}",
                mode.as_str(),
                mode.describe()
            ));
        }
        for note in &notes {
            text.push_str("; ");
            text.push_str(note);
        }
        let level = if notes.is_empty() {
            Level::Info
        } else {
            Level::Warning
        };
        // The line is about the run now in the Timeline: the next run replaces it.
        self.notify(Activity::Timeline, level, text);
    }
}
