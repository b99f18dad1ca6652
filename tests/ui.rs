//! The real app, driven through AccessKit labels with egui_kittest (no display needed).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use shardlens::app::{App, Command, Keys};
use shardlens::model::decision::Leaf;
use shardlens::model::scenario::Scenario;

fn harness() -> Harness<'static, App> {
    let mut h = Harness::builder()
        .with_size([1400.0, 900.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    h.run();
    h
}

fn hottest_share(h: &Harness<'_, App>) -> f64 {
    h.state()
        .report()
        .unwrap()
        .analysis
        .skew
        .hottest_bucket_share
}

/// Waits for background work (large inputs) to land.
fn settle(h: &mut Harness<'_, App>) {
    for _ in 0..500 {
        h.run();
        if !h.state().busy() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the app stayed busy");
}

#[test]
fn opens_on_the_leaderboard_with_a_hot_bucket_and_the_leaf() {
    let h = harness();
    let app = h.state();
    assert!(matches!(app.keys, Keys::Text(_)));
    assert!(hottest_share(&h) > 0.6, "a visibly hot bucket");
    assert_eq!(app.path.as_ref().unwrap().leaf, Some(Leaf::ShardOrCache));
    h.get_by_label("Recommendation: Shard the key or cache the reads");
    h.get_by_label_contains("teaching hash (xxh3)");
    h.get_by_label("1000 keys · 41 distinct");
}

#[test]
fn typing_keys_updates_the_count_and_the_buckets() {
    let mut h = harness();
    // Empty the editor, then type.
    h.state_mut().set_text(String::new());
    h.run();
    let editor = h.get_by_label("Keys (one per line; a repeated line is a repeated write)");
    editor.focus();
    editor.type_text("a\nb\na\nc\n");
    h.run();
    h.get_by_label("4 keys · 3 distinct");
    let report = h.state().report().unwrap();
    assert_eq!(report.analysis.total, 4);
    assert_eq!(report.analysis.buckets.iter().sum::<u64>(), 4);
    assert_eq!(report.analysis.top_keys[0].key, "a");
}

#[test]
fn sharding_toggle_cools_the_hottest_bucket_and_shows_the_fan_out() {
    let mut h = harness();
    let before = hottest_share(&h);
    h.get_by_label("Shard hot keys").click();
    h.run();
    let after = hottest_share(&h);
    assert!(after < before / 2.0, "{before} → {after}");
    assert!(
        h.state().report().unwrap().unsharded.is_some(),
        "ghost bars of the unsharded spread"
    );
    h.get_by_label_contains("reading BOARD#global back takes 10 Queries and a merge");
    h.get_by_label_contains("with :pk = BOARD#global#0 … BOARD#global#9");
}

#[test]
fn every_example_reaches_its_leaf() {
    let mut h = harness();
    for s in Scenario::ALL {
        h.get_by_label("Examples").click();
        h.run();
        h.get_by_label(s.title()).click();
        h.run();
        let leaf = h.state().path.as_ref().unwrap().leaf;
        assert_eq!(leaf, Some(s.expected_leaf()), "{s:?}");
        h.get_by_label(&format!("Recommendation: {}", s.expected_leaf().title()));
    }
}

#[test]
fn the_bucket_count_changes_the_bars() {
    let mut h = harness();
    assert_eq!(h.state().report().unwrap().analysis.buckets.len(), 8);
    h.get_by_role_and_label(Role::Slider, "Buckets")
        .set_value_accesskit(16.0);
    h.run();
    let buckets = &h.state().report().unwrap().analysis.buckets;
    assert_eq!(buckets.len(), 16);
    assert_eq!(buckets.iter().sum::<u64>(), 1000);
}

#[test]
fn an_unknown_answer_is_set_by_clicking() {
    let mut h = harness();
    // Keys without sort keys: "one item hot?" is unknown until answered.
    h.state_mut()
        .set_text("HOT\n".repeat(90) + "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n");
    h.run();
    assert_eq!(h.state().path.as_ref().unwrap().leaf, None);
    h.get_by_label("Recommendation: answer the open question");
    h.get_by_label("No, many items").click();
    h.run();
    assert_eq!(
        h.state().path.as_ref().unwrap().leaf,
        Some(Leaf::ItemCollection)
    );
    h.get_by_label("Yes, one item").click();
    h.run();
    assert_eq!(
        h.state().path.as_ref().unwrap().leaf,
        Some(Leaf::ShardOrCache)
    );
    // The one-click fix turns sharding on.
    h.get_by_label("Turn on sharding for the hot key").click();
    h.run();
    assert!(h.state().settings.shard_enabled);
    assert!(hottest_share(&h) < 0.5);
}

#[test]
fn invalid_input_keeps_the_previous_data_and_says_why() {
    let mut h = harness();
    let before = h.state().report().unwrap().analysis.total;
    h.get_by_label("N").click();
    h.run();
    let app = h.state();
    assert!(
        app.input_error.as_deref().unwrap().starts_with("line 1:"),
        "{:?}",
        app.input_error
    );
    assert_eq!(
        app.report().unwrap().analysis.total,
        before,
        "previous data stays on screen"
    );
    h.get_by_label_contains("showing the last valid keys");
}

#[test]
fn large_key_sets_are_held_as_data_and_computed_in_the_background() {
    let mut h = harness();
    let mut text = String::new();
    for i in 0..60_000 {
        text.push_str(&format!("USER#{}\n", i % 5000));
    }
    let session = format!(
        "{{\"format\":\"shardlens-session\",\"version\":1,\"settings\":{{\"buckets\":12}},\"text\":{}}}",
        serde_json::to_string(&text).unwrap()
    );
    h.state_mut().open_session(session.as_bytes(), "big.json");
    settle(&mut h);
    let app = h.state();
    assert!(
        matches!(app.keys, Keys::Data(_)),
        "held as data, not as a 60,000-line text"
    );
    let report = app.report().unwrap();
    assert_eq!(report.analysis.total, 60_000);
    assert_eq!(report.analysis.buckets.len(), 12);
    h.get_by_label("60000 keys · 5000 distinct");
    h.get_by_label("Filter");
}

#[test]
fn a_malformed_session_is_a_clear_error_and_changes_nothing() {
    let mut h = harness();
    let before = h.state().report().unwrap().analysis.total;
    h.state_mut().open_session(
        b"{\"format\":\"shardlens-session\",\"version\":1",
        "broken.json",
    );
    h.run();
    let app = h.state();
    let notice = app.notices.last().unwrap();
    assert!(notice.error);
    assert!(
        notice
            .text
            .starts_with("cannot open session broken.json: not a shardlens session"),
        "{}",
        notice.text
    );
    assert_eq!(app.report().unwrap().analysis.total, before);
    // A good session round-trips keys and settings.
    let mut saved = h.state().session();
    saved.settings.buckets = 5;
    let json = saved.to_json().unwrap();
    h.state_mut().open_session(json.as_bytes(), "good.json");
    h.run();
    assert_eq!(h.state().report().unwrap().analysis.buckets.len(), 5);
}

#[test]
fn presentation_mode_scales_the_ui() {
    let mut h = harness();
    h.state_mut().apply(Command::TogglePresentation);
    h.run();
    assert!(h.state().settings.presentation);
    assert!(h.ctx.zoom_factor() > 1.2);
}

#[test]
fn emoji_keys_render_real_glyphs() {
    // kittest panics on a missing glyph, so drawing these keys proves the fonts cover them.
    let mut h = harness();
    h.state_mut()
        .set_text("🔥hot\n🔥hot\n🎮game\nüñî\n".to_owned());
    h.run();
    h.get_by_label("4 keys · 3 distinct");
    assert_eq!(
        h.state().report().unwrap().analysis.top_keys[0].key,
        "🔥hot"
    );
}

#[test]
fn the_window_icon_decodes() {
    let icon = shardlens::app::icon().expect("icon");
    assert_eq!((icon.width, icon.height), (256, 256));
    assert_eq!(icon.rgba.len(), 256 * 256 * 4);
}

#[test]
fn opening_a_file_loads_in_the_background_and_a_bad_file_keeps_the_data() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let good = dir.join(format!("ui-open-{}.txt", std::process::id()));
    std::fs::write(&good, "x\ny\nx\n").unwrap();
    let mut h = harness();
    h.state_mut().open_path(good.clone());
    for _ in 0..500 {
        h.run();
        if h.state().report().unwrap().analysis.total == 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(h.state().report().unwrap().analysis.total, 3);
    h.get_by_label("3 keys · 2 distinct");
    // A missing file: an error that names it, and the keys stay.
    let missing = dir.join("no-such-file.txt");
    h.state_mut().open_path(missing);
    for _ in 0..500 {
        h.run();
        if h.state().notices.last().is_some_and(|n| n.error) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let notice = h.state().notices.last().unwrap();
    assert!(
        notice.error && notice.text.contains("no-such-file.txt"),
        "{}",
        notice.text
    );
    assert_eq!(h.state().report().unwrap().analysis.total, 3);
}

#[test]
fn ctrl_v_outside_the_editor_pastes_keys_into_it() {
    let mut h = harness();
    h.state_mut().set_text("a\n".to_owned());
    h.run();
    h.event(egui::Event::Paste("b\nc".to_owned()));
    h.run();
    h.get_by_label("3 keys · 3 distinct");
}

/// Opens a fixture in the app and runs frames until `loaded` holds (or a time limit passes).
fn open_fixture(h: &mut Harness<'_, App>, name: &str, loaded: impl Fn(&App) -> bool) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    h.state_mut().open_path(path);
    for _ in 0..500 {
        h.run();
        if loaded(h.state()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

#[test]
fn an_s3_export_folder_shows_its_data_files() {
    let mut h = harness();
    open_fixture(&mut h, "export", |app| app.groups.is_some());
    let groups = h.state().groups.clone().expect("per data file groups");
    assert!(groups.len() >= 2, "{groups:?}");
    let items: u64 = groups.iter().map(|g| g.items).sum();
    settle(&mut h);
    assert_eq!(h.state().report().unwrap().analysis.total, items);
    h.get_by_label("By export data file").click();
    h.run();
    assert!(h.state().by_data_file);
    h.get_by_label_contains("real grouping of this S3 export");
}

#[test]
fn modelling_capacity_shows_partitions_over_their_limit() {
    let mut h = harness();
    h.get_by_label("Model capacity").click();
    h.run();
    // The default workload: 4,000 writes/s of 1 KB items on a new on-demand table (4 partitions).
    let report = h.state().report().unwrap();
    let capacity = report.capacity.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(capacity.partitions.len(), 4);
    assert_eq!(
        report.analysis.buckets.len(),
        4,
        "the partitions are the buckets"
    );
    assert!(
        capacity.hottest_util() > 1.0,
        "the leaderboard's partition is over its limit"
    );
    h.get_by_label_contains("hottest partition at");
    h.get_by_label_contains("% of partition capacity");
    // Fewer writes: nothing over the limit.
    h.get_by_role_and_label(Role::SpinButton, "Writes/s")
        .set_value_accesskit(100.0);
    h.run();
    let capacity = h
        .state()
        .report()
        .unwrap()
        .capacity
        .clone()
        .unwrap()
        .unwrap();
    assert!(capacity.hottest_util() <= 1.0, "{}", capacity.headline());
    assert_eq!(capacity.throttled_units(), 0.0);
}

#[test]
fn the_inspector_lists_the_hottest_buckets_keys_and_a_keys_facts() {
    let mut h = harness();
    h.state_mut()
        .apply(Command::LoadExample(Scenario::Tournament));
    h.run();
    // The hottest bucket is shown first; its top key is the hot arena.
    let row = h.get_by_label_contains("% of bucket  ARENA#7f3a");
    row.click();
    h.run();
    h.get_by_label_contains("sort keys only increase: split-for-heat cannot split this collection");
}

#[test]
fn the_connect_dialog_reports_a_bad_endpoint_before_any_request() {
    let mut h = harness();
    h.get_by_label("File").click();
    h.run();
    h.get_by_label("Connect to DynamoDB…").click();
    h.run();
    assert!(
        h.query_by_label("Open keys…  (Ctrl+O)").is_none(),
        "the menu closed"
    );
    let endpoint = h.get_by_role_and_label(Role::TextInput, "Endpoint");
    endpoint.focus();
    endpoint.type_text("not a url");
    h.run();
    h.get_by_label("List tables").click();
    for _ in 0..300 {
        h.step();
        if h.query_by_label_contains("the endpoint is not a URL")
            .is_some()
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("no endpoint error shown");
}

#[test]
fn a_keys_item_collection_shows_the_run_a_query_reads() {
    let mut h = harness();
    h.state_mut()
        .set_text("HOT\tEVT#3\nHOT\tEVT#1\nHOT\tORDER#1\nHOT\tEVT#2\nx\ty\n".to_owned());
    h.run();
    h.get_by_label_contains("% of bucket  HOT").click();
    h.run();
    h.get_by_label_contains("Item collection: 4 items in sort-key order");
    let field = h.get_by_role_and_label(Role::TextInput, "begins_with");
    field.focus();
    field.type_text("EVT#");
    h.run();
    h.get_by_label_contains("The Query reads items 0–2 (3 items, one contiguous run)");
}

#[test]
fn item_sizes_from_an_export_drive_the_workload_and_the_inspector() {
    let mut h = harness();
    open_fixture(&mut h, "items.json", |app| {
        app.report().is_some_and(|r| r.analysis.total == 6)
    });
    settle(&mut h);
    h.get_by_label("Model capacity").click();
    h.run();
    settle(&mut h);
    // "Measured" is on by default: the report's item size is the items' own.
    let w = h.state().report().unwrap().workload.clone().unwrap();
    let mean = w.item_size.mean_bytes();
    assert!((100.0..200.0).contains(&mean), "{mean}");
    h.get_by_label_contains("B over 6 items");
    // Unticked, the size is a number again (the measured mean, rounded), and typed sizes win.
    h.get_by_label("Measured").click();
    h.run();
    settle(&mut h);
    let w = h.state().report().unwrap().workload.clone().unwrap();
    assert_eq!(
        w.item_size,
        shardlens::model::capacity::ItemSize::Bytes(mean.round() as u64)
    );
    // The inspector: the hot key's items and their bytes.
    h.get_by_label_contains("% of bucket  USER#1").click();
    h.run();
    h.get_by_label_contains("(JSON bytes, an estimate)");
}

/// Runs frames until `cond` holds (or a time limit passes), then lets the computation settle.
fn wait_for(h: &mut Harness<'_, App>, cond: impl Fn(&App) -> bool) {
    for _ in 0..500 {
        h.run();
        if cond(h.state()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    settle(h);
}

#[test]
fn a_model_with_several_tables_asks_which_one_to_show() {
    let mut h = harness();
    open_fixture(&mut h, "shapes/workbench-facets.json", |app| {
        app.table_picker.is_some()
    });
    settle(&mut h);
    // The first table (its items are in facets), never the two merged.
    assert_eq!(h.state().key_set().unwrap().total(), 4);
    h.get_by_label_contains("holds 2 tables; their keys are never merged. Showing: Players.");
    let status = h.state().notices.last().unwrap().text.clone();
    assert!(
        status.contains("read as NoSQL Workbench model, table \"Players\""),
        "{status}"
    );
    h.get_by_label("Scores").click();
    wait_for(&mut h, |app| {
        app.table_picker
            .as_ref()
            .is_some_and(|p| p.loaded.as_deref() == Some("Scores"))
    });
    let keys = h.state().key_set().unwrap();
    assert_eq!((keys.total(), keys.len()), (3, 2));
    h.get_by_label_contains("Showing: Scores.");
    h.get_by_label("Keep this table").click();
    h.run();
    assert!(h.state().table_picker.is_none());
    assert_eq!(h.state().key_set().unwrap().total(), 3);
}

#[test]
fn every_json_shape_opens_in_the_app() {
    for (name, total) in [
        ("shapes/array-typed.json", 6),
        ("shapes/plain.jsonl", 6),
        ("shapes/put-items.txt", 6),
        ("shapes/scan-plain.json", 6),
        ("shapes/batch-write.json", 4),
        ("shapes/get-item.json", 2),
    ] {
        let mut h = harness();
        open_fixture(&mut h, name, |app| {
            app.notices.iter().any(|n| n.text.starts_with("loaded "))
        });
        settle(&mut h);
        let status = h.state().notices.last().unwrap().text.clone();
        assert!(status.contains("read as "), "{name}: {status}");
        assert_eq!(h.state().key_set().unwrap().total(), total, "{name}");
    }
}
