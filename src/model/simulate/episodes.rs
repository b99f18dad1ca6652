//! Episodes of throttling (stretches of throttled seconds) and why each ended or never did, from a run's
//! events, minutes and timeline: what [`super::diagnose`] and [`super::time_evidence`] say.

use super::size::is_size_split;
use super::splits::skip_reason;
use super::{
    Billing, Cell, Event, EventKind, Keys, Limits, Outcome, Point, R1, READ, Setup, SortKey,
    Timeline, WRITE, Why, before,
};

/// Gaps shorter than this between throttled points are one episode.
const EPISODE_GAP: u32 = 60;
/// [ours] A partition serves its ceiling when it serves at least this share of it (a cell holds an `f32` mean,
/// and a wide column averages several seconds).
const AT_CEILING: f64 = 0.99;

/// A stretch of throttling: `[from, until)`, its throttled units and requests, and why it ended.
#[derive(Debug, Clone)]
pub(super) struct Episode {
    pub(super) from: u32,
    pub(super) until: u32,
    pub(super) units: f64,
    pub(super) requests: f64,
    pub(super) peak_requests: f64,
    pub(super) why: Why,
    pub(super) detail: String,
}

/// "45 s", "8 min", "2 h 5 min".
pub fn span_words(seconds: u32) -> String {
    if seconds < 120 {
        format!("{seconds} s")
    } else if seconds < 2 * 3_600 {
        format!("{} min", (seconds + 30) / 60)
    } else {
        let m = (seconds + 30) / 60;
        match m % 60 {
            0 => format!("{} h", m / 60),
            r => format!("{} h {r} min", m / 60),
        }
    }
}

pub(super) fn clock(t: u32) -> String {
    format!("{:02}:{:02}:{:02}", t / 3_600, t / 60 % 60, t % 60)
}

/// The stretches of throttling in the series, each with why it ended.
pub(super) fn episodes(setup: &Setup, o: &Outcome, tl: &Timeline) -> Vec<Episode> {
    let s = &o.series;
    let step = o.step_seconds.max(1);
    let mut list: Vec<Episode> = Vec::new();
    for i in 0..s.t.len() {
        let units = s.read_throttled_units[i] + s.write_throttled_units[i];
        if units <= 1e-6 {
            continue;
        }
        let t = s.t[i];
        let (units, requests) = (units * f64::from(step), s.throttled_requests[i]);
        match list.last_mut() {
            Some(e) if t <= e.until + EPISODE_GAP => {
                e.until = t + step;
                e.units += units;
                e.requests += requests * f64::from(step);
                e.peak_requests = e.peak_requests.max(requests);
            }
            _ => list.push(Episode {
                from: t,
                until: t + step,
                units,
                requests: requests * f64::from(step),
                peak_requests: requests,
                why: Why::Unknown,
                detail: String::new(),
            }),
        }
    }
    for e in &mut list {
        e.until = e.until.min(setup.duration);
        let (why, detail) = if e.until >= setup.duration {
            unrelieved(setup, o, tl, e)
        } else {
            relief(setup, o, e)
        };
        e.why = why;
        e.detail = detail;
    }
    list
}

/// Why an episode that ended did: the event just before its end, or the traffic.
pub(super) fn relief(setup: &Setup, o: &Outcome, e: &Episode) -> (Why, String) {
    let near = |t: u32| t + o.step_seconds.max(1) + 1 >= e.until && t < e.until + 1;
    let splits = o
        .events
        .iter()
        .filter(|x| x.kind == EventKind::Split && x.partition.is_some() && !is_size_split(x))
        .filter(|x| x.t >= e.from && x.t < e.until)
        .count();
    let last = o.events.iter().rev().find(|x| near(x.t) && x.t >= e.from);
    if let Some(x) = last.filter(|x| is_size_split(x)) {
        let which = x
            .partition
            .map_or_else(|| "partitions".to_owned(), |p| format!("partition {p}"));
        return (
            Why::SplitForSize,
            format!("{which} grew past 10 GB and split for size"),
        );
    }
    match last.map(|x| (x.kind, x.partition)) {
        Some((EventKind::Split, Some(p))) => {
            let more = if splits > 1 {
                format!(" ({splits} splits in all)")
            } else {
                String::new()
            };
            (
                Why::SplitForHeat,
                format!("split-for-heat divided partition {p}{more}"),
            )
        }
        Some((EventKind::Split | EventKind::PeakAdopted, _)) => (
            Why::OnDemandGrowth,
            "on-demand adopted a new peak and grew its partitions".to_owned(),
        ),
        Some((EventKind::Scale, _)) => (
            Why::AutoScaling,
            "auto scaling raised the provisioned capacity".to_owned(),
        ),
        _ => {
            let _ = setup;
            (Why::DemandFell, "demand fell back".to_owned())
        }
    }
}

