//! The Timeline view, driven through its labels with egui_kittest: a built-in scenario is simulated in the
//! background, played, scrubbed through its event list, and clicked on its heatmap and controls (which reach
//! the simulation as commands).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use egui_kittest::Harness;
#[path = "support/kittest.rs"]
mod kittest;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use kittest::{Settle as _, step_until};
use shardlens::app::settings::ChartMode;
use shardlens::app::{App, Command};
use shardlens::model::examples::time::example;

fn harness_with(name: &str) -> Harness<'static, App> {
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut()
        .apply(Command::LoadSimulation(example(name).unwrap()));
    // The run streams in on its own thread; the view repaints until it is done.
    h.wait_for(&format!("the simulation of {name}"), |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    h
}

#[test]
fn a_monotonic_tournament_plays_and_says_it_never_stops() {
    let mut h = harness_with("tournament-monotonic");
    assert_eq!(h.state().chart_mode(), ChartMode::Timeline);
    h.get_by_label("Tournament final: an only-increasing sort key");
    h.get_by_label_contains("Never stopped: ARENA#7f3a's sort key only increases");
    h.get_by_label_contains("no split can help");
    // Every second of the run is there: 1,000 served and 3,000 throttled per second (R1).
    let sim = h.state().simulation().unwrap();
    assert_eq!(sim.outcome.series.t.len(), 30 * 60);
    assert!(
        sim.outcome
            .series
            .write_served_units
            .iter()
            .all(|&u| (u - 1_000.0).abs() < 1e-6)
    );
    h.get_by_label("Play").click();
    // Playing repaints every frame: wait for the playhead to move, not for the app to settle.
    step_until(&mut h, "playing to move the playhead", |h| {
        h.state().simulation().unwrap().position > 0.0
    });
    h.get_by_label("Pause").click();
    h.settle();
    let paused = h.state().simulation().unwrap().position;
    h.step();
    h.step();
    assert_eq!(h.state().simulation().unwrap().position, paused, "paused");
}

#[test]
fn clicking_an_event_scrubs_the_table_and_the_inspector_to_it() {
    let mut h = harness_with("tournament-random");
    h.get_by_label_contains("Throttling stopped after");
    let first_split = h
        .state()
        .simulation()
        .unwrap()
        .outcome
        .events
        .iter()
        .find(|e| e.kind.as_str() == "split")
        .map(|e| e.t)
        .expect("the random sort key is split");
    let at = shardlens::app::timeline::clock(first_split);
    h.get_by_label_contains("Events (").click();
    h.settle();
    h.get_by_label_contains(&format!("{at}  split")).click();
    h.settle();
    assert_eq!(h.state().simulation().unwrap().second(), first_split);
    h.get_by_label(&format!("The table at {at}"));
    h.get_by_label(&format!("At {at}"));
    // After the split the table has one partition more than it started with.
    let sim = h.state().simulation().unwrap();
    let (_, before) = sim.timeline.column_at(0).unwrap();
    let (_, after) = sim
        .timeline
        .column_at(first_split + sim.timeline.column_seconds)
        .unwrap();
    assert_eq!(after.len(), before.len() + 1);
}

