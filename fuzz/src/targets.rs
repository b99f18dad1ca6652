//! One function per fuzz target (`fuzz/fuzz_targets/<name>.rs` calls `targets::<name>`). Each takes the raw
//! input, must never panic on it, and asserts the laws the parser promises (round trips, idempotence, the fast
//! JSON path agreeing with serde). `tests/fuzz_corpus.rs` includes this file by path and replays
//! `fuzz/corpus/<name>/` and `fuzz/regressions/<name>/` through the same functions.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::de::DeserializeSeed as _;
use shardlens::model::KeyType;
use shardlens::model::design::{Design, GsiSpec};
use shardlens::model::key::{Decimal, canonicalize_into};
use shardlens::source::json::dialect::{Plain, Typed};
use shardlens::source::json::fast_json::{scan_item, scan_plain_item, scan_record};
use shardlens::source::json::item::{ItemSeed, KeyNames, RecordSeed, Scratch, Tag};
use shardlens::source::{FormatIn, LoadOptions, Loaded, OnBad, SourceError};

/// A target's body: takes one input, panics on a bug.
pub type Target = fn(&[u8]);

/// Every target, by name (the folders under `fuzz/corpus/`).
pub const ALL: [(&str, Target); 19] = [
    ("lines", lines),
    ("number", number),
    ("csv", csv),
    ("dynamodb_json", dynamodb_json),
    ("fast_json", fast_json),
    ("json_doc", json_doc),
    ("ion", ion),
    ("incremental_export", incremental_export),
    ("workbench", workbench),
    ("s3_manifest", s3_manifest),
    ("scenario", scenario),
    ("keyexpr", keyexpr),
    ("session", session),
    ("ion_rs", ion_rs),
    ("trace", trace),
    ("trace_log", trace_log),
    ("scenario_trace", scenario_trace),
    ("share_link", share_link),
    ("app_state", app_state),
];

/// A folder of this process's own under the system temp folder.
fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("shardlens-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp folder");
        dir
    })
}

/// A path no other call (or thread) of this process uses at the same time.
fn fresh_path(ext: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    scratch_dir().join(format!("in-{n}.{ext}"))
}

fn load_path(path: &Path, opts: &LoadOptions) -> Result<Loaded, SourceError> {
    shardlens::source::load(
        std::slice::from_ref(&path.to_path_buf()),
        opts,
        &AtomicBool::new(false),
        &mut |_| {},
    )
}

/// A design that extracts `status` for a GSI, so the loaders' value extraction runs too.
fn extracting() -> Design {
    Design {
        gsis: vec![GsiSpec::parse("g=status").expect("a valid GSI")],
        ..Design::default()
    }
}

/// Loads `data` as a file in each of `formats` (then [`FormatIn::Auto`]) and key type, stopping and then
/// skipping at bad records. A load that succeeds when stopping at the first bad record saw none, so skipping
/// must give the same keys and skip nothing. An input of odd length loads with the extracting design (the
/// input picks it, so a saved input replays the same way; one design per input keeps the runs fast).
fn load_formats(data: &[u8], ext: &str, formats: &[FormatIn], key_types: &[Option<KeyType>]) {
    let path = fresh_path(ext);
    std::fs::write(&path, data).expect("write the input");
    let design = if data.len() % 2 == 1 {
        extracting()
    } else {
        Design::default()
    };
    for &format in formats.iter().chain([&FormatIn::Auto]) {
        for &key_type in key_types {
            let mut opts = LoadOptions {
                format,
                key_type,
                design: design.clone(),
                ..LoadOptions::default()
            };
            let stopped = load_path(&path, &opts);
            opts.on_bad = OnBad::Skip;
            let skipped = load_path(&path, &opts);
            if let Ok(stopped) = stopped {
                let Ok(skipped) = skipped else {
                    panic!(
                        "{format:?}: loads when stopping at bad records, fails when skipping them"
                    )
                };
                assert_eq!(
                    skipped.skipped, 0,
                    "{format:?}: skipped a record of a good load"
                );
                assert_eq!(skipped.keys.total(), stopped.keys.total(), "{format:?}");
                assert_eq!(skipped.keys.len(), stopped.keys.len(), "{format:?}");
            }
        }
    }
    let _ = std::fs::remove_file(&path);
}

