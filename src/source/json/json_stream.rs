//! A streaming splitter for whole JSON documents (arrays of items, scan pages, request files): it walks the
//! document's outer structure over a [`BufRead`] and hands each element it is asked for to the caller as the
//! **compact** bytes of that one value (whitespace outside strings left out), so the item path that reads a
//! DynamoDB JSON line ([`super::fast_json`], then serde) reads it too, and the element's length is the item's
//! size exactly as for a line. Only the current element is held: a multi-GB array streams in constant memory.
//!
//! The splitter only finds where a value ends (strings, escapes and nesting); the element's own syntax is
//! checked by the item reader that parses it, which names the item and the line it starts on.
//!
//! In an array of objects (and in objects back to back), the elements after one it cut out are usually cut
//! out by the CPU's SIMD kernel
//! ([`JsonStream::take_elements`], `crates/shardlens-simd`: AVX-512 or AVX2, chosen at run time) with the same
//! rules, 64 bytes at a time; this splitter reads wherever the kernel is not sure (a backslash outside a string,
//! anything but one comma between elements, the array's end, the end of the reader's buffer) and on CPUs
//! without AVX2. On `benches/json_array.sh`'s pretty-printed array the kernel took the load from 0.91 to
//! 0.66–0.68 s: this splitter had been a third of its CPU, copying each run between white space on its own.

use std::io::BufRead;
use std::path::Path;

use super::blocks::{classify, prefix_xor, up_to};
use crate::source::read::{Compression, MAX_LINE_BYTES};
use crate::source::{At, SourceError};

/// A position in the document to name in messages: the 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: u64,
}

/// A reader of one JSON document (or several back to back) from a buffered input.
pub struct JsonStream<'r> {
    r: &'r mut dyn BufRead,
    pub name: &'r Path,
    compression: Compression,
    /// The current line, 1-based.
    pub line: u64,
}

/// How a captured value ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The value is complete.
    Complete,
    /// The input ended inside the value.
    Truncated,
}

impl<'r> JsonStream<'r> {
    pub fn new(r: &'r mut dyn BufRead, name: &'r Path, compression: Compression) -> Self {
        Self {
            r,
            name,
            compression,
            line: 1,
        }
    }

    fn io_error(&self, e: std::io::Error) -> SourceError {
        if self.compression == Compression::None {
            SourceError::Io {
                name: self.name.to_path_buf(),
                error: e,
            }
        } else {
            self.compression.corrupt(self.name, None, &e)
        }
    }

    /// An error that stops the load (the document's structure is broken), at the current line.
    pub fn broken(&self, what: impl Into<crate::source::Message>) -> SourceError {
        SourceError::record(self.name, At::Line(self.line), what)
    }

    /// Skips white space (and a UTF-8 byte order mark at the very start); the next byte, not consumed, or
    /// `None` at the end of the input.
    pub fn peek(&mut self) -> Result<Option<u8>, SourceError> {
        loop {
            let buf = match fill(&mut *self.r) {
                Ok(b) => b,
                Err(e) => return Err(self.io_error(e)),
            };
            if buf.is_empty() {
                return Ok(None);
            }
            let mut i = 0;
            while let Some(&b) = buf.get(i) {
                match b {
                    b'\n' => self.line += 1,
                    b' ' | b'\t' | b'\r' => {}
                    _ => {
                        self.r.consume(i);
                        return Ok(Some(b));
                    }
                }
                i += 1;
            }
            let n = buf.len();
            self.r.consume(n);
        }
    }

    /// Consumes one byte (after [`Self::peek`] returned it).
    pub fn bump(&mut self) {
        self.r.consume(1);
    }

    /// Expects `want` as the next byte after white space; `what` names the place for the message.
    pub fn expect(&mut self, want: u8, what: &str) -> Result<(), SourceError> {
        match self.peek()? {
            Some(b) if b == want => {
                self.bump();
                Ok(())
            }
            Some(b) => Err(self.broken(format!(
                "invalid JSON: found {}; expected '{}' {what}",
                describe_byte(b),
                char::from(want)
            ))),
            None => Err(self.broken(format!(
                "the JSON ends early; expected '{}' {what} (truncated file?)",
                char::from(want)
            ))),
        }
    }

