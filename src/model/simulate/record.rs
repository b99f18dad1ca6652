//! Recording a run as a [`Timeline`] and streaming it in [`Chunk`]s, from the same engine as [`super::run`].
//!
//! Per column and partition the recorder sums what the engine computed each second. A partition's numbers
//! are summed only when they change: until then its last second is counted, not summed one by one, and the
//! count is added at once when the partition is computed again or the column closes. The engine says which
//! partitions it computed again (most of a busy table's partitions keep their numbers for hours), so
//! recording costs little more than the run.
//! A partition that splits during a column hands its sums so far to both halves: each row of the heatmap
//! shows what its part of the key space carried.

use super::super::capacity::ThrottleCause;
use super::engine::Sim;
use super::{
    Cell, Chunk, Column, Dim, Outcome, R1, READ, Range, Setup, Timeline, WRITE, column_seconds,
};

/// Key names a layout lists per range, the busiest first (and counts the rest).
pub const RANGE_KEYS: usize = 8;

/// Simulated seconds between chunks: `max(60 s, duration / 200)`, rounded up to a whole number of minutes
/// and of columns so that every chunk ends on a finished minute, output step and column. A 24 h run sends a
/// chunk every 8 minutes of simulated time (about 180 in all); a 30 min run every minute.
pub fn chunk_seconds(duration: u32, step: u32) -> u32 {
    let column = column_seconds(duration, step);
    let base = lcm(60, column);
    (duration / 200).max(60).div_ceil(base) * base
}

fn lcm(a: u32, b: u32) -> u32 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x.max(1) * b
}

/// One partition's sums over a column (or one second's values).
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    peak: [f64; 2],
    served: [f64; 2],
    throttled: [f64; 2],
    /// Units thrown back per dimension and cause (in the order of `ThrottleCause::ALL`).
    reasons: [[f64; 4]; 2],
}

impl Acc {
    fn add(&mut self, x: &Acc, times: f64) {
        for d in [READ, WRITE] {
            self.peak[d] = self.peak[d].max(x.peak[d]);
            self.served[d] += x.served[d] * times;
            // Most seconds of most partitions throw nothing back, and adding zeros leaves the sums as they
            // are (they start at +0.0): skipped, to the same bits (the adds were a seventh of recording).
            if x.throttled[d] != 0.0 || x.reasons[d] != [0.0; 4] {
                self.throttled[d] += x.throttled[d] * times;
                for (s, v) in self.reasons[d].iter_mut().zip(x.reasons[d]) {
                    *s += v * times;
                }
            }
        }
    }
}

fn cause_index(cause: ThrottleCause) -> usize {
    ThrottleCause::ALL
        .iter()
        .position(|&c| c == cause)
        .unwrap_or(0)
}

/// `KeyRangeThroughputExceeded`'s place in [`ThrottleCause::ALL`], for what is thrown back over R1.
const OVER_R1: usize = {
    let mut i = 0;
    while !matches!(
        ThrottleCause::ALL[i],
        ThrottleCause::KeyRangeThroughputExceeded
    ) {
        i += 1;
    }
    i
};

pub(super) struct Recorder {
    column_seconds: u32,
    /// Sums of the current column, per partition, without the seconds since `since`.
    accs: Vec<Acc>,
    /// The last computed second, per partition: every second from `since` on (up to the one observed last)
    /// was this one, and is not in `accs` yet.
    last: Vec<Acc>,
    since: Vec<u32>,
    col_start: u32,
    /// The partitions or the keys changed since the last layout.
    layout_stale: bool,
    key_epoch: u32,
    /// The key epoch of the last layout (its ranges list the keys of that epoch).
    layout_epoch: Option<u32>,
    /// Every key of every stream, (hash, stream, atom) in key-space order, one per name.
    keys: Vec<(u64, usize, usize)>,
    timeline: Timeline,
    /// What the next chunk starts from: layouts, columns, series points, minutes and events already sent.
    sent: (usize, usize, usize, usize, usize),
}

impl Recorder {
    pub(super) fn new(sim: &mut Sim<'_>) -> Self {
        sim.inserted = Some(Vec::new());
        let setup = sim.setup;
        let column_seconds = column_seconds(setup.duration, setup.step);
        let mut rec = Self {
            column_seconds,
            accs: vec![Acc::default(); sim.parts.len()],
            last: vec![Acc::default(); sim.parts.len()],
            since: vec![0; sim.parts.len()],
            col_start: 0,
            layout_stale: true,
            key_epoch: sim.key_epoch,
            layout_epoch: None,
            keys: Vec::new(),
            timeline: Timeline {
                column_seconds,
                ..Timeline::default()
            },
            sent: (0, 0, 0, 0, 0),
        };
        rec.index_keys(sim);
        rec
    }

