//! File > Load options: its text fields keep what is typed, key by key, and options chosen for one file do not
//! stick to the next unless pinned.
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/kittest.rs"]
mod kittest;
use kittest::{Settle as _, harness};

use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use shardlens::app::{App, Command};

fn open_load_options(h: &mut Harness<'_, App>) {
    h.get_by_label("File").click();
    h.settle();
    h.get_by_label("Load options").hover();
    h.settle();
}

/// Types `text` into the field labelled `label` one character a frame, as a person types.
fn type_slowly(h: &mut Harness<'_, App>, label: &str, text: &str) {
    h.get_by_label(label).click();
    h.settle();
    for c in text.chars() {
        h.get_by_label(label).type_text(&c.to_string());
        h.settle();
    }
}

#[test]
fn csv_columns_typed_key_by_key_keep_their_commas() {
    let mut h = harness();
    open_load_options(&mut h);
    type_slowly(&mut h, "CSV columns", "id,name,x");
    assert_eq!(
        h.state().load_options().csv_columns,
        Some(vec!["id".to_owned(), "name".to_owned(), "x".to_owned()])
    );
}

#[test]
fn a_key_attribute_typed_with_a_space_keeps_it() {
    let mut h = harness();
    open_load_options(&mut h);
    type_slowly(&mut h, "Key attribute", "user id");
    assert_eq!(h.state().load_options().key.as_deref(), Some("user id"));
    type_slowly(&mut h, "Sort key attribute", "created at");
    assert_eq!(
        h.state().load_options().sort_key.as_deref(),
        Some("created at")
    );
}

fn temp_file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "shardlens-load-options-{test}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn distinct(app: &App) -> Option<usize> {
    app.report().map(|r| r.analysis.distinct)
}

/// Opens `path` and waits for its report (`distinct` keys).
fn open(h: &mut Harness<'_, App>, path: PathBuf, want: usize) {
    h.state_mut().open_path(path);
    h.wait_for("the file to load", |a| {
        distinct(a) == Some(want)
            || a.notices()
                .last()
                .is_some_and(shardlens::app::notices::Notice::error)
    });
    assert_eq!(
        distinct(h.state()),
        Some(want),
        "{:?}",
        h.state().notices().last()
    );
}

/// A: keyed by `user` (2 users over 3 rows). B: `pk` is the key by detection (4 keys); its `user` column has 2.
const A: &str = "user,v\nu1,1\nu2,2\nu1,3\n";
const B: &str = "pk,user\na,x\nb,x\nc,y\nd,y\n";

#[test]
fn options_for_one_file_do_not_stick_to_the_next() {
    let (a, b) = (temp_file("once", "a.csv", A), temp_file("once", "b.csv", B));
    let mut h = harness();
    open_load_options(&mut h);
    type_slowly(&mut h, "Key attribute", "user");
    assert_eq!(h.state().load_options().key.as_deref(), Some("user"));
    open(&mut h, a.clone(), 2);
    // File > Reload reads A again with its options.
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::Reload));
    h.wait_for("A to reload", |a| distinct(a) == Some(2));
    // B starts from detection: its key is pk.
    open(&mut h, b, 4);
    assert_eq!(h.state().load_options().key, None);
}

#[test]
fn pinned_options_apply_to_the_next_file() {
    let (a, b) = (
        temp_file("pinned", "a.csv", A),
        temp_file("pinned", "b.csv", B),
    );
    let mut h = harness();
    open_load_options(&mut h);
    type_slowly(&mut h, "Key attribute", "user");
    h.get_by_label("Keep these options for the next files")
        .click();
    h.settle();
    open(&mut h, a, 2);
    open(&mut h, b, 2);
    assert_eq!(h.state().load_options().key.as_deref(), Some("user"));
}
