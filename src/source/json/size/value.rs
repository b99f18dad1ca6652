//! One typed value's size from its parsed JSON ([`serde_json::Value`]): what the Streams reader sizes images with
//! (`source::trace::size`), and what the text walker of `super` checks a value it could not read against (a value
//! written by Go with every type tag is a typed value here: [`typed_entry`]), and the estimated size of a value
//! that is not the typed value it should be ([`estimated_value_size`]).

use serde_json::Value;

use crate::model::item_size::{
    CONTAINER_BYTES, ELEMENT_BYTES, FLAG_BYTES, base64_size, checked_number_size, number_size,
};

pub type Sized = Result<u64, (Vec<String>, String)>;

fn bad(what: impl Into<String>) -> (Vec<String>, String) {
    (Vec::new(), what.into())
}

/// The size of one typed value (`{"S": "…"}`, `{"N": "…"}`, …); `Err` holds where inside it (innermost
/// first) and what is wrong.
pub fn value_size(v: &Value) -> Sized {
    let obj = v
        .as_object()
        .ok_or_else(|| bad("not a typed value; expected an object like {\"S\": \"…\"}"))?;
    let (tag, inner) = typed_entry(obj).map_err(bad)?;
    let text = |what: &str| {
        inner
            .as_str()
            .ok_or_else(|| bad(format!("{what} is not a string")))
    };
    let members = || {
        inner
            .as_array()
            .ok_or_else(|| bad(format!("{tag} is not a list of members")))
    };
    let number = |t: &str, tag: &str| {
        checked_number_size(t.as_bytes())
            .ok_or_else(|| bad(format!("{t:?} is not a number ({tag})")))
    };
    let binary = |t: &str, tag: &str| {
        base64_size(t.as_bytes()).ok_or_else(|| bad(format!("{t:?} is not base64 ({tag})")))
    };
    Ok(match tag {
        "S" => text("S")?.len() as u64,
        "N" => number(text("N")?, "N")?,
        "B" => binary(text("B")?, "B")?,
        "BOOL" | "NULL" => FLAG_BYTES,
        "SS" => members()?
            .iter()
            .map(|m| {
                m.as_str()
                    .map(|s| s.len() as u64)
                    .ok_or_else(|| bad("SS member is not a string"))
            })
            .sum::<Result<u64, _>>()?,
        "NS" | "BS" => members()?
            .iter()
            .map(|m| {
                let t = m
                    .as_str()
                    .ok_or_else(|| bad(format!("{tag} member is not a string")))?;
                if tag == "NS" {
                    number(t, tag)
                } else {
                    binary(t, tag)
                }
            })
            .sum::<Result<u64, _>>()?,
        "L" => list_size(members()?)?,
        "M" => map_size(inner.as_object().ok_or_else(|| bad("M is not a map"))?)?,
        other => {
            return Err(bad(format!(
                "{other:?} is not a DynamoDB type (S, N, B, BOOL, NULL, SS, NS, BS, L or M)"
            )));
        }
    })
}

/// A list: 3 bytes, and each element plus 1.
fn list_size(elements: &[Value]) -> Sized {
    let mut size = CONTAINER_BYTES;
    for (i, e) in elements.iter().enumerate() {
        size += ELEMENT_BYTES
            + value_size(e).map_err(|(mut p, w)| {
                p.push(format!("[{i}]"));
                (p, w)
            })?;
    }
    Ok(size)
}

/// A map: 3 bytes, and each member's name and value plus 1.
fn map_size(members: &serde_json::Map<String, Value>) -> Sized {
    let mut size = CONTAINER_BYTES;
    for (k, e) in members {
        size += ELEMENT_BYTES
            + k.len() as u64
            + value_size(e).map_err(|(mut p, w)| {
                p.push(k.clone());
                (p, w)
            })?;
    }
    Ok(size)
}

