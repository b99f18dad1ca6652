//! The Connect dialog's Live traffic in the real app, driven through its labels with egui_kittest against a
//! real local server: moto (DynamoDB with Streams, CloudWatch), started per test on 127.0.0.1
//! (`tests/moto.sh` installs it; `SHARDLENS_MOTO_PYTHON` names its Python). Tables and writes are made with
//! boto3; the app only reads.
//!
//! The app takes its credentials from the default chain, as on a desktop. Each test therefore runs itself
//! again in a child process with moto's keys in the environment ([`in_child`]): no test changes its own
//! process's environment (unsafe in Rust 2024, and a race with the other tests' threads).
#![cfg(feature = "gui")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/answers.rs"]
mod answers;
#[path = "support/cbor_shim.rs"]
mod cbor_shim;
#[path = "support/kittest.rs"]
mod kittest;
#[path = "support/moto.rs"]
mod moto;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use kittest::{Settle as _, harness_at, step_until};
use moto::Moto;
use shardlens::app::App;
use shardlens::app::settings::ChartMode;

/// Set in the child process that runs a test with moto's credentials.
const CHILD: &str = "SHARDLENS_LIVE_UI_CHILD";

/// In the child process: true (run the test). In the test runner's process: runs `test` (this binary,
/// `--exact`) in a child with moto's credentials and a hermetic AWS configuration, fails if it fails or did
/// not run, and returns false.
fn in_child(test: &str) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    moto::hermetic(&mut cmd);
    let out = cmd
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{test} failed in its child:\n{said}");
    assert!(
        said.contains("1 passed"),
        "{test} did not run in its child:\n{said}"
    );
    false
}

/// A table `name` keyed by `pk` (S): with a stream of new and old images or none, provisioned 5/5 or
/// on-demand.
fn create_table(moto: &Moto, name: &str, stream: bool, provisioned: bool) {
    let spec = if stream {
        "StreamSpecification={'StreamEnabled': True, 'StreamViewType': 'NEW_AND_OLD_IMAGES'},"
    } else {
        ""
    };
    let billing = if provisioned {
        "BillingMode='PROVISIONED', ProvisionedThroughput={'ReadCapacityUnits': 5, 'WriteCapacityUnits': 5},"
    } else {
        "BillingMode='PAY_PER_REQUEST',"
    };
    moto.boto(&format!(
        "ddb.create_table(TableName='{name}', {billing} {spec}
    KeySchema=[{{'AttributeName': 'pk', 'KeyType': 'HASH'}}],
    AttributeDefinitions=[{{'AttributeName': 'pk', 'AttributeType': 'S'}}])"
    ));
}

/// The app with the Connect dialog open on moto's endpoint, its tables listed.
fn connected(moto: &Moto, size: [f32; 2]) -> Harness<'static, App> {
    connected_at(&moto.endpoint(), size)
}

/// The app with the Connect dialog open on `endpoint`, its tables listed.
fn connected_at(endpoint: &str, size: [f32; 2]) -> Harness<'static, App> {
    let mut h = harness_at(size);
    h.get_by_label("File").click();
    h.settle();
    h.get_by_label("Connect to DynamoDB…").click();
    h.settle();
    for (field, text) in [
        ("Endpoint", endpoint.to_owned()),
        ("Region", "us-east-1".to_owned()),
    ] {
        let node = h.get_by_role_and_label(Role::TextInput, field);
        node.focus();
        node.type_text(&text);
        h.settle();
    }
    h.get_by_label("List tables").click();
    h.settle();
    h
}

/// Picks `table` in the dialog's list and waits for its description.
fn describe(h: &mut Harness<'static, App>, table: &str) {
    h.get_by_label(table).click();
    h.settle();
    h.wait_for("the table's description", |_| true);
    assert!(
        h.query_by_label("Scan keys").is_some(),
        "{table} is described"
    );
}

#[test]
fn the_connect_dialog_offers_live_traffic_and_says_how_to_turn_a_stream_on() {
    if !in_child("the_connect_dialog_offers_live_traffic_and_says_how_to_turn_a_stream_on") {
        return;
    }
    let moto = Moto::start();
    create_table(&moto, "orders", true, false);
    create_table(&moto, "plain", false, false);
    // A projector's screen: the dialog scrolls rather than losing its buttons.
    let mut h = connected(&moto, [1024.0, 768.0]);
    describe(&mut h, "orders");
    // The table's facts beside its billing: moto gives an on-demand table a new table's warm throughput.
    h.get_by_label("Capacity: on-demand; warm 12,000 reads and 4,000 writes a second (ACTIVE)");
    h.get_by_label_contains("Warm throughput implies at least 4 partitions [ours");
    h.get_by_label("Live traffic");
    assert!(
        !h.get_by_label("Watch writes")
            .accesskit_node()
            .is_disabled()
    );
    h.get_by_label("New writes");
    h.get_by_label("Last 24 hours");
    h.get_by_label("Last hours of metrics");
    h.get_by_role_and_label(Role::SpinButton, "Hours");
    assert!(
        h.query_by_label_contains("has no stream").is_none(),
        "orders has a stream"
    );

    describe(&mut h, "plain");
    assert!(
        h.get_by_label("Watch writes")
            .accesskit_node()
            .is_disabled()
    );
    // The line says it in the window's words: what the owner does in the console, no command line.
    h.get_by_label_contains("plain has no stream");
    h.get_by_label_contains("turn the stream on in the DynamoDB console");
    assert!(h.query_by_label_contains("aws dynamodb").is_none());
    h.get_by_label("Last hours of metrics");
}

