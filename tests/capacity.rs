//! `shardlens analyze` with a workload: the capacity report, run through the real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

#[path = "support/cli.rs"]
mod support;

use support::{bucket_of, json};

fn temp_dir(name: &str) -> PathBuf {
    support::temp_dir("capacity", name)
}

/// A file where each `(key, count)` appears `count` times, one line each.
fn keys_file(dir: &Path, keys: &[(&str, usize)]) -> PathBuf {
    let mut text = String::new();
    for (key, count) in keys {
        for _ in 0..*count {
            text.push_str(key);
            text.push('\n');
        }
    }
    let path = dir.join("keys.txt");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(file: &Path, args: &[&str]) -> Output {
    support::bin()
        .arg("analyze")
        .arg(file)
        .args(args)
        .output()
        .unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[allow(
    clippy::too_many_lines,
    reason = "one table's story checked second by second"
)]
#[test]
fn one_key_at_4000_writes_throttles_3000_on_a_new_on_demand_table() {
    let dir = temp_dir("one-key");
    let file = keys_file(&dir, &[("HOT", 10)]);
    let doc = json(&run(
        &file,
        &[
            "--writes-per-sec",
            "4000",
            "--item-size",
            "1024",
            "--format",
            "json",
        ],
    ));
    let c = &doc["capacity"];
    assert_eq!(c["partition_count"], 4);
    assert_eq!(c["partitions_from"], "on-demand-warm");
    assert_eq!(doc["buckets"].as_array().unwrap().len(), 4);
    assert_eq!(doc["bucket_ranges"].as_array().unwrap().len(), 4);
    let hot = bucket_of("HOT", 4);
    let parts = c["partitions"].as_array().unwrap();
    assert_eq!(parts.len(), 4);
    for (i, p) in parts.iter().enumerate() {
        if i == hot {
            assert_eq!(f(&p["write_units"]), 4000.0);
            assert_eq!(f(&p["write_util"]), 4.0);
            assert_eq!(f(&p["throttled_write_units"]), 3000.0);
            assert_eq!(f(&p["served_write_units"]), 1000.0);
        } else {
            assert_eq!(f(&p["write_units"]), 0.0);
            assert_eq!(f(&p["throttled_write_units"]), 0.0);
        }
        assert_eq!(f(&p["read_units"]), 0.0);
        assert_eq!(f(&p["read_util"]), 0.0);
        assert_eq!(f(&p["throttled_read_units"]), 0.0);
    }
    assert_eq!(f(&c["table_write_util"]), 1.0);
    assert_eq!(f(&c["table_read_util"]), 0.0);
    assert_eq!(f(&c["throttled_write_units"]), 3000.0);
    assert_eq!(f(&c["throttled_read_units"]), 0.0);
    assert_eq!(f(&c["partition_write_limit"]), 1000.0);
    assert_eq!(f(&c["table_write_capacity"]), 4000.0);
    assert_eq!(c["hottest_partition"], hot);
    // The decision reasons from capacity.
    let step = &doc["decision"]["path"][0];
    assert_eq!(step["answer"], "yes");
    let evidence = step["evidence"].as_str().unwrap();
    assert!(
        evidence.contains(&format!(
            "table at 100 % of its capacity · hottest partition {hot} at 400 % of its write limit"
        )),
        "{evidence}"
    );

    let table = run(&file, &["--writes-per-sec", "4000"]);
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains(
            "capacity: table at 100 % of its write capacity · hottest partition at 400 % of its write limit · 3000 write units/s throttled"
        ),
        "{text}"
    );
    assert!(text.contains("over the limit"), "{text}");
    assert!(
        text.contains(
            "item size: 1,024 bytes assumed (the input carries no item sizes; --item-size sets one)"
        ),
        "{text}"
    );

    // CSV: one row per partition with its units, use of its limits and throttled units.
    let csv = run(&file, &["--writes-per-sec", "4000", "--format", "csv"]);
    assert!(csv.status.success());
    let csv = String::from_utf8(csv.stdout).unwrap();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next().unwrap(),
        "bucket,range_start,range_end,count,share,top_key,top_key_count,read_units,write_units,read_util,write_util,throttled_read_units,throttled_write_units"
    );
    let hot_row = rows.nth(hot).unwrap();
    assert!(
        hot_row.ends_with(",HOT,10,0.000,4000.000,0.000000,4.000000,0.000,3000.000"),
        "{hot_row}"
    );
    let plain = String::from_utf8(run(&file, &["--format", "csv"]).stdout).unwrap();
    assert!(plain.starts_with("bucket,range_start,range_end,count,share,top_key,top_key_count\n"));
}

