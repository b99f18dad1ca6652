//! Every input format, loaded through the library API and through the real binary, with exact counts; and
//! every kind of bad input, each giving one clear message that names the file and the line or item.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use serde_json::Value;
use shardlens::model::KeyType;
use shardlens::source::{self, FormatIn, LoadOptions, Loaded, OnBad, SourceError};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

#[path = "support/sizes.rs"]
mod sizes;
#[path = "support/cli.rs"]
mod support;

use support::run;

fn temp_dir(name: &str) -> PathBuf {
    support::temp_dir("loaders", name)
}

fn load_with(paths: &[PathBuf], opts: &LoadOptions) -> Result<Loaded, SourceError> {
    source::load(paths, opts, &AtomicBool::new(false), &mut |_| {})
}

fn load(name: &str) -> Loaded {
    load_with(&[fixture(name)], &LoadOptions::default()).unwrap()
}

fn cli_json(args: &[&str]) -> Value {
    let mut all = vec!["analyze", "--format", "json", "--top", "20"];
    all.extend_from_slice(args);
    support::json(&run(&all))
}

/// Key → count of a load, as text.
fn counts(loaded: &Loaded) -> HashMap<String, u64> {
    loaded
        .keys
        .iter()
        .map(|(i, _, c)| (loaded.keys.display(i).into_owned(), c))
        .collect()
}