#[test]
fn watch_writes_fills_the_keys_and_the_timeline_and_stop_keeps_them() {
    if !in_child("watch_writes_fills_the_keys_and_the_timeline_and_stop_keeps_them") {
        return;
    }
    let moto = Moto::start();
    create_table(&moto, "orders", true, true);
    // History before the watch: "New writes" does not read it.
    moto.boto("ddb.put_item(TableName='orders', Item={'pk': {'S': 'before'}})");
    let mut h = connected(&moto, [1400.0, 900.0]);
    describe(&mut h, "orders");
    h.get_by_label("Watch writes").click();
    // New writes are read once the stream's iterators are open.
    step_until(&mut h, "the stream to open", |h| {
        h.state().watch_progress().is_some_and(|p| p.iterators > 0)
    });
    h.get_by_label_contains("watching the writes of orders");
    moto.boto(
        "for i in range(30):
    ddb.put_item(TableName='orders', Item={'pk': {'S': 'hot'}, 'n': {'N': str(i)}})
for i in range(10):
    ddb.put_item(TableName='orders', Item={'pk': {'S': 'cold#%d' % i}})",
    );
    step_until(&mut h, "the 40 writes in the keys", |h| {
        h.state().key_set().is_some_and(|k| k.total() == 40)
    });
    let keys = h.state().key_set().unwrap();
    assert_eq!(
        keys.len(),
        11,
        "hot and ten others; not the write before the watch"
    );
    assert!(h.state().watching(), "the watch goes on");
    assert!(
        h.state()
            .source()
            .describe()
            .contains("watching: 40 writes")
    );
    // The inspector lists the hottest bucket's keys; the hot key's live rate is under its facts.
    step_until(&mut h, "the hot key in the inspector", |h| {
        h.query_by_label_contains("% of bucket  hot").is_some()
    });
    h.get_by_label_contains("% of bucket  hot").click();
    step_until(&mut h, "the hot key's live rate", |h| {
        h.query_by_label_contains("writes/s over the stream's last")
            .is_some()
    });
    h.get_by_label_contains("hot: 30 writes");

    h.get_by_label("Stop").click();
    h.wait_for("the watch to end", |app| !app.watching());
    let app = h.state();
    assert_eq!(app.key_set().unwrap().total(), 40, "what was read stays");
    assert!(
        app.source().describe().contains("stopped: 40 writes"),
        "{}",
        app.source().describe()
    );
    let end = app
        .notices()
        .history()
        .rev()
        .find(|n| n.text.starts_with("orders: stopped"))
        .unwrap_or_else(|| panic!("{:#?}", app.notices().history().collect::<Vec<_>>()));
    assert!(end.text.contains("40 records"), "{}", end.text);
    // The Timeline has the whole trace, on the table's provisioned capacity.
    let sim = app.simulation().unwrap();
    assert_eq!(sim.name, "writes to orders");
    let trace = sim.setup().trace.as_deref().unwrap();
    assert_eq!(trace.requests()[1], 40.0);
    assert_eq!(trace.keys.len(), 11);
    assert!(
        matches!(
            sim.setup().table.billing,
            shardlens::model::simulate::Billing::Provisioned { units } if units == [5.0, 5.0]
        ),
        "{:?}",
        sim.setup().table.billing
    );
    h.get_by_label("Timeline (simulation)").click();
    h.settle();
    assert_eq!(h.state().chart_mode(), ChartMode::Timeline);
    h.get_by_label_contains("writes to orders");
}

/// Three minutes of CloudWatch for `table`: 600, 6,000 and 3,000 consumed write units, 12 and 3 write
/// throttle events in the last two, ten to eight minutes ago.
fn put_write_metrics(moto: &Moto, table: &str) {
    moto.put_metrics(
        table,
        &[
            (10, "ConsumedWriteCapacityUnits", 600.0),
            (9, "ConsumedWriteCapacityUnits", 6_000.0),
            (9, "WriteThrottleEvents", 12.0),
            (8, "ConsumedWriteCapacityUnits", 3_000.0),
            (8, "WriteThrottleEvents", 3.0),
        ],
    );
}

