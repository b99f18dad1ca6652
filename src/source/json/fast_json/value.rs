//! Reading an extracted attribute's value without serde, when it is written the common way.

use base64::Engine as _;

use super::Cursor;
use crate::model::keyexpr::{Scalar, Value};
use crate::source::json::item::Spare;

/// The value of an attribute written the common way, read without serde into `out`: `{"S"|"N"|"B":"…"}`, the
/// sets `{"SS"|"NS"|"BS":["…",…]}` with text without escapes, `{"BOOL":…}` or `{"NULL":…}`. `Some(true)` when
/// read, `Some(false)` when a text is not a valid number or base64 (serde then gives the message), `None` for
/// any other shape (serde reads it; `out` may hold a part read). The span was checked by
/// [`Cursor::skip_value`] or [`Cursor::key_value`] already.
///
/// It writes into its slot rather than returning the value: returned as an `Option<Option<Value>>` and moved
/// into the slot, the value went through the stack in overlapping 16-byte copies whose loads waited on the
/// narrower stores before them (store-forwarding stalls, 5.6 % of `shardlens-bench extract`'s
/// `{pk}#{status}#{tags.0}` samples on four instructions).
///
/// `slot` is the value's slot: its strings and lists are written over the last item's value of the slot
/// ([`Spare::string_in`], [`Spare::list_in`]).
pub(super) fn simple_value(
    span: &[u8],
    spare: &mut Spare,
    slot: usize,
    out: &mut Option<Value>,
) -> Option<bool> {
    let mut c = Cursor { s: span, i: 0 };
    c.expect(b'{')?;
    c.expect(b'"')?;
    let tag = c.plain_str()?;
    c.expect(b':')?;
    let read = match tag {
        b"S" | b"N" | b"B" => {
            c.expect(b'"')?;
            let text = c.plain_text()?;
            if tag == b"S" {
                *out = Some(Value::S(spare.string_in(slot, text)));
                true
            } else {
                *out = scalar(tag, text);
                out.is_some()
            }
        }
        b"SS" | b"NS" | b"BS" => {
            c.expect(b'[')?;
            let mut members = spare.list_in(slot);
            let mut len = 0;
            let mut all = true;
            let mut read = || -> Option<()> {
                if c.close(b']') {
                    return Some(());
                }
                loop {
                    c.expect(b'"')?;
                    let text = c.plain_text()?;
                    if tag[0] == b'S' {
                        spare.member_in(&mut members, len, text);
                        len += 1;
                    } else {
                        match scalar(tag.get(..1)?, text) {
                            Some(v) if len < members.len() => {
                                members[len] = v;
                                len += 1;
                            }
                            Some(v) => {
                                members.push(v);
                                len += 1;
                            }
                            None => all = false,
                        }
                    }
                    match c.next_token()? {
                        b',' => {}
                        b']' => return Some(()),
                        _ => return None,
                    }
                }
            };
            let done = read();
            spare.end_list(&mut members, len);
            // Kept in the slot even when the shape was not the common one: serde then writes over it.
            *out = Some(Value::L(members));
            done?;
            all
        }
        b"BOOL" => {
            *out = Some(Value::Bool(match c.next_token()? {
                b't' => c.literal(b"rue").map(|()| true)?,
                b'f' => c.literal(b"alse").map(|()| false)?,
                _ => return None,
            }));
            true
        }
        b"NULL" => {
            c.skip_value(4)?;
            *out = Some(Value::Null);
            true
        }
        _ => return None,
    };
    c.expect(b'}')?;
    c.skip_ws();
    (c.i == span.len()).then_some(read)
}

/// An item's record as the key built in place reads it ([`scalar_value`], [`plain_scalar_value`]): its bytes,
/// and the same as text when the whole record is valid UTF-8, checked once an item, so that each value's text
/// is cut from it rather than checked on its own (a record that is not valid UTF-8 has each value checked as
/// before: the result is the same either way).
#[derive(Debug, Clone, Copy)]
pub(in crate::source::json) struct Record<'a> {
    bytes: &'a [u8],
    text: Option<&'a str>,
}

impl<'a> Record<'a> {
    pub(in crate::source::json) fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            text: std::str::from_utf8(bytes).ok(),
        }
    }

    /// `bytes[a..b]` as text, `None` when it is not valid UTF-8.
    #[inline]
    fn str(self, (a, b): (usize, usize)) -> Option<&'a str> {
        match self.text {
            // `a` and `b` are next to quotes, so they are character boundaries of valid text.
            Some(text) => text.get(a..b),
            None => std::str::from_utf8(self.bytes.get(a..b)?).ok(),
        }
    }

    fn cursor(self, at: usize) -> Cursor<'a> {
        Cursor {
            s: self.bytes,
            i: at,
        }
    }
}

