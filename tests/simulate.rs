//! `shardlens simulate`, run as a user runs it: built-in scenarios, scenario files with key files, bad files.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/cli.rs"]
mod support;

use support::{json, run};

#[test]
fn the_spike_example_as_json_has_the_documented_fields_and_numbers() {
    let out = run(&["simulate", "--example", "spike", "--format", "json"]);
    let doc = json(&out);
    assert_eq!(doc["step_seconds"], 1);
    let series = &doc["series"];
    for field in [
        "t",
        "read_demand_units",
        "read_served_units",
        "read_throttled_units",
        "write_demand_units",
        "write_served_units",
        "write_throttled_units",
        "throttled_requests",
        "partitions",
    ] {
        assert_eq!(series[field].as_array().unwrap().len(), 180, "{field}");
    }
    assert_eq!(series["write_throttled_units"][90], 4000.0);
    let minute = &doc["minutes"][1];
    assert_eq!(minute["t"], 60);
    assert_eq!(minute["consumed_write_units"], 6900.0);
    assert_eq!(minute["write_throttle_events"], 4000.0);
    assert_eq!(
        minute["throttle_reasons"]["TableWriteKeyRangeThroughputExceeded"],
        4000.0
    );
    assert!(doc["events"].as_array().is_some());
    assert_eq!(doc["final_partitions"].as_array().unwrap().len(), 1);
}

#[test]
fn a_scenario_file_with_a_key_file_and_sharding_from_the_command_line() {
    let dir = support::temp_dir("simulate", "file");
    std::fs::write(dir.join("keys.txt"), "HOT\nHOT\nHOT\ncold\n").unwrap();
    let scenario = dir.join("hot.toml");
    std::fs::write(
        &scenario,
        "name = \"hot key\"\nduration = \"5m\"\n[[traffic]]\nkeys = \"keys.txt\"\nwrites_per_sec = 3000\nsort_key = \"monotonic\"\n",
    )
    .unwrap();
    let path = scenario.to_str().unwrap();
    let doc = json(&run(&["simulate", path, "--format", "json"]));
    // HOT takes 3/4 of 3,000 writes/s: 1,250 over its partition's 1,000 every second, or 2,000 when cold
    // shares that partition (a new on-demand table has 4).
    let want = if support::bucket_of("HOT", 4) == support::bucket_of("cold", 4) {
        2000.0
    } else {
        1250.0
    };
    let before = doc["series"]["write_throttled_units"][10].as_f64().unwrap();
    assert!((before - want).abs() < 1e-6, "{before}");
    assert!(
        doc["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["kind"] != "split")
    );
    // The same, sharded ×10 from the command line: HOT's 2,250 writes/s spread over ten keys.
    let doc = json(&run(&[
        "simulate", path, "--format", "json", "--shards", "10",
    ]));
    let after = doc["series"]["write_throttled_units"][10].as_f64().unwrap();
    assert!(after < before, "{after} vs {before}");
    // The story names the scenario, its phases and the CloudWatch minutes.
    let out = run(&["simulate", path]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("scenario: hot key"), "{text}");
    assert!(text.contains("phases (units per second):"), "{text}");
    assert!(
        text.contains("per minute, as CloudWatch shows it"),
        "{text}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_bad_scenario_is_one_line_naming_the_file_field_and_line() {
    let dir = support::temp_dir("simulate", "bad");
    let scenario = dir.join("bad.toml");
    std::fs::write(
        &scenario,
        "duration = \"5m\"\n[table]\nbilling = \"on-demand\"\nwcu = 100\n[[traffic]]\nkey = \"a\"\n",
    )
    .unwrap();
    let out = run(&["simulate", scenario.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.toml"), "{err}");
    assert!(
        err.contains("line 4: wcu is for provisioned tables"),
        "{err}"
    );
    let out = run(&["simulate", "--example", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tournament-monotonic"));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_json_and_the_story_carry_the_diagnosis() {
    let doc = json(&run(&[
        "simulate",
        "--example",
        "tournament-monotonic",
        "--format",
        "json",
    ]));
    let headline = doc["headline"].as_str().unwrap();
    assert!(headline.starts_with("Never stopped"), "{headline}");
    assert!(headline.contains("sort key only increases"), "{headline}");
    let findings = doc["diagnostics"].as_array().unwrap();
    let hot = findings
        .iter()
        .find(|f| f["kind"] == "hot-partition")
        .unwrap();
    assert!(
        hot["text"].as_str().unwrap().contains("400 % of 1,000 WCU"),
        "{hot}"
    );
    assert_eq!(
        (hot["from"].as_u64(), hot["until"].as_u64()),
        (Some(0), Some(1_800))
    );
    assert!(hot["partition"].as_u64().is_some());
    // Every field there was before is still there.
    for field in [
        "step_seconds",
        "series",
        "minutes",
        "events",
        "final_partitions",
    ] {
        assert!(doc.get(field).is_some(), "{field}");
    }

    let doc = json(&run(&[
        "simulate",
        "--example",
        "tournament-random",
        "--format",
        "json",
    ]));
    let headline = doc["headline"].as_str().unwrap();
    assert!(
        headline.contains("split-for-heat relieved it"),
        "{headline}"
    );

    let out = run(&["simulate", "--example", "spike"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("in short: A spike of 4,000 throttled requests"),
        "{text}"
    );
    assert!(
        text.contains("00:01:00–00:02:00  the per-minute average reads 12 %"),
        "{text}"
    );
}
