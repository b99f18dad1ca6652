//! CloudWatch metrics as the observed side of a replay (DYNAMODB-TRAFFIC "CloudWatch" \[AWS\]):
//! `aws cloudwatch get-metric-data` output (`MetricDataResults` [{`Id`, `Label`, `Timestamps`, `Values`}],
//! pages one after another, a result's `Id` going on from page to page) and `get-metric-statistics` output
//! (`Label`, `Datapoints` [{`Timestamp`, `Sum`, …}], in no order). Pages or outputs may also come in one JSON
//! array (what a script writes that dumps a paginator's pages, or one call per time window), and the results
//! may come alone (`--query MetricDataResults`: an array of {`Id`, `Label`, `Timestamps`, `Values`}); `Messages` may be
//! `null` or list what CloudWatch said (each said as an assumption).
//!
//! A series is told by its `Label` (else its `Id`), ignoring case and anything but letters and digits:
//! `ConsumedReadCapacityUnits`, `ConsumedWriteCapacityUnits`, `ReadThrottleEvents`, `WriteThrottleEvents`,
//! `ThrottledRequests`, and the eight throttle-reason metrics (`WriteKeyRangeThroughputThrottleEvents`,
//! `ReadProvisionedThroughputThrottleEvents`, …: [`ReasonMetric`](crate::model::capacity::ReasonMetric)) (a
//! label that holds one of them, like `orders ConsumedWriteCapacityUnits`, counts; the longest name held wins);
//! other metrics are not used, and a file none of whose series names one is refused with how to name them
//! (a query's `Label` is the user's, like Grafana's `label1`). A series' period is the spacing of its
//! timestamps (60 s when it has one); a datapoint is the sum over its period, spread evenly over the minutes
//! it covers (**\[ours\]**: a sum says nothing of how it was spread inside the period). The minutes go to
//! [`ObservedMinute`]s, merged across metrics and files; the consumed units are also replayed as the table's
//! demand where no per-key record covers them ([`add_other_traffic`]).
//!
//! **A point is counted once** (**\[ours\]**): a metric's datapoint at a time that the file gives again — on
//! a later page (a result first `PartialData`, then `Complete`, its timestamps overlapping), in another
//! result or another `get-metric-statistics` output of the same metric — is one datapoint, never added up.
//! Where the repeats' values differ, the one read last (the later page's) is kept: CloudWatch pages go
//! forward, and a `Complete` page's value supersedes what an earlier `PartialData` page had so far. How many
//! points repeated, and how many of them differed, is said as an assumption.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{
    Loading, Metric, ObservedMinute, ReadError, TraceCx, TraceFormat, TraceOptions, dim_index,
    for_each_json_value, micros_of_json_time, minutes_of,
};
use crate::model::trace::{Dim, MAX_TRACE_SECONDS, TraceError};
use crate::source::{At, Hint, Message};

/// Each metric's datapoints as read (Unix µs, value), in the order read, and the series (`Id` or `Label`)
/// that gave them.
#[derive(Default)]
struct Points {
    points: Vec<(i64, f64)>,
    names: Vec<String>,
    /// The last `StatusCode` a `get-metric-data` result of the metric said.
    status: Option<String>,
}

type Series = BTreeMap<usize, Points>;

