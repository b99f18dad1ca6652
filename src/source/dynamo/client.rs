//! The AWS SDK wrapped once: the [`DynamoClient`] (listing and describing tables, starting scans), which
//! fills the plain values of `table.rs`. Scan pages come through `sdk_pages.rs`, streams through
//! `stream_sdk.rs`, CloudWatch through `metrics_sdk.rs`. Desktop and CLI only: in a page `web.rs` stands in.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;
use std::time::Duration;

use super::endpoint::{env_endpoint, is_loopback, streams_env_endpoint, validate_endpoint};
use super::error::{DynamoError, SentCredentials};
use super::scan::{ScanEvent, ScanOptions, Scanned, run_scan};
use super::sdk_error::NoteSentCredentials;
use super::sdk_pages::SdkPages;
use super::table::{Billing, ConnectOptions, IndexInfo, KeyAttribute, TableInfo, Throughput};
use crate::model::KeyType;
use crate::source::{Hint, Message};
use aws_config::BehaviorVersion;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{Credentials, Region};
use aws_sdk_dynamodb::types::{
    BillingMode, KeySchemaElement, KeyType as SdkKeyType, OnDemandThroughput, ScalarAttributeType,
};

/// The attribute of `schema` in `role` (the partition key: `Hash`; the sort key: `Range`).
fn key(schema: &[KeySchemaElement], role: &SdkKeyType) -> Option<String> {
    schema
        .iter()
        .find(|k| k.key_type() == role)
        .map(|k| k.attribute_name().to_owned())
}

/// Every attribute of `schema` in `role`, in the schema's order: a GSI's multi-attribute key has up to four
/// of each (AWS developer guide, GSI.DesignPattern.MultiAttributeKeys), a table or an LSI one.
fn keys(schema: &[KeySchemaElement], role: &SdkKeyType) -> Vec<String> {
    schema
        .iter()
        .filter(|k| k.key_type() == role)
        .map(|k| k.attribute_name().to_owned())
        .collect()
}

/// A secondary index from its description, its key schema read whole.
fn index_info(
    name: Option<&str>,
    schema: &[KeySchemaElement],
    projection: Option<&aws_sdk_dynamodb::types::Projection>,
) -> IndexInfo {
    IndexInfo {
        name: name.unwrap_or("?").to_owned(),
        partition_keys: keys(schema, &SdkKeyType::Hash),
        sort_keys: keys(schema, &SdkKeyType::Range),
        projection: projection
            .and_then(|p| p.projection_type())
            .map_or_else(String::new, |t| t.as_str().to_owned()),
        included: projection
            .map(|p| p.non_key_attributes().to_vec())
            .unwrap_or_default(),
    }
}

/// A table's or index's on-demand maximum (a missing or -1 maximum is none) and warm throughput: (reads,
/// writes, status).
fn throughput(
    on_demand: Option<&OnDemandThroughput>,
    warm: (Option<i64>, Option<i64>, Option<&str>),
) -> Throughput {
    Throughput {
        max_read_units: Throughput::maximum(
            on_demand.and_then(OnDemandThroughput::max_read_request_units),
        ),
        max_write_units: Throughput::maximum(
            on_demand.and_then(OnDemandThroughput::max_write_request_units),
        ),
        warm_read_units: warm.0,
        warm_write_units: warm.1,
        warm_status: warm.2.map(str::to_owned),
    }
}

/// The table's on-demand maximum and warm throughput.
fn table_throughput(t: &aws_sdk_dynamodb::types::TableDescription) -> Throughput {
    let warm = t.warm_throughput();
    throughput(
        t.on_demand_throughput(),
        (
            warm.and_then(
                aws_sdk_dynamodb::types::TableWarmThroughputDescription::read_units_per_second,
            ),
            warm.and_then(
                aws_sdk_dynamodb::types::TableWarmThroughputDescription::write_units_per_second,
            ),
            warm.and_then(|w| w.status())
                .map(aws_sdk_dynamodb::types::TableStatus::as_str),
        ),
    )
}