/// Plain lines: the pasted-text parser for each key type, and the lines loader.
pub fn lines(data: &[u8]) {
    for ty in [KeyType::S, KeyType::N, KeyType::B] {
        let _ = shardlens::model::text::parse_text(data, ty);
    }
    if data.first().is_some_and(|&b| b != b'{' && b != b'[') {
        load_formats(data, "txt", &[FormatIn::Lines], &[None, Some(KeyType::N)]);
    }
}

/// Number canonicalisation: canonical text parses back to the same value and is a fixed point.
pub fn number(data: &[u8]) {
    let mut out = Vec::new();
    let via_key = canonicalize_into(data, KeyType::N, usize::MAX, &mut out).map(|()| out.clone());
    let Ok(d) = Decimal::parse(data.trim_ascii()) else {
        assert!(
            via_key.is_err(),
            "canonicalize_into took what Decimal::parse refused"
        );
        return;
    };
    let canonical = d.to_canonical_string();
    assert_eq!(via_key.ok().as_deref(), Some(canonical.as_bytes()));
    let again = Decimal::parse(canonical.as_bytes())
        .unwrap_or_else(|e| panic!("canonical {canonical:?} does not parse: {e}"));
    assert_eq!(again, d, "canonical {canonical:?} is another value");
    assert_eq!(again.cmp(&d), std::cmp::Ordering::Equal);
    assert_eq!(again.to_canonical_string(), canonical, "not idempotent");
}

pub fn csv(data: &[u8]) {
    load_formats(data, "csv", &[FormatIn::Csv], &[None, Some(KeyType::N)]);
}

pub fn dynamodb_json(data: &[u8]) {
    load_formats(data, "json", &[FormatIn::DynamodbJson], &[None]);
}

pub fn json_doc(data: &[u8]) {
    let formats = [
        FormatIn::JsonArray,
        FormatIn::JsonItems,
        FormatIn::BatchWrite,
        FormatIn::ScanJson,
    ];
    load_formats(data, "json", &formats, &[None]);
}

pub fn ion(data: &[u8]) {
    load_formats(data, "ion", &[FormatIn::Ion], &[None]);
}

pub fn incremental_export(data: &[u8]) {
    load_formats(data, "json", &[FormatIn::Incremental], &[None]);
}

pub fn workbench(data: &[u8]) {
    load_formats(data, "json", &[FormatIn::Workbench], &[None]);
}

/// An S3 export folder: the input is `manifest-summary.json`, a NUL byte, then `manifest-files.json` (no NUL:
/// the summary only), next to the two data files of `tests/fixtures/export`.
pub fn s3_manifest(data: &[u8]) {
    const AAAA: &[u8] = include_bytes!(
        "../../tests/fixtures/export/AWSDynamoDB/01700000000000-abcdef12/data/aaaa.json.gz"
    );
    const BBBB: &[u8] = include_bytes!(
        "../../tests/fixtures/export/AWSDynamoDB/01700000000000-abcdef12/data/bbbb.json.gz"
    );
    let root = fresh_path("export").join("AWSDynamoDB/01700000000000-abcdef12");
    std::fs::create_dir_all(root.join("data")).expect("export folder");
    std::fs::write(root.join("data/aaaa.json.gz"), AAAA).expect("data file");
    std::fs::write(root.join("data/bbbb.json.gz"), BBBB).expect("data file");
    let (summary, files) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    std::fs::write(root.join("manifest-summary.json"), summary).expect("manifest");
    if let Some(files) = files {
        std::fs::write(root.join("manifest-files.json"), files).expect("manifest");
    }
    let design = if data.len() % 2 == 1 {
        extracting()
    } else {
        Design::default()
    };
    for on_bad in [OnBad::Stop, OnBad::Skip] {
        let opts = LoadOptions {
            design: design.clone(),
            on_bad,
            ..LoadOptions::default()
        };
        let _ = load_path(&root, &opts);
    }
    if let Some(top) = root.parent().and_then(Path::parent) {
        let _ = std::fs::remove_dir_all(top);
    }
}

/// Scenario files of the time simulation: built-in key files only (no folder), so nothing is read.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = shardlens::model::sim_file::parse(text, 1_700_000_000 / 86_400 * 86_400);
    let _ = shardlens::source::scenario::parse_scenario(text, None, "fuzz");
}

/// Key expressions: whatever parses renders back to text that parses to the same expression.
pub fn keyexpr(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(e) = shardlens::model::keyexpr::parse(text) else {
        return;
    };
    let shown = e.to_string();
    match shardlens::model::keyexpr::parse(&shown) {
        Ok(again) => assert_eq!(
            again, e,
            "{text:?} renders as {shown:?}, which parses differently"
        ),
        Err(err) => panic!("{text:?} renders as {shown:?}, which does not parse: {err}"),
    }
}

