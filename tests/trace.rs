//! `shardlens simulate --trace`, run as a user runs it: the same traffic from every per-key source gives the
//! same replay, CloudWatch minutes come out as `observed` and `agreement`, a Contributor Insights report
//! replays, and bad records are named or skipped.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

#[path = "support/cli.rs"]
mod support;

use support::{json, run};

/// 2026-06-23T10:00:00Z.
const T0: i64 = 1_782_208_800;
const WRITES: usize = 3_000;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn simulate(paths: &[&Path], extra: &[&str]) -> Output {
    let mut args = vec!["simulate".to_owned()];
    for p in paths {
        args.push("--trace".into());
        args.push(p.to_str().unwrap().into());
    }
    args.extend(["--format", "json"].map(String::from));
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&args)
}

fn stderr(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn series(doc: &Value, name: &str) -> Vec<f64> {
    doc["series"][name]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// The writes: Unix µs, key, sort key. 3,000 writes over 20 keys and 5 minutes, 10 a second, each key's
/// sort keys increasing with time.
fn writes() -> Vec<(i64, String, usize)> {
    (0..WRITES)
        .map(|i| {
            let micros = T0 * 1_000_000 + (i as i64 / 10) * 1_000_000 + (i as i64 % 10) * 100_000;
            (micros, format!("k{}", (i * 7) % 20), i)
        })
        .collect()
}

/// An item image under 1 KB: one write unit, like `--item-size`'s default.
fn image(key: &str, sk: usize) -> String {
    format!(
        r#"{{"pk":{{"S":"{key}"}},"sk":{{"N":"{sk}"}},"data":{{"S":"{}"}}}}"#,
        "x".repeat(200)
    )
}

fn export_file(w: &[(i64, String, usize)]) -> String {
    // Data files of an export are not in time order: every 7th record first.
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by_key(|&i| (i % 7, i));
    order
        .iter()
        .map(|&i| {
            let (micros, key, sk) = &w[i];
            format!(
                r#"{{"Metadata":{{"WriteTimestampMicros":{{"N":"{micros}"}}}},"Keys":{{"pk":{{"S":"{key}"}},"sk":{{"N":"{sk}"}}}},"NewImage":{}}}"#,
                image(key, *sk)
            ) + "\n"
        })
        .collect()
}

fn streams_pages(w: &[(i64, String, usize)]) -> String {
    w.chunks(1_000)
        .enumerate()
        .map(|(page, records)| {
            let records: Vec<String> = records
                .iter()
                .map(|(micros, key, sk)| {
                    format!(
                        r#"{{"eventID":"e{sk}","eventName":"INSERT","eventSource":"aws:dynamodb","dynamodb":{{"ApproximateCreationDateTime":{},"Keys":{{"pk":{{"S":"{key}"}},"sk":{{"N":"{sk}"}}}},"NewImage":{},"SequenceNumber":"{sk}","StreamViewType":"NEW_IMAGE"}}}}"#,
                        micros / 1_000_000,
                        image(key, *sk)
                    )
                })
                .collect();
            format!(
                "{{\"Records\":[{}],\"NextShardIterator\":\"it{page}\"}}\n",
                records.join(",\n")
            )
        })
        .collect()
}

fn csv_log(w: &[(i64, String, usize)]) -> String {
    let mut out = String::from("time,pk,sk,op\n");
    for (micros, key, sk) in w {
        let s = micros / 1_000_000 - T0;
        let ms = micros % 1_000_000 / 1_000;
        out.push_str(&format!(
            "2026-06-23T10:{:02}:{:02}.{ms:03}Z,{key},{sk},PutItem\n",
            s / 60,
            s % 60
        ));
    }
    out
}

#[test]
fn the_same_writes_replay_alike_from_an_export_streams_and_a_log() {
    let dir = support::temp_dir("trace", "same");
    let w = writes();
    let files = [
        write(&dir, "export.json", &export_file(&w)),
        write(&dir, "pages.json", &streams_pages(&w)),
        write(&dir, "requests.csv", &csv_log(&w)),
    ];
    // A table that throttles them (2 WCU against 10 a second, beyond its burst), so that served and throttled
    // units compare too.
    let table = ["--wcu", "2", "--rcu", "1"];
    let docs: Vec<Value> = files
        .iter()
        .map(|f| json(&simulate(&[f], &table)))
        .collect();
    let formats: Vec<&str> = docs
        .iter()
        .map(|d| d["source"][0]["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["incremental", "streams", "log"]);
    for d in &docs {
        assert_eq!(d["start"], "2026-06-23T10:00:00Z");
        assert_eq!(d["source"][0]["records"], 3_000);
        assert_eq!(d["source"][0]["keys"], 20);
    }
    let demand: Vec<Vec<f64>> = docs
        .iter()
        .map(|d| series(d, "write_demand_units"))
        .collect();
    assert_eq!(demand[0].len(), 300);
    assert!(
        demand[0].iter().all(|&x| (x - 10.0).abs() < 1e-9),
        "{:?}",
        &demand[0][..5]
    );
    assert_eq!(demand[0], demand[1]);
    assert_eq!(demand[0], demand[2]);
    for name in ["write_served_units", "write_throttled_units"] {
        let s: Vec<Vec<f64>> = docs.iter().map(|d| series(d, name)).collect();
        assert_eq!(s[0], s[1], "{name}");
        assert_eq!(s[0], s[2], "{name}");
    }
    assert!(
        series(&docs[0], "write_throttled_units")
            .iter()
            .sum::<f64>()
            > 0.0
    );
}

/// get-metric-data output (newest first) for the 5 minutes of [`writes`].
fn cloudwatch(consumed: f64, throttles_at_minute_2: f64) -> String {
    let stamps: Vec<String> = (0..5)
        .rev()
        .map(|m| format!("\"2026-06-23T10:{m:02}:00+00:00\""))
        .collect();
    let values = vec![consumed.to_string(); 5];
    format!(
        r#"{{"MetricDataResults":[
 {{"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","Timestamps":[{}],"Values":[{}],"StatusCode":"Complete"}},
 {{"Id":"wte","Label":"WriteThrottleEvents","Timestamps":["2026-06-23T10:02:00+00:00"],"Values":[{throttles_at_minute_2}],"StatusCode":"Complete"}}
],"Messages":[]}}"#,
        stamps.join(","),
        values.join(",")
    )
}

#[test]
fn cloudwatch_minutes_are_observed_beside_the_replay() {
    let dir = support::temp_dir("trace", "cloudwatch");
    let w = writes();
    let log = write(&dir, "requests.csv", &csv_log(&w));
    // CloudWatch saw what the log holds (600 units a minute): no other traffic.
    let cw = write(&dir, "metrics.json", &cloudwatch(600.0, 5.0));
    let doc = json(&simulate(&[&log, &cw], &[]));
    assert_eq!(doc["source"][1]["format"], "metrics");
    let observed = doc["observed"].as_array().unwrap();
    let t: Vec<i64> = observed.iter().map(|m| m["t"].as_i64().unwrap()).collect();
    assert_eq!(t, [0, 60, 120, 180, 240]);
    assert!(observed.iter().all(|m| m["consumed_write_units"] == 600.0));
    assert_eq!(observed[2]["write_throttle_events"], 5.0);
    assert!(observed[1].get("write_throttle_events").is_none());
    let agreement = &doc["agreement"];
    assert_eq!(agreement["observed_throttle_events"], 5.0);
    assert_eq!(agreement["minutes_compared"], 1);
    assert_eq!(agreement["differ_most"][0]["t"], 120);
    let demand: f64 = series(&doc, "write_demand_units").iter().sum();
    assert!((demand - 3_000.0).abs() < 1e-6, "{demand}");
    // CloudWatch saw 900 a minute: the other 300 are replayed on the other keys.
    let cw = write(&dir, "metrics.json", &cloudwatch(900.0, 0.0));
    let doc = json(&simulate(&[&log, &cw], &[]));
    let demand = series(&doc, "write_demand_units");
    assert!(
        demand.iter().all(|&x| (x - 15.0).abs() < 1e-6),
        "{:?}",
        &demand[..5]
    );
    let assumed = doc["source"][1]["assumed"].to_string();
    assert!(assumed.contains("other#0"), "{assumed}");
}

const REPORT: &str = r#"{
 "RuleName": "DynamoDBContributorInsights-PKC-orders-1750000000000",
 "KeyLabels": ["pk"],
 "AggregationStatistic": "Sum",
 "AggregateValue": 9000.0,
 "ApproximateUniqueCount": 2,
 "Contributors": [
  {"Keys": ["hot"], "ApproximateAggregateValue": 7200.0,
   "Datapoints": [{"Timestamp": "2026-06-23T10:00:00+00:00", "ApproximateValue": 3600.0},
                  {"Timestamp": "2026-06-23T10:01:00+00:00", "ApproximateValue": 3600.0}]},
  {"Keys": ["warm"], "ApproximateAggregateValue": 1800.0,
   "Datapoints": [{"Timestamp": "2026-06-23T10:01:00+00:00", "ApproximateValue": 1800.0}]}
 ],
 "MetricDatapoints": [{"Timestamp": "2026-06-23T10:00:00+00:00", "UniqueContributors": 1, "Sum": 3600.0},
                      {"Timestamp": "2026-06-23T10:01:00+00:00", "UniqueContributors": 2, "Sum": 5400.0}]
}
{
 "RuleName": "DynamoDBContributorInsights-PKT-orders-1750000000000",
 "KeyLabels": ["pk"],
 "Contributors": [
  {"Keys": ["hot"], "ApproximateAggregateValue": 40.0,
   "Datapoints": [{"Timestamp": "2026-06-23T10:01:00+00:00", "ApproximateValue": 40.0}]}
 ]
}"#;

