use super::*;

/// What a byte-by-byte splitter with the kernels' rules takes: each element, and after each the input bytes
/// used, the compact bytes and the lines. It stops where the kernels stop being sure (before a block).
struct Reference {
    data: Vec<u8>,
    items: Vec<(usize, usize, u64, u64)>,
    /// After each element: (bytes used, data length, lines counted).
    after: Vec<(usize, usize, u64)>,
    /// Where it stopped: the first byte it was not sure of, or the end.
    stop: usize,
}

fn reference(input: &[u8], item: u64, line: u64) -> Reference {
    reference_with(input, item, line, 1)
}

/// [`reference`] with `want` commas between elements (1 in an array, 0 for objects back to back).
fn reference_with(input: &[u8], item: u64, line: u64, want: u32) -> Reference {
    let mut r = Reference {
        data: Vec::new(),
        items: Vec::new(),
        after: Vec::new(),
        stop: input.len(),
    };
    let (mut line, mut item) = (line, item);
    let (mut depth, mut in_str, mut escaped, mut commas) = (0u32, false, false, 0u32);
    let mut open_at = (0, 0);
    for (i, &b) in input.iter().enumerate() {
        r.stop = i;
        if in_str {
            r.data.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'\n' => line += 1,
            b' ' | b'\t' | b'\r' => {}
            b',' if depth == 0 => commas += 1,
            b'{' if depth == 0 => {
                if commas != want {
                    break;
                }
                commas = 0;
                open_at = (r.data.len(), line);
                r.data.push(b);
                depth = 1;
            }
            _ if depth == 0 => break,
            b'\\' => break,
            b'"' => {
                in_str = true;
                r.data.push(b);
            }
            b'{' | b'[' => {
                depth += 1;
                r.data.push(b);
            }
            b'}' | b']' => {
                depth -= 1;
                r.data.push(b);
                if depth == 0 {
                    r.items.push((open_at.0, r.data.len(), item, open_at.1));
                    item += 1;
                    r.after.push((i + 1, r.data.len(), line));
                }
            }
            _ => r.data.push(b),
        }
        r.stop = input.len();
    }
    r
}

use rand::{RngExt as _, SeedableRng as _};
use rand_pcg::Pcg64 as Rng;

/// A number in `0..n`.
fn below(rng: &mut Rng, n: u64) -> u64 {
    rng.random_range(0..n)
}

/// White space as pretty printers and people write it.
fn ws(rng: &mut Rng, out: &mut Vec<u8>, indent: usize) {
    match below(rng, 6) {
        0 => {}
        1 => out.push(b' '),
        2 | 3 => {
            out.push(b'\n');
            out.extend(std::iter::repeat_n(b' ', indent));
        }
        4 => out.extend_from_slice(b"\r\n\t"),
        _ => out.extend(std::iter::repeat_n(b' ', below(rng, 70) as usize)),
    }
}

fn string(rng: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    for _ in 0..below(rng, 12) {
        let pick: &[u8] = match below(rng, 12) {
            0 => b"\\\"",
            1 => b"\\\\",
            2 => b"{[",
            3 => b"}]",
            4 => b" , ",
            5 => b"\\u00e9",
            6 => b"\\\\\\\"",
            7 => b"\n",
            _ => b"abc#1",
        };
        out.extend_from_slice(pick);
    }
    out.push(b'"');
}

fn value(rng: &mut Rng, out: &mut Vec<u8>, depth: usize) {
    match below(rng, if depth > 4 { 3 } else { 6 }) {
        0 => string(rng, out),
        1 => out.extend_from_slice(b"12.5"),
        2 => out.extend_from_slice(b"true"),
        3 => {
            out.push(b'[');
            for k in 0..below(rng, 4) {
                if k > 0 {
                    out.push(b',');
                }
                ws(rng, out, depth * 2);
                value(rng, out, depth + 1);
            }
            ws(rng, out, depth * 2);
            out.push(b']');
        }
        _ => object(rng, out, depth + 1),
    }
}

fn object(rng: &mut Rng, out: &mut Vec<u8>, depth: usize) {
    out.push(b'{');
    for k in 0..below(rng, 5) {
        if k > 0 {
            out.push(b',');
        }
        ws(rng, out, depth * 4);
        string(rng, out);
        ws(rng, out, 0);
        out.push(b':');
        ws(rng, out, 0);
        value(rng, out, depth);
    }
    ws(rng, out, depth * 4);
    out.push(b'}');
}

