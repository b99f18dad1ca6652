//! Multi-attribute keys: a global secondary index's key of up to [`MAX_KEY_ATTRIBUTES`] attributes that
//! DynamoDB hashes together (AWS developer guide, "Multi-attribute keys pattern",
//! GSI.DesignPattern.MultiAttributeKeys, November 2025: a GSI's partition key and its sort key may each be
//! up to four attributes).
//!
//! Written `a+b+c`: `+` outside `{…}` separates the attributes, in order, and each part is an attribute name
//! or a key expression as a one-attribute key takes it (`tenantId+{createdAt:day}`). An attribute whose name
//! has a `+` is written in braces (`{a+b}`); a part cannot have a literal `+` (`A+{b}` is the attributes `A`
//! and `b`), and a part that reads no attribute (`{{A}}+{b}`) is refused rather than read as a constant.
//!
//! **\[ours\]** How DynamoDB encodes the tuple before hashing is not public. shardlens keys a tuple by the
//! JSON array of its values' texts, `["OPEN","3"]`, and hashes that with its teaching hash (xxh3-64), so the
//! values are hashed together and in order. The encoding is unambiguous — JSON quotes and escapes each value,
//! so `"a"+"bc"` is `["a","bc"]` and `"ab"+"c"` is `["ab","c"]`, never the same key — and stays readable
//! where a key is shown. A one-attribute key is its value, as before (its hash does not change).

use std::fmt;

use super::{EvalError, Expr, ExprError, ItemSeed, Part, parse};
use crate::model::partition::mix64;

/// Attributes a multi-attribute key has at most: DynamoDB allows up to four partition-key (`HASH`) and four
/// sort-key (`RANGE`) attributes per global secondary index.
pub const MAX_KEY_ATTRIBUTES: usize = 4;

/// A key of one to [`MAX_KEY_ATTRIBUTES`] parts, each an expression (usually one attribute), hashed together
/// in order. Build one with [`KeyTuple::parse`] or [`KeyTuple::one`]; [`fmt::Display`] writes it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyTuple {
    parts: Vec<Expr>,
}

/// Why a multi-attribute key does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TupleError {
    #[error(
        "{0} attributes: a multi-attribute key has at most {MAX_KEY_ATTRIBUTES} (DynamoDB allows up to four partition-key and four sort-key attributes per GSI)"
    )]
    TooMany(usize),
    #[error(
        "attribute {0} of the key is empty (write a+b, each side an attribute or an expression)"
    )]
    EmptyPart(usize),
    #[error("attribute {index} `{text}`: {error}")]
    Part {
        index: usize,
        text: String,
        error: ExprError,
    },
    #[error(
        "attribute {index} `{text}` reads no attribute: `+` separates a multi-attribute key's attributes (write an attribute named with a `+` in braces, as {{a+b}})"
    )]
    NoAttribute { index: usize, text: String },
}

/// `text` split at each `+` outside `{…}` (placeholders and their `` `…` `` quoted names), `{{`/`}}` being
/// literal braces.
fn split_parts(text: &str) -> Vec<&str> {
    #[derive(PartialEq)]
    enum At {
        Text,
        Placeholder,
        Quoted,
    }
    let bytes = text.as_bytes();
    let mut at = At::Text;
    let mut parts = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let (c, next) = (bytes[i], bytes.get(i + 1).copied());
        match at {
            At::Text => match (c, next) {
                (b'{', Some(b'{')) | (b'}', Some(b'}')) => i += 1,
                (b'{', _) => at = At::Placeholder,
                (b'+', _) => {
                    parts.push(&text[start..i]);
                    start = i + 1;
                }
                _ => {}
            },
            At::Placeholder => match c {
                b'`' => at = At::Quoted,
                b'}' => at = At::Text,
                _ => {}
            },
            At::Quoted => match (c, next) {
                (b'`', Some(b'`')) => i += 1,
                (b'`', _) => at = At::Placeholder,
                _ => {}
            },
        }
        i += 1;
    }
    parts.push(&text[start..]);
    parts
}

/// One part: an attribute name (text without braces) or an expression.
fn parse_part(text: &str) -> Result<Expr, ExprError> {
    if !text.contains(['{', '}'])
        && let Some(e) = Expr::attribute(text)
    {
        return Ok(e);
    }
    parse(text)
}

impl KeyTuple {
    /// A one-part key.
    pub fn one(expr: Expr) -> Self {
        Self { parts: vec![expr] }
    }

    /// A key of these parts; `None` when there are none or more than [`MAX_KEY_ATTRIBUTES`].
    pub fn new(parts: Vec<Expr>) -> Option<Self> {
        (1..=MAX_KEY_ATTRIBUTES)
            .contains(&parts.len())
            .then_some(Self { parts })
    }