/// Reads a CloudWatch file (see the module docs).
pub(super) fn read_metrics(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let mut series = Series::new();
    // Labels (or ids) that name no metric shardlens compares, in the order met.
    let mut unknown: Vec<String> = Vec::new();
    // Contributor Insights reports saved after the minutes (`shardlens metrics` saves both in one file).
    let mut reports = 0u64;
    let mut throttled = BTreeMap::new();
    // Pages (or outputs) one after another, or in one JSON array: each is an item, numbered in the file.
    let mut page = 0u64;
    for_each_json_value(cx, bytes, |cx, value, _| {
        let values = match value {
            Value::Array(values) => values,
            value => vec![value],
        };
        for value in values {
            page += 1;
            let at = At::Item {
                item: page,
                line: None,
            };
            if value.get("Contributors").is_some() && value.get("KeyLabels").is_some() {
                reports += 1;
                super::insights::read_report(cx, &value, at, &mut throttled)?;
            } else if let Some(results) = value.get("MetricDataResults") {
                let Some(results) = results.as_array() else {
                    cx.bad(at, "MetricDataResults is not a list")?;
                    continue;
                };
                cx.file.assume(
                    "get-metric-data values are taken as each period's Sum (the output does not name the \
                     statistic)",
                );
                said(cx, &value);
                for r in results {
                    said(cx, r);
                    metric_data(cx, r, at, &mut series, &mut unknown)?;
                }
            } else if value.get("Datapoints").is_some() {
                statistics(cx, &value, at, &mut series, &mut unknown)?;
            } else if value.get("Timestamps").is_some() && value.get("Values").is_some() {
                // One result alone (`get-metric-data --query MetricDataResults` prints them in an array).
                cx.file.assume(
                    "get-metric-data values are taken as each period's Sum (the output does not name the \
                     statistic)",
                );
                said(cx, &value);
                metric_data(cx, &value, at, &mut series, &mut unknown)?;
            } else {
                cx.bad(
                    at,
                    "not CloudWatch output: expected MetricDataResults (get-metric-data, or its results \
                     alone: Timestamps and Values) or Label and Datapoints (get-metric-statistics)",
                )?;
            }
        }
        Ok(())
    })?;
    super::insights::finish(cx, reports, throttled);
    if series.is_empty() && reports == 0 && !unknown.is_empty() {
        return Err(cx.fail(not_metrics(&unknown)));
    }
    for name in unknown {
        cx.file.assume(format!(
            "{name}: not used (shardlens compares {})",
            Metric::ALL.map(Metric::name).join(", ")
        ));
    }
    once_per_time(cx, &mut series);
    // Before anything is spread over the minutes between them: points a replay cannot span (a year typed
    // wrong) would otherwise make a period of years, and a minute of it for every minute of those years.
    if let Some(e) = too_long(&series) {
        return Err(cx.fail(e.to_string()));
    }
    let period = period_of(cx, &mut series);
    for (metric, points) in series {
        observe(cx, Metric::ALL[metric], points.points, period);
    }
    Ok(())
}

/// The error of a file none of whose series names a metric shardlens compares (`names`, at least one).
fn not_metrics(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut listed = names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        listed.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    format!(
        "{listed} {}; name each query's Label (or Id) after the metric it reads: {}",
        if names.len() == 1 {
            "is not a DynamoDB metric name"
        } else {
            "are not DynamoDB metric names"
        },
        Metric::ALL.map(Metric::name).join(", ")
    )
}

/// What CloudWatch said beside the values (`Messages`: `null`, or [{`Code`, `Value`}]), as assumptions.
fn said(cx: &mut TraceCx<'_>, value: &Value) {
    let Some(messages) = value.get("Messages").and_then(Value::as_array) else {
        return;
    };
    for m in messages {
        let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default();
        let (code, what) = (text("Code"), text("Value"));
        if !code.is_empty() || !what.is_empty() {
            cx.file.assume(format!(
                "CloudWatch said {}",
                [code, what]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(": ")
            ));
        }
    }
}

/// Each metric's points sorted by time, a time given more than once kept once: the value read last (the
/// module docs' rule). Says how many repeated, how many with another value, and a metric given by several
/// series, or whose last result was not `Complete`.
fn once_per_time(cx: &mut TraceCx<'_>, series: &mut Series) {
    for (&metric, s) in series.iter_mut() {
        let name = Metric::ALL[metric].name();
        // Stable: a time's repeats stay in the order read, the last one read last.
        s.points.sort_by_key(|p| p.0);
        let (mut repeated, mut differed) = (0u64, 0u64);
        let mut kept: Vec<(i64, f64)> = Vec::with_capacity(s.points.len());
        for &(t, v) in &s.points {
            match kept.last_mut() {
                Some(last) if last.0 == t => {
                    repeated += 1;
                    if last.1 != v {
                        differed += 1;
                    }
                    last.1 = v;
                }
                _ => kept.push((t, v)),
            }
        }
        s.points = kept;
        // `saw` counted every point read: a repeat is not another record.
        cx.file.records = cx.file.records.saturating_sub(repeated);
        if repeated > 0 {
            cx.file.assume(format!(
                "{name}: {repeated} datapoint{} given again for a time already read (on a later page or in \
                 another result), each counted once{} [ours]",
                if repeated == 1 { "" } else { "s" },
                if differed > 0 {
                    format!(", the later page's value kept ({differed} with another value)")
                } else {
                    String::new()
                }
            ));
        }
        if s.names.len() > 1 {
            cx.file.assume(format!(
                "{name} is given by {} series ({}): read as one, a time both give counted once",
                s.names.len(),
                s.names.join(", ")
            ));
        }
        if let Some(status) = s.status.as_deref().filter(|st| *st != "Complete") {
            cx.file.assume(format!(
                "{name}: the last result says StatusCode {status}: CloudWatch may hold datapoints the file \
                 does not (the next page, from its NextToken)"
            ));
        }
    }
}

