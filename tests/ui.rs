//! The real app, driven through AccessKit labels with egui_kittest (no display needed).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use egui::accesskit::Role;
use egui_kittest::Harness;
#[path = "support/kittest.rs"]
mod kittest;
#[path = "support/cli.rs"]
mod support;
use egui_kittest::kittest::Queryable as _;
use kittest::{Settle as _, harness, step_until};
use shardlens::app::{App, Command, Keys, UICommand};
use shardlens::model::decision::Leaf;
use shardlens::model::examples::keys::KeyExample;

fn hottest_share(h: &Harness<'_, App>) -> f64 {
    h.state()
        .report()
        .unwrap()
        .analysis
        .skew
        .hottest_bucket_share
}

#[test]
fn opens_on_the_leaderboard_with_a_hot_bucket_and_the_leaf() {
    let h = harness();
    let app = h.state();
    assert!(matches!(app.keys(), Keys::Text(_)));
    assert!(hottest_share(&h) > 0.6, "a visibly hot bucket");
    assert_eq!(app.path().as_ref().unwrap().leaf, Some(Leaf::ShardOrCache));
    h.get_by_label("Recommendation: Shard the key or cache the reads");
    h.get_by_label_contains("teaching hash (xxh3)");
    h.get_by_label("1,000 writes · 41 distinct keys");
}

