//! Key expressions: a small language that builds a partition key from an item's attributes, so a key design
//! (`TENANT#{tenantId}#{createdAt:day}`, `BOARD#global#{playerId:hash 10}`) can be tried on loaded items
//! before any application code changes.
//!
//! # The language
//! An expression is literal text with `{…}` placeholders; `{{` and `}}` are literal braces.
//!
//! | placeholder          | gives                                                                        |
//! |----------------------|------------------------------------------------------------------------------|
//! | `{attr}`             | the attribute's text: strings as they are, numbers canonical, binary base64  |
//! | `{address.city}`     | a nested attribute (map keys; a whole number indexes a list: `{tags.0}`)     |
//! | `` {`odd.name`} ``   | a name with characters a bare name cannot have (`.`, `:`, braces, spaces)   |
//! | `{attr:day}`         | the date `YYYY-MM-DD` (UTC) of an ISO-8601 string or an epoch number          |
//! | `{attr:hour}`        | `YYYY-MM-DDTHH` (UTC)                                                        |
//! | `{attr:month}`       | `YYYY-MM` (UTC)                                                              |
//! | `{attr:year}`        | `YYYY` (UTC)                                                                 |
//! | `{attr:first N}`     | the first N characters (characters, not bytes) of the attribute's text      |
//! | `{attr:hash N}`      | a stable hash of the attribute mod N: `0` … `N-1`                            |
//! | `{random N}`         | a random suffix `0` … `N-1` per write (reproducible from a seed)             |
//!
//! Bare attribute names are any characters except white space, `.`, `:`, `{`, `}` and `` ` ``; `` `…` ``
//! quotes any other name (a backtick inside is written twice). White space next to the braces and around `:` is
//! ignored. `{random}` (no count) is the attribute named `random`; `{random N}` is the random suffix.
//!
//! # Dates
//! Strings are read as ISO-8601 / RFC 3339 dates: `2024-05-01`, `2024-05-01T12`, `2024-05-01T12:30`,
//! `2024-05-01T12:30:15.123` (a space may replace the `T`), a time optionally followed by `Z` or an offset
//! (`+02:00`, `+0200`, `-05`). A time with an offset is converted to UTC (`2024-05-01T01:00+02:00` is day
//! `2024-04-30`); a time without one is taken as UTC; a date alone is midnight UTC. Years 0000–9999.
//!
//! Numbers (and strings that are a number) are epoch times, in seconds or milliseconds by magnitude: a value
//! whose absolute value is below 10¹¹ is seconds, anything larger is milliseconds. 10¹¹ seconds is the year
//! 5138 and 10¹¹ milliseconds is March 1973, so every date since 1973 reads right in either unit (DynamoDB TTL
//! attributes are seconds, JavaScript's `Date.now()` milliseconds). Fractions are rounded down. A string of
//! digits is therefore an epoch time, never a basic-format ISO date (`20240501` is seconds: August 1970).
//!
//! # Hash and random
//! `{attr:hash N}` is the *calculated* suffix of AWS's write-sharding guide ("Using write sharding to distribute
//! workloads evenly"): [`key_hash`] (shardlens's teaching hash, xxh3-64) of the attribute's canonical bytes —
//! a string's UTF-8, a number's canonical text, a binary's bytes, `true`/`false` — mod N. All writes of one
//! item share it, so one hot item stays on one shard, and an item is found again with one read when the
//! attribute is known.
//!
//! `{random N}` is the guide's *random* suffix: each write draws its own. A draw depends only on an
//! [`ItemSeed`] (a seed and the item's index in its source), as [`super::shard`] seeds its random suffixes
//! from a seed and the key: re-keying the same items with the same seed gives the same keys, in any order and
//! on any thread. Reading one logical key back takes N queries.
//!
//! # Multi-attribute keys
//! A global secondary index's key may be up to four attributes hashed together ([`KeyTuple`], written
//! `tenantId+region` or `{tenantId}+{createdAt:day}`: `+` outside braces separates them). The language has no
//! other tuple form: text next to a placeholder is string concatenation, and `"a"` glued to `"bc"` is the same
//! key as `"ab"` glued to `"c"`, where the tuple keeps them apart (see [`tuple_text`]).
//!
//! # Values
//! An expression reads an item through [`Attrs`], which maps an [`AttrPath`] to a [`Value`] (DynamoDB's
//! types: `S`, `N` as canonical text, `B`, `BOOL`, `NULL`, `M`, `L`; sets are not key material). Maps of
//! top-level attributes implement it, and so does a slice of `(path, value)` pairs, for loaders that keep only
//! the attributes an expression needs ([`Expr::attributes`]).

