//! Where a large JSON document of items is cut into stretches: the bytes that begin each of its items, found
//! from the first item in the file's first bytes (an array's, a scan page's, or items' back to back), and the
//! first place past an offset where they are found after a `}`. A cut is a guess that the stretch before it
//! checks ([`super`]).

use crate::source::read::read_full;

/// How far past a cut's offset an item's start is looked for before the cut is given up.
const LOOK_BYTES: usize = 4 << 20;
/// The longest first attribute name a cut's pattern holds.
const NAME_MAX: usize = 256;

/// The bytes that begin every item of the array `head` (the file's first bytes) opens, with what comes
/// before them after the item before: `,`, the white space between the array's `[` and its first item, then
/// the first item's `{`, white space and first attribute name in quotes. `None` when the file does not open
/// an array of objects this way (a byte order mark, an empty object, an escaped or long name).
pub(super) fn item_start_pattern(head: &[u8]) -> Option<Vec<u8>> {
    let open = head.iter().position(|b| !is_space(b))?;
    pattern_after(head, open)
}

/// [`item_start_pattern`] for the array whose `[` is at `open` in `head`.
fn pattern_after(head: &[u8], open: usize) -> Option<Vec<u8>> {
    if head.get(open) != Some(&b'[') {
        return None;
    }
    let item = open + 1 + head[open + 1..].iter().position(|b| !is_space(b))?;
    let close = opening(head, item)?;
    let mut pattern = vec![b','];
    pattern.extend_from_slice(&head[open + 1..item]);
    pattern.extend_from_slice(&head[item..=close]);
    Some(pattern)
}

/// [`item_start_pattern`] for a scan output page that opens with its `"Items"` array, `{"Items": [`, as the
/// AWS CLI prints a scan.
pub(super) fn scan_start_pattern(head: &[u8]) -> Option<Vec<u8>> {
    let mut at = head.iter().position(|b| !is_space(b))?;
    for token in [&b"{"[..], b"\"Items\"", b":"] {
        if !head.get(at..)?.starts_with(token) {
            return None;
        }
        at += token.len();
        at += head.get(at..)?.iter().position(|b| !is_space(b))?;
    }
    pattern_after(head, at)
}

/// The bytes that begin every item of items pretty-printed back to back, as the first item in `head` (the
/// file's first bytes) begins: its `{`, white space over lines and first attribute name in quotes. `None` for
/// anything else (items one a line among them: they are cut at line ends).
pub(super) fn back_to_back_pattern(head: &[u8]) -> Option<Vec<u8>> {
    let item = head.iter().position(|b| !is_space(b))?;
    let close = opening(head, item)?;
    head[item..close]
        .contains(&b'\n')
        .then(|| head[item..=close].to_vec())
}

fn is_space(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Where the first attribute name of the object at `item` in `head` ends (its closing quote), when the object
/// begins `{`, white space, a name of at most [`NAME_MAX`] bytes without escapes.
fn opening(head: &[u8], item: usize) -> Option<usize> {
    if head.get(item) != Some(&b'{') {
        return None;
    }
    let quote = item + 1 + head[item + 1..].iter().position(|b| !is_space(b))?;
    if head[quote] != b'"' {
        return None;
    }
    let len = head[quote + 1..]
        .iter()
        .take(NAME_MAX)
        .position(|&b| b == b'"' || b == b'\\')?;
    let close = quote + 1 + len;
    (head[close] == b'"' && len > 0).then_some(close)
}

/// Where an array is cut: `0`, then for each of the `threads - 1` even offsets the first place after it that
/// reads `pattern` after a `}` (the `{` there), then `size`. A cut with no such place in [`LOOK_BYTES`] is
/// left out; `None` when none is left.
pub(super) fn array_cut_points(
    file: &mut std::fs::File,
    size: u64,
    threads: usize,
    pattern: &[u8],
) -> std::io::Result<Option<Vec<u64>>> {
    let mut cuts = vec![0u64];
    for k in 1..threads as u64 {
        let at = size * k / threads as u64;
        if let Some(cut) = next_cut(file, at, pattern)?
            && cut > cuts[cuts.len() - 1]
            && cut < size
        {
            cuts.push(cut);
        }
    }
    if cuts.len() < 2 {
        return Ok(None);
    }
    cuts.push(size);
    Ok(Some(cuts))
}

/// The first place in [`LOOK_BYTES`] after `at` that reads `pattern` after a `}` (the `{` there), if any.
pub(super) fn next_cut(
    file: &mut std::fs::File,
    at: u64,
    pattern: &[u8],
) -> std::io::Result<Option<u64>> {
    use std::io::{Seek as _, SeekFrom};
    let finder = memchr::memmem::Finder::new(pattern);
    let mut window = vec![0u8; LOOK_BYTES];
    // The `{` of a match, counted from the match's `,`.
    let brace = pattern.iter().position(|&b| b == b'{').unwrap_or(0) as u64;
    file.seek(SeekFrom::Start(at))?;
    let n = read_full(file, &mut window)?;
    let found = finder.find_iter(&window[..n]).find(|&i| {
        let before = window[..i].iter().rev().find(|b| !b.is_ascii_whitespace());
        before == Some(&b'}')
    });
    Ok(found.map(|i| at + i as u64 + brace))
}
