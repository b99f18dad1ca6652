//! Hostile inputs through the real loaders (`shardlens::source::load`): nesting 10,000 levels deep in every
//! JSON shape and in Ion, with and without a design that extracts the nested attribute; a FIFO; `/dev/zero`;
//! a file that grows while it is read. Each must end (bounded by a timeout here) with a clear error naming the
//! file, or with what was there — never a stack overflow, a hang or unbounded memory.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Duration;

use shardlens::model::design::GsiSpec;
use shardlens::source::{self, FormatIn, LoadOptions, Loaded, SourceError};

#[path = "support/cli.rs"]
mod support;

/// Levels of nesting thrown at the parsers.
const DEEP: usize = 10_000;
/// How long one hostile load may take before the test calls it a hang.
const TIMEOUT: Duration = Duration::from_secs(20);

fn temp_dir(name: &str) -> PathBuf {
    support::temp_dir("hostile", name)
}

/// Loads `path` on a thread of its own with the default 2 MiB stack (the app's load task has no bigger one),
/// failing the test when it takes longer than [`TIMEOUT`].
fn load_bounded(path: &Path, opts: &LoadOptions) -> Result<Loaded, SourceError> {
    let (tx, rx) = mpsc::channel();
    let (path, opts) = (path.to_path_buf(), opts.clone());
    std::thread::spawn(move || {
        let result = source::load(&[path], &opts, &AtomicBool::new(false), &mut |_| {});
        let _ = tx.send(result);
    });
    rx.recv_timeout(TIMEOUT)
        .unwrap_or_else(|_| panic!("the load did not end within {TIMEOUT:?}"))
}

fn with_gsi_on_deep() -> LoadOptions {
    let mut opts = LoadOptions::default();
    opts.design
        .gsis
        .push(GsiSpec::parse("byDeep=deep").unwrap());
    opts
}

fn repeat(s: &str, n: usize) -> String {
    s.repeat(n)
}

/// A typed value nested `DEEP` maps deep: `{"M":{"a":{"M":{"a":…{"S":"x"}…}}}}`.
fn typed_maps() -> String {
    format!(
        "{}{{\"S\":\"x\"}}{}",
        repeat("{\"M\":{\"a\":", DEEP),
        repeat("}}", DEEP)
    )
}

/// A typed value nested `DEEP` lists deep: `{"L":[{"L":[…{"S":"x"}…]}]}`.
fn typed_lists() -> String {
    format!(
        "{}{{\"S\":\"x\"}}{}",
        repeat("{\"L\":[", DEEP),
        repeat("]}", DEEP)
    )
}

/// Plain JSON nested `DEEP` objects deep: `{"a":{"a":…1…}}`.
fn plain_objects() -> String {
    format!("{}1{}", repeat("{\"a\":", DEEP), repeat("}", DEEP))
}

/// Plain JSON nested `DEEP` arrays deep: `[[[…]]]`.
fn plain_arrays() -> String {
    format!("{}{}", repeat("[", DEEP), repeat("]", DEEP))
}

/// The loaders' depth limit for JSON (serde_json's recursion limit), the same in every shape.
const JSON_DEEP: &str = "invalid JSON: nested deeper than 128 levels at column ";
/// The Ion reader's depth limit.
const ION_DEEP: &str = "invalid Ion: nesting deeper than 64 levels at column ";

