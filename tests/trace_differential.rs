//! A differential property test of the trace readers (issue 61): random writes, written by this file's own
//! writers as DynamoDB Streams `get-records` pages, Lambda events, Streams records as JSON lines, a CSV request
//! log, a JSON-lines request log and incremental export lines, read through `load_traces` (what `shardlens
//! simulate --trace FILE` calls) both by detection and with `--trace-format`, give the same trace and the same
//! replay.
//!
//! **What is generated.** A table (partition key S or N, with or without a sort key S or N, its key attributes
//! `pk`/`sk` or `PK`/`SK`), a Streams view type (`NEW_AND_OLD_IMAGES`, `NEW_IMAGE`, `KEYS_ONLY`), `--item-size`,
//! optionally `--key`, and 1 to 120 writes over up to 4 minutes (often under 10 seconds, so that some throttle)
//! from a random second of a day: partition keys
//! from a small pool (skewed to the first, so some are hot) of awkward strings (quotes, commas, `#`, `|`, `;`,
//! backslashes, tabs, newlines, accents, CJK, emoji, leading and trailing blanks) or numbers spelled in
//! equivalent forms (`12`, `12.00`, `12E0`, `1.2E1`); sort keys random, increasing with time, few or one;
//! INSERT, MODIFY, REMOVE and TTL deletes (REMOVE by `dynamodb.amazonaws.com`); items of 0 to ~3,600 bytes of
//! text in characters of 1 to 4 UTF-8 bytes, with or without a TTL number and a boolean, so that write units
//! (⌈bytes / 1 KB⌉ of the larger image, DynamoDB's item size) differ; the writes in time order or not; times
//! spelled as each format may (Streams: integer, float, E-notation seconds; logs: ISO 8601 with `Z`, fractions,
//! `+02:00` or `-0530`, a space and no zone, epoch seconds or milliseconds). The table is provisioned with 1 to
//! 19 WCU over 1 to 3 partitions (burst bank full or empty), or on-demand with or without a maximum write
//! throughput, so that about a third of the replays throttle.
//!
//! **What is compared.** Every file's trace, as canonical sorted rows (second, key, units, requests) and key
//! totals, against an oracle computed here from the writes (and, for writes in time order, each key's
//! sort-key kind); every file's whole `Trace` against the first's (key order, hashes, sort-key kinds); and the
//! replay of each on the same table (`run_streaming`: the `Outcome`, with its per-second series, minutes and
//! events, and the `Timeline`, per partition and second served, throttled and burst) against the first's.
//! Each file also says its format, how it was chosen, its records and keys, and that it skipped none.
//! `get-records` pages mark a TTL delete as the API does (`userIdentity.PrincipalId`), Lambda events and the
//! JSON lines as Lambda does (`userIdentity.principalId`).
//!
//! **What a format cannot express, and what the test does about it** (none of it weakens an assertion: the
//! generator keeps to what the compared files can all say, or the pair is not compared):
//! - Streams times are whole seconds (`ApproximateCreationDateTime` is rounded down to the second), so every
//!   file is given whole seconds: an export's microseconds or a log's milliseconds would let the builder judge
//!   a key's sort keys in write order at a finer grain than Streams can (the trace's seconds would agree).
//! - A request log is text: its key is a string (an N key is written in its canonical decimal form, the form
//!   the Streams reader canonicalises `12.00` or `1.2E1` to), and a sort key that reads as a number is one;
//!   so S sort keys start with a letter or `#`, never a digit or sign. A key of blanks alone would be an empty
//!   cell (no key), so keys are never only blanks. A log has no item images: the test writes the larger
//!   image's DynamoDB size in a `size` column (empty when the view carries no image: `--item-size` then, as
//!   for a Streams record without images), and a TTL delete, which no application logs, as a `DeleteItem` of
//!   `units` 0, what the Streams reader makes of it.
//! - A JSON-lines log takes its columns from its first line, so every line carries every field (`null` where
//!   there is none).
//! - An incremental export holds each changed item once, at its last write, and has no `userIdentity`: it
//!   cannot express a second write to an item in its window, nor tell a TTL delete from the application's. So
//!   the export is compared, beside Streams pages of the same writes, on the writes that are their item's only
//!   write in the window and not TTL deletes (a case where there are none skips that pair). Its lines carry
//!   the images the view type has (`KEYS_ONLY` is a stream view, not an export's: its lines carry `Keys` alone,
//!   costed at `--item-size` like a `KEYS_ONLY` record).
//! - Every file holds the writes in the same order: the builder's judgement of a key's sort keys checks each
//!   record against the earliest and latest seen (**\[ours\]**, docs/traces.md), which can depend on the
//!   order records arrive in when they are not in time order; that is the builder's, not a reader's.
//!
//! `PROPTEST_CASES` raises the case count (64 by default: 5 to 8 s in a debug build; 5,000 passed in 543 s).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a failed step fails the test

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{Map, Value, json};
use shardlens::model::simulate::{Billing, SortKey, Table, run_streaming};
use shardlens::model::trace::{Dim, Trace, replay_setup};
use shardlens::source::trace::{TraceFormat, TraceLoad, TraceOptions, load_traces};