/// The reason of the last split skipped during an episode, or of a bank that ran dry while it was binding
/// (R2 under R1, R4).
fn skipped_split(setup: &Setup, o: &Outcome, tl: &Timeline, e: &Episode) -> Option<(Why, String)> {
    let in_span = |t: u32| t >= e.from && t < e.until;
    if let Some(skip) = o
        .events
        .iter()
        .rev()
        .find(|x| x.kind == EventKind::SplitSkipped && in_span(x.t))
    {
        let d = &skip.detail;
        let why = if d.contains("only increases") {
            Why::SortKeyIncreases
        } else if d.contains("single hot item") {
            Why::SingleItem
        } else if d.contains("local secondary index") {
            Why::LocalIndex
        } else {
            Why::Unknown
        };
        let text = d.strip_prefix("split skipped: ").unwrap_or(d).to_owned();
        return Some((why, text));
    }
    if let Some(b) = o.events.iter().find(|x| {
        x.kind == EventKind::BurstExhausted && in_span(x.t + 1) && burst_binds(setup, tl, x)
    }) {
        let p = b
            .partition
            .map_or(String::new(), |p| format!(" of partition {p}"));
        return Some((
            Why::BurstSpent,
            format!(
                "burst capacity{p} ran out after {}, and its share is below the demand",
                span_words(b.t)
            ),
        ));
    }
    None
}

/// Why an episode lasts to the end of the run.
pub(super) fn unrelieved(setup: &Setup, o: &Outcome, tl: &Timeline, e: &Episode) -> (Why, String) {
    if let Some(found) = skipped_split(setup, o, tl, e) {
        return found;
    }
    let reason = last_reason(o);
    let hot_range = reason.as_ref().is_none_or(|r| r.contains("KeyRange"));
    if let (true, Some((name, kind))) = (hot_range, hot_key_at_end(setup, tl)) {
        match kind {
            SortKey::SingleItem => return (Why::SingleItem, skip_reason(kind, &name)),
            SortKey::Monotonic => return (Why::SortKeyIncreases, skip_reason(kind, &name)),
            SortKey::Random if setup.table.lsi => {
                return (
                    Why::LocalIndex,
                    format!(
                        "{name} is one item collection on a table with a local secondary index: never split"
                    ),
                );
            }
            SortKey::Random => {}
        }
    }
    if let Some((t, p)) = burst_ran_out(setup, tl) {
        return (
            Why::BurstSpent,
            format!(
                "burst capacity of partition {p} ran out after {}, and its share is below the demand",
                span_words(t)
            ),
        );
    }
    if hot_range && setup.table.adaptive_capacity {
        let t = &setup.table;
        if !t.split_for_heat {
            return (Why::SplitsOff, "split-for-heat is off".to_owned());
        }
        let needed = t.split_after + setup.params.split_jitter_seconds;
        if e.until - e.from < needed {
            return (
                Why::TooSoon,
                format!(
                    "the run ended before split-for-heat could act (it needs {} near the limit)",
                    span_words(t.split_after)
                ),
            );
        }
    }
    match reason {
        Some(r) if !r.contains("KeyRange") => (
            Why::TableLimit,
            format!("the table's limit is below the demand ({r})"),
        ),
        _ => (Why::Unknown, Why::Unknown.as_str().to_owned()),
    }
}

/// The busiest key of the partition that throws back most in the last column, and its stream's sort key.
pub(super) fn hot_key_at_end(setup: &Setup, tl: &Timeline) -> Option<(String, SortKey)> {
    let col = tl.columns.last()?;
    let layout = tl.layouts.get(col.layout)?;
    let (i, cell) = col
        .cells
        .iter()
        .enumerate()
        .max_by(|a, b| thrown(a.1).total_cmp(&thrown(b.1)))?;
    if thrown(cell) <= 1e-6 {
        return None;
    }
    let name = layout.get(i)?.keys.first()?.clone();
    let stream = setup.traffic.iter().find(|s| match &s.keys {
        Keys::One(k) => match k.split_once("{date}") {
            Some((head, tail)) => name.starts_with(head) && name.ends_with(tail),
            None => *k == name,
        },
        Keys::Weighted(list) => list.iter().any(|(k, _)| *k == name),
        Keys::Uniform(_) | Keys::InPartition(_) => false,
    })?;
    Some((name, stream.sort_key))
}

