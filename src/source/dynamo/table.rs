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
    /// The table's on-demand maximum and warm throughput (`OnDemandThroughput`, `WarmThroughput`).
    #[serde(skip_serializing_if = "Throughput::is_empty")]
    pub throughput: Throughput,
    /// Each global secondary index's, by the index's name (only the indexes that have some).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub index_throughput: std::collections::BTreeMap<String, Throughput>,
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

/// A table's or global secondary index's throughput as DescribeTable gives it beside the billing
/// (DYNAMODB-TRAFFIC "The table as it is" \[AWS\]): the on-demand maximum (`OnDemandThroughput`:
/// `MaxReadRequestUnits`, `MaxWriteRequestUnits`; -1 or absent is none) and the warm throughput
/// (`WarmThroughput`: `ReadUnitsPerSecond`, `WriteUnitsPerSecond`, `Status`), what the table serves at once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Throughput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_read_units: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_write_units: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_read_units: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_write_units: Option<i64>,
    /// The warm throughput's status (`ACTIVE`, `UPDATING`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_status: Option<String>,
}

impl Throughput {
    /// A maximum as DescribeTable gives it: a positive number, else none (-1 removes it, 0 is not one).
    pub fn maximum(units: Option<i64>) -> Option<i64> {
        units.filter(|&u| u > 0)
    }

    /// Nothing said: no maximum and no warm throughput.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// The partitions the warm throughput implies at least, ⌈writes / 1,000⌉ and ⌈reads / 3,000⌉, the larger
    /// (**\[ours\]**: an inference from a partition's 1,000 write and 3,000 read units a second; DynamoDB does
    /// not say how warm throughput maps to partitions).
    pub fn implied_partitions(&self) -> Option<u64> {
        let per = |units: Option<i64>, limit: u64| {
            units.filter(|&u| u > 0).map(|u| (u as u64).div_ceil(limit))
        };
        match (
            per(self.warm_read_units, 3_000),
            per(self.warm_write_units, 1_000),
        ) {
            (None, None) => None,
            (r, w) => Some(r.unwrap_or(0).max(w.unwrap_or(0))),
        }
    }

    /// "at most 100 reads and 25 writes a second; warm 12,000 reads and 4,000 writes a second (ACTIVE)";
    /// empty when nothing is said.
    pub fn describe(&self) -> String {
        use crate::model::fmt::grouped;
        let pair = |r: Option<i64>, w: Option<i64>| {
            let r = r.map(|r| format!("{} reads", grouped(r.max(0) as u64)));
            let w = w.map(|w| format!("{} writes", grouped(w.max(0) as u64)));
            match (r, w) {
                (Some(r), Some(w)) => Some(format!("{r} and {w} a second")),
                (Some(x), None) | (None, Some(x)) => Some(format!("{x} a second")),
                (None, None) => None,
            }
        };
        let mut parts = Vec::new();
        if let Some(max) = pair(
            Self::maximum(self.max_read_units),
            Self::maximum(self.max_write_units),
        ) {
            parts.push(format!("at most {max}"));
        }
        if let Some(warm) = pair(self.warm_read_units, self.warm_write_units) {
            let status = self
                .warm_status
                .as_deref()
                .map_or_else(String::new, |s| format!(" ({s})"));
            parts.push(format!("warm {warm}{status}"));
        }
        parts.join("; ")
    }
}

impl TableInfo {
    /// The billing with the on-demand maximum and warm throughput: "on-demand; at most 25 writes a second; warm
    /// 12,000 reads and 4,000 writes a second (ACTIVE)".
    pub fn describe_capacity(&self) -> String {
        let more = self.throughput.describe();
        if more.is_empty() {
            self.billing.to_string()
        } else {
            format!("{}; {more}", self.billing)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Throughput {
        Throughput {
            max_read_units: None,
            max_write_units: Some(25),
            warm_read_units: Some(12_000),
            warm_write_units: Some(4_500),
            warm_status: Some("ACTIVE".into()),
        }
    }

    #[test]
    fn throughput_is_said_with_its_maximum_and_warm_units() {
        assert_eq!(
            facts().describe(),
            "at most 25 writes a second; warm 12,000 reads and 4,500 writes a second (ACTIVE)"
        );
        assert_eq!(Throughput::default().describe(), "");
        assert!(Throughput::default().is_empty());
        // -1 (DynamoDB's "no maximum") and 0 are no maximum.
        assert_eq!(Throughput::maximum(Some(-1)), None);
        assert_eq!(Throughput::maximum(Some(0)), None);
        assert_eq!(Throughput::maximum(Some(100)), Some(100));
    }

    #[test]
    fn warm_throughput_implies_partitions_by_the_per_partition_limits() {
        // ⌈4,500 / 1,000⌉ = 5 beats ⌈12,000 / 3,000⌉ = 4.
        assert_eq!(facts().implied_partitions(), Some(5));
        let reads = Throughput {
            warm_read_units: Some(30_001),
            ..Throughput::default()
        };
        assert_eq!(reads.implied_partitions(), Some(11));
        assert_eq!(Throughput::default().implied_partitions(), None);
    }
}
