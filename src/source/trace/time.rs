//! The times of traffic records: epoch numbers in seconds, milliseconds or microseconds (told by magnitude),
//! and ISO 8601 text (`T` or a space, fractions, `Z` or an offset; without a zone, UTC **\[ours\]**).

/// Unix µs of a time given as a number: seconds, milliseconds or microseconds by magnitude (a number above
/// 10^11 is not seconds before the year 5138, above 10^14 not milliseconds).
pub fn micros_of_epoch(v: f64) -> Option<i64> {
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    let micros = if v >= 1e14 {
        v
    } else if v >= 1e11 {
        v * 1e3
    } else {
        v * 1e6
    };
    (micros < 9.2e18).then(|| micros.round() as i64)
}

/// A time's Unix µs and whether it named its zone: ISO 8601 (`2026-06-23T10:00:00Z`,
/// `2026-06-23T10:00:00.123+02:00`, a space instead of `T`, an offset `+0200` or `+02`) or a number of epoch
/// seconds, milliseconds or microseconds ([`micros_of_epoch`]; a number is UTC). A time without a zone is
/// taken as UTC (the caller says so, **\[ours\]**).
pub fn micros_of_time(text: &str) -> Option<(i64, bool)> {
    let text = text.trim();
    if let Ok(v) = text.parse::<f64>() {
        return micros_of_epoch(v).map(|m| (m, true));
    }
    micros_of_iso(text)
}

/// A JSON time: a number of epoch seconds, milliseconds or microseconds, or a string [`micros_of_time`]
/// reads.
pub fn micros_of_json_time(v: &serde_json::Value) -> Option<(i64, bool)> {
    match v {
        serde_json::Value::Number(n) => micros_of_epoch(n.as_f64()?).map(|m| (m, true)),
        serde_json::Value::String(s) => micros_of_time(s),
        _ => None,
    }
}

/// Unix µs of an ISO 8601 date-time, and whether it named its zone (see [`micros_of_time`]).
fn micros_of_iso(text: &str) -> Option<(i64, bool)> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<u32> {
        let digits = b.get(from..from + len)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let year = i64::from(year);
    if !(1..=12).contains(&month)
        || day == 0
        || day > crate::model::calendar::days_in_month(year, month)
    {
        return None;
    }
    let mut micros = crate::model::calendar::days_from_civil(year, month, day) * 86_400_000_000;
    if b.len() == 10 {
        return Some((micros, false));
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let (hour, minute) = (num(11, 2)?, num(14, 2)?);
    let mut i = 16;
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        second = num(17, 2)?;
        i = 19;
        if matches!(b.get(i), Some(b'.' | b',')) {
            i += 1;
            let start = i;
            let mut frac = 0i64;
            while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                if i - start < 6 {
                    frac = frac * 10 + i64::from(d - b'0');
                }
                i += 1;
            }
            if i == start {
                return None;
            }
            frac *= 10_i64.pow(6_u32.saturating_sub((i - start) as u32));
            micros += frac;
        }
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    micros += i64::from(hour * 3_600 + minute * 60 + second) * 1_000_000;
    let zone = &b[i..];
    let offset = match zone {
        [] => return Some((micros, false)),
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let rest = std::str::from_utf8(rest).ok()?;
            let (h, m) = match rest.len() {
                2 => (rest, "00"),
                4 => rest.split_at(2),
                5 if rest.as_bytes()[2] == b':' => (&rest[..2], &rest[3..]),
                _ => return None,
            };
            let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
            if h > 23 || m > 59 {
                return None;
            }
            let sign = if *sign == b'-' { -1 } else { 1 };
            sign * (h * 3_600 + m * 60) * 1_000_000
        }
        _ => return None,
    };
    Some((micros - offset, true))
}
