//! The command line's arguments: one struct per command, the options every analysis shares ([`ViewArgs`]) and
//! how they become the model's settings ([`ViewArgs::view_settings`], [`ViewArgs::workload`]).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::model::capacity::{
    Billing, Consistency, ItemSize, PartitionCount, RateSource, ThrottleReason, Workload,
};
use crate::model::shard::{DEFAULT_HOT_SHARE, MAX_SHARDS};
use crate::model::{KeyType, Scope, ShardPlan, Strategy, UserAnswers, ViewSettings};
use crate::source::dynamo::{ConnectOptions, DEFAULT_MAX_RCU, DEFAULT_SEGMENTS, MAX_SEGMENTS};
use crate::source::{CsvHeader, FormatIn};

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
    /// An incremental export's writes per minute and key instead: the CSV trace `simulate --trace` replays
    /// (written to `--output`, `trace.csv` unless given).
    #[arg(long)]
    pub trace: bool,
    /// With --trace: the busiest keys that keep their own rows; the others are one row per minute.
    #[arg(long, value_name = "N", default_value_t = 1000, requires = "trace")]
    pub top: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Csv,
}

/// `--shard-scope`: a choice only, since the model's [`Scope::Hot`] carries its threshold from `--hot-share`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    All,
    Hot,
}

/// `--billing`: a choice only, since the model's [`Billing::Provisioned`] carries its units from `--rcu` and
/// `--wcu`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BillingArg {
    Provisioned,
    OnDemand,
}

/// `shardlens share`: the keys and view of `analyze`, and where the link opens.
#[derive(Debug, Args)]
pub struct ShareArgs {
    /// The page the link opens: a published shardlens page (`https://…/`) or a local `index.html`. Anything
    /// after a `#` in it is replaced by the link's data.
    #[arg(long, value_name = "URL")]
    pub base: Option<String>,
    #[command(flatten)]
    pub keys: AnalyzeArgs,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Files or S3 export folders to load into one key set; `-` or nothing reads standard input. Formats:
    /// lines, CSV, DynamoDB JSON (.gz), S3 export folder, scan output, Ion, incremental export, Workbench model,
    /// JSON arrays and items (typed or plain), BatchWriteItem request files.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Input format (default: detect per file).
    #[arg(long, value_enum, default_value_t = FormatIn::Auto)]
    pub format_in: FormatIn,
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
    /// Whether a CSV file's first row is its header; auto looks at the first rows (a first row shaped like
    /// the rows below it is data, and the columns are named col1, col2, …).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = CsvHeader::Auto)]
    pub csv_header: CsvHeader,
    /// Skip bad records (counted and reported) instead of stopping at the first one.
    #[arg(long)]
    pub skip_bad: bool,
    /// The TTL attribute the health report checks (a Number of epoch seconds?); default: guessed from the
    /// first item's names (ttl, expires…, expiration…, expiry…).
    #[arg(long, value_name = "ATTR")]
    pub ttl_attr: Option<String>,
    #[command(flatten)]
    pub design: DesignArgs,
    #[command(flatten)]
    pub view: ViewArgs,
}

/// Key designs over the loaded items (shared by `analyze` and `scan`): see docs/key-expressions.md.
#[derive(Debug, Args)]
pub struct DesignArgs {
    /// Key the items by this expression instead of their partition key attribute, e.g.
    /// 'TENANT#{tenantId}#{createdAt:day}' or 'BOARD#global#{playerId:hash 10}'.
    #[arg(long, value_name = "EXPR", help_heading = "Key design")]
    pub key_expr: Option<String>,
    /// A candidate key (an attribute or an expression) to compare with the current one over the same items;
    /// repeat for up to 3.
    #[arg(long, value_name = "EXPR", help_heading = "Key design")]
    pub compare: Vec<String>,
    /// A global secondary index to show: NAME=EXPR for files (byStatus=status), or NAME=a+b+c for a
    /// multi-attribute key of up to four attributes hashed together in order (byTenantRegion=tenantId+region);
    /// for `scan` an index of the table by name (its key attributes come from DescribeTable), or `all`.
    /// Repeatable.
    #[arg(long, value_name = "NAME[=EXPR]", help_heading = "Key design")]
    pub gsi: Vec<String>,
    /// What a --gsi index projects, which sets the write units each table write costs it:
    /// NAME=all (default for files), NAME=keys or NAME=include:ATTR,ATTR. A scanned table's come from
    /// DescribeTable. Repeatable.
    #[arg(long, value_name = "NAME=PROJECTION", help_heading = "Key design")]
    pub gsi_projection: Vec<String>,
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
    #[arg(long, value_enum, default_value_t = Strategy::Random)]
    pub shard_strategy: Strategy,
    /// With --shard-strategy calculated: the item attribute whose hash mod N is the suffix (all writes of one
    /// item share it, so a hot item stays on one shard) [default: the sort key, when the input has one].
    #[arg(long, value_name = "ATTR")]
    pub shard_by: Option<String>,
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
    pub key_type: Option<KeyType>,
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
    pub counts_are: Option<RateSource>,
    /// Item size in bytes: reads cost ⌈size / 4 KB⌉ units, writes ⌈size / 1 KB⌉ [default: measured from the
    /// items when the input carries them (DynamoDB JSON and Ion exports, scan output), else 1024].
    #[arg(long, help_heading = "Capacity")]
    pub item_size: Option<u64>,
    /// Read consistency [default: strong]; transactional doubles reads and writes.
    #[arg(long, value_enum, help_heading = "Capacity")]
    pub consistency: Option<Consistency>,
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
    /// Read whole items and measure their sizes by DynamoDB's rules for the health report (storage, items
    /// near 400 KB, GSI costs). Same read units as a keys-only scan (DynamoDB charges a Scan by the items'
    /// size); more bytes over the network.
    #[arg(long)]
    pub item_sizes: bool,
    /// The TTL attribute the health report checks; default: the table's (DescribeTimeToLive), else with
    /// --item-sizes guessed from names (ttl, expires…).
    #[arg(long, value_name = "ATTR")]
    pub ttl_attr: Option<String>,
    #[command(flatten)]
    pub design: DesignArgs,
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
        let rates = self.counts_are.unwrap_or_default();
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
            consistency: self.consistency.unwrap_or_default(),
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
                strategy: self.shard_strategy,
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
        self.key_type
    }
}
