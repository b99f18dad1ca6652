//! The key-expression language's tests: parsing, errors with their columns, evaluation, dates, hashing.

use std::collections::{BTreeMap, HashMap};

use super::*;

fn item(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn s(text: &str) -> Value {
    Value::S(text.to_owned())
}

fn n(text: &str) -> Value {
    Value::number(text).unwrap()
}

fn eval(expr: &str, item: &BTreeMap<String, Value>) -> Result<String, EvalError> {
    parse(expr).unwrap().eval(item, ItemSeed::default())
}

fn err(expr: &str) -> String {
    parse(expr).unwrap_err().to_string()
}

#[test]
fn literals_and_placeholders() {
    let it = item(&[
        ("tenantId", s("acme")),
        ("n", n("007.50")),
        ("blob", Value::B(vec![1, 2, 3])),
        ("ok", Value::Bool(true)),
    ]);
    assert_eq!(eval("TENANT#{tenantId}", &it).unwrap(), "TENANT#acme");
    assert_eq!(eval("{tenantId}", &it).unwrap(), "acme");
    assert_eq!(eval("BOARD#global", &it).unwrap(), "BOARD#global");
    assert_eq!(
        eval("{ tenantId }/{n}/{blob}/{ok}", &it).unwrap(),
        "acme/7.5/AQID/true"
    );
    assert_eq!(eval("{n}", &item(&[("n", n("1E3"))])).unwrap(), "1000");
    let e = parse("A{x}B{y}{x}").unwrap();
    assert_eq!(
        e.parts(),
        [
            Part::Text("A".into()),
            Part::Attr {
                path: AttrPath(vec!["x".into()]),
                format: Format::Text
            },
            Part::Text("B".into()),
            Part::Attr {
                path: AttrPath(vec!["y".into()]),
                format: Format::Text
            },
            Part::Attr {
                path: AttrPath(vec!["x".into()]),
                format: Format::Text
            },
        ]
    );
    let names: Vec<String> = e.attributes().iter().map(ToString::to_string).collect();
    assert_eq!(names, ["x", "y"]);
    assert_eq!(e.fan_out(), 1);
    assert!(!e.has_random());
}

#[test]
fn plain_attribute() {
    assert_eq!(parse("{pk}").unwrap().is_plain_attribute(), Some("pk"));
    assert_eq!(parse(" {  pk } ").unwrap().is_plain_attribute(), None);
    assert_eq!(parse("{ pk }").unwrap().is_plain_attribute(), Some("pk"));
    assert_eq!(parse("{pk:day}").unwrap().is_plain_attribute(), None);
    assert_eq!(parse("{a.b}").unwrap().is_plain_attribute(), None);
    assert_eq!(parse("x{pk}").unwrap().is_plain_attribute(), None);
    assert_eq!(parse("{random 3}").unwrap().is_plain_attribute(), None);
    assert_eq!(
        parse("{random}").unwrap().is_plain_attribute(),
        Some("random")
    );
    let e = Expr::attribute("user id").unwrap();
    assert_eq!(e.is_plain_attribute(), Some("user id"));
    assert_eq!(e.to_string(), "{`user id`}");
    assert_eq!(parse(&e.to_string()).unwrap(), e);
    assert_eq!(Expr::attribute(""), None);
}

#[test]
fn nested_paths() {
    let address = Value::M(
        [
            ("city".to_owned(), s("Oslo")),
            ("zip code".to_owned(), n("0150")),
        ]
        .into_iter()
        .collect(),
    );
    let it = item(&[
        ("address", address),
        ("tags", Value::L(vec![s("red"), s("blue")])),
        ("a.b", s("dotted")),
    ]);
    assert_eq!(eval("{address.city}", &it).unwrap(), "Oslo");
    assert_eq!(eval("{address.`zip code`}", &it).unwrap(), "150");
    assert_eq!(eval("{tags.1}", &it).unwrap(), "blue");
    assert_eq!(eval("{`a.b`}", &it).unwrap(), "dotted");
    assert_eq!(
        eval("{tags.2}", &it).unwrap_err(),
        EvalError::Missing {
            path: "tags.2".into()
        }
    );
    assert_eq!(
        eval("{address.city.x}", &it).unwrap_err().to_string(),
        "no attribute `address.city.x`"
    );
    let e = parse("{address.city}#{address.`zip code`}#{address.city:first 1}").unwrap();
    let paths = e.attributes();
    assert_eq!(paths.len(), 2);
    assert_eq!(paths[0].segments(), ["address", "city"]);
    assert_eq!(paths[1].root(), "address");
    assert_eq!(paths[1].to_string(), "address.`zip code`");

    // A loader that keeps only the needed paths, and an item given as a map value, key the same.
    let picked: Vec<(AttrPath, Value)> = paths
        .iter()
        .map(|p| (p.clone(), Attrs::get(&it, p).unwrap().clone()))
        .collect();
    let as_value = Value::M(it.clone());
    let from_map = e.eval(&it, ItemSeed::default()).unwrap();
    assert_eq!(from_map, "Oslo#150#O");
    assert_eq!(
        e.eval(picked.as_slice(), ItemSeed::default()).unwrap(),
        from_map
    );
    assert_eq!(e.eval(&as_value, ItemSeed::default()).unwrap(), from_map);
    let hashed: HashMap<String, Value> = it.clone().into_iter().collect();
    assert_eq!(e.eval(&hashed, ItemSeed::default()).unwrap(), from_map);
}

#[test]
fn dates_from_iso_strings() {
    let cases = [
        // (value, day, hour, month, year)
        (
            "2024-05-01",
            "2024-05-01",
            "2024-05-01T00",
            "2024-05",
            "2024",
        ),
        (
            "2024-05-01T13:45:10Z",
            "2024-05-01",
            "2024-05-01T13",
            "2024-05",
            "2024",
        ),
        (
            "2024-05-01T13:45:10.123456z",
            "2024-05-01",
            "2024-05-01T13",
            "2024-05",
            "2024",
        ),
        (
            "2024-05-01 13:45",
            "2024-05-01",
            "2024-05-01T13",
            "2024-05",
            "2024",
        ),
        (
            "2024-05-01T13",
            "2024-05-01",
            "2024-05-01T13",
            "2024-05",
            "2024",
        ),
        // No offset: UTC.
        (
            "2024-05-01T23:59:59",
            "2024-05-01",
            "2024-05-01T23",
            "2024-05",
            "2024",
        ),
        // Offsets convert to UTC, across a day, a month and a year.
        (
            "2024-05-01T01:00:00+02:00",
            "2024-04-30",
            "2024-04-30T23",
            "2024-04",
            "2024",
        ),
        (
            "2023-12-31T22:30:00-0530",
            "2024-01-01",
            "2024-01-01T04",
            "2024-01",
            "2024",
        ),
        (
            "2024-01-01T00:00+01",
            "2023-12-31",
            "2023-12-31T23",
            "2023-12",
            "2023",
        ),
        (
            "2024-02-29T12:00:00,5+00:00",
            "2024-02-29",
            "2024-02-29T12",
            "2024-02",
            "2024",
        ),
        (
            " 1999-12-31 ",
            "1999-12-31",
            "1999-12-31T00",
            "1999-12",
            "1999",
        ),
    ];
    for (value, day, hour, month, year) in cases {
        let it = item(&[("t", s(value))]);
        assert_eq!(eval("{t:day}", &it).unwrap(), day, "{value}");
        assert_eq!(eval("{t:hour}", &it).unwrap(), hour, "{value}");
        assert_eq!(eval("{t:month}", &it).unwrap(), month, "{value}");
        assert_eq!(eval("{t:year}", &it).unwrap(), year, "{value}");
    }
    assert_eq!(
        eval("ORDERS#{t:day}", &item(&[("t", s("2024-05-01T10:00:00Z"))])).unwrap(),
        "ORDERS#2024-05-01"
    );
}

#[test]
fn dates_from_epoch_seconds_and_milliseconds() {
    // 1714567890 s = 2024-05-01T12:51:30Z.
    for v in [
        n("1714567890"),
        n("1714567890.999"),
        n("1714567890123"),
        s("1714567890"),
        s("1714567890123"),
    ] {
        let it = item(&[("t", v.clone())]);
        assert_eq!(eval("{t:hour}", &it).unwrap(), "2024-05-01T12", "{v:?}");
        assert_eq!(eval("{t:day}", &it).unwrap(), "2024-05-01", "{v:?}");
        assert_eq!(eval("{t:month}", &it).unwrap(), "2024-05", "{v:?}");
        assert_eq!(eval("{t:year}", &it).unwrap(), "2024", "{v:?}");
    }
    let day = |v: Value| eval("{t:day}", &item(&[("t", v)])).unwrap();
    assert_eq!(day(n("0")), "1970-01-01");
    assert_eq!(day(n("-1")), "1969-12-31");
    assert_eq!(day(n("86400")), "1970-01-02");
    // The boundary: below 10^11 is seconds (year 5138), from 10^11 milliseconds (March 1973).
    assert_eq!(day(n("99999999999")), "5138-11-16");
    assert_eq!(day(n("100000000000")), "1973-03-03");
    assert_eq!(day(n("-100000000000")), "1966-10-31");
    // Leap days and century rules.
    assert_eq!(day(s("2000-02-29")), "2000-02-29");
    assert_eq!(day(n("951782400")), "2000-02-29");
    assert_eq!(day(n("4107542400")), "2100-03-01");
}

#[test]
fn values_that_are_not_dates() {
    for v in [
        s("yesterday"),
        s("2024-13-01"),
        s("2023-02-29"),
        s("2024-04-31"),
        s("2024-05-01T24:00"),
        s("2024-05-01T12:60"),
        s("2024-05-01T12:00+25:00"),
        s("2024-5-1"),
        s("2024-05-01T"),
        s("2024-05-01T12:00:00.Z"),
        s("2024-05-01Z"),
        s("2024-05-01+02:00"),
        s("2024-05-01T10:00Z+01:00"),
        s("2024-05-01T10:00+02:0"),
        s("2024-05-01Tnoon"),
        s(""),
        n("1E+20"),
        Value::Bool(true),
        Value::B(vec![1]),
        Value::Null,
    ] {
        let it = item(&[("t", v.clone())]);
        let e = eval("{t:day}", &it).unwrap_err();
        assert!(matches!(e, EvalError::NotADate { .. }), "{v:?}: {e}");
        assert_eq!(e.path(), Some("t"));
    }
    assert_eq!(
        eval("{t:day}", &item(&[("t", s("yesterday"))]))
            .unwrap_err()
            .to_string(),
        "`t` is not a date: \"yesterday\" (expected ISO-8601, as 2024-05-01T12:00:00Z, or epoch seconds \
         or milliseconds)"
    );
    let long = "x".repeat(100);
    let msg = eval("{t:year}", &item(&[("t", s(&long))]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains(&format!("\"{}\"…", "x".repeat(60))), "{msg}");
    assert!(!msg.contains(&"x".repeat(61)), "{msg}");
}

#[test]
fn first_n_counts_characters() {
    let it = item(&[
        ("name", s("Åsa-Öberg")),
        ("emoji", s("🎮🎲x")),
        ("n", n("12345.5")),
        ("short", s("ab")),
    ]);
    assert_eq!(eval("{name:first 3}", &it).unwrap(), "Åsa");
    assert_eq!(eval("{emoji:first 2}", &it).unwrap(), "🎮🎲");
    assert_eq!(eval("{n:first 3}", &it).unwrap(), "123");
    assert_eq!(eval("{short:first 10}", &it).unwrap(), "ab");
    assert_eq!(eval("{ name : first   1 }", &it).unwrap(), "Å");
}

#[test]
fn hash_n_is_stable_in_range_and_even() {
    let e = parse("BOARD#global#{playerId:hash 10}").unwrap();
    assert_eq!(e.fan_out(), 10);
    let key = |v: Value| {
        e.eval(&item(&[("playerId", v)]), ItemSeed::default())
            .unwrap()
    };
    // Stable: pinned values, and the teaching hash of the canonical bytes.
    assert_eq!(
        key(s("player-1")),
        format!("BOARD#global#{}", key_hash(b"player-1") % 10)
    );
    assert_eq!(key(s("player-1")), "BOARD#global#8");
    assert_eq!(key(n("42")), "BOARD#global#3");
    // One number, every spelling: one suffix.
    assert_eq!(key(n("42")), key(n("4.2E1")));
    assert_eq!(key(n("42")), key(n("042.0")));
    // Binary hashes its bytes.
    assert_eq!(
        key(Value::B(vec![1, 2, 3])),
        format!("BOARD#global#{}", key_hash(&[1, 2, 3]) % 10)
    );
    // In range and roughly even over 10,000 values.
    let mut buckets = [0u32; 10];
    for i in 0..10_000 {
        let k = key(s(&format!("player-{i}")));
        let b: usize = k.trim_start_matches("BOARD#global#").parse().unwrap();
        buckets[b] += 1;
    }
    for (b, &c) in buckets.iter().enumerate() {
        assert!((850..=1150).contains(&c), "bucket {b}: {c} of 10000");
    }
    assert_eq!(
        eval("{x:hash 1}", &item(&[("x", s("anything"))])).unwrap(),
        "0"
    );
}

#[test]
fn random_n_is_reproducible_and_varies() {
    let e = parse("BOARD#global#{random 10}").unwrap();
    assert!(e.has_random());
    assert_eq!(e.fan_out(), 10);
    assert!(e.attributes().is_empty());
    let empty = BTreeMap::new();
    let keys = |seed: u64| -> Vec<String> {
        (0..1000)
            .map(|i| e.eval(&empty, ItemSeed::new(seed, i)).unwrap())
            .collect()
    };
    let a = keys(7);
    assert_eq!(a, keys(7), "one seed, the same keys");
    assert_ne!(a, keys(8), "another seed, other keys");
    // Order does not matter: item 500 alone gets the key it got in the run.
    assert_eq!(e.eval(&empty, ItemSeed::new(7, 500)).unwrap(), a[500]);
    let mut counts = [0u32; 10];
    for k in &a {
        let s: usize = k.trim_start_matches("BOARD#global#").parse().unwrap();
        counts[s] += 1;
    }
    assert!(
        counts.iter().all(|&c| (50..=150).contains(&c)),
        "{counts:?}"
    );
    // Two draws in one expression are not the same draw.
    let two = parse("{random 1000}-{random 1000}").unwrap();
    let same = (0..100)
        .filter(|&i| {
            let k = two.eval(&empty, ItemSeed::new(1, i)).unwrap();
            let (x, y) = k.split_once('-').unwrap();
            x == y
        })
        .count();
    assert!(same < 5, "{same}");
    assert_eq!(two.fan_out(), 1_000_000);
    assert_eq!(
        parse("{random 1}")
            .unwrap()
            .eval(&empty, ItemSeed::new(3, 4))
            .unwrap(),
        "0"
    );
}

#[test]
fn braces_escape() {
    let it = item(&[("x", s("v"))]);
    assert_eq!(eval("{{x}}", &it).unwrap(), "{x}");
    assert_eq!(eval("{{{x}}}", &it).unwrap(), "{v}");
    assert_eq!(eval("a}}b{{", &it).unwrap(), "a}b{");
    assert_eq!(parse("{{}}").unwrap().parts(), [Part::Text("{}".into())]);
    assert!(parse("{{x}}").unwrap().attributes().is_empty());
}

#[test]
fn parse_errors_name_the_column() {
    let cases = [
        (
            "",
            "column 1: empty expression: write literal text and `{attribute}` placeholders, as `USER#{userId}`",
        ),
        ("{", "column 1: unclosed `{`"),
        ("USER#{userId", "column 6: unclosed `{`"),
        ("a{b:day", "column 2: unclosed `{`"),
        (
            "a}b",
            "column 2: `}` without a `{` (write `}}` for a literal brace)",
        ),
        (
            "x{}",
            "column 2: empty `{}`: name an attribute, as `{pk}` (write `{{}}` for literal braces)",
        ),
        (
            "{ }",
            "column 1: empty `{}`: name an attribute, as `{pk}` (write `{{}}` for literal braces)",
        ),
        (
            "TENANT#{ts:dya}",
            "column 11: unknown format `:dya` (day, hour, month, year, first N, hash N)",
        ),
        (
            "TENANT#{ts: first3}",
            "column 11: unknown format `:first3` (day, hour, month, year, first N, hash N)",
        ),
        (
            "{ts:}",
            "column 5: missing format after `:` (day, hour, month, year, first N, hash N)",
        ),
        ("{:day}", "column 2: expected an attribute name, found `:`"),
        ("{a..b}", "column 4: expected an attribute name, found `.`"),
        ("{a.}", "column 4: expected an attribute name, found `}`"),
        ("{a.", "column 4: expected an attribute name, found the end"),
        ("{``}", "column 2: expected an attribute name, found ``"),
        ("{`abc}", "column 2: unclosed `` ` `` in an attribute name"),
        ("{a b}", "column 4: expected `.`, `:` or `}`, found `b`"),
        ("{a{b}}", "column 3: expected `.`, `:` or `}`, found `{`"),
        ("{a:day x}", "column 8: expected `}`, found `x`"),
        ("{random 0}", "column 9: `{random N}` needs N ≥ 1"),
        (
            "{random }",
            "column 9: `{random N}` needs a count, as `{random 10}`",
        ),
        (
            "{random ten}",
            "column 9: `{random N}` needs a whole number N, found `ten`",
        ),
        (
            "{random -1}",
            "column 9: `{random N}` needs a whole number N, found `-1`",
        ),
        (
            "{random 1000001}",
            "column 9: `{random N}` allows N up to 1000000",
        ),
        (
            "{random 99999999999}",
            "column 9: `{random N}` allows N up to 1000000",
        ),
        (
            "{a:first}",
            "column 9: `:first N` needs a count, as `:first 3`",
        ),
        ("{a:first 0}", "column 10: `:first N` needs N ≥ 1"),
        (
            "{a:first 2.5}",
            "column 10: `:first N` needs a whole number N, found `2.5`",
        ),
        (
            "{a:first 2049}",
            "column 10: `:first N` allows N up to 2048",
        ),
        ("{a:hash 0}", "column 9: `:hash N` needs N ≥ 1"),
        (
            "{a:hash}",
            "column 8: `:hash N` needs a count, as `:hash 10`",
        ),
        (
            "{a:hash 10 }x}",
            "column 14: `}` without a `{` (write `}}` for a literal brace)",
        ),
        // Columns count characters, not bytes.
        (
            "ÅÖ#{ts:dya}",
            "column 7: unknown format `:dya` (day, hour, month, year, first N, hash N)",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(err(text), message, "{text:?}");
    }
    assert_eq!(parse("ab{").unwrap_err().column, 3);
    assert_eq!(
        parse("{random 0}").unwrap_err().kind,
        ExprErrorKind::ZeroCount(Counted::Random)
    );
    assert!("{pk}".parse::<Expr>().is_ok());
}

#[test]
fn missing_and_unusable_attributes() {
    let it = item(&[
        ("tenantId", s("acme")),
        ("gone", Value::Null),
        ("m", Value::M(BTreeMap::new())),
        ("l", Value::L(vec![])),
        ("empty", s("")),
    ]);
    let e = eval("TENANT#{tenantId}#{createdAt:day}", &it).unwrap_err();
    assert_eq!(
        e,
        EvalError::Missing {
            path: "createdAt".into()
        }
    );
    assert_eq!(e.to_string(), "no attribute `createdAt`");
    assert_eq!(e.path(), Some("createdAt"));
    assert_eq!(
        eval("{gone}", &it).unwrap_err().to_string(),
        "`gone` is NULL; a key part needs a string, number, binary or boolean"
    );
    assert!(matches!(
        eval("{m:hash 3}", &it),
        Err(EvalError::NotScalar { kind: "a map", .. })
    ));
    assert!(matches!(
        eval("{l:first 2}", &it),
        Err(EvalError::NotScalar { kind: "a list", .. })
    ));
    assert_eq!(eval("{empty}", &it), Err(EvalError::EmptyKey));
    assert_eq!(eval("x{empty}", &it).unwrap(), "x");
    let long = item(&[("x", s(&"é".repeat(1025)))]);
    assert_eq!(eval("{x}", &long), Err(EvalError::TooLong { len: 2050 }));
    assert_eq!(eval("{x:first 1024}", &long).unwrap().len(), 2048);
    // The buffer is reused and cleared.
    let expr = parse("K#{tenantId}").unwrap();
    let mut out = "stale".to_owned();
    expr.eval_into(&it, ItemSeed::default(), &mut out).unwrap();
    assert_eq!(out, "K#acme");
}

#[test]
fn display_round_trips() {
    for text in [
        "TENANT#{tenantId}#{createdAt:day}",
        "BOARD#global#{playerId:hash 10}",
        "{a:hour}{b:month}{c:year}{d:first 3}",
        "{random 7}",
        "{random}",
        "{random:day}",
        "{{literal}} and {{{x}}}",
        "{address.city}",
        "{address.`zip code`}#{`a.b`}#{`back``tick`}#{`{}`}",
        "ÅÖ#{é}",
        "plain text",
    ] {
        let e = parse(text).unwrap();
        assert_eq!(e.to_string(), text, "{text}");
        assert_eq!(parse(&e.to_string()).unwrap(), e, "{text}");
    }
    // White space and case are normalised, the meaning kept.
    let e = parse("{ a : HASH  4 }-{random   2}").unwrap();
    assert_eq!(e.to_string(), "{a:hash 4}-{random 2}");
    assert_eq!(parse(&e.to_string()).unwrap(), e);
    let odd = parse("{`back``tick`}").unwrap();
    assert_eq!(odd.attributes()[0].segments(), ["back`tick"]);
}

// ---------------------------------------------------------------------------------------------------------
// Multi-attribute keys

fn tuple(text: &str) -> KeyTuple {
    KeyTuple::parse(text).unwrap()
}

#[test]
fn a_tuple_keeps_its_values_apart_and_in_order() {
    let a_bc = item(&[("x", s("a")), ("y", s("bc"))]);
    let ab_c = item(&[("x", s("ab")), ("y", s("c"))]);
    let key = tuple("x+y");
    let seed = ItemSeed::default();
    let (k1, k2) = (
        key.eval(&a_bc, seed).unwrap(),
        key.eval(&ab_c, seed).unwrap(),
    );
    assert_eq!(k1, r#"["a","bc"]"#);
    assert_eq!(k2, r#"["ab","c"]"#);
    assert_ne!(k1, k2, "\"a\"+\"bc\" and \"ab\"+\"c\" are different keys");
    assert_ne!(key_hash(k1.as_bytes()), key_hash(k2.as_bytes()));
    // String concatenation, by contrast, cannot tell them apart.
    assert_eq!(
        eval("{x}{y}", &a_bc).unwrap(),
        eval("{x}{y}", &ab_c).unwrap()
    );
    // Order matters: (a, bc) is not (bc, a).
    let reversed = tuple("y+x").eval(&a_bc, seed).unwrap();
    assert_ne!(key_hash(reversed.as_bytes()), key_hash(k1.as_bytes()));
    // Values with the encoding's own characters stay apart too.
    let quoted = item(&[("x", s("a\",\"b")), ("y", s("c"))]);
    let plain = item(&[("x", s("a")), ("y", s("b\",\"c"))]);
    assert_ne!(
        key.eval(&quoted, seed).unwrap(),
        key.eval(&plain, seed).unwrap()
    );
    let mut out = String::new();
    tuple_text(["a", "b,c"], &mut out);
    assert_eq!(out, r#"["a","b,c"]"#);
}

#[test]
fn a_one_attribute_key_is_its_value_as_before() {
    let it = item(&[("status", s("OPEN")), ("n", n("3"))]);
    let one = tuple("status");
    assert!(!one.is_multi());
    assert_eq!(one.eval(&it, ItemSeed::default()).unwrap(), "OPEN");
    assert_eq!(tuple("{n}").eval(&it, ItemSeed::default()).unwrap(), "3");
    assert_eq!(one.to_string(), "{status}");
    // An attribute named with a `+` is written in braces.
    let odd = item(&[("a+b", s("v"))]);
    let braced = tuple("{a+b}");
    assert!(!braced.is_multi());
    assert_eq!(braced.eval(&odd, ItemSeed::default()).unwrap(), "v");
    assert_eq!(KeyTuple::parse(&braced.to_string()).unwrap(), braced);
}

#[test]
fn a_tuple_parses_expressions_and_writes_itself_back() {
    let key = tuple("tenantId + {createdAt:day} + {`odd+name`}");
    assert_eq!(key.parts().len(), 3);
    assert_eq!(key.to_string(), "{tenantId}+{createdAt:day}+{odd+name}");
    assert_eq!(KeyTuple::parse(&key.to_string()).unwrap(), key);
    let attrs: Vec<String> = key.attributes().iter().map(ToString::to_string).collect();
    assert_eq!(attrs.len(), 3);
    let it = item(&[
        ("tenantId", s("acme")),
        ("createdAt", s("2026-11-03T10:00:00Z")),
        ("odd+name", n("7")),
    ]);
    assert_eq!(
        key.eval(&it, ItemSeed::default()).unwrap(),
        r#"["acme","2026-11-03","7"]"#
    );
    assert_eq!(tuple("status+{id:hash 10}").fan_out(), 10);
    assert!(tuple("status+{id:hash 10}").has_shard_attribute());
    assert!(!tuple("{status}#{id:hash 10}").has_shard_attribute());
    assert_eq!(tuple("a+b+c+d").parts().len(), 4);
}

#[test]
fn a_tuple_has_at_most_four_attributes_each_read_from_the_item() {
    let e = KeyTuple::parse("a+b+c+d+e").unwrap_err();
    assert_eq!(e, TupleError::TooMany(5));
    assert!(e.to_string().contains("at most 4"), "{e}");
    assert_eq!(
        KeyTuple::parse("a++b").unwrap_err(),
        TupleError::EmptyPart(2)
    );
    assert!(matches!(
        KeyTuple::parse("{{A}}+{b}").unwrap_err(),
        TupleError::NoAttribute { index: 1, .. }
    ));
    assert!(matches!(
        KeyTuple::parse("a+{b").unwrap_err(),
        TupleError::Part { index: 2, .. }
    ));
    assert!(KeyTuple::new(Vec::new()).is_none());
    assert!(KeyTuple::new(vec![parse("{a}").unwrap(); 5]).is_none());
    // An item without one of the attributes has no key (a sparse index leaves it out).
    let half = item(&[("x", s("a"))]);
    assert!(matches!(
        tuple("x+y").eval(&half, ItemSeed::default()),
        Err(EvalError::Missing { .. })
    ));
    let empty = item(&[("x", s("a")), ("y", s(""))]);
    assert_eq!(
        tuple("x+y").eval(&empty, ItemSeed::default()),
        Err(EvalError::EmptyKey)
    );
}
