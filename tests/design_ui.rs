//! The Key design view, driven through AccessKit labels with egui_kittest: typing a candidate re-keys the
//! items off the UI thread, the comparison's row changes, the guide's fix is one click away, and "Use as key"
//! re-keys the data (undoable).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/kittest.rs"]
mod kittest;
use egui_kittest::kittest::Queryable as _;
use kittest::{Settle as _, harness};
use shardlens::app::settings::ChartMode;
use shardlens::app::{App, Command, UICommand};
use shardlens::model::examples::design::DesignScenario;

fn rows(app: &App) -> Vec<(String, String, usize)> {
    app.design().shown.as_ref().map_or_else(Vec::new, |s| {
        s.rows
            .iter()
            .map(|r| (r.design.clone(), r.expr.clone(), r.distinct_keys))
            .collect()
    })
}

#[test]
fn the_leaderboards_fix_is_one_click_and_use_as_key_re_keys_it() {
    let mut h = harness();
    h.state_mut()
        .apply(Command::LoadDesignExample(DesignScenario::LeaderboardItems));
    h.wait_for("the current key's row", |a| rows(a).len() == 1);
    assert_eq!(h.state().chart_mode(), ChartMode::Designs);
    // The heading and the chart mode's radio button.
    assert_eq!(h.get_all_by_label("Key design").count(), 2);
    assert_eq!(rows(h.state())[0].1, "{PK}");
    h.get_by_label("Try the guide's fix: BOARD#global#{playerId:hash 10}")
        .click();
    h.wait_for("the fix's row", |a| rows(a).len() == 2);
    let r = rows(h.state());
    assert_eq!(r[1].0, "candidate 1");
    assert_eq!(r[1].1, "BOARD#global#{playerId:hash 10}");
    assert_eq!(r[1].2, 10, "ten shards of the board");
    // The consequence of a calculated suffix is said where the figures are.
    h.get_by_label_contains("one hot item stays on one shard");
    let before = h.state().key_set().unwrap().len();
    assert_eq!(before, 1);
    // An AccessKit click: kittest's pointer click misses a button in the table's sideways scroll area (a
    // real pointer under Xvfb re-keys: checked by hand, see the closing note of issue 14).
    h.get_by_label("Use as key").click_accesskit();
    h.settle();
    h.wait_for("the re-keyed data", |a| {
        a.key_set().is_some_and(|k| k.len() == 10)
    });
    assert_eq!(
        h.state().design().current,
        "BOARD#global#{playerId:hash 10}"
    );
    // The streamer's shard is still the hottest key: the tree's top key is one shard of the board.
    let report = h.state().report().unwrap();
    assert!(report.analysis.skew.top_key_share > 0.2);
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.wait_for("the board back", |a| {
        a.key_set().is_some_and(|k| k.len() == 1)
    });
}

/// The orders example offers a multi-attribute GSI one click away: the status and a shard of its own, hashed
/// together; its row splits OPEN and the note under the table says what reading a status back costs.
#[test]
fn the_multi_attribute_gsi_is_one_click_and_says_its_queries() {
    let mut h = harness();
    h.state_mut()
        .apply(Command::LoadDesignExample(DesignScenario::OrdersByStatus));
    h.wait_for("five rows", |a| rows(a).len() == 5);
    h.get_by_label("Try a multi-attribute GSI: byStatusShard=status+{customerId:hash 10}")
        .click();
    h.wait_for("the multi-attribute GSI's row", |a| {
        rows(a).last().is_some_and(|r| r.0 == "GSI byStatusShard")
    });
    let r = rows(h.state());
    let last = r.last().unwrap();
    assert_eq!(last.1, "{status}+{customerId:hash 10}");
    assert!(last.2 > 30, "statuses × shards: {}", last.2);
    h.settle();
    h.get_by_label_contains("reading one key back takes 10 queries, one per shard value");
}

