//! One way to run work off the UI thread: a [`Task`] is a named thread with a bounded inbox for its messages,
//! a cancel flag, and a repaint after every message, so the frame only drains what arrived. Every background
//! thread of the app (the compute worker, file loads, table scans, SDK calls, file dialogs, inspector
//! queries, Table health, simulations) is one. A [`Query`] is a task that answers one question at a time
//! for a key (the newest asked wins).
//!
//! As in rerun's viewer, a thread that cannot start is an error the user sees (the caller turns the
//! [`TaskError`] into an error notice), never a line on stderr and a spinner that turns for ever.
//!
//! In a page (wasm32) this is the one place that knows it. Where the page can have threads (cross-origin
//! isolated, [`super::workers`]) a task's work runs on a Web Worker in the page's memory, as on a thread:
//! progress, cancel and the page keeps drawing. Where it cannot (the widget in another site's iframe) the work
//! runs on the page's thread at the start of the next frame ([`run_pending`]), so the frame that started it is
//! drawn first (the status line says what is being read) and the page stops drawing while it runs. Either way
//! its messages wait in an unbounded inbox for the frame to drain, so every caller works unchanged;
//! [`Task::spawn_service`] (a thread that waits for work, such as the compute worker) does not start in a
//! page, and its caller computes inline instead (docs/web.md, "Long work in a page").

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(target_arch = "wasm32")]
use std::sync::mpsc::{Receiver, Sender as SyncSender, TryRecvError};
#[cfg(not(target_arch = "wasm32"))]
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};

/// A thread could not be started (the system is out of threads or memory).
#[derive(Debug, thiserror::Error)]
#[error("cannot start the {name} thread: {source}")]
pub struct TaskError {
    /// The thread's name, as in "cannot start the … thread".
    name: &'static str,
    source: std::io::Error,
}

impl TaskError {
    /// The thread `name` (its name in "cannot start the … thread") could not start, for `source`.
    pub fn new(name: &'static str, source: std::io::Error) -> Self {
        Self { name, source }
    }
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// In a page: the work of the tasks started since the last frame began, run by [`run_pending`].
    static PENDING: std::cell::RefCell<Vec<Box<dyn FnOnce()>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// In a page: while a worker runs a task, the frame comes back every 33 ms to drain what it sent (a worker
/// never touches the context: see [`super::workers`]).
#[cfg(target_arch = "wasm32")]
pub fn poll_workers(ctx: &egui::Context) {
    if super::workers::busy() {
        ctx.request_repaint_after(std::time::Duration::from_millis(33));
    }
}

/// In a page, runs the work of the tasks started in the last frame (called as a frame begins, before the
/// app drains their messages). A task a work starts runs in the frame after.
#[cfg(target_arch = "wasm32")]
pub fn run_pending() {
    let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
    for work in pending {
        work();
    }
}

/// The thread's side: sends messages to the app and sees whether it was cancelled.
pub struct Reporter<M> {
    tx: SyncSender<M>,
    ctx: egui::Context,
    cancel: Arc<AtomicBool>,
    /// In a page: the work runs on a worker, which never touches the context (the page polls instead).
    #[cfg(target_arch = "wasm32")]
    on_worker: bool,
}

impl<M> Reporter<M> {
    /// Sends a message, waiting while the inbox is full, and asks for a repaint. Returns false when the app
    /// dropped the task (the thread should stop; the task also counts as cancelled).
    pub fn send(&self, message: M) -> bool {
        let sent = self.tx.send(message).is_ok();
        if !sent {
            self.cancel.store(true, Ordering::Relaxed);
        }
        self.repaint();
        sent
    }

    fn repaint(&self) {
        #[cfg(target_arch = "wasm32")]
        if self.on_worker {
            return;
        }
        self.ctx.request_repaint();
    }

    /// Sends a message only if there is room (progress: a full inbox skips an update).
    pub fn offer(&self, message: M) {
        #[cfg(not(target_arch = "wasm32"))]
        match self.tx.try_send(message) {
            Ok(()) => self.ctx.request_repaint(),
            Err(TrySendError::Full(_)) => {}
            Err(TrySendError::Disconnected(_)) => self.cancel.store(true, Ordering::Relaxed),
        }
        // In a page the work runs before the frame drains, so only the last progress is worth keeping; the
        // inbox is unbounded and the frame shows the newest.
        #[cfg(target_arch = "wasm32")]
        if self.tx.send(message).is_err() {
            self.cancel.store(true, Ordering::Relaxed);
        }
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The cancel flag, for code below the app that takes one (loaders, the scan).
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }

