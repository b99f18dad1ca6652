//! Scan pages from the SDK: the [`PageSource`] the parallel scan ([`super::scan::run_scan`]) reads a live
//! table through, asking for the key attributes only (and the attributes a key design reads), turning each
//! page's keys into canonical bytes and the design's attributes into [`Value`]s.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};

use super::error::{DynamoError, SentCredentials};
use super::scan::{ItemFacts, Page, PageRequest, PageSource};
use super::table::{KeyAttribute, TableInfo};
use crate::model::KeyType;
use crate::model::health::ttl::{TtlValue, looks_like_ttl};
use crate::model::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonicalize_into};
use crate::model::keyexpr::Value;

/// Scan pages from the SDK: only the key attributes and a design's top-level attributes, through `#name`
/// placeholders (reserved words such as `name` or `year` work as attribute names).
pub(super) struct SdkPages {
    client: Client,
    table: String,
    pk: KeyAttribute,
    sk: Option<KeyAttribute>,
    /// The design's top-level attributes ([`crate::model::design::Design::roots`]), read into
    /// [`Page::values`].
    roots: Vec<String>,
    projection: String,
    names: HashMap<String, String>,
    consistent: bool,
    attempt_timeout: Duration,
    target: String,
    /// The client's record of the credentials sent, scrubbed from error messages.
    sent: SentCredentials,
    /// Read whole items and size them ([`super::ScanOptions::item_sizes`]).
    whole: bool,
    /// The TTL attribute: given or described before the scan, else guessed from the first whole item read.
    ttl: OnceLock<Option<Arc<str>>>,
}

type Cursor = HashMap<String, AttributeValue>;

impl SdkPages {
    /// Pages of `info`'s table with its partition key, `sk` when given, and `roots`.
    pub(super) fn new(
        client: Client,
        info: &TableInfo,
        (sk, roots): (Option<&KeyAttribute>, Vec<String>),
        consistent: bool,
        (attempt_timeout, sent): (Duration, SentCredentials),
        target: String,
    ) -> Self {
        let (projection, names) = projection(&info.partition_key, sk, &roots);
        Self {
            whole: false,
            ttl: OnceLock::new(),
            client,
            table: info.name.clone(),
            pk: info.partition_key.clone(),
            sk: sk.cloned(),
            roots,
            projection,
            names,
            consistent,
            attempt_timeout,
            target,
            sent,
        }
    }

    /// Reads whole items (sized) when `whole`, and the TTL attribute `ttl` when known (`None`: guess it from
    /// the first whole item's names; keys-only scans then read none).
    pub(super) fn with_items(mut self, whole: bool, ttl: Option<String>) -> Self {
        self.whole = whole;
        if let Some(name) = ttl {
            let placeholder = "#ttl".to_owned();
            if !self.names.values().any(|v| *v == name) {
                self.projection.push_str(", #ttl");
                self.names.insert(placeholder, name.clone());
            }
            self.ttl = OnceLock::from(Some(Arc::from(name.as_str())));
        } else if !whole {
            self.ttl = OnceLock::from(None);
        }
        self
    }

    /// The TTL attribute, deciding it from `item`'s names when it is still open.
    fn ttl_of(&self, item: &HashMap<String, AttributeValue>) -> Option<Arc<str>> {
        self.ttl
            .get_or_init(|| {
                let mut names: Vec<&String> = item.keys().collect();
                names.sort();
                names
                    .into_iter()
                    .find(|n| looks_like_ttl(n.as_bytes()))
                    .map(|n| Arc::from(n.as_str()))
            })
            .clone()
    }

    /// An item's facts: its size when whole, its key attributes' size, its TTL value.
    fn facts(&self, item: &HashMap<String, AttributeValue>, ttl: Option<&str>) -> ItemFacts {
        let key_bytes = [Some(&self.pk.name), self.sk.as_ref().map(|k| &k.name)]
            .into_iter()
            .flatten()
            .filter_map(|n| item.get(n).map(|v| n.len() as u64 + attribute_size(v)))
            .sum();
        ItemFacts {
            size: self.whole.then(|| item_size(item)),
            key_bytes,
            ttl: match ttl.and_then(|n| item.get(n)) {
                None => TtlValue::Absent,
                Some(AttributeValue::N(n)) => crate::source::json::ttl::number(n),
                Some(other) => TtlValue::Other(type_tag(other)),
            },
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
            page.values
                .extend(self.roots.iter().map(|r| item.get(r).and_then(value)));
            if self.whole || self.ttl.get().is_some_and(Option::is_some) {
                let ttl = self.ttl_of(item);
                page.facts.push(self.facts(item, ttl.as_deref()));
                page.ttl_attr = ttl;
            }
        }
        page.next = out.last_evaluated_key.filter(|k| !k.is_empty());
        page
    }
}

/// The projection (`#pk, #sk, #a0, …`) and its attribute names: the key attributes, then each of `roots` that
/// is not one of them (a path given twice would be an error).
fn projection(
    pk: &KeyAttribute,
    sk: Option<&KeyAttribute>,
    roots: &[String],
) -> (String, HashMap<String, String>) {
    let mut names = HashMap::from([("#pk".to_owned(), pk.name.clone())]);
    let mut projection = "#pk".to_owned();
    if let Some(sk) = sk {
        names.insert("#sk".to_owned(), sk.name.clone());
        projection.push_str(", #sk");
    }
    let mut n = 0;
    for root in roots {
        if names.values().any(|v| v == root) {
            continue;
        }
        let placeholder = format!("#a{n}");
        n += 1;
        projection.push_str(", ");
        projection.push_str(&placeholder);
        names.insert(placeholder, root.clone());
    }
    (projection, names)
}