#[test]
fn typing_keys_updates_the_count_and_the_buckets() {
    let mut h = harness();
    // Empty the editor, then type.
    h.state_mut().set_text(String::new());
    h.settle();
    let editor = h.get_by_label(
        "Keys (one per line; a repeated line is a repeated write; pk<TAB>sk adds a sort key)",
    );
    editor.focus();
    editor.type_text("a\nb\na\nc\n");
    h.settle();
    h.get_by_label("4 writes · 3 distinct keys");
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
    h.settle();
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
    for s in KeyExample::ALL {
        h.get_by_label("Examples").click();
        h.settle();
        h.get_by_label(s.title()).click();
        h.settle();
        let leaf = h.state().path().as_ref().unwrap().leaf;
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
    h.settle();
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
    h.settle();
    assert_eq!(h.state().path().as_ref().unwrap().leaf, None);
    h.get_by_label("Recommendation: answer the open question");
    h.get_by_label("No, many items").click();
    h.settle();
    assert_eq!(
        h.state().path().as_ref().unwrap().leaf,
        Some(Leaf::ItemCollection)
    );
    h.get_by_label("Yes, one item").click();
    h.settle();
    assert_eq!(
        h.state().path().as_ref().unwrap().leaf,
        Some(Leaf::ShardOrCache)
    );
    // The one-click fix turns sharding on.
    h.get_by_label("Turn on sharding for the hot key").click();
    h.settle();
    assert!(h.state().settings().shard_enabled);
    assert!(hottest_share(&h) < 0.5);
}

#[test]
fn invalid_input_keeps_the_previous_data_and_says_why() {
    let mut h = harness();
    h.state_mut().set_text("1\n2\n2\n".to_owned());
    h.settle();
    h.get_by_label("N").click();
    h.settle();
    assert_eq!(h.state().settings().key_type, shardlens::model::KeyType::N);
    let before = h.state().report().unwrap().analysis.total;
    // A line that is not a number, typed while the keys are numbers.
    h.state_mut().set_text("1\n2\n2\nabc\n".to_owned());
    h.settle();
    let app = h.state();
    assert!(
        app.input_error().unwrap().starts_with("line 4:"),
        "{:?}",
        app.input_error()
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
    h.settle();
    let app = h.state();
    assert!(
        matches!(app.keys(), Keys::Data(_)),
        "held as data, not as a 60,000-line text"
    );
    let report = app.report().unwrap();
    assert_eq!(report.analysis.total, 60_000);
    assert_eq!(report.analysis.buckets.len(), 12);
    h.get_by_label("60,000 writes · 5,000 distinct keys");
    h.get_by_label("Filter");
}

/// Opens `bytes` as a session named `name` and checks it fails with a message starting `says`, leaving the
/// keys as they were.
fn session_fails(h: &mut Harness<'_, App>, bytes: &[u8], name: &str, says: &str) {
    let before = h.state().report().unwrap().analysis.total;
    h.state_mut().open_session(bytes, name);
    h.settle();
    let app = h.state();
    let notice = app.notices().last().unwrap();
    assert!(notice.error());
    assert!(notice.text.starts_with(says), "{}", notice.text);
    assert_eq!(app.report().unwrap().analysis.total, before);
}

#[test]
fn a_malformed_session_is_a_clear_error_and_changes_nothing() {
    let mut h = harness();
    session_fails(
        &mut h,
        b"{\"format\":\"shardlens-session\",\"version\":1",
        "broken.json",
        "cannot open session broken.json: not a shardlens session",
    );
    // A key list with a key that is not of the session's type names the key; nothing changes either.
    session_fails(
        &mut h,
        br#"{"format":"shardlens-session","version":1,"settings":{"key_type":"N","buckets":3},
            "keys":[["1",2],["two",1]]}"#,
        "typed.json",
        "cannot open session typed.json: key 2: ",
    );
    let app = h.state();
    assert_ne!(
        app.settings().buckets,
        3,
        "the session's settings are not applied"
    );
    // A good session round-trips keys and settings.
    let mut saved = h.state().session();
    saved.settings.buckets = 5;
    let json = saved.to_json().unwrap();
    h.state_mut().open_session(json.as_bytes(), "good.json");
    h.settle();
    assert_eq!(h.state().report().unwrap().analysis.buckets.len(), 5);
}

/// The rectangle of the chart's plot (the widget AccessKit names after the y axis label).
fn plot_width(h: &Harness<'_, App>) -> f32 {
    let rect = h.state().chart_rect().expect("a chart on screen");
    rect.width()
}

#[test]
fn presentation_mode_makes_the_chart_the_hero_and_round_trips() {
    for size in [[1024.0, 768.0], [1280.0, 800.0], [1600.0, 1000.0]] {
        let mut h = kittest::harness_at(size);
        let normal_body = h.ctx.global_style().text_styles[&egui::TextStyle::Body].size;
        h.state_mut()
            .apply(Command::Ui(UICommand::TogglePresentation));
        h.settle();
        h.settle();
        assert!(h.state().settings().presentation);
        let width = plot_width(&h);
        assert!(
            width >= size[0] / 2.0,
            "at {size:?} the chart is {width} px wide, under half the window"
        );
        // Text readable from the back of a room: nothing under 18 px.
        let style = h.ctx.global_style();
        let smallest = style
            .text_styles
            .values()
            .map(|f| f.size)
            .fold(f32::INFINITY, f32::min);
        assert!(smallest >= 18.0, "smallest text {smallest} px");
        // The path and its leaf are on screen beside the chart.
        h.get_by_label("Shard the key or cache the reads");
        // And back: the normal sizes and both side panels.
        h.state_mut()
            .apply(Command::Ui(UICommand::TogglePresentation));
        h.settle();
        h.settle();
        assert_eq!(
            h.ctx.global_style().text_styles[&egui::TextStyle::Body].size,
            normal_body
        );
        h.get_by_label("Decision tree");
        h.get_by_label("Recommendation: Shard the key or cache the reads");
    }
}

#[test]
fn emoji_keys_render_real_glyphs() {
    // kittest panics on a missing glyph, so drawing these keys proves the fonts cover them.
    let mut h = harness();
    h.state_mut()
        .set_text("🔥hot\n🔥hot\n🎮game\nüñî\n".to_owned());
    h.settle();
    h.get_by_label("4 writes · 3 distinct keys");
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
    let good = temp_file("ui-open.txt", "x\ny\nx\n");
    let mut h = harness();
    h.state_mut().open_path(good.clone());
    h.wait_for("the file to load", |app| {
        app.report().is_some_and(|r| r.analysis.total == 3)
    });
    assert_eq!(h.state().report().unwrap().analysis.total, 3);
    h.get_by_label("3 writes · 2 distinct keys");
    // A missing file: an error that names it, and the keys stay.
    let missing = good.with_file_name("no-such-file.txt");
    h.state_mut().open_path(missing);
    h.wait_for("the load error", |app| {
        app.notices()
            .last()
            .is_some_and(shardlens::app::notices::Notice::error)
    });
    let notice = h.state().notices().last().unwrap();
    assert!(
        notice.error() && notice.text.contains("no-such-file.txt"),
        "{}",
        notice.text
    );
    assert_eq!(h.state().report().unwrap().analysis.total, 3);
}

#[test]
fn ctrl_v_outside_the_editor_pastes_keys_into_it() {
    let mut h = harness();
    h.state_mut().set_text("a\n".to_owned());
    h.settle();
    h.event(egui::Event::Paste("b\nc".to_owned()));
    h.settle();
    h.get_by_label("3 writes · 3 distinct keys");
}

/// Opens a fixture in the app and runs frames until `loaded` holds (or a time limit passes).
fn open_fixture(h: &mut Harness<'_, App>, name: &str, loaded: impl Fn(&App) -> bool) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    h.state_mut().open_path(path);
    h.wait_for(name, loaded);
}

#[test]
fn an_s3_export_folder_shows_its_data_files() {
    let mut h = harness();
    open_fixture(&mut h, "export", |app| app.groups().is_some());
    let groups = h.state().groups().expect("per data file groups").to_vec();
    assert!(groups.len() >= 2, "{groups:?}");
    let items: u64 = groups.iter().map(|g| g.items).sum();
    h.settle();
    assert_eq!(h.state().report().unwrap().analysis.total, items);
    h.get_by_label("By export data file").click();
    h.settle();
    assert_eq!(
        h.state().chart_mode(),
        shardlens::app::settings::ChartMode::DataFiles
    );
    h.get_by_label_contains("real grouping of this S3 export");
    // The key list counts items, not writes.
    h.get_by_label_contains("keys shown, most items first");
}

#[test]
fn modelling_capacity_shows_partitions_over_their_limit() {
    let mut h = harness();
    h.get_by_label("Model capacity").click();
    h.settle();
    // The default workload: 2,000 writes/s of 1 KB items on a new on-demand table (4 partitions): the table
    // at half its capacity while one partition is over its limit.
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
    assert!(
        capacity.table_util() < 0.9,
        "the table has room: {}",
        capacity.headline()
    );
    h.get_by_label_contains("hottest partition at");
    h.get_by_label_contains("% of partition capacity");
    // Fewer writes: nothing over the limit.
    h.get_by_role_and_label(Role::SpinButton, "Writes/s")
        .set_value_accesskit(100.0);
    h.settle();
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
        .apply(Command::LoadExample(KeyExample::Tournament));
    h.settle();
    // The hottest bucket is shown first; its top key is the hot arena.
    let row = h.get_by_label_contains("% of bucket  ARENA#7f3a");
    row.click();
    h.settle();
    h.get_by_label_contains(
        "written in only-increasing sort-key order: split-for-heat cannot split this collection",
    );
}

#[test]
fn the_connect_dialog_reports_a_bad_endpoint_before_any_request() {
    let mut h = harness();
    h.get_by_label("File").click();
    h.settle();
    assert!(
        h.query_by_label_contains("Open keys…").is_some(),
        "the File menu is open"
    );
    h.get_by_label("Connect to DynamoDB…").click();
    h.settle();
    assert!(
        h.query_by_label_contains("Open keys…").is_none(),
        "the menu closed"
    );
    let endpoint = h.get_by_role_and_label(Role::TextInput, "Endpoint");
    endpoint.focus();
    endpoint.type_text("not a url");
    h.settle();
    h.get_by_label("List tables").click();
    step_until(&mut h, "the endpoint error", |h| {
        h.query_by_label_contains("the endpoint is not a URL")
            .is_some()
    });
}

#[test]
fn a_keys_item_collection_shows_the_run_a_query_reads() {
    let mut h = harness();
    h.state_mut()
        .set_text("HOT\tEVT#3\nHOT\tEVT#1\nHOT\tORDER#1\nHOT\tEVT#2\nx\ty\n".to_owned());
    h.settle();
    h.get_by_label_contains("% of bucket  HOT").click();
    h.settle();
    h.get_by_label_contains("Item collection: 4 items in sort-key order");
    let field = h.get_by_role_and_label(Role::TextInput, "begins_with");
    field.focus();
    field.type_text("EVT#");
    h.settle();
    h.get_by_label_contains("The Query reads items 0–2 (3 items, one contiguous run)");
}

#[test]
fn item_sizes_from_an_export_drive_the_workload_and_the_inspector() {
    let mut h = harness();
    open_fixture(&mut h, "items.json", |app| {
        app.report().is_some_and(|r| r.analysis.total == 6)
    });
    h.settle();
    h.get_by_label("Model capacity").click();
    h.settle();
    h.settle();
    // "Measured" is on by default: the report's item size is the items' own.
    let w = h.state().report().unwrap().workload.clone().unwrap();
    let mean = w.item_size.mean_bytes();
    assert!((mean - 45.0).abs() < 1e-9, "{mean}"); // six items of 42 and 48 bytes by DynamoDB's rules
    h.get_by_label_contains("B over 6 items");
    // Unticked, the size is a number again (the measured mean, rounded), and typed sizes win.
    h.get_by_label("Measured").click();
    h.settle();
    h.settle();
    let w = h.state().report().unwrap().workload.clone().unwrap();
    assert_eq!(
        w.item_size,
        shardlens::model::capacity::ItemSize::Bytes(mean.round() as u64)
    );
    // The inspector: the hot key's items and their bytes.
    h.get_by_label_contains("% of bucket  USER#1").click();
    h.settle();
    h.get_by_label_contains("(by DynamoDB's item size rules)");
}

/// Runs frames until the newest notice is an error.
fn wait_for_error(h: &mut Harness<'_, App>) {
    h.wait_for("an error notice", |a| {
        a.notices()
            .last()
            .is_some_and(shardlens::app::notices::Notice::error)
    });
}

/// Writes `text` to a file named `name` (with this process's id before the extension) in the test's temporary
/// folder, and returns its path.
fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    // In a folder of this test process's own, which a later run removes (files named by process piled up).
    let (stem, _) = name.rsplit_once('.').unwrap_or((name, "txt"));
    let path = support::temp_dir("ui", stem.trim_start_matches("ui-")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn red_bars(app: &App) -> usize {
    use shardlens::model::heat::Heat;
    let report = app.report().unwrap();
    report.heat.iter().filter(|h| h.heat == Heat::Hot).count()
}

#[test]
fn after_the_one_click_fix_no_bar_is_red_and_the_tree_agrees() {
    let mut h = harness();
    assert_eq!(red_bars(h.state()), 1, "the celebrity's bucket is red");
    h.get_by_label("Turn on sharding for the hot key").click();
    h.settle();
    h.settle();
    assert!(h.state().settings().shard_enabled);
    assert_eq!(red_bars(h.state()), 0, "after the fix nothing is red");
    let path = h.state().path().unwrap().clone();
    assert_ne!(path.leaf, Some(Leaf::ShardOrCache), "{path:?}");
    assert_ne!(path.leaf, Some(Leaf::WriteShardPrefix), "{path:?}");
    // The healthy example has no warning colour at all.
    h.state_mut()
        .apply(Command::LoadExample(KeyExample::Healthy));
    h.settle();
    assert_eq!(red_bars(h.state()), 0);
}

#[test]
fn three_keys_get_a_caveat_instead_of_advice() {
    let mut h = harness();
    h.state_mut().set_text("a\nb\na\n".to_owned());
    h.settle();
    h.get_by_label("Too few writes to judge");
    let path = h.state().path().unwrap().clone();
    assert!(path.caveat.is_some());
    assert_eq!(path.action, None);
    assert!(
        h.query_by_label("Turn on sharding for the hot key")
            .is_none()
    );
    assert_eq!(red_bars(h.state()), 0);
}

#[test]
fn an_empty_file_keeps_the_previous_keys_and_undo_brings_keys_back() {
    let empty = temp_file("ui-empty.txt", "");
    let mut h = harness();
    h.state_mut().set_text("mine\nmine\nyours\n".to_owned());
    h.settle();
    h.state_mut().open_path(empty.clone());
    h.wait_for("the background work", |a| {
        a.notices()
            .last()
            .is_some_and(|n| n.text.contains("has no keys"))
    });
    assert_eq!(h.state().report().unwrap().analysis.total, 3);
    assert!(
        h.state()
            .notices()
            .last()
            .unwrap()
            .text
            .contains("the previous keys stay")
    );
    h.get_by_label("3 writes · 2 distinct keys");
    // An example replaces the keys, says so, and Ctrl+Z brings them back.
    h.state_mut()
        .apply(Command::LoadExample(KeyExample::StatusFlag));
    h.settle();
    assert!(h.state().notices().last().unwrap().text.contains("Ctrl+Z"));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    h.settle();
    h.settle();
    h.get_by_label("3 writes · 2 distinct keys");
    std::fs::remove_file(empty).ok();
}

#[test]
fn a_bad_file_at_start_shows_its_error_not_an_example() {
    let bad = temp_file(
        "ui-bad.json",
        "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n{\"Item\":\n",
    );
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    h.state_mut().open_at_start(bad.clone());
    wait_for_error(&mut h);
    assert!(!matches!(
        h.state().source(),
        shardlens::source::Source::Example(_)
    ));
    assert_eq!(h.state().report().map_or(0, |r| r.analysis.total), 0);
    // In the chart's place and on the status line.
    assert_eq!(h.query_all_by_label_contains("could not load").count(), 2);
    std::fs::remove_file(bad).ok();
}

/// A load's hint names the window's control, not the command line's flag: items without a guessable key say
/// where to set the key attribute, and setting it there and reloading (Ctrl+R) loads the file.
#[test]
fn a_key_that_cannot_be_guessed_points_to_load_options() {
    use shardlens::app::command::Command;
    let file = temp_file(
        "ui-nokey.json",
        "{\"Item\":{\"user\":{\"S\":\"u1\"},\"at\":{\"S\":\"t\"}}}\n{\"Item\":{\"user\":{\"S\":\"u2\"},\"at\":{\"S\":\"t\"}}}\n",
    );
    let mut h = harness();
    h.state_mut().open_path(file.clone());
    wait_for_error(&mut h);
    let said = h.state().notices().last().unwrap().text.clone();
    assert!(
        said.contains("the first item has user, at")
            && said.contains("set Key attribute in File > Load options and reload (Ctrl+R)")
            && !said.contains("--key"),
        "{said}"
    );
    // As the message says: File > Load options, type the attribute (the menu stays open while its field is
    // clicked and typed into), and reload from there.
    h.get_by_label("File").click();
    h.settle();
    h.get_by_label("Load options").hover();
    h.settle();
    h.settle();
    h.get_by_label("Key attribute").click();
    h.settle();
    h.get_by_label("Key attribute").type_text("user");
    h.settle();
    assert_eq!(h.state().load_options().key.as_deref(), Some("user"));
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    h.get_by_label(&format!("Reload {name} with these options"))
        .click();
    h.wait_for("the background work", |a| {
        a.report().is_some_and(|r| r.analysis.total == 2)
    });
    assert!(h.state().notices().last().is_some_and(|n| !n.error()));
    // Ctrl+R reads it again with other options: an attribute no item has is an error, and the keys stay.
    h.state_mut().apply(Command::SetLoadOptions(Box::new(
        shardlens::source::LoadOptions {
            key: Some("nope".to_owned()),
            ..Default::default()
        },
    )));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::R);
    wait_for_error(&mut h);
    let said = h.state().notices().last().unwrap().text.clone();
    assert!(
        said.contains("\"nope\"") && !said.contains("--key"),
        "{said}"
    );
    assert_eq!(h.state().report().map(|r| r.analysis.total), Some(2));
    std::fs::remove_file(file).ok();
}

#[test]
fn switching_to_number_keys_with_a_word_keeps_string_keys_and_says_why() {
    let mut h = harness();
    h.state_mut().set_text("1\n2\nabc\n".to_owned());
    h.settle();
    h.get_by_label("N").click();
    h.settle();
    h.settle();
    let app = h.state();
    assert_eq!(app.settings().key_type, shardlens::model::KeyType::S);
    let notice = app.notices().last().unwrap();
    assert!(
        notice.error() && notice.text.contains("cannot read these keys as N keys"),
        "{}",
        notice.text
    );
}

#[test]
fn with_no_file_dialog_the_path_field_opens_a_typed_path() {
    let file = temp_file("ui-path-field.txt", "p\nq\np\np\n");
    let mut h = harness();
    // As when no portal and no zenity exist (tests/desktop.sh checks that detection on a real desktop).
    h.state_mut().set_native_dialogs(false);
    h.state_mut().apply(Command::Ui(UICommand::OpenFile));
    h.wait_for("the path field", |app| app.dialogs().path_field_open());
    h.settle();
    assert_eq!(h.state().dialogs().path_field_title(), Some("Open keys"));
    let field = h.get_by_label("Path");
    assert!(field.is_focused(), "the path field takes the keyboard");
    assert!(
        field.value().is_some_and(|v| v.ends_with('/')),
        "starts in the current folder: {:?}",
        field.value()
    );
    // A missing file: said in the window, which stays open.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path").type_text("/no/such/dir/keys.txt");
    h.settle();
    h.get_by_label("Open").click();
    step_until(&mut h, "the missing file's message", |h| {
        h.query_by_label("no such file or folder: /no/such/dir/keys.txt")
            .is_some()
    });
    h.get_by_label("no such file or folder: /no/such/dir/keys.txt");
    assert!(h.state().dialogs().path_field_open());
    // The real file, confirmed with Enter: the window closes and the file loads.
    h.get_by_label("Path").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&file.display().to_string());
    h.settle();
    h.key_press(egui::Key::Enter);
    h.wait_for("the typed file to load", |app| {
        app.report().is_some_and(|r| r.analysis.total == 4)
    });
    assert!(!h.state().dialogs().path_field_open());
    h.get_by_label("4 writes · 2 distinct keys");
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(h.state().title(), format!("shardlens — {name} · 4 writes"));
    std::fs::remove_file(&file).ok();
}

