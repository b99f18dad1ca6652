//! DynamoDB Streams records and incremental export lines as a trace (DYNAMODB-TRAFFIC "DynamoDB Streams",
//! "Incremental exports" \[AWS\]).
//!
//! A Streams file holds JSON values one after another (pretty or not): `get-records` pages and Lambda events
//! (`{"Records": […]}`), single records (JSON lines), arrays of records, and Kinesis Data Streams for
//! DynamoDB records, decoded (`tableName`, `dynamodb`) or base64-wrapped in a Lambda Kinesis event
//! (`Records[].kinesis.data`). A record's time is `dynamodb.ApproximateCreationDateTime`: seconds (integer,
//! float or E-notation), or milliseconds in Kinesis records (`ApproximateCreationDateTimePrecision`, else
//! told by magnitude), or ISO 8601 text, as AWS CLI version 2 prints every timestamp by default (its
//! `cli_timestamp_format` setting, "iso8601" unless set to "wire") \[AWS: AWS CLI User Guide, "Common
//! parameter types", Timestamp\]. Each record is one write of the larger of its images' write units
//! (⌈size / 1 KB⌉, DynamoDB's size of the item); without images, of `--item-size`. A TTL delete
//! (`REMOVE` by the service principal `dynamodb.amazonaws.com`) costs no write units \[AWS: TTL deletes do
//! not consume write capacity\] and is counted as a record.
//!
//! An incremental export line is one changed item at its last write (`WriteTimestampMicros`): the trace
//! counts changed items, a lower bound on writes, and says so.

use base64::Engine as _;
use serde_json::Value;

use crate::model::KeyType;
use crate::model::key::canonical_partition_key;
use crate::model::trace::{Dim, SortValue};

use super::{ReadError, TraceCx, item_size, micros_of_epoch, micros_of_time};
use crate::source::json::item::{PK_NAMES, SK_NAMES};
use crate::source::{At, Hint, Message};

const TIME_FIELD: &str = "ApproximateCreationDateTime";

/// Reads a Streams file (see the module docs).
pub(super) fn read_streams(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let mut est = Estimates::default();
    let result = read_streams_noting(cx, bytes, &mut est);
    est.say(cx);
    result
}

/// [`read_streams`], noting the records whose sizes are estimates in `est`.
fn read_streams_noting(
    cx: &mut TraceCx<'_>,
    bytes: &[u8],
    est: &mut Estimates,
) -> Result<(), ReadError> {
    let mut n = 0u64;
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    loop {
        let next = values.next();
        cx.parsed(values.byte_offset());
        let value = match next {
            None => break,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                let at = At::Line(e.line() as u64);
                cx.bad(
                    at,
                    format!("not JSON: {}", crate::source::read::json_reason(&e)),
                )?;
                // Nothing after a syntax error can be trusted to start a value.
                break;
            }
        };
        match &value {
            Value::Object(o) if o.contains_key("Records") => {
                let Some(records) = o.get("Records").and_then(Value::as_array) else {
                    n += 1;
                    cx.bad(record_at(n), "Records is not a list of records")?;
                    continue;
                };
                for r in records {
                    n += 1;
                    record(cx, r, n, est)?;
                }
            }
            Value::Array(records) => {
                for r in records {
                    n += 1;
                    record(cx, r, n, est)?;
                }
            }
            other => {
                n += 1;
                record(cx, other, n, est)?;
            }
        }
    }
    if n == 0 {
        cx.bad(At::File, "holds no Streams records")?;
    }
    Ok(())
}

fn record_at(n: u64) -> At {
    At::Item {
        item: n,
        line: None,
    }
}