/// 2026-06-23T00:00:00Z.
const DAY: i64 = 1_782_172_800;

// ---------------------------------------------------------------------------------------------------------
// The writes

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    Insert,
    Modify,
    Remove,
    /// REMOVE by DynamoDB's TTL process.
    TtlDelete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    NewAndOld,
    NewImage,
    KeysOnly,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkMode {
    None,
    Random,
    Increasing,
    Few,
    One,
}

/// A partition key of the pool.
#[derive(Debug, Clone)]
enum Pk {
    S(String),
    N(i64),
}

/// A sort key.
#[derive(Debug, Clone, PartialEq)]
enum Sk {
    S(String),
    N(i64),
}

/// An item's attributes besides its keys.
#[derive(Debug, Clone)]
struct Body {
    data: String,
    ttl: Option<i64>,
    flag: Option<bool>,
}

#[derive(Debug, Clone)]
struct Write {
    pk: usize,
    /// How an N key is spelled in this record (0..4).
    spelling: u8,
    sk: Option<Sk>,
    /// Seconds from the case's start.
    second: i64,
    event: Event,
    old: Option<Body>,
    new: Option<Body>,
    /// How the record's time is written (each writer reads it its own way).
    time_style: u8,
    /// A number to make its sort key of, once the writes' order is known.
    seed: u32,
}

#[derive(Debug, Clone)]
struct Case {
    pool: Vec<Pk>,
    names: (&'static str, &'static str),
    sk_mode: SkMode,
    view: View,
    item_size: u64,
    pass_key: bool,
    /// Unix seconds of the writes' second 0.
    start: i64,
    table: Table,
    pretty: bool,
    page: usize,
    writes: Vec<Write>,
    /// Whether the writes are in time order.
    sorted: bool,
}

impl Case {
    fn has_sk(&self) -> bool {
        self.sk_mode != SkMode::None
    }

    /// The key's canonical text: what the trace calls it.
    fn key_name(&self, w: &Write) -> String {
        match &self.pool[w.pk] {
            Pk::S(s) => s.clone(),
            Pk::N(n) => n.to_string(),
        }
    }

    fn micros(&self, w: &Write) -> i64 {
        (self.start + w.second) * 1_000_000
    }
}

/// Keys as awkward as a key may be: every CSV and JSON special, blanks around, several UTF-8 widths. Never
/// blanks alone (a log's empty cell).
fn awkward_key() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9#\"',;|: é日🦀\\\\\n\r\t.-]{1,10}"
        .prop_filter("a key of blanks alone is an empty cell in a log", |s| {
            !s.trim().is_empty()
        })
}

fn pool() -> impl Strategy<Value = Vec<Pk>> {
    prop_oneof![
        3 => prop::collection::vec(awkward_key().prop_map(Pk::S), 1..7),
        1 => prop::collection::vec(
            prop_oneof![-1_000i64..1_000, -2_000_000_000i64..2_000_000_000].prop_map(Pk::N),
            1..7
        ),
    ]
}

fn body() -> impl Strategy<Value = Body> {
    (
        prop::sample::select(vec!['x', 'é', '日', '🦀']),
        prop_oneof![0usize..300, 0usize..900],
        prop::option::of(1_700_000_000i64..1_900_000_000),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(c, n, ttl, flag)| Body {
            data: std::iter::repeat_n(c, n).collect(),
            ttl,
            flag,
        })
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        4 => Just(Event::Insert),
        3 => Just(Event::Modify),
        1 => Just(Event::Remove),
        1 => Just(Event::TtlDelete),
    ]
}

/// A write before the case gives it its sort key and second: (key pick, spelling, second, event, old, new,
/// time style, a number to make a sort key of).
type RawWrite = (usize, u8, i64, Event, Body, Body, u8, u32);

fn raw_write() -> impl Strategy<Value = RawWrite> {
    (
        prop_oneof![3 => Just(0usize), 2 => 0usize..8],
        0u8..4,
        0i64..240,
        event(),
        body(),
        body(),
        0u8..8,
        any::<u32>(),
    )
}

