//! `shardlens simulate --trace`: a table's real traffic replayed through the simulator (`model::trace`), with
//! the files it came from, what CloudWatch observed beside what the model throttles, and what sharding,
//! on-demand or more capacity would have done.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::json;

use crate::model::fmt::{grouped, plural};
use crate::model::sim_file::Scenario;
use crate::model::simulate::{
    Agreement, Billing, Outcome, Setup, Table, agreement, run, shard_keys,
};
use crate::model::trace::{Dim, iso, replay_setup};
use crate::source::OnBad;
use crate::source::trace::{ObservedMinute, TraceFile, TraceFormat, TraceOptions, load_traces};

use super::args::BillingArg;

/// `--trace-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TraceFormatArg {
    Streams,
    Incremental,
    Insights,
    Metrics,
    Log,
}

impl From<TraceFormatArg> for TraceFormat {
    fn from(f: TraceFormatArg) -> Self {
        match f {
            TraceFormatArg::Streams => Self::Streams,
            TraceFormatArg::Incremental => Self::Incremental,
            TraceFormatArg::Insights => Self::Insights,
            TraceFormatArg::Metrics => Self::Metrics,
            TraceFormatArg::Log => Self::Log,
        }
    }
}

/// `--counts-are`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CountsAre {
    Reads,
    Writes,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Replay real traffic instead of a scenario's streams: DynamoDB Streams records (get-records pages,
    /// Lambda or Kinesis events), incremental export files or folders, Contributor Insights reports,
    /// CloudWatch metrics, request logs (CSV or JSON lines). Repeat for several; formats may mix.
    #[arg(long, value_name = "PATH", help_heading = "Trace replay")]
    pub trace: Vec<PathBuf>,
    /// The traces' format [default: detected per file].
    #[arg(long, value_enum, help_heading = "Trace replay")]
    pub trace_format: Option<TraceFormatArg>,
    /// The partition key attribute, when the records' Keys hold two (or a log's key column).
    #[arg(long, help_heading = "Trace replay")]
    pub key: Option<String>,
    /// Bytes of one request's item when the records carry no images [default: 1024].
    #[arg(long, help_heading = "Trace replay")]
    pub item_size: Option<u64>,
    /// What a Contributor Insights rule counts, when its name does not say.
    #[arg(long, value_enum, help_heading = "Trace replay")]
    pub counts_are: Option<CountsAre>,
    /// A request log's time column [default: time, timestamp, ts or @timestamp].
    #[arg(long, help_heading = "Trace replay")]
    pub time_column: Option<String>,
    /// Skip bad records and count them instead of stopping at the first.
    #[arg(long, help_heading = "Trace replay")]
    pub skip_bad: bool,
    /// The replayed table's billing [default: provisioned with --rcu/--wcu, else on-demand].
    #[arg(long, value_enum, help_heading = "Trace replay")]
    pub billing: Option<BillingArg>,
    /// Provisioned read capacity units of the replayed table.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Trace replay")]
    pub rcu: Option<u64>,
    /// Provisioned write capacity units of the replayed table.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Trace replay")]
    pub wcu: Option<u64>,
    /// Partitions of the replayed table at the start [default: from its capacity].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096), help_heading = "Trace replay")]
    pub partitions: Option<u32>,
    /// The replayed table has a local secondary index (its item collections are never split).
    #[arg(long, alias = "lsi", help_heading = "Trace replay")]
    pub has_lsi: bool,
    /// An on-demand table's maximum read request units per second (DynamoDB's `OnDemandThroughput`): over
    /// it, reads throttle with TableReadMaxOnDemandThroughputExceeded.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Trace replay")]
    pub max_read_units: Option<u64>,
    /// An on-demand table's maximum write request units per second: over it, writes throttle with
    /// TableWriteMaxOnDemandThroughputExceeded.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Trace replay")]
    pub max_write_units: Option<u64>,
    /// An on-demand table's warm throughput for reads (`WarmThroughput`: what it serves at once) [default:
    /// a new table's, 12,000].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Trace replay")]
    pub warm_read_units: Option<u64>,
    /// An on-demand table's warm throughput for writes [default: a new table's, 4,000].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Trace replay")]
    pub warm_write_units: Option<u64>,
}