    /// `a+b+c` (see the module): one part is a one-attribute key as before, several a multi-attribute key.
    pub fn parse(text: &str) -> Result<Self, TupleError> {
        let pieces = split_parts(text);
        if pieces.len() > MAX_KEY_ATTRIBUTES {
            return Err(TupleError::TooMany(pieces.len()));
        }
        let several = pieces.len() > 1;
        let mut parts = Vec::with_capacity(pieces.len());
        for (i, piece) in pieces.into_iter().enumerate() {
            let (index, piece) = (i + 1, piece.trim());
            if several && piece.is_empty() {
                return Err(TupleError::EmptyPart(index));
            }
            let expr = parse_part(piece).map_err(|error| TupleError::Part {
                index,
                text: piece.to_owned(),
                error,
            })?;
            if several && expr.attributes().is_empty() {
                return Err(TupleError::NoAttribute {
                    index,
                    text: piece.to_owned(),
                });
            }
            parts.push(expr);
        }
        Ok(Self { parts })
    }

    pub fn parts(&self) -> &[Expr] {
        &self.parts
    }

    /// Whether the key has more than one attribute.
    pub fn is_multi(&self) -> bool {
        self.parts.len() > 1
    }

    /// The single expression of a one-part key.
    pub fn single(&self) -> Option<&Expr> {
        match self.parts.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The attribute paths the parts read, each once, in order of first use.
    pub fn attributes(&self) -> Vec<super::AttrPath> {
        let mut out: Vec<super::AttrPath> = Vec::new();
        for p in self.parts.iter().flat_map(Expr::attributes) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// Whether a part draws `{random N}`.
    pub fn has_random(&self) -> bool {
        self.parts.iter().any(Expr::has_random)
    }

    /// Queries to read back one logical key: the product of the parts' fan-outs (saturating). A Query gives
    /// every partition-key attribute by equality, so a shard that is its own attribute still takes one
    /// query per value.
    pub fn fan_out(&self) -> u64 {
        self.parts
            .iter()
            .fold(1u64, |acc, p| acc.saturating_mul(p.fan_out()))
    }

    /// Whether a part counts suffixes (`:hash N` or `{random N}`) apart from the others: a shard that is an
    /// attribute of its own, not text glued onto another value.
    pub fn has_shard_attribute(&self) -> bool {
        self.is_multi()
            && self.parts.iter().any(|p| {
                p.fan_out() > 1
                    && p.parts().iter().all(|q| {
                        matches!(
                            q,
                            Part::Random(_)
                                | Part::Attr {
                                    format: super::Format::Hash(_),
                                    ..
                                }
                        )
                    })
            })
    }

    /// The key of one item. See [`Self::eval_into`].
    pub fn eval(
        &self,
        item: &(impl super::Attrs + ?Sized),
        seed: ItemSeed,
    ) -> Result<String, EvalError> {
        let (mut out, mut scratch) = (String::new(), String::new());
        self.eval_into(item, seed, &mut out, &mut scratch)?;
        Ok(out)
    }

    /// Writes the key of one item into `out` (cleared first): a one-part key as [`Expr::eval_into`] writes it,
    /// several parts as [`tuple_text`] of their values (each part checked as a key of its own: not empty, at
    /// most 2048 bytes). `scratch` is a buffer to reuse. A part's `{random N}` draws its own values.
    pub fn eval_into(
        &self,
        item: &(impl super::Attrs + ?Sized),
        seed: ItemSeed,
        out: &mut String,
        scratch: &mut String,
    ) -> Result<(), EvalError> {
        if let Some(one) = self.single() {
            return one.eval_into(item, seed, out);
        }
        out.clear();
        out.push('[');
        for (i, part) in self.parts.iter().enumerate() {
            let seed = ItemSeed::new(seed.seed ^ mix64(i as u64), seed.item);
            part.eval_into(item, seed, scratch)?;
            if i > 0 {
                out.push(',');
            }
            push_json_string(scratch, out);
        }
        out.push(']');
        Ok(())
    }
}

/// **\[ours\]** The key text of a tuple of values: the JSON array of their texts, `["OPEN","3"]` (see the
/// module). Unambiguous: different tuples never give the same text.
pub fn tuple_text<'a>(values: impl IntoIterator<Item = &'a str>, out: &mut String) {
    out.clear();
    out.push('[');
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(v, out);
    }
    out.push(']');
}

/// `value` as a JSON string (quoted and escaped by serde_json).
fn push_json_string(value: &str, out: &mut String) {
    match serde_json::to_string(value) {
        Ok(s) => out.push_str(&s),
        // Serialising a `str` cannot fail; keep the value rather than lose it.
        Err(_) => out.push_str(value),
    }
}

/// Writes the key back: `{a}+{b}`; `KeyTuple::parse(&key.to_string())` gives the key again.
impl fmt::Display for KeyTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}