/// A table small enough that some writes throttle: provisioned with a few WCU (its burst bank filled or not
/// by idle time before the trace), or on-demand, with or without a maximum write throughput.
fn table() -> impl Strategy<Value = Table> {
    prop_oneof![
        (1u32..20, 1usize..4, prop_oneof![Just(0u32), Just(300)]).prop_map(
            |(wcu, partitions, idle_before)| Table {
                billing: Billing::Provisioned {
                    units: [100.0, f64::from(wcu)],
                },
                partitions: Some(partitions),
                idle_before,
                ..Table::default()
            }
        ),
        prop_oneof![Just(0.0), 1.0f64..20.0].prop_map(|most| {
            let mut table = Table::default();
            if let Billing::OnDemand { max, .. } = &mut table.billing {
                max[1] = most.round();
            }
            table
        }),
    ]
}

prop_compose! {
    fn case()(
        pool in pool(),
        upper in any::<bool>(),
        sk_mode in prop_oneof![
            Just(SkMode::None), Just(SkMode::Random), Just(SkMode::Increasing), Just(SkMode::Few),
            Just(SkMode::One),
        ],
        sk_is_n in any::<bool>(),
        view in prop_oneof![
            3 => Just(View::NewAndOld), 1 => Just(View::NewImage), 1 => Just(View::KeysOnly),
        ],
        item_size in prop_oneof![Just(1024u64), 1u64..5_000],
        pass_key in any::<bool>(),
        start in 0i64..86_400,
        span in prop_oneof![1i64..10, 1i64..240],
        table in table(),
        pretty in any::<bool>(),
        page in 1usize..40,
        raw in prop::collection::vec(raw_write(), 1..120),
        sorted in any::<bool>(),
    ) -> Case {
        let mut writes: Vec<Write> = raw
            .into_iter()
            .map(|(pk, spelling, second, event, old, new, time_style, n)| Write {
                pk: pk % pool.len(),
                spelling,
                sk: None,
                second: second % span,
                event,
                old: (event != Event::Insert).then_some(old),
                new: matches!(event, Event::Insert | Event::Modify).then_some(new),
                time_style,
                seed: n,
            })
            .collect();
        if sorted {
            writes.sort_by_key(|w| w.second);
        }
        for (i, w) in writes.iter_mut().enumerate() {
            w.sk = sort_key(sk_mode, sk_is_n, w.seed, w.second, i);
        }
        Case {
            pool,
            names: if upper { ("PK", "SK") } else { ("pk", "sk") },
            sk_mode,
            view,
            item_size,
            pass_key,
            start: DAY + start,
            table,
            pretty,
            page,
            writes,
            sorted,
        }
    }
}

/// The sort key of the `i`th write (in the order the files hold them) by the case's mode. S sort keys start
/// with a letter or `#`: a log reads a sort key that reads as a number as a number.
fn sort_key(mode: SkMode, is_n: bool, n: u32, second: i64, i: usize) -> Option<Sk> {
    let v: i64 = match mode {
        SkMode::None => return None,
        SkMode::Random => i64::from(n),
        SkMode::Increasing => second * 100_000 + i as i64,
        SkMode::Few => i64::from(n % 4),
        SkMode::One => 7,
    };
    Some(if is_n {
        Sk::N(v - 1_000_000)
    } else {
        let lead = ["v", "#", "é", "Z", "inf"][(n % 5) as usize];
        let lead = if mode == SkMode::Increasing {
            "t#"
        } else {
            lead
        };
        Sk::S(format!("{lead}{v:012}"))
    })
}

// ---------------------------------------------------------------------------------------------------------
// Sizes and units, by DynamoDB's rules (written here, not the product's)

/// A number's size: one byte per two significant digits, plus one.
fn number_bytes(n: i64) -> u64 {
    let digits = n.unsigned_abs().to_string();
    let significant = digits.trim_end_matches('0').len().max(1) as u64;
    significant.div_ceil(2) + 1
}

fn sk_bytes(sk: &Sk) -> u64 {
    match sk {
        Sk::S(s) => s.len() as u64,
        Sk::N(n) => number_bytes(*n),
    }
}

/// The item's size: attribute names and values.
fn item_bytes(case: &Case, w: &Write, body: &Body) -> u64 {
    let (pk_name, sk_name) = case.names;
    let pk = match &case.pool[w.pk] {
        Pk::S(s) => s.len() as u64,
        Pk::N(n) => number_bytes(*n),
    };
    let mut bytes = pk_name.len() as u64 + pk;
    if let Some(sk) = &w.sk {
        bytes += sk_name.len() as u64 + sk_bytes(sk);
    }
    bytes += "data".len() as u64 + body.data.len() as u64;
    if let Some(t) = body.ttl {
        bytes += "ttl".len() as u64 + number_bytes(t);
    }
    if body.flag.is_some() {
        bytes += "flag".len() as u64 + 1;
    }
    bytes
}

