//! The Queries that read a sharded key back, one per shard, as parameters a person can use as they are:
//! a `KeyConditionExpression` with placeholders, its `ExpressionAttributeNames` and its
//! `ExpressionAttributeValues` in DynamoDB JSON (AWS developer guide, "Key condition expressions for
//! Query"; "Expression attribute names"), and the `aws dynamodb query` command line that sends them.

use base64::Engine as _;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::collection::SortKeyCondition;
use super::key::{Decimal, KeyType};
use super::keyset::KeySet;
use super::shard::ShardPlan;

/// Stands for the table's name on a command line when it is not known.
pub const TABLE_PLACEHOLDER: &str = "TABLE";
/// The partition key attribute's name when it is not known.
pub const DEFAULT_PK: &str = "pk";
/// The sort key attribute's name when it is not known.
pub const DEFAULT_SK: &str = "sk";

/// What is known about the table the keys came from: its name and key attribute names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    pub table: Option<String>,
    pub partition_key: Option<String>,
    pub sort_key: Option<String>,
}

/// One Query's parameters, with the field names of the DynamoDB API, in JSON as the Query request writes them
/// (`TableName`, `KeyConditionExpression`, `ExpressionAttributeNames`, `ExpressionAttributeValues`): the shape
/// `aws dynamodb query --cli-input-json` and boto3's `client.query(**q)` take as it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueryParams {
    /// The table's name, when it is known (a command line's stand-in, [`TABLE_PLACEHOLDER`], is no name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table_name: Option<String>,
    pub key_condition_expression: String,
    /// `{"#pk": "PK", …}`.
    pub expression_attribute_names: Value,
    /// `{":pk": {"S": "…"}, …}`, in DynamoDB JSON.
    pub expression_attribute_values: Value,
}

/// The Queries of one sharded key, with what the user should know about them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShardQueries {
    /// The logical key, as text.
    pub key: String,
    /// The table name the command lines use: the real one, or [`TABLE_PLACEHOLDER`].
    pub table: String,
    pub queries: Vec<QueryParams>,
    /// Placeholders used and conditions left out, in words (empty when everything was known and usable).
    pub notes: Vec<String>,
}

/// A key value in DynamoDB JSON: `{"S": text}`, `{"N": text}` or `{"B": base64}`.
fn attribute_value(bytes: &[u8], ty: KeyType) -> Value {
    match ty {
        KeyType::S => json!({ "S": String::from_utf8_lossy(bytes) }),
        KeyType::N => json!({ "N": String::from_utf8_lossy(bytes) }),
        KeyType::B => json!({ "B": base64::engine::general_purpose::STANDARD.encode(bytes) }),
    }
}

impl QueryParams {
    /// The Query of partition key `pk` (attribute `pk_name`, value bytes of type `pk_type`: text for S and N,
    /// raw bytes for B), with an optional sort-key condition on attribute `sk_name` of type `sk_type`.
    pub fn new(
        pk_name: &str,
        pk: &[u8],
        pk_type: KeyType,
        sort: Option<(&str, KeyType, &SortKeyCondition)>,
    ) -> Self {
        let mut names = Map::new();
        let mut values = Map::new();
        names.insert("#pk".into(), Value::from(pk_name));
        values.insert(":pk".into(), attribute_value(pk, pk_type));
        let mut expression = "#pk = :pk".to_owned();
        if let Some((sk_name, sk_type, cond)) = sort {
            names.insert("#sk".into(), Value::from(sk_name));
            match cond {
                SortKeyCondition::BeginsWith(prefix) => {
                    expression.push_str(" AND begins_with(#sk, :sk)");
                    values.insert(":sk".into(), attribute_value(prefix, sk_type));
                }
                SortKeyCondition::Between(lo, hi) => {
                    expression.push_str(" AND #sk BETWEEN :lo AND :hi");
                    values.insert(":lo".into(), attribute_value(lo, sk_type));
                    values.insert(":hi".into(), attribute_value(hi, sk_type));
                }
            }
        }
        Self {
            table_name: None,
            key_condition_expression: expression,
            expression_attribute_names: Value::Object(names),
            expression_attribute_values: Value::Object(values),
        }
    }

