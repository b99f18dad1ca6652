//! `shardlens analyze`, run as a user runs it: the real binary, real files, exit codes and output.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

#[path = "support/cli.rs"]
mod support;

use support::{bin, bucket_of, json, run};

fn temp_dir(name: &str) -> PathBuf {
    support::temp_dir("cli", name)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    run_stdin_with(args, input, &[])
}

/// [`run_stdin`] with environment variables set for the binary.
fn run_stdin_with(args: &[&str], input: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = bin()
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails on its arguments exits without reading: a broken pipe is expected then.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

/// A file whose key `k{r}` appears `floor(C / r)` times (Zipf, s = 1), shuffled deterministically.
fn zipf_file(dir: &Path) -> (PathBuf, HashMap<String, u64>) {
    let mut truth = HashMap::new();
    let mut lines = Vec::new();
    for r in 1..=500u64 {
        let count = 2000 / r;
        let key = format!("ITEM#{r}");
        truth.insert(key.clone(), count);
        for _ in 0..count {
            lines.push(key.clone());
        }
    }
    // Deterministic shuffle (LCG Fisher-Yates), so order does not help.
    let mut state = 7u64;
    for i in (1..lines.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let j = (state >> 33) as usize % (i + 1);
        lines.swap(i, j);
    }
    let path = write(dir, "zipf.txt", (lines.join("\n") + "\n").as_bytes());
    (path, truth)
}

#[test]
fn exact_counts_on_a_zipf_file() {
    let dir = temp_dir("zipf");
    let (path, truth) = zipf_file(&dir);
    let out = json(&run(&[
        "analyze",
        path.to_str().unwrap(),
        "--format",
        "json",
        "--buckets",
        "8",
        "--top",
        "5",
    ]));
    let total: u64 = truth.values().sum();
    assert_eq!(out["total"], total);
    assert_eq!(out["distinct"], truth.len());
    let mut expected = vec![0u64; 8];
    for (k, c) in &truth {
        expected[bucket_of(k, 8)] += c;
    }
    let buckets: Vec<u64> = out["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(buckets, expected);
    let top = out["top_keys"].as_array().unwrap();
    assert_eq!(top.len(), 5);
    for (i, t) in top.iter().enumerate() {
        let key = format!("ITEM#{}", i + 1);
        assert_eq!(t["key"], key.as_str());
        assert_eq!(t["count"], truth[&key]);
        let share = t["share"].as_f64().unwrap();
        assert!((share - truth[&key] as f64 / total as f64).abs() < 1e-12);
    }
    for field in ["max_over_mean", "gini", "top_key_share"] {
        assert!(out["stats"][field].is_number(), "{field}");
    }
    assert_eq!(out["shard"]["count"], 1);
    assert_eq!(out["shard"]["read_fan_out"], 1);
    assert!(out["decision"]["path"].as_array().unwrap().len() >= 2);
    assert!(out["decision"]["recommendation"].is_string());
}

fn hot_file(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for i in 0..1000 {
        if i % 10 == 9 {
            text.push_str(&format!("cold-{i}\n"));
        } else {
            text.push_str("HOT\n");
        }
    }
    write(dir, "hot.txt", text.as_bytes())
}

#[test]
fn sharding_a_ninety_percent_key_cools_its_bucket() {
    let dir = temp_dir("hot");
    let path = hot_file(&dir);
    let p = path.to_str().unwrap();
    let plain = json(&run(&["analyze", p, "--format", "json", "--buckets", "8"]));
    let before = plain["stats"]["hottest_bucket_share"].as_f64().unwrap();
    assert!(before >= 0.9, "{before}");
    assert_eq!(plain["top_keys"][0]["key"], "HOT");

    // Round-robin: each of HOT#0..HOT#9 takes exactly 90 writes; the buckets must be exactly what the hash
    // says for those ten keys plus the cold ones.
    let rr = json(&run(&[
        "analyze",
        p,
        "--format",
        "json",
        "--buckets",
        "8",
        "--shards",
        "10",
        "--shard-strategy",
        "round-robin",
    ]));
    let mut expected = vec![0u64; 8];
    for s in 0..10 {
        expected[bucket_of(&format!("HOT#{s}"), 8)] += 90;
    }
    for i in (9..1000).step_by(10) {
        expected[bucket_of(&format!("cold-{i}"), 8)] += 1;
    }
    let buckets: Vec<u64> = rr["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(buckets, expected);
    let after = rr["stats"]["hottest_bucket_share"].as_f64().unwrap();
    let expected_share = *expected.iter().max().unwrap() as f64 / 1000.0;
    assert!((after - expected_share).abs() < 1e-12);
    assert!(after < before / 2.0, "{before} → {after}");
    assert_eq!(rr["shard"]["read_fan_out"], 10);
    assert_eq!(rr["shard"]["sharded_keys"][0], "HOT");
    assert_eq!(rr["total"], 1000);

    // Random (seeded): reproducible, and just as cool.
    let args = [
        "analyze",
        p,
        "--format",
        "json",
        "--buckets",
        "8",
        "--shards",
        "10",
        "--seed",
        "3",
    ];
    let a = json(&run(&args));
    let b = json(&run(&args));
    assert_eq!(a["buckets"], b["buckets"]);
    assert!(a["stats"]["hottest_bucket_share"].as_f64().unwrap() < 0.5);
}

#[test]
fn reads_standard_input_and_prints_a_table() {
    let out = run_stdin(&["analyze", "-", "--buckets", "4"], b"a\nb\na\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("3 writes, 2 distinct keys"), "{text}");
    assert!(text.contains("teaching hash"), "{text}");
    assert!(text.contains("top keys:"), "{text}");
    let csv = run_stdin(
        &["analyze", "--format", "csv", "--buckets", "4"],
        b"a\nb\na\n",
    );
    let csv = String::from_utf8(csv.stdout).unwrap();
    assert_eq!(csv.lines().count(), 5);
    assert!(csv.starts_with("bucket,range_start,range_end,count,share,top_key,top_key_count\n"));
}

/// Gzip (two members) and zstd on standard input give what the same lines give plain, and a truncated gzip
/// stream stops the load with its reason.
#[test]
fn compressed_standard_input_reads_as_plain_does() {
    let mut lines = String::new();
    for i in 0..60_000 {
        lines.push_str(&format!("user#{}\n", (i * 7_919) % 1_000));
    }
    let (a, b) = lines.as_bytes().split_at(lines.len() / 3);
    let mut gz = Vec::new();
    for part in [a, b] {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(part).unwrap();
        gz.extend(enc.finish().unwrap());
    }
    let zst = zstd::encode_all(lines.as_bytes(), 1).unwrap();
    let args = ["analyze", "-", "--format", "json"];
    let report = |input: &[u8]| {
        let mut v = json(&run_stdin(&args, input));
        v.as_object_mut().unwrap().remove("input");
        v
    };
    let plain = report(lines.as_bytes());
    assert_eq!(plain["total"], 60_000);
    assert_eq!(report(&gz), plain, "gzip");
    assert_eq!(report(&zst), plain, "zstd");
    // The other gzip decompressor (zlib-rs when the build has ISA-L) reads the same.
    let mut zlib = json(&run_stdin_with(
        &args,
        &gz,
        &[("SHARDLENS_GZIP", "zlib-rs")],
    ));
    zlib.as_object_mut().unwrap().remove("input");
    assert_eq!(zlib, plain, "gzip through zlib-rs");
    let cut = run_stdin(&args, &gz[..gz.len() / 2]);
    assert!(!cut.status.success());
    let err = String::from_utf8_lossy(&cut.stderr);
    assert!(
        err.contains("standard input") && err.contains("incomplete deflate stream"),
        "{err}"
    );
}

/// `--version` names the gzip decompressor the build has (where tests/run.sh installed ISA-L, it is ISA-L) and
/// the JSON array kernel this CPU gets, which `SHARDLENS_SIMD=off` turns off.
#[test]
fn version_names_the_gzip_decompressor_and_the_json_kernel() {
    let out = bin().arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("(gzip: "), "{text}");
    assert!(text.contains("(JSON arrays: "), "{text}");
    let off = bin()
        .arg("--version")
        .env("SHARDLENS_SIMD", "off")
        .output()
        .unwrap();
    let off = String::from_utf8_lossy(&off.stdout);
    assert!(off.contains("(JSON arrays: byte by byte;"), "{off}");
    if std::env::var_os("SHARDLENS_REQUIRE_ISAL").is_some() {
        assert!(text.contains("(gzip: ISA-L;"), "{text}");
    }
}

#[test]
fn number_keys_merge_by_value() {
    let out = json(&run_stdin(
        &["analyze", "--key-type", "N", "--format", "json"],
        b"1\n1.0\n01\n1E0\n10E-1\n2\n",
    ));
    assert_eq!(out["distinct"], 2);
    assert_eq!(out["top_keys"][0]["key"], "1");
    assert_eq!(out["top_keys"][0]["count"], 5);
}

#[test]
fn empty_input_is_a_clear_no_keys_result() {
    let out = run_stdin(&["analyze"], b"");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no keys"));
    let doc = json(&run_stdin(&["analyze", "--format", "json"], b"\n\n"));
    assert_eq!(doc["total"], 0);
    assert_eq!(
        doc["decision"]["recommendation"],
        "No keys yet: paste keys or open a file."
    );
}

fn assert_bad_input(out: &Output, expected: &str) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(expected),
        "{err:?} should contain {expected:?}"
    );
    assert!(out.stdout.is_empty(), "no partial result is printed");
    assert_said_once(&err);
}

/// No part of an error's message is said twice: a reason that is both in an error's text and its `source()`
/// came out as "cannot read x: No such file or directory (os error 2): No such file or directory (os error 2)".
fn assert_said_once(err: &str) {
    let parts: Vec<&str> = err.trim().split(": ").filter(|p| p.len() >= 8).collect();
    for (i, part) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..].contains(part),
            "{part:?} is said twice in {err:?}"
        );
    }
}

