//! Times the kernels on a JSON array of objects, the way shardlens feeds them: the file's first 300 MB, from
//! right after its first element, staged 256 KiB at a time (as a stretch's reader fills its buffer) into
//! batches of at most 2,048 elements or 1 MiB (`src/source/json/json_doc.rs`). Prints, for each kernel this
//! CPU runs, the best of 9 passes, with the staging alone timed the same way so that it can be taken off.
//!
//! ```text
//! cargo run --release -p shardlens-simd --example kernel -- FILE.json
//! ```
//!
//! `benches/json_array.sh` writes such a file (`$CARGO_TARGET_DIR/tmp/json-array-bench-*/array.json`).

use std::io::Read as _;
use std::time::Instant;

use shardlens_simd::{Elements, Isa, Kernel};

const STAGE: usize = 256 << 10;
const MOST: u64 = 300 << 20;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: kernel FILE.json (a JSON array of objects)");
        std::process::exit(2);
    };
    let mut bytes = Vec::new();
    let read = std::fs::File::open(&path).and_then(|f| f.take(MOST).read_to_end(&mut bytes));
    if let Err(e) = read {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    }
    let Some(from) = after_first_element(&bytes) else {
        eprintln!("{path}: not a JSON array of objects (no first element's end found)");
        std::process::exit(1);
    };
    let input = &bytes[from..];
    let stage_only = best_of(|| pass(input, None).0);
    println!(
        "{path}: {:.0} MB from byte {from}; staging alone {:.1} ms",
        input.len() as f64 / 1e6,
        stage_only * 1e3
    );
    for isa in Isa::ALL {
        let Some(kernel) = Kernel::new(isa) else {
            println!("  {:<8} not on this CPU", isa.name());
            continue;
        };
        let (_, elements, bytes_taken) = pass(input, Some(kernel));
        let both = best_of(|| pass(input, Some(kernel)).0);
        let kernel_alone = (both - stage_only).max(f64::MIN_POSITIVE);
        println!(
            "  {:<8} {elements} elements; {:.1} ms with staging, {:.1} ms without: {:.2} GB/s, {:.2} ns a 64-byte block",
            isa.name(),
            both * 1e3,
            kernel_alone * 1e3,
            bytes_taken as f64 / kernel_alone / 1e9,
            kernel_alone * 1e9 / (bytes_taken as f64 / 64.0),
        );
    }
}

/// The best of 9 timings of `f` (seconds).
fn best_of(mut f: impl FnMut() -> f64) -> f64 {
    (0..9).map(|_| f()).fold(f64::MAX, f64::min)
}

/// One pass over `input`: (seconds, elements taken, bytes taken). Without a kernel, only the staging.
fn pass(input: &[u8], kernel: Option<Kernel>) -> (f64, u64, usize) {
    let (mut stage, mut data, mut items) = (vec![0u8; STAGE], Vec::new(), Vec::new());
    let (mut at, mut elements) = (0usize, 0u64);
    let t = Instant::now();
    while at < input.len() {
        let len = STAGE.min(input.len() - at);
        stage[..len].copy_from_slice(&input[at..at + len]);
        let Some(kernel) = kernel else {
            std::hint::black_box(&stage);
            at += len;
            continue;
        };
        data.clear();
        items.clear();
        let mut out = Elements {
            commas: 1,
            data: &mut data,
            items: &mut items,
            max_items: 2048,
            max_bytes: 1 << 20,
        };
        let taken = kernel.take_elements(&stage[..len], &mut out, elements, 1);
        if taken.bytes == 0 {
            break;
        }
        elements += taken.elements;
        at += taken.bytes;
    }
    (t.elapsed().as_secs_f64(), elements, at)
}

/// Where the first element of the array `bytes` opens ends: right after its closing `}`.
fn after_first_element(bytes: &[u8]) -> Option<usize> {
    let open = bytes.iter().position(|&b| b == b'[')?;
    let (mut depth, mut in_str, mut escaped) = (0u32, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (b == b'}').then_some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}
