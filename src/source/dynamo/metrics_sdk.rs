//! [`DynamoClient::metrics`]: the CloudWatch and Contributor Insights calls that fill a [`MetricsRead`]
//! (see `metrics.rs`). Desktop and CLI only, as the SDK is.

use std::collections::BTreeMap;

use aws_sdk_cloudwatch::primitives::DateTime;
use aws_sdk_cloudwatch::types::{
    Dimension, Metric as CwMetric, MetricDataQuery, MetricStat, ScanBy,
};
use aws_sdk_dynamodb::types::ContributorInsightsStatus;
use serde_json::{Value, json};

use super::client::DynamoClient;
use super::error::DynamoError;
use super::metrics::{
    INSIGHTS_COST, Insights, InsightsMode, MAX_CONTRIBUTORS, METRICS, MetricsOptions, MetricsRead,
    insights_unavailable,
};
use crate::model::trace::iso;
use crate::source::{Hint, Message};

impl DynamoClient {
    /// Reads the window's minutes from CloudWatch, then Contributor Insights (see the module docs).
    /// Contributor Insights being off or unavailable is a note, not an error.
    pub fn metrics(&self, opts: &MetricsOptions) -> Result<MetricsRead, DynamoError> {
        self.block_on(async {
            let series = self.metric_data(opts).await?;
            let (insights, insights_mode) = self.insights_status(opts).await;
            let mut read = MetricsRead {
                series,
                insights: insights.clone(),
                insights_mode,
                reports: Vec::new(),
                notes: Vec::new(),
            };
            let what = opts.index.as_ref().map_or_else(
                || opts.table.clone(),
                |i| format!("index {i} of {}", opts.table),
            );
            match insights {
                Insights::Enabled(rules) => {
                    for rule in rules {
                        match self.rule_report(&rule, opts).await {
                            Ok(doc) => read.reports.push(doc),
                            Err(e) => read.notes.push(Message::new(format!(
                                "Contributor Insights rule {rule}: {e}"
                            ))),
                        }
                    }
                }
                Insights::Off(status) => read.notes.push(Message::hinted(
                    format!(
                        "Contributor Insights is {status} for {what}, so there are no top keys: its owner can \
                         turn it on ({INSIGHTS_COST}): "
                    ),
                    Hint::EnableInsights,
                    "",
                )),
                Insights::NotAvailable(why) => read.notes.push(Message::new(format!(
                    "Contributor Insights is not available for {what}: {why}, so there are no top keys (on AWS \
                     a table's owner can turn it on; it is billed: {INSIGHTS_COST})"
                ))),
            }
            Ok(read)
        })
    }

