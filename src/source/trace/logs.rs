//! Request logs as a trace: one request per row of a CSV file with a header, or per line of JSON lines.
//!
//! Columns (a JSON line's fields, nested ones as dotted paths like `request.key`), found by name ignoring
//! case (and, for a dotted path, by its last part):
//! - the time: `--time-column`, else `time`, `timestamp`, `ts` or `@timestamp`; ISO 8601 (`T` or a space,
//!   fractions, `Z` or an offset; without a zone, UTC **\[ours\]**) or epoch seconds, milliseconds or
//!   microseconds by magnitude;
//! - the partition key: `--key`, else guessed like the CSV loader (`pk`, `id`, `key`, … then a name ending in
//!   `id`);
//! - optionally the operation `op` (or `operation`): `GetItem`, `Query`, `Scan`, `BatchGetItem`,
//!   `TransactGetItems` (or `read`) are reads; `PutItem`, `UpdateItem`, `DeleteItem`, `BatchWriteItem`,
//!   `TransactWriteItems` (or `write`) writes; without the column, writes **\[ours\]**;
//! - optionally the request's capacity units `units`, else the item's bytes `size` (or `item_size`), else
//!   `--item-size`: a read costs ⌈size / 4 KB⌉ units (strongly consistent), a write ⌈size / 1 KB⌉, and a
//!   transaction twice as much \[AWS: "Read/write capacity mode", transactional requests\];
//! - optionally the sort key (`sk`, `sort_key`, …): numbers compare by value, other text by bytes. Without
//!   it, each key is one item;
//! - optionally counts, for logs already aggregated (such as `shardlens sql --trace`'s CSV): `requests` (or
//!   `count`), the requests the row stands for (its units are per request); `seconds`, the period from `time`
//!   they spread over evenly **\[ours\]**; `keys`, the distinct keys the row stands for, its requests spread
//!   evenly over `KEY#0 … KEY#{n-1}` (at most [`MAX_ROW_KEYS`] of them) **\[ours\]**;
//! - optionally the throttling reasons of a request the application saw throttled: a `reason` column (CSV;
//!   also `throttle_reason`, `throttling_reason`; several reasons split by `|` or `;`) or `ThrottlingReasons`
//!   (JSON lines: a list of `{reason, resource}` as the SDKs expose it, DYNAMODB-TRAFFIC "Throttling by its
//!   reason (2025)" \[AWS\]), each like `TableWriteKeyRangeThroughputExceeded`. A throttled request is still
//!   the application's demand, replayed like any other **\[ours\]**; it also counts as an observed throttle
//!   event of each of its reasons in its minute, and of its key ([`TraceFile::throttled_keys`](super::TraceFile::throttled_keys)),
//!   so a replay compares the model's throttling with the log's per reason. Every minute the log has a request
//!   in is a minute with a figure (0 where nothing was throttled) for each reason the log shows.

use serde_json::Value;

use crate::model::KeyType;
use crate::model::key::canonical_partition_key;
use crate::model::trace::{Dim, SortValue};

use super::log_reasons::{REASON_NAMES, Throttles, reasons_text, throttled};
use super::{ReadError, TraceCx, micros_of_time};
use crate::source::json::item::{PK_NAMES, SK_NAMES};
use crate::source::{At, Hint, Message};

/// The names a time column goes by when `--time-column` does not name it.
const TIME_NAMES: [&str; 4] = ["time", "timestamp", "ts", "@timestamp"];
const OP_NAMES: [&str; 2] = ["op", "operation"];
const UNITS_NAMES: [&str; 1] = ["units"];
const SIZE_NAMES: [&str; 2] = ["size", "item_size"];
const REQUESTS_NAMES: [&str; 2] = ["requests", "count"];
const SECONDS_NAMES: [&str; 1] = ["seconds"];
const KEYS_NAMES: [&str; 1] = ["keys"];
/// The most keys one aggregated row is spread over (its `keys` may count more): a day of per-minute rows
/// then stays within about 9 million trace entries.
pub const MAX_ROW_KEYS: u32 = 100;

