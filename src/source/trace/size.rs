//! An item's size as DynamoDB counts it, from its image in DynamoDB JSON (DYNAMODB-TRAFFIC "Item size"
//! \[AWS\]): attribute names' UTF-8 bytes plus each value's size. Strings count their UTF-8 bytes, binary its
//! raw bytes (not the base64 text), numbers about one byte per two significant digits plus one (AWS says
//! "approximately"; **\[ours\]**: the sign and the decimal point are not counted), booleans and nulls one
//! byte, lists and maps 3 bytes plus one per element plus the elements (a map's also their names), sets the sum
//! of their elements.

use serde_json::Value;

pub use crate::source::json::size::{ItemSize, estimated_value_size, typed_entry, value_size};

/// The size in bytes of an item (a map of attribute names to typed values). `Err` names a key attribute (one
/// of `keys`) whose value is not what its type tag says (`attribute "n": "abc" is not a number (N)`), or says
/// the image is not an item. Any other attribute so written is sized from what could be read
/// ([`estimated_value_size`]) and the size is an estimate ([`ItemSize::estimate`] names the first). Values
/// written by Go with every type tag (all `null` but one) are read as their one tag ([`typed_entry`]).
pub fn item_size(image: &Value, keys: &[&str]) -> Result<ItemSize, String> {
    let map = image
        .as_object()
        .ok_or("not an item (expected an object of attributes)")?;
    let mut size = ItemSize::default();
    for (name, v) in map {
        let value = match value_size(v) {
            Ok(s) => s,
            Err((path, what)) => {
                let what = format!("attribute {:?}: {what}", join(name, &path));
                if keys.contains(&name.as_str()) {
                    return Err(what);
                }
                size.estimate.get_or_insert(what);
                estimated_value_size(v)
            }
        };
        size.bytes += name.len() as u64 + value;
    }
    Ok(size)
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

pub use crate::model::item_size::number_size;

#[cfg(test)]
mod tests {
    use super::*;

    /// aws-lambda-go writes every tag, all `null` but one: the one is the value; none or two are named.
    #[test]
    fn go_values_are_their_one_tag_with_a_value() {
        let item: Value = serde_json::from_str(
            r#"{"k":{"B":null,"BOOL":null,"BS":null,"L":null,"M":null,"N":null,"NS":null,"NULL":null,"S":"data","SS":null},
                "m":{"B":null,"BOOL":null,"BS":null,"L":null,"M":{"n":{"B":null,"N":"12","S":null}},"N":null,"NS":null,"NULL":null,"S":null,"SS":null}}"#,
        )
        .unwrap();
        // k 1+4, m 1+(3+1+1+2)
        assert_eq!(item_size(&item, &["k"]), Ok(ItemSize::exact(5 + 8)));
        let none: Value = serde_json::from_str(r#"{"k":{"S":null,"N":null}}"#).unwrap();
        assert_eq!(
            item_size(&none, &["k"]),
            Err(
                r#"attribute "k": every type tag is null (N, S); expected one with a value"#.into()
            )
        );
        let two: Value = serde_json::from_str(r#"{"k":{"S":"a","N":"1","B":null}}"#).unwrap();
        assert_eq!(
            item_size(&two, &["k"]),
            Err(r#"attribute "k": more than one type tag (N and S)"#.into())
        );
    }

    /// A Workbench-like map whose member is not a typed value: kept, sized from what it holds.
    #[test]
    fn a_malformed_attribute_that_is_not_a_key_is_an_estimate() {
        let item: Value =
            serde_json::from_str(r#"{"id":{"S":"p1"},"a":{"M":{"M":{"HP":{"N":"50"}}}}}"#).unwrap();
        let got = item_size(&item, &["id"]).unwrap();
        // id 2+2; a 1 + map (3 + 1 + "M" + plain map (3 + 1 + "HP" + 50 as N: 2))
        assert_eq!(got.bytes, 4 + 1 + (3 + 1 + 1 + (3 + 1 + 2 + 2)));
        assert_eq!(
            got.estimate.as_deref(),
            Some(
                r#"attribute "a.M": "HP" is not a DynamoDB type (S, N, B, BOOL, NULL, SS, NS, BS, L or M)"#
            )
        );
    }

    #[test]
    fn sizes_follow_the_documented_rules() {
        let item: Value = serde_json::from_str(
            r#"{"id":{"S":"abc"},"n":{"N":"-0012.3400"},"b":{"B":"AAEC"},"ok":{"BOOL":true},
                "l":{"L":[{"S":"x"},{"NULL":true}]},"m":{"M":{"k":{"S":"vv"}}},"ss":{"SS":["a","bb"]}}"#,
        )
        .unwrap();
        // id 2+3, n 1+(4 digits: 2+1), b 1+3, ok 2+1, l 1+(3+1+1+1+1), m 1+(3+1+1+2), ss 2+3
        assert_eq!(
            item_size(&item, &["id"]),
            Ok(ItemSize::exact(5 + 4 + 4 + 3 + 8 + 8 + 5))
        );
        let bad: Value =
            serde_json::from_str(r#"{"m":{"M":{"x":{"L":[{"N":"1"},{"N":"abc"}]}}}}"#).unwrap();
        // A key so written is an error; any other attribute an estimate: "abc" counted as 3 bytes of text.
        let what = r#"attribute "m.x[1]": "abc" is not a number (N)"#.to_owned();
        assert_eq!(item_size(&bad, &["m"]), Err(what.clone()));
        assert_eq!(
            item_size(&bad, &["id"]),
            Ok(ItemSize {
                bytes: 1 + (3 + 1 + 1 + (3 + 1 + 2 + 1 + 3)),
                estimate: Some(what)
            })
        );
    }
}