use std::fmt::{self, Write as _};
use std::str::FromStr;

use rand::{RngExt as _, SeedableRng as _};
use rand_pcg::Pcg64Mcg;

mod dates;
mod direct;
mod parser;
mod tuple;
mod value;

pub use direct::{Direct, Scalar};
pub use tuple::{KeyTuple, MAX_KEY_ATTRIBUTES, TupleError, tuple_text};
pub use value::{AttrPath, Attrs, Number, Value};

use super::key::MAX_PARTITION_KEY_BYTES;
use super::partition::{key_hash, mix64};
use dates::*;
use parser::Parser;

/// Largest N of `{attr:hash N}` and `{random N}`.
pub const MAX_BUCKETS: u32 = 1_000_000;
/// Largest N of `{attr:first N}`: a partition key has at most 2048 bytes.
pub const MAX_PREFIX: u32 = MAX_PARTITION_KEY_BYTES as u32;

const FORMATS: &str = "day, hour, month, year, first N, hash N";

// ---------------------------------------------------------------------------------------------------------
// Expressions

/// How a placeholder shows its attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The attribute's text.
    Text,
    Day,
    Hour,
    Month,
    Year,
    /// The first N characters.
    First(u32),
    /// [`key_hash`] of the canonical bytes mod N.
    Hash(u32),
}

/// One piece of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text (braces unescaped). Adjacent literal text is one part.
    Text(String),
    Attr {
        path: AttrPath,
        format: Format,
    },
    /// `{random N}`.
    Random(u32),
}

/// A parsed key expression. Build one with [`parse`] (or `str::parse`); [`fmt::Display`] writes it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    parts: Vec<Part>,
}

/// What a `{random N}` draw depends on: a seed and the item's index in its source (its line, record or scan
/// position). Equal seeds give equal draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ItemSeed {
    pub seed: u64,
    pub item: u64,
}

impl ItemSeed {
    pub fn new(seed: u64, item: u64) -> Self {
        Self { seed, item }
    }

    fn rng(self) -> Pcg64Mcg {
        Pcg64Mcg::seed_from_u64(mix64(self.seed ^ mix64(self.item)))
    }
}

/// Why an expression does not parse. The column counts characters from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {kind}")]
pub struct ExprError {
    pub column: usize,
    pub kind: ExprErrorKind,
}

/// The placeholders that take a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    First,
    Hash,
    Random,
}