/// The inside of an array of objects from right after an element: `,` and the next, and so on (without the
/// commas, `commas` 0: objects back to back); sometimes broken on purpose.
fn document(rng: &mut Rng, commas: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..below(rng, 60) {
        ws(rng, &mut out, 0);
        if commas == 1 {
            out.push(b',');
        }
        ws(rng, &mut out, 4);
        object(rng, &mut out, 1);
    }
    ws(rng, &mut out, 0);
    out.push(b']');
    if below(rng, 3) == 0 && !out.is_empty() {
        // A byte changed, left out or doubled somewhere.
        let at = below(rng, out.len() as u64) as usize;
        let bytes = b"{}[]\",\\ \nx";
        match below(rng, 3) {
            0 => out[at] = bytes[below(rng, bytes.len() as u64) as usize],
            1 => {
                out.remove(at);
            }
            _ => out.insert(at, out[at]),
        }
    }
    out
}

fn kernels() -> Vec<Kernel> {
    let found: Vec<Kernel> = Isa::ALL.into_iter().filter_map(Kernel::new).collect();
    if found.is_empty() {
        eprintln!("no SIMD kernel on this CPU: nothing to check");
    }
    found
}

/// Each kernel takes a prefix of the reference's elements, byte for byte, and stops only where it must.
fn check(kernel: Kernel, doc: &[u8], max_items: usize, max_bytes: usize, what: &str) {
    check_with(kernel, doc, 1, max_items, max_bytes, what);
}

/// [`check`] with `commas` between elements.
fn check_with(
    kernel: Kernel,
    doc: &[u8],
    commas: u32,
    max_items: usize,
    max_bytes: usize,
    what: &str,
) {
    let r = reference_with(doc, 7, 3, commas);
    let (mut data, mut items) = (b"before".to_vec(), vec![(0, 6, 0, 0)]);
    let taken = kernel.take_elements(
        doc,
        &mut Elements {
            commas,
            data: &mut data,
            items: &mut items,
            max_items,
            max_bytes,
        },
        7,
        3,
    );
    let n = taken.elements as usize;
    assert!(n <= r.items.len(), "{what}: took {n} of {}", r.items.len());
    let (bytes, len, lines) = match n {
        0 => (0, 0, 3),
        _ => r.after[n - 1],
    };
    assert_eq!(taken.bytes, bytes, "{what}: bytes after {n} elements");
    assert_eq!(taken.lines, lines - 3, "{what}: lines after {n} elements");
    assert_eq!(&data[6..], &r.data[..len], "{what}: data of {n} elements");
    let shifted: Vec<_> = r.items[..n]
        .iter()
        .map(|&(from, to, item, line)| (from + 6, to + 6, item, line))
        .collect();
    assert_eq!(&items[1..], &shifted[..], "{what}: elements");
    // It stops early only for a reason: a limit, the next element not ending in whole blocks, or the block it
    // ends in holding what the reference stopped at.
    if let Some(&(next_end, ..)) = r.after.get(n) {
        let in_blocks = next_end <= doc.len() / 64 * 64;
        let unsure = (next_end - 1) / 64 >= r.stop / 64;
        let limited = max_items < usize::MAX || max_bytes < usize::MAX;
        assert!(
            !in_blocks || unsure || limited,
            "{what}: stopped after {n} elements at byte {bytes}; the next ends at {next_end} of {}",
            doc.len()
        );
    }
}

#[test]
fn kernels_take_what_a_byte_by_byte_reader_takes() {
    let mut rng = Rng::seed_from_u64(0x5eed_1234_abcd_9876);
    for kernel in kernels() {
        for round in 0..4000 {
            // A quarter of the documents are objects back to back, without commas.
            let commas = u32::from(round % 4 != 0);
            let doc = document(&mut rng, commas);
            let what = format!(
                "{:?} round {round} ({commas} commas): {}",
                kernel.isa(),
                String::from_utf8_lossy(&doc)
            );
            check_with(kernel, &doc, commas, usize::MAX, usize::MAX, &what);
            let (items, bytes) = (rng.random_range(0..8), rng.random_range(0..2000));
            check_with(kernel, &doc, commas, items, usize::MAX, &what);
            check_with(kernel, &doc, commas, usize::MAX, bytes, &what);
            // Read with the other rule: the kernels stop where the reference does.
            if !doc.is_empty() {
                check_with(kernel, &doc, 1 - commas, usize::MAX, usize::MAX, &what);
            }
        }
    }
}

