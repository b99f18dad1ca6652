//! What the page adds to the app, tested in the process (the page itself is tested in a browser by
//! tests/web.sh): the article widget laid out at an iframe's two sizes, and share links opened in the app
//! (File > Open link…, a link pasted into the editor) with Undo bringing the keys back.
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/kittest.rs"]
mod kittest;

use egui_kittest::kittest::Queryable as _;
use kittest::{Settle as _, harness_at};
use shardlens::app::{Command, UICommand};
use shardlens::source::link;
use shardlens::source::session::{SESSION_FORMAT, SESSION_VERSION, Session, Settings};

fn shared(text: &str, buckets: usize) -> String {
    let session = Session {
        format: SESSION_FORMAT.into(),
        version: SESSION_VERSION,
        settings: Settings {
            buckets,
            ..Settings::default()
        },
        answers: Default::default(),
        text: Some(text.into()),
        keys: None,
        scenario: None,
    };
    link::encode(&session, "index.html").unwrap()
}

/// The widget fits an iframe of 720×480 (editor beside the chart) and of 400×600 (stacked): its controls,
/// the editor's hint and a chart of at least a third of the frame, all on screen; its shard toggle shards
/// the hot key of the example it opens on.
#[test]
fn the_article_widget_fits_both_iframe_sizes_and_shards_the_hot_key() {
    for size in [[720.0, 480.0], [400.0, 600.0]] {
        let mut h = harness_at(size);
        h.state_mut().set_embed(true);
        h.settle();
        for label in ["Open in shardlens ↗", "Shard hot keys", "Buckets"] {
            let r = h.get_all_by_label(label).next().unwrap().rect();
            assert!(
                r.right() <= size[0] + 1.0 && r.bottom() <= size[1],
                "at {size:?} {label} is off screen: {r:?}"
            );
        }
        h.get_by_label("one partition key per line; repeat a value to simulate a hot key");
        let chart = h.state().chart_rect().expect("the chart is drawn");
        eprintln!("{size:?}: chart {chart:?}");
        assert!(
            chart.height() >= size[1] / 3.0,
            "at {size:?} chart {chart:?}"
        );
        assert!(
            chart.width() >= size[0] * 0.5,
            "at {size:?} chart {chart:?}"
        );
        assert!(chart.right() <= size[0] + 1.0 && chart.bottom() <= size[1]);
        // The menu bar and the side panels of the whole app are not there.
        assert!(h.query_by_label("Decision tree").is_none());
        let hot_before = h
            .state()
            .report()
            .unwrap()
            .analysis
            .skew
            .hottest_bucket_share;
        h.get_by_label("Shard hot keys").click();
        h.wait_for("the sharded report", |app| {
            app.report()
                .is_some_and(|r| r.analysis.skew.hottest_bucket_share < hot_before * 0.75)
        });
    }
}

/// A link opens its keys and bucket count; Undo brings back the keys it replaced. A link pasted into the
/// editor (as its whole text) opens the same way; a damaged one changes nothing and says why.
#[test]
fn a_link_opens_its_keys_and_undo_brings_the_previous_back() {
    let mut h = harness_at([1280.0, 800.0]);
    h.settle();
    let before = h.state().key_set().unwrap().total();
    h.state_mut()
        .apply(Command::OpenLink(shared(&"celebrity\n".repeat(30), 12)));
    h.wait_for("the link's keys", |app| {
        app.key_set()
            .is_some_and(|k| k.total() == 30 && k.len() == 1)
    });
    assert_eq!(h.state().settings().buckets, 12);
    h.state_mut().apply(Command::Ui(UICommand::Undo));
    h.wait_for("the keys before the link", |app| {
        app.key_set().is_some_and(|k| k.total() == before)
    });
    // Pasted into the editor as its text.
    h.state_mut()
        .apply(Command::EditText(shared("a\nb\nb\n", 8)));
    h.wait_for("the pasted link's keys", |app| {
        app.key_set()
            .is_some_and(|k| k.total() == 3 && k.len() == 2)
    });
    // A key that only looks like a link stays a key: what was typed is not dropped for it.
    h.state_mut()
        .apply(Command::EditText("a\nBOARD#shardlens1=@@\n".to_owned()));
    h.wait_for("the typed keys", |app| {
        app.key_set()
            .is_some_and(|k| k.total() == 2 && k.len() == 2)
    });
    h.state_mut()
        .apply(Command::EditText(shared("a\nb\nb\n", 8)));
    h.wait_for("the pasted link's keys again", |app| {
        app.key_set()
            .is_some_and(|k| k.total() == 3 && k.len() == 2)
    });
    // A damaged link: nothing changes.
    let mut broken = shared("x\ny\n", 8);
    broken.truncate(broken.len() - 6);
    broken.push_str("@@@@@@");
    h.state_mut().apply(Command::OpenLink(broken));
    h.settle();
    assert_eq!(h.state().key_set().unwrap().total(), 3);
}
