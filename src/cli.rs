//! The headless commands. They print the same model results the app shows.

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::model::capacity::{
    Billing, Capacity, Consistency, ItemSize, PartitionCount, RateSource, ThrottleReason, Workload,
};
use crate::model::export::{HASH_NOTE, buckets_csv, report_doc};
use crate::model::fmt::{percent, units};
use crate::model::shard::{DEFAULT_HOT_SHARE, MAX_SHARDS};
use crate::model::{
    KeySet, KeyType, Scope, ShardPlan, Strategy, UserAnswers, ViewSettings, evaluate, report,
};
use crate::source::dynamo::{
    ConnectOptions, DEFAULT_MAX_RCU, DEFAULT_SEGMENTS, DynamoClient, MAX_SEGMENTS, ScanEvent,
    ScanOptions, ScanStatus,
};
use crate::source::{self, FormatIn, LoadOptions, Loaded, OnBad};

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
    /// Read the keys of a live DynamoDB table (a keys-only parallel Scan, read-only) and analyse them.
    Scan(ScanArgs),
    /// List the DynamoDB tables of an account and region, with their key schemas.
    Tables(TablesArgs),
    /// Simulate a table over time from a scenario file (burst, adaptive capacity, split-for-heat, on-demand).
    Simulate(crate::simulate_cli::SimulateArgs),
    /// Print the SQL (Athena, DuckDB) that turns an S3 export too big for one machine into the `key,count`
    /// CSV shardlens loads exactly, aggregated where the export lives.
    Sql(SqlArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SqlEngine {
    Athena,
    Duckdb,
    Both,
}

#[derive(Debug, Args)]
pub struct SqlArgs {
    /// The export folder, `s3://bucket/prefix/AWSDynamoDB/<export-id>/` (DuckDB also takes a local folder).
    #[arg(long, value_name = "PATH")]
    pub export_path: String,
    /// Partition key attribute.
    #[arg(long, value_name = "ATTR")]
    pub key: String,
    /// Sort key attribute: adds an `items` column, the distinct sort keys of each partition key.
    #[arg(long, value_name = "ATTR")]
    pub sort_key: Option<String>,
    /// Which query to print.
    #[arg(long, value_enum, default_value_t = SqlEngine::Both)]
    pub engine: SqlEngine,
    /// The CSV file DuckDB writes (`key,count`).
    #[arg(long, value_name = "FILE", default_value = "keys.csv")]
    pub output: String,
    /// The CSV file DuckDB writes per data file (`data_file,items,distinct_keys`).
    #[arg(long, value_name = "FILE", default_value = "by-data-file.csv")]
    pub by_file_output: String,
    /// The Athena table the query creates over the export.
    #[arg(long, value_name = "NAME", default_value = "shardlens_export")]
    pub athena_table: String,
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

/// Input formats of `--format-in`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatInArg {
    /// Detect from each file's name and first bytes.
    Auto,
    /// Plain text, one key per line (`pk` or `pk<TAB>sk`).
    Lines,
    /// CSV with a header; optional `count` column.
    Csv,
    /// DynamoDB JSON lines, as an S3 export writes them (plain or .gz).
    DynamodbJson,
    /// `aws dynamodb scan` output (pages may be concatenated).
    ScanJson,
    /// Ion text export lines.
    Ion,
    /// Incremental export lines (writes per key).
    Incremental,
    /// NoSQL Workbench model (TableData and TableFacets; --table picks a table).
    Workbench,
    /// A JSON array of items, typed DynamoDB JSON or plain JSON, pretty-printed or not.
    JsonArray,
    /// JSON items one after another, typed or plain (plain JSON lines, put-item input).
    JsonItems,
    /// BatchWriteItem request file (--table picks a table).
    BatchWrite,
}

impl FormatInArg {
    pub fn format(self) -> FormatIn {
        match self {
            Self::Auto => FormatIn::Auto,
            Self::Lines => FormatIn::Lines,
            Self::Csv => FormatIn::Csv,
            Self::DynamodbJson => FormatIn::DynamodbJson,
            Self::ScanJson => FormatIn::ScanJson,
            Self::Ion => FormatIn::Ion,
            Self::Incremental => FormatIn::Incremental,
            Self::Workbench => FormatIn::Workbench,
            Self::JsonArray => FormatIn::JsonArray,
            Self::JsonItems => FormatIn::JsonItems,
            Self::BatchWrite => FormatIn::BatchWrite,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConsistencyArg {
    Strong,
    Eventual,
    Transactional,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BillingArg {
    Provisioned,
    OnDemand,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CountsArg {
    /// Counts are weights: the rates are spread over the keys in proportion.
    Weights,
    /// Counts are each key's writes per second (e.g. a `key,count` file of request rates).
    WritesPerSec,
    /// Counts are each key's reads per second.
    ReadsPerSec,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Files or S3 export folders to load into one key set; `-` or nothing reads standard input. Formats:
    /// lines, CSV, DynamoDB JSON (.gz), S3 export folder, scan output, Ion, incremental export, Workbench model,
    /// JSON arrays and items (typed or plain), BatchWriteItem request files.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Input format (default: detect per file).
    #[arg(long, value_enum, default_value_t = FormatInArg::Auto)]
    pub format_in: FormatInArg,
    /// Partition key attribute (or CSV column); default: from the format, or guessed (pk, PK, id, …).
    #[arg(long, value_name = "ATTR")]
    pub key: Option<String>,
    /// Sort key attribute (or CSV column); default: from the format, or guessed (sk, SK, …).
    #[arg(long, value_name = "ATTR")]
    pub sort_key: Option<String>,
    /// The table to load from a file that holds several (a Workbench model, a BatchWriteItem request file);
    /// default: the first, with a warning naming the others.
    #[arg(long, value_name = "NAME")]
    pub table: Option<String>,
    /// The column names of a CSV file without a header, e.g. `id,name,state` (every row is then data);
    /// --key names one of them.
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub csv_columns: Option<Vec<String>>,
    /// Skip bad records (counted and reported) instead of stopping at the first one.
    #[arg(long)]
    pub skip_bad: bool,
    #[command(flatten)]
    pub view: ViewArgs,
}

/// Options shared by every command that prints an analysis.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Buckets (partitions) over the hash range [default: 8]. With a workload the table's partition count
    /// sets the buckets: use --partitions then.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub buckets: Option<u32>,
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
    /// Type of the partition key (text formats read keys as this type, default S; typed formats such as
    /// DynamoDB JSON take it from the data and check it when given).
    #[arg(long, value_enum, ignore_case = true)]
    pub key_type: Option<KeyTypeArg>,
    /// Top keys to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Answer "Is one item hot?" yourself when the data has no sort keys.
    #[arg(long)]
    pub one_item: Option<bool>,
    /// Reads per second over the whole table, spread over the keys by their counts. Any rate adds a capacity
    /// report: units per partition against its 3,000 read / 1,000 write units per second.
    #[arg(long, help_heading = "Capacity")]
    pub reads_per_sec: Option<f64>,
    /// Writes per second over the whole table, spread over the keys by their counts.
    #[arg(long, help_heading = "Capacity")]
    pub writes_per_sec: Option<f64>,
    /// What the key counts are: weights for the rates, or each key's requests per second.
    #[arg(long, value_enum, help_heading = "Capacity")]
    pub counts_are: Option<CountsArg>,
    /// Item size in bytes: reads cost ⌈size / 4 KB⌉ units, writes ⌈size / 1 KB⌉ [default: measured from the
    /// items when the input carries them (DynamoDB JSON and Ion exports, scan output), else 1024].
    #[arg(long, help_heading = "Capacity")]
    pub item_size: Option<u64>,
    /// Read consistency [default: strong]; transactional doubles reads and writes.
    #[arg(long, value_enum, help_heading = "Capacity")]
    pub consistency: Option<ConsistencyArg>,
    /// Partitions of the table (instead of the count derived from billing and size).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096), help_heading = "Capacity")]
    pub partitions: Option<u32>,
    /// Billing mode [default: provisioned with --rcu/--wcu, else on-demand].
    #[arg(long, value_enum, help_heading = "Capacity")]
    pub billing: Option<BillingArg>,
    /// Provisioned read capacity units.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Capacity")]
    pub rcu: Option<u64>,
    /// Provisioned write capacity units.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Capacity")]
    pub wcu: Option<u64>,
    /// Table size in GB (1 GB = 2^30 bytes), for the ⌈size / 10 GB⌉ part of the partition count.
    #[arg(long, help_heading = "Capacity")]
    pub table_gb: Option<f64>,
    /// The table has a local secondary index (split-for-heat cannot split its item collections).
    #[arg(long, help_heading = "Capacity")]
    pub has_lsi: bool,
    /// The throttling reason DynamoDB reported, e.g. TableWriteKeyRangeThroughputExceeded.
    #[arg(long, value_parser = parse_reason, help_heading = "Capacity")]
    pub throttle_reason: Option<ThrottleReason>,
}

fn parse_reason(text: &str) -> Result<ThrottleReason, String> {
    text.parse()
        .map_err(|e: crate::model::capacity::BadThrottleReason| e.to_string())
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
    /// The workload the capacity options describe, if any rate is given.
    pub fn workload(&self) -> anyhow::Result<Option<Workload>> {
        let rates = match self.counts_are {
            None | Some(CountsArg::Weights) => RateSource::Weights,
            Some(CountsArg::WritesPerSec) => RateSource::WritesPerSec,
            Some(CountsArg::ReadsPerSec) => RateSource::ReadsPerSec,
        };
        if self.reads_per_sec.is_none()
            && self.writes_per_sec.is_none()
            && rates == RateSource::Weights
        {
            let given = [
                ("--item-size", self.item_size.is_some()),
                ("--consistency", self.consistency.is_some()),
                ("--partitions", self.partitions.is_some()),
                ("--billing", self.billing.is_some()),
                ("--rcu", self.rcu.is_some()),
                ("--wcu", self.wcu.is_some()),
                ("--table-gb", self.table_gb.is_some()),
            ];
            if let Some((name, _)) = given.iter().find(|(_, set)| *set) {
                anyhow::bail!(
                    "{name} describes a workload: give --reads-per-sec, --writes-per-sec or --counts-are too"
                );
            }
            return Ok(None);
        }
        if self.buckets.is_some() {
            anyhow::bail!(
                "with a workload the partition count sets the buckets: use --partitions, not --buckets"
            );
        }
        let provisioned = self.rcu.is_some() || self.wcu.is_some();
        let billing = match (self.billing, self.rcu, self.wcu) {
            (Some(BillingArg::OnDemand), ..) if provisioned => {
                anyhow::bail!("--rcu and --wcu are for --billing provisioned")
            }
            (Some(BillingArg::OnDemand), ..) | (None, None, None) => Billing::OnDemand,
            (_, Some(rcu), Some(wcu)) => Billing::Provisioned { rcu, wcu },
            _ => anyhow::bail!("provisioned billing needs both --rcu and --wcu"),
        };
        let table_bytes = match self.table_gb {
            None => 0,
            Some(gb) if (0.0..1e9).contains(&gb) => (gb * (1u64 << 30) as f64).ceil() as u64,
            Some(gb) => anyhow::bail!("--table-gb must be a size in GB at least 0, not {gb}"),
        };
        let workload = Workload {
            reads_per_sec: self.reads_per_sec.unwrap_or(0.0),
            writes_per_sec: self.writes_per_sec.unwrap_or(0.0),
            consistency: match self.consistency {
                None | Some(ConsistencyArg::Strong) => Consistency::Strong,
                Some(ConsistencyArg::Eventual) => Consistency::Eventual,
                Some(ConsistencyArg::Transactional) => Consistency::Transactional,
            },
            item_size: self
                .item_size
                .map_or_else(ItemSize::default, ItemSize::Bytes),
            billing,
            partitions: self.partitions.map_or(PartitionCount::Auto, |p| {
                PartitionCount::Override(p as usize)
            }),
            table_bytes,
            rates,
        };
        workload.validate()?;
        Ok(Some(workload))
    }

    /// The view the options describe; with a workload, its partition count sets the buckets.
    pub fn view_settings(&self) -> anyhow::Result<ViewSettings> {
        let view = ViewSettings {
            buckets: self.buckets.unwrap_or(8) as usize,
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
            workload: None,
        };
        Ok(match self.workload()? {
            Some(workload) => view.with_workload(workload)?,
            None => view,
        })
    }

    /// The user's answers and table facts from the options.
    pub fn answers(&self) -> UserAnswers {
        UserAnswers {
            one_item: self.one_item,
            has_lsi: self.has_lsi.then_some(true),
            throttle_reason: self.throttle_reason,
            ..UserAnswers::default()
        }
    }

    /// The partition key type: as given, else S.
    pub fn key_type(&self) -> KeyType {
        self.key_type_given().unwrap_or_default()
    }

    /// The partition key type if `--key-type` was given.
    pub fn key_type_given(&self) -> Option<KeyType> {
        self.key_type.map(|t| match t {
            KeyTypeArg::S => KeyType::S,
            KeyTypeArg::N => KeyType::N,
            KeyTypeArg::B => KeyType::B,
        })
    }
}

/// Runs a headless command; returns the process exit code (0 ok, 1 bad input or failure).
pub fn run(command: Command) -> i32 {
    let result = match command {
        Command::Analyze(args) => analyze(&args),
        Command::Scan(args) => scan(&args),
        Command::Tables(args) => tables(&args),
        Command::Simulate(args) => crate::simulate_cli::simulate(&args),
        Command::Sql(args) => sql(&args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shardlens: {e:#}");
            1
        }
    }
}

fn sql(args: &SqlArgs) -> anyhow::Result<()> {
    let query = crate::source::sql::ExportQuery {
        export_path: args.export_path.trim_end_matches('/').to_owned(),
        key: args.key.clone(),
        sort_key: args.sort_key.clone(),
        output: args.output.clone(),
        by_file_output: args.by_file_output.clone(),
        athena_table: args.athena_table.clone(),
    };
    let mut out = std::io::stdout().lock();
    if matches!(args.engine, SqlEngine::Duckdb | SqlEngine::Both) {
        out.write_all(query.duckdb().as_bytes())?;
    }
    if args.engine == SqlEngine::Both {
        writeln!(out)?;
    }
    if matches!(args.engine, SqlEngine::Athena | SqlEngine::Both) {
        out.write_all(query.athena().as_bytes())?;
    }
    Ok(())
}

fn analyze(args: &AnalyzeArgs) -> anyhow::Result<()> {
    let cancel = AtomicBool::new(false);
    // Check the options before reading the keys.
    args.view.view_settings()?;
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    if paths.iter().any(|p| p == Path::new("-")) && std::io::stdin().is_terminal() {
        eprintln!("shardlens: reading keys from standard input (one per line; end with Ctrl+D)");
    }
    let opts = LoadOptions {
        format: args.format_in.format(),
        key: args.key.clone(),
        key_type: args.view.key_type_given(),
        sort_key: args.sort_key.clone(),
        on_bad: if args.skip_bad {
            OnBad::Skip
        } else {
            OnBad::Stop
        },
        table: args.table.clone(),
        csv_columns: args.csv_columns.clone(),
    };
    let bar = progress_bar();
    let loaded = source::load(&paths, &opts, &cancel, &mut |p| {
        if let Some(bar) = &bar {
            if let Some(total) = p.total_bytes {
                bar.set_length(total);
            }
            bar.set_position(p.bytes);
            bar.set_message(format!("{} items", p.items));
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let loaded = loaded?;
    for w in &loaded.warnings {
        eprintln!("shardlens: {w}");
    }
    if loaded.skipped > 0 {
        eprintln!("shardlens: skipped {} bad records", loaded.skipped);
    }
    let name = match paths.as_slice() {
        [one] => one.display().to_string(),
        many => format!("{} inputs", many.len()),
    };
    let mut out = std::io::stdout().lock();
    print_loaded(&mut out, &name, &loaded, &args.view)?;
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
    // Ctrl+C stops the scan and prints what it read so far, labelled partial; a second Ctrl+C ends the
    // process at once.
    let cancel = Arc::new(AtomicBool::new(false));
    for register in [
        |flag: &Arc<AtomicBool>| {
            signal_hook::flag::register_conditional_shutdown(
                signal_hook::consts::SIGINT,
                130,
                Arc::clone(flag),
            )
        },
        |flag: &Arc<AtomicBool>| {
            signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(flag))
        },
    ] {
        if let Err(e) = register(&cancel) {
            eprintln!("shardlens: Ctrl+C will end the scan without its partial result ({e})");
        }
    }
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
    if scanned.status == ScanStatus::Cancelled {
        anyhow::bail!(
            "interrupted: the scan of {} stopped after {} items (the analysis above is partial)",
            args.table,
            p.items
        );
    }
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

/// A progress bar on standard error when it is a terminal (bytes, rate, ETA); nothing when piped.
fn progress_bar() -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        None,
        indicatif::ProgressDrawTarget::stderr_with_hz(10),
    );
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta} · {msg}",
    )
    .ok()?;
    bar.set_style(style);
    Some(bar)
}

/// Prints the analysis of a load: the analysis of its keys, plus (JSON) an `input` object with what was read
/// and (table) the items per export data file.
pub fn print_loaded(
    out: &mut dyn Write,
    name: &str,
    loaded: &Loaded,
    view_args: &ViewArgs,
) -> anyhow::Result<()> {
    if view_args.format != OutputFormat::Json {
        print_analysis(out, name, &loaded.keys, view_args)?;
        if view_args.format == OutputFormat::Table
            && let Some(shape) = &loaded.shape
        {
            writeln!(out)?;
            writeln!(
                out,
                "read as: {shape}; {} items{}",
                loaded.items,
                if loaded.changes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", loaded.changes.describe())
                }
            )?;
        }
        if view_args.format == OutputFormat::Table
            && let Some(groups) = &loaded.groups
            && loaded.keys.total() > 0
        {
            writeln!(out)?;
            writeln!(
                out,
                "items by export data file ({} files, one partition's key range each):",
                groups.len()
            )?;
            let mut sorted: Vec<_> = groups.iter().collect();
            sorted.sort_by(|a, b| b.items.cmp(&a.items).then(a.name.cmp(&b.name)));
            for g in sorted.iter().take(view_args.top.max(1)) {
                writeln!(out, "  {:>10}  {}", g.items, g.name)?;
            }
        }
        return Ok(());
    }
    let mut buf = Vec::new();
    print_analysis(&mut buf, name, &loaded.keys, view_args)?;
    let mut doc: serde_json::Value = serde_json::from_slice(&buf)?;
    if let Some(obj) = doc.as_object_mut() {
        obj.insert(
            "input".to_owned(),
            serde_json::json!({
                "items": loaded.items,
                "lines": loaded.lines,
                "bytes": loaded.bytes,
                "skipped": loaded.skipped,
                "key_attribute": loaded.key_attribute,
                "sort_key_attribute": loaded.sort_key_attribute,
                "warnings": loaded.warnings,
                "shape": loaded.shape,
                "tables": loaded.tables,
                "table": loaded.table,
                "changes": {
                    "inserts": loaded.changes.inserts,
                    "updates": loaded.changes.updates,
                    "deletes": loaded.changes.deletes,
                    "puts": loaded.changes.puts,
                },
                "groups": loaded.groups.as_ref().map(|g| g
                    .iter()
                    .map(|g| serde_json::json!({"name": g.name, "items": g.items}))
                    .collect::<Vec<_>>()),
            }),
        );
    }
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}

/// Prints the analysis of `keys` in the chosen format.
pub fn print_analysis(
    out: &mut dyn Write,
    name: &str,
    keys: &KeySet,
    view_args: &ViewArgs,
) -> anyhow::Result<()> {
    let view = view_args.view_settings()?;
    let rep = report(keys, &view);
    let capacity = match &rep.capacity {
        Some(Ok(c)) => Some(c),
        Some(Err(e)) => return Err(anyhow::anyhow!("{e}").context("cannot compute the capacity")),
        None => None,
    };
    let decision = evaluate(&rep.evidence, &view_args.answers());
    print_report(
        out,
        name,
        keys,
        view_args.format,
        &view,
        &rep,
        &decision,
        capacity,
    )
    .context("cannot write the output")
}

#[allow(clippy::too_many_arguments)]
fn print_report(
    out: &mut dyn Write,
    name: &str,
    keys: &KeySet,
    format: OutputFormat,
    view: &ViewSettings,
    rep: &crate::model::Report,
    decision: &crate::model::Path,
    capacity: Option<&Capacity>,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Json => {
            let doc = report_doc(name.to_owned(), keys, view, rep, decision);
            serde_json::to_writer_pretty(&mut *out, &doc).map_err(std::io::Error::other)?;
            writeln!(out)
        }
        OutputFormat::Csv => out.write_all(buckets_csv(rep, view.bucket_count()).as_bytes()),
        OutputFormat::Table => {
            let a = &rep.analysis;
            if a.total == 0 {
                return writeln!(out, "no keys in {name}: nothing to analyse");
            }
            // A log of writes (lines) counts writes; exports, scans and models count items.
            let noun = if keys.write_ordered() {
                "writes"
            } else {
                "items"
            };
            writeln!(
                out,
                "{name}: {} {noun}, {} distinct keys ({}), {} buckets",
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
            // A log of writes (lines) counts writes; exports, scans and models count items.
            let noun = if keys.write_ordered() {
                "writes"
            } else {
                "items"
            };
            writeln!(
                out,
                "{:>width$}  {:>count_width$}  {:>6}  ",
                "#", noun, "share"
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
                "skew: hottest bucket {} = {:.1}% of {noun}, {:.2}× the mean; Gini {:.3}",
                a.hottest_bucket,
                a.skew.hottest_bucket_share * 100.0,
                a.skew.max_over_mean,
                a.skew.gini
            )?;
            // The buckets the app colours: hot (one key) and uneven ones, with why.
            for (i, h) in rep.heat.iter().enumerate() {
                if let Some(note) = &h.note {
                    writeln!(out, "  bucket {i}: {note}")?;
                }
            }
            if let Some(c) = capacity {
                writeln!(out)?;
                print_capacity(out, c)?;
                if let Some(w) = &rep.workload {
                    let assumed = view
                        .workload
                        .as_ref()
                        .is_some_and(|v| v.item_size == ItemSize::FromData)
                        && matches!(w.item_size, ItemSize::Bytes(_));
                    if assumed {
                        writeln!(
                            out,
                            "  item size: {} assumed (the input carries no item sizes; --item-size sets one)",
                            w.item_size.describe()
                        )?;
                    } else {
                        writeln!(out, "  item size: {}", w.item_size.describe())?;
                    }
                }
            }
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

/// The capacity section of the table format.
fn print_capacity(out: &mut dyn Write, c: &Capacity) -> std::io::Result<()> {
    writeln!(out, "capacity: {}", c.headline())?;
    writeln!(
        out,
        "  {} partitions ({}); each serves {} read / {} write units/s; the table {} read / {} write units/s",
        c.partition_count,
        c.partitions_from.describe(),
        units(c.partition_read_limit),
        units(c.partition_write_limit),
        units(c.table_read_capacity),
        units(c.table_write_capacity),
    )?;
    writeln!(
        out,
        "  {} reads/s × {} units = {} read units/s ({} of the table); {} writes/s × {} units = {} write units/s ({} of the table)",
        units(c.reads_per_sec),
        units(c.units_per_read),
        units(c.read_units),
        percent(c.table_read_util),
        units(c.writes_per_sec),
        units(c.units_per_write),
        units(c.write_units),
        percent(c.table_write_util),
    )?;
    writeln!(
        out,
        "  throttled: {} read and {} write units/s{}",
        units(c.throttled_read_units),
        units(c.throttled_write_units),
        if c.table_throttled_read_units + c.table_throttled_write_units > 0.0 {
            format!(
                " ({} read and {} write units/s of it by the table's provisioned total)",
                units(c.table_throttled_read_units),
                units(c.table_throttled_write_units)
            )
        } else {
            String::new()
        }
    )?;
    let width = c
        .partitions
        .len()
        .saturating_sub(1)
        .to_string()
        .len()
        .max(1);
    writeln!(
        out,
        "  {:>width$}  {:>10}  {:>7}  {:>10}  {:>7}  {:>14}",
        "#", "read u/s", "read %", "write u/s", "write %", "throttled r/w"
    )?;
    for (i, p) in c.partitions.iter().enumerate() {
        writeln!(
            out,
            "  {i:>width$}  {:>10.1}  {:>7}  {:>10.1}  {:>7}  {:>14}{}",
            p.read_units,
            percent(p.read_util),
            p.write_units,
            percent(p.write_util),
            format!(
                "{} / {}",
                units(p.throttled_read_units),
                units(p.throttled_write_units)
            ),
            if p.util() > 1.0 {
                "  over the limit"
            } else {
                ""
            },
        )?;
    }
    Ok(())
}
