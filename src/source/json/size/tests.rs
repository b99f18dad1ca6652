use proptest::prelude::*;

use super::*;

/// An attribute value, to write in each format and to size independently of the walkers.
#[derive(Debug, Clone)]
pub(crate) enum Attr {
    S(String),
    N(String),
    B(Vec<u8>),
    Bool(bool),
    Null,
    Ss(Vec<String>),
    Ns(Vec<String>),
    Bs(Vec<Vec<u8>>),
    L(Vec<Attr>),
    M(Vec<(String, Attr)>),
}

/// The rules as the developer guide states them, written without the walkers' code: a number's significant
/// digits by trimming its text.
pub(crate) fn reference_size(a: &Attr) -> u64 {
    match a {
        Attr::S(s) => s.len() as u64,
        Attr::N(n) => reference_number(n),
        Attr::B(b) => b.len() as u64,
        Attr::Bool(_) | Attr::Null => 1,
        Attr::Ss(v) => v.iter().map(|s| s.len() as u64).sum(),
        Attr::Ns(v) => v.iter().map(|n| reference_number(n)).sum(),
        Attr::Bs(v) => v.iter().map(|b| b.len() as u64).sum(),
        Attr::L(v) => 3 + v.iter().map(|e| 1 + reference_size(e)).sum::<u64>(),
        Attr::M(v) => {
            3 + v
                .iter()
                .map(|(k, e)| 1 + k.len() as u64 + reference_size(e))
                .sum::<u64>()
        }
    }
}

fn reference_number(n: &str) -> u64 {
    let mantissa = n.split(['e', 'E']).next().unwrap_or_default();
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let trimmed = digits.trim_start_matches('0').trim_end_matches('0');
    let len = trimmed.len().clamp(1, 38) as u64;
    len.div_ceil(2) + 1
}

pub(crate) fn reference_item(item: &[(String, Attr)]) -> u64 {
    item.iter()
        .map(|(k, v)| k.len() as u64 + reference_size(v))
        .sum()
}

/// A JSON string, non-ASCII written as `\u` escapes (surrogate pairs above the BMP) when `ascii`.
fn json_str(s: &str, ascii: bool) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ascii && !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn b64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// DynamoDB JSON of one value.
pub(crate) fn typed_json(a: &Attr, ascii: bool) -> String {
    let list = |v: Vec<String>| v.join(",");
    match a {
        Attr::S(s) => format!("{{\"S\":{}}}", json_str(s, ascii)),
        Attr::N(n) => format!("{{\"N\":\"{n}\"}}"),
        Attr::B(b) => format!("{{\"B\":\"{}\"}}", b64(b)),
        Attr::Bool(b) => format!("{{\"BOOL\":{b}}}"),
        Attr::Null => "{\"NULL\":true}".to_owned(),
        Attr::Ss(v) => format!(
            "{{\"SS\":[{}]}}",
            list(v.iter().map(|s| json_str(s, ascii)).collect())
        ),
        Attr::Ns(v) => format!(
            "{{\"NS\":[{}]}}",
            list(v.iter().map(|n| format!("\"{n}\"")).collect())
        ),
        Attr::Bs(v) => format!(
            "{{\"BS\":[{}]}}",
            list(v.iter().map(|b| format!("\"{}\"", b64(b))).collect())
        ),
        Attr::L(v) => format!(
            "{{\"L\":[{}]}}",
            list(v.iter().map(|e| typed_json(e, ascii)).collect())
        ),
        Attr::M(v) => format!("{{\"M\":{}}}", typed_members_json(v, ascii)),
    }
}

