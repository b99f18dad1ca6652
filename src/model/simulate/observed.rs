//! What CloudWatch observed beside what the model throttles: both on whole UTC minutes
//! (`[hh:mm:00, hh:mm+1:00)`, DYNAMODB-TRAFFIC "CloudWatch": one-minute periods), compared minute by minute
//! ([`agreement`]), and the run's words made to say both ([`reconcile`]): a headline never says "no
//! throttling" while CloudWatch observed some.

use super::super::capacity::ReasonMetric;
use super::super::fmt::grouped;
use super::diagnose::{Diagnosis, Finding, FindingKind, TimeEvidence, Why, when};
use super::{Outcome, Setup};

/// One CloudWatch minute's throttle events as observed (read and write events, or throttled requests when
/// the files held only those).
#[derive(Debug, Clone, PartialEq)]
pub struct ObservedEvents {
    /// Unix seconds of the minute's start (a whole minute).
    pub minute: i64,
    pub events: f64,
    /// The minute's events by reason, for each reason metric the files held a figure of this minute
    /// (DYNAMODB-TRAFFIC "Throttling by its reason (2025)" \[AWS\]).
    pub reasons: Vec<(ReasonMetric, f64)>,
    /// Counted from a request log's throttled requests rather than read from CloudWatch.
    pub by_log: bool,
}

/// One minute, observed and modelled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MinuteComparison {
    /// Unix seconds of the minute's start (a whole minute).
    pub minute: i64,
    /// The minute's start in seconds from the run's start (negative before the run).
    pub t: i64,
    pub observed: f64,
    pub modelled: f64,
}

/// Observed against modelled throttle events.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Agreement {
    /// Throttle events CloudWatch observed, over its minutes.
    pub observed_total: f64,
    /// Throttle events the model throws over the whole run.
    pub modelled_total: f64,
    /// Every minute CloudWatch gave a throttle figure for, in time order, with the model's events in the same
    /// UTC minute. (A minute without a datapoint is not zero, DYNAMODB-TRAFFIC "CloudWatch": it is not
    /// compared.)
    pub minutes: Vec<MinuteComparison>,
    /// Per reason, when the files held any reason metric: each reason they held a figure of, and each the
    /// model throttles with in the minutes compared, in [`ReasonMetric::ALL`]'s order.
    pub by_reason: Vec<ReasonComparison>,
    /// Who observed: "CloudWatch", "the request log", or "CloudWatch and the request log".
    pub observer: &'static str,
}

/// Who observed `observed`'s throttling, as the words say it.
fn observer_of(observed: &[ObservedEvents]) -> &'static str {
    let log = observed.iter().any(|m| m.by_log);
    let cloudwatch = observed.iter().any(|m| !m.by_log);
    match (cloudwatch, log) {
        (true, true) => "CloudWatch and the request log",
        (false, true) => "the request log",
        _ => "CloudWatch",
    }
}

/// `observer` at the start of a sentence.
fn capitalised(observer: &str) -> String {
    let mut c = observer.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// One reason metric's events, observed and modelled over the minutes compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReasonComparison {
    pub metric: ReasonMetric,
    /// CloudWatch's events of this reason; `None` when the files held no figure of it (no datapoint is not
    /// zero).
    pub observed: Option<f64>,
    /// The model's throttled requests with this reason in the minutes compared (**\[ours\]**: a request the
    /// model throttles is one event; DynamoDB may count more than one event for a request).
    pub modelled: f64,
    /// Unix seconds: the start of the first minute with observed events of this reason, and the end of the
    /// last (when any).
    pub span: Option<(i64, i64)>,
}

impl ReasonComparison {
    /// The observed events, 0 when not read.
    pub fn observed_events(&self) -> f64 {
        self.observed.unwrap_or(0.0)
    }
}

impl Agreement {
    /// `ev` with what CloudWatch observed: its throttle events, and by reason when the files held the reason
    /// metrics (on `resource`: the table, or the index the metrics were read for).
    pub fn evidence(
        &self,
        ev: &super::super::decision::Evidence,
        resource: super::super::capacity::ThrottleResource,
    ) -> super::super::decision::Evidence {
        super::super::decision::Evidence {
            observed_throttling: Some(self.observed_total).or(ev.observed_throttling),
            observed_reasons: self
                .by_reason
                .iter()
                .filter(|r| r.observed_events() > 0.0)
                .map(|r| super::super::decision::ObservedReason {
                    metric: r.metric,
                    resource,
                    events: r.observed_events(),
                    span: r.span,
                    observer: self.observer,
                })
                .collect(),
            ..ev.clone()
        }
    }