#[test]
fn a_contributor_insights_report_replays_its_top_keys() {
    let dir = support::temp_dir("trace", "insights");
    let report = write(&dir, "report.json", REPORT);
    let e = stderr(&simulate(&[&report], &[]));
    assert!(e.contains("pass --counts-are reads|writes"), "{e}");
    let doc = json(&simulate(
        &[&report],
        &["--counts-are", "writes", "--item-size", "1500"],
    ));
    let source = &doc["source"][0];
    assert_eq!(source["format"], "insights");
    assert_eq!(source["keys"], 2);
    assert_eq!(source["throttled_keys"][0]["key"], "hot");
    assert_eq!(source["throttled_keys"][0]["throttled_requests"], 40.0);
    // The throttled keys by period: the PKT rule's one minute.
    let periods = &source["throttled_by_period"];
    assert_eq!(periods.as_array().map(Vec::len), Some(1), "{source}");
    assert_eq!(periods[0]["start"], "2026-06-23T10:01:00Z");
    assert_eq!(periods[0]["seconds"], 60);
    assert_eq!(periods[0]["keys"][0]["key"], "hot");
    let out = run(&[
        "simulate",
        "--trace",
        report.to_str().unwrap(),
        "--counts-are",
        "writes",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "most throttled keys by period (observed):\n      2026-06-23T10:01:00Z +60 s: hot (40)"
        ),
        "{text}"
    );
    // 60 writes a second of 2 units (1,500 bytes) in the first minute, 90 in the second.
    let demand = series(&doc, "write_demand_units");
    assert_eq!(demand.len(), 120);
    assert!((demand[0] - 120.0).abs() < 1e-6, "{}", demand[0]);
    assert!((demand[119] - 180.0).abs() < 1e-6, "{}", demand[119]);
    assert!(series(&doc, "read_demand_units").iter().all(|&x| x == 0.0));
    assert!(
        source["assumed"]
            .to_string()
            .contains("only the top contributors")
    );
}