impl TraceArgs {
    fn options(&self) -> TraceOptions {
        TraceOptions {
            format: self.trace_format.map(Into::into),
            key: self.key.clone(),
            item_size: self.item_size.unwrap_or(1024),
            counts_are: self.counts_are.map(|c| match c {
                CountsAre::Reads => Dim::Read,
                CountsAre::Writes => Dim::Write,
            }),
            time_column: self.time_column.clone(),
            on_bad: if self.skip_bad {
                OnBad::Skip
            } else {
                OnBad::Stop
            },
        }
    }

    /// The table the flags describe.
    fn table(&self) -> anyhow::Result<Table> {
        let on_demand_flags = [
            ("--max-read-units", self.max_read_units),
            ("--max-write-units", self.max_write_units),
            ("--warm-read-units", self.warm_read_units),
            ("--warm-write-units", self.warm_write_units),
        ];
        let billing = match (self.billing, self.rcu, self.wcu) {
            (Some(BillingArg::OnDemand) | None, None, None) => {
                let mut billing = Billing::on_demand();
                if let Billing::OnDemand {
                    previous_peak, max, ..
                } = &mut billing
                {
                    let units = |u: Option<u64>| u.map(|u| u as f64);
                    // The scenario's [table] max_*_units and warm_*_units (docs/time.md): a warm throughput
                    // stands for a previous peak of half of it (R5).
                    for (dim, (most, warm)) in [
                        (self.max_read_units, self.warm_read_units),
                        (self.max_write_units, self.warm_write_units),
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        if let Some(m) = units(most) {
                            max[dim] = m;
                        }
                        if let Some(w) = units(warm) {
                            previous_peak[dim] = w / 2.0;
                        }
                    }
                }
                billing
            }
            (Some(BillingArg::OnDemand), _, _) => {
                anyhow::bail!("--rcu and --wcu are for --billing provisioned")
            }
            (_, Some(rcu), Some(wcu)) => {
                if let Some((flag, _)) = on_demand_flags.iter().find(|(_, v)| v.is_some()) {
                    anyhow::bail!(
                        "{flag} is for an on-demand table; this one is provisioned (--rcu/--wcu)"
                    )
                }
                Billing::Provisioned {
                    units: [rcu as f64, wcu as f64],
                }
            }
            _ => anyhow::bail!("provisioned billing needs both --rcu and --wcu"),
        };
        Ok(Table {
            billing,
            partitions: self.partitions.map(|p| p as usize),
            lsi: self.has_lsi,
            ..Table::default()
        })
    }
}

/// What the trace files said besides the traffic.
pub struct Replay {
    pub files: Vec<TraceFile>,
    pub observed: Vec<ObservedMinute>,
}

/// Reads `--trace` files into a scenario that replays them on the flags' table.
pub fn trace_scenario(args: &TraceArgs) -> anyhow::Result<(Scenario, Replay)> {
    let table = args.table()?;
    let load = load_traces(&args.trace, &args.options())?;
    // Said on standard error whatever the output's format (also in the table's sources and the JSON's).
    for f in &load.files {
        if let Some(note) = f.tail_note() {
            eprintln!("shardlens: {}: {note}", f.path.display());
        }
    }
    let setup = replay_setup(load.trace, table);
    Ok((
        Scenario {
            name: format!("replay of {}", load.name),
            description: String::new(),
            setup,
            keys: Vec::new(),
        },
        Replay {
            files: load.files,
            observed: load.observed,
        },
    ))
}

/// `start`, `source`, each modelled minute's whole UTC `minute` and, when CloudWatch figures were read,
/// `observed` and `agreement`.
pub fn add_replay(doc: &mut serde_json::Value, setup: &Setup, replay: &Replay, o: &Outcome) {
    doc["start"] = json!(iso(setup.start));
    add_minute_stamps(doc, setup);
    doc["source"] = json!(replay.files.iter().map(file_json).collect::<Vec<_>>());
    if !replay.observed.is_empty() {
        doc["observed"] = json!(
            replay
                .observed
                .iter()
                .map(|m| observed_json(m, setup.start))
                .collect::<Vec<_>>()
        );
        doc["agreement"] = agreement_json(&agreement_of(setup, replay, o));
    }
}

/// Each of `minutes` gets `minute`: the start of its whole UTC minute (ISO 8601), also for a partial first
/// minute, whose `t` is 0.
pub fn add_minute_stamps(doc: &mut serde_json::Value, setup: &Setup) {
    if let Some(minutes) = doc["minutes"].as_array_mut() {
        for m in minutes {
            let t = m["t"].as_i64().unwrap_or(0);
            m["minute"] = json!(iso((setup.start + t).div_euclid(60) * 60));
        }
    }
}

