//! An item's size as DynamoDB counts it, from its image in DynamoDB JSON (DYNAMODB-TRAFFIC "Item size"
//! \[AWS\]): attribute names' UTF-8 bytes plus each value's size. Strings count their UTF-8 bytes, binary its
//! raw bytes (not the base64 text), numbers about one byte per two significant digits plus one (AWS says
//! "approximately"; **\[ours\]**: the sign and the decimal point are not counted), booleans and nulls one
//! byte, lists and maps 3 bytes plus one per element plus the elements (a map's also their names), sets the sum
//! of their elements.

use serde_json::Value;

use crate::model::item_size::{
    CONTAINER_BYTES, ELEMENT_BYTES, FLAG_BYTES, base64_size, checked_number_size,
};

/// The size in bytes of an item (a map of attribute names to typed values). `Err` names the attribute whose
/// value is not what its type tag says (`attribute "n": "abc" is not a number (N)`), or says the image is
/// not an item.
pub fn item_size(image: &Value) -> Result<u64, String> {
    let map = image
        .as_object()
        .ok_or("not an item (expected an object of attributes)")?;
    map.iter()
        .map(|(name, v)| {
            value_size(v)
                .map(|s| name.len() as u64 + s)
                .map_err(|(path, what)| format!("attribute {:?}: {what}", join(name, &path)))
        })
        .sum()
}

/// `name`, then the path inside it (`m.x[1]`).
fn join(name: &str, path: &[String]) -> String {
    let mut at = name.to_owned();
    for p in path.iter().rev() {
        if !p.starts_with('[') {
            at.push('.');
        }
        at.push_str(p);
    }
    at
}

type Sized = Result<u64, (Vec<String>, String)>;

fn bad(what: impl Into<String>) -> (Vec<String>, String) {
    (Vec::new(), what.into())
}

/// The size of one typed value (`{"S": "…"}`, `{"N": "…"}`, …); `Err` holds where inside it (innermost
/// first) and what is wrong.
fn value_size(v: &Value) -> Sized {
    let obj = v
        .as_object()
        .ok_or_else(|| bad("not a typed value; expected an object like {\"S\": \"…\"}"))?;
    let mut entries = obj.iter();
    let (tag, inner) = entries
        .next()
        .ok_or_else(|| bad("an empty object, not a typed value"))?;
    if entries.next().is_some() {
        return Err(bad(format!("more than one type tag ({tag} and another)")));
    }
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
    Ok(match tag.as_str() {
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

pub use crate::model::item_size::number_size;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_documented_rules() {
        let item: Value = serde_json::from_str(
            r#"{"id":{"S":"abc"},"n":{"N":"-0012.3400"},"b":{"B":"AAEC"},"ok":{"BOOL":true},
                "l":{"L":[{"S":"x"},{"NULL":true}]},"m":{"M":{"k":{"S":"vv"}}},"ss":{"SS":["a","bb"]}}"#,
        )
        .unwrap();
        // id 2+3, n 1+(4 digits: 2+1), b 1+3, ok 2+1, l 1+(3+1+1+1+1), m 1+(3+1+1+2), ss 2+3
        assert_eq!(item_size(&item), Ok(5 + 4 + 4 + 3 + 8 + 8 + 5));
        let bad: Value =
            serde_json::from_str(r#"{"m":{"M":{"x":{"L":[{"N":"1"},{"N":"abc"}]}}}}"#).unwrap();
        assert_eq!(
            item_size(&bad),
            Err(r#"attribute "m.x[1]": "abc" is not a number (N)"#.to_owned())
        );
    }
}
