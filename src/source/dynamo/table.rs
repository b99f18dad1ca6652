//! What shardlens knows of a live table and how to reach one: connection options and the table descriptions
//! DescribeTable gives ([`TableInfo`]). Plain values, in the desktop app and in a page alike (a session saved
//! by the desktop names its table and connection, and opens in a page); the client that fills them is
//! `client.rs`, on the desktop only.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::model::KeyType;

/// Time allowed to open a connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Time allowed for one request to be answered (a 1 MB Scan page takes well under a second).
pub const DEFAULT_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// How to reach DynamoDB. Every field is optional: the default chain of `aws-config` fills the gaps.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectOptions {
    /// A named profile of `~/.aws/config` / `~/.aws/credentials` (SSO and `credential_process` work).
    pub profile: Option<String>,
    /// The region, e.g. `eu-west-1`; otherwise `AWS_REGION` or the profile's. With an endpoint and no region
    /// anywhere, `us-east-1` (local servers ignore it).
    pub region: Option<String>,
    /// An endpoint URL such as `http://localhost:8000` (DynamoDB Local, dynalite, LocalStack).
    /// `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL` are honoured when this is `None`.
    pub endpoint: Option<String>,
    /// Fixed access keys instead of the default chain: for local servers, which accept any.
    pub credentials: Option<StaticKeys>,
    /// Time allowed to open a connection.
    pub connect_timeout: Duration,
    /// Time allowed for one request; the whole operation gets three times as long.
    pub attempt_timeout: Duration,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            profile: None,
            region: None,
            endpoint: None,
            credentials: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            attempt_timeout: DEFAULT_ATTEMPT_TIMEOUT,
        }
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("profile", &self.profile)
            .field("region", &self.region)
            .field("endpoint", &self.endpoint)
            .field("credentials", &self.credentials)
            .field("connect_timeout", &self.connect_timeout)
            .field("attempt_timeout", &self.attempt_timeout)
            .finish()
    }
}

/// An access key pair. `Debug` shows neither (the key id names the account's user: issue 15 keeps it out of
/// every message and log too).
#[derive(Clone, PartialEq, Eq)]
pub struct StaticKeys {
    pub access_key_id: String,
    pub secret_access_key: String,
}

impl fmt::Debug for StaticKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticKeys")
            .field("access_key_id", &"** redacted **")
            .field("secret_access_key", &"** redacted **")
            .finish()
    }
}

/// A key attribute: name and scalar type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyAttribute {
    pub name: String,
    #[serde(rename = "type")]
    pub key_type: KeyType,
}

/// How a table pays for reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "mode")]
pub enum Billing {
    OnDemand,
    Provisioned { read: i64, write: i64 },
    Unknown,
}

impl fmt::Display for Billing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OnDemand => f.write_str("on-demand"),
            Self::Provisioned { read, write } => write!(f, "provisioned ({read} RCU, {write} WCU)"),
            Self::Unknown => f.write_str("unknown billing"),
        }
    }
}

/// A secondary index: its name, key attribute names and projection. A global secondary index's partition key
/// and sort key may each be up to four attributes (multi-attribute keys, AWS developer guide
/// GSI.DesignPattern.MultiAttributeKeys), so both are lists in DescribeTable's order; `tables --format json`
/// writes them as `partition_keys` (one name or more) and `sort_keys` (empty without a sort key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexInfo {
    pub name: String,
    /// The `HASH` attributes, in order (hashed together when there are several).
    pub partition_keys: Vec<String>,
    /// The `RANGE` attributes, in order.
    pub sort_keys: Vec<String>,
    /// `ALL`, `KEYS_ONLY` or `INCLUDE` (empty when the description has none).
    pub projection: String,
    /// The attributes an `INCLUDE` projection adds.
    pub included: Vec<String>,
}

/// What DescribeTable says about a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableInfo {
    pub name: String,
    pub status: String,
    pub partition_key: KeyAttribute,
    pub sort_key: Option<KeyAttribute>,
    pub billing: Billing,
    /// As reported; DynamoDB updates it about every six hours.
    pub item_count: Option<i64>,
    /// As reported; DynamoDB updates it about every six hours.
    pub size_bytes: Option<i64>,
    pub local_indexes: Vec<IndexInfo>,
    pub global_indexes: Vec<IndexInfo>,
    /// The table's stream (`LatestStreamArn`), when streams are on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_arn: Option<String>,
}

impl TableInfo {
    /// `pk (S), sk (N)`.
    pub fn describe_keys(&self) -> String {
        let pk = format!(
            "{} ({})",
            self.partition_key.name, self.partition_key.key_type
        );
        match &self.sort_key {
            Some(sk) => format!("{pk}, sort key {} ({})", sk.name, sk.key_type),
            None => pk,
        }
    }
}