    /// The `aws dynamodb query` command line that sends these parameters to `table`, every argument
    /// shell-quoted.
    pub fn aws_cli(&self, table: &str) -> String {
        format!(
            "aws dynamodb query --table-name {} --key-condition-expression {} \
             --expression-attribute-names {} --expression-attribute-values {}",
            shell_quote(table),
            shell_quote(&self.key_condition_expression),
            shell_quote(&self.expression_attribute_names.to_string()),
            shell_quote(&self.expression_attribute_values.to_string()),
        )
    }
}

/// `text` as one POSIX shell word: as it is when it is only safe characters, else in single quotes, each `'`
/// written `'\''`.
pub fn shell_quote(text: &str) -> String {
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.,:/@%+=".contains(&b));
    if safe {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Why a sort-key condition cannot be sent as it is, for a sort key of type `ty`.
fn sort_condition_problem(cond: &SortKeyCondition, ty: KeyType) -> Option<String> {
    let not_number = |v: &[u8]| Decimal::parse(v).is_err();
    match cond {
        SortKeyCondition::BeginsWith(_) if ty == KeyType::N => Some(
            "begins_with is left out: it works on string and binary sort keys, and this sort key is a number"
                .to_owned(),
        ),
        SortKeyCondition::Between(lo, hi)
            if ty == KeyType::N && (not_number(lo) || not_number(hi)) =>
        {
            Some("BETWEEN is left out: its bounds are not both numbers, and the sort key is a number".to_owned())
        }
        _ => None,
    }
}

/// The Queries that read the first sharded key back, one per shard (`report_fan_out` of them, suffixes from
/// `plan`), for the table in `target`, with `sort` carried into each (its values typed as the keys' sort key
/// type, when the keys have sort keys). `None` when sharding is off or no key is sharded.
pub fn shard_queries(
    plan: &ShardPlan,
    keys: &KeySet,
    sharded_keys: &[u32],
    read_fan_out: u32,
    target: &Target,
    sort: Option<&SortKeyCondition>,
) -> Option<ShardQueries> {
    if !plan.is_active() {
        return None;
    }
    let &first = sharded_keys.first()?;
    let mut notes = Vec::new();
    let table = match &target.table {
        Some(t) => t.clone(),
        None => {
            notes.push(format!(
                "the table's name is not known: replace {TABLE_PLACEHOLDER} with it"
            ));
            TABLE_PLACEHOLDER.to_owned()
        }
    };
    let pk_name = target.partition_key.as_deref().unwrap_or_else(|| {
        notes.push(format!(
            "the partition key attribute's name is not known: {DEFAULT_PK} stands for it"
        ));
        DEFAULT_PK
    });
    let base = keys.key_bytes(first);
    let mut pk_type = keys.key_type();
    let shard_value = |i: u32| {
        let mut v = base.to_vec();
        v.extend_from_slice(plan.suffix(i).as_bytes());
        v
    };
    if pk_type == KeyType::N && Decimal::parse(&shard_value(0)).is_err() {
        notes.push(format!(
            "a number with the suffix {:?} is no number: the sharded key attribute must be a string (S)",
            plan.suffix(0)
        ));
        pk_type = KeyType::S;
    }
    let sort = match (sort, keys.sort_key_type()) {
        (Some(cond), Some(ty)) => match sort_condition_problem(cond, ty) {
            Some(problem) => {
                notes.push(problem);
                None
            }
            None => {
                let name = target.sort_key.as_deref().unwrap_or_else(|| {
                    notes.push(format!(
                        "the sort key attribute's name is not known: {DEFAULT_SK} stands for it"
                    ));
                    DEFAULT_SK
                });
                Some((name, ty, cond))
            }
        },
        _ => None,
    };
    let queries = (0..read_fan_out)
        .map(|i| QueryParams {
            table_name: target.table.clone(),
            ..QueryParams::new(pk_name, &shard_value(i), pk_type, sort)
        })
        .collect();
    Some(ShardQueries {
        key: keys.display(first).into_owned(),
        table,
        queries,
        notes,
    })
}

impl ShardQueries {
    /// One `aws dynamodb query` command line per shard, a newline between them.
    pub fn command_lines(&self) -> String {
        let lines: Vec<String> = self
            .queries
            .iter()
            .map(|q| q.aws_cli(&self.table))
            .collect();
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::shard::{Scope, Strategy};

    fn plan(shards: u32) -> ShardPlan {
        ShardPlan {
            shards,
            strategy: Strategy::RoundRobin,
            scope: Scope::Hot { threshold: 0.5 },
            ..ShardPlan::default()
        }
    }

    fn hot(ty: KeyType, key: &[u8]) -> KeySet {
        let mut keys = KeySet::new(ty);
        keys.add(key, 1000);
        keys
    }

    fn queries_of(keys: &KeySet, shards: u32, target: &Target) -> ShardQueries {
        let sharded = plan(shards).apply(keys);
        shard_queries(
            &plan(shards),
            keys,
            &sharded.sharded_keys,
            sharded.read_fan_out(),
            target,
            None,
        )
        .unwrap()
    }

    #[test]
    fn one_query_per_shard_with_placeholders() {
        let keys = hot(KeyType::S, b"CUST#acme-corp");
        let target = Target {
            table: Some("Orders".into()),
            partition_key: Some("PK".into()),
            sort_key: None,
        };
        let q = queries_of(&keys, 3, &target);
        assert_eq!(q.queries.len(), 3);
        assert!(q.notes.is_empty(), "{:?}", q.notes);
        let first = &q.queries[0];
        assert_eq!(first.key_condition_expression, "#pk = :pk");
        assert_eq!(first.expression_attribute_names, json!({"#pk": "PK"}));
        assert_eq!(
            first.expression_attribute_values,
            json!({":pk": {"S": "CUST#acme-corp#0"}})
        );
        assert_eq!(
            first.aws_cli(&q.table),
            "aws dynamodb query --table-name Orders --key-condition-expression '#pk = :pk' \
             --expression-attribute-names '{\"#pk\":\"PK\"}' \
             --expression-attribute-values '{\":pk\":{\"S\":\"CUST#acme-corp#0\"}}'"
        );
        assert_eq!(q.command_lines().lines().count(), 3);
        assert!(
            q.command_lines()
                .lines()
                .nth(2)
                .unwrap()
                .contains("acme-corp#2")
        );
    }

    /// In JSON each Query is the request `aws dynamodb query --cli-input-json` and boto3's `query(**q)` take:
    /// the API's names, typed values, the table's name when it is known and none when it is not.
    #[test]
    fn a_query_in_json_is_the_query_request() {
        let keys = hot(KeyType::S, b"BOARD#global");
        let target = Target {
            table: Some("Scores".into()),
            partition_key: Some("PK".into()),
            sort_key: None,
        };
        let q = queries_of(&keys, 2, &target);
        assert_eq!(
            serde_json::to_value(&q.queries[0]).unwrap(),
            json!({
                "TableName": "Scores",
                "KeyConditionExpression": "#pk = :pk",
                "ExpressionAttributeNames": {"#pk": "PK"},
                "ExpressionAttributeValues": {":pk": {"S": "BOARD#global#0"}},
            })
        );
        let unknown = queries_of(&keys, 2, &Target::default());
        let doc = serde_json::to_value(&unknown.queries[1]).unwrap();
        assert!(doc.get("TableName").is_none(), "{doc}");
        assert_eq!(doc["KeyConditionExpression"], "#pk = :pk");
    }

    #[test]
    fn unknown_table_and_attribute_get_placeholders_and_say_so() {
        let keys = hot(KeyType::S, b"HOT");
        let q = queries_of(&keys, 2, &Target::default());
        assert_eq!(q.table, TABLE_PLACEHOLDER);
        assert_eq!(
            q.queries[1].expression_attribute_names,
            json!({"#pk": DEFAULT_PK})
        );
        assert_eq!(q.notes.len(), 2, "{:?}", q.notes);
        assert!(
            q.command_lines()
                .starts_with("aws dynamodb query --table-name TABLE ")
        );
    }

    #[test]
    fn a_quote_in_a_value_is_escaped_for_the_shell() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("Orders"), "Orders");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        let keys = hot(KeyType::S, b"O'Brien");
        let q = queries_of(&keys, 2, &Target::default());
        let line = q.queries[0].aws_cli("my table");
        assert!(line.contains("--table-name 'my table' "), "{line}");
        assert!(
            line.ends_with(r#"'{":pk":{"S":"O'\''Brien#0"}}'"#),
            "{line}"
        );
    }

    #[test]
    fn number_and_binary_keys_are_typed() {
        let n = QueryParams::new("id", b"42", KeyType::N, None);
        assert_eq!(n.expression_attribute_values, json!({":pk": {"N": "42"}}));
        let b = QueryParams::new("id", &[0xff, 0x00, b'#', b'1'], KeyType::B, None);
        assert_eq!(
            b.expression_attribute_values,
            json!({":pk": {"B": "/wAjMQ=="}})
        );
        // A sharded binary key: its bytes, then the suffix's, in base64.
        let keys = hot(KeyType::B, &[0xff, 0x00]);
        let q = queries_of(&keys, 2, &Target::default());
        assert_eq!(
            q.queries[1].expression_attribute_values,
            json!({":pk": {"B": "/wAjMQ=="}})
        );
        // A sharded number is no number: the values are strings, and a note says why.
        let keys = hot(KeyType::N, b"42");
        let q = queries_of(&keys, 2, &Target::default());
        assert_eq!(
            q.queries[0].expression_attribute_values,
            json!({":pk": {"S": "42#0"}})
        );
        assert!(
            q.notes.iter().any(|n| n.contains("must be a string")),
            "{:?}",
            q.notes
        );
    }

    #[test]
    fn a_sort_key_condition_is_carried_into_every_query() {
        let mut keys = KeySet::new(KeyType::S);
        for i in 0..20 {
            keys.add_item(b"HOT", Some((format!("EVT#{i}").as_bytes(), KeyType::S)), 1);
        }
        assert_eq!(keys.sort_key_type(), Some(KeyType::S));
        let sharded = plan(2).apply(&keys);
        let target = Target {
            table: Some("T".into()),
            partition_key: Some("PK".into()),
            sort_key: Some("SK".into()),
        };
        let begins = SortKeyCondition::BeginsWith(b"EVT#".to_vec());
        let q = shard_queries(
            &plan(2),
            &keys,
            &sharded.sharded_keys,
            2,
            &target,
            Some(&begins),
        )
        .unwrap();
        assert_eq!(q.queries.len(), 2);
        assert_eq!(
            q.queries[1].key_condition_expression,
            "#pk = :pk AND begins_with(#sk, :sk)"
        );
        assert_eq!(
            q.queries[1].expression_attribute_names,
            json!({"#pk": "PK", "#sk": "SK"})
        );
        assert_eq!(
            q.queries[1].expression_attribute_values,
            json!({":pk": {"S": "HOT#1"}, ":sk": {"S": "EVT#"}})
        );
        let between = SortKeyCondition::Between(b"EVT#1".to_vec(), b"EVT#5".to_vec());
        let q = shard_queries(
            &plan(2),
            &keys,
            &sharded.sharded_keys,
            2,
            &target,
            Some(&between),
        )
        .unwrap();
        assert_eq!(
            q.queries[0].key_condition_expression,
            "#pk = :pk AND #sk BETWEEN :lo AND :hi"
        );
        assert_eq!(
            q.queries[0].expression_attribute_values,
            json!({":pk": {"S": "HOT#0"}, ":lo": {"S": "EVT#1"}, ":hi": {"S": "EVT#5"}})
        );
        assert!(
            q.queries[0]
                .aws_cli("T")
                .contains(r#"'{":hi":{"S":"EVT#5"},":lo":{"S":"EVT#1"},":pk":{"S":"HOT#0"}}'"#)
        );
    }

    #[test]
    fn nothing_sharded_means_no_queries() {
        let keys = hot(KeyType::S, b"HOT");
        assert!(
            shard_queries(&ShardPlan::none(), &keys, &[0], 1, &Target::default(), None).is_none()
        );
        assert!(shard_queries(&plan(4), &keys, &[], 1, &Target::default(), None).is_none());
    }
}
