//! Loading an export's data files on every core: one thread per core, each with a [`Sink`] (and so a
//! [`crate::model::KeySet`]) of its own, the sinks merged at the end (merging keeps counts exact).
//!
//! Each thread is dealt a run of neighbouring files, the runs balanced by bytes ([`runs`]), and reads its run
//! in order. A thread that has read its run takes the last unread file of the run with the most bytes left,
//! into a sink of its own ([`Runs::next`]), so that a core slower than the other for a while (a busy host)
//! does not leave the other idle. Every sink then holds a run of neighbouring files read in order, and the
//! sinks are merged in file order: the keys are numbered as one reader numbers them, and the report, down to
//! ties between keys (the largest items when several are as large), is the same on any number of cores and
//! whichever thread was faster. (Dealing the files largest first to the least loaded thread, as before,
//! numbered keys by which thread read which file: an export's list of largest items differed between 2, 3
//! and 4 cores.) One thing still depends on the number of threads: past 32 MB of distinct sort keys, which
//! of them the partition inspector keeps as a sample, since the threads share that budget ([`Sink::fork`]).
//!
//! With one thread (one core, or a page, where a load cannot start threads: [`crate::source::threads`]) the
//! one worker reads every file on the loading thread itself, in order.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use super::DataFile;
use crate::source::dynamodb_json::load_json_lines;
use crate::source::ion::load_ion;
use crate::source::read::Ctx;
use crate::source::read::{FileLoad, Sink, TICK_LINES};
use crate::source::tree::Tree;
use crate::source::{At, FormatIn, SourceError};

/// A run of neighbouring files one sink read in order: its first file, the sink, and each file's item count
/// (by file index).
type Piece = (usize, Sink, Vec<(usize, u64)>);

/// A worker's pieces: its own run's, then one for each file it took from another run; or the file it failed
/// on (its index) and why.
type WorkerResult = Result<Vec<Piece>, (usize, SourceError)>;

#[cfg(test)]
thread_local! {
    /// Tests' thread count in place of the cores', and a thread that waits until another took a file from
    /// a run not its own (or 10 s passed) before it reads, for loads started on this thread.
    pub(crate) static TEST_THREADS: std::cell::Cell<Option<(usize, Option<usize>)>> =
        const { std::cell::Cell::new(None) };
    /// Files taken from another thread's run in the last load started on this thread.
    pub(crate) static TEST_TAKEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Loads `files` of `tree` on one thread per core; returns each file's item count.
pub(super) fn load_parallel(
    tree: &dyn Tree,
    files: &[DataFile],
    format: FormatIn,
    items_distinct: bool,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
) -> Result<Vec<u64>, SourceError> {
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let threads = crate::source::threads::cores();
    #[cfg(test)]
    let (threads, slow) = TEST_THREADS.get().map_or((threads, None), |t| t);
    #[cfg(not(test))]
    let slow: Option<usize> = None;
    let threads = threads.min(files.len()).max(1);
    let shared = Shared {
        tree,
        files,
        format,
        runs: Runs::new(files, threads),
        opts: ctx.opts,
        bytes: ctx.bytes,
        cancel: ctx.cancel,
        first_bad: AtomicUsize::new(usize::MAX),
        lines_done: AtomicU64::new(0),
    };
    let (lines_before, items_before) = (sink.lines, sink.items);
    if threads == 1 && slow.is_none() {
        let mut template = sink.fork(1);
        template.keys.set_items_distinct(items_distinct);
        let mut pieces = Vec::new();
        let result = shared.read(0, &template, &mut pieces, &mut |done| {
            ctx.report(lines_before + done, items_before + done);
        });
        let (counts, sinks) = gather(vec![result.map(|()| pieces)], files.len(), shared.cancel)?;
        for w in sinks {
            sink.absorb(w);
        }
        return Ok(counts);
    }
    // Nothing is sent: each worker holds a sender until it ends (returns or panics), so the receiver hears
    // the moment the last one is done.
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let results: Vec<WorkerResult> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                // Each worker forks its pieces' sinks from one of its own (a fork's settings are its own).
                let mut template = sink.fork(threads);
                template.keys.set_items_distinct(items_distinct);
                let (shared, done) = (&shared, done_tx.clone());
                s.spawn(move || {
                    let _done = done;
                    if slow == Some(t) {
                        shared.wait_for_a_taker();
                    }
                    let mut pieces = Vec::new();
                    let result = shared.read(t, &template, &mut pieces, &mut |_| {});
                    if let Err((i, _)) = &result {
                        shared.first_bad.fetch_min(*i, Ordering::Relaxed);
                        shared.runs.give_up_after(*i);
                    }
                    result.map(|()| pieces)
                })
            })
            .collect();
        drop(done_tx);
        join_workers(
            handles,
            &done_rx,
            &shared.lines_done,
            ctx,
            (lines_before, items_before),
        )
    });
    #[cfg(test)]
    TEST_TAKEN.set(shared.runs.taken.load(Ordering::Relaxed));
    let (counts, sinks) = gather(results, files.len(), shared.cancel)?;
    for w in sinks {
        sink.absorb(w);
    }
    Ok(counts)
}

