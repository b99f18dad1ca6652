//! Ion text's numeric and timestamp tokens, checked against the Ion 1.0 text grammar (`IonText.g4`: `INTEGER`,
//! `DECIMAL`, `FLOAT`, `TIMESTAMP`) before the reader takes them, so a corrupt number is an error wherever it
//! stands, not only in a key. The reader used to accept any run of number-like characters outside the keys
//! (`0.0.5d`); the `ion_rs` fuzz target (the reader against Amazon's ion-rs) found it.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Decimal (`-12`), hex (`0x1F`) or binary (`0b101`) int.
    Int,
    /// `1.5`, `103.`, `1.5d3`.
    Decimal,
    /// `2.5e0`.
    Float,
    /// `2007-02-23T12:14Z`, `2007T`, …
    Timestamp,
}

/// Digits of `radix` with single underscores between them (`DEC_DIGITS`, `HEX_DIGITS`, `BINARY_DIGITS`);
/// returns how many bytes of `s` they take (0: none).
fn digits(s: &[u8], radix: u32) -> usize {
    let is = |c: u8| char::from(c).is_digit(radix);
    if !s.first().is_some_and(|&c| is(c)) {
        return 0;
    }
    let mut i = 1;
    while i < s.len() {
        if is(s[i]) {
            i += 1;
        } else if s[i] == b'_' && s.get(i + 1).is_some_and(|&c| is(c)) {
            i += 2;
        } else {
            break;
        }
    }
    i
}

/// Classifies `token` (the reader's run of `[A-Za-z0-9._+:-]` starting at a digit, `-` or `+`), or says what
/// is wrong with it.
pub(super) fn classify(token: &[u8]) -> Result<Kind, &'static str> {
    if looks_like_timestamp(token) {
        return timestamp(token).map(|()| Kind::Timestamp);
    }
    let body = token.strip_prefix(b"-").unwrap_or(token);
    for (prefix, radix) in [(b"0x", 16), (b"0X", 16), (b"0b", 2), (b"0B", 2)] {
        if let Some(rest) = body.strip_prefix(prefix) {
            let n = digits(rest, radix);
            return if n > 0 && n == rest.len() {
                Ok(Kind::Int)
            } else {
                Err("a malformed hex or binary int")
            };
        }
    }
    // DEC_UNSIGNED_INTEGER: `0` or a digit 1–9 and more digits (no leading zeros).
    let int = match body.first() {
        Some(b'0') => 1,
        Some(b'1'..=b'9') => digits(body, 10),
        _ => return Err("a malformed number"),
    };
    let mut i = int;
    let mut kind = Kind::Int;
    if body.get(i) == Some(&b'.') {
        i += 1;
        i += digits(&body[i..], 10);
        kind = Kind::Decimal;
    }
    if let Some(&e) = body
        .get(i)
        .filter(|c| matches!(c, b'e' | b'E' | b'd' | b'D'))
    {
        i += 1;
        if matches!(body.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(&body[i..], 10);
        if n == 0 {
            return Err("a number's exponent has no digits");
        }
        // An exponent past 64 bits is no number anyone wrote (DynamoDB's are within ±130; ion-rs refuses them).
        let significant = body[i..i + n]
            .iter()
            .filter(|&&c| c != b'_')
            .skip_while(|&&c| c == b'0')
            .count();
        if significant > 18 {
            return Err("a number's exponent out of range");
        }
        i += n;
        kind = if matches!(e, b'e' | b'E') {
            Kind::Float
        } else {
            Kind::Decimal
        };
    }
    if i == body.len() {
        Ok(kind)
    } else if body[0] == b'0' && body.get(1).is_some_and(u8::is_ascii_digit) {
        Err("a number with a leading zero")
    } else {
        Err("a malformed number")
    }
}

/// A timestamp starts with a four-digit year and then `T` or `-`.
fn looks_like_timestamp(token: &[u8]) -> bool {
    token.len() >= 5 && token[..4].iter().all(u8::is_ascii_digit) && matches!(token[4], b'T' | b'-')
}

