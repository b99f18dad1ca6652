//! Item sizes as DynamoDB counts them, through the real loaders, in every format that carries whole items: the
//! same generated items written as an export's JSON lines, an Ion export, a JSON array (typed and plain), scan
//! output and incremental export lines each measure what an independent reading of the rules
//! (`support/sizes.rs`) gives; CSV rows count their cells as strings; bad typed values are errors naming the
//! item and the attribute, or skipped and counted under `--skip-bad`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers: a failed step fails the test

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use proptest::prelude::*;
use serde_json::{Value, json};
use shardlens::source::{self, LoadOptions, Loaded, OnBad};

#[path = "support/sizes.rs"]
mod sizes;
#[path = "support/cli.rs"]
mod support;

#[derive(Debug, Clone)]
enum Attr {
    S(String),
    N(String),
    B(Vec<u8>),
    Bool(bool),
    Null,
    Ss(Vec<String>),
    Ns(Vec<String>),
    L(Vec<Attr>),
    M(Vec<(String, Attr)>),
}

fn b64(b: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b)
}

fn typed(a: &Attr) -> Value {
    match a {
        Attr::S(s) => json!({ "S": s }),
        Attr::N(n) => json!({ "N": n }),
        Attr::B(b) => json!({ "B": b64(b) }),
        Attr::Bool(b) => json!({ "BOOL": b }),
        Attr::Null => json!({ "NULL": true }),
        Attr::Ss(v) => json!({ "SS": v }),
        Attr::Ns(v) => json!({ "NS": v }),
        Attr::L(v) => json!({ "L": v.iter().map(typed).collect::<Vec<_>>() }),
        Attr::M(v) => json!({ "M": typed_map(v) }),
    }
}

fn typed_map(v: &[(String, Attr)]) -> serde_json::Map<String, Value> {
    v.iter().map(|(k, a)| (k.clone(), typed(a))).collect()
}

/// Plain JSON text (numbers written digit for digit, as a document client sends them); `None` for what the
/// document clients cannot write without a type (sets, binary).
fn plain(a: &Attr) -> Option<String> {
    Some(match a {
        Attr::S(s) => json!(s).to_string(),
        Attr::N(n) => {
            let (sign, rest) = n.strip_prefix('-').map_or(("", n.as_str()), |r| ("-", r));
            let rest = rest.trim_start_matches('0');
            format!("{sign}{rest}")
        }
        Attr::Bool(b) => b.to_string(),
        Attr::Null => "null".to_owned(),
        Attr::L(v) => format!(
            "[{}]",
            v.iter().map(plain).collect::<Option<Vec<_>>>()?.join(",")
        ),
        Attr::M(v) => plain_object(v)?,
        Attr::B(_) | Attr::Ss(_) | Attr::Ns(_) => return None,
    })
}

fn plain_object(v: &[(String, Attr)]) -> Option<String> {
    let members = v
        .iter()
        .map(|(k, a)| Some(format!("{}:{}", json!(k), plain(a)?)))
        .collect::<Option<Vec<_>>>()?;
    Some(format!("{{{}}}", members.join(",")))
}

fn ion_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A DynamoDB number as an Ion decimal (`-12.5d3`).
fn ion_number(n: &str) -> String {
    let (mantissa, exp) = n.split_once(['e', 'E']).unwrap_or((n, "0"));
    let (sign, rest) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |r| ("-", r));
    let (int, frac) = rest.split_once('.').unwrap_or((rest, ""));
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    format!("{sign}{int}.{frac}d{}", exp.trim_start_matches('+'))
}