/// An attribute value as key expressions read it: numbers canonical (`1.0` is `1`), sets as lists. `None`
/// for a value of a type this SDK version does not know, or a number DynamoDB would not have stored.
fn value(v: &AttributeValue) -> Option<Value> {
    Some(match v {
        AttributeValue::S(s) => Value::S(s.clone()),
        AttributeValue::N(n) => Value::number(n).ok()?,
        AttributeValue::B(b) => Value::B(b.as_ref().to_vec()),
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::Null(_) => Value::Null,
        AttributeValue::M(m) => Value::M(
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), value(v)?)))
                .collect::<BTreeMap<_, _>>(),
        ),
        AttributeValue::L(l) => Value::L(l.iter().filter_map(value).collect()),
        AttributeValue::Ss(ss) => Value::L(ss.iter().cloned().map(Value::S).collect()),
        AttributeValue::Ns(ns) => {
            Value::L(ns.iter().filter_map(|n| Value::number(n).ok()).collect())
        }
        AttributeValue::Bs(bs) => {
            Value::L(bs.iter().map(|b| Value::B(b.as_ref().to_vec())).collect())
        }
        _ => return None,
    })
}

/// An item's size by DynamoDB's rules ([`crate::model::item_size`]): each name's bytes and its value's size.
pub(super) fn item_size(item: &HashMap<String, AttributeValue>) -> u64 {
    item.iter()
        .map(|(name, v)| name.len() as u64 + attribute_size(v))
        .sum()
}

/// A value's size by DynamoDB's rules.
fn attribute_size(v: &AttributeValue) -> u64 {
    use crate::model::item_size::{CONTAINER_BYTES, ELEMENT_BYTES, FLAG_BYTES, number_size};
    match v {
        AttributeValue::S(s) => s.len() as u64,
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len() as u64,
        AttributeValue::Ss(v) => v.iter().map(|s| s.len() as u64).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len() as u64).sum(),
        AttributeValue::L(l) => {
            CONTAINER_BYTES
                + l.iter()
                    .map(|e| ELEMENT_BYTES + attribute_size(e))
                    .sum::<u64>()
        }
        AttributeValue::M(m) => {
            CONTAINER_BYTES
                + m.iter()
                    .map(|(k, e)| ELEMENT_BYTES + k.len() as u64 + attribute_size(e))
                    .sum::<u64>()
        }
        _ => FLAG_BYTES,
    }
}

/// A value's type tag.
fn type_tag(v: &AttributeValue) -> &'static str {
    match v {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        _ => "?",
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
        let mut request = self.client.scan().table_name(&self.table);
        request = if self.whole {
            request.select(Select::AllAttributes)
        } else {
            request
                .projection_expression(&self.projection)
                .set_expression_attribute_names(Some(self.names.clone()))
                .select(Select::SpecificAttributes)
        };
        let mut request = request
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
                )
                .scrubbed(&self.sent)),
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

    #[test]
    fn the_projection_names_each_attribute_once() {
        let key = |name: &str| KeyAttribute {
            name: name.into(),
            key_type: KeyType::S,
        };
        let roots = ["pk".to_owned(), "status".to_owned(), "year".to_owned()];
        let (p, names) = projection(&key("pk"), Some(&key("year")), &roots);
        assert_eq!(p, "#pk, #sk, #a0");
        assert_eq!(names.len(), 3);
        assert_eq!(names["#a0"], "status");
        let (p, _) = projection(&key("pk"), None, &[]);
        assert_eq!(p, "#pk");
    }

    #[test]
    fn attribute_values_become_expression_values() {
        let n = |s: &str| AttributeValue::N(s.into());
        assert_eq!(value(&n("1.50")), Some(Value::number("1.5").unwrap()));
        assert_eq!(value(&n("not a number")), None);
        assert_eq!(
            value(&AttributeValue::Ss(vec!["a".into()])),
            Some(Value::L(vec![Value::S("a".into())]))
        );
        assert_eq!(value(&AttributeValue::Null(true)), Some(Value::Null));
        let m = AttributeValue::M(HashMap::from([
            ("n".to_owned(), n("1E1")),
            ("ok".to_owned(), AttributeValue::Bool(true)),
            ("ns".to_owned(), AttributeValue::Ns(vec!["2.0".into()])),
        ]));
        let Some(Value::M(m)) = value(&m) else {
            panic!("a map")
        };
        assert_eq!(m["n"], Value::number("10").unwrap());
        assert_eq!(m["ok"], Value::Bool(true));
        assert_eq!(m["ns"], Value::L(vec![Value::number("2").unwrap()]));
        let b = AttributeValue::Bs(vec![aws_sdk_dynamodb::primitives::Blob::new(vec![1u8])]);
        assert_eq!(value(&b), Some(Value::L(vec![Value::B(vec![1])])));
    }
}
