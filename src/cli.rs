//! The headless commands. They print the same model results the app shows.

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::model::export::{HASH_NOTE, buckets_csv, report_doc};
use crate::model::shard::{DEFAULT_HOT_SHARE, MAX_SHARDS};
use crate::model::{
    KeySet, KeyType, Scope, ShardPlan, Strategy, UserAnswers, ViewSettings, evaluate, report,
};
use crate::source::dynamo::{
    ConnectOptions, DEFAULT_MAX_RCU, DEFAULT_SEGMENTS, DynamoClient, MAX_SEGMENTS, ScanEvent,
    ScanOptions, ScanStatus,
};
use crate::source::{self, Loaded};

/// See how DynamoDB partition keys spread over partitions.
///
/// With no command, opens the desktop app.
#[derive(Debug, Parser)]
#[command(name = "shardlens", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyse keys from a file or standard input: buckets, top keys, skew, sharding, decision.
    Analyze(AnalyzeArgs),
    /// Read the keys of a live DynamoDB table (a keys-only parallel Scan, read-only) and analyse them.
    Scan(ScanArgs),
    /// List the DynamoDB tables of an account and region, with their key schemas.
    Tables(TablesArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    Random,
    Calculated,
    RoundRobin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    All,
    Hot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeyTypeArg {
    #[value(name = "S")]
    S,
    #[value(name = "N")]
    N,
    #[value(name = "B")]
    B,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// File of keys, one per line (`pk` or `pk<TAB>sk`); `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub view: ViewArgs,
}

/// Options shared by every command that prints an analysis.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Buckets (partitions) over the hash range.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub buckets: u32,
    /// Shards per sharded key (1 = no sharding).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SHARDS)))]
    pub shards: u32,
    /// How a write picks its suffix.
    #[arg(long, value_enum, default_value_t = StrategyArg::Random)]
    pub shard_strategy: StrategyArg,
    /// Which keys get a suffix: every key, or keys above --hot-share of writes.
    #[arg(long, value_enum, default_value_t = ScopeArg::Hot)]
    pub shard_scope: ScopeArg,
    /// With --shard-scope hot: the share of all writes (0-1) above which a key is hot.
    #[arg(long, default_value_t = DEFAULT_HOT_SHARE, value_parser = parse_share)]
    pub hot_share: f64,
    /// Text between a key and its shard number.
    #[arg(long, default_value = "#")]
    pub separator: String,
    /// Seed of the random strategy (the same seed gives the same split).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Type of the partition key.
    #[arg(long, value_enum, ignore_case = true, default_value_t = KeyTypeArg::S)]
    pub key_type: KeyTypeArg,
    /// Top keys to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Answer "Is one item hot?" yourself when the data has no sort keys.
    #[arg(long)]
    pub one_item: Option<bool>,
}

/// How to reach DynamoDB (shared by `scan` and `tables`). Credentials come from the default AWS chain:
/// environment, shared profiles, SSO, `credential_process`, instance roles.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// Named AWS profile from ~/.aws/config (SSO profiles work after `aws sso login`).
    #[arg(long)]
    pub profile: Option<String>,
    /// AWS region, e.g. eu-west-1 (default: AWS_REGION or the profile's region).
    #[arg(long)]
    pub region: Option<String>,
    /// Endpoint of a local server such as DynamoDB Local or dynalite, e.g. http://localhost:8000
    /// (AWS_ENDPOINT_URL_DYNAMODB works too).
    #[arg(long, value_name = "URL")]
    pub endpoint_url: Option<String>,
    /// Seconds to wait for the answer to one request before giving up.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Seconds to wait for a connection.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0, value_parser = parse_seconds)]
    pub connect_timeout: f64,
}