fn ion(a: &Attr) -> String {
    match a {
        Attr::S(s) => ion_str(s),
        Attr::N(n) => ion_number(n),
        Attr::B(b) => format!("{{{{{}}}}}", b64(b)),
        Attr::Bool(b) => b.to_string(),
        Attr::Null => "null".to_owned(),
        Attr::Ss(v) => format!(
            "$dynamodb_SS::[{}]",
            v.iter().map(|s| ion_str(s)).collect::<Vec<_>>().join(",")
        ),
        Attr::Ns(v) => format!(
            "$dynamodb_NS::[{}]",
            v.iter()
                .map(|n| ion_number(n))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Attr::L(v) => format!("[{}]", v.iter().map(ion).collect::<Vec<_>>().join(",")),
        Attr::M(v) => ion_struct(v),
    }
}

fn ion_struct(v: &[(String, Attr)]) -> String {
    let members: Vec<String> = v
        .iter()
        .map(|(k, a)| format!("{}:{}", ion_str(k), ion(a)))
        .collect();
    format!("{{{}}}", members.join(","))
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z#0-9]{0,12}", "[é€😀\"\\\\\n\t a\\u{1}]{0,6}"]
}

fn number() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just(""), Just("-")],
        "0{0,2}[1-9][0-9]{0,14}",
        prop::option::of("[0-9]{1,8}0{0,2}"),
        prop::option::of(-20i32..20),
    )
        .prop_map(|(sign, int, frac, exp)| {
            let mut n = format!("{sign}{int}");
            if let Some(f) = frac {
                n = format!("{n}.{f}");
            }
            if let Some(e) = exp {
                n = format!("{n}E{e}");
            }
            n
        })
}

fn attr() -> impl Strategy<Value = Attr> {
    let leaf = prop_oneof![
        text().prop_map(Attr::S),
        number().prop_map(Attr::N),
        prop::collection::vec(any::<u8>(), 0..12).prop_map(Attr::B),
        any::<bool>().prop_map(Attr::Bool),
        Just(Attr::Null),
        prop::collection::btree_set(text(), 1..4).prop_map(|s| Attr::Ss(s.into_iter().collect())),
        prop::collection::vec(number(), 1..4).prop_map(Attr::Ns),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Attr::L),
            prop::collection::btree_map("[a-zé]{1,5}", inner, 0..4)
                .prop_map(|m| Attr::M(m.into_iter().collect())),
        ]
    })
}

/// Items keyed `k0`, `k1`, …: their other attributes generated.
fn items() -> impl Strategy<Value = Vec<Vec<(String, Attr)>>> {
    prop::collection::vec(
        prop::collection::btree_map("[a-zA-Z_é]{1,7}", attr(), 0..5),
        1..6,
    )
    .prop_map(|items| {
        items
            .into_iter()
            .enumerate()
            .map(|(i, attrs)| {
                let mut item = vec![("pk".to_owned(), Attr::S(format!("k{i}")))];
                item.extend(attrs.into_iter().filter(|(k, _)| k != "pk"));
                item
            })
            .collect()
    })
}

fn load(path: &Path, opts: &LoadOptions) -> Loaded {
    source::load(
        &[path.to_path_buf()],
        opts,
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()))
}

fn key_opts() -> LoadOptions {
    LoadOptions {
        key: Some("pk".to_owned()),
        ..LoadOptions::default()
    }
}

