//! Ion text export lines (`ION` S3 exports): `$ion_1_0 {Item:{Id:103.,Name:"Book",Tags:$dynamodb_SS::["A"]}}`.
//!
//! A small hand-written reader for the subset of Ion text DynamoDB writes: structs, lists and s-expressions,
//! strings (short and long, with escapes), symbols and quoted symbols as field names, annotations
//! (`$dynamodb_SS::[…]` marks sets), ints (decimal, hex, binary, with `_`), decimals (`103.`, `1.5d3`),
//! floats, blobs (`{{base64}}`), clobs, `null`/`null.type`, booleans and comments. Types map to DynamoDB's:
//! strings are `S`, ints, decimals and floats are `N` (canonicalised by value like every number), blobs are
//! `B`; anything else (sets, maps, lists, booleans, nulls, timestamps) cannot be a key. Nesting is limited to
//! 64 levels so hostile input cannot overflow the stack.
//!
//! What it reads follows the Ion 1.0 text grammar wherever it stands in an item, not only in the keys: numbers
//! and timestamps (`number.rs`), stop characters after a number, escapes, control characters, blobs, typed
//! nulls; symbol IDs (`$10`) are refused, as no symbol table is read. The `ion_rs` fuzz target checks that on
//! every input this reader accepts, Amazon's ion-rs accepts it too and finds the same keys. `values.rs` builds
//! the attributes a key design reads as [`Value`](crate::model::keyexpr::Value)s with the same parser, and
//! `lexer.rs` reads the tokens both stand on (white space, comments, names, strings).
//!
//! Why hand-written and not Amazon's `ion-rs` (measured for issue 12, commit 7c6c05f's `benches/peers.sh`: the
//! 2,000,000 items of `benches/gen_export.py` as Ion export lines, 406 MB, each item's key attributes into the
//! key set; medians of 5 interleaved runs, release, this 2-core shared machine): this reader, line by line,
//! 6.87 s and 108 MB peak RSS; ion-rs 1.2 with one lazy reader over the whole file, reading only `Item`'s key
//! fields, 12.51 s and 114 MB (1.8× slower). Its streaming reader (`Reader`, `LazyValue`) is public only
//! behind the `experimental-reader-writer` feature (the stable API builds whole `Element` trees), and it adds
//! 23 crates and ~138 s of compile to a clean release build (ion-rs alone ~90 s).

use super::read::Compression;
use crate::source::Message;
use std::borrow::Cow;
use std::io::BufRead;
use std::path::Path;

use super::json::item::{KeyNames, Scratch, Tag};
use super::key_ahead::{KeyAhead, for_each_record_line};
use super::read::{Sink, Tick};
use super::{At, LoadOptions, SourceError};
use crate::model::KeyType;
use crate::model::health::ttl::TtlValue;
use crate::model::item_size::{CONTAINER_BYTES, ELEMENT_BYTES, FLAG_BYTES, number_size};

mod lexer;
mod number;
mod values;

const MAX_DEPTH: usize = 64;

/// The typed nulls of Ion 1.0 (`null.string`, …).
const NULL_TYPES: [&str; 13] = [
    "null",
    "bool",
    "int",
    "float",
    "decimal",
    "timestamp",
    "string",
    "symbol",
    "blob",
    "clob",
    "struct",
    "list",
    "sexp",
];

/// Loads Ion text, one item a line.
pub fn load_ion(
    reader: &mut dyn BufRead,
    compression: Compression,
    name: &Path,
    sink: &mut Sink,
    opts: &LoadOptions,
    tick: &mut Tick<'_>,
) -> Result<(), SourceError> {
    let mut scratch = Scratch::for_load(opts);
    let ahead = KeyAhead::for_ion(sink);
    let lines = for_each_record_line(
        reader,
        name,
        compression,
        tick,
        (ahead, &mut *sink, &mut scratch),
        |line, sink, scratch, n| {
            let result = ion_line(line, sink, scratch, opts)
                .map_err(|what| SourceError::record(name, At::Line(n), what));
            sink.check(result)
        },
    );
    sink.lines += lines?;
    Ok(())
}

