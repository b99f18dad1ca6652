//! A page's threads: Web Workers that run the app's tasks in the page's own memory, so a 100 MB load or a
//! day's simulation reports progress and can be cancelled while the page keeps drawing (issue 59, item 3).
//!
//! The page's build shares its WebAssembly memory (`scripts/web.sh build`: atomics, bulk memory, a shared
//! memory of at most 2 GiB). A worker (`web/worker.js`) instantiates the same module on that memory and runs
//! the closures handed to it: a task's work takes its values, its inbox and its cancel flag with it as on a
//! desktop thread, and nothing is copied or serialised. Browsers allow shared memory only to a page that is
//! cross-origin isolated (served with `Cross-Origin-Opener-Policy: same-origin` and
//! `Cross-Origin-Embedder-Policy: require-corp`: `scripts/web.sh serve` sends them, `web/sw.js` adds them on a
//! host that cannot, docs/web.md); elsewhere — the article widget in another site's iframe — [`available`] is
//! false and a task runs on the page's thread between frames, as before.
//!
//! **The page's thread never waits.** A browser forbids `Atomics.wait` there, and a lock that has to wait
//! for a worker would stop the page. So a closure is handed over with `try_lock` (a worker holds the lock for
//! the time it takes to pop one closure), workers never touch the `egui::Context` (the frame asks for a repaint
//! every 33 ms while a worker is busy instead, [`busy`]), and a task's inbox in a page is unbounded (a full
//! bounded inbox would have the page's `try_recv` wake a waiting sender under a lock). The allocator's lock in
//! std spins rather than waits for this reason.
//!
//! The workers are a pool: at most [`MAX_WORKERS`], made when first needed and reused, so a task does not pay
//! for a worker's start and a worker's stack is not leaked per task. A worker whose work traps (a panic: the
//! page's build aborts on panic) is dropped from the pool and its task ends without an answer ([`Lost`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, TryLockError};

use wasm_bindgen::JsCast as _;
use wasm_bindgen::prelude::*;

/// Workers at most (one per core the browser reports, at least 2, at most this).
pub const MAX_WORKERS: usize = 4;

/// The work handed to the workers, by job number: a worker takes its own and runs it.
type Work = Box<dyn FnOnce() + Send>;
static HANDED: Mutex<Vec<(u32, Work)>> = Mutex::new(Vec::new());

/// Set when a task's worker died with the work (the task then finishes without an answer).
pub type Lost = Arc<AtomicBool>;

struct Worker {
    worker: web_sys::Worker,
    /// The worker's message handler, kept alive as long as the worker.
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    /// The job it runs, if any, and its task's lost flag.
    job: Option<(u32, Lost)>,
}

#[derive(Default)]
struct Pool {
    workers: Vec<Rc<RefCell<Worker>>>,
    /// Jobs handed over while every worker was busy, oldest first.
    waiting: VecDeque<(u32, Lost)>,
    next_job: u32,
    /// Frames to ask for when a worker ends its job.
    ctx: Option<egui::Context>,
}

thread_local! {
    /// The page's pool (only the page's thread has one).
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
    static AVAILABLE: std::cell::OnceCell<bool> = const { std::cell::OnceCell::new() };
}

/// Tasks can run on workers here: the page's thread of a cross-origin isolated page whose memory is shared.
pub fn available() -> bool {
    AVAILABLE.with(|a| {
        *a.get_or_init(|| {
            let isolated = js_sys::Reflect::get(&js_sys::global(), &"crossOriginIsolated".into())
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            let shared = wasm_bindgen::memory()
                .dyn_into::<js_sys::WebAssembly::Memory>()
                .is_ok_and(|m| m.buffer().is_instance_of::<js_sys::SharedArrayBuffer>());
            isolated && shared && web_sys::window().is_some()
        })
    })
}

/// A worker is running or waiting to run a task's work: the frame should come back soon to drain it.
pub fn busy() -> bool {
    POOL.with(|p| {
        let p = p.borrow();
        !p.waiting.is_empty() || p.workers.iter().any(|w| w.borrow().job.is_some())
    })
}