/// Each item's size as loaded from `path`, by key.
fn loaded_sizes(path: &Path, n: usize) -> Vec<u64> {
    let loaded = load(path, &key_opts());
    (0..n)
        .map(|i| {
            let k = loaded.keys.find(format!("k{i}").as_bytes()).unwrap();
            loaded.keys.item_bytes(k).unwrap().bytes
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_format_measures_what_the_rules_say(items in items()) {
        let dir = support::temp_dir("item_sizes", "formats");
        let typed_items: Vec<Value> = items.iter().map(|i| Value::Object(typed_map(i))).collect();
        let want: Vec<u64> = typed_items.iter().map(sizes::typed_item).collect();
        let n = items.len();

        let lines: String = typed_items.iter().map(|i| format!("{}\n", json!({ "Item": i }))).collect();
        let files = vec![
            write(&dir, "export.json", &lines),
            write(&dir, "array.json", &serde_json::to_string_pretty(&typed_items).unwrap()),
            write(&dir, "scan.json", &json!({ "Items": typed_items, "Count": n }).to_string()),
            write(
                &dir,
                "export.ion",
                &items.iter().map(|i| format!("$ion_1_0 {{Item:{}}}\n", ion_struct(i))).collect::<String>(),
            ),
        ];
        for f in &files {
            prop_assert_eq!(&loaded_sizes(f, n), &want, "{}", f.display());
        }
        // An incremental export measures each write's new image.
        let incremental: String = typed_items
            .iter()
            .map(|i| {
                let keys = json!({ "pk": i["pk"] });
                format!("{}\n", json!({ "Metadata": { "WriteTimestampMicros": { "N": "1" } }, "Keys": keys, "NewImage": i }))
            })
            .collect();
        let f = write(&dir, "incremental.json", &incremental);
        let opts = LoadOptions { format: source::FormatIn::Incremental, ..key_opts() };
        let loaded = load(&f, &opts);
        for (i, w) in want.iter().enumerate() {
            let k = loaded.keys.find(format!("k{i}").as_bytes()).unwrap();
            prop_assert_eq!(loaded.keys.item_bytes(k).map(|b| b.bytes), Some(*w));
        }
        // Plain JSON, where every item has no sets or binary: the same sizes.
        if let Some(plain_items) = items.iter().map(|i| plain_object(i)).collect::<Option<Vec<_>>>() {
            let f = write(&dir, "plain.json", &format!("[{}]", plain_items.join(",\n")));
            prop_assert_eq!(&loaded_sizes(&f, n), &want, "{}", f.display());
        }
    }
}

#[test]
fn csv_rows_are_strings_and_a_key_list_is_not_sized() {
    let dir = support::temp_dir("item_sizes", "csv");
    // pk 2+2, name 4+5 (`é` is 2 bytes), qty 3+2 (a string: CSV has no types); the empty cell is absent.
    let f = write(&dir, "items.csv", "pk,name,qty\nk1,Béla,12\nk2,,7\n");
    let loaded = load(&f, &LoadOptions::default());
    let size = |k: &[u8]| {
        loaded
            .keys
            .item_bytes(loaded.keys.find(k).unwrap())
            .unwrap()
            .bytes
    };
    assert_eq!(size(b"k1"), 4 + 9 + 5);
    assert_eq!(size(b"k2"), 4 + 4);
    let keys_only = write(&dir, "keys.csv", "pk,count\nk1,3\n");
    assert!(
        load(&keys_only, &LoadOptions::default())
            .keys
            .size_profile()
            .is_none()
    );
}

#[test]
fn items_at_the_kb_boundaries_and_near_400_kb() {
    let dir = support::temp_dir("item_sizes", "bounds");
    // "pk" + "a" + "v" + a string: 4 bytes besides the string.
    let sizes = [1024u64, 1025, 4096, 4097, 399 * 1024, 400 * 1024 + 1];
    let lines: String = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let item = json!({ "pk": { "S": format!("k{i}") }, "v": { "S": "x".repeat(*s as usize - 5) } });
            format!("{}\n", json!({ "Item": item }))
        })
        .collect();
    let f = write(&dir, "bounds.json", &lines);
    assert_eq!(loaded_sizes(&f, sizes.len()), sizes);
    // The same items as Ion, plain JSON and CSV rows (strings only): the same sizes.
    let ion: String = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "$ion_1_0 {{Item:{{pk:\"k{i}\",v:\"{}\"}}}}\n",
                "x".repeat(*s as usize - 5)
            )
        })
        .collect();
    assert_eq!(
        loaded_sizes(&write(&dir, "bounds.ion", &ion), sizes.len()),
        sizes
    );
    let plain: Vec<Value> = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| json!({ "pk": format!("k{i}"), "v": "x".repeat(*s as usize - 5) }))
        .collect();
    let plain = serde_json::to_string(&plain).unwrap();
    assert_eq!(
        loaded_sizes(&write(&dir, "bounds-plain.json", &plain), sizes.len()),
        sizes
    );
    let csv: String = std::iter::once("pk,v\n".to_owned())
        .chain(
            sizes
                .iter()
                .enumerate()
                .map(|(i, s)| format!("k{i},{}\n", "x".repeat(*s as usize - 5))),
        )
        .collect();
    assert_eq!(
        loaded_sizes(&write(&dir, "bounds.csv", &csv), sizes.len()),
        sizes
    );
    let doc = support::json(&support::run(&[
        "analyze",
        "--format",
        "json",
        f.to_str().unwrap(),
    ]));
    let by_kb: Vec<(u64, u64)> = doc["item_sizes"]["by_kb"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["kb"].as_u64().unwrap(), g["items"].as_u64().unwrap()))
        .collect();
    assert_eq!(by_kb, [(1, 1), (2, 1), (4, 1), (5, 1), (399, 1), (401, 1)]);
}

