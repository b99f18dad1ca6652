//! Loading an export's data files on every core: one thread per core, each with a [`Sink`] (and so a
//! [`crate::model::KeySet`]) of its own, the sinks merged at the end (merging keeps counts exact). Files are
//! dealt to threads largest first, so the work is even and the result does not depend on timing.

use std::cmp::Reverse;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::DataFile;
use crate::source::dispatch::Ctx;
use crate::source::dynamodb_json::load_json_lines;
use crate::source::ion::load_ion;
use crate::source::read::{FileLoad, Sink, TICK_LINES, open};
use crate::source::{At, FormatIn, SourceError};

/// A worker's keys and the item count of each file it read (by file index).
type WorkerResult = Result<(Sink, Vec<(usize, u64)>), SourceError>;

/// Loads `files` on one thread per core; returns each file's item count.
pub(super) fn load_parallel(
    files: &[DataFile],
    format: FormatIn,
    items_distinct: bool,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<Vec<u64>, SourceError> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let threads = std::thread::available_parallelism()
        .map_or(2, std::num::NonZero::get)
        .min(files.len())
        .max(1);
    let assigned = assign(files, threads);
    let abort = AtomicBool::new(false);
    let lines_done = AtomicU64::new(0);
    let (cancel, bytes, opts) = (ctx.cancel, ctx.bytes, ctx.opts);
    let (lines_before, items_before) = (sink.lines, sink.items);
    // Nothing is sent: each worker holds a sender until it ends (returns or panics), so the receiver hears
    // the moment the last one is done.
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let results: Vec<WorkerResult> = std::thread::scope(|s| {
        let handles: Vec<_> = assigned
            .iter()
            .map(|mine| {
                let mut w = sink.fork(assigned.len());
                w.keys.set_items_distinct(items_distinct);
                let (abort, lines_done) = (&abort, &lines_done);
                let done = done_tx.clone();
                s.spawn(move || {
                    let _done = done;
                    let mut counts = Vec::with_capacity(mine.len());
                    let mut run = || -> Result<(), SourceError> {
                        for &i in mine {
                            let f = &files[i];
                            let before = w.items;
                            let mut input = open(&f.path, bytes)?;
                            let mut tick = |_: u64, _: u64| {
                                if cancel.load(Ordering::Relaxed) || abort.load(Ordering::Relaxed) {
                                    return Err(SourceError::Cancelled);
                                }
                                lines_done.fetch_add(TICK_LINES, Ordering::Relaxed);
                                Ok(())
                            };
                            load_data_file(
                                FileLoad {
                                    reader: &mut *input.reader,
                                    compression: input.compression,
                                    name: &f.path,
                                    opts,
                                    sink: &mut w,
                                    tick: &mut tick,
                                },
                                format,
                            )?;
                            counts.push((i, w.items - before));
                        }
                        Ok(())
                    };
                    let result = run();
                    if result.is_err() {
                        abort.store(true, Ordering::Relaxed);
                    }
                    result.map(|()| (w, counts))
                })
            })
            .collect();
        drop(done_tx);
        join_workers(
            handles,
            &done_rx,
            &lines_done,
            ctx,
            (lines_before, items_before),
        )
    });
    let (counts, sinks) = gather(results, files.len(), cancel)?;
    for w in sinks {
        sink.absorb(w);
    }
    Ok(counts)
}

/// Waits for the workers, reporting the lines they have read so far (on top of `before`: lines, items) every
/// 50 ms; a worker that panicked is an error. `done` hangs up once every worker has ended: waiting on it
/// rather than sleeping 50 ms between looks at the handles ends the wait when the last worker does (the
/// sleep cost 0–50 ms at the end of every load: 25 ms, 4 %, of `benches/export_load.sh` on average).
fn join_workers(
    handles: Vec<std::thread::ScopedJoinHandle<'_, WorkerResult>>,
    done: &std::sync::mpsc::Receiver<()>,
    lines_done: &AtomicU64,
    ctx: &mut Ctx<'_, '_>,
    (lines_before, items_before): (u64, u64),
) -> Vec<WorkerResult> {
    while let Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
        done.recv_timeout(Duration::from_millis(50))
    {
        let done = lines_done.load(Ordering::Relaxed);
        ctx.report(lines_before + done, items_before + done);
    }
    handles
        .into_iter()
        .map(|h| {
            h.join().unwrap_or_else(|_| {
                Err(SourceError::record(
                    Path::new("worker"),
                    At::File,
                    "a loader thread panicked",
                ))
            })
        })
        .collect()
}

/// Deals the files out to `threads` lists: largest first to the least loaded list; each list then in manifest
/// order.
fn assign(files: &[DataFile], threads: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| (Reverse(files[i].bytes), i));
    let mut load = vec![0u64; threads];
    let mut assigned: Vec<Vec<usize>> = vec![Vec::new(); threads];
    for i in order {
        let t = (0..threads).min_by_key(|&t| (load[t], t)).unwrap_or(0);
        assigned[t].push(i);
        load[t] += files[i].bytes.max(1);
    }
    for a in &mut assigned {
        a.sort_unstable();
    }
    assigned
}

/// Loads one data file of the export in its format.
fn load_data_file(cx: FileLoad<'_, '_>, format: FormatIn) -> Result<(), SourceError> {
    match format {
        FormatIn::Ion => {
            let (reader, compression, name, opts, sink, tick) = cx.into_parts();
            load_ion(reader, compression, name, sink, opts, tick)
        }
        FormatIn::Incremental => load_json_lines(cx, "Keys"),
        _ => load_json_lines(cx, "Item"),
    }
}

/// The workers' results: each file's item count and the workers' sinks, or the first error (a worker that
/// stopped because another failed is not that error; a cancelled load is [`SourceError::Cancelled`]).
fn gather(
    results: Vec<WorkerResult>,
    files: usize,
    cancel: &AtomicBool,
) -> Result<(Vec<u64>, Vec<Sink>), SourceError> {
    let mut counts = vec![0u64; files];
    let mut sinks = Vec::with_capacity(results.len());
    let mut first_error: Option<SourceError> = None;
    for r in results {
        match r {
            Ok((w, c)) => {
                for (i, n) in c {
                    counts[i] = n;
                }
                sinks.push(w);
            }
            Err(SourceError::Cancelled) if !cancel.load(Ordering::Relaxed) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(SourceError::Cancelled);
    }
    Ok((counts, sinks))
}
