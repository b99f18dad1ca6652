//! An item's size as DynamoDB counts it (DYNAMODB-TRAFFIC "Item size" \[AWS\], the developer guide's "DynamoDB
//! item sizes and formats"): the sum over its attributes of the name's UTF-8 bytes plus the value's size.
//!
//! - String: its UTF-8 bytes. Binary: its raw bytes (not the base64 text). Boolean and Null: 1 byte.
//! - Number: one byte per two significant digits, plus one (leading and trailing zeros trimmed, at most 38
//!   digits). AWS says "approximately"; **\[ours\]**: the sign, the decimal point and the exponent are not
//!   counted, and zero counts as one digit (2 bytes).
//! - List and Map: 3 bytes, plus 1 byte per element and the element's size; a map's element also counts its
//!   name's bytes. An empty list or map is 3 bytes.
//! - String, Number and Binary sets: the sum of their members' sizes (no overhead).
//! - Storage: each item also costs 100 bytes of indexing overhead.
//!
//! The loaders measure items with these rules as they read them (`source::json::size`, the Ion reader, CSV
//! and Workbench rows); this module holds the rules themselves, with no format in them.

use base64::Engine as _;

/// Bytes of a list's or map's own overhead.
pub const CONTAINER_BYTES: u64 = 3;
/// Bytes each element of a list or map adds besides its value (and, in a map, its name).
pub const ELEMENT_BYTES: u64 = 1;
/// Bytes of a Boolean or Null value.
pub const FLAG_BYTES: u64 = 1;
/// Storage overhead of every item (its indexing), on top of its size \[AWS\].
pub const STORAGE_OVERHEAD_BYTES: u64 = 100;
/// DynamoDB's largest item (400 KB) \[AWS\].
pub const MAX_ITEM_BYTES: u64 = super::capacity::MAX_ITEM_BYTES;
/// About what one partition holds, and the limit of one item collection when the table has a local
/// secondary index (10 GB) \[AWS\].
pub const PARTITION_BYTES: u64 = 10 * (1 << 30);
/// Most significant digits a DynamoDB number keeps.
const MAX_DIGITS: u64 = 38;

/// A number's size from its text (any syntax; see [`checked_number_size`] to check it too).
pub fn number_size(text: &str) -> u64 {
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let mut first = None;
    let mut last = 0;
    for (i, d) in mantissa.bytes().filter(u8::is_ascii_digit).enumerate() {
        if d != b'0' {
            first.get_or_insert(i);
            last = i + 1;
        }
    }
    let significant = first.map_or(1, |f| (last - f) as u64).clamp(1, MAX_DIGITS);
    significant.div_ceil(2) + 1
}

/// A number's size when `text` is a number as DynamoDB takes it (`-12`, `0.50`, `1.2E+3`, `.5`, `5.`); `None`
/// when it is not one. One pass that checks the syntax and finds the digit runs, then the first and last
/// non-zero digits looked for from each end. The loaders call it on every number of every item: noting them
/// digit by digit took 156 instructions a number, this 127 (`valgrind --tool=callgrind`, two files of
/// `benches/export_load.sh`, numbers like `9443.77`).
pub fn checked_number_size(text: &[u8]) -> Option<u64> {
    let b = text;
    let sign = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let int_end = sign + run_of_digits(b, sign);
    let (frac_start, frac_end) = if b.get(int_end) == Some(&b'.') {
        (int_end + 1, int_end + 1 + run_of_digits(b, int_end + 1))
    } else {
        (int_end, int_end)
    };
    let int = b.get(sign..int_end)?;
    let frac = b.get(frac_start..frac_end)?;
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut i = frac_end;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = run_of_digits(b, i);
        if exp == 0 {
            return None;
        }
        i += exp;
    }
    if i != b.len() {
        return None;
    }
    // The digits are `int` then `frac`; leading and trailing zeros are not significant.
    let nonzero = |d: &u8| *d != b'0';
    let first = match int.iter().position(nonzero) {
        Some(at) => Some(at),
        None => frac.iter().position(nonzero).map(|at| int.len() + at),
    };
    let significant = match first {
        None => 1,
        Some(first) => {
            let last = match frac.iter().rposition(nonzero) {
                Some(at) => int.len() + at,
                None => int.iter().rposition(nonzero).unwrap_or(first),
            };
            (last + 1 - first) as u64
        }
    };
    Some(significant.clamp(1, MAX_DIGITS).div_ceil(2) + 1)
}

fn run_of_digits(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i - from
}

/// The raw bytes of standard base64 text (as DynamoDB JSON writes binary); `None` when it does not decode.
pub fn base64_size(text: &[u8]) -> Option<u64> {
    base64::engine::general_purpose::STANDARD
        .decode(text.trim_ascii())
        .ok()
        .map(|v| v.len() as u64)
}

