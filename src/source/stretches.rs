//! One large, uncompressed file read in stretches on several threads: each stretch loads into a
//! [`Sink::fork`] of its own, and the forks are merged in file order, so keys keep the order in which they
//! first appear and every count is what one reader would have found. The format decides where the file is cut
//! and how a stretch is read ([`ReadStretch`]); this module runs the threads, reports progress and merges.
//! Used by DynamoDB JSON lines ([`crate::source::dynamodb_json::load_json_lines_split`]) and JSON arrays
//! ([`crate::source::json::doc_split`]).
//!
//! **Taking the back of a stretch.** A format that can say where an item begins near any place ([`Cutter`],
//! JSON arrays) lets a thread that has read its stretch take the back half of what is left of the longest
//! other one: the other's end is lowered to the cut, and the back is read as a stretch of its own, merged in
//! its place in file order. A reader claims the bytes it is about to read ([`FileStretches::claim`], a few
//! MB ahead) and reads only items that begin in what it claimed; a cut is only ever made past the claim, so
//! no item is read twice or left out, and the stretch before a cut checks, as every stretch does, that the
//! item after its last begins exactly there. Why: on a host where one core is slowed for a while (another
//! guest's work on the same physical core, we think), a pretty-printed array's stretch read 2.5× slower than
//! the other (its SIMD kernel 226 against 90 ms), and the other core idled for the difference
//! (`docs/performance.md`).

use std::io::{BufReader, Read as _, Seek as _, SeekFrom};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::source::json::ttl::TtlProbe;
use crate::source::read::{Counting, Ctx, Sink, SplitFile, TICK_LINES};
use crate::source::{At, SourceError};

/// Bytes each stretch's reader asks for at once (as [`crate::source::read::open`]'s buffer).
pub const BUF_BYTES: usize = 256 << 10;

/// A stretch of the file: the bytes `from..to`, whether it is the file's last, and its number among the
/// stretches of the load (what [`FileStretches::claim`] takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stretch {
    pub from: u64,
    pub to: u64,
    pub last: bool,
    pub piece: usize,
}

/// Where an item begins at or after `at` and before `to`, for cutting a stretch there; `None` when none is
/// found (the stretch is then left whole).
pub type Cutter<'c> = dyn Fn(u64, u64) -> Option<u64> + Sync + 'c;

/// How far ahead of an item a reader claims the bytes it reads ([`FileStretches::claim`]).
const CLAIM_BYTES: u64 = 8 << 20;
/// The fewest unclaimed bytes a stretch must have left for another thread to take the back half.
const STEAL_BYTES: u64 = 64 << 20;

#[cfg(test)]
thread_local! {
    /// Tests' sizes in place of [`CLAIM_BYTES`] and [`STEAL_BYTES`], and a stretch whose reader waits until
    /// another thread took the back of it (or 10 s passed), for loads started on this thread.
    pub(crate) static TEST_STEALING: std::cell::Cell<Option<(u64, u64, Option<usize>)>> =
        const { std::cell::Cell::new(None) };
    /// How many backs the last load started on this thread took.
    pub(crate) static TEST_STEALS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A stretch as it stands: its end is lowered when another thread takes its back.
#[derive(Debug, Clone, Copy)]
struct Piece {
    stretch: Stretch,
    /// Its reader reads items that begin before this only.
    claimed: u64,
    /// Its reader has ended.
    done: bool,
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
    /// Every stretch as it stands, by [`Stretch::piece`]: the cut ones, then the backs taken.
    pieces: Mutex<Vec<Piece>>,
    /// Where an item begins near a place, when the format can say: then threads take the backs of stretches.
    cutter: Option<&'a Cutter<'a>>,
    /// Backs taken so far.
    steals: AtomicU64,
    claim_bytes: u64,
    steal_bytes: u64,
    /// Tests: the stretch whose reader waits until a back was taken.
    #[cfg(test)]
    hold: Option<usize>,
}

/// Loads the stretches `cuts[k]..cuts[k + 1]` of `file` into `sink` on a thread each, each into a
/// fork of `sink` whose TTL attribute starts from `ttl` (decided by the file's first item, as one reader
/// decides it), then merges the forks in order. `Ok(false)`, with `sink` and the byte count as they were, when
/// the file is to be read by one reader: a stretch that failed, or a warning or skipped record past the first
/// stretch (one reader names its line in the whole file). A stretch that holds an item of the stretches
/// before it is read again after them, into their sink (one reader counts the item once). With a `cutter`,
/// threads that end first take the backs of the other stretches (see the module's documentation).
pub fn load_in_stretches(
    file: &SplitFile<'_>,
    cuts: &[u64],
    sink: &mut Sink,
    ctx: &mut Ctx<'_, '_>,
    ttl: &TtlProbe,
    read: &ReadStretch<'_>,
    cutter: Option<&Cutter<'_>>,
) -> Result<bool, SourceError> {
    let &SplitFile {
        path,
        name,
        read_before,
        ..
    } = file;
    let bytes_before = ctx.bytes.load(Ordering::Relaxed);
    let pieces = stretches(cuts)
        .map(|stretch| Piece {
            stretch,
            claimed: stretch.from,
            done: false,
        })
        .collect();
    #[cfg(test)]
    let test = TEST_STEALING.with(std::cell::Cell::get);
    #[cfg(not(test))]
    let test: Option<(u64, u64, Option<usize>)> = None;
    let (claim_bytes, steal_bytes) = test.map_or((CLAIM_BYTES, STEAL_BYTES), |(c, s, _)| (c, s));
    let shared = FileStretches {
        path,
        name,
        opts: ctx.opts,
        cancel: ctx.cancel,
        bail: AtomicBool::new(false),
        lines: AtomicU64::new(0),
        read: AtomicU64::new(0),
        pieces: Mutex::new(pieces),
        cutter,
        steals: AtomicU64::new(0),
        claim_bytes,
        steal_bytes,
        #[cfg(test)]
        hold: test.and_then(|(_, _, hold)| hold),
    };
    let results = shared.load_all(cuts, sink, ttl, read_before, ctx, read);
    #[cfg(test)]
    TEST_STEALS.set(shared.steals.load(Ordering::Relaxed));
    let mut forks = Vec::with_capacity(results.len());
    for (stretch, r) in results {
        forks.push((stretch, r?));
    }
    match shared.merge_in_order(forks, read) {
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
        piece: k,
    })
}

