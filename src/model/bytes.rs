//! Byte-slice helpers shared by the model and the loaders.

/// `a == b`, compared in place for up to 16 bytes (two overlapping loads of 4 or 8 bytes from each side):
/// attribute names and key-probe needles are that short, and `==` on slices calls libc's `memcmp`
/// (`valgrind --tool=callgrind`, one file of `benches/export_load.sh`: 2.5 % of the instructions were `memcmp`,
/// nearly all from these comparisons; 1 % fewer instructions with this). Also where a key expression's attribute
/// names are looked up, once an item.
#[inline]
pub fn short_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => {
            a.first_chunk::<4>() == b.first_chunk::<4>()
                && a.last_chunk::<4>() == b.last_chunk::<4>()
        }
        8..=16 => {
            a.first_chunk::<8>() == b.first_chunk::<8>()
                && a.last_chunk::<8>() == b.last_chunk::<8>()
        }
        _ => a == b,
    }
}

/// The offsets of every `\n` in a text, in order.
///
/// A 64-byte block's newlines are found at once as a bit mask (four 16-byte SSE2 compares, the baseline of
/// every x86-64 CPU, through `safe_arch`), then taken one bit at a time. Why not `memchr::memchr_iter`: on
/// lines of a few bytes each search's start and end cost more than the search (`valgrind --tool=callgrind`,
/// `shardlens analyze` of `benches/lines_duckdb.sh`'s 10,000,000 lines of 12-byte keys: `memchr` and its
/// iterator 45 instructions a line).
#[derive(Debug, Clone)]
pub struct Newlines<'a> {
    text: &'a [u8],
    /// Where the block of `mask` starts.
    block: usize,
    /// The newlines of that block not taken yet, bit `i` for byte `block + i`.
    mask: u64,
}

impl<'a> Newlines<'a> {
    pub fn new(text: &'a [u8]) -> Self {
        Self {
            text,
            block: 0,
            mask: newline_mask(text),
        }
    }
}

impl Iterator for Newlines<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.block += 64;
            let rest = self.text.get(self.block..).filter(|r| !r.is_empty())?;
            self.mask = newline_mask(rest);
        }
        let at = self.block + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }
}

/// Bit `i` set where `s[i]` is `\n`, for the first 64 bytes of `s`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn newline_mask(s: &[u8]) -> u64 {
    use safe_arch::{
        cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i,
    };
    let Some(block) = s.first_chunk::<64>() else {
        return newline_mask_bytes(s);
    };
    let nl = set_splat_i8_m128i(b'\n' as i8);
    let (lanes, _) = block.as_chunks::<16>();
    lanes.iter().enumerate().fold(0u64, |mask, (k, lane)| {
        let hit = move_mask_i8_m128i(cmp_eq_mask_i8_m128i(load_unaligned_m128i(lane), nl));
        mask | (u64::from(hit as u16) << (16 * k))
    })
}

/// [`newline_mask`] on targets without SSE2.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn newline_mask(s: &[u8]) -> u64 {
    newline_mask_bytes(s)
}

/// [`newline_mask`] a byte at a time (the last block of fewer than 64 bytes, and targets without SSE2).
fn newline_mask_bytes(s: &[u8]) -> u64 {
    s.iter()
        .take(64)
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .fold(0, |mask, (i, _)| mask | 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `short_eq` is `==`: slices of every length up to 20 that differ in one byte anywhere, or in length.
        #[test]
        fn short_eq_is_slice_equality(
            a in proptest::collection::vec(0u8..4, 0..20),
            flip in proptest::option::of((0usize..20, 1u8..4)),
            cut in proptest::option::of(0usize..20),
        ) {
            let mut b = a.clone();
            if let Some((at, by)) = flip && let Some(x) = b.get_mut(at) {
                *x ^= by;
            }
            if let Some(n) = cut {
                b.truncate(n);
            }
            proptest::prop_assert_eq!(short_eq(&a, &b), a == b);
            proptest::prop_assert_eq!(short_eq(&b, &a), a == b);
        }
    }

    proptest::proptest! {
        /// `Newlines` gives what `memchr_iter` gives: texts of up to 300 bytes (blocks of 64 and a tail),
        /// dense or sparse in newlines, with bytes of every value (no sign trouble in the compare).
        #[test]
        fn newlines_are_memchr_iter(
            text in proptest::collection::vec(
                proptest::prop_oneof![3 => proptest::num::u8::ANY, 1 => proptest::strategy::Just(b'\n')],
                0..300,
            ),
            from in 0usize..70,
        ) {
            let text = text.get(from..).unwrap_or_default();
            let want: Vec<usize> = memchr::memchr_iter(b'\n', text).collect();
            proptest::prop_assert_eq!(Newlines::new(text).collect::<Vec<_>>(), want);
        }
    }
}
