//! One large, uncompressed file read in stretches on several threads: each stretch loads into a
//! [`Sink::fork`] of its own, and the forks are merged in file order, so keys keep the order in which they
//! first appear and every count is what one reader would have found. The format decides where the file is cut
//! and how a stretch is read ([`ReadStretch`]); this module runs the threads, reports progress and merges.
//! Used by DynamoDB JSON lines ([`crate::source::dynamodb_json::load_json_lines_split`]) and JSON arrays
//! ([`crate::source::json::doc_split`]).

use std::io::{BufReader, Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::source::dispatch::Ctx;
use crate::source::json::ttl::TtlProbe;
use crate::source::read::{Counting, Sink, TICK_LINES};
use crate::source::{At, SourceError};

/// Bytes each stretch's reader asks for at once (as [`crate::source::read::open`]'s buffer).
pub const BUF_BYTES: usize = 256 << 10;

/// A stretch of the file: the bytes `from..to`, and whether it is the file's last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    pub from: u64,
    pub to: u64,
    pub last: bool,
}

/// Reads one stretch into a sink; `first` is set on the stretch's first reading (a stretch read again after
/// a merge found an item shared with the stretches before it is not counted again for progress). Any error
/// sends the file to one reader, which reports it.
pub type ReadStretch<'r> =
    dyn Fn(&FileStretches<'_>, Stretch, &mut Sink, bool) -> Result<(), SourceError> + Sync + 'r;

/// What the threads reading the stretches of one file share.
pub struct FileStretches<'a> {
    pub path: &'a Path,
    pub name: &'a Path,
    pub opts: &'a crate::source::LoadOptions,
    cancel: &'a AtomicBool,
    /// Set once a stretch finds what sends the file to one reader: every stretch stops.
    bail: AtomicBool,
    /// Lines read so far by every stretch, and bytes.
    lines: AtomicU64,
    read: AtomicU64,
}

/// Loads the stretches `cuts[k]..cuts[k + 1]` of the file `path` into `sink` on a thread each, each into a
/// fork of `sink` whose TTL attribute starts from `ttl` (decided by the file's first item, as one reader
/// decides it), then merges the forks in order. `Ok(false)`, with `sink` and the byte count as they were, when
/// the file is to be read by one reader: a stretch that failed, or a warning or skipped record past the first
/// stretch (one reader names its line in the whole file). A stretch that holds an item of the stretches
/// before it is read again after them, into their sink (one reader counts the item once).
#[allow(clippy::too_many_arguments)]
pub fn load_in_stretches(
    path: &Path,
    name: &Path,
    cuts: &[u64],
    read_before: u64,
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
    ttl: &TtlProbe,
    read: &ReadStretch<'_>,
) -> Result<bool, SourceError> {
    let bytes_before = ctx.bytes.load(Ordering::Relaxed);
    let shared = FileStretches {
        path,
        name,
        opts: ctx.opts,
        cancel: ctx.cancel,
        bail: AtomicBool::new(false),
        lines: AtomicU64::new(0),
        read: AtomicU64::new(0),
    };
    let results = shared.load_all(cuts, sink, ttl, read_before, ctx, read);
    let mut forks = Vec::with_capacity(results.len());
    for r in results {
        forks.push(r?);
    }
    match shared.merge_in_order(forks, cuts, read) {
        Some(merged) => {
            ctx.bytes.store(
                read_before + shared.read.load(Ordering::Relaxed),
                Ordering::Relaxed,
            );
            sink.absorb(merged);
            Ok(true)
        }
        None => {
            ctx.bytes.store(bytes_before, Ordering::Relaxed);
            Ok(false)
        }
    }
}

/// The stretches of `cuts`, in order.
fn stretches(cuts: &[u64]) -> impl Iterator<Item = Stretch> + '_ {
    let n = cuts.len().saturating_sub(1);
    cuts.windows(2).enumerate().map(move |(k, w)| Stretch {
        from: w[0],
        to: w[1],
        last: k + 1 == n,
    })
}