fn key_names() -> KeyNames {
    KeyNames {
        pk: "pk".into(),
        sk: Some("sk".into()),
        guessed: false,
    }
}

/// A scratch as the loaders have it after the first item: extracting `status` (and the keys) with the
/// attribute names noted, or extracting nothing; stale values from an earlier item in both.
fn stale(extract: bool) -> Scratch {
    let opts = LoadOptions {
        design: if extract {
            extracting()
        } else {
            Design::default()
        },
        ..LoadOptions::default()
    };
    let mut s = Scratch::for_load(&opts);
    if extract {
        s.names = vec!["first".into()];
        s.names_done = true;
    }
    s.pk = Some(Tag::Key(KeyType::B));
    s.pk_raw = b"stale pk".to_vec();
    s.sk = Some(Tag::Other("SS".into()));
    s.sk_raw = b"stale sk".to_vec();
    s.clear();
    s
}

/// The key attributes as the loaders read them: the raw text only counts under a key tag.
fn keys(s: &Scratch) -> [(Option<Tag>, Option<&[u8]>); 2] {
    [
        (
            s.pk.clone(),
            matches!(s.pk, Some(Tag::Key(_))).then_some(s.pk_raw.as_slice()),
        ),
        (
            s.sk.clone(),
            matches!(s.sk, Some(Tag::Key(_))).then_some(s.sk_raw.as_slice()),
        ),
    ]
}

fn agree(fast: &Scratch, slow: &Scratch, what: &str, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    assert_eq!(
        keys(fast),
        keys(slow),
        "{what}: fast path and serde disagree on keys of {text}"
    );
    assert_eq!(
        fast.values, slow.values,
        "{what}: fast path and serde disagree on values of {text}"
    );
}

/// Differential: the fast DynamoDB JSON scanner against the serde path, on every input it accepts: serde must
/// accept it too and leave the same key attributes (and extracted values) in the scratch. Records
/// (`{"Item":…}`, `{"Keys":…}`), bare typed items and plain items.
pub fn fast_json(data: &[u8]) {
    let names = key_names();
    for extract in [false, true] {
        for field in ["Item", "Keys"] {
            let mut fast = stale(extract);
            if !scan_record(data, field, &names, &mut fast) {
                continue;
            }
            let mut slow = stale(extract);
            let mut de = serde_json::Deserializer::from_slice(data);
            let found = RecordSeed {
                field,
                item: ItemSeed {
                    names: Some(&names),
                    scratch: &mut slow,
                    dialect: Typed,
                },
            }
            .deserialize(&mut de)
            .and_then(|found| de.end().map(|()| found));
            // The size the fast path measured is the second walk's (the one the serde path runs), and exact:
            // what the fast path takes has no attribute whose size the walk would estimate.
            let sized = if field == "Item" { "Item" } else { "NewImage" };
            assert_eq!(
                Ok(fast.item_bytes.map(|b| (b, None))),
                shardlens::source::json::size::record_size(data, sized, &[])
                    .map(|s| s.map(|s| (s.bytes, s.estimate))),
                "sizes differ: {}",
                String::from_utf8_lossy(data)
            );
            match found {
                Ok(true) => agree(&fast, &slow, field, data),
                Ok(false) => panic!(
                    "fast path found {field:?}, serde did not: {}",
                    String::from_utf8_lossy(data)
                ),
                Err(e) => panic!(
                    "fast path took what serde refuses ({e}): {}",
                    String::from_utf8_lossy(data)
                ),
            }
        }
        for plain in [false, true] {
            let mut fast = stale(extract);
            let took = if plain {
                scan_plain_item(data, &names, &mut fast)
            } else {
                scan_item(data, &names, &mut fast)
            };
            if !took {
                continue;
            }
            let mut slow = stale(extract);
            let mut de = serde_json::Deserializer::from_slice(data);
            let scratch = &mut slow;
            let names = Some(&names);
            let result = if plain {
                ItemSeed {
                    names,
                    scratch,
                    dialect: Plain,
                }
                .deserialize(&mut de)
            } else {
                ItemSeed {
                    names,
                    scratch,
                    dialect: Typed,
                }
                .deserialize(&mut de)
            }
            .and_then(|()| de.end());
            let what = if plain { "plain item" } else { "typed item" };
            if let Err(e) = result {
                panic!(
                    "{what}: fast path took what serde refuses ({e}): {}",
                    String::from_utf8_lossy(data)
                );
            }
            agree(&fast, &slow, what, data);
        }
    }
}