pub(crate) fn typed_members_json(v: &[(String, Attr)], ascii: bool) -> String {
    let members: Vec<String> = v
        .iter()
        .map(|(k, e)| format!("{}:{}", json_str(k, ascii), typed_json(e, ascii)))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// Plain JSON of one value (the document clients' mapping); `None` for sets and binary, which it cannot
/// write.
pub(crate) fn plain_json(a: &Attr, ascii: bool) -> Option<String> {
    Some(match a {
        Attr::S(s) => json_str(s, ascii),
        Attr::N(n) => plain_number(n),
        Attr::Bool(b) => b.to_string(),
        Attr::Null => "null".to_owned(),
        Attr::L(v) => format!(
            "[{}]",
            v.iter()
                .map(|e| plain_json(e, ascii))
                .collect::<Option<Vec<_>>>()?
                .join(",")
        ),
        Attr::M(v) => plain_members_json(v, ascii)?,
        Attr::B(_) | Attr::Ss(_) | Attr::Ns(_) | Attr::Bs(_) => return None,
    })
}

/// A generated number as JSON writes it: no leading zeros in the integer part (the significant digits stay).
fn plain_number(n: &str) -> String {
    let (sign, rest) = n.strip_prefix('-').map_or(("", n), |r| ("-", r));
    let int_end = rest.find(['.', 'E']).unwrap_or(rest.len());
    let (int, tail) = rest.split_at(int_end);
    let int = int.trim_start_matches('0');
    format!("{sign}{}{tail}", if int.is_empty() { "0" } else { int })
}

pub(crate) fn plain_members_json(v: &[(String, Attr)], ascii: bool) -> Option<String> {
    let members = v
        .iter()
        .map(|(k, e)| Some(format!("{}:{}", json_str(k, ascii), plain_json(e, ascii)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(format!("{{{}}}", members.join(",")))
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z#0-9]{0,12}",
        "[\\u{0}-\\u{7f}]{0,8}",
        "[é€😀\"\\\\\n\t a]{0,6}",
    ]
}

fn number() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(""), Just("-")],
        "0{0,3}[0-9]{1,45}",
        prop::option::of("[0-9]{1,12}0{0,3}"),
        prop::option::of(-40i32..40),
    )
        .prop_map(|(sign, int, frac, exp)| {
            let mut n = format!("{sign}{int}");
            if let Some(f) = frac {
                n.push('.');
                n.push_str(&f);
            }
            if let Some(e) = exp {
                n.push_str(&format!("E{e}"));
            }
            n
        })
}

pub(crate) fn attr() -> impl Strategy<Value = Attr> {
    let leaf = prop_oneof![
        text().prop_map(Attr::S),
        number().prop_map(Attr::N),
        prop::collection::vec(any::<u8>(), 0..20).prop_map(Attr::B),
        any::<bool>().prop_map(Attr::Bool),
        Just(Attr::Null),
        prop::collection::vec(text(), 1..4).prop_map(Attr::Ss),
        prop::collection::vec(number(), 1..4).prop_map(Attr::Ns),
        prop::collection::vec(prop::collection::vec(any::<u8>(), 1..6), 1..3).prop_map(Attr::Bs),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Attr::L),
            prop::collection::vec(("[a-zé]{1,6}", inner), 0..4).prop_map(Attr::M),
        ]
    })
}

pub(crate) fn item() -> impl Strategy<Value = Vec<(String, Attr)>> {
    prop::collection::vec(("[a-zA-Z_é]{1,8}", attr()), 0..6)
}

/// [`typed_item_size`] of an item keyed by `pk` (or `id`) whose size must be exact.
fn exact_size(text: &[u8]) -> Result<u64, String> {
    typed_item_size(text, &["pk", "id"]).map(|s| {
        assert_eq!(s.estimate, None, "{}", String::from_utf8_lossy(text));
        s.bytes
    })
}