    /// The model's events in the minutes compared.
    pub fn modelled_in_compared(&self) -> f64 {
        self.minutes.iter().map(|m| m.modelled).sum()
    }

    /// The `n` minutes where observed and modelled differ most, the largest difference first (earlier first
    /// on ties).
    pub fn differ_most(&self, n: usize) -> Vec<MinuteComparison> {
        let mut rows = self.minutes.clone();
        rows.sort_by(|a, b| {
            (b.observed - b.modelled)
                .abs()
                .total_cmp(&(a.observed - a.modelled).abs())
                .then(a.minute.cmp(&b.minute))
        });
        rows.truncate(n);
        rows
    }
}

/// The model's throttle events per whole UTC minute (Unix seconds of its start), from the run's minutes.
fn modelled_by_minute(setup: &Setup, o: &Outcome) -> std::collections::BTreeMap<i64, f64> {
    let mut by = std::collections::BTreeMap::new();
    for m in &o.minutes {
        let minute = (setup.start + i64::from(m.t)).div_euclid(60) * 60;
        *by.entry(minute).or_insert(0.0) += m.read_throttle_events + m.write_throttle_events;
    }
    by
}

/// The model's throttled requests per whole UTC minute by reason metric (the model names its reasons as
/// DynamoDB does, `TableWriteKeyRangeThroughputExceeded`, R7).
fn modelled_reasons_by_minute(
    setup: &Setup,
    o: &Outcome,
) -> std::collections::BTreeMap<i64, [f64; 8]> {
    let mut by = std::collections::BTreeMap::new();
    for m in &o.minutes {
        let minute = (setup.start + i64::from(m.t)).div_euclid(60) * 60;
        let row: &mut [f64; 8] = by.entry(minute).or_insert([0.0; 8]);
        for (name, n) in &m.throttle_reasons {
            if let Ok(r) = name.parse::<super::super::capacity::ThrottleReason>() {
                row[ReasonMetric::from(r).index()] += n;
            }
        }
    }
    by
}

/// Per reason metric, observed against modelled over the minutes compared: empty when the files held no
/// reason metric (then only the totals compare).
fn by_reason(setup: &Setup, o: &Outcome, observed: &[ObservedEvents]) -> Vec<ReasonComparison> {
    if observed.iter().all(|m| m.reasons.is_empty()) {
        return Vec::new();
    }
    let modelled = modelled_reasons_by_minute(setup, o);
    let mut rows: Vec<ReasonComparison> = ReasonMetric::ALL
        .into_iter()
        .map(|metric| ReasonComparison {
            metric,
            observed: None,
            modelled: 0.0,
            span: None,
        })
        .collect();
    for m in observed {
        let minute = m.minute.div_euclid(60) * 60;
        if let Some(row) = modelled.get(&minute) {
            for (r, n) in rows.iter_mut().zip(row) {
                r.modelled += n;
            }
        }
        for &(metric, n) in &m.reasons {
            let r = &mut rows[metric.index()];
            r.observed = Some(r.observed.unwrap_or(0.0) + n);
            if n > 0.0 {
                let (from, until) = r.span.unwrap_or((minute, minute + 60));
                r.span = Some((from.min(minute), until.max(minute + 60)));
            }
        }
    }
    rows.retain(|r| r.observed.is_some() || r.modelled >= 0.5);
    rows
}

/// Observed against modelled throttle events, minute by minute on whole UTC minutes, and per reason when
/// the files held the reason metrics.
pub fn agreement(setup: &Setup, o: &Outcome, observed: &[ObservedEvents]) -> Agreement {
    let modelled = modelled_by_minute(setup, o);
    let mut minutes: Vec<MinuteComparison> = observed
        .iter()
        .map(|m| {
            let minute = m.minute.div_euclid(60) * 60;
            MinuteComparison {
                minute,
                t: minute - setup.start,
                observed: m.events,
                modelled: modelled.get(&minute).copied().unwrap_or(0.0),
            }
        })
        .collect();
    minutes.sort_by_key(|m| m.minute);
    Agreement {
        observed_total: minutes.iter().map(|m| m.observed).sum(),
        modelled_total: modelled.values().sum(),
        minutes,
        by_reason: by_reason(setup, o, observed),
        observer: observer_of(observed),
    }
}

fn count(x: f64) -> String {
    grouped(x.round().max(0.0) as u64)
}

