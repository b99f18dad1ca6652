//! Background work: parsing and re-bucketing large key sets, loading files. The UI thread never waits.
//!
//! One worker [`Task`] computes reports; a newer request replaces an older one that has not started (latest
//! wins). In a page, where that long-lived worker cannot run, each request is a task of its own on the page's
//! workers (the newest replaces the one under way; one still waiting for a worker is skipped), or is computed
//! inline where the page has no workers. Loads are tasks of their own. Results carry the generation they were asked for, so a stale result
//! is recognised and dropped.

use crate::model::shard::ShardBy;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};

use super::tasks::{Reporter, Task, TaskError};
use crate::model::health::ttl::TtlStats;
use crate::model::text::LineError;
use crate::model::{KeySet, KeyType, Report, ViewSettings, report_reusing};
use crate::source::open::{Expect, OpenError, Opened};
use crate::source::{self, Progress};

/// What to compute: keys from text (parsed on the worker) or a key set already held, with what its load read
/// of the items' TTL attribute.
pub enum Input {
    Text(Arc<String>, KeyType),
    Keys(Arc<KeySet>, Option<Arc<TtlStats>>),
}

pub struct Request {
    pub generation: u64,
    pub input: Input,
    pub view: ViewSettings,
}

/// What the panels show: the keys, their report, and the keys ordered by count (the editor's list).
#[derive(Clone)]
pub struct Shown {
    /// The generation of the request this report answers: what queries about the report are keyed by.
    pub generation: u64,
    /// The generation of the first report over these keys (a view change keeps it): what work about the
    /// keys alone is keyed by.
    pub keys_generation: u64,
    pub view: ViewSettings,
    pub keys: Arc<KeySet>,
    pub report: Arc<Report>,
    pub by_count: Arc<Vec<u32>>,
    /// Pasted `pk<TAB>sk` lines' sort keys, for a calculated suffix (all writes of one item on one shard).
    pub shard_by: Option<Arc<ShardBy>>,
    /// The items' TTL attribute as their load read it (Table health), taken with the keys.
    pub ttl: Option<Arc<TtlStats>>,
}

/// A computed report, or the parse error of the text.
pub struct Computed {
    pub generation: u64,
    pub result: Result<Shown, LineError>,
}

/// Events of a file load.
pub enum LoadEvent {
    Progress(Progress),
    /// What the path turned out to be and held ([`source::open`]: keys, or a session, a scenario, a trace).
    Done(Box<Result<Opened, OpenError>>, PathBuf),
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
    /// The compute worker; `None` if its thread could not start (then requests are computed inline).
    worker: Option<Task<Computed>>,
    /// The load under way: its task, its path and when it started (for the time left).
    load: Option<(Task<LoadEvent>, PathBuf, web_time::Instant)>,
    /// In a page: the report being computed on a worker, and the last one computed (reused as the desktop's
    /// worker reuses it when only the view changed).
    #[cfg(target_arch = "wasm32")]
    page: (Option<Task<Computed>>, Option<Shown>),
    ctx: egui::Context,
}

/// Computes a report synchronously: what the worker does, also used inline for small inputs. `previous`
/// saves re-sorting the keys by count when only the view changed.
pub fn compute(
    input: Input,
    view: &ViewSettings,
    previous: Option<&Shown>,
    generation: u64,
) -> Result<Shown, LineError> {
    let calculated = view.shard.strategy == crate::model::Strategy::Calculated;
    let (keys, shard_by, ttl) = match input {
        Input::Text(text, key_type) => {
            let mut parser = crate::model::text::LineParser::new(key_type);
            if calculated {
                parser = parser.with_shard_by_sort_key();
            }
            parser.feed_text(text.as_bytes())?;
            let (keys, by) = parser.finish_by();
            let by = by.filter(|b| !b.is_empty()).map(Arc::new);
            (Arc::new(keys), by, None)
        }
        Input::Keys(keys, ttl) => {
            let by = previous
                .filter(|p| Arc::ptr_eq(&p.keys, &keys))
                .and_then(|p| p.shard_by.clone());
            (keys, by, ttl)
        }
    };
    let same_keys = previous.filter(|p| Arc::ptr_eq(&p.keys, &keys));
    let report = Arc::new(report_reusing(
        &keys,
        view,
        same_keys.map(|p| (&p.view, p.report.as_ref())),
        shard_by.as_deref(),
    ));
    let by_count = match same_keys {
        Some(p) => Arc::clone(&p.by_count),
        None => Arc::new(keys.top(keys.len())),
    };
    Ok(Shown {
        generation,
        keys_generation: same_keys.map_or(generation, |p| p.keys_generation),
        view: view.clone(),
        keys,
        report,
        by_count,
        shard_by,
        ttl,
    })
}