#[test]
fn bad_records_are_named_or_skipped_and_counted() {
    let dir = support::temp_dir("trace", "bad");
    let log = write(
        &dir,
        "requests.csv",
        "time,pk\n2026-06-23T10:00:00Z,a\n2026-06-23T10:00:01Z,b\nnot a time,c\n",
    );
    let e = stderr(&simulate(&[&log], &[]));
    assert!(
        e.contains("line 4: column time: \"not a time\" is not a time"),
        "{e}"
    );
    assert!(e.contains("requests.csv"), "{e}");
    let doc = json(&simulate(&[&log], &["--skip-bad"]));
    assert_eq!(doc["source"][0]["records"], 2);
    assert_eq!(doc["source"][0]["skipped"], 1);

    let page = write(
        &dir,
        "page.json",
        r#"{"Records":[{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208800,"Keys":{"pk":{"S":"a"}}}},
{"eventName":"INSERT","dynamodb":{"Keys":{"pk":{"S":"b"}}}}]}"#,
    );
    let e = stderr(&simulate(&[&page], &[]));
    assert!(
        e.contains("item 2: dynamodb.ApproximateCreationDateTime"),
        "{e}"
    );
    let doc = json(&simulate(&[&page], &["--skip-bad"]));
    assert_eq!(doc["source"][0]["records"], 1);
    assert_eq!(doc["source"][0]["skipped"], 1);

    // An image whose key attribute is not what its type tag says is a bad record, never a silent size.
    let images = write(
        &dir,
        "images.json",
        r#"{"Records":[{"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208800,"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"N":"abc"},"n":{"N":"1"}}}}]}"#,
    );
    let e = stderr(&simulate(&[&images], &[]));
    assert!(
        e.contains("item 1: NewImage: attribute \"pk\": \"abc\" is not a number (N)"),
        "{e}"
    );

    let untimed = write(&dir, "untimed.csv", "when,pk\n1,a\n");
    let e = stderr(&simulate(&[&untimed], &[]));
    assert!(
        e.contains("no time column: looked for time, timestamp, ts, @timestamp"),
        "{e}"
    );
    assert!(e.contains("untimed.csv"), "{e}");
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/estimates")
        .join(name)
}

