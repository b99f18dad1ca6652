//! Key values of DynamoDB's three key types and their canonical bytes.
//!
//! DynamoDB compares partition keys by value: strings by their UTF-8 bytes, binary by its bytes, numbers
//! numerically, so `1`, `1.0`, `01`, `1E0` and `10E-1` are one key. shardlens hashes a key's *canonical bytes*,
//! so every spelling of one number lands in the same bucket.
//! (AWS developer guide, "Partitions and data distribution"; "Supported data types and naming rules".)

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Longest partition key DynamoDB accepts, in bytes (AWS developer guide, "Service quotas").
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Longest sort key DynamoDB accepts, in bytes (AWS developer guide, "Service quotas").
pub const MAX_SORT_KEY_BYTES: usize = 1024;
/// Numbers keep at most 38 significant digits (AWS developer guide, "Supported data types").
pub const MAX_NUMBER_DIGITS: usize = 38;

/// The scalar types a DynamoDB key attribute may have.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KeyType {
    /// String: any UTF-8 text.
    #[default]
    S,
    /// Number: compared by value.
    N,
    /// Binary: arbitrary bytes, written as base64 in text.
    B,
}

impl KeyType {
    pub const ALL: [Self; 3] = [Self::S, Self::N, Self::B];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::S => "S",
            Self::N => "N",
            Self::B => "B",
        }
    }

    /// Parses `S`, `N` or `B` (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_uppercase().as_str() {
            "S" => Some(Self::S),
            "N" => Some(Self::N),
            "B" => Some(Self::B),
            _ => None,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Self::S => "string",
            Self::N => "number",
            Self::B => "binary (base64)",
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a piece of text is not a valid key of its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("empty key")]
    Empty,
    #[error("not valid UTF-8 (string keys must be UTF-8)")]
    InvalidUtf8,
    #[error("{0:?} is not a number")]
    InvalidNumber(String),
    #[error("{0:?} has more than 38 significant digits")]
    TooPrecise(String),
    #[error("{0:?} is outside DynamoDB's number range (1E-130 to 9.99…E+125)")]
    OutOfRange(String),
    #[error("{0:?} is not valid base64")]
    InvalidBase64(String),
    #[error("key is {len} bytes; DynamoDB allows at most {max} bytes")]
    TooLong { len: usize, max: usize },
    #[error("line is over {at_least} bytes; a key is at most 2048 bytes")]
    LineTooLong { at_least: usize },
}

/// Shortens text for an error message, so one bad 100 MB line does not become a 100 MB message.
fn excerpt(raw: &[u8]) -> String {
    const MAX: usize = 60;
    let text = String::from_utf8_lossy(raw);
    if text.chars().count() > MAX {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        text.into_owned()
    }
}

/// Writes the canonical bytes of `raw` as a key of type `ty` into `out` (cleared first), checking the given
/// byte limit. Strings are taken as they are (no trimming: spaces are part of a key); numbers and base64 are
/// trimmed of surrounding ASCII white space.
pub fn canonicalize_into(
    raw: &[u8],
    ty: KeyType,
    max_len: usize,
    out: &mut Vec<u8>,
) -> Result<(), KeyError> {
    out.clear();
    match ty {
        KeyType::S => {
            if raw.is_empty() {
                return Err(KeyError::Empty);
            }
            if std::str::from_utf8(raw).is_err() {
                return Err(KeyError::InvalidUtf8);
            }
            out.extend_from_slice(raw);
        }
        KeyType::N => {
            let decimal = Decimal::parse(raw.trim_ascii())?;
            decimal.write_canonical(out);
        }
        KeyType::B => {
            let text = raw.trim_ascii();
            if text.is_empty() {
                return Err(KeyError::Empty);
            }
            base64::engine::general_purpose::STANDARD
                .decode_vec(text, out)
                .map_err(|_| KeyError::InvalidBase64(excerpt(text)))?;
            if out.is_empty() {
                return Err(KeyError::Empty);
            }
        }
    }
    if out.len() > max_len {
        return Err(KeyError::TooLong {
            len: out.len(),
            max: max_len,
        });
    }
    Ok(())
}

/// The canonical bytes of a partition key, allocating. See [`canonicalize_into`].
pub fn canonical_partition_key(raw: &[u8], ty: KeyType) -> Result<Vec<u8>, KeyError> {
    let mut out = Vec::with_capacity(raw.len());
    canonicalize_into(raw, ty, MAX_PARTITION_KEY_BYTES, &mut out)?;
    Ok(out)
}

/// How canonical key bytes of type `ty` read as text: strings as they are, numbers in canonical form,
/// binary as base64.
pub fn display_key(bytes: &[u8], ty: KeyType) -> Cow<'_, str> {
    match ty {
        KeyType::S | KeyType::N => String::from_utf8_lossy(bytes),
        KeyType::B => Cow::Owned(base64::engine::general_purpose::STANDARD.encode(bytes)),
    }
}

