//! Contributor Insights for DynamoDB reports as a trace (DYNAMODB-TRAFFIC "Contributor Insights" \[AWS\]):
//! `aws cloudwatch get-insight-rule-report` output, `KeyLabels`, `Contributors` [{`Keys`,
//! `ApproximateAggregateValue`, `Datapoints` [{`Timestamp`, `ApproximateValue`}]}], `MetricDatapoints`;
//! several reports one after another in one file.
//!
//! A rule named `…-PKC-…` or `…-SKC-…` (the most accessed keys) counts requests, reads and writes together
//! \[AWS: the accessed-keys mode "emits metrics for all read and write requests"\]: `--counts-are` says which
//! they are, and each datapoint's count is spread evenly over its period (**\[ours\]**), of `--item-size`
//! units a request. A rule named `…-PKT-…` or `…-SKT-…` counts throttled requests: observed throttling per
//! key, kept as the file's [`TraceFile::throttled_keys`](super::TraceFile::throttled_keys), not traffic. The
//! rule's name is the report's `RuleName` when the file holds it (the command's output does not); without
//! it, the counts are taken as accesses. A report lists only the top contributors.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::KeyType;
use crate::model::key::canonical_partition_key;
use crate::model::trace::Dim;

use super::{ReadError, TraceCx, for_each_json_value, micros_of_json_time};
use crate::source::{At, Hint, Message};

/// One period of a throttled-keys rule's report: the keys it lists as throttled then, most first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ThrottledPeriod {
    /// Its start, Unix seconds.
    pub start: i64,
    /// Its length in seconds (the report's period).
    pub seconds: u32,
    /// Each key's throttled requests in the period, most first.
    pub keys: Vec<(String, f64)>,
}

impl ThrottledPeriod {
    /// Whether the period holds Unix second `t`.
    pub fn holds(&self, t: i64) -> bool {
        t >= self.start && t < self.start + i64::from(self.seconds.max(1))
    }
}

/// What a rule counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counts {
    Accesses,
    Throttles,
}

/// What a rule's name says it counts (`None` when it says neither).
fn counts_of(rule: &str) -> Option<Counts> {
    let upper = rule.to_ascii_uppercase();
    if upper.contains("-PKT-") || upper.contains("-SKT-") {
        Some(Counts::Throttles)
    } else if upper.contains("-PKC-") || upper.contains("-SKC-") {
        Some(Counts::Accesses)
    } else {
        None
    }
}

/// Reads a Contributor Insights file (see the module docs).
pub(super) fn read_insights(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let mut throttled: BTreeMap<String, f64> = BTreeMap::new();
    let n = for_each_json_value(cx, bytes, |cx, report, at| {
        read_report(cx, &report, at, &mut throttled)
    })?;
    finish(cx, n, throttled);
    Ok(())
}

/// One report (a `get-insight-rule-report` output); its throttled keys are added to `throttled`.
pub(super) fn read_report(
    cx: &mut TraceCx<'_>,
    report: &Value,
    at: At,
    throttled: &mut BTreeMap<String, f64>,
) -> Result<(), ReadError> {
    {
        let Some(contributors) = report.get("Contributors").and_then(Value::as_array) else {
            cx.bad(
                at,
                "not a get-insight-rule-report output: it has no Contributors list",
            )?;
            return Ok(());
        };
        let counts = counts_of_report(cx, report);
        let period = period_of(cx, report);
        let dim = match counts {
            Counts::Throttles => None,
            Counts::Accesses => Some(match saved_counts_are(cx, report) {
                Some(dim) => dim,
                None => dim_of(cx)?,
            }),
        };
        if report
            .get("KeyLabels")
            .and_then(Value::as_array)
            .map(Vec::len)
            == Some(2)
        {
            cx.file.assume(
                "sort-key contributors are added up per partition key: how the items spread is not known",
            );
        }
        for (i, c) in contributors.iter().enumerate() {
            contributor(cx, c, dim, period, at, i, throttled)?;
        }
        let aggregation = report.get("AggregationStatistic").and_then(Value::as_str);
        if aggregation.is_some_and(|a| !a.eq_ignore_ascii_case("sum")) {
            cx.file.assume(format!(
                "AggregationStatistic {}: the values are taken as counts all the same",
                aggregation.unwrap_or_default()
            ));
        }
        Ok(())
    }
}

