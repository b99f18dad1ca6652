//! The x86-64 kernels: AVX-512 (F, BW, VBMI2) and AVX2, each a `#[target_feature]` function around the shared
//! loop ([`super::drive`]), called only after [`available`] said the CPU has its features.

use std::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64,
    _mm_set1_epi8, _mm_setr_epi8, _mm_shuffle_epi8, _mm256_cmpeq_epi8, _mm256_loadu_si256,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm512_broadcast_i32x4,
    _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_maskz_compress_epi8, _mm512_or_si512,
    _mm512_set1_epi8, _mm512_shuffle_epi8, _mm512_storeu_si512,
};

use std::mem::MaybeUninit;

use super::{Elements, Isa, Masks, Punct, Simd, Taken, drive};

/// Whether the CPU has `isa`'s features (each kernel's `#[target_feature]` list).
pub(super) fn available(isa: Isa) -> bool {
    let common = std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("pclmulqdq");
    common
        && match isa {
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vbmi2")
            }
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
        }
}

pub(super) fn take_elements(
    isa: Isa,
    input: &[u8],
    out: &mut Elements<'_>,
    item: u64,
    line: u64,
) -> Taken {
    // A `Kernel` is only made for an available instruction set; checked again here so that this function is
    // sound whatever calls it (the check is one cached load).
    if !available(isa) {
        return Taken::default();
    }
    match isa {
        // SAFETY: the CPU has AVX-512 F, BW, VBMI2, POPCNT, BMI1 and PCLMULQDQ (checked above).
        Isa::Avx512 => unsafe { avx512(input, out, item, line) },
        // SAFETY: the CPU has AVX2, POPCNT, BMI1 and PCLMULQDQ (checked above).
        Isa::Avx2 => unsafe { avx2(input, out, item, line) },
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt,bmi1,pclmulqdq")]
unsafe fn avx512(input: &[u8], out: &mut Elements<'_>, item: u64, line: u64) -> Taken {
    // SAFETY: this function's features are the kernel's.
    unsafe { drive::<Avx512>(input, out, item, line) }
}

#[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
unsafe fn avx2(input: &[u8], out: &mut Elements<'_>, item: u64, line: u64) -> Taken {
    // SAFETY: this function's features are the kernel's.
    unsafe { drive::<Avx2>(input, out, item, line) }
}

/// Bit `k` of the result is the XOR of bits `0..=k` of `x`: one carry-less multiply by all ones.
#[target_feature(enable = "pclmulqdq")]
#[inline]
fn clmul_prefix_xor(x: u64) -> u64 {
    let product = _mm_clmulepi64_si128(_mm_cvtsi64_si128(x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

struct Avx512;

impl Simd for Avx512 {
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn classify(block: &[u8; 64]) -> Masks {
        // SAFETY: `block` is 64 readable bytes.
        let x = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        // `[` and `{` (0x5b, 0x7b) are the only bytes that are 0x7b with bit 5 set; `]` and `}` 0x7d.
        let folded = _mm512_or_si512(x, _mm512_set1_epi8(0x20));
        // White space is the bytes a lookup by their low 4 bits gives back: space (0x20), tab (0x09), newline
        // (0x0a) and carriage return (0x0d) are the only ones whose entries are themselves; the rest hold
        // 0x80, which no byte below 0x80 is, and a byte from 0x80 looks up 0.
        let spaces = _mm512_broadcast_i32x4(_mm_setr_epi8(
            0x20, -128, -128, -128, -128, -128, -128, -128, -128, 0x09, 0x0a, -128, -128, 0x0d,
            -128, -128,
        ));
        Masks {
            quote: eq512(x, b'"'),
            backslash: eq512(x, b'\\'),
            space: _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(spaces, x), x),
            newline: eq512(x, b'\n'),
            open: eq512(folded, b'{'),
            close: eq512(folded, b'}'),
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn punct(block: &[u8; 64]) -> Punct {
        // SAFETY: `block` is 64 readable bytes.
        let x = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        Punct {
            brace: eq512(x, b'{'),
            comma: eq512(x, b','),
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn compress(block: &[u8; 64], keep: u64, to: &mut [MaybeUninit<u8>; 64]) {
        // SAFETY: `block` is 64 readable bytes and `to` 64 writable ones.
        unsafe {
            let x = _mm512_loadu_si512(block.as_ptr().cast());
            let packed = _mm512_maskz_compress_epi8(keep, x);
            _mm512_storeu_si512(to.as_mut_ptr().cast(), packed);
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn prefix_xor(x: u64) -> u64 {
        clmul_prefix_xor(x)
    }
}

/// The bytes of `v` that are `b`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn eq512(v: __m512i, b: u8) -> u64 {
    _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b as i8))
}

struct Avx2;

/// For each 8-bit mask, the byte shuffle that packs the bytes it marks to the front (bytes past them 0x80,
/// which the shuffle turns to 0).
const PACK: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut word = 0u64;
        let mut to = 0;
        let mut from = 0;
        while from < 8 {
            if mask & (1 << from) != 0 {
                word |= (from as u64) << (8 * to);
                to += 1;
            }
            from += 1;
        }
        while to < 8 {
            word |= 0x80u64 << (8 * to);
            to += 1;
        }
        table[mask] = word;
        mask += 1;
    }
    table
};

impl Simd for Avx2 {
    #[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn classify(block: &[u8; 64]) -> Masks {
        let (lo, hi) = halves(block);
        let fold = _mm256_set1_epi8(0x20);
        let (flo, fhi) = (_mm256_or_si256(lo, fold), _mm256_or_si256(hi, fold));
        Masks {
            quote: mask256(eq256(lo, b'"'), eq256(hi, b'"')),
            backslash: mask256(eq256(lo, b'\\'), eq256(hi, b'\\')),
            space: mask256(space256(lo), space256(hi)),
            newline: mask256(eq256(lo, b'\n'), eq256(hi, b'\n')),
            open: mask256(eq256(flo, b'{'), eq256(fhi, b'{')),
            close: mask256(eq256(flo, b'}'), eq256(fhi, b'}')),
        }
    }

    #[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn punct(block: &[u8; 64]) -> Punct {
        let (lo, hi) = halves(block);
        Punct {
            brace: mask256(eq256(lo, b'{'), eq256(hi, b'{')),
            comma: mask256(eq256(lo, b','), eq256(hi, b',')),
        }
    }

    #[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn compress(block: &[u8; 64], keep: u64, to: &mut [MaybeUninit<u8>; 64]) {
        // Each 8 bytes are packed by one shuffle and stored whole; the next store starts where the kept ones
        // end, so the last store ends at most 64 bytes into `to`.
        let (words, _) = block.as_chunks::<8>();
        let mut at = 0;
        for (g, word) in words.iter().enumerate() {
            let m = ((keep >> (8 * g)) & 0xff) as usize;
            let v: __m128i = _mm_cvtsi64_si128(i64::from_le_bytes(*word));
            let packed = _mm_shuffle_epi8(v, _mm_cvtsi64_si128(PACK[m] as i64));
            let bytes = (_mm_cvtsi128_si64(packed) as u64).to_le_bytes();
            // SAFETY: `at + 8 <= 64` (at most 7 groups of 8 kept before this one), within `to`.
            unsafe {
                to.as_mut_ptr()
                    .add(at)
                    .cast::<[u8; 8]>()
                    .write_unaligned(bytes);
            }
            at += m.count_ones() as usize;
        }
    }

    #[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
    #[inline]
    unsafe fn prefix_xor(x: u64) -> u64 {
        clmul_prefix_xor(x)
    }
}

/// A block's two 32-byte halves.
#[target_feature(enable = "avx2")]
#[inline]
fn halves(block: &[u8; 64]) -> (__m256i, __m256i) {
    // SAFETY: `block` is 64 readable bytes.
    unsafe {
        (
            _mm256_loadu_si256(block.as_ptr().cast()),
            _mm256_loadu_si256(block.as_ptr().add(32).cast()),
        )
    }
}

/// The bytes of `v` that are `b`, as 0xff.
#[target_feature(enable = "avx2")]
#[inline]
fn eq256(v: __m256i, b: u8) -> __m256i {
    _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8))
}

/// Space, tab, carriage return and newline in `v`, as 0xff.
#[target_feature(enable = "avx2")]
#[inline]
fn space256(v: __m256i) -> __m256i {
    let nl_sp = _mm256_or_si256(eq256(v, b'\n'), eq256(v, b' '));
    _mm256_or_si256(nl_sp, _mm256_or_si256(eq256(v, b'\t'), eq256(v, b'\r')))
}

/// The high bits of two halves' bytes as one 64-bit mask.
#[target_feature(enable = "avx2")]
#[inline]
fn mask256(lo: __m256i, hi: __m256i) -> u64 {
    let l = _mm256_movemask_epi8(lo) as u32;
    let h = _mm256_movemask_epi8(hi) as u32;
    u64::from(l) | (u64::from(h) << 32)
}