#[test]
fn typing_a_candidate_changes_its_row_and_a_bad_one_says_where() {
    let mut h = harness();
    h.state_mut()
        .apply(Command::LoadDesignExample(DesignScenario::OrdersByStatus));
    // The example starts with three candidates and the status GSI.
    h.wait_for("five rows", |a| rows(a).len() == 5);
    let r = rows(h.state());
    assert_eq!(r[1].1, "{status}");
    assert_eq!(r[1].2, 4, "four statuses");
    assert_eq!(r[4].0, "GSI byStatus");
    assert_eq!(r[4].2, 4);
    // Type a new candidate 1: by customer and hour.
    h.state_mut().apply(Command::EditDesign(0, String::new()));
    h.settle();
    let text = h.get_by_label("Candidate 1");
    text.focus();
    text.type_text("C#{customerId}#{createdAt:hour}");
    h.wait_for("the typed candidate's row", |a| {
        rows(a)
            .get(1)
            .is_some_and(|r| r.1 == "C#{customerId}#{createdAt:hour}")
    });
    let r = rows(h.state());
    assert!(r[1].2 > r[3].2, "hours split more than days: {r:?}");
    // A candidate that does not parse says where, and the others stay.
    h.state_mut()
        .apply(Command::EditDesign(1, "CUST#{customerId".to_owned()));
    h.wait_for("the bad candidate dropped", |a| rows(a).len() == 4);
    h.get_by_label_contains("column 6");
    // One the items cannot key names the attribute and what they have.
    h.state_mut()
        .apply(Command::EditDesign(2, "{region}".to_owned()));
    h.wait_for("the message", |a| a.design().message.is_some());
    let m = h.state().design().message.clone().unwrap();
    assert!(m.contains("region") && m.contains("customerId"), "{m}");
}

#[test]
fn pasted_pk_and_sk_lines_offer_pk_and_sk() {
    let mut h = harness();
    h.state_mut()
        .set_text("u1\tA\nu1\tB\nu1\tC\nu1\tD\nu2\tA\n".to_owned());
    h.settle();
    h.state_mut().apply(Command::SetChart(ChartMode::Designs));
    h.state_mut()
        .apply(Command::EditDesign(0, "{pk}#{sk:hash 4}".to_owned()));
    h.wait_for("the candidate's row", |a| rows(a).len() == 2);
    let r = rows(h.state());
    assert_eq!(r[0].2, 2);
    assert!(r[1].2 >= 3, "u1's four items over up to four shards: {r:?}");
}

/// 400 orders as DynamoDB JSON lines: customer `c0` places 34 (8.5 %), the others 6 to 10 each (under 5 %);
/// every order has its own `pk`.
fn orders_file() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shardlens-design-shard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = String::new();
    for i in 0..400 {
        let customer = if i < 34 {
            "c0".to_owned()
        } else {
            format!("c{}", 1 + (i - 34) % 45)
        };
        lines.push_str(&format!(
            r#"{{"Item":{{"pk":{{"S":"ORDER#{i}"}},"customerId":{{"S":"{customer}"}}}}}}"#
        ));
        lines.push('\n');
    }
    let path = dir.join("orders.json");
    std::fs::write(&path, lines).unwrap();
    path
}