impl Counted {
    fn syntax(self) -> &'static str {
        match self {
            Self::First => ":first N",
            Self::Hash => ":hash N",
            Self::Random => "{random N}",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Self::First => ":first 3",
            Self::Hash => ":hash 10",
            Self::Random => "{random 10}",
        }
    }

    fn max(self) -> u32 {
        match self {
            Self::First => MAX_PREFIX,
            Self::Hash | Self::Random => MAX_BUCKETS,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprErrorKind {
    #[error(
        "empty expression: write literal text and `{{attribute}}` placeholders, as `USER#{{userId}}`"
    )]
    Empty,
    #[error("unclosed `{{`")]
    Unclosed,
    #[error("`}}` without a `{{` (write `}}}}` for a literal brace)")]
    UnmatchedClose,
    #[error("empty `{{}}`: name an attribute, as `{{pk}}` (write `{{{{}}}}` for literal braces)")]
    EmptyPlaceholder,
    #[error("expected an attribute name, found {0}")]
    MissingName(String),
    #[error("unclosed `` ` `` in an attribute name")]
    UnclosedQuote,
    #[error("expected {expected}, found `{found}`")]
    Unexpected { expected: &'static str, found: char },
    #[error("missing format after `:` ({FORMATS})")]
    MissingFormat,
    #[error("unknown format `:{0}` ({FORMATS})")]
    UnknownFormat(String),
    #[error("`{}` needs a count, as `{}`", .0.syntax(), .0.example())]
    MissingCount(Counted),
    #[error("`{}` needs a whole number N, found `{found}`", .what.syntax())]
    NotACount { what: Counted, found: String },
    #[error("`{}` needs N ≥ 1", .0.syntax())]
    ZeroCount(Counted),
    #[error("`{}` allows N up to {}", .0.syntax(), .0.max())]
    CountTooLarge(Counted),
}

/// Why an expression cannot key one item: a bad record, under the loader's bad-record policy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    #[error("no attribute `{path}`")]
    Missing { path: String },
    #[error("`{path}` is {kind}; a key part needs a string, number, binary or boolean")]
    NotScalar { path: String, kind: &'static str },
    #[error(
        "`{path}` is not a date: {value} (expected ISO-8601, as 2024-05-01T12:00:00Z, or epoch seconds or milliseconds)"
    )]
    NotADate { path: String, value: String },
    #[error("the key is empty")]
    EmptyKey,
    #[error("the key is {len} bytes; DynamoDB allows at most {MAX_PARTITION_KEY_BYTES}")]
    TooLong { len: usize },
}

impl EvalError {
    /// The attribute the error is about, as written in the expression.
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::Missing { path } | Self::NotScalar { path, .. } | Self::NotADate { path, .. } => {
                Some(path)
            }
            Self::EmptyKey | Self::TooLong { .. } => None,
        }
    }
}

/// Parses a key expression.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    Parser::new(text).expression()
}

impl FromStr for Expr {
    type Err = ExprError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s)
    }
}

impl Expr {
    /// The expression `{name}`: a key that is one top-level attribute as it is.
    pub fn attribute(name: &str) -> Option<Self> {
        let path = AttrPath::new(vec![name.to_owned()])?;
        Some(Self {
            parts: vec![Part::Attr {
                path,
                format: Format::Text,
            }],
        })
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The attribute paths the expression reads, each once, in order of first use: what a loader must extract.
    pub fn attributes(&self) -> Vec<AttrPath> {
        let mut out: Vec<AttrPath> = Vec::new();
        for part in &self.parts {
            if let Part::Attr { path, .. } = part
                && !out.contains(path)
            {
                out.push(path.clone());
            }
        }
        out
    }

    /// The attribute name when the expression is just `{name}` (a top-level attribute, as it is): the key a
    /// loader reads without evaluating anything.
    pub fn is_plain_attribute(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [
                Part::Attr {
                    path,
                    format: Format::Text,
                },
            ] if path.segments().len() == 1 => Some(path.root()),
            _ => None,
        }
    }