impl ConnectArgs {
    pub fn options(&self) -> ConnectOptions {
        ConnectOptions {
            profile: self.profile.clone(),
            region: self.region.clone(),
            endpoint: self.endpoint_url.clone(),
            credentials: None,
            connect_timeout: std::time::Duration::from_secs_f64(self.connect_timeout),
            attempt_timeout: std::time::Duration::from_secs_f64(self.timeout),
        }
    }
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The table to scan. Only its key attributes are read (ProjectionExpression), and nothing is written.
    #[arg(long)]
    pub table: String,
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Parallel scan segments (TotalSegments).
    #[arg(long, default_value_t = DEFAULT_SEGMENTS, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SEGMENTS)))]
    pub segments: u32,
    /// Cap on consumed read capacity units per second, over all segments (0 = no cap).
    #[arg(long, value_name = "RCU", default_value_t = DEFAULT_MAX_RCU, value_parser = parse_rcu)]
    pub max_rcu: f64,
    /// Stop after this many items; the result is labelled a sample.
    #[arg(long, value_name = "ITEMS", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Also read the sort key: per-key item counts and "sort key only increases".
    #[arg(long)]
    pub with_sort_key: bool,
    /// Strongly consistent reads (twice the read units of the default eventual consistency).
    #[arg(long)]
    pub consistent: bool,
    /// Items evaluated per Scan request (Limit); by default shardlens sizes pages to the --max-rcu cap.
    #[arg(long, value_name = "ITEMS", value_parser = clap::value_parser!(u32).range(1..))]
    pub page_size: Option<u32>,
    /// The key type comes from the table; --key-type is ignored here.
    #[command(flatten)]
    pub view: ViewArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TablesFormat {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct TablesArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TablesFormat::Table)]
    pub format: TablesFormat,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(v),
        Ok(_) => Err("must be above 0 and at most 86400 seconds".to_owned()),
        Err(_) => Err(format!("{text:?} is not a number of seconds")),
    }
}

fn parse_rcu(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "{text:?} is not a number of read units per second (0 = no cap)"
        )),
    }
}

fn parse_share(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err("must be at least 0 and below 1".to_owned())
    }
}

impl ViewArgs {
    pub fn view_settings(&self) -> ViewSettings {
        ViewSettings {
            buckets: self.buckets as usize,
            shard: ShardPlan {
                shards: self.shards,
                strategy: match self.shard_strategy {
                    StrategyArg::Random => Strategy::Random,
                    StrategyArg::Calculated => Strategy::Calculated,
                    StrategyArg::RoundRobin => Strategy::RoundRobin,
                },
                scope: match self.shard_scope {
                    ScopeArg::All => Scope::All,
                    ScopeArg::Hot => Scope::Hot {
                        threshold: self.hot_share,
                    },
                },
                separator: self.separator.clone(),
                seed: self.seed,
            },
            top_n: self.top,
        }
    }

    pub fn key_type(&self) -> KeyType {
        match self.key_type {
            KeyTypeArg::S => KeyType::S,
            KeyTypeArg::N => KeyType::N,
            KeyTypeArg::B => KeyType::B,
        }
    }
}

