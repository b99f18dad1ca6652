//! Cutting a JSON array of objects into its elements, compacted (white space outside strings left out), 64
//! bytes at a time with AVX-512 (VBMI2's byte compress) or AVX2 (a byte shuffle per 8 bytes), chosen at run
//! time from what the CPU has.
//!
//! Why this exists: shardlens reads a pretty-printed array of items by compacting each element and handing it
//! to the same item reader as a DynamoDB JSON line. In safe Rust on the baseline x86-64 target (SSE2 only)
//! that splitter was a third of the array's CPU: it copied each run of bytes between white space on its own,
//! ~40 runs an item (`benches/json_array.sh`, `docs/performance.md`). A byte shuffle or compress needs SSSE3
//! or AVX-512, which a portable build reaches only through `#[target_feature]` functions called after a run
//! time check, and that call is `unsafe`: it lives here so that shardlens keeps `unsafe_code = "forbid"`.
//!
//! The kernels take whole elements only, from right after one element (its closing `}`), and stop at the first
//! block they are not sure of: a backslash outside strings, anything between elements but white space and one
//! comma (none, for objects back to back), an element that is not an object, the array's `]`, the end of the
//! input. The caller's own byte-wise
//! splitter reads on from where they stopped, so both read every document alike (the tests check each kernel
//! against a byte-wise reference on random documents, broken ones included, and on every byte value).
//!
//! `examples/kernel.rs` times each kernel this CPU runs on a file (`docs/performance.md` has the figures).

// This crate is where shardlens's SIMD code is unsafe (the workspace denies unsafe code elsewhere, and
// shardlens forbids it): every unsafe block says why it is sound, every unsafe function its `# Safety`.
#![allow(
    unsafe_code,
    reason = "the SIMD kernels' target-feature calls, loads and stores"
)]
#![warn(missing_docs)]
// The kernels are x86-64 only; elsewhere (a page's wasm32) `Kernel::detect` finds none and the scalar path
// cuts the elements, so the shared walk is unused there.
#![cfg_attr(
    not(target_arch = "x86_64"),
    allow(dead_code, reason = "the walk serves the x86-64 kernels only")
)]

#[cfg(target_arch = "x86_64")]
mod x86;

use std::mem::MaybeUninit;
use std::sync::OnceLock;

/// The instruction sets a kernel is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// AVX-512 F, BW and VBMI2 (byte compress), with POPCNT, BMI1 and PCLMULQDQ.
    Avx512,
    /// AVX2 (and the SSSE3 byte shuffle it implies), with POPCNT, BMI1 and PCLMULQDQ.
    Avx2,
}

impl Isa {
    /// Every kernel, best first.
    pub const ALL: [Isa; 2] = [Isa::Avx512, Isa::Avx2];

    /// Its name, for `--version` and benches.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Avx512 => "AVX-512",
            Isa::Avx2 => "AVX2",
        }
    }

    /// Whether this CPU runs it.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            x86::available(self)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            false
        }
    }
}

/// A kernel this CPU runs: only [`Kernel::new`] and [`Kernel::detect`] make one, after checking the CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
    isa: Isa,
}

/// What a run of [`Kernel::take_elements`] took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taken {
    /// Input bytes used: up to and including the last taken element's closing `}`.
    pub bytes: usize,
    /// Newlines outside strings in those bytes.
    pub lines: u64,
    /// Elements taken.
    pub elements: u64,
}

/// Where taken elements go, what separates them, and when to stop taking them.
pub struct Elements<'a> {
    /// Commas between two elements, besides white space: 1 in an array, 0 for objects back to back (as
    /// `jq '.Items[]'` prints them).
    pub commas: u32,
    /// Each element's compact bytes, appended.
    pub data: &'a mut Vec<u8>,
    /// Each element's range in `data`, its number and the line its `{` is on.
    pub items: &'a mut Vec<(usize, usize, u64, u64)>,
    /// Stop once `items` holds this many.
    pub max_items: usize,
    /// Stop once `data` holds this many bytes.
    pub max_bytes: usize,
}