fn file_json(f: &TraceFile) -> serde_json::Value {
    json!({
        "path": f.path.display().to_string(),
        "format": f.format.map(TraceFormat::as_str),
        "format_chosen": f.chosen,
        "records": f.records,
        "keys": f.keys,
        "first": f.first.map(|m| iso(m.div_euclid(1_000_000))),
        "last": f.last.map(|m| iso(m.div_euclid(1_000_000))),
        "skipped": f.skipped,
        "ignored_trailing_bytes": f.ignored_tail,
        "assumed": f.assumed,
        "throttled_keys": f.throttled_keys.iter().map(|(key, n)| json!({
            "key": key, "throttled_requests": n,
        })).collect::<Vec<_>>(),
        "throttled_by_period": f.throttled_periods.iter().map(|p| json!({
            "start": iso(p.start),
            "seconds": p.seconds,
            "keys": p.keys.iter().map(|(key, n)| json!({
                "key": key, "throttled_requests": n,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn observed_json(m: &ObservedMinute, start: i64) -> serde_json::Value {
    // `t` is negative for the minute a trace starts in when it starts mid-minute.
    let mut v = json!({ "t": m.minute - start, "minute": iso(m.minute) });
    for (name, x) in [
        ("consumed_read_units", m.consumed_read_units),
        ("consumed_write_units", m.consumed_write_units),
        ("read_throttle_events", m.read_throttle_events),
        ("write_throttle_events", m.write_throttle_events),
        ("throttled_requests", m.throttled_requests),
    ] {
        if let Some(x) = x {
            v[name] = json!(x);
        }
    }
    // Each reason metric by the snake case of its CloudWatch name.
    for (metric, x) in m.reason_events() {
        v[metric.snake_name()] = json!(x);
    }
    v
}

/// Observed against modelled throttle events on whole UTC minutes: totals, and the minutes where they differ
/// most (each named by its start, `minute`, and its second from the run's start, `t`).
pub fn agreement_of(setup: &Setup, replay: &Replay, o: &Outcome) -> Agreement {
    agreement(setup, o, &ObservedMinute::events(&replay.observed))
}

fn agreement_json(a: &Agreement) -> serde_json::Value {
    json!({
        "observed_throttle_events": a.observed_total,
        "modelled_throttle_events": a.modelled_total,
        "minutes_compared": a.minutes.len(),
        "differ_most": a.differ_most(5).iter().map(|m| json!({
            "t": m.t, "minute": iso(m.minute), "observed": m.observed, "modelled": m.modelled,
        })).collect::<Vec<_>>(),
        "by_reason": a.by_reason.iter().map(|r| json!({
            "metric": r.metric.snake_name(),
            "reason": r.metric.cause.as_str(),
            "observed": r.observed,
            "modelled": r.modelled,
            "sharding_can_help": r.metric.is_key_range(),
            "first_minute": r.span.map(|(from, _)| iso(from)),
            "last_minute": r.span.map(|(_, until)| iso(until - 60)),
        })).collect::<Vec<_>>(),
    })
}

/// The replay's throttling by reason, observed beside modelled, when the files held the reason metrics: one
/// line ("by reason (CloudWatch / model): KeyRange write 1,234 / 120,000 (sharding can help); …").
pub fn print_reasons(
    out: &mut dyn Write,
    setup: &Setup,
    replay: &Replay,
    o: &Outcome,
) -> std::io::Result<()> {
    if replay.observed.is_empty() {
        return Ok(());
    }
    let a = agreement_of(setup, replay, o);
    if a.by_reason.is_empty() {
        return Ok(());
    }
    let rows: Vec<String> = a
        .by_reason
        .iter()
        .map(|r| {
            format!(
                "{} {} / {}{}",
                r.metric.short(),
                r.observed
                    .map_or("not read".to_owned(), |x| grouped(x.round() as u64)),
                grouped(r.modelled.round() as u64),
                if r.metric.is_key_range() {
                    " (a hot partition: sharding can help)"
                } else {
                    " (the table's or account's limit: sharding cannot help)"
                }
            )
        })
        .collect();
    writeln!(out)?;
    writeln!(
        out,
        "throttle events by reason (CloudWatch / model, in the minutes compared): {}",
        rows.join("; ")
    )
}

/// The what-if line: the same trace sharded (×`shards`, or ×10), on-demand, and at twice the capacity.
pub fn print_what_if(
    out: &mut dyn Write,
    setup: &Setup,
    o: &Outcome,
    shards: u32,
    hot_share: Option<f64>,
    separator: &str,
) -> std::io::Result<()> {
    let throttled = |o: &Outcome| {
        let s = &o.series;
        (s.read_throttled_units.iter().sum::<f64>() + s.write_throttled_units.iter().sum::<f64>())
            * f64::from(o.step_seconds)
    };
    let n = if shards > 1 { shards } else { 10 };
    let mut sharded = setup.clone();
    shard_keys(&mut sharded, n, hot_share, separator);
    let mut on_demand = setup.clone();
    on_demand.table = setup.table.on_demand();
    let mut doubled = setup.clone();
    doubled.table = setup.table.twice_the_capacity();
    let said = |x: f64| format!("{} units throttled", grouped(x.round() as u64));
    writeln!(out)?;
    writeln!(
        out,
        "what if: as replayed {}; sharded ×{n}{} {}; on-demand {}; twice the capacity {}",
        said(throttled(o)),
        if hot_share.is_some() {
            " (hot keys)"
        } else {
            ""
        },
        said(throttled(&run(&sharded))),
        said(throttled(&run(&on_demand))),
        said(throttled(&run(&doubled))),
    )
}

/// Contributor Insights' most throttled keys period by period: the 10 periods with the most throttled
/// requests, in time order, three keys each.
fn print_throttled_periods(
    out: &mut dyn Write,
    periods: &[crate::source::trace::ThrottledPeriod],
) -> std::io::Result<()> {
    if periods.is_empty() {
        return Ok(());
    }
    let total = |p: &crate::source::trace::ThrottledPeriod| p.keys.iter().map(|k| k.1).sum::<f64>();
    let mut busiest: Vec<&crate::source::trace::ThrottledPeriod> = periods.iter().collect();
    busiest.sort_by(|a, b| total(b).total_cmp(&total(a)).then(a.start.cmp(&b.start)));
    busiest.truncate(10);
    busiest.sort_by_key(|p| p.start);
    writeln!(
        out,
        "    most throttled keys by period (observed{}):",
        if periods.len() > busiest.len() {
            format!(", the {} busiest of {}", busiest.len(), periods.len())
        } else {
            String::new()
        }
    )?;
    for p in busiest {
        let top: Vec<String> = p
            .keys
            .iter()
            .take(3)
            .map(|(k, n)| format!("{k} ({})", grouped(n.round() as u64)))
            .collect();
        writeln!(
            out,
            "      {} +{} s: {}",
            iso(p.start),
            p.seconds,
            top.join(", ")
        )?;
    }
    Ok(())
}

/// The story's lines about the files: per file its format, records, keys, time span and assumptions.
pub fn print_sources(out: &mut dyn Write, setup: &Setup, replay: &Replay) -> std::io::Result<()> {
    let lead = setup.start.rem_euclid(60);
    writeln!(
        out,
        "trace: t = 0 is {} (UTC, the first record's second){}; {} per {}",
        iso(setup.start),
        if lead > 0 {
            format!(
                "; minutes are whole UTC minutes, so the first, from {} to {}, is partial ({} s)",
                iso(setup.start),
                iso(setup.start - lead + 60),
                60 - lead
            )
        } else {
            String::new()
        },
        if setup.step == 60 {
            "longer than a day, reported"
        } else {
            "reported"
        },
        if setup.step == 60 { "minute" } else { "second" }
    )?;
    for f in &replay.files {
        writeln!(
            out,
            "  {}: {} ({}), {}, {}{}",
            f.path.display(),
            f.format.map_or("?", TraceFormat::describe),
            f.chosen,
            plural(f.records, "record"),
            plural(f.keys, "key"),
            if f.skipped > 0 {
                format!(", {} skipped", plural(f.skipped, "bad record"))
            } else {
                String::new()
            }
        )?;
        if let Some(note) = f.tail_note() {
            writeln!(out, "    {note}")?;
        }
        for a in &f.assumed {
            writeln!(out, "    assumed: {}", a.as_str())?;
        }
        if !f.throttled_keys.is_empty() {
            let top: Vec<String> = f
                .throttled_keys
                .iter()
                .take(5)
                .map(|(k, n)| format!("{k} ({})", grouped(n.round() as u64)))
                .collect();
            writeln!(
                out,
                "    most throttled keys (observed): {}{}",
                top.join(", "),
                if f.throttled_keys.len() > 5 {
                    ", …"
                } else {
                    ""
                }
            )?;
        }
        print_throttled_periods(out, &f.throttled_periods)?;
    }
    Ok(())
}
