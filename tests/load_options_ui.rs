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
use shardlens::model::{KeySet, KeyType};

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

/// A plain JSON array keyed by a number (`year`, as AWS's movies sample) and DynamoDB JSON keyed by strings.
const MOVIES: &str = r#"[{"year": 2013, "title": "Rush"}, {"year": 2014, "title": "Boyhood"}, {"year": 2013, "title": "Her"}]"#;
const USERS: &str = "{\"Item\":{\"pk\":{\"S\":\"USER#1\"}}}\n{\"Item\":{\"pk\":{\"S\":\"USER#2\"}}}\n{\"Item\":{\"pk\":{\"S\":\"USER#3\"}}}\n";

fn key_type(app: &App) -> Option<KeyType> {
    app.key_set().map(KeySet::key_type)
}

#[test]
fn a_file_of_number_keys_does_not_make_the_next_file_or_paste_numbers() {
    let (movies, users) = (
        temp_file("types", "movies.json", MOVIES),
        temp_file("types", "users.json", USERS),
    );
    let mut h = harness();
    open_load_options(&mut h);
    type_slowly(&mut h, "Key attribute", "year");
    open(&mut h, movies.clone(), 2);
    assert_eq!(key_type(h.state()), Some(KeyType::N));
    // The next file starts from detection: its values are strings.
    open(&mut h, users, 3);
    assert_eq!(key_type(h.state()), Some(KeyType::S));
    // Pasted keys are read as the editor's Key type, not as the last file's.
    let year = shardlens::source::LoadOptions {
        key: Some("year".to_owned()),
        ..h.state().load_options().clone()
    };
    h.state_mut().apply(Command::SetLoadOptions(Box::new(year)));
    open(&mut h, movies, 2);
    h.state_mut().paste("USER#9\nUSER#8\nUSER#9\n");
    h.wait_for("the paste", |a| {
        distinct(a) == Some(2) || a.input_error().is_some()
    });
    assert_eq!(h.state().input_error(), None);
    assert_eq!(key_type(h.state()), Some(KeyType::S));
}

/// Picks `choice` in File > Load options > Key type.
fn choose_key_type(h: &mut Harness<'_, App>, choice: &str) {
    open_load_options(h);
    h.get_by_label_contains("Key type: ").click();
    h.settle();
    h.get_by_label(choice).click();
    h.settle();
}

#[test]
fn a_key_type_chosen_in_load_options_reads_the_file_as_it() {
    // Lines are strings by default: 1, 1.0 and 01 are three keys; read as numbers they are one.
    let (lines, users) = (
        temp_file("chosen", "ids.txt", "1\n1.0\n01\n2\n"),
        temp_file("chosen", "users.json", USERS),
    );
    let mut h = harness();
    open(&mut h, lines.clone(), 4);
    choose_key_type(&mut h, "N (number)");
    assert_eq!(h.state().load_options().key_type, Some(KeyType::N));
    h.state_mut()
        .apply(Command::Ui(shardlens::app::UICommand::Reload));
    h.wait_for("the numbers to reload", |a| distinct(a) == Some(2));
    assert_eq!(key_type(h.state()), Some(KeyType::N));
    // A typed file is checked against the chosen type, and the error names where it was chosen.
    choose_key_type(&mut h, "B (binary (base64))");
    h.state_mut().open_path(users);
    h.wait_for("the load to fail", |a| {
        a.notices()
            .last()
            .is_some_and(shardlens::app::notices::Notice::error)
    });
    let said = &h.state().notices().last().unwrap().text;
    assert!(said.contains("Key type in File > Load options"), "{said}");
    assert_eq!(distinct(h.state()), Some(2), "the numbers stay");
    // The choice was for that file: the next one starts from detection.
    open(&mut h, lines, 4);
    assert_eq!(h.state().load_options().key_type, None);
}