/// A file to load: its name, its content, and what its error says (besides naming it).
type Hostile = (String, String, &'static str);

/// Every JSON shape with a deep value in its item (after the key, so the key is found first), and bare deep
/// documents.
fn deep_json_files() -> Vec<Hostile> {
    let mut files = Vec::new();
    let mut add = |name: String, content: String, says: &'static str| {
        files.push((name, content, says));
    };
    for (kind, typed) in [("maps", typed_maps()), ("lists", typed_lists())] {
        add(
            format!("lines-typed-{kind}.json"),
            format!("{{\"Item\":{{\"pk\":{{\"S\":\"a\"}},\"deep\":{typed}}}}}\n"),
            JSON_DEEP,
        );
        add(
            format!("scan-{kind}.json"),
            format!(
                "{{\"Items\":[{{\"pk\":{{\"S\":\"a\"}},\"deep\":{typed}}}],\"Count\":1,\"ScannedCount\":1}}"
            ),
            JSON_DEEP,
        );
        add(
            format!("array-typed-{kind}.json"),
            format!("[{{\"pk\":{{\"S\":\"a\"}},\"deep\":{typed}}}]"),
            JSON_DEEP,
        );
        // After an item that decided how the items are written (the first one is parsed whole).
        add(
            format!("array-typed-second-{kind}.json"),
            format!("[{{\"pk\":{{\"S\":\"a\"}}}},{{\"pk\":{{\"S\":\"b\"}},\"deep\":{typed}}}]"),
            JSON_DEEP,
        );
        add(
            format!("lines-typed-second-{kind}.json"),
            format!(
                "{{\"Item\":{{\"pk\":{{\"S\":\"a\"}}}}}}\n{{\"Item\":{{\"pk\":{{\"S\":\"b\"}},\"deep\":{typed}}}}}\n"
            ),
            JSON_DEEP,
        );
        add(
            format!("batch-{kind}.json"),
            format!(
                "{{\"T\":[{{\"PutRequest\":{{\"Item\":{{\"pk\":{{\"S\":\"a\"}},\"deep\":{typed}}}}}}}]}}"
            ),
            JSON_DEEP,
        );
        add(
            format!("incremental-{kind}.json"),
            format!(
                "{{\"Metadata\":{{\"WriteTimestampMicros\":{{\"N\":\"1\"}}}},\"Keys\":{{\"pk\":{{\"S\":\"a\"}}}},\
                 \"NewImage\":{{\"pk\":{{\"S\":\"a\"}},\"deep\":{typed}}}}}\n"
            ),
            JSON_DEEP,
        );
    }
    // Not attribute values at all, but serde would only find out after skipping them.
    add(
        "lines-raw-objects.json".into(),
        format!(
            "{{\"Item\":{{\"pk\":{{\"S\":\"a\"}},\"deep\":{}}}}}\n",
            plain_objects()
        ),
        JSON_DEEP,
    );
    add(
        "lines-raw-arrays.json".into(),
        format!(
            "{{\"Item\":{{\"pk\":{{\"S\":\"a\"}},\"deep\":{}}}}}\n",
            plain_arrays()
        ),
        JSON_DEEP,
    );
    for (kind, plain) in [("objects", plain_objects()), ("arrays", plain_arrays())] {
        add(
            format!("array-plain-{kind}.json"),
            format!("[{{\"pk\":\"a\",\"deep\":{plain}}}]"),
            JSON_DEEP,
        );
        add(
            format!("items-plain-{kind}.json"),
            format!("{{\"pk\":\"a\",\"deep\":{plain}}}\n{{\"pk\":\"b\"}}\n"),
            JSON_DEEP,
        );
    }
    add("bare-objects.json".into(), plain_objects(), JSON_DEEP);
    // Detection looks one level in and refuses an array of arrays before any nesting is read.
    add(
        "bare-arrays.json".into(),
        plain_arrays(),
        "a JSON array of arrays: not an export, scan, request file or Workbench model",
    );
    files
}

fn deep_ion_files() -> Vec<Hostile> {
    let structs = format!("{}1{}", repeat("{a:", DEEP), repeat("}", DEEP));
    let lists = format!("{}1{}", repeat("[", DEEP), repeat("]", DEEP));
    let sexps = format!("{}1{}", repeat("(", DEEP), repeat(")", DEEP));
    let mut files: Vec<Hostile> = Vec::new();
    for (kind, deep) in [("structs", &structs), ("lists", &lists), ("sexps", &sexps)] {
        files.push((
            format!("item-{kind}.ion"),
            format!("$ion_1_0 {{Item:{{pk:\"a\",deep:{deep}}}}}\n"),
            ION_DEEP,
        ));
    }
    files.push((
        "bare-structs.ion".into(),
        format!("$ion_1_0 {structs}\n"),
        ION_DEEP,
    ));
    // A record must be a struct: a list or s-expression is refused at its first bracket.
    for (kind, deep) in [("lists", &lists), ("sexps", &sexps)] {
        files.push((
            format!("bare-{kind}.ion"),
            format!("$ion_1_0 {deep}\n"),
            "invalid Ion: expected a struct {Item:{…}} at column 10",
        ));
    }
    files
}

/// Loads every file with `opts` (as `format`) and checks each ends in an error that says what it expects and
/// names the file last.
fn check_deep(dir: &Path, files: &[Hostile], opts: &LoadOptions, format: FormatIn) {
    let mut failures = Vec::new();
    for (name, content, says) in files {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let opts = LoadOptions {
            format,
            ..opts.clone()
        };
        match load_bounded(&path, &opts) {
            Ok(loaded) => failures.push(format!(
                "{name}: loaded {} keys, expected an error",
                loaded.keys.len()
            )),
            Err(e) => {
                let msg = format!("{e:#}");
                let names_file = msg.ends_with(&format!("(in {})", path.display()));
                if !msg.contains(says) || !names_file {
                    failures.push(format!("{name}: {msg}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deeply_nested_json_is_an_error_naming_the_file() {
    let dir = temp_dir("deep-json");
    let files = deep_json_files();
    check_deep(&dir, &files, &LoadOptions::default(), FormatIn::Auto);
    check_deep(&dir, &files, &with_gsi_on_deep(), FormatIn::Auto);
}

#[test]
fn deeply_nested_ion_is_an_error_naming_the_file() {
    let dir = temp_dir("deep-ion");
    let files = deep_ion_files();
    check_deep(&dir, &files, &LoadOptions::default(), FormatIn::Auto);
    check_deep(&dir, &files, &with_gsi_on_deep(), FormatIn::Auto);
    check_deep(&dir, &files, &with_gsi_on_deep(), FormatIn::Ion);
}
