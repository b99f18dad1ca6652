//! The splitter's block classifier: 64 bytes of JSON at a time as bit masks (bit `k` is byte `k`), as the first
//! stage of simdjson (Langdale and Lemire, "Parsing Gigabytes of JSON per Second", 2019) does. Quotes, white
//! space and brackets found with SSE2 compares (the baseline of every x86-64 CPU, through `safe_arch`: this
//! crate forbids `unsafe`), and which bytes lie inside strings by a prefix XOR of the quotes.
//!
//! Measured on `benches/json_array.sh`'s array (2,000,000 items pretty-printed, 1.25 GB): the splitter thread
//! walked the document a byte at a time outside strings (a jump table per byte, mispredicted at each line's
//! end) and bounded the load; see [`super::json_stream`] for what blocks changed.

/// What each byte of a 64-byte block is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Classes {
    pub(super) quote: u64,
    pub(super) backslash: u64,
    /// Space, tab, carriage return, newline.
    pub(super) space: u64,
    pub(super) newline: u64,
    /// `{` and `[`.
    pub(super) open: u64,
    /// `}` and `]`.
    pub(super) close: u64,
}

/// Classifies a block.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(super) fn classify(block: &[u8; 64]) -> Classes {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let mut c = Classes::default();
    let (lanes, _) = block.as_chunks::<16>();
    for (k, lane) in lanes.iter().enumerate() {
        let x = load_unaligned_m128i(lane);
        let is = |v: safe_arch::m128i, b: u8| {
            let m = move_mask_i8_m128i(cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b as i8)));
            u64::from(m as u16) << (16 * k)
        };
        // `[` and `{` (0x5b, 0x7b) are the only bytes that are 0x7b with bit 5 set; `]` and `}` likewise 0x7d.
        let folded = bitor_m128i(x, set_splat_i8_m128i(0x20));
        let newline = is(x, b'\n');
        c.quote |= is(x, b'"');
        c.backslash |= is(x, b'\\');
        c.newline |= newline;
        c.space |= newline | is(x, b' ') | is(x, b'\t') | is(x, b'\r');
        c.open |= is(folded, b'{');
        c.close |= is(folded, b'}');
    }
    c
}

/// Classifies a block, a byte at a time (targets without SSE2).
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
pub(super) fn classify(block: &[u8; 64]) -> Classes {
    let mut c = Classes::default();
    for (k, &b) in block.iter().enumerate() {
        let bit = 1u64 << k;
        match b {
            b'"' => c.quote |= bit,
            b'\\' => c.backslash |= bit,
            b'\n' => {
                c.newline |= bit;
                c.space |= bit;
            }
            b' ' | b'\t' | b'\r' => c.space |= bit,
            b'{' | b'[' => c.open |= bit,
            b'}' | b']' => c.close |= bit,
            _ => {}
        }
    }
    c
}

/// Bit `k` of the result is the XOR of bits `0..=k` of `x`: with `x` the quotes of a block without escapes,
/// the bytes from each opening quote up to (not including) its closing quote.
#[inline]
pub(super) fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// The bits below and at bit `k` (`k < 64`).
#[inline]
pub(super) fn up_to(k: u32) -> u64 {
    u64::MAX >> (63 - k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte classes, to check the SSE2 ones against.
    fn slow(block: &[u8; 64]) -> Classes {
        let mut c = Classes::default();
        for (k, &b) in block.iter().enumerate() {
            let bit = 1u64 << k;
            let set = |m: &mut u64, yes: bool| {
                if yes {
                    *m |= bit;
                }
            };
            set(&mut c.quote, b == b'"');
            set(&mut c.backslash, b == b'\\');
            set(&mut c.newline, b == b'\n');
            set(&mut c.space, matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            set(&mut c.open, matches!(b, b'{' | b'['));
            set(&mut c.close, matches!(b, b'}' | b']'));
        }
        c
    }

    #[test]
    fn every_byte_value_is_classified_at_every_place() {
        // Each of the 256 byte values at each of the 64 places, among neighbours that vary.
        for value in 0..=255u8 {
            for place in 0..64 {
                let mut block = [0u8; 64];
                for (k, b) in block.iter_mut().enumerate() {
                    *b = [b'a', b' ', b'"', b'{', 0x80, b']'][(k + usize::from(value)) % 6];
                }
                block[place] = value;
                assert_eq!(classify(&block), slow(&block), "{value:#04x} at {place}");
            }
        }
    }

    #[test]
    fn prefix_xor_marks_the_inside_of_strings() {
        // `a"b"cd"e…`: quotes at 1, 3 and 6; inside, the first string's quote and `b`, then the second's on.
        let quotes = 0b0100_1010u64;
        assert_eq!(prefix_xor(quotes), 0b0000_0110 | (u64::MAX << 6));
        assert_eq!(prefix_xor(0), 0);
        assert_eq!(prefix_xor(1 << 63), 1 << 63);
        assert_eq!(up_to(0), 1);
        assert_eq!(up_to(63), u64::MAX);
    }
}