/// Session files: whatever opens gives keys or an error naming the key (never a panic), and a session saved
/// again opens to the same session (what the app writes, it reads back).
pub fn session(data: &[u8]) {
    use shardlens::source::session::Session;
    let Ok(s) = Session::parse(data) else {
        return;
    };
    let _ = s.keys();
    let json = s.to_json().expect("a parsed session serialises");
    match Session::parse(json.as_bytes()) {
        Ok(again) => assert_eq!(again, s, "a saved session opens differently: {json}"),
        Err(e) => panic!("a saved session does not open ({e}): {json}"),
    }
}

/// A key's type and text.
type IonKey = (KeyType, Vec<u8>);

/// One Ion key value as Amazon's ion-rs reads it: `Some(Ok((type, text)))` for a key type, `Some(Err(_))` for
/// a value that is no key, `None` for a float (its text and an `f64` differ past 17 digits, so not compared).
fn ion_rs_key(e: &ion_rs::Element) -> Option<Result<IonKey, String>> {
    use ion_rs::IonType;
    if e.is_null() || !e.annotations().is_empty() {
        return Some(Err(format!("{:?}", e.ion_type())));
    }
    Some(match e.ion_type() {
        IonType::String => Ok((KeyType::S, e.as_string()?.as_bytes().to_vec())),
        IonType::Int => Ok((KeyType::N, e.as_int()?.to_string().into_bytes())),
        IonType::Decimal => {
            let d = e.as_decimal()?;
            let c = d.coefficient();
            let sign = if c.is_negative() { "-" } else { "" };
            Ok((
                KeyType::N,
                format!("{sign}{}E{}", c.magnitude(), d.exponent()).into_bytes(),
            ))
        }
        // The loaders hold a `B` key as its base64 text until it is canonicalised (decoded).
        IonType::Blob => {
            use base64::Engine as _;
            let text = base64::engine::general_purpose::STANDARD.encode(e.as_blob()?);
            Ok((KeyType::B, text.into_bytes()))
        }
        IonType::Float => return None,
        other => Err(format!("{other:?}")),
    })
}

/// The partition keys (attribute `pk`) of Ion export lines as ion-rs reads them, one line at a time like the
/// loader: every top-level value must be a struct whose last `Item` or `Keys` field is a struct with a `pk`
/// (the last one). `None`: not comparable (a float key); `Err`: ion-rs refuses the input or a record.
fn ion_rs_keys(data: &[u8], pk: &str) -> Option<Result<Vec<IonKey>, String>> {
    let mut keys = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        let values = match ion_rs::Element::read_all(line) {
            Ok(v) => v,
            Err(e) => return Some(Err(format!("ion-rs: {e}"))),
        };
        for v in &values {
            let Some(record) = v.as_struct().filter(|_| v.annotations().is_empty()) else {
                return Some(Err(format!("a top-level {:?}", v.ion_type())));
            };
            let item = record
                .fields()
                .filter(|(name, _)| matches!(name.text(), Some("Item" | "Keys")))
                .last()
                .and_then(|(_, item)| item.as_struct().filter(|_| item.annotations().is_empty()));
            let Some(item) = item else {
                return Some(Err("no Item struct".to_owned()));
            };
            let Some(pk) = item.get_all(pk).last() else {
                return Some(Err("no pk".to_owned()));
            };
            match ion_rs_key(pk)? {
                Ok(key) => keys.push(key),
                Err(e) => return Some(Err(format!("pk is a {e}"))),
            }
        }
    }
    Some(Ok(keys))
}