    /// Whether the expression has a `{random N}`: its keys then depend on the [`ItemSeed`], not only the item.
    pub fn has_random(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Random(_)))
    }

    /// Queries needed to read back everything one logical key (the key without its suffixes) holds: the
    /// product of the `{random N}` and `:hash N` counts (saturating); 1 without suffixes.
    pub fn fan_out(&self) -> u64 {
        self.parts.iter().fold(1u64, |acc, p| match p {
            Part::Random(n)
            | Part::Attr {
                format: Format::Hash(n),
                ..
            } => acc.saturating_mul(u64::from(*n)),
            _ => acc,
        })
    }

    /// The key of one item. See [`Self::eval_into`].
    pub fn eval(&self, item: &(impl Attrs + ?Sized), seed: ItemSeed) -> Result<String, EvalError> {
        let mut out = String::new();
        self.eval_into(item, seed, &mut out)?;
        Ok(out)
    }

    /// Writes the key of one item into `out` (cleared first), so a loader reuses one buffer. The key is a
    /// string key of at most 2048 bytes, not empty.
    pub fn eval_into(
        &self,
        item: &(impl Attrs + ?Sized),
        seed: ItemSeed,
        out: &mut String,
    ) -> Result<(), EvalError> {
        out.clear();
        let mut rng: Option<Pcg64Mcg> = None;
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Random(n) => {
                    let draw = rng.get_or_insert_with(|| seed.rng()).random_range(0..*n);
                    let _ = write!(out, "{draw}");
                }
                Part::Attr { path, format } => {
                    let value = item.get(path).ok_or_else(|| EvalError::Missing {
                        path: path.to_string(),
                    })?;
                    render(value, path, *format, out)?;
                }
            }
        }
        if out.is_empty() {
            return Err(EvalError::EmptyKey);
        }
        if out.len() > MAX_PARTITION_KEY_BYTES {
            return Err(EvalError::TooLong { len: out.len() });
        }
        Ok(())
    }
}

fn render(
    value: &Value,
    path: &AttrPath,
    format: Format,
    out: &mut String,
) -> Result<(), EvalError> {
    let not_scalar = || EvalError::NotScalar {
        path: path.to_string(),
        kind: value.kind(),
    };
    match format {
        Format::Text => out.push_str(&value.text().ok_or_else(not_scalar)?),
        Format::First(n) => push_first(&value.text().ok_or_else(not_scalar)?, n, out),
        Format::Hash(n) => push_hash(value.canonical_bytes().ok_or_else(not_scalar)?, n, out),
        Format::Day | Format::Hour | Format::Month | Format::Year => {
            let t = date_of(value).ok_or_else(|| EvalError::NotADate {
                path: path.to_string(),
                value: describe(value),
            })?;
            let _ = match format {
                Format::Year => write!(out, "{:04}", t.year),
                Format::Month => write!(out, "{:04}-{:02}", t.year, t.month),
                Format::Day => write!(out, "{:04}-{:02}-{:02}", t.year, t.month, t.day),
                _ => write!(
                    out,
                    "{:04}-{:02}-{:02}T{:02}",
                    t.year, t.month, t.day, t.hour
                ),
            };
        }
    }
    Ok(())
}

/// `:first N`: the first `n` characters of `text`.
fn push_first(text: &str, n: u32, out: &mut String) {
    out.extend(text.chars().take(n as usize));
}

/// `:hash N`: [`key_hash`] of the canonical bytes mod `n`.
fn push_hash(bytes: &[u8], n: u32, out: &mut String) {
    let _ = write!(out, "{}", key_hash(bytes) % u64::from(n));
}

/// A value in an error message: strings quoted and cut to 60 characters.
fn describe(value: &Value) -> String {
    const MAX: usize = 60;
    match value {
        Value::S(s) if s.chars().count() > MAX => {
            format!("{:?}…", s.chars().take(MAX).collect::<String>())
        }
        Value::S(s) => format!("{s:?}"),
        Value::N(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.kind().to_owned(),
    }
}

/// Writes the expression back: `parse(&expr.to_string())` gives `expr` again.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.parts {
            match part {
                Part::Text(t) => {
                    for c in t.chars() {
                        match c {
                            '{' => f.write_str("{{")?,
                            '}' => f.write_str("}}")?,
                            c => f.write_char(c)?,
                        }
                    }
                }
                Part::Random(n) => write!(f, "{{random {n}}}")?,
                Part::Attr { path, format } => {
                    write!(f, "{{{path}")?;
                    match format {
                        Format::Text => {}
                        Format::Day => f.write_str(":day")?,
                        Format::Hour => f.write_str(":hour")?,
                        Format::Month => f.write_str(":month")?,
                        Format::Year => f.write_str(":year")?,
                        Format::First(n) => write!(f, ":first {n}")?,
                        Format::Hash(n) => write!(f, ":hash {n}")?,
                    }
                    f.write_char('}')?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