/// What the file's records assumed, in one text.
fn assumed(doc: &Value) -> String {
    doc["source"][0]["assumed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Streams event as aws-lambda-go's `events/testdata/dynamodb-event.json` writes it: every value with all ten
/// type tags, all `null` but one. It replays; its `Keys` (`device`, `timestamp`) are told apart by the time,
/// and the guess is said.
#[test]
fn a_go_marshalled_stream_event_replays_with_its_key_guessed() {
    let event = fixture("go-stream-event.json");
    let doc = json(&simulate(&[&event], &[]));
    assert_eq!(doc["source"][0]["records"], 5);
    assert_eq!(doc["source"][0]["keys"], 3);
    let said = assumed(&doc);
    assert!(
        said.contains(
            "partition key device (guessed from Keys device, timestamp: timestamp holds times"
        ),
        "{said}"
    );
    // Images of 64 bytes or so: one write unit a record.
    let units: f64 = series(&doc, "write_demand_units").iter().sum();
    assert!((units - 5.0).abs() < 1e-9, "{units}");
}

/// A Streams record whose image holds a non-key attribute that is not a typed value is kept (its size an
/// estimate, counted and the first named); `Keys` named `name`, `timestamp` are guessed by the time.
#[test]
fn a_stream_image_with_a_malformed_attribute_is_kept_and_said() {
    let event = fixture("stream-estimated.json");
    let doc = json(&simulate(&[&event], &[]));
    assert_eq!(doc["source"][0]["records"], 3);
    assert_eq!(doc["source"][0]["keys"], 2);
    let said = assumed(&doc);
    assert!(
        said.contains(
            "1 record kept with an image attribute (not a key) that is not a DynamoDB typed value: its size is \
             estimated from what could be read (the first: item 2: NewImage: attribute \"stats.M\": \"HP\" is \
             not a DynamoDB type"
        ),
        "{said}"
    );
    assert!(
        said.contains("partition key name (guessed from Keys name, timestamp"),
        "{said}"
    );
}

/// tests/fixtures/trace/incremental-export: an incremental export whose data files live in the shared
/// `AWSDynamoDB/data/` beside the export folder, as AWS writes them (120 writes of 1 unit, one a second from
/// 2026-06-23T10:00:00.25Z, to 6 partition keys).
fn incremental_export() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trace/incremental-export/AWSDynamoDB")
}

#[test]
fn an_incremental_export_folder_replays_its_data_files_from_the_shared_data_folder() {
    let aws = incremental_export();
    let export = aws.join("01782208920000-5eed0001");
    // The export's folder, its manifest, and the AWSDynamoDB folder above (whose data/ the walk also meets):
    // every data file is read once.
    for path in [
        export.clone(),
        export.join("manifest-summary.json"),
        aws.clone(),
    ] {
        let out = simulate(&[&path], &[]);
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let doc = json(&out);
        let sources = doc["source"].as_array().unwrap();
        assert_eq!(sources.len(), 3, "{}: {sources:?}", path.display());
        assert!(sources.iter().all(|s| s["format"] == "incremental"));
        let records: u64 = sources.iter().map(|s| s["records"].as_u64().unwrap()).sum();
        assert_eq!(records, 120, "{}", path.display());
        assert_eq!(doc["start"], "2026-06-23T10:00:00Z");
        let demand: f64 = series(&doc, "write_demand_units").iter().sum();
        assert!((demand - 120.0).abs() < 1e-6, "{demand}");
    }
    // The replay is named after the folder given, not its data files (an export may hold hundreds).
    let doc = json(&simulate(&[&export], &[]));
    assert_eq!(doc["name"], "replay of 01782208920000-5eed0001");
    assert_eq!(doc["source"][0]["format_chosen"], "manifest-summary.json");
}

#[test]
fn a_trace_folder_with_nothing_to_read_names_the_folder() {
    let dir = support::temp_dir("trace", "empty-folder");
    let e = stderr(&simulate(&[&dir], &[]));
    assert!(!e.contains("(in )"), "{e}");
    assert!(e.contains(&dir.display().to_string()), "{e}");
    // An export folder whose manifest names a data file that is not there: the manifest and the file named.
    let export = dir.join("AWSDynamoDB/01782208920000-5eed0002");
    std::fs::create_dir_all(&export).unwrap();
    write(
        &export,
        "manifest-summary.json",
        r#"{"itemCount":1,"outputFormat":"DYNAMODB_JSON","exportType":"INCREMENTAL_EXPORT"}"#,
    );
    write(
        &export,
        "manifest-files.json",
        r#"{"itemCount":1,"dataFileS3Key":"AWSDynamoDB/data/gone.json.gz"}"#,
    );
    let e = stderr(&simulate(&[&export], &[]));
    assert!(e.contains("manifest-files.json"), "{e}");
    assert!(e.contains("gone.json.gz"), "{e}");
}

/// A paginator's pages dumped as one JSON array (`json.dump(list(paginator.paginate(…)))`): `Messages` null,
/// the 10:02 point first `PartialData` (300) then `Complete` (600) on the next page, the throttle events of
/// 10:02 given on both pages.
const PAGES: &str = r#"[
 {"MetricDataResults": [
   {"Id": "cwcu", "Label": "ConsumedWriteCapacityUnits", "StatusCode": "PartialData", "Messages": null,
    "Timestamps": ["2026-06-23T10:00:00Z", "2026-06-23T10:01:00Z", "2026-06-23T10:02:00Z"], "Values": [600.0, 600.0, 300.0]},
   {"Id": "wte", "Label": "WriteThrottleEvents", "StatusCode": "PartialData", "Messages": null,
    "Timestamps": ["2026-06-23T10:02:00Z"], "Values": [5.0]}
  ], "NextToken": "t1", "Messages": null},
 {"MetricDataResults": [
   {"Id": "cwcu", "Label": "ConsumedWriteCapacityUnits", "StatusCode": "Complete", "Messages": null,
    "Timestamps": ["2026-06-23T10:02:00Z", "2026-06-23T10:03:00Z", "2026-06-23T10:04:00Z"], "Values": [600.0, 600.0, 600.0]},
   {"Id": "wte", "Label": "WriteThrottleEvents", "StatusCode": "Complete", "Messages": null,
    "Timestamps": ["2026-06-23T10:02:00Z"], "Values": [5.0]}
  ], "NextToken": null, "Messages": null}
]"#;

