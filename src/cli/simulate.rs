//! `shardlens simulate`: a scenario over time, printed as a story (phases, events, totals, the per-minute
//! CloudWatch view), as JSON, or as CSV rows of the series.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Args;
use serde_json::json;

use crate::model::capacity::ThrottleResource;
use crate::model::decision::{UserAnswers, evaluate};
use crate::model::examples::time::{EXAMPLES, example};
use crate::model::export::DecisionDoc;
use crate::model::fmt::grouped;
use crate::model::shard::{DEFAULT_HOT_SHARE, MAX_SHARDS};
use crate::model::sim_file::Scenario;
use crate::model::simulate::{
    Billing, Diagnosis, Outcome, Setup, diagnose, key_evidence, run_streaming,
};

use super::args::{OutputFormat, ScopeArg};
use super::trace::{self, TraceArgs};

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// A scenario file (TOML; see docs/time.md). Omit it with --example.
    pub scenario: Option<PathBuf>,
    /// A built-in scenario instead of a file: adaptive, burst, tournament-monotonic, tournament-random,
    /// tournament-sharded, celebrity-reads, date-key, spike, on-demand-growth, autoscaling.
    #[arg(long)]
    pub example: Option<String>,
    /// Output: a readable story, JSON, or CSV rows of the series.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
    /// Write-shard the streams' keys over N suffixes (1 = off, up to 200): each suffix takes an equal share.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SHARDS)))]
    pub shards: u32,
    /// Shard every key, or only keys above --hot-share of their stream.
    #[arg(long, value_enum, default_value = "hot")]
    pub shard_scope: ScopeArg,
    /// The share (0–1) of a stream above which a key is hot.
    #[arg(long, default_value_t = DEFAULT_HOT_SHARE)]
    pub hot_share: f64,
    /// Text between key and shard number.
    #[arg(long, default_value = "#")]
    pub separator: String,
    #[command(flatten)]
    pub replay: TraceArgs,
}