/// A value that is not what its type tag says, in an attribute that is not a key: the item is kept and
/// counted, its size an estimate, and one warning counts them and names the first (its key and attribute).
/// In a key attribute it is a bad record, whose message names Skip bad records.
#[test]
fn a_value_not_of_its_type_is_an_estimate_unless_it_is_a_key() {
    let dir = support::temp_dir("item_sizes", "bad");
    let f = write(
        &dir,
        "bad.json",
        "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n{\"Item\":{\"pk\":{\"S\":\"b\"},\"n\":{\"N\":\"abc\"}}}\n{\"Item\":{\"pk\":{\"S\":\"c\"},\"d\":{\"B\":\"%%\"}}}\n",
    );
    let loaded = load(&f, &key_opts());
    assert_eq!((loaded.keys.total(), loaded.skipped), (3, 0));
    assert_eq!(loaded.keys.estimated_sizes(), 2);
    let w = loaded.warnings.join("\n");
    assert!(
        w.contains("2 items kept with an attribute (not a key) that is not a DynamoDB typed value")
            && w.contains("the first: item \"b\": attribute \"n\": \"abc\" is not a number (N)"),
        "{w}"
    );
    // "abc" counted as its 3 bytes: n 1+3, pk 2+1.
    let b = loaded.keys.find(b"b").unwrap();
    assert_eq!(loaded.keys.item_bytes(b).unwrap().bytes, 3 + 4);
    // The same in an array of items.
    let g = write(
        &dir,
        "bad-array.json",
        "[{\"pk\":{\"S\":\"a\"}},\n{\"pk\":{\"S\":\"b\"},\"m\":{\"M\":{\"x\":{\"NS\":[\"1\",\"one\"]}}}}]",
    );
    let loaded = load(&g, &key_opts());
    assert_eq!(loaded.keys.total(), 2);
    assert_eq!(loaded.keys.estimated_sizes(), 1);
    assert!(
        loaded.warnings.join("\n").contains(
            "1 item kept with an attribute (not a key) that is not a DynamoDB typed value; its size is \
             estimated from what could be read (the first: item \"b\": attribute \"m.x\": \"one\" is not a number (NS))"
        ),
        "{:?}",
        loaded.warnings
    );
    // In the key: a bad record, named with its line, that says how to skip it.
    let k = write(
        &dir,
        "bad-key.json",
        "{\"Item\":{\"pk\":{\"N\":\"1\"}}}\n{\"Item\":{\"pk\":{\"N\":\"abc\"}}}\n",
    );
    let e = source::load(
        std::slice::from_ref(&k),
        &key_opts(),
        &AtomicBool::new(false),
        &mut |_| {},
    )
    .map(|_| ())
    .unwrap_err();
    let said = e.message().in_words(source::hint::Hint::flag);
    assert!(
        said.contains("line 2: attribute \"pk\": \"abc\" is not a number (N)")
            && said.contains("--skip-bad"),
        "{said}"
    );
    let skipping = LoadOptions {
        on_bad: OnBad::Skip,
        ..key_opts()
    };
    let loaded = load(&k, &skipping);
    assert_eq!((loaded.keys.total(), loaded.skipped), (1, 1));
}