pub(super) fn thrown(cell: &Cell) -> f32 {
    cell.throttled[0] + cell.throttled[1]
}

/// A provisioned partition whose bank ran dry while it threw back below its ceiling (R2 under R1, see
/// [`capped_by_r1`]): when (the column's start), and which.
pub(super) fn burst_ran_out(setup: &Setup, tl: &Timeline) -> Option<(u32, usize)> {
    if !matches!(setup.table.billing, Billing::Provisioned { .. }) {
        return None;
    }
    // Whether each range of the column's layout has held banked capacity so far, by its place in the
    // layout; carried to the next layout by start (partitions never merge, R4: a start stays). A map by
    // start looked up per cell was a tenth of `shardlens simulate` on a busy day (3.4 M cells).
    let mut had: Vec<bool> = Vec::new();
    let mut had_layout: Option<usize> = None;
    for col in &tl.columns {
        let layout = tl.layouts.get(col.layout)?;
        if had_layout != Some(col.layout) {
            let previous = had_layout.and_then(|l| tl.layouts.get(l));
            had = layout
                .iter()
                .map(|r| {
                    previous.is_some_and(|prev| {
                        let i = prev.partition_point(|q| before(q.start, r.start));
                        prev.get(i).is_some_and(|q| q.start == r.start) && had[i]
                    })
                })
                .collect();
            had_layout = Some(col.layout);
        }
        for (p, ((cell, range), had)) in col.cells.iter().zip(layout).zip(&mut had).enumerate() {
            let banked = cell.bank[0] + cell.bank[1] > 1.0;
            if *had && !banked && thrown(cell) > 1e-6 && !capped_by_r1(setup, cell) {
                // Sustained: still throttling a minute later (not a bank reset by a change of capacity).
                let later = tl.column_at(col.t + 60).and_then(|(c, l)| {
                    // A layout's ranges are in key-space order.
                    let i = l.partition_point(|r| before(r.start, range.start));
                    l.get(i).filter(|r| r.start == range.start)?;
                    c.cells.get(i)
                });
                if later.is_some_and(|c| thrown(c) > 1e-6) {
                    return Some((col.t, p));
                }
            } else {
                *had |= banked;
            }
        }
    }
    None
}

/// Whether all a cell throws back is over its partition's ceiling: R1 (with `limits = "combined"`, its linear
/// combination), served within [`AT_CEILING`] in every dimension it throttles. Burst (R2) and adaptive
/// capacity (R3) never lift R1, so then R1 is the binding limit: a spent bank or the partition's share is a
/// reason only below it (or, with adaptive capacity off, wherever the share plus burst is below it).
pub(super) fn capped_by_r1(setup: &Setup, cell: &Cell) -> bool {
    let used = |dim: usize| f64::from(cell.served[dim]) / R1[dim];
    let throttles = |dim: usize| cell.throttled[dim] > 1e-6;
    if !throttles(READ) && !throttles(WRITE) {
        return false;
    }
    match setup.table.limits {
        Limits::Combined => used(READ) + used(WRITE) >= AT_CEILING,
        Limits::Independent => [READ, WRITE]
            .into_iter()
            .filter(|&dim| throttles(dim))
            .all(|dim| used(dim) >= AT_CEILING),
    }
}

/// Whether a burst-exhausted event names the binding limit: its partition served below its ceiling in the
/// event's column (R2 under R1, see [`capped_by_r1`]). An event about no partition, or one the timeline does
/// not hold, is taken at its word.
pub(super) fn burst_binds(setup: &Setup, tl: &Timeline, e: &Event) -> bool {
    let cell = e
        .partition
        .and_then(|p| tl.column_at(e.t).and_then(|(c, _)| c.cells.get(p)));
    !cell.is_some_and(|c| capped_by_r1(setup, c))
}

/// The throttle reason with the most requests in the last throttled minute.
pub(super) fn last_reason(o: &Outcome) -> Option<String> {
    o.minutes
        .iter()
        .rev()
        .find(|m| !m.throttle_reasons.is_empty())
        .and_then(|m| {
            m.throttle_reasons
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|r| r.0.clone())
        })
}

/// Where the partition starting at `start` is in the column at `t`'s layout.
pub(super) fn index_at(tl: &Timeline, t: u32, start: Point) -> Option<usize> {
    let (_, layout) = tl.column_at(t)?;
    layout.iter().position(|r| r.start == start)
}
