//! Scan pages from the SDK: the [`PageSource`] the parallel scan ([`super::scan::run_scan`]) reads a live
//! table through, asking for the key attributes only and turning each page's keys into canonical bytes.

use std::collections::HashMap;
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};

use super::client::{KeyAttribute, TableInfo};
use super::error::DynamoError;
use super::scan::{Page, PageRequest, PageSource};
use crate::model::KeyType;
use crate::model::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonicalize_into};

/// Scan pages from the SDK: only the key attributes, through `#name` placeholders (reserved words such as
/// `name` or `year` work as key names).
pub(super) struct SdkPages {
    client: Client,
    table: String,
    pk: KeyAttribute,
    sk: Option<KeyAttribute>,
    projection: String,
    names: HashMap<String, String>,
    consistent: bool,
    attempt_timeout: Duration,
    target: String,
}

type Cursor = HashMap<String, AttributeValue>;

impl SdkPages {
    pub(super) fn new(
        client: Client,
        info: &TableInfo,
        sk: Option<&KeyAttribute>,
        consistent: bool,
        attempt_timeout: Duration,
        target: String,
    ) -> Self {
        let mut names = HashMap::from([("#pk".to_owned(), info.partition_key.name.clone())]);
        let mut projection = "#pk".to_owned();
        if let Some(sk) = sk {
            names.insert("#sk".to_owned(), sk.name.clone());
            projection.push_str(", #sk");
        }
        Self {
            client,
            table: info.name.clone(),
            pk: info.partition_key.clone(),
            sk: sk.cloned(),
            projection,
            names,
            consistent,
            attempt_timeout,
            target,
        }
    }

    fn page_of(&self, out: aws_sdk_dynamodb::operation::scan::ScanOutput) -> Page<Cursor> {
        let mut page = Page {
            scanned: u64::try_from(out.scanned_count()).unwrap_or(0),
            consumed_rcu: out
                .consumed_capacity()
                .and_then(aws_sdk_dynamodb::types::ConsumedCapacity::capacity_units)
                .unwrap_or(0.0),
            ..Page::default()
        };
        let mut buf = Vec::new();
        for item in out.items() {
            let pk = canonical(
                item.get(&self.pk.name),
                self.pk.key_type,
                MAX_PARTITION_KEY_BYTES,
                &mut buf,
            );
            let Some(pk) = pk else {
                page.skipped += 1;
                continue;
            };
            let sk = self.sk.as_ref().and_then(|sk| {
                canonical(
                    item.get(&sk.name),
                    sk.key_type,
                    MAX_SORT_KEY_BYTES,
                    &mut buf,
                )
            });
            page.keys.push((pk, sk));
        }
        page.next = out.last_evaluated_key.filter(|k| !k.is_empty());
        page
    }
}

/// The canonical bytes of a key attribute, as the model computes them from text: strings as they are,
/// numbers through [`canonicalize_into`] (so `1`, `1.0` and `1E0` agree), binary as its bytes.
fn canonical(
    value: Option<&AttributeValue>,
    ty: KeyType,
    max: usize,
    buf: &mut Vec<u8>,
) -> Option<Vec<u8>> {
    match (value?, ty) {
        (AttributeValue::S(s), KeyType::S) => {
            canonicalize_into(s.as_bytes(), KeyType::S, max, buf).ok()?;
            Some(buf.clone())
        }
        (AttributeValue::N(n), KeyType::N) => {
            canonicalize_into(n.as_bytes(), KeyType::N, max, buf).ok()?;
            Some(buf.clone())
        }
        (AttributeValue::B(b), KeyType::B) => {
            let bytes = b.as_ref();
            (!bytes.is_empty() && bytes.len() <= max).then(|| bytes.to_vec())
        }
        _ => None,
    }
}

impl PageSource for SdkPages {
    type Cursor = Cursor;

    fn page(
        &self,
        req: PageRequest<Cursor>,
    ) -> impl Future<Output = Result<Page<Cursor>, DynamoError>> + Send {
        let mut request = self
            .client
            .scan()
            .table_name(&self.table)
            .projection_expression(&self.projection)
            .set_expression_attribute_names(Some(self.names.clone()))
            .select(Select::SpecificAttributes)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .consistent_read(self.consistent)
            .set_exclusive_start_key(req.start);
        if req.total_segments > 1 {
            request = request
                .segment(i32::try_from(req.segment).unwrap_or(0))
                .total_segments(i32::try_from(req.total_segments).unwrap_or(1));
        }
        if let Some(limit) = req.limit {
            request = request.limit(i32::try_from(limit).unwrap_or(i32::MAX));
        }
        async move {
            // Retries are ours (the scan loop backs off on throttling), so the SDK sends each page once.
            let sent = request
                .customize()
                .config_override(
                    aws_sdk_dynamodb::config::Config::builder()
                        .retry_config(RetryConfig::standard().with_max_attempts(1)),
                )
                .send()
                .await;
            match sent {
                Ok(out) => Ok(self.page_of(out)),
                Err(e) => Err(DynamoError::from_sdk(
                    "Scan",
                    &e,
                    self.attempt_timeout,
                    Some(&self.target),
                    Some(&self.table),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_attributes_canonicalise_like_the_model() {
        let mut buf = Vec::new();
        let n = |s: &str| AttributeValue::N(s.into());
        assert_eq!(
            canonical(Some(&n("1.0")), KeyType::N, 2048, &mut buf),
            canonical(Some(&n("1")), KeyType::N, 2048, &mut buf)
        );
        assert_eq!(
            canonical(Some(&n("10")), KeyType::N, 2048, &mut buf).unwrap(),
            crate::model::key::canonical_partition_key(b"1E1", KeyType::N).unwrap()
        );
        let b = AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![0u8, 255]));
        assert_eq!(
            canonical(Some(&b), KeyType::B, 2048, &mut buf).unwrap(),
            vec![0u8, 255]
        );
        assert_eq!(canonical(Some(&b), KeyType::S, 2048, &mut buf), None);
        assert_eq!(canonical(None, KeyType::S, 2048, &mut buf), None);
    }
}
