//! Whether a key's sort keys *look* time-ordered, judged from their values.
//!
//! Split-for-heat cannot help an item collection whose new items are always written at the end of its
//! sort-key range (DYNAMODB-TIME.md, R3: "a key whose sort key only increases … cannot be split usefully").
//! The order of writes is known only where the input's order is the order of writes (pasted lines). A Scan, a
//! full export, a Workbench model or a JSON array return a key's items **in sort-key order**: that is read
//! order, and every collection would look "only increasing". For those, this module looks at the values
//! instead: sort keys that are timestamps, epoch numbers, zero-padded counters or ULID/KSUID-like ids (after a
//! constant prefix such as `EVENT#`) are probably written in increasing order. It is an inference, labelled as
//! one wherever it is shown, with the pattern and an example.

use super::key::{KeyType, display_key};

/// Sort keys looked at per key (the first ones kept): enough to judge a pattern, bounded in time.
pub const SAMPLE: usize = 2_000;

/// A value pattern that increases with time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimePattern {
    /// `2024-05-01`, `2024-05-01T10:00:00Z`, …
    Iso8601,
    /// Whole seconds since 1970 between the years 2000 and 2100.
    EpochSeconds,
    /// Milliseconds since 1970 between the years 2000 and 2100.
    EpochMillis,
    /// Digit strings of one length with leading zeros (`000123`).
    ZeroPadded,
    /// 26-character Crockford base-32 ids whose 48-bit time prefix falls between 2000 and 2100.
    Ulid,
    /// 27-character base-62 ids whose 32-bit time prefix (KSUID epoch) falls between 2014 and 2100.
    Ksuid,
}

impl TimePattern {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Iso8601 => "ISO-8601 timestamps",
            Self::EpochSeconds => "epoch seconds",
            Self::EpochMillis => "epoch milliseconds",
            Self::ZeroPadded => "zero-padded counters",
            Self::Ulid => "ULID-like ids (time first)",
            Self::Ksuid => "KSUID-like ids (time first)",
        }
    }
}

/// What [`infer`] found: the pattern, the constant prefix before it, and one sort key as an example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeOrdered {
    pub pattern: TimePattern,
    pub prefix: String,
    pub example: String,
}

impl TimeOrdered {
    /// "sort keys look time-ordered: ISO-8601 timestamps after `EVENT#` (e.g. EVENT#2024-05-01); inferred
    /// from their values, not from the order of writes"
    pub fn describe(&self) -> String {
        let after = if self.prefix.is_empty() {
            String::new()
        } else {
            format!(" after \"{}\"", self.prefix)
        };
        format!(
            "sort keys look time-ordered: {}{after} (e.g. {}); inferred from their values, not from the order of \
             writes",
            self.pattern.describe(),
            self.example
        )
    }
}

const SEPARATORS: [char; 2] = ['#', '|'];

/// Judges the sort keys of one item collection (canonical bytes, any order). `None` when there are fewer than
/// two, or when not every one of them fits one time pattern after a common prefix.
pub fn infer(sort_keys: &[&[u8]], ty: KeyType) -> Option<TimeOrdered> {
    if sort_keys.len() < 2 || ty == KeyType::B {
        return None;
    }
    let texts: Vec<std::borrow::Cow<'_, str>> = sort_keys
        .iter()
        .take(SAMPLE)
        .map(|k| display_key(k, ty))
        .collect();
    let segments: Vec<Vec<&str>> = texts
        .iter()
        .map(|t| t.split(&SEPARATORS[..]).collect())
        .collect();
    // Leading segments equal in every key are the prefix; the first that differs must carry the time.
    let first = &segments[0];
    let mut at = 0;
    while at < first.len() && segments.iter().all(|s| s.get(at) == first.get(at)) {
        at += 1;
    }
    let first_time = first.get(at)?;
    let pattern = classify(first_time, ty)?;
    let all_match = segments.iter().all(|s| {
        s.get(at)
            .is_some_and(|seg| classify(seg, ty) == Some(pattern))
    });
    if !all_match {
        return None;
    }
    if pattern == TimePattern::ZeroPadded {
        // One length for every counter (so their text order is their numeric order), and padding seen.
        let len = first_time.len();
        let time_segments = || segments.iter().filter_map(|s| s.get(at));
        if !time_segments().all(|seg| seg.len() == len)
            || !time_segments().any(|seg| seg.starts_with('0'))
        {
            return None;
        }
    }
    // The prefix as written, separators included (the text before the time segment).
    let prefix_len: usize = first[..at].iter().map(|s| s.len() + 1).sum();
    let prefix = texts[0].get(..prefix_len).unwrap_or_default().to_owned();
    Some(TimeOrdered {
        pattern,
        prefix,
        example: texts[0].clone().into_owned(),
    })
}