/// Each global secondary index's on-demand maximum and warm throughput, by its name (those with some).
fn index_throughput(
    t: &aws_sdk_dynamodb::types::TableDescription,
) -> std::collections::BTreeMap<String, Throughput> {
    use aws_sdk_dynamodb::types::GlobalSecondaryIndexWarmThroughputDescription as Warm;
    t.global_secondary_indexes()
        .iter()
        .filter_map(|i| {
            let warm = i.warm_throughput();
            let facts = throughput(
                i.on_demand_throughput(),
                (
                    warm.and_then(Warm::read_units_per_second),
                    warm.and_then(Warm::write_units_per_second),
                    warm.and_then(Warm::status)
                        .map(aws_sdk_dynamodb::types::IndexStatus::as_str),
                ),
            );
            Some((i.index_name()?.to_owned(), facts)).filter(|(_, f)| !f.is_empty())
        })
        .collect()
}

/// The DynamoDB client, with its own small tokio runtime: every method blocks the calling thread (run it on
/// a background thread in a UI). `Debug` shows region, endpoint and profile, never credentials.
pub struct DynamoClient {
    client: Client,
    /// DynamoDB Streams (DescribeStream, GetShardIterator, GetRecords).
    pub(super) streams: aws_sdk_dynamodbstreams::Client,
    /// CloudWatch (GetMetricData, GetInsightRuleReport).
    pub(super) cloudwatch: aws_sdk_cloudwatch::Client,
    runtime: tokio::runtime::Runtime,
    region: String,
    endpoint: Option<String>,
    profile: Option<String>,
    attempt_timeout: Duration,
    /// What the requests' credentials were, to keep them out of error messages.
    sent: SentCredentials,
}

impl fmt::Debug for DynamoClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamoClient")
            .field("region", &self.region)
            .field("endpoint", &self.endpoint)
            .field("profile", &self.profile)
            .field("attempt_timeout", &self.attempt_timeout)
            .finish_non_exhaustive()
    }
}

/// The stream's and CloudWatch's clients: the DynamoDB client's configuration, region and credentials'
/// scrubbing.
fn other_clients(
    sdk_config: &aws_config::SdkConfig,
    region: &str,
    sent: &SentCredentials,
    endpoint_given: bool,
) -> (aws_sdk_dynamodbstreams::Client, aws_sdk_cloudwatch::Client) {
    let region = Region::new(region.to_owned());
    let mut streams = aws_sdk_dynamodbstreams::config::Builder::from(sdk_config)
        .region(region.clone())
        .interceptor(NoteSentCredentials(sent.clone()));
    if let Some(url) = streams_env_endpoint().filter(|_| !endpoint_given) {
        streams = streams.endpoint_url(url);
    }
    let streams = streams.build();
    let cloudwatch = aws_sdk_cloudwatch::config::Builder::from(sdk_config)
        .region(region)
        .interceptor(NoteSentCredentials(sent.clone()))
        .build();
    (
        aws_sdk_dynamodbstreams::Client::from_conf(streams),
        aws_sdk_cloudwatch::Client::from_conf(cloudwatch),
    )
}

/// The table's stream: `LatestStreamArn`, unless its stream specification says streams are off.
fn stream_arn(t: &aws_sdk_dynamodb::types::TableDescription) -> Option<String> {
    t.latest_stream_arn()
        .filter(|_| {
            t.stream_specification()
                .is_none_or(aws_sdk_dynamodb::types::StreamSpecification::stream_enabled)
        })
        .map(str::to_owned)
}