/// One line: every top-level struct on it is a record `{Item:{…}}`; version markers are skipped.
pub fn ion_line(
    line: &[u8],
    sink: &mut Sink,
    scratch: &mut Scratch,
    opts: &LoadOptions,
) -> Result<(), Message> {
    let text = std::str::from_utf8(line).map_err(|e| {
        format!(
            "not valid UTF-8 at byte {}; expected Ion text",
            e.valid_up_to() + 1
        )
    })?;
    let mut p = Parser {
        text,
        s: text.as_bytes(),
        i: 0,
        discard: std::mem::take(&mut scratch.ion_discard),
    };
    let read = records(&mut p, sink, scratch, opts);
    scratch.ion_discard = p.discard;
    read
}

/// The records of a line from `p`'s start (see [`ion_line`]).
fn records(
    p: &mut Parser<'_>,
    sink: &mut Sink,
    scratch: &mut Scratch,
    opts: &LoadOptions,
) -> Result<(), Message> {
    loop {
        p.ws()?;
        if p.i >= p.s.len() {
            return Ok(());
        }
        if p.s[p.i..].starts_with(b"$ion_1_0") {
            p.i += "$ion_1_0".len();
            continue;
        }
        if p.peek() != Some(b'{') {
            return Err(p.err("expected a struct {Item:{…}}").into());
        }
        p.i += 1;
        let mut found = false;
        p.members("expected ',' or '}'", |p, field| {
            if field == "Item" || field == "Keys" {
                p.ws()?;
                if !p.eat(b'{') {
                    return Err(p.err("expected the item struct after Item:"));
                }
                // This item notes the names when none are noted yet (`item` clears the scratch).
                let collecting = !scratch.names_done && scratch.names.is_empty();
                let size = match p.item(sink.names.as_ref(), scratch) {
                    Ok(size) => size,
                    Err(e) => {
                        if collecting {
                            // Not the names of an item: the next item notes its own.
                            scratch.names.clear();
                        }
                        return Err(e);
                    }
                };
                if field == "Item" {
                    scratch.item_bytes = Some(size);
                }
                found = true;
            } else {
                p.value(1, None)?;
            }
            Ok(())
        })?;
        if !found {
            return Err("expected a struct with an Item field (an Ion export line)".into());
        }
        if sink.names.is_none() {
            sink.resolve_from_first(scratch, opts)?;
        }
        sink.add_scratch(scratch, 1)?;
    }
}

struct Parser<'a> {
    /// The line, and its bytes (`s`): names are borrowed from `text` where they lie.
    text: &'a str,
    s: &'a [u8],
    i: usize,
    /// Where strings nobody keeps are unescaped (one buffer per line, not one per string).
    discard: Vec<u8>,
}

impl<'a> Parser<'a> {
    /// The item struct (after its `{`): fills `scratch` like the DynamoDB JSON reader does. Its size as
    /// DynamoDB counts it (each attribute's name and value, [`crate::model::item_size`]).
    fn item(&mut self, names: Option<&KeyNames>, scratch: &mut Scratch) -> Result<u64, String> {
        scratch.clear();
        let mut size = 0;
        let mut attrs = names.is_none().then(Vec::new);
        self.members("expected ',' or '}' in the item", |p, field| {
            p.ws()?;
            if scratch.wants_names() {
                scratch.names.push(field.clone().into_owned());
            }
            let start = p.i;
            // The key text is kept only for the key attributes (or every attribute, while guessing).
            let is_pk = names.is_some_and(|n| *field == *n.pk);
            let is_sk = names.is_some_and(|n| n.sk.as_deref() == Some(&*field));
            let is_ttl = scratch.ttl.is_ttl(field.as_bytes());
            let mut raw = Vec::new();
            let (tag, bytes) = if attrs.is_some() || is_ttl {
                p.value(2, Some(&mut raw))?
            } else if is_pk {
                scratch.pk_raw.clear();
                p.value(2, Some(&mut scratch.pk_raw))?
            } else if is_sk {
                scratch.sk_raw.clear();
                p.value(2, Some(&mut scratch.sk_raw))?
            } else {
                p.value(2, None)?
            };
            size += field.len() as u64 + bytes;
            if is_ttl {
                scratch.ttl.value = match &tag {
                    Tag::Key(KeyType::N) => {
                        crate::source::json::ttl::number(&String::from_utf8_lossy(&raw))
                    }
                    Tag::Key(t) => TtlValue::Other(t.as_str()),
                    Tag::Other(t) => TtlValue::Other(crate::source::json::ttl::tag_name(t)),
                };
            }
            if let Some(slot) = scratch.extract_slot(&field) {
                // Read again as a value: only the attributes a design needs pay for it.
                let end = p.i;
                p.i = start;
                scratch.values[slot] = Some(p.tree(2, &field)?);
                p.i = end;
            }
            if let Some(attrs) = attrs.as_mut() {
                attrs.push((field.into_owned(), tag, raw));
            } else if is_pk {
                scratch.pk = Some(tag);
            } else if is_sk {
                scratch.sk = Some(tag);
            }
            Ok(())
        })?;
        if attrs.is_some() {
            scratch.attrs = attrs;
        }
        scratch.ttl.item_done();
        Ok(size)
    }