#[test]
fn ctrl_k_shards_and_ctrl_shift_c_copies_the_key_conditions() {
    let copy_keys = egui::Modifiers::COMMAND | egui::Modifiers::SHIFT;
    let mut h = harness();
    // Sharding off: nothing to copy, and the notice says how to turn it on.
    h.key_press_modifiers(copy_keys, egui::Key::C);
    h.settle();
    let notice = h.state().notices().last().unwrap().text.clone();
    assert!(
        notice.contains("turn on \"Shard hot keys\" (Ctrl+K)"),
        "{notice}"
    );
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.settle();
    assert!(h.state().settings().shard_enabled);
    h.get_by_label("Copy key conditions");
    // One frame with the press, so its output holds what that frame copied (`key_press_modifiers` spreads a
    // press over several frames, and the harness keeps the last one's output).
    let events = &mut h.input_mut().events;
    events.push(egui::Event::ModifiersChanged(copy_keys));
    events.push(egui::Event::Key {
        key: egui::Key::C,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: copy_keys,
    });
    events.push(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    h.step();
    let copied: Vec<String> = h
        .output()
        .platform_output
        .commands
        .iter()
        .filter_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    let expected: Vec<String> = (0..10)
        .map(|i| {
            format!(
                "aws dynamodb query --table-name TABLE --key-condition-expression '#pk = :pk' \
                 --expression-attribute-names '{{\"#pk\":\"pk\"}}' \
                 --expression-attribute-values '{{\":pk\":{{\"S\":\"BOARD#global#{i}\"}}}}'"
            )
        })
        .collect();
    assert_eq!(copied, vec![expected.join("\n")]);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::K);
    h.settle();
    assert!(!h.state().settings().shard_enabled);
}

