//! The DynamoDB source against a real local server (dynalite, see `tests/support/dynalite.rs`): the library
//! API and the `scan` / `tables` commands of the real binary. Each test starts its own server and creates its
//! own tables; the test code (never `src/`) writes them with CreateTable and BatchWriteItem.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

#[path = "support/dynalite.rs"]
mod dynalite;
#[path = "support/faults.rs"]
mod faults;
#[path = "support/recorder.rs"]
mod recorder;

#[cfg(feature = "gui")]
#[path = "support/kittest.rs"]
mod kittest;
use std::collections::HashMap;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, GlobalSecondaryIndex, KeySchemaElement, KeyType as Role,
    LocalSecondaryIndex, Projection, ProjectionType, ProvisionedThroughput, PutRequest,
    ScalarAttributeType, WriteRequest,
};
use dynalite::Dynalite;
use serde_json::Value;
use shardlens::model::KeyType;
use shardlens::model::design::{Design, DesignKind};
use shardlens::model::key::canonical_partition_key;
use shardlens::source::dynamo::{
    Billing, ConnectOptions, DynamoClient, DynamoError, ScanEvent, ScanOptions, ScanStatus,
    Scanned, StaticKeys, gsi_designs,
};

type Item = HashMap<String, AttributeValue>;

fn unique(name: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The test side: an SDK client with dummy credentials set on its config (not in the environment), for
/// writing tables and reading them raw.
struct Setup {
    rt: tokio::runtime::Runtime,
    client: Client,
}

impl Setup {
    fn new(server: &Dynalite) -> Self {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .endpoint_url(server.endpoint())
            .credentials_provider(Credentials::new("test", "test", None, None, "test"))
            .build();
        Self {
            rt: tokio::runtime::Runtime::new().unwrap(),
            client: Client::from_conf(config),
        }
    }

    /// A new table `<prefix>-…` (pk S, sk N) holding `items` items over `keys` partition keys (see
    /// [`collection_items`]); its name.
    fn collection_table(&self, prefix: &str, items: usize, keys: usize) -> String {
        let name = unique(prefix);
        self.create(
            &name,
            ("pk", ScalarAttributeType::S),
            Some(("sk", ScalarAttributeType::N)),
        );
        self.write(&name, &collection_items(items, keys));
        name
    }

    fn create(
        &self,
        name: &str,
        pk: (&str, ScalarAttributeType),
        sk: Option<(&str, ScalarAttributeType)>,
    ) {
        let mut req = self
            .client
            .create_table()
            .table_name(name)
            .provisioned_throughput(
                ProvisionedThroughput::builder()
                    .read_capacity_units(5)
                    .write_capacity_units(7)
                    .build()
                    .unwrap(),
            );
        for (attr, ty, role) in [
            Some((pk.0, pk.1, Role::Hash)),
            sk.map(|(a, t)| (a, t, Role::Range)),
        ]
        .into_iter()
        .flatten()
        {
            req = req
                .attribute_definitions(
                    AttributeDefinition::builder()
                        .attribute_name(attr)
                        .attribute_type(ty)
                        .build()
                        .unwrap(),
                )
                .key_schema(
                    KeySchemaElement::builder()
                        .attribute_name(attr)
                        .key_type(role)
                        .build()
                        .unwrap(),
                );
        }
        self.rt.block_on(req.send()).unwrap();
        self.wait_active(name);
    }

    /// dynalite makes a table ACTIVE just after CreateTable returns, even with `--createTableMs 0`.
    fn wait_active(&self, name: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let out = self
                .rt
                .block_on(self.client.describe_table().table_name(name).send());
            let active = out.is_ok_and(|o| {
                o.table()
                    .and_then(|t| t.table_status())
                    .is_some_and(|s| s.as_str() == "ACTIVE")
            });
            if active {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "table {name} is not ACTIVE after 20 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn write(&self, table: &str, items: &[Item]) {
        self.rt.block_on(async {
            let mut tasks = tokio::task::JoinSet::new();
            for chunk in items.chunks(25) {
                let requests: Vec<WriteRequest> = chunk
                    .iter()
                    .map(|item| {
                        WriteRequest::builder()
                            .put_request(
                                PutRequest::builder()
                                    .set_item(Some(item.clone()))
                                    .build()
                                    .unwrap(),
                            )
                            .build()
                    })
                    .collect();
                let req = self
                    .client
                    .batch_write_item()
                    .request_items(table, requests);
                tasks.spawn(async move {
                    let out = req.send().await.unwrap();
                    assert!(out.unprocessed_items().is_none_or(HashMap::is_empty));
                });
                if tasks.len() >= 8 {
                    tasks.join_next().await.unwrap().unwrap();
                }
            }
            while let Some(r) = tasks.join_next().await {
                r.unwrap();
            }
        });
    }

    /// Every item, every attribute, consistently read, in key order: the table as bytes.
    fn raw(&self, table: &str) -> Vec<String> {
        self.rt.block_on(async {
            let mut all = Vec::new();
            let mut start = None;
            loop {
                let out = self
                    .client
                    .scan()
                    .table_name(table)
                    .consistent_read(true)
                    .set_exclusive_start_key(start)
                    .send()
                    .await
                    .unwrap();
                for item in out.items() {
                    let mut attrs: Vec<_> =
                        item.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
                    attrs.sort();
                    all.push(attrs.join(","));
                }
                start = out.last_evaluated_key;
                if start.is_none() {
                    break;
                }
            }
            all.sort();
            all
        })
    }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// `items` items whose partition key `user#{i % keys}` and sort key `i`, plus a payload nobody reads.
fn collection_items(items: usize, keys: usize) -> Vec<Item> {
    (0..items)
        .map(|i| {
            HashMap::from([
                ("pk".to_owned(), s(&format!("user#{}", i % keys))),
                ("sk".to_owned(), n(&i.to_string())),
                ("payload".to_owned(), s(&"x".repeat(100))),
            ])
        })
        .collect()
}

fn connect(server: &Dynalite, timeout: Duration) -> DynamoClient {
    connect_to(&server.endpoint(), timeout)
}

fn connect_to(endpoint: &str, timeout: Duration) -> DynamoClient {
    DynamoClient::connect(&ConnectOptions {
        endpoint: Some(endpoint.to_owned()),
        region: Some("us-east-1".into()),
        credentials: Some(StaticKeys {
            access_key_id: "test".into(),
            secret_access_key: "test".into(),
        }),
        attempt_timeout: timeout,
        ..ConnectOptions::default()
    })
    .unwrap()
}

fn scan(client: &DynamoClient, opts: &ScanOptions) -> Scanned {
    let cancel = AtomicBool::new(false);
    client.scan(opts, &cancel, &mut |_| {}).unwrap()
}

fn fast(table: &str) -> ScanOptions {
    ScanOptions {
        max_rcu: None,
        ..ScanOptions::new(table)
    }
}

/// The real binary, with dummy credentials and no profile files in its environment only.
fn bin(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shardlens"));
    cmd.args(args)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_CONFIG_FILE", "/nonexistent/shardlens-test")
        .env("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/shardlens-test")
        .env_remove("AWS_PROFILE")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_ENDPOINT_URL_DYNAMODB");
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn lists_tables() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let names: Vec<String> = (0..3).map(|_| unique("list")).collect();
    for name in &names {
        setup.create(name, ("pk", ScalarAttributeType::S), None);
    }
    let client = connect(&server, Duration::from_secs(10));
    let mut listed = client.list_tables().unwrap();
    listed.sort();
    let mut want = names.clone();
    want.sort();
    assert_eq!(listed, want);

    let out = bin(&["tables", "--endpoint-url", &server.endpoint()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    for name in &names {
        assert!(
            text.contains(&format!("{name}\tpk (S)\tprovisioned (5 RCU, 7 WCU)")),
            "{text}"
        );
    }
}

/// A machine with no AWS configuration at all talks to a local server (DynamoDB Local and dynalite check no
/// signature): placeholder keys sign its requests. Elsewhere, the missing credentials are named as such, not as
/// an unreachable server, with what to do.
#[test]
fn a_local_server_needs_no_credentials_and_a_remote_one_says_what_is_missing() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = unique("nokeys");
    setup.create(&name, ("pk", ScalarAttributeType::S), None);
    let no_keys = |args: &[&str]| {
        let mut cmd = bin(args);
        cmd.env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY")
            .env_remove("AWS_SESSION_TOKEN");
        cmd.output().unwrap()
    };
    let endpoint = server.endpoint().replace("127.0.0.1", "localhost");
    let out = no_keys(&["tables", "--endpoint-url", &endpoint]);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&name));
    // 192.0.2.1 is TEST-NET-1: never anyone's server; the request stops before any connection.
    let out = no_keys(&[
        "tables",
        "--endpoint-url",
        "http://192.0.2.1:8000",
        "--connect-timeout",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("ListTables: no AWS credentials found"),
        "{err}"
    );
    assert!(err.contains("pass --profile NAME"), "{err}");
    assert!(!err.contains("cannot reach the server"), "{err}");
}

/// `metrics` at a server with no CloudWatch (dynalite) says the server does not seem to serve it, not
/// "UnknownError: no message".
#[test]
fn metrics_at_a_server_without_cloudwatch_says_so() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = unique("nocw");
    setup.create(&name, ("pk", ScalarAttributeType::S), None);
    let out = bin(&[
        "metrics",
        "--table",
        &name,
        "--endpoint-url",
        &server.endpoint(),
        "--since",
        "1h",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("GetMetricData: the server answered HTTP")
            && err.contains("without a CloudWatch error: does it serve CloudWatch?"),
        "{err}"
    );
    assert!(!err.contains("UnknownError"), "{err}");
}

#[allow(
    clippy::too_many_lines,
    reason = "one described table, checked field by field"
)]
#[test]
fn describes_key_schema_billing_and_indexes() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = unique("describe");
    // Reserved words as key names: `name` and `year`.
    let key = |a: &str, r: Role| {
        KeySchemaElement::builder()
            .attribute_name(a)
            .key_type(r)
            .build()
            .unwrap()
    };
    let def = |a: &str, t: ScalarAttributeType| {
        AttributeDefinition::builder()
            .attribute_name(a)
            .attribute_type(t)
            .build()
            .unwrap()
    };
    let all = Projection::builder()
        .projection_type(ProjectionType::KeysOnly)
        .build();
    let pt = ProvisionedThroughput::builder()
        .read_capacity_units(5)
        .write_capacity_units(7)
        .build()
        .unwrap();
    let req = setup
        .client
        .create_table()
        .table_name(&name)
        .attribute_definitions(def("name", ScalarAttributeType::S))
        .attribute_definitions(def("year", ScalarAttributeType::N))
        .attribute_definitions(def("city", ScalarAttributeType::S))
        .key_schema(key("name", Role::Hash))
        .key_schema(key("year", Role::Range))
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("by-city")
                .key_schema(key("name", Role::Hash))
                .key_schema(key("city", Role::Range))
                .projection(all.clone())
                .build()
                .unwrap(),
        )
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("city-year")
                .key_schema(key("city", Role::Hash))
                .key_schema(key("year", Role::Range))
                .projection(all)
                .provisioned_throughput(pt.clone())
                .build()
                .unwrap(),
        )
        .provisioned_throughput(pt);
    setup.rt.block_on(req.send()).unwrap();
    setup.wait_active(&name);

    let client = connect(&server, Duration::from_secs(10));
    let t = client.describe_table(&name).unwrap();
    assert_eq!(t.name, name);
    assert_eq!(
        (t.partition_key.name.as_str(), t.partition_key.key_type),
        ("name", KeyType::S)
    );
    let sk = t.sort_key.clone().unwrap();
    assert_eq!((sk.name.as_str(), sk.key_type), ("year", KeyType::N));
    assert_eq!(t.billing, Billing::Provisioned { read: 5, write: 7 });
    assert_eq!(t.local_indexes.len(), 1);
    assert_eq!(t.local_indexes[0].name, "by-city");
    assert_eq!(t.local_indexes[0].sort_keys, ["city"]);
    assert_eq!(t.global_indexes[0].partition_keys, ["city"]);
    assert_eq!(t.describe_keys(), "name (S), sort key year (N)");

    // Reserved words scan fine through #name placeholders.
    setup.write(
        &name,
        &[HashMap::from([
            ("name".to_owned(), s("a")),
            ("year".to_owned(), n("2024")),
            ("city".to_owned(), s("Oslo")),
        ])],
    );
    let got = scan(
        &client,
        &ScanOptions {
            with_sort_key: true,
            ..fast(&name)
        },
    );
    assert_eq!(got.status, ScanStatus::Complete);
    assert_eq!(got.keys.total(), 1);
    assert!(got.keys.has_sort_keys());
}