/// Reads a log: JSON lines when it starts with `{`, else CSV.
pub(super) fn read_log(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        read_json_lines(cx, bytes)
    } else {
        read_csv(cx, bytes)
    }
}

/// Where each field of a request is (an index into the names).
struct Columns {
    names: Vec<String>,
    time: usize,
    key: usize,
    op: Option<usize>,
    units: Option<usize>,
    size: Option<usize>,
    sort_key: Option<usize>,
    /// Aggregated rows: requests, the seconds they spread over, the keys they stand for.
    counts: [Option<usize>; 3],
    /// The request's throttling reasons, when the application logged them.
    reason: Option<usize>,
}

/// The position of `want` in `names`: the same name, else ignoring case, else a dotted path whose last part
/// is `want` (ignoring case).
fn find(names: &[String], want: &str) -> Option<usize> {
    names
        .iter()
        .position(|n| n == want)
        .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(want)))
        .or_else(|| {
            names.iter().position(|n| {
                n.rsplit_once('.')
                    .is_some_and(|(_, last)| last.eq_ignore_ascii_case(want))
            })
        })
}

fn find_any(names: &[String], wants: &[&str]) -> Option<usize> {
    wants.iter().find_map(|w| find(names, w))
}

/// Picks the columns of a log's header (or a JSON line's fields); a missing time or key column is the
/// file's error.
fn columns(cx: &mut TraceCx<'_>, names: Vec<String>) -> Result<Columns, ReadError> {
    let list = names.join(", ");
    let time = match cx.opts.time_column.as_deref() {
        Some(t) => find(&names, t).ok_or_else(|| {
            cx.fail(Message::new(format!(
                "no time column {t:?}: the columns are {list}"
            )))
        })?,
        None => find_any(&names, &TIME_NAMES).ok_or_else(|| {
            cx.fail(Message::hinted(
                format!(
                    "no time column: looked for {} (the columns are {list}); ",
                    TIME_NAMES.join(", ")
                ),
                Hint::TimeColumn,
                "",
            ))
        })?,
    };
    let key = match cx.opts.key.as_deref() {
        Some(k) => find(&names, k).ok_or_else(|| {
            cx.fail(Message::new(format!(
                "no key column {k:?}: the columns are {list}"
            )))
        })?,
        None => {
            let by_name = find_any(&names, &PK_NAMES).filter(|&i| i != time);
            let by_suffix = || {
                names.iter().position(|n| {
                    let last = n.rsplit('.').next().unwrap_or(n);
                    last.len() > 2 && last.to_ascii_lowercase().ends_with("id")
                })
            };
            let Some(key) = by_name.or_else(by_suffix).filter(|&i| i != time) else {
                return Err(cx.fail(Message::hinted(
                    format!(
                        "no key column: looked for {} or a name ending in id (the columns are {list}); ",
                        PK_NAMES.join(", ")
                    ),
                    Hint::ChooseKeyColumn,
                    "",
                )));
            };
            cx.file.assume(Message::hinted(
                format!("key column {} (guessed; ", names[key]),
                Hint::ChooseKeyColumn,
                " to choose)",
            ));
            key
        }
    };
    let other = |i: &usize| *i != time && *i != key;
    let op = find_any(&names, &OP_NAMES).filter(other);
    let units = find_any(&names, &UNITS_NAMES).filter(other);
    let size = find_any(&names, &SIZE_NAMES).filter(other);
    let sort_key = find_any(&names, &SK_NAMES).filter(other);
    let counts = [
        find_any(&names, &REQUESTS_NAMES).filter(other),
        find_any(&names, &SECONDS_NAMES).filter(other),
        find_any(&names, &KEYS_NAMES).filter(other),
    ];
    let reason = find_any(&names, &REASON_NAMES).filter(other);
    if op.is_none() {
        cx.file
            .assume("no op column: every request is a write [ours]");
    }
    if sort_key.is_none() {
        cx.file
            .assume("no sort key column: each key is one item [ours]");
    }
    Ok(Columns {
        names,
        time,
        key,
        op,
        units,
        size,
        sort_key,
        counts,
        reason,
    })
}