impl DynamoClient {
    /// Loads the configuration (no request is sent yet). Fails on an endpoint that is not a URL, or when no
    /// region can be found for AWS itself.
    pub fn connect(opts: &ConnectOptions) -> Result<Self, DynamoError> {
        let endpoint = opts.endpoint.clone().or_else(env_endpoint);
        if let Some(url) = &endpoint {
            validate_endpoint(url)?;
        }
        if opts.attempt_timeout.is_zero() || opts.connect_timeout.is_zero() {
            return Err(DynamoError::Config(
                "timeouts must be longer than zero".into(),
            ));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("shardlens-dynamo")
            .enable_all()
            .build()
            .map_err(|e| {
                DynamoError::Config(format!("cannot start the network runtime: {e}").into())
            })?;
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(opts.connect_timeout)
            .read_timeout(opts.attempt_timeout)
            .operation_attempt_timeout(opts.attempt_timeout)
            .operation_timeout(opts.attempt_timeout.saturating_mul(3))
            .build();
        let mut loader = aws_config::defaults(BehaviorVersion::latest())
            .timeout_config(timeouts)
            .retry_config(RetryConfig::standard().with_max_attempts(3));
        if let Some(p) = &opts.profile {
            loader = loader.profile_name(p);
        }
        if let Some(r) = &opts.region {
            loader = loader.region(Region::new(r.clone()));
        }
        if let Some(url) = &opts.endpoint {
            loader = loader.endpoint_url(url);
        }
        if let Some(keys) = &opts.credentials {
            loader = loader.credentials_provider(Credentials::new(
                keys.access_key_id.clone(),
                keys.secret_access_key.clone(),
                None,
                None,
                "shardlens",
            ));
        } else if endpoint.as_deref().is_some_and(is_loopback) {
            loader = loader.credentials_provider(local_credentials(opts.profile.as_deref()));
        }
        let sdk_config = runtime.block_on(loader.load());
        let mut builder = aws_sdk_dynamodb::config::Builder::from(&sdk_config);
        let region = match sdk_config.region() {
            Some(r) => r.to_string(),
            None if endpoint.is_some() => {
                builder = builder.region(Region::new("us-east-1"));
                "us-east-1".to_owned()
            }
            None => {
                return Err(DynamoError::Config(Message::hinted(
                    "no AWS region: ",
                    Hint::Region,
                    ", set AWS_REGION, or give the profile a region",
                )));
            }
        };
        let sent = SentCredentials::default();
        builder = builder.interceptor(NoteSentCredentials(sent.clone()));
        let (streams, cloudwatch) =
            other_clients(&sdk_config, &region, &sent, opts.endpoint.is_some());
        Ok(Self {
            client: Client::from_conf(builder.build()),
            streams,
            cloudwatch,
            runtime,
            region,
            endpoint,
            profile: opts.profile.clone(),
            attempt_timeout: opts.attempt_timeout,
            sent,
        })
    }

    pub fn region(&self) -> &str {
        &self.region
    }

    /// The endpoint URL, when not AWS's own.
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// Where requests go, for messages: the endpoint URL or "region eu-west-1".
    pub fn describe_target(&self) -> String {
        self.endpoint
            .clone()
            .unwrap_or_else(|| format!("region {}", self.region))
    }

    fn err<E>(
        &self,
        operation: &'static str,
        e: &aws_sdk_dynamodb::error::SdkError<E, aws_sdk_dynamodb::config::http::HttpResponse>,
        table: Option<&str>,
    ) -> DynamoError
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata + std::error::Error + 'static,
    {
        DynamoError::from_sdk(
            operation,
            e,
            self.attempt_timeout,
            Some(&self.describe_target()),
            table,
        )
        .scrubbed(&self.sent)
    }

    /// All table names (every page of ListTables).
    pub fn list_tables(&self) -> Result<Vec<String>, DynamoError> {
        self.runtime.block_on(async {
            let mut names = Vec::new();
            let mut start: Option<String> = None;
            loop {
                let out = self
                    .client
                    .list_tables()
                    .set_exclusive_start_table_name(start.take())
                    .send()
                    .await
                    .map_err(|e| self.err("ListTables", &e, None))?;
                names.extend(out.table_names().iter().cloned());
                match out.last_evaluated_table_name() {
                    Some(last) => start = Some(last.to_owned()),
                    None => return Ok(names),
                }
            }
        })
    }

    /// Key schema, billing, indexes and the reported size of one table.
    pub fn describe_table(&self, table: &str) -> Result<TableInfo, DynamoError> {
        self.runtime.block_on(self.describe_async(table))
    }

    async fn describe_async(&self, table: &str) -> Result<TableInfo, DynamoError> {
        let out = self
            .client
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| self.err("DescribeTable", &e, Some(table)))?;
        let bad = |what: &str| DynamoError::Other {
            operation: "DescribeTable",
            reason: format!("the answer has {what}: {table}"),
        };
        let t = out.table().ok_or_else(|| bad("no table description"))?;
        let types: HashMap<&str, KeyType> = t
            .attribute_definitions()
            .iter()
            .map(|d| {
                let ty = match d.attribute_type() {
                    ScalarAttributeType::N => KeyType::N,
                    ScalarAttributeType::B => KeyType::B,
                    _ => KeyType::S,
                };
                (d.attribute_name(), ty)
            })
            .collect();
        let attr = |name: String| KeyAttribute {
            key_type: types.get(name.as_str()).copied().unwrap_or(KeyType::S),
            name,
        };
        let partition_key = key(t.key_schema(), &SdkKeyType::Hash)
            .map(attr)
            .ok_or_else(|| bad("no partition key"))?;
        let sort_key = key(t.key_schema(), &SdkKeyType::Range).map(attr);
        let on_demand = t
            .billing_mode_summary()
            .and_then(|b| b.billing_mode())
            .is_some_and(|m| *m == BillingMode::PayPerRequest);
        let billing = match t.provisioned_throughput() {
            _ if on_demand => Billing::OnDemand,
            Some(p) => Billing::Provisioned {
                read: p.read_capacity_units().unwrap_or(0),
                write: p.write_capacity_units().unwrap_or(0),
            },
            None => Billing::Unknown,
        };
        Ok(TableInfo {
            name: t.table_name().unwrap_or(table).to_owned(),
            status: t
                .table_status()
                .map_or_else(|| "?".to_owned(), |s| s.as_str().to_owned()),
            partition_key,
            sort_key,
            billing,
            item_count: t.item_count(),
            size_bytes: t.table_size_bytes(),
            local_indexes: t
                .local_secondary_indexes()
                .iter()
                .map(|i| index_info(i.index_name(), i.key_schema(), i.projection()))
                .collect(),
            global_indexes: t
                .global_secondary_indexes()
                .iter()
                .map(|i| index_info(i.index_name(), i.key_schema(), i.projection()))
                .collect(),
            stream_arn: stream_arn(t),
            throughput: table_throughput(t),
            index_throughput: index_throughput(t),
        })
    }