/// The images a record carries in the case's view: (old, new).
fn images<'w>(case: &Case, w: &'w Write) -> (Option<&'w Body>, Option<&'w Body>) {
    match case.view {
        View::NewAndOld => (w.old.as_ref(), w.new.as_ref()),
        View::NewImage => (None, w.new.as_ref()),
        View::KeysOnly => (None, None),
    }
}

/// The larger image's size, if the record carries one.
fn record_bytes(case: &Case, w: &Write) -> Option<u64> {
    let (old, new) = images(case, w);
    [old, new]
        .into_iter()
        .flatten()
        .map(|b| item_bytes(case, w, b))
        .max()
}

/// A write's units: none for a TTL delete, else ⌈bytes / 1 KB⌉ (at least 1) of its larger image or of
/// `--item-size`.
fn units(case: &Case, w: &Write) -> f64 {
    if w.event == Event::TtlDelete {
        return 0.0;
    }
    let bytes = record_bytes(case, w).unwrap_or(case.item_size);
    bytes.div_ceil(1024).max(1) as f64
}

// ---------------------------------------------------------------------------------------------------------
// The writers

/// An N key as this record spells it.
fn spelled(n: i64, spelling: u8) -> String {
    let digits = n.unsigned_abs().to_string();
    let sign = if n < 0 { "-" } else { "" };
    match spelling {
        1 => format!("{n}.00"),
        2 => format!("{n}E0"),
        3 if digits.len() > 1 => format!(
            "{sign}{}.{}E{}",
            &digits[..1],
            &digits[1..],
            digits.len() - 1
        ),
        _ => n.to_string(),
    }
}

fn typed_pk(case: &Case, w: &Write) -> Value {
    match &case.pool[w.pk] {
        Pk::S(s) => json!({ "S": s }),
        Pk::N(n) => json!({ "N": spelled(*n, w.spelling) }),
    }
}

fn typed_sk(sk: &Sk) -> Value {
    match sk {
        Sk::S(s) => json!({ "S": s }),
        Sk::N(n) => json!({ "N": n.to_string() }),
    }
}

fn keys_json(case: &Case, w: &Write) -> Value {
    let mut keys = Map::new();
    keys.insert(case.names.0.into(), typed_pk(case, w));
    if let Some(sk) = &w.sk {
        keys.insert(case.names.1.into(), typed_sk(sk));
    }
    Value::Object(keys)
}

fn image_json(case: &Case, w: &Write, body: &Body) -> Value {
    let Value::Object(mut item) = keys_json(case, w) else {
        unreachable!()
    };
    item.insert("data".into(), json!({ "S": body.data }));
    if let Some(t) = body.ttl {
        item.insert("ttl".into(), json!({ "N": t.to_string() }));
    }
    if let Some(b) = body.flag {
        item.insert("flag".into(), json!({ "BOOL": b }));
    }
    Value::Object(item)
}

/// A time's stand-in while a record is serialised, replaced by the number's text as the style writes it
/// (serde_json would write 1.7822088E9 as 1782208800.0). Nothing generated holds a control character.
const TIME_MARK: &str = "\u{1}time\u{1}";

/// Seconds as a Streams record writes them: an integer, a float, E-notation.
fn streams_time(secs: i64, style: u8) -> String {
    let s = secs.to_string();
    match style % 3 {
        0 => s,
        1 => format!("{s}.0"),
        _ => format!("{}.{}E{}", &s[..1], &s[1..], s.len() - 1),
    }
}

/// The shape of the Streams record around the same write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// `aws dynamodbstreams get-records`: the API's wire names (`userIdentity.PrincipalId`).
    GetRecords,
    /// A Lambda event's record (`userIdentity.principalId`, `eventSourceARN`).
    Lambda,
}