    /// Reads an object's field name (the next value must be a string) and the `:` after it.
    pub fn field_name(&mut self, buf: &mut Vec<u8>) -> Result<String, SourceError> {
        if self.peek()? != Some(b'"') {
            return match self.peek()? {
                Some(b) => Err(self.broken(format!(
                    "invalid JSON: found {}; expected a field name in quotes",
                    describe_byte(b)
                ))),
                None => {
                    Err(self.broken("the JSON ends early; expected a field name (truncated file?)"))
                }
            };
        }
        buf.clear();
        if self.capture(buf, true)? == End::Truncated {
            return Err(self.broken("the JSON ends inside a field name (truncated file?)"));
        }
        let name: String = serde_json::from_slice(buf).map_err(|e| {
            self.broken(format!(
                "invalid JSON in a field name: {}",
                crate::source::read::json_reason(&e)
            ))
        })?;
        self.expect(b':', "after a field name")?;
        Ok(name)
    }

    /// After a value inside an object or array: consumes `,` and returns `true`, or consumes `close` and
    /// returns `false`.
    pub fn next_or_close(&mut self, close: u8, what: &str) -> Result<bool, SourceError> {
        match self.peek()? {
            Some(b',') => {
                self.bump();
                Ok(true)
            }
            Some(b) if b == close => {
                self.bump();
                Ok(false)
            }
            Some(b) => Err(self.broken(format!(
                "invalid JSON: found {}; expected ',' or '{}' {what}",
                describe_byte(b),
                char::from(close)
            ))),
            None => Err(self.broken(format!(
                "the JSON ends early; expected ',' or '{}' {what} (truncated file?)",
                char::from(close)
            ))),
        }
    }

    /// Takes the whole elements of an array of objects that follow, from right after an element (its closing
    /// `}`), with the CPU's SIMD kernel, from what the reader holds now and at most `limit` bytes of it: see
    /// [`shardlens_simd::Kernel::take_elements`]. Returns how many it took (each numbered from `item`, with
    /// its line); the rest is read on as before, so a document reads the same either way.
    pub fn take_elements(
        &mut self,
        kernel: shardlens_simd::Kernel,
        limit: u64,
        out: &mut shardlens_simd::Elements<'_>,
        item: u64,
    ) -> Result<u64, SourceError> {
        let buf = match fill(&mut *self.r) {
            Ok(b) => b,
            Err(e) => return Err(self.io_error(e)),
        };
        let n = buf.len().min(usize::try_from(limit).unwrap_or(usize::MAX));
        let taken = kernel.take_elements(&buf[..n], out, item, self.line);
        self.r.consume(taken.bytes);
        self.line += taken.lines;
        Ok(taken.elements)
    }

    /// Skips one value without holding it.
    pub fn skip(&mut self) -> Result<End, SourceError> {
        let mut none = Vec::new();
        self.scan(&mut none, false)
    }

    /// Appends the next value (after white space), compacted, to `out`. A value longer than
    /// [`MAX_LINE_BYTES`] is refused without being held (a DynamoDB item is at most 400 KB).
    pub fn capture(&mut self, out: &mut Vec<u8>, keep: bool) -> Result<End, SourceError> {
        self.scan(out, keep)
    }

