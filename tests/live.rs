//! `shardlens stream` and `shardlens metrics` against a real local server: moto (DynamoDB with Streams,
//! CloudWatch), started per test on 127.0.0.1 (`tests/moto.sh` installs it). Each test writes a known pattern
//! with boto3 and checks exact counts: per key from the stream, per minute from CloudWatch; the saved traces
//! replay; faults through the proxy (throttled GetRecords, an expired iterator) lose and repeat nothing; Ctrl+C
//! prints what was read; a table without a stream and a server without Contributor Insights are said plainly.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/answers.rs"]
mod answers;
#[path = "support/cbor_shim.rs"]
mod cbor_shim;
#[path = "support/faults.rs"]
mod faults;
#[path = "support/moto.rs"]
mod moto;
#[path = "support/recorder.rs"]
mod recorder;
#[path = "support/cli.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use answers::{Answer, fixture};
use faults::{Fault, FaultProxy};
use moto::Moto;
use support::{bin, json, temp_dir};

/// A table `name` with a stream of new and old images (or none).
fn table(moto: &Moto, name: &str, stream: bool) {
    let spec = if stream {
        "StreamSpecification={'StreamEnabled': True, 'StreamViewType': 'NEW_AND_OLD_IMAGES'},"
    } else {
        ""
    };
    moto.boto(&format!(
        "ddb.create_table(TableName='{name}', BillingMode='PAY_PER_REQUEST', {spec}
    KeySchema=[{{'AttributeName': 'pk', 'KeyType': 'HASH'}}, {{'AttributeName': 'sk', 'KeyType': 'RANGE'}}],
    AttributeDefinitions=[{{'AttributeName': 'pk', 'AttributeType': 'S'}}, {{'AttributeName': 'sk', 'AttributeType': 'N'}}])"
    ));
}

/// Writes `n` items to each `(key, n)`, interleaved, each with a small payload (one write unit).
fn write(moto: &Moto, name: &str, pattern: &[(&str, u32)], first_sk: u32) {
    let pattern: Vec<String> = pattern
        .iter()
        .map(|(k, n)| format!("('{k}', {n})"))
        .collect();
    moto.boto(&format!(
        "todo = [[k, n] for k, n in [{}]]
sk = {first_sk}
while any(n for _, n in todo):
    for t in todo:
        if t[1] > 0:
            ddb.put_item(TableName='{name}', Item={{'pk': {{'S': t[0]}}, 'sk': {{'N': str(sk)}}, 'v': {{'S': 'x' * 100}}}})
            t[1] -= 1
            sk += 1",
        pattern.join(", ")
    ));
}

fn connect(endpoint: &str) -> Vec<String> {
    [
        "--endpoint-url",
        endpoint,
        "--region",
        "us-east-1",
        "--timeout",
        "10",
    ]
    .map(str::to_owned)
    .to_vec()
}

