//! The lexical layer of the Ion reader: white space and comments, identifiers and field names, strings and
//! quoted symbols with their escapes, and the errors that name the column. `mod.rs` reads values from these.

use std::borrow::Cow;

use super::Parser;

/// The bytes of an identifier: ASCII letters, digits, `_` and `$`, looked up in a table and the name borrowed
/// from the line's text. Tested by three comparisons a byte, then checked as UTF-8, `ident` was 7.6 % of an Ion
/// export's load (`perf record`, `benches/ion_load.sh`): 0.93 -> 0.88 s (medians of 9 interleaved runs).
/// Finding the end of a string in one pass (quote, backslash or control character) rather than `memchr2` then
/// a pass for control characters was 0.84 -> 0.83 s on the bench's short strings, and would lose on long
/// ones: not kept.
const IDENT: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        c += 1;
    }
    table
};

/// Tokens: what every value reader in `mod.rs` and `values.rs` stands on.
impl<'a> Parser<'a> {
    pub(super) fn err(&self, what: &str) -> String {
        let near: String = String::from_utf8_lossy(&self.s[self.i.min(self.s.len())..])
            .chars()
            .take(20)
            .collect();
        if near.is_empty() {
            format!(
                "invalid Ion: {what} at column {}, found the end of the line",
                self.i + 1
            )
        } else {
            format!(
                "invalid Ion: {what} at column {}, found {near:?}",
                self.i + 1
            )
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// Skips white space and comments.
    pub(super) fn ws(&mut self) -> Result<(), String> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) => self.i += 1,
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'/') => {
                    // To the line's end, which a carriage return is too (Ion 1.0's `NL`; the `ion_rs` fuzz
                    // target found `// …\r{Item:…}` read as all comment).
                    self.i = memchr::memchr(b'\r', &self.s[self.i..])
                        .map_or(self.s.len(), |r| self.i + r);
                }
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'*') => {
                    match memchr::memmem::find(&self.s[self.i + 2..], b"*/") {
                        Some(end) => self.i += end + 4,
                        None => return Err(self.err("unterminated comment")),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    pub(super) fn is_ident_start(c: u8) -> bool {
        c.is_ascii_alphabetic() || c == b'_' || c == b'$'
    }

    pub(super) fn is_ident(c: u8) -> bool {
        IDENT[usize::from(c)]
    }

    /// An identifier symbol. `$` and digits (`$10`) is a symbol ID, which only a symbol table resolves: this
    /// reader reads none (DynamoDB writes names), so it is an error rather than a name (ion-rs agrees; found
    /// by the `ion_rs` fuzz target).
    pub(super) fn ident(&mut self) -> Result<&'a str, String> {
        let start = self.i;
        let rest = self.s.get(start..).unwrap_or_default();
        self.i += rest
            .iter()
            .position(|&c| !Self::is_ident(c))
            .unwrap_or(rest.len());
        // Identifiers are ASCII: both ends are character boundaries of the line.
        let word = self.text.get(start..self.i).unwrap_or_default();
        if word.len() > 1 && word.starts_with('$') && word.as_bytes()[1].is_ascii_digit() {
            self.i = start;
            return Err(self.err("a symbol ID, which needs a symbol table (not read here)"));
        }
        Ok(word)
    }

    /// A field name: symbol, quoted symbol or string; consumes the `:`. A symbol (the usual name) is borrowed
    /// from the line.
    pub(super) fn field_name(&mut self) -> Result<Cow<'a, str>, String> {
        let name = match self.peek() {
            Some(b'\'') if !self.s[self.i..].starts_with(b"'''") => {
                let mut out = Vec::new();
                self.quoted(b'\'', &mut out)?;
                Cow::Owned(String::from_utf8(out).map_err(|_| self.err("field name is not UTF-8"))?)
            }
            Some(b'"' | b'\'') => {
                let mut out = Vec::new();
                self.string(&mut out)?;
                Cow::Owned(String::from_utf8(out).map_err(|_| self.err("field name is not UTF-8"))?)
            }
            Some(c) if Self::is_ident_start(c) => Cow::Borrowed(self.ident()?),
            _ => return Err(self.err("expected a field name")),
        };
        self.ws()?;
        if !self.eat(b':') {
            return Err(self.err("expected ':' after a field name"));
        }
        Ok(name)
    }

    /// A quoted string or symbol up to the closing `quote`, with escapes, appended to `out`.
    pub(super) fn quoted(&mut self, quote: u8, out: &mut Vec<u8>) -> Result<(), String> {
        self.i += 1;
        loop {
            // The text up to the next quote, backslash or control character is copied at once; the byte there
            // is read below. Byte by byte this was a tenth of an Ion load.
            let rest = &self.s[self.i..];
            let run = memchr::memchr2(quote, b'\\', rest).unwrap_or(rest.len());
            let run = rest[..run]
                .iter()
                .position(|&c| Self::control(c, false))
                .unwrap_or(run);
            out.extend_from_slice(&rest[..run]);
            self.i += run;
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated string"));
            };
            self.i += 1;
            match c {
                c if c == quote => return Ok(()),
                b'\\' => self.escape(out)?,
                c if Self::control(c, false) => {
                    self.i -= 1;
                    return Err(self.err("an unescaped control character in a string"));
                }
                c => out.push(c),
            }
        }
    }

    /// A control character Ion text does not allow unescaped in a string or quoted symbol: every one below
    /// U+0020 but tab, vertical tab and form feed (and, in a long string, the line ends). The Ion 1.0 text
    /// grammar's `STRING_SHORT_TEXT_ALLOWED` / `STRING_LONG_TEXT_ALLOWED`; ion-rs refuses them too (found by
    /// the `ion_rs` fuzz target).
    pub(super) fn control(c: u8, long: bool) -> bool {
        c < 0x20 && !matches!(c, b'\t' | 0x0b | 0x0c) && !(long && matches!(c, b'\n' | b'\r'))
    }

    pub(super) fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        let Some(c) = self.peek() else {
            return Err(self.err("unterminated escape"));
        };
        self.i += 1;
        let simple = match c {
            b'a' => Some(0x07),
            b'b' => Some(0x08),
            b't' => Some(b'\t'),
            b'n' => Some(b'\n'),
            b'f' => Some(0x0c),
            b'r' => Some(b'\r'),
            b'v' => Some(0x0b),
            b'0' => Some(0),
            b'?' | b'\'' | b'"' | b'/' | b'\\' => Some(c),
            b'\n' => return Ok(()),
            _ => None,
        };
        if let Some(b) = simple {
            out.push(b);
            return Ok(());
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(self.err("unknown escape")),
        };
        let hex = self
            .s
            .get(self.i..self.i + digits)
            // Hex digits only: `from_str_radix` alone takes a sign (`\u+eda`, found by the `ion_rs` fuzz target).
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("bad hex escape"))?;
        self.i += digits;
        let ch = char::from_u32(hex).ok_or_else(|| self.err("escape is not a character"))?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    /// A string: `"…"` or one or more `'''…'''` parts.
    pub(super) fn string(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        if self.peek() == Some(b'"') {
            return self.quoted(b'"', out);
        }
        while self.s[self.i..].starts_with(b"'''") {
            self.i += 3;
            loop {
                if self.s[self.i..].starts_with(b"'''") {
                    self.i += 3;
                    break;
                }
                let Some(c) = self.peek() else {
                    return Err(self.err("unterminated long string"));
                };
                self.i += 1;
                if c == b'\\' {
                    self.escape(out)?;
                } else if Self::control(c, true) {
                    self.i -= 1;
                    return Err(self.err("an unescaped control character in a string"));
                } else {
                    out.push(c);
                }
            }
            let save = self.i;
            self.ws()?;
            if !self.s[self.i..].starts_with(b"'''") {
                self.i = save;
            }
        }
        Ok(())
    }
}
