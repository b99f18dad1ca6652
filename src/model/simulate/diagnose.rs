//! A run in words, as Bigtable's Key Visualizer puts diagnostics above its map: a one-line headline and
//! findings, each about a time span (and a partition, when it is about one) so a view can highlight it.
//! Pure: it reads a run's [`Setup`], [`Outcome`] and [`Timeline`] and computes nothing again.

use super::super::capacity::ThrottleCause;
use super::super::fmt::grouped;
pub use super::episodes::span_words;
use super::episodes::{Episode, burst_binds, burst_ran_out, clock, episodes, index_at};
use super::size::is_size_split;
use super::{Billing, Cell, Dim, EventKind, Outcome, Point, R1, Setup, Timeline};

/// A second of the run as its words say it, on one clock: for a replayed trace the real time in UTC
/// (`23:37:20 UTC`, with the month and day when the trace spans days), else the time from the start
/// (`00:03:00`).
pub fn when(setup: &Setup, t: u32) -> String {
    if setup.trace.is_none() {
        return clock(t);
    }
    let iso = super::super::trace::iso(setup.start + i64::from(t));
    let time = iso.get(11..19).unwrap_or_default();
    if setup.duration > 86_400 {
        format!("{} {time} UTC", iso.get(5..10).unwrap_or_default())
    } else {
        format!("{time} UTC")
    }
}

/// At most this many hot-partition findings.
const HOT_SPANS: usize = 3;
/// A spike: an episode this short, in a minute whose average use stays under [`SPIKE_CALM`].
const SPIKE_SECONDS: u32 = 5;
const SPIKE_CALM: f64 = 0.5;

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingKind {
    /// A partition asked for more than it may serve for a while.
    HotPartition,
    /// A stretch of throttling and how it ended (or that it never did).
    Episode,
    /// A burst bank ran dry (R2).
    BurstSpent,
    /// Throttling inside a minute whose CloudWatch average looks calm (R7).
    HiddenSpike,
    /// A date key rotated at midnight.
    KeyRotated,
    /// What CloudWatch observed beside what the model throttles ([`super::reconcile`]).
    Observed,
}

impl FindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HotPartition => "hot-partition",
            Self::Episode => "episode",
            Self::BurstSpent => "burst-spent",
            Self::HiddenSpike => "hidden-spike",
            Self::KeyRotated => "key-rotated",
            Self::Observed => "observed",
        }
    }
}

/// One sentence about a span of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub kind: FindingKind,
    pub text: String,
    /// The span, `[from, until)` seconds from the start.
    pub from: u32,
    pub until: u32,
    /// The partition's index in the layout of the column at `from`, and its range start (which outlives
    /// later splits), when the finding is about one partition.
    pub partition: Option<usize>,
    pub start: Option<Point>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diagnosis {
    pub headline: String,
    pub findings: Vec<Finding>,
}

/// Why throttling ended, or why it never did: the evidence a timeline gives the decision tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Nothing was throttled.
    NoThrottling,
    /// Split-for-heat divided the hot range (R4).
    SplitForHeat,
    /// A partition grew past 10 GB and split: its range has two partitions' R1 (R8).
    SplitForSize,
    /// On-demand grew: a new previous peak, partitions for consumption (R5).
    OnDemandGrowth,
    /// Auto scaling raised the provisioned capacity (R6).
    AutoScaling,
    /// The traffic fell back.
    DemandFell,
    /// Never stopped: one item, capped by R1.
    SingleItem,
    /// Never stopped: writes in sort-key order.
    SortKeyIncreases,
    /// Never stopped: an item collection on a table with an LSI.
    LocalIndex,
    /// Never stopped: split-for-heat is off.
    SplitsOff,
    /// Never stopped: the run ended before split-for-heat could act.
    TooSoon,
    /// Never stopped: a burst bank ran dry and the share is below the demand.
    BurstSpent,
    /// Never stopped: the table's capacity, quota or maximum is below the demand.
    TableLimit,
    /// Never stopped, for none of the reasons above.
    Unknown,
}

