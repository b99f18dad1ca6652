//! An item's size as DynamoDB counts it, from its image in DynamoDB JSON (DYNAMODB-TRAFFIC "Item size"
//! \[AWS\]): attribute names' UTF-8 bytes plus each value's size. Strings count their UTF-8 bytes, binary its
//! raw bytes (not the base64 text), numbers about one byte per two significant digits plus one (AWS says
//! "approximately"; **\[ours\]**: the sign and the decimal point are not counted), booleans and nulls one
//! byte, lists and maps 3 bytes plus one per element plus the elements (a map's also their names), sets the sum
//! of their elements.

use serde_json::Value;

/// The size in bytes of an item (a map of attribute names to typed values); `None` when it is not one.
pub fn item_size(image: &Value) -> Option<u64> {
    let map = image.as_object()?;
    map.iter()
        .map(|(name, v)| Some(name.len() as u64 + value_size(v)?))
        .sum()
}

/// The size of one typed value (`{"S": "…"}`, `{"N": "…"}`, …).
fn value_size(v: &Value) -> Option<u64> {
    let (tag, inner) = v.as_object()?.iter().next()?;
    Some(match (tag.as_str(), inner) {
        ("S", Value::String(s)) => s.len() as u64,
        ("N", Value::String(n)) => number_size(n),
        ("B", Value::String(b)) => binary_size(b),
        ("BOOL" | "NULL", _) => 1,
        ("SS", Value::Array(a)) => a
            .iter()
            .map(|s| s.as_str().map_or(0, str::len) as u64)
            .sum(),
        ("NS", Value::Array(a)) => a.iter().filter_map(Value::as_str).map(number_size).sum(),
        ("BS", Value::Array(a)) => a.iter().filter_map(Value::as_str).map(binary_size).sum(),
        ("L", Value::Array(a)) => {
            3 + a
                .iter()
                .map(|e| Some(1 + value_size(e)?))
                .sum::<Option<u64>>()?
        }
        ("M", Value::Object(m)) => {
            3 + m
                .iter()
                .map(|(k, e)| Some(1 + k.len() as u64 + value_size(e)?))
                .sum::<Option<u64>>()?
        }
        _ => return None,
    })
}

pub use crate::model::item_size::number_size;

/// Raw bytes of base64 text (its decoded length; the text's when it does not decode).
fn binary_size(b64: &str) -> u64 {
    crate::model::item_size::base64_size(b64.as_bytes()).unwrap_or(b64.len() as u64)
}

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
        assert_eq!(item_size(&item), Some(5 + 4 + 4 + 3 + 8 + 8 + 5));
    }
}