impl Jobs {
    /// The jobs and, if the compute thread could not start, why (every request is then computed inline).
    pub fn new(ctx: egui::Context) -> (Self, Option<TaskError>) {
        let slot: Slot = Arc::new((Mutex::new(Inbox::default()), Condvar::new()));
        let worker_slot = Arc::clone(&slot);
        let (worker, error) =
            match Task::spawn_service("compute", &ctx, 4, move |r| worker(&worker_slot, r)) {
                Ok(t) => (Some(t), None),
                // A page has no threads: computing inline is how it works there, not news.
                Err(_) if cfg!(target_arch = "wasm32") => (None, None),
                Err(e) => (None, Some(e)),
            };
        let jobs = Self {
            slot,
            worker,
            load: None,
            #[cfg(target_arch = "wasm32")]
            page: (None, None),
            ctx,
        };
        (jobs, error)
    }

    /// Asks for a report; replaces a request still waiting. Without a worker it is computed here.
    pub fn submit(&mut self, request: Request) -> Option<Computed> {
        #[cfg(target_arch = "wasm32")]
        if self.worker.is_none() && super::workers::available() {
            let previous = self.page.1.clone();
            let generation = request.generation;
            let task = Task::spawn("compute", &self.ctx, 1, move |r: &Reporter<Computed>| {
                // Replaced before a worker took it: a newer request is on its way.
                if r.cancelled() {
                    return;
                }
                let result = compute(request.input, &request.view, previous.as_ref(), generation);
                r.send(Computed { generation, result });
            });
            // A page's task cannot fail to start (without a worker it runs on the page's thread).
            self.page.0 = task.ok();
            return None;
        }
        if self.worker.is_none() {
            let result = compute(request.input, &request.view, None, request.generation);
            return Some(Computed {
                generation: request.generation,
                result,
            });
        }
        let (lock, cvar) = &*self.slot;
        if let Ok(mut inbox) = lock.lock() {
            inbox.request = Some(request);
            cvar.notify_one();
        }
        None
    }

    /// Results that arrived since the last call.
    pub fn drain(&mut self) -> Vec<Computed> {
        #[cfg(target_arch = "wasm32")]
        if let Some(task) = &mut self.page.0 {
            let computed = task.drain();
            if task.finished() {
                self.page.0 = None;
            }
            if let Some(shown) = computed.iter().rev().find_map(|c| c.result.as_ref().ok()) {
                self.page.1 = Some(shown.clone());
            }
            return computed;
        }
        self.worker.as_mut().map(Task::drain).unwrap_or_default()
    }

    /// Starts opening a file or folder in the background through [`source::open`] (keys, an export, or what
    /// `expect` lets it be: a session, a scenario, a trace); cancels a load under way.
    pub fn load_file(
        &mut self,
        input: source::open::Input,
        opts: source::LoadOptions,
        expect: Expect,
    ) -> Result<(), TaskError> {
        self.cancel_load();
        let path = input.name().to_path_buf();
        let thread_path = path.clone();
        let task = Task::spawn("load", &self.ctx, 16, move |r: &Reporter<LoadEvent>| {
            let mut last = web_time::Instant::now();
            let result = source::open::open(&input, &expect, &opts, r.cancel_flag(), &mut |p| {
                if last.elapsed().as_millis() >= 50 {
                    last = web_time::Instant::now();
                    r.offer(LoadEvent::Progress(p));
                }
            });
            r.send(LoadEvent::Done(Box::new(result), thread_path));
        })?;
        self.load = Some((task, path, web_time::Instant::now()));
        Ok(())
    }

    pub fn cancel_load(&mut self) {
        if let Some((task, ..)) = self.load.take() {
            task.cancel();
        }
    }

    pub fn loading(&self) -> Option<&PathBuf> {
        self.load.as_ref().map(|(_, p, _)| p)
    }

