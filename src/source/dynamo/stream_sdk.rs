//! The stream's API through the SDK (`aws-sdk-dynamodbstreams`): DescribeStream, GetShardIterator and
//! GetRecords, the only Streams calls shardlens makes, and [`DynamoClient::stream`], which reads a table's
//! stream with them. Records become the JSON `aws dynamodbstreams
//! get-records` prints ([`record_json`]), so the trace readers read them as they read a saved file.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::types::{
    AttributeValue, OperationType, Record, ShardIteratorType, StreamStatus,
};
use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::client::DynamoClient;
use super::error::{DynamoError, SentCredentials};
use super::stream::{
    IteratorAt, RecordsPage, ShardInfo, StreamApi, StreamEvent, StreamOptions, StreamRead,
    StreamRecord, run_stream,
};
use super::table::TableInfo;

impl DynamoClient {
    /// Reads the table's stream (see [`StreamOptions`]): DescribeTable for its `LatestStreamArn`, then every
    /// shard, calling `on_event` with the records as they arrive. `Err` only when nothing could be read (no
    /// such table, no stream, no connection at the start); later failures end the read with
    /// [`super::StreamStatus::Failed`] and the records read so far.
    pub fn stream(
        &self,
        opts: &StreamOptions,
        cancel: &AtomicBool,
        on_event: &mut dyn FnMut(StreamEvent),
    ) -> Result<(TableInfo, StreamRead), DynamoError> {
        let info = self.describe_table(&opts.table)?;
        let read = self.stream_of(&info, opts, cancel, on_event)?;
        Ok((info, read))
    }

    /// [`Self::stream`] of a table already described (`info`, whose name is read).
    pub fn stream_of(
        &self,
        info: &TableInfo,
        opts: &StreamOptions,
        cancel: &AtomicBool,
        on_event: &mut dyn FnMut(StreamEvent),
    ) -> Result<StreamRead, DynamoError> {
        self.block_on(async {
            let arn = info
                .stream_arn
                .clone()
                .ok_or_else(|| DynamoError::NoStream {
                    table: info.name.clone(),
                })?;
            let (timeout, sent, target) = self.err_context();
            let api = Arc::new(SdkStream {
                client: self.streams.clone(),
                arn,
                timeout,
                sent,
                target,
            });
            // The first DescribeStream decides whether anything can be read at all.
            api.shards().await?;
            Ok(run_stream(api, opts, cancel, on_event).await)
        })
    }
}

/// One stream, read through the SDK.
pub(super) struct SdkStream {
    pub client: Client,
    pub arn: String,
    pub timeout: Duration,
    pub sent: SentCredentials,
    pub target: String,
}

impl SdkStream {
    fn err<E>(
        &self,
        operation: &'static str,
        e: &aws_sdk_dynamodbstreams::error::SdkError<
            E,
            aws_sdk_dynamodbstreams::config::http::HttpResponse,
        >,
    ) -> DynamoError
    where
        E: aws_sdk_dynamodbstreams::error::ProvideErrorMetadata + std::error::Error + 'static,
    {
        DynamoError::from_sdk(operation, e, self.timeout, Some(&self.target), None)
            .scrubbed(&self.sent)
    }
}

impl StreamApi for SdkStream {
    async fn shards(&self) -> Result<Vec<ShardInfo>, DynamoError> {
        let mut shards = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let out = self
                .client
                .describe_stream()
                .stream_arn(&self.arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| self.err("DescribeStream", &e))?;
            let Some(d) = out.stream_description() else {
                return Ok(shards);
            };
            for s in d.shards() {
                let Some(id) = s.shard_id() else { continue };
                shards.push(ShardInfo {
                    id: id.to_owned(),
                    parent: s.parent_shard_id().map(str::to_owned),
                    closed: s
                        .sequence_number_range()
                        .is_some_and(|r| r.ending_sequence_number().is_some()),
                });
            }
            match d.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_owned()),
                None => return Ok(shards),
            }
        }
    }

    async fn enabled(&self) -> Result<bool, DynamoError> {
        let out = self
            .client
            .describe_stream()
            .stream_arn(&self.arn)
            .limit(1)
            .send()
            .await
            .map_err(|e| self.err("DescribeStream", &e))?;
        Ok(out
            .stream_description()
            .and_then(|d| d.stream_status())
            .is_some_and(|s| matches!(s, StreamStatus::Enabled | StreamStatus::Enabling)))
    }

    async fn iterator(&self, shard: &str, at: &IteratorAt) -> Result<String, DynamoError> {
        let (kind, seq) = match at {
            IteratorAt::Latest => (ShardIteratorType::Latest, None),
            IteratorAt::TrimHorizon => (ShardIteratorType::TrimHorizon, None),
            IteratorAt::After(seq) => (ShardIteratorType::AfterSequenceNumber, Some(seq.clone())),
        };
        let out = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.arn)
            .shard_id(shard)
            .shard_iterator_type(kind)
            .set_sequence_number(seq)
            .send()
            .await
            .map_err(|e| self.err("GetShardIterator", &e))?;
        out.shard_iterator()
            .map(str::to_owned)
            .ok_or_else(|| DynamoError::Other {
                operation: "GetShardIterator",
                reason: format!("the answer has no iterator for shard {shard}"),
            })
    }

    async fn records(&self, iterator: &str) -> Result<RecordsPage, DynamoError> {
        let out = self
            .client
            .get_records()
            .shard_iterator(iterator)
            .send()
            .await
            .map_err(|e| self.err("GetRecords", &e))?;
        let records = out
            .records()
            .iter()
            .map(|r| StreamRecord {
                sequence: r
                    .dynamodb()
                    .and_then(|d| d.sequence_number())
                    .unwrap_or_default()
                    .to_owned(),
                json: record_json(r),
            })
            .collect();
        Ok(RecordsPage {
            records,
            next: out.next_shard_iterator().map(str::to_owned),
        })
    }
}