#[test]
fn a_model_with_several_tables_asks_which_one_to_show() {
    let mut h = harness();
    open_fixture(&mut h, "shapes/workbench-facets.json", |app| {
        app.table_picker().is_some()
    });
    h.settle();
    // The first table (its items are in facets), never the two merged.
    assert_eq!(h.state().key_set().unwrap().total(), 4);
    h.get_by_label_contains("holds 2 tables; their keys are never merged. Showing: Players.");
    let status = h.state().notices().last().unwrap().text.clone();
    assert!(
        status.contains("read as NoSQL Workbench model, table \"Players\""),
        "{status}"
    );
    h.get_by_label("Scores").click();
    h.wait_for("the background work", |app| {
        app.table_picker()
            .as_ref()
            .is_some_and(|p| p.loaded.as_deref() == Some("Scores"))
    });
    let keys = h.state().key_set().unwrap();
    assert_eq!((keys.total(), keys.len()), (3, 2));
    h.get_by_label_contains("Showing: Scores.");
    h.get_by_label("Keep this table").click();
    h.settle();
    assert!(h.state().table_picker().is_none());
    assert_eq!(h.state().key_set().unwrap().total(), 3);
    // File > Reload reads the table on screen again, not the first one.
    let before = h.state().notices().history().count();
    h.key_press(egui::Key::F5);
    h.wait_for("the background work", |app| {
        app.notices().history().count() > before
    });
    let status = h.state().notices().last().unwrap().text.clone();
    assert!(status.contains("table \"Scores\""), "{status}");
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
            app.notices()
                .history()
                .any(|n| n.text.starts_with("loaded "))
        });
        h.settle();
        let status = h.state().notices().last().unwrap().text.clone();
        assert!(status.contains("read as "), "{name}: {status}");
        assert_eq!(h.state().key_set().unwrap().total(), total, "{name}");
    }
}