impl FileStretches<'_> {
    /// Loads each stretch on a thread of its own into a fork of `sink` that starts from the TTL attribute
    /// `ttl`, reporting progress through `ctx` every 50 ms; by stretch, its fork, `None` when the file is to go
    /// to one reader, or an error (cancelled, a thread that panicked).
    fn load_all(
        &self,
        cuts: &[u64],
        sink: &Sink,
        ttl: &TtlProbe,
        read_before: u64,
        ctx: &mut Ctx<'_, '_>,
        read: &ReadStretch<'_>,
    ) -> Vec<Result<Option<Sink>, SourceError>> {
        let (lines_before, items_before) = (sink.lines, sink.items);
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|scope| {
            let handles: Vec<_> = stretches(cuts)
                .map(|stretch| {
                    let mut fork = sink.fork(1);
                    fork.ttl_seed = Some(ttl.clone());
                    let done = done_tx.clone();
                    scope.spawn(move || {
                        let _done = done;
                        self.load(stretch, fork, read)
                    })
                })
                .collect();
            drop(done_tx);
            // `done` hangs up once every stretch has ended.
            while let Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                done_rx.recv_timeout(Duration::from_millis(50))
            {
                ctx.bytes.store(
                    read_before + self.read.load(Ordering::Relaxed),
                    Ordering::Relaxed,
                );
                let n = self.lines.load(Ordering::Relaxed);
                ctx.report(lines_before + n, items_before + n);
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(SourceError::record(
                            self.name,
                            At::File,
                            "a loader thread panicked",
                        ))
                    })
                })
                .collect()
        })
    }

    /// The stretches' forks merged in file order into the first: `None` when the file is to go to one reader.
    fn merge_in_order(
        &self,
        forks: Vec<Option<Sink>>,
        cuts: &[u64],
        read: &ReadStretch<'_>,
    ) -> Option<Sink> {
        let forks: Vec<Sink> = forks.into_iter().collect::<Option<_>>()?;
        if forks
            .iter()
            .skip(1)
            .any(|f| !f.warnings.is_empty() || f.skipped > 0)
        {
            return None;
        }
        let mut forks = forks.into_iter().zip(stretches(cuts));
        let (mut merged, _) = forks.next()?;
        for (mut fork, stretch) in forks {
            // Staged items first, as the merge takes them: the plan is of the keys merged.
            merged.settle();
            fork.settle();
            if let Some(plan) = crate::source::sink::plan_merge(&merged.keys, &fork.keys) {
                merged.absorb_planned(fork, Some(&plan));
            } else {
                read(self, stretch, &mut merged, false).ok()?;
            }
        }
        Some(merged)
    }

    /// Loads `stretch` into `fork`: `Ok(None)` when the file is to go to one reader (a failure here or in
    /// another stretch).
    fn load(
        &self,
        stretch: Stretch,
        mut fork: Sink,
        read: &ReadStretch<'_>,
    ) -> Result<Option<Sink>, SourceError> {
        match read(self, stretch, &mut fork, true) {
            Ok(()) => Ok(Some(fork)),
            Err(SourceError::Cancelled) if self.cancel.load(Ordering::Relaxed) => {
                Err(SourceError::Cancelled)
            }
            Err(_) => {
                self.bail.store(true, Ordering::Relaxed);
                Ok(None)
            }
        }
    }

    /// The file opened at `from`, read in [`BUF_BYTES`] at a time, at most `limit` bytes; with `first` the
    /// bytes read count for progress.
    pub fn open_at<'c>(
        &'c self,
        from: u64,
        limit: u64,
        first: bool,
        uncounted: &'c AtomicU64,
    ) -> Result<BufReader<Counting<'c, std::io::Take<std::fs::File>>>, SourceError> {
        let io_err = |error| SourceError::Io {
            name: self.name.to_path_buf(),
            error,
        };
        let mut file = std::fs::File::open(self.path).map_err(io_err)?;
        file.seek(SeekFrom::Start(from)).map_err(io_err)?;
        let counted = Counting {
            inner: file.take(limit),
            count: if first { &self.read } else { uncounted },
        };
        Ok(BufReader::with_capacity(BUF_BYTES, counted))
    }

    /// Counts `n` more bytes read, for progress (for a stretch whose reader does not count them itself).
    pub fn add_read(&self, n: u64) {
        self.read.fetch_add(n, Ordering::Relaxed);
    }

    /// A [`crate::source::read::Tick`] for a stretch: stops it once the load is cancelled or another stretch
    /// bailed; with `first`, counts its ticks for progress.
    pub fn tick(&self, first: bool) -> impl FnMut(u64, u64) -> Result<(), SourceError> + '_ {
        move |_, _| {
            if self.cancel.load(Ordering::Relaxed) || self.bail.load(Ordering::Relaxed) {
                return Err(SourceError::Cancelled);
            }
            if first {
                self.lines.fetch_add(TICK_LINES, Ordering::Relaxed);
            }
            Ok(())
        }
    }
}

