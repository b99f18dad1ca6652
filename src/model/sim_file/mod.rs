//! Scenario files: TOML that teachers write and share, parsed into a [`super::simulate::Setup`].
//!
//! ```toml
//! name = "Tournament final"
//! duration = "30m"
//! [table]
//! billing = "on-demand"
//! [[traffic]]
//! key = "ARENA#7f3a"
//! writes_per_sec = 4000
//! sort_key = "monotonic"
//! ```
//!
//! Unknown fields are errors, and every error names the field and the line. Key files (`keys = "keys.txt"`)
//! are left for the caller to read (this module does no I/O): see [`KeySource`].
//!
//! This file holds the document's shape, the checks shared by every field (`Ctx`) and [`parse`]; the
//! `[table]` section is read in `table.rs`, the `[[traffic]]` streams in `traffic.rs`; `write.rs` writes a
//! replay back as a scenario file.

mod table;
mod traffic;
mod write;
pub use write::{table_section, trace_scenario};

use serde::Deserialize;
use toml::Spanned;

use super::simulate::{Keys, Params, Schedule, Setup, Table};

/// A scenario error: what is wrong, with the line it is on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScenarioError {
    pub line: usize,
    pub message: String,
}

/// Where a stream's keys come from, before key files are read.
#[derive(Debug, Clone, PartialEq)]
pub enum KeySource {
    Keys(Keys),
    /// A key file, relative to the scenario file; its counts give the shares.
    File(String),
    /// A trace of real traffic (a file or folder, relative to the scenario file) replayed instead of rates:
    /// the run starts at the trace's first second.
    Trace(String),
}

/// A parsed scenario: its name and text, the setup, and per stream where its keys come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub setup: Setup,
    /// One per stream of `setup.traffic`; `KeySource::File` streams hold a placeholder until resolved.
    pub keys: Vec<KeySource>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    name: Option<String>,
    description: Option<String>,
    duration: Option<Spanned<Duration>>,
    step: Option<Spanned<Duration>>,
    start: Option<Spanned<Start>>,
    seed: Option<u64>,
    table: Option<TableDoc>,
    #[serde(default)]
    traffic: Vec<StreamDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableDoc {
    billing: Option<Spanned<String>>,
    rcu: Option<Spanned<f64>>,
    wcu: Option<Spanned<f64>>,
    partitions: Option<Spanned<u32>>,
    lsi: Option<bool>,
    adaptive_capacity: Option<bool>,
    split_for_heat: Option<bool>,
    split_after: Option<Spanned<Duration>>,
    idle_before: Option<Spanned<Duration>>,
    limits: Option<Spanned<String>>,
    previous_peak_reads: Option<Spanned<f64>>,
    previous_peak_writes: Option<Spanned<f64>>,
    quota_reads: Option<Spanned<f64>>,
    quota_writes: Option<Spanned<f64>>,
    max_reads: Option<Spanned<f64>>,
    max_writes: Option<Spanned<f64>>,
    /// `max_reads`/`max_writes` by the names of DynamoDB's `OnDemandThroughput` (`MaxReadRequestUnits`,
    /// `MaxWriteRequestUnits`): one name or the other.
    max_read_units: Option<Spanned<f64>>,
    max_write_units: Option<Spanned<f64>>,
    /// DynamoDB's `WarmThroughput` (`ReadUnitsPerSecond`, `WriteUnitsPerSecond`): instead of the previous peak.
    warm_read_units: Option<Spanned<f64>>,
    warm_write_units: Option<Spanned<f64>>,
    autoscaling: Option<Spanned<ScalingDoc>>,
    size_gb: Option<Spanned<f64>>,
    growth_gb_per_day: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScalingDoc {
    target: Option<f64>,
    min_rcu: Option<f64>,
    max_rcu: Option<f64>,
    min_wcu: Option<f64>,
    max_wcu: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamDoc {
    key: Option<Spanned<String>>,
    keys: Option<Spanned<String>>,
    /// A trace of real traffic replayed as this stream (a file or folder, relative to the scenario).
    trace: Option<Spanned<String>>,
    writes_per_sec: Option<Spanned<Rate>>,
    reads_per_sec: Option<Spanned<Rate>>,
    item_size: Option<Spanned<f64>>,
    consistency: Option<Spanned<String>>,
    sort_key: Option<Spanned<String>>,
    from: Option<Spanned<Duration>>,
    until: Option<Spanned<Duration>>,
}

/// The simulated clock's start: a TOML date-time, or the same in a string.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum Start {
    Native(toml::value::Datetime),
    Text(String),
}

/// A duration: seconds as a number, or "90s", "20m", "2h", "1d".
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum Duration {
    Seconds(f64),
    Text(String),
}

/// A rate: a number, or a schedule `[[0, 50], ["5m", 300]]`.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum Rate {
    Constant(f64),
    Schedule(Vec<(Duration, f64)>),
}