/// Hands `work` to a worker; gives it back when it cannot (no worker could be made, or the hand-over lock
/// stayed taken), for the caller to run on the page's thread. The returned flag is set if the worker dies.
pub fn hand(ctx: &egui::Context, work: Work) -> Result<Lost, Work> {
    let id = POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.next_job = p.next_job.wrapping_add(1);
        p.ctx.get_or_insert_with(|| ctx.clone());
        p.next_job
    });
    // A worker holds the lock only to pop its closure: try for a while, never wait.
    let mut work = Some(work);
    for _ in 0..100_000 {
        match HANDED.try_lock() {
            Ok(mut handed) => {
                if let Some(w) = work.take() {
                    handed.push((id, w));
                }
                break;
            }
            Err(TryLockError::WouldBlock) => std::hint::spin_loop(),
            Err(TryLockError::Poisoned(e)) => {
                if let Some(w) = work.take() {
                    e.into_inner().push((id, w));
                }
                break;
            }
        }
    }
    if let Some(w) = work {
        return Err(w);
    }
    let lost: Lost = Arc::new(AtomicBool::new(false));
    let dispatched = POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.waiting.push_back((id, Arc::clone(&lost)));
        dispatch(&mut p)
    });
    if dispatched.is_err() && POOL.with(|p| p.borrow().workers.is_empty()) {
        // Not one worker could be made: take the work back.
        POOL.with(|p| p.borrow_mut().waiting.retain(|(j, _)| *j != id));
        if let Some(w) = take(id) {
            return Err(w);
        }
    }
    Ok(lost)
}

/// Takes job `id`'s closure (a worker's side; the page's side when it takes work back).
fn take(id: u32) -> Option<Work> {
    let mut handed = HANDED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let at = handed.iter().position(|(j, _)| *j == id)?;
    Some(handed.swap_remove(at).1)
}

/// Runs job `id` in a worker (called by `web/worker.js` through the binary's `shardlens_run_handed`).
pub fn run_handed(id: u32) {
    if let Some(work) = take(id) {
        work();
    }
}

/// Gives waiting jobs to idle workers, making workers up to the limit. Err when a worker could not be made.
fn dispatch(pool: &mut Pool) -> Result<(), JsValue> {
    while let Some((id, lost)) = pool.waiting.pop_front() {
        let idle = pool
            .workers
            .iter()
            .find(|w| w.borrow().job.is_none())
            .cloned();
        let worker = match idle {
            Some(w) => w,
            None if pool.workers.len() < limit() => match new_worker() {
                Ok(w) => {
                    pool.workers.push(Rc::clone(&w));
                    w
                }
                Err(e) => {
                    pool.waiting.push_front((id, lost));
                    return Err(e);
                }
            },
            None => {
                pool.waiting.push_front((id, lost));
                return Ok(());
            }
        };
        let message = js_sys::Array::of3(
            &wasm_bindgen::module(),
            &wasm_bindgen::memory(),
            &JsValue::from(id),
        );
        let posted = worker.borrow().worker.post_message(&message);
        match posted {
            Ok(()) => worker.borrow_mut().job = Some((id, lost)),
            Err(e) => {
                pool.waiting.push_front((id, lost));
                pool.workers.retain(|w| !Rc::ptr_eq(w, &worker));
                worker.borrow().worker.terminate();
                return Err(e);
            }
        }
    }
    Ok(())
}

fn limit() -> usize {
    let cores = web_sys::window().map_or(2.0, |w| w.navigator().hardware_concurrency());
    (cores as usize).clamp(2, MAX_WORKERS)
}

/// A module worker running `worker.js` beside the page.
fn new_worker() -> Result<Rc<RefCell<Worker>>, JsValue> {
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    options.set_name("shardlens");
    let worker = web_sys::Worker::new_with_options("worker.js", &options)?;
    let slot = Rc::new_cyclic(|me: &std::rc::Weak<RefCell<Worker>>| {
        let me = me.clone();
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |event: web_sys::MessageEvent| {
                if let Some(w) = me.upgrade() {
                    job_ended(&w, &event.data());
                }
            },
        );
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        RefCell::new(Worker {
            worker: worker.clone(),
            _on_message: on_message,
            job: None,
        })
    });
    Ok(slot)
}

/// A worker's job ended: `failure` is null, or what stopped it (the worker is then dropped).
fn job_ended(worker: &Rc<RefCell<Worker>>, failure: &JsValue) {
    let job = worker.borrow_mut().job.take();
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if !failure.is_null() && !failure.is_undefined() {
            log::error!(
                "a worker stopped: {}",
                failure.as_string().unwrap_or_default()
            );
            if let Some((_, lost)) = &job {
                lost.store(true, Ordering::Relaxed);
            }
            worker.borrow().worker.terminate();
            p.workers.retain(|w| !Rc::ptr_eq(w, worker));
        }
        let _ = dispatch(&mut p);
        if let Some(ctx) = &p.ctx {
            ctx.request_repaint();
        }
    });
}