impl Setup {
    /// A new table `<prefix>-…` (pk S) with the GSI `byStatus` on `status` (S, a reserved word), holding
    /// `n` orders: one in 20 without a status, one in 20 CLOSED, the rest (90 %) OPEN, each with a 1 KB
    /// payload nobody should read.
    fn orders_with_status(&self, prefix: &str, n: usize) -> String {
        let name = unique(prefix);
        let def = |a: &str| {
            AttributeDefinition::builder()
                .attribute_name(a)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap()
        };
        let hash = |a: &str| {
            KeySchemaElement::builder()
                .attribute_name(a)
                .key_type(Role::Hash)
                .build()
                .unwrap()
        };
        let pt = ProvisionedThroughput::builder()
            .read_capacity_units(5)
            .write_capacity_units(7)
            .build()
            .unwrap();
        let gsi = GlobalSecondaryIndex::builder()
            .index_name("byStatus")
            .key_schema(hash("status"))
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::KeysOnly)
                    .build(),
            )
            .provisioned_throughput(pt.clone())
            .build()
            .unwrap();
        let req = self
            .client
            .create_table()
            .table_name(&name)
            .attribute_definitions(def("pk"))
            .attribute_definitions(def("status"))
            .key_schema(hash("pk"))
            .global_secondary_indexes(gsi)
            .provisioned_throughput(pt);
        self.rt.block_on(req.send()).unwrap();
        self.wait_active(&name);
        let items: Vec<Item> = (0..n)
            .map(|i| {
                let mut item = HashMap::from([
                    ("pk".to_owned(), s(&format!("order#{i}"))),
                    ("payload".to_owned(), s(&"x".repeat(1000))),
                ]);
                match i % 20 {
                    0 => {}
                    1 => drop(item.insert("status".to_owned(), s("CLOSED"))),
                    _ => drop(item.insert("status".to_owned(), s("OPEN"))),
                }
                item
            })
            .collect();
        self.write(&name, &items);
        name
    }
}