    /// The members of a struct (after its `{`): each field name and `member`, which reads the value;
    /// `expected` is the error when neither `,` nor `}` follows one. The record, the item, and structs read
    /// through or into a [`Value`](crate::model::keyexpr::Value) all walk them here.
    fn members(
        &mut self,
        expected: &str,
        mut member: impl FnMut(&mut Self, Cow<'a, str>) -> Result<(), String>,
    ) -> Result<(), String> {
        loop {
            self.ws()?;
            if self.eat(b'}') {
                return Ok(());
            }
            let field = self.field_name()?;
            member(self, field)?;
            self.ws()?;
            if !self.eat(b',') {
                self.ws()?;
                if !self.eat(b'}') {
                    return Err(self.err(expected));
                }
                return Ok(());
            }
        }
    }

    /// One value; returns its DynamoDB type and its size as DynamoDB counts it. For `S`, `N` and `B` the key
    /// text goes to `raw` (when given).
    fn value(&mut self, depth: usize, mut raw: Option<&mut Vec<u8>>) -> Result<(Tag, u64), String> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting deeper than 64 levels"));
        }
        self.ws()?;
        match self.peek() {
            Some(b'"') => self.string_value(raw.as_deref_mut()),
            Some(b'\'') if self.s[self.i..].starts_with(b"'''") => {
                self.string_value(raw.as_deref_mut())
            }
            Some(b'\'') => self.quoted_symbol(depth),
            Some(b'{') if self.s.get(self.i + 1) == Some(&b'{') => self.lob(raw),
            Some(b'{') => self.struct_value(depth),
            Some(open @ (b'[' | b'(')) => self.sequence(open, depth),
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => self.number(raw),
            Some(c) if Self::is_ident_start(c) => self.word(depth),
            _ => Err(self.err("expected a value")),
        }
    }

    /// A string (short or long form): an `S` key when it is the key attribute; its size is its decoded bytes.
    fn string_value(&mut self, raw: Option<&mut Vec<u8>>) -> Result<(Tag, u64), String> {
        let size = match raw {
            Some(raw) => {
                let before = raw.len();
                self.string(raw)?;
                raw.len() - before
            }
            None => {
                let mut discard = std::mem::take(&mut self.discard);
                discard.clear();
                let read = self.string(&mut discard);
                let size = discard.len();
                self.discard = discard;
                read?;
                size
            }
        };
        Ok((Tag::Key(KeyType::S), size as u64))
    }

    /// A quoted symbol, or the annotation `'name'::` before a value.
    /// A symbol is no DynamoDB type; **[ours]** it is sized as a string of its text.
    fn quoted_symbol(&mut self, depth: usize) -> Result<(Tag, u64), String> {
        let mut sym = Vec::new();
        self.quoted(b'\'', &mut sym)?;
        self.ws()?;
        if self.s[self.i..].starts_with(b"::") {
            self.i += 2;
            let name = String::from_utf8_lossy(&sym).into_owned();
            return self.annotated(&name, depth);
        }
        Ok((Tag::Other("symbol".into()), sym.len() as u64))
    }

    /// `{{ … }}`: a blob (base64, a `B` key, its decoded bytes) or a clob (a string inside, its bytes).
    fn lob(&mut self, raw: Option<&mut Vec<u8>>) -> Result<(Tag, u64), String> {
        self.i += 2;
        // White space only: `//` inside `{{ }}` is base64, not a comment (found by the `ion_rs` fuzz target).
        while matches!(
            self.peek(),
            Some(b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
        ) {
            self.i += 1;
        }
        if matches!(self.peek(), Some(b'"' | b'\'')) {
            let mut ignored = Vec::new();
            self.string(&mut ignored)?;
            self.ws()?;
            if !self.s[self.i..].starts_with(b"}}") {
                return Err(self.err("expected }} after a clob"));
            }
            self.i += 2;
            return Ok((Tag::Other("clob".into()), ignored.len() as u64));
        }
        let end = memchr::memmem::find(&self.s[self.i..], b"}}")
            .ok_or_else(|| self.err("unterminated blob"))?;
        let text: Vec<u8> = self.s[self.i..self.i + end]
            .iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        // Every blob is checked, the ones read through too: a corrupt blob means a corrupt line, not a value
        // to pass over (found by the `ion_rs` fuzz target: `{{A&ID}}` was read through).
        let Some(size) = crate::model::item_size::base64_size(&text) else {
            return Err(self.err("a blob that is not valid base64"));
        };
        if let Some(raw) = raw {
            raw.extend_from_slice(&text);
        }
        self.i += end + 2;
        Ok((Tag::Key(KeyType::B), size))
    }

    /// A struct (a DynamoDB map), read through: 3 bytes, and each member's name and value plus 1.
    fn struct_value(&mut self, depth: usize) -> Result<(Tag, u64), String> {
        self.i += 1;
        let mut size = CONTAINER_BYTES;
        self.members("expected ',' or '}'", |p, name| {
            size += ELEMENT_BYTES + name.len() as u64 + p.value(depth + 1, None)?.1;
            Ok(())
        })?;
        Ok((Tag::Other("M".into()), size))
    }

    /// At an operator symbol inside an s-expression (`(a + b)`), which is stepped over. At the end of the text
    /// there is none (stepping over it looped for ever on an unclosed `(`, found by fuzzing): the value read
    /// next says what is missing.
    fn sexp_operator(&self, open: u8) -> bool {
        open == b'('
            && self.peek().is_some()
            && !matches!(self.peek(), Some(b'"' | b'\'' | b'{' | b'[' | b'('))
            && !self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'$' || c == b'_')
    }

    /// The elements of a list `[…]` or an s-expression `(…)` (after `open`), each read by `element`; both
    /// readers (read through, and into a [`Value`]) walk them here.
    fn elements(
        &mut self,
        open: u8,
        mut element: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        let close = if open == b'[' { b']' } else { b')' };
        self.i += 1;
        loop {
            self.ws()?;
            if self.eat(close) {
                return Ok(());
            }
            if self.sexp_operator(open) {
                self.i += 1;
                continue;
            }
            element(self)?;
            self.ws()?;
            if open == b'[' && !self.eat(b',') {
                self.ws()?;
                if !self.eat(close) {
                    return Err(self.err("expected ',' or ']'"));
                }
                return Ok(());
            }
        }
    }

    /// A list `[…]` (a DynamoDB list) or an s-expression `(…)`, read through: 3 bytes, and each element
    /// plus 1.
    fn sequence(&mut self, open: u8, depth: usize) -> Result<(Tag, u64), String> {
        let mut size = CONTAINER_BYTES;
        self.elements(open, |p| {
            size += ELEMENT_BYTES + p.value(depth + 1, None)?.1;
            Ok(())
        })?;
        let tag = if open == b'[' { "L" } else { "sexp" };
        Ok((Tag::Other(tag.into()), size))
    }

    /// A keyword (`null`, `true`, `nan`…), a symbol, or the annotation `name::` before a value.
    /// Null and booleans are 1 byte; `nan` (no DynamoDB number) **[ours]** too; a symbol its text.
    fn word(&mut self, depth: usize) -> Result<(Tag, u64), String> {
        let other = |t: &'static str, size: u64| Ok((Tag::Other(t.into()), size));
        let word = self.ident()?;
        if word == "null" {
            self.null_type()?;
            return other("NULL", FLAG_BYTES);
        }
        if word == "true" || word == "false" {
            return other("BOOL", FLAG_BYTES);
        }
        if word == "nan" {
            return other("nan", FLAG_BYTES);
        }
        self.ws()?;
        if self.s[self.i..].starts_with(b"::") {
            self.i += 2;
            return self.annotated(word, depth);
        }
        other("symbol", word.len() as u64)
    }

    /// After `null`: an optional `.type`, one of Ion's types.
    fn null_type(&mut self) -> Result<(), String> {
        if self.eat(b'.') {
            let at = self.i;
            if !NULL_TYPES.contains(&self.ident()?) {
                self.i = at;
                return Err(self.err("null. followed by no Ion type"));
            }
        }
        Ok(())
    }

    /// The value after an annotation `name::`: DynamoDB marks its sets this way (a list whose size is only
    /// its members': a set has no overhead).
    fn annotated(&mut self, name: &str, depth: usize) -> Result<(Tag, u64), String> {
        let set = matches!(name, "$dynamodb_SS" | "$dynamodb_NS" | "$dynamodb_BS");
        self.ws()?;
        let size = if set && self.peek() == Some(b'[') {
            let mut size = 0;
            self.elements(b'[', |p| {
                size += p.value(depth + 2, None)?.1;
                Ok(())
            })?;
            size
        } else {
            self.value(depth + 1, None)?.1
        };
        let tag: Cow<'static, str> = match name {
            "$dynamodb_SS" => "SS".into(),
            "$dynamodb_NS" => "NS".into(),
            "$dynamodb_BS" => "BS".into(),
            other => format!("{other}::").into(),
        };
        Ok((Tag::Other(tag), size))
    }

    /// An int, decimal or float as number text; timestamps and special floats are not numbers.
    /// Ion 1.0's `NUMERIC_STOP`: a number ends at white space, a bracket, a comma, a quote or the line's end
    /// (`1//x` and `1/*x*/` are errors; found by the `ion_rs` fuzz target).
    fn numeric_stop(&self) -> Result<(), String> {
        match self.peek() {
            None
            | Some(
                b'{' | b'}' | b'[' | b']' | b'(' | b')' | b',' | b'"' | b'\'' | b' ' | b'\t'
                | b'\n' | b'\r' | 0x0b | 0x0c,
            ) => Ok(()),
            Some(_) => Err(self.err("a number not followed by white space, a bracket or a comma")),
        }
    }

    /// Sized by its significant digits (hex and binary ints as their decimal digits); `inf` (no DynamoDB
    /// number) **[ours]** 1 byte and a timestamp (no DynamoDB type) its text.
    fn number(&mut self, raw: Option<&mut Vec<u8>>) -> Result<(Tag, u64), String> {
        let start = self.i;
        if self.s[self.i..].starts_with(b"+inf") || self.s[self.i..].starts_with(b"-inf") {
            self.i += 4;
            self.numeric_stop()?;
            return Ok((Tag::Other("inf".into()), FLAG_BYTES));
        }
        while self.peek().is_some_and(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'+' | b'-' | b':')
        }) {
            self.i += 1;
        }
        let token = &self.s[start..self.i];
        self.numeric_stop()?;
        match number::classify(token) {
            Ok(number::Kind::Timestamp) => {
                return Ok((Tag::Other("timestamp".into()), token.len() as u64));
            }
            Ok(_) => {}
            Err(what) => {
                self.i = start;
                return Err(self.err(what));
            }
        }
        let digits: Vec<u8> = token.iter().copied().filter(|&c| c != b'_').collect();
        let (negative, body) = match digits.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, digits.as_slice()),
        };
        let text: Vec<u8> = if let Some(hex) = body
            .strip_prefix(b"0x")
            .or_else(|| body.strip_prefix(b"0X"))
        {
            radix(hex, 16, negative).ok_or_else(|| self.err("bad hex int"))?
        } else if let Some(bin) = body
            .strip_prefix(b"0b")
            .or_else(|| body.strip_prefix(b"0B"))
        {
            radix(bin, 2, negative).ok_or_else(|| self.err("bad binary int"))?
        } else {
            digits
                .iter()
                .map(|&c| if c == b'd' || c == b'D' { b'e' } else { c })
                .collect()
        };
        let size = number_size(&String::from_utf8_lossy(&text));
        if let Some(raw) = raw {
            raw.extend_from_slice(&text);
        }
        Ok((Tag::Key(KeyType::N), size))
    }
}