#[test]
fn a_good_file_at_start_is_the_first_thing_undo_keeps() {
    let good = temp_file("ui-start.txt", "a\nb\na\n");
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    h.state_mut().open_at_start(good.clone());
    h.wait_for("the background work", |a| {
        a.report().is_some_and(|r| r.analysis.total == 3)
    });
    // The inspector's queries may still be running (a spinner): wait until nothing is, or `run` would not
    // settle within its steps on a busy machine.
    h.settle();
    // Undo has nothing to bring back: not the empty start, not the example.
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.settle();
    assert_eq!(h.state().report().unwrap().analysis.total, 3);
    assert_eq!(h.state().notices().last().unwrap().text, "nothing to undo");
    std::fs::remove_file(good).ok();
}

/// A session file opened as a file (a path on the command line, File > Open, a drop) opens as a session, not
/// as items whose key attribute cannot be told.
#[test]
fn a_session_opened_as_a_file_opens_as_a_session() {
    let path = temp_file(
        "ui-session.json",
        r#"{"format":"shardlens-session","version":1,"settings":{"key_type":"N","buckets":6},
            "keys":[["1.50",3],["01.5",2],["7",1]]}"#,
    );
    let mut h = harness();
    h.state_mut().open_path(path.clone());
    h.wait_for("the background work", |app| {
        app.notices()
            .last()
            .is_some_and(|n| n.text.starts_with("opened session"))
    });
    h.settle();
    let report = h.state().report().unwrap();
    assert_eq!(report.analysis.total, 6);
    assert_eq!(
        report.analysis.buckets.len(),
        6,
        "the session's settings apply"
    );
    h.get_by_label_contains("· 2 distinct keys");
    let _ = std::fs::remove_file(path);
}