/// Differential: the hand-written Ion reader (`source/ion.rs`) against Amazon's `ion-rs` on every input the
/// reader accepts: ion-rs must accept it too and find the same partition keys, as canonical keys with the
/// same counts, under the partition key attribute the loader took (given or guessed from the first item).
/// (ion-rs reads more of Ion than DynamoDB writes, so the other direction is not checked.)
pub fn ion_rs(data: &[u8]) {
    use shardlens::source::read::{Compression, Sink};
    let opts = LoadOptions {
        format: FormatIn::Ion,
        ..LoadOptions::default()
    };
    let mut sink = Sink::new(&opts);
    let mut reader = data;
    let ours = shardlens::source::ion::load_ion(
        &mut reader,
        Compression::None,
        Path::new("fuzz.ion"),
        &mut sink,
        &opts,
        &mut |_, _| Ok(()),
    );
    // ion-rs 1.2 takes a vertical tab as white space everywhere but inside a blob, where it is white space
    // too (Ion 1.0 `WS`) but its base64 decoding refuses it: not compared.
    if ours.is_err() || data.contains(&0x0b) {
        return;
    }
    let loaded = sink.into_loaded(data.len() as u64, None);
    let ours = loaded.keys;
    let text = String::from_utf8_lossy(data);
    let Some(pk) = loaded.key_attribute else {
        assert_eq!(ours.total(), 0, "keys without a key attribute: {text}");
        return;
    };
    let theirs = match ion_rs_keys(data, &pk) {
        None => return,
        Some(Ok(keys)) => keys,
        Some(Err(e)) => panic!("the Ion reader took what ion-rs refuses ({e}): {text}"),
    };
    let mut expected = shardlens::model::KeySet::new(ours.key_type());
    let mut buf = Vec::new();
    for (ty, raw) in &theirs {
        assert_eq!(*ty, ours.key_type(), "key types differ: {text}");
        canonicalize_into(raw, *ty, usize::MAX, &mut buf)
            .unwrap_or_else(|e| panic!("ion-rs key {raw:?} is no {ty:?} key ({e}): {text}"));
        expected.add(&buf, 1);
    }
    let sorted = |set: &shardlens::model::KeySet| {
        let mut v: Vec<(Vec<u8>, u64)> = set.iter().map(|(_, k, c)| (k.to_vec(), c)).collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&ours), sorted(&expected), "keys differ: {text}");
}

/// Every trace format, for the trace targets: detected (`None`) and then each `--trace-format`.
const TRACE_FORMATS: [Option<shardlens::source::trace::TraceFormat>; 6] = {
    use shardlens::source::trace::TraceFormat as F;
    [
        None,
        Some(F::Streams),
        Some(F::Incremental),
        Some(F::Insights),
        Some(F::Metrics),
        Some(F::Log),
    ]
};

/// Reads `data` as a trace file (from memory, as the page reads a dropped file) in each of `formats`, stopping
/// and then skipping at bad records. A read that succeeds when stopping met no bad record, so skipping must give
/// the same trace, files and observed minutes, and skip nothing; a detected read that succeeds reads the same
/// with its format named. A short trace is replayed too (the model on the trace, and CloudWatch's minutes
/// compared with it), as `simulate --trace` does.
fn read_traces(data: &[u8], formats: &[Option<shardlens::source::trace::TraceFormat>]) {
    use shardlens::source::trace::{TraceOptions, load_trace_bytes};
    let name = PathBuf::from(if data.first() == Some(&b'{') {
        "fuzz.json"
    } else {
        "fuzz.csv"
    });
    let input = [(name, data)];
    // The input picks the options that do not change what a file is (so a saved input replays the same way).
    let key = (data.len() % 3 == 1).then(|| "pk".to_owned());
    let counts_are = data
        .len()
        .is_multiple_of(2)
        .then_some(shardlens::model::trace::Dim::Write);
    for &format in formats {
        let mut opts = TraceOptions {
            format,
            key: key.clone(),
            counts_are,
            ..TraceOptions::default()
        };
        let stopped = load_trace_bytes(&input, &opts);
        opts.on_bad = OnBad::Skip;
        let skipped = load_trace_bytes(&input, &opts);
        let Ok(stopped) = stopped else {
            continue;
        };
        let Ok(skipped) = skipped else {
            panic!("{format:?}: reads when stopping at bad records, fails when skipping them")
        };
        assert_eq!(
            skipped.trace, stopped.trace,
            "{format:?}: skipping changed the trace"
        );
        assert_eq!(skipped.files, stopped.files, "{format:?}");
        assert_eq!(skipped.observed, stopped.observed, "{format:?}");
        if format.is_none() {
            let found = stopped.files.first().and_then(|f| f.format);
            let named = load_trace_bytes(
                &input,
                &TraceOptions {
                    format: found,
                    key: key.clone(),
                    counts_are,
                    ..TraceOptions::default()
                },
            );
            match named {
                Ok(named) => assert_eq!(
                    named.trace, stopped.trace,
                    "detected as {found:?}, read differently when named"
                ),
                Err(e) => panic!("detected as {found:?} and read, fails when named: {e}"),
            }
        }
        replay(&stopped);
    }
}