impl FileStretches<'_> {
    /// Loads each stretch on a thread of its own into a fork of `sink` that starts from the TTL attribute
    /// `ttl`, then the backs of stretches the thread takes ([`Self::steal`]), reporting progress through `ctx`
    /// every 50 ms; by stretch as it ended (in file order), its fork, `None` when the file is to go to one
    /// reader, or an error (cancelled, a thread that panicked).
    fn load_all(
        &self,
        cuts: &[u64],
        sink: &Sink,
        ttl: &TtlProbe,
        read_before: u64,
        ctx: &mut Ctx<'_, '_>,
        read: &ReadStretch<'_>,
    ) -> Vec<(Stretch, Result<Option<Sink>, SourceError>)> {
        let (lines_before, items_before) = (sink.lines, sink.items);
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let fork = || {
            let mut fork = sink.fork(1);
            fork.ttl_seed = Some(ttl.clone());
            fork
        };
        let by_piece = std::thread::scope(|scope| {
            let handles: Vec<_> = stretches(cuts)
                .map(|stretch| {
                    let done = done_tx.clone();
                    scope.spawn(move || {
                        let _done = done;
                        let mut loaded = vec![(stretch.piece, self.load(stretch, fork(), read))];
                        while let Some(back) = self.steal() {
                            loaded.push((back.piece, self.load(back, fork(), read)));
                        }
                        loaded
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
                .flat_map(|h| {
                    h.join().unwrap_or_else(|_| {
                        vec![(
                            usize::MAX,
                            Err(SourceError::record(
                                self.name,
                                At::File,
                                "a loader thread panicked",
                            )),
                        )]
                    })
                })
                .collect::<Vec<_>>()
        });
        let pieces = self.pieces_now();
        let mut out: Vec<_> = by_piece
            .into_iter()
            .map(|(piece, r)| {
                let stretch = pieces.get(piece).map_or(
                    Stretch {
                        from: u64::MAX,
                        to: u64::MAX,
                        last: false,
                        piece,
                    },
                    |p| p.stretch,
                );
                (stretch, r)
            })
            .collect();
        out.sort_by_key(|(stretch, _)| stretch.from);
        out
    }

    /// Every stretch as it stands now.
    fn pieces_now(&self) -> Vec<Piece> {
        self.pieces.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// For the reader of stretch `piece` at `at` (where an item begins): the stretch as it stands (its end may
    /// have been lowered by a thread that took its back) and how far it may read: items that begin before the
    /// returned place are its own. Claims the bytes up to that place, so that no back is cut before it.
    /// `None` when a thread panicked holding the stretches (the load fails).
    pub fn claim(&self, piece: usize, at: u64) -> Option<(Stretch, u64)> {
        let mut pieces = self.pieces.lock().ok()?;
        let p = pieces.get_mut(piece)?;
        let until = at.saturating_add(self.claim_bytes).min(p.stretch.to);
        p.claimed = p.claimed.max(until);
        Some((p.stretch, p.claimed))
    }

    /// The stretch `piece` as it stands (its end lowered if another thread took its back); `None` when a
    /// thread panicked holding the stretches (the load fails).
    pub fn stretch_now(&self, piece: usize) -> Option<Stretch> {
        self.pieces.lock().ok()?.get(piece).map(|p| p.stretch)
    }

    /// The back half of what is left unclaimed of the longest other stretch, cut where an item begins
    /// ([`Cutter`]), as a stretch of its own: `None` when no stretch has [`STEAL_BYTES`] left, the format
    /// cannot cut, no place was found, or the load stops.
    fn steal(&self) -> Option<Stretch> {
        let cutter = self.cutter?;
        for _ in 0..3 {
            if self.cancel.load(Ordering::Relaxed) || self.bail.load(Ordering::Relaxed) {
                return None;
            }
            let (victim, claimed, to) = {
                let pieces = self.pieces.lock().ok()?;
                pieces
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| !p.done)
                    .map(|(k, p)| (k, p.claimed, p.stretch.to))
                    .max_by_key(|&(_, claimed, to)| to.saturating_sub(claimed))?
            };
            if to.saturating_sub(claimed) < self.steal_bytes {
                return None;
            }
            let cut = cutter(claimed + (to - claimed) / 2, to)?;
            let mut pieces = self.pieces.lock().ok()?;
            let p = pieces.get(victim)?;
            if p.done || p.stretch.to != to || cut <= p.claimed || cut >= to {
                // Its reader claimed past the cut meanwhile: look again.
                continue;
            }
            let back = Stretch {
                from: cut,
                to,
                last: p.stretch.last,
                piece: pieces.len(),
            };
            let p = pieces.get_mut(victim)?;
            p.stretch.to = cut;
            p.stretch.last = false;
            pieces.push(Piece {
                stretch: back,
                claimed: cut,
                done: false,
            });
            self.steals.fetch_add(1, Ordering::Relaxed);
            return Some(back);
        }
        None
    }

    /// The stretches' forks merged in file order into the first: `None` when the file is to go to one reader.
    fn merge_in_order(
        &self,
        forks: Vec<(Stretch, Option<Sink>)>,
        read: &ReadStretch<'_>,
    ) -> Option<Sink> {
        let forks: Vec<(Stretch, Sink)> = forks
            .into_iter()
            .map(|(stretch, fork)| fork.map(|f| (stretch, f)))
            .collect::<Option<_>>()?;
        if forks
            .iter()
            .skip(1)
            .any(|(_, f)| !f.warnings.is_empty() || f.skipped > 0)
        {
            return None;
        }
        let mut forks = forks.into_iter();
        let (_, mut merged) = forks.next()?;
        for (stretch, mut fork) in forks {
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
        #[cfg(test)]
        if self.hold == Some(stretch.piece) {
            // Waits for what it waits for: a back taken, with a deadline.
            let deadline = web_time::Instant::now() + Duration::from_secs(10);
            while self.steals.load(Ordering::Relaxed) == 0 && web_time::Instant::now() < deadline {
                std::thread::yield_now();
            }
        }
        let result = read(self, stretch, &mut fork, true);
        if let Ok(mut pieces) = self.pieces.lock()
            && let Some(p) = pieces.get_mut(stretch.piece)
        {
            p.done = true;
        }
        match result {
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

/// `f` given a load's context for tests: `opts`, never cancelled, progress not shown.
#[cfg(test)]
pub(crate) fn with_test_ctx<R>(
    opts: &crate::source::LoadOptions,
    f: impl FnOnce(&mut Ctx<'_, '_>) -> R,
) -> R {
    let (cancel, bytes) = (AtomicBool::new(false), AtomicU64::new(0));
    let mut progress = |_| {};
    f(&mut Ctx {
        opts,
        cancel: &cancel,
        bytes: &bytes,
        total_bytes: None,
        total_items: None,
        progress: &mut progress,
    })
}

/// `text` written to a file and loaded into `sink` by `splitter` in `threads` stretches, or, when it declines,
/// by `one_reader` from the start, as `load_file` does; the sink, and whether it loaded in stretches.
#[cfg(test)]
pub(crate) fn load_in_stretches_or_one(
    text: &str,
    threads: usize,
    opts: &crate::source::LoadOptions,
    mut sink: Sink,
    splitter: crate::source::read::SplitLoad,
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
    let name = Path::new("items.json");
    let file = SplitFile {
        path: &path,
        name,
        size: text.len() as u64,
        threads,
        read_before: 0,
    };
    let split = with_test_ctx(opts, |ctx| splitter(&file, &mut sink, ctx));
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