fn shardlens(args: &[String]) -> std::process::Command {
    let mut cmd = bin();
    moto::hermetic(cmd.args(args));
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `simulate --trace saved --format json`, which must succeed.
fn replay(saved: &std::path::Path) -> Value {
    let out = shardlens(&[
        "simulate".to_owned(),
        "--trace".to_owned(),
        saved.display().to_string(),
        "--format".to_owned(),
        "json".to_owned(),
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    json(&out)
}

/// 60 writes to the hot key, 2 to each of 20 others: 100 writes over 21 keys.
fn pattern() -> Vec<(String, u32)> {
    let mut p = vec![("BOARD#global".to_owned(), 60)];
    p.extend((0..20).map(|i| (format!("USER#{i:02}"), 2)));
    p
}

fn write_pattern(moto: &Moto, name: &str) {
    let p = pattern();
    let refs: Vec<(&str, u32)> = p.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    write(moto, name, &refs, 0);
}

fn top_key(doc: &Value) -> (&str, u64) {
    let top = &doc["top_keys"][0];
    (top["key"].as_str().unwrap(), top["count"].as_u64().unwrap())
}

#[test]
fn stream_counts_every_write_per_key_and_its_saved_trace_replays() {
    let moto = Moto::start();
    table(&moto, "orders", true);
    write_pattern(&moto, "orders");
    let dir = temp_dir("live", "stream");
    let saved = dir.join("orders-writes.jsonl");
    let mut args = vec![
        "stream",
        "--table",
        "orders",
        "--from",
        "trim-horizon",
        "--for",
        "3s",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect::<Vec<_>>();
    args.extend(connect(&moto.endpoint()));
    args.extend(["--format", "json", "--save-trace"].map(str::to_owned));
    args.push(saved.display().to_string());
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["total"], 100, "{doc}");
    assert_eq!(doc["distinct"], 21);
    assert_eq!(top_key(&doc), ("BOARD#global", 60));
    let series: Vec<f64> = doc["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(series.iter().sum::<f64>(), 100.0, "one write unit each");
    assert!(doc["start"].as_str().unwrap().ends_with('Z'));
    assert!(
        doc["decision"].is_object() || doc["decision"].is_array(),
        "{doc}"
    );
    assert!(stderr(&out).contains("100 records"), "{}", stderr(&out));

    // The saved records are a trace: the replay has the same writes over the same keys.
    let replay = replay(&saved);
    assert_eq!(replay["source"][0]["format"], "streams");
    assert_eq!(replay["source"][0]["records"], 100);
    assert_eq!(replay["source"][0]["keys"], 21);
    assert_eq!(replay["start"], doc["start"]);
}

/// Reads a child's standard error line by line on a thread.
fn lines_of(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Waits (up to 60 s) for a line of `rx` that `pred` accepts; all lines seen so far on failure.
fn wait_line(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, pred: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            let hit = pred(&line);
            seen.push(line);
            if hit {
                return;
            }
        }
    }
    panic!("no such line within 60 s; seen: {seen:#?}");
}

#[test]
fn from_latest_reads_only_new_writes_and_ctrl_c_prints_what_was_read() {
    let moto = Moto::start();
    table(&moto, "live", true);
    // History: from latest, not read.
    write(&moto, "live", &[("OLD", 5)], 0);
    let mut args = ["stream", "--table", "live", "--format", "json"]
        .map(str::to_owned)
        .to_vec();
    args.extend(connect(&moto.endpoint()));
    let mut child = shardlens(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let rx = lines_of(&mut child);
    let mut seen = Vec::new();
    wait_line(&rx, &mut seen, |l| l.contains("reading the stream"));
    write(&moto, "live", &[("NEW#hot", 8), ("NEW#cold", 2)], 100);
    wait_line(&rx, &mut seen, |l| l.contains("10 records"));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    seen.extend(rx.try_iter());
    assert!(out.status.success(), "{:?} {seen:#?}", out.status);
    let doc = json(&out);
    assert_eq!(doc["total"], 10, "{doc}");
    assert_eq!(doc["distinct"], 2);
    assert_eq!(top_key(&doc), ("NEW#hot", 8));
    assert!(doc["source"].as_str().unwrap().contains("stopped"), "{doc}");
    assert!(
        seen.iter().any(|l| l.contains("stopped: 10 records")),
        "{seen:#?}"
    );
}

/// A local server named by `AWS_ENDPOINT_URL_DYNAMODB` (no `--endpoint-url`) serves the stream too.
#[test]
fn the_dynamodb_endpoint_variable_points_the_stream_there_too() {
    let moto = Moto::start();
    table(&moto, "env", true);
    write(&moto, "env", &[("K", 4)], 0);
    let out = shardlens(
        &[
            "stream",
            "--table",
            "env",
            "--from",
            "trim-horizon",
            "--for",
            "2s",
            "--format",
            "json",
        ]
        .map(str::to_owned),
    )
    .env("AWS_ENDPOINT_URL_DYNAMODB", moto.endpoint())
    .env("AWS_REGION", "us-east-1")
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["total"], 4);
}

#[test]
fn a_table_without_a_stream_says_how_its_owner_turns_one_on() {
    let moto = Moto::start();
    table(&moto, "plain", false);
    let mut args = ["stream", "--table", "plain", "--for", "2s"]
        .map(str::to_owned)
        .to_vec();
    args.extend(connect(&moto.endpoint()));
    let out = shardlens(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("plain has no stream"), "{err}");
    assert!(err.contains("never makes"), "{err}");
    assert!(err.contains("aws dynamodb update-table"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn throttled_get_records_and_an_expired_iterator_lose_nothing_and_count_nothing_twice() {
    let moto = Moto::start();
    table(&moto, "faulty", true);
    write_pattern(&moto, "faulty");
    // The first GetRecords reads every record; then throttling, an expired iterator, throttling again.
    let proxy = FaultProxy::start_on(moto.port, "GetRecords", |r| match r.nth {
        1 | 3 => Some(Fault::LimitExceeded),
        2 => Some(Fault::ExpiredIterator),
        _ => None,
    });
    let mut args = [
        "stream",
        "--table",
        "faulty",
        "--from",
        "trim-horizon",
        "--for",
        "6s",
        "--format",
        "json",
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(connect(&proxy.endpoint()));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(proxy.faults(), 3, "every fault was sent");
    let doc = json(&out);
    assert_eq!(doc["total"], 100, "{doc}");
    assert_eq!(doc["distinct"], 21);
    assert_eq!(top_key(&doc), ("BOARD#global", 60));
    // Throttling is retried by the SDK's own retries (or, past them, by the stream's backoff); the expired
    // iterator is renewed after the last record read.
    assert!(
        stderr(&out).contains("1 iterator renewed"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn metrics_reads_the_minutes_says_contributor_insights_is_not_there_and_saves_a_trace() {
    let moto = Moto::start();
    table(&moto, "orders", true);
    let base = moto.put_metrics(
        "orders",
        &[
            (10, "ConsumedWriteCapacityUnits", 6_000.0),
            (9, "ConsumedWriteCapacityUnits", 60_000.0),
            (9, "WriteThrottleEvents", 12.0),
            (9, "WriteKeyRangeThroughputThrottleEvents", 12.0),
            (8, "ConsumedWriteCapacityUnits", 30_000.0),
            (8, "ConsumedReadCapacityUnits", 600.0),
        ],
    );
    let dir = temp_dir("live", "metrics");
    let saved = dir.join("orders-metrics.json");
    let mut args = [
        "metrics",
        "--table",
        "orders",
        "--since",
        "30m",
        "--format",
        "json",
        "--save-trace",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(saved.display().to_string());
    args.extend(connect(&moto.endpoint()));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    let start = doc["start"].as_str().unwrap().to_owned();
    let minutes = doc["minutes"].as_array().unwrap();
    assert_eq!(minutes.len(), 3, "{doc}");
    let t0 = minutes[0]["t"].as_i64().unwrap();
    let t: Vec<i64> = minutes
        .iter()
        .map(|m| m["t"].as_i64().unwrap() - t0)
        .collect();
    assert_eq!(t, [0, 60, 120]);
    assert_eq!(minutes[0]["consumed_write_units"], 6_000.0);
    assert_eq!(minutes[1]["consumed_write_units"], 60_000.0);
    assert_eq!(minutes[1]["write_throttle_events"], 12.0);
    // Issue 60: the throttle-reason metrics, by the snake case of their names.
    assert_eq!(
        minutes[1]["write_key_range_throughput_throttle_events"],
        12.0
    );
    assert!(
        minutes[1]
            .get("write_provisioned_throughput_throttle_events")
            .is_none()
    );
    assert_eq!(minutes[2]["consumed_read_units"], 600.0);
    assert!(minutes[0].get("write_throttle_events").is_none());
    assert_eq!(doc["contributor_insights"]["status"], "not available");
    assert!(doc.get("contributors").is_none());
    let err = stderr(&out);
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("Contributor Insights is not available"))
            .count(),
        1,
        "{err}"
    );
    assert!(err.contains("billed"), "{err}");
    let first_minute = base - 10 * 60;
    let start_unix = first_minute - t0;
    assert!(start_unix <= first_minute, "{start} {t0}");

    saved_minutes_replay(&saved);
}

/// The saved minutes replay with the observed throttling beside the model, its reason kept.
fn saved_minutes_replay(saved: &std::path::Path) {
    let replay = replay(saved);
    assert_eq!(replay["source"][0]["format"], "metrics");
    let observed = replay["observed"].as_array().unwrap();
    assert_eq!(observed.len(), 3);
    assert_eq!(observed[1]["write_throttle_events"], 12.0);
    assert_eq!(
        observed[1]["write_key_range_throughput_throttle_events"],
        12.0
    );
    assert_eq!(replay["agreement"]["observed_throttle_events"], 12.0);
    assert_eq!(
        replay["agreement"]["by_reason"][0]["metric"],
        "write_key_range_throughput_throttle_events"
    );
    assert_eq!(replay["decision"]["path"][0]["answer"], "yes");
}

#[test]
fn stream_and_metrics_send_only_read_only_requests() {
    let moto = Moto::start();
    table(&moto, "audit", true);
    write(&moto, "audit", &[("A", 3)], 0);
    moto.put_metrics("audit", &[(5, "ConsumedWriteCapacityUnits", 60.0)]);
    let proxy = recorder::Recorder::start(moto.port);
    for command in [
        &[
            "stream",
            "--table",
            "audit",
            "--from",
            "trim-horizon",
            "--for",
            "2s",
            "--format",
            "json",
        ][..],
        &[
            "metrics", "--table", "audit", "--since", "1h", "--format", "json",
        ][..],
    ] {
        let mut args: Vec<String> = command.iter().map(|s| (*s).to_owned()).collect();
        args.extend(connect(&proxy.endpoint()));
        let out = shardlens(&args).output().unwrap();
        assert!(out.status.success(), "{command:?}: {}", stderr(&out));
    }
    let allowed = [
        "DescribeTable",
        "DescribeStream",
        "GetShardIterator",
        "GetRecords",
        "DescribeContributorInsights",
        "GetMetricData",
        "GetInsightRuleReport",
    ];
    let requests = proxy.requests();
    let ops: std::collections::BTreeSet<&str> =
        requests.iter().map(|r| r.operation.as_str()).collect();
    for op in &ops {
        assert!(allowed.contains(op), "{op} is not read-only: {ops:?}");
    }
    for must in [
        "DescribeTable",
        "DescribeStream",
        "GetShardIterator",
        "GetRecords",
        "GetMetricData",
    ] {
        assert!(ops.contains(must), "{must} not seen: {ops:?}");
    }
}

#[test]
fn tables_reads_the_on_demand_maximum_and_warm_throughput() {
    let moto = Moto::start();
    // moto keeps a table's WarmThroughput (its own answer) but not OnDemandThroughput: the proxy adds the
    // recorded one to its DescribeTable answers.
    moto.boto(
        "ddb.create_table(TableName='orders', BillingMode='PAY_PER_REQUEST',
    KeySchema=[{'AttributeName': 'pk', 'KeyType': 'HASH'}],
    AttributeDefinitions=[{'AttributeName': 'pk', 'AttributeType': 'S'}],
    WarmThroughput={'ReadUnitsPerSecond': 15000, 'WriteUnitsPerSecond': 5000})",
    );
    let recorded = fixture("describe-table-throughput.json");
    let on_demand =
        serde_json::json!({ "OnDemandThroughput": recorded["Table"]["OnDemandThroughput"] });
    let merged = answers::start(
        moto.port,
        vec![("DescribeTable", Answer::Merge("/Table", on_demand))],
    );
    let endpoint = format!("http://127.0.0.1:{merged}");
    let mut args = ["tables", "--format", "json"].map(str::to_owned).to_vec();
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    let facts = &doc[0]["throughput"];
    assert_eq!(facts["max_write_units"], 25, "{doc}");
    // -1 is no maximum.
    assert!(facts.get("max_read_units").is_none(), "{doc}");
    assert_eq!(facts["warm_read_units"], 15_000, "{doc}");
    assert_eq!(facts["warm_write_units"], 5_000, "{doc}");
    assert_eq!(facts["warm_status"], "ACTIVE", "{doc}");
    let mut args = ["tables"].map(str::to_owned).to_vec();
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("on-demand; at most 25 writes a second; warm 15,000 reads and 5,000 writes a second (ACTIVE)"),
        "{text}"
    );

    // The whole recorded answer: a GSI's maximum and warm throughput, and its key of two HASH attributes read
    // whole (moto keeps one HASH attribute a key schema, as DynamoDB did before November 2025).
    let fixed = answers::start(moto.port, vec![("DescribeTable", Answer::Fixed(recorded))]);
    multi_attribute_gsi_read_whole(&moto, fixed);
    let mut args = ["tables", "--format", "json"].map(str::to_owned).to_vec();
    args.extend(connect(&format!("http://127.0.0.1:{fixed}")));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc[0]["throughput"]["warm_write_units"], 4_500, "{doc}");
    let gsi = &doc[0]["index_throughput"]["byTenantRegion"];
    assert_eq!(gsi["max_read_units"], 100, "{doc}");
    assert!(gsi.get("max_write_units").is_none(), "{doc}");
    assert_eq!(gsi["warm_write_units"], 4_000, "{doc}");
}

/// Issue 60 item 6, through the recorded DescribeTable at `port`: `tables` lists the GSI `byTenantRegion` by
/// its two HASH attributes and its RANGE one, and a scan hashes `tenant` and `region` together: items of one
/// tenant in three regions are three index keys, not one.
fn multi_attribute_gsi_read_whole(moto: &Moto, port: u16) {
    let endpoint = format!("http://127.0.0.1:{port}");
    let mut args = ["tables", "--format", "json"].map(str::to_owned).to_vec();
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    let gsi = &doc[0]["global_indexes"][0];
    assert_eq!(
        gsi["partition_keys"],
        serde_json::json!(["tenant", "region"]),
        "{doc}"
    );
    assert_eq!(gsi["sort_keys"], serde_json::json!(["day"]), "{doc}");
    let mut args = ["tables"].map(str::to_owned).to_vec();
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(a multi-attribute key, hashed together)"),
        "{text}"
    );
    // Twelve items: tenant t1 in three regions (9 items), t2 in one (3 items); one item lacks region.
    moto.boto(
        "for i in range(12):
    tenant, region = ('t1', ['eu', 'us', 'ap'][i % 3]) if i < 9 else ('t2', 'eu')
    item = {'pk': {'S': f'o{i}'}, 'tenant': {'S': tenant}, 'day': {'S': '2026-06-23'}}
    if i != 11:
        item['region'] = {'S': region}
    ddb.put_item(TableName='orders', Item=item)",
    );
    let mut args = [
        "scan",
        "--table",
        "orders",
        "--gsi",
        "byTenantRegion",
        "--format",
        "json",
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    let design = doc["designs"]
        .as_array()
        .and_then(|d| d.iter().find(|x| x["design"] == "GSI byTenantRegion"))
        .unwrap_or_else(|| panic!("no GSI design: {doc}"));
    // (t1, eu), (t1, us), (t1, ap), (t2, eu): four keys of the 11 items that have both attributes.
    assert_eq!(design["distinct_keys"], 4, "{design}");
    assert_eq!(design["writes"], 11, "{design}");
    assert_eq!(design["absent"], 1, "{design}");
}

/// moto behind recorded Contributor Insights answers in THROTTLED_KEYS mode (moto has none): its endpoint.
/// The PKT rule's report has user#1 600 nine minutes before `base`, then user#1 300 and user#2 120.
fn insights_proxy(moto: &Moto, base: i64) -> String {
    // moto has no Contributor Insights: DescribeContributorInsights and the rule's report are recorded answers.
    let port = answers::start(moto.port, answers::throttled_keys_mode(base));
    format!("http://127.0.0.1:{port}")
}

#[test]
fn metrics_in_throttled_keys_mode_reads_the_most_throttled_keys_by_period() {
    let moto = Moto::start();
    table(&moto, "orders", false);
    let base = moto.put_metrics(
        "orders",
        &[
            (9, "ConsumedWriteCapacityUnits", 60_000.0),
            (9, "WriteThrottleEvents", 600.0),
            (8, "ConsumedWriteCapacityUnits", 60_000.0),
            (8, "WriteThrottleEvents", 420.0),
        ],
    );
    let endpoint = insights_proxy(&moto, base);
    let dir = temp_dir("live", "insights-mode");
    let saved = dir.join("orders-metrics.json");
    let mut args = [
        "metrics",
        "--table",
        "orders",
        "--since",
        "30m",
        "--format",
        "json",
        "--save-trace",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(saved.display().to_string());
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(doc["contributor_insights"]["status"], "enabled", "{doc}");
    assert_eq!(
        doc["contributor_insights"]["mode"], "THROTTLED_KEYS",
        "{doc}"
    );
    let rule = &doc["contributors"][0];
    assert!(rule["rule"].as_str().unwrap().contains("-PKT-"), "{doc}");
    assert_eq!(rule["keys"][0]["key"], "user#1", "{doc}");
    assert_eq!(rule["keys"][0]["total"], 900.0, "{doc}");

    let mut args = ["metrics", "--table", "orders", "--since", "30m"]
        .map(str::to_owned)
        .to_vec();
    args.extend(connect(&endpoint));
    let out = shardlens(&args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("on, THROTTLED_KEYS mode: throttled keys only"),
        "{text}"
    );
    assert!(
        text.contains("most throttled keys: throttled requests"),
        "{text}"
    );

    // The replay keeps the throttled keys period by period: 600 for user#1, then 300 and 120.
    let replay = replay(&saved);
    let periods = replay["source"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|f| {
            f["throttled_by_period"]
                .as_array()
                .filter(|p| !p.is_empty())
        })
        .unwrap_or_else(|| panic!("no throttled keys by period: {replay}"));
    assert_eq!(periods.len(), 2, "{replay}");
    assert_eq!(periods[0]["seconds"], 60);
    assert_eq!(periods[0]["keys"][0]["key"], "user#1");
    assert_eq!(periods[0]["keys"][0]["throttled_requests"], 600.0);
    assert_eq!(periods[1]["keys"][1]["key"], "user#2");
    assert_eq!(periods[1]["keys"][1]["throttled_requests"], 120.0);
}