/// One request's fields as text (a missing or empty field is `None`).
#[derive(Default)]
struct Fields<'a> {
    time: Option<&'a str>,
    key: Option<&'a str>,
    op: Option<&'a str>,
    units: Option<&'a str>,
    size: Option<&'a str>,
    sort_key: Option<Sort<'a>>,
    /// `requests`, `seconds`, `keys` of an aggregated row.
    counts: [Option<&'a str>; 3],
    /// The request's throttling reasons, split by `|` or `;`.
    reasons: Option<&'a str>,
}

/// A sort key as the log holds it.
enum Sort<'a> {
    Text(&'a str),
    Number(f64),
}

/// Reads and adds one request; a bad one is reported by `cx.bad` at `at`. Its throttles go to `throttles`.
fn request(
    cx: &mut TraceCx<'_>,
    c: &Columns,
    f: &Fields<'_>,
    at: At,
    throttles: &mut Throttles,
) -> Result<(), ReadError> {
    let col = |i: usize| c.names[i].as_str();
    let Some(time_text) = f.time else {
        return Ok(cx.bad(at, format!("column {}: no time", col(c.time)))?);
    };
    let Some((micros, zoned)) = micros_of_time(time_text) else {
        return Ok(cx.bad(
            at,
            format!(
                "column {}: {time_text:?} is not a time (ISO 8601 such as 2026-06-23T10:00:00Z, or epoch \
                 seconds, milliseconds or microseconds)",
                col(c.time)
            ),
        )?);
    };
    if !zoned {
        cx.file.assume("times without a zone are UTC [ours]");
    }
    let key = f
        .key
        .map(|k| canonical_partition_key(k.as_bytes(), KeyType::S));
    let key = match key {
        Some(Ok(k)) => k,
        Some(Err(e)) => return Ok(cx.bad(at, format!("column {}: {e}", col(c.key)))?),
        None => return Ok(cx.bad(at, format!("column {}: no key", col(c.key)))?),
    };
    let Some((dim, transaction)) = operation(cx, c, f.op, at)? else {
        return Ok(());
    };
    let Some(units) = units(cx, c, f, dim, transaction, at)? else {
        return Ok(());
    };
    let sort_key = f.sort_key.as_ref().map(|s| match s {
        Sort::Number(n) => SortValue::Number(*n),
        Sort::Text(t) => match t.trim().parse::<f64>() {
            Ok(n) if n.is_finite() => SortValue::Number(n),
            _ => SortValue::Bytes(t.as_bytes().into()),
        },
    });
    if let (Some(i), None) = (c.reason, &throttles.column) {
        throttles.column = Some(c.names[i].clone());
    }
    {
        let requests = f
            .counts
            .first()
            .copied()
            .flatten()
            .and_then(|t| t.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .unwrap_or(1.0);
        throttled(throttles, micros, &key, f.reasons, requests);
    }
    if f.counts.iter().any(Option::is_some) {
        return aggregated(cx, c, f, (micros, &key), dim, units, at);
    }
    cx.add(micros, &key, sort_key, dim, units)?;
    Ok(())
}

/// An aggregated row: `requests` requests of `units` each, spread over `seconds` from the row's time and
/// over the `keys` it stands for.
fn aggregated(
    cx: &mut TraceCx<'_>,
    c: &Columns,
    f: &Fields<'_>,
    (micros, key): (i64, &[u8]),
    dim: Dim,
    units: f64,
    at: At,
) -> Result<(), ReadError> {
    let mut got = [1.0_f64; 3];
    for (i, text) in f.counts.iter().enumerate() {
        let Some(text) = text else { continue };
        match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 && (i == 0 || v >= 1.0) => got[i] = v,
            _ => {
                let name = c.counts[i].map_or("", |j| c.names[j].as_str());
                cx.bad(at, format!("column {name}: {text:?} is not a count"))?;
                return Ok(());
            }
        }
    }
    let [requests, seconds, keys] = got;
    let spread_over = (keys.round() as u32).clamp(1, MAX_ROW_KEYS);
    if keys.round() as u32 > MAX_ROW_KEYS {
        cx.file.assume(format!(
            "a row standing for more than {MAX_ROW_KEYS} keys is spread over {MAX_ROW_KEYS} [ours]"
        ));
    }
    let from = micros.div_euclid(1_000_000);
    let seconds = (seconds.round() as u32).max(1);
    let n = f64::from(spread_over);
    for i in 0..spread_over {
        let name;
        let k: &[u8] = if spread_over == 1 {
            key
        } else {
            name = [key, format!("#{i}").as_bytes()].concat();
            &name
        };
        cx.spread(from, seconds, k, dim, units * requests / n, requests / n)?;
    }
    Ok(())
}