/// What the workers of one load share.
struct Shared<'a> {
    tree: &'a dyn Tree,
    files: &'a [DataFile],
    format: FormatIn,
    runs: Runs,
    opts: &'a crate::source::LoadOptions,
    bytes: &'a AtomicU64,
    cancel: &'a AtomicBool,
    /// The first file (by index) a worker failed on: the workers reading a later file stop, and those reading
    /// an earlier one read on, so that the load fails as one reader's does, on the first bad file.
    first_bad: AtomicUsize,
    lines_done: AtomicU64,
}

impl Shared<'_> {
    /// For tests: waits until a file was taken from a run not its taker's, a worker failed, or 10 s passed.
    fn wait_for_a_taker(&self) {
        let deadline = web_time::Instant::now() + Duration::from_secs(10);
        while self.runs.taken.load(Ordering::Relaxed) == 0
            && self.first_bad.load(Ordering::Relaxed) == usize::MAX
            && web_time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Worker `t`'s reading: each file [`Runs::next`] gives it, into `pieces` (a new piece, forked from
    /// `template`, for its first file and for each taken from another run). `read_so_far` hears the lines the
    /// workers have read, every [`TICK_LINES`] (the loading thread reports them when it is the worker).
    fn read(
        &self,
        t: usize,
        template: &Sink,
        pieces: &mut Vec<Piece>,
        read_so_far: &mut dyn FnMut(u64),
    ) -> Result<(), (usize, SourceError)> {
        while let Some((i, taken)) = self.runs.next(t) {
            if taken || pieces.is_empty() {
                let mut w = template.fork(1);
                w.keys.set_items_distinct(template.keys.items_distinct());
                pieces.push((i, w, Vec::new()));
            }
            let Some((_, w, counts)) = pieces.last_mut() else {
                break;
            };
            let f = &self.files[i];
            let before = w.items;
            let mut input = self.tree.open(&f.path, self.bytes).map_err(|e| (i, e))?;
            let mut tick = |_: u64, _: u64| {
                if self.cancel.load(Ordering::Relaxed) || self.first_bad.load(Ordering::Relaxed) < i
                {
                    return Err(SourceError::Cancelled);
                }
                let done = self.lines_done.fetch_add(TICK_LINES, Ordering::Relaxed) + TICK_LINES;
                read_so_far(done);
                Ok(())
            };
            load_data_file(
                FileLoad {
                    reader: &mut *input.reader,
                    compression: input.compression,
                    name: &f.path,
                    opts: self.opts,
                    sink: w,
                    tick: &mut tick,
                },
                self.format,
            )
            .map_err(|e| (i, e))?;
            counts.push((i, w.items - before));
        }
        Ok(())
    }
}

/// The files each thread has left to read: a run of neighbours each, read from its start by its thread and
/// taken from its end by the others.
struct Runs {
    left: Mutex<Vec<Range<usize>>>,
    /// Each file's size, for choosing the run to take from.
    sizes: Vec<u64>,
    /// Files taken from a run not the taker's.
    taken: AtomicU64,
}

impl Runs {
    fn new(files: &[DataFile], threads: usize) -> Self {
        let sizes: Vec<u64> = files.iter().map(|f| f.bytes.max(1)).collect();
        Runs {
            left: Mutex::new(runs(&sizes, threads)),
            sizes,
            taken: AtomicU64::new(0),
        }
    }

    /// The next file for thread `t` to read, and whether it was taken from another thread's run: the first
    /// unread file of its own run; once that is read, the last unread file of the run with the most bytes
    /// left (the first such run on a tie). `None` once every file is being read.
    fn next(&self, t: usize) -> Option<(usize, bool)> {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(own) = left.get_mut(t)
            && own.start < own.end
        {
            own.start += 1;
            return Some((own.start - 1, false));
        }
        let bytes = |r: &Range<usize>| self.sizes[r.clone()].iter().sum::<u64>();
        let from = left
            .iter_mut()
            .filter(|r| r.start < r.end)
            .rev()
            .max_by_key(|r| bytes(r))?;
        from.end -= 1;
        self.taken.fetch_add(1, Ordering::Relaxed);
        Some((from.end, true))
    }