/// A record as `aws dynamodbstreams get-records` prints it (DYNAMODB-TRAFFIC "DynamoDB Streams" \[AWS\]):
/// `ApproximateCreationDateTime` in epoch seconds, attribute values in DynamoDB JSON (`{"S": …}`), binary as
/// base64.
pub(super) fn record_json(r: &Record) -> Value {
    let mut out = Map::new();
    let mut put = |k: &str, v: Option<&str>| {
        if let Some(v) = v {
            out.insert(k.to_owned(), Value::String(v.to_owned()));
        }
    };
    put("eventID", r.event_id());
    put("eventName", r.event_name().map(OperationType::as_str));
    put("eventVersion", r.event_version());
    put("eventSource", r.event_source());
    put("awsRegion", r.aws_region());
    if let Some(d) = r.dynamodb() {
        let mut dd = Map::new();
        if let Some(t) = d.approximate_creation_date_time() {
            let secs = t.secs() as f64 + f64::from(t.subsec_nanos()) / 1e9;
            dd.insert("ApproximateCreationDateTime".into(), json!(secs));
        }
        for (name, image) in [
            ("Keys", d.keys()),
            ("NewImage", d.new_image()),
            ("OldImage", d.old_image()),
        ] {
            if let Some(image) = image {
                dd.insert(name.into(), item_json(image));
            }
        }
        if let Some(s) = d.sequence_number() {
            dd.insert("SequenceNumber".into(), json!(s));
        }
        if let Some(s) = d.size_bytes() {
            dd.insert("SizeBytes".into(), json!(s));
        }
        if let Some(v) = d.stream_view_type() {
            dd.insert("StreamViewType".into(), json!(v.as_str()));
        }
        out.insert("dynamodb".into(), Value::Object(dd));
    }
    if let Some(u) = r.user_identity() {
        out.insert(
            "userIdentity".into(),
            json!({ "type": u.r#type(), "principalId": u.principal_id() }),
        );
    }
    Value::Object(out)
}

fn item_json(item: &HashMap<String, AttributeValue>) -> Value {
    Value::Object(
        item.iter()
            .map(|(k, v)| (k.clone(), value_json(v)))
            .collect(),
    )
}

fn value_json(v: &AttributeValue) -> Value {
    let b64 = |b: &aws_sdk_dynamodbstreams::primitives::Blob| {
        Value::String(base64::engine::general_purpose::STANDARD.encode(b.as_ref()))
    };
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b) }),
        AttributeValue::Ss(v) => json!({ "SS": v }),
        AttributeValue::Ns(v) => json!({ "NS": v }),
        AttributeValue::Bs(v) => json!({ "BS": v.iter().map(b64).collect::<Vec<_>>() }),
        AttributeValue::M(m) => json!({ "M": item_json(m) }),
        AttributeValue::L(l) => json!({ "L": l.iter().map(value_json).collect::<Vec<_>>() }),
        AttributeValue::Null(b) => json!({ "NULL": b }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        // A type newer than this SDK: kept as nothing rather than guessed.
        _ => json!({ "NULL": true }),
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodbstreams::primitives::{Blob, DateTime};
    use aws_sdk_dynamodbstreams::types::{Identity, StreamRecord as SdkRecord};

    use super::*;

    #[test]
    fn records_print_as_the_cli_prints_them() {
        let keys = HashMap::from([("pk".to_owned(), AttributeValue::S("BOARD#1".into()))]);
        let image = HashMap::from([
            ("pk".to_owned(), AttributeValue::S("BOARD#1".into())),
            ("n".to_owned(), AttributeValue::N("12.50".into())),
            ("b".to_owned(), AttributeValue::B(Blob::new(vec![1, 2, 3]))),
            (
                "m".to_owned(),
                AttributeValue::M(HashMap::from([(
                    "l".to_owned(),
                    AttributeValue::L(vec![
                        AttributeValue::Bool(true),
                        AttributeValue::Ss(vec!["a".into()]),
                    ]),
                )])),
            ),
        ]);
        let r = Record::builder()
            .event_id("e1")
            .event_name(OperationType::Remove)
            .dynamodb(
                SdkRecord::builder()
                    .approximate_creation_date_time(DateTime::from_secs_f64(1_700_000_000.5))
                    .set_keys(Some(keys))
                    .set_old_image(Some(image))
                    .sequence_number("100")
                    .size_bytes(42)
                    .build(),
            )
            .user_identity(
                Identity::builder()
                    .r#type("Service")
                    .principal_id("dynamodb.amazonaws.com")
                    .build(),
            )
            .build();
        let v = record_json(&r);
        assert_eq!(v["eventName"], "REMOVE");
        assert_eq!(
            v["dynamodb"]["ApproximateCreationDateTime"],
            1_700_000_000.5
        );
        assert_eq!(v["dynamodb"]["Keys"]["pk"]["S"], "BOARD#1");
        assert_eq!(v["dynamodb"]["OldImage"]["n"]["N"], "12.50");
        assert_eq!(v["dynamodb"]["OldImage"]["b"]["B"], "AQID");
        assert_eq!(
            v["dynamodb"]["OldImage"]["m"]["M"]["l"]["L"][1]["SS"][0],
            "a"
        );
        assert_eq!(v["userIdentity"]["principalId"], "dynamodb.amazonaws.com");
        assert_eq!(v["dynamodb"]["SequenceNumber"], "100");
    }
}
