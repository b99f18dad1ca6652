//! A table's (or index's) CloudWatch minutes and Contributor Insights reports, read-only
//! (DYNAMODB-TRAFFIC "CloudWatch", "Contributor Insights for DynamoDB" \[AWS\]): GetMetricData for the
//! per-minute sums of `ConsumedReadCapacityUnits`, `ConsumedWriteCapacityUnits`, `ReadThrottleEvents`,
//! `WriteThrottleEvents`, `ThrottledRequests` and the eight throttle-reason metrics
//! (`WriteKeyRangeThroughputThrottleEvents`, …), and the averages of the provisioned capacity;
//! DescribeContributorInsights, and when it is on, GetInsightRuleReport for each of its rules.
//!
//! What was read is also written as the documents `aws cloudwatch get-metric-data` and `get-insight-rule-report`
//! print ([`MetricsRead::documents`]), so a replay reads it with the same code as saved files.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::error::DynamoError;
use crate::model::trace::{Dim, iso};
use crate::source::Message;

/// The metrics read, with the statistic asked for each (DYNAMODB-TRAFFIC "CloudWatch" \[AWS\]), and the
/// eight throttle-reason metrics (DYNAMODB-TRAFFIC "Throttling by its reason (2025)" \[AWS\]; developer guide
/// "DynamoDB Metrics and dimensions", <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html>),
/// in [`ReasonMetric::ALL`](crate::model::capacity::ReasonMetric::ALL)'s order.
pub const METRICS: [(&str, &str); 15] = [
    ("ConsumedReadCapacityUnits", "Sum"),
    ("ConsumedWriteCapacityUnits", "Sum"),
    ("ReadThrottleEvents", "Sum"),
    ("WriteThrottleEvents", "Sum"),
    ("ThrottledRequests", "Sum"),
    ("ProvisionedReadCapacityUnits", "Average"),
    ("ProvisionedWriteCapacityUnits", "Average"),
    ("ReadProvisionedThroughputThrottleEvents", "Sum"),
    ("ReadAccountLimitThrottleEvents", "Sum"),
    ("ReadKeyRangeThroughputThrottleEvents", "Sum"),
    ("ReadMaxOnDemandThroughputThrottleEvents", "Sum"),
    ("WriteProvisionedThroughputThrottleEvents", "Sum"),
    ("WriteAccountLimitThrottleEvents", "Sum"),
    ("WriteKeyRangeThroughputThrottleEvents", "Sum"),
    ("WriteMaxOnDemandThroughputThrottleEvents", "Sum"),
];

/// Where the reason metrics start in [`METRICS`].
pub const FIRST_REASON_METRIC: usize = 7;

/// The field of a metric of [`METRICS`] in `shardlens metrics`'s JSON minutes: `consumed_read_units`, …,
/// and each reason metric by the snake case of its name (`write_key_range_throughput_throttle_events`).
pub fn metric_field(i: usize) -> String {
    const FIELDS: [&str; FIRST_REASON_METRIC] = [
        "consumed_read_units",
        "consumed_write_units",
        "read_throttle_events",
        "write_throttle_events",
        "throttled_requests",
        "provisioned_read_units",
        "provisioned_write_units",
    ];
    match FIELDS.get(i) {
        Some(f) => (*f).to_owned(),
        None => crate::model::capacity::ReasonMetric::ALL
            .get(i - FIRST_REASON_METRIC)
            .map(|m| m.snake_name())
            .unwrap_or_default(),
    }
}

/// Rules' top contributors asked for (GetInsightRuleReport allows up to 100).
#[cfg_attr(
    target_arch = "wasm32",
    allow(dead_code, reason = "asked by the SDK's client only")
)]
pub(super) const MAX_CONTRIBUTORS: i32 = 50;

/// What to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsOptions {
    pub table: String,
    /// A global secondary index instead of the table.
    pub index: Option<String>,
    /// The window, Unix seconds (`until` excluded).
    pub since: i64,
    pub until: i64,
}

/// Contributor Insights for the table: on, off, or not to be asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Insights {
    /// On, with these rules (each read into a report).
    Enabled(Vec<String>),
    /// Off (or being turned on or off): the status DynamoDB gave.
    Off(String),
    /// The endpoint does not offer it, or these credentials may not ask: why.
    NotAvailable(String),
}

/// Contributor Insights' mode, from DescribeContributorInsights (DYNAMODB-TRAFFIC "Contributor Insights modes
/// (2025)" \[AWS\]; developer guide "contributorinsights_HowItWorks").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InsightsMode {
    /// `ACCESSED_AND_THROTTLED_KEYS`: every request is counted; the PKC/SKC (most accessed) and PKT/SKT (most
    /// throttled) rules.
    AccessedAndThrottledKeys,
    /// `THROTTLED_KEYS`: only throttled requests are counted; only the PKT/SKT rules exist.
    ThrottledKeys,
    /// A mode this build does not know, by DynamoDB's name.
    Other(String),
}

