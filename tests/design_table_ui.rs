//! The Key design table at a laptop's width: every figure and every "Use as key" button inside the window
//! (no sideways scroll, no scrollbar over a button), and the view never blank after "Use as key".
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/kittest.rs"]
mod kittest;
use kittest::{Settle as _, harness_at};

use egui_kittest::kittest::Queryable as _;
use shardlens::app::{App, Command};
use shardlens::model::examples::design::DesignScenario;

fn row_count(app: &App) -> usize {
    app.design().shown.as_ref().map_or(0, |s| s.rows.len())
}

/// Inside the window's width (the view scrolls up and down, never sideways), and clear of the vertical
/// scrollbar at the right edge.
fn within(rect: egui::Rect, size: egui::Vec2, what: &str) {
    assert!(
        rect.min.x >= 0.0 && rect.max.x <= size.x - 12.0,
        "{what} at {rect:?} is not inside the {size:?} window's width"
    );
}

#[test]
fn at_1280_every_figure_and_button_is_inside_the_window() {
    let size = egui::vec2(1280.0, 800.0);
    let mut h = harness_at([size.x, size.y]);
    h.state_mut()
        .apply(Command::LoadDesignExample(DesignScenario::LeaderboardItems));
    h.wait_for("the current key's row", |a| row_count(a) == 1);
    h.state_mut().apply(Command::EditDesign(
        0,
        "BOARD#global#{playerId:hash 10}".to_owned(),
    ));
    h.state_mut()
        .apply(Command::EditDesign(1, "PLAYER#{playerId}".to_owned()));
    h.wait_for("both candidates' rows", |a| row_count(a) == 3);
    let buttons: Vec<egui::Rect> = h.get_all_by_label("Use as key").map(|n| n.rect()).collect();
    assert_eq!(buttons.len(), 2);
    for r in buttons {
        within(r, size, "a \"Use as key\" button");
    }
    for header in ["throttled /s", "read fan-out", "decision tree"] {
        let rects: Vec<egui::Rect> = h
            .get_all_by_label_contains(header)
            .map(|n| n.rect())
            .collect();
        assert!(!rects.is_empty(), "no {header:?}");
        for r in rects {
            within(r, size, header);
        }
    }
}

#[test]
fn use_as_key_with_a_broken_candidate_still_shows_the_table() {
    let mut h = harness_at([1280.0, 800.0]);
    h.state_mut()
        .apply(Command::LoadDesignExample(DesignScenario::LeaderboardItems));
    h.wait_for("the current key's row", |a| row_count(a) == 1);
    h.state_mut().apply(Command::EditDesign(
        0,
        "BOARD#global#{playerId:hash 10}".to_owned(),
    ));
    // One candidate does not parse, another names an attribute these items lack.
    h.state_mut()
        .apply(Command::EditDesign(1, "{playerId".to_owned()));
    h.state_mut()
        .apply(Command::EditDesign(2, "{region}".to_owned()));
    h.wait_for("the candidate's row", |a| row_count(a) == 2);
    let m = h.state().design().message.clone().unwrap_or_default();
    assert!(m.contains("region"), "{m}");
    h.get_by_label("Use as key").click_accesskit();
    h.wait_for("the re-keyed data", |a| {
        a.key_set().is_some_and(|k| k.len() == 10)
    });
    h.wait_for("the table's rows after Use as key", |a| row_count(a) >= 1);
    h.get_by_label("Use as key");
}