/// Whether one key value is a time by itself: an ISO-8601 date or timestamp, or epoch seconds or
/// milliseconds between the years 2000 and 2100 (a number, or digits in a string; a fraction is taken). A
/// zero-padded counter or an id with a time inside is not: alone, it does not say it is a time.
pub fn is_time_value(text: &str, ty: KeyType) -> bool {
    const Y2000: f64 = 946_684_800.0;
    const Y2100: f64 = 4_102_444_800.0;
    let t = text.trim();
    if ty == KeyType::S && iso8601(t) {
        return true;
    }
    let numeric = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    numeric
        && t.parse::<f64>().is_ok_and(|v| {
            (Y2000..Y2100).contains(&v) || (Y2000 * 1000.0..Y2100 * 1000.0).contains(&v)
        })
}

/// Whether an attribute's name says it holds a time: `timestamp`, `time`, `date`, `ts`, `created_at`,
/// `updatedAt`, `eventTime`, … (case aside).
pub fn is_time_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "ts" | "at" | "when" | "epoch" | "created" | "updated"
    ) || ["time", "timestamp", "date", "datetime", "_at", "_ts"]
        .iter()
        .any(|end| n.ends_with(end))
        || (n.len() > 2 && name.ends_with("At") && name.as_bytes()[0].is_ascii_lowercase())
}

/// The pattern of one segment, if it has one.
fn classify(seg: &str, ty: KeyType) -> Option<TimePattern> {
    let digits = !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit());
    if digits {
        if let Ok(v) = seg.parse::<u64>() {
            const Y2000: u64 = 946_684_800;
            const Y2100: u64 = 4_102_444_800;
            if seg.len() == 10 && (Y2000..Y2100).contains(&v) {
                return Some(TimePattern::EpochSeconds);
            }
            if seg.len() == 13 && (Y2000 * 1000..Y2100 * 1000).contains(&v) {
                return Some(TimePattern::EpochMillis);
            }
        }
        // Digit strings of three or more: a zero-padded run when every one has the same length and some
        // carry the padding (checked by the caller over the whole collection).
        return (ty == KeyType::S && seg.len() >= 3).then_some(TimePattern::ZeroPadded);
    }
    if ty != KeyType::S {
        return None;
    }
    if iso8601(seg) {
        return Some(TimePattern::Iso8601);
    }
    if ulid(seg) {
        return Some(TimePattern::Ulid);
    }
    if ksuid(seg) {
        return Some(TimePattern::Ksuid);
    }
    None
}

