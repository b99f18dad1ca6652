//! The layout gives the chart the room: in presentation mode the chart block takes most of the window at a
//! projector's sizes, and the Timeline's heatmap, line chart and "the table at …" are all on screen, with one
//! time axis (the same second at the same x in the heatmap and the line chart).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/kittest.rs"]
mod kittest;

use egui_kittest::Harness;
use kittest::{Settle as _, harness_at};
use shardlens::app::settings::ChartMode;
use shardlens::app::{App, Command, UICommand};
use shardlens::model::examples::time::example;

const SIZES: [[f32; 2]; 2] = [[1024.0, 768.0], [1280.0, 800.0]];

fn presenting(size: [f32; 2]) -> Harness<'static, App> {
    let mut h = harness_at(size);
    h.state_mut()
        .apply(Command::Ui(UICommand::TogglePresentation));
    h.settle();
    h
}

fn timeline(size: [f32; 2]) -> Harness<'static, App> {
    let mut h = presenting(size);
    h.state_mut().apply(Command::LoadSimulation(
        example("tournament-monotonic").unwrap(),
    ));
    h.wait_for("the simulation to finish", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    assert_eq!(h.state().chart_mode(), ChartMode::Timeline);
    h
}

#[test]
fn presentation_gives_the_keys_chart_sixty_percent_of_the_window() {
    for size in SIZES {
        let h = presenting(size);
        let chart = h.state().chart_rect().expect("the chart is drawn");
        eprintln!("{size:?}: keys chart {chart:?}");
        assert!(
            chart.height() >= 0.6 * size[1],
            "at {size:?} the chart is {} of {} px high",
            chart.height(),
            size[1]
        );
        assert!(chart.bottom() <= size[1], "the chart ends on screen");
    }
}

#[test]
fn presentation_gives_the_key_design_sixty_percent_of_the_window() {
    for size in SIZES {
        let mut h = presenting(size);
        h.state_mut().apply(Command::SetChart(ChartMode::Designs));
        h.settle();
        let chart = h.state().chart_rect().expect("the chart is drawn");
        eprintln!("{size:?}: design block {chart:?}");
        assert!(
            chart.top() <= 0.4 * size[1],
            "at {size:?} the key design starts at {} of {} px",
            chart.top(),
            size[1]
        );
    }
}

#[test]
fn presentation_timeline_shows_every_chart_whole() {
    for size in SIZES {
        let h = timeline(size);
        let r = h.state().simulation().unwrap().rects();
        eprintln!("{size:?}: {r:?}");
        let heat = r.heatmap.expect("the heatmap is drawn");
        let line = r.throughput.expect("the line chart is drawn");
        let table = r.snapshot.expect("the table at … is drawn");
        // The charts, from the heatmap's top to the table's bottom, take at least 40 % of the window (the
        // headline, two findings, the playback row and the tree's strip take the rest).
        let charts = table.bottom() - r.charts_top;
        assert!(
            charts >= 0.4 * size[1],
            "at {size:?} the charts are {charts} of {} px",
            size[1]
        );
        assert!(heat.height() >= 110.0, "heatmap {heat:?}");
        assert!(line.height() >= 70.0, "line chart {line:?}");
        assert!(table.height() >= 110.0, "the table at … {table:?}");
        assert!(table.bottom() <= size[1], "the table at … ends on screen");
        assert!(heat.top() >= 0.0 && heat.top() < line.top());
        // The title is on screen, whole.
        let title = r.title.expect("the title is drawn");
        assert!(title.top() >= 0.0, "title {title:?}");
    }
}

#[test]
fn timeline_heatmap_and_line_chart_share_one_time_axis() {
    for (size, present) in [([1280.0, 800.0], true), ([1400.0, 900.0], false)] {
        let mut h = if present {
            timeline(size)
        } else {
            let mut h = harness_at(size);
            h.state_mut().apply(Command::LoadSimulation(
                example("tournament-monotonic").unwrap(),
            ));
            h.wait_for("the simulation to finish", |app| {
                app.simulation().is_some_and(|s| s.diagnosis.is_some())
            });
            h
        };
        h.state_mut().simulation_mut().unwrap().seek(600);
        h.settle();
        let sim = h.state().simulation().unwrap();
        let r = sim.rects();
        let duration = sim.duration();
        for t in [0, 600, duration / 2, duration - 1] {
            let a = r.heatmap_x(f64::from(t)).unwrap();
            let b = r.throughput_x(f64::from(t)).unwrap();
            assert!(
                (a - b).abs() <= 1.5,
                "{size:?}: second {t} at x {a} on the heatmap, {b} on the line chart"
            );
        }
        let table = r.snapshot.unwrap();
        assert!(
            table.height() >= 120.0,
            "{size:?}: the table at … {table:?}"
        );
    }
}