#[test]
fn a_scenario_that_cannot_be_read_is_an_error_and_the_keys_stay() {
    let dir = std::env::temp_dir().join(format!("shardlens-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "duration = \"30m\"\n[table]\nbilling = \"on-demand\"\nrcu = 5\n",
    )
    .unwrap();
    let mut h = kittest::harness_at([1400.0, 950.0]);
    let total = h.state().report().unwrap().analysis.total;
    h.state_mut().open_path(bad.clone());
    h.wait_for("the scenario's error", |app| {
        app.notices()
            .last()
            .is_some_and(shardlens::app::notices::Notice::error)
    });
    let notice = h.state().notices().last().unwrap().text.clone();
    assert!(
        notice.contains("bad.toml") && notice.contains("rcu"),
        "{notice}"
    );
    assert!(h.state().simulation().is_none());
    assert_eq!(h.state().report().unwrap().analysis.total, total);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_trees_fix_runs_the_scenario_again_sharded_and_throttling_stops() {
    let mut h = harness_with("tournament-monotonic");
    let unsharded: f64 = h
        .state()
        .simulation()
        .unwrap()
        .outcome
        .series
        .write_throttled_units
        .iter()
        .sum();
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::TogglePresentation));
    h.settle();
    // Presentation mode's strip walks the scenario's tree, not the editor's keys.
    h.get_by_label_contains("The item collection is hot: shard the key");
    h.get_by_label("Turn on sharding for the hot key").click();
    h.wait_for("the sharded run", |app| {
        app.simulation()
            .is_some_and(|s| s.name.contains("write-sharded ×10") && s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    assert!(sim.name.ends_with("write-sharded ×10"), "{}", sim.name);
    // Ten shards of 400 WCU/s on the new table's 4 partitions: some share a partition (1,200 WCU) until
    // split-for-heat isolates them, so throttling stops, where one key with a rising sort key never stops.
    let throttled: f64 = sim.outcome.series.write_throttled_units.iter().sum();
    assert!(throttled < unsharded * 0.1, "{throttled} of {unsharded}");
    let time = sim.time.as_ref().unwrap();
    assert!(time.why.relieved() && time.stopped.is_some(), "{time:?}");
    h.get_by_label_contains("Throttling stopped after");
}

#[test]
fn a_heatmap_click_the_scale_and_the_speed_reach_the_simulation_as_commands() {
    let mut h = harness_with("tournament-random");
    h.get_by_label_contains("The hottest partition");
    // The heatmap's cell in the middle of a column at 70 % of the run: its partition and that column's second.
    let (map, column_seconds, columns) = {
        let sim = h.state().simulation().unwrap();
        let r = sim.rects();
        let cs = sim.timeline.column_seconds.max(1);
        (
            r.heatmap.unwrap(),
            cs,
            (r.heat_seconds / f64::from(cs)) as u32,
        )
    };
    let col = columns * 7 / 10;
    let at = egui::pos2(
        map.left() + (col as f32 + 0.5) * map.width() / columns as f32,
        map.center().y,
    );
    h.hover_at(at);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    h.settle();
    let sim = h.state().simulation().unwrap();
    let t = (col * column_seconds).min(sim.duration() - 1);
    assert_eq!(sim.second(), t);
    assert!(sim.selected().is_some(), "the clicked partition is picked");
    // The inspector shows the picked partition at that second, not the hottest.
    h.get_by_label(&format!("At {}", shardlens::app::timeline::clock(t)));
    assert!(h.query_by_label_contains("The hottest partition").is_none());

    h.get_by_label("Relative").click();
    h.get_by_label("Per minute (CloudWatch)").click();
    h.settle();
    let sim = h.state().simulation().unwrap();
    assert!(sim.relative() && sim.per_minute());
    h.get_by_label("the hottest cell");
    h.get_by_label("throttle events in the minute");

    h.get_by_role_and_label(Role::ComboBox, "Speed").click();
    h.settle();
    h.get_by_label("600×").click();
    h.settle();
    assert_eq!(h.state().simulation().unwrap().speed(), 600.0);
}

/// Streams records of one hot key (1,500 writes a second for a minute, then 100) among quieter keys, as
/// `get-records` pages: t = 0 is 2026-06-23T10:00:00Z.
fn streams_trace(path: &std::path::Path) {
    use std::fmt::Write as _;
    let start = 1_782_208_800_u64;
    let mut pages = String::new();
    for s in 0..120_u64 {
        let hot = if s < 60 { 1_500 } else { 100 };
        let mut records = Vec::new();
        for i in 0..hot {
            records.push(format!(
                r#"{{"eventName":"INSERT","dynamodb":{{"ApproximateCreationDateTime":{}.{i:04},"Keys":{{"pk":{{"S":"HOT"}}}}}}}}"#,
                start + s
            ));
        }
        for k in 0..20 {
            records.push(format!(
                r#"{{"eventName":"MODIFY","dynamodb":{{"ApproximateCreationDateTime":{},"Keys":{{"pk":{{"S":"user#{k}"}}}}}}}}"#,
                start + s
            ));
        }
        writeln!(
            pages,
            r#"{{"Records":[{}],"NextShardIterator":"i"}}"#,
            records.join(",")
        )
        .unwrap();
    }
    std::fs::write(path, pages).unwrap();
}

#[test]
fn a_trace_replays_in_utc_and_what_if_reruns_it() {
    let path = std::env::temp_dir().join(format!("shardlens-trace-{}.json", std::process::id()));
    streams_trace(&path);
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().open_at_start(path.clone());
    h.wait_for("the replay to be simulated", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    assert_eq!(h.state().chart_mode(), ChartMode::Timeline);
    let sim = h.state().simulation().unwrap();
    assert_eq!(sim.duration(), 120);
    assert_eq!(sim.setup().start, 1_782_208_800);
    // One item at 1,500 writes a second, and its partition's share of the 20 others: R1 serves 1,000 of
    // them, the other 500 and more throttle.
    let throttled = &sim.outcome.series.write_throttled_units;
    assert!(
        (500.0..=520.0).contains(&throttled[10]),
        "{}",
        throttled[10]
    );
    assert!(throttled[70..].iter().all(|&u| u == 0.0));
    // Real times, in UTC: the playback's clock and the table's.
    h.get_by_label_contains("10:00:00 / 10:02:00 UTC");
    h.get_by_label("The table at 10:00:00 UTC");
    h.get_by_label_contains("replay of shardlens-trace-");
    // The What if row stays where it is when the findings come or change: above the run's title and
    // headline, at the same place for every run.
    let row = h.get_by_label("As recorded").rect();
    let title = h.get_by_label_contains("replay of shardlens-trace-").rect();
    assert!(row.bottom() <= title.top(), "{row:?} {title:?}");
    h.get_by_label("Shard hot keys ×10").click();
    h.wait_for("the sharded replay", |app| {
        app.simulation()
            .is_some_and(|s| s.diagnosis.is_some() && s.name.contains("what if"))
    });
    let sim = h.state().simulation().unwrap();
    assert!(
        sim.outcome
            .series
            .write_throttled_units
            .iter()
            .all(|&u| u == 0.0)
    );
    h.get_by_label_contains("No throttling");
    let again = h.get_by_label("As recorded").rect();
    assert_eq!(row.top(), again.top(), "the What if row moved");
    // The same trace on a provisioned table of 1,000 RCU / 1,000 WCU (the fields' start).
    h.get_by_label("Replay provisioned").click();
    h.wait_for("the provisioned replay", |app| {
        app.simulation()
            .is_some_and(|s| s.diagnosis.is_some() && s.name.contains("provisioned"))
    });
    let sim = h.state().simulation().unwrap();
    assert_eq!(
        sim.setup().table.billing,
        shardlens::model::simulate::Billing::Provisioned {
            units: [1_000.0, 1_000.0]
        }
    );
    assert!(sim.outcome.series.write_throttled_units[10] > 0.0);
    std::fs::remove_file(path).ok();
}

/// A save that was cut (`stream --save-trace` killed while it wrote) opens to its last whole record, and the
/// replay's line says how many trailing bytes it ignored (issue 61).
#[test]
fn a_cut_saved_trace_opens_to_its_last_whole_record_and_says_what_it_ignored() {
    use std::fmt::Write as _;
    let path = std::env::temp_dir().join(format!("shardlens-cut-{}.jsonl", std::process::id()));
    let mut text = String::new();
    for s in 0..30 {
        writeln!(
            text,
            r#"{{"eventName":"INSERT","dynamodb":{{"ApproximateCreationDateTime":{},"Keys":{{"pk":{{"S":"K{}"}}}}}}}}"#,
            1_782_208_800 + s,
            s % 3
        )
        .unwrap();
    }
    // The record in flight when the save was killed: 37 bytes of it.
    text.push_str(&r#"{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1}"#[..37]);
    std::fs::write(&path, &text).unwrap();
    let mut h = kittest::harness();
    // As dropped on the window, or given on the command line (File > Open trace… reads it by the same door).
    h.state_mut().open_any(path.clone());
    h.wait_for("the replay to be simulated", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    let notice = h.state().notices().last().unwrap().text.clone();
    assert!(
        notice.contains("30 writes")
            && notice.contains(
                "ignored 37 trailing bytes (an unfinished last record: the save was cut)"
            ),
        "{notice}"
    );
    std::fs::remove_file(path).ok();
}

#[test]
fn a_trace_folder_with_cloudwatch_minutes_draws_them_beside_the_model() {
    // The hot key's Streams pages, and what CloudWatch said of the same two minutes (get-metric-data, newest
    // first as it prints them).
    let dir = trace_with_cloudwatch("trace-dir");
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().apply(Command::OpenTrace(dir.clone()));
    h.wait_for("the replay with CloudWatch's minutes", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    let observed = sim.observed();
    assert_eq!(observed.len(), 2);
    assert_eq!(observed[0].write_throttle_events, Some(29_000.0));
    // The modelled minutes and the observed ones, on the per-minute view it opens with.
    assert!(sim.per_minute());
    let modelled = sim.outcome.minutes[0].write_throttle_events;
    assert!(modelled > 29_000.0 && modelled < 32_000.0, "{modelled}");
    h.get_by_label("dashed: as CloudWatch observed them");
    h.get_by_label("throttle events in the minute");
    h.get_by_label_contains("10:00:00 / 10:02:00 UTC");
    // The headline says what CloudWatch observed beside what the model throws, on the same whole minutes.
    h.get_by_label_contains("; observed 29,000 throttle events (CloudWatch), the model ");
    std::fs::remove_dir_all(dir).ok();
}

// Issue 57: CloudWatch's minutes alone, with 4,400 throttle events: the headline says them (never "No
// throttling"), and the tree's key questions are unknown (the keys are stand-ins), saying what would answer
// them, instead of "adaptive capacity will most likely absorb it".
#[test]
fn cloudwatch_minutes_alone_say_the_observed_throttling_and_leave_the_keys_unknown() {
    let dir = std::env::temp_dir().join(format!("shardlens-cw-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("metrics.json");
    std::fs::write(
        &path,
        r#"{"MetricDataResults":[
  {"Id":"wte","Label":"WriteThrottleEvents","StatusCode":"Complete",
   "Timestamps":["2026-06-22T23:36:00+00:00","2026-06-22T23:35:00+00:00"],"Values":[2000.0,2400.0]},
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","StatusCode":"Complete",
   "Timestamps":["2026-06-22T23:37:00+00:00","2026-06-22T23:36:00+00:00","2026-06-22T23:35:00+00:00",
                 "2026-06-22T23:34:00+00:00"],"Values":[30000.0,60000.0,60000.0,30000.0]}
],"Messages":[]}"#,
    )
    .unwrap();
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().apply(Command::OpenTrace(path.clone()));
    h.wait_for("the replay of CloudWatch's minutes", |app| {
        app.simulation()
            .is_some_and(|s| s.diagnosis.is_some() && s.path.is_some())
    });
    let sim = h.state().simulation().unwrap();
    let headline = &sim.diagnosis.as_ref().unwrap().headline;
    assert!(
        headline
            .starts_with("Observed 4,400 throttle events (CloudWatch); the model throttles none"),
        "{headline}"
    );
    assert!(!headline.contains("No throttling"), "{headline}");
    // The tree's "over time" evidence says it too.
    let time = &sim.time.as_ref().unwrap().text;
    assert_eq!(
        time,
        "the model throttles none over the whole run; CloudWatch observed 4,400 throttle events"
    );
    let path_taken = sim.path.as_ref().unwrap();
    assert_eq!(path_taken.leaf, None, "{path_taken:?}");
    let first = &path_taken.path[0];
    assert_eq!(first.answer, shardlens::model::decision::Answer::Unknown);
    assert!(first.evidence.contains("stand-ins"), "{}", first.evidence);
    assert!(
        first.evidence.contains("Contributor Insights"),
        "{}",
        first.evidence
    );
    h.settle();
    h.get_by_label_contains("Observed 4,400 throttle events (CloudWatch)");
    h.get_by_label_contains(
        "CloudWatch observed 4,400 throttle events in 2 minutes from 23:35:00 UTC",
    );
    std::fs::remove_dir_all(dir).ok();
}

// Issue 60: CloudWatch's throttle-reason metrics: the per-minute view draws the observed throttling by reason,
// the legend says which reasons sharding can help, and the tree's first answer comes from them, naming them.
#[test]
fn observed_throttling_by_reason_is_drawn_and_answers_the_tree() {
    let dir = std::env::temp_dir().join(format!("shardlens-cw-reasons-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("metrics.json");
    std::fs::write(
        &path,
        r#"{"MetricDataResults":[
  {"Id":"kr","Label":"WriteKeyRangeThroughputThrottleEvents","StatusCode":"Complete",
   "Timestamps":["2026-06-22T23:36:00+00:00","2026-06-22T23:35:00+00:00"],"Values":[2000.0,2400.0]},
  {"Id":"pt","Label":"WriteProvisionedThroughputThrottleEvents","StatusCode":"Complete",
   "Timestamps":["2026-06-22T23:36:00+00:00"],"Values":[600.0]},
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","StatusCode":"Complete",
   "Timestamps":["2026-06-22T23:37:00+00:00","2026-06-22T23:36:00+00:00","2026-06-22T23:35:00+00:00",
                 "2026-06-22T23:34:00+00:00"],"Values":[30000.0,60000.0,60000.0,30000.0]}
],"Messages":[]}"#,
    )
    .unwrap();
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().apply(Command::OpenTrace(path.clone()));
    h.wait_for("the replay of CloudWatch's reason metrics", |app| {
        app.simulation()
            .is_some_and(|s| s.diagnosis.is_some() && s.path.is_some())
    });
    let sim = h.state().simulation().unwrap();
    assert!(sim.per_minute());
    let first = &sim.path.as_ref().unwrap().path[0];
    assert_eq!(first.answer, shardlens::model::decision::Answer::Yes);
    assert!(
        first.evidence.starts_with("both (CloudWatch): 88 % KeyRange, a hot partition (4,400 KeyRange write \
             throttle events from 23:35 to 23:37 UTC); 12 % the table's or the account's limit (600 \
             Provisioned write throttle events in the minute from 23:36 UTC)"),
        "{}",
        first.evidence
    );
    h.settle();
    // The legend says which reasons sharding can help; the tree's evidence names the reasons.
    h.get_by_label("observed KeyRange: a hot partition, sharding can help");
    h.get_by_label(
        "observed Provisioned, AccountLimit, MaxOnDemand: the table's or account's limit, sharding cannot help",
    );
    h.get_by_label_contains("4,400 KeyRange write throttle events from 23:35 to 23:37 UTC");
    std::fs::remove_dir_all(dir).ok();
}

/// tests/fixtures/trace/incremental-export: the export's folder, whose data files live in the shared
/// `AWSDynamoDB/data/` beside it (120 writes, one a second from 2026-06-23T10:00:00.25Z).
fn incremental_export() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trace/incremental-export/AWSDynamoDB/01782208920000-5eed0001")
}

/// A path dropped on the window (egui 0.37 leaves the file handle to the integration).
#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn an_incremental_export_folder_opens_as_a_trace_and_dropped_loads_its_keys() {
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut()
        .apply(Command::OpenTrace(incremental_export()));
    h.wait_for("the replay of the export", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    assert_eq!(sim.setup().start, 1_782_208_800);
    assert_eq!(sim.duration(), 120);
    h.get_by_label_contains("10:00:00 / 10:02:00 UTC");
    h.get_by_label("replay of 01782208920000-5eed0001");
    // Dropped, an incremental export loads as keys, its data files found in the shared data/ too.
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(incremental_export())));
    h.wait_for("the export's keys", |app| app.groups().is_some());
    let items: u64 = h.state().groups().unwrap().iter().map(|g| g.items).sum();
    assert_eq!(items, 120);
}

/// A folder of a trace (the hot key's Streams pages) and what CloudWatch observed of its two minutes.
fn trace_with_cloudwatch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("shardlens-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    streams_trace(&dir.join("pages.json"));
    std::fs::write(
        dir.join("metrics.json"),
        r#"{"MetricDataResults":[
  {"Id":"wte","Label":"WriteThrottleEvents","StatusCode":"Complete",
   "Timestamps":["2026-06-23T10:01:00+00:00","2026-06-23T10:00:00+00:00"],"Values":[0.0,29000.0]},
  {"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","StatusCode":"Complete",
   "Timestamps":["2026-06-23T10:01:00+00:00","2026-06-23T10:00:00+00:00"],"Values":[7200.0,61200.0]}
],"Messages":[]}"#,
    )
    .unwrap();
    dir
}