/// Reads the scenario (a file or a built-in), with its key files.
pub fn load_scenario(args: &SimulateArgs) -> anyhow::Result<Scenario> {
    let (text, base, label) = match (&args.scenario, &args.example) {
        (Some(_), Some(_)) => bail!("give a scenario file or --example, not both"),
        (None, None) => bail!(
            "give a scenario file, or --example NAME (one of: {})",
            EXAMPLES
                .iter()
                .map(|e| e.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, Some(name)) => {
            let Some(e) = example(name) else {
                bail!(
                    "no built-in scenario {name:?}; there are: {}",
                    EXAMPLES
                        .iter()
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            };
            (e.toml.to_owned(), None, format!("example {name}"))
        }
        (Some(path), None) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            (
                text,
                path.parent().map(Path::to_path_buf),
                path.display().to_string(),
            )
        }
    };
    let mut scenario = crate::source::scenario::parse_scenario(&text, base.as_deref(), &label)?;
    apply_shards(&mut scenario, args);
    Ok(scenario)
}

/// The shard options of `analyze`, applied to the streams: each sharded key becomes N keys with equal shares.
fn apply_shards(scenario: &mut Scenario, args: &SimulateArgs) {
    let hot = hot_share(args);
    crate::model::simulate::shard_keys(&mut scenario.setup, args.shards, hot, &args.separator);
}

fn hot_share(args: &SimulateArgs) -> Option<f64> {
    (args.shard_scope != ScopeArg::All).then_some(args.hot_share)
}

/// `shardlens simulate`.
pub fn simulate(args: &SimulateArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let (scenario, replay) = if args.replay.trace.is_empty() {
        (load_scenario(args)?, None)
    } else {
        if args.scenario.is_some() || args.example.is_some() {
            bail!("give --trace or a scenario, not both");
        }
        let (mut scenario, replay) = trace::trace_scenario(&args.replay)?;
        let unsharded = scenario.setup.clone();
        apply_shards(&mut scenario, args);
        (scenario, Some((replay, unsharded)))
    };
    let Some((outcome, timeline)) = run_streaming(&scenario.setup, &mut |_| true) else {
        bail!("the simulation was cancelled");
    };
    let mut diagnosis = diagnose(&scenario.setup, &outcome, &timeline);
    let mut evidence = key_evidence(&scenario.setup);
    if let Some((replay, _)) = &replay
        && !replay.observed.is_empty()
    {
        // What CloudWatch observed beside what the model throttles, in the headline and the findings, and
        // for the tree (its reasons answer the first question).
        let setup = &scenario.setup;
        let keys_known = !setup.trace.as_ref().is_some_and(|t| t.only_stand_ins());
        let a = trace::agreement_of(setup, replay, &outcome);
        crate::model::simulate::reconcile(&mut diagnosis, setup, &a, keys_known);
        evidence = a.evidence(&evidence, ThrottleResource::Table);
    }
    // The tree as the app's Timeline walks it: the table's local index is a fact of the scenario.
    let decision = evaluate(
        &evidence,
        &UserAnswers {
            has_lsi: Some(scenario.setup.table.lsi),
            ..UserAnswers::default()
        },
    );
    match args.format {
        OutputFormat::Table => {
            let sources = replay.as_ref().map(|(r, _)| r);
            print_story(out, &scenario, &outcome, &diagnosis, sources)?;
            if let Some((replay, unsharded)) = &replay {
                trace::print_reasons(out, &scenario.setup, replay, &outcome)?;
                let hot = hot_share(args);
                trace::print_what_if(out, unsharded, &outcome, args.shards, hot, &args.separator)?;
            }
            writeln!(out)?;
            super::table::print_decision(out, &decision)?;
        }
        OutputFormat::Json => {
            let mut doc = outcome_json(&scenario, &outcome);
            add_diagnosis(&mut doc, &diagnosis);
            doc["decision"] = serde_json::to_value(DecisionDoc::of(&decision))?;
            if let Some((replay, _)) = &replay {
                trace::add_replay(&mut doc, &scenario.setup, replay, &outcome);
            } else if scenario.setup.trace.is_some() {
                // A scenario file's trace: t = 0 is a real time.
                doc["start"] = serde_json::json!(crate::model::trace::iso(scenario.setup.start));
                trace::add_minute_stamps(&mut doc, &scenario.setup);
            }
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        }
        OutputFormat::Csv => print_csv(out, &outcome)?,
    }
    Ok(())
}

/// A second of the run as the story says it: `hh:mm:ss` from the start, or for a replayed trace its real time
/// of day in UTC (with the month and day for traces over a day), without the " UTC" the findings' words carry
/// (the report's header says the clock once).
fn at(setup: &Setup, t: u32) -> String {
    let said = crate::model::simulate::when(setup, t);
    match said.strip_suffix(" UTC") {
        Some(time) => time.to_owned(),
        None => said,
    }
}

/// `hh:mm:ss` of a second from the start.
pub fn clock(t: u32) -> String {
    format!("{:02}:{:02}:{:02}", t / 3_600, t / 60 % 60, t % 60)
}

/// The JSON document of a run (the fields docs/time.md lists).
pub fn outcome_json(scenario: &Scenario, o: &Outcome) -> serde_json::Value {
    let s = &o.series;
    json!({
        "name": scenario.name,
        "description": scenario.description,
        "step_seconds": o.step_seconds,
        "series": {
            "t": s.t,
            "read_demand_units": s.read_demand_units,
            "read_served_units": s.read_served_units,
            "read_throttled_units": s.read_throttled_units,
            "write_demand_units": s.write_demand_units,
            "write_served_units": s.write_served_units,
            "write_throttled_units": s.write_throttled_units,
            "throttled_requests": s.throttled_requests,
            "partitions": s.partitions,
        },
        "minutes": o.minutes.iter().map(|m| json!({
            "t": m.t,
            "consumed_read_units": m.consumed_read_units,
            "consumed_write_units": m.consumed_write_units,
            "read_throttle_events": m.read_throttle_events,
            "write_throttle_events": m.write_throttle_events,
            "throttle_reasons": m.throttle_reasons.iter().map(|(r, n)| (r.clone(), json!(n))).collect::<serde_json::Map<String, serde_json::Value>>(),
        })).collect::<Vec<_>>(),
        "events": o.events.iter().map(|e| json!({
            "t": e.t,
            "kind": e.kind.as_str(),
            "partition": e.partition,
            "detail": e.detail,
        })).collect::<Vec<_>>(),
        "final_partitions": o.final_partitions.iter().map(|p| json!({
            "start_hash": format!("{:#018x}", p.start_hash),
            "start_sort_key": p.start_sort_key,
            "read_units": p.read_units,
            "write_units": p.write_units,
        })).collect::<Vec<_>>(),
    })
}

/// Adds `headline` and `diagnostics` (kind, text, span, partition) to a run's JSON document.
pub fn add_diagnosis(doc: &mut serde_json::Value, d: &Diagnosis) {
    doc["headline"] = json!(d.headline);
    doc["diagnostics"] = json!(
        d.findings
            .iter()
            .map(|f| json!({
                "kind": f.kind.as_str(),
                "text": f.text,
                "from": f.from,
                "until": f.until,
                "partition": f.partition,
            }))
            .collect::<Vec<_>>()
    );
}

fn print_csv(out: &mut dyn Write, o: &Outcome) -> std::io::Result<()> {
    writeln!(
        out,
        "t,read_demand_units,read_served_units,read_throttled_units,write_demand_units,write_served_units,\
         write_throttled_units,throttled_requests,partitions"
    )?;
    let s = &o.series;
    for i in 0..s.t.len() {
        writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            s.t[i],
            s.read_demand_units[i],
            s.read_served_units[i],
            s.read_throttled_units[i],
            s.write_demand_units[i],
            s.write_served_units[i],
            s.write_throttled_units[i],
            s.throttled_requests[i],
            s.partitions[i]
        )?;
    }
    Ok(())
}