/// The editor's text, or the keys' count when they are held as data.
fn editor_text(app: &App) -> String {
    match app.keys() {
        Keys::Text(t) => t.clone(),
        Keys::Data(k) => format!("<{} keys as data>", k.len()),
    }
}

#[test]
fn undo_after_use_as_key_on_pasted_keys_brings_the_pasted_keys_and_their_key_back() {
    let mut h = harness();
    let pasted: String = (0..40)
        .map(|i| format!("CUST#{:03}#order\n", i % 8))
        .collect();
    // Click the editor, select all, paste (egui's TextEdit takes the paste).
    let editor = h.get_by_label(
        "Keys (one per line; a repeated line is a repeated write; pk<TAB>sk adds a sort key)",
    );
    editor.focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.event(egui::Event::Paste(pasted.clone()));
    h.wait_for("the pasted keys", |a| {
        a.report().is_some_and(|r| r.analysis.total == 40)
    });
    assert_eq!(editor_text(h.state()), pasted);
    // Key design: a candidate, then Use as key.
    h.state_mut().apply(Command::SetChart(
        shardlens::app::settings::ChartMode::Designs,
    ));
    h.state_mut()
        .apply(Command::EditDesign(0, "{pk:first 6}".to_owned()));
    h.wait_for("the candidate's row", |a| {
        a.design().shown.as_ref().is_some_and(|s| s.rows.len() == 2)
    });
    h.state_mut().apply(Command::UseDesign(0));
    h.wait_for("the re-keyed keys", |a| {
        a.report().is_some_and(|r| r.analysis.distinct == 1)
    });
    assert_eq!(h.state().design().current, "{pk:first 6}");
    // Edit > Undo is there, and brings back exactly the pasted keys, keyed by {pk}.
    assert_eq!(h.state().undo_label().as_deref(), Some("pasted keys"));
    h.get_by_label("Edit").click();
    h.settle();
    h.get_by_label_contains("Undo").click();
    h.wait_for("the pasted keys back", |a| {
        a.report().is_some_and(|r| r.analysis.distinct == 8)
    });
    assert_eq!(editor_text(h.state()), pasted);
    assert_eq!(h.state().design().current, "{pk}");
    // One more undo: the example the paste replaced, as it was.
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.settle();
    assert_eq!(
        editor_text(h.state()),
        shardlens::model::examples::keys::KeyExample::Leaderboard.text()
    );
    h.get_by_label("1,000 writes · 41 distinct keys");
}