/// The model replays a short trace and compares CloudWatch's minutes with it (what `simulate --trace` runs);
/// a long one is left alone, so one input stays one quick execution.
fn replay(load: &shardlens::source::trace::TraceLoad) {
    use shardlens::model::simulate::{Table, agreement, run};
    use shardlens::source::trace::ObservedMinute;
    if load.trace.duration > 600 || load.trace.keys.len() > 200 {
        return;
    }
    let setup = shardlens::model::trace::replay_setup(load.trace.clone(), Table::default());
    let outcome = run(&setup);
    let _ = agreement(&setup, &outcome, &ObservedMinute::events(&load.observed));
}

/// Traffic files through every trace reader: Streams records in all their shapes, incremental exports,
/// Contributor Insights reports, CloudWatch metrics and request logs, detected and as each `--trace-format`.
pub fn trace(data: &[u8]) {
    read_traces(data, &TRACE_FORMATS);
}

/// Request logs alone (CSV or JSON lines, with throttling reasons), detected and named: their reader takes
/// whatever is not another format, so it gets a target (and the campaign's time) of its own.
pub fn trace_log(data: &[u8]) {
    read_traces(
        data,
        &[None, Some(shardlens::source::trace::TraceFormat::Log)],
    );
}

/// Scenario files whose streams replay a trace (`trace = "t.json"`): the input is the scenario's text, a line
/// holding one NUL byte, then the trace file's bytes, written beside the scenario and read as the app and
/// `simulate` read a scenario file.
pub fn scenario_trace(data: &[u8]) {
    let (text, trace) = match data.windows(3).position(|w| w == b"\n\0\n") {
        Some(at) => (&data[..at], &data[at + 3..]),
        None => (data, &[][..]),
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let dir = fresh_path("d");
    std::fs::create_dir_all(&dir).expect("a scenario folder");
    std::fs::write(dir.join("t.json"), trace).expect("write the trace");
    let scenario = dir.join("s.toml");
    std::fs::write(&scenario, text).expect("write the scenario");
    if let Ok(s) = shardlens::source::scenario::load_scenario_file(&scenario)
        && s.setup.duration <= 600
        && s.setup.trace.as_ref().is_none_or(|t| t.keys.len() <= 200)
    {
        let _ = shardlens::model::simulate::run(&s.setup);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Share links (anyone can craft one): decoding never panics, refuses what is longer than a link may be before
/// decoding, never inflates past its bound, and what it gives opens only as a session, which, made into a link
/// again, opens to the same session.
pub fn share_link(data: &[u8]) {
    use shardlens::source::link;
    use shardlens::source::session::Session;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = link::may_hold_link(text);
    // An input with a `#` as it comes, any other as the data of a link (so the mutations reach the inflater).
    let url = if text.contains('#') {
        text.to_owned()
    } else {
        format!("https://example.org/index.html#{}{text}", link::TAG)
    };
    let Ok(json) = link::decode(&url) else {
        return;
    };
    assert!(
        json.len() as u64 <= link::MAX_SESSION_JSON_BYTES,
        "a link inflated to {} bytes",
        json.len()
    );
    let Ok(session) = Session::parse(&json) else {
        return;
    };
    let _ = session.keys();
    let shared = link::shareable(session);
    if let Ok(again) = link::encode(&shared, link::DEFAULT_BASE) {
        let json = link::decode(&again).expect("a link shardlens made decodes");
        let reopened = Session::parse(&json).expect("a link shardlens made opens");
        assert_eq!(
            reopened, shared,
            "a link made again opens differently: {again}"
        );
    }
}

/// The app's persisted state (eframe's storage file: a RON map whose `app` entry holds the settings with the
/// last keys): whatever it holds gives settings or a reason, never a panic; settings read are written back to
/// the same settings; the last keys parse as the app parses them at start.
pub fn app_state(data: &[u8]) {
    use shardlens::source::app_state::read_state;
    use shardlens::source::session::Settings;
    let text = String::from_utf8_lossy(data);
    // The input as the storage file, then as the settings entry alone.
    let read = [
        read_state(&text).ok().flatten(),
        Settings::from_ron(&text).ok(),
    ];
    for settings in read.into_iter().flatten() {
        let ron = settings.to_ron().expect("read settings write back");
        let again = Settings::from_ron(&ron).expect("written settings read back");
        assert_eq!(again, settings, "settings read back differently: {ron}");
        let _ = settings.view();
        if let Some(keys) = &settings.last_keys
            && keys.len() <= 1 << 16
        {
            let _ = shardlens::model::text::parse_text(keys.as_bytes(), settings.key_type);
        }
    }
}