/// The value at `start..end` of `record` read in place for a key built by [`crate::model::keyexpr::Direct`]:
/// with no `index`, the text of `{"S":"…"}` or `{"N":"…"}`; with one, member `index` of `{"SS":[…]}`. `None` for
/// anything else, a member past the end included: the caller then reads the value with [`simple_value`], which
/// takes each of these spans exactly when this does (the same tokens, every member's text checked alike).
///
/// The cursor reads the whole record from `start`, and the value must end at `end` ([`ends_at`]): every token
/// it takes lies before `end`, so it takes what a cursor over the span alone would, but a string's end is found
/// by `find_special`'s 16-byte lanes, where a span cut after a short value (`{"S":"ACTIVE"}`) left only its
/// byte-wise tail. A compact head (`{"S":`, `{"N":`, `{"SS":`) is compared whole instead of read token by token.
///
/// Measured with `valgrind --tool=callgrind` on `shardlens analyze --key-expr '{pk}#{status}#{tags.0}'` over
/// 200,000 of `shardlens-bench extract`'s lines: the key built in place took 1,815 instructions an item, 1,467
/// of them reading its three values from spans (each string's end found byte by byte, each member's text and
/// each value's checked by the UTF-8 validator on its own); the whole load 1,188 M instructions against the
/// plain load's 822 M. Read from the record, with compact heads compared whole and the record checked once:
/// 1,280 instructions an item, the load 1,084 M; on all 2,000,000 lines, 0.91 -> 0.81 s wall and 1.58 -> 1.45 s
/// of CPU (medians of 11 interleaved runs, a busy host), output identical.
pub(in crate::source::json) fn scalar_value(
    record: Record<'_>,
    start: usize,
    end: usize,
    index: Option<usize>,
) -> Option<Scalar<'_>> {
    let mut c = record.cursor(start);
    let head = record.bytes.get(start..).unwrap_or_default();
    let tag: &[u8] = if head.starts_with(b"{\"S\":") {
        c.i += 5;
        b"S"
    } else if head.starts_with(b"{\"N\":") {
        c.i += 5;
        b"N"
    } else if head.starts_with(b"{\"SS\":") {
        c.i += 6;
        b"SS"
    } else {
        c.expect(b'{')?;
        c.expect(b'"')?;
        let tag = c.plain_str()?;
        c.expect(b':')?;
        tag
    };
    let value = match (tag, index) {
        (b"S" | b"N", None) => {
            c.expect(b'"')?;
            let text = record.str(c.plain_range()?)?;
            if tag == b"S" {
                Scalar::S(text)
            } else {
                Scalar::N(text)
            }
        }
        (b"SS", Some(index)) => {
            c.expect(b'[')?;
            Scalar::S(member_text(&mut c, record, index)?)
        }
        _ => return None,
    };
    c.expect(b'}')?;
    ends_at(record.bytes, c.i, end).then_some(value)
}

/// [`scalar_value`] for a plain JSON value, as the document clients map it (`plain_to_value`): with no `index`, a
/// string without escapes (S) or a number (N, the span's text); with one, member `index` of a list whose members
/// are all such strings. `None` for anything else (the caller then reads the value with `plain_to_value`).
pub(in crate::source::json) fn plain_scalar_value(
    record: Record<'_>,
    start: usize,
    end: usize,
    index: Option<usize>,
) -> Option<Scalar<'_>> {
    let mut c = record.cursor(start);
    let value = match (c.next_token()?, index) {
        (b'"', None) => Scalar::S(record.str(c.plain_range()?)?),
        // The span is the number (checked by the sizer), perhaps with white space after it, as
        // `plain_to_value` reads it.
        (b'-' | b'0'..=b'9', None) => return Some(Scalar::N(record.str((start, end))?)),
        (b'[', Some(index)) => Scalar::S(member_text(&mut c, record, index)?),
        _ => return None,
    };
    ends_at(record.bytes, c.i, end).then_some(value)
}

/// Whether only white space lies from `at` to `end` in `record` (false when `at` is past `end`): a cursor over
/// `record[..end]` would have stopped exactly at its end.
fn ends_at(record: &[u8], at: usize, end: usize) -> bool {
    record.get(at..end).is_some_and(|rest| {
        rest.iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    })
}

/// Member `index` of a list of strings without escapes, its `[` consumed: the cursor is left after its `]`.
/// `None` when a member is anything else, or the list has no such member; every member's text is checked alike
/// (no escape, no control character, valid UTF-8).
fn member_text<'a>(c: &mut Cursor<'a>, record: Record<'a>, index: usize) -> Option<&'a str> {
    let mut found = None;
    if !c.close(b']') {
        for at in 0.. {
            c.expect(b'"')?;
            let text = record.str(c.plain_range()?)?;
            if at == index {
                found = Some(text);
            }
            match c.next_token()? {
                b',' => {}
                b']' => break,
                _ => return None,
            }
        }
    }
    found
}

/// A number (`N`) or binary (`B`) scalar from its text (a string's is taken as it is).
fn scalar(tag: &[u8], text: &str) -> Option<Value> {
    match tag {
        b"N" => Value::number(text).ok(),
        _ => base64::engine::general_purpose::STANDARD
            .decode(text.trim_ascii())
            .ok()
            .map(Value::B),
    }
}