impl Kernel {
    /// The kernel for `isa`, if this CPU runs it.
    pub fn new(isa: Isa) -> Option<Kernel> {
        isa.available().then_some(Kernel { isa })
    }

    /// The best kernel this CPU runs, once per process. `SHARDLENS_SIMD` in the environment chooses: `off`
    /// for none (the caller's byte-wise splitter), `avx2` for AVX2 even where AVX-512 is there.
    pub fn detect() -> Option<Kernel> {
        static DETECTED: OnceLock<Option<Kernel>> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            let wanted = std::env::var("SHARDLENS_SIMD").unwrap_or_default();
            match wanted.to_ascii_lowercase().as_str() {
                "off" | "none" | "0" => None,
                "avx2" => Kernel::new(Isa::Avx2),
                _ => Isa::ALL.into_iter().find_map(Kernel::new),
            }
        })
    }

    /// Its instruction set.
    pub fn isa(self) -> Isa {
        self.isa
    }

    /// Takes the whole elements of an array of objects (or of objects back to back: [`Elements::commas`]) from
    /// the start of `input`, which must be right after an element (its closing `}`; before the `,` that goes on
    /// to the next in an array): appends each to `out`, numbered
    /// from `item`, with the line its `{` is on counted from `line`. Reads 64-byte blocks; stops at the first
    /// it is not sure of (see the crate's documentation), at the end of `input`, or once `out` is full, and
    /// gives back only whole elements, so the caller reads on from `bytes` as if it had taken them itself.
    pub fn take_elements(
        self,
        input: &[u8],
        out: &mut Elements<'_>,
        item: u64,
        line: u64,
    ) -> Taken {
        #[cfg(target_arch = "x86_64")]
        {
            x86::take_elements(self.isa, input, out, item, line)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // No kernel is ever made on other targets.
            let _ = (input, out, item, line);
            Taken::default()
        }
    }
}

/// The bit masks of one 64-byte block (bit `k` is byte `k`).
#[derive(Debug, Clone, Copy, Default)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// Space, tab, carriage return, newline.
    space: u64,
    newline: u64,
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
}

/// The rest of a block's masks, needed only where an element ends or begins ([`Simd::punct`]).
#[derive(Debug, Clone, Copy, Default)]
struct Punct {
    /// `{` alone.
    brace: u64,
    comma: u64,
}

/// The bytes escaped by a backslash (the byte after each odd run of backslashes), with `carry` the first
/// byte's from the block before (bit 0) and set for the next block: the carry-less arithmetic of simdjson's
/// string scanner (Langdale and Lemire, "Parsing Gigabytes of JSON per Second", 2019).
#[inline(always)]
fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    if backslash == 0 {
        return std::mem::take(carry);
    }
    // A backslash that is itself escaped starts no escape.
    let starts = backslash & !*carry;
    // Adding the starts of runs on even bits carries through each run: the bit after an odd run at an even
    // start, and likewise for the odd bits, marks the escaped byte.
    let codes = ((starts << 1) | ODD).wrapping_sub(starts) ^ ODD;
    let out = codes ^ (backslash | *carry);
    *carry = (codes & backslash) >> 63;
    out
}

/// Bits `from..to` (each at most 64).
#[inline(always)]
fn bits(from: u32, to: u32) -> u64 {
    let from_on = if from >= 64 { 0 } else { u64::MAX << from };
    let below_to = if to >= 64 { u64::MAX } else { (1u64 << to) - 1 };
    from_on & below_to
}

/// Bits below `k` (`k < 64`).
#[inline(always)]
fn below(k: u32) -> u64 {
    (1u64 << k) - 1
}

/// Where the last taken element ended.
#[derive(Clone, Copy)]
struct Checkpoint {
    bytes: usize,
    data: usize,
    items: usize,
    line: u64,
    item: u64,
}

