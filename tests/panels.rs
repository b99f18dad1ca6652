//! Single panels in a harness of their own (`Harness::new_ui_state`): each draws from plain state and returns
//! the commands it asks for; nothing else changes.
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use egui_kittest::Harness;
#[path = "support/kittest.rs"]
mod kittest;
use egui_kittest::kittest::Queryable as _;
use kittest::settle_panel;
use shardlens::app::command::SettingChange;
use shardlens::app::notices::{Activity, Level, Notices};
use shardlens::app::settings::Settings;
use shardlens::app::{Command, controls, decision_ui, messages};
use shardlens::model::decision::{Action, Path, UserAnswers, evaluate};
use shardlens::model::examples::keys::KeyExample;
use shardlens::model::text::parse_text;
use shardlens::model::{KeyType, report};

fn leaderboard_path() -> Path {
    let keys = parse_text(KeyExample::Leaderboard.text().as_bytes(), KeyType::S).unwrap();
    let r = report(&keys, &Settings::default().view());
    evaluate(&r.evidence, &UserAnswers::default())
}

struct Tree {
    path: Path,
    answers: UserAnswers,
    asked: Vec<Command>,
}

#[test]
fn clicking_the_trees_fix_returns_the_sharding_command() {
    let state = Tree {
        path: leaderboard_path(),
        answers: UserAnswers::default(),
        asked: Vec::new(),
    };
    let mut h = Harness::new_ui_state(
        |ui, s: &mut Tree| {
            if let Some(c) = decision_ui::decision_ui(ui, &s.path, &s.answers) {
                s.asked.push(c);
            }
        },
        state,
    );
    settle_panel(&mut h);
    assert!(h.state().asked.is_empty(), "drawing alone asks for nothing");
    h.get_by_label("Turn on sharding for the hot key").click();
    settle_panel(&mut h);
    assert_eq!(h.state().asked, vec![Command::Apply(Action::ShardHotKeys)]);
}

#[test]
fn the_shard_toggle_returns_new_settings_and_leaves_the_old_ones() {
    struct Controls {
        settings: Settings,
        asked: Vec<Command>,
    }
    let mut h = Harness::new_ui_state(
        |ui, s: &mut Controls| s.asked.extend(controls::controls_ui(ui, &s.settings)),
        Controls {
            settings: Settings::default(),
            asked: Vec::new(),
        },
    );
    settle_panel(&mut h);
    assert!(h.state().asked.is_empty());
    h.get_by_label("Shard hot keys").click();
    settle_panel(&mut h);
    let s = h.state();
    assert!(
        !s.settings.shard_enabled,
        "the panel does not write settings"
    );
    match s.asked.as_slice() {
        [Command::Set(SettingChange::ShardEnabled(on))] => assert!(on),
        other => panic!("asked for {other:?}"),
    }
}

#[test]
fn the_workload_group_returns_table_facts_as_answers() {
    struct Workload {
        settings: Settings,
        answers: UserAnswers,
        asked: Vec<Command>,
    }
    let settings = Settings {
        workload_enabled: true,
        ..Settings::default()
    };
    let mut h = Harness::new_ui_state(
        |ui, s: &mut Workload| {
            s.asked
                .extend(controls::workload_ui(ui, &s.settings, &s.answers, None));
        },
        Workload {
            settings,
            answers: UserAnswers::default(),
            asked: Vec::new(),
        },
    );
    settle_panel(&mut h);
    assert!(h.state().asked.is_empty());
    h.get_by_label("Table has an LSI").click();
    settle_panel(&mut h);
    let s = h.state();
    assert_eq!(s.answers.has_lsi, None, "the panel does not write answers");
    match s.asked.as_slice() {
        [Command::SetAnswers(a)] => assert_eq!(a.has_lsi, Some(true)),
        other => panic!("asked for {other:?}"),
    }
}