/// Read or write, and whether a transaction, of an `op` cell (`None` when the record is skipped as bad).
fn operation(
    cx: &mut TraceCx<'_>,
    c: &Columns,
    op: Option<&str>,
    at: At,
) -> Result<Option<(Dim, bool)>, ReadError> {
    let Some(op) = op.map(str::trim) else {
        if c.op.is_some() {
            cx.file.assume("requests without an op are writes [ours]");
        }
        return Ok(Some((Dim::Write, false)));
    };
    let lower = op.to_ascii_lowercase();
    Ok(Some(match lower.as_str() {
        "getitem" | "query" | "scan" | "batchgetitem" | "read" => (Dim::Read, false),
        "transactgetitems" => (Dim::Read, true),
        "putitem" | "updateitem" | "deleteitem" | "batchwriteitem" | "write" => (Dim::Write, false),
        "transactwriteitems" => (Dim::Write, true),
        _ => {
            let name = c.op.map_or("op", |i| c.names[i].as_str());
            cx.bad(
                at,
                format!(
                    "column {name}: {op:?} is not a read or a write (GetItem, Query, Scan, BatchGetItem, \
                     TransactGetItems, PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems)"
                ),
            )?;
            return Ok(None);
        }
    }))
}

/// The request's capacity units: its `units`, else by its item's `size`, else by `--item-size`.
fn units(
    cx: &mut TraceCx<'_>,
    c: &Columns,
    f: &Fields<'_>,
    dim: Dim,
    transaction: bool,
    at: At,
) -> Result<Option<f64>, ReadError> {
    let number = |text: &str| {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    if let (Some(i), Some(text)) = (c.units, f.units) {
        return match number(text) {
            Some(u) => Ok(Some(u)),
            None => {
                cx.bad(
                    at,
                    format!("column {}: {text:?} is not a number of units", c.names[i]),
                )?;
                Ok(None)
            }
        };
    }
    let bytes = match (c.size, f.size) {
        (Some(i), Some(text)) => match number(text) {
            Some(b) => b.ceil() as u64,
            None => {
                cx.bad(
                    at,
                    format!("column {}: {text:?} is not a number of bytes", c.names[i]),
                )?;
                return Ok(None);
            }
        },
        _ => {
            let b = cx.opts.item_size;
            let mut m = Message::new("requests without units or size: items of ");
            m.push_hint(Hint::ItemSize);
            m.push_str(&format!(" {} bytes", crate::model::fmt::grouped(b)));
            cx.file.assume(m);
            b
        }
    };
    let per = match dim {
        Dim::Read => {
            cx.file.assume(
                "reads by size are strongly consistent: ⌈size / 4 KB⌉ units (eventually consistent reads \
                 cost half) [AWS]",
            );
            bytes.div_ceil(4096).max(1)
        }
        Dim::Write => bytes.div_ceil(1024).max(1),
    };
    Ok(Some(per as f64 * if transaction { 2.0 } else { 1.0 }))
}

/// A CSV log with a header.
fn read_csv(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let mut reader = ::csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    let header = match reader.byte_headers() {
        Ok(h) => h
            .iter()
            .map(|n| {
                String::from_utf8_lossy(n)
                    .trim_start_matches('\u{feff}')
                    .trim()
                    .to_owned()
            })
            .collect(),
        Err(e) => return Err(cx.fail(format!("the header is not CSV: {e}"))),
    };
    let c = columns(cx, header)?;
    let mut throttles = Throttles::default();
    let mut row = ::csv::ByteRecord::new();
    loop {
        let line = reader.position().line();
        cx.parsed(reader.position().byte() as usize);
        match reader.read_byte_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                cx.bad(At::Line(line), format!("invalid CSV: {e}"))?;
                break;
            }
        }
        let line = row.position().map_or(line, ::csv::Position::line);
        if row
            .iter()
            .all(|cell| cell.iter().all(u8::is_ascii_whitespace))
        {
            continue;
        }
        let cell = |i: Option<usize>| {
            i.and_then(|i| row.get(i))
                .and_then(|b| std::str::from_utf8(b).ok())
                .filter(|s| !s.trim().is_empty())
        };
        let f = Fields {
            time: cell(Some(c.time)),
            key: cell(Some(c.key)),
            op: cell(c.op),
            units: cell(c.units),
            size: cell(c.size),
            sort_key: cell(c.sort_key).map(Sort::Text),
            counts: c.counts.map(cell),
            reasons: cell(c.reason),
        };
        request(cx, &c, &f, At::Line(line), &mut throttles)?;
    }
    throttles.finish(cx);
    Ok(())
}