// Issue 58: File > Save scenario on a replay wrote a 0-byte file and said "saved" (reopened: "no [[traffic]]").
// It saves a scenario that names the trace, which opens as the same replay.
#[test]
fn save_scenario_on_a_replay_saves_one_that_replays_the_trace_again() {
    let dir = trace_with_cloudwatch("save-replay");
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut()
        .apply(Command::OpenTrace(dir.join("pages.json")));
    h.wait_for("the replay", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    let first: Vec<f64> = h
        .state()
        .simulation()
        .unwrap()
        .outcome
        .series
        .write_throttled_units
        .clone();
    h.state_mut().set_native_dialogs(false);
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::SaveScenario));
    h.wait_for("the path field", |app| app.dialogs().path_field_open());
    h.settle();
    let saved = dir.join("replay.toml");
    h.get_by_label("Path").focus();
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    h.get_by_label("Path")
        .type_text(&saved.display().to_string());
    h.settle();
    h.key_press(egui::Key::Enter);
    h.wait_for("the scenario to be written", |_| {
        std::fs::metadata(&saved).is_ok_and(|m| m.len() > 0)
    });
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains("trace = "), "{text}");
    // Opened again, it is the same replay: the same start, length and throttling, second by second.
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().open_path(saved.clone());
    h.wait_for("the saved scenario's run", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    assert_eq!(sim.setup().start, 1_782_208_800);
    assert_eq!(sim.duration(), 120);
    assert_eq!(sim.outcome.series.write_throttled_units, first);
    std::fs::remove_dir_all(dir).ok();
}