/// Orders two canonical keys of one type the way DynamoDB orders sort keys: strings and binary by bytes,
/// numbers by value.
pub fn compare_keys(a: &[u8], b: &[u8], ty: KeyType) -> Ordering {
    match ty {
        KeyType::S | KeyType::B => a.cmp(b),
        KeyType::N => match (Decimal::parse(a), Decimal::parse(b)) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            _ => a.cmp(b),
        },
    }
}

/// A DynamoDB number: sign, significant digits (no leading or trailing zeros) and a decimal exponent,
/// with value `0.d1d2…dn × 10^exp`. Zero has no digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exp: i64,
}

/// The exponent of a number (`e`/`E`, an optional sign, digits) if one starts at `*i`, moving `*i` past it; 0
/// without one. `None` for an `e` without digits.
fn parse_exponent(text: &[u8], i: &mut usize) -> Option<i64> {
    let mut exp10: i64 = 0;
    if let Some(&c) = text.get(*i)
        && (c == b'e' || c == b'E')
    {
        *i += 1;
        let mut exp_negative = false;
        if let Some(&s) = text.get(*i)
            && (s == b'+' || s == b'-')
        {
            exp_negative = s == b'-';
            *i += 1;
        }
        let start = *i;
        while let Some(&d) = text.get(*i)
            && d.is_ascii_digit()
        {
            // Saturate: a huge exponent is out of range anyway (unless the mantissa is zero).
            exp10 = exp10.saturating_mul(10).saturating_add(i64::from(d - b'0'));
            *i += 1;
        }
        if *i == start {
            return None;
        }
        if exp_negative {
            exp10 = -exp10;
        }
    }
    Some(exp10)
}