/// The dotted paths of an object's leaves (`request.key`), in order.
fn leaf_paths(v: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Value::Object(o) = v {
        for (k, inner) in o {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            if inner.is_object() {
                leaf_paths(inner, &path, out);
            } else {
                out.push(path);
            }
        }
    }
}

/// The value at a dotted path.
fn at_path<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    if let Some(x) = v.get(path) {
        return Some(x);
    }
    path.split('.').try_fold(v, |v, part| v.get(part))
}

/// A JSON field as text (strings, numbers and booleans).
pub(super) fn text(v: Option<&Value>) -> Option<std::borrow::Cow<'_, str>> {
    match v? {
        Value::String(s) if !s.trim().is_empty() => Some(s.as_str().into()),
        Value::Number(n) => Some(n.to_string().into()),
        Value::Bool(b) => Some(b.to_string().into()),
        _ => None,
    }
}

/// JSON lines, one request each; the first line's fields name the columns.
fn read_json_lines(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let mut columns_of: Option<Columns> = None;
    let mut throttles = Throttles::default();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let at = At::Line(i as u64 + 1);
        cx.parsed(line.as_ptr() as usize - bytes.as_ptr() as usize);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let v: Value = match serde_json::from_slice(line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                cx.bad(at, "not a JSON object")?;
                continue;
            }
            Err(e) => {
                cx.bad(
                    at,
                    format!("not JSON: {}", crate::source::read::json_reason(&e)),
                )?;
                continue;
            }
        };
        let c = match columns_of.take() {
            Some(c) => c,
            None => {
                let mut names = Vec::new();
                leaf_paths(&v, "", &mut names);
                columns(cx, names)?
            }
        };
        let get = |i: Option<usize>| i.and_then(|i| at_path(&v, &c.names[i]));
        let time = text(get(Some(c.time)));
        let key = text(get(Some(c.key)));
        let op = text(get(c.op));
        let units = text(get(c.units));
        let size = text(get(c.size));
        let sort_key = match get(c.sort_key) {
            Some(Value::Number(n)) => n.as_f64().map(Sort::Number),
            Some(Value::String(s)) => Some(Sort::Text(s)),
            _ => None,
        };
        let counts = c.counts.map(|i| text(get(i)));
        // A served request's line may have no reasons field, so the first line's fields need not name it:
        // each line is looked at for one.
        let reasons = match c.reason {
            Some(_) => reasons_text(get(c.reason)),
            None => v.as_object().and_then(|o| {
                let (name, value) = o
                    .iter()
                    .find(|(k, _)| REASON_NAMES.iter().any(|n| n.eq_ignore_ascii_case(k)))?;
                if throttles.column.is_none() {
                    throttles.column = Some(name.clone());
                }
                reasons_text(Some(value))
            }),
        };
        let f = Fields {
            time: time.as_deref(),
            key: key.as_deref(),
            op: op.as_deref(),
            units: units.as_deref(),
            size: size.as_deref(),
            sort_key,
            counts: [0, 1, 2].map(|i| counts[i].as_deref()),
            reasons: reasons.as_deref(),
        };
        request(cx, &c, &f, at, &mut throttles)?;
        columns_of = Some(c);
    }
    throttles.finish(cx);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::source::OnBad;
    use crate::source::trace::{TraceFormat, TraceLoad, TraceOptions, load_traces};

    fn load(name: &str, text: &str, opts: &TraceOptions) -> Result<TraceLoad, String> {
        let path =
            std::env::temp_dir().join(format!("shardlens-logs-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let out = load_traces(std::slice::from_ref(&path), opts).map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&path);
        out
    }

    #[test]
    fn csv_rows_are_requests_by_op_units_and_size() {
        let text = "time,pk,op,size,units\n\
                    2026-06-23T10:00:00Z,A,PutItem,1500,\n\
                    2026-06-23T10:00:00.500Z,A,GetItem,5000,\n\
                    2026-06-23 10:00:01,B,Query,,7\n\
                    1782208802,B,TransactWriteItems,100,\n\
                    1782208802500,C,DeleteItem,,\n";
        let t = load("ops.csv", text, &TraceOptions::default()).unwrap();
        let f = &t.files[0];
        assert_eq!(f.format, Some(TraceFormat::Log));
        assert_eq!((f.records, f.keys), (5, 3));
        assert_eq!(t.trace.start, 1_782_208_800);
        assert_eq!(t.trace.duration, 3);
        // Writes: 1500 B → 2, transaction of 100 B → 2, delete without size → 1 (--item-size 1024).
        // Reads: 5000 B → 2, Query of 7 units → 7.
        assert_eq!(t.trace.units(), [9.0, 5.0]);
        assert_eq!(t.trace.requests(), [2.0, 3.0]);
        let said: Vec<String> = f.assumed.iter().map(ToString::to_string).collect();
        assert!(
            said.iter().any(|a| a.contains("without a zone are UTC")),
            "{said:?}"
        );
        assert!(said.iter().any(|a| a.contains("one item")), "{said:?}");
    }

    #[test]
    fn a_time_that_does_not_parse_names_line_and_column() {
        let text = "ts,id\n2026-06-23T10:00:00Z,a\nsoon,b\n";
        let e = load("bad.csv", text, &TraceOptions::default()).unwrap_err();
        assert!(
            e.contains("line 3: column ts: \"soon\" is not a time"),
            "{e}"
        );
        let skip = TraceOptions {
            on_bad: OnBad::Skip,
            ..TraceOptions::default()
        };
        let t = load("bad.csv", text, &skip).unwrap();
        assert_eq!((t.files[0].records, t.files[0].skipped), (1, 1));
    }

    #[test]
    fn a_log_without_a_time_column_names_the_file_and_the_names_looked_for() {
        // A byte-order mark before the header is not part of its first name.
        let bom = load(
            "bom.csv",
            "\u{feff}time,pk\n1782208800,a\n",
            &TraceOptions::default(),
        );
        assert_eq!(bom.unwrap().files[0].records, 1);
        let e = load("notime.csv", "when,pk\n1,a\n", &TraceOptions::default()).unwrap_err();
        assert!(
            e.contains("no time column: looked for time, timestamp, ts, @timestamp"),
            "{e}"
        );
        assert!(e.contains("--time-column"), "{e}");
        assert!(e.contains("notime.csv"), "{e}");
        let named = TraceOptions {
            time_column: Some("when".into()),
            ..TraceOptions::default()
        };
        assert_eq!(
            load("notime.csv", "when,pk\n1782208800,a\n", &named)
                .unwrap()
                .files[0]
                .records,
            1
        );
    }

    #[test]
    fn sort_keys_in_a_column_make_collections() {
        let mut text = String::from("time,user_id,sk\n");
        for i in 0..10 {
            text.push_str(&format!("{},u1,{}\n", 1_782_208_800 + i, 100 + i));
            text.push_str(&format!("{},u2,profile\n", 1_782_208_800 + i));
        }
        let t = load("sk.csv", &text, &TraceOptions::default()).unwrap();
        let kind = |n: &str| t.trace.keys.iter().find(|k| k.name == n).unwrap().sort_key;
        assert_eq!(kind("u1"), crate::model::simulate::SortKey::Monotonic);
        assert_eq!(kind("u2"), crate::model::simulate::SortKey::SingleItem);
        assert!(
            t.files[0]
                .assumed
                .iter()
                .any(|a| a.contains("key column user_id (guessed"))
        );
    }

    #[test]
    fn json_lines_with_nested_fields_by_dotted_paths() {
        let text = r#"{"@timestamp":"2026-06-23T10:00:00.250Z","request":{"op":"GetItem","key":"A","size":100}}
{"@timestamp":1782208801000,"request":{"op":"PutItem","key":"B","size":3000}}
"#;
        let t = load("log.jsonl", text, &TraceOptions::default()).unwrap();
        assert_eq!(t.trace.units(), [1.0, 3.0]);
        assert_eq!(t.trace.duration, 2);
        let given = TraceOptions {
            key: Some("request.key".into()),
            ..TraceOptions::default()
        };
        assert_eq!(load("log.jsonl", text, &given).unwrap().files[0].keys, 2);
        let e = load(
            "log.jsonl",
            "{\"ts\":\"x\",\"pk\":\"a\"}\n",
            &TraceOptions::default(),
        )
        .unwrap_err();
        assert!(e.contains("line 1: column ts: \"x\" is not a time"), "{e}");
    }

    #[test]
    fn an_unknown_operation_is_a_bad_record() {
        let e = load(
            "op.csv",
            "time,pk,op\n1782208800,a,DescribeTable\n",
            &TraceOptions::default(),
        )
        .unwrap_err();
        assert!(
            e.contains("line 2: column op: \"DescribeTable\" is not a read or a write"),
            "{e}"
        );
    }

    #[test]
    fn aggregated_rows_spread_their_requests_over_seconds_and_keys() {
        let text = "time,key,op,requests,seconds,keys\n1782208800,HOT,write,600,60,1\n1782208800,other,write,120,60,4\n";
        let t = load("agg.csv", text, &TraceOptions::default()).unwrap();
        assert_eq!(t.trace.requests(), [0.0, 720.0]);
        assert_eq!(t.trace.duration, 60);
        assert_eq!(t.trace.keys.len(), 5);
        let hot = t.trace.keys.iter().find(|k| k.name == "HOT").unwrap();
        assert_eq!(hot.requests[1], 600.0);
        let other = t.trace.keys.iter().find(|k| k.name == "other#3").unwrap();
        assert_eq!(other.requests[1], 30.0);
        // 10 writes a second for HOT, half a write a second for each other key.
        assert_eq!(t.trace.at(59).len(), 5);
    }

    // A reason that is not one of the sixteen is a warning with a count, and its request is kept as served.
    #[test]
    fn a_reason_that_is_not_one_is_counted_and_its_request_kept() {
        let text = "time,pk,reason\n\
                    2026-06-23T10:00:00Z,A,TableWriteKeyRangeThroughputExceeded\n\
                    2026-06-23T10:00:01Z,A,Throttled\n\
                    2026-06-23T10:00:02Z,B,TableWriteKeyRangeThroughputExceeded|IndexWriteProvisionedThroughputExceeded\n\
                    2026-06-23T10:00:03Z,B,\n";
        let t = load("reasons.csv", text, &TraceOptions::default()).unwrap();
        let f = &t.files[0];
        assert_eq!(f.records, 4);
        assert_eq!(t.trace.requests(), [0.0, 4.0]);
        let said: Vec<String> = f.assumed.iter().map(ToString::to_string).collect();
        assert!(
            said.iter().any(
                |a| a.starts_with("1 reason value in column reason is not a throttling reason")
            ),
            "{said:?}"
        );
        assert_eq!(
            f.throttled_keys,
            [("A".to_owned(), 1.0), ("B".to_owned(), 1.0)]
        );
        let m = &t.observed[0];
        assert!(m.by_log);
        let events: Vec<(String, f64)> = m
            .reason_events()
            .map(|(r, n)| (r.name().to_owned(), n))
            .collect();
        assert_eq!(
            events,
            [
                ("WriteProvisionedThroughputThrottleEvents".to_owned(), 1.0),
                ("WriteKeyRangeThroughputThrottleEvents".to_owned(), 2.0)
            ]
        );
    }
}