    fn scan(&mut self, out: &mut Vec<u8>, keep: bool) -> Result<End, SourceError> {
        let Some(first) = self.peek()? else {
            return Ok(End::Truncated);
        };
        // No value starts with `,`, `]` or `}`: scanned as a scalar it would end at once having read nothing,
        // and a caller skipping bad items (`{"pk":"a"}}` under `--skip-bad`) would take the same empty value
        // for ever. It is a broken document, which stops the load whatever the policy (found by fuzzing).
        if matches!(first, b',' | b']' | b'}') {
            return Err(self.broken(format!(
                "found {}; expected a JSON value",
                describe_byte(first)
            )));
        }
        let mut st = Scan {
            scalar: !matches!(first, b'{' | b'[' | b'"'),
            ..Scan::default()
        };
        let start = out.len();
        loop {
            let buf = match fill(&mut *self.r) {
                Ok(b) => b,
                Err(e) => return Err(self.io_error(e)),
            };
            if buf.is_empty() {
                return Ok(if st.scalar && st.started {
                    End::Complete
                } else {
                    End::Truncated
                });
            }
            let (used, done) = st.chunk(buf, out, keep, &mut self.line);
            self.r.consume(used);
            if keep && out.len() - start > MAX_LINE_BYTES {
                return Err(self.broken(format!(
                    "a JSON value is over {MAX_LINE_BYTES} bytes; expected items (a DynamoDB item is at most 400 KB)"
                )));
            }
            if !keep {
                out.clear();
            }
            if done {
                return Ok(End::Complete);
            }
        }
    }
}

/// The reader's buffer, refilled when it is empty; an interrupted read is retried.
fn fill(r: &mut dyn BufRead) -> std::io::Result<&[u8]> {
    loop {
        match r.fill_buf() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
            Ok(_) => break,
        }
    }
    // Filled: this returns the same buffer without reading.
    r.fill_buf()
}

/// Appends `buf[from..to]` to `out`. A short run (a pretty-printed line's text between its indentation and
/// its newline) is copied as 16 bytes, of which the rest is cut off again: a copy of known length is two
/// moves, where `memmove` for each ~15-byte run was a sixth of the splitter thread (`perf report`).
#[inline]
fn push_run(out: &mut Vec<u8>, buf: &[u8], from: usize, to: usize) {
    let len = to.saturating_sub(from);
    match buf.get(from..).and_then(<[u8]>::first_chunk::<16>) {
        Some(window) if len <= 16 => {
            let at = out.len();
            out.extend_from_slice(window);
            out.truncate(at + len);
        }
        _ => out.extend_from_slice(buf.get(from..to).unwrap_or_default()),
    }
}

/// What a block did.
enum Block {
    /// The value goes on after it.
    Next,
    /// The value ended; the next byte is at this index.
    Done(usize),
    /// It holds a backslash: read byte by byte.
    Escapes,
    /// Fewer than 64 bytes are left in the buffer.
    Short,
}

/// Where the splitter is inside one value, carried from one buffer to the next.
#[derive(Default)]
struct Scan {
    /// The value is a number, `true`, `false` or `null`: it ends at white space, `,` or a closing bracket.
    scalar: bool,
    depth: u32,
    in_str: bool,
    escaped: bool,
    started: bool,
}

