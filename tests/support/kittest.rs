//! One way for the UI tests (egui_kittest) to wait: step the real app until it has no work under way off the
//! UI thread ([`App::busy`]), asks for no immediate repaint and the test's condition holds, with a wall-clock
//! deadline. Never a fixed number of frames: two cores shared by many tests make a background answer land a
//! frame or a hundred later. Included with `#[path = "support/kittest.rs"] mod kittest;`.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use egui_kittest::Harness;
use shardlens::app::App;

/// How long a test waits for the app before it fails, on a loaded machine.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The real app on a bare context at `size`, settled.
pub fn harness_at(size: [f32; 2]) -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size(size)
        // `Harness::run` is not used (it counts frames); `settle` below waits for the app instead.
        .with_max_steps(u64::MAX)
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    h.settle();
    h
}

/// The real app at the size most tests use.
pub fn harness() -> Harness<'static, App> {
    harness_at([1400.0, 900.0])
}

pub trait Settle {
    /// Steps until the app is idle: no background work and no immediate repaint asked for.
    fn settle(&mut self);
    /// Steps until the app is idle and `done` holds; fails the test after [`DEADLINE`], naming `what`.
    fn wait_for(&mut self, what: &str, done: impl Fn(&App) -> bool);
}

impl Settle for Harness<'_, App> {
    fn settle(&mut self) {
        self.wait_for("the app to settle", |_| true);
    }

    fn wait_for(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        wait(self, what, App::busy, done);
    }
}

/// Steps a harness of a single panel (plain state, no background work) until it asks for no repaint.
pub fn settle_panel<S>(h: &mut Harness<'_, S>) {
    wait(h, "the panel to settle", |_| false, |_| true);
}

/// The one waiting loop: step until `busy` is false, no immediate repaint is asked for and `done` holds.
fn wait<S>(
    h: &mut Harness<'_, S>,
    what: &str,
    busy: impl Fn(&S) -> bool,
    done: impl Fn(&S) -> bool,
) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        h.step();
        let repaint_now = h.ctx.has_requested_repaint_for(&egui::ViewportId::ROOT);
        let working = busy(h.state());
        if !working && !repaint_now && done(h.state()) {
            // One more frame so the tree drawn reflects the state just checked.
            h.step();
            return;
        }
        assert!(
            Instant::now() < deadline,
            "waited {DEADLINE:?} for {what}: busy {working}, immediate repaint {repaint_now} ({:?})",
            h.ctx.repaint_causes()
        );
        if working || !repaint_now {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Steps until `done` holds, busy or not (a playing Timeline repaints for ever); fails after [`DEADLINE`].
pub fn step_until<S>(
    h: &mut Harness<'_, S>,
    what: &str,
    done: impl Fn(&mut Harness<'_, S>) -> bool,
) {
    let deadline = Instant::now() + DEADLINE;
    loop {
        h.step();
        if done(h) {
            return;
        }
        assert!(Instant::now() < deadline, "waited {DEADLINE:?} for {what}");
        std::thread::sleep(Duration::from_millis(2));
    }
}