/// `YYYY-MM-DD`, optionally followed by `T` or a space and a time, or more text.
fn iso8601(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 10 {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    b[4] == b'-'
        && b[7] == b'-'
        && (1900..=2200).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (b.len() == 10 || matches!(b[10], b'T' | b't' | b' ' | b'_'))
}

const CROCKFORD: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A ULID: 26 Crockford base-32 characters, the first ten a millisecond timestamp (here: 2000–2100).
fn ulid(s: &str) -> bool {
    if s.len() != 26 {
        return false;
    }
    let mut ms: u64 = 0;
    for (i, c) in s.bytes().enumerate() {
        let Some(v) = CROCKFORD.find(c.to_ascii_uppercase() as char) else {
            return false;
        };
        if i < 10 {
            ms = ms * 32 + v as u64;
        }
    }
    (946_684_800_000..4_102_444_800_000).contains(&ms)
}

/// A KSUID: 27 base-62 characters encoding 20 bytes whose first four are seconds since 2014-05-13
/// (1,400,000,000 Unix); here the time must fall between 2014 and 2100.
fn ksuid(s: &str) -> bool {
    if s.len() != 27 {
        return false;
    }
    // Big-endian 160-bit number in five 32-bit limbs.
    let mut limbs = [0u64; 5];
    for c in s.bytes() {
        let v = match c {
            b'0'..=b'9' => c - b'0',
            b'A'..=b'Z' => c - b'A' + 10,
            b'a'..=b'z' => c - b'a' + 36,
            _ => return false,
        } as u64;
        let mut carry = v;
        for limb in limbs.iter_mut().rev() {
            let x = *limb * 62 + carry;
            *limb = x & 0xffff_ffff;
            carry = x >> 32;
        }
        if carry != 0 {
            return false;
        }
    }
    let seconds = limbs[0];
    // 2014-05-13 … 2100: 0 … ~2.7e9 seconds after the KSUID epoch; a random 27-character string is over
    // that about a third of the time, and mostly fails the limb overflow check above.
    seconds > 0 && seconds < 2_702_444_800
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key value that is a time by itself, and names that say time (a Streams record's two `Keys`).
    #[test]
    fn times_by_value_and_by_name() {
        for (text, ty) in [
            ("2023-05-27 02:33:59.804927", KeyType::S),
            ("2026-06-23T10:00:00Z", KeyType::S),
            ("1782208800", KeyType::N),
            ("1782208800.25", KeyType::N),
            ("1782208800123", KeyType::S),
        ] {
            assert!(is_time_value(text, ty), "{text}");
        }
        for (text, ty) in [
            ("PLAYER Ada", KeyType::S),
            ("42", KeyType::N),
            ("000123", KeyType::S),
            ("2023-13-01", KeyType::S),
            ("-1782208800", KeyType::N),
        ] {
            assert!(!is_time_value(text, ty), "{text}");
        }
        for name in [
            "timestamp",
            "time",
            "date",
            "ts",
            "created_at",
            "createdAt",
            "eventTime",
            "Date",
        ] {
            assert!(is_time_name(name), "{name}");
        }
        for name in ["name", "device", "format", "id", "player", "data"] {
            assert!(!is_time_name(name), "{name}");
        }
    }

    fn judge(keys: &[&str], ty: KeyType) -> Option<TimePattern> {
        let bytes: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        infer(&bytes, ty).map(|t| t.pattern)
    }

    #[test]
    fn timestamps_after_a_prefix_are_time_ordered() {
        let got = infer(
            &[
                b"EVENT#2024-05-01T10:00:00Z".as_slice(),
                b"EVENT#2024-05-01T10:00:05Z",
                b"EVENT#2024-06-11",
            ],
            KeyType::S,
        )
        .unwrap();
        assert_eq!(got.pattern, TimePattern::Iso8601);
        assert_eq!(got.prefix, "EVENT#");
        assert!(
            got.describe().contains("after \"EVENT#\""),
            "{}",
            got.describe()
        );
        assert!(got.describe().contains("inferred"));
        assert_eq!(
            judge(&["2024-01-01", "2024-01-02"], KeyType::S),
            Some(TimePattern::Iso8601)
        );
    }

    #[test]
    fn epoch_numbers_counters_and_ids() {
        assert_eq!(
            judge(&["1714557600", "1714557601"], KeyType::N),
            Some(TimePattern::EpochSeconds)
        );
        assert_eq!(
            judge(&["ts#1714557600123", "ts#1714557600999"], KeyType::S),
            Some(TimePattern::EpochMillis)
        );
        assert_eq!(
            judge(&["000001", "000002", "000310"], KeyType::S),
            Some(TimePattern::ZeroPadded)
        );
        assert_eq!(
            judge(
                &["01HX3Z8Q4RJ5N2K7M9P0S1T2V3", "01HX3Z8Q4RJ5N2K7M9P0S1T2V4"],
                KeyType::S
            ),
            Some(TimePattern::Ulid)
        );
        // A KSUID from 2017 (the format's documentation example).
        assert_eq!(
            judge(
                &["0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0ujzPyRiIAffKhBux4PvQdDqMHY"],
                KeyType::S
            ),
            Some(TimePattern::Ksuid)
        );
    }

    #[test]
    fn names_ids_small_numbers_and_mixed_lengths_are_not() {
        assert_eq!(judge(&["profile", "settings", "avatar"], KeyType::S), None);
        assert_eq!(judge(&["1", "2", "3"], KeyType::N), None);
        assert_eq!(judge(&["007", "0010"], KeyType::S), None);
        assert_eq!(judge(&["123", "456"], KeyType::S), None);
        assert_eq!(
            judge(
                &[
                    "c0a8e7e4-3b1f-4a57-9f0e-1d2f3a4b5c6d",
                    "1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"
                ],
                KeyType::S
            ),
            None
        );
        // One item is no pattern; a time segment after a varying one is not increasing as a whole.
        assert_eq!(judge(&["2024-01-01"], KeyType::S), None);
        assert_eq!(
            judge(&["alice#2024-01-01", "bob#2024-01-02"], KeyType::S),
            None
        );
        // Dates that are not dates.
        assert_eq!(judge(&["2024-13-01", "2024-14-01"], KeyType::S), None);
        assert_eq!(judge(&["A1", "B2"], KeyType::B), None);
    }
}