#[test]
fn last_hours_of_metrics_replays_cloudwatchs_minutes_and_says_what_is_missing() {
    if !in_child("last_hours_of_metrics_replays_cloudwatchs_minutes_and_says_what_is_missing") {
        return;
    }
    let moto = Moto::start();
    create_table(&moto, "orders", true, true);
    create_table(&moto, "quiet", true, true);
    put_write_metrics(&moto, "orders");
    let mut h = connected(&moto, [1400.0, 900.0]);

    // A table without datapoints: said, and no empty Timeline.
    describe(&mut h, "quiet");
    h.get_by_label("Last hours of metrics").click();
    h.wait_for("the quiet table's metrics", |app| {
        app.notices()
            .last()
            .is_some_and(|n| n.text.contains("no consumed capacity"))
    });
    assert!(h.state().simulation().is_none(), "no Timeline without data");
    assert!(
        h.state()
            .notices()
            .last()
            .unwrap()
            .text
            .contains("last 3 hours"),
        "{}",
        h.state().notices().last().unwrap().text
    );

    // The dialog closed on its command; it opens again as it was (the tables listed).
    h.get_by_label("File").click();
    h.settle();
    h.get_by_label("Connect to DynamoDB…").click();
    h.settle();
    describe(&mut h, "orders");
    h.get_by_label("Last hours of metrics").click();
    h.wait_for("the Timeline of orders' metrics", |app| {
        app.simulation().is_some()
    });
    let app = h.state();
    assert_eq!(app.chart_mode(), ChartMode::Timeline);
    let sim = app.simulation().unwrap();
    let observed = sim.observed();
    assert_eq!(observed.len(), 3, "{observed:?}");
    let throttles: f64 = observed
        .iter()
        .filter_map(|m| m.write_throttle_events)
        .sum();
    assert_eq!(throttles, 15.0);
    assert!(
        sim.per_minute(),
        "the per-minute view shows the observed line"
    );
    assert!(matches!(
        sim.setup().table.billing,
        shardlens::model::simulate::Billing::Provisioned { .. }
    ));
    let said = app
        .notices()
        .history()
        .rev()
        .find(|n| n.text.starts_with("orders: 3 minutes of CloudWatch"))
        .unwrap_or_else(|| panic!("{:#?}", app.notices().history().collect::<Vec<_>>()));
    assert!(said.text.contains("15 throttle events"), "{}", said.text);
    assert!(
        said.text.contains("Contributor Insights is not available"),
        "{}",
        said.text
    );
    h.get_by_label_contains("last 3 hours of orders");
}

// Issue 60: the metrics of an on-demand table with a maximum (a recorded OnDemandThroughput: moto keeps none),
// Contributor Insights in THROTTLED_KEYS mode (recorded answers: moto has none). The replay runs on the table as
// it is, and the line says the mode and the most throttled keys.
#[test]
fn last_hours_of_metrics_runs_on_the_tables_maximum_and_says_the_insights_mode() {
    if !in_child("last_hours_of_metrics_runs_on_the_tables_maximum_and_says_the_insights_mode") {
        return;
    }
    let moto = Moto::start();
    create_table(&moto, "orders", false, false);
    let base = moto.put_metrics(
        "orders",
        &[
            (9, "ConsumedWriteCapacityUnits", 1_500.0),
            (9, "WriteThrottleEvents", 600.0),
            (8, "ConsumedWriteCapacityUnits", 1_500.0),
            (8, "WriteThrottleEvents", 420.0),
        ],
    );
    let recorded = answers::fixture("describe-table-throughput.json");
    let mut answered = answers::throttled_keys_mode(base);
    answered.push((
        "DescribeTable",
        answers::Answer::Merge(
            "/Table",
            serde_json::json!({ "OnDemandThroughput": recorded["Table"]["OnDemandThroughput"] }),
        ),
    ));
    let port = answers::start(moto.port, answered);
    let mut h = connected_at(&format!("http://127.0.0.1:{port}"), [1400.0, 900.0]);
    describe(&mut h, "orders");
    h.get_by_label_contains("Capacity: on-demand; at most 25 writes a second; warm 12,000 reads");
    h.get_by_label("Last hours of metrics").click();
    h.wait_for("the Timeline of orders' metrics", |app| {
        app.simulation().is_some()
    });
    let app = h.state();
    let sim = app.simulation().unwrap();
    let shardlens::model::simulate::Billing::OnDemand { max, .. } = &sim.setup().table.billing
    else {
        panic!("{:?}", sim.setup().table.billing)
    };
    assert_eq!(*max, [0.0, 25.0]);
    let said = app
        .notices()
        .history()
        .rev()
        .find(|n| n.text.starts_with("orders: 2 minutes of CloudWatch"))
        .unwrap_or_else(|| panic!("{:#?}", app.notices().history().collect::<Vec<_>>()));
    assert!(
        said.text
            .contains("most throttled keys (Contributor Insights): user#1 (900), user#2 (120)"),
        "{}",
        said.text
    );
    assert!(
        said.text
            .contains("Contributor Insights is in THROTTLED_KEYS mode: throttled keys only"),
        "{}",
        said.text
    );
}