impl Why {
    /// Whether throttling ended.
    pub fn relieved(self) -> bool {
        matches!(
            self,
            Self::SplitForHeat
                | Self::SplitForSize
                | Self::OnDemandGrowth
                | Self::AutoScaling
                | Self::DemandFell
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::NoThrottling => "nothing was throttled",
            Self::SplitForHeat => "split-for-heat",
            Self::SplitForSize => "a split for size",
            Self::OnDemandGrowth => "on-demand growth",
            Self::AutoScaling => "auto scaling",
            Self::DemandFell => "demand fell",
            Self::SingleItem => "single item",
            Self::SortKeyIncreases => "the sort key only increases",
            Self::LocalIndex => "a local secondary index keeps the collection whole",
            Self::SplitsOff => "split-for-heat is off",
            Self::TooSoon => "the run ended before split-for-heat could act",
            Self::BurstSpent => "burst capacity ran out",
            Self::TableLimit => "the table's limit is below the demand",
            Self::Unknown => "demand stays above what the table serves",
        }
    }
}

/// When throttling started and stopped, and why: for the decision tree ("throttling stopped after 8 min:
/// split-for-heat", "never stopped: single item").
#[derive(Debug, Clone, PartialEq)]
pub struct TimeEvidence {
    /// The first throttled second, if any.
    pub started: Option<u32>,
    /// The second after the last throttled one, when throttling ended before the run did.
    pub stopped: Option<u32>,
    pub why: Why,
    pub text: String,
}

/// A partition's run of throttled columns.
struct HotSpan {
    start: Point,
    partition: usize,
    from: u32,
    until: u32,
    /// Peak demand as a share of R1, and its dimension.
    peak: f32,
    dim: Dim,
    units: f64,
    table_level: bool,
}

fn hot_spans(tl: &Timeline) -> Vec<HotSpan> {
    let width = tl.column_seconds.max(1);
    let mut open: Vec<HotSpan> = Vec::new();
    let mut done: Vec<HotSpan> = Vec::new();
    let mut prev: Option<usize> = None;
    for col in &tl.columns {
        let Some(layout) = tl.layouts.get(col.layout) else {
            continue;
        };
        let previous = prev.and_then(|l| tl.layouts.get(l));
        let changed = prev != Some(col.layout);
        let born = |start: Point| {
            changed
                && previous.is_some_and(|l| {
                    l.binary_search_by(|r| {
                        r.start.0.cmp(&start.0).then(r.start.1.total_cmp(&start.1))
                    })
                    .is_err()
                })
        };
        prev = Some(col.layout);
        let mut still: Vec<HotSpan> = Vec::new();
        for (p, (cell, range)) in col.cells.iter().zip(layout).enumerate() {
            let thrown = cell.throttled[0] + cell.throttled[1];
            // A range born by a split in this column carries its parent's sums: its own story starts next.
            if thrown <= 1e-6 || born(range.start) {
                continue;
            }
            let dim = if cell.throttled[1] >= cell.throttled[0] {
                Dim::Write
            } else {
                Dim::Read
            };
            let peak = cell.peak_use[dim as usize];
            let table_level = table_reason(cell);
            let units = f64::from(thrown) * f64::from(width);
            match open.iter().position(|s| s.start == range.start) {
                Some(i) => {
                    let mut s = open.swap_remove(i);
                    s.until = col.t + width;
                    s.units += units;
                    if peak > s.peak {
                        (s.peak, s.dim) = (peak, dim);
                    }
                    s.table_level |= table_level;
                    still.push(s);
                }
                None => still.push(HotSpan {
                    start: range.start,
                    partition: p,
                    from: col.t,
                    until: col.t + width,
                    peak,
                    dim,
                    units,
                    table_level,
                }),
            }
        }
        done.append(&mut open);
        open = still;
    }
    done.append(&mut open);
    done.sort_by(|a, b| b.units.total_cmp(&a.units));
    done
}

fn table_reason(cell: &Cell) -> bool {
    cell.reason
        .is_some_and(|(_, c)| c != ThrottleCause::KeyRangeThroughputExceeded)
}