// Issue 58: the tree's one-click fix on a replay kept the replay's data but dropped its What if row and
// CloudWatch's observed line, and Undo then offered the keys' example instead of the unsharded replay.
#[test]
fn the_trees_fix_on_a_replay_stays_a_replay_and_undo_brings_it_back() {
    let dir = trace_with_cloudwatch("fix-replay");
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().apply(Command::OpenTrace(dir.clone()));
    h.wait_for("the replay", |app| {
        app.simulation()
            .is_some_and(|s| s.diagnosis.is_some() && s.path.is_some())
    });
    let name = h.state().simulation().unwrap().name.clone();
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::TogglePresentation));
    h.settle();
    h.get_by_label("Turn on sharding for the hot key").click();
    h.wait_for("the sharded replay", |app| {
        app.simulation()
            .is_some_and(|s| s.name.contains("write-sharded") && s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    assert!(sim.replay().is_some(), "the fix's run is still a replay");
    assert_eq!(sim.observed().len(), 2, "CloudWatch's minutes stay");
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::TogglePresentation));
    h.settle();
    h.get_by_label("As recorded");
    h.get_by_label("dashed: as CloudWatch observed them");
    // Undo brings back the replay as it was, not the keys' example.
    let undo = h.state().undo_label().unwrap_or_default();
    assert_eq!(undo, name, "Undo offers {undo:?}");
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::Undo));
    h.wait_for("the unsharded replay", |app| {
        app.simulation()
            .is_some_and(|s| s.name == name && s.diagnosis.is_some())
    });
    let sim = h.state().simulation().unwrap();
    assert!(sim.replay().is_some());
    assert_eq!(sim.observed().len(), 2);
    assert!(sim.outcome.series.write_throttled_units[10] > 0.0);
    std::fs::remove_dir_all(dir).ok();
}