/// Two digits at `s[i..]` as a number in `lo..=hi`.
fn two(s: &[u8], i: usize, lo: u32, hi: u32) -> Result<u32, &'static str> {
    match s.get(i..i + 2) {
        Some([a, b]) if a.is_ascii_digit() && b.is_ascii_digit() => {
            let v = u32::from(a - b'0') * 10 + u32::from(b - b'0');
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err("a timestamp field out of range")
            }
        }
        _ => Err("a malformed timestamp"),
    }
}

/// `TIMESTAMP`: `YYYYT`, `YYYY-MMT`, `YYYY-MM-DD`, `YYYY-MM-DDT`, or a date, `T` and `hh:mm[:ss[.fff]]` with an
/// offset (`Z`, `+hh:mm`, `-hh:mm`); the day must exist in its month (leap years included).
fn timestamp(s: &[u8]) -> Result<(), &'static str> {
    let year: u32 = std::str::from_utf8(&s[..4])
        .ok()
        .and_then(|y| y.parse().ok())
        .filter(|&y| y >= 1)
        .ok_or("a timestamp's year is 0001 to 9999")?;
    if &s[4..] == b"T" {
        return Ok(());
    }
    let month = two(s, 5, 1, 12)?;
    match s.get(7) {
        Some(b'T') if s.len() == 8 => return Ok(()),
        Some(b'-') => {}
        _ => return Err("a malformed timestamp"),
    }
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    two(s, 8, 1, days)?;
    match (s.len(), s.get(10)) {
        (10, _) | (11, Some(b'T')) => return Ok(()),
        (_, Some(b'T')) => {}
        _ => return Err("a malformed timestamp"),
    }
    two(s, 11, 0, 23)?;
    if s.get(13) != Some(&b':') {
        return Err("a malformed timestamp");
    }
    two(s, 14, 0, 59)?;
    let mut i = 16;
    if s.get(i) == Some(&b':') {
        two(s, i + 1, 0, 59)?;
        i += 3;
        if s.get(i) == Some(&b'.') {
            let n = s[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return Err("a timestamp's fraction has no digits");
            }
            i += 1 + n;
        }
    }
    match s.get(i) {
        Some(b'Z' | b'z') if s.len() == i + 1 => Ok(()),
        Some(b'+' | b'-') if s.len() == i + 6 && s[i + 3] == b':' => {
            two(s, i + 1, 0, 23)?;
            two(s, i + 4, 0, 59).map(|_| ())
        }
        _ => Err("a timestamp's time needs an offset (Z or ±hh:mm)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_takes_ion_numbers_and_timestamps() {
        for (t, k) in [
            ("0", Kind::Int),
            ("-12", Kind::Int),
            ("1_000", Kind::Int),
            ("0x1F", Kind::Int),
            ("-0b1_01", Kind::Int),
            ("103.", Kind::Decimal),
            ("1.5d3", Kind::Decimal),
            ("0.0", Kind::Decimal),
            ("1d-2", Kind::Decimal),
            ("2.5e0", Kind::Float),
            ("1E+10", Kind::Float),
            ("2007T", Kind::Timestamp),
            ("2007-02T", Kind::Timestamp),
            ("2024-02-29", Kind::Timestamp),
            ("2007-02-23T", Kind::Timestamp),
            ("2007-02-23T12:14Z", Kind::Timestamp),
            ("2007-02-23T12:14:33.079-08:00", Kind::Timestamp),
        ] {
            assert_eq!(classify(t.as_bytes()), Ok(k), "{t}");
        }
    }

    #[test]
    fn malformed_tokens_are_refused() {
        for t in [
            "0.0.5d",
            "007",
            "1__0",
            "1_",
            "_1",
            "0x",
            "0x_1",
            "0xG",
            "0b2",
            "1e",
            "1d+",
            "+1",
            "-",
            "1.5x",
            "2023-02-29",
            "2007-13-01",
            "2007-02-23T12:14",
            "2007-02-23T25:00Z",
            "2007-02",
            "0000T",
            "2007-02-23T12:14:33.Z",
            "2007-02-23T12:14+8:00",
        ] {
            assert!(classify(t.as_bytes()).is_err(), "{t} was taken");
        }
    }
}