    /// The table's TTL attribute, from DescribeTimeToLive when TTL is on (or being turned on); `None` when it is
    /// off or the call fails (a local server without it, no permission): the scan then guesses from names.
    async fn ttl_attribute_async(&self, table: &str) -> Option<String> {
        let out = self
            .client
            .describe_time_to_live()
            .table_name(table)
            .send()
            .await
            .ok()?;
        let d = out.time_to_live_description()?;
        let on = matches!(
            d.time_to_live_status(),
            Some(
                aws_sdk_dynamodb::types::TimeToLiveStatus::Enabled
                    | aws_sdk_dynamodb::types::TimeToLiveStatus::Enabling
            )
        );
        on.then(|| d.attribute_name().map(str::to_owned)).flatten()
    }

    /// Describes the table, then scans its keys in parallel (see [`ScanOptions`]), calling `on_event` with a
    /// [`ScanEvent::Page`] per page on this thread. `cancel` stops it within about 50 ms, keeping what was
    /// read. `Err` only when nothing could be read (bad options, no such table, no connection at the
    /// start); later failures end the scan with [`super::ScanStatus::Failed`] and the keys read so far.
    pub fn scan(
        &self,
        opts: &ScanOptions,
        cancel: &AtomicBool,
        on_event: &mut dyn FnMut(ScanEvent),
    ) -> Result<Scanned, DynamoError> {
        opts.check()?;
        self.runtime.block_on(async {
            let info = self.describe_async(&opts.table).await?;
            let ttl = match &opts.ttl_attr {
                Some(name) => Some(name.clone()),
                None => self.ttl_attribute_async(&opts.table).await,
            };
            let known_ttl = ttl.is_some();
            // With a design, the sort key is read anyway: it seeds each item's `{random N}` draws.
            let read_sort_key = opts.with_sort_key || !opts.design.is_empty();
            let source = Arc::new(
                SdkPages::new(
                    self.client.clone(),
                    &info,
                    (
                        info.sort_key.as_ref().filter(|_| read_sort_key),
                        opts.design.roots(),
                    ),
                    opts.consistent,
                    (self.attempt_timeout, self.sent.clone()),
                    self.describe_target(),
                )
                .with_items(opts.item_sizes, ttl),
            );
            let sort_key_type = info
                .sort_key
                .as_ref()
                .filter(|_| opts.with_sort_key)
                .map(|k| k.key_type);
            let mut scanned = run_scan(
                source,
                opts,
                info.partition_key.key_type,
                sort_key_type,
                cancel,
                on_event,
            )
            .await;
            if let Some(t) = &mut scanned.ttl {
                // Neither given nor the table's: guessed from the first item's names.
                t.guessed = !known_ttl;
            }
            scanned.has_lsi = !info.local_indexes.is_empty();
            scanned.key_attribute = Some(info.partition_key.name.clone());
            scanned.sort_key_attribute = info.sort_key.as_ref().map(|k| k.name.clone());
            Ok(scanned)
        })
    }