impl InsightsMode {
    /// From DynamoDB's name.
    pub fn from_name(name: &str) -> Self {
        match name {
            "ACCESSED_AND_THROTTLED_KEYS" => Self::AccessedAndThrottledKeys,
            "THROTTLED_KEYS" => Self::ThrottledKeys,
            other => Self::Other(other.to_owned()),
        }
    }

    /// DynamoDB's name.
    pub fn as_str(&self) -> &str {
        match self {
            Self::AccessedAndThrottledKeys => "ACCESSED_AND_THROTTLED_KEYS",
            Self::ThrottledKeys => "THROTTLED_KEYS",
            Self::Other(name) => name,
        }
    }

    /// The mode in words, with what its rules give.
    pub fn describe(&self) -> String {
        match self {
            Self::AccessedAndThrottledKeys => {
                "accessed and throttled keys (most accessed and most throttled keys)".to_owned()
            }
            Self::ThrottledKeys => {
                "throttled keys only (most throttled keys; no most accessed keys)".to_owned()
            }
            Self::Other(name) => format!("{name} (a mode shardlens does not know)"),
        }
    }
}

/// What turning Contributor Insights on costs, in words (shardlens never turns it on: its owner does).
pub const INSIGHTS_COST: &str = "CloudWatch bills Contributor Insights for DynamoDB per rule and month and per \
    event its rules count; in THROTTLED_KEYS mode only throttled requests are counted, so it costs much less \
    on a table that seldom throttles (https://aws.amazon.com/cloudwatch/pricing/; modes: \
    https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/contributorinsights_HowItWorks.html)";

/// What CloudWatch holds for the window.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsRead {
    /// Each metric of [`METRICS`] by its name: (Unix second of the minute, value), oldest first.
    pub series: BTreeMap<&'static str, Vec<(i64, f64)>>,
    pub insights: Insights,
    /// Contributor Insights' mode, when DescribeContributorInsights said one.
    pub insights_mode: Option<InsightsMode>,
    /// `get-insight-rule-report` documents, each with its `RuleName`.
    pub reports: Vec<Value>,
    /// What a reader should know (Contributor Insights off or not available, a rule that failed).
    pub notes: Vec<Message>,
}

impl MetricsRead {
    /// The larger side of the consumed units over the window: what Contributor Insights' counts are taken as
    /// when not said (**\[ours\]**: a rule counts reads and writes together).
    pub fn larger_side(&self) -> Dim {
        let sum = |name: &str| {
            self.series
                .get(name)
                .map_or(0.0, |p| p.iter().map(|(_, v)| v).sum::<f64>())
        };
        if sum("ConsumedReadCapacityUnits") > sum("ConsumedWriteCapacityUnits") {
            Dim::Read
        } else {
            Dim::Write
        }
    }

    /// [`Self::documents`] with each report saying what its counts are (`CountsAre`, shardlens' own field:
    /// `counts_are`, else [`Self::larger_side`]), so that a replay needs no option to read them.
    pub fn trace_documents(&self, counts_are: Option<Dim>) -> Vec<Value> {
        let dim = counts_are.unwrap_or_else(|| self.larger_side());
        let mut docs = self.documents();
        for d in docs.iter_mut().skip(1) {
            d["CountsAre"] = json!(if dim == Dim::Read { "reads" } else { "writes" });
        }
        docs
    }

    /// [`Self::trace_documents`] as a trace file's bytes: one JSON value a line.
    pub fn trace_bytes(&self, counts_are: Option<Dim>) -> Vec<u8> {
        let mut out = Vec::new();
        for d in self.trace_documents(counts_are) {
            if serde_json::to_writer(&mut out, &d).is_ok() {
                out.push(b'\n');
            }
        }
        out
    }

    /// What was read as the documents the AWS CLI prints: one `get-metric-data` output, then one
    /// `get-insight-rule-report` output per rule. A trace file, one JSON value after another.
    pub fn documents(&self) -> Vec<Value> {
        let results: Vec<Value> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (name, points))| {
                json!({
                    "Id": format!("m{i}"),
                    "Label": name,
                    "Timestamps": points.iter().map(|(t, _)| iso(*t)).collect::<Vec<_>>(),
                    "Values": points.iter().map(|(_, v)| *v).collect::<Vec<_>>(),
                    "StatusCode": "Complete",
                })
            })
            .collect();
        let mut docs = vec![json!({ "MetricDataResults": results, "Messages": [] })];
        docs.extend(self.reports.iter().cloned());
        docs
    }
}