/// One Streams record (or a Kinesis record wrapping one).
fn record(cx: &mut TraceCx<'_>, r: &Value, n: u64, est: &mut Estimates) -> Result<(), ReadError> {
    if let Some(data) = r.pointer("/kinesis/data").and_then(Value::as_str) {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
        return match decoded {
            Some(inner) => record(cx, &inner, n, est),
            None => Ok(cx.bad(record_at(n), "kinesis.data is not base64 of a JSON record")?),
        };
    }
    let Some(d) = r.get("dynamodb").filter(|d| d.is_object()) else {
        return Ok(cx.bad(
            record_at(n),
            "not a Streams record: it has no dynamodb (expected eventName, dynamodb: {Keys, \
             ApproximateCreationDateTime, …})",
        )?);
    };
    let precision = d
        .get("ApproximateCreationDateTimePrecision")
        .and_then(Value::as_str);
    let raw = d.get(TIME_FIELD);
    let micros = raw
        .and_then(number)
        .and_then(|v| match precision {
            Some("MILLISECOND") => micros_of_epoch(v).filter(|_| v >= 1e11),
            Some("MICROSECOND") => micros_of_epoch(v).filter(|_| v >= 1e14),
            _ => micros_of_epoch(v),
        })
        .or_else(|| {
            // AWS CLI v2 prints every timestamp as ISO 8601 unless `cli_timestamp_format` says otherwise.
            let (micros, zoned) = micros_of_time(raw?.as_str()?)?;
            if !zoned {
                cx.file.assume(format!(
                    "dynamodb.{TIME_FIELD} times without a zone are taken as UTC [ours]"
                ));
            }
            Some(micros)
        });
    let Some(micros) = micros else {
        let what = if raw.is_some() {
            "is not a time in epoch seconds or milliseconds, nor ISO 8601"
        } else {
            "is missing"
        };
        return Ok(cx.bad(
            record_at(n),
            format!(
                "dynamodb.{TIME_FIELD} (the record's time) {what}: a trace needs each record's time"
            ),
        )?);
    };
    let Some((pk, sk)) = keys_of(cx, d.get("Keys"), n)? else {
        return Ok(());
    };
    let ttl_delete = r.get("eventName").and_then(Value::as_str) == Some("REMOVE")
        && principal_of(r) == Some("dynamodb.amazonaws.com");
    let units = if ttl_delete {
        cx.file
            .assume("TTL deletes (REMOVE by dynamodb.amazonaws.com) cost no write units [AWS]");
        0.0
    } else {
        match write_units_of(cx, d, record_at(n), est)? {
            Some(u) => u,
            None => return Ok(()),
        }
    };
    cx.add(micros, &pk, sk, Dim::Write, units)?;
    Ok(())
}

/// Who made a record's change: `userIdentity.principalId` as Lambda events, Kinesis records and
/// `shardlens stream` write it, or `userIdentity.PrincipalId`, the API's own name, as `aws dynamodbstreams
/// get-records` prints it (the Streams API's `Identity` \[AWS\]).
fn principal_of(r: &Value) -> Option<&str> {
    let who = r.get("userIdentity")?;
    who.get("principalId")
        .or_else(|| who.get("PrincipalId"))
        .and_then(Value::as_str)
}

/// Reads incremental export lines (see the module docs).
pub(super) fn read_incremental(cx: &mut TraceCx<'_>, bytes: &[u8]) -> Result<(), ReadError> {
    let mut est = Estimates::default();
    let result = read_incremental_noting(cx, bytes, &mut est);
    est.say(cx);
    result
}

/// [`read_incremental`], noting the lines whose sizes are estimates in `est`.
fn read_incremental_noting(
    cx: &mut TraceCx<'_>,
    bytes: &[u8],
    est: &mut Estimates,
) -> Result<(), ReadError> {
    cx.file.assume(
        "an incremental export holds each changed item once, at its last write: the writes are a lower \
         bound (exact when every write makes a new item)",
    );
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let at = At::Line(i as u64 + 1);
        cx.parsed(line.as_ptr() as usize - bytes.as_ptr() as usize);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let v: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                cx.bad(
                    at,
                    format!("not JSON: {}", crate::source::read::json_reason(&e)),
                )?;
                continue;
            }
        };
        let micros = v
            .pointer("/Metadata/WriteTimestampMicros/N")
            .and_then(Value::as_str)
            .and_then(|s| s.trim().parse::<i64>().ok());
        let Some(micros) = micros else {
            cx.bad(
                at,
                "Metadata.WriteTimestampMicros (the write's time) is missing or not a number",
            )?;
            continue;
        };
        let Some((pk, sk)) = keys_of(cx, v.get("Keys"), i as u64 + 1)? else {
            continue;
        };
        let Some(units) = write_units_of(cx, &v, at, est)? else {
            continue;
        };
        cx.add(micros, &pk, sk, Dim::Write, units)?;
    }
    Ok(())
}

/// A JSON number, or a string holding one.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Records kept whose image had an attribute (not a key) that is not a DynamoDB typed value: their sizes,
/// and so their write units, are estimates ([`item_size`]). Said once a file, with the first.
#[derive(Debug, Default)]
struct Estimates {
    n: u64,
    first: Option<String>,
}

