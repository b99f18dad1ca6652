//! DynamoDB's item size rules (the developer guide's "DynamoDB item sizes and formats"), written again here
//! from the text of the rules and independently of `shardlens::model::item_size`, so the tests compare the
//! loaders with a second reading of the rules, not with themselves.
#![allow(dead_code)] // Each test binary uses part of it.

use base64::Engine as _;
use serde_json::Value;

/// The size of a typed item (`{"pk":{"S":"a"},…}`).
pub fn typed_item(item: &Value) -> u64 {
    item.as_object()
        .unwrap()
        .iter()
        .map(|(name, v)| name.len() as u64 + typed(v))
        .sum()
}

fn typed(v: &Value) -> u64 {
    let (tag, inner) = v.as_object().and_then(|o| o.iter().next()).unwrap();
    let strs = || {
        inner
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
    };
    match tag.as_str() {
        "S" => inner.as_str().unwrap().len() as u64,
        "N" => number(inner.as_str().unwrap()),
        "B" => binary(inner.as_str().unwrap()),
        "BOOL" | "NULL" => 1,
        "SS" => strs().map(|s| s.len() as u64).sum(),
        "NS" => strs().map(number).sum(),
        "BS" => strs().map(binary).sum(),
        "L" => {
            3 + inner
                .as_array()
                .unwrap()
                .iter()
                .map(|e| 1 + typed(e))
                .sum::<u64>()
        }
        "M" => {
            3 + inner
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, e)| 1 + k.len() as u64 + typed(e))
                .sum::<u64>()
        }
        other => panic!("not a type: {other}"),
    }
}

/// The size of a plain item as the document clients store it.
pub fn plain_item(item: &Value) -> u64 {
    item.as_object()
        .unwrap()
        .iter()
        .map(|(name, v)| name.len() as u64 + plain(v))
        .sum()
}

fn plain(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.len() as u64,
        Value::Number(n) => number(&n.to_string()),
        Value::Bool(_) | Value::Null => 1,
        Value::Array(a) => 3 + a.iter().map(|e| 1 + plain(e)).sum::<u64>(),
        Value::Object(o) => {
            3 + o
                .iter()
                .map(|(k, e)| 1 + k.len() as u64 + plain(e))
                .sum::<u64>()
        }
    }
}

/// One byte per two significant digits, plus one: the digits before any exponent, without the sign and the
/// point, leading and trailing zeros dropped (zero is one digit), at most 38.
pub fn number(text: &str) -> u64 {
    let mantissa = text.split(['e', 'E']).next().unwrap_or_default();
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_matches('0').len().clamp(1, 38) as u64;
    significant.div_ceil(2) + 1
}

fn binary(b64: &str) -> u64 {
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap()
        .len() as u64
}