    pub fn ctx(&self) -> &egui::Context {
        &self.ctx
    }
}

/// The app's side of a background thread.
pub struct Task<M> {
    rx: Receiver<M>,
    cancel: Arc<AtomicBool>,
    finished: bool,
    /// In a page: set when the worker running the work died with it (the task then ends without an answer).
    #[cfg(target_arch = "wasm32")]
    lost: Option<super::workers::Lost>,
}

impl<M: Send + 'static> Task<M> {
    /// Starts `work` on a thread called `shardlens-{name}`; its inbox holds `capacity` messages. In a page,
    /// runs `work` on the page's thread as the next frame begins (see the module docs).
    pub fn spawn(
        name: &'static str,
        ctx: &egui::Context,
        capacity: usize,
        work: impl FnOnce(&Reporter<M>) + Send + 'static,
    ) -> Result<Self, TaskError> {
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (name, capacity);
            let (mut task, mut reporter) = Self::later(ctx);
            if super::workers::available() {
                reporter.on_worker = true;
                match super::workers::hand(ctx, Box::new(move || work(&reporter))) {
                    Ok(lost) => {
                        task.lost = Some(lost);
                        ctx.request_repaint();
                        return Ok(task);
                    }
                    // No worker could take it: the page's thread runs it.
                    Err(work) => {
                        PENDING.with(|p| p.borrow_mut().push(work));
                        ctx.request_repaint();
                        return Ok(task);
                    }
                }
            }
            Self::on_page(ctx, task, reporter, work)
        }
        #[cfg(not(target_arch = "wasm32"))]
        Self::on_thread(name, ctx, capacity, work)
    }

    /// Starts `work` that needs the page itself (the DOM, a download): on the desktop a thread as
    /// [`Self::spawn`]; in a page always the page's thread, as the next frame begins, never a worker.
    pub fn spawn_local(
        name: &'static str,
        ctx: &egui::Context,
        capacity: usize,
        work: impl FnOnce(&Reporter<M>) + Send + 'static,
    ) -> Result<Self, TaskError> {
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (name, capacity);
            let (task, reporter) = Self::later(ctx);
            Self::on_page(ctx, task, reporter, work)
        }
        #[cfg(not(target_arch = "wasm32"))]
        Self::on_thread(name, ctx, capacity, work)
    }

    /// In a page: `work` runs on the page's thread as the next frame begins.
    #[cfg(target_arch = "wasm32")]
    fn on_page(
        ctx: &egui::Context,
        task: Self,
        reporter: Reporter<M>,
        work: impl FnOnce(&Reporter<M>) + Send + 'static,
    ) -> Result<Self, TaskError> {
        PENDING.with(|p| {
            p.borrow_mut().push(Box::new(move || {
                work(&reporter);
                reporter.ctx.request_repaint();
            }));
        });
        ctx.request_repaint();
        Ok(task)
    }

    /// A task whose reporter the caller keeps, for work the browser finishes later (a file read, a picker):
    /// it has finished once the reporter is dropped and its messages drained.
    #[cfg(target_arch = "wasm32")]
    pub fn later(ctx: &egui::Context) -> (Self, Reporter<M>) {
        let (tx, rx) = std::sync::mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let reporter = Reporter {
            tx,
            ctx: ctx.clone(),
            cancel: Arc::clone(&cancel),
            on_worker: false,
        };
        let task = Self {
            rx,
            cancel,
            finished: false,
            lost: None,
        };
        (task, reporter)
    }

    /// Starts `work`, which waits for work of its own for as long as the app runs (the compute worker), on a
    /// thread. In a page, where it could only block the page, it cannot start: the caller does the work
    /// inline.
    pub fn spawn_service(
        name: &'static str,
        ctx: &egui::Context,
        capacity: usize,
        work: impl FnOnce(&Reporter<M>) + Send + 'static,
    ) -> Result<Self, TaskError> {
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (ctx, capacity, work);
            Err(TaskError::new(
                name,
                std::io::Error::new(std::io::ErrorKind::Unsupported, "a web page has no threads"),
            ))
        }
        #[cfg(not(target_arch = "wasm32"))]
        Self::on_thread(name, ctx, capacity, work)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn on_thread(
        name: &'static str,
        ctx: &egui::Context,
        capacity: usize,
        work: impl FnOnce(&Reporter<M>) + Send + 'static,
    ) -> Result<Self, TaskError> {
        let (tx, rx) = sync_channel(capacity.max(1));
        let cancel = Arc::new(AtomicBool::new(false));
        let reporter = Reporter {
            tx,
            ctx: ctx.clone(),
            cancel: Arc::clone(&cancel),
        };
        std::thread::Builder::new()
            .name(format!("shardlens-{name}"))
            .spawn(move || {
                work(&reporter);
                // The last repaint lets the app see that the task has finished.
                reporter.ctx.request_repaint();
            })
            .map_err(|source| TaskError { name, source })?;
        Ok(Self {
            rx,
            cancel,
            finished: false,
        })
    }
}

impl<M> Task<M> {
    /// Asks the thread to stop; what it already sent can still be drained.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The messages that arrived since the last call, oldest first.
    pub fn drain(&mut self) -> Vec<M> {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(m) => out.push(m),
                Err(TryRecvError::Empty) => {
                    #[cfg(target_arch = "wasm32")]
                    if self
                        .lost
                        .as_ref()
                        .is_some_and(|l| l.load(Ordering::Relaxed))
                    {
                        self.finished = true;
                    }
                    break;
                }
                Err(TryRecvError::Disconnected) => {
                    self.finished = true;
                    break;
                }
            }
        }
        out
    }

    /// The thread has ended and everything it sent has been drained.
    pub fn finished(&self) -> bool {
        self.finished
    }
}