    /// When the load under way started.
    pub fn load_started(&self) -> Option<web_time::Instant> {
        self.load.as_ref().map(|(.., t)| *t)
    }

    /// Load events since the last call; the load is forgotten once done.
    pub fn drain_load(&mut self) -> Vec<LoadEvent> {
        let Some((task, path, _)) = &mut self.load else {
            return Vec::new();
        };
        let mut events = task.drain();
        let done = events.iter().any(|e| matches!(e, LoadEvent::Done(..)));
        if !done && task.finished() {
            // The thread (a page's worker) ended without an answer: a panic, or in a page memory running out
            // (a page holds at most 2 GiB). Said as the load's error, so the previous keys stay and the user
            // hears why.
            let path = path.clone();
            let source = std::io::Error::other(
                "the load stopped before it finished (out of memory? a page holds at most 2 GiB)",
            );
            events.push(LoadEvent::Done(
                Box::new(Err(OpenError::Read {
                    path: path.clone(),
                    source,
                })),
                path,
            ));
        }
        if done || task.finished() {
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

fn worker(slot: &Slot, reporter: &Reporter<Computed>) {
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
        let result = compute(
            request.input,
            &request.view,
            last.as_ref(),
            request.generation,
        );
        if let Ok(shown) = &result {
            last = Some(shown.clone());
        }
        let computed = Computed {
            generation: request.generation,
            result,
        };
        if !reporter.send(computed) {
            return; // The app is gone.
        }
    }
}

/// A load's progress as people read it: the share done and the time left (items of the export's known count,
/// else bytes of the files' total), with thousands separators and the file's name. Returns the bar's
/// fraction (`None`: no total is known) and its text.
pub fn progress_text(
    name: &str,
    p: &source::Progress,
    elapsed: std::time::Duration,
) -> (Option<f32>, String) {
    use crate::model::fmt::{bytes, grouped};
    let share = p.done_share();
    let done = match (p.total_items, p.total_bytes) {
        (Some(t), _) => format!("{} of {} items", grouped(p.items), grouped(t)),
        (None, Some(t)) => format!("{} of {}", bytes(p.bytes as f64), bytes(t as f64)),
        (None, None) => format!("{} lines, {}", grouped(p.lines), bytes(p.bytes as f64)),
    };
    let mut text = format!("{name}: {done}");
    if let Some(s) = share {
        text.push_str(&format!(" · {:.0} %", s * 100.0));
        // The time left once there is something to go by (a tenth of a second and 1 % in).
        let secs = elapsed.as_secs_f64();
        if s >= 0.01 && secs >= 0.1 && s < 1.0 {
            let left = secs * (1.0 - s) / s;
            text.push_str(&format!(" · about {} left", time_left(left)));
        }
    }
    (share.map(|s| s as f32), text)
}

/// "4 s", "2 min 5 s", "1 h 3 min".
fn time_left(secs: f64) -> String {
    let s = secs.ceil().max(1.0) as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod progress_tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn an_export_counts_items_of_its_manifest_and_says_the_time_left() {
        let p = source::Progress {
            bytes: 10,
            total_bytes: Some(100),
            lines: 500_000,
            items: 500_000,
            total_items: Some(2_000_000),
        };
        let (share, text) = progress_text("export", &p, Duration::from_secs(1));
        assert_eq!(share, Some(0.25));
        assert_eq!(
            text,
            "export: 500,000 of 2,000,000 items · 25 % · about 3 s left"
        );
    }

    #[test]
    fn a_file_counts_bytes_and_standard_input_lines() {
        let p = source::Progress {
            bytes: 512 * 1024,
            total_bytes: Some(2 * 1024 * 1024),
            lines: 1_507_328,
            items: 0,
            total_items: None,
        };
        let (share, text) = progress_text("keys.txt", &p, Duration::from_secs(90));
        assert_eq!(share, Some(0.25));
        assert!(text.starts_with("keys.txt: 512"), "{text}");
        assert!(text.ends_with("· 25 % · about 4 min 30 s left"), "{text}");
        let stdin = source::Progress {
            total_bytes: None,
            ..p
        };
        let (share, text) = progress_text("standard input", &stdin, Duration::from_secs(1));
        assert_eq!(share, None);
        assert!(
            text.starts_with("standard input: 1,507,328 lines, "),
            "{text}"
        );
    }
}
