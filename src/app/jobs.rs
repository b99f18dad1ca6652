//! Background work: parsing and re-bucketing large key sets, loading files. The UI thread never waits.
//!
//! One worker thread computes reports; a newer request replaces an older one that has not started (latest
//! wins). Loads run on their own thread. Results come back over bounded channels, each with the generation
//! it was asked for, so a stale result is recognised and dropped; every send asks egui for a repaint.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Condvar, Mutex};

use crate::model::{KeySet, KeyType, Report, ViewSettings, report_reusing};
use crate::source::{self, Loaded, Progress};

/// What to compute: keys from text (parsed on the worker) or a key set already held.
pub enum Input {
    Text(Arc<String>, KeyType),
    Keys(Arc<KeySet>),
}

pub struct Request {
    pub generation: u64,
    pub input: Input,
    pub view: ViewSettings,
}

/// What the panels show: the keys, their report, and the keys ordered by count (the editor's list).
#[derive(Clone)]
pub struct Shown {
    pub view: ViewSettings,
    pub keys: Arc<KeySet>,
    pub report: Arc<Report>,
    pub by_count: Arc<Vec<u32>>,
}

/// A computed report, or the parse error of the text.
pub struct Computed {
    pub generation: u64,
    pub result: Result<Shown, String>,
}

/// Events of a file load.
pub enum LoadEvent {
    Progress(Progress),
    Done(Box<Result<Loaded, String>>, PathBuf),
}

/// The worker's inbox: the newest request, and whether the app is gone (the worker then ends).
#[derive(Default)]
struct Inbox {
    request: Option<Request>,
    closed: bool,
}

type Slot = Arc<(Mutex<Inbox>, Condvar)>;

pub struct Jobs {
    slot: Slot,
    results: Receiver<Computed>,
    load: Option<(Receiver<LoadEvent>, Arc<AtomicBool>, PathBuf)>,
    ctx: egui::Context,
}

/// Computes a report synchronously: what the worker does, also used inline for small inputs. `previous`
/// saves re-sorting the keys by count when only the view changed.
pub fn compute(
    input: Input,
    view: &ViewSettings,
    previous: Option<&Shown>,
) -> Result<Shown, String> {
    let keys = match input {
        Input::Text(text, key_type) => Arc::new(
            crate::model::text::parse_text(text.as_bytes(), key_type).map_err(|e| e.to_string())?,
        ),
        Input::Keys(keys) => keys,
    };
    let same_keys = previous.filter(|p| Arc::ptr_eq(&p.keys, &keys));
    let report = Arc::new(report_reusing(
        &keys,
        view,
        same_keys.map(|p| (&p.view, p.report.as_ref())),
    ));
    let by_count = match same_keys {
        Some(p) => Arc::clone(&p.by_count),
        None => Arc::new(keys.top(keys.len())),
    };
    Ok(Shown {
        view: view.clone(),
        keys,
        report,
        by_count,
    })
}

impl Jobs {
    pub fn new(ctx: egui::Context) -> Self {
        let slot: Slot = Arc::new((Mutex::new(Inbox::default()), Condvar::new()));
        let (tx, results) = sync_channel::<Computed>(4);
        let worker_slot = Arc::clone(&slot);
        let worker_ctx = ctx.clone();
        let spawned = std::thread::Builder::new()
            .name("shardlens-compute".to_owned())
            .spawn(move || worker(&worker_slot, &tx, &worker_ctx));
        if let Err(e) = spawned {
            eprintln!("shardlens: cannot start the compute thread: {e}");
        }
        Self {
            slot,
            results,
            load: None,
            ctx,
        }
    }

    /// Asks for a report; replaces a request still waiting.
    pub fn submit(&self, request: Request) {
        let (lock, cvar) = &*self.slot;
        if let Ok(mut inbox) = lock.lock() {
            inbox.request = Some(request);
            cvar.notify_one();
        }
    }

    /// Results that arrived since the last call.
    pub fn drain(&self) -> Vec<Computed> {
        self.results.try_iter().collect()
    }

    /// Starts loading a file or export folder in the background; cancels a load under way.
    pub fn load_file(&mut self, path: PathBuf, opts: source::LoadOptions) {
        self.cancel_load();
        let (tx, rx) = sync_channel::<LoadEvent>(16);
        let cancel = Arc::new(AtomicBool::new(false));
        let thread_cancel = Arc::clone(&cancel);
        let ctx = self.ctx.clone();
        let thread_path = path.clone();
        let spawned = std::thread::Builder::new()
            .name("shardlens-load".to_owned())
            .spawn(move || {
                let mut last = std::time::Instant::now();
                let paths = [thread_path.clone()];
                let result = source::load(&paths, &opts, &thread_cancel, &mut |p| {
                    if last.elapsed().as_millis() >= 50 {
                        last = std::time::Instant::now();
                        // Progress is best effort: a full channel skips an update.
                        let _ = tx.try_send(LoadEvent::Progress(p));
                        ctx.request_repaint();
                    }
                });
                let _ = tx.send(LoadEvent::Done(
                    Box::new(result.map_err(|e| format!("{e:#}"))),
                    thread_path,
                ));
                ctx.request_repaint();
            });
        match spawned {
            Ok(_) => self.load = Some((rx, cancel, path)),
            Err(e) => eprintln!("shardlens: cannot start the load thread: {e}"),
        }
    }

    pub fn cancel_load(&mut self) {
        if let Some((_, cancel, _)) = self.load.take() {
            cancel.store(true, Ordering::Relaxed);
        }
    }

    pub fn loading(&self) -> Option<&PathBuf> {
        self.load.as_ref().map(|(_, _, p)| p)
    }

    /// Load events since the last call; the load is forgotten once done.
    pub fn drain_load(&mut self) -> Vec<LoadEvent> {
        let Some((rx, _, _)) = &self.load else {
            return Vec::new();
        };
        let events: Vec<LoadEvent> = rx.try_iter().collect();
        if events.iter().any(|e| matches!(e, LoadEvent::Done(..))) {
            self.load = None;
        }
        events
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        self.cancel_load();
        let (lock, cvar) = &*self.slot;
        if let Ok(mut inbox) = lock.lock() {
            inbox.closed = true;
            cvar.notify_one();
        }
    }
}

fn worker(slot: &Slot, tx: &SyncSender<Computed>, ctx: &egui::Context) {
    let (lock, cvar) = &**slot;
    let mut last: Option<Shown> = None;
    loop {
        let request = {
            let Ok(mut inbox) = lock.lock() else { return };
            loop {
                if inbox.closed {
                    return;
                }
                if let Some(r) = inbox.request.take() {
                    break r;
                }
                match cvar.wait(inbox) {
                    Ok(i) => inbox = i,
                    Err(_) => return,
                }
            }
        };
        let result = compute(request.input, &request.view, last.as_ref());
        if let Ok(shown) = &result {
            last = Some(shown.clone());
        }
        if tx
            .send(Computed {
                generation: request.generation,
                result,
            })
            .is_err()
        {
            return; // The app is gone.
        }
        ctx.request_repaint();
    }
}
