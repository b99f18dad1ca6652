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
use crate::source::{self, Loaded};

/// See how DynamoDB partition keys spread over partitions.
///
/// With no command, opens the desktop app.
#[derive(Debug, Parser)]
#[command(name = "shardlens", version, about, long_about = None, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Files of keys to open in the app.
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyse keys from a file or standard input: buckets, top keys, skew, sharding, decision.
    Analyze(AnalyzeArgs),
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
