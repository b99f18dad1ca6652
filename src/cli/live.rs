//! `shardlens stream` (a table's writes from its DynamoDB Stream, live) and `shardlens metrics` (its CloudWatch
//! minutes and Contributor Insights): read-only, through [`DynamoClient`]. What they read goes through the same
//! trace readers as a saved file (`--save-trace` writes that file).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::args::{ConnectArgs, ViewArgs};
use super::commands::cancel_on_ctrl_c;
use super::trace::CountsAre;
use crate::model::KeySet;
use crate::model::capacity::ReasonMetric;
use crate::model::fmt::plural;
use crate::model::sim_file::parse_duration;
use crate::model::trace::{Dim, Trace, iso};
use crate::source::OnBad;
use crate::source::dynamo::{
    DEFAULT_MAX_RPS, DynamoClient, METRICS, MetricsOptions, MetricsRead, StreamEvent,
    StreamOptions, StreamStart, StreamStatus, metric_field,
};
use crate::source::trace::{StreamFeed, TraceLoad};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FromArg {
    /// Only writes made from now on.
    Latest,
    /// Every record the stream holds: the last 24 hours.
    TrimHorizon,
}

#[derive(Debug, Args)]
pub struct StreamArgs {
    /// The table whose stream is read (read-only: DescribeTable, DescribeStream, GetShardIterator, GetRecords).
    #[arg(long)]
    pub table: String,
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Where to start: new writes only, or the last 24 hours the stream holds.
    #[arg(long, value_enum, default_value_t = FromArg::Latest)]
    pub from: FromArg,
    /// How long to watch (90s, 10m, 3h); without it, until Ctrl+C (which prints what was read).
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_watch)]
    pub duration: Option<u32>,
    /// Cap on GetRecords calls per second over all shards.
    #[arg(long, value_name = "CALLS", default_value_t = DEFAULT_MAX_RPS, value_parser = parse_rps)]
    pub max_rps: f64,
    /// Also write the records to FILE (JSON lines of Streams records), a trace `simulate --trace` replays.
    #[arg(long, value_name = "FILE")]
    pub save_trace: Option<PathBuf>,
    #[command(flatten)]
    pub view: ViewArgs,
}

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

fn parse_watch(text: &str) -> Result<u32, String> {
    match parse_duration(text)? {
        0 => Err("must be longer than 0 seconds".to_owned()),
        s => Ok(s),
    }
}

fn parse_rps(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1_000.0 => Ok(v),
        _ => Err(format!(
            "{text:?} is not a number of calls per second above 0 and at most 1000"
        )),
    }
}

/// What a watch keeps as records arrive: their trace, the saved file, and what it has said.
struct Watching {
    /// The records read into a trace, a batch at a time (the records themselves are not kept).
    feed: StreamFeed,
    saved: Option<std::io::BufWriter<std::fs::File>>,
    write_error: Option<std::io::Error>,
    /// The line said once reading has begun (after DescribeTable and the first iterator, so that an error
    /// comes first), and whether it was said.
    reading: String,
    said_reading: bool,
    /// Standard error is a terminal: one status line, rewritten.
    live: bool,
    said_at: Option<(std::time::Instant, u64)>,
}

impl Watching {
    fn on_event(&mut self, event: &StreamEvent) {
        let progress = match event {
            StreamEvent::Records { records, progress } => {
                let batch = self.feed.add(records);
                if let Some(file) = &mut self.saved
                    && let Err(e) = file.write_all(batch)
                {
                    self.write_error.get_or_insert(e);
                }
                progress
            }
            StreamEvent::Progress(progress) => progress,
        };
        if !self.said_reading && progress.iterators > 0 {
            self.said_reading = true;
            eprintln!("{}", self.reading);
        }
        if self.live {
            eprint!("\r\x1b[2K{}", progress.summary());
        } else if progress.records > 0
            && self.said_at.is_none_or(|(at, n)| {
                n != progress.records && at.elapsed() >= Duration::from_secs(1)
            })
        {
            // Not a terminal (a log, a pipe): a line a second at most, when something changed.
            self.said_at = Some((std::time::Instant::now(), progress.records));
            eprintln!("shardlens: {}", progress.summary());
        }
    }

    /// The saved file flushed; the first write error, if any.
    fn finish_saving(&mut self) -> anyhow::Result<()> {
        if let Some(mut file) = self.saved.take() {
            let flushed = file.flush();
            if let Some(e) = self.write_error.take() {
                return Err(e).context("cannot write the saved trace");
            }
            flushed.context("cannot write the saved trace")?;
        }
        Ok(())
    }
}