/// The run's words made to say what CloudWatch observed beside what the model throttles: the headline says
/// both when they disagree, and a finding spans the minutes CloudWatch saw throttling. `keys_known`: the
/// replay has per-key records (without them its keys are stand-ins that spread the traffic evenly, and no
/// hot key can show).
pub fn reconcile(d: &mut Diagnosis, setup: &Setup, a: &Agreement, keys_known: bool) {
    if a.minutes.is_empty() {
        return;
    }
    let observed = a.observed_total;
    let modelled = a.modelled_total;
    let by = a.observer;
    let by_cap = capitalised(by);
    let why_none = if keys_known {
        "not a key-spread problem, or the table you gave is larger than the real one".to_owned()
    } else {
        "without per-key records the traffic is spread over stand-in keys, so no hot key can show; \
         Contributor Insights, the table's stream or a request log would say which keys were throttled \
         (or the table you gave is larger than the real one)"
            .to_owned()
    };
    if observed > 0.0 && modelled < 0.5 {
        d.headline = format!(
            "Observed {} throttle events ({by}); the model throttles none on this table: {why_none}",
            count(observed)
        );
    } else if observed > 0.0 {
        d.headline = format!(
            "{}; observed {} throttle events ({by}), the model {} in the same minutes",
            d.headline,
            count(observed),
            count(a.modelled_in_compared())
        );
    } else if a.modelled_in_compared() >= 0.5 {
        d.headline = format!(
            "{}; {by_cap} observed no throttle events in the same minutes: the table you gave may be \
             smaller than the real one",
            d.headline
        );
    }
    let throttled: Vec<&MinuteComparison> = a.minutes.iter().filter(|m| m.observed > 0.0).collect();
    let (Some(first), Some(last)) = (throttled.first(), throttled.last()) else {
        return;
    };
    let from = first.t.clamp(0, i64::from(setup.duration)) as u32;
    let until = (last.t + 60).clamp(0, i64::from(setup.duration)) as u32;
    let span = if throttled.len() == 1 {
        format!("in the minute from {}", when(setup, from))
    } else {
        format!(
            "in {} minutes from {} to {}",
            throttled.len(),
            when(setup, from),
            when(setup, until)
        )
    };
    let in_them: f64 = throttled.iter().map(|m| m.modelled).sum();
    let mut text = format!(
        "{by_cap} observed {} throttle events {span}; the model throttles {} in them",
        count(observed),
        if in_them < 0.5 {
            "none".to_owned()
        } else {
            count(in_them)
        }
    );
    if let Some(top) = a.differ_most(1).first()
        && throttled.len() > 1
    {
        text.push_str(&format!(
            " (most apart at {}: observed {}, modelled {})",
            when(setup, top.t.clamp(0, i64::from(setup.duration)) as u32),
            count(top.observed),
            count(top.modelled)
        ));
    }
    d.findings.push(Finding {
        kind: FindingKind::Observed,
        text,
        from,
        until: until.max(from),
        partition: None,
        start: None,
    });
    d.findings.sort_by_key(|f| (f.from, f.kind as u8));
}