fn stream_record(case: &Case, w: &Write, i: usize, shape: Shape) -> Value {
    let (old, new) = images(case, w);
    let mut d = Map::new();
    d.insert("ApproximateCreationDateTime".into(), json!(TIME_MARK));
    d.insert("Keys".into(), keys_json(case, w));
    if let Some(b) = new {
        d.insert("NewImage".into(), image_json(case, w, b));
    }
    if let Some(b) = old {
        d.insert("OldImage".into(), image_json(case, w, b));
    }
    d.insert(
        "SequenceNumber".into(),
        json!(format!("{}", 100_000_000 + i)),
    );
    d.insert(
        "SizeBytes".into(),
        json!(record_bytes(case, w).unwrap_or(20)),
    );
    d.insert(
        "StreamViewType".into(),
        json!(match case.view {
            View::NewAndOld => "NEW_AND_OLD_IMAGES",
            View::NewImage => "NEW_IMAGE",
            View::KeysOnly => "KEYS_ONLY",
        }),
    );
    let name = match w.event {
        Event::Insert => "INSERT",
        Event::Modify => "MODIFY",
        Event::Remove | Event::TtlDelete => "REMOVE",
    };
    let mut r = Map::new();
    r.insert("eventID".into(), json!(format!("e{i}")));
    r.insert("eventName".into(), json!(name));
    r.insert("eventVersion".into(), json!("1.1"));
    r.insert("eventSource".into(), json!("aws:dynamodb"));
    r.insert("awsRegion".into(), json!("eu-west-1"));
    r.insert("dynamodb".into(), Value::Object(d));
    if shape == Shape::Lambda {
        r.insert(
            "eventSourceARN".into(),
            json!("arn:aws:dynamodb:eu-west-1:123456789012:table/t/stream/2026-06-23T00:00:00.000"),
        );
    }
    if w.event == Event::TtlDelete {
        let who = match shape {
            Shape::GetRecords => {
                json!({ "PrincipalId": "dynamodb.amazonaws.com", "Type": "Service" })
            }
            Shape::Lambda => json!({ "type": "Service", "principalId": "dynamodb.amazonaws.com" }),
        };
        r.insert("userIdentity".into(), who);
    }
    Value::Object(r)
}

/// A JSON value as text, pretty or not, with its time mark replaced by the time as `time` writes it.
fn text(case: &Case, v: &Value, time: &str) -> String {
    let s = if case.pretty {
        serde_json::to_string_pretty(v).unwrap()
    } else {
        serde_json::to_string(v).unwrap()
    };
    let mark = serde_json::to_string(TIME_MARK).unwrap();
    s.replacen(&mark, time, 1)
}

fn record_text(case: &Case, w: &Write, i: usize, shape: Shape) -> String {
    let time = streams_time(case.start + w.second, w.time_style);
    text(case, &stream_record(case, w, i, shape), &time)
}

/// `get-records` pages, one after another, `case.page` records each, with an empty page (as a shard's
/// iterator gives) now and then; the last page's iterator is null (a closed shard).
fn get_records_pages(case: &Case, writes: &[&Write]) -> String {
    let mut out = String::new();
    let pages: Vec<&[&Write]> = writes.chunks(case.page).collect();
    for (p, page) in pages.iter().enumerate() {
        if p % 3 == 1 {
            out.push_str("{\"Records\": [], \"NextShardIterator\": \"empty\"}\n");
        }
        let records: Vec<String> = page
            .iter()
            .enumerate()
            .map(|(j, w)| record_text(case, w, p * case.page + j, Shape::GetRecords))
            .collect();
        let next = if p + 1 == pages.len() {
            "null".to_owned()
        } else {
            format!("\"iterator-{p}\"")
        };
        out.push_str(&format!(
            "{{\"Records\": [\n{}\n], \"NextShardIterator\": {next}}}\n",
            records.join(",\n")
        ));
    }
    out
}

/// Lambda events (`{"Records": […]}`), a batch of up to 10 records each, one after another.
fn lambda_events(case: &Case) -> String {
    let all: Vec<&Write> = case.writes.iter().collect();
    let batch = case.page % 10 + 1;
    all.chunks(batch)
        .enumerate()
        .map(|(b, records)| {
            let records: Vec<String> = records
                .iter()
                .enumerate()
                .map(|(j, w)| record_text(case, w, b * batch + j, Shape::Lambda))
                .collect();
            format!("{{\"Records\":[{}]}}\n", records.join(","))
        })
        .collect()
}

/// Streams records as JSON lines (as `shardlens stream --save-trace` and many consumers write them).
fn record_lines(case: &Case) -> String {
    let compact = Case {
        pretty: false,
        ..case.clone()
    };
    case.writes
        .iter()
        .enumerate()
        .map(|(i, w)| record_text(&compact, w, i, Shape::Lambda) + "\n")
        .collect()
}

/// Incremental export lines: the item's key, its images, its write's time in µs.
fn export_lines(case: &Case, writes: &[&Write]) -> String {
    writes
        .iter()
        .map(|w| {
            let (old, new) = images(case, w);
            let mut line = Map::new();
            line.insert(
                "Metadata".into(),
                json!({ "WriteTimestampMicros": { "N": case.micros(w).to_string() } }),
            );
            line.insert("Keys".into(), keys_json(case, w));
            if let Some(b) = new {
                line.insert("NewImage".into(), image_json(case, w, b));
            }
            if let Some(b) = old {
                line.insert("OldImage".into(), image_json(case, w, b));
            }
            serde_json::to_string(&Value::Object(line)).unwrap() + "\n"
        })
        .collect()
}

