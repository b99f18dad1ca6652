//! One typed value's size from its parsed JSON ([`serde_json::Value`]): what the Streams reader sizes images with
//! (`source::trace::size`), and what the text walker of `super` checks a value it could not read against (a value
//! written by Go with every type tag is a typed value here: [`super::typed_entry`]).

use serde_json::Value;

use super::typed_entry;
use crate::model::item_size::{
    CONTAINER_BYTES, ELEMENT_BYTES, FLAG_BYTES, base64_size, checked_number_size,
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