impl Estimates {
    fn note(&mut self, at: &At, field: &str, what: &str) {
        self.n += 1;
        self.first
            .get_or_insert_with(|| format!("{at}{field}: {what}"));
    }

    /// Says how many, in the file's assumptions (`simulate --trace` prints them, the app shows them).
    fn say(self, cx: &mut TraceCx<'_>) {
        let Some(first) = self.first else {
            return;
        };
        cx.file.assume(format!(
            "{} kept with an image attribute (not a key) that is not a DynamoDB typed value: {} estimated \
             from what could be read (the first: {first})",
            crate::model::fmt::plural(self.n, "record"),
            if self.n == 1 {
                "its size is"
            } else {
                "their sizes are"
            },
        ));
    }
}

/// Write units of one record: the larger image's size, or `--item-size` without images. `None` when an
/// image's key attribute (one of the record's `Keys`) is not what its type tag says: the record is bad (named
/// at `at`). Any other attribute so written makes the size an estimate, noted in `est`.
fn write_units_of(
    cx: &mut TraceCx<'_>,
    holder: &Value,
    at: At,
    est: &mut Estimates,
) -> Result<Option<f64>, ReadError> {
    let mut size: Option<u64> = None;
    let keys: Vec<&str> = holder
        .get("Keys")
        .and_then(Value::as_object)
        .map(|k| k.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut estimate = None;
    for field in ["NewImage", "OldImage"] {
        let Some(image) = holder.get(field).filter(|v| !v.is_null()) else {
            continue;
        };
        match item_size(image, &keys) {
            Ok(sized) => {
                let b = sized.bytes;
                size = Some(size.map_or(b, |s| s.max(b)));
                if let Some(what) = sized.estimate {
                    estimate.get_or_insert((field, what));
                }
            }
            Err(what) => {
                cx.bad(at, format!("{field}: {what}"))?;
                return Ok(None);
            }
        }
    }
    if let Some((field, what)) = estimate {
        est.note(&at, field, &what);
    }
    let bytes = match size {
        Some(b) => b,
        None => {
            let b = cx.opts.item_size;
            let mut m = Message::new(format!(
                "records without images: {} each (",
                crate::model::fmt::plural(b.div_ceil(1024).max(1), "write unit")
            ));
            m.push_hint(Hint::ItemSize);
            m.push_str(&format!(" {} bytes)", crate::model::fmt::grouped(b)));
            cx.file.assume(m);
            b
        }
    };
    Ok(Some(bytes.div_ceil(1024).max(1) as f64))
}

/// A record's partition key (canonical bytes) and sort key.
type ItemKey = (Vec<u8>, Option<SortValue>);

/// The partition key's canonical bytes and the sort key of a record's `Keys`, or `None` when the record is
/// skipped as bad.
fn keys_of(
    cx: &mut TraceCx<'_>,
    keys: Option<&Value>,
    n: u64,
) -> Result<Option<ItemKey>, ReadError> {
    let Some(keys) = keys.and_then(Value::as_object).filter(|k| !k.is_empty()) else {
        cx.bad(record_at(n), "Keys (the item's key attributes) is missing")?;
        return Ok(None);
    };
    let names: Vec<&str> = keys.keys().map(String::as_str).collect();
    let is_time = |name: &str| {
        crate::model::sortkey::is_time_name(name)
            || keys
                .get(name)
                .and_then(|v| key_value(v).ok())
                .is_some_and(|(ty, text)| crate::model::sortkey::is_time_value(&text, ty))
    };
    let (pk_name, by_time) = match pick_partition_key(&names, cx.opts.key.as_deref(), is_time) {
        Ok(picked) => picked,
        Err(what) => {
            cx.bad(record_at(n), what)?;
            return Ok(None);
        }
    };
    if names.len() > 1 && cx.opts.key.is_none() {
        say_key_guess(cx, &names, pk_name, by_time);
    }
    let (ty, raw) = match keys.get(pk_name).map(key_value) {
        Some(Ok(v)) => v,
        Some(Err(why)) => {
            cx.bad(
                record_at(n),
                format!("Keys.{pk_name} is not a key value: {why}"),
            )?;
            return Ok(None);
        }
        None => {
            cx.bad(
                record_at(n),
                format!("Keys.{pk_name} is not a key value ({{\"S\"|\"N\"|\"B\": \"…\"}})"),
            )?;
            return Ok(None);
        }
    };
    let pk = match canonical_partition_key(raw.as_bytes(), ty) {
        Ok(k) => k,
        Err(e) => {
            cx.bad(record_at(n), format!("Keys.{pk_name}: {e}"))?;
            return Ok(None);
        }
    };
    let sk = names
        .iter()
        .find(|&&name| name != pk_name)
        .and_then(|name| keys.get(*name))
        .and_then(|v| key_value(v).ok())
        .map(|(ty, raw)| match ty {
            KeyType::N => raw.trim().parse().map_or_else(
                |_| SortValue::Bytes(raw.clone().into_bytes().into()),
                SortValue::Number,
            ),
            KeyType::S => SortValue::Bytes(raw.into_bytes().into()),
            KeyType::B => SortValue::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(&raw)
                    .unwrap_or_else(|_| raw.into_bytes())
                    .into(),
            ),
        });
    Ok(Some((pk, sk)))
}