/// The error of series whose points span [`MAX_TRACE_SECONDS`] or more (the replay's limit, which the trace
/// would meet when built).
fn too_long(series: &Series) -> Option<TraceError> {
    let times = series.values().flat_map(|s| s.points.iter().map(|p| p.0));
    let (first, last) = times.fold(None, |span: Option<(i64, i64)>, t| {
        Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))))
    })?;
    let (first, last) = (first.div_euclid(1_000_000), last.div_euclid(1_000_000));
    let seconds = last.saturating_sub(first);
    (seconds >= i64::from(MAX_TRACE_SECONDS)).then_some(TraceError::TooLong {
        first,
        last,
        seconds,
    })
}

/// The file's period: the greatest common divisor of the spacings of every series' timestamps (sorted here),
/// in seconds; 60 when no series has two (**\[ours\]**: CloudWatch leaves out periods without data, as
/// DynamoDB's throttle metrics often are, so the smallest spacing may be several periods).
fn period_of(cx: &mut TraceCx<'_>, series: &mut Series) -> u32 {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let mut period = 0;
    for s in series.values_mut() {
        s.points.sort_by_key(|p| p.0);
        for w in s.points.windows(2) {
            let d = (w[1].0 - w[0].0) / 1_000_000;
            if d > 0 {
                period = gcd(period, d);
            }
        }
    }
    if period == 0 {
        if !series.is_empty() {
            cx.file
                .assume("one datapoint per series: taken as one minute's");
        }
        return 60;
    }
    let period = u32::try_from(period).unwrap_or(u32::MAX);
    if period != 60 {
        cx.file.assume(format!(
            "{period}-second periods (the spacing of the timestamps), spread evenly over their minutes [ours]"
        ));
    }
    period
}

/// The metric a label (or an id) names.
fn metric_of(name: &str) -> Option<Metric> {
    let plain: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    // The longest name held wins: a label is read as the most specific metric it names.
    Metric::ALL
        .into_iter()
        .filter(|m| plain.contains(&m.name().to_ascii_lowercase()))
        .max_by_key(|m| m.name().len())
}

/// The metric of a series by its `Label`, else its `Id`; an unknown one goes to `unknown` and is `None`.
fn series_metric(
    label: Option<&str>,
    id: Option<&str>,
    unknown: &mut Vec<String>,
) -> Option<Metric> {
    let metric = label.and_then(metric_of).or_else(|| id.and_then(metric_of));
    if metric.is_none() {
        let name = label
            .or(id)
            .unwrap_or("a series without a label")
            .to_owned();
        if !unknown.contains(&name) {
            unknown.push(name);
        }
    }
    metric
}

/// The points of `metric` given by the series `name`.
fn points_of<'s>(series: &'s mut Series, metric: Metric, name: &str) -> &'s mut Points {
    let s = series.entry(metric.index()).or_default();
    if !s.names.iter().any(|n| n == name) {
        s.names.push(name.to_owned());
    }
    s
}

/// One `MetricDataResults` entry.
fn metric_data(
    cx: &mut TraceCx<'_>,
    r: &Value,
    at: At,
    series: &mut Series,
    unknown: &mut Vec<String>,
) -> Result<(), ReadError> {
    let label = r.get("Label").and_then(Value::as_str);
    let id = r.get("Id").and_then(Value::as_str);
    let Some(metric) = series_metric(label, id, unknown) else {
        return Ok(());
    };
    let name = id.or(label).unwrap_or_default().to_owned();
    let (Some(times), Some(values)) = (
        r.get("Timestamps").and_then(Value::as_array),
        r.get("Values").and_then(Value::as_array),
    ) else {
        return Ok(cx.bad(at, format!("{name}: Timestamps and Values are not lists"))?);
    };
    if times.len() != values.len() {
        return Ok(cx.bad(
            at,
            format!(
                "{name}: {} Timestamps but {} Values",
                times.len(),
                values.len()
            ),
        )?);
    }
    let out = points_of(series, metric, &name);
    if let Some(status) = r.get("StatusCode").and_then(Value::as_str) {
        out.status = Some(status.to_owned());
    }
    for (t, v) in times.iter().zip(values) {
        match (micros_of_json_time(t), v.as_f64()) {
            (Some((micros, _)), Some(v)) => {
                cx.file.saw(micros);
                out.points.push((micros, v));
            }
            (None, _) => cx.bad(at, format!("{name}: {t} is not a time"))?,
            (_, None) => cx.bad(at, format!("{name}: {v} is not a number"))?,
        }
    }
    Ok(())
}