#[test]
fn messages_list_every_notice_and_errors_can_be_dismissed() {
    struct Status {
        notices: Notices,
        asked: Vec<Command>,
    }
    let now = std::time::Instant::now();
    let mut n = Notices::default();
    n.push(
        Activity::Load,
        Level::Info,
        "loaded 3 items from a.json",
        now,
    );
    n.push(Activity::Scan, Level::Error, "cannot scan T: no route", now);
    let mut h = Harness::new_ui_state(
        |ui, s: &mut Status| {
            ui.horizontal(|ui| {
                messages::notices_ui(ui, &s.notices, std::time::Instant::now(), &mut s.asked);
            });
        },
        Status {
            notices: n,
            asked: Vec::new(),
        },
    );
    settle_panel(&mut h);
    // One line: the error (the most severe), and the other current notice counted in Messages.
    h.get_by_label("cannot scan T: no route");
    assert!(h.query_by_label("loaded 3 items from a.json").is_none());
    h.get_by_label("Messages (2, 1 more now)");
    h.get_by_label("×").click();
    settle_panel(&mut h);
    assert_eq!(
        h.state().asked,
        vec![Command::DismissNotice(Activity::Scan)]
    );
}

/// A chart saved while an older warning stands: the status line says the save (the newest thing done), the
/// warning is counted beside Messages.
#[test]
fn a_fresh_confirmation_is_on_the_status_line_over_an_older_warning() {
    let now = std::time::Instant::now();
    let mut n = Notices::default();
    n.push(
        Activity::Load,
        Level::Warning,
        "loaded 3 items from a.json — 1 bad attribute",
        now,
    );
    n.push(
        Activity::File,
        Level::Info,
        "saved chart to chart.png",
        now + std::time::Duration::from_millis(10),
    );
    let mut h = Harness::new_ui_state(
        |ui, s: &mut (Notices, Vec<Command>)| {
            ui.horizontal(|ui| {
                messages::notices_ui(
                    ui,
                    &s.0,
                    std::time::Instant::now() + std::time::Duration::from_millis(20),
                    &mut s.1,
                );
            });
        },
        (n, Vec::new()),
    );
    settle_panel(&mut h);
    h.get_by_label("saved chart to chart.png");
    assert!(
        h.query_by_label("loaded 3 items from a.json — 1 bad attribute")
            .is_none()
    );
    h.get_by_label("Messages (2, 1 more now)");
}

/// A notice's detail (a replay's assumptions) is read in Messages at the body's size, as tall as the notice.
#[test]
fn a_notices_detail_is_at_the_body_size() {
    let mut n = Notices::default();
    n.push_detailed(
        Activity::Timeline,
        Level::Warning,
        "replaying t.json",
        Some("assumed: x".to_owned()),
        std::time::Instant::now(),
    );
    let mut h = Harness::new_ui_state(
        |ui, s: &mut (Notices, Vec<Command>)| {
            ui.horizontal(|ui| {
                messages::notices_ui(ui, &s.0, std::time::Instant::now(), &mut s.1);
            });
        },
        (n, Vec::new()),
    );
    settle_panel(&mut h);
    h.get_by_label("Messages (1)").click();
    settle_panel(&mut h);
    let detail = h.get_by_label("assumed: x").rect();
    let notice = h
        .get_all_by_label("replaying t.json")
        .map(|n| n.rect())
        .next_back()
        .unwrap();
    assert!(
        detail.height() >= notice.height() - 0.5,
        "detail {detail:?}, notice {notice:?}"
    );
}

#[test]
fn a_notices_detail_is_in_messages_not_on_the_status_line() {
    let mut n = Notices::default();
    n.push_detailed(
        Activity::Dialog,
        Level::Warning,
        "No file dialog could open for Open keys: type the path in the window instead",
        Some("org.freedesktop.portal.Desktop was not provided by unix:path=/run/bus".to_owned()),
        std::time::Instant::now(),
    );
    let mut h = Harness::new_ui_state(
        |ui, s: &mut (Notices, Vec<Command>)| {
            ui.horizontal(|ui| {
                messages::notices_ui(ui, &s.0, std::time::Instant::now(), &mut s.1);
            });
        },
        (n, Vec::new()),
    );
    settle_panel(&mut h);
    h.get_by_label("No file dialog could open for Open keys: type the path in the window instead");
    assert!(
        h.query_by_label_contains("unix:path").is_none(),
        "the bus address is not on the status line"
    );
    h.get_by_label("Messages (1)").click();
    settle_panel(&mut h);
    h.get_by_label_contains("unix:path=/run/bus");
}