/// [`record_size`] of a record keyed by `pk` whose size must be exact.
fn exact_record(line: &[u8], field: &str) -> Result<Option<u64>, String> {
    record_size(line, field, &["pk"]).map(|s| {
        s.map(|s| {
            assert_eq!(s.estimate, None, "{}", String::from_utf8_lossy(line));
            s.bytes
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn typed_and_plain_sizes_follow_the_rules(item in item(), ascii in any::<bool>()) {
        let want = reference_item(&item);
        let typed = typed_members_json(&item, ascii);
        prop_assert_eq!(exact_size(typed.as_bytes()), Ok(want), "{}", typed);
        let line = format!("{{\"Item\":{typed}}}");
        prop_assert_eq!(exact_record(line.as_bytes(), "Item"), Ok(Some(want)));
        // Plain JSON (where the item has no sets or binary) sizes the same.
        if let Some(plain) = plain_members_json(&item, ascii) {
            prop_assert_eq!(plain_item_size(plain.as_bytes()), Ok(want), "{}", plain);
        }
    }
}

#[test]
fn every_type_by_hand() {
    let item = br#"{"id":{"S":"abc"},"n":{"N":"-0012.3400"},"b":{"B":"AAEC"},"ok":{"BOOL":true},
        "z":{"NULL":true},"l":{"L":[{"S":"x"},{"NULL":true}]},"m":{"M":{"k":{"S":"vv"}}},
        "ss":{"SS":["a","bb"]},"ns":{"NS":["1","100","12345"]},"bs":{"BS":["AAEC","AA=="]},
        "e":{"L":[]},"em":{"M":{}},"u":{"S":"\u00e9\ud83d\ude00\u20ac"}}"#;
    // id 2+3, n 1+3, b 1+3, ok 2+1, z 1+1, l 1+(3+2+2), m 1+(3+1+1+2), ss 2+3, ns 2+(2+2+4), bs 2+(3+1),
    // e 1+3, em 2+3, u 1+(2+4+3)
    let want = 5 + 4 + 4 + 3 + 2 + 8 + 8 + 5 + 10 + 6 + 4 + 5 + 10;
    assert_eq!(exact_size(item), Ok(want));
}

#[test]
fn items_at_the_unit_boundaries() {
    // "pk" + 1,022 bytes of string: exactly 1 KB, one write unit; one more byte makes two.
    for (len, size) in [(1022, 1024), (1023, 1025), (4094, 4096), (4095, 4097)] {
        let item = format!(r#"{{"pk":{{"S":"{}"}}}}"#, "x".repeat(len));
        assert_eq!(exact_size(item.as_bytes()), Ok(size));
    }
}

#[test]
fn a_large_string_set_is_its_members_not_its_text() {
    // 40,000 members of 8 bytes: 320,000 bytes by DynamoDB's count, under 400 KB, though its JSON is ~480 KB.
    let members: Vec<String> = (0..40_000).map(|i| format!("\"m{i:07}\"")).collect();
    let item = format!(
        r#"{{"pk":{{"S":"a"}},"tags":{{"SS":[{}]}}}}"#,
        members.join(",")
    );
    assert!(item.len() > 400 * 1024);
    assert_eq!(exact_size(item.as_bytes()), Ok(3 + 4 + 320_000));
}

#[test]
fn bad_values_name_the_attribute() {
    let cases: [(&[u8], &str); 8] = [
        (
            br#"{"pk":{"S":"a"},"n":{"N":"abc"}}"#,
            r#"attribute "n": "abc" is not a number (N)"#,
        ),
        (
            br#"{"pk":{"S":"a"},"b":{"B":"not base64!"}}"#,
            r#"attribute "b": "not base64!" is not base64 (B)"#,
        ),
        (
            br#"{"pk":{"S":"a"},"m":{"M":{"x":{"L":[{"S":"ok"},{"N":"1.2.3"}]}}}}"#,
            r#"attribute "m.x[1]": "1.2.3" is not a number (N)"#,
        ),
        (
            br#"{"pk":{"S":"a"},"t":{"X":"1"}}"#,
            r#"attribute "t": "X" is not a DynamoDB type (S, N, B, BOOL, NULL, SS, NS, BS, L or M)"#,
        ),
        (
            br#"{"pk":{"S":"a"},"t":"plain"}"#,
            r#"attribute "t": not a typed value; expected an object like {"S": "…"}"#,
        ),
        (
            br#"{"pk":{"S":"a"},"t":{"S":"a","N":"1"}}"#,
            r#"attribute "t": more than one type tag (S and another)"#,
        ),
        (
            br#"{"pk":{"S":"a"},"s":{"NS":["1","x"]}}"#,
            r#"attribute "s": "x" is not a number (NS)"#,
        ),
        (
            br#"{"pk":{"S":"a"},"s":{"S":5}}"#,
            r#"attribute "s": S is not a string"#,
        ),
    ];
    for (item, want) in cases {
        // In a key attribute, an error (the record is bad); in any other, the item is kept, its size an
        // estimate that names the same.
        let text = std::str::from_utf8(item).unwrap();
        let name = text[16..].split('"').nth(1).unwrap();
        assert_eq!(
            typed_item_size(item, &["pk", name]),
            Err(want.to_owned()),
            "{text}"
        );
        let kept = typed_item_size(item, &["pk"]).unwrap();
        assert_eq!(kept.estimate.as_deref(), Some(want), "{text}");
        let line = format!("{{\"Item\":{text}}}");
        assert_eq!(
            record_size(line.as_bytes(), "Item", &["pk"]),
            Ok(Some(kept.clone())),
            "{text}"
        );
        assert_eq!(
            record_size(line.as_bytes(), "Item", &["pk", name]),
            Err(want.to_owned()),
            "{text}"
        );
    }
}

/// AWS's sample Workbench model GamePlayerProfiles holds `{"M": {"M": {"HP": {"N": "50"}}}}`: a map whose member
/// is a plain map of typed values. Kept, sized from what it holds, the size said to be an estimate; the
/// attributes after it are sized as usual.
#[test]
fn a_malformed_attribute_that_is_not_a_key_makes_an_estimate() {
    let item =
        br#"{"pk":{"S":"p1"},"ItemAttributes":{"M":{"M":{"HP":{"N":"50"}}}},"n":{"N":"10"}}"#;
    let got = typed_item_size(item, &["pk"]).unwrap();
    // pk 2+2; ItemAttributes 14 + map (3 + 1 + "M" + plain map (3 + 1 + "HP" + 50 as N: 2)); n 1+2
    assert_eq!(got.bytes, 4 + 14 + (3 + 1 + 1 + (3 + 1 + 2 + 2)) + 3);
    assert_eq!(
        got.estimate.as_deref(),
        Some(
            r#"attribute "ItemAttributes.M": "HP" is not a DynamoDB type (S, N, B, BOOL, NULL, SS, NS, BS, L or M)"#
        )
    );
    // Only the first is named; invalid JSON after it is still invalid.
    let two = br#"{"pk":{"S":"p1"},"a":{"N":"x"},"b":{"N":"y"}}"#;
    let got = typed_item_size(two, &["pk"]).unwrap();
    assert_eq!(got.bytes, 4 + 2 + 2);
    assert_eq!(
        got.estimate.as_deref(),
        Some(r#"attribute "a": "x" is not a number (N)"#)
    );
    assert_eq!(
        typed_item_size(br#"{"pk":{"S":"p1"},"a":{"N":"x"},"b":{"N":}}"#, &["pk"]),
        Err("invalid JSON".to_owned())
    );
    // A value with every tag null but one (Go's marshalling) is read as its one tag: exact, no estimate.
    let go = br#"{"pk":{"S":"p1"},"a":{"B":null,"N":null,"S":"data","SS":null}}"#;
    assert_eq!(typed_item_size(go, &["pk"]), Ok(ItemSize::exact(4 + 1 + 4)));
}

#[test]
fn plain_items_as_the_document_clients_store_them() {
    // pk 2+1, n 1+(3 digits: 2+1), ok 2+1, z 1+1, l 1+(3+1+2+1+1), m 1+(3+1+1+3)
    let item = br#"{"pk":"a","n":-1.25,"ok":true,"z":null,"l":[1,"x"],"m":{"k":"vvv"}}"#;
    assert_eq!(plain_item_size(item), Ok(3 + 4 + 3 + 2 + 9 + 9));
}

#[test]
fn incremental_lines_size_their_new_image() {
    let line =
        br#"{"Keys":{"pk":{"S":"a"}},"NewImage":{"pk":{"S":"a"},"v":{"N":"10"}},"OldImage":null}"#;
    assert_eq!(exact_record(line, "NewImage"), Ok(Some(3 + 3)));
    let delete = br#"{"Keys":{"pk":{"S":"a"}},"OldImage":{"pk":{"S":"a"}}}"#;
    assert_eq!(exact_record(delete, "NewImage"), Ok(None));
}

/// The compact `{"S":"…"}` / `{"N":"…"}` shortcut gives what the token-by-token walk gives, value for value
/// and error for error: each case is sized as written and with white space, which the shortcut leaves alone.
#[test]
fn compact_scalars_size_as_spaced_ones() {
    let values = [
        r#"{"S":"plain"}"#,
        r#"{"S":"\u00e9\n"}"#,
        r#"{"S":""}"#,
        r#"{"N":"-12.500"}"#,
        r#"{"N":"1e3"}"#,
        r#"{"N":"abc"}"#,
        r#"{"N":"1\u0030"}"#,
        r#"{"S":"a","N":"1"}"#,
        r#"{"S":"unterminated}"#,
        r#"{"B":"AAEC"}"#,
        r#"{"N":"1"]"#,
    ];
    for v in values {
        let spaced = v
            .replace("{\"", "{ \"")
            .replace("\":", "\" :")
            .replace('}', " }");
        let compact = typed_item_size(
            format!(r#"{{"pk":{{"S":"a"}},"v":{v}}}"#).as_bytes(),
            &["pk"],
        );
        let walked = typed_item_size(
            format!(r#"{{"pk":{{"S":"a"}},"v":{spaced}}}"#).as_bytes(),
            &["pk"],
        );
        assert_eq!(compact, walked, "{v} against {spaced}");
    }
    assert_eq!(
        exact_size(br#"{"pk":{"S":"a"},"v":{"S":"\u00e9"}}"#),
        Ok(2 + 1 + 1 + 2)
    );
}