#[test]
fn an_array_of_get_metric_data_pages_is_read_and_a_repeated_point_counts_once() {
    let dir = support::temp_dir("trace", "cloudwatch-pages");
    let log = write(&dir, "requests.csv", &csv_log(&writes()));
    let pages = write(&dir, "pages.json", PAGES);
    let doc = json(&simulate(&[&log, &pages], &[]));
    assert_eq!(doc["source"][1]["format"], "metrics");
    let observed = doc["observed"].as_array().unwrap();
    let t: Vec<i64> = observed.iter().map(|m| m["t"].as_i64().unwrap()).collect();
    assert_eq!(t, [0, 60, 120, 180, 240]);
    // 10:02 is the later page's 600, not 300 nor 900; its 5 throttle events are 5, not 10.
    assert!(
        observed.iter().all(|m| m["consumed_write_units"] == 600.0),
        "{observed:?}"
    );
    assert_eq!(observed[2]["write_throttle_events"], 5.0);
    assert_eq!(doc["agreement"]["observed_throttle_events"], 5.0);
    let assumed = doc["source"][1]["assumed"].to_string();
    assert!(assumed.contains("the later page's value kept"), "{assumed}");

    // get-metric-statistics outputs in an array (one call per window), the windows overlapping at 10:01.
    let stats = write(
        &dir,
        "stats.json",
        r#"[{"Label": "WriteThrottleEvents", "Datapoints": [
      {"Timestamp": "2026-06-23T10:00:00Z", "Sum": 2.0, "Unit": "Count"},
      {"Timestamp": "2026-06-23T10:01:00Z", "Sum": 3.0, "Unit": "Count"}]},
  {"Label": "WriteThrottleEvents", "Datapoints": [
      {"Timestamp": "2026-06-23T10:02:00Z", "Sum": 4.0, "Unit": "Count"},
      {"Timestamp": "2026-06-23T10:01:00Z", "Sum": 3.0, "Unit": "Count"}]}]"#,
    );
    let doc = json(&simulate(&[&log, &stats], &[]));
    let throttles: Vec<f64> = doc["observed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["write_throttle_events"].as_f64().unwrap())
        .collect();
    assert_eq!(throttles, [2.0, 3.0, 4.0]);
}

#[test]
fn a_label_that_names_no_dynamodb_metric_says_how_to_name_it() {
    let dir = support::temp_dir("trace", "cloudwatch-label");
    // The shape of Grafana's CloudWatch test data: queries labelled label1, label2.
    let pages = write(
        &dir,
        "grafana.json",
        r#"[{"Messages": null, "MetricDataResults": [
   {"Id": "a", "Label": "label1", "Messages": null, "StatusCode": "Complete",
    "Timestamps": ["2026-06-23T10:00:00Z", "2026-06-23T10:01:00Z"], "Values": [1.0, 2.0]},
   {"Id": "b", "Label": "label2", "Messages": null, "StatusCode": "Complete",
    "Timestamps": ["2026-06-23T10:00:00Z"], "Values": [3.0]}],
  "NextToken": null}]"#,
    );
    for extra in [&[][..], &["--skip-bad"][..]] {
        let e = stderr(&simulate(&[&pages], extra));
        assert!(
            e.contains("label1, label2 are not DynamoDB metric names; name each query's Label (or Id) after the metric it reads: ConsumedReadCapacityUnits, ConsumedWriteCapacityUnits, ReadThrottleEvents, WriteThrottleEvents"),
            "{e}"
        );
        assert!(e.contains("grafana.json"), "{e}");
        assert!(!e.contains("no records with a time"), "{e}");
    }
}

/// The writes of [`writes`] 20 s later: the first at 10:00:20, mid-minute.
fn writes_mid_minute() -> Vec<(i64, String, usize)> {
    writes()
        .into_iter()
        .map(|(micros, key, sk)| (micros + 20_000_000, key, sk))
        .collect()
}

/// get-metric-data for 10:00 … 10:05: `consumed` units a minute, and throttle events in the minutes given.
fn cloudwatch_minutes(consumed: f64, throttles: &[(i64, f64)]) -> String {
    let stamps: Vec<String> = (0..6)
        .map(|m| format!("\"2026-06-23T10:{m:02}:00+00:00\""))
        .collect();
    let values = vec![consumed.to_string(); 6];
    let t_stamps: Vec<String> = throttles
        .iter()
        .map(|(m, _)| format!("\"2026-06-23T10:{m:02}:00+00:00\""))
        .collect();
    let t_values: Vec<String> = throttles.iter().map(|(_, v)| v.to_string()).collect();
    format!(
        r#"{{"MetricDataResults":[
 {{"Id":"cwcu","Label":"ConsumedWriteCapacityUnits","Timestamps":[{}],"Values":[{}],"StatusCode":"Complete"}},
 {{"Id":"wte","Label":"WriteThrottleEvents","Timestamps":[{}],"Values":[{}],"StatusCode":"Complete"}}
],"Messages":[]}}"#,
        stamps.join(","),
        values.join(","),
        t_stamps.join(","),
        t_values.join(",")
    )
}