/// Stretches of the run where throttling (on or off) and the served rate stay about the same.
fn phases(o: &Outcome) -> Vec<(usize, usize)> {
    let s = &o.series;
    let level = |i: usize| {
        let served = s.read_served_units[i] + s.write_served_units[i];
        let throttled = s.read_throttled_units[i] + s.write_throttled_units[i];
        (served, throttled)
    };
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..s.t.len() {
        let (a, ta) = level(start);
        let (b, tb) = level(i);
        let changed = (ta > 0.0) != (tb > 0.0) || (b - a).abs() > 0.05 * a.max(b).max(1.0);
        if changed {
            out.push((start, i));
            start = i;
        }
    }
    if !s.t.is_empty() {
        out.push((start, s.t.len()));
    }
    out
}

/// The scenario and its table, in two lines.
fn print_setup(out: &mut dyn Write, sc: &Scenario, o: &Outcome) -> std::io::Result<()> {
    let setup = &sc.setup;
    let s = &o.series;
    writeln!(out, "scenario: {}", sc.name)?;
    if !sc.description.is_empty() {
        writeln!(out, "  {}", sc.description)?;
    }
    let billing = match &setup.table.billing {
        Billing::Provisioned { units } => format!(
            "provisioned {} RCU / {} WCU{}",
            grouped(units[0] as u64),
            grouped(units[1] as u64),
            if setup.table.autoscaling.is_some() {
                " with auto scaling"
            } else {
                ""
            }
        ),
        Billing::OnDemand {
            previous_peak, max, ..
        } => {
            // The maximum (OnDemandThroughput), where one is set: 0 is none.
            let most: Vec<String> = [("reads", max[0]), ("writes", max[1])]
                .iter()
                .filter(|(_, m)| *m > 0.0)
                .map(|(what, m)| format!("{} {what}", grouped(*m as u64)))
                .collect();
            let most = if most.is_empty() {
                String::new()
            } else {
                format!("; at most {} per second", most.join(" / "))
            };
            format!(
                "on-demand (previous peak {} reads / {} writes per second{most})",
                grouped(previous_peak[0] as u64),
                grouped(previous_peak[1] as u64)
            )
        }
    };
    writeln!(
        out,
        "table: {billing}; {} partitions at the start; {} simulated at {} s steps",
        s.partitions.first().copied().unwrap_or(0),
        clock(setup.duration),
        o.step_seconds
    )?;
    writeln!(
        out,
        "  adaptive capacity {}, split-for-heat {} (after {} s)",
        if setup.table.adaptive_capacity {
            "on"
        } else {
            "off (before adaptive capacity)"
        },
        if setup.table.split_for_heat {
            "on"
        } else {
            "off"
        },
        setup.table.split_after
    )?;
    Ok(())
}

/// The readable story of a run: setup, headline and findings, phases, events, totals, the per-minute view.
fn print_story(
    out: &mut dyn Write,
    sc: &Scenario,
    o: &Outcome,
    d: &Diagnosis,
    replay: Option<&trace::Replay>,
) -> std::io::Result<()> {
    print_setup(out, sc, o)?;
    if let Some(replay) = replay {
        trace::print_sources(out, &sc.setup, replay)?;
    }
    writeln!(out)?;
    writeln!(out, "in short: {}", d.headline)?;
    for f in &d.findings {
        let (from, until) = (at(&sc.setup, f.from), at(&sc.setup, f.until));
        writeln!(out, "  {from}–{until}  {}", f.text)?;
    }
    print_phases(out, sc, o)?;
    print_events(out, &sc.setup, o)?;
    print_totals(out, o)?;
    print_minutes(out, &sc.setup, o)?;
    writeln!(out)?;
    writeln!(
        out,
        "final: {}. The hash is a teaching hash (xxh3), and the timings marked [ours] in docs/time.md are \
         modelling choices, not AWS numbers.",
        crate::model::fmt::plural(o.final_partitions.len() as u64, "partition")
    )?;
    Ok(())
}