/// `shardlens stream`.
pub(super) fn stream(args: &StreamArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    args.view.view_settings()?;
    let client = DynamoClient::connect(&args.connect.options())?;
    let opts = StreamOptions {
        from: match args.from {
            FromArg::Latest => StreamStart::Latest,
            FromArg::TrimHorizon => StreamStart::TrimHorizon,
        },
        duration: args.duration.map(|s| Duration::from_secs(u64::from(s))),
        max_rps: args.max_rps,
        ..StreamOptions::new(args.table.clone())
    };
    let saved = match &args.save_trace {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot write {}", p.display()))?,
        )),
        None => None,
    };
    let info = client.describe_table(&args.table)?;
    let mut watching = Watching {
        feed: StreamFeed::new(&format!("writes to {}", args.table), &info, OnBad::Stop),
        saved,
        write_error: None,
        reading: format!(
            "shardlens: reading the stream of {} ({}; {}; Ctrl+C stops and prints what was read)",
            args.table,
            client.describe_target(),
            args.duration
                .map_or_else(|| "until Ctrl+C".to_owned(), |s| format!("for {s} s")),
        ),
        said_reading: false,
        live: std::io::stderr().is_terminal(),
        said_at: None,
    };
    let cancel = cancel_on_ctrl_c();
    let read = client.stream_of(&info, &opts, &cancel, &mut |event| {
        watching.on_event(&event);
    })?;
    if watching.live {
        eprintln!();
    }
    watching.finish_saving()?;
    for note in &read.notes {
        eprintln!("shardlens: {note}");
    }
    let name = match read.status {
        StreamStatus::Finished | StreamStatus::Closed => format!("writes to {}", args.table),
        _ => format!("writes to {} (stopped: what was read)", args.table),
    };
    if let Some(e) = watching.feed.take_unreadable() {
        anyhow::bail!("{}", e.message());
    }
    let trace = if watching.feed.records() == 0 {
        None
    } else {
        let load = watching
            .feed
            .trace()
            .map_err(|e| anyhow::anyhow!("{}", e.message()))?;
        Some(load)
    };
    print_stream(out, args, &name, &info, trace.as_ref())?;
    // How the read ended, and any error, follow the analysis they speak of.
    out.flush().context("cannot write the output")?;
    say_the_end(args, &read)
}

/// The lines after the analysis: how the read ended, where the records were saved; an error when it failed.
fn say_the_end(args: &StreamArgs, read: &crate::source::dynamo::StreamRead) -> anyhow::Result<()> {
    eprintln!(
        "shardlens: {}: {} in {:.1} s",
        read.status.describe(),
        read.progress.summary(),
        read.progress.elapsed.as_secs_f64()
    );
    if let Some(p) = &args.save_trace {
        eprintln!(
            "shardlens: saved {} records to {} (replay: shardlens simulate --trace {})",
            read.progress.records,
            p.display(),
            p.display()
        );
    }
    if let StreamStatus::Failed(e) = &read.status {
        anyhow::bail!(
            "the stream of {} stopped (the analysis above is what was read): {e}",
            args.table
        );
    }
    Ok(())
}

/// Write units per second of `trace` (its steps: seconds up to a day).
fn write_series(trace: &Trace) -> Vec<f64> {
    let step = trace.step();
    (0..trace.duration.div_ceil(step))
        .map(|i| {
            (i * step..((i + 1) * step).min(trace.duration))
                .flat_map(|t| trace.at(t))
                .filter(|e| e.dim() == Dim::Write)
                .map(|e| f64::from(e.units))
                .sum::<f64>()
                / f64::from(step)
        })
        .collect()
}

fn print_stream(
    out: &mut dyn Write,
    args: &StreamArgs,
    name: &str,
    info: &crate::source::dynamo::TableInfo,
    load: Option<&TraceLoad>,
) -> anyhow::Result<()> {
    let mut keys = KeySet::new(info.partition_key.key_type);
    // Counted in the order they were written: the analysis says "writes".
    keys.set_write_ordered(true);
    // Without a sort key, each partition key is one item: its writes all go to it (the decision tree's "is one
    // item hot?" is answered from that).
    let one_item = info.sort_key.is_none();
    let mut extra = serde_json::Map::new();
    let mut lines = Vec::new();
    match load {
        Some(load) => {
            for k in &load.trace.keys {
                let n = k.requests[1].round().max(1.0) as u64;
                let key = k.name.as_bytes();
                let item = one_item.then_some((key, info.partition_key.key_type));
                keys.add_item(key, item, n);
            }
            let series = write_series(&load.trace);
            let peak = series.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1));
            extra.insert("start".into(), json!(iso(load.trace.start)));
            extra.insert("step_seconds".into(), json!(load.trace.step()));
            extra.insert("series".into(), json!(series));
            extra.insert(
                "assumed".into(),
                json!(
                    load.files
                        .iter()
                        .flat_map(|f| f.assumed.iter().map(ToString::to_string))
                        .collect::<Vec<_>>()
                ),
            );
            if let Some((t, units)) = peak {
                lines.push(format!(
                    "Write units: {:.0} over {} s from {} (peak {:.0} WCU/s at {})",
                    load.trace.units()[1],
                    load.trace.duration,
                    iso(load.trace.start),
                    units,
                    iso(load.trace.start + (t as i64) * i64::from(load.trace.step())),
                ));
            }
        }
        None => {
            extra.insert("series".into(), json!([]));
            lines.push(format!(
                "No writes were read: nothing was written to {} while it was watched{}.",
                args.table,
                if args.from == FromArg::Latest {
                    " (from latest only new writes are read; --from trim-horizon reads the last 24 hours)"
                } else {
                    ""
                }
            ));
        }
    }
    let target = crate::model::query::Target {
        table: Some(args.table.clone()),
        partition_key: Some(info.partition_key.name.clone()),
        sort_key: info.sort_key.as_ref().map(|k| k.name.clone()),
    };
    let designs = super::Designs {
        list: &[],
        shard_by: None,
        key_expr: None,
        key_attribute: None,
        target: Some(&target),
        ttl: None,
        has_lsi: false,
    };
    super::output::print_analysis_and(out, name, &keys, &args.view, designs, extra, &lines)
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

fn save_documents(path: &Path, docs: &[Value]) -> anyhow::Result<()> {
    let mut text = Vec::new();
    for d in docs {
        serde_json::to_writer(&mut text, d)?;
        text.push(b'\n');
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
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