/// Everything a load leaves in its sink that a report reads, as text (tests compare a load in stretches with
/// one reader's by it).
#[cfg(test)]
pub(crate) fn summary(s: &Sink) -> String {
    let k = &s.keys;
    let keys: Vec<String> = k
        .iter()
        .map(|(i, key, count)| {
            format!(
                "{} {count} {:?} {:?} {:?}",
                String::from_utf8_lossy(key),
                k.sort_key_facts(i),
                k.item_sort_keys(i),
                k.item_bytes(i),
            )
        })
        .collect();
    format!(
        "{keys:#?}\ntotal {} items {} lines {} skipped {} names {:?} ttl {:?} warnings {:?} sizes {:?} \
         largest {:?}",
        k.total(),
        s.items,
        s.lines,
        s.skipped,
        s.names,
        s.ttl,
        s.warnings,
        k.size_profile(),
        k.largest_items(5),
    )
}

/// The same numbers each run for tests' generated inputs: a 64-bit linear congruential generator from
/// `seed`, giving its state's top 31 bits.
#[cfg(test)]
pub(crate) fn test_numbers(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 33
    }
}

/// `text` written to a file and loaded into `sink` by `splitter` in `threads` stretches, or, when it declines,
/// by `one_reader` from the start, as `load_file` does; the sink, and whether it loaded in stretches.
#[cfg(test)]
pub(crate) fn load_in_stretches_or_one(
    text: &str,
    threads: usize,
    opts: &crate::source::LoadOptions,
    mut sink: Sink,
    splitter: crate::source::dispatch::SplitLoad,
    one_reader: impl FnOnce(crate::source::read::FileLoad<'_, '_>) -> Result<(), SourceError>,
) -> (Result<Sink, SourceError>, bool) {
    static FILES: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "shardlens-stretches-{}-{}",
        std::process::id(),
        FILES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("items.json");
    std::fs::write(&path, text).unwrap();
    let (cancel, bytes) = (AtomicBool::new(false), AtomicU64::new(0));
    let mut progress = |_| {};
    let mut ctx = Ctx {
        opts,
        cancel: &cancel,
        bytes: &bytes,
        total_bytes: None,
        total_items: None,
        progress: &mut progress,
    };
    let name = Path::new("items.json");
    let split = splitter(
        &path,
        name,
        text.len() as u64,
        threads,
        0,
        &mut sink,
        &mut ctx,
    );
    let in_stretches = matches!(split, Ok(true));
    let out = match split {
        Ok(true) => Ok(sink),
        Ok(false) => {
            let mut reader = BufReader::new(std::fs::File::open(&path).unwrap());
            one_reader(crate::source::read::FileLoad {
                reader: &mut reader,
                compression: crate::source::read::Compression::None,
                name,
                opts,
                sink: &mut sink,
                tick: &mut |_, _| Ok(()),
            })
            .map(|()| sink)
        }
        Err(e) => Err(e),
    };
    std::fs::remove_dir_all(&dir).unwrap();
    (out, in_stretches)
}