/// One `get-metric-statistics` output: its `Datapoints`' `Sum`s.
fn statistics(
    cx: &mut TraceCx<'_>,
    value: &Value,
    at: At,
    series: &mut Series,
    unknown: &mut Vec<String>,
) -> Result<(), ReadError> {
    let label = value.get("Label").and_then(Value::as_str);
    let Some(metric) = series_metric(label, None, unknown) else {
        return Ok(());
    };
    let Some(points) = value.get("Datapoints").and_then(Value::as_array) else {
        return Ok(cx.bad(at, "Datapoints is not a list")?);
    };
    let out = points_of(series, metric, label.unwrap_or_default());
    for p in points {
        let time = p.get("Timestamp").and_then(micros_of_json_time);
        match (time, p.get("Sum").and_then(Value::as_f64)) {
            (Some((micros, _)), Some(sum)) => {
                cx.file.saw(micros);
                out.points.push((micros, sum));
            }
            (None, _) => cx.bad(at, "a datapoint's Timestamp is missing or not a time")?,
            (_, None) => cx.bad(
                at,
                "a datapoint has no Sum: ask CloudWatch for the Sum statistic (the units or events of each \
                 period)",
            )?,
        }
    }
    Ok(())
}

/// A series' datapoints as minutes of `cx.observed`: each spread over the minutes its period covers.
fn observe(cx: &mut TraceCx<'_>, metric: Metric, points: Vec<(i64, f64)>, period: u32) {
    let mut minutes: BTreeMap<i64, f64> = BTreeMap::new();
    for (micros, v) in points {
        for (minute, share) in minutes_of(micros.div_euclid(1_000_000), period) {
            *minutes.entry(minute).or_default() += v * share;
        }
    }
    if matches!(metric, Metric::ConsumedRead | Metric::ConsumedWrite) {
        cx.file.assume(
            "consumed units are what was served: the demand was higher by the throttled requests, which the \
             replay does not add",
        );
    }
    let mut twice = false;
    for (minute, v) in minutes {
        let m = cx.observed.entry(minute).or_insert_with(|| ObservedMinute {
            minute,
            ..ObservedMinute::default()
        });
        let field = m.field(metric);
        twice |= field.is_some();
        *field = Some(v);
    }
    if twice {
        cx.file.assume(format!(
            "{}: given more than once for some minutes, the last read kept",
            metric.name()
        ));
    }
}

/// How many synthetic keys carry the traffic CloudWatch saw beyond the per-key records: `other#0` …
/// `other#999` (**\[ours\]**: enough keys that none is hot, few enough to stay cheap).
pub const OTHER_KEYS: usize = 1_000;

/// The most entries the synthetic traffic may add to the trace (16 bytes each): 16 M, 256 MB.
const OTHER_ENTRIES: usize = 16 << 20;

/// CloudWatch's consumed units that no per-key record covers, per minute, replayed on [`OTHER_KEYS`] keys
/// spread evenly over the minute (**\[ours\]**: a per-minute sum says nothing of the keys or the seconds).
/// Each key takes an equal part of every second; when that would take more than [`OTHER_ENTRIES`] entries,
/// each second carries every `g`-th key in hash order (a divisor `g` of 60, the keys taking turns), so that
/// every partition's range still holds its part of each second's traffic.
pub(super) fn add_other_traffic(st: &mut Loading, opts: &TraceOptions) -> Result<(), TraceError> {
    use crate::model::fmt::grouped;
    let mut extra: Vec<(i64, Dim, f64)> = Vec::new();
    for (&minute, m) in &st.observed {
        let covered = st.covered.get(&minute).copied().unwrap_or_default();
        for (dim, consumed) in [
            (Dim::Read, m.consumed_read_units),
            (Dim::Write, m.consumed_write_units),
        ] {
            let left = consumed.unwrap_or(0.0) - covered[dim_index(dim)];
            if left > 1e-9 {
                extra.push((minute, dim, left));
            }
        }
    }
    if extra.is_empty() {
        return Ok(());
    }
    let needed = extra.len() * OTHER_KEYS * 60;
    let turns = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60]
        .into_iter()
        .find(|g| needed / g <= OTHER_ENTRIES)
        .unwrap_or(60);
    let mut keys: Vec<(u64, String)> = (0..OTHER_KEYS)
        .map(|i| {
            let name = format!("other#{i}");
            (crate::model::partition::key_hash(name.as_bytes()), name)
        })
        .collect();
    keys.sort();
    let groups: Vec<Vec<&str>> = (0..turns)
        .map(|g| {
            keys.iter()
                .skip(g)
                .step_by(turns)
                .map(|(_, n)| n.as_str())
                .collect()
        })
        .collect();
    let per_request = [
        opts.item_size.div_ceil(4096).max(1) as f64,
        opts.item_size.div_ceil(1024).max(1) as f64,
    ];
    for &(minute, dim, units) in &extra {
        for s in 0..60 {
            let group = &groups[s as usize % turns];
            let each = units / 60.0 / group.len() as f64;
            let requests = each / per_request[dim_index(dim)];
            for name in group {
                st.builder
                    .spread(minute + s, 1, name.as_bytes(), dim, each, requests)?;
            }
        }
    }
    let total: f64 = extra.iter().map(|e| e.2).sum();
    let minutes: std::collections::BTreeSet<i64> = extra.iter().map(|e| e.0).collect();
    let mut said = Message::new(format!(
        "CloudWatch's consumed units beyond the per-key records' ({} units in {} minutes) are replayed on \
         {} keys other#0 … other#{}, spread evenly over each minute{} [ours]; their requests are the units \
         divided by one request's units (",
        grouped(total.round() as u64),
        grouped(minutes.len() as u64),
        grouped(OTHER_KEYS as u64),
        OTHER_KEYS - 1,
        if turns > 1 {
            format!(
                " (each second carries one key in {turns}, taking turns in hash order, to bound memory)"
            )
        } else {
            String::new()
        },
    ));
    said.push_hint(Hint::ItemSize);
    said.push_str(&request_units(opts.item_size, per_request));
    for f in &mut st.files {
        if f.format == Some(TraceFormat::Metrics) {
            f.assume(said.clone());
        }
    }
    Ok(())
}