fn radix(digits: &[u8], radix: u32, negative: bool) -> Option<Vec<u8>> {
    let v = u128::from_str_radix(std::str::from_utf8(digits).ok()?, radix).ok()?;
    Some(format!("{}{v}", if negative { "-" } else { "" }).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Sink, SourceError> {
        let opts = LoadOptions::default();
        let mut sink = Sink::new(&opts);
        load_ion(
            &mut text.as_bytes(),
            Compression::None,
            Path::new("x.ion"),
            &mut sink,
            &opts,
            &mut |_, _| Ok(()),
        )?;
        Ok(sink)
    }

    #[test]
    fn reads_the_export_subset() {
        let text = r#"$ion_1_0 {Item:{Id:103.,Name:"Book",Authors:$dynamodb_SS::["A","B"],M:{x:[1,2.5e0,{{AQID}}]},n:null.string}}
{Item:{Name:'''Pen''' '''cil''',Id:1.03d2,Tags:$dynamodb_NS::[1,2]}} // comment
{Item:{'Id':0x67,Name:"x\u00e9"}}
{Item:{"Id":103,/* c */Name:"y"}}
"#;
        let sink = load(text).unwrap();
        assert_eq!(sink.keys.key_type(), KeyType::N);
        assert_eq!(sink.keys.total(), 4);
        assert_eq!(
            sink.keys.len(),
            1,
            "103., 1.03d2, 0x67 and 103 are one number"
        );
        assert_eq!(sink.names.as_ref().unwrap().pk, "Id");
    }

    #[test]
    fn blobs_are_binary_keys() {
        let sink = load("{Item:{pk:{{ AQID }}}}\n{Item:{pk:{{AQID}}}}\n").unwrap();
        assert_eq!(sink.keys.key_type(), KeyType::B);
        assert_eq!(sink.keys.count(sink.keys.find(&[1, 2, 3]).unwrap()), 2);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = load("{Item:{pk:\"a\"}}\n{Item:{pk:\"a\" x}}\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: invalid Ion: expected ',' or '}' in the item at column 15"),
            "{e}"
        );
        let e = load("{Item:{pk:\"a\"}}\n{Item:{pk:$dynamodb_SS::[\"a\"]}}\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("line 2: partition key \"pk\" is of type SS"),
            "{e}"
        );
        let deep = format!("{{Item:{{pk:\"a\",x:{}}}}}", "[".repeat(100));
        assert!(load(&deep).unwrap_err().to_string().contains("nesting"));
    }

    /// Control characters must be escaped in strings and quoted symbols (found by the ion-rs differential);
    /// tabs may stand as they are, and line ends in a long string.
    #[test]
    fn unescaped_control_characters_are_errors() {
        for bad in [
            "{Item:{pk:\"a\u{1}b\"}}",
            "{Item:{pk:'''a\u{0}'''}}",
            "{Item:{pk:\"a\",'x\u{1b}':1}}",
        ] {
            let e = load(bad).unwrap_err().to_string();
            assert!(e.contains("an unescaped control character"), "{bad:?}: {e}");
        }
        let e = load("{Item:{pk:\"a\",x:{{A&ID}}}}")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a blob that is not valid base64"), "{e}");
        let ok = load("{Item:{pk:\"a\tb\",x:'''c\rd'''}}\n").unwrap();
        assert_eq!(ok.items, 1);
    }

    /// Strings are copied in runs between escapes: the key's bytes are exact, attributes before and after the
    /// key do not leak into it, and a control character after a long run is found where it is.
    #[test]
    fn strings_read_in_runs_keep_every_byte() {
        let sink = load(concat!(
            "{Item:{a:\"skipped \\\" text\",pk:\"user\\\"42\\\\x\\u00e9 and more text\",sk:'''s1''',b:\"zz\"}}\n",
            "{Item:{pk:\"user\\\"42\\\\x\\u00e9 and more text\",b:\"q\",sk:\"s2\"}}\n",
        ))
        .unwrap();
        assert_eq!(sink.keys.len(), 1);
        let key = "user\"42\\x\u{e9} and more text".as_bytes();
        let i = sink.keys.find(key).expect("the key, unescaped");
        assert_eq!(sink.keys.count(i), 2);
        assert_eq!(sink.keys.sort_key_facts(i).map(|f| f.items), Some(2));
        let long = format!("{{Item:{{pk:\"{}\u{1}\"}}}}", "x".repeat(300));
        let e = load(&long).unwrap_err().to_string();
        assert!(
            e.contains("an unescaped control character in a string at column 312"),
            "{e}"
        );
    }

    /// A line comment ends at a carriage return too; `$10` (a symbol ID) and `0.0.5d` are errors, not names
    /// and numbers (all found by the ion-rs differential).
    #[test]
    fn comments_symbol_ids_and_numbers_follow_the_grammar() {
        let two = load("{Item:{pk:\"a\"}} // c\r{Item:{pk:\"b\"}}\n").unwrap();
        assert_eq!(two.items, 2);
        for (bad, says) in [
            ("{Item:{pk:\"a\",x:$10}}", "a symbol ID"),
            ("{Item:{pk:\"a\",m:{x:0.0.5d}}}", "a malformed number"),
            ("{Item:{pk:\"a\",t:2023-02-29}}", "out of range"),
            ("{Item:{pk:\"a\",n:null.nothing}}", "no Ion type"),
        ] {
            let e = load(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
    }

    /// An s-expression the line leaves open is an error, not an endless loop (found by fuzzing).
    #[test]
    fn an_unclosed_s_expression_is_an_error() {
        for line in ["{Item:{pk:\"a\",x:(}}", "{Item:{pk:\"a\",x:(03.", "{a:("] {
            let e = load(line).unwrap_err();
            assert!(e.to_string().contains("invalid Ion"), "{line}: {e}");
        }
    }
}

#[cfg(test)]
mod extract_tests {
    use super::*;
    use crate::model::keyexpr::Value;

    fn s(v: &str) -> Value {
        Value::S(v.to_owned())
    }

    fn n(v: &str) -> Value {
        Value::number(v).unwrap()
    }

    /// Reads `lines` one by one into a scratch extracting `roots`; the scratch after the last.
    fn read(lines: &[&str], roots: &[&str]) -> Result<Scratch, Message> {
        let opts = LoadOptions::default();
        let mut sink = Sink::new(&opts);
        let mut scratch = Scratch::extracting(roots);
        for line in lines {
            ion_line(line.as_bytes(), &mut sink, &mut scratch, &opts)?;
        }
        Ok(scratch)
    }

    #[test]
    fn values_of_every_type() {
        let line = r#"$ion_1_0 {Item:{Id:"a",n:1.50,i:0x10,f:2.5e0,d:1.5d1,b:{{AQID}},t:true,z:null,zs:null.string,sym:abc,'q':'x y',m:{k:[1,"two",{{AA==}}]},s:(a b),ss:$dynamodb_SS::["A","B"],ns:$dynamodb_NS::[1.0,2],bs:$dynamodb_BS::[{{AQ==}}],long:'''lo''' '''ng'''}}"#;
        let roots = [
            "n", "i", "f", "d", "b", "t", "z", "zs", "sym", "q", "m", "s", "ss", "ns", "bs",
            "long", "gone",
        ];
        let sc = read(&[line], &roots).unwrap();
        assert_eq!(sc.value("n"), Some(&n("1.5")));
        assert_eq!(sc.value("i"), Some(&n("16")));
        assert_eq!(sc.value("f"), Some(&n("2.5")));
        assert_eq!(sc.value("d"), Some(&n("15")));
        assert_eq!(sc.value("b"), Some(&Value::B(vec![1, 2, 3])));
        assert_eq!(sc.value("t"), Some(&Value::Bool(true)));
        assert_eq!(sc.value("z"), Some(&Value::Null));
        assert_eq!(sc.value("zs"), Some(&Value::Null));
        assert_eq!(sc.value("sym"), Some(&s("abc")));
        assert_eq!(sc.value("q"), Some(&s("x y")));
        let mut m = std::collections::BTreeMap::new();
        m.insert(
            "k".to_owned(),
            Value::L(vec![n("1"), s("two"), Value::B(vec![0])]),
        );
        assert_eq!(sc.value("m"), Some(&Value::M(m)));
        assert_eq!(sc.value("s"), Some(&Value::L(vec![s("a"), s("b")])));
        assert_eq!(sc.value("ss"), Some(&Value::L(vec![s("A"), s("B")])));
        assert_eq!(sc.value("ns"), Some(&Value::L(vec![n("1"), n("2")])));
        assert_eq!(sc.value("bs"), Some(&Value::L(vec![Value::B(vec![1])])));
        assert_eq!(sc.value("long"), Some(&s("long")));
        assert_eq!(sc.value("gone"), None);
        assert_eq!(sc.pk_raw, b"a", "the key is read as before");
    }

    #[test]
    fn keys_extracted_in_both_and_names_of_the_first_item() {
        let sc = read(
            &["{Item:{pk:103.,v:\"x\"}}", "{Item:{pk:1.50e0,w:1}}"],
            &["pk", "v"],
        )
        .unwrap();
        assert_eq!(sc.pk, Some(Tag::Key(KeyType::N)));
        assert_eq!(sc.pk_raw, b"1.50e0");
        assert_eq!(sc.value("pk"), Some(&n("1.5")));
        assert_eq!(sc.value("v"), None, "the second item has no v");
        assert_eq!(sc.names, ["pk", "v"], "the first item's names only");
        assert!(sc.names_done);
    }

    #[test]
    fn bad_values_name_the_attribute() {
        let e = read(&["{Item:{pk:\"a\",x:nan}}"], &["x"]).unwrap_err();
        assert_eq!(e, "attribute \"x\": nan is not a DynamoDB number");
        let e = read(&["{Item:{pk:\"a\",x:+inf}}"], &["x"]).unwrap_err();
        assert!(e.starts_with("attribute \"x\": an infinite float"), "{e}");
        let e = read(&["{Item:{pk:\"a\",x:{{\"c\"}}}}"], &["x"]).unwrap_err();
        assert!(e.starts_with("attribute \"x\" holds a clob"), "{e}");
        // Not extracted: read through as before.
        assert!(read(&["{Item:{pk:\"a\",x:nan}}"], &["y"]).is_ok());
        // An item that fails to read notes no names; the next one does.
        let opts = LoadOptions::default();
        let mut sink = Sink::new(&opts);
        let mut sc = Scratch::extracting(&["x"]);
        assert!(ion_line(b"{Item:{pk:\"a\",x:nan}}", &mut sink, &mut sc, &opts).is_err());
        assert!(sc.names.is_empty());
        ion_line(b"{Item:{pk:\"a\",y:1}}", &mut sink, &mut sc, &opts).unwrap();
        assert_eq!(sc.names, ["pk", "y"]);
        assert!(ion_line(b"{Item:{pk:\"a\",x:nan}}", &mut sink, &mut sc, &opts).is_err());
        assert_eq!(sc.names, ["pk", "y"], "a later bad item leaves them");
    }

    /// An extracted s-expression the line leaves open is an error, not an endless loop (found by fuzzing).
    #[test]
    fn an_unclosed_extracted_s_expression_is_an_error() {
        for line in ["{Item:{pk:\"a\",x:(}}", "{Item:{pk:\"a\",x:(a +"] {
            assert!(read(&[line], &["x"]).is_err(), "{line}");
        }
    }
}
