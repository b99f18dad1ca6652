//! The headless commands (`analyze`, `scan`, `tables`, `sql`, `simulate`, `stream`, `metrics`). They print the same model results
//! the app shows.
//!
//! By concept: the arguments and how they become the model's settings (`args.rs`; clap parses straight into
//! the model's enums, `values.rs`), running each command (`commands.rs`; `simulate` in `simulate.rs`, with its
//! own arguments and output), and the output: one computed analysis (`output.rs`) written as a table
//! (`table.rs`), JSON (`json.rs`) or CSV.

mod args;
mod commands;
mod design;
mod health;
mod json;
mod live;
mod output;
mod simulate;
mod sql_trace;
mod table;
mod trace;
mod values;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

pub use args::{
    AnalyzeArgs, BillingArg, ConnectArgs, OutputFormat, ScanArgs, ScopeArg, SqlArgs, SqlEngine,
    TablesArgs, TablesFormat, ViewArgs,
};
pub use live::{MetricsArgs, StreamArgs};
pub use output::{Designs, print_analysis, print_loaded};
pub use simulate::SimulateArgs;

/// See how DynamoDB partition keys spread over partitions.
///
/// With no command, opens the desktop app.
#[derive(Debug, Parser)]
#[command(
    name = "shardlens",
    version,
    long_version = crate::source::gzip::LONG_VERSION,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true
)]
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
    Simulate(SimulateArgs),
    /// Watch a table's writes from its DynamoDB Stream (read-only), then analyse them per key, with the
    /// write units per second; --save-trace keeps them as a trace to replay.
    Stream(StreamArgs),
    /// Read a table's CloudWatch minutes (consumed units, throttling) and Contributor Insights top keys
    /// (read-only); --save-trace keeps them as a trace to replay.
    Metrics(MetricsArgs),
    /// Print the SQL (Athena, DuckDB) that turns an S3 export too big for one machine into the `key,count`
    /// CSV shardlens loads exactly, aggregated where the export lives.
    Sql(SqlArgs),
}

/// Runs a headless command; returns the process exit code (0 ok, 1 bad input or failure).
pub fn run(command: Command) -> i32 {
    let result = match command {
        Command::Analyze(args) => commands::analyze(&args),
        Command::Scan(args) => commands::scan(&args),
        Command::Tables(args) => commands::tables(&args),
        Command::Simulate(args) => simulate::simulate(&args),
        Command::Stream(args) => live::stream(&args),
        Command::Metrics(args) => live::metrics(&args),
        Command::Sql(args) => commands::sql(&args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("shardlens: {e:#}");
            1
        }
    }
}
