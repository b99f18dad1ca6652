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
mod metrics;
mod output;
mod share;
mod simulate;
mod sql_trace;
mod table;
mod trace;
mod values;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context as _;

use clap::{Parser, Subcommand};

pub use args::{
    AnalyzeArgs, BillingArg, ConnectArgs, OutputFormat, ScanArgs, ScopeArg, ShareArgs, SqlArgs,
    SqlEngine, TablesArgs, TablesFormat, ViewArgs,
};
pub use live::StreamArgs;
pub use metrics::MetricsArgs;
pub use output::{Designs, print_analysis, print_loaded};
pub use simulate::SimulateArgs;

/// See how DynamoDB partition keys spread over partitions.
///
/// With no command, opens the desktop app.
#[derive(Debug, Parser)]
#[command(
    name = "shardlens",
    version,
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
    /// Print a link that opens these keys in shardlens in the browser (or the desktop app), with the view the
    /// options describe: the keys travel in the link's fragment, never to a server (docs/web.md).
    Share(ShareArgs),
}

/// `shardlens --version`: the version, the gzip decompressor the build has and the SIMD kernel this CPU
/// gets for JSON arrays ([`shardlens_simd::Kernel::detect`]), each with the variable that picks another.
pub fn long_version() -> String {
    let kernel = match shardlens_simd::Kernel::detect() {
        Some(k) => format!("{}; SHARDLENS_SIMD=off turns it off", k.isa().name()),
        None => "byte by byte; this CPU has no AVX2, or SHARDLENS_SIMD=off".to_owned(),
    };
    format!(
        "{} (JSON arrays: {kernel})",
        crate::source::gzip::LONG_VERSION
    )
}

/// Runs a headless command; returns the process exit code (0 ok, 1 bad input or failure).
///
/// A command computes its result and then writes it to `out`, standard output behind a 64 KB buffer: written
/// a line at a time (Rust's standard output is line-buffered), `analyze --top 200000 --format json` of the
/// export bench's 124,266 keys made 621,571 `write` calls and took 1.06 s where the analysis takes 0.47 s.
/// When the reader of the output goes away (`shardlens analyze … | head`), the command stops at its next write
/// and the process exits 0 without a message, as `grep` and ripgrep do.
pub fn run(command: Command) -> i32 {
    let mut out = Output::default();
    let result = match command {
        Command::Analyze(args) => commands::analyze(&args, &mut out),
        Command::Scan(args) => commands::scan(&args, &mut out),
        Command::Tables(args) => commands::tables(&args, &mut out),
        Command::Simulate(args) => simulate::simulate(&args, &mut out),
        Command::Stream(args) => live::stream(&args, &mut out),
        Command::Metrics(args) => metrics::metrics(&args, &mut out),
        Command::Sql(args) => commands::sql(&args, &mut out),
        Command::Share(args) => share::share(&args, &mut out),
    };
    let flushed = out.flush().context("cannot write the output");
    match result.and(flushed) {
        Ok(()) => 0,
        Err(_) if out.closed() => 0,
        Err(e) => {
            eprintln!("shardlens: {e:#}");
            1
        }
    }
}

/// Standard output, buffered, which knows when its reader went away (a broken pipe).
struct Output {
    buffered: std::io::BufWriter<Watched>,
}

impl Default for Output {
    fn default() -> Self {
        Self {
            buffered: std::io::BufWriter::with_capacity(
                64 << 10,
                Watched {
                    stdout: std::io::stdout().lock(),
                    closed: false,
                },
            ),
        }
    }
}

impl Output {
    /// Whether a write found standard output closed by its reader.
    fn closed(&self) -> bool {
        self.buffered.get_ref().closed
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.buffered.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.buffered.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.buffered.flush()
    }
}

/// The locked standard output, noting a broken pipe.
struct Watched {
    stdout: std::io::StdoutLock<'static>,
    closed: bool,
}

impl Watched {
    fn note<T>(&mut self, result: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &result
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            self.closed = true;
        }
        result
    }
}

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.stdout.write(buf);
        self.note(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let flushed = self.stdout.flush();
        self.note(flushed)
    }
}