    fn index_keys(&mut self, sim: &Sim<'_>) {
        let mut keys: Vec<(u64, usize, usize)> = sim
            .streams
            .iter()
            .enumerate()
            .flat_map(|(s, st)| {
                st.atoms
                    .iter()
                    .enumerate()
                    .map(move |(i, a)| (a.hash, s, i))
            })
            .collect();
        let name = |&(_, s, i): &(u64, usize, usize)| sim.streams[s].atoms[i].name.as_str();
        keys.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a).cmp(name(b))));
        keys.dedup_by(|a, b| a.0 == b.0 && name(a) == name(b));
        self.keys = keys;
        self.key_epoch = sim.key_epoch;
    }

    /// Adds partition `p`'s seconds from `since` to before `to` to its column's sums.
    fn catch_up(&mut self, p: usize, to: u32) {
        let times = to.saturating_sub(self.since[p]);
        if times > 0 {
            self.accs[p].add(&self.last[p], f64::from(times));
        }
        self.since[p] = to;
    }

    /// Follows the splits since the last call: each new partition starts with its parent's sums (and its
    /// seconds not summed yet).
    fn follow_splits(&mut self, sim: &mut Sim<'_>) {
        let Some(log) = sim.inserted.as_mut() else {
            return;
        };
        if log.is_empty() {
            return;
        }
        for i in std::mem::take(log) {
            let parent = i.saturating_sub(1).min(self.accs.len().saturating_sub(1));
            let copy = |v: &mut Vec<Acc>| v.insert(i, v.get(parent).copied().unwrap_or_default());
            copy(&mut self.accs);
            copy(&mut self.last);
            let since = self.since.get(parent).copied().unwrap_or(self.col_start);
            self.since.insert(i, since);
        }
        self.layout_stale = true;
    }

    /// Records second `t`, after the engine has served it and before it splits anything.
    pub(super) fn observe(&mut self, sim: &mut Sim<'_>, t: u32) {
        self.follow_splits(sim);
        if sim.key_epoch != self.key_epoch {
            self.index_keys(sim);
            self.layout_stale = true;
        }
        let n = sim.parts.len();
        // A second the engine reused changed nothing.
        let all = self.last.len() != n || (sim.sec.fresh && sim.sec.all_recomputed);
        if !sim.sec.fresh && !all {
            return;
        }
        if self.last.len() != n {
            // Not followed split by split (never expected): every partition starts again from here.
            for p in 0..self.last.len() {
                self.catch_up(p, t);
            }
            self.accs.resize(n, Acc::default());
            self.last.resize(n, Acc::default());
            self.since.resize(n, t);
        }
        if all {
            for p in 0..n {
                self.recompute(sim, p, t);
            }
        } else {
            for i in 0..sim.sec.recomputed.len() {
                let p = sim.sec.recomputed[i] as usize;
                if p < n {
                    self.recompute(sim, p, t);
                }
            }
        }
    }

    /// Partition `p`'s numbers changed at second `t`: the seconds before it are summed, and `t` is its
    /// last second.
    fn recompute(&mut self, sim: &Sim<'_>, p: usize, t: u32) {
        self.catch_up(p, t);
        let sec = &sim.sec;
        let a = &mut self.last[p];
        // Written in place: built on the stack and copied, each `Acc`'s 8-byte stores were read back by
        // 16-byte loads that could not be forwarded (`perf annotate`).
        *a = Acc::default();
        for d in [READ, WRITE] {
            let demand = sec.demand.get(p).map_or(0.0, |x| x[d]);
            a.peak[d] = demand / R1[d];
            a.served[d] = sec.served.get(p).map_or(0.0, |x| x[d]);
            if let Some(th) = sec.thrown.get(p) {
                let th = th[d];
                a.throttled[d] = th.over_r1 + th.table;
                a.reasons[d][OVER_R1] += th.over_r1;
                a.reasons[d][cause_index(th.cause)] += th.table;
            }
        }
    }

    /// After second `t` has settled (splits, the minute): closes the column if it ends here.
    pub(super) fn settle(&mut self, sim: &mut Sim<'_>, t: u32) {
        let end = t + 1;
        if !end.is_multiple_of(self.column_seconds) && end != sim.setup.duration {
            return;
        }
        self.follow_splits(sim);
        if self.layout_stale {
            let layout = self.layout(sim);
            self.timeline.layouts.push(layout);
            self.layout_epoch = Some(sim.key_epoch);
            self.layout_stale = false;
        }
        let seconds = f64::from((end - self.col_start).max(1));
        for p in 0..self.accs.len() {
            self.catch_up(p, end);
        }
        let cells = self
            .accs
            .iter()
            .zip(&sim.parts)
            .map(|(a, part)| cell(a, part.bank, seconds))
            .collect();
        self.timeline.columns.push(Column {
            t: self.col_start,
            layout: self.timeline.layouts.len() - 1,
            cells,
        });
        self.accs.clear();
        self.accs.resize(sim.parts.len(), Acc::default());
        self.col_start = end;
    }

    /// The partitions now, in key-space order, with the first keys of each range. A range that the last
    /// layout had too (the same start and end, the same keys) is taken from it: a busy day lays out its
    /// ~1,900 ranges after every column with a split, and choosing each range's busiest keys again was a
    /// fifth of recording it.
    fn layout(&self, sim: &Sim<'_>) -> Vec<Range> {
        let keys = &self.keys;
        let previous = self
            .timeline
            .layouts
            .last()
            .filter(|_| self.layout_epoch == Some(sim.key_epoch));
        let reuse = |p: usize| -> Option<Range> {
            let prev = previous?;
            let start = sim.parts[p].start;
            let i = prev.partition_point(|r| super::before(r.start, start));
            let r = prev.get(i).filter(|r| r.start == start)?;
            let end = sim.end_of(p);
            let prev_end = prev.get(i + 1).map(|n| n.start);
            (prev_end == end).then(|| r.clone())
        };
        let upto = |end: Option<super::Point>| match end {
            None => keys.len(),
            Some(e) if e.1 > 0.0 => keys.partition_point(|k| k.0 <= e.0),
            Some(e) => keys.partition_point(|k| k.0 < e.0),
        };
        (0..sim.parts.len())
            .map(|p| {
                if let Some(r) = reuse(p) {
                    return r;
                }
                let start = sim.parts[p].start;
                let lo = keys.partition_point(|k| k.0 < start.0);
                let hi = upto(sim.end_of(p)).max(lo);
                // The busiest keys first (by their share of their stream), then in key-space order.
                let atom = |&(_, s, i): &(u64, usize, usize)| &sim.streams[s].atoms[i];
                let mut some: Vec<&(u64, usize, usize)> = keys[lo..hi].iter().collect();
                if some.len() > RANGE_KEYS {
                    some.select_nth_unstable_by(RANGE_KEYS - 1, |a, b| {
                        atom(b).share.total_cmp(&atom(a).share)
                    });
                    some.truncate(RANGE_KEYS);
                }
                some.sort_by(|a, b| atom(b).share.total_cmp(&atom(a).share).then(a.0.cmp(&b.0)));
                Range {
                    start,
                    keys: some.into_iter().map(|k| atom(k).name.clone()).collect(),
                    key_count: hi - lo,
                }
            })
            .collect()
    }

    /// What was finished since the last chunk; `last` adds the final partitions.
    pub(super) fn chunk(&mut self, sim: &Sim<'_>, done: u32, last: bool) -> Chunk {
        let out = &sim.acct.out;
        let (layouts, columns, points, minutes, events) = self.sent;
        let tl = &self.timeline;
        let chunk = Chunk {
            layouts: tl.layouts[layouts..].to_vec(),
            columns: tl.columns[columns..].to_vec(),
            series: out.series.slice(points),
            minutes: out.minutes[minutes..].to_vec(),
            events: sim.events[events..].to_vec(),
            done_seconds: done,
            column_seconds: self.column_seconds,
            step_seconds: out.step_seconds,
            final_partitions: if last {
                sim.final_partitions()
            } else {
                Vec::new()
            },
        };
        self.sent = (
            tl.layouts.len(),
            tl.columns.len(),
            out.series.t.len(),
            out.minutes.len(),
            sim.events.len(),
        );
        chunk
    }

    pub(super) fn into_timeline(self) -> Timeline {
        self.timeline
    }
}