/// A session file saved by the app is not keys: the CLI says what it is and how to open it.
#[test]
fn a_session_file_is_named_as_one() {
    let dir = temp_dir("session");
    let path = write(
        &dir,
        "class.json",
        br#"{"format": "shardlens-session", "version": 1, "settings": {}, "text": "a\nb\n"}"#,
    );
    let out = run(&["analyze", path.to_str().unwrap()]);
    assert_bad_input(
        &out,
        "class.json is a shardlens session (saved by the app), not keys",
    );
}

#[test]
fn bad_input_names_the_line() {
    let dir = temp_dir("bad");
    let utf8 = write(&dir, "utf8.txt", b"ok\nfine\n\xff\xfebad\n");
    assert_bad_input(
        &run(&["analyze", utf8.to_str().unwrap()]),
        "line 3: not valid UTF-8",
    );
    assert_bad_input(&run(&["analyze", utf8.to_str().unwrap()]), "utf8.txt");
    let num = write(&dir, "num.txt", b"1\n2\n3.5.1\n");
    assert_bad_input(
        &run(&["analyze", num.to_str().unwrap(), "--key-type", "N"]),
        "line 3: \"3.5.1\" is not a number",
    );
    let b64 = write(&dir, "b64.txt", b"AQID\n%%%\n");
    assert_bad_input(
        &run(&["analyze", b64.to_str().unwrap(), "--key-type", "B"]),
        "line 2: \"%%%\" is not valid base64",
    );
    let long = write(
        &dir,
        "long.txt",
        &[b"short\n".as_slice(), &[b'k'; 2049], b"\n"].concat(),
    );
    assert_bad_input(
        &run(&["analyze", long.to_str().unwrap()]),
        "line 2: key is 2049 bytes; DynamoDB allows at most 2048 bytes",
    );
    let missing = dir.join("missing.txt");
    assert_bad_input(&run(&["analyze", missing.to_str().unwrap()]), "cannot read");
    let missing_gz = dir.join("missing.json.gz");
    assert_bad_input(
        &run(&["analyze", missing_gz.to_str().unwrap()]),
        "No such file",
    );
    let scenario = write(
        &dir,
        "bad.toml",
        b"duration = \"1d\"\n[table]\nbilling = \"nope\"\n",
    );
    let out = run(&["simulate", scenario.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected one of provisioned, on-demand"),
        "{err}"
    );
    assert_said_once(&err);
    let out = run(&["simulate", dir.join("missing.toml").to_str().unwrap()]);
    assert_said_once(&String::from_utf8_lossy(&out.stderr));
}

/// A reader that stops early (`shardlens analyze … | head`) ends the command quietly with status 0, as `grep`'s
/// does, and the output it did read is the output's start.
#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::io::Read as _;
    let dir = temp_dir("early-reader");
    let keys: String = (0..40_000).map(|k| format!("customer#{k:06}\n")).collect();
    let path = write(&dir, "keys.txt", keys.as_bytes());
    let args = [
        "analyze",
        path.to_str().unwrap(),
        "--top",
        "40000",
        "--format",
        "json",
    ];
    let whole = run(&args);
    assert!(whole.status.success());
    // Far more than a pipe and the output's buffer hold, so the command is still writing when the reader goes.
    assert!(whole.stdout.len() > 1 << 20, "{} bytes", whole.stdout.len());
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut start = vec![0u8; 4096];
    child.stdout.take().unwrap().read_exact(&mut start).unwrap();
    // The read end is closed here.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        !err.contains("Broken pipe") && !err.contains("cannot write"),
        "{err}"
    );
    assert_eq!(start, whole.stdout[..4096]);
}

