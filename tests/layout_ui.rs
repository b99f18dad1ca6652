//! The layout gives the chart the room: in presentation mode the chart block takes most of the window at a
//! projector's sizes, and the Timeline's heatmap, line chart and "the table at …" are all on screen, with one
//! time axis (the same second at the same x in the heatmap and the line chart).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/kittest.rs"]
mod kittest;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
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
        // The charts, from the heatmap's top to the lowest chart's bottom (with its axis labels), take at
        // least 60 % of the window (the title, the playback row, the tree's strip and the status bar take
        // the rest).
        let bottom = r.charts_bottom;
        assert!(bottom >= table.bottom().max(line.bottom()));
        let charts = bottom - r.charts_top;
        assert!(
            charts >= 0.6 * size[1],
            "at {size:?} the charts are {charts} of {} px",
            size[1]
        );
        assert!(heat.height() >= 180.0, "heatmap {heat:?}");
        assert!(line.height() >= 70.0, "line chart {line:?}");
        assert!(table.height() >= 250.0, "the table at … {table:?}");
        assert!(bottom <= size[1], "the charts end on screen");
        assert!(heat.top() >= 0.0 && heat.top() < line.top());
        // "The table at …" stands beside the time charts, not under them.
        assert!(table.left() > heat.right(), "table {table:?} heat {heat:?}");
        // The title is on screen, whole.
        let title = r.title.expect("the title is drawn");
        assert!(title.top() >= 0.0, "title {title:?}");
        // The playback row is one row: Play and the folded legend menu on the same line.
        let play = h.get_by_label("Play").rect();
        let menu = h.get_by_label("Legend").rect();
        assert!(
            (play.center().y - menu.center().y).abs() < play.height(),
            "at {size:?} the playback row wraps: Play {play:?}, menu {menu:?}"
        );
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

#[test]
fn presentation_findings_are_a_menu_whose_finding_shows_its_moment() {
    let mut h = presenting([1024.0, 768.0]);
    h.state_mut().apply(Command::LoadSimulation(
        example("tournament-random").unwrap(),
    ));
    h.wait_for("the simulation to finish", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    let last = sim
        .diagnosis
        .as_ref()
        .unwrap()
        .findings
        .last()
        .unwrap()
        .clone();
    let end = sim.duration() - 1;
    assert_ne!(
        last.from, end,
        "the finding is at another second than the end"
    );
    h.state_mut().simulation_mut().unwrap().seek(end);
    h.settle();
    let menu = format!(
        "Findings ({})",
        h.state()
            .simulation()
            .unwrap()
            .diagnosis
            .as_ref()
            .unwrap()
            .findings
            .len()
    );
    h.get_by_label(&menu).click();
    h.settle();
    h.get_by_label_contains(&last.text).click();
    h.settle();
    assert_eq!(h.state().simulation().unwrap().second(), last.from);
}

/// `n` e-mail-like keys of 60–70 characters (as a real Ion export holds), one per line, in a file of the test's
/// own.
fn long_keys_file(test: &str, n: usize) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shardlens-layout-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("customers.txt");
    let text: String = (0..n)
        .map(|i| {
            format!("customer.firstname{i}.lastname+newsletter-2026@example-corporation.com\n")
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn open_keys(h: &mut Harness<'_, App>, path: std::path::PathBuf, distinct: usize) {
    h.state_mut().open_path(path);
    h.wait_for("the keys to load", |a| {
        a.report().is_some_and(|r| r.analysis.distinct == distinct)
    });
}

#[test]
fn long_keys_are_cut_and_the_chart_keeps_its_share_of_the_window() {
    let long = long_keys_file("long", 2_000);
    let short = {
        let dir = long.parent().unwrap().to_owned();
        let p = dir.join("short.txt");
        std::fs::write(&p, "a\nb\nc\na\n").unwrap();
        p
    };
    for size in [[1024.0, 768.0], [1600.0, 1000.0]] {
        let mut h = harness_at(size);
        let before = h.state().chart_rect().expect("the chart is drawn");
        open_keys(&mut h, long.clone(), 2_000);
        let chart = h.state().chart_rect().expect("the chart is drawn");
        eprintln!("{size:?}: chart {before:?} before, {chart:?} with long keys");
        // The panels beside it do not widen for long keys: the chart keeps its width, and never less than
        // the share the side panels leave it.
        assert!(
            chart.width() >= before.width() - 2.0 && chart.width() >= 0.35 * size[0],
            "at {size:?} the chart is {} px wide with long keys, {} px before",
            chart.width(),
            before.width()
        );
        // The keys are listed (the editor, the inspector), each cut to its panel's width.
        let rows: Vec<_> = h
            .query_all_by_label_contains("customer.firstname")
            .map(|n| n.rect())
            .collect();
        assert!(!rows.is_empty(), "the long keys are listed");
        for row in rows {
            assert!(
                row.right() <= chart.left() + 1.0 || row.left() >= chart.right() - 1.0,
                "at {size:?} a key row {row:?} runs into the chart {chart:?}"
            );
        }
        // Short keys next: nothing of the long keys' width stays.
        open_keys(&mut h, short.clone(), 3);
        let after = h.state().chart_rect().expect("the chart is drawn");
        assert!(
            after.width() >= before.width() - 2.0,
            "at {size:?} the chart is {} px wide after the long keys went, {} px before",
            after.width(),
            before.width()
        );
    }
}