/// Where brackets take the depth in one block that reaches depth 0 (between elements) or starts there.
struct Walk {
    depth: u32,
    /// Bytes between elements.
    between: u64,
    /// Each element's `{` and its `}`.
    starts: u64,
    ends: u64,
}

/// Follows the brackets of a block from `depth`, checking that between elements there are `want` commas
/// before each new element (`commas` counts those seen since the last element; carried over blocks) and that
/// each element is an object. `None`: the block is not the inside of an array of objects (or of objects back to
/// back) as the kernels take it.
#[inline(always)]
fn walk(m: &Punct, open: u64, close: u64, depth: u32, commas: &mut u32, want: u32) -> Option<Walk> {
    let mut w = Walk {
        depth,
        between: 0,
        starts: 0,
        ends: 0,
    };
    let mut zero_from = if depth == 0 { 0 } else { 64 };
    let mut brackets = open | close;
    while brackets != 0 {
        let k = brackets.trailing_zeros();
        let bit = 1u64 << k;
        if open & bit != 0 {
            if w.depth == 0 {
                let gap = bits(zero_from, k);
                if m.brace & bit == 0 || *commas + (m.comma & gap).count_ones() != want {
                    return None;
                }
                *commas = 0;
                w.between |= gap;
                w.starts |= bit;
                zero_from = 64;
            }
            w.depth += 1;
        } else {
            // A close between elements is the array's end (or a stray one): the caller's to read.
            w.depth = w.depth.checked_sub(1)?;
            if w.depth == 0 {
                w.ends |= bit;
                zero_from = k + 1;
            }
        }
        brackets &= brackets - 1;
    }
    if w.depth == 0 {
        let gap = bits(zero_from, 64);
        w.between |= gap;
        *commas += (m.comma & gap).count_ones();
    }
    Some(w)
}

/// What a kernel does to a block: classify it, and append the bytes `keep` marks to a vector.
///
/// # Safety
/// Implementors may only be called where the CPU has their instruction set.
trait Simd {
    unsafe fn classify(block: &[u8; 64]) -> Masks;
    unsafe fn punct(block: &[u8; 64]) -> Punct;
    /// Writes the bytes of `block` that `keep` marks to the front of `to`, in order (the rest of `to` may
    /// be written too): its first `keep.count_ones()` bytes are initialised after.
    unsafe fn compress(block: &[u8; 64], keep: u64, to: &mut [MaybeUninit<u8>; 64]);
    unsafe fn prefix_xor(x: u64) -> u64;
}