impl Scan {
    /// Scans one buffer: returns how many bytes it used and whether the value ended in it. Kept bytes (white
    /// space outside strings dropped) go to `out`; newlines outside strings count in `line`.
    #[inline]
    fn chunk(
        &mut self,
        buf: &[u8],
        out: &mut Vec<u8>,
        keep: bool,
        line: &mut u64,
    ) -> (usize, bool) {
        let n = buf.len();
        let mut i = 0;
        // Bytes from `run` to `i` are kept; white space outside strings ends a run.
        let mut run = 0;
        let mut done = false;
        // Byte by byte up to here (a block with a backslash), then blocks again.
        let mut bytewise_until = 0;
        while i < n {
            // Inside an object or an array, 64 bytes at a time while they hold no backslash.
            if i >= bytewise_until && self.depth > 0 && !self.scalar && !self.escaped {
                match self.block(buf, i, &mut run, out, keep, line) {
                    Block::Next => {
                        i += 64;
                        continue;
                    }
                    Block::Done(end) => {
                        i = end;
                        done = true;
                        break;
                    }
                    Block::Escapes => bytewise_until = i + 64,
                    Block::Short => bytewise_until = n,
                }
            }
            if self.in_str {
                match self.string_tail(buf, &mut i) {
                    Some(true) => {
                        done = true;
                        break;
                    }
                    Some(false) | None => continue,
                }
            }
            match CLASS[usize::from(buf[i])] {
                WS if !self.scalar => {
                    if keep {
                        out.extend_from_slice(&buf[run..i]);
                    }
                    i = skip_ws(buf, i, line);
                    run = i;
                    continue;
                }
                // A number, `true`, `false` or `null` ends at white space, a comma or a closing bracket.
                WS | COMMA | CLOSE if self.scalar => {
                    done = true;
                    break;
                }
                QUOTE => self.in_str = true,
                OPEN => self.depth += 1,
                CLOSE => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        i += 1;
                        done = true;
                        break;
                    }
                }
                _ => {}
            }
            self.started = true;
            i += 1;
        }
        let i = i.min(n);
        if keep {
            out.extend_from_slice(&buf[run..i]);
        }
        (i, done)
    }

    /// The 64-byte block at `at` of an object or array (depth > 0, not after a backslash): its newlines
    /// counted, its white space outside strings dropped from `out` (the kept run so far starts at `run`),
    /// its brackets outside strings followed to where the value ends. A block with a backslash is left to
    /// the byte loop (which escapes only inside strings, as a block's masks could not tell before knowing
    /// where strings are), so both read every document alike.
    ///
    /// `benches/json_array.sh`'s array (1.25 GB pretty-printed; the splitter is its load's slower thread):
    /// see the closing note of issue 26 and `docs/performance.md` for the figures.
    #[inline]
    fn block(
        &mut self,
        buf: &[u8],
        at: usize,
        run: &mut usize,
        out: &mut Vec<u8>,
        keep: bool,
        line: &mut u64,
    ) -> Block {
        let Some(block) = buf.get(at..).and_then(<[u8]>::first_chunk::<64>) else {
            return Block::Short;
        };
        let c = classify(block);
        if c.backslash != 0 {
            return Block::Escapes;
        }
        let carry = if self.in_str { u64::MAX } else { 0 };
        let in_str = prefix_xor(c.quote) ^ carry;
        let outside = !in_str;
        let (open, close) = (c.open & outside, c.close & outside);
        // The value ends at the close that takes the depth to 0: it may only if the block has as many closes.
        let mut end = None;
        if close != 0 && close.count_ones() >= self.depth {
            let mut depth = self.depth;
            let mut brackets = open | close;
            while brackets != 0 {
                let k = brackets.trailing_zeros();
                if open & (1 << k) != 0 {
                    depth += 1;
                } else {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k);
                        break;
                    }
                }
                brackets &= brackets - 1;
            }
            self.depth = depth;
        } else {
            self.depth = self.depth + open.count_ones() - close.count_ones();
        }
        let mine = end.map_or(u64::MAX, up_to);
        *line += u64::from((c.newline & outside & mine).count_ones());
        if keep {
            // Each run of white space outside strings ends the kept run before it.
            let mut drop = c.space & outside & mine;
            while drop != 0 {
                let from = drop.trailing_zeros() as usize;
                let to = from + (!(drop >> from)).trailing_zeros() as usize;
                push_run(out, buf, *run, at + from);
                *run = at + to;
                drop = if to >= 64 { 0 } else { drop & (u64::MAX << to) };
            }
        }
        match end {
            Some(k) => Block::Done(at + k as usize + 1),
            None => {
                self.in_str = in_str >> 63 != 0;
                Block::Next
            }
        }
    }

    /// Inside a string: eight bytes at a time to the next quote, backslash or control character. Returns
    /// `Some(true)` when the string closed a top-level value, `Some(false)` when it closed inside one, `None`
    /// when the buffer ended first.
    #[inline]
    fn string_tail(&mut self, buf: &[u8], i: &mut usize) -> Option<bool> {
        let n = buf.len();
        if self.escaped {
            self.escaped = false;
            *i += 1;
        }
        loop {
            *i += super::fast_json::find_special(&buf[(*i).min(n)..]);
            let &c = buf.get(*i)?;
            *i += 1;
            if c == b'"' {
                self.in_str = false;
                return Some(self.depth == 0);
            }
            if c == b'\\' {
                if *i < n {
                    *i += 1;
                } else {
                    self.escaped = true;
                }
            }
        }
    }
}