/// Issue #14: a GSI is a key design of its own. The scan reads its key attribute besides the table's keys
/// (and nothing else), and keys the items by it; items without it are absent from the sparse index.
#[test]
fn a_gsi_scan_keys_items_by_the_index_and_reads_only_its_keys() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.orders_with_status("gsi", 400);
    let proxy = recorder::Recorder::start(server.port);
    let client = connect_to(&proxy.endpoint(), Duration::from_secs(10));
    let info = client.describe_table(&name).unwrap();

    assert_eq!(
        gsi_designs(&info, &["byStatus".to_owned(), "nope".to_owned()]).unwrap_err(),
        format!("table {name} has no index \"nope\"; its global secondary indexes: byStatus")
    );
    let opts = ScanOptions {
        segments: 3,
        page_size: Some(50),
        design: Design {
            gsis: gsi_designs(&info, &["byStatus".to_owned()]).unwrap(),
            ..Design::default()
        },
        ..fast(&name)
    };
    let got = scan(&client, &opts);
    assert_eq!(got.status, ScanStatus::Complete);
    assert_eq!(got.designs.len(), 1);
    let gsi = &got.designs[0];
    assert_eq!(gsi.kind, DesignKind::Gsi("byStatus".into()));
    assert_eq!(gsi.keys.len(), 2);
    assert_eq!(gsi.keys.count(gsi.keys.find(b"OPEN").unwrap()), 360);
    assert_eq!(gsi.keys.count(gsi.keys.find(b"CLOSED").unwrap()), 20);
    assert_eq!(gsi.absent, 20, "the items without a status");
    assert_eq!(got.design_skipped, 0);

    // The table's own keys are what a scan without the GSI reads.
    let plain = scan(&client, &fast(&name));
    assert_eq!(got.keys.total(), 400);
    assert_eq!(got.keys.len(), plain.keys.len());
    assert!(plain.designs.is_empty());

    // Read-only, and the GSI's scan projects the keys and `status` only (`payload` would cost nothing less
    // in read units: DynamoDB, like dynalite, charges a Scan for whole items, so the requests are the check).
    let requests = proxy.requests();
    assert!(requests.iter().any(|r| r.operation == "DescribeTable"));
    let scans: Vec<_> = requests.iter().filter(|r| r.operation == "Scan").collect();
    assert!(scans.len() >= 8, "{} scan requests", scans.len());
    for r in &requests {
        assert!(
            ["DescribeTable", "DescribeTimeToLive", "Scan"].contains(&r.operation.as_str()),
            "{r:?}"
        );
    }
    let mut projections = std::collections::BTreeSet::new();
    for r in scans {
        assert_eq!(r.body["Select"], "SPECIFIC_ATTRIBUTES", "{r:?}");
        let mut names: Vec<&str> = r.body["ExpressionAttributeNames"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_str().unwrap())
            .collect();
        names.sort_unstable();
        let projection = r.body["ProjectionExpression"].as_str().unwrap();
        assert_eq!(projection.split(", ").count(), names.len(), "{r:?}");
        projections.insert(names.join(","));
    }
    assert_eq!(
        projections.into_iter().collect::<Vec<_>>(),
        ["pk", "pk,status"],
        "the plain scan reads pk, the GSI's pk and status"
    );
}