/// After the reports: the note on what they leave out, and the throttled keys, most first.
pub(super) fn finish(cx: &mut TraceCx<'_>, n: u64, throttled: BTreeMap<String, f64>) {
    if n > 0 {
        cx.file.assume(
            "a report lists only the top contributors: the rest of the table's traffic is not in it (give \
             CloudWatch metrics too to replay it as other keys)",
        );
    }
    let mut list: Vec<(String, f64)> = throttled.into_iter().collect();
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    cx.file.throttled_keys.extend(list);
    let periods = &mut cx.file.throttled_periods;
    periods.sort_by_key(|p| p.start);
    for p in periods {
        p.keys
            .sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    }
}

/// What a report's rule counts, by its `RuleName` (accesses when the file lacks it or it says neither).
fn counts_of_report(cx: &mut TraceCx<'_>, report: &Value) -> Counts {
    let rule = report.get("RuleName").and_then(Value::as_str);
    match rule.map(|r| (r, counts_of(r))) {
        Some((_, Some(c))) => c,
        Some((r, None)) => {
            cx.file.assume(format!(
                "rule {r}: its name says neither -PKC-/-SKC- nor -PKT-/-SKT-, so its counts are taken as \
                 accesses"
            ));
            Counts::Accesses
        }
        None => {
            cx.file.assume(
                "no RuleName: the counts are taken as accesses (a -PKT-/-SKT- rule's are throttled \
                 requests)",
            );
            Counts::Accesses
        }
    }
}

/// What the counts are as `shardlens metrics` saved them (`CountsAre`: `reads` or `writes`, its own field beside
/// the report's), unless the option names them.
fn saved_counts_are(cx: &mut TraceCx<'_>, report: &Value) -> Option<Dim> {
    if cx.opts.counts_are.is_some() {
        return None;
    }
    let dim = match report.get("CountsAre").and_then(Value::as_str)? {
        "reads" => Dim::Read,
        "writes" => Dim::Write,
        _ => return None,
    };
    cx.file.assume(Message::hinted(
        format!(
            "the counts are taken as {}, as shardlens saved the report (the larger side of the consumed units; ",
            if dim == Dim::Read { "reads" } else { "writes" }
        ),
        Hint::CountsAre,
        " to choose)",
    ));
    Some(dim)
}

/// Reads or writes, as `--counts-are` says: the rule counts both together, so without it, the file's error.
fn dim_of(cx: &mut TraceCx<'_>) -> Result<Dim, ReadError> {
    let Some(dim) = cx.opts.counts_are else {
        return Err(cx.fail(Message::hinted(
            "a Contributor Insights rule counts reads and writes together and does not say which these are: ",
            Hint::CountsAre,
            "",
        )));
    };
    let mut m = Message::new(format!(
        "the counts are {}, each a request of ",
        if dim == Dim::Read { "reads" } else { "writes" }
    ));
    m.push_hint(Hint::ItemSize);
    m.push_str(&format!(
        " {} bytes, spread evenly over its period [ours]",
        crate::model::fmt::grouped(cx.opts.item_size)
    ));
    cx.file.assume(m);
    Ok(dim)
}

/// The report's period: the greatest common divisor of the spacings of its timestamps, 60 s without two.
fn period_of(cx: &mut TraceCx<'_>, report: &Value) -> u32 {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    let mut times: Vec<i64> = report
        .get("MetricDatapoints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(
            report
                .get("Contributors")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("Datapoints").and_then(Value::as_array))
                .flatten(),
        )
        .filter_map(|d| d.get("Timestamp").and_then(micros_of_json_time))
        .map(|(m, _)| m.div_euclid(1_000_000))
        .collect();
    times.sort_unstable();
    times.dedup();
    let period = times.windows(2).fold(0, |g, w| gcd(g, w[1] - w[0]));
    if period <= 0 {
        cx.file
            .assume("a report with one period: taken as one minute");
        return 60;
    }
    let period = u32::try_from(period).unwrap_or(u32::MAX);
    if period != 60 {
        cx.file.assume(format!(
            "{period}-second periods (the spacing of the timestamps)"
        ));
    }
    period
}