/// Skips white space outside strings from `i`, counting newlines: eight bytes at a time (a newline and the
/// next line's indentation are usually one or two steps), each byte tested exactly (no carries between
/// bytes), then byte by byte at the buffer's end.
///
/// Measured on `benches/json_array.sh`'s array (2,000,000 items pretty-printed with 4 spaces, 1 GB): the
/// splitter is the array load's slower thread, and a byte-by-byte loop here (its `match` a jump table,
/// mispredicted at every line's end) was about a third of it (`perf annotate`). This took the array's
/// load from 2.58 s to 2.43 s (medians of 3 interleaved runs; user time 4.04 s -> 3.70 s).
#[inline]
fn skip_ws(buf: &[u8], mut i: usize, line: &mut u64) -> usize {
    let mut lines = 0u64;
    while let Some(chunk) = buf.get(i..i + 8) {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let x = u64::from_le_bytes(bytes);
        let newline = bytes_equal(x, b'\n');
        let ws = bytes_equal(x, b' ') | newline | bytes_equal(x, b'\t') | bytes_equal(x, b'\r');
        let stop = !ws & HIGHS;
        if stop == 0 {
            lines += count_flagged(newline);
            i += 8;
            continue;
        }
        let k = stop.trailing_zeros() / 8;
        let before = (1u64 << (k * 8)) - 1;
        lines += count_flagged(newline & before);
        *line += lines;
        return i + k as usize;
    }
    while let Some(&w) = buf.get(i) {
        if CLASS[usize::from(w)] != WS {
            break;
        }
        lines += u64::from(w == b'\n');
        i += 1;
    }
    *line += lines;
    i
}

const ONES: u64 = u64::MAX / 255;
const HIGHS: u64 = ONES << 7;
const LOWS: u64 = ONES * 0x7f;

/// How many bytes of `flags` have their high bit set (and no other bit): one multiply, where `count_ones` on
/// the baseline x86-64 target is a dozen instructions (the array's load 2.34 s -> 2.16 s, medians of 5).
#[inline]
fn count_flagged(flags: u64) -> u64 {
    ((flags >> 7).wrapping_mul(ONES)) >> 56
}

/// The high bit of each byte of `x` that is `c`, exactly (the sum of the low seven bits cannot carry into the
/// next byte, unlike the shorter zero-byte test).
#[inline]
fn bytes_equal(x: u64, c: u8) -> u64 {
    let y = x ^ (ONES * u64::from(c));
    !(((y & LOWS) + LOWS) | y) & HIGHS
}

const OTHER: u8 = 0;
const WS: u8 = 1;
const QUOTE: u8 = 2;
const OPEN: u8 = 3;
const CLOSE: u8 = 4;
const COMMA: u8 = 5;

/// What each byte is to the splitter outside strings.
const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    t[b' ' as usize] = WS;
    t[b'\t' as usize] = WS;
    t[b'\r' as usize] = WS;
    t[b'\n' as usize] = WS;
    t[b'"' as usize] = QUOTE;
    t[b'{' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b',' as usize] = COMMA;
    t
};