#[test]
fn keys_only_scan_with_four_segments_counts_exactly() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("counts", 3000, 37);
    let client = connect(&server, Duration::from_secs(10));
    let mut pages = 0;
    let mut live = shardlens::model::KeySet::new(KeyType::S);
    let cancel = AtomicBool::new(false);
    let opts = ScanOptions {
        segments: 4,
        page_size: Some(100),
        ..fast(&name)
    };
    let got = client
        .scan(&opts, &cancel, &mut |e| {
            if let ScanEvent::Page { keys, progress, .. } = e {
                pages += 1;
                live.merge(&keys);
                assert_eq!(live.total(), progress.items);
            }
        })
        .unwrap();
    assert_eq!(got.status, ScanStatus::Complete);
    assert_eq!(got.keys.total(), 3000);
    assert_eq!(got.keys.len(), 37);
    assert_eq!(live.total(), 3000);
    assert!(pages >= 30, "{pages} pages");
    assert_eq!(got.progress.segments.len(), 4);
    assert!(got.progress.rcu > 0.0);
    for i in 0..37u64 {
        let idx = got.keys.find(format!("user#{i}").as_bytes()).unwrap();
        let want = 3000 / 37 + u64::from(i < 3000 % 37);
        assert_eq!(got.keys.count(idx), want, "user#{i}");
    }
    assert!(
        !got.keys.has_sort_keys(),
        "keys only: no sort keys unless asked"
    );
}

#[test]
fn number_and_binary_keys_are_canonical() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let client = connect(&server, Duration::from_secs(10));

    let numbers = unique("numbers");
    setup.create(&numbers, ("id", ScalarAttributeType::N), None);
    let written = [
        "1",
        "2",
        "10",
        "1.50",
        "-0.5",
        "12345678901234567890123",
        "1E2",
    ];
    setup.write(
        &numbers,
        &written
            .iter()
            .map(|v| HashMap::from([("id".to_owned(), n(v))]))
            .collect::<Vec<_>>(),
    );
    let got = scan(&client, &fast(&numbers));
    assert_eq!(got.keys.key_type(), KeyType::N);
    assert_eq!(got.keys.total(), written.len() as u64);
    for v in written {
        let canonical = canonical_partition_key(v.as_bytes(), KeyType::N).unwrap();
        assert!(
            got.keys.find(&canonical).is_some(),
            "{v} missing as {:?}",
            String::from_utf8_lossy(&canonical)
        );
    }
    // `100` is the same number as `1E2`.
    let hundred = canonical_partition_key(b"100", KeyType::N).unwrap();
    assert!(got.keys.find(&hundred).is_some());

    let binary = unique("binary");
    setup.create(&binary, ("id", ScalarAttributeType::B), None);
    let blobs: [&[u8]; 3] = [&[0], &[0, 255, 7], b"abc"];
    setup.write(
        &binary,
        &blobs
            .iter()
            .map(|b| HashMap::from([("id".to_owned(), AttributeValue::B(Blob::new(b.to_vec())))]))
            .collect::<Vec<_>>(),
    );
    let got = scan(&client, &fast(&binary));
    assert_eq!(got.keys.key_type(), KeyType::B);
    for b in blobs {
        let idx = got.keys.find(b).unwrap();
        // Shown as base64, like the model's text input.
        let shown = got.keys.display(idx).into_owned();
        assert_eq!(
            canonical_partition_key(shown.as_bytes(), KeyType::B).unwrap(),
            b
        );
    }
}

#[test]
fn with_sort_key_gives_item_counts() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("sortkeys", 500, 7);
    let client = connect(&server, Duration::from_secs(10));
    let got = scan(
        &client,
        &ScanOptions {
            with_sort_key: true,
            page_size: Some(30),
            ..fast(&name)
        },
    );
    assert_eq!(got.keys.sort_key_type(), Some(KeyType::N));
    for i in 0..7u64 {
        let idx = got.keys.find(format!("user#{i}").as_bytes()).unwrap();
        let facts = got.keys.sort_key_facts(idx).unwrap();
        assert_eq!(facts.items, got.keys.count(idx), "user#{i}");
        // An item collection comes back in sort-key order: read order, which says nothing about how it was
        // written, so "only increasing" is not claimed.
        assert!(!facts.only_increasing);
    }

    let out = bin(&[
        "scan",
        "--endpoint-url",
        &server.endpoint(),
        "--table",
        &name,
        "--with-sort-key",
        "--format",
        "json",
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], 500);
    assert_eq!(doc["distinct"], 7);
}

