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
        let deadline = Instant::now() + DEADLINE;
        loop {
            self.step();
            let repaint_now = self.ctx.has_requested_repaint_for(&egui::ViewportId::ROOT);
            let busy = self.state().busy();
            if !busy && !repaint_now && done(self.state()) {
                // One more frame so the tree drawn reflects the state just checked.
                self.step();
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited {DEADLINE:?} for {what}: busy {busy}, immediate repaint {repaint_now} ({:?})",
                self.ctx.repaint_causes()
            );
            if busy || !repaint_now {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}