    /// Leaves no file after file `bad` to read: a worker failed on it.
    fn give_up_after(&self, bad: usize) {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        for r in left.iter_mut() {
            r.end = r.end.min(bad).max(r.start);
        }
    }
}

/// `sizes` (each file's bytes) cut into `threads` runs of neighbouring files (`threads` at most
/// `sizes.len()`), none empty, each ending at the file whose end is nearest its share of the bytes: run `k`
/// ends nearest `(k + 1) / threads` of them.
fn runs(sizes: &[u64], threads: usize) -> Vec<Range<usize>> {
    let threads = threads.clamp(1, sizes.len().max(1));
    let total: u128 = sizes.iter().map(|&b| u128::from(b)).sum();
    let mut out = Vec::with_capacity(threads);
    let (mut start, mut before) = (0usize, 0u128);
    for k in 1..threads {
        let share = total * k as u128 / threads as u128;
        // At least one file each: this run's first, and one for each run after it.
        let (first_end, last_end) = (start + 1, sizes.len() - (threads - k));
        let mut end = first_end;
        let mut at = before + u128::from(sizes[start]);
        while end < last_end {
            let next = at + u128::from(sizes[end]);
            if next.abs_diff(share) >= at.abs_diff(share) {
                break;
            }
            at = next;
            end += 1;
        }
        out.push(start..end);
        (start, before) = (end, at);
    }
    out.push(start..sizes.len());
    out
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
                Err((
                    usize::MAX,
                    SourceError::record(Path::new("worker"), At::File, "a loader thread panicked"),
                ))
            })
        })
        .collect()
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