/// A key whose value serde refuses outright (`{"S": 5}`, a number where the tag wants a string), on a line after
/// the first: a bad record that says how to skip it, as JSON lines and in an array of items; the CLI counts the
/// skipped one in the singular.
#[test]
fn a_key_serde_refuses_is_a_bad_record_that_says_how_to_skip_it() {
    let dir = support::temp_dir("item_sizes", "serde-key");
    let lines = write(
        &dir,
        "lines.json",
        "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n{\"Item\":{\"pk\":{\"S\":5}}}\n",
    );
    let array = write(
        &dir,
        "array.json",
        "[{\"pk\":{\"S\":\"a\"}},\n{\"pk\":{\"S\":5}}]",
    );
    for f in [&lines, &array] {
        let e = source::load(
            std::slice::from_ref(f),
            &key_opts(),
            &AtomicBool::new(false),
            &mut |_| {},
        )
        .map(|_| ())
        .unwrap_err();
        let said = e.message().in_words(source::hint::Hint::flag);
        assert!(
            said.contains("invalid type: integer `5`") && said.contains("--skip-bad"),
            "{}: {said}",
            f.display()
        );
    }
    let out = support::run(&["analyze", "--skip-bad", lines.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("shardlens: skipped 1 bad record\n"), "{err}");
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/estimates")
        .join(name)
}

/// A Workbench model shaped like AWS's sample GamePlayerProfiles, one of whose items holds
/// `"Loadout": {"M": {"M": {"HP": {"N": "50"}}}}`: it loads (it was refused while item sizes were strict),
/// every item counted, the CLI warns naming the item and the attribute, and the health report says how many
/// sizes are estimates, in JSON and in the table.
#[test]
fn a_workbench_model_with_a_malformed_map_loads_with_an_estimated_size() {
    let model = fixture("workbench-game-profiles.json");
    let out = support::run(&["analyze", "--format", "json", model.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = support::json(&out);
    assert_eq!(doc["total"], 5, "{err}");
    assert!(
        err.contains(
            "1 item kept with an attribute (not a key) that is not a DynamoDB typed value; its size is \
             estimated from what could be read (the first: item \"player-0002\": attribute \"Loadout.M\": \
             \"HP\" is not a DynamoDB type"
        ),
        "{err}"
    );
    assert_eq!(doc["health"]["estimated_sizes"], 1, "{}", doc["health"]);
    assert_eq!(doc["health"]["items"], 5);
    let table = support::run(&["analyze", model.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("estimated: the sizes of 1 of 5 items are estimates"),
        "{text}"
    );

    // DynamoDB JSON lines: a number that is not one and a list member of no type, both kept.
    let lines = fixture("items-estimated.json");
    let out = support::run(&["analyze", "--format", "json", lines.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc = support::json(&out);
    assert_eq!(doc["total"], 4, "{err}");
    assert_eq!(doc["health"]["estimated_sizes"], 2);
    assert!(
        err.contains("2 items kept")
            && err.contains("item \"order-2\": attribute \"total\": \"abc\""),
        "{err}"
    );

    // A key that is not a number stays a bad record, and the message says how to skip it.
    let keys = fixture("key-not-a-number.json");
    let out = support::run(&["analyze", keys.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.contains("line 2: attribute \"id\": \"abc\" is not a number (N)")
            && err.contains("--skip-bad"),
        "{err}"
    );
    let doc = support::json(&support::run(&[
        "analyze",
        "--skip-bad",
        "--format",
        "json",
        keys.to_str().unwrap(),
    ]));
    assert_eq!(doc["total"], 2);
}