/// Days since 1970-01-01 as a civil date (H. Hinnant's algorithm).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `unix` seconds as local date and time text at `offset` seconds east of UTC, with `sep` between them.
fn local(unix: i64, offset: i64, sep: char) -> String {
    let t = unix + offset;
    let (y, m, d) = civil(t.div_euclid(86_400));
    let s = t.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}{sep}{:02}:{:02}:{:02}",
        s / 3_600,
        s / 60 % 60,
        s % 60
    )
}

/// A log's time as one of the ways logs write them.
fn log_time(secs: i64, style: u8) -> String {
    match style {
        0 => format!("{}Z", local(secs, 0, 'T')),
        1 => format!("{}.000Z", local(secs, 0, 'T')),
        2 => format!("{}+02:00", local(secs, 7_200, 'T')),
        3 => format!("{}-0530", local(secs, -19_800, 'T')),
        4 => local(secs, 0, ' '),
        5 => (secs * 1_000).to_string(),
        6 => format!("{}.000000Z", local(secs, 0, 'T')),
        _ => secs.to_string(),
    }
}

fn op(w: &Write) -> &'static str {
    match w.event {
        Event::Insert => "PutItem",
        Event::Modify => "UpdateItem",
        Event::Remove | Event::TtlDelete => "DeleteItem",
    }
}

fn sk_text(sk: &Sk) -> String {
    match sk {
        Sk::S(s) => s.clone(),
        Sk::N(n) => n.to_string(),
    }
}

