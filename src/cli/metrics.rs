//! `shardlens metrics` (a table's CloudWatch minutes, its throttle events by reason, and Contributor Insights):
//! read-only, through [`DynamoClient`]. What it reads is also the documents the AWS CLI prints, so
//! `--save-trace` writes a file `simulate --trace` replays with the same readers.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::args::ConnectArgs;
use super::trace::CountsAre;
use crate::model::capacity::ReasonMetric;
use crate::model::fmt::plural;
use crate::model::sim_file::parse_duration;
use crate::model::trace::{Dim, iso};
use crate::source::dynamo::{DynamoClient, METRICS, MetricsOptions, MetricsRead, metric_field};

#[derive(Debug, Args)]
pub struct MetricsArgs {
    /// The table whose CloudWatch metrics are read (read-only: GetMetricData, DescribeContributorInsights,
    /// GetInsightRuleReport).
    #[arg(long)]
    pub table: String,
    /// A global secondary index of the table instead of the table.
    #[arg(long, value_name = "GSI")]
    pub index: Option<String>,
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The window's start: a duration back from now (3h, 90m) or a time (2026-06-23T10:00:00Z) [default: 3h].
    #[arg(long, value_name = "DURATION|TIME")]
    pub since: Option<String>,
    /// The window's end: a time [default: now].
    #[arg(long, value_name = "TIME")]
    pub until: Option<String>,
    /// What the Contributor Insights top keys count [default: the larger side of the consumed units].
    #[arg(long, value_enum)]
    pub counts_are: Option<CountsAre>,
    /// Also write what was read to FILE (get-metric-data output, then each rule's report), a trace
    /// `simulate --trace` replays with the observed throttling.
    #[arg(long, value_name = "FILE")]
    pub save_trace: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MetricsFormat::Table)]
    pub format: MetricsFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MetricsFormat {
    Table,
    Json,
}

/// `shardlens metrics`.
pub(super) fn metrics(args: &MetricsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let until = match &args.until {
        Some(t) => time_of(t).with_context(|| format!("--until {t:?}"))?,
        None => now,
    };
    let since = match args.since.as_deref() {
        None => until - 3 * 3_600,
        Some(text) => match parse_duration(text) {
            Ok(s) => until - i64::from(s),
            Err(_) => time_of(text).with_context(|| format!("--since {text:?}"))?,
        },
    };
    anyhow::ensure!(
        since < until,
        "the window is empty: --since {} is not before --until {}",
        iso(since),
        iso(until)
    );
    let client = DynamoClient::connect(&args.connect.options())?;
    let opts = MetricsOptions {
        table: args.table.clone(),
        index: args.index.clone(),
        since: since.div_euclid(60) * 60,
        until,
    };
    let read = client.metrics(&opts)?;
    let docs = documents(&read, args.counts_are);
    if let Some(p) = &args.save_trace {
        save_documents(p, &docs)?;
    }
    for note in &read.notes {
        eprintln!("shardlens: {note}");
    }
    match args.format {
        MetricsFormat::Json => {
            let doc = metrics_json(&read, opts.since, &docs)?;
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        }
        MetricsFormat::Table => print_metrics_table(out, &read, &docs, &opts)?,
    }
    out.flush().context("cannot write the output")?;
    if let Some(p) = &args.save_trace {
        eprintln!(
            "shardlens: saved to {} (replay: shardlens simulate --trace {})",
            p.display(),
            p.display()
        );
    }
    Ok(())
}

/// A time as ISO 8601 (`2026-06-23T10:00:00Z`) or Unix seconds.
fn time_of(text: &str) -> anyhow::Result<i64> {
    crate::source::trace::micros_of_time(text)
        .map(|(micros, _)| micros.div_euclid(1_000_000))
        .ok_or_else(|| {
            anyhow::anyhow!("not a time (expected e.g. 2026-06-23T10:00:00Z, or Unix seconds)")
        })
}

/// What was read, as trace documents; each report says what its counts are (`CountsAre`).
fn documents(read: &MetricsRead, counts_are: Option<CountsAre>) -> Vec<Value> {
    read.trace_documents(counts_are.map(|c| match c {
        CountsAre::Reads => Dim::Read,
        CountsAre::Writes => Dim::Write,
    }))
}

/// The documents as JSON lines, written whole (a full disk leaves the whole lines that fit, and the error).
fn save_documents(path: &Path, docs: &[Value]) -> anyhow::Result<()> {
    let mut text = Vec::new();
    for d in docs {
        serde_json::to_writer(&mut text, d)?;
        text.push(b'\n');
    }
    let mut saver = crate::source::trace::TraceSaver::create(path)?;
    saver.write_page(&text)?;
    saver.finish()?;
    Ok(())
}

/// The JSON output: `start`, `minutes`, `contributors` (when read), `notes`.
fn metrics_json(read: &MetricsRead, start: i64, docs: &[Value]) -> anyhow::Result<Value> {
    let mut minutes = std::collections::BTreeMap::<i64, serde_json::Map<String, Value>>::new();
    for (i, (name, _)) in METRICS.iter().enumerate() {
        let field = metric_field(i);
        for (t, v) in read.series.get(name).into_iter().flatten() {
            let m = minutes.entry(*t).or_default();
            m.insert("t".into(), json!(t - start));
            m.insert(field.clone(), json!(v));
        }
    }
    let mut doc = json!({
        "start": iso(start),
        "minutes": minutes.into_values().collect::<Vec<_>>(),
        "contributor_insights": match &read.insights {
            crate::source::dynamo::Insights::Enabled(rules) => json!({ "status": "enabled", "rules": rules }),
            crate::source::dynamo::Insights::Off(s) => json!({ "status": s }),
            crate::source::dynamo::Insights::NotAvailable(why) => json!({ "status": "not available", "reason": why }),
        },
        "notes": read.notes.iter().map(ToString::to_string).collect::<Vec<_>>(),
    });
    if let Some(mode) = &read.insights_mode {
        doc["contributor_insights"]["mode"] = json!(mode.as_str());
    }
    if !read.reports.is_empty() {
        doc["contributors"] = json!(docs.iter().skip(1).map(report_json).collect::<Vec<_>>());
    }
    Ok(doc)
}