/// The kernels' loop over blocks, for one instruction set (inlined into its `#[target_feature]` function).
///
/// # Safety
/// The CPU has `S`'s instruction set.
///
/// One function of 98 lines, as clippy counts them, against the workspace's 80: split into a
/// per-block reader and an ending (tried on 2026-12-07), it ran more instructions for the same work
/// (callgrind): the kernel example on 40 MB of a pretty-printed array 2,207.6 M against 2,160.8 M whole, and
/// `shardlens analyze` of such an array of 200,000 items 1,268.4 M against 1,251.8 M. So it stays whole.
#[allow(
    clippy::too_many_lines,
    reason = "the hot loop stays one function: split, it ran more instructions (see the doc)"
)]
#[inline(always)]
unsafe fn drive<S: Simd>(input: &[u8], out: &mut Elements<'_>, item: u64, line: u64) -> Taken {
    let start = out.data.len();
    // Each block appends at most 64 bytes and the loop stops once `data` holds `max_bytes`, so the output
    // never needs more room than this; each compress writes a whole 64-byte window, hence the 64 more. The
    // bytes are written in place and counted here, and the limits checked against counts kept here, so that
    // the loop holds them in registers (pushed through the vectors, each block reloaded their lengths after
    // its store). With the white space looked up and `Punct` read only where elements end or begin, this took
    // the AVX-512 kernel from 51.5-52.2 to 45.5-46.2 ms, and AVX2 from 80.5-82.0 to 68.8-69.0 ms, on 315 MB
    // of `benches/json_array.sh`'s array (`examples/kernel.rs`, staging taken off).
    let most = input
        .len()
        .min(out.max_bytes.saturating_sub(start).saturating_add(63));
    out.data.reserve(most + 64);
    let spare = out.data.spare_capacity_mut();
    // Bytes written past `start`.
    let mut written = 0usize;
    let first = Checkpoint {
        bytes: 0,
        data: 0,
        items: out.items.len(),
        line,
        item,
    };
    let mut cp = first;
    let (mut line, mut item) = (line, item);
    let (mut depth, mut in_str, mut escape_carry, mut commas) = (0u32, false, 0u64, 0u32);
    // The open element's start in `data` and its line.
    let mut open_at = (0usize, 0u64);
    // Room left under each limit.
    let (room_bytes, room_items) = (
        out.max_bytes.saturating_sub(start),
        out.max_items.saturating_sub(out.items.len()),
    );
    let mut pushed = 0usize;
    let (blocks, _) = input.as_chunks::<64>();
    for (b, block) in blocks.iter().enumerate() {
        let at = b * 64;
        let Some(to) = spare
            .get_mut(written..)
            .and_then(<[MaybeUninit<u8>]>::first_chunk_mut::<64>)
        else {
            break;
        };
        // SAFETY: the caller's CPU has `S`'s instruction set.
        let m = unsafe { S::classify(block) };
        let quote = m.quote & !escaped(m.backslash, &mut escape_carry);
        let carry = if in_str { u64::MAX } else { 0 };
        // SAFETY: as above.
        let inside = unsafe { S::prefix_xor(quote) } ^ carry;
        let outside = !inside;
        if m.backslash & outside != 0 {
            break;
        }
        let (open, close) = (m.open & outside, m.close & outside);
        let w = if depth == 0 || (close != 0 && close.count_ones() >= depth) {
            // SAFETY: as above.
            let p = unsafe { S::punct(block) };
            let Some(w) = walk(&p, open, close, depth, &mut commas, out.commas) else {
                break;
            };
            // Between elements only white space and the commas `walk` counted.
            if w.between & !(m.space | p.comma) != 0 {
                break;
            }
            w
        } else {
            Walk {
                depth: depth + open.count_ones() - close.count_ones(),
                between: 0,
                starts: 0,
                ends: 0,
            }
        };
        let keep = !(m.space & outside) & !w.between;
        let base = start + written;
        // SAFETY: as above.
        unsafe { S::compress(block, keep, to) };
        written += keep.count_ones() as usize;
        let newline = m.newline & outside;
        let mut edges = w.starts | w.ends;
        while edges != 0 {
            let k = edges.trailing_zeros();
            let line_at = line + u64::from((newline & below(k)).count_ones());
            if w.starts & (1u64 << k) != 0 {
                open_at = (base + (keep & below(k)).count_ones() as usize, line_at);
            } else {
                let end = base + (keep & below(k)).count_ones() as usize + 1;
                out.items.push((open_at.0, end, item, open_at.1));
                pushed += 1;
                item += 1;
                cp = Checkpoint {
                    bytes: at + k as usize + 1,
                    data: end - start,
                    items: out.items.len(),
                    line: line_at,
                    item,
                };
            }
            edges &= edges - 1;
        }
        line += u64::from(newline.count_ones());
        depth = w.depth;
        in_str = inside >> 63 != 0;
        if pushed >= room_items || written >= room_bytes {
            break;
        }
    }
    // SAFETY: the first `written` bytes of the spare room were initialised by the compresses (each writes its
    // kept bytes to the front of its window, and the next window starts where they end), and `cp.data` is at
    // most `written`.
    unsafe { out.data.set_len(start + cp.data) };
    out.items.truncate(cp.items);
    Taken {
        bytes: cp.bytes,
        lines: cp.line - first.line,
        elements: cp.item - first.item,
    }
}

#[cfg(test)]
mod tests;