/// What blocked or relieved a hot span, from the events about its partition.
fn span_cause(setup: &Setup, o: &Outcome, tl: &Timeline, s: &HotSpan) -> String {
    let end = setup.duration;
    let about = |t: u32, p: Option<usize>| p.is_some() && index_at(tl, t, s.start) == p;
    let in_span = |t: u32| t + 1 >= s.from && t < s.until.max(s.from + 1);
    if let Some(skip) = o
        .events
        .iter()
        .find(|e| e.kind == EventKind::SplitSkipped && in_span(e.t) && about(e.t, e.partition))
    {
        let d = &skip.detail;
        return if d.contains("single hot item") {
            "single hot item, no split can help".to_owned()
        } else if d.contains("only increases") {
            "the sort key only increases, no split can help".to_owned()
        } else if d.contains("local secondary index") {
            "one item collection on a table with a local secondary index: never split".to_owned()
        } else {
            d.strip_prefix("split skipped: ").unwrap_or(d).to_owned()
        };
    }
    if let Some(split) = o
        .events
        .iter()
        .find(|e| e.kind == EventKind::Split && in_span(e.t) && about(e.t, e.partition))
    {
        return if is_size_split(split) {
            format!(
                "it grew past 10 GB and split for size at {}",
                when(setup, split.t + 1)
            )
        } else {
            format!(
                "split-for-heat divided it at {} after {} near its limit",
                when(setup, split.t + 1),
                span_words(split.t + 1 - s.from)
            )
        };
    }
    if s.table_level {
        if let Some((t, _)) = burst_ran_out(setup, tl)
            && index_at(tl, t, s.start).is_some()
        {
            return format!("burst capacity ran out after {}", span_words(t));
        }
        return "the table's capacity is spent, not only this partition's".to_owned();
    }
    if s.until >= end {
        "still throttling when the run ends".to_owned()
    } else {
        "then demand fell back or moved".to_owned()
    }
}

fn hot_findings(setup: &Setup, o: &Outcome, tl: &Timeline) -> Vec<Finding> {
    let spans = hot_spans(tl);
    let top = spans.first().map_or(0.0, |s| s.units);
    let mut out: Vec<Finding> = Vec::new();
    let mut told: Vec<(u32, u32)> = Vec::new();
    for s in spans
        .iter()
        .filter(|s| s.units >= 0.01 * top)
        .take(HOT_SPANS)
    {
        let until = s.until.min(setup.duration);
        let limit = match s.dim {
            Dim::Read => format!("{} RCU", grouped(R1[0] as u64)),
            Dim::Write => format!("{} WCU", grouped(R1[1] as u64)),
        };
        let peak = f64::from(s.peak) * 100.0;
        let together = spans
            .iter()
            .filter(|x| (x.from, x.until) == (s.from, s.until))
            .count();
        let text = if together > 1 {
            if told.contains(&(s.from, s.until)) {
                continue;
            }
            told.push((s.from, s.until));
            format!(
                "{together} partitions at up to {peak:.0} % of {limit} for {}, throttled together: the table is short \
                 of capacity, not one key",
                span_words(until - s.from)
            )
        } else if s.table_level {
            format!(
                "partition {} asked for {peak:.0} % of {limit} for {}, more than its share of the table: {}",
                s.partition,
                span_words(until - s.from),
                span_cause(setup, o, tl, s)
            )
        } else {
            format!(
                "partition {} at {peak:.0} % of {limit} for {}: {}",
                s.partition,
                span_words(until - s.from),
                span_cause(setup, o, tl, s)
            )
        };
        out.push(Finding {
            kind: FindingKind::HotPartition,
            text,
            from: s.from,
            until,
            partition: (together == 1).then_some(s.partition),
            start: (together == 1).then_some(s.start),
        });
    }
    out
}

fn episode_finding(setup: &Setup, e: &Episode) -> Finding {
    let length = span_words(e.until - e.from);
    let text = if e.until >= setup.duration {
        format!(
            "throttled from {} to the end ({length}), never stopped: {}",
            when(setup, e.from),
            e.detail
        )
    } else {
        format!(
            "throttling stopped after {length} (at {}): {}",
            when(setup, e.until),
            e.detail
        )
    };
    Finding {
        kind: FindingKind::Episode,
        text,
        from: e.from,
        until: e.until,
        partition: None,
        start: None,
    }
}