/// One rule's top contributors: `rule`, `counts`, `keys` [{ `key`, `total` }].
fn report_json(doc: &Value) -> Value {
    json!({
        "rule": doc["RuleName"],
        "counts": doc["CountsAre"],
        "keys": doc["Contributors"].as_array().into_iter().flatten().map(|c| json!({
            "key": c["Keys"].as_array().map(|k| k.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | ")),
            "total": c["ApproximateAggregateValue"],
        })).collect::<Vec<_>>(),
    })
}

/// Contributor Insights' line: on (with its mode and rules), off, or not available.
fn print_insights_status(out: &mut dyn Write, read: &MetricsRead) -> anyhow::Result<()> {
    let mode = read.insights_mode.as_ref().map_or_else(String::new, |m| {
        format!(", {} mode: {}", m.as_str(), m.describe())
    });
    match &read.insights {
        crate::source::dynamo::Insights::Enabled(rules) => writeln!(
            out,
            "  Contributor Insights   on{mode}; {}",
            plural(rules.len() as u64, "rule")
        )?,
        crate::source::dynamo::Insights::Off(status) => {
            writeln!(out, "  Contributor Insights   {status}{mode}")?;
        }
        crate::source::dynamo::Insights::NotAvailable(_) => {
            writeln!(out, "  Contributor Insights   not available")?;
        }
    }
    Ok(())
}

fn print_metrics_table(
    out: &mut dyn Write,
    read: &MetricsRead,
    docs: &[Value],
    opts: &MetricsOptions,
) -> anyhow::Result<()> {
    let total = |name: &str| {
        read.series
            .get(name)
            .map_or(0.0, |p| p.iter().map(|(_, v)| v).sum::<f64>())
    };
    let peak = |name: &str| {
        read.series
            .get(name)
            .and_then(|p| p.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)))
    };
    let what = opts.index.as_ref().map_or_else(
        || opts.table.clone(),
        |i| format!("{} (index {i})", opts.table),
    );
    writeln!(
        out,
        "CloudWatch minutes of {what}, {} to {} UTC",
        iso(opts.since),
        iso(opts.until)
    )?;
    let minutes = read.series.values().map(Vec::len).max().unwrap_or(0);
    writeln!(out, "  minutes with data      {minutes}")?;
    for (label, name) in [
        ("consumed read units ", "ConsumedReadCapacityUnits"),
        ("consumed write units", "ConsumedWriteCapacityUnits"),
        ("read throttle events", "ReadThrottleEvents"),
        ("write throttle events", "WriteThrottleEvents"),
        ("throttled requests  ", "ThrottledRequests"),
    ] {
        let p = peak(name).map_or_else(String::new, |(t, v)| {
            format!("  (peak {v:.0} in the minute at {})", iso(t))
        });
        writeln!(out, "  {label}   {:.0}{p}", total(name))?;
    }
    print_reason_totals(out, read)?;
    for (label, name) in [
        ("provisioned reads  ", "ProvisionedReadCapacityUnits"),
        ("provisioned writes ", "ProvisionedWriteCapacityUnits"),
    ] {
        if let Some(last) = read.series.get(name).and_then(|p| p.last()) {
            writeln!(out, "  {label}    {:.0} units/s (last minute)", last.1)?;
        }
    }
    print_insights_status(out, read)?;
    for doc in docs.iter().skip(1) {
        let rule = doc["RuleName"].as_str().unwrap_or("?");
        let upper = rule.to_ascii_uppercase();
        let counts = if upper.contains("-PKT-") || upper.contains("-SKT-") {
            "most throttled keys: throttled requests"
        } else {
            doc["CountsAre"].as_str().unwrap_or("counts")
        };
        writeln!(out, "\nTop keys of {rule} ({counts}):")?;
        for c in doc["Contributors"]
            .as_array()
            .into_iter()
            .flatten()
            .take(10)
        {
            let keys: Vec<&str> = c["Keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            writeln!(
                out,
                "  {:<40} {:.0}",
                keys.join(" | "),
                c["ApproximateAggregateValue"].as_f64().unwrap_or(0.0)
            )?;
        }
    }
    Ok(())
}

/// Throttle events by reason, for the reasons CloudWatch holds datapoints of: each total and peak, said as a
/// hot partition or the table's or account's limit.
fn print_reason_totals(out: &mut dyn Write, read: &MetricsRead) -> anyhow::Result<()> {
    for m in ReasonMetric::ALL {
        let Some(points) = read.series.get(m.name()).filter(|p| !p.is_empty()) else {
            continue;
        };
        let total: f64 = points.iter().map(|(_, v)| v).sum();
        let p = points
            .iter()
            .copied()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or_else(String::new, |(t, v)| {
                format!("  (peak {v:.0} in the minute at {})", iso(t))
            });
        writeln!(
            out,
            "  {:<21}   {total:.0}{p}  {}",
            format!("{} throttle events", m.short()),
            if m.is_key_range() {
                "a hot partition: sharding can help"
            } else {
                "the table's or account's limit: raise capacity, not the key"
            }
        )?;
    }
    Ok(())
}