#[test]
fn missing_table_is_a_clear_message() {
    let server = Dynalite::start();
    let client = connect(&server, Duration::from_secs(10));
    let err = client
        .scan(&fast("no-such-table"), &AtomicBool::new(false), &mut |_| {})
        .unwrap_err();
    assert!(matches!(err, DynamoError::TableNotFound { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "table not found (check the name, the region and the account): no-such-table"
    );

    let out = bin(&[
        "scan",
        "--endpoint-url",
        &server.endpoint(),
        "--table",
        "no-such-table",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("table not found"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

#[test]
fn endpoint_that_is_not_a_url_fails_before_any_request() {
    let err = DynamoClient::connect(&ConnectOptions {
        endpoint: Some("localhost:8000".into()),
        region: Some("us-east-1".into()),
        ..ConnectOptions::default()
    })
    .unwrap_err();
    assert!(
        matches!(err, DynamoError::InvalidEndpoint { .. }),
        "{err:?}"
    );

    let started = Instant::now();
    let out = bin(&["scan", "--endpoint-url", "localhost:8000", "--table", "t"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let msg = stderr(&out);
    assert!(
        msg.contains("the endpoint is not a URL") && msg.contains("localhost:8000"),
        "{msg}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn server_killed_mid_scan_keeps_the_partial_result() {
    let mut server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("killed", 2000, 50);
    let client = connect(&server, Duration::from_secs(10));
    let cancel = AtomicBool::new(false);
    let opts = ScanOptions {
        segments: 2,
        page_size: Some(50),
        ..fast(&name)
    };
    let got = client
        .scan(&opts, &cancel, &mut |e| {
            if let ScanEvent::Page { progress, .. } = e
                && progress.pages == 3
            {
                server.kill();
            }
        })
        .unwrap();
    let ScanStatus::Failed(err) = &got.status else {
        panic!("{:?}", got.status)
    };
    // Refused on a new connection, or reset on a pooled one.
    assert!(!matches!(err, DynamoError::Timeout { .. }), "{err:?}");
    assert!(
        got.status
            .describe()
            .starts_with("partial: stopped by an error: Scan: ")
    );
    assert!(
        got.keys.total() >= 150 && got.keys.total() < 2000,
        "{}",
        got.keys.total()
    );
    assert_eq!(got.keys.total(), got.progress.items);
}

#[test]
fn cli_says_how_many_items_were_read_when_the_server_dies() {
    let mut server = Dynalite::start();
    let (child, _table) = slow_cli_scan(&server, "cli-killed");
    std::thread::sleep(Duration::from_millis(2500));
    server.kill();
    let (items, msg) = partial_output(child);
    assert!(
        msg.contains(&format!("stopped after {items} items")),
        "{msg}"
    );
}

/// A new 3,000-item table and `shardlens scan --format json` of it, paced to take several seconds (20 small
/// items a page cost 0.5 RCU; at most 10 RCU/s); the scan's process and the table's name.
fn slow_cli_scan(server: &Dynalite, prefix: &str) -> (std::process::Child, String) {
    let setup = Setup::new(server);
    let table = setup.collection_table(prefix, 3000, 50);
    let child = bin(&[
        "scan",
        "--endpoint-url",
        &server.endpoint(),
        "--table",
        &table,
        "--page-size",
        "20",
        "--max-rcu",
        "10",
        "--format",
        "json",
    ])
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    (child, table)
}

/// A stopped scan's output: exit status 1, the partial analysis on stdout (labelled so), its item count and
/// the messages on stderr.
fn partial_output(child: std::process::Child) -> (u64, String) {
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = doc["total"].as_u64().unwrap();
    assert!(items > 0 && items < 3000, "{items}");
    assert!(
        doc["source"]
            .as_str()
            .unwrap()
            .contains(&format!("partial: {items} items read")),
        "{doc}"
    );
    (items, stderr(&out))
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_cli_scan_and_prints_what_it_read() {
    let server = Dynalite::start();
    let (child, name) = slow_cli_scan(&server, "cli-interrupted");
    std::thread::sleep(Duration::from_millis(2000));
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let (items, msg) = partial_output(child);
    assert!(
        msg.contains(&format!(
            "interrupted: the scan of {name} stopped after {items} items"
        )),
        "{msg}"
    );
}

#[test]
fn frozen_server_times_out_and_says_so() {
    let mut server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("frozen", 1000, 10);
    let client = connect(&server, Duration::from_secs(1));
    let cancel = AtomicBool::new(false);
    let opts = ScanOptions {
        segments: 2,
        page_size: Some(50),
        ..fast(&name)
    };
    let started = Instant::now();
    let mut frozen = false;
    let got = client
        .scan(&opts, &cancel, &mut |e| {
            if let ScanEvent::Page { .. } = e
                && !frozen
            {
                server.freeze();
                frozen = true;
            }
        })
        .unwrap();
    let ScanStatus::Failed(err) = &got.status else {
        panic!("{:?}", got.status)
    };
    assert!(matches!(err, DynamoError::Timeout { .. }), "{err:?}");
    assert!(err.to_string().contains("timed out"), "{err}");
    assert!(got.keys.total() >= 50);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );

    // The CLI, on a frozen server, from the first request.
    let started = Instant::now();
    let out = bin(&[
        "tables",
        "--endpoint-url",
        &server.endpoint(),
        "--timeout",
        "1",
    ])
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("timed out"), "{}", stderr(&out));
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn scanning_leaves_the_table_unchanged() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("unchanged", 800, 13);
    let before = setup.raw(&name);
    assert_eq!(before.len(), 800);
    let client = connect(&server, Duration::from_secs(10));
    let got = scan(
        &client,
        &ScanOptions {
            with_sort_key: true,
            consistent: true,
            segments: 8,
            ..fast(&name)
        },
    );
    assert_eq!(got.keys.total(), 800);
    let out = bin(&[
        "scan",
        "--endpoint-url",
        &server.endpoint(),
        "--table",
        &name,
        "--format",
        "csv",
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    assert_eq!(setup.raw(&name), before);
}

/// `shardlens scan --gsi`: the index's spread in the designs table and JSON; an unknown index lists the real
/// ones; `--key-expr` on a scan analyses the expression's keys.
#[allow(
    clippy::too_many_lines,
    reason = "one scan's story checked step by step against a live server"
)]
#[test]
fn cli_scan_shows_a_gsis_spread_and_takes_key_expressions() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.orders_with_status("cli-gsi", 200);
    let endpoint = server.endpoint();
    let scan = |extra: &[&str]| {
        let mut args = vec!["scan", "--endpoint-url", &endpoint, "--table", &name];
        args.extend_from_slice(extra);
        bin(&args).output().unwrap()
    };
    let out = scan(&["--gsi", "byStatus", "--format", "json"]);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], 200);
    let designs = doc["designs"].as_array().unwrap();
    assert_eq!(designs.len(), 2, "{designs:?}");
    assert_eq!(designs[1]["design"], "GSI byStatus");
    assert_eq!(designs[1]["distinct_keys"], 2);
    assert_eq!(designs[1]["writes"], 190);
    assert_eq!(designs[1]["absent"], 10);
    let table = scan(&["--gsi", "all"]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("GSI byStatus") && text.contains("sparse index"),
        "{text}"
    );

    let out = scan(&["--gsi", "byCustomer"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("has no index \"byCustomer\"; its global secondary indexes: byStatus"),
        "{}",
        stderr(&out)
    );

    let out = scan(&[
        "--key-expr",
        "S#{status}",
        "--format",
        "json",
        "--skip-unknown",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown option is a usage error"
    );
    let out = scan(&[
        "--key-expr",
        "S#{status}",
        "--compare",
        "{pk}",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["distinct"], 2, "S#OPEN and S#CLOSED");
    assert_eq!(
        doc["total"], 190,
        "the items without a status cannot be keyed"
    );
    assert!(
        stderr(&out).contains("10 items could not be keyed"),
        "{}",
        stderr(&out)
    );
    let designs = doc["designs"].as_array().unwrap();
    assert_eq!(designs[0]["expr"], "S#{status}");
    assert_eq!(designs[1]["design"], "candidate 1");
    assert_eq!(designs[1]["distinct_keys"], 190);
    // The same expression as a candidate: the items it cannot key are left out of it alone.
    let out = scan(&["--compare", "S#{status}", "--format", "json"]);
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], 200, "every item in the current key");
    let designs = doc["designs"].as_array().unwrap();
    assert_eq!(designs[0]["writes"], 200);
    assert_eq!(
        (&designs[1]["writes"], &designs[1]["absent"]),
        (&Value::from(190), &Value::from(10))
    );
    assert!(
        stderr(&out).contains("candidate 1 `S#{status}` could not key 10 items"),
        "{}",
        stderr(&out)
    );
}

/// Issue #25: `--item-sizes` reads whole items and sizes them by DynamoDB's rules; the GSI's projection comes
/// from DescribeTable, and its cost per write from the projected sizes.
#[test]
fn cli_scan_with_item_sizes_reports_storage_and_gsi_costs() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.orders_with_status("cli-sizes", 200);
    let endpoint = server.endpoint();
    let args = [
        "scan",
        "--endpoint-url",
        &endpoint,
        "--table",
        &name,
        "--gsi",
        "all",
        "--item-sizes",
        "--format",
        "json",
    ];
    let out = bin(&args).output().unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // pk: 2 + `order#i`; payload: 7 + 1,000; status: 6 + OPEN or CLOSED (none for every 20th item).
    let size = |i: usize| {
        let status = match i % 20 {
            0 => 0,
            1 => 6 + 6,
            _ => 6 + 4,
        };
        2 + format!("order#{i}").len() as u64 + 1007 + status
    };
    let bytes: u64 = (0..200).map(size).sum();
    let units: u64 = (0..200).map(|i| size(i).div_ceil(1024)).sum();
    assert_eq!(doc["item_sizes"]["bytes"], bytes);
    let health = &doc["health"];
    assert_eq!(health["storage"]["item_bytes"], bytes);
    assert_eq!(health["storage"]["storage_bytes"], bytes + 200 * 100);
    let gsi = &health["gsis"][0];
    assert_eq!(gsi["name"], "byStatus");
    assert_eq!(gsi["projection"], "KEYS_ONLY");
    assert_eq!(gsi["writes"], 190);
    // A keys-only copy (pk and status, ~20 bytes) costs 1 unit for each of the 190 items it holds.
    assert!(
        (gsi["index_units_per_write"].as_f64().unwrap() - 0.95).abs() < 1e-9,
        "{gsi}"
    );
    let table_units = gsi["table_units_per_write"].as_f64().unwrap();
    assert!((table_units - units as f64 / 200.0).abs() < 1e-9, "{gsi}");
    // Without --item-sizes the scan reads keys only: no sizes.
    let out = bin(&args[..args.len() - 3])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc.get("item_sizes").is_none());
    assert_eq!(doc["health"]["items"], 0);
}

#[test]
fn cli_scan_prints_the_analysis_as_json_and_labels_samples() {
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("cli", 1200, 40);
    let out = bin(&[
        "scan",
        "--endpoint-url",
        &server.endpoint(),
        "--table",
        &name,
        "--format",
        "json",
        "--segments",
        "4",
        "--buckets",
        "16",
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["source"], name.as_str());
    assert_eq!(doc["total"], 1200);
    assert_eq!(doc["distinct"], 40);
    assert_eq!(doc["buckets"].as_array().unwrap().len(), 16);
    assert!(
        stderr(&out).contains("complete: 1,200 items"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("at most 100 RCU/s"),
        "{}",
        stderr(&out)
    );

    let out = bin(&[
        "scan",
        "--endpoint-url",
        &server.endpoint(),
        "--table",
        &name,
        "--format",
        "json",
        "--limit",
        "100",
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["total"], 100);
    assert_eq!(doc["source"], format!("{name} (sample: first 100 items)"));
}

/// Read-only by construction: the only operations in `src/` are DynamoDB's ListTables, DescribeTable, Scan and
/// DescribeContributorInsights, DynamoDB Streams' DescribeStream, GetShardIterator and GetRecords, and
/// CloudWatch's GetMetricData and GetInsightRuleReport: no call of a writing operation of the three services
/// appears anywhere (`tests/live.rs` checks the requests sent, too).
#[test]
fn source_code_calls_no_writing_operation() {
    let writes = [
        ".put_item(",
        ".update_item(",
        ".delete_item(",
        ".batch_write_item(",
        ".transact_write_items(",
        ".create_table(",
        ".update_table(",
        ".delete_table(",
        ".execute_statement(",
        ".batch_execute_statement(",
        ".execute_transaction(",
        ".restore_table",
        ".import_table(",
        ".export_table",
        ".tag_resource(",
        ".update_time_to_live(",
        ".create_backup(",
        ".put_resource_policy(",
        ".untag_resource(",
        ".update_contributor_insights(",
        ".enable_kinesis_streaming_destination(",
        ".update_continuous_backups(",
        // CloudWatch
        ".put_metric_data(",
        ".put_insight_rule(",
        ".put_managed_insight_rules(",
        ".delete_insight_rules(",
        ".enable_insight_rules(",
        ".disable_insight_rules(",
        ".put_metric_alarm(",
        ".put_composite_alarm(",
        ".delete_alarms(",
        ".set_alarm_state(",
        ".put_dashboard(",
        ".delete_dashboards(",
        ".put_metric_stream(",
        ".put_anomaly_detector(",
    ];
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src"
    ))];
    let mut files = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                for w in writes {
                    assert!(!text.contains(w), "{} calls {w}", path.display());
                }
            }
        }
    }
    assert!(files > 10);
}

/// The app's scan: pages grow the histogram, the finished scan replaces it, and the title names the table.
#[cfg(feature = "gui")]
#[test]
fn the_app_scans_a_table_into_its_histogram() {
    use shardlens::app::{App, Command, Keys};
    use shardlens::model::decision::Question;
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("app", 500, 9);
    let mut h = egui_kittest::Harness::builder()
        .with_size([1400.0, 900.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    kittest::Settle::settle(&mut h);
    let opts = ConnectOptions {
        endpoint: Some(server.endpoint()),
        region: Some("us-east-1".into()),
        credentials: Some(StaticKeys {
            access_key_id: "test".into(),
            secret_access_key: "test".into(),
        }),
        ..ConnectOptions::default()
    };
    h.state_mut().start_scan(
        opts,
        ScanOptions {
            page_size: Some(50),
            // Paced (about a second), so pages arrive while the test answers a question.
            max_rcu: Some(2.0),
            ..fast(&name)
        },
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut answered = false;
    while (h.state().scanning() || h.state().busy()) && Instant::now() < deadline {
        h.step();
        // Once the table's first pages are on screen, answer a question: later pages must keep the answer.
        if !answered
            && h.state()
                .source()
                .describe()
                .starts_with(&format!("table {name}"))
        {
            h.state_mut()
                .apply(Command::Answer(Question::OneItem, Some(false)));
            answered = true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let app = h.state();
    assert!(!app.scanning(), "the scan finished");
    assert!(
        answered,
        "the table's pages were shown before the scan ended"
    );
    assert_eq!(
        app.answers().get(Question::OneItem),
        Some(false),
        "an answer given during the scan survives its pages"
    );
    assert!(matches!(app.keys(), Keys::Data(_)));
    let report = app.report().unwrap();
    assert_eq!(report.analysis.total, 500);
    assert_eq!(report.analysis.distinct, 9);
    assert_eq!(app.source().describe(), format!("table {name}"));
    let notice = app.notices().last().unwrap();
    assert!(!notice.error(), "{}", notice.text);
}

#[test]
fn the_app_says_when_a_scan_hears_nothing() {
    use egui_kittest::kittest::Queryable as _;
    use shardlens::app::{App, Command};
    let mut server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("quiet", 1000, 10);
    let mut h = egui_kittest::Harness::builder()
        .with_size([1400.0, 900.0])
        .build_eframe(|cc| App::with_settings(cc.egui_ctx.clone(), None));
    kittest::Settle::settle(&mut h);
    let opts = ConnectOptions {
        endpoint: Some(server.endpoint()),
        region: Some("us-east-1".into()),
        credentials: Some(StaticKeys {
            access_key_id: "test".into(),
            secret_access_key: "test".into(),
        }),
        attempt_timeout: Duration::from_secs(60),
        ..ConnectOptions::default()
    };
    h.state_mut().start_scan(
        opts,
        ScanOptions {
            page_size: Some(50),
            max_rcu: Some(2.0),
            ..fast(&name)
        },
    );
    // The first pages arrive, then the server stops answering.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !h
        .state()
        .source()
        .describe()
        .starts_with(&format!("table {name}"))
    {
        assert!(Instant::now() < deadline, "no page arrived");
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    server.freeze();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        h.step();
        if h.query_by_label_contains("no reply from DynamoDB for")
            .is_some()
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the status bar never said the scan is quiet"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(h.state().scanning());
    h.state_mut().apply(Command::CancelScan);
}

/// Issue #15: faults between the scan and the server, injected by a proxy on a schedule. Throttling and server
/// errors are backed off and retried: the scan completes with exactly the table's items (none lost, none
/// counted twice). A Scan on a collection table of 600 items under 60 keys, 3 segments, pages of 40.
#[test]
fn faults_in_a_live_scan_are_retried_and_no_item_is_lost_or_counted_twice() {
    use faults::{Fault, FaultProxy};
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("faults", 600, 60);
    let truth = scan(
        &connect(&server, Duration::from_secs(10)),
        &ScanOptions {
            with_sort_key: true,
            ..fast(&name)
        },
    );
    assert_eq!(truth.keys.total(), 600);
    let opts = ScanOptions {
        segments: 3,
        page_size: Some(40),
        with_sort_key: true,
        backoff: shardlens::source::dynamo::Backoff {
            base: Duration::from_millis(5),
            max: Duration::from_millis(50),
        },
        ..fast(&name)
    };
    for fault in [
        Fault::ProvisionedThroughput,
        Fault::Throttling,
        Fault::Internal,
        Fault::Unavailable,
        Fault::Slow(Duration::from_millis(1500)),
        Fault::Drop,
    ] {
        // Six Scan requests, two in each segment, scheduled by the segment's own request count (so the same
        // requests fail on every run, however the segments interleave): never more than two in a row of one
        // segment, under the three transient retries a page gets.
        let proxy = FaultProxy::start(server.port, move |r| {
            let nths: &[u64] = match r.segment {
                0 => &[0, 2],
                1 => &[1, 3],
                _ => &[0, 1],
            };
            nths.contains(&r.nth).then_some(fault)
        });
        let client = connect_to(&proxy.endpoint(), Duration::from_millis(500));
        let got = scan(&client, &opts);
        assert_eq!(
            got.status,
            ScanStatus::Complete,
            "{fault:?}: {:?}",
            got.status
        );
        assert_eq!(proxy.faults(), 6, "{fault:?}");
        assert!(
            got.progress.retries >= 6,
            "{fault:?}: {} retries",
            got.progress.retries
        );
        assert_eq!(got.keys.total(), 600, "{fault:?}: every item once");
        assert_eq!(got.keys.len(), truth.keys.len(), "{fault:?}");
        for (i, key, count) in truth.keys.iter() {
            let j = got.keys.find(key).unwrap();
            assert_eq!(got.keys.count(j), count, "{fault:?}");
            assert_eq!(
                got.keys.sort_key_facts(j).map(|f| f.items),
                truth.keys.sort_key_facts(i).map(|f| f.items),
                "{fault:?}: the items of each key"
            );
        }
    }
}

/// A server that keeps failing ends the scan with a labelled partial result and says why; Cancel stops a scan
/// that is backing off.
#[test]
fn a_server_that_keeps_failing_ends_the_scan_partial_and_cancel_stops_backoff() {
    use faults::{Fault, FaultProxy};
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("failing", 300, 30);
    let opts = ScanOptions {
        segments: 1,
        page_size: Some(50),
        backoff: shardlens::source::dynamo::Backoff {
            base: Duration::from_millis(5),
            max: Duration::from_millis(20),
        },
        ..fast(&name)
    };
    // The first two pages arrive, then every request fails with HTTP 500.
    let proxy = FaultProxy::start(server.port, |r| (r.n >= 2).then_some(Fault::Internal));
    let client = connect_to(&proxy.endpoint(), Duration::from_secs(5));
    let got = scan(&client, &opts);
    match &got.status {
        ScanStatus::Failed(e) => assert!(e.to_string().contains("InternalServerError"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(got.keys.total(), 100, "the two pages read stay");
    // Throttled for ever: Cancel ends the backoff loop, with what was read.
    let proxy = FaultProxy::start(server.port, |r| (r.n >= 1).then_some(Fault::Throttling));
    let client = connect_to(&proxy.endpoint(), Duration::from_secs(5));
    let cancel = AtomicBool::new(false);
    let started = Instant::now();
    let got = client
        .scan(&opts, &cancel, &mut |e| {
            if matches!(e, ScanEvent::Throttled { .. })
                && started.elapsed() > Duration::from_millis(300)
            {
                cancel.store(true, Ordering::SeqCst);
            }
        })
        .unwrap();
    assert_eq!(got.status, ScanStatus::Cancelled);
    assert_eq!(got.keys.total(), 50);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(proxy.faults() >= 3);
}

/// The read-capacity cap holds while throttled pages are retried: consumed units per second stay within 10 %
/// of `--max-rcu` (a throttled page consumes nothing, and its retry waits for the limiter like any page).
#[test]
fn the_rcu_cap_holds_while_throttled_pages_are_retried() {
    use faults::{Fault, FaultProxy};
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    // 1,500 items of ~1 KB: about 190 read units for an eventually consistent scan.
    let name = setup.orders_with_status("cap", 1500);
    let proxy = FaultProxy::start(server.port, |r| (r.n % 4 == 1).then_some(Fault::Throttling));
    let client = connect_to(&proxy.endpoint(), Duration::from_secs(5));
    let cap = 40.0;
    let opts = ScanOptions {
        segments: 2,
        max_rcu: Some(cap),
        backoff: shardlens::source::dynamo::Backoff {
            base: Duration::from_millis(5),
            max: Duration::from_millis(50),
        },
        ..ScanOptions::new(&name)
    };
    let got = scan(&client, &opts);
    assert_eq!(got.status, ScanStatus::Complete);
    assert_eq!(got.keys.total(), 1500);
    assert!(
        got.progress.retries >= 3,
        "{} retries",
        got.progress.retries
    );
    let rate = got.progress.rcu / got.progress.elapsed.as_secs_f64();
    eprintln!(
        "{:.1} RCU in {:.2} s = {rate:.1} RCU/s, {} retries",
        got.progress.rcu,
        got.progress.elapsed.as_secs_f64(),
        got.progress.retries
    );
    // The cap holds (never above it by more than 10 %); the lower bound only says retries did not starve the
    // scan, and is loose so that a busy machine (a slower server) does not fail it.
    assert!(
        (cap * 0.75..=cap * 1.1).contains(&rate),
        "{rate:.1} RCU/s against a cap of {cap}"
    );
}

/// Ctrl+C in the CLI while the scan backs off from endless throttling: the process ends soon after (it does
/// not wait out the backoff), prints the analysis of what it read labelled partial, says it was interrupted
/// and exits 1.
#[test]
fn cli_ctrl_c_during_backoff_prints_the_partial_result() {
    use faults::{Fault, FaultProxy};
    let server = Dynalite::start();
    let setup = Setup::new(&server);
    let name = setup.collection_table("ctrl-c", 400, 40);
    // Four segments, one request each: the first is answered, every later one throttled, for ever.
    let proxy = FaultProxy::start(server.port, |r| (r.n >= 1).then_some(Fault::Throttling));
    let endpoint = proxy.endpoint();
    let mut child = bin(&[
        "scan",
        "--endpoint-url",
        &endpoint,
        "--table",
        &name,
        "--segments",
        "4",
    ])
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let waiting = Instant::now();
    while proxy.faults() < 6 {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "the scan never backed off ({} faults)",
            proxy.faults()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let mut ended = None;
    while sent.elapsed() < Duration::from_secs(15) {
        if let Some(status) = child.try_wait().unwrap() {
            ended = Some((status, sent.elapsed()));
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let Some((status, after)) = ended else {
        let _ = child.kill();
        panic!("the scan did not end within 15 s of Ctrl+C");
    };
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    eprintln!("ended {after:?} after Ctrl+C");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        after < Duration::from_secs(3),
        "{after:?} from Ctrl+C to exit"
    );
    let read = stderr
        .split("stopped after ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no item count in {stderr}"));
    assert!(
        stderr.contains(&format!(
            "interrupted: the scan of {name} stopped after {read} items"
        )),
        "{stderr}"
    );
    assert!(
        read < 400,
        "{read} items: the throttled segments read nothing"
    );
    assert!(
        stdout.contains(&format!("(partial: {read} items read)")),
        "{stdout}"
    );
}