/// The tree's "over time" evidence made to say what CloudWatch observed when the model throttles none.
pub fn reconcile_time(te: &mut TimeEvidence, a: &Agreement) {
    if te.why == Why::NoThrottling && a.observed_total > 0.0 {
        te.text = format!(
            "the model throttles none over the whole run; {} observed {} throttle events",
            a.observer,
            count(a.observed_total)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{setup, writes};
    use super::super::{SortKey, Table, diagnose, run_streaming};
    use super::*;

    fn diagnosed(s: &Setup) -> (Diagnosis, Outcome) {
        let (o, tl) = run_streaming(s, &mut |_| true).unwrap();
        (diagnose(s, &o, &tl), o)
    }

    fn replay_of(mut s: Setup) -> Setup {
        s.trace = Some(std::sync::Arc::new(crate::model::trace::Trace::default()));
        s
    }

    // Issue 57: CloudWatch saw 4,400 throttle events, the model none: the headline never says "no throttling".
    #[test]
    fn observed_throttling_the_model_does_not_show_is_said_in_the_headline() {
        let s = replay_of(setup(
            Table::default(),
            vec![writes("K", 10.0, SortKey::Random)],
            300,
        ));
        let (mut d, o) = diagnosed(&s);
        assert_eq!(d.headline, "No throttling: every request was served");
        let observed = [
            ObservedEvents {
                minute: s.start + 60,
                events: 2_400.0,
                reasons: Vec::new(),
                by_log: false,
            },
            ObservedEvents {
                minute: s.start + 120,
                events: 2_000.0,
                reasons: Vec::new(),
                by_log: false,
            },
        ];
        let a = agreement(&s, &o, &observed);
        assert_eq!(a.observed_total, 4_400.0);
        assert_eq!(a.modelled_total, 0.0);
        assert_eq!(a.minutes[0].t, 60);
        let (o2, tl) = run_streaming(&s, &mut |_| true).unwrap();
        let mut time = super::super::time_evidence(&s, &o2, &tl);
        reconcile_time(&mut time, &a);
        assert_eq!(
            time.text,
            "the model throttles none over the whole run; CloudWatch observed 4,400 throttle events"
        );
        reconcile(&mut d, &s, &a, true);
        assert_eq!(
            d.headline,
            "Observed 4,400 throttle events (CloudWatch); the model throttles none on this table: not a \
             key-spread problem, or the table you gave is larger than the real one"
        );
        let f = d
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::Observed)
            .unwrap();
        assert_eq!((f.from, f.until), (60, 180));
        // One clock: the replay's UTC wall time (the setup starts at 2026-06-23T00:00:00Z).
        assert_eq!(
            f.text,
            "CloudWatch observed 4,400 throttle events in 2 minutes from 00:01:00 UTC to 00:03:00 UTC; the \
             model throttles none in them (most apart at 00:01:00 UTC: observed 2,400, modelled 0)"
        );
        // Without per-key records, the headline says why no hot key can show.
        let (mut d, _) = diagnosed(&s);
        reconcile(&mut d, &s, &a, false);
        assert!(d.headline.contains("stand-in keys"), "{}", d.headline);
        assert!(!d.headline.contains("No throttling"), "{}", d.headline);
    }

    // The model's minutes are compared with CloudWatch's on the same whole UTC minutes.
    #[test]
    fn minutes_compare_on_whole_utc_minutes() {
        let s = replay_of(setup(
            Table::default(),
            vec![writes("HOT", 3_000.0, SortKey::SingleItem)],
            180,
        ));
        let (mut d, o) = diagnosed(&s);
        let observed = [ObservedEvents {
            minute: s.start + 60,
            events: 10.0,
            reasons: Vec::new(),
            by_log: false,
        }];
        let a = agreement(&s, &o, &observed);
        // The model throttles 2,000 writes a second: the minute [00:01:00, 00:02:00) holds 60 s of them.
        assert_eq!(a.minutes[0].minute % 60, 0);
        assert_eq!(a.minutes[0].t, 60);
        assert!(
            (a.minutes[0].modelled - 120_000.0).abs() < 1.0,
            "{:?}",
            a.minutes
        );
        reconcile(&mut d, &s, &a, true);
        assert!(
            d.headline.ends_with(
                "; observed 10 throttle events (CloudWatch), the model 120,000 in the same minutes"
            ),
            "{}",
            d.headline
        );
    }

    // Issue 60: with the reason metrics read, observed and modelled compare per reason.
    #[test]
    fn agreement_compares_per_reason() {
        use crate::model::capacity::{ThrottleCause, ThrottleOp};
        let s = replay_of(setup(
            Table::default(),
            vec![writes("HOT", 3_000.0, SortKey::SingleItem)],
            180,
        ));
        let (_, o) = diagnosed(&s);
        let key_range = ReasonMetric {
            op: ThrottleOp::Write,
            cause: ThrottleCause::KeyRangeThroughputExceeded,
        };
        let provisioned = ReasonMetric {
            op: ThrottleOp::Write,
            cause: ThrottleCause::ProvisionedThroughputExceeded,
        };
        let observed = [
            ObservedEvents {
                minute: s.start + 60,
                events: 10.0,
                reasons: vec![(key_range, 10.0), (provisioned, 0.0)],
                by_log: false,
            },
            ObservedEvents {
                minute: s.start + 120,
                events: 5.0,
                reasons: vec![(key_range, 5.0)],
                by_log: false,
            },
        ];
        let a = agreement(&s, &o, &observed);
        assert_eq!(a.by_reason.len(), 2, "{:?}", a.by_reason);
        let kr = a.by_reason.iter().find(|r| r.metric == key_range).unwrap();
        assert_eq!(kr.observed, Some(15.0));
        assert_eq!(kr.span, Some((s.start + 60, s.start + 180)));
        // The model throttles 2,000 writes a second over R1 in both minutes.
        assert!((kr.modelled - 240_000.0).abs() < 1.0, "{kr:?}");
        let pr = a
            .by_reason
            .iter()
            .find(|r| r.metric == provisioned)
            .unwrap();
        assert_eq!((pr.observed, pr.span, pr.modelled), (Some(0.0), None, 0.0));
        // Without reason metrics, no per-reason rows.
        let plain: Vec<ObservedEvents> = observed
            .iter()
            .map(|m| ObservedEvents {
                reasons: Vec::new(),
                ..m.clone()
            })
            .collect();
        assert!(agreement(&s, &o, &plain).by_reason.is_empty());
    }
}