impl<M> Drop for Task<M> {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Several tasks of one kind drained together (file dialogs: one per dialog, any number at once).
pub struct TaskSet<M> {
    tasks: Vec<Task<M>>,
}

impl<M> Default for TaskSet<M> {
    fn default() -> Self {
        Self { tasks: Vec::new() }
    }
}

impl<M> TaskSet<M> {
    pub fn push(&mut self, task: Task<M>) {
        self.tasks.push(task);
    }

    /// Messages from every task, in task order; finished tasks are forgotten.
    pub fn drain(&mut self) -> Vec<M> {
        let mut out = Vec::new();
        for t in &mut self.tasks {
            out.extend(t.drain());
        }
        self.tasks.retain(|t| !t.finished());
        out
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}

/// A value computed off the UI thread for a key (the inspector's lists: report and bucket, report and key;
/// Table health: its inputs' generations): the frame shows the last value for the key it wants, or a spinner
/// while the task runs.
pub struct Query<K, T> {
    done: Option<(K, Arc<T>)>,
    running: Option<(K, Task<T>)>,
    /// A task that ended without an answer (its thread panicked): not asked again for the same key.
    failed: Option<K>,
}

impl<K, T> Default for Query<K, T> {
    fn default() -> Self {
        Self {
            done: None,
            running: None,
            failed: None,
        }
    }
}

impl<K, T> std::fmt::Debug for Query<K, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query")
            .field("done", &self.done.is_some())
            .field("running", &self.running.is_some())
            .finish()
    }
}

impl<K, T> Query<K, T> {
    /// A query's thread is still running or its answer is not drained yet.
    pub fn pending(&self) -> bool {
        self.running.is_some()
    }
}

impl<K: PartialEq + Clone, T: Send + Sync + 'static> Query<K, T> {
    /// Takes the running task's answer, if it came.
    pub fn drain(&mut self) {
        let Some((k, task)) = &mut self.running else {
            return;
        };
        if let Some(value) = task.drain().pop() {
            self.done = Some((k.clone(), Arc::new(value)));
            self.running = None;
        } else if task.finished() {
            self.failed = Some(k.clone());
            self.running = None;
        }
    }

    /// The answer for `key`, if it is ready.
    pub fn value(&self, key: &K) -> Option<Arc<T>> {
        self.done
            .as_ref()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| Arc::clone(v))
    }

    /// The last answer, for whatever key (shown while a newer one is computed).
    pub fn last(&self) -> Option<Arc<T>> {
        self.done.as_ref().map(|(_, v)| Arc::clone(v))
    }

    /// The task for `key` ended without an answer.
    pub fn failed(&self, key: &K) -> bool {
        self.failed.as_ref() == Some(key)
    }

    /// Starts `work` for `key` on a thread called `name` unless its answer is ready, being computed or failed
    /// (a task for another key is dropped, which cancels it). Called from the app's logic, never while drawing.
    pub fn ask(
        &mut self,
        key: K,
        ctx: &egui::Context,
        name: &'static str,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<(), TaskError> {
        if self.value(&key).is_some()
            || self.failed(&key)
            || self.running.as_ref().is_some_and(|(k, _)| *k == key)
        {
            return Ok(());
        }
        let task = Task::spawn(name, ctx, 1, move |r: &Reporter<T>| {
            r.send(work());
        })?;
        self.running = Some((key, task));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait_finished<M>(task: &mut Task<M>) -> Vec<M> {
        let mut got = Vec::new();
        for _ in 0..500 {
            got.extend(task.drain());
            if task.finished() {
                return got;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        panic!("the task did not finish");
    }

    #[test]
    fn messages_arrive_in_order_and_the_end_is_seen() {
        let ctx = egui::Context::default();
        let mut task = Task::spawn("test", &ctx, 2, |r: &Reporter<u32>| {
            for i in 0..10 {
                assert!(r.send(i));
            }
        })
        .unwrap();
        assert_eq!(wait_finished(&mut task), (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn a_dropped_task_cancels_its_thread() {
        let ctx = egui::Context::default();
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let task = Task::spawn("test", &ctx, 1, move |r: &Reporter<u32>| {
            while r.send(1) {}
            seen_tx.send(r.cancelled()).unwrap();
        })
        .unwrap();
        drop(task);
        let cancelled = seen_rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .unwrap();
        assert!(cancelled, "the thread saw that the app is gone");
    }

    #[test]
    fn offer_skips_when_full() {
        let ctx = egui::Context::default();
        let (offered_tx, offered_rx) = std::sync::mpsc::channel();
        let mut task = Task::spawn("test", &ctx, 1, move |r: &Reporter<u32>| {
            for i in 0..100 {
                r.offer(i);
            }
            offered_tx.send(()).unwrap();
        })
        .unwrap();
        offered_rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .unwrap();
        assert_eq!(wait_finished(&mut task), vec![0], "only the first fitted");
    }
}