/// A short episode in a minute whose CloudWatch average looks calm (R7).
fn spike_finding(setup: &Setup, o: &Outcome, e: &Episode) -> Option<Finding> {
    if o.step_seconds != 1 || e.until - e.from > SPIKE_SECONDS {
        return None;
    }
    let Billing::Provisioned { units } = &setup.table.billing else {
        return None;
    };
    let minute = o
        .minutes
        .iter()
        .find(|m| m.t <= e.from && e.from < m.t + 60)?;
    // The minute's length: 60 s, or less for a partial first or last minute.
    let next = o
        .minutes
        .iter()
        .map(|m| m.t)
        .find(|&t| t > minute.t)
        .unwrap_or(setup.duration);
    let seconds = f64::from(next.saturating_sub(minute.t).max(1));
    let (consumed, capacity, what) = if minute.write_throttle_events >= minute.read_throttle_events
    {
        (minute.consumed_write_units, units[1], "writes")
    } else {
        (minute.consumed_read_units, units[0], "reads")
    };
    let avg = consumed / seconds / capacity.max(1.0);
    if avg >= SPIKE_CALM {
        return None;
    }
    let text = format!(
        "the per-minute average reads {:.0} % of {} provisioned while {} threw back {} {what}: CloudWatch's \
         minutes hide one-second spikes",
        avg * 100.0,
        grouped(capacity as u64),
        if e.until - e.from == 1 {
            "one second".to_owned()
        } else {
            format!("{} seconds", e.until - e.from)
        },
        grouped(e.requests.round() as u64)
    );
    Some(Finding {
        kind: FindingKind::HiddenSpike,
        text,
        from: minute.t,
        until: next,
        partition: None,
        start: None,
    })
}

fn event_findings(setup: &Setup, o: &Outcome, tl: &Timeline) -> Vec<Finding> {
    let mut out = Vec::new();
    // R2 under R1: a bank that ran dry while its partition served R1 limited nothing.
    let spent = o
        .events
        .iter()
        .find(|e| e.kind == EventKind::BurstExhausted && burst_binds(setup, tl, e));
    if spent.is_none()
        && let Some((t, p)) = burst_ran_out(setup, tl)
    {
        out.push(Finding {
            kind: FindingKind::BurstSpent,
            text: format!(
                "burst capacity ran out after {}: partition {p} serves only its share and throttles the rest",
                span_words(t)
            ),
            from: t,
            until: setup.duration,
            partition: Some(p),
            start: tl.column_at(t).and_then(|(_, l)| l.get(p)).map(|r| r.start),
        });
    }
    if let Some(b) = spent {
        out.push(Finding {
            kind: FindingKind::BurstSpent,
            text: format!(
                "burst capacity ran out after {}: {}",
                span_words(b.t),
                b.detail
            ),
            from: b.t,
            until: setup.duration,
            partition: b.partition,
            start: b
                .partition
                .and_then(|p| tl.column_at(b.t).and_then(|(_, l)| l.get(p)))
                .map(|r| r.start),
        });
    }
    for r in o.events.iter().filter(|e| e.kind == EventKind::KeyRotated) {
        out.push(Finding {
            kind: FindingKind::KeyRotated,
            text: format!("{}: {}", when(setup, r.t), r.detail),
            from: r.t,
            until: (r.t + 60).min(setup.duration),
            partition: None,
            start: None,
        });
    }
    out
}

fn headline(setup: &Setup, o: &Outcome, list: &[Episode], spikes: usize) -> String {
    let Some(last) = list.last() else {
        return "No throttling: every request was served".to_owned();
    };
    let s = &o.series;
    let step = f64::from(o.step_seconds.max(1));
    let demand: f64 =
        (s.read_demand_units.iter().sum::<f64>() + s.write_demand_units.iter().sum::<f64>()) * step;
    let thrown: f64 = list.iter().map(|e| e.units).sum();
    let share = thrown / demand.max(f64::MIN_POSITIVE) * 100.0;
    if spikes == list.len() {
        let peak = list.iter().map(|e| e.requests).fold(0.0, f64::max);
        return format!(
            "A spike of {} throttled requests, invisible in the per-minute average",
            grouped(peak.round() as u64)
        );
    }
    let again = if list.len() > 1 {
        format!(" (throttled {} times)", list.len())
    } else {
        String::new()
    };
    if last.until >= setup.duration {
        format!(
            "Never stopped: {} ({share:.0} % of demand throttled){again}",
            last.detail
        )
    } else if last.why == Why::DemandFell {
        // Nothing relieved it: the traffic went away.
        format!(
            "Throttling stopped after {} when demand fell back ({share:.1} % of demand throttled){again}",
            span_words(last.until - last.from),
        )
    } else {
        format!(
            "Throttling stopped after {}: {} relieved it ({share:.1} % of demand throttled){again}",
            span_words(last.until - last.from),
            last.why.as_str()
        )
    }
}