/// Seconds of a duration, or why not.
pub fn parse_duration(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let (num, unit) = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((t, "s"), |i| (&t[..i], t[i..].trim()));
    let value: f64 = num.parse().map_err(|_| {
        format!("\"{text}\" is not a duration (like \"90s\", \"20m\", \"2h\", \"1d\")")
    })?;
    let scale = match unit {
        "s" | "" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3_600.0,
        "d" => 86_400.0,
        _ => {
            return Err(format!(
                "\"{text}\": unknown unit \"{unit}\" (s, m, h or d)"
            ));
        }
    };
    seconds(value * scale).ok_or_else(|| format!("\"{text}\" is out of range"))
}

fn seconds(v: f64) -> Option<u32> {
    (v.is_finite() && v >= 0.0 && v <= f64::from(u32::MAX)).then(|| v.round() as u32)
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

struct Ctx<'a> {
    text: &'a str,
}

impl Ctx<'_> {
    fn err<T>(
        &self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
    ) -> Result<T, ScenarioError> {
        Err(ScenarioError {
            line: line_of(self.text, span.start),
            message: message.into(),
        })
    }

    fn duration(&self, field: &str, d: &Spanned<Duration>) -> Result<u32, ScenarioError> {
        let got = match d.get_ref() {
            Duration::Seconds(s) => seconds(*s).ok_or_else(|| format!("{s} is not a duration")),
            Duration::Text(t) => parse_duration(t),
        };
        match got {
            Ok(s) => Ok(s),
            Err(e) => self.err(d.span(), format!("{field}: {e}")),
        }
    }

    fn non_negative(&self, field: &str, v: &Spanned<f64>) -> Result<f64, ScenarioError> {
        let x = *v.get_ref();
        if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            self.err(v.span(), format!("{field} must be a number ≥ 0, not {x}"))
        }
    }

    fn rate(&self, field: &str, r: &Spanned<Rate>) -> Result<Schedule, ScenarioError> {
        match r.get_ref() {
            Rate::Constant(x) => {
                let x = self.non_negative(field, &Spanned::new(r.span(), *x))?;
                Ok(Schedule::constant(x))
            }
            Rate::Schedule(points) => {
                let mut out: Vec<(u32, f64)> = Vec::with_capacity(points.len());
                for (t, x) in points {
                    let t = self.duration(field, &Spanned::new(r.span(), t.clone()))?;
                    let x = self.non_negative(field, &Spanned::new(r.span(), *x))?;
                    if out.last().is_some_and(|&(prev, _)| t <= prev) {
                        return self.err(
                            r.span(),
                            format!(
                                "{field}: the schedule's times must increase ({t} s after {} s)",
                                out[out.len() - 1].0
                            ),
                        );
                    }
                    out.push((t, x));
                }
                Ok(Schedule(out))
            }
        }
    }

    fn word<'w>(
        &self,
        field: &str,
        v: &'w Spanned<String>,
        allowed: &[&str],
    ) -> Result<&'w str, ScenarioError> {
        let w = v.get_ref().as_str();
        if allowed.contains(&w) {
            Ok(w)
        } else {
            self.err(
                v.span(),
                format!("{field} = \"{w}\": expected one of {}", allowed.join(", ")),
            )
        }
    }
}

/// Parses a scenario file's text. `today` (Unix seconds, midnight UTC) is the default start.
pub fn parse(text: &str, today: i64) -> Result<Scenario, ScenarioError> {
    let doc: FileDoc = toml::from_str(text).map_err(|e| ScenarioError {
        line: e.span().map_or(1, |s| line_of(text, s.start)),
        message: e.message().to_owned(),
    })?;
    let c = Ctx { text };
    let duration = match &doc.duration {
        Some(d) => c.duration("duration", d)?,
        None => 30 * 60,
    };
    if duration == 0 {
        return Err(ScenarioError {
            line: doc
                .duration
                .as_ref()
                .map_or(1, |d| line_of(text, d.span().start)),
            message: "duration must be more than 0 s".to_owned(),
        });
    }
    let step = match &doc.step {
        Some(d) => {
            let s = c.duration("step", d)?;
            if s != 1 && s != 60 {
                return c.err(d.span(), "step must be \"1s\" or \"1m\"");
            }
            s
        }
        None => 1,
    };
    let start = match &doc.start {
        Some(dt) => {
            let parsed = match dt.get_ref() {
                Start::Native(d) => Some(*d),
                Start::Text(t) => t.parse::<toml::value::Datetime>().ok(),
            };
            match parsed.as_ref().and_then(datetime_seconds) {
                Some(s) => s,
                None => {
                    return c.err(
                        dt.span(),
                        "start: expected a UTC date-time like 2026-06-23T23:00:00Z",
                    );
                }
            }
        }
        None => today,
    };
    let table = match &doc.table {
        Some(t) => table::table_of(&c, t)?,
        None => Table::default(),
    };
    if doc.traffic.is_empty() {
        return Err(ScenarioError {
            line: line_of(text, text.len()),
            message: "no [[traffic]]: a scenario needs at least one stream".to_owned(),
        });
    }
    let mut traffic = Vec::new();
    let mut keys = Vec::new();
    for s in &doc.traffic {
        let (stream, source) = traffic::stream_of(&c, s)?;
        traffic.push(stream);
        keys.push(source);
    }
    Ok(Scenario {
        name: doc.name.unwrap_or_else(|| "scenario".to_owned()),
        description: doc.description.unwrap_or_default(),
        setup: Setup {
            table,
            traffic,
            duration,
            step,
            start,
            seed: doc.seed.unwrap_or(1),
            params: Params::default(),
            trace: None,
        },
        keys,
    })
}