/// " 1,024 bytes: 1 read unit per read, 1 write unit per write)": the item size and one request's units.
fn request_units(item_size: u64, per_request: [f64; 2]) -> String {
    use crate::model::fmt::{grouped, plural};
    format!(
        " {} bytes: {} per read, {} per write)",
        grouped(item_size),
        plural(per_request[0] as u64, "read unit"),
        plural(per_request[1] as u64, "write unit"),
    )
}

#[cfg(test)]
mod tests {
    use crate::source::OnBad;
    use crate::source::trace::{TraceFormat, TraceLoad, TraceOptions, load_traces};

    /// A year typed wrong (found by the `trace` fuzz target): the points' spacing made a period of a thousand
    /// years, and a minute of it for each of its minutes (2 GB and a hang). It is the replay's limit, said at once.
    #[test]
    fn points_a_replay_cannot_span_are_said_before_anything_is_spread() {
        let text = r#"{"MetricDataResults":[{"Id":"w","Label":"ConsumedWriteCapacityUnits",
            "Timestamps":["1013-06-23T10:01:00Z","2026-06-23T10:00:00Z"],"Values":[600.0,300.0]}]}"#;
        for on_bad in [OnBad::Stop, OnBad::Skip] {
            let e = load(
                &[("typo.json", text)],
                &TraceOptions {
                    on_bad,
                    ..TraceOptions::default()
                },
            )
            .unwrap_err();
            assert!(
                e.contains(
                    "the trace spans 369,991 days (1013-06-23T10:01:00Z to 2026-06-23T10:00:00Z)"
                ),
                "{e}"
            );
        }
    }

    fn load(files: &[(&str, &str)], opts: &TraceOptions) -> Result<TraceLoad, String> {
        let dir = std::env::temp_dir().join(format!(
            "shardlens-metrics-{}-{}",
            std::process::id(),
            crate::model::partition::key_hash(files[0].1.as_bytes())
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let paths: Vec<_> = files
            .iter()
            .map(|(name, text)| {
                let p = dir.join(name);
                std::fs::write(&p, text).unwrap();
                p
            })
            .collect();
        let out = load_traces(&paths, opts).map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        out
    }

    // Two pages of get-metric-data (newest first), 10:00–10:02, and a get-metric-statistics file.
    const DATA: &str = r#"{"MetricDataResults":[
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","Timestamps":["2026-06-23T10:02:00+00:00","2026-06-23T10:01:00+00:00"],"Values":[600.0,1200.0],"StatusCode":"PartialData"},
  {"Id":"wte","Label":"WriteThrottleEvents","Timestamps":["2026-06-23T10:01:00+00:00"],"Values":[4.0],"StatusCode":"PartialData"}
 ],"Messages":[],"NextToken":"t"}
{"MetricDataResults":[
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","Timestamps":["2026-06-23T10:00:00+00:00"],"Values":[60.0],"StatusCode":"Complete"},
  {"Id":"pwcu","Label":"ProvisionedWriteCapacityUnits","Timestamps":["2026-06-23T10:00:00+00:00"],"Values":[10.0],"StatusCode":"Complete"}
 ],"Messages":[]}"#;
    const STATS: &str = r#"{"Label":"ReadThrottleEvents","Datapoints":[
  {"Timestamp":"2026-06-23T10:02:00Z","Sum":2.0,"Unit":"Count"},
  {"Timestamp":"2026-06-23T10:00:00Z","Sum":1.0,"Unit":"Count"}]}
{"Label":"WriteThrottleEvents","Datapoints":[{"Timestamp":"2026-06-23T10:02:00Z","Sum":3.0},
  {"Timestamp":"2026-06-23T10:01:00Z","Sum":4.0}]}"#;

    #[test]
    fn pages_and_statistics_merge_into_minutes_and_consumed_units_are_replayed() {
        let t = load(
            &[("data.json", DATA), ("stats.json", STATS)],
            &TraceOptions::default(),
        )
        .unwrap();
        assert_eq!(t.files[0].format, Some(TraceFormat::Metrics));
        assert_eq!(t.files[0].records, 4);
        let minutes: Vec<i64> = t
            .observed
            .iter()
            .map(|m| m.minute - 1_782_208_800)
            .collect();
        assert_eq!(minutes, [0, 60, 120]);
        let w: Vec<_> = t.observed.iter().map(|m| m.consumed_write_units).collect();
        assert_eq!(w, [Some(60.0), Some(1200.0), Some(600.0)]);
        assert_eq!(t.observed[1].write_throttle_events, Some(4.0));
        assert_eq!(t.observed[2].read_throttle_events, Some(2.0));
        // Throttle events only in the minutes that had some: the period is the spacings' divisor.
        assert_eq!(t.observed[1].read_throttle_events, None);
        assert_eq!(t.observed[2].write_throttle_events, Some(3.0));
        assert!(
            t.files[1]
                .assumed
                .iter()
                .any(|a| a.contains("given more than once"))
        );
        // No per-key records: the consumed units are the other keys' traffic, evenly over each minute.
        assert_eq!(t.trace.start, 1_782_208_800);
        assert_eq!(t.trace.duration, 180);
        assert!((t.trace.units()[1] - 1860.0).abs() < 1e-6);
        assert_eq!(t.trace.keys.len(), 1000);
        let second_90: f32 = t.trace.at(90).iter().map(|e| e.units).sum();
        assert!((second_90 - 20.0).abs() < 1e-3, "{second_90}");
        let said: Vec<String> = t.files[0].assumed.iter().map(ToString::to_string).collect();
        assert!(
            said.iter()
                .any(|a| a.contains("ProvisionedWriteCapacityUnits: not used")),
            "{said:?}"
        );
        assert!(
            said.iter().any(|a| a.contains("other#0 … other#999")),
            "{said:?}"
        );
        // The stand-in keys' requests, said in whole words on the command line and in the window.
        let other = t.files[0]
            .assumed
            .iter()
            .find(|a| a.to_string().contains("other#0"))
            .unwrap();
        let in_window = other.in_words(|_| "the item size");
        assert!(
            in_window.contains(
                "their requests are the units divided by one request's units (the item size 1,024 bytes: \
                 1 read unit per read, 1 write unit per write)"
            ),
            "{in_window}"
        );
        assert!(
            other
                .to_string()
                .contains("units (--item-size 1,024 bytes: 1 read unit per read"),
            "{other}"
        );
        assert!(
            said.iter()
                .any(|a| a.contains("higher by the throttled requests")),
            "{said:?}"
        );
    }

    #[test]
    fn five_minute_periods_are_spread_per_minute() {
        let text = r#"{"Label":"ConsumedReadCapacityUnits","Datapoints":[
  {"Timestamp":"2026-06-23T10:05:00Z","Sum":3000.0},{"Timestamp":"2026-06-23T10:00:00Z","Sum":1500.0}]}"#;
        let t = load(&[("five.json", text)], &TraceOptions::default()).unwrap();
        assert_eq!(t.observed.len(), 10);
        assert!(
            t.observed[..5]
                .iter()
                .all(|m| m.consumed_read_units == Some(300.0))
        );
        assert!(
            t.observed[5..]
                .iter()
                .all(|m| m.consumed_read_units == Some(600.0))
        );
        assert!((t.trace.units()[0] - 4500.0).abs() < 1e-6);
        assert!(
            t.files[0]
                .assumed
                .iter()
                .any(|a| a.contains("300-second periods"))
        );
    }

    #[test]
    fn per_key_records_cover_their_part_of_the_consumed_units() {
        // 30 writes of 1 unit in minute 10:00; CloudWatch saw 90: 60 go to the other keys.
        let mut log = String::from("time,pk\n");
        for i in 0..30 {
            log.push_str(&format!("{},hot\n", 1_782_208_800 + i));
        }
        let cw = r#"{"Label":"ConsumedWriteCapacityUnits","Datapoints":[{"Timestamp":"2026-06-23T10:00:00Z","Sum":90.0}]}"#;
        let t = load(
            &[("log.csv", &log), ("cw.json", cw)],
            &TraceOptions::default(),
        )
        .unwrap();
        assert!((t.trace.units()[1] - 90.0).abs() < 1e-6);
        let hot = t.trace.keys.iter().find(|k| k.name == "hot").unwrap();
        assert_eq!(hot.units[1], 30.0);
    }

    #[test]
    fn pages_in_an_array_are_read_and_a_point_given_again_counts_once_the_later_kept() {
        // Page 1 says 10:01 PartialData (100), page 2 Complete (120), overlapping at 10:01; the throttle
        // events of 10:01 come on both pages and in a second result of the same metric.
        let text = r#"[{"MetricDataResults":[
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","StatusCode":"PartialData","Messages":null,
   "Timestamps":["2026-06-23T10:00:00Z","2026-06-23T10:01:00Z"],"Values":[60.0,100.0]},
  {"Id":"wte","Label":"WriteThrottleEvents","StatusCode":"PartialData","Messages":null,
   "Timestamps":["2026-06-23T10:01:00Z"],"Values":[4.0]}],"NextToken":"n","Messages":null},
 {"MetricDataResults":[
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","StatusCode":"Complete","Messages":null,
   "Timestamps":["2026-06-23T10:01:00Z","2026-06-23T10:02:00Z"],"Values":[120.0,60.0]},
  {"Id":"wte","Label":"WriteThrottleEvents","StatusCode":"Complete","Messages":null,
   "Timestamps":["2026-06-23T10:01:00Z"],"Values":[4.0]},
  {"Id":"wte2","Label":"WriteThrottleEvents","StatusCode":"Complete",
   "Messages":[{"Code":"MaxMetricsExceeded","Value":"some metrics were left out"}],
   "Timestamps":["2026-06-23T10:01:00Z"],"Values":[4.0]}],"NextToken":null,"Messages":null}]"#;
        let t = load(&[("pages.json", text)], &TraceOptions::default()).unwrap();
        let w: Vec<_> = t.observed.iter().map(|m| m.consumed_write_units).collect();
        assert_eq!(w, [Some(60.0), Some(120.0), Some(60.0)]);
        assert_eq!(t.observed[1].write_throttle_events, Some(4.0));
        // Six points read, three of them repeats: three datapoints of consumed units and one of throttles.
        assert_eq!(t.files[0].records, 4);
        assert!((t.trace.units()[1] - 240.0).abs() < 1e-6);
        let said: Vec<String> = t.files[0].assumed.iter().map(ToString::to_string).collect();
        let has = |s: &str| said.iter().any(|a| a.contains(s));
        assert!(
            has(
                "ConsumedWriteCapacityUnits: 1 datapoint given again for a time already read (on a later page or in another result), each counted once, the later page's value kept (1 with another value)"
            ),
            "{said:?}"
        );
        assert!(
            has("WriteThrottleEvents: 2 datapoints given again"),
            "{said:?}"
        );
        assert!(
            has("WriteThrottleEvents is given by 2 series (wte, wte2)"),
            "{said:?}"
        );
        assert!(
            has("CloudWatch said MaxMetricsExceeded: some metrics were left out"),
            "{said:?}"
        );
        assert!(!has("StatusCode"), "{said:?}");
    }

    #[test]
    fn pages_one_after_another_that_repeat_a_point_count_it_once() {
        // JSON lines of pages (`aws … --output json` per page): 10:01 on both, PartialData then Complete.
        let text = r#"{"MetricDataResults":[{"Id":"c","Label":"ConsumedReadCapacityUnits","StatusCode":"PartialData","Timestamps":["2026-06-23T10:00:00Z","2026-06-23T10:01:00Z"],"Values":[60.0,30.0]}],"NextToken":"n","Messages":[]}
{"MetricDataResults":[{"Id":"c","Label":"ConsumedReadCapacityUnits","StatusCode":"Complete","Timestamps":["2026-06-23T10:01:00Z"],"Values":[90.0]}],"Messages":null}"#;
        let t = load(&[("lines.json", text)], &TraceOptions::default()).unwrap();
        let r: Vec<_> = t.observed.iter().map(|m| m.consumed_read_units).collect();
        assert_eq!(r, [Some(60.0), Some(90.0)]);
        assert!((t.trace.units()[0] - 150.0).abs() < 1e-6);
    }

    #[test]
    fn throttle_events_alone_are_said_to_hold_nothing_to_replay() {
        let text = r#"[{"MetricDataResults":[{"Id":"w","Label":"WriteThrottleEvents","StatusCode":"Complete",
  "Timestamps":["2026-06-23T10:00:00Z"],"Values":[3.0]}],"Messages":null}]"#;
        let e = load(&[("throttles.json", text)], &TraceOptions::default()).unwrap_err();
        assert!(
            e.contains("CloudWatch's minutes hold no consumed units to replay")
                && e.contains("throttles.json"),
            "{e}"
        );
        assert!(!e.contains("no records with a time"), "{e}");
    }

    #[test]
    fn results_alone_are_read() {
        // `aws cloudwatch get-metric-data … --query MetricDataResults`.
        let text = r#"[{"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","StatusCode":"Complete",
  "Timestamps":["2026-06-23T10:01:00Z","2026-06-23T10:00:00Z"],"Values":[120.0,60.0]}]"#;
        let t = load(&[("results.json", text)], &TraceOptions::default()).unwrap();
        assert_eq!(t.files[0].format, Some(TraceFormat::Metrics));
        let w: Vec<_> = t.observed.iter().map(|m| m.consumed_write_units).collect();
        assert_eq!(w, [Some(60.0), Some(120.0)]);
    }

    #[test]
    fn a_last_page_that_is_not_complete_is_said() {
        let text = r#"{"MetricDataResults":[{"Id":"r","Label":"ConsumedReadCapacityUnits","StatusCode":"PartialData",
  "Timestamps":["2026-06-23T10:00:00Z"],"Values":[1.0]}],"NextToken":"more","Messages":null}"#;
        let t = load(&[("partial.json", text)], &TraceOptions::default()).unwrap();
        assert_eq!(t.observed[0].consumed_read_units, Some(1.0));
        assert!(
            t.files[0].assumed.iter().any(|a| a.contains(
                "ConsumedReadCapacityUnits: the last result says StatusCode PartialData"
            )),
            "{:?}",
            t.files[0].assumed
        );
    }

    #[test]
    fn series_that_name_no_metric_are_refused_with_how_to_name_them() {
        let text = r#"[{"Messages":null,"MetricDataResults":[{"Id":"a","Label":"label1","Messages":null,
  "StatusCode":"Complete","Timestamps":["2026-06-23T10:00:00Z"],"Values":[1.0]}],"NextToken":null}]"#;
        for on_bad in [OnBad::Stop, OnBad::Skip] {
            let opts = TraceOptions {
                on_bad,
                ..TraceOptions::default()
            };
            let e = load(&[("grafana.json", text)], &opts).unwrap_err();
            assert!(
                e.contains(
                    "label1 is not a DynamoDB metric name; name each query's Label (or Id) after the metric it \
                     reads: ConsumedReadCapacityUnits, ConsumedWriteCapacityUnits, ReadThrottleEvents, \
                     WriteThrottleEvents, ThrottledRequests"
                ),
                "{e}"
            );
        }
        // Beside a series that names one, the others are only not used.
        let text = text.replace(
            r#"}],"NextToken""#,
            r#"},{"Id":"w","Label":"ConsumedWriteCapacityUnits","Timestamps":["2026-06-23T10:00:00Z"],"Values":[1.0]}],"NextToken""#,
        );
        let t = load(&[("grafana.json", &text)], &TraceOptions::default()).unwrap();
        assert_eq!(t.observed[0].consumed_write_units, Some(1.0));
        assert!(
            t.files[0]
                .assumed
                .iter()
                .any(|a| a.contains("label1: not used")),
            "{:?}",
            t.files[0].assumed
        );
    }

    #[test]
    fn a_datapoint_without_a_sum_is_bad() {
        let text = r#"{"Label":"WriteThrottleEvents","Datapoints":[{"Timestamp":"2026-06-23T10:00:00Z","Average":1.0}]}"#;
        let e = load(&[("avg.json", text)], &TraceOptions::default()).unwrap_err();
        assert!(e.contains("item 1: a datapoint has no Sum"), "{e}");
        let skip = TraceOptions {
            on_bad: OnBad::Skip,
            ..TraceOptions::default()
        };
        let e = load(&[("avg.json", text)], &skip).unwrap_err();
        assert!(e.contains("no records with a time"), "{e}");
    }
}