/// The CLI's figures for the same file, candidate and shards: (top-key share, read fan-out) per design.
fn cli_figures(path: &std::path::Path) -> Vec<(f64, u64)> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardlens"))
        .args([
            "analyze",
            path.to_str().unwrap(),
            "--compare",
            "CUST#{customerId}",
        ])
        .args(["--shards", "10", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["designs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["top_key_share"].as_f64().unwrap(),
                d["read_fan_out"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_shard_toggle_left_on_is_said_and_the_cards_agree_with_the_cli() {
    let path = orders_file();
    let cli = cli_figures(&path);
    assert_eq!(cli.len(), 2);
    let mut h = harness();
    h.state_mut().open_path(path);
    h.wait_for("the orders", |a| {
        a.report().is_some_and(|r| r.analysis.distinct == 400)
    });
    // Shard hot keys on with the keys view: no order is hot, so nothing is sharded there.
    h.state_mut().apply(Command::Ui(UICommand::ToggleShard));
    h.settle();
    h.get_by_label_contains("nothing is sharded");
    // Key design, with a candidate whose top customer is hot.
    h.state_mut().apply(Command::SetChart(ChartMode::Designs));
    h.state_mut()
        .apply(Command::EditDesign(0, "CUST#{customerId}".to_owned()));
    h.wait_for("the candidate's row", |a| rows(a).len() == 2);
    let shown = h.state().design().shown.clone().unwrap();
    for (row, (share, fan_out)) in shown.rows.iter().zip(&cli) {
        assert!(
            (row.top_key_share - share).abs() < 1e-9 && row.read_fan_out == *fan_out,
            "{}: the app says {} and {}, the CLI {share} and {fan_out}",
            row.design,
            row.top_key_share,
            row.read_fan_out
        );
    }
    // The candidate's c0 (8.5 %) is split: the card says so, with the share as written beside it.
    let candidate = &shown.rows[1];
    assert_eq!(candidate.sharded_keys, 1);
    assert!((candidate.unsharded_top_key_share - 0.085).abs() < 1e-9);
    // The line above the cards says what is applied, and no line says nothing is sharded.
    h.get_by_label_contains("Shard hot keys is on: in every design below");
    assert!(h.query_by_label_contains("nothing is sharded").is_none());
    h.get_by_label_contains("after sharding (8.5 % as written)");
    h.get_by_label_contains("1 key split ×10");
    // Compared as written with one click: the truth, and the line goes.
    h.get_by_label("Compare as written").click();
    h.wait_for("the rows as written", |a| {
        a.design()
            .shown
            .as_ref()
            .is_some_and(|s| s.rows.len() == 2 && s.rows[1].sharded_keys == 0)
    });
    let shown = h.state().design().shown.clone().unwrap();
    assert!((shown.rows[1].top_key_share - 0.085).abs() < 1e-9);
    assert_eq!(shown.rows[1].read_fan_out, 1);
    assert!(h.query_by_label_contains("Shard hot keys is on").is_none());
}

/// Export chart in Key design saves the designs' histograms alone: the frame it grabs holds every design's
/// label and figures on one scale, inside the window and the saved rectangle, and none of the view's buttons
/// (a grab of the scrolled view held half a card and its buttons, no histograms).
#[test]
fn export_chart_in_key_design_grabs_every_histogram_with_its_label() {
    for size in [[1024.0, 768.0], [1600.0, 1000.0]] {
        let mut h = kittest::harness_at(size);
        h.state_mut().set_native_dialogs(false);
        h.state_mut()
            .apply(Command::LoadDesignExample(DesignScenario::OrdersByStatus));
        h.wait_for("five rows", |a| rows(a).len() == 5);
        h.get_all_by_label("Use as key").next().unwrap();
        h.state_mut().apply(Command::Ui(UICommand::ExportPng));
        // The frames that draw what is saved (the first only sizes it, the second asks for the grab).
        h.step();
        h.step();
        assert!(
            h.query_by_label("Use as key").is_none(),
            "at {size:?} the grab holds the view's buttons"
        );
        let saved = h.state().chart_rect().unwrap();
        let window = egui::Rect::from_min_size(egui::Pos2::ZERO, size.into());
        let figures: Vec<egui::Rect> = h
            .get_all_by(|n| {
                n.label()
                    .or_else(|| n.value())
                    .is_some_and(|l| l.contains(" · top key "))
            })
            .map(|n| n.rect())
            .collect();
        // A label and its text run: one place each.
        let mut figures = figures;
        figures.dedup_by(|a, b| a.min == b.min);
        assert_eq!(figures.len(), 5, "at {size:?}: {figures:?}");
        for (design, ..) in rows(h.state()) {
            let label = h.get_all_by_label(&design).next().unwrap().rect();
            assert!(
                saved.contains_rect(label),
                "{design} at {label:?}, saved {saved:?}"
            );
        }
        for r in &figures {
            assert!(
                saved.contains_rect(*r),
                "at {size:?}: {r:?} outside {saved:?}"
            );
            assert!(window.contains_rect(*r), "at {size:?}: {r:?} off screen");
        }
        // Then the view is back.
        h.settle();
        h.get_all_by_label("Use as key").next().unwrap();
    }
}