fn minute_starts(doc: &Value) -> Vec<i64> {
    doc["minutes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["t"].as_i64().unwrap())
        .collect()
}

/// Each modelled minute's UTC minute (ISO 8601).
fn minute_stamps(doc: &Value) -> Vec<String> {
    doc["minutes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["minute"].as_str().unwrap().to_owned())
        .collect()
}

/// The model's write throttle events in its minute starting at `t`.
fn modelled_at(doc: &Value, t: i64) -> f64 {
    doc["minutes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["t"] == t)
        .map(|m| m["write_throttle_events"].as_f64().unwrap())
        .unwrap()
}

// Issue 57: writes from 10:00:20 replay on whole UTC minutes: a partial first minute from 10:00:20, then
// 10:01:00, …, and the story says the first minute is partial.
#[test]
fn a_replay_from_mid_minute_is_per_whole_utc_minute() {
    let dir = support::temp_dir("trace", "minutes-alone");
    let log = write(&dir, "requests.csv", &csv_log(&writes_mid_minute()));
    let alone = json(&simulate(&[&log], &["--wcu", "2", "--rcu", "1"]));
    assert_eq!(alone["start"], "2026-06-23T10:00:20Z");
    assert_eq!(minute_starts(&alone), [0, 40, 100, 160, 220, 280]);
    assert_eq!(
        minute_stamps(&alone),
        (0..6)
            .map(|m| format!("2026-06-23T10:{m:02}:00Z"))
            .collect::<Vec<_>>()
    );
    // The partial first minute holds its 40 s of writes, the next a whole minute's.
    let units = |i: usize| {
        let m = &alone["minutes"][i];
        m["consumed_write_units"].as_f64().unwrap() + m["write_throttle_events"].as_f64().unwrap()
    };
    assert!((units(0) - 400.0).abs() < 1e-6, "{}", units(0));
    assert!((units(1) - 600.0).abs() < 1e-6, "{}", units(1));
    let out = run(&[
        "simulate",
        "--trace",
        log.to_str().unwrap(),
        "--wcu",
        "2",
        "--rcu",
        "1",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("t = 0 is 2026-06-23T10:00:20Z")
            && text.contains(
                "minutes are whole UTC minutes, so the first, from 2026-06-23T10:00:20Z to 2026-06-23T10:01:00Z, is partial (40 s)"
            )
            && text.contains("(partial: from 10:00:20)"),
        "{text}"
    );
}

// Issue 57: the same writes with CloudWatch's minutes: the same whole UTC minutes, and `differ_most` compares
// minutes that exist on both sides (the model's partial first minute included).
#[test]
fn cloudwatch_minutes_compare_with_the_same_whole_minutes() {
    let dir = support::temp_dir("trace", "minutes-cw");
    let log = write(&dir, "requests.csv", &csv_log(&writes_mid_minute()));
    let table = ["--wcu", "2", "--rcu", "1"];
    let alone = json(&simulate(&[&log], &table));
    let cw = write(
        &dir,
        "metrics.json",
        &cloudwatch_minutes(600.0, &[(2, 4_000.0), (3, 400.0)]),
    );
    let with = json(&simulate(&[&log, &cw], &table));
    // CloudWatch's uncovered units of 10:00 are spread over its whole minute: t = 0 is 10:00:00 then.
    assert_eq!(with["start"], "2026-06-23T10:00:00Z");
    assert_eq!(minute_starts(&with), [0, 60, 120, 180, 240, 300]);
    assert_eq!(minute_stamps(&with), minute_stamps(&alone));
    let observed: Vec<&str> = with["observed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["minute"].as_str().unwrap())
        .collect();
    assert_eq!(observed, minute_stamps(&alone));
    let differ = with["agreement"]["differ_most"].as_array().unwrap();
    assert_eq!(differ.len(), 2);
    for d in differ {
        let t = d["t"].as_i64().unwrap();
        assert_eq!(t % 60, 0, "{d}");
        assert!(d["minute"].as_str().unwrap().ends_with(":00Z"), "{d}");
        assert_eq!(
            d["modelled"].as_f64().unwrap(),
            modelled_at(&with, t),
            "{d}"
        );
    }
    assert!(modelled_at(&with, 120) > 0.0);
    assert_eq!(differ[0]["minute"], "2026-06-23T10:02:00Z");
    // CloudWatch's throttle events only (no consumed units): t = 0 stays 10:00:20.
    let only_throttles = write(
        &dir,
        "throttles.json",
        r#"{"MetricDataResults":[{"Id":"wte","Label":"WriteThrottleEvents","StatusCode":"Complete",
 "Timestamps":["2026-06-23T10:02:00+00:00","2026-06-23T10:00:00+00:00"],"Values":[4000.0,10.0]}],"Messages":[]}"#,
    );
    let doc = json(&simulate(&[&log, &only_throttles], &table));
    assert_eq!(doc["start"], "2026-06-23T10:00:20Z");
    let rows = doc["agreement"]["differ_most"].as_array().unwrap();
    let row = |minute: &str| rows.iter().find(|r| r["minute"] == minute).unwrap().clone();
    assert_eq!(row("2026-06-23T10:02:00Z")["t"], 100);
    assert_eq!(
        row("2026-06-23T10:02:00Z")["modelled"].as_f64(),
        Some(modelled_at(&doc, 100))
    );
    assert_eq!(row("2026-06-23T10:00:00Z")["t"], -20);
    assert_eq!(
        row("2026-06-23T10:00:00Z")["modelled"].as_f64(),
        Some(modelled_at(&doc, 0))
    );
}

// Issue 57: CloudWatch observed throttling the model does not show: the headline says both, never "No
// throttling".
#[test]
fn observed_throttling_is_in_the_headline_when_the_model_throttles_none() {
    let dir = support::temp_dir("trace", "reconcile");
    let log = write(&dir, "requests.csv", &csv_log(&writes_mid_minute()));
    let cw = write(
        &dir,
        "metrics.json",
        &cloudwatch_minutes(600.0, &[(1, 2_400.0), (2, 2_000.0)]),
    );
    // A table far larger than 10 writes a second: the model throttles none.
    let big = ["--wcu", "1000", "--rcu", "1000"];
    let doc = json(&simulate(&[&log, &cw], &big));
    let headline = doc["headline"].as_str().unwrap();
    assert_eq!(
        headline,
        "Observed 4,400 throttle events (CloudWatch); the model throttles none on this table: not a key-spread \
         problem, or the table you gave is larger than the real one"
    );
    let observed = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "observed")
        .unwrap();
    assert_eq!(
        (observed["from"].as_i64(), observed["until"].as_i64()),
        (Some(60), Some(180))
    );
    assert!(
        observed["text"]
            .as_str()
            .unwrap()
            .starts_with("CloudWatch observed 4,400 throttle events in 2 minutes from 10:01:00 UTC to 10:03:00 UTC"),
        "{observed}"
    );
    // The text story says it too.
    let out = run(&[
        "simulate",
        "--trace",
        log.to_str().unwrap(),
        "--trace",
        cw.to_str().unwrap(),
        "--wcu",
        "1000",
        "--rcu",
        "1000",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("in short: Observed 4,400 throttle events"),
        "{text}"
    );
    assert!(!text.contains("No throttling"), "{text}");
    // CloudWatch's minutes alone: the keys are stand-ins, and the headline says no hot key can show.
    let doc = json(&simulate(&[&cw], &[]));
    let headline = doc["headline"].as_str().unwrap();
    assert!(
        headline
            .starts_with("Observed 4,400 throttle events (CloudWatch); the model throttles none")
            && headline.contains("stand-in keys"),
        "{headline}"
    );
}

// Issue 60: an on-demand table's maximum (DynamoDB's OnDemandThroughput) from the flags. The log's 10 writes a
// second replay freely on a new on-demand table; with --max-write-units 5 half of them throttle, all with
// TableWriteMaxOnDemandThroughputExceeded (a table-level reason: sharding the key would not help). A
// provisioned table refuses the flag.
#[test]
fn an_on_demand_maximum_throttles_with_its_reason() {
    let dir = support::temp_dir("trace", "max-on-demand");
    let log = write(&dir, "requests.csv", &csv_log(&writes()));
    let reasons = |v: &Value| {
        let mut total = std::collections::BTreeMap::<String, f64>::new();
        for m in v["minutes"].as_array().unwrap() {
            for (reason, n) in m["throttle_reasons"].as_object().unwrap() {
                *total.entry(reason.clone()).or_default() += n.as_f64().unwrap();
            }
        }
        total
    };
    let free = json(&simulate(&[&log], &[]));
    assert!(reasons(&free).is_empty(), "{:?}", reasons(&free));
    let capped = json(&simulate(&[&log], &["--max-write-units", "5"]));
    let by_reason = reasons(&capped);
    assert_eq!(
        by_reason.keys().collect::<Vec<_>>(),
        ["TableWriteMaxOnDemandThroughputExceeded"],
        "{by_reason:?}"
    );
    // About half of the writes: 5 a second over the maximum.
    let thrown = by_reason["TableWriteMaxOnDemandThroughputExceeded"];
    let sent = WRITES as f64;
    assert!(
        (thrown / sent - 0.5).abs() < 0.1,
        "{thrown} of {sent} writes throttled"
    );
    // The table line says the maximum.
    let out = run(&[
        "simulate",
        "--trace",
        log.to_str().unwrap(),
        "--max-write-units",
        "5",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("at most 5 writes per second")
            && text.contains("TableWriteMaxOnDemandThroughputExceeded"),
        "{text}"
    );
    let refused = simulate(
        &[&log],
        &["--wcu", "2", "--rcu", "1", "--max-write-units", "5"],
    );
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("--max-write-units is for an on-demand table"),
        "{}",
        stderr(&refused)
    );
}

fn reasons_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/trace/reasons/{name}"))
}

// Issue 60: CloudWatch's throttle-reason metrics are read (get-metric-data and get-metric-statistics), carried
// in `observed` by their snake-case names, compared per reason, and answer the tree's first question; the
// replay's JSON and its story carry the decision.
#[test]
fn throttle_reason_metrics_replay_with_their_reason_and_answer_the_tree() {
    let key_range = reasons_fixture("key-range.json");
    let doc = json(&simulate(
        &[&key_range],
        &["--rcu", "1000", "--wcu", "1000"],
    ));
    let observed = doc["observed"].as_array().unwrap();
    assert_eq!(
        observed[3]["write_key_range_throughput_throttle_events"],
        174.0
    );
    assert!(
        observed[0]
            .get("write_key_range_throughput_throttle_events")
            .is_none()
    );
    let by_reason = doc["agreement"]["by_reason"].as_array().unwrap();
    assert_eq!(by_reason.len(), 1, "{by_reason:?}");
    assert_eq!(
        by_reason[0]["metric"],
        "write_key_range_throughput_throttle_events"
    );
    assert_eq!(by_reason[0]["observed"], 1234.0);
    assert_eq!(by_reason[0]["sharding_can_help"], true);
    assert_eq!(by_reason[0]["first_minute"], "2026-06-23T10:03:00Z");
    assert_eq!(by_reason[0]["last_minute"], "2026-06-23T10:08:00Z");
    let first = &doc["decision"]["path"][0];
    assert_eq!(first["answer"], "yes");
    assert_eq!(
        first["evidence"],
        "1,234 KeyRange write throttle events from 10:03 to 10:09 UTC (CloudWatch): one partition's key \
         range over its limit, a hot partition"
    );

    let provisioned = reasons_fixture("provisioned.json");
    let args = ["--rcu", "100", "--wcu", "100"];
    let doc = json(&simulate(&[&provisioned], &args));
    assert_eq!(
        doc["observed"][3]["write_provisioned_throughput_throttle_events"],
        1100.0
    );
    let by_reason = doc["agreement"]["by_reason"].as_array().unwrap();
    assert_eq!(
        by_reason[0]["metric"],
        "write_provisioned_throughput_throttle_events"
    );
    assert_eq!(by_reason[0]["sharding_can_help"], false);
    let decision = &doc["decision"];
    assert_eq!(decision["path"][0]["answer"], "no");
    let said = decision["path"][0]["evidence"].as_str().unwrap();
    assert!(
        said.contains("3,000 Provisioned write throttle events from 10:03 to 10:06 UTC"),
        "{said}"
    );
    assert!(
        said.contains("TableWriteProvisionedThroughputExceeded"),
        "{said}"
    );
    assert!(said.contains("raise capacity, not the key"), "{said}");
    assert_eq!(
        decision["leaf"],
        "A table-level limit: raise capacity, not the key"
    );

    // The story says the same, with the reasons beside the model's.
    let mut story_args = vec!["simulate", "--trace", provisioned.to_str().unwrap()];
    story_args.extend(args);
    let out = run(&story_args);
    assert!(out.status.success());
    let story = String::from_utf8_lossy(&out.stdout);
    assert!(
        story.contains(
            "throttle events by reason (CloudWatch / model, in the minutes compared): Provisioned write 3,000 \
             / 0 (the table's or account's limit: sharding cannot help)"
        ),
        "{story}"
    );
    assert!(
        story.contains("decision:\n  Throttling concentrated on one key? no"),
        "{story}"
    );
}

// Issue 60: a request log that carries each throttled request's reasons (a `reason` column in CSV,
// `ThrottlingReasons` in JSON lines, which a served request's line leaves out) gives observed throttles per
// reason and per key, compared with the model and answering the tree; both shapes give the same replay.
#[test]
fn a_request_log_with_throttling_reasons_is_observed_per_reason_and_key() {
    let mut docs = Vec::new();
    for name in ["requests.csv", "requests.jsonl"] {
        let doc = json(&simulate(&[&reasons_fixture(name)], &[]));
        let keys = &doc["source"][0]["throttled_keys"];
        assert_eq!(keys[0]["key"], "BOARD#global", "{name}");
        assert_eq!(keys[0]["throttled_requests"], 60.0, "{name}");
        let observed = doc["observed"].as_array().unwrap();
        assert_eq!(observed.len(), 3, "{name}");
        assert_eq!(
            observed[0]["write_key_range_throughput_throttle_events"],
            0.0
        );
        assert_eq!(
            observed[1]["write_key_range_throughput_throttle_events"],
            60.0
        );
        assert_eq!(
            observed[2]["write_provisioned_throughput_throttle_events"],
            2.0
        );
        let by_reason = doc["agreement"]["by_reason"].as_array().unwrap();
        assert_eq!(by_reason.len(), 2, "{name}");
        let first = doc["decision"]["path"][0]["evidence"].as_str().unwrap();
        assert!(
            first.starts_with(
                "both (the request log): 97 % KeyRange, a hot partition (60 KeyRange write throttle events in \
                 the minute from 10:01 UTC)"
            ),
            "{name}: {first}"
        );
        assert!(
            doc["headline"]
                .as_str()
                .unwrap()
                .contains("Observed 62 throttle events (the request log)"),
            "{name}"
        );
        // The throttled requests are still the application's demand: 720 writes of one unit.
        let demand: f64 = series(&doc, "write_demand_units").iter().sum();
        assert!((demand - 720.0).abs() < 1e-6, "{name}: {demand}");
        docs.push(doc);
    }
    assert_eq!(docs[0]["observed"], docs[1]["observed"]);
    assert_eq!(docs[0]["agreement"], docs[1]["agreement"]);
    assert_eq!(docs[0]["decision"], docs[1]["decision"]);
}