fn cell(a: &Acc, bank: [f64; 2], seconds: f64) -> Cell {
    let mut reason = None;
    let mut most = 0.0;
    for (d, dim) in [(READ, Dim::Read), (WRITE, Dim::Write)] {
        for (i, &units) in a.reasons[d].iter().enumerate() {
            if units > most {
                most = units;
                reason = Some((dim, ThrottleCause::ALL[i]));
            }
        }
    }
    let per = |x: [f64; 2]| [(x[0] / seconds) as f32, (x[1] / seconds) as f32];
    Cell {
        peak_use: [a.peak[0] as f32, a.peak[1] as f32],
        served: per(a.served),
        throttled: per(a.throttled),
        bank: [bank[0] as f32, bank[1] as f32],
        reason,
    }
}

/// Runs `setup` like [`super::run`], recording its [`Timeline`], and hands `sink` a [`Chunk`] every
/// [`chunk_seconds`] of simulated time (and one at the end, with the final partitions). Returns `None` when
/// `sink` returns `false` (cancelled); otherwise the same [`Outcome`] as `run` and the whole timeline.
pub fn run_streaming(
    setup: &Setup,
    sink: &mut dyn FnMut(Chunk) -> bool,
) -> Option<(Outcome, Timeline)> {
    let mut sim = Sim::new(setup);
    let mut rec = Recorder::new(&mut sim);
    let every = chunk_seconds(setup.duration, setup.step);
    for t in 0..setup.duration {
        sim.serve(t);
        rec.observe(&mut sim, t);
        sim.settle(t);
        rec.settle(&mut sim, t);
        if (t + 1).is_multiple_of(every)
            && t + 1 < setup.duration
            && !sink(rec.chunk(&sim, t + 1, false))
        {
            return None;
        }
    }
    if !sink(rec.chunk(&sim, setup.duration, true)) {
        return None;
    }
    Some((sim.finish(), rec.into_timeline()))
}