#[test]
fn the_first_paste_replaces_the_example_and_undo_brings_it_back() {
    let mut h = harness();
    // Ctrl+V with no text field focused.
    h.event(egui::Event::Paste("a\nb\nc\n".to_owned()));
    h.wait_for("the pasted keys", |a| {
        a.report().is_some_and(|r| r.analysis.total == 3)
    });
    h.get_by_label("3 writes · 3 distinct keys");
    assert_eq!(editor_text(h.state()), "a\nb\nc\n");
    // A second paste adds to the user's own keys.
    h.event(egui::Event::Paste("d".to_owned()));
    h.wait_for("the second paste", |a| {
        a.report().is_some_and(|r| r.analysis.total == 4)
    });
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.wait_for("the first paste back", |a| {
        a.report().is_some_and(|r| r.analysis.total == 3)
    });
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.settle();
    h.get_by_label("1,000 writes · 41 distinct keys");
}

#[test]
fn typing_is_one_undo_step_and_wins_over_a_large_paste_still_being_read() {
    let mut h = harness();
    h.state_mut().set_text("x\n".to_owned());
    h.settle();
    let editor = h.get_by_label(
        "Keys (one per line; a repeated line is a repeated write; pk<TAB>sk adds a sort key)",
    );
    editor.focus();
    h.key_press(egui::Key::End);
    h.get_by_label(
        "Keys (one per line; a repeated line is a repeated write; pk<TAB>sk adds a sort key)",
    )
    .type_text("y\nz\n");
    h.wait_for("the typed keys", |a| {
        a.report().is_some_and(|r| r.analysis.total == 3)
    });
    // All the typing is one step: undo goes back to "x".
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.wait_for("the keys before typing", |a| {
        a.report().is_some_and(|r| r.analysis.total == 1)
    });
    assert_eq!(editor_text(h.state()), "x\n");
    // A paste too large for the editor is read on the worker; typing before it lands drops it.
    let big: String = (0..300_000).map(|i| format!("k{i}\n")).collect();
    h.state_mut().paste(&big);
    h.state_mut().apply(Command::EditText("typed\n".to_owned()));
    h.settle();
    assert_eq!(editor_text(h.state()), "typed\n");
    assert_eq!(h.state().report().unwrap().analysis.total, 1);
    let notice = h.state().notices().last().unwrap().text.clone();
    assert!(
        notice.contains("paste still being read was dropped"),
        "{notice}"
    );
}

/// A bar's tooltip is on screen (its last line; the inspector's line about a bucket starts with "bucket").
fn tooltip_shown(h: &Harness<'_, App>) -> bool {
    h.query_all_by(|n| {
        n.label()
            .or_else(|| n.value())
            .is_some_and(|l| l.starts_with("hash range 0x"))
    })
    .next()
    .is_some()
}

/// Moves the pointer over the chart until a bar's tooltip shows ("hash range …"); returns where.
fn hover_a_bar(h: &mut Harness<'_, App>) -> egui::Pos2 {
    let chart = h.state().chart_rect().unwrap();
    for step in 1..40 {
        let at = egui::pos2(
            chart.left() + chart.width() * step as f32 / 40.0,
            chart.bottom() - chart.height() * 0.3,
        );
        h.event(egui::Event::PointerMoved(at));
        h.settle();
        if tooltip_shown(h) {
            return at;
        }
    }
    panic!("no bar's tooltip anywhere over {chart:?}");
}

#[test]
fn the_bucket_tooltip_never_covers_an_open_menu_and_goes_with_the_pointer() {
    let mut h = harness();
    let at = hover_a_bar(&mut h);
    // The pointer leaves the window: the tooltip goes.
    h.event(egui::Event::PointerGone);
    h.settle();
    assert!(!tooltip_shown(&h));
    // A menu is open and the pointer passes over the chart: no tooltip over the menu.
    h.get_by_label("Examples").click();
    h.settle();
    h.event(egui::Event::PointerMoved(at));
    h.settle();
    assert!(
        !tooltip_shown(&h),
        "a tooltip drew while the Examples menu was open"
    );
    h.get_by_label_contains("Over time");
}

#[test]
fn a_few_items_from_a_file_are_called_items_and_the_legend_says_too_few_to_judge() {
    let mut h = harness();
    open_fixture(&mut h, "items.json", |app| {
        app.report().is_some_and(|r| r.analysis.total == 6)
    });
    h.settle();
    h.get_by_label("Too few items to judge");
    h.get_by_label("too few items to judge the spread");
    assert!(
        h.query_by_label("even").is_none(),
        "blue is not called even"
    );
    assert!(h.query_by_label_contains("Too few writes").is_none());
    // Pasted lines are writes.
    h.state_mut().set_text("a\nb\na\n".to_owned());
    h.settle();
    h.get_by_label("Too few writes to judge");
    h.get_by_label("too few writes to judge the spread");
}