/// One contributor: its datapoints as traffic (`dim`) or as throttled requests (`None`).
fn contributor(
    cx: &mut TraceCx<'_>,
    c: &Value,
    dim: Option<Dim>,
    period: u32,
    at: At,
    i: usize,
    throttled: &mut BTreeMap<String, f64>,
) -> Result<(), ReadError> {
    let key = c
        .get("Keys")
        .and_then(Value::as_array)
        .and_then(|k| k.first())
        .and_then(|k| match k {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
    let Some(key) = key else {
        return Ok(cx.bad(at, format!("contributor {}: Keys holds no key", i + 1))?);
    };
    let canonical = match canonical_partition_key(key.as_bytes(), KeyType::S) {
        Ok(k) => k,
        Err(e) => return Ok(cx.bad(at, format!("contributor {}: {e}", i + 1))?),
    };
    let points = c
        .get("Datapoints")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let per_request = match dim {
        Some(Dim::Read) => cx.opts.item_size.div_ceil(4096).max(1),
        _ => cx.opts.item_size.div_ceil(1024).max(1),
    } as f64;
    for p in points {
        let time = p.get("Timestamp").and_then(micros_of_json_time);
        let value = p.get("ApproximateValue").and_then(Value::as_f64);
        let (Some((micros, _)), Some(count)) = (time, value) else {
            cx.bad(
                at,
                format!(
                    "contributor {} ({key}): a datapoint without a Timestamp or an ApproximateValue",
                    i + 1
                ),
            )?;
            continue;
        };
        let from = micros.div_euclid(1_000_000);
        match dim {
            Some(dim) => {
                cx.spread(from, period, &canonical, dim, count * per_request, count)?;
            }
            None => {
                cx.file.saw(micros);
                *throttled.entry(key.clone()).or_default() += count;
                let start = from.div_euclid(i64::from(period)) * i64::from(period);
                let periods = &mut cx.file.throttled_periods;
                let i = match periods.iter().position(|p| p.start == start) {
                    Some(i) => i,
                    None => {
                        periods.push(ThrottledPeriod {
                            start,
                            seconds: period,
                            keys: Vec::new(),
                        });
                        periods.len() - 1
                    }
                };
                let keys = &mut periods[i].keys;
                match keys.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => *n += count,
                    None => keys.push((key.clone(), count)),
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::model::trace::Dim;
    use crate::source::trace::{TraceFormat, TraceLoad, TraceOptions, load_traces};

    fn load(name: &str, text: &str, opts: &TraceOptions) -> Result<TraceLoad, String> {
        let path =
            std::env::temp_dir().join(format!("shardlens-insights-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let out = load_traces(std::slice::from_ref(&path), opts).map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&path);
        out
    }

    const REPORT: &str = r#"{
 "KeyLabels": ["PK"],
 "AggregationStatistic": "Sum",
 "AggregateValue": 1020.0,
 "ApproximateUniqueCount": 40,
 "Contributors": [
  {"Keys": ["user#1"], "ApproximateAggregateValue": 900.0,
   "Datapoints": [{"Timestamp": "2026-06-23T10:00:00+00:00", "ApproximateValue": 600.0},
                  {"Timestamp": "2026-06-23T10:01:00+00:00", "ApproximateValue": 300.0}]},
  {"Keys": ["user#2"], "ApproximateAggregateValue": 120.0,
   "Datapoints": [{"Timestamp": "2026-06-23T10:01:00+00:00", "ApproximateValue": 120.0}]}
 ],
 "MetricDatapoints": [{"Timestamp": "2026-06-23T10:00:00+00:00", "UniqueContributors": 30, "Sum": 700.0},
                      {"Timestamp": "2026-06-23T10:01:00+00:00", "UniqueContributors": 30, "Sum": 500.0}]
}"#;

    fn writes() -> TraceOptions {
        TraceOptions {
            counts_are: Some(Dim::Write),
            ..TraceOptions::default()
        }
    }

    #[test]
    fn access_counts_are_spread_over_their_minute() {
        let t = load("pkc.json", REPORT, &writes()).unwrap();
        let f = &t.files[0];
        assert_eq!(f.format, Some(TraceFormat::Insights));
        assert_eq!((f.records, f.keys), (3, 2));
        assert_eq!(t.trace.duration, 120);
        assert_eq!(t.trace.requests(), [0.0, 1020.0]);
        // user#1: 600 in minute 0, 10 a second.
        let s5: f32 = t.trace.at(5).iter().map(|e| e.units).sum();
        assert!((s5 - 10.0).abs() < 1e-4, "{s5}");
        let said: Vec<String> = f.assumed.iter().map(ToString::to_string).collect();
        assert!(
            said.iter().any(|a| a.contains("only the top contributors")),
            "{said:?}"
        );
        assert!(said.iter().any(|a| a.contains("no RuleName")), "{said:?}");
    }

    #[test]
    fn without_counts_are_it_is_an_error_with_the_flag() {
        let e = load("pkc.json", REPORT, &TraceOptions::default()).unwrap_err();
        assert!(e.contains("reads and writes together"), "{e}");
        assert!(e.contains("pass --counts-are reads|writes"), "{e}");
    }

    #[test]
    fn throttled_keys_are_notes_not_traffic() {
        let pkt = REPORT.replacen(
            "{",
            r#"{"RuleName": "DynamoDBContributorInsights-PKT-orders-1700000000000","#,
            1,
        );
        let both = format!(
            "{}\n{}",
            REPORT.replacen(
                "{",
                r#"{"RuleName": "DynamoDBContributorInsights-PKC-orders-1","#,
                1
            ),
            pkt
        );
        let t = load("both.json", &both, &TraceOptions::default()).unwrap_err();
        assert!(t.contains("--counts-are"), "{t}");
        let t = load("both.json", &both, &writes()).unwrap();
        assert_eq!(t.trace.requests(), [0.0, 1020.0]);
        assert_eq!(
            t.files[0].throttled_keys,
            [("user#1".to_owned(), 900.0), ("user#2".to_owned(), 120.0)]
        );
        // Period by period: 10:00 only user#1; 10:01 user#1 300 and user#2 120, most first.
        let periods = &t.files[0].throttled_periods;
        assert_eq!(periods.len(), 2, "{periods:?}");
        assert_eq!(periods[0].seconds, 60);
        assert_eq!(periods[0].keys, [("user#1".to_owned(), 600.0)]);
        assert_eq!(periods[1].start - periods[0].start, 60);
        assert_eq!(
            periods[1].keys,
            [("user#1".to_owned(), 300.0), ("user#2".to_owned(), 120.0)]
        );
        assert!(periods[1].holds(periods[1].start + 59));
        assert!(!periods[1].holds(periods[1].start + 60));
        // Throttles alone need no --counts-are, and replay nothing.
        let e = load("pkt.json", &pkt, &TraceOptions::default()).unwrap_err();
        assert!(e.contains("no records with a time"), "{e}");
    }

    #[test]
    fn five_minute_periods_spread_over_five_minutes() {
        let text = r#"{"KeyLabels":["pk"],"Contributors":[{"Keys":["a"],"Datapoints":[
 {"Timestamp":"2026-06-23T10:00:00Z","ApproximateValue":300},{"Timestamp":"2026-06-23T10:05:00Z","ApproximateValue":600}]}]}"#;
        let t = load("five.json", text, &writes()).unwrap();
        assert_eq!(t.trace.duration, 600);
        assert_eq!(t.trace.at(0)[0].requests, 1.0);
        assert_eq!(t.trace.at(599)[0].requests, 2.0);
    }
}