/// A byte of JSON, named for messages.
pub fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", char::from(b))
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// What kind of JSON value starts with `first`, for messages ("a string").
pub fn kind_of(first: Option<u8>) -> &'static str {
    match first {
        Some(b'{') => "an object",
        Some(b'[') => "an array",
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'n') => "null",
        Some(b'-' | b'0'..=b'9') => "a number",
        Some(_) => "not JSON",
        None => "nothing",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> (Vec<String>, u64) {
        let mut r = text.as_bytes();
        let name = Path::new("x.json");
        let mut js = JsonStream::new(&mut r, name, Compression::None);
        let mut out = Vec::new();
        js.expect(b'[', "").unwrap();
        let mut got = Vec::new();
        if js.peek().unwrap() == Some(b']') {
            return (got, js.line);
        }
        loop {
            out.clear();
            assert_eq!(js.capture(&mut out, true).unwrap(), End::Complete);
            got.push(String::from_utf8(out.clone()).unwrap());
            if !js.next_or_close(b']', "").unwrap() {
                break;
            }
        }
        (got, js.line)
    }

    #[test]
    fn splits_and_compacts_elements() {
        let (got, line) = values(
            "[\n  { \"a\" : \"x, ]} \\\" y\",\n    \"b\": [1, 2, {\"c\": null}] },\n  12.5e3 , \"s\\\\\", true,\n[ ] ]\n",
        );
        assert_eq!(
            got,
            [
                r#"{"a":"x, ]} \" y","b":[1,2,{"c":null}]}"#,
                "12.5e3",
                r#""s\\""#,
                "true",
                "[]"
            ]
        );
        assert_eq!(line, 5);
        assert_eq!(values("[]").0.len(), 0);
    }

    #[test]
    fn white_space_is_skipped_exactly_and_its_newlines_counted() {
        // Every placement of a non-space byte after runs of each white space byte, across the 8-byte steps.
        for stop in [
            b'!', b'"', b'{', b'0', 0x01, 0x08, 0x0b, 0x0c, 0x1f, 0x21, 0xa0, 0xff,
        ] {
            for len in 0..20 {
                for ws in [b' ', b'\n', b'\t', b'\r'] {
                    let mut buf: Vec<u8> = (0..len)
                        .map(|j| if j % 3 == 1 { b'\n' } else { ws })
                        .collect();
                    buf.push(stop);
                    buf.extend_from_slice(b"        ");
                    let mut line = 0;
                    assert_eq!(skip_ws(&buf, 0, &mut line), len, "{buf:?}");
                    let newlines = buf[..len].iter().filter(|&&b| b == b'\n').count();
                    assert_eq!(line, newlines as u64, "{buf:?}");
                }
            }
        }
        let mut line = 0;
        assert_eq!(skip_ws(b" \n \r\n\t  ", 0, &mut line), 8);
        assert_eq!(line, 2);
    }

    #[test]
    fn tiny_buffers_split_the_same() {
        let text = "[{\"a\":\"q\\\"\\\\\"}, {\"b\" : [ \"]\" ]}]";
        let mut r = std::io::BufReader::with_capacity(1, text.as_bytes());
        let name = Path::new("x.json");
        let mut js = JsonStream::new(&mut r, name, Compression::None);
        js.expect(b'[', "").unwrap();
        let mut got = Vec::new();
        loop {
            let mut out = Vec::new();
            js.capture(&mut out, true).unwrap();
            got.push(String::from_utf8(out).unwrap());
            if !js.next_or_close(b']', "").unwrap() {
                break;
            }
        }
        assert_eq!(got, [r#"{"a":"q\"\\"}"#, r#"{"b":["]"]}"#]);
    }

    /// The elements of a top-level array, compacted, and the newlines outside strings before the closing
    /// bracket: the splitter's contract read the simplest way, a byte at a time.
    fn reference(doc: &[u8]) -> (Vec<Vec<u8>>, u64) {
        let (mut values, mut cur, mut lines) = (Vec::new(), Vec::new(), 0);
        let (mut depth, mut in_str, mut escaped) = (0u32, false, false);
        for &b in doc {
            if in_str {
                cur.push(b);
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
                b'\n' => lines += 1,
                b' ' | b'\t' | b'\r' => {}
                b'[' | b'{' => {
                    depth += 1;
                    if depth > 1 {
                        cur.push(b);
                    }
                }
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    cur.push(b);
                }
                b',' if depth == 1 => values.push(std::mem::take(&mut cur)),
                b'"' => {
                    in_str = true;
                    cur.push(b);
                }
                _ => cur.push(b),
            }
        }
        if !cur.is_empty() {
            values.push(cur);
        }
        (values, lines)
    }

    /// A random array of objects: nested values, strings with quotes, escapes, brackets, white space and
    /// non-ASCII bytes, between runs of white space of every kind and length (pretty-printed or not).
    fn random_doc(rng: &mut rand_pcg::Pcg64) -> Vec<u8> {
        use rand::RngExt as _;
        fn ws(rng: &mut rand_pcg::Pcg64, out: &mut Vec<u8>) {
            let n = match rng.random_range(0..4) {
                0 => 0,
                1 => 1,
                2 => rng.random_range(0..10),
                _ => rng.random_range(0..90),
            };
            for _ in 0..n {
                out.push([b' ', b' ', b' ', b'\n', b'\t', b'\r'][rng.random_range(0..6)]);
            }
        }
        fn value(rng: &mut rand_pcg::Pcg64, out: &mut Vec<u8>, depth: u32) {
            match rng.random_range(0..if depth > 4 { 2 } else { 4 }) {
                0 => {
                    out.push(b'"');
                    // Escapes in a string in four (a block with a backslash is read byte by byte).
                    let plain = if rng.random_range(0..4) == 0 { 0 } else { 3 };
                    for _ in 0..rng.random_range(0..40) {
                        match rng.random_range(plain..12) {
                            0 => out.extend_from_slice(b"\\\""),
                            1 => out.extend_from_slice(b"\\\\"),
                            2 => out.extend_from_slice(b"\\n"),
                            3 => out
                                .push([b'{', b'}', b'[', b']', b',', b':'][rng.random_range(0..6)]),
                            // A raw newline is not JSON, but the splitter leaves that to the item
                            // reader: it must not count it as a line.
                            4 => out.push([b' ', b'\t', b'\n'][rng.random_range(0..3)]),
                            5 => out.extend_from_slice("é€".as_bytes()),
                            _ => out.push(rng.random_range(b'a'..=b'z')),
                        }
                    }
                    out.push(b'"');
                }
                1 => out.extend_from_slice(
                    [&b"12.5e3"[..], b"true", b"null", b"-0"][rng.random_range(0..4)],
                ),
                2 => {
                    out.push(b'[');
                    for k in 0..rng.random_range(0..5) {
                        if k > 0 {
                            out.push(b',');
                        }
                        ws(rng, out);
                        value(rng, out, depth + 1);
                        ws(rng, out);
                    }
                    out.push(b']');
                }
                _ => object(rng, out, depth + 1),
            }
        }
        fn object(rng: &mut rand_pcg::Pcg64, out: &mut Vec<u8>, depth: u32) {
            out.push(b'{');
            for k in 0..rng.random_range(0..6) {
                if k > 0 {
                    out.push(b',');
                }
                ws(rng, out);
                out.extend_from_slice(format!("\"f{k}\"").as_bytes());
                ws(rng, out);
                out.push(b':');
                ws(rng, out);
                value(rng, out, depth);
                ws(rng, out);
            }
            out.push(b'}');
        }
        let mut doc = vec![b'['];
        for k in 0..rng.random_range(1..30) {
            if k > 0 {
                doc.push(b',');
            }
            ws(rng, &mut doc);
            object(rng, &mut doc, 1);
            ws(rng, &mut doc);
        }
        doc.push(b']');
        doc
    }

    #[test]
    fn blocks_split_as_the_bytes_do() {
        use rand::SeedableRng as _;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(26);
        for round in 0..400 {
            let doc = random_doc(&mut rng);
            let (want, want_lines) = reference(&doc);
            for cap in [1, 63, 64, 65, 200, 4096] {
                let mut r = std::io::BufReader::with_capacity(cap, &doc[..]);
                let name = Path::new("x.json");
                let mut js = JsonStream::new(&mut r, name, Compression::None);
                js.expect(b'[', "").unwrap();
                let mut got = Vec::new();
                loop {
                    let mut out = Vec::new();
                    assert_eq!(js.capture(&mut out, true).unwrap(), End::Complete);
                    got.push(out);
                    if !js.next_or_close(b']', "").unwrap() {
                        break;
                    }
                }
                let text = String::from_utf8_lossy(&doc);
                assert_eq!(got, want, "round {round}, buffer {cap}: {text}");
                assert_eq!(
                    js.line - 1,
                    want_lines,
                    "round {round}, buffer {cap}: {text}"
                );
            }
        }
    }

    #[test]
    fn truncation_is_seen() {
        let mut r = "[{\"a\": [1, 2".as_bytes();
        let name = Path::new("x.json");
        let mut js = JsonStream::new(&mut r, name, Compression::None);
        js.expect(b'[', "").unwrap();
        let mut out = Vec::new();
        assert_eq!(js.capture(&mut out, true).unwrap(), End::Truncated);
    }
}
