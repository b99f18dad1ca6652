//! Key design on the command line, as a user runs it: `--key-expr`, `--compare`, `--gsi`, `--shard-by` on
//! files this test writes (DynamoDB JSON lines, plain JSON, CSV, pasted lines), with the real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

#[path = "support/cli.rs"]
mod support;

use support::{bin, bucket_of, json, run};

fn temp_dir(name: &str) -> PathBuf {
    support::temp_dir("design", name)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// 200 orders as DynamoDB JSON lines (an S3 export's shape): `status` OPEN for 160, CLOSED for 40;
/// `customerId` c0..c19; `createdAt` over 5 days; every 5th order has no `region`. Returns the file and the
/// writes per `CUST#{customerId}#{createdAt:day}` key, counted here.
fn orders(dir: &Path) -> (PathBuf, HashMap<String, u64>) {
    let mut lines = String::new();
    let mut truth = HashMap::new();
    for i in 0..200 {
        let status = if i % 5 == 4 { "CLOSED" } else { "OPEN" };
        let customer = format!("c{}", i % 20);
        let day = 1 + (i * 7) % 5;
        let created = format!("2026-11-{day:02}T{:02}:30:00Z", i % 24);
        let region = if i % 5 == 0 {
            String::new()
        } else {
            r#","region":{"S":"eu"}"#.to_owned()
        };
        lines.push_str(&format!(
            r#"{{"Item":{{"pk":{{"S":"ORDER#{i}"}},"status":{{"S":"{status}"}},"customerId":{{"S":"{customer}"}},"createdAt":{{"S":"{created}"}},"amount":{{"N":"{i}.50"}}{region}}}}}"#
        ));
        lines.push('\n');
        *truth
            .entry(format!("CUST#{customer}#2026-11-{day:02}"))
            .or_default() += 1;
    }
    (write(dir, "orders.json", &lines), truth)
}

#[test]
fn a_key_expression_keys_the_items_instead_of_their_key() {
    let dir = temp_dir("key-expr");
    let (file, truth) = orders(&dir);
    let path = file.to_str().unwrap();
    let doc = json(&run(&[
        "analyze",
        path,
        "--key-expr",
        "CUST#{customerId}#{createdAt:day}",
        "--buckets",
        "16",
        "--top",
        "200",
        "--format",
        "json",
    ]));
    assert_eq!(doc["total"], 200);
    assert_eq!(doc["distinct"], truth.len());
    for k in doc["top_keys"].as_array().unwrap() {
        let key = k["key"].as_str().unwrap();
        assert_eq!(k["count"], truth[key], "{key}");
    }
    // Buckets counted independently with the teaching hash.
    let mut buckets = vec![0u64; 16];
    for (k, c) in &truth {
        buckets[bucket_of(k, 16)] += c;
    }
    let got: Vec<u64> = doc["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    assert_eq!(got, buckets);
}

#[test]
fn compare_and_a_gsi_show_every_design_in_the_table_and_json() {
    let dir = temp_dir("compare");
    let (file, truth) = orders(&dir);
    let path = file.to_str().unwrap();
    let args = [
        "analyze",
        path,
        "--compare",
        "status",
        "--compare",
        "CUST#{customerId}#{createdAt:day}",
        "--gsi",
        "byRegion=region",
        "--writes-per-sec",
        "4000",
        "--partitions",
        "4",
    ];
    let table = run(&args);
    assert!(table.status.success(), "{}", stderr(&table));
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("key designs over the same items"), "{text}");
    for needle in [
        "current key",
        "candidate 1",
        "candidate 2",
        "GSI byRegion",
        "{status}",
        "40 items lack its key attributes",
    ] {
        assert!(text.contains(needle), "{needle} in:\n{text}");
    }
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let doc = json(&run(&with_json));
    let designs = doc["designs"].as_array().unwrap();
    assert_eq!(designs.len(), 4);
    assert_eq!(designs[0]["design"], "current key");
    assert_eq!(designs[0]["expr"], "{pk}");
    assert_eq!(designs[0]["distinct_keys"], 200);
    assert_eq!(designs[1]["expr"], "{status}");
    assert_eq!(designs[1]["distinct_keys"], 2);
    assert!((designs[1]["top_key_share"].as_f64().unwrap() - 0.8).abs() < 1e-9);
    assert_eq!(designs[2]["distinct_keys"], truth.len());
    assert_eq!(designs[3]["design"], "GSI byRegion");
    assert_eq!(designs[3]["writes"], 160);
    assert_eq!(designs[3]["absent"], 40);
    // Under 4,000 writes/s over 4 partitions, OPEN alone asks 3,200 of one partition's 1,000.
    let throttled = designs[1]["throttled_units"].as_f64().unwrap();
    assert!(throttled >= 2200.0, "{throttled}");
    // The order key spreads: what it throttles is the teaching hash's unevenness, far below OPEN's.
    let current = designs[0]["throttled_units"].as_f64().unwrap();
    assert!(current < throttled / 4.0, "{current} vs {throttled}");
    for d in designs {
        assert_eq!(d["buckets"].as_array().unwrap().len(), 4);
        assert!(d["leaf"].is_string(), "{d}");
    }
    // Without designs the JSON has no `designs` (the document stays as it was).
    let plain = json(&run(&["analyze", path, "--format", "json"]));
    assert!(plain.get("designs").is_none());
}

/// 1,000 players on `BOARD#global`; `p7` writes 3,000 times, the others twice; as CSV with a count.
fn board(dir: &Path) -> PathBuf {
    let mut csv = String::from("pk,sk,playerId,count\n");
    for p in 0..1000 {
        let writes = if p == 7 { 3000 } else { 2 };
        csv.push_str(&format!("BOARD#global,PLAYER#p{p},p{p},{writes}\n"));
    }
    write(dir, "board.csv", &csv)
}

#[test]
fn calculated_sharding_by_an_attribute_keeps_a_hot_item_on_one_shard() {
    let dir = temp_dir("shard-by");
    let file = board(&dir);
    let path = file.to_str().unwrap();
    let shard = |strategy: &str, by: Option<&str>| {
        let mut args = vec![
            "analyze",
            path,
            "--shards",
            "10",
            "--shard-scope",
            "all",
            "--shard-strategy",
            strategy,
            "--top",
            "1",
            "--format",
            "json",
        ];
        if let Some(by) = by {
            args.extend(["--shard-by", by]);
        }
        json(&run(&args))
    };
    let total = 3000 + 999 * 2;
    let by_player = shard("calculated", Some("playerId"));
    let top = &by_player["top_keys"][0];
    // The streamer's 3,000 writes stay together: their shard holds at least those.
    assert!(top["count"].as_u64().unwrap() >= 3000, "{top}");
    let random = shard("random", None);
    let top = random["top_keys"][0]["count"].as_u64().unwrap();
    assert!(top < total / 10 + 300, "random per write spreads it: {top}");
    // The sort key is the default of a calculated suffix: the same split as by player.
    let by_sk = shard("calculated", None);
    assert!(by_sk["top_keys"][0]["count"].as_u64().unwrap() >= 3000);
    // The tree says why the hot shard stays hot.
    let table = run(&[
        "analyze",
        path,
        "--shards",
        "10",
        "--shard-scope",
        "all",
        "--shard-strategy",
        "calculated",
        "--shard-by",
        "playerId",
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("a hot item stays on one shard"),
        "the tree's advice:\n{text}"
    );
    // --shard-by needs a calculated suffix.
    let out = run(&["analyze", path, "--shards", "10", "--shard-by", "playerId"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--shard-strategy calculated"));
}

#[test]
fn pasted_pk_tab_sk_lines_shard_by_the_sort_key() {
    // u1's item A is written 50 times, its items B..E once: A's writes stay on one shard.
    let mut text = "u1\tA\n".repeat(50);
    for sk in ["B", "C", "D", "E"] {
        text.push_str(&format!("u1\t{sk}\n"));
    }
    let mut child = bin()
        .args([
            "analyze",
            "--shards",
            "4",
            "--shard-scope",
            "all",
            "--shard-strategy",
            "calculated",
            "--top",
            "1",
            "--format",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let doc = json(&child.wait_with_output().unwrap());
    assert!(doc["top_keys"][0]["count"].as_u64().unwrap() >= 50, "{doc}");
}

#[test]
fn plain_json_and_csv_items_take_expressions_too() {
    let dir = temp_dir("formats");
    let plain = write(
        &dir,
        "items.json",
        r#"[{"id":"a","t":{"kind":"x"},"n":1.0},{"id":"b","t":{"kind":"y"},"n":1},{"id":"c","t":{"kind":"x"},"n":2}]"#,
    );
    let doc = json(&run(&[
        "analyze",
        plain.to_str().unwrap(),
        "--key-expr",
        "{t.kind}#{n}",
        "--top",
        "5",
        "--format",
        "json",
    ]));
    let keys: Vec<(&str, u64)> = doc["top_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["key"].as_str().unwrap(), k["count"].as_u64().unwrap()))
        .collect();
    // Numbers print canonically: 1.0 and 1 are one key.
    assert_eq!(keys, [("x#1", 1), ("y#1", 1), ("x#2", 1)]);
    let csv = write(
        &dir,
        "t.csv",
        "id,tenant,day\n1,acme,2026-01-01\n2,acme,2026-01-01\n3,zen,2026-01-02\n",
    );
    let doc = json(&run(&[
        "analyze",
        csv.to_str().unwrap(),
        "--key-expr",
        "T#{tenant}#{day:month}",
        "--format",
        "json",
    ]));
    assert_eq!(doc["distinct"], 2);
    assert_eq!(doc["top_keys"][0]["key"], "T#acme#2026-01");
}

#[allow(
    clippy::too_many_lines,
    reason = "a table of bad inputs and the message each gives"
)]
#[test]
fn bad_expressions_and_attributes_say_what_and_where() {
    let dir = temp_dir("bad");
    let (file, _) = orders(&dir);
    let path = file.to_str().unwrap();
    // Does not parse: the column.
    let out = run(&["analyze", path, "--key-expr", "CUST#{customerId"]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("--key-expr") && e.contains("column 6"), "{e}");
    // Missing from every item: the first item's attributes are listed.
    let out = run(&["analyze", path, "--key-expr", "{tenant}"]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("no attribute `tenant`"), "{e}");
    assert!(e.contains("customerId") && e.contains("createdAt"), "{e}");
    assert!(e.contains("line 1"), "names the record: {e}");
    // Missing from a later item only: the message says how to go on without it.
    let partly = write(
        &dir,
        "partly.json",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"t\":{\"S\":\"x\"}}}\n{\"Item\":{\"pk\":{\"S\":\"b\"}}}\n",
    );
    let out = run(&["analyze", partly.to_str().unwrap(), "--compare", "{t}"]);
    let e = stderr(&out);
    assert!(
        e.contains("line 2") && e.contains("--skip-bad skips"),
        "{e}"
    );
    // Skipping bad records: a candidate that keys no item leaves every item to the current key, and says so.
    let out = run(&["analyze", path, "--compare", "{tenant}", "--skip-bad"]);
    let e = stderr(&out);
    assert!(
        e.contains("candidate 1 `{tenant}` could not key 200 items, left out of its figures only")
            && e.contains("(first: no attribute `tenant`)")
            && !e.contains("skipped 200 bad records"),
        "{e}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("200 items,"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // A sparse candidate under --skip-bad: the item it cannot key is left out of it alone, not of the
    // current key (issue #14's note: it dropped the record from every design).
    let doc = json(&run(&[
        "analyze",
        partly.to_str().unwrap(),
        "--compare",
        "{t}",
        "--skip-bad",
        "--format",
        "json",
    ]));
    assert_eq!(doc["total"], 2);
    assert_eq!(doc["input"]["skipped"], 0);
    let designs = doc["designs"].as_array().expect("designs");
    assert_eq!(designs[0]["writes"], 2, "current: {designs:?}");
    assert_eq!(designs[1]["writes"], 1, "candidate 1: {designs:?}");
    assert_eq!(designs[1]["absent"], 1, "candidate 1: {designs:?}");
    let out = run(&[
        "analyze",
        partly.to_str().unwrap(),
        "--compare",
        "{t}",
        "--skip-bad",
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("candidate 1: could not key 1 item, left out of its figures only"),
        "{table}"
    );
    // A date that is not a date: the record, under the usual policy.
    let bad_date = write(
        &dir,
        "dates.json",
        "{\"Item\":{\"pk\":{\"S\":\"a\"},\"at\":{\"S\":\"2026-01-01\"}}}\n{\"Item\":{\"pk\":{\"S\":\"b\"},\"at\":{\"S\":\"soon\"}}}\n",
    );
    let out = run(&[
        "analyze",
        bad_date.to_str().unwrap(),
        "--key-expr",
        "{at:day}",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let e = stderr(&out);
    assert!(e.contains("line 2") && e.contains("not a date"), "{e}");
    let doc = json(&run(&[
        "analyze",
        bad_date.to_str().unwrap(),
        "--key-expr",
        "{at:day}",
        "--skip-bad",
        "--format",
        "json",
    ]));
    assert_eq!(doc["total"], 1);
    assert_eq!(doc["input"]["skipped"], 1);
    // Too many candidates, a GSI without a name.
    let out = run(&[
        "analyze",
        path,
        "--compare",
        "a",
        "--compare",
        "b",
        "--compare",
        "c",
        "--compare",
        "d",
    ]);
    assert!(stderr(&out).contains("up to 3"));
    let out = run(&["analyze", path, "--gsi", "status"]);
    assert!(stderr(&out).contains("NAME=EXPR"), "{}", stderr(&out));
}

/// 48 tournament matches and two glued-string pairs (tests/fixtures/make_fixtures.py writes it).
const MULTI_FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/multi-attribute-gsi.json"
);

/// `--gsi NAME=a+b`: a multi-attribute key on tests/fixtures/multi-attribute-gsi.json (48 matches, every 8th
/// without a region; two items whose values glue to the same string). The pairs are the keys, hashed as the
/// JSON array of their values; an item without one of the attributes is not in the index; "a"+"bc" and
/// "ab"+"c" are two keys where the glued string is one; more than four attributes is an error.
#[test]
fn a_multi_attribute_gsi_hashes_its_attributes_together() {
    let path = MULTI_FIXTURE;
    let args = [
        "analyze",
        path,
        "--gsi",
        "byTR=tournamentId+region",
        "--gsi",
        "byT=tournamentId",
        "--gsi",
        "pair=x+y",
        "--gsi",
        "glued={x}{y}",
        "--gsi",
        "byTShard=tournamentId+{matchId:hash 4}",
        "--buckets",
        "8",
        "--format",
        "json",
    ];
    let doc = json(&run(&args));
    let designs = doc["designs"].as_array().unwrap();
    let row = |name: &str| {
        designs
            .iter()
            .find(|d| d["design"] == format!("GSI {name}"))
            .unwrap_or_else(|| panic!("no GSI {name}: {designs:?}"))
    };
    let tr = row("byTR");
    assert_eq!(tr["expr"], "{tournamentId}+{region}");
    assert_eq!(tr["distinct_keys"], 6, "2 tournaments × 3 regions");
    assert_eq!(tr["writes"], 42);
    assert_eq!(
        tr["absent"], 8,
        "6 matches without a region and the 2 pairs"
    );
    // The buckets, counted here: xxh3 of the JSON array of the values, in order.
    let truth = [
        (r#"["WINTER2024","NA-EAST"]"#, 11),
        (r#"["WINTER2024","AP-SOUTH"]"#, 11),
        (r#"["WINTER2024","EU-WEST"]"#, 10),
        (r#"["SPRING2025","EU-WEST"]"#, 4),
        (r#"["SPRING2025","NA-EAST"]"#, 3),
        (r#"["SPRING2025","AP-SOUTH"]"#, 3),
    ];
    let mut buckets = vec![0u64; 8];
    for (k, c) in truth {
        buckets[bucket_of(k, 8)] += c;
    }
    let got: Vec<u64> = tr["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .collect();
    assert_eq!(got, buckets);
    assert!(
        tr["query"]
            .as_str()
            .unwrap()
            .contains("multi-attribute key")
    );
    let t = row("byT");
    assert_eq!(t["distinct_keys"], 2);
    assert_eq!(t["writes"], 48);
    assert!(t.get("query").is_none(), "a one-attribute key: {t}");
    // No collision: the tuple keeps "a"+"bc" and "ab"+"c" apart, the glued string does not.
    assert_eq!(row("pair")["distinct_keys"], 2);
    assert_eq!(row("glued")["distinct_keys"], 1);
    // A shard of its own: N queries all the same.
    let shard = row("byTShard");
    assert_eq!(shard["read_fan_out"], 4);
    let q = shard["query"].as_str().unwrap();
    assert!(q.contains("4 queries, one per shard value"), "{q}");
}

/// The table output of a multi-attribute GSI says what it is and what reading it back costs; more than four
/// attributes is an error that names the limit.
#[test]
fn a_multi_attribute_gsi_is_said_in_the_table_and_five_attributes_are_refused() {
    let path = MULTI_FIXTURE;
    let table = run(&["analyze", path, "--gsi", "byTR=tournamentId+region"]);
    assert!(table.status.success(), "{}", stderr(&table));
    let text = String::from_utf8_lossy(&table.stdout);
    for needle in [
        "GSI byTR",
        "{tournamentId}+{region}",
        "8 items lack its key attributes",
        "a multi-attribute key ({tournamentId} + {region}) hashed together",
        "GSI.DesignPattern.MultiAttributeKeys",
    ] {
        assert!(text.contains(needle), "{needle} in:\n{text}");
    }

    let wide = run(&["analyze", path, "--gsi", "w=a+b+c+d+e"]);
    assert!(!wide.status.success());
    let err = stderr(&wide);
    assert!(err.contains("--gsi") && err.contains("at most 4"), "{err}");
}