#[test]
fn a_pretty_array_is_taken_whole_but_for_its_last_block() {
    let mut doc = Vec::new();
    for k in 0..500 {
        doc.extend_from_slice(
            format!(",\n    {{\n        \"pk\": {{\n            \"S\": \"user#{k}\"\n        }},\n        \"n\": [1, {{\"a\": \"}}\\\\\"}}]\n    }}")
                .as_bytes(),
        );
    }
    doc.extend_from_slice(b"\n]\n");
    let r = reference(&doc, 1, 1);
    assert_eq!(r.items.len(), 500);
    for kernel in kernels() {
        let (mut data, mut items) = (Vec::new(), Vec::new());
        let taken = kernel.take_elements(
            &doc,
            &mut Elements {
                commas: 1,
                data: &mut data,
                items: &mut items,
                max_items: usize::MAX,
                max_bytes: usize::MAX,
            },
            1,
            1,
        );
        // The last element ends within the last 64 bytes but one block: all but at most two are taken.
        assert!(taken.elements >= 498, "{:?}: {taken:?}", kernel.isa());
        assert_eq!(data, r.data[..data.len()]);
        assert_eq!(
            &data[items[0].0..items[0].1],
            b"{\"pk\":{\"S\":\"user#0\"},\"n\":[1,{\"a\":\"}\\\\\"}]}"
        );
        assert_eq!((items[1].2, items[1].3), (2, 8));
    }
}

#[test]
fn escapes_are_found_across_blocks() {
    // Runs of backslashes of every length, ending at every place of a block and across its end.
    let mut rng = Rng::seed_from_u64(42);
    for _ in 0..20000 {
        let mut bytes = vec![b'a'; 128];
        for _ in 0..rng.random_range(0..20) {
            let at = rng.random_range(0..128);
            bytes[at] = if rng.random_bool(0.5) { b'\\' } else { b'"' };
        }
        let mut expected = [0u64; 2];
        let mut after_odd = false;
        for (k, &b) in bytes.iter().enumerate() {
            if after_odd {
                expected[k / 64] |= 1 << (k % 64);
                after_odd = false;
            } else if b == b'\\' {
                after_odd = true;
            }
        }
        let mut carry = 0;
        for half in 0..2 {
            let mut backslash = 0u64;
            for k in 0..64 {
                if bytes[half * 64 + k] == b'\\' {
                    backslash |= 1 << k;
                }
            }
            assert_eq!(escaped(backslash, &mut carry), expected[half], "{bytes:?}");
        }
    }
}

#[test]
fn detect_names_a_kernel_this_cpu_runs() {
    if let Some(k) = Kernel::detect() {
        assert!(k.isa().available());
        assert!(!k.isa().name().is_empty());
    }
}

#[test]
fn every_byte_is_white_space_or_not_as_json_says() {
    // Each byte value between elements (white space is taken, anything else stops the kernels) and in a
    // string (kept as it is), at every place of a block: the kernels look white space up by a byte's low
    // 4 bits, so bytes sharing those with white space (`-`, `:`, 0x8d, 0x19 ...) must not pass for it.
    for kernel in kernels() {
        for b in 0..=255u8 {
            for pad in 0..64 {
                let mut doc = b",{\"a\":1}".to_vec();
                doc.extend(std::iter::repeat_n(b' ', pad));
                doc.push(b);
                doc.extend_from_slice(b",{\"s\":\"");
                if b != b'"' && b != b'\\' {
                    doc.extend(std::iter::repeat_n(b, 3));
                }
                doc.extend_from_slice(b"\"}");
                doc.extend(std::iter::repeat_n(b' ', 130));
                let what = format!("{:?}: byte {b:#04x} after {pad} spaces", kernel.isa());
                check(kernel, &doc, usize::MAX, usize::MAX, &what);
            }
        }
    }
}