#[test]
fn bad_usage_exits_two() {
    for args in [
        vec!["analyze", "--buckets", "0"],
        vec!["analyze", "--shards", "201"],
        vec!["analyze", "--shard-strategy", "sideways"],
        vec!["analyze", "--hot-share", "1.5"],
        vec!["frobnicate"],
    ] {
        let out = run_stdin(&args, b"a\n");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

// ---- shardlens sql: the DuckDB query, run for real ---------------------------------------------------------------

/// The Python that has DuckDB's package (tests/duckdb.sh installs it and names it in SHARDLENS_PYTHON).
fn python_with_duckdb() -> Option<String> {
    let py = std::env::var("SHARDLENS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let ok = std::process::Command::new(&py)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

/// Runs a DuckDB script with `py`'s duckdb package; a failure shows DuckDB's error and the script.
fn run_duckdb(py: &str, script: &[u8]) {
    let out = run_with(
        py,
        &[
            "-c",
            "import duckdb, sys; duckdb.connect().execute(sys.stdin.read())",
        ],
        script,
    );
    assert!(
        out.status.success(),
        "duckdb: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(script)
    );
}

/// An S3 export of Zipf keys (some with commas and quotes, which the CSV must carry) over `files` data files;
/// returns its folder.
fn duck_export(dir: &Path, files: usize) -> PathBuf {
    let root = dir.join("AWSDynamoDB/01700000000009-duck0001");
    std::fs::create_dir_all(root.join("data")).unwrap();
    let mut per_file: Vec<Vec<u8>> = vec![Vec::new(); files];
    let mut counts = vec![0u64; files];
    let mut n = 0usize;
    for r in 1..=200u64 {
        let key = if r % 7 == 0 {
            format!("it's \\\"k\\\", {r}")
        } else {
            format!("KEY#{r}")
        };
        for i in 0..(1000 / r) {
            let f = (n * 7 + r as usize) % files;
            n += 1;
            writeln!(
                per_file[f],
                "{{\"Item\":{{\"pk\":{{\"S\":\"{key}\"}},\"sk\":{{\"N\":\"{i}\"}},\"v\":{{\"M\":{{\"pk\":{{\"S\":\"no\"}}}}}}}}}}"
            )
            .unwrap();
            counts[f] += 1;
        }
    }
    let mut manifest = String::new();
    for (f, bytes) in per_file.iter().enumerate() {
        let name = format!("part-{f}.json.gz");
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(root.join("data").join(&name)).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(bytes).unwrap();
        gz.finish().unwrap();
        manifest.push_str(&format!(
            "{{\"itemCount\":{},\"dataFileS3Key\":\"AWSDynamoDB/01700000000009-duck0001/data/{name}\"}}\n",
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
    root
}

#[test]
fn sql_duckdb_query_gives_the_counts_of_a_direct_load() {
    let Some(py) = python_with_duckdb() else {
        let msg = "THE DUCKDB TEST DID NOT RUN: no python3 with the duckdb package (tests/duckdb.sh installs it; tests/run.sh runs it)";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("\n!!!!!!!! {msg} !!!!!!!!\n");
        return;
    };
    let dir = temp_dir("sql-duckdb");
    let export = duck_export(&dir, 4);
    let keys_csv = dir.join("keys.csv");
    let by_file_csv = dir.join("by-file.csv");
    let script = run(&[
        "sql",
        "--engine",
        "duckdb",
        "--export-path",
        &format!("{}/", export.display()),
        "--key",
        "pk",
        "--sort-key",
        "sk",
        "--output",
        keys_csv.to_str().unwrap(),
        "--by-file-output",
        by_file_csv.to_str().unwrap(),
    ]);
    assert!(script.status.success(), "{script:?}");
    run_duckdb(&py, &script.stdout);
    let args = |p: &Path| {
        json(&run(&[
            "analyze",
            p.to_str().unwrap(),
            "--format",
            "json",
            "--top",
            "30",
        ]))
    };
    let direct = args(&export);
    let via = args(&keys_csv);
    assert!(direct["total"].as_u64().unwrap() > 5000);
    for field in ["total", "distinct", "buckets", "top_keys"] {
        assert_eq!(direct[field], via[field], "{field}");
    }
    // Per data file: the items the direct load counts in each.
    let text = std::fs::read_to_string(&by_file_csv).unwrap();
    let mut by_file: HashMap<String, u64> = HashMap::new();
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let name = Path::new(cols[0]).file_name().unwrap().to_string_lossy();
        by_file.insert(format!("data/{name}"), cols[1].parse().unwrap());
    }
    let groups = direct["input"]["groups"].as_array().unwrap();
    assert_eq!(by_file.len(), groups.len());
    for g in groups {
        assert_eq!(by_file[g["name"].as_str().unwrap()], g["items"], "{g}");
    }
}

#[test]
fn sql_prints_both_queries_by_default() {
    let out = run(&[
        "sql",
        "--export-path",
        "s3://bucket/prefix/AWSDynamoDB/0170-abc/",
        "--key",
        "PK",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("read_json('s3://bucket/prefix/AWSDynamoDB/0170-abc/data/*.json.gz'"),
        "{text}"
    );
    assert!(
        text.contains("CREATE EXTERNAL TABLE IF NOT EXISTS shardlens_export"),
        "{text}"
    );
    assert!(
        text.contains("LOCATION 's3://bucket/prefix/AWSDynamoDB/0170-abc/data/'"),
        "{text}"
    );
}

fn run_with(program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut child = std::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn an_export_counts_items_and_lines_count_writes() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let out = run(&["analyze", fixtures.join("items.json").to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(": 6 items, 3 distinct keys"), "{text}");
    assert!(text.contains("% of items, "), "{text}");
    let out = run(&["analyze", fixtures.join("keys.txt").to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(" writes, "), "{text}");
    assert!(text.contains("% of writes, "), "{text}");
}

/// An incremental export of 3,000 writes over five minutes from 2026-06-23T10:00:00Z (HOT takes a third, 60
/// other keys the rest) in one data file; returns its folder.
fn incremental_export(dir: &Path) -> PathBuf {
    let export = dir.join("AWSDynamoDB/01700000000010-incr0001");
    std::fs::create_dir_all(export.join("data")).unwrap();
    // 3,000 writes over five minutes: HOT takes a third, the rest 60 keys.
    let t0 = 1_782_208_800_000_000_u64;
    let mut lines = Vec::new();
    for i in 0..3_000_u64 {
        let key = if i % 3 == 0 {
            "HOT".to_owned()
        } else {
            format!("k{}", i * 7 % 60)
        };
        let ts = t0 + (i * 100_003) % 300_000_000;
        writeln!(
            lines,
            "{{\"Metadata\":{{\"WriteTimestampMicros\":{{\"N\":\"{ts}\"}}}},\"Keys\":{{\"pk\":{{\"S\":\"{key}\"}},\"sk\":{{\"N\":\"{i}\"}}}},\"NewImage\":{{\"pk\":{{\"S\":\"{key}\"}},\"sk\":{{\"N\":\"{i}\"}}}}}}"
        )
        .unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(export.join("data/part-0.json.gz")).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(&lines).unwrap();
    gz.finish().unwrap();
    export
}

/// `sql --trace`: DuckDB counts an incremental export's writes per minute and key into a CSV trace, and its
/// replay has the writes and the hot key of replaying the export's records directly.
#[test]
fn sql_trace_duckdb_query_replays_like_the_export_itself() {
    let Some(py) = python_with_duckdb() else {
        let msg = "THE DUCKDB TRACE TEST DID NOT RUN: no python3 with the duckdb package (tests/duckdb.sh installs it; tests/run.sh runs it)";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("\n!!!!!!!! {msg} !!!!!!!!\n");
        return;
    };
    let dir = temp_dir("sql-trace");
    let export = incremental_export(&dir);
    let trace_csv = dir.join("trace.csv");
    let script = run(&[
        "sql",
        "--trace",
        "--top",
        "10",
        "--engine",
        "duckdb",
        "--export-path",
        export.to_str().unwrap(),
        "--key",
        "pk",
        "--output",
        trace_csv.to_str().unwrap(),
    ]);
    assert!(script.status.success(), "{script:?}");
    run_duckdb(&py, &script.stdout);
    let replay = |p: &Path| {
        json(&run(&[
            "simulate",
            "--trace",
            p.to_str().unwrap(),
            "--format",
            "json",
        ]))
    };
    let direct = replay(&export.join("data/part-0.json.gz"));
    let via = replay(&trace_csv);
    let total = |j: &serde_json::Value| -> f64 {
        j["series"]["write_demand_units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .sum()
    };
    assert!(
        (total(&direct) - 3_000.0).abs() < 1e-6,
        "{}",
        total(&direct)
    );
    assert!((total(&via) - 3_000.0).abs() < 1e-3, "{}", total(&via));
    assert_eq!(direct["start"], via["start"]);
    assert_eq!(via["source"][0]["format"], "log");
    // The hot key keeps its row; the other keys of each minute stand as one row spread over its keys.
    let text = std::fs::read_to_string(&trace_csv).unwrap();
    assert!(
        text.starts_with("time,key,op,requests,seconds,keys"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.contains(",HOT,write,200,60,1")),
        "{text}"
    );
}

/// `text`, a file over 16 MB, gives the report (but for its source and bytes) the same text gzipped gives,
/// which one reader reads, with `total` items.
fn reads_as_its_gzip_reads(dir: &Path, text: &[u8], total: u64) {
    assert!(text.len() > 16 << 20, "{} bytes", text.len());
    let plain = write(dir, "items.json", text);
    let gz_path = dir.join("items.json.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz_path).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(text).unwrap();
    gz.finish().unwrap();
    let report = |p: &Path| {
        let mut v = json(&run(&["analyze", p.to_str().unwrap(), "--format", "json"]));
        let o = v.as_object_mut().unwrap();
        o.remove("source");
        o["input"].as_object_mut().unwrap().remove("bytes");
        v
    };
    let (stretches, one) = (report(&plain), report(&gz_path));
    assert_eq!(stretches["total"], total);
    assert_eq!(stretches, one);
}

/// The same numbers each run for generated inputs: a 64-bit linear congruential generator from `seed`, giving
/// its state's top 31 bits.
fn numbers(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x >> 33
    }
}

/// A file of DynamoDB JSON lines large enough to load in stretches on every core (over 16 MB) reads as the same
/// items gzipped, which one reader reads: the same report but for the input's bytes and name. Its items include
/// some written twice, far apart (a stretch that holds an item of an earlier one is read again after it), sort
/// keys, and a TTL-like attribute on every item but the first (which decides there is none). The source's unit
/// tests check that such a file does load in stretches.
#[test]
fn a_large_json_lines_file_reads_as_one_reader_reads_it() {
    let dir = temp_dir("json-lines-stretches");
    let mut text = Vec::new();
    let mut next = numbers(17);
    let pad = "p".repeat(180);
    // The first item has no TTL-like attribute: one reader guesses none, whatever later items hold.
    let mut lines = vec![r#"{"Item":{"pk":{"S":"first"},"sk":{"S":"0"}}}"#.to_owned()];
    for i in 0..90_000u64 {
        let pk = if i % 5 == 0 {
            format!("solo#{i}")
        } else if i % 7 == 1 {
            "HOT".to_owned()
        } else {
            format!("user#{}", next() % 300)
        };
        lines.push(format!(
            "{{\"Item\":{{\"pk\":{{\"S\":\"{pk}\"}},\"sk\":{{\"S\":\"{:07}\"}},\"ttl\":{{\"N\":\"{}\"}},\"v\":{{\"S\":\"{pad}\"}}}}}}",
            next() % 1_000_000,
            1_700_000_000 + next() % 1_000_000
        ));
    }
    // Items of the first half written again in the second: the largest collection's (its count is reported)
    // and keys' of one item.
    for k in 0..50 {
        for i in [k * 700 + 2, k * 700 + 6] {
            let again = lines[i].clone();
            lines.push(again);
        }
    }
    for l in &lines {
        writeln!(text, "{l}").unwrap();
    }
    reads_as_its_gzip_reads(&dir, &text, 90_101);
}

/// Items pretty-printed back to back (as `jq '.Items[]'` prints a scan's), over 16 MB, load in stretches and
/// read as the same items gzipped, which one reader reads (the source's unit tests check that they do load in
/// stretches).
#[test]
fn large_pretty_items_back_to_back_read_as_one_reader_reads_them() {
    let dir = temp_dir("json-back-to-back-stretches");
    let mut next = numbers(29);
    let pad = "r".repeat(150);
    let mut text = String::new();
    for i in 0..70_000u64 {
        let pk = if i % 5 == 0 {
            format!("solo#{i}")
        } else {
            format!("user#{}", next() % 300)
        };
        text.push_str(&format!(
            "{{\n  \"pk\": {{\n    \"S\": \"{pk}\"\n  }},\n  \"sk\": {{\n    \"S\": \"{:07}\"\n  }},\n  \"v\": {{\n    \"SS\": [\n      \"{pad}\",\n      \"x\"\n    ]\n  }}\n}}\n",
            next() % 1_000_000
        ));
    }
    reads_as_its_gzip_reads(&dir, text.as_bytes(), 70_000);
}

/// A scan output page over 16 MB as the AWS CLI prints it (`{"Items": [...], "Count": …}`, with a Count that
/// disagrees) loads in stretches and reads as the same page gzipped, which one reader reads: the Count's
/// warning included.
#[test]
fn a_large_scan_page_reads_as_one_reader_reads_it() {
    let dir = temp_dir("scan-page-stretches");
    let mut next = numbers(37);
    let pad = "s".repeat(150);
    let mut items = Vec::new();
    for i in 0..70_000u64 {
        let pk = if i % 5 == 0 {
            format!("solo#{i}")
        } else {
            format!("user#{}", next() % 300)
        };
        items.push(format!(
            "        {{\n            \"pk\": {{\n                \"S\": \"{pk}\"\n            }},\n            \"v\": {{\n                \"S\": \"{pad}\"\n            }}\n        }}"
        ));
    }
    let text = format!(
        "{{\n    \"Items\": [\n{}\n    ],\n    \"Count\": 69999,\n    \"ScannedCount\": 70000,\n    \"ConsumedCapacity\": null\n}}\n",
        items.join(",\n")
    );
    let plain = write(&dir, "page.json", text.as_bytes());
    let gz_path = dir.join("page.json.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz_path).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap();
    // The same report but for the input's bytes and name (which the Count's warning names too).
    let report = |p: &Path| {
        let out = run(&["analyze", p.to_str().unwrap(), "--format", "json"]);
        let text = String::from_utf8_lossy(&out.stdout).replace("page.json.gz", "page.json");
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("source");
        o["input"].as_object_mut().unwrap().remove("bytes");
        v
    };
    let (stretches, one) = (report(&plain), report(&gz_path));
    assert_eq!(stretches["total"], 70_000);
    let warnings = stretches["input"]["warnings"].to_string();
    assert!(warnings.contains("Count says 69999"), "{warnings}");
    assert_eq!(stretches, one);
}

/// Export lines as a Python script writes them with `json.dumps` (`", "` and `": "` between tokens) analyze
/// exactly as the same lines written compact, plain and re-keyed: the item readers that take white-spaced items
/// by their shapes, and the key probes that find `"pk": {"S": "…"}`, change only how fast they load.
#[test]
fn export_lines_written_by_json_dumps_analyze_as_compact_ones() {
    let dir = temp_dir("json-dumps-lines");
    let mut next = numbers(31);
    let (mut compact, mut spaced) = (String::new(), String::new());
    for i in 0..6000u64 {
        let pk = if i % 9 == 0 {
            "HOT".to_owned()
        } else {
            format!("user#{}", next() % 400)
        };
        let status = ["OPEN", "CLOSED", "é ✓"][(next() % 3) as usize];
        let amount = next() % 10_000;
        let line = |c: &str, s: &str| {
            format!(
                "{{\"Item\"{s}{{\"pk\"{s}{{\"S\"{s}\"{pk}\"}}{c}\"sk\"{s}{{\"S\"{s}\"2024-05-{:02}#{i}\"}}{c}\"status\"{s}{{\"S\"{s}\"{status}\"}}{c}\"amount\"{s}{{\"N\"{s}\"{}.5\"}}{c}\"tags\"{s}{{\"SS\"{s}[\"t{}\"{c}\"u\"]}}{c}\"address\"{s}{{\"M\"{s}{{\"city\"{s}{{\"S\"{s}\"x\"}}}}}}}}}}\n",
                i % 28 + 1,
                amount,
                i % 3
            )
        };
        compact.push_str(&line(",", ":"));
        spaced.push_str(&line(", ", ": "));
    }
    let (a, b) = (dir.join("compact.json"), dir.join("spaced.json"));
    std::fs::write(&a, compact).unwrap();
    std::fs::write(&b, &spaced).unwrap();
    assert!(spaced.starts_with(r#"{"Item": {"pk": {"S": "HOT"}, "sk": {"S": "2024-05-01#0"}"#));
    for extra in [&[][..], &["--key-expr", "{pk}#{status}#{tags.0}"]] {
        let analyze = |path: &Path| {
            let mut args = vec!["analyze", path.to_str().unwrap(), "--format", "json"];
            args.extend_from_slice(extra);
            let mut v = json(&run(&args));
            // Where the bytes came from, and how many there were, differ; nothing else may.
            v["source"] = serde_json::Value::Null;
            v["input"]["bytes"] = serde_json::Value::Null;
            v
        };
        let (x, y) = (analyze(&a), analyze(&b));
        assert_eq!(x["total"], 6000, "{extra:?}");
        assert_eq!(x, y, "{extra:?}");
    }
}

/// A JSON array over 16 MB is read in stretches on every core, each cut where an item seems to begin; a
/// pretty-printed one gives what one reader gives (the same array gzipped, which one reader reads).
#[test]
fn a_large_json_array_reads_as_one_reader_reads_it() {
    let dir = temp_dir("json-array-stretches");
    let mut next = numbers(23);
    // Some values hold escaped quotes and brackets, which the SIMD kernels must see inside strings.
    let plain_pad = "q".repeat(150);
    let escaped_pad = format!("{}\\\"{{}}[]\\\\", "q".repeat(140));
    let mut text = String::from("[\n");
    for i in 0..70_000u64 {
        let pk = if i % 5 == 0 {
            format!("solo#{i}")
        } else {
            format!("user#{}", next() % 300)
        };
        let pad = if i % 7 == 3 { &escaped_pad } else { &plain_pad };
        // Some items open with another attribute than the key: no cut is guessed at them.
        let (first, second) = (
            format!("\"pk\": {{\n      \"S\": \"{pk}\"\n    }}"),
            format!("\"v\": {{\n      \"S\": \"{pad}\"\n    }}"),
        );
        let (a, b) = if i % 9 == 4 {
            (second, first)
        } else {
            (first, second)
        };
        let sep = if i == 0 { "" } else { ",\n" };
        text.push_str(&format!(
            "{sep}  {{\n    {a},\n    \"sk\": {{\n      \"S\": \"{:07}\"\n    }},\n    {b},\n    \"ttl\": {{\n      \"N\": \"{}\"\n    }}\n  }}",
            next() % 1_000_000,
            1_700_000_000 + next() % 1_000_000
        ));
    }
    text.push_str("\n]\n");
    reads_as_its_gzip_reads(&dir, text.as_bytes(), 70_000);
    // Each SIMD kernel this CPU has, and none, read it alike: the plain file in stretches, the gzip one by one
    // reader.
    let report = |simd: &str, name: &str| {
        let out = bin()
            .args([
                "analyze",
                dir.join(name).to_str().unwrap(),
                "--format",
                "json",
            ])
            .env("SHARDLENS_SIMD", simd)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    for name in ["items.json", "items.json.gz"] {
        let off = report("off", name);
        for simd in ["avx2", "best"] {
            assert!(
                report(simd, name) == off,
                "{name}: SHARDLENS_SIMD={simd} differs from off"
            );
        }
    }
}

/// Plain JSON items one a line over 16 MB (a DocumentClient dump) are read in stretches too, with what one
/// reader gives.
#[test]
fn large_json_item_lines_read_as_one_reader_reads_them() {
    let dir = temp_dir("json-items-stretches");
    let pad = "r".repeat(200);
    let mut text = String::new();
    for i in 0..80_000u64 {
        let pk = if i % 4 == 0 {
            format!("solo#{i}")
        } else {
            format!("user#{}", (i * 7_919) % 500)
        };
        text.push_str(&format!(
            "{{\"pk\": \"{pk}\", \"sk\": \"{:07}\", \"n\": {i}, \"pad\": \"{pad}\"}}\n",
            (i * 104_729) % 1_000_000
        ));
    }
    reads_as_its_gzip_reads(&dir, text.as_bytes(), 80_000);
}

/// An Ion export of a single-table design keyed `PK0`/`SK0` (its indexes overloaded as `PK1`/`SK1`) loads without
/// Load options: `PK0` is guessed as the partition key and `SK0` as the sort key, and the load says so.
#[test]
fn an_ion_export_keyed_pk0_sk0_guesses_them_and_says_so() {
    let dir = temp_dir("ion-pk0");
    let mut text = String::new();
    for i in 0..6 {
        text.push_str(&format!(
            "$ion_1_0 {{Item:{{PK1:\"EMAIL#u{i}@example.com\",SK1:\"P\",PK0:\"USER#{}\",SK0:\"ORDER#{i}\",n:{i}}}}}\n",
            i % 2
        ));
    }
    let path = write(&dir, "export.ion", text.as_bytes());
    let out = run(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json(&out);
    assert_eq!(doc["input"]["key_attribute"], "PK0");
    assert_eq!(doc["input"]["sort_key_attribute"], "SK0");
    assert_eq!(doc["input"]["items"], 6);
    let warnings = doc["input"]["warnings"].to_string();
    assert!(
        warnings.contains("guessed") && warnings.contains("PK0") && warnings.contains("SK0"),
        "{warnings}"
    );
}

/// One key, one item, one partition: counts of one are said in the singular.
#[test]
fn counts_of_one_are_singular() {
    let dir = temp_dir("singular");
    let path = write(&dir, "one.json", br#"[{"pk": "only", "n": 1}]"#);
    let out = run(&["analyze", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    for wrong in [
        " 1 keys",
        " 1 items",
        " 1 partitions",
        " 1 writes",
        " 1 files",
        " 1 records",
    ] {
        assert!(!text.contains(wrong), "{wrong:?} in:\n{text}");
    }
}

/// `shardlens share`: the link opens (through the same decoder and session reader the app uses) as the file's
/// keys with their counts, the key type and the view the options said; a file too large for a link is refused
/// with its size and the hint to share the file.
#[test]
fn share_prints_a_link_that_opens_the_files_keys_and_view() {
    use shardlens::source::link;
    use shardlens::source::session::{Session, SessionKeys};
    let dir = temp_dir("share");
    let (file, truth) = zipf_file(&dir);
    let out = run(&[
        "share",
        file.to_str().unwrap(),
        "--shards",
        "6",
        "--buckets",
        "16",
        "--base",
        "https://example.org/shardlens/?embed#old",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let url = String::from_utf8(out.stdout).unwrap();
    let url = url.trim();
    assert!(
        url.starts_with("https://example.org/shardlens/?embed#shardlens1="),
        "{url}"
    );
    let session = Session::parse(&link::decode(url).unwrap()).unwrap();
    assert_eq!(session.settings.buckets, 16);
    assert!(session.settings.shard_enabled);
    assert_eq!(session.settings.shard.shards, 6);
    let SessionKeys::Data(keys) = session.keys().unwrap() else {
        panic!("a file's keys travel as keys with counts");
    };
    assert_eq!(keys.len(), truth.len());
    for (i, _, count) in keys.iter() {
        assert_eq!(truth[keys.display(i).as_ref()], count);
    }
    // JSON says the link's size; the default base is the page beside the reader.
    let out = run(&["share", file.to_str().unwrap(), "--format", "json"]);
    let doc = json(&out);
    assert!(
        doc["link"]
            .as_str()
            .unwrap()
            .starts_with("index.html#shardlens1=")
    );
    assert_eq!(doc["keys"], 500);
    // 200,000 distinct keys do not fit in a link.
    let many: String = (0..200_000u64)
        .map(|i| format!("{:016x}\n", i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .collect();
    let big = write(&dir, "many.txt", many.as_bytes());
    let out = run(&["share", big.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("share the file instead") && err.contains("many.txt"),
        "{err}"
    );
}