/// Runs a headless command; returns the process exit code (0 ok, 1 bad input or failure).
pub fn run(command: Command) -> i32 {
    let result = match command {
        Command::Analyze(args) => analyze(&args),
        Command::Scan(args) => scan(&args),
        Command::Tables(args) => tables(&args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shardlens: {e:#}");
            1
        }
    }
}

fn analyze(args: &AnalyzeArgs) -> anyhow::Result<()> {
    let cancel = AtomicBool::new(false);
    let key_type = args.view.key_type();
    let (name, loaded) = match args.file.as_deref() {
        None => read_stdin(key_type, &cancel)?,
        Some(p) if p == Path::new("-") => read_stdin(key_type, &cancel)?,
        Some(path) => (
            path.display().to_string(),
            source::load_path(path, key_type, &cancel, &mut |_| {})?,
        ),
    };
    let mut out = std::io::stdout().lock();
    print_analysis(&mut out, &name, &loaded.keys, &args.view).context("cannot write the output")?;
    Ok(())
}

fn scan(args: &ScanArgs) -> anyhow::Result<()> {
    let client = DynamoClient::connect(&args.connect.options())?;
    let opts = ScanOptions {
        segments: args.segments,
        max_rcu: (args.max_rcu > 0.0).then_some(args.max_rcu),
        limit: args.limit,
        with_sort_key: args.with_sort_key,
        consistent: args.consistent,
        page_size: args.page_size,
        ..ScanOptions::new(args.table.clone())
    };
    let cap = opts.max_rcu.map_or_else(
        || "no read-capacity cap".to_owned(),
        |r| format!("at most {r} RCU/s"),
    );
    let live = std::io::stderr().is_terminal();
    if live {
        eprintln!(
            "shardlens: scanning {} with {} segments, {cap} ({})",
            args.table,
            opts.segments,
            client.describe_target()
        );
    }
    let cancel = AtomicBool::new(false);
    let scanned = client.scan(&opts, &cancel, &mut |event| {
        if live && let ScanEvent::Page { progress, .. } | ScanEvent::Throttled { progress } = &event
        {
            eprint!("\r\x1b[2K{}", progress.summary());
        }
    })?;
    if live {
        eprintln!();
    }
    let p = &scanned.progress;
    let name = match &scanned.status {
        ScanStatus::Complete => args.table.clone(),
        ScanStatus::Sample { limit } => format!("{} (sample: first {limit} items)", args.table),
        ScanStatus::Cancelled | ScanStatus::Failed(_) => {
            format!("{} (partial: {} items read)", args.table, p.items)
        }
    };
    let mut out = std::io::stdout().lock();
    print_analysis(&mut out, &name, &scanned.keys, &args.view)
        .context("cannot write the output")?;
    eprintln!(
        "shardlens: {}: {} items in {} pages, {:.1} RCU consumed in {:.1} s ({:.0} items/s, {:.1} RCU/s; {cap}){}",
        scanned.status.describe(),
        p.items,
        p.pages,
        p.rcu,
        p.elapsed.as_secs_f64(),
        p.items_per_sec(),
        p.rcu_per_sec(),
        if p.retries > 0 {
            format!("; {} retries after throttling", p.retries)
        } else {
            String::new()
        }
    );
    if let ScanStatus::Failed(e) = &scanned.status {
        anyhow::bail!(
            "the scan of {} stopped after {} items (the analysis above is partial): {e}",
            args.table,
            p.items
        );
    }
    Ok(())
}

fn tables(args: &TablesArgs) -> anyhow::Result<()> {
    let client = DynamoClient::connect(&args.connect.options())?;
    let names = client.list_tables()?;
    let mut infos = Vec::with_capacity(names.len());
    for name in &names {
        infos.push(client.describe_table(name)?);
    }
    let mut out = std::io::stdout().lock();
    match args.format {
        TablesFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &infos).context("cannot write the output")?;
            writeln!(out)?;
        }
        TablesFormat::Table => {
            if infos.is_empty() {
                writeln!(out, "no tables ({})", client.describe_target())?;
            }
            for t in &infos {
                let count = |v: Option<i64>| v.map_or_else(|| "?".to_owned(), |n| n.to_string());
                writeln!(
                    out,
                    "{}\t{}\t{}\t{} items, {} bytes (as reported){}",
                    t.name,
                    t.describe_keys(),
                    t.billing,
                    count(t.item_count),
                    count(t.size_bytes),
                    index_note(t.local_indexes.len(), t.global_indexes.len())
                )?;
            }
        }
    }
    Ok(())
}

fn index_note(lsi: usize, gsi: usize) -> String {
    match (lsi, gsi) {
        (0, 0) => String::new(),
        (l, g) => format!("; {l} LSI, {g} GSI"),
    }
}