/// The tag and value of a typed value's object (`{"S": "a"}`). A value written by Go's `encoding/json` from
/// aws-lambda-go's `DynamoDBAttributeValue` (its test event `events/testdata/dynamodb-event.json`) carries
/// all ten tags, every one `null` but its own (`{"B": null, …, "S": "data", "SS": null}`): the one tag whose
/// value is not `null` is the value. `Err` says why it is not one value: no tag, every tag `null`, or two
/// tags with values.
pub fn typed_entry(
    obj: &serde_json::Map<String, serde_json::Value>,
) -> Result<(&str, &serde_json::Value), String> {
    let mut entries = obj.iter();
    let Some(first) = entries.next() else {
        return Err("an empty object, not a typed value".to_owned());
    };
    if obj.len() == 1 {
        return Ok((first.0.as_str(), first.1));
    }
    let mut set = obj.iter().filter(|(_, v)| !v.is_null());
    match (set.next(), set.next()) {
        (Some((tag, v)), None) => Ok((tag.as_str(), v)),
        (None, _) => Err(format!(
            "every type tag is null ({}); expected one with a value",
            obj.keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        (Some((a, _)), Some((b, _))) => Err(format!("more than one type tag ({a} and {b})")),
    }
}

/// The estimated size of a value that is not the typed value it should be (see [`super::ItemSize`]): whatever in it
/// *is* a typed value is sized by DynamoDB's rules ([`crate::model::item_size`]); a part that is not (a
/// plain object, an unknown tag, a tag whose value has the wrong JSON type) is sized as what its JSON holds
/// read as written, as the document clients store plain JSON (an object as a map of its members, an array as
/// a list, a string as S, a number as N, `true`/`false`/`null` as one byte). So the estimate counts every name
/// and value the text holds; it errs by the few bytes of a tag read as a member's name.
pub fn estimated_value_size(v: &serde_json::Value) -> u64 {
    use serde_json::Value;
    let typed = match v {
        Value::Object(o) => typed_entry(o).ok(),
        _ => None,
    };
    if let Some((tag, inner)) = typed {
        let scalar = |t: &Value, check: fn(&[u8]) -> Option<u64>| match t {
            Value::String(s) => check(s.as_bytes()).unwrap_or(s.len() as u64),
            other => plain_estimate(other),
        };
        let sized = match (tag, inner) {
            ("S", Value::String(s)) => Some(s.len() as u64),
            ("N", t) => Some(scalar(t, checked_number_size)),
            ("B", t) => Some(scalar(t, base64_size)),
            ("BOOL" | "NULL", _) => Some(FLAG_BYTES),
            ("SS", Value::Array(m)) => Some(m.iter().map(plain_estimate).sum()),
            ("NS", Value::Array(m)) => Some(m.iter().map(|t| scalar(t, checked_number_size)).sum()),
            ("BS", Value::Array(m)) => Some(m.iter().map(|t| scalar(t, base64_size)).sum()),
            ("L", Value::Array(l)) => Some(
                CONTAINER_BYTES
                    + l.iter()
                        .map(|e| ELEMENT_BYTES + estimated_value_size(e))
                        .sum::<u64>(),
            ),
            ("M", Value::Object(m)) => Some(map_estimate(m)),
            _ => None,
        };
        if let Some(size) = sized {
            return size;
        }
    }
    plain_estimate(v)
}

/// A map's members, each as [`estimated_value_size`], with the map's overhead.
fn map_estimate(m: &serde_json::Map<String, serde_json::Value>) -> u64 {
    CONTAINER_BYTES
        + m.iter()
            .map(|(k, e)| ELEMENT_BYTES + k.len() as u64 + estimated_value_size(e))
            .sum::<u64>()
}

/// A value that is not typed, sized as the plain JSON it is (its members as [`estimated_value_size`]).
fn plain_estimate(v: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match v {
        Value::String(s) => s.len() as u64,
        Value::Number(n) => number_size(&n.to_string()),
        Value::Bool(_) | Value::Null => FLAG_BYTES,
        Value::Array(l) => {
            CONTAINER_BYTES
                + l.iter()
                    .map(|e| ELEMENT_BYTES + estimated_value_size(e))
                    .sum::<u64>()
        }
        Value::Object(m) => map_estimate(m),
    }
}
