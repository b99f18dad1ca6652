//! Running the commands: loading or scanning the keys (with progress on a terminal, Ctrl+C for a partial
//! scan), listing tables, printing SQL; the output itself is [`super::output`]'s.

use std::io::{IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;

use super::args::{AnalyzeArgs, ScanArgs, SqlArgs, SqlEngine, TablesArgs, TablesFormat};
use super::output::{print_analysis, print_loaded};
use crate::model::KeySet;
use crate::model::design::{Design, DesignKeys};
use crate::source::dynamo::{DynamoClient, ScanEvent, ScanOptions, ScanStatus, Scanned};
use crate::source::{self, LoadOptions, OnBad};

pub(super) fn sql(args: &SqlArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if args.trace {
        let query = super::sql_trace::TraceQuery {
            export_path: args.export_path.trim_end_matches('/').to_owned(),
            key: args.key.clone(),
            top: args.top,
            // keys.csv is the key-count query's default; a trace gets its own.
            output: if args.output == "keys.csv" {
                "trace.csv".to_owned()
            } else {
                args.output.clone()
            },
            athena_table: if args.athena_table == "shardlens_export" {
                "shardlens_trace".to_owned()
            } else {
                args.athena_table.clone()
            },
        };
        return print_queries(out, args.engine, &query.duckdb(), &query.athena());
    }
    let query = crate::source::sql::ExportQuery {
        export_path: args.export_path.trim_end_matches('/').to_owned(),
        key: args.key.clone(),
        sort_key: args.sort_key.clone(),
        output: args.output.clone(),
        by_file_output: args.by_file_output.clone(),
        athena_table: args.athena_table.clone(),
    };
    print_queries(out, args.engine, &query.duckdb(), &query.athena())
}

/// The query of each engine `engine` asks for, DuckDB's first.
fn print_queries(
    out: &mut dyn Write,
    engine: SqlEngine,
    duckdb: &str,
    athena: &str,
) -> anyhow::Result<()> {
    if matches!(engine, SqlEngine::Duckdb | SqlEngine::Both) {
        out.write_all(duckdb.as_bytes())?;
    }
    if engine == SqlEngine::Both {
        writeln!(out)?;
    }
    if matches!(engine, SqlEngine::Athena | SqlEngine::Both) {
        out.write_all(athena.as_bytes())?;
    }
    Ok(())
}

pub(super) fn analyze(args: &AnalyzeArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let (loaded, name) = load_keys(args)?;
    print_loaded(
        out,
        &name,
        &loaded,
        &args.view,
        args.design.key_expr.as_deref(),
    )?;
    Ok(())
}

/// The keys `args` name (files, or standard input), loaded with a progress bar on a terminal, their warnings
/// said on standard error; and what to call them in output (the file, or "N inputs").
pub(super) fn load_keys(args: &AnalyzeArgs) -> anyhow::Result<(source::Loaded, String)> {
    let cancel = AtomicBool::new(false);
    // Check the options before reading the keys.
    args.view.view_settings()?;
    let design = super::design::design(&args.design, &args.view, None)?;
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    if paths.iter().any(|p| p == Path::new("-")) && std::io::stdin().is_terminal() {
        eprintln!("shardlens: reading keys from standard input (one per line; end with Ctrl+D)");
    }
    if let Some(session) = paths
        .iter()
        .find(|p| source::session::looks_like_session(p))
    {
        anyhow::bail!(
            "{} is a shardlens session (saved by the app), not keys: open it in the app (`shardlens {}`, or \
             File > Open session…)",
            session.display(),
            session.display()
        );
    }
    let opts = LoadOptions {
        format: args.format_in,
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
        csv_header: args.csv_header,
        design,
        keep_items: false,
        ttl_attr: args.ttl_attr.clone(),
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
        eprintln!(
            "shardlens: skipped {}",
            crate::model::fmt::plural(loaded.skipped, "bad record")
        );
    }
    let name = match paths.as_slice() {
        [one] => one.display().to_string(),
        many => format!("{} inputs", many.len()),
    };
    Ok((loaded, name))
}

/// The scan the options describe, with its design (`by_expr`: the design's first candidate is `--key-expr`).
fn scan_options(args: &ScanArgs, design: Design, by_expr: bool) -> ScanOptions {
    ScanOptions {
        segments: args.segments,
        max_rcu: (args.max_rcu > 0.0).then_some(args.max_rcu),
        limit: args.limit,
        with_sort_key: args.with_sort_key || design.shard_by.is_some(),
        consistent: args.consistent,
        page_size: args.page_size,
        design,
        strict_candidates: usize::from(by_expr),
        item_sizes: args.item_sizes,
        ttl_attr: args.ttl_attr.clone(),
        ..ScanOptions::new(args.table.clone())
    }
}

pub(super) fn scan(args: &ScanArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    args.view.view_settings()?;
    let client = DynamoClient::connect(&args.connect.options())?;
    let (design, by_expr) = scan_design(args, &client)?;
    let opts = scan_options(args, design, by_expr);
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
    let cancel = cancel_on_ctrl_c();
    let mut scanned = client.scan(&opts, &cancel, &mut |event| {
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
    warn_design_skips(&scanned);
    let keys = scanned_keys(&mut scanned.designs, &mut scanned.keys, by_expr);
    // Keys made by --key-expr are no attribute of the table: their Queries say `pk`.
    let target = crate::model::query::Target {
        table: Some(args.table.clone()),
        partition_key: scanned.key_attribute.clone().filter(|_| !by_expr),
        sort_key: scanned.sort_key_attribute.clone(),
    };
    let designs = super::Designs {
        list: &scanned.designs,
        shard_by: scanned.shard_by.as_ref(),
        key_expr: args.design.key_expr.as_deref(),
        key_attribute: None,
        target: Some(&target),
        ttl: scanned.ttl.as_ref(),
        has_lsi: scanned.has_lsi,
    };
    print_analysis(out, &name, &keys, &args.view, designs).context("cannot write the output")?;
    // The summary and any error below follow the analysis they speak of.
    out.flush().context("cannot write the output")?;
    eprintln!("shardlens: {}", scan_summary(&scanned, &cap));
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

/// The scan's key design, and whether it keys by `--key-expr`: a scan keys by the table's partition key, so a
/// key expression is evaluated as a candidate first, and its keys are then analysed as the current key.
fn scan_design(args: &ScanArgs, client: &DynamoClient) -> anyhow::Result<(Design, bool)> {
    let gsis = if args.design.gsi.is_empty() {
        Vec::new()
    } else {
        let info = client.describe_table(&args.table)?;
        crate::source::dynamo::gsi_designs(&info, &args.design.gsi).map_err(anyhow::Error::msg)?
    };
    let mut design = super::design::design(&args.design, &args.view, Some(gsis))?;
    let by_expr = design
        .key
        .take()
        .inspect(|key| design.candidates.insert(0, key.clone()));
    if by_expr.is_some() {
        design.validate().map_err(|_| {
            anyhow::anyhow!("with --key-expr, --compare takes up to 2 candidates on a scan")
        })?;
    }
    Ok((design, by_expr.is_some()))
}

/// Says on standard error which items the designs could not key.
fn warn_design_skips(scanned: &Scanned) {
    if scanned.design_skipped > 0 {
        eprintln!(
            "shardlens: {} items could not be keyed by the designs{}",
            scanned.design_skipped,
            scanned
                .design_error
                .as_ref()
                .map_or_else(String::new, |e| format!(" (first: {e})"))
        );
    }
    for (items, first) in &scanned.not_keyed {
        eprintln!(
            "shardlens: {}",
            crate::model::design::not_keyed_note(*items, first)
        );
    }
}

/// The keys to analyse: the table's partition keys (`keys`), or with `--key-expr` the first candidate's (taken
/// out of `designs`, the other candidates renumbered).
fn scanned_keys(designs: &mut Vec<DesignKeys>, keys: &mut KeySet, by_expr: bool) -> KeySet {
    if !by_expr || designs.is_empty() {
        return std::mem::take(keys);
    }
    let first = designs.remove(0);
    for d in designs {
        if let crate::model::design::DesignKind::Candidate(n) = &mut d.kind {
            *n -= 1;
        }
    }
    first.keys
}

/// A flag that the first Ctrl+C sets (the scan stops and prints what it read so far, labelled partial); a
/// second Ctrl+C ends the process at once.
pub(super) fn cancel_on_ctrl_c() -> Arc<AtomicBool> {
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
    cancel
}

/// The line after a scan: its status, items, pages, read units, time, rates and retries.
fn scan_summary(scanned: &Scanned, cap: &str) -> String {
    let p = &scanned.progress;
    format!(
        "{}: {} in {}, {:.1} RCU consumed in {:.1} s ({:.0} items/s, {:.1} RCU/s; {cap}){}",
        scanned.status.describe(),
        crate::model::fmt::plural(p.items, "item"),
        crate::model::fmt::plural(p.pages, "page"),
        p.rcu,
        p.elapsed.as_secs_f64(),
        p.items_per_sec(),
        p.rcu_per_sec(),
        if p.retries > 0 {
            format!("; {} retries after throttling", p.retries)
        } else {
            String::new()
        }
    )
}

pub(super) fn tables(args: &TablesArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let client = DynamoClient::connect(&args.connect.options())?;
    let names = client.list_tables()?;
    let mut infos = Vec::with_capacity(names.len());
    for name in &names {
        infos.push(client.describe_table(name)?);
    }
    match args.format {
        TablesFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &infos).context("cannot write the output")?;
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
                    t.describe_capacity(),
                    count(t.item_count),
                    count(t.size_bytes),
                    index_note(t.local_indexes.len(), t.global_indexes.len())
                )?;
                // Each GSI's key schema, whole (a multi-attribute key's attributes joined by `+`), and its
                // on-demand maximum and warm throughput when DescribeTable gives them.
                for g in &t.global_indexes {
                    writeln!(
                        out,
                        "  GSI {}{}{}",
                        crate::source::dynamo::describe_index(g),
                        if g.partition_keys.len() > 1 {
                            " (a multi-attribute key, hashed together)"
                        } else {
                            ""
                        },
                        t.index_throughput
                            .get(&g.name)
                            .map(|f| format!("	{}", f.describe()))
                            .unwrap_or_default()
                    )?;
                }
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