/// Says which of a record's `Keys` was guessed as the partition key, and why when a time decided.
fn say_key_guess(cx: &mut TraceCx<'_>, names: &[&str], pk_name: &str, by_time: bool) {
    let why = if by_time {
        let others: Vec<&str> = names.iter().copied().filter(|m| *m != pk_name).collect();
        format!(
            ": {} {} times, a sort key's",
            others.join(", "),
            if others.len() == 1 { "holds" } else { "hold" }
        )
    } else {
        String::new()
    };
    cx.file.assume(Message::hinted(
        format!(
            "partition key {pk_name} (guessed from Keys {}{why}; ",
            names.join(", ")
        ),
        Hint::ChooseKey,
        " to choose)",
    ));
}

/// A key value: its type and text, or why it is not one (aws-lambda-go's events write every tag:
/// [`super::size::typed_entry`]).
fn key_value(v: &Value) -> Result<(KeyType, String), String> {
    let obj = v
        .as_object()
        .ok_or("not a typed value; expected an object like {\"S\": \"…\"}")?;
    let (tag, inner) = super::size::typed_entry(obj)?;
    let ty = match tag {
        "S" => KeyType::S,
        "N" => KeyType::N,
        "B" => KeyType::B,
        other => return Err(format!("{other} is not a key type (S, N or B)")),
    };
    let text = inner
        .as_str()
        .ok_or_else(|| format!("{tag} is not a string"))?;
    Ok((ty, text.to_owned()))
}