#[test]
fn a_file_loading_at_start_shows_its_name_and_progress_not_an_error() {
    // A named pipe: the load waits for its writer, so the window can be looked at mid-load.
    let dir = support::temp_dir("ui", "loading");
    let fifo = dir.join("keys-fifo.txt");
    std::fs::remove_file(&fifo).ok();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut h = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    h.state_mut().open_at_start(fifo.clone());
    step_until(&mut h, "the loading view", |h| {
        h.query_by_label("Loading…").is_some()
    });
    // The file's name and what is done, in the chart's place and the status bar; no path, no error.
    assert!(h.query_all_by_label_contains("keys-fifo.txt: ").count() >= 1);
    assert!(h.query_by_label_contains("loading /").is_none());
    assert!(h.query_by_label_contains("could not load").is_none());
    std::fs::write(&fifo, "a\nb\na\n").unwrap();
    h.wait_for("the keys", |a| {
        a.report().is_some_and(|r| r.analysis.total == 3)
    });
    h.get_by_label("3 writes · 2 distinct keys");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_no_file_dialog_warning_goes_once_a_typed_path_worked() {
    // No session bus and no zenity here (as in CI): the native dialog is probed, cannot open, and the path
    // field takes its place with a warning whose detail (the bus error, what to install) is in Messages.
    let zenity = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("zenity").is_file()));
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() || zenity {
        eprintln!("skipped: this machine has a desktop that could open a real file dialog");
        return;
    }
    let file = temp_file("ui-no-dialog.txt", "m\nn\nm\n");
    let mut h = harness();
    h.state_mut().set_native_dialogs(true);
    h.state_mut().apply(Command::Ui(UICommand::OpenFile));
    h.wait_for("the path field", |app| app.dialogs().path_field_open());
    let warning = h.state().notices().last().unwrap().clone();
    assert!(
        warning
            .text
            .starts_with("No file dialog could open for Open keys"),
        "{}",
        warning.text
    );
    assert!(warning.detail.is_some(), "the reason is the detail");
    h.get_by_label_contains("No file dialog could open for Open keys");
    h.get_by_label("Path").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&file.display().to_string());
    h.settle();
    h.key_press(egui::Key::Enter);
    h.wait_for("the typed file to load", |app| {
        app.report().is_some_and(|r| r.analysis.total == 3)
    });
    assert!(
        h.query_by_label_contains("No file dialog could open")
            .is_none(),
        "the warning went with the path that worked"
    );
    std::fs::remove_file(&file).ok();
}

#[test]
fn undo_after_a_file_brings_back_the_key_type_of_the_keys_before() {
    let mut h = harness();
    h.state_mut().set_text("a\nb\nb\n".to_owned());
    h.settle();
    assert_eq!(h.state().settings().key_type, shardlens::model::KeyType::S);
    // A typed export of number keys brings its own key type.
    open_fixture(&mut h, "numbers.json", |app| {
        matches!(app.source(), shardlens::source::Source::File(_))
    });
    assert_eq!(h.state().settings().key_type, shardlens::model::KeyType::N);
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.wait_for("the typed keys", |a| {
        a.report().is_some_and(|r| r.analysis.total == 3)
    });
    assert_eq!(editor_text(h.state()), "a\nb\nb\n");
    assert_eq!(h.state().settings().key_type, shardlens::model::KeyType::S);
    assert!(h.state().input_error().is_none());
}

/// A notice belongs to what it is about: a file's "loaded …" warning goes from the status line when other keys
/// (an example's, a table's) replace the file's, and stays in Messages.
#[test]
fn a_files_load_warning_goes_when_other_keys_replace_the_file() {
    let dir = support::temp_dir("ui", "load-warning-goes");
    let path = dir.join("guessed.json");
    std::fs::write(
        &path,
        r#"[{"pk": "a", "sk": "1", "n": 1}, {"pk": "b", "sk": "2"}]"#,
    )
    .unwrap();
    let mut h = harness();
    h.state_mut().open_path(path);
    h.wait_for("the file", |app| {
        app.key_set().is_some_and(|k| k.total() == 2)
    });
    let warned = |app: &App| {
        app.notices()
            .visible(std::time::Instant::now())
            .any(|n| n.text.starts_with("loaded 2 items from guessed.json"))
    };
    assert!(
        warned(h.state()),
        "{:#?}",
        h.state().notices().history().collect::<Vec<_>>()
    );
    h.get_by_label_contains("loaded 2 items from guessed.json");
    h.state_mut()
        .apply(Command::LoadExample(KeyExample::Healthy));
    h.settle();
    assert!(!warned(h.state()), "the file's warning outlived its keys");
    assert!(
        h.query_by_label_contains("loaded 2 items from guessed.json")
            .is_none()
    );
    assert!(
        h.state()
            .notices()
            .history()
            .any(|n| n.text.starts_with("loaded 2 items from guessed.json")),
        "Messages keeps it"
    );
}
