//! `shardlens stream` (a table's writes from its DynamoDB Stream, live): read-only, through [`DynamoClient`].
//! What it reads goes through the same trace readers as a saved file (`--save-trace` writes that file).
//! `shardlens metrics` is `metrics.rs`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::json;

use super::args::{ConnectArgs, ViewArgs};
use super::commands::cancel_on_ctrl_c;
use crate::model::KeySet;
use crate::model::sim_file::parse_duration;
use crate::model::trace::{Dim, Trace, iso};
use crate::source::OnBad;
use crate::source::dynamo::{
    DEFAULT_MAX_RPS, DynamoClient, StreamEvent, StreamOptions, StreamStart, StreamStatus,
};
use crate::source::trace::{SaveError, Saved, StreamFeed, TraceLoad, TraceSaver};

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
    /// Also write the records to FILE (JSON lines of Streams records, a page at a time as they arrive), a trace
    /// `simulate --trace` replays.
    #[arg(long, value_name = "FILE")]
    pub save_trace: Option<PathBuf>,
    #[command(flatten)]
    pub view: ViewArgs,
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
    /// The saved file: each page of records written whole as it arrives (a kill loses at most the page in
    /// flight).
    saved: Option<TraceSaver>,
    /// The first write that failed: it ends the watch (through `cancel`).
    write_error: Option<SaveError>,
    cancel: Arc<AtomicBool>,
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
                    && let Err(e) = file.write_page(batch)
                {
                    self.write_error.get_or_insert(e);
                    self.cancel.store(true, Ordering::Relaxed);
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

    /// The saved file's end: what it holds, and the first write error (or the final flush's), if any.
    fn finish_saving(&mut self) -> Option<(Saved, Option<SaveError>)> {
        let file = self.saved.take()?;
        let held = file.saved();
        Some(match (self.write_error.take(), file.finish()) {
            (Some(e), _) | (None, Err(e)) => (held, Some(e)),
            (None, Ok(saved)) => (saved, None),
        })
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
        Some(p) => Some(TraceSaver::create(p)?),
        None => None,
    };
    let info = client.describe_table(&args.table)?;
    let cancel = cancel_on_ctrl_c();
    let mut watching = Watching {
        feed: StreamFeed::new(&format!("writes to {}", args.table), &info, OnBad::Stop),
        saved,
        write_error: None,
        cancel: Arc::clone(&cancel),
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
    let read = client.stream_of(&info, &opts, &cancel, &mut |event| {
        watching.on_event(&event);
    })?;
    if watching.live {
        eprintln!();
    }
    let saved = watching.finish_saving();
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
    say_the_end(args, &read, saved)
}

/// The lines after the analysis: how the read ended, where the records were saved; an error when it failed
/// (the saved file's first, which ended the read).
fn say_the_end(
    args: &StreamArgs,
    read: &crate::source::dynamo::StreamRead,
    saved: Option<(Saved, Option<SaveError>)>,
) -> anyhow::Result<()> {
    eprintln!(
        "shardlens: {}: {} in {:.1} s",
        read.status.describe(),
        read.progress.summary(),
        read.progress.elapsed.as_secs_f64()
    );
    if let (Some(p), Some((saved, error))) = (&args.save_trace, saved) {
        let records = crate::model::fmt::plural(saved.records, "record");
        let replay = format!("replay: shardlens simulate --trace {}", p.display());
        match (&error, saved.unfinished) {
            (None, _) => eprintln!("shardlens: saved {records} to {} ({replay})", p.display()),
            (Some(_), _) if saved.records == 0 => {
                eprintln!("shardlens: saved no record to {}", p.display());
            }
            (Some(_), 0) => eprintln!(
                "shardlens: saved {records} to {} before the error: the whole records that fit, nothing after \
                 them ({replay})",
                p.display()
            ),
            (Some(_), n) => eprintln!(
                "shardlens: saved {records} to {} before the error, then {} of an unfinished record that a \
                 replay ignores ({replay})",
                p.display(),
                crate::model::fmt::plural(n, "byte")
            ),
        }
        if let Some(e) = error {
            return Err(e.into());
        }
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