// Issue 60 item 4: a Contributor Insights report of throttled keys (a -PKT- rule, all that THROTTLED_KEYS mode
// has) beside the replay: at the playhead the table says the keys it saw throttled in that minute beside the
// keys of the partitions the model throttles.
#[test]
fn a_throttled_keys_report_is_shown_beside_the_models_throttled_keys_at_the_playhead() {
    let dir = std::env::temp_dir().join(format!("shardlens-pkt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    streams_trace(&dir.join("pages.json"));
    std::fs::write(
        dir.join("pkt.json"),
        r#"{"RuleName":"DynamoDBContributorInsights-PKT-orders-1782208800000","KeyLabels":["pk"],
 "AggregationStatistic":"Sum","AggregateValue":29120.0,
 "Contributors":[
  {"Keys":["HOT"],"ApproximateAggregateValue":29000.0,
   "Datapoints":[{"Timestamp":"2026-06-23T10:00:00+00:00","ApproximateValue":29000.0}]},
  {"Keys":["user#3"],"ApproximateAggregateValue":120.0,
   "Datapoints":[{"Timestamp":"2026-06-23T10:00:00+00:00","ApproximateValue":120.0}]}]}"#,
    )
    .unwrap();
    let mut h = kittest::harness_at([1400.0, 950.0]);
    h.state_mut().apply(Command::OpenTrace(dir.clone()));
    h.wait_for("the replay with the throttled keys", |app| {
        app.simulation().is_some_and(|s| s.diagnosis.is_some())
    });
    h.get_by_label(
        "Most throttled keys observed (Contributor Insights, 60 seconds from 2026-06-23T10:00:00Z): \
         HOT (29,000), user#3 (120)",
    );
    h.get_by_label_contains("The model throttles partitions holding: ");
    std::fs::remove_dir_all(dir).ok();
}
