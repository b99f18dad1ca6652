//! Hostile inputs through the real loaders (`shardlens::source::load`): nesting 10,000 levels deep in every
//! JSON shape and in Ion, with and without a design that extracts the nested attribute; a FIFO; `/dev/zero`;
//! a file that grows while it is read. Each must end (bounded by a timeout here) with a clear error naming the
//! file, or with what was there — never a stack overflow, a hang or unbounded memory.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::io::Write as _;
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
#[allow(
    clippy::too_many_lines,
    reason = "a table of hostile files, one entry per JSON shape"
)]
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

/// Runs the real binary on `/dev/zero` with `--format-in format`, under a 3 GB address-space limit (so a
/// reader that buffers without bound fails here instead of taking the machine's memory) and [`TIMEOUT`].
fn analyze_dev_zero(format: &str) -> std::process::Output {
    let mut child = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 3000000 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_shardlens"))
        .args(["analyze", "--format-in", format, "/dev/zero"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("--format-in {format} on /dev/zero did not end within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn dev_zero_ends_with_a_clear_message_in_every_format() {
    let expected = [
        (
            "auto",
            "binary data (NUL bytes); expected text: lines, CSV, JSON, Ion, or gzip of those",
        ),
        (
            "lines",
            "line 1: line is over 1048576 bytes; a key is at most 2048 bytes",
        ),
        // The csv crate buffered a row until it ended: this aborted on a failed 4 GiB allocation.
        (
            "csv",
            "line 1: row is over 16777216 bytes; expected rows of keys",
        ),
        (
            "dynamodb-json",
            "line 1: line is over 16777216 bytes; expected one record a line (a DynamoDB item is at most 400 KB)",
        ),
        (
            "scan-json",
            "line 1: found byte 0x00; expected a scan output page {\"Items\":[…],…}",
        ),
        (
            "ion",
            "line 1: line is over 16777216 bytes; expected one record a line (a DynamoDB item is at most 400 KB)",
        ),
        (
            "incremental",
            "line 1: line is over 16777216 bytes; expected one record a line (a DynamoDB item is at most 400 KB)",
        ),
        (
            "workbench",
            "model is over 67108864 bytes; expected a NoSQL Workbench model",
        ),
        (
            "json-array",
            "line 1: found byte 0x00 after the array of items; expected the end of the file",
        ),
        (
            "json-items",
            "line 1: a JSON value is over 16777216 bytes; expected items (a DynamoDB item is at most 400 KB)",
        ),
        (
            "batch-write",
            "line 1: found byte 0x00; expected a request file {\"TableName\":[{\"PutRequest\":…}]}",
        ),
    ];
    let mut failures = Vec::new();
    for (format, says) in expected {
        let out = analyze_dev_zero(format);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let want = format!("shardlens: {says} (in /dev/zero)\n");
        if out.status.code() != Some(1) || stderr != want || !out.stdout.is_empty() {
            failures.push(format!(
                "--format-in {format}: exit {:?}, stderr {stderr:?}, expected {want:?}",
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Makes a FIFO with `mkfifo` (no new dependency for one system call).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn a_fifo_loads_what_its_writer_wrote_and_ends_at_eof() {
    let dir = temp_dir("fifo");
    for (name, content, format) in [
        ("keys.fifo", "a\nb\na\n".to_owned(), FormatIn::Auto),
        (
            "export.fifo",
            "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n{\"Item\":{\"pk\":{\"S\":\"b\"}}}\n{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n"
                .to_owned(),
            FormatIn::Auto,
        ),
        ("rows.fifo", "pk\na\nb\na\n".to_owned(), FormatIn::Csv),
    ] {
        let path = dir.join(name);
        mkfifo(&path);
        // The writer blocks in open until the load opens the FIFO for reading, writes in pieces and closes.
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                for piece in content.as_bytes().chunks(5) {
                    f.write_all(piece).unwrap();
                    f.flush().unwrap();
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        let opts = LoadOptions {
            format,
            key: name.starts_with("export").then(|| "pk".to_owned()),
            ..LoadOptions::default()
        };
        let loaded = load_bounded(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        writer.join().unwrap();
        let a = loaded.keys.find(b"a").map(|i| loaded.keys.count(i));
        let b = loaded.keys.find(b"b").map(|i| loaded.keys.count(i));
        assert_eq!((loaded.keys.len(), a, b), (2, Some(2), Some(1)), "{name}");
        assert_eq!(loaded.items, 3, "{name}");
        assert!(loaded.warnings.is_empty(), "{name}: {:?}", loaded.warnings);
    }
}

#[test]
fn a_file_that_grows_while_it_is_read_loads_what_was_read_and_says_so() {
    let dir = temp_dir("growing");
    let path = dir.join("growing.txt");
    let initial: String = (0..200_000).map(|i| format!("k{i}\n")).collect();
    let appended: String = (200_000..200_100).map(|i| format!("k{i}\n")).collect();
    std::fs::write(&path, &initial).unwrap();
    let (tx, rx) = mpsc::channel();
    {
        let path = path.clone();
        let appended = appended.clone();
        std::thread::spawn(move || {
            let mut grown = false;
            // The first progress report comes after 65,536 lines, long before the reader reaches the end:
            // the file grows there, as a log being written does.
            let result = source::load(
                std::slice::from_ref(&path),
                &LoadOptions::default(),
                &AtomicBool::new(false),
                &mut |_| {
                    if !grown {
                        grown = true;
                        let mut f = std::fs::OpenOptions::new()
                            .append(true)
                            .open(&path)
                            .unwrap();
                        f.write_all(appended.as_bytes()).unwrap();
                    }
                },
            );
            let _ = tx.send(result);
        });
    }
    let loaded = rx
        .recv_timeout(TIMEOUT)
        .expect("the load did not end")
        .unwrap();
    assert_eq!(loaded.keys.len(), 200_100);
    assert_eq!(loaded.items, 200_100);
    let (size, read) = (initial.len(), initial.len() + appended.len());
    assert_eq!(
        loaded.warnings,
        [format!(
            "{} grew while it was read: {size} bytes when the load began, {read} read; the keys are those of \
             the {read} bytes (load it again once it is complete)",
            path.display()
        )]
    );
}