/// The size of a value as an expression reads it ([`crate::model::keyexpr::Value`]), for the attributes a
/// GSI projects. A set reads as a list there, so it is sized as one (3 bytes and 1 a member more).
pub fn value_size(v: &crate::model::keyexpr::Value) -> u64 {
    use crate::model::keyexpr::Value;
    match v {
        Value::S(s) => s.len() as u64,
        Value::N(n) => number_size(n.as_str()),
        Value::B(b) => b.len() as u64,
        Value::Bool(_) | Value::Null => FLAG_BYTES,
        Value::L(l) => {
            CONTAINER_BYTES + l.iter().map(|e| ELEMENT_BYTES + value_size(e)).sum::<u64>()
        }
        Value::M(m) => {
            CONTAINER_BYTES
                + m.iter()
                    .map(|(k, e)| ELEMENT_BYTES + k.len() as u64 + value_size(e))
                    .sum::<u64>()
        }
    }
}

/// An item's storage: its size plus the per-item indexing overhead.
pub fn storage_bytes(size: u64) -> u64 {
    size + STORAGE_OVERHEAD_BYTES
}

/// Write units of one standard write of an item of `size` bytes: ⌈size / 1 KB⌉, at least 1.
pub fn write_units_of(size: u64) -> u64 {
    size.div_ceil(1024).max(1)
}

/// Read units of one strongly consistent read of an item of `size` bytes: ⌈size / 4 KB⌉, at least 1.
pub fn read_units_of(size: u64) -> u64 {
    size.div_ceil(4096).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_count_significant_digits() {
        assert_eq!(number_size("0"), 2);
        assert_eq!(number_size("-0.000"), 2);
        assert_eq!(number_size("1"), 2);
        assert_eq!(number_size("100"), 2);
        assert_eq!(number_size("00100.00"), 2);
        assert_eq!(number_size("123"), 3);
        assert_eq!(number_size("-0012.3400"), 3);
        assert_eq!(number_size("1.635734407123456789E9"), 11);
        assert_eq!(number_size(&"9".repeat(60)), 20, "at most 38 digits");
    }

    #[test]
    fn number_syntax_as_dynamodb_takes_it() {
        for ok in [
            "1", "-1", "+1", "1.5", ".5", "5.", "1e3", "1E-3", "-0.0e+10",
        ] {
            assert!(checked_number_size(ok.as_bytes()).is_some(), "{ok}");
        }
        for bad in [
            "", "-", ".", "abc", "1e", "1.2.3", "1 ", "0x10", "NaN", "1e+",
        ] {
            assert_eq!(checked_number_size(bad.as_bytes()), None, "{bad:?}");
        }
    }

    /// The reading [`checked_number_size`] replaced, kept as its reference: one pass that checks the syntax
    /// and notes the first and last non-zero digit as it meets each digit.
    fn digit_by_digit(text: &[u8]) -> Option<u64> {
        let b = text;
        let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
        let mut seen = 0usize;
        let mut first = None;
        let mut last = 0usize;
        let mut digits = |i: &mut usize| {
            while let Some(&d) = b.get(*i).filter(|d| d.is_ascii_digit()) {
                if d != b'0' {
                    first.get_or_insert(seen);
                    last = seen + 1;
                }
                seen += 1;
                *i += 1;
            }
        };
        digits(&mut i);
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
        if seen == 0 {
            return None;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exp = run_of_digits(b, i);
            if exp == 0 {
                return None;
            }
            i += exp;
        }
        if i != b.len() {
            return None;
        }
        let significant = first.map_or(1, |f| (last - f) as u64).clamp(1, MAX_DIGITS);
        Some(significant.div_ceil(2) + 1)
    }

    proptest::proptest! {
        /// The size and the syntax check are the digit-by-digit reading's, on strings of digits, signs, points,
        /// exponents and other bytes, and on well-formed numbers with leading and trailing zeros.
        #[test]
        fn checked_number_size_is_the_digit_by_digit_reading(
            any in proptest::collection::vec(proptest::prop_oneof![
                6 => proptest::prelude::Just(b'0'),
                6 => b'1'..=b'9',
                1 => proptest::prelude::Just(b'.'),
                1 => proptest::prelude::Just(b'-'),
                1 => proptest::prelude::Just(b'+'),
                1 => proptest::prelude::Just(b'e'),
                1 => proptest::prelude::Just(b'E'),
                1 => proptest::prelude::Just(b'x'),
            ], 0..50),
            number in "[+-]?0{0,3}[0-9]{0,45}(\\.[0-9]{0,45}0{0,3})?([eE][+-]?[0-9]{1,3})?",
        ) {
            proptest::prop_assert_eq!(checked_number_size(&any), digit_by_digit(&any));
            proptest::prop_assert_eq!(checked_number_size(number.as_bytes()), digit_by_digit(number.as_bytes()));
        }
    }

    #[test]
    fn binary_is_its_raw_bytes() {
        assert_eq!(base64_size(b"AAEC"), Some(3));
        assert_eq!(base64_size(b"AA=="), Some(1));
        assert_eq!(base64_size(b""), Some(0));
        assert_eq!(base64_size(b"not base64!"), None);
    }

    #[test]
    fn units_round_up_by_kb() {
        assert_eq!(write_units_of(0), 1);
        assert_eq!(write_units_of(1024), 1);
        assert_eq!(write_units_of(1025), 2);
        assert_eq!(read_units_of(4096), 1);
        assert_eq!(read_units_of(20 * 1024), 5);
        assert_eq!(storage_bytes(1), 101);
    }
}