/// Why Contributor Insights could not be asked (DescribeContributorInsights failed), said of Contributor
/// Insights. It is asked after DescribeTable and GetMetricData were answered, so the server serves DynamoDB
/// (a local one, dynalite or moto, served the table and its stream): an answer without an error code, or an
/// operation it does not know, means this endpoint does not support Contributor Insights; the error's own
/// words ("does it serve DynamoDB?") would doubt the server that just answered.
#[cfg_attr(
    target_arch = "wasm32",
    allow(dead_code, reason = "said of the SDK's client's errors only")
)]
pub(crate) fn insights_unavailable(error: &DynamoError) -> String {
    let unsupported = |code: &str, message: &str| {
        let (code, message) = (code.to_ascii_lowercase(), message.to_ascii_lowercase());
        [
            "unknownoperation",
            "unsupported",
            "notimplemented",
            "invalidaction",
        ]
        .iter()
        .any(|c| code.contains(c))
            || [
                "not implemented",
                "not yet implemented",
                "not supported",
                "unknown operation",
            ]
            .iter()
            .any(|m| message.contains(m))
    };
    match error {
        DynamoError::Unreadable {
            status, endpoint, ..
        } => {
            let at = endpoint
                .as_deref()
                .map_or_else(String::new, |e| format!(" at {e}"));
            format!(
                "the server{at} does not support it (it answered DescribeContributorInsights with HTTP {status} \
                 and no error code)"
            )
        }
        DynamoError::Service { code, message, .. } if unsupported(code, message) => format!(
            "the server does not support it (DescribeContributorInsights: {code}: {message})"
        ),
        DynamoError::Service { code, message, .. }
            if code.contains("AccessDenied") || code.contains("UnauthorizedOperation") =>
        {
            format!("these credentials may not ask whether it is on ({code}: {message})")
        }
        other => format!("asking whether it is on failed ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::ReasonMetric;

    #[test]
    fn the_reason_metrics_are_read_by_their_cloudwatch_names() {
        for (i, m) in ReasonMetric::ALL.into_iter().enumerate() {
            assert_eq!(METRICS[FIRST_REASON_METRIC + i], (m.name(), "Sum"));
            assert_eq!(metric_field(FIRST_REASON_METRIC + i), m.snake_name());
        }
        assert_eq!(metric_field(3), "write_throttle_events");
    }

    #[test]
    fn insights_modes_are_read_by_dynamodbs_names() {
        for name in [
            "ACCESSED_AND_THROTTLED_KEYS",
            "THROTTLED_KEYS",
            "SOMETHING_NEW",
        ] {
            assert_eq!(InsightsMode::from_name(name).as_str(), name);
        }
        assert_eq!(
            InsightsMode::from_name("THROTTLED_KEYS"),
            InsightsMode::ThrottledKeys
        );
        assert!(
            InsightsMode::ThrottledKeys
                .describe()
                .contains("no most accessed keys")
        );
        assert!(INSIGHTS_COST.contains("contributorinsights_HowItWorks"));
    }

    /// A local server that just served the table and its stream is not asked whether it serves DynamoDB:
    /// what is missing is Contributor Insights.
    #[test]
    fn an_endpoint_without_insights_is_said_so_without_doubting_it_serves_dynamodb() {
        let unreadable = DynamoError::Unreadable {
            operation: "DescribeContributorInsights",
            status: 400,
            endpoint: Some("http://localhost:4567".to_owned()),
        };
        let said = insights_unavailable(&unreadable);
        assert!(
            !said.contains("serves DynamoDB") && !said.contains("serve DynamoDB?"),
            "{said}"
        );
        assert!(said.contains("does not support it"), "{said}");
        assert!(said.contains("http://localhost:4567"), "{said}");
        let unknown = DynamoError::Service {
            operation: "DescribeContributorInsights",
            code: "UnknownOperationException".to_owned(),
            message: "no message".to_owned(),
        };
        assert!(insights_unavailable(&unknown).contains("does not support it"));
        let moto = DynamoError::Service {
            operation: "DescribeContributorInsights",
            code: "NotImplementedError".to_owned(),
            message: "The describe_contributor_insights action has not been implemented".to_owned(),
        };
        assert!(insights_unavailable(&moto).contains("does not support it"));
        let denied = DynamoError::Service {
            operation: "DescribeContributorInsights",
            code: "AccessDeniedException".to_owned(),
            message: "not authorized".to_owned(),
        };
        assert!(insights_unavailable(&denied).contains("may not ask"));
    }
}
