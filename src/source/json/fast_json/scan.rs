//! Finding the end of a JSON string's plain run: the first quote, backslash or control byte, and whether the
//! bytes before it are ASCII. Shared by the fast path, the item sizer and the document splitter.

const ONES: u64 = u64::MAX / 255;
const HIGHS: u64 = ONES << 7;

/// The index of the first `"`, `\` or control character (below 0x20) in `s`, or `s.len()`.
#[inline]
pub(in crate::source::json) fn find_special(s: &[u8]) -> usize {
    find_special_ascii(s).0
}

/// [`find_special`], and whether every byte before the one found is ASCII (so that the string up to it needs
/// no UTF-8 check). Sixteen bytes at a time with SSE2 compares (the baseline of every x86-64 CPU, through
/// `safe_arch`), the tail of fewer than 16 bytes eight at a time ([`find_special_swar`]).
///
/// Measured against the SWAR scan alone followed by an ASCII pass over the string (`Cursor::plain_str`, 10.5 %
/// of `benches/export_load.sh`'s samples in `perf record`): `shardlens analyze` of the first 200,000 lines of
/// `shardlens-bench extract`'s file runs 8.4 % fewer instructions (`valgrind --tool=callgrind`: 1.133 -> 1.037
/// G), and the export bench's 2,000,000 items in 8 gzip files load in 0.61 s instead of 0.64 s, user time
/// 1.13 s instead of 1.18 s (medians of 7 interleaved runs).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
pub(in crate::source::json) fn find_special_ascii(s: &[u8]) -> (usize, bool) {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, min_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let (lanes, tail) = s.as_chunks::<16>();
    let quote = set_splat_i8_m128i(b'"' as i8);
    let backslash = set_splat_i8_m128i(b'\\' as i8);
    let below_space = set_splat_i8_m128i(0x1f);
    let mut high = 0u32;
    for (k, lane) in lanes.iter().enumerate() {
        let x = load_unaligned_m128i(lane);
        // A byte of at most 0x1f is its own minimum with 0x1f (unsigned).
        let ctrl = cmp_eq_mask_i8_m128i(min_u8_m128i(x, below_space), x);
        let hit = bitor_m128i(
            bitor_m128i(
                cmp_eq_mask_i8_m128i(x, quote),
                cmp_eq_mask_i8_m128i(x, backslash),
            ),
            ctrl,
        );
        let m = move_mask_i8_m128i(hit) as u32;
        let h = move_mask_i8_m128i(x) as u32;
        if m != 0 {
            let at = m.trailing_zeros();
            high |= h & ((1u32 << at) - 1);
            return (16 * k + at as usize, high == 0);
        }
        high |= h;
    }
    let done = s.len() - tail.len();
    let n = find_special_swar(tail);
    let ascii = high == 0 && tail.get(..n).is_some_and(<[u8]>::is_ascii);
    (done + n, ascii)
}

/// [`find_special_ascii`] on targets without SSE2.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
pub(in crate::source::json) fn find_special_ascii(s: &[u8]) -> (usize, bool) {
    let n = find_special_swar(s);
    (n, s.get(..n).is_some_and(<[u8]>::is_ascii))
}

/// The index of the first `"`, `\` or control character (below 0x20) in `s`, or `s.len()`: eight bytes at a
/// time (Mycroft's zero-byte test, as serde_json does); the lowest flagged byte is always a true match.
#[inline]
fn find_special_swar(s: &[u8]) -> usize {
    let mut at = 0;
    let mut chunks = s.chunks_exact(8);
    for chunk in &mut chunks {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            // Cannot happen; `at` then names a plain byte, which callers refuse.
            return at;
        };
        let x = u64::from_le_bytes(bytes);
        let ctrl = x.wrapping_sub(ONES * 0x20) & !x;
        let q = x ^ (ONES * u64::from(b'"'));
        let quote = q.wrapping_sub(ONES) & !q;
        let b = x ^ (ONES * u64::from(b'\\'));
        let backslash = b.wrapping_sub(ONES) & !b;
        let hit = (ctrl | quote | backslash) & HIGHS;
        if hit != 0 {
            return at + (hit.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    for &b in chunks.remainder() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return at;
        }
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The 16-byte scan finds what a byte-at-a-time reference finds, and knows as it does whether the bytes
        /// before are ASCII: at every offset of lanes and tail, with specials, high bytes and plain ones mixed.
        #[test]
        fn find_special_is_the_first_special_byte(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    8 => b'a'..=b'z',
                    1 => proptest::prelude::Just(b'"'),
                    1 => proptest::prelude::Just(b'\\'),
                    1 => 0u8..0x20,
                    1 => 0x7fu8..=0xff,
                    1 => proptest::prelude::Just(0x20u8),
                ],
                0..80,
            ),
            from in 0usize..20,
        ) {
            let s = bytes.get(from..).unwrap_or_default();
            let n = s.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(s.len());
            proptest::prop_assert_eq!(find_special_ascii(s), (n, s[..n].is_ascii()));
            proptest::prop_assert_eq!(find_special(s), n);
            proptest::prop_assert_eq!(find_special_swar(s), n);
        }
    }
}