#[test]
fn forty_thousand_wcu_still_throttle_one_key() {
    let dir = temp_dir("provisioned");
    let file = keys_file(&dir, &[("HOT", 3)]);
    let doc = json(&run(
        &file,
        &[
            "--writes-per-sec",
            "5000",
            "--rcu",
            "3000",
            "--wcu",
            "40000",
            "--format",
            "json",
        ],
    ));
    let c = &doc["capacity"];
    // ⌈3,000 / 3,000 + 40,000 / 1,000⌉ = 41 partitions.
    assert_eq!(c["partition_count"], 41);
    assert_eq!(c["partitions_from"], "throughput");
    assert_eq!(doc["buckets"].as_array().unwrap().len(), 41);
    assert_eq!(f(&c["table_write_util"]), 0.125);
    assert_eq!(f(&c["throttled_write_units"]), 4000.0);
    let hot = bucket_of("HOT", 41);
    assert_eq!(f(&c["partitions"][hot]["write_util"]), 5.0);
    assert_eq!(doc["workload"]["billing"]["mode"], "provisioned");
}

#[test]
fn counts_as_writes_per_second_with_strong_20_kb_reads() {
    let dir = temp_dir("rates");
    let file = keys_file(&dir, &[("HOT", 1500), ("COLD", 200)]);
    let doc = json(&run(
        &file,
        &[
            "--counts-are",
            "writes-per-sec",
            "--reads-per-sec",
            "600",
            "--item-size",
            "20480",
            "--consistency",
            "strong",
            "--partitions",
            "1",
            "--format",
            "json",
        ],
    ));
    let c = &doc["capacity"];
    assert_eq!(c["partition_count"], 1);
    assert_eq!(c["partitions_from"], "override");
    let p = &c["partitions"][0];
    // 20 KB: 5 read units, 20 write units.
    assert_eq!(f(&c["units_per_read"]), 5.0);
    assert_eq!(f(&c["units_per_write"]), 20.0);
    assert_eq!(f(&p["read_units"]), 3000.0);
    assert_eq!(f(&p["read_util"]), 1.0);
    assert_eq!(f(&p["throttled_read_units"]), 0.0);
    assert_eq!(f(&p["write_units"]), 1700.0 * 20.0);
    assert_eq!(f(&p["throttled_write_units"]), 34_000.0 - 1000.0);
    assert_eq!(f(&c["writes_per_sec"]), 1700.0);
}

#[test]
fn eventual_and_transactional_units() {
    let dir = temp_dir("consistency");
    let file = keys_file(&dir, &[("K", 1)]);
    let units = |consistency: &str| {
        let doc = json(&run(
            &file,
            &[
                "--reads-per-sec",
                "100",
                "--writes-per-sec",
                "100",
                "--item-size",
                "4097",
                "--consistency",
                consistency,
                "--format",
                "json",
            ],
        ));
        (
            f(&doc["capacity"]["read_units"]),
            f(&doc["capacity"]["write_units"]),
        )
    };
    assert_eq!(units("strong"), (200.0, 500.0));
    assert_eq!(units("eventual"), (100.0, 500.0));
    assert_eq!(units("transactional"), (400.0, 1000.0));
}

#[test]
fn a_table_level_reason_answers_no() {
    let dir = temp_dir("reason");
    let file = keys_file(&dir, &[("HOT", 10)]);
    let doc = json(&run(
        &file,
        &[
            "--writes-per-sec",
            "4000",
            "--throttle-reason",
            "TableWriteProvisionedThroughputExceeded",
            "--format",
            "json",
        ],
    ));
    let step = &doc["decision"]["path"][0];
    assert_eq!(step["answer"], "no");
    assert!(step["evidence"].as_str().unwrap().contains("table-level"));
    assert!(
        doc["decision"]["recommendation"]
            .as_str()
            .unwrap()
            .contains("table-level limit")
    );
    let bad = run(&file, &["--throttle-reason", "Throttled"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a throttling reason"));
}

#[test]
fn no_rate_no_capacity_and_misplaced_options_are_errors() {
    let dir = temp_dir("errors");
    let file = keys_file(&dir, &[("A", 2), ("B", 1)]);
    let doc = json(&run(&file, &["--format", "json"]));
    assert!(doc.get("capacity").is_none());
    assert_eq!(doc["buckets"].as_array().unwrap().len(), 8);

    for (args, message) in [
        (&["--wcu", "5"][..], "--wcu describes a workload"),
        (
            &["--writes-per-sec", "5", "--buckets", "4"][..],
            "use --partitions",
        ),
        (
            &["--writes-per-sec", "5", "--wcu", "5"][..],
            "needs both --rcu and --wcu",
        ),
        (
            &["--writes-per-sec", "5", "--item-size", "500000"][..],
            "400 KB",
        ),
        (&["--writes-per-sec=-1"][..], "at least 0"),
    ] {
        let out = run(&file, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}
