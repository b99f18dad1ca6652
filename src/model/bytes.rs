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
}
