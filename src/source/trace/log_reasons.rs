//! A request log's throttled requests by their reasons (DYNAMODB-TRAFFIC "Throttling by its reason (2025)"
//! \[AWS\]: API Reference `ThrottlingReason`): the reasons of each request the application saw throttled, in a
//! `reason` column (CSV) or `ThrottlingReasons` (JSON lines), gathered while `logs` reads the requests
//! ([`Throttles`]) and, after the log, made observed minutes per reason and throttled keys
//! ([`Throttles::finish`]). See `logs`' module doc for the shapes.

use serde_json::Value;

use super::logs::text;
use super::{ObservedMinute, TraceCx};
use crate::model::capacity::{ReasonMetric, ThrottleReason};
use crate::model::fmt::grouped;

/// The names a reason column goes by (a JSON line's field, looked for on every line).
pub(super) const REASON_NAMES: [&str; 4] = [
    "reason",
    "throttle_reason",
    "throttling_reason",
    "ThrottlingReasons",
];

/// The throttles a log holds, gathered while reading it: per key, per minute and reason.
#[derive(Default)]
pub(super) struct Throttles {
    /// Throttled requests per key (as text).
    keys: std::collections::BTreeMap<String, f64>,
    /// Every minute (Unix seconds of its start) the log has a request in.
    minutes: std::collections::BTreeSet<i64>,
    /// Each minute's throttle events by reason ([`ReasonMetric::index`]).
    by_minute: std::collections::BTreeMap<i64, [f64; 8]>,
    /// The reasons the log shows.
    seen: [bool; 8],
    /// Reason texts that are not throttling reasons.
    unknown: u64,
    /// The reason column's name, once a request had one.
    pub(super) column: Option<String>,
    /// The last minute inserted in `minutes` (most requests fall in the minute of the one before).
    last_minute: Option<i64>,
}

impl Throttles {
    /// After the log: its throttles as observed minutes and throttled keys (when it has a reason column).
    pub(super) fn finish(self, cx: &mut TraceCx<'_>) {
        let Some(column) = self.column.as_deref() else {
            return;
        };
        if self.unknown > 0 {
            cx.file.assume(format!(
                "{} reason value{} in column {} {} not a throttling reason ({{Table|Index}}{{Read|Write}}{{\
                 ProvisionedThroughputExceeded|AccountLimitExceeded|KeyRangeThroughputExceeded|\
                 MaxOnDemandThroughputExceeded}}): {} kept as served",
                grouped(self.unknown),
                if self.unknown == 1 { "" } else { "s" },
                column,
                if self.unknown == 1 { "is" } else { "are" },
                if self.unknown == 1 {
                    "its request is"
                } else {
                    "their requests are"
                },
            ));
        }
        let events: f64 = self.by_minute.values().flatten().sum();
        cx.file.assume(format!(
            "throttled requests the log gives reasons for are observed throttle events, one a request and \
             reason ({} in all), and still replayed as demand [ours]",
            grouped(events.round() as u64)
        ));
        for minute in self.minutes {
            let row = self.by_minute.get(&minute).copied().unwrap_or([0.0; 8]);
            let m = cx.observed.entry(minute).or_insert_with(|| ObservedMinute {
                minute,
                ..ObservedMinute::default()
            });
            m.by_log = true;
            for (i, seen) in self.seen.iter().enumerate() {
                if *seen {
                    *m.reasons[i].get_or_insert(0.0) += row[i];
                }
            }
        }
        let mut list: Vec<(String, f64)> = self.keys.into_iter().collect();
        list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        cx.file.throttled_keys.extend(list);
    }
}

/// A request's minute, and when the log gives it reasons, its throttles: `requests` events of each reason in
/// its minute, and as many throttled requests of its key.
pub(super) fn throttled(
    throttles: &mut Throttles,
    micros: i64,
    key: &[u8],
    reasons: Option<&str>,
    requests: f64,
) {
    let minute = micros.div_euclid(60_000_000) * 60;
    if throttles.last_minute != Some(minute) {
        throttles.minutes.insert(minute);
        throttles.last_minute = Some(minute);
    }
    let Some(text) = reasons else {
        return;
    };
    let mut any = false;
    for part in text
        .split(['|', ';'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match part.parse::<ThrottleReason>() {
            Ok(r) => {
                let i = ReasonMetric::from(r).index();
                throttles.seen[i] = true;
                throttles.by_minute.entry(minute).or_insert([0.0; 8])[i] += requests;
                any = true;
            }
            Err(_) => throttles.unknown += 1,
        }
    }
    if any {
        *throttles
            .keys
            .entry(String::from_utf8_lossy(key).into_owned())
            .or_default() += requests;
    }
}

/// A JSON field of throttling reasons as text: a list of `{reason, resource}` (or of strings), or a string.
pub(super) fn reasons_text(v: Option<&Value>) -> Option<std::borrow::Cow<'_, str>> {
    match v? {
        Value::Array(list) => {
            let names: Vec<&str> = list
                .iter()
                .filter_map(|r| match r {
                    Value::String(s) => Some(s.as_str()),
                    r => r
                        .get("reason")
                        .or_else(|| r.get("Reason"))
                        .and_then(Value::as_str),
                })
                .collect();
            (!names.is_empty()).then(|| names.join("|").into())
        }
        v => text(Some(v)),
    }
}