    /// [`Self::scan`] over a bounded channel: every page as a [`ScanEvent::Page`], then one
    /// [`ScanEvent::Done`]. Blocks while the channel is full; stops early if the receiver is gone.
    pub fn scan_to_channel(
        &self,
        opts: &ScanOptions,
        cancel: &AtomicBool,
        tx: &SyncSender<ScanEvent>,
    ) {
        let gone = AtomicBool::new(false);
        let result = self.scan(opts, cancel, &mut |event| {
            if tx.send(event).is_err() {
                gone.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        if !gone.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = tx.send(ScanEvent::Done(result.map(Box::new)));
        }
    }
}

impl DynamoClient {
    /// The per-attempt timeout, the credentials sent and the target, for the other services' errors.
    pub(super) fn err_context(&self) -> (Duration, SentCredentials, String) {
        (
            self.attempt_timeout,
            self.sent.clone(),
            self.describe_target(),
        )
    }

    /// The DynamoDB client, for the calls of the sibling modules (DescribeContributorInsights).
    pub(super) fn dynamodb(&self) -> &Client {
        &self.client
    }

    /// Runs `f` on the client's runtime, blocking this thread.
    pub(super) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }
}

/// The credentials for a server on this machine: the environment's keys, else the profile's (`--profile`,
/// `AWS_PROFILE`, else `default`), else placeholder keys. DynamoDB Local and dynalite accept any keys but the SDK
/// signs every request, so without this a machine with no AWS configuration could not talk to a local server:
/// the default chain ended at the instance metadata service, whose failure read as "cannot reach the server".
/// (NoSQL Workbench connects to DynamoDB Local the same way.) The chain never asks instance metadata, so it
/// does not wait for its timeouts.
fn local_credentials(
    profile: Option<&str>,
) -> aws_config::meta::credentials::CredentialsProviderChain {
    let mut from_profile = aws_config::profile::ProfileFileCredentialsProvider::builder();
    if let Some(p) = profile {
        from_profile = from_profile.profile_name(p);
    }
    aws_config::meta::credentials::CredentialsProviderChain::first_try(
        "environment",
        aws_config::environment::EnvironmentVariableCredentialsProvider::new(),
    )
    .or_else("profile", from_profile.build())
    .or_else(
        "local placeholder",
        Credentials::new("local", "local", None, None, "shardlens-local"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::dynamo::StaticKeys;

    fn element(name: &str, role: SdkKeyType) -> KeySchemaElement {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(role)
            .build()
            .unwrap()
    }

    /// A multi-attribute GSI's key schema is read whole, in order. dynalite refuses such a schema in
    /// CreateTable (it allows one HASH and one RANGE element), so this builds the SDK's elements instead.
    #[test]
    fn a_multi_attribute_key_schema_is_read_whole() {
        let schema = [
            element("tournamentId", SdkKeyType::Hash),
            element("region", SdkKeyType::Hash),
            element("round", SdkKeyType::Range),
            element("bracket", SdkKeyType::Range),
            element("matchId", SdkKeyType::Range),
        ];
        let projection = aws_sdk_dynamodb::types::Projection::builder()
            .projection_type(aws_sdk_dynamodb::types::ProjectionType::KeysOnly)
            .build();
        let info = index_info(Some("byTournamentRegion"), &schema, Some(&projection));
        assert_eq!(info.partition_keys, ["tournamentId", "region"]);
        assert_eq!(info.sort_keys, ["round", "bracket", "matchId"]);
        assert_eq!(info.projection, "KEYS_ONLY");
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(
            json["partition_keys"],
            serde_json::json!(["tournamentId", "region"])
        );
        assert_eq!(json["sort_keys"].as_array().map(Vec::len), Some(3));
        // A one-attribute index, as before: one name, no sort key.
        let one = index_info(Some("byCity"), &[element("city", SdkKeyType::Hash)], None);
        assert_eq!(one.partition_keys, ["city"]);
        assert!(one.sort_keys.is_empty());
    }

    #[test]
    fn debug_prints_no_secret() {
        let opts = ConnectOptions {
            credentials: Some(StaticKeys {
                access_key_id: "AKIDEXAMPLE".into(),
                secret_access_key: "wJalrXUtnFEMI/K7MDENG".into(),
            }),
            endpoint: Some("http://127.0.0.1:9".into()),
            region: Some("us-east-1".into()),
            ..ConnectOptions::default()
        };
        assert!(!format!("{opts:?}").contains("wJalr"));
        let client = DynamoClient::connect(&opts).unwrap();
        let shown = format!("{client:?}");
        assert!(
            !shown.contains("wJalr") && !shown.contains("AKID"),
            "{shown}"
        );
        assert!(shown.contains("127.0.0.1:9"));
    }
}