/// Stretches of steady traffic, each with its mean served and throttled units.
fn print_phases(out: &mut dyn Write, sc: &Scenario, o: &Outcome) -> std::io::Result<()> {
    let setup = &sc.setup;
    let s = &o.series;
    writeln!(out)?;
    writeln!(out, "phases (units per second):")?;
    let list = phases(o);
    let shown = list.len().min(24);
    for &(a, b) in &list[..shown] {
        let n = (b - a) as f64;
        let avg = |v: &[f64]| v[a..b].iter().sum::<f64>() / n;
        let served = avg(&s.read_served_units) + avg(&s.write_served_units);
        let throttled = avg(&s.read_throttled_units) + avg(&s.write_throttled_units);
        let end = s.t.get(b).copied().unwrap_or(setup.duration);
        writeln!(
            out,
            "  {}–{}  served {:>9}  throttled {:>9}  partitions {}",
            at(setup, s.t[a]),
            at(setup, end),
            grouped(served.round() as u64),
            grouped(throttled.round() as u64),
            s.partitions[b - 1]
        )?;
    }
    if list.len() > shown {
        writeln!(
            out,
            "  … {} more phases (--format json has every second)",
            list.len() - shown
        )?;
    }
    Ok(())
}

fn print_events(out: &mut dyn Write, setup: &Setup, o: &Outcome) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(out, "events:")?;
    if o.events.is_empty() {
        writeln!(out, "  none")?;
    }
    for e in o.events.iter().take(40) {
        writeln!(
            out,
            "  {}  {:<16} {}",
            at(setup, e.t),
            e.kind.as_str(),
            e.detail
        )?;
    }
    if o.events.len() > 40 {
        writeln!(out, "  … {} more", o.events.len() - 40)?;
    }
    Ok(())
}

fn print_totals(out: &mut dyn Write, o: &Outcome) -> std::io::Result<()> {
    let s = &o.series;
    writeln!(out)?;
    let sum = |v: &[f64]| v.iter().sum::<f64>() * f64::from(o.step_seconds);
    let demand = sum(&s.read_demand_units) + sum(&s.write_demand_units);
    let throttled = sum(&s.read_throttled_units) + sum(&s.write_throttled_units);
    writeln!(
        out,
        "totals: demand {} units, served {}, throttled {} ({:.1} %), {} throttled requests",
        grouped(demand.round() as u64),
        grouped((demand - throttled).round() as u64),
        grouped(throttled.round() as u64),
        if demand > 0.0 {
            throttled / demand * 100.0
        } else {
            0.0
        },
        grouped(sum(&s.throttled_requests).round() as u64)
    )?;
    Ok(())
}

/// The per-minute view, as CloudWatch shows it.
fn print_minutes(out: &mut dyn Write, setup: &Setup, o: &Outcome) -> std::io::Result<()> {
    writeln!(out)?;
    writeln!(out, "per minute, as CloudWatch shows it (Sum):")?;
    writeln!(
        out,
        "  minute    consumed RCU   consumed WCU   read throttle events   write throttle events"
    )?;
    let every = o.minutes.len().div_ceil(30).max(1);
    for m in o.minutes.iter().step_by(every) {
        // hh:mm (a replay's time of day, with its date over a day): the stamp without its seconds.
        let stamp = at(setup, m.t);
        // A replay that starts mid-minute: its first minute is a whole UTC minute's part.
        let partial = if setup.trace.is_some() && m.t == 0 && setup.start.rem_euclid(60) != 0 {
            format!("  (partial: from {stamp})")
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {}  {:>13}  {:>13}  {:>21}  {:>22}{partial}",
            stamp
                .get(..stamp.len().saturating_sub(3))
                .unwrap_or_default(),
            grouped(m.consumed_read_units.round() as u64),
            grouped(m.consumed_write_units.round() as u64),
            grouped(m.read_throttle_events.round() as u64),
            grouped(m.write_throttle_events.round() as u64)
        )?;
    }
    if every > 1 {
        writeln!(out, "  (one minute in {every}; --format json has them all)")?;
    }
    Ok(())
}