/// Which of a record's key attributes is the partition key: the one `--key` names, the only one, or of two
/// the one named like a partition key (or not like a sort key), else the one that does not hold a time
/// (`is_time`: by its name or its value, `name, timestamp` or `device, timestamp`: a time is a sort key's
/// value, DYNAMODB-TIME "time-ordered sort keys"). With it, whether the time decided.
fn pick_partition_key<'n>(
    names: &[&'n str],
    given: Option<&str>,
    is_time: impl Fn(&str) -> bool,
) -> Result<(&'n str, bool), Message> {
    if let Some(want) = given {
        return names
            .iter()
            .copied()
            .find(|n| *n == want)
            .map(|n| (n, false))
            .ok_or_else(|| {
                Message::hinted(
                    format!("Keys has {}, not {want}: ", names.join(", ")),
                    Hint::ChooseKey,
                    "",
                )
            });
    }
    if let [only] = names {
        return Ok((*only, false));
    }
    let like = |list: &[&str], n: &str| list.iter().any(|w| n.eq_ignore_ascii_case(w));
    if let Some(pk) = names.iter().find(|n| like(&PK_NAMES, n)) {
        return Ok((*pk, false));
    }
    let not_sk: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !like(&SK_NAMES, n))
        .collect();
    if let [pk] = not_sk.as_slice() {
        return Ok((*pk, false));
    }
    let not_time: Vec<&str> = names.iter().copied().filter(|n| !is_time(n)).collect();
    if let ([pk], 2) = (not_time.as_slice(), names.len()) {
        return Ok((*pk, true));
    }
    Err(Message::hinted(
        format!(
            "Keys has {}: which is the partition key? ",
            names.join(", ")
        ),
        Hint::ChooseKey,
        "",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::trace::{TraceOptions, load_traces};

    fn load(text: &str, opts: &TraceOptions) -> Result<super::super::TraceLoad, String> {
        let dir = std::env::temp_dir().join(format!(
            "shardlens-streams-{}-{}",
            std::process::id(),
            crate::model::partition::key_hash(text.as_bytes())
        ));
        std::fs::write(&dir, text).unwrap();
        let out = load_traces(std::slice::from_ref(&dir), opts).map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&dir);
        out
    }

    const PAGE: &str = r#"{"Records":[
 {"eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":1782208800,"Keys":{"pk":{"S":"A"},"sk":{"N":"1"}},
  "NewImage":{"pk":{"S":"A"},"sk":{"N":"1"},"blob":{"S":"x"}}}},
 {"eventName":"MODIFY","dynamodb":{"ApproximateCreationDateTime":1782208801.0,"Keys":{"pk":{"S":"A"},"sk":{"N":"2"}}}}
],"NextShardIterator":"abc"}
{"Records":[{"eventName":"REMOVE","dynamodb":{"ApproximateCreationDateTime":1.7822088015E9,"Keys":{"pk":{"S":"B"},"sk":{"N":"1"}}}}]}"#;

    #[test]
    fn pages_one_after_another_are_one_trace() {
        let t = load(PAGE, &TraceOptions::default()).unwrap();
        assert_eq!(t.files[0].records, 3);
        assert_eq!(t.files[0].keys, 2);
        assert_eq!(t.trace.start, 1_782_208_800);
        assert_eq!(t.trace.duration, 2);
        assert_eq!(t.trace.requests(), [0.0, 3.0]);
        assert!(
            t.files[0]
                .assumed
                .iter()
                .any(|a| a.as_str().contains("--item-size"))
        );
    }

    /// A TTL delete costs no write units however its identity is spelled: `principalId` in a Lambda event,
    /// `PrincipalId` in `aws dynamodbstreams get-records` pages (the API's member name). Found by
    /// tests/trace_differential.rs: get-records pages charged a TTL delete its old image's units.
    #[test]
    fn a_ttl_delete_costs_nothing_in_get_records_pages_and_lambda_events() {
        let remove = |identity: &str| {
            format!(
                r#"{{"Records":[{{"eventName":"REMOVE","userIdentity":{identity},"dynamodb":{{"ApproximateCreationDateTime":1782208800,"Keys":{{"pk":{{"S":"A"}}}},"OldImage":{{"pk":{{"S":"A"}},"v":{{"S":"{}"}}}}}}}}]}}"#,
                "x".repeat(3000)
            )
        };
        for identity in [
            r#"{"PrincipalId":"dynamodb.amazonaws.com","Type":"Service"}"#,
            r#"{"type":"Service","principalId":"dynamodb.amazonaws.com"}"#,
        ] {
            let t = load(&remove(identity), &TraceOptions::default()).unwrap();
            assert_eq!(t.trace.requests(), [0.0, 1.0], "{identity}");
            assert_eq!(t.trace.units(), [0.0, 0.0], "{identity}");
        }
        // Anyone else's delete costs its old image's units.
        let user = remove(r#"{"PrincipalId":"AIDAEXAMPLE","Type":"User"}"#);
        let t = load(&user, &TraceOptions::default()).unwrap();
        assert_eq!(t.trace.units(), [0.0, 3.0]);
    }

    #[test]
    fn get_records_pages_as_aws_cli_v2_prints_them_have_iso_times() {
        // `aws dynamodbstreams get-records` with CLI v2's default cli_timestamp_format (iso8601).
        let text = r#"{"Records":[
 {"eventID":"1","eventName":"INSERT","dynamodb":{"ApproximateCreationDateTime":"2026-06-23T10:00:00+00:00","Keys":{"pk":{"S":"a"}},"SizeBytes":20}},
 {"eventID":"2","eventName":"MODIFY","dynamodb":{"ApproximateCreationDateTime":"2026-06-23T12:00:01+02:00","Keys":{"pk":{"S":"b"}},"SizeBytes":20}}],
 "NextShardIterator":"x"}"#;
        let t = load(text, &TraceOptions::default()).unwrap();
        assert_eq!(t.files[0].records, 2);
        assert_eq!(t.trace.start, 1_782_208_800);
        assert_eq!(t.trace.duration, 2);
        assert!(
            t.files[0]
                .assumed
                .iter()
                .all(|a| !a.as_str().contains("UTC"))
        );
        let unzoned = text.replace("+00:00", "").replace("+02:00", "");
        let t = load(&unzoned, &TraceOptions::default()).unwrap();
        assert_eq!(t.trace.start, 1_782_208_800);
        assert_eq!(t.trace.duration, 7_202);
        assert!(
            t.files[0]
                .assumed
                .iter()
                .any(|a| a.as_str().contains("without a zone are taken as UTC")),
            "{:?}",
            t.files[0].assumed
        );
        let e = load(
            &text.replace("2026-06-23T10:00:00+00:00", "yesterday"),
            &TraceOptions::default(),
        )
        .unwrap_err();
        assert!(e.contains("nor ISO 8601"), "{e}");
    }

    #[test]
    fn a_record_without_its_time_is_named() {
        let text = r#"{"Records":[{"eventName":"INSERT","dynamodb":{"Keys":{"id":{"N":"1"}}}}]}"#;
        let e = load(text, &TraceOptions::default()).unwrap_err();
        assert!(
            e.contains("item 1: dynamodb.ApproximateCreationDateTime"),
            "{e}"
        );
        let skip = TraceOptions {
            on_bad: crate::source::OnBad::Skip,
            ..TraceOptions::default()
        };
        let e = load(text, &skip).unwrap_err();
        assert!(e.contains("no records with a time"), "{e}");
    }

    #[test]
    fn kinesis_records_in_base64_with_milliseconds() {
        let inner = r#"{"awsRegion":"eu-west-1","eventName":"INSERT","tableName":"t","recordFormat":"application/json","userIdentity":null,"dynamodb":{"ApproximateCreationDateTime":1731924555370,"Keys":{"id":{"S":"k1"}},"NewImage":{"id":{"S":"k1"}},"SizeBytes":20}}"#;
        let data = base64::engine::general_purpose::STANDARD.encode(inner);
        let text = format!(
            r#"{{"Records":[{{"kinesis":{{"data":"{data}"}}}},{{"kinesis":{{"data":"{data}"}}}}]}}"#
        );
        let t = load(&text, &TraceOptions::default()).unwrap();
        assert_eq!(t.files[0].records, 2);
        assert_eq!(t.trace.start, 1_731_924_555);
        assert_eq!(t.trace.keys[0].name, "k1");
    }

    #[test]
    fn two_key_attributes_need_a_name_unless_one_looks_like_a_sort_key() {
        let by_name = |n: &str| crate::model::sortkey::is_time_name(n);
        assert_eq!(
            pick_partition_key(&["sk", "pk"], None, by_name).ok(),
            Some(("pk", false))
        );
        assert_eq!(
            pick_partition_key(&["timestamp", "name"], Some("name"), by_name).ok(),
            Some(("name", false))
        );
        // Of two, the one that is not a time, by name or (here) by value.
        assert_eq!(
            pick_partition_key(&["timestamp", "name"], None, by_name).ok(),
            Some(("name", true))
        );
        assert_eq!(
            pick_partition_key(&["device", "when"], None, |n| n == "when").ok(),
            Some(("device", true))
        );
        let e = pick_partition_key(&["user", "name"], None, by_name).unwrap_err();
        assert!(e.in_words(Hint::flag).contains("--key"), "{e:?}");
        let e = pick_partition_key(&["created", "timestamp"], None, by_name).unwrap_err();
        assert!(e.in_words(Hint::flag).contains("--key"), "{e:?}");
    }

    #[test]
    fn incremental_lines_carry_microseconds_and_say_they_are_a_lower_bound() {
        let text = "{\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1782208800500000\"}},\"Keys\":{\"id\":{\"N\":\"7\"}},\"NewImage\":{\"id\":{\"N\":\"7\"}}}\n\
                    {\"Metadata\":{\"WriteTimestampMicros\":{\"N\":\"1782208802000000\"}},\"Keys\":{\"id\":{\"N\":\"7.0\"}},\"OldImage\":{\"id\":{\"N\":\"7\"}}}\n";
        let t = load(text, &TraceOptions::default()).unwrap();
        assert_eq!(
            t.files[0].format,
            Some(super::super::TraceFormat::Incremental)
        );
        assert_eq!((t.trace.keys.len(), t.trace.duration), (1, 3));
        assert!(t.files[0].assumed[0].as_str().contains("lower bound"));
    }
}