/// The workers' results: each file's item count and the pieces' sinks in file order, or the error of the first
/// file that failed (a worker that stopped because another failed is not that error; a cancelled load is
/// [`SourceError::Cancelled`]).
fn gather(
    results: Vec<WorkerResult>,
    files: usize,
    cancel: &AtomicBool,
) -> Result<(Vec<u64>, Vec<Sink>), SourceError> {
    let mut counts = vec![0u64; files];
    let mut pieces = Vec::with_capacity(results.len());
    let mut first_error: Option<(usize, SourceError)> = None;
    for r in results {
        match r {
            Ok(mine) => {
                for (first, w, c) in mine {
                    for (i, n) in c {
                        counts[i] = n;
                    }
                    pieces.push((first, w));
                }
            }
            Err((_, SourceError::Cancelled)) if !cancel.load(Ordering::Relaxed) => {}
            Err((i, e)) => {
                if first_error.as_ref().is_none_or(|(first, _)| i < *first) {
                    first_error = Some((i, e));
                }
            }
        }
    }
    if let Some((_, e)) = first_error {
        return Err(e);
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(SourceError::Cancelled);
    }
    pieces.sort_by_key(|&(first, _)| first);
    Ok((counts, pieces.into_iter().map(|(_, w)| w).collect()))
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::{TEST_TAKEN, TEST_THREADS, runs};
    use crate::source::read::Sink;
    use crate::source::stretches::{summary, test_numbers, with_test_ctx};
    use crate::source::{LoadOptions, OnBad};

    #[test]
    fn runs_are_neighbours_each_near_its_share_of_the_bytes() {
        assert_eq!(runs(&[10; 8], 2), vec![0..4, 4..8]);
        assert_eq!(runs(&[10; 8], 3), vec![0..3, 3..5, 5..8]);
        assert_eq!(runs(&[100, 1, 1, 1, 1], 2), vec![0..1, 1..5]);
        assert_eq!(runs(&[1, 1, 1, 1, 100], 2), vec![0..4, 4..5]);
        assert_eq!(
            runs(&[1, 1, 1, 1, 100], 5),
            vec![0..1, 1..2, 2..3, 3..4, 4..5]
        );
        assert_eq!(runs(&[100, 100, 1], 3), vec![0..1, 1..2, 2..3]);
        assert_eq!(runs(&[7], 1), vec![0..1]);
        let mut next = test_numbers(5);
        for _ in 0..500 {
            let files = 1 + (next() % 12) as usize;
            let sizes: Vec<u64> = (0..files).map(|_| 1 + next() % 1000).collect();
            let threads = 1 + (next() as usize) % files;
            let got = runs(&sizes, threads);
            assert_eq!(got.len(), threads, "{sizes:?} on {threads}");
            assert_eq!(got.first().map(|r| r.start), Some(0));
            assert_eq!(got.last().map(|r| r.end), Some(files));
            for pair in got.windows(2) {
                assert_eq!(
                    pair[0].end, pair[1].start,
                    "{sizes:?} on {threads}: {got:?}"
                );
            }
            assert!(got.iter().all(|r| r.start < r.end), "{sizes:?}: {got:?}");
        }
    }

    /// An export of `files` gzip files of uneven sizes, each item as large as many others (ties among the
    /// largest items), keys first seen in different files, and a bad line in each file `bad` names.
    fn export(root: &std::path::Path, files: usize, bad: &[usize]) {
        let data = root.join("data");
        std::fs::create_dir_all(&data).unwrap();
        let mut next = test_numbers(files as u64);
        let mut manifest = String::new();
        let mut total = 0;
        for f in 0..files {
            let mut text = Vec::new();
            let items = 50 + 40 * ((f * 5 + 2) % files);
            for i in 0..items {
                let r = next() % 300;
                let key = format!("user#{:03}", if r < 100 { r % 7 } else { r });
                writeln!(
                    text,
                    r#"{{"Item":{{"pk":{{"S":"{key}"}},"sk":{{"N":"{}"}},"note":{{"S":"{}"}}}}}}"#,
                    f * 1000 + i,
                    "x".repeat(if i % 5 == 0 { 30 } else { 10 }),
                )
                .unwrap();
            }
            if bad.contains(&f) {
                writeln!(text, r#"{{"Item":{{"pk":{{"S":"broken"#).unwrap();
            }
            total += items;
            let name = format!("file-{f:02}.json.gz");
            let mut gz = flate2::write::GzEncoder::new(
                std::fs::File::create(data.join(&name)).unwrap(),
                flate2::Compression::fast(),
            );
            gz.write_all(&text).unwrap();
            gz.finish().unwrap();
            manifest.push_str(&format!(
                "{{\"itemCount\":{items},\"dataFileS3Key\":\"AWSDynamoDB/x/data/{name}\"}}\n"
            ));
        }
        std::fs::write(root.join("manifest-files.json"), manifest).unwrap();
        std::fs::write(
            root.join("manifest-summary.json"),
            format!("{{\"itemCount\":{total},\"outputFormat\":\"DYNAMODB_JSON\"}}"),
        )
        .unwrap();
    }

    /// The export at `root` loaded on `threads` threads, `slow` one of them waiting for another to take a
    /// file from a run not its own: what a report reads (or the error), and how many files were taken so.
    fn load(
        root: &std::path::Path,
        opts: &LoadOptions,
        threads: usize,
        slow: Option<usize>,
    ) -> (String, u64) {
        let mut sink = Sink::new(opts);
        TEST_THREADS.set(Some((threads, slow)));
        let groups = with_test_ctx(opts, |ctx| {
            super::super::load_folder(&crate::source::tree::Disk, root, &mut sink, ctx)
        });
        TEST_THREADS.set(None);
        let report = match groups {
            Ok(groups) => {
                let counts: Vec<u64> = groups.iter().map(|g| g.items).collect();
                format!(
                    "{}\nshape {:?}\nfiles {counts:?}",
                    summary(&sink),
                    sink.shape
                )
            }
            Err(e) => format!("error: {e:#}"),
        };
        (report, TEST_TAKEN.get())
    }

    #[test]
    fn an_export_loads_alike_on_any_number_of_threads_whichever_is_faster() {
        let dir =
            std::env::temp_dir().join(format!("shardlens-export-runs-{}", std::process::id()));
        let cases: [(usize, &[usize]); 3] = [(7, &[]), (9, &[2]), (9, &[6, 2])];
        for (case, (files, bad)) in cases.into_iter().enumerate() {
            let root = dir.join(format!("{case}"));
            export(&root, files, bad);
            let skip = LoadOptions {
                on_bad: OnBad::Skip,
                keep_items: true,
                ..LoadOptions::default()
            };
            for opts in [LoadOptions::default(), skip] {
                let (want, _) = load(&root, &opts, 1, None);
                if !bad.is_empty() && opts.on_bad == OnBad::Stop {
                    // The first bad file's error, as one reader gives it, whichever thread reads it and
                    // whatever the others were doing.
                    assert!(
                        want.starts_with("error: ") && want.contains("file-02"),
                        "{want}"
                    );
                } else {
                    assert!(want.contains("largest"), "{want}");
                }
                for threads in 2..=5 {
                    let what = format!("{files} files, bad {bad:?}, on {threads} threads");
                    assert_eq!(load(&root, &opts, threads, None).0, want, "{what}");
                    for slow in [0, threads - 1] {
                        let (got, taken) = load(&root, &opts, threads, Some(slow));
                        // A load that fails leaves no file to take.
                        assert!(
                            taken >= 1 || want.starts_with("error: "),
                            "{what}, thread {slow} slow: a file was taken"
                        );
                        assert_eq!(got, want, "{what}, thread {slow} slow");
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