/// The run in words: a headline, then the episodes of throttling, the hottest partitions, burst, hidden
/// spikes and key rotations, in time order.
pub fn diagnose(setup: &Setup, outcome: &Outcome, timeline: &Timeline) -> Diagnosis {
    let list = episodes(setup, outcome, timeline);
    let mut findings: Vec<Finding> = list.iter().map(|e| episode_finding(setup, e)).collect();
    let spikes: Vec<Finding> = list
        .iter()
        .filter_map(|e| spike_finding(setup, outcome, e))
        .collect();
    let headline = headline(setup, outcome, &list, spikes.len());
    findings.extend(spikes);
    findings.extend(hot_findings(setup, outcome, timeline));
    findings.extend(event_findings(setup, outcome, timeline));
    findings.sort_by_key(|f| (f.from, f.kind as u8));
    Diagnosis { headline, findings }
}

/// When throttling started and stopped, and why, for the decision tree.
pub fn time_evidence(setup: &Setup, outcome: &Outcome, timeline: &Timeline) -> TimeEvidence {
    let list = episodes(setup, outcome, timeline);
    let Some(last) = list.last() else {
        return TimeEvidence {
            started: None,
            stopped: None,
            why: Why::NoThrottling,
            text: "no throttling over the whole run".to_owned(),
        };
    };
    let started = list.first().map(|e| e.from);
    if last.until >= setup.duration {
        TimeEvidence {
            started,
            stopped: None,
            why: last.why,
            text: format!("never stopped: {}", last.why.as_str()),
        }
    } else {
        TimeEvidence {
            started,
            stopped: Some(last.until),
            why: last.why,
            text: format!(
                "throttling stopped after {}: {}",
                span_words(last.until - last.from),
                last.why.as_str()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::episodes::capped_by_r1;
    use super::super::tests::{setup, writes};
    use super::super::{Limits, SortKey, Table, key_in_partition, run_streaming};
    use super::*;

    fn provisioned(rcu: f64, wcu: f64, partitions: usize, idle_before: u32) -> Table {
        Table {
            billing: Billing::Provisioned { units: [rcu, wcu] },
            partitions: Some(partitions),
            idle_before,
            ..Table::default()
        }
    }

    fn diagnosed(s: &Setup) -> (Diagnosis, TimeEvidence) {
        let (o, tl) = run_streaming(s, &mut |_| true).unwrap();
        (diagnose(s, &o, &tl), time_evidence(s, &o, &tl))
    }

    // R1 over R2, R3 (issue 23, item 8): 3,000 RCU / 4,000 WCU over 5 partitions (800 WCU each), one item at
    // 1,800 writes/s of 1 KB. Adaptive capacity lifts its partition to R1's 1,000 WCU, 800 throttle; with no
    // idle time its bank is empty, yet R1 binds: the headline names the item, whatever was banked before.
    #[test]
    fn a_single_item_at_r1_is_named_not_burst() {
        let item = vec![writes("HOT#1", 1_800.0, SortKey::SingleItem)];
        let (cold, cold_evidence) = diagnosed(&setup(
            provisioned(3_000.0, 4_000.0, 5, 0),
            item.clone(),
            300,
        ));
        let (warm, warm_evidence) =
            diagnosed(&setup(provisioned(3_000.0, 4_000.0, 5, 300), item, 300));
        assert!(
            cold.headline
                .starts_with("Never stopped: HOT#1 is a single hot item"),
            "{}",
            cold.headline
        );
        assert_eq!(cold.headline, warm.headline);
        assert_eq!(cold_evidence.why, Why::SingleItem);
        assert_eq!(cold_evidence, warm_evidence);
        let episode = cold
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::Episode)
            .unwrap();
        assert!(episode.text.contains("single hot item"), "{}", episode.text);
        // Its empty bank is no finding either: the findings are the warm run's.
        assert!(
            !cold
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::BurstSpent),
            "{:?}",
            cold.findings
        );
        assert_eq!(cold.findings, warm.findings);
    }

    // R2 under R1: where the share plus burst is below R1, a spent bank stays the reason.
    #[test]
    fn burst_stays_the_reason_below_r1() {
        // R3 [doc: burst-adaptive-capacity] before adaptive capacity: 400 WCU over 4 partitions, one at
        // 150 WCU/s: its share (100) plus 300 s × 100 banked lasts 600 s, then 50 WCU/s throttle.
        let mut before = provisioned(0.0, 400.0, 4, 300);
        before.adaptive_capacity = false;
        let key = key_in_partition(3, 4);
        let (d, evidence) = diagnosed(&setup(
            before,
            vec![writes(&key, 150.0, SortKey::Random)],
            1_200,
        ));
        assert_eq!(
            d.headline,
            "Never stopped: burst capacity of partition 3 ran out after 10 min, and its share is below the \
             demand (17 % of demand throttled)"
        );
        assert_eq!(evidence.why, Why::BurstSpent);
        assert!(d.findings.iter().any(|f| f.kind == FindingKind::BurstSpent));
        // With adaptive capacity, below R1: one item at 500 WCU/s borrows the whole 400 WCU table, then its
        // bank (300 s × 100) pays the other 100 for 300 s; then 400 served, 100 throttled, far from 1,000.
        let (d, evidence) = diagnosed(&setup(
            provisioned(0.0, 400.0, 4, 300),
            vec![writes("HOT#1", 500.0, SortKey::SingleItem)],
            900,
        ));
        assert!(
            d.headline.starts_with("Never stopped: burst capacity of partition ")
                && d.headline.contains(
                    " ran out after 5 min, and its share is below the demand (13 % of demand throttled)"
                ),
            "{}",
            d.headline
        );
        assert_eq!(evidence.why, Why::BurstSpent);
    }

    // Issue 57: a replay's findings say every time on its UTC clock, not "23:34:20 UTC … (at 00:03:00)".
    #[test]
    fn a_replays_findings_say_every_time_on_its_utc_clock() {
        let mut s = setup(
            Table::default(),
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Random)],
            3_600,
        );
        s.start = 1_782_172_800 - 1_800; // 2026-06-22T23:30:00Z
        s.trace = Some(std::sync::Arc::new(crate::model::trace::Trace::default()));
        let (d, _) = diagnosed(&s);
        let episode = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::Episode)
            .unwrap();
        // 36 min after 23:30:00 UTC, said as a time of day, not as 00:36:00 from the start.
        assert!(
            episode.text.contains("(at 00:05:56 UTC)"),
            "{}",
            episode.text
        );
        assert_eq!(when(&s, episode.until), "00:05:56 UTC");
        // Every hh:mm:ss in every finding is a UTC time of day.
        for f in &d.findings {
            let b = f.text.as_bytes();
            for i in 0..b.len().saturating_sub(7) {
                let clock = b[i..i + 8].iter().enumerate().all(|(j, c)| {
                    if j == 2 || j == 5 {
                        *c == b':'
                    } else {
                        c.is_ascii_digit()
                    }
                });
                if clock {
                    assert!(f.text[i + 8..].starts_with(" UTC"), "{}", f.text);
                    assert!(f.text[i..].starts_with("23:") || f.text[i..].starts_with("00:"));
                }
            }
        }
        // A scenario's findings keep the time from its start.
        s.trace = None;
        let (d, _) = diagnosed(&s);
        assert!(!d.findings.iter().any(|f| f.text.contains("UTC")));
    }

    #[test]
    fn capped_by_r1_within_a_tolerance() {
        let cell = |served: [f32; 2], throttled: [f32; 2]| Cell {
            peak_use: [0.0; 2],
            served,
            throttled,
            bank: [0.0; 2],
            reason: None,
        };
        let independent = setup(Table::default(), Vec::new(), 60);
        let combined = setup(
            Table {
                limits: Limits::Combined,
                ..Table::default()
            },
            Vec::new(),
            60,
        );
        // At R1 (within 1 %) in every dimension it throttles; nothing throttled is no cap.
        assert!(capped_by_r1(
            &independent,
            &cell([0.0, 1_000.0], [0.0, 800.0])
        ));
        assert!(capped_by_r1(&independent, &cell([0.0, 995.0], [0.0, 5.0])));
        assert!(!capped_by_r1(
            &independent,
            &cell([0.0, 800.0], [0.0, 200.0])
        ));
        assert!(!capped_by_r1(&independent, &cell([0.0, 1_000.0], [0.0; 2])));
        // Reads at R1, writes below it and throttled: the writes' limit is not R1.
        assert!(!capped_by_r1(
            &independent,
            &cell([3_000.0, 500.0], [100.0, 100.0])
        ));
        // Combined: 1,500 RCU and 500 WCU are the whole of one partition.
        assert!(capped_by_r1(
            &combined,
            &cell([1_500.0, 500.0], [0.0, 300.0])
        ));
        assert!(!capped_by_r1(
            &combined,
            &cell([1_500.0, 300.0], [0.0, 300.0])
        ));
    }
}