/// Checks a fixture both ways: library counts, and the CLI's `total`, `distinct` and `top_keys`.
fn check(name: &str, extra: &[&str], expected: &[(&str, u64)]) {
    let want: HashMap<String, u64> = expected.iter().map(|&(k, c)| (k.to_owned(), c)).collect();
    let total: u64 = want.values().sum();
    let path = fixture(name);
    let arg = |name: &str| {
        extra
            .iter()
            .position(|a| *a == name)
            .map(|i| extra[i + 1].to_owned())
    };
    let opts = LoadOptions {
        key: arg("--key"),
        sort_key: arg("--sort-key"),
        table: arg("--table"),
        csv_columns: arg("--csv-columns").map(|c| c.split(',').map(str::to_owned).collect()),
        ..LoadOptions::default()
    };
    let loaded = load_with(std::slice::from_ref(&path), &opts).unwrap();
    assert_eq!(counts(&loaded), want, "{name} (library)");
    assert_eq!(loaded.keys.total(), total, "{name}");

    let mut args = vec![path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let doc = cli_json(&args);
    assert_eq!(doc["total"], total, "{name}");
    assert_eq!(doc["distinct"], want.len(), "{name}");
    let top = doc["top_keys"].as_array().unwrap();
    assert_eq!(top.len(), want.len());
    let mut sorted: Vec<(&str, u64)> = expected.to_vec();
    sorted.sort_by_key(|&(_, c)| std::cmp::Reverse(c));
    for (t, (k, c)) in top.iter().zip(&sorted) {
        assert_eq!(t["count"], *c, "{name}: {t}");
        assert_eq!(
            want[t["key"].as_str().unwrap()],
            t["count"].as_u64().unwrap()
        );
        if sorted.iter().filter(|(_, x)| x == c).count() == 1 {
            assert_eq!(t["key"], *k, "{name}");
        }
    }
}

#[test]
fn plain_lines() {
    check("keys.txt", &[], &[("a", 3), ("b", 2), ("c", 1)]);
}

#[test]
fn csv_with_quotes_and_counts() {
    check(
        "keys.csv",
        &[],
        &[("a,\"q\"", 4), ("b", 2), ("multi\nline", 1)],
    );
    check(
        "keys.csv",
        &["--key", "name"],
        &[("x, y", 3), ("z", 2), ("w", 1), ("v", 1)],
    );
}

#[test]
fn dynamodb_json_plain_and_gzip_with_sort_keys() {
    let want = [("USER#1", 3), ("USER#2", 2), ("USER#3", 1)];
    check("items.json", &[], &want);
    check("items.json.gz", &[], &want);
    // zstd, two frames back to back.
    check("items.json.zst", &[], &want);
    let loaded = load("items.json.gz");
    assert_eq!(loaded.key_attribute.as_deref(), Some("pk"));
    assert_eq!(loaded.sort_key_attribute.as_deref(), Some("sk"));
    let user1 = loaded.keys.find(b"USER#1").unwrap();
    let facts = loaded.keys.sort_key_facts(user1).unwrap();
    assert_eq!(facts.items, 3);
    // An export lists items in read order: "only increasing" is never read from it.
    assert!(!facts.only_increasing);
    let user2 = loaded.keys.find(b"USER#2").unwrap();
    assert_eq!(loaded.keys.sort_key_facts(user2).unwrap().items, 2);
    assert!(
        loaded.warnings.iter().any(|w| w.contains("guessed")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn numbers_are_canonical() {
    check("numbers.json", &[], &[("1", 3), ("2", 1)]);
    assert_eq!(load("numbers.json").keys.key_type(), KeyType::N);
}

#[test]
fn scan_output_pages() {
    check(
        "scan.json",
        &[],
        &[("ORDER#1", 3), ("ORDER#2", 1), ("ORDER#3", 1)],
    );
    assert_eq!(load("scan.json").sort_key_attribute.as_deref(), Some("SK"));
}

#[test]
fn ion_export_lines() {
    check("items.ion", &[], &[("103", 3), ("7", 1)]);
}

#[test]
fn incremental_export() {
    check("incremental.json", &[], &[("123", 2), ("7", 1)]);
}

#[test]
fn workbench_model() {
    check("workbench.json", &[], &[("d#12345", 2), ("d#2", 1)]);
    let loaded = load("workbench.json");
    assert_eq!(loaded.key_attribute.as_deref(), Some("DeviceID"));
    assert_eq!(loaded.sort_key_attribute.as_deref(), Some("State"));
}

#[test]
fn s3_export_folder_with_groups() {
    let want = [("K#1", 3), ("K#2", 1), ("K#3", 1)];
    check("export", &[], &want);
    check("export/AWSDynamoDB/01700000000000-abcdef12", &[], &want);
    let loaded = load("export");
    let groups = loaded.groups.unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(
        (groups[0].name.as_str(), groups[0].items),
        ("data/aaaa.json.gz", 3)
    );
    assert_eq!(
        (groups[1].name.as_str(), groups[1].items),
        ("data/bbbb.json.gz", 2)
    );
    assert!(
        loaded.warnings.iter().all(|w| !w.contains("manifest")),
        "{:?}",
        loaded.warnings
    );
    let doc = cli_json(&[fixture("export").to_str().unwrap()]);
    assert_eq!(doc["input"]["groups"][0]["items"], 3);
}

#[test]
fn several_paths_load_into_one_key_set() {
    let loaded = load_with(
        &[fixture("items.json"), fixture("items.json.gz")],
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(loaded.keys.total(), 12);
    assert_eq!(loaded.keys.count(loaded.keys.find(b"USER#1").unwrap()), 6);
    let doc = cli_json(&[
        fixture("items.json").to_str().unwrap(),
        fixture("items.json.gz").to_str().unwrap(),
    ]);
    assert_eq!(doc["total"], 12);
}

#[test]
fn forced_format() {
    // Forced to lines, a JSON file is one key per line.
    let opts = LoadOptions {
        format: FormatIn::Lines,
        ..LoadOptions::default()
    };
    let loaded = load_with(&[fixture("numbers.json")], &opts).unwrap();
    assert_eq!(loaded.keys.len(), 4);
    let doc = cli_json(&[
        "--format-in",
        "lines",
        fixture("numbers.json").to_str().unwrap(),
    ]);
    assert_eq!(doc["distinct"], 4);
}

// ---- bad input -------------------------------------------------------------------------------------------------

/// The library error and the CLI's single stderr line, both containing every part of `expected` and the file.
fn bad(path: &Path, extra: &[&str], expected: &[&str]) {
    let opts = LoadOptions {
        format: if extra.contains(&"csv") {
            FormatIn::Csv
        } else {
            FormatIn::Auto
        },
        ..LoadOptions::default()
    };
    let err = load_with(&[path.to_path_buf()], &opts)
        .unwrap_err()
        .to_string();
    let file = path.file_name().unwrap().to_str().unwrap();
    for part in expected.iter().chain([&file]) {
        assert!(err.contains(part), "{err:?} should contain {part:?}");
    }
    let shown = path.display().to_string();
    let last = err.rfind("(in ").expect("the path is named last");
    assert!(
        err[last..].contains(&shown) && err.ends_with(')'),
        "path last: {err}"
    );
    let mut args = vec!["analyze", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(&err), "{stderr} vs {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn truncated_gzip() {
    bad(
        &fixture("bad/truncated.json.gz"),
        &[],
        &["gzip data is truncated or corrupt after line"],
    );
}

#[test]
fn truncated_zstd() {
    bad(
        &fixture("bad/truncated.json.zst"),
        &[],
        &[
            "zstd data is truncated or corrupt",
            "expected a complete zstd file",
        ],
    );
}

#[test]
fn invalid_json_names_the_line() {
    bad(
        &fixture("bad/invalid-json.json"),
        &[],
        &["line 3: invalid JSON: EOF while parsing an object at column 24"],
    );
}

#[test]
fn item_without_the_key() {
    bad(
        &fixture("bad/no-key.json"),
        &[],
        &["line 2: item has no attribute \"pk\"; expected the partition key"],
    );
}

#[test]
fn key_of_the_wrong_type() {
    bad(
        &fixture("bad/wrong-type.json"),
        &[],
        &[
            "line 2: partition key \"pk\" is of type N (number); expected S (string) like the first item's",
        ],
    );
    // Given a type, every item is checked against it.
    let out = run(&[
        "analyze",
        "--key-type",
        "N",
        fixture("items.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "line 1: partition key \"pk\" is of type S (string); expected N (number) as --key-type says"
    ));
}

#[test]
fn invalid_utf8() {
    bad(
        &fixture("bad/invalid-utf8.json"),
        &[],
        &["line 2: not valid UTF-8 at byte 24; expected UTF-8 JSON"],
    );
}

#[test]
fn binary_file() {
    bad(
        &fixture("bad/binary.bin"),
        &[],
        &["binary data (NUL bytes)"],
    );
}

#[test]
fn ragged_csv() {
    bad(
        &fixture("bad/ragged.csv"),
        &[],
        &[
            "line 3: row has 1 field; expected at least 2 for the key column \"pk\" (the header has 2)",
        ],
    );
}

#[test]
fn manifest_names_a_missing_data_file() {
    bad(
        &fixture("bad/missing-data"),
        &[],
        &[
            "line 2: names data file \"AWSDynamoDB/01700000000001-deadbeef/data/gone.json.gz\", which is missing",
            "manifest-files.json",
        ],
    );
}

#[test]
fn counts_that_disagree_with_the_manifest_are_warnings() {
    let path = fixture("bad/count-mismatch");
    let loaded = load_with(std::slice::from_ref(&path), &LoadOptions::default()).unwrap();
    assert_eq!(loaded.keys.total(), 5);
    let w = loaded.warnings.join("\n");
    assert!(
        w.contains("data/aaaa.json.gz holds 3 items, but manifest-files.json says 4"),
        "{w}"
    );
    assert!(
        w.contains("the export holds 5 items, but manifest-summary.json says 10"),
        "{w}"
    );
    assert!(!w.contains("bbbb"), "{w}");
    let out = run(&["analyze", "--format", "json", path.to_str().unwrap()]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("manifest-summary.json says 10"), "{stderr}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], 5);
}

#[test]
fn empty_file_is_no_keys_with_a_warning() {
    let path = fixture("bad/empty.json");
    let loaded = load_with(std::slice::from_ref(&path), &LoadOptions::default()).unwrap();
    assert!(loaded.keys.is_empty());
    assert!(loaded.warnings[0].contains("is empty: no keys"));
    let out = run(&["analyze", path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no keys"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.json is empty"));
}

#[test]
fn a_100_mb_line_is_a_clear_error() {
    let dir = temp_dir("huge");
    let path = dir.join("huge.json");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"{\"Item\":{\"pk\":{\"S\":\"").unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..100 {
        f.write_all(&chunk).unwrap();
    }
    f.write_all(b"\"}}}\n").unwrap();
    drop(f);
    bad(
        &path,
        &[],
        &["line 1: line is over 16777216 bytes; expected one record a line"],
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn skip_policy_counts_and_reports() {
    let opts = LoadOptions {
        on_bad: OnBad::Skip,
        ..LoadOptions::default()
    };
    let loaded = load_with(&[fixture("bad/no-key.json")], &opts).unwrap();
    assert_eq!(loaded.keys.total(), 1);
    assert_eq!(loaded.skipped, 1);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.starts_with("skipped: line 2"))
    );
    let out = run(&[
        "analyze",
        "--skip-bad",
        "--format",
        "json",
        fixture("bad/no-key.json").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped 1 bad record\n"));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["input"]["skipped"], 1);
    // Fatal problems stop whatever the policy.
    let err = load_with(&[fixture("bad/truncated.json.gz")], &opts).unwrap_err();
    assert!(err.to_string().contains("gzip"));
}

// ---- exactness on a generated export -------------------------------------------------------------------------

/// Writes an S3 export folder whose key `KEY#r` has `floor(C / r)` items (Zipf, s = 1), spread over `files`
/// gzip data files; returns the truth.
fn zipf_export(root: &Path, files: usize, ranks: u64, c: u64) -> HashMap<String, u64> {
    let data = root.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut truth = HashMap::new();
    let mut per_file: Vec<Vec<u8>> = vec![Vec::new(); files];
    let mut counts = vec![0u64; files];
    let mut n = 0usize;
    for r in 1..=ranks {
        let key = format!("KEY#{r}");
        let count = c / r;
        truth.insert(key.clone(), count);
        for i in 0..count {
            let f = n % files;
            n += 1;
            writeln!(
                per_file[f],
                "{{\"Item\":{{\"pk\":{{\"S\":\"{key}\"}},\"sk\":{{\"N\":\"{i}\"}},\"data\":{{\"S\":\"lorem ipsum {i}\"}}}}}}"
            )
            .unwrap();
            counts[f] += 1;
        }
    }
    let mut manifest = String::new();
    for (f, bytes) in per_file.iter().enumerate() {
        let name = format!("file-{f:02}.json.gz");
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(data.join(&name)).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap();
        manifest.push_str(&format!(
            "{{\"itemCount\":{},\"md5Checksum\":\"x\",\"etag\":\"y\",\"dataFileS3Key\":\"AWSDynamoDB/x/data/{name}\"}}\n",
            counts[f]
        ));
    }
    std::fs::write(root.join("manifest-files.json"), manifest).unwrap();
    std::fs::write(
        root.join("manifest-summary.json"),
        format!(
            "{{\"itemCount\":{},\"outputFormat\":\"DYNAMODB_JSON\"}}",
            counts.iter().sum::<u64>()
        ),
    )
    .unwrap();
    truth
}

#[test]
fn generated_export_is_counted_exactly() {
    let dir = temp_dir("zipf-export");
    let truth = zipf_export(&dir, 5, 300, 3000);
    let total: u64 = truth.values().sum();
    let doc = cli_json(&[dir.to_str().unwrap()]);
    assert_eq!(doc["total"], total);
    assert_eq!(doc["distinct"], truth.len());
    assert!(
        doc["input"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| !w.as_str().unwrap().contains("says"))
    );
    let top = doc["top_keys"].as_array().unwrap();
    assert_eq!(top.len(), 20);
    for (i, t) in top.iter().enumerate() {
        let key = format!("KEY#{}", i + 1);
        assert_eq!(t["key"], key.as_str());
        assert_eq!(t["count"], truth[&key]);
    }
    let groups: u64 = doc["input"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["items"].as_u64().unwrap())
        .sum();
    assert_eq!(groups, total);
}

/// An export's manifest, picked by a user who exported a table, reads as its export, and says so; with a
/// format given, the file itself is read.
#[test]
fn an_export_manifest_reads_as_its_export() {
    let dir = temp_dir("manifest-export");
    let truth = zipf_export(&dir, 3, 50, 500);
    let total: u64 = truth.values().sum();
    for manifest in ["manifest-summary.json", "manifest-files.json"] {
        let path = dir.join(manifest);
        let doc = cli_json(&[path.to_str().unwrap()]);
        assert_eq!(doc["total"], total, "{manifest}");
        assert_eq!(doc["distinct"], truth.len());
        let warnings = doc["input"]["warnings"].as_array().unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.as_str().unwrap().contains(&format!(
                    "{manifest} is an S3 export's manifest: read as the export in"
                ))),
            "{warnings:?}"
        );
    }
    let path = dir.join("manifest-files.json");
    let doc = cli_json(&[
        path.to_str().unwrap(),
        "--format-in",
        "json-items",
        "--key",
        "etag",
    ]);
    assert_eq!(doc["total"], 3, "one item a data file");
}

/// Each key's items, their sizes together and the largest, by DynamoDB's rules ([`sizes`]), read off the
/// fixture's lines (`{"Item":{…}}`).
fn item_bytes_by_key(text: &str) -> HashMap<String, (u64, u64, u64)> {
    let mut by: HashMap<String, (u64, u64, u64)> = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let key = v["Item"]["pk"]["S"].as_str().unwrap().to_owned();
        let size = sizes::typed_item(&v["Item"]);
        let e = by.entry(key).or_default();
        e.0 += 1;
        e.1 += size;
        e.2 = e.2.max(size);
    }
    by
}

#[test]
fn item_sizes_are_measured_per_key_and_feed_the_capacity_model() {
    let want = item_bytes_by_key(&std::fs::read_to_string(fixture("items.json")).unwrap());
    for name in ["items.json", "items.json.gz"] {
        let loaded = load(name);
        for (key, &(items, bytes, max)) in &want {
            let b = loaded
                .keys
                .item_bytes(loaded.keys.find(key.as_bytes()).unwrap())
                .unwrap();
            assert_eq!(
                (b.items, b.bytes, b.max),
                (items, bytes, max),
                "{name} {key}"
            );
        }
    }
    let total: u64 = want.values().map(|w| w.1).sum();
    let items: u64 = want.values().map(|w| w.0).sum();
    // The CLI reports the sizes and, with a workload, uses them for the item size.
    let doc = cli_json(&[
        fixture("items.json").to_str().unwrap(),
        "--writes-per-sec",
        "10",
    ]);
    assert_eq!(doc["item_sizes"]["items"], items);
    assert_eq!(doc["item_sizes"]["bytes"], total);
    assert_eq!(doc["item_sizes"]["largest_collection"]["key"], "USER#1");
    let measured = &doc["workload"]["item_size"]["measured"]["groups"];
    assert_eq!(measured[0]["items"], items, "{doc:#}");
    assert_eq!(measured[0]["kb"], 1);
    // A size given by hand wins; plain text carries no sizes.
    let doc = cli_json(&[
        fixture("items.json").to_str().unwrap(),
        "--writes-per-sec",
        "10",
        "--item-size",
        "5000",
    ]);
    assert_eq!(doc["workload"]["item_size"]["bytes"], 5000);
    assert_eq!(doc["capacity"]["units_per_write"], 5.0);
    let doc = cli_json(&[
        fixture("keys.txt").to_str().unwrap(),
        "--writes-per-sec",
        "10",
    ]);
    assert!(doc.get("item_sizes").is_none());
    assert_eq!(doc["workload"]["item_size"]["bytes"], 1024);
}

#[test]
fn item_sizes_from_an_export_folder_and_ion() {
    // The export's items, loaded on several threads, measure the same as read line by line.
    let loaded = load("export");
    let mut want_bytes = 0u64;
    for entry in
        std::fs::read_dir(fixture("export/AWSDynamoDB/01700000000000-abcdef12/data")).unwrap()
    {
        let mut text = String::new();
        let file = std::fs::File::open(entry.unwrap().path()).unwrap();
        std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(file), &mut text)
            .unwrap();
        want_bytes += item_bytes_by_key(&text).values().map(|w| w.1).sum::<u64>();
    }
    let profile = loaded.keys.size_profile().unwrap();
    assert_eq!((profile.items(), profile.bytes()), (5, want_bytes));
    // Ion: sized by the same rules (`{'Id':7,Data:{{AQID}}}`: Id 2+2, Data 4+3).
    let loaded = load("items.ion");
    let profile = loaded.keys.size_profile().unwrap();
    assert_eq!(profile.items(), loaded.keys.total());
    let seven = loaded
        .keys
        .item_bytes(loaded.keys.find(b"7").unwrap())
        .unwrap();
    assert_eq!((seven.items, seven.bytes), (1, 4 + 7));
    // 103., 1.03d2 and 0x67 are one key: three items.
    let hundred_three = loaded
        .keys
        .item_bytes(loaded.keys.find(b"103").unwrap())
        .unwrap();
    assert_eq!(hundred_three.items, 3);
}

// ---- every shape of DynamoDB file (issue 11) --------------------------------------------------------------------

fn opts_key(key: &str) -> LoadOptions {
    LoadOptions {
        key: Some(key.to_owned()),
        ..LoadOptions::default()
    }
}

#[test]
fn json_array_of_typed_items_pretty_printed() {
    let want = [("USER#1", 3), ("USER#2", 2), ("USER#3", 1)];
    check("shapes/array-typed.json", &[], &want);
    let loaded = load("shapes/array-typed.json");
    assert_eq!(
        loaded.shape.as_deref(),
        Some("JSON array of typed DynamoDB JSON items")
    );
    assert_eq!(loaded.sort_key_attribute.as_deref(), Some("sk"));
    // Sizes by DynamoDB's rules, as for an export line.
    let text = std::fs::read_to_string(fixture("shapes/array-typed.json")).unwrap();
    let items: Vec<Value> = serde_json::from_str(&text).unwrap();
    let bytes: u64 = items.iter().map(sizes::typed_item).sum();
    let profile = loaded.keys.size_profile().unwrap();
    assert_eq!((profile.items(), profile.bytes()), (6, bytes));
}

#[test]
fn json_array_of_plain_items_numbers_by_value() {
    let want = [("2013", 3), ("2012", 2), ("2011", 1)];
    check(
        "shapes/array-plain.json",
        &["--key", "year", "--sort-key", "title"],
        &want,
    );
    let loaded = load_with(&[fixture("shapes/array-plain.json")], &opts_key("year")).unwrap();
    assert_eq!(loaded.keys.key_type(), KeyType::N);
    assert_eq!(
        loaded.shape.as_deref(),
        Some("JSON array of plain JSON items")
    );
    // --key-type still applies: numbers are not strings.
    let out = run(&[
        "analyze",
        fixture("shapes/array-plain.json").to_str().unwrap(),
        "--key",
        "year",
        "--key-type",
        "S",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("item 1 (line 2): partition key \"year\" is of type N (number); expected S (string) as --key-type says"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn plain_json_lines_and_typed_items_without_the_wrapper() {
    let want = [("USER#1", 3), ("USER#2", 2), ("USER#3", 1)];
    check("shapes/plain.jsonl", &[], &want);
    check("shapes/put-items.txt", &[], &want);
    let plain = load("shapes/plain.jsonl");
    assert_eq!(plain.key_attribute.as_deref(), Some("PK"));
    assert_eq!(plain.sort_key_attribute.as_deref(), Some("SK"));
    assert!(
        plain
            .shape
            .unwrap()
            .starts_with("plain JSON items one after another")
    );
    let typed = load("shapes/put-items.txt");
    assert!(
        typed
            .shape
            .unwrap()
            .starts_with("typed DynamoDB JSON items one after another")
    );
}

#[test]
fn pretty_printed_get_item_output() {
    check("shapes/get-item.json", &[], &[("USER#1", 1), ("USER#2", 1)]);
}

#[test]
fn batch_write_request_file_with_two_tables() {
    // Orders: puts of 101, 102 and 101.0 (one key by value) and a delete of 103, each a write.
    check(
        "shapes/batch-write.json",
        &[],
        &[("101", 2), ("102", 1), ("103", 1)],
    );
    let loaded = load("shapes/batch-write.json");
    assert_eq!(loaded.tables, ["Orders", "Customers"]);
    assert_eq!(loaded.table.as_deref(), Some("Orders"));
    assert_eq!((loaded.changes.puts, loaded.changes.deletes), (3, 1));
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("2 tables; loaded \"Orders\", not Customers (pass --table NAME)")),
        "{:?}",
        loaded.warnings
    );
    check(
        "shapes/batch-write.json",
        &["--table", "Customers"],
        &[("1", 1)],
    );
    let doc = cli_json(&[
        fixture("shapes/batch-write.json").to_str().unwrap(),
        "--table",
        "Customers",
    ]);
    assert!(
        doc["input"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| !w.as_str().unwrap().contains("tables")),
        "{doc:#}"
    );
    assert_eq!(doc["input"]["changes"]["puts"], 1);
}

#[test]
fn scan_output_of_plain_items_and_without_count() {
    let want = [("USER#1", 3), ("USER#2", 2), ("USER#3", 1)];
    check("shapes/scan-plain.json", &[], &want);
    check("shapes/scan-no-count.json", &[], &want);
    assert!(
        load("shapes/scan-plain.json")
            .shape
            .unwrap()
            .contains("of plain JSON items")
    );
}

#[test]
fn workbench_facets_and_a_table_picked_by_name() {
    check(
        "shapes/workbench-facets.json",
        &[],
        &[("PLAYER#1", 3), ("PLAYER#2", 1)],
    );
    let loaded = load("shapes/workbench-facets.json");
    // The key attribute comes from KeyAttributes, not from the facets' alias templates.
    assert_eq!(loaded.key_attribute.as_deref(), Some("PK"));
    assert_eq!(loaded.sort_key_attribute.as_deref(), Some("SK"));
    assert_eq!(loaded.tables, ["Players", "Scores"]);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.contains("loaded \"Players\", not Scores")),
        "{:?}",
        loaded.warnings
    );
    check(
        "shapes/workbench-facets.json",
        &["--table", "Scores"],
        &[("7", 2), ("8", 1)],
    );
}

#[test]
fn a_table_that_is_not_there_lists_the_tables() {
    for (name, listed) in [
        ("shapes/batch-write.json", "it has Orders, Customers"),
        ("shapes/workbench-facets.json", "it has Players, Scores"),
    ] {
        let path = fixture(name);
        let opts = LoadOptions {
            table: Some("Nope".into()),
            ..LoadOptions::default()
        };
        let err = load_with(std::slice::from_ref(&path), &opts)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no table \"Nope\""), "{err}");
        assert!(err.contains(listed), "{err}");
        let out = run(&["analyze", path.to_str().unwrap(), "--table", "Nope"]);
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(listed) && stderr.contains(name), "{stderr}");
    }
}

#[test]
fn csv_without_a_header_names_its_columns() {
    let path = fixture("shapes/noheader.csv");
    check(
        "shapes/noheader.csv",
        &["--csv-columns", "id,name,state", "--key", "state"],
        &[("TX", 3), ("CA", 1), ("NY", 1)],
    );
    let out = run(&[
        "analyze",
        path.to_str().unwrap(),
        "--csv-columns",
        "id,name,state",
        "--key",
        "state",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 rows have 4 fields, the --csv-columns list has 3"),
        "{stderr}"
    );
    let doc = support::json(&out);
    assert_eq!(doc["total"], 5);
}

#[test]
fn export_with_an_s3_prefix_and_empty_data_files() {
    let root = "shapes/export-prefix/team/exports/AWSDynamoDB/01700000000003-cafe0001";
    check(root, &[], &[("K#1", 1), ("K#2", 1)]);
    let loaded = load(root);
    let groups = loaded.groups.unwrap();
    assert_eq!(
        groups.iter().map(|g| g.items).collect::<Vec<_>>(),
        [0, 2, 0]
    );
    assert!(
        loaded
            .warnings
            .iter()
            .all(|w| !w.contains("manifest") && !w.contains("missing")),
        "{:?}",
        loaded.warnings
    );
    // The folder above works as well.
    check("shapes/export-prefix", &[], &[("K#1", 1), ("K#2", 1)]);
}

#[test]
fn incremental_export_with_shared_data_counts_each_kind() {
    let root = "shapes/incremental-export/inc/AWSDynamoDB/01700000000004-cafe0002";
    check(root, &[], &[("a", 3), ("b", 2)]);
    let loaded = load(root);
    assert_eq!(
        (
            loaded.changes.inserts,
            loaded.changes.updates,
            loaded.changes.deletes
        ),
        (2, 2, 1)
    );
    let out = run(&["analyze", fixture(root).to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("read as: S3 export folder (incremental export, 3 data files, 1 of them empty); 5 items (2 inserts, 2 updates, 1 delete)"),
        "{stdout}"
    );
    // The AWSDynamoDB folder itself holds one export beside the shared data/.
    check(
        "shapes/incremental-export/inc/AWSDynamoDB",
        &[],
        &[("a", 3), ("b", 2)],
    );
}

#[test]
fn array_element_that_is_not_an_object() {
    bad(
        &fixture("bad/array-not-object.json"),
        &[],
        &["item 2 (line 20): a number, not an item; expected an object of attributes"],
    );
    // Skipped with --skip-bad, as any bad record.
    let opts = LoadOptions {
        on_bad: OnBad::Skip,
        ..LoadOptions::default()
    };
    let loaded = load_with(&[fixture("bad/array-not-object.json")], &opts).unwrap();
    assert_eq!((loaded.keys.total(), loaded.skipped), (2, 1));
}

#[test]
fn array_item_with_a_key_of_the_wrong_type() {
    bad(
        &fixture("bad/array-wrong-type.json"),
        &[],
        &[
            "item 2 (line ",
            "partition key \"pk\" is of type N (number); expected S (string) like the first item's",
        ],
    );
}

#[test]
fn truncated_array_stops_whatever_the_policy() {
    let path = fixture("bad/truncated-array.json");
    bad(&path, &[], &["truncated file?"]);
    let opts = LoadOptions {
        on_bad: OnBad::Skip,
        ..LoadOptions::default()
    };
    assert!(load_with(&[path], &opts).is_err());
}

#[test]
fn request_with_neither_put_nor_delete() {
    bad(
        &fixture("bad/request-neither.json"),
        &[],
        &["item 2 (line 12): a request with neither PutRequest nor DeleteRequest"],
    );
}

#[test]
fn json_that_matches_no_shape_is_refused_not_read_as_lines() {
    bad(
        &fixture("bad/no-shape.json"),
        &[],
        &[
            "a JSON object with keys Foo, Bar, Baz: not an export, scan, request file or Workbench model",
        ],
    );
    bad(
        &fixture("bad/array-of-numbers.json"),
        &[],
        &["a JSON array of numbers: not an export, scan, request file or Workbench model"],
    );
}

/// Every JSON fixture and a few documents that match no shape, compact and pretty-printed: each is loaded by
/// a JSON shape or refused, never read as lines (no key is a line of JSON punctuation).
#[test]
fn json_is_never_read_as_lines() {
    let dir = temp_dir("never-lines");
    let mut docs: Vec<(String, Value)> = Vec::new();
    let mut stack = vec![fixture("")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(text) = std::fs::read_to_string(&p)
                && let Ok(v) = serde_json::from_str::<Value>(&text)
                && (v.is_object() || v.is_array())
            {
                docs.push((p.display().to_string(), v));
            }
        }
    }
    assert!(docs.len() >= 15, "{} JSON fixtures", docs.len());
    for odd in [
        r#"{"a":{"b":1}}"#,
        r#"{"Foo":[1,2]}"#,
        r#"[[1,2],[3]]"#,
        r#"["a","b","a"]"#,
        r#"[true,false]"#,
        r#"{}"#,
        r#"{"Items":"nope"}"#,
        r#"{"T":[{"x":1}]}"#,
    ] {
        docs.push((odd.to_owned(), serde_json::from_str(odd).unwrap()));
    }
    let (mut loaded_n, mut refused) = (0, 0);
    for (i, (origin, v)) in docs.iter().enumerate() {
        for (style, text) in [
            ("pretty", serde_json::to_string_pretty(v).unwrap()),
            ("compact", serde_json::to_string(v).unwrap()),
        ] {
            let path = dir.join(format!("doc-{i}-{style}.json"));
            std::fs::write(&path, &text).unwrap();
            let what = format!("{origin} ({style})");
            match load_with(&[path], &LoadOptions::default()) {
                Ok(loaded) => {
                    loaded_n += 1;
                    let shape = loaded.shape.unwrap_or_default();
                    assert!(!shape.contains("plain text"), "{what} read as {shape}");
                    for (k, _, _) in loaded.keys.iter() {
                        let key = loaded.keys.display(k);
                        assert!(
                            !key.trim().starts_with(['{', '}', '[', ']', '"']),
                            "{what}: key {key:?}"
                        );
                    }
                }
                Err(e) => {
                    let e = e.to_string();
                    assert!(!e.contains("line is over"), "{what}: {e}");
                    refused += usize::from(
                        e.contains(": not an export, scan, request file or Workbench model"),
                    );
                }
            }
        }
    }
    // Both outcomes are exercised: shapes loaded, and documents refused for fitting none.
    assert!(loaded_n >= 10, "{loaded_n} loaded");
    assert!(refused >= 8, "{refused} refused");
}

/// One set of items written in every JSON shape, compact and pretty-printed: each loads to the same counts.
#[test]
fn every_shape_compact_or_pretty_gives_the_same_counts() {
    let dir = temp_dir("every-shape");
    let mut truth: HashMap<String, u64> = HashMap::new();
    let mut typed = Vec::new();
    let mut plain = Vec::new();
    for r in 1..=40u64 {
        for i in 0..(120 / r) {
            let pk = format!("K#{r}");
            *truth.entry(pk.clone()).or_default() += 1;
            typed.push(serde_json::json!({"pk": {"S": pk}, "sk": {"N": i.to_string()}, "v": {"L": [{"S": "a ]}"}]}}));
            plain.push(serde_json::json!({"pk": pk, "sk": i, "v": ["a ]}", {"pk": "no"}]}));
        }
    }
    let total: u64 = truth.values().sum();
    let requests: Vec<Value> = typed
        .iter()
        .map(|i| serde_json::json!({"PutRequest": {"Item": i}}))
        .collect();
    let shapes: Vec<(&str, Value)> = vec![
        ("array-typed", Value::Array(typed.clone())),
        ("array-plain", Value::Array(plain.clone())),
        (
            "scan-typed",
            serde_json::json!({"Items": typed, "Count": total}),
        ),
        (
            "scan-plain",
            serde_json::json!({"Items": plain, "Count": total}),
        ),
        ("requests", serde_json::json!({"T": requests})),
    ];
    for (name, v) in &shapes {
        for (style, text) in [
            ("pretty", serde_json::to_string_pretty(v).unwrap()),
            ("compact", serde_json::to_string(v).unwrap()),
        ] {
            let path = dir.join(format!("{name}-{style}.json"));
            std::fs::write(&path, text).unwrap();
            let loaded = load_with(&[path], &LoadOptions::default()).unwrap();
            assert_eq!(counts(&loaded), truth, "{name} {style}");
            assert!(loaded.warnings.iter().all(|w| !w.contains("Count")));
        }
    }
    for (name, items) in [("typed", &typed), ("plain", &plain)] {
        let lines: String = items.iter().map(|i| format!("{i}\n")).collect();
        let path = dir.join(format!("{name}.jsonl"));
        std::fs::write(&path, lines).unwrap();
        let loaded = load_with(&[path], &LoadOptions::default()).unwrap();
        assert_eq!(counts(&loaded), truth, "{name} lines");
        // Pretty-printed back to back, as `jq '.Items[]'` prints them (the SIMD kernel takes all but the first).
        let pretty: String = items
            .iter()
            .map(|i| format!("{}\n", serde_json::to_string_pretty(i).unwrap()))
            .collect();
        let path = dir.join(format!("{name}-pretty-items.json"));
        std::fs::write(&path, pretty).unwrap();
        let loaded = load_with(&[path], &LoadOptions::default()).unwrap();
        assert_eq!(counts(&loaded), truth, "{name} pretty items");
        assert!(
            loaded
                .shape
                .unwrap_or_default()
                .contains("one after another"),
            "{name} pretty items"
        );
    }
}

/// A large array is read on two threads in batches: a bad item far in still stops the load at that item,
/// before a structural error after it, and the counts before it are exact under --skip-bad.
#[test]
fn a_bad_item_deep_in_a_large_array_is_named_exactly() {
    let dir = temp_dir("large-array");
    let mut text = String::from("[\n");
    for i in 1..=5000u32 {
        if i == 4321 {
            text.push_str("  7,\n");
        } else {
            text.push_str(&format!("  {{\"pk\": {{\"S\": \"K#{}\"}}}},\n", i % 10));
        }
    }
    text.push_str("  {\"pk\": {\"S\": \"K#0\"}} }\n");
    let path = dir.join("large.json");
    std::fs::write(&path, &text).unwrap();
    let err = load_with(std::slice::from_ref(&path), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("item 4321 (line 4322): a number, not an item"),
        "{err}"
    );
    let opts = LoadOptions {
        on_bad: OnBad::Skip,
        ..LoadOptions::default()
    };
    let err = load_with(std::slice::from_ref(&path), &opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid JSON after item 5001"), "{err}");
    let fixed = text.replace("} }\n", "}]\n");
    std::fs::write(&path, fixed).unwrap();
    let loaded = load_with(&[path], &opts).unwrap();
    assert_eq!((loaded.keys.total(), loaded.skipped), (5000, 1));
    // Item 4321 would have been K#1.
    assert_eq!(loaded.keys.count(loaded.keys.find(b"K#1").unwrap()), 499);
}

/// `analyze PATH --format json` plus `extra`: (total, distinct, stderr).
fn csv_header_run(name: &str, extra: &[&str]) -> (u64, u64, String) {
    let path = fixture(name);
    let mut args = vec!["analyze", path.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = run(&args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{name}: {stderr}");
    let doc = support::json(&out);
    (
        doc["total"].as_u64().unwrap(),
        doc["distinct"].as_u64().unwrap(),
        stderr,
    )
}

#[test]
fn a_header_less_csv_keeps_its_first_row_and_says_so() {
    // 12 employees, numeric ids first: every row is an item, keyed by col1.
    let (total, distinct, said) = csv_header_run("csv-header/employees-no-header.csv", &[]);
    assert_eq!((total, distinct), (12, 12));
    assert!(
        said.contains("CSV first row read as data, not a header")
            && said.contains("columns named col1, col2, …, col7")
            && said.contains("--csv-header yes"),
        "{said}"
    );
    // By state: 5 TX, 4 CA, 3 IL (col6).
    let (total, distinct, _) =
        csv_header_run("csv-header/employees-no-header.csv", &["--key", "col6"]);
    assert_eq!((total, distinct), (12, 3));
    // The override reads the first row as the header, as before: 11 items.
    let (total, _, said) = csv_header_run(
        "csv-header/employees-no-header.csv",
        &["--csv-header", "yes"],
    );
    assert_eq!(total, 11);
    assert!(!said.contains("first row read as data"), "{said}");
    // Prefixed keys: 4 rows, 3 users.
    let (total, distinct, _) = csv_header_run("csv-header/prefixed-no-header.csv", &[]);
    assert_eq!((total, distinct), (4, 3));
}

#[test]
fn a_csv_with_a_header_loads_as_before() {
    for (name, total, distinct) in [
        ("csv-header/number-name-header.csv", 5, 5),
        ("csv-header/text-over-numbers.csv", 4, 3),
        // All text of no common shape: the first row stays the header (see src/source/csv.rs).
        ("csv-header/all-text-no-header.csv", 3, 3),
        ("keys.csv", 7, 3),
    ] {
        let (t, d, said) = csv_header_run(name, &[]);
        assert_eq!((t, d), (total, distinct), "{name}");
        assert!(!said.contains("first row read as data"), "{name}: {said}");
    }
    // --csv-header no reads the all-text file's first row as data.
    let (total, _, _) =
        csv_header_run("csv-header/all-text-no-header.csv", &["--csv-header", "no"]);
    assert_eq!(total, 4);
}