fn read_stdin(key_type: KeyType, cancel: &AtomicBool) -> anyhow::Result<(String, Loaded)> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        eprintln!("shardlens: reading keys from standard input (one per line; end with Ctrl+D)");
    }
    let loaded = source::load_lines(
        stdin.lock(),
        Path::new("standard input"),
        key_type,
        None,
        cancel,
        &mut |_| {},
    )?;
    Ok(("-".to_owned(), loaded))
}

/// Prints the analysis of `keys` in the chosen format.
pub fn print_analysis(
    out: &mut dyn Write,
    name: &str,
    keys: &KeySet,
    view_args: &ViewArgs,
) -> std::io::Result<()> {
    let view = view_args.view_settings();
    let rep = report(keys, &view);
    let answers = UserAnswers {
        one_item: view_args.one_item,
        ..UserAnswers::default()
    };
    let decision = evaluate(&rep.evidence, &answers);
    match view_args.format {
        OutputFormat::Json => {
            let doc = report_doc(name.to_owned(), keys, &view, &rep, &decision);
            serde_json::to_writer_pretty(&mut *out, &doc).map_err(std::io::Error::other)?;
            writeln!(out)
        }
        OutputFormat::Csv => out.write_all(buckets_csv(&rep, view.buckets).as_bytes()),
        OutputFormat::Table => {
            let a = &rep.analysis;
            if a.total == 0 {
                return writeln!(out, "no keys in {name}: nothing to analyse");
            }
            writeln!(
                out,
                "{name}: {} writes, {} distinct keys ({}), {} buckets",
                a.total,
                a.distinct,
                keys.key_type().describe(),
                a.buckets.len()
            )?;
            if view.shard.is_active() {
                writeln!(
                    out,
                    "sharding: {} shards, {}, {} key(s) sharded → {} physical keys; reading one sharded key takes {} queries",
                    view.shard.shards,
                    view.shard.strategy.label(),
                    rep.sharded_keys.len(),
                    a.physical_distinct,
                    rep.read_fan_out
                )?;
            }
            writeln!(out, "hash: {HASH_NOTE}")?;
            writeln!(out)?;
            let max = a.buckets.iter().copied().max().unwrap_or(0).max(1);
            let width = a.buckets.len().to_string().len();
            let count_width = max.to_string().len();
            writeln!(
                out,
                "{:>width$}  {:>count_width$}  {:>6}  ",
                "#", "writes", "share"
            )?;
            for (i, &c) in a.buckets.iter().enumerate() {
                let bar_len = ((c as f64 / max as f64) * 40.0).round() as usize;
                let top = a.bucket_top[i]
                    .first()
                    .map_or(String::new(), |k| format!("  top: {} ({})", k.key, k.count));
                writeln!(
                    out,
                    "{i:>width$}  {c:>count_width$}  {:>5.1}%  {:<40}{top}",
                    crate::model::stats::share(c, a.total) * 100.0,
                    "█".repeat(bar_len),
                )?;
            }
            writeln!(out)?;
            writeln!(
                out,
                "skew: hottest bucket {} = {:.1}% of writes, {:.2}× the mean; Gini {:.3}",
                a.hottest_bucket,
                a.skew.hottest_bucket_share * 100.0,
                a.skew.max_over_mean,
                a.skew.gini
            )?;
            writeln!(out)?;
            writeln!(out, "top keys:")?;
            for k in &a.top_keys {
                writeln!(
                    out,
                    "  {:>6.2}%  {:>10}  {}",
                    k.share * 100.0,
                    k.count,
                    k.key
                )?;
            }
            writeln!(out)?;
            writeln!(out, "decision:")?;
            for step in &decision.path {
                writeln!(
                    out,
                    "  {} {}{}\n      {}",
                    step.question,
                    step.answer.as_str(),
                    if step.supplied { " (your answer)" } else { "" },
                    step.evidence
                )?;
            }
            writeln!(out, "  → {}", decision.recommendation)
        }
    }
}
