//! Table health beside the partition inspector, driven through its labels with egui_kittest: a DynamoDB
//! export with big items and a badly written TTL attribute shows its storage, its findings (TTL values that
//! never expire, values in milliseconds, hot reads of big items) with their example keys, which select the key
//! in the inspector; a list of keys says why there is nothing to report; the panel opens from the View menu
//! and from its header, in presentation mode too, and its findings never overlap at a laptop's and a desktop's
//! sizes.
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/kittest.rs"]
mod kittest;
#[path = "support/cli.rs"]
mod support;

use std::path::PathBuf;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use kittest::{Settle as _, harness, harness_at};
use shardlens::app::{App, Command, UICommand};
use shardlens::model::Partitioner;

/// A DynamoDB JSON export (one item per line) of 200 items: 40 of ORDER#big of about 21 KB each (the hottest
/// key), one of BLOB#1 of about 303 KB, the rest small under USER#…; `expiresAt` in epoch seconds on a quarter
/// (half of those already past), in milliseconds on a quarter, a string on a quarter and missing on the rest.
/// Written to the test's temporary folder under `name`.
fn export(name: &str) -> PathBuf {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let month = now + 30 * 86_400;
    let mut text = String::new();
    for i in 0..200u64 {
        let (pk, payload) = match i {
            0..40 => ("ORDER#big".to_owned(), "x".repeat(21_000)),
            40 => ("BLOB#1".to_owned(), "z".repeat(310_000)),
            _ => (format!("USER#{:03}", i % 50), "y".repeat(200)),
        };
        let ttl = match i % 4 {
            0 if i % 8 == 0 => format!(r#","expiresAt":{{"N":"{month}"}}"#),
            0 => format!(r#","expiresAt":{{"N":"{}"}}"#, now - 10 * 86_400),
            1 => format!(r#","expiresAt":{{"N":"{}"}}"#, month * 1000),
            2 => format!(r#","expiresAt":{{"S":"{month}"}}"#),
            _ => String::new(),
        };
        text.push_str(&format!(
            r#"{{"Item":{{"pk":{{"S":"{pk}"}},"sk":{{"S":"ITEM#{i:04}"}},"payload":{{"S":"{payload}"}}{ttl}}}}}"#
        ));
        text.push('\n');
    }
    // A folder of this test process's own, which a later run removes (files named by process piled up).
    let path = support::temp_dir("health", name.trim_start_matches("health-")).join("export.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// The app at `size` with the export loaded.
fn loaded(size: [f32; 2], name: &str) -> Harness<'static, App> {
    let mut h = harness_at(size);
    h.state_mut().open_path(export(name));
    h.wait_for("the export to load", |app| {
        app.report().is_some_and(|r| r.analysis.total == 200)
    });
    h
}

/// A node's text: its label, or a label's value.
fn text(node: &egui_kittest::Node<'_>) -> String {
    let n = node.accesskit_node();
    n.label()
        .filter(|l| !l.is_empty())
        .or_else(|| n.value())
        .unwrap_or_default()
}

/// View > Table health, clicked.
fn open_from_the_view_menu(h: &mut Harness<'_, App>) {
    h.get_by_label("View").click();
    h.settle();
    // The menu's item, not the panel's header of the same name.
    h.get_by(|n| {
        n.label().as_deref() == Some("Table health") && n.role() != Role::DisclosureTriangle
    })
    .click();
    h.wait_for("the health report", |app| app.health().open);
}

#[test]
fn an_exports_health_shows_storage_ttl_and_findings_with_their_sources() {
    let mut h = loaded([1400.0, 900.0], "health-findings");
    open_from_the_view_menu(&mut h);
    h.get_by_label_contains("Storage: ");
    h.get_by_label_contains("in 200 items");
    h.get_by_label_contains("fits one partition of about 10 GB");
    h.get_by_label("Largest item collection:");
    h.get_by_label_contains("TTL attribute \"expiresAt\" (guessed from its name)");
    // The bars of items by write units, each with its share.
    h.get_by_label("21 WCU");
    h.get_by_label("20 % (40)");
    // The TTL attribute as a string and in milliseconds: never expires; the milliseconds read as a year.
    let never: Vec<String> = h
        .get_all_by(|n| n.role() == Role::Label)
        .map(|n| text(&n))
        .filter(|t| t.contains("never expire"))
        .collect();
    assert_eq!(never.len(), 2, "{never:?}");
    assert!(never.iter().all(|l| l.starts_with("error: ")), "{never:?}");
    h.get_by_label_contains("these values read as the year");
    h.get_by_label_contains("have no expiresAt: TTL never deletes them");
    h.get_by_label_contains("are already past their expiresAt");
    // The hottest key's big items cost read units.
    let hot = h.get_by_label_contains("is among the hottest keys");
    let hot = text(&hot);
    assert!(hot.starts_with("warning: ORDER#big"), "{hot}");
    assert!(hot.contains("read units"), "{hot}");
    h.get_by_label_contains("1 key has an item over 300 KB");
    // Each finding says where its rule comes from, at the body's size (it was small text, ~7 px): every
    // source label is a whole number of the body's lines tall.
    assert!(
        h.get_all_by_label_contains("source: AWS developer guide")
            .count()
            >= 6
    );
    // A line of the body's text.
    let font = egui::TextStyle::Body.resolve(&h.ctx.global_style());
    let body = h.ctx.fonts_mut(|f| f.row_height(&font));
    for source in h.get_all_by_label_contains("source: ") {
        let lines = source.rect().height() / body;
        assert!(
            lines >= 0.95 && (lines - lines.round()).abs() < 0.1,
            "a source label {} px tall, the body's line {body} px",
            source.rect().height()
        );
    }
    // Nothing about GSIs: the design has none.
    assert!(h.query_by_label_contains("GSI write costs").is_none());
}

#[test]
fn clicking_an_example_key_selects_it_in_the_inspector() {
    let mut h = loaded([1400.0, 900.0], "health-example");
    open_from_the_view_menu(&mut h);
    // BLOB#1's item is near the limit; the fixture puts it outside the hottest bucket the inspector starts on.
    let (bucket, hottest) = {
        let app = h.state();
        let report = app.report().unwrap();
        let keys = app.key_set().unwrap();
        let blob = keys.find(b"BLOB#1").unwrap();
        let partitions = Partitioner::equal(report.analysis.buckets.len());
        (
            partitions.partition_of(keys.hash(blob)),
            report.analysis.hottest_bucket,
        )
    };
    assert_ne!(bucket, hottest);
    h.get_all_by_role_and_label(Role::Link, "BLOB#1")
        .next()
        .unwrap()
        .scroll_to_me();
    h.settle();
    h.get_all_by_role_and_label(Role::Link, "BLOB#1")
        .next()
        .unwrap()
        .click();
    h.wait_for("BLOB#1 in the inspector", |app| {
        app.inspected_key().as_deref() == Some("BLOB#1")
    });
    h.get_by_label_contains(&format!("bucket {bucket}: hash range"));
    h.get_by_label_contains("% of bucket  BLOB#1");
    h.get_by_label_contains("BLOB#1: 1 items");
    // The hottest key's example, from another finding, selects it in its own bucket.
    h.get_all_by_role_and_label(Role::Link, "ORDER#big")
        .next()
        .unwrap()
        .click_accesskit();
    h.wait_for("ORDER#big in the inspector", |app| {
        app.inspected_key().as_deref() == Some("ORDER#big")
    });
    h.get_by_label_contains("ORDER#big: 40 items");
}

#[test]
fn a_list_of_keys_says_sizes_need_whole_items() {
    let mut h = harness();
    h.state_mut().set_text("a\nb\nb\nc\n".to_owned());
    h.settle();
    // The header under the inspector opens it.
    h.get_by_role_and_label(Role::DisclosureTriangle, "Table health")
        .click();
    h.wait_for("the panel to open", |app| app.health().open);
    h.get_by_label(
        "Nothing to report: sizes need whole items: an export, scan output or JSON items.",
    );
    // And closes it.
    h.get_by_role_and_label(Role::DisclosureTriangle, "Table health")
        .click();
    h.wait_for("the panel to close", |app| !app.health().open);
    assert!(
        h.query_by_label_contains("sizes need whole items")
            .is_none()
    );
}

#[test]
fn presentation_mode_shows_it_beside_the_inspector_readable_at_both_sizes() {
    for size in [[1024.0, 768.0], [1600.0, 1000.0]] {
        let mut h = loaded(size, &format!("health-{}", size[0]));
        h.state_mut()
            .apply(Command::Ui(UICommand::TogglePresentation));
        h.settle();
        assert!(
            h.query_by_role_and_label(Role::DisclosureTriangle, "Table health")
                .is_none(),
            "the side panels are hidden in presentation mode"
        );
        open_from_the_view_menu(&mut h);
        // Scrolled into view: its header is on screen, at the top of the panel.
        let header = h
            .get_by_role_and_label(Role::DisclosureTriangle, "Table health")
            .rect();
        eprintln!("{size:?}: header {header:?}");
        assert!(
            header.top() >= 0.0 && header.bottom() <= size[1] * 0.25,
            "at {size:?} the header is at {header:?}"
        );
        let storage = h.get_by_label_contains("Storage: ").rect();
        assert!(storage.right() <= size[0] + 0.5, "{storage:?}");
        // The findings, one under the other, none over another.
        let mut findings: Vec<egui::Rect> = h
            .get_all_by(|n| {
                n.role() == Role::Label && {
                    let l = n.label().or_else(|| n.value()).unwrap_or_default();
                    ["error: ", "warning: ", "info: "]
                        .iter()
                        .any(|s| l.starts_with(s))
                }
            })
            .map(|n| n.rect())
            .collect();
        assert_eq!(findings.len(), 6);
        findings.sort_by(|a, b| a.top().total_cmp(&b.top()));
        for pair in findings.windows(2) {
            assert!(
                pair[0].bottom() <= pair[1].top(),
                "at {size:?} {:?} overlaps {:?}",
                pair[0],
                pair[1]
            );
            assert!(pair[0].right() <= size[0] + 0.5, "{:?}", pair[0]);
        }
        // The menu again closes it.
        h.state_mut().apply(Command::Ui(UICommand::ToggleHealth));
        h.settle();
        assert!(!h.state().health().open);
    }
}

#[test]
fn a_key_design_gsi_is_costed_from_the_kept_items_sizes() {
    let mut h = loaded([1400.0, 900.0], "health-gsi");
    h.state_mut().apply(Command::SetChart(
        shardlens::app::settings::ChartMode::Designs,
    ));
    h.state_mut().apply(Command::EditDesign(
        shardlens::app::design::GSI_SLOT,
        "bySk=sk".to_owned(),
    ));
    h.wait_for("the comparison with the GSI", |app| {
        app.design()
            .shown
            .as_ref()
            .is_some_and(|c| c.rows.iter().any(|r| r.design == "GSI bySk"))
    });
    open_from_the_view_menu(&mut h);
    h.get_by_label("GSI write costs (the Key design's GSIs)");
    // The kept items carry their sizes, so the re-keyed index has projected sizes (ALL: the whole item).
    h.get_by_label_contains("bySk (ALL): a write costs");
    assert!(h.query_by_label_contains("no write cost").is_none());
    // The table's own findings are there as before.
    h.get_by_label_contains("is among the hottest keys");
}

#[test]
fn the_ttl_attribute_goes_and_comes_back_with_its_keys() {
    let mut h = loaded([1400.0, 900.0], "health-undo");
    open_from_the_view_menu(&mut h);
    h.get_by_label_contains("TTL attribute \"expiresAt\"");
    // Typed keys replace the export: no items, no TTL attribute.
    h.state_mut().set_text("a\nb\n".to_owned());
    h.settle();
    h.get_by_label_contains("sizes need whole items");
    assert!(h.query_by_label_contains("TTL attribute").is_none());
    // Undo brings the export back with what its load read of the TTL attribute.
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.wait_for("the export back", |app| {
        app.report().is_some_and(|r| r.analysis.total == 200)
    });
    h.get_by_label_contains("TTL attribute \"expiresAt\"");
    h.get_by_label_contains("these values read as the year");
}

/// A Workbench model one of whose items holds a map whose member is not a typed value (as AWS's sample
/// GamePlayerProfiles does) loads, the load's notice names the item and the attribute, and Table health says how
/// many sizes are estimates.
#[test]
fn a_model_with_a_malformed_attribute_says_its_sizes_are_estimates() {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/estimates/workbench-game-profiles.json");
    let mut h = harness_at([1400.0, 900.0]);
    h.state_mut().open_path(model);
    h.wait_for("the model to load", |app| {
        app.report().is_some_and(|r| r.analysis.total == 5)
    });
    h.get_by_label_contains("attribute \"Loadout.M\"");
    open_from_the_view_menu(&mut h);
    h.get_by_label_contains("Estimated: the sizes of 1 of 5 items are estimates");
}