impl Decimal {
    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`), as DynamoDB accepts numbers.
    pub fn parse(text: &[u8]) -> Result<Self, KeyError> {
        let bad = || KeyError::InvalidNumber(excerpt(text));
        if text.is_empty() {
            return Err(KeyError::Empty);
        }
        let mut i = 0;
        let mut negative = false;
        if let Some(&c) = text.first()
            && (c == b'+' || c == b'-')
        {
            negative = c == b'-';
            i = 1;
        }
        let mut all_digits: Vec<u8> = Vec::new();
        let mut point: Option<usize> = None;
        let mut seen_digit = false;
        while let Some(&c) = text.get(i) {
            match c {
                b'0'..=b'9' => {
                    all_digits.push(c - b'0');
                    seen_digit = true;
                }
                b'.' if point.is_none() => point = Some(all_digits.len()),
                _ => break,
            }
            i += 1;
        }
        if !seen_digit {
            return Err(bad());
        }
        let exp10 = parse_exponent(text, &mut i).ok_or_else(bad)?;
        if i != text.len() {
            return Err(bad());
        }
        let int_len = point.unwrap_or(all_digits.len());
        // value = 0.(all_digits) × 10^(int_len + exp10); strip leading zeros (shifting the exponent) and
        // trailing zeros (not changing it).
        let leading = all_digits.iter().take_while(|&&d| d == 0).count();
        if leading == all_digits.len() {
            return Ok(Self {
                negative: false,
                digits: Vec::new(),
                exp: 0,
            });
        }
        let trailing = all_digits.iter().rev().take_while(|&&d| d == 0).count();
        let digits = all_digits[leading..all_digits.len() - trailing].to_vec();
        let int_len = i64::try_from(int_len).map_err(|_| bad())?;
        let leading = i64::try_from(leading).map_err(|_| bad())?;
        let exp = int_len.saturating_add(exp10).saturating_sub(leading);
        if digits.len() > MAX_NUMBER_DIGITS {
            return Err(KeyError::TooPrecise(excerpt(text)));
        }
        // Smallest magnitude 1E-130 = 0.1 × 10^-129; largest below 10^126 = 0.1 × 10^127.
        if !(-129..=126).contains(&exp) {
            return Err(KeyError::OutOfRange(excerpt(text)));
        }
        Ok(Self {
            negative,
            digits,
            exp,
        })
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Writes the canonical text: plain decimal for everyday magnitudes (`150`, `0.015`, `-2.5`), scientific
    /// (`1.5E+100`) for the extremes. Equal values always give equal text.
    pub fn write_canonical(&self, out: &mut Vec<u8>) {
        if self.is_zero() {
            out.push(b'0');
            return;
        }
        if self.negative {
            out.push(b'-');
        }
        let n = self.digits.len() as i64;
        let ascii = |d: &u8| d + b'0';
        if (-20..=40).contains(&self.exp) {
            if self.exp <= 0 {
                out.extend_from_slice(b"0.");
                out.extend(std::iter::repeat_n(b'0', (-self.exp) as usize));
                out.extend(self.digits.iter().map(ascii));
            } else if self.exp >= n {
                out.extend(self.digits.iter().map(ascii));
                out.extend(std::iter::repeat_n(b'0', (self.exp - n) as usize));
            } else {
                let (int, frac) = self.digits.split_at(self.exp as usize);
                out.extend(int.iter().map(ascii));
                out.push(b'.');
                out.extend(frac.iter().map(ascii));
            }
        } else {
            let (first, rest) = self.digits.split_at(1);
            out.extend(first.iter().map(ascii));
            if !rest.is_empty() {
                out.push(b'.');
                out.extend(rest.iter().map(ascii));
            }
            let e = self.exp - 1;
            out.extend_from_slice(
                format!("E{}{}", if e < 0 { '-' } else { '+' }, e.abs()).as_bytes(),
            );
        }
    }

    pub fn to_canonical_string(&self) -> String {
        let mut out = Vec::new();
        self.write_canonical(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Self| {
            if d.is_zero() {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(self), sign(other));
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let magnitude = self
            .exp
            .cmp(&other.exp)
            .then_with(|| self.digits.cmp(&other.digits));
        if sa < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> String {
        String::from_utf8(canonical_partition_key(text.as_bytes(), KeyType::N).unwrap()).unwrap()
    }

    #[test]
    fn spellings_of_one_number_are_one_key() {
        for spelling in [
            "1", "1.0", "01", "1E0", "10E-1", "+1", "1.", "0.1e1", "100e-2", " 1 ",
        ] {
            assert_eq!(n(spelling), "1", "{spelling}");
        }
        assert_eq!(n("-0"), "0");
        assert_eq!(n("0.000"), "0");
        assert_eq!(n("-0E5"), "0");
        assert_eq!(n("150"), "150");
        assert_eq!(n("1.5E2"), "150");
        assert_eq!(n("0.015"), "0.015");
        assert_eq!(n("-2.50"), "-2.5");
        assert_eq!(n(".5"), "0.5");
        assert_eq!(n("1e100"), "1E+100");
        assert_eq!(n("1.25E-100"), "1.25E-100");
        assert_eq!(
            n("12345678901234567890123456789012345678"),
            "12345678901234567890123456789012345678"
        );
    }

    #[test]
    fn invalid_numbers_are_errors_that_name_the_value() {
        for bad in [
            "abc", "1.2.3", "1e", "--1", "1e+", "0x10", "NaN", "1 2", "e5", ".",
        ] {
            let err = canonical_partition_key(bad.as_bytes(), KeyType::N).unwrap_err();
            assert!(
                matches!(err, KeyError::InvalidNumber(_) | KeyError::Empty),
                "{bad}: {err}"
            );
        }
        let err = canonical_partition_key(b"12x", KeyType::N).unwrap_err();
        assert_eq!(err.to_string(), "\"12x\" is not a number");
        assert!(matches!(
            canonical_partition_key(b"1E126", KeyType::N),
            Err(KeyError::OutOfRange(_))
        ));
        assert!(matches!(
            canonical_partition_key(b"1E-131", KeyType::N),
            Err(KeyError::OutOfRange(_))
        ));
        assert_eq!(n("1E-130"), "1E-130");
        assert_eq!(n("9.9E125"), "9.9E+125");
        assert!(matches!(
            canonical_partition_key(b"123456789012345678901234567890123456789", KeyType::N),
            Err(KeyError::TooPrecise(_))
        ));
        // Zero with an absurd exponent is still zero.
        assert_eq!(n("0E999999999999999999999"), "0");
    }

    #[test]
    fn numbers_order_by_value() {
        let mut values: Vec<Decimal> = ["10", "-1", "2", "0", "-10", "0.5", "1E3", "-0.001"]
            .iter()
            .map(|t| Decimal::parse(t.as_bytes()).unwrap())
            .collect();
        values.sort();
        let text: Vec<String> = values.iter().map(Decimal::to_canonical_string).collect();
        assert_eq!(text, ["-10", "-1", "-0.001", "0", "0.5", "2", "10", "1000"]);
        assert_eq!(compare_keys(b"9", b"10", KeyType::N), Ordering::Less);
        assert_eq!(compare_keys(b"9", b"10", KeyType::S), Ordering::Greater);
    }

    #[test]
    fn strings_and_binary() {
        assert_eq!(
            canonical_partition_key("BOARD#global".as_bytes(), KeyType::S).unwrap(),
            b"BOARD#global"
        );
        assert_eq!(
            canonical_partition_key(" spaced ".as_bytes(), KeyType::S).unwrap(),
            b" spaced "
        );
        assert_eq!(
            canonical_partition_key(b"", KeyType::S),
            Err(KeyError::Empty)
        );
        assert_eq!(
            canonical_partition_key(&[0xff, 0xfe], KeyType::S),
            Err(KeyError::InvalidUtf8)
        );
        assert_eq!(
            canonical_partition_key(b"AQID", KeyType::B).unwrap(),
            [1, 2, 3]
        );
        assert!(matches!(
            canonical_partition_key(b"not base64!", KeyType::B),
            Err(KeyError::InvalidBase64(_))
        ));
        assert_eq!(display_key(&[1, 2, 3], KeyType::B), "AQID");
    }

    #[test]
    fn length_limit_is_dynamodbs() {
        let ok = vec![b'a'; MAX_PARTITION_KEY_BYTES];
        assert!(canonical_partition_key(&ok, KeyType::S).is_ok());
        let long = vec![b'a'; MAX_PARTITION_KEY_BYTES + 1];
        assert_eq!(
            canonical_partition_key(&long, KeyType::S),
            Err(KeyError::TooLong {
                len: 2049,
                max: 2048
            })
        );
    }
}