/// Unix seconds of a TOML date-time with a UTC offset (or a bare date, at midnight UTC).
fn datetime_seconds(dt: &toml::value::Datetime) -> Option<i64> {
    let date = dt.date?;
    let days = days_from_civil(
        i64::from(date.year),
        i64::from(date.month),
        i64::from(date.day),
    );
    let (h, m, s) = dt.time.map_or((0, 0, 0), |t| {
        (
            i64::from(t.hour),
            i64::from(t.minute),
            i64::from(t.second.unwrap_or(0)),
        )
    });
    let offset = match dt.offset {
        None if dt.time.is_some() => return None,
        None | Some(toml::value::Offset::Z) => 0,
        Some(toml::value::Offset::Custom { minutes }) => i64::from(minutes) * 60,
    };
    Some(days * 86_400 + h * 3_600 + m * 60 + s - offset)
}

/// Days since 1970-01-01 of a civil date (the inverse of `simulate::date_of_day`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::simulate::SortKey;

    const TODAY: i64 = 1_782_172_800;

    #[test]
    fn the_issue_s_example_parses() {
        let text = r#"
name = "Tournament final"
description = "ARENA#7f3a at 4,000 writes/s"
duration = "30m"
step = "1s"
start = "2026-06-23T23:00:00Z"
seed = 1
[table]
billing = "provisioned"
rcu = 1000
wcu = 1000
partitions = 4
lsi = false
adaptive_capacity = true
split_for_heat = true
split_after = "8m"
idle_before = "5m"
limits = "independent"
[table.autoscaling]
target = 0.7
min_wcu = 100
max_wcu = 4000
[[traffic]]
key = "ARENA#7f3a"
writes_per_sec = [[0, 50], ["5m", 300], ["6m", 50]]
reads_per_sec = 0
item_size = 1024
consistency = "strong"
sort_key = "monotonic"
from = "0s"
until = "30m"
[[traffic]]
keys = "uniform:1000"
writes_per_sec = 100
"#;
        let s = parse(text, TODAY).unwrap();
        assert_eq!(s.name, "Tournament final");
        assert_eq!(s.setup.duration, 1_800);
        assert_eq!(s.setup.start, TODAY + 23 * 3_600);
        assert_eq!(s.setup.table.partitions, Some(4));
        assert_eq!(s.setup.table.split_after, 480);
        assert!(s.setup.table.autoscaling.is_some());
        let w = &s.setup.traffic[0].writes_per_sec;
        assert_eq!(w.0, vec![(0, 50.0), (300, 300.0), (360, 50.0)]);
        assert_eq!(s.setup.traffic[0].sort_key, SortKey::Monotonic);
        assert_eq!(s.keys[1], KeySource::Keys(Keys::Uniform(1_000)));
    }

    fn error(text: &str) -> ScenarioError {
        parse(text, TODAY).unwrap_err()
    }

    #[test]
    fn an_on_demand_table_takes_dynamodb_s_maximum_and_warm_throughput() {
        use crate::model::simulate::Billing;
        let billing = |table: &str| {
            parse(
                &format!("[table]\n{table}\n[[traffic]]\nkey = \"a\"\n"),
                TODAY,
            )
            .map(|s| s.setup.table.billing)
        };
        // DynamoDB's names (OnDemandThroughput, WarmThroughput) beside the file's own.
        let b = billing(
            "billing = \"on-demand\"\nmax_write_units = 500\nmax_reads = 900\nwarm_write_units = 8000",
        )
        .unwrap();
        assert_eq!(
            b,
            Billing::OnDemand {
                previous_peak: [6_000.0, 4_000.0],
                quota: [40_000.0, 40_000.0],
                max: [900.0, 500.0],
            },
            "a warm throughput of 8,000 writes/s is a previous peak of 4,000"
        );
        // One value, two names: refused on the second's line.
        let e = billing("billing = \"on-demand\"\nmax_writes = 500\nmax_write_units = 600")
            .unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("max_writes and max_write_units"), "{e}");
        let e = billing("previous_peak_reads = 100\nwarm_read_units = 600").unwrap_err();
        assert!(e.message.contains("give one of them"), "{e}");
        let e = billing("billing = \"provisioned\"\nrcu = 10\nwcu = 10\nwarm_write_units = 600")
            .unwrap_err();
        assert!(
            e.message
                .contains("warm_write_units is for on-demand tables"),
            "{e}"
        );
        let e = billing("max_read_units = -1").unwrap_err();
        assert!(
            e.message.contains("max_read_units must be a number ≥ 0"),
            "{e}"
        );
    }

    #[test]
    fn bad_scenarios_name_the_field_and_the_line() {
        let e = error("duration = \"10m\"\ncolour = \"red\"\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("colour"), "{e}");
        let e = error("[[traffic]]\nkey = \"a\"\nwrites_per_sec = -5\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("writes_per_sec"), "{e}");
        let e = error("[[traffic]]\nkey = \"a\"\nwrites_per_sec = [[\"5m\", 1], [\"1m\", 2]]\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("must increase"), "{e}");
        let e = error("[table]\nbilling = \"on-demand\"\nrcu = 100\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.message.contains("rcu is for provisioned tables"), "{e}");
        let e = error("duration = \"ten minutes\"\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 1);
        assert!(e.to_string().starts_with("line 1: duration:"), "{e}");
        let e = error("[[traffic]]\nkey = \"a\"\nsort_key = \"sideways\"\n");
        assert!(e.message.contains("random, monotonic, single-item"), "{e}");
        let e = error("name = \"no traffic\"\n");
        assert!(e.message.contains("[[traffic]]"), "{e}");
    }

    // R8: the table's storage, its growth, and what they refuse.
    #[test]
    fn size_and_growth_parse_and_bad_values_name_the_line() {
        let s = parse(
            "[table]\nsize_gb = 25\ngrowth_gb_per_day = 40.5\n[[traffic]]\nkey = \"a\"\n",
            TODAY,
        )
        .unwrap();
        assert_eq!(s.setup.table.size_gb, 25.0);
        assert_eq!(s.setup.table.growth_gb_per_day, 40.5);
        let s = parse("[[traffic]]\nkey = \"a\"\n", TODAY).unwrap();
        assert_eq!(
            (s.setup.table.size_gb, s.setup.table.growth_gb_per_day),
            (0.0, 0.0)
        );
        let e = error(
            "[table]\nwcu = 1\nbilling = \"provisioned\"\nsize_gb = -1\n[[traffic]]\nkey = \"a\"\n",
        );
        assert_eq!(e.line, 4, "{e}");
        assert!(e.message.contains("size_gb must be a number ≥ 0"), "{e}");
        let e = error("[table]\n\ngrowth_gb_per_day = inf\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 3, "{e}");
        assert!(
            e.message
                .contains("growth_gb_per_day must be a number ≥ 0, not inf"),
            "{e}"
        );
        let e = error("[table]\ngrowth_gb_per_day = nan\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 2, "{e}");
        let e = error("[table]\nsize_gb = \"big\"\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 2, "{e}");
        let e = error("[table]\nsize_gb = 1e12\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 2, "{e}");
        assert!(e.message.contains("more than the model handles"), "{e}");
        // A given partition count must hold the size.
        let e = error("[table]\npartitions = 2\nsize_gb = 25\n[[traffic]]\nkey = \"a\"\n");
        assert_eq!(e.line, 2, "{e}");
        assert_eq!(
            e.message,
            "partitions = 2 cannot hold size_gb = 25: a partition holds about 10 GB, so at least 3"
        );
        assert!(
            parse(
                "[table]\npartitions = 3\nsize_gb = 25\n[[traffic]]\nkey = \"a\"\n",
                TODAY
            )
            .is_ok()
        );
    }

    #[test]
    fn a_stream_may_be_a_trace_but_not_with_keys() {
        let s = parse("[[traffic]]\ntrace = \"night.json\"\n", 0).unwrap();
        assert_eq!(s.keys, vec![KeySource::Trace("night.json".to_owned())]);
        let e = parse("[[traffic]]\ntrace = \"a\"\nkey = \"b\"\n", 0).unwrap_err();
        assert!(e.message.contains("a trace or keys, not both"), "{e}");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Ok(90));
        assert_eq!(parse_duration("20m"), Ok(1_200));
        assert_eq!(parse_duration("2h"), Ok(7_200));
        assert_eq!(parse_duration("1d"), Ok(86_400));
        assert_eq!(parse_duration("45"), Ok(45));
        assert!(parse_duration("5 weeks").is_err());
        assert_eq!(days_from_civil(2026, 6, 23), TODAY / 86_400);
    }
}