    async fn metric_data(
        &self,
        opts: &MetricsOptions,
    ) -> Result<BTreeMap<&'static str, Vec<(i64, f64)>>, DynamoError> {
        let queries = queries(opts);
        let mut series: BTreeMap<&'static str, Vec<(i64, f64)>> = BTreeMap::new();
        let mut token: Option<String> = None;
        let (timeout, sent, target) = self.err_context();
        loop {
            let out = self
                .cloudwatch
                .get_metric_data()
                .set_metric_data_queries(Some(queries.clone()))
                .start_time(DateTime::from_secs(opts.since))
                .end_time(DateTime::from_secs(opts.until))
                .scan_by(ScanBy::TimestampAscending)
                .set_next_token(token.take())
                .send()
                .await
                .map_err(|e| {
                    DynamoError::from_sdk("GetMetricData", &e, timeout, Some(&target), None)
                        .scrubbed(&sent)
                })?;
            for r in out.metric_data_results() {
                let Some(i) = r
                    .id()
                    .and_then(|id| id.strip_prefix('m'))
                    .and_then(|n| n.parse::<usize>().ok())
                    .filter(|&i| i < METRICS.len())
                else {
                    continue;
                };
                let points = series.entry(METRICS[i].0).or_default();
                for (t, v) in r.timestamps().iter().zip(r.values()) {
                    points.push((t.secs().div_euclid(60) * 60, *v));
                }
            }
            match out.next_token() {
                Some(t) if !t.is_empty() => token = Some(t.to_owned()),
                _ => break,
            }
        }
        for points in series.values_mut() {
            points.sort_by_key(|p| p.0);
            // Two values of one minute (pages that overlap, or a finer period): the minute's sum.
            points.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    kept.1 += later.1;
                }
                same
            });
        }
        Ok(series)
    }

    /// Whether Contributor Insights is on, and its mode when DynamoDB says one.
    async fn insights_status(&self, opts: &MetricsOptions) -> (Insights, Option<InsightsMode>) {
        let out = self
            .dynamodb()
            .describe_contributor_insights()
            .table_name(&opts.table)
            .set_index_name(opts.index.clone())
            .send()
            .await;
        let (timeout, sent, target) = self.err_context();
        match out {
            Ok(o) => {
                let mode = o
                    .contributor_insights_mode()
                    .map(|m| InsightsMode::from_name(m.as_str()));
                let status = match o.contributor_insights_status() {
                    Some(ContributorInsightsStatus::Enabled) => {
                        Insights::Enabled(o.contributor_insights_rule_list().to_vec())
                    }
                    Some(s) => Insights::Off(s.as_str().to_lowercase()),
                    None => Insights::Off("off".to_owned()),
                };
                (status, mode)
            }
            Err(e) => (
                Insights::NotAvailable(insights_unavailable(
                    &DynamoError::from_sdk(
                        "DescribeContributorInsights",
                        &e,
                        timeout,
                        Some(&target),
                        None,
                    )
                    .scrubbed(&sent),
                )),
                None,
            ),
        }
    }

    async fn rule_report(&self, rule: &str, opts: &MetricsOptions) -> Result<Value, DynamoError> {
        let (timeout, sent, target) = self.err_context();
        let out = self
            .cloudwatch
            .get_insight_rule_report()
            .rule_name(rule)
            .start_time(DateTime::from_secs(opts.since))
            .end_time(DateTime::from_secs(opts.until))
            .period(60)
            .max_contributor_count(MAX_CONTRIBUTORS)
            .metrics("Sum")
            .send()
            .await
            .map_err(|e| {
                DynamoError::from_sdk("GetInsightRuleReport", &e, timeout, Some(&target), None)
                    .scrubbed(&sent)
            })?;
        let contributors: Vec<Value> = out
            .contributors()
            .iter()
            .map(|c| {
                json!({
                    "Keys": c.keys(),
                    "ApproximateAggregateValue": c.approximate_aggregate_value(),
                    "Datapoints": c.datapoints().iter().map(|d| json!({
                        "Timestamp": d.timestamp().map(|t| iso(t.secs())),
                        "ApproximateValue": d.approximate_value(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        Ok(json!({
            "RuleName": rule,
            "KeyLabels": out.key_labels(),
            "AggregationStatistic": out.aggregation_statistic(),
            "AggregateValue": out.aggregate_value(),
            "ApproximateUniqueCount": out.approximate_unique_count(),
            "Contributors": contributors,
        }))
    }
}

/// One GetMetricData query per metric of [`METRICS`] (`m0` …), per minute, for the table or its index.
fn queries(opts: &MetricsOptions) -> Vec<MetricDataQuery> {
    let mut dimensions = vec![
        Dimension::builder()
            .name("TableName")
            .value(&opts.table)
            .build(),
    ];
    if let Some(index) = &opts.index {
        dimensions.push(
            Dimension::builder()
                .name("GlobalSecondaryIndexName")
                .value(index)
                .build(),
        );
    }
    METRICS
        .iter()
        .enumerate()
        .map(|(i, (name, stat))| {
            let metric = CwMetric::builder()
                .namespace("AWS/DynamoDB")
                .metric_name(*name)
                .set_dimensions(Some(dimensions.clone()))
                .build();
            MetricDataQuery::builder()
                .id(format!("m{i}"))
                .label(*name)
                .metric_stat(
                    MetricStat::builder()
                        .metric(metric)
                        .period(60)
                        .stat(*stat)
                        .build(),
                )
                .return_data(true)
                .build()
        })
        .collect()
}