/// A CSV cell: quoted when it must be (or when `always`), its quotes doubled.
fn cell(s: &str, always: bool) -> String {
    if always || s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// The request log as CSV: time, key, sort key (a table with one), op, the item's size, units (0 for a TTL
/// delete, else empty: by size).
fn csv_log(case: &Case) -> String {
    let (pk, sk) = case.names;
    let mut out = if case.has_sk() {
        format!("time,{pk},{sk},op,size,units\r\n")
    } else {
        format!("time,{pk},op,size,units\n")
    };
    for (i, w) in case.writes.iter().enumerate() {
        let always = i % 4 == 0;
        let mut row = vec![
            cell(&log_time(case.start + w.second, w.time_style), always),
            cell(&case.key_name(w), always),
        ];
        if let Some(s) = &w.sk {
            row.push(cell(&sk_text(s), always));
        }
        row.push(op(w).to_owned());
        row.push(record_bytes(case, w).map_or(String::new(), |b| b.to_string()));
        row.push(if w.event == Event::TtlDelete { "0" } else { "" }.to_owned());
        out.push_str(&row.join(","));
        out.push_str(if case.has_sk() { "\r\n" } else { "\n" });
    }
    out
}

/// The request log as JSON lines: every field on every line (the first line names the columns).
fn json_log(case: &Case) -> String {
    let (pk, sk) = case.names;
    case.writes
        .iter()
        .map(|w| {
            let secs = case.start + w.second;
            let time = match w.time_style {
                5 => json!(secs * 1_000),
                7 => json!(secs),
                style => json!(log_time(secs, style)),
            };
            let mut line = Map::new();
            line.insert("timestamp".into(), time);
            line.insert(pk.into(), json!(case.key_name(w)));
            if case.has_sk() {
                let v = match &w.sk {
                    Some(Sk::N(n)) => json!(n),
                    Some(Sk::S(s)) => json!(s),
                    None => Value::Null,
                };
                line.insert(sk.into(), v);
            }
            line.insert("operation".into(), json!(op(w)));
            line.insert("size".into(), json!(record_bytes(case, w)));
            line.insert(
                "units".into(),
                if w.event == Event::TtlDelete {
                    json!(0)
                } else {
                    Value::Null
                },
            );
            serde_json::to_string(&Value::Object(line)).unwrap() + "\n"
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------------
// The oracle and the canonical form

/// A trace in a canonical form: t = 0's Unix second, the duration, every (second, key, units, requests) of
/// writes, sorted, and each key's (units, requests) of writes.
#[derive(Debug, PartialEq)]
struct Canon {
    start: i64,
    duration: u32,
    rows: Vec<(i64, String, f64, f64)>,
    keys: BTreeMap<String, (f64, f64)>,
}

fn canon(trace: &Trace) -> Canon {
    let mut rows = Vec::new();
    for t in 0..trace.duration {
        for e in trace.at(t) {
            assert_eq!(e.dim(), Dim::Write, "the writers write no reads");
            rows.push((
                trace.start + i64::from(t),
                trace.keys[e.key() as usize].name.clone(),
                f64::from(e.units),
                f64::from(e.requests),
            ));
        }
    }
    rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    let keys = trace
        .keys
        .iter()
        .map(|k| {
            assert_eq!(k.units[0] + k.requests[0], 0.0, "no reads");
            (k.name.clone(), (k.units[1], k.requests[1]))
        })
        .collect();
    Canon {
        start: trace.start,
        duration: trace.duration,
        rows,
        keys,
    }
}

/// What the trace of `writes` is, from the writes alone.
fn oracle(case: &Case, writes: &[&Write]) -> Canon {
    let mut cells: BTreeMap<(i64, String), (f64, f64)> = BTreeMap::new();
    let mut keys: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for w in writes {
        let u = units(case, w);
        let at = case.start + w.second;
        let c = cells.entry((at, case.key_name(w))).or_default();
        c.0 += u;
        c.1 += 1.0;
        let k = keys.entry(case.key_name(w)).or_default();
        k.0 += u;
        k.1 += 1.0;
    }
    let first = writes.iter().map(|w| w.second).min().unwrap();
    let last = writes.iter().map(|w| w.second).max().unwrap();
    Canon {
        start: case.start + first,
        duration: (last - first + 1) as u32,
        rows: cells
            .into_iter()
            .map(|((s, k), (u, r))| (s, k, u, r))
            .collect(),
        keys,
    }
}

/// Each key's sort-key kind for writes in time order: one item without sort keys or when they are all the
/// same, increasing when each is at least the one before, else random.
fn oracle_kinds(case: &Case, writes: &[&Write]) -> BTreeMap<String, SortKey> {
    let mut by_key: BTreeMap<String, Vec<&Sk>> = BTreeMap::new();
    for w in writes {
        let sks = by_key.entry(case.key_name(w)).or_default();
        sks.extend(w.sk.as_ref());
    }
    let order = |a: &Sk, b: &Sk| match (a, b) {
        (Sk::N(x), Sk::N(y)) => x.cmp(y),
        (Sk::S(x), Sk::S(y)) => x.as_bytes().cmp(y.as_bytes()),
        _ => unreachable!("a table's sort keys are of one type"),
    };
    by_key
        .into_iter()
        .map(|(k, sks)| {
            let kind = if sks.iter().all(|s| *s == sks[0]) {
                SortKey::SingleItem
            } else if sks.windows(2).all(|p| order(p[0], p[1]).is_le()) {
                SortKey::Monotonic
            } else {
                SortKey::Random
            };
            (k, kind)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------------
// Reading and replaying

static DIRS: AtomicU64 = AtomicU64::new(0);

/// A folder for one case's files, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new() -> Self {
        let n = DIRS.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "shardlens-trace-differential-{}-{n}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Reads `path` as `shardlens simulate --trace` does: by detection, or with `--trace-format`.
fn load(case: &Case, path: &Path, format: Option<TraceFormat>) -> Result<TraceLoad, TestCaseError> {
    let opts = TraceOptions {
        format,
        key: case.pass_key.then(|| case.names.0.to_owned()),
        item_size: case.item_size,
        ..TraceOptions::default()
    };
    load_traces(&[path.to_path_buf()], &opts).map_err(|e| {
        TestCaseError::fail(format!(
            "{} ({format:?}) did not read: {e:#}\n{}",
            path.display(),
            std::fs::read_to_string(path).unwrap_or_default()
        ))
    })
}

/// The replay of `trace` on the case's table: the outcome and the timeline (per partition and column).
fn replay(
    case: &Case,
    trace: &Trace,
) -> (
    shardlens::model::simulate::Outcome,
    shardlens::model::simulate::Timeline,
) {
    run_streaming(
        &replay_setup(trace.clone(), case.table.clone()),
        &mut |_| true,
    )
    .unwrap()
}

/// Reads every file both ways, checks what each says of itself and that its trace is the oracle's, then that
/// every trace and replay is the first's.
fn same_everywhere(
    case: &Case,
    files: &[(PathBuf, TraceFormat)],
    want: &Canon,
    records: usize,
    kinds: Option<&BTreeMap<String, SortKey>>,
) -> Result<(), TestCaseError> {
    let mut first: Option<(String, Trace, _)> = None;
    for (path, format) in files {
        for given in [None, Some(*format)] {
            let what = format!(
                "{} ({})",
                path.display(),
                given.map_or("detected", |_| "--trace-format")
            );
            let load = load(case, path, given)?;
            let file = &load.files[0];
            prop_assert_eq!(file.format, Some(*format), "{}", what);
            prop_assert_eq!(
                file.chosen,
                if given.is_some() {
                    "--trace-format"
                } else {
                    "detected"
                }
            );
            prop_assert_eq!(file.records, records as u64, "{}", what);
            prop_assert_eq!(file.skipped, 0, "{}", what);
            prop_assert_eq!(file.keys, want.keys.len() as u64, "{}", what);
            prop_assert_eq!(
                &canon(&load.trace),
                want,
                "{}: the trace is not the writes'",
                what
            );
            if let Some(kinds) = kinds {
                let got: BTreeMap<String, SortKey> = load
                    .trace
                    .keys
                    .iter()
                    .map(|k| (k.name.clone(), k.sort_key))
                    .collect();
                prop_assert_eq!(&got, kinds, "{}: sort-key kinds", what);
            }
            match &first {
                None => {
                    let run = replay(case, &load.trace);
                    first = Some((what, load.trace, run));
                }
                Some((than, trace, run)) => {
                    prop_assert_eq!(&load.trace, trace, "{} differs from {}", what, than);
                    let again = replay(case, &load.trace);
                    prop_assert_eq!(
                        &again.0,
                        &run.0,
                        "{}'s replay differs from {}'s",
                        what,
                        than
                    );
                    prop_assert_eq!(
                        &again.1,
                        &run.1,
                        "{}'s timeline differs from {}'s",
                        what,
                        than
                    );
                }
            }
        }
    }
    Ok(())
}

/// The writes that are their item's only write and not a TTL delete: what an incremental export can say.
fn exportable(case: &Case) -> Vec<&Write> {
    let item = |w: &Write| (case.key_name(w), w.sk.as_ref().map(sk_text));
    let mut count: BTreeMap<_, usize> = BTreeMap::new();
    for w in &case.writes {
        *count.entry(item(w)).or_default() += 1;
    }
    case.writes
        .iter()
        .filter(|w| w.event != Event::TtlDelete && count[&item(w)] == 1)
        .collect()
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    let dir = Dir::new();
    let all: Vec<&Write> = case.writes.iter().collect();
    let files = [
        (
            dir.write("pages.json", &get_records_pages(case, &all)),
            TraceFormat::Streams,
        ),
        (
            dir.write("lambda.json", &lambda_events(case)),
            TraceFormat::Streams,
        ),
        (
            dir.write("records.jsonl", &record_lines(case)),
            TraceFormat::Streams,
        ),
        (dir.write("requests.csv", &csv_log(case)), TraceFormat::Log),
        (
            dir.write("requests.jsonl", &json_log(case)),
            TraceFormat::Log,
        ),
    ];
    let kinds = case.sorted.then(|| oracle_kinds(case, &all));
    same_everywhere(case, &files, &oracle(case, &all), all.len(), kinds.as_ref())?;

    let some = exportable(case);
    if some.is_empty() {
        return Ok(());
    }
    let files = [
        (
            dir.write("export.json", &export_lines(case, &some)),
            TraceFormat::Incremental,
        ),
        (
            dir.write("same-pages.json", &get_records_pages(case, &some)),
            TraceFormat::Streams,
        ),
    ];
    let kinds = case.sorted.then(|| oracle_kinds(case, &some));
    same_everywhere(
        case,
        &files,
        &oracle(case, &some),
        some.len(),
        kinds.as_ref(),
    )
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// The same writes as Streams pages, Lambda events, Streams JSON lines, a CSV log and a JSON-lines log
    /// (and, of what an export can say, as export lines beside Streams pages) are the same trace, the trace
    /// of the writes, and replay alike.
    #[test]
    fn the_same_writes_are_the_same_trace_and_replay_in_every_format(case in case()) {
        check(&case)?;
    }
}

/// The writers' own checks: times as each format writes them, and sizes by DynamoDB's rules.
#[test]
fn the_writers_write_what_they_mean() {
    let t = 1_782_208_837;
    assert_eq!(streams_time(t, 2), "1.782208837E9");
    assert_eq!(log_time(t, 0), "2026-06-23T10:00:37Z");
    assert_eq!(log_time(t, 2), "2026-06-23T12:00:37+02:00");
    assert_eq!(log_time(t, 3), "2026-06-23T04:30:37-0530");
    assert_eq!(spelled(-1200, 3), "-1.200E3");
    assert_eq!(number_bytes(1200), 2);
    assert_eq!(number_bytes(0), 2);
    assert_eq!(number_bytes(123), 3);
    assert_eq!(cell("a,\"b\"", false), "\"a,\"\"b\"\"\"");
}
