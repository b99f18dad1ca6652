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
//! # Values
//! An expression reads an item through [`Attrs`], which maps an [`AttrPath`] to a [`Value`] (DynamoDB's
//! types: `S`, `N` as canonical text, `B`, `BOOL`, `NULL`, `M`, `L`; sets are not key material). Maps of
//! top-level attributes implement it, and so does a slice of `(path, value)` pairs, for loaders that keep only
//! the attributes an expression needs ([`Expr::attributes`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::hash::BuildHasher;
use std::str::FromStr;

use base64::Engine as _;
use rand::{RngExt as _, SeedableRng as _};
use rand_pcg::Pcg64Mcg;

use super::key::{Decimal, KeyError, MAX_PARTITION_KEY_BYTES};
use super::partition::key_hash;
use super::shard::mix64;

/// Largest N of `{attr:hash N}` and `{random N}`.
pub const MAX_BUCKETS: u32 = 1_000_000;
/// Largest N of `{attr:first N}`: a partition key has at most 2048 bytes.
pub const MAX_PREFIX: u32 = MAX_PARTITION_KEY_BYTES as u32;

const FORMATS: &str = "day, hour, month, year, first N, hash N";

// ---------------------------------------------------------------------------------------------------------
// Values

/// A DynamoDB number as canonical text (`1`, `1.0` and `1E0` are all `1`); see [`super::key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Number(String);

impl Number {
    /// Parses a number as DynamoDB accepts it (surrounding white space ignored) into its canonical text.
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        Decimal::parse(text.trim().as_bytes()).map(|d| Self(d.to_canonical_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<i64> for Number {
    fn from(v: i64) -> Self {
        Self(v.to_string())
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An attribute value as an expression reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    S(String),
    N(Number),
    /// Bytes; as text, standard base64 (as [`super::key::display_key`] shows binary keys).
    B(Vec<u8>),
    Bool(bool),
    Null,
    M(BTreeMap<String, Value>),
    L(Vec<Value>),
}

impl Value {
    /// A number value from text, canonicalised.
    pub fn number(text: &str) -> Result<Self, KeyError> {
        Number::parse(text).map(Self::N)
    }

    /// The type's name in messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::S(_) => "a string",
            Self::N(_) => "a number",
            Self::B(_) => "binary",
            Self::Bool(_) => "a boolean",
            Self::Null => "NULL",
            Self::M(_) => "a map",
            Self::L(_) => "a list",
        }
    }

    /// The value at `segments` below this one: map keys, or a whole number indexing a list.
    pub fn get_path(&self, segments: &[String]) -> Option<&Value> {
        let mut here = self;
        for seg in segments {
            here = match here {
                Self::M(map) => map.get(seg)?,
                Self::L(list) => list.get(seg.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(here)
    }

    /// The text a placeholder shows; `None` for NULL, maps and lists.
    fn text(&self) -> Option<Cow<'_, str>> {
        match self {
            Self::S(s) => Some(Cow::Borrowed(s)),
            Self::N(n) => Some(Cow::Borrowed(n.as_str())),
            Self::B(b) => Some(Cow::Owned(
                base64::engine::general_purpose::STANDARD.encode(b),
            )),
            Self::Bool(b) => Some(Cow::Borrowed(if *b { "true" } else { "false" })),
            Self::Null | Self::M(_) | Self::L(_) => None,
        }
    }

    /// The bytes `:hash` hashes: as [`super::key`] canonicalises keys (binary as its bytes, not base64).
    fn canonical_bytes(&self) -> Option<&[u8]> {
        match self {
            Self::S(s) => Some(s.as_bytes()),
            Self::N(n) => Some(n.as_str().as_bytes()),
            Self::B(b) => Some(b),
            Self::Bool(b) => Some(if *b { b"true" } else { b"false" }),
            Self::Null | Self::M(_) | Self::L(_) => None,
        }
    }
}

/// A path to an attribute: the top-level name, then map keys (or list indexes) below it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AttrPath(Vec<String>);

impl AttrPath {
    /// A path from its segments; `None` when there are none or one is empty.
    pub fn new(segments: Vec<String>) -> Option<Self> {
        (!segments.is_empty() && segments.iter().all(|s| !s.is_empty())).then_some(Self(segments))
    }

    pub fn segments(&self) -> &[String] {
        &self.0
    }

    /// The top-level attribute name (what a scan's projection or a loader must keep).
    pub fn root(&self) -> &str {
        self.0.first().map_or("", String::as_str)
    }
}

fn is_bare(c: char) -> bool {
    !c.is_whitespace() && !matches!(c, '.' | ':' | '{' | '}' | '`')
}

/// As written in an expression: dotted, with odd names in backticks (`` address.`zip code` ``).
impl fmt::Display for AttrPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            if seg.chars().all(is_bare) {
                f.write_str(seg)?;
            } else {
                write!(f, "`{}`", seg.replace('`', "``"))?;
            }
        }
        Ok(())
    }
}

/// An item as an expression reads it.
pub trait Attrs {
    /// The value at `path`, if the item has one.
    fn get(&self, path: &AttrPath) -> Option<&Value>;
}

fn walk<'a>(top: Option<&'a Value>, path: &AttrPath) -> Option<&'a Value> {
    top?.get_path(path.segments().get(1..).unwrap_or_default())
}

/// Top-level attributes by name.
impl Attrs for BTreeMap<String, Value> {
    fn get(&self, path: &AttrPath) -> Option<&Value> {
        walk(BTreeMap::get(self, path.root()), path)
    }
}

/// Top-level attributes by name.
impl<S: BuildHasher> Attrs for HashMap<String, Value, S> {
    fn get(&self, path: &AttrPath) -> Option<&Value> {
        walk(HashMap::get(self, path.root()), path)
    }
}

/// A map value is an item (its entries the top-level attributes); any other value has no attributes.
impl Attrs for Value {
    fn get(&self, path: &AttrPath) -> Option<&Value> {
        self.get_path(path.segments())
    }
}

/// The values of the paths an expression needs, as a loader that keeps nothing else extracts them.
impl Attrs for [(AttrPath, Value)] {
    fn get(&self, path: &AttrPath) -> Option<&Value> {
        self.iter().find(|(p, _)| p == path).map(|(_, v)| v)
    }
}

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
    Parser {
        chars: text.chars().collect(),
        i: 0,
    }
    .expression()
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
        Format::First(n) => out.extend(
            value
                .text()
                .ok_or_else(not_scalar)?
                .chars()
                .take(n as usize),
        ),
        Format::Hash(n) => {
            let bytes = value.canonical_bytes().ok_or_else(not_scalar)?;
            let _ = write!(out, "{}", key_hash(bytes) % u64::from(n));
        }
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

// ---------------------------------------------------------------------------------------------------------
// Dates

/// An hour of a UTC day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hour {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
}

/// Seconds of 0000-01-01T00:00:00Z and of 10000-01-01T00:00:00Z.
const MIN_EPOCH: i64 = -62_167_219_200;
const END_EPOCH: i64 = 253_402_300_800;
/// At or above this magnitude, an epoch number is milliseconds.
const MILLIS_FROM: f64 = 1e11;

fn date_of(value: &Value) -> Option<Hour> {
    let secs = match value {
        Value::N(n) => epoch_seconds(n.as_str())?,
        Value::S(s) => match Number::parse(s) {
            Ok(n) => epoch_seconds(n.as_str())?,
            Err(_) => iso_seconds(s.trim())?,
        },
        _ => return None,
    };
    if !(MIN_EPOCH..END_EPOCH).contains(&secs) {
        return None;
    }
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    Some(Hour {
        year,
        month,
        day,
        hour: (secs.rem_euclid(86_400) / 3600) as u32,
    })
}

/// Epoch seconds of a canonical number: seconds below 10¹¹ in magnitude, else milliseconds; rounded down.
fn epoch_seconds(canonical: &str) -> Option<i64> {
    let v: f64 = canonical.parse().ok()?;
    let secs = if v.abs() >= MILLIS_FROM {
        (v / 1000.0).floor()
    } else {
        v.floor()
    };
    // Checked against the year range by the caller; this bound only keeps the cast exact.
    (secs.abs() < 1e15).then_some(secs as i64)
}

/// Epoch seconds of an ISO-8601 date or date-time (see the module documentation for the forms).
fn iso_seconds(text: &str) -> Option<i64> {
    let mut c = Cursor {
        b: text.as_bytes(),
        i: 0,
    };
    let year = i64::from(c.digits(4)?);
    c.eat(b'-').then_some(())?;
    let month = c.digits(2)?;
    c.eat(b'-').then_some(())?;
    let day = c.digits(2)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut offset) = (0, 0, 0, 0i64);
    // A time, then `Z` or an offset; a date alone has neither.
    if c.eat(b'T') || c.eat(b't') || c.eat(b' ') {
        hour = c.digits(2)?;
        if c.eat(b':') {
            minute = c.digits(2)?;
            if c.eat(b':') {
                second = c.digits(2)?;
                if c.eat(b'.') || c.eat(b',') {
                    c.digits(1)?;
                    while c.digits(1).is_some() {}
                }
            }
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        if !(c.eat(b'Z') || c.eat(b'z'))
            && let Some(sign) = c.sign()
        {
            let oh = c.digits(2)?;
            let om = if c.eat(b':') {
                c.digits(2)?
            } else {
                c.digits(2).unwrap_or(0)
            };
            if oh > 23 || om > 59 {
                return None;
            }
            offset = sign * i64::from(oh * 3600 + om * 60);
        }
    }
    if c.i != c.b.len() {
        return None;
    }
    Some(
        days_from_civil(year, month, day) * 86_400 + i64::from(hour * 3600 + minute * 60 + second)
            - offset,
    )
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn eat(&mut self, c: u8) -> bool {
        let hit = self.b.get(self.i) == Some(&c);
        self.i += usize::from(hit);
        hit
    }

    fn sign(&mut self) -> Option<i64> {
        if self.eat(b'+') {
            Some(1)
        } else if self.eat(b'-') {
            Some(-1)
        } else {
            None
        }
    }

    /// Exactly `n` ASCII digits.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + n)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(
            digits
                .iter()
                .fold(0, |acc, d| acc * 10 + u32::from(d - b'0')),
        )
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = (if mp < 10 { mp + 3 } else { mp - 9 }) as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

// ---------------------------------------------------------------------------------------------------------
// Parsing

struct Parser {
    chars: Vec<char>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).copied()
    }

    fn column(&self) -> usize {
        self.i + 1
    }

    fn err(&self, kind: ExprErrorKind) -> ExprError {
        ExprError {
            column: self.column(),
            kind,
        }
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }

    fn expression(mut self) -> Result<Expr, ExprError> {
        if self.chars.is_empty() {
            return Err(self.err(ExprErrorKind::Empty));
        }
        let mut parts = Vec::new();
        let mut text = String::new();
        while let Some(c) = self.peek() {
            match (c, self.peek_at(1)) {
                ('{', Some('{')) | ('}', Some('}')) => {
                    text.push(c);
                    self.i += 2;
                }
                ('{', _) => {
                    if !text.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                    }
                    parts.push(self.placeholder()?);
                }
                ('}', _) => return Err(self.err(ExprErrorKind::UnmatchedClose)),
                _ => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Expr { parts })
    }

    /// A placeholder, from its `{` to its `}`.
    fn placeholder(&mut self) -> Result<Part, ExprError> {
        let open = self.column();
        let unclosed = ExprError {
            column: open,
            kind: ExprErrorKind::Unclosed,
        };
        self.i += 1;
        self.skip_ws();
        let part = match self.peek() {
            None => return Err(unclosed),
            Some('}') => {
                return Err(ExprError {
                    column: open,
                    kind: ExprErrorKind::EmptyPlaceholder,
                });
            }
            Some(_) if self.is_random() => {
                self.i += "random".len();
                self.skip_ws();
                Part::Random(self.count(Counted::Random)?)
            }
            Some(_) => {
                let path = self.path()?;
                self.skip_ws();
                let format = if self.peek() == Some(':') {
                    self.i += 1;
                    self.skip_ws();
                    self.format()?
                } else {
                    Format::Text
                };
                Part::Attr { path, format }
            }
        };
        self.skip_ws();
        match self.peek() {
            Some('}') => {
                self.i += 1;
                Ok(part)
            }
            None => Err(unclosed),
            Some(found) => Err(self.err(ExprErrorKind::Unexpected {
                expected: match part {
                    Part::Attr {
                        format: Format::Text,
                        ..
                    } => "`.`, `:` or `}`",
                    _ => "`}`",
                },
                found,
            })),
        }
    }

    /// `random` followed by white space: the random suffix (`{random}` alone is an attribute).
    fn is_random(&self) -> bool {
        "random"
            .chars()
            .enumerate()
            .all(|(k, c)| self.peek_at(k) == Some(c))
            && self.peek_at(6).is_some_and(char::is_whitespace)
    }

    fn path(&mut self) -> Result<AttrPath, ExprError> {
        let mut segments = vec![self.segment()?];
        while self.peek() == Some('.') {
            self.i += 1;
            segments.push(self.segment()?);
        }
        Ok(AttrPath(segments))
    }

    fn segment(&mut self) -> Result<String, ExprError> {
        if self.peek() == Some('`') {
            let quote = self.column();
            self.i += 1;
            let mut name = String::new();
            loop {
                match (self.peek(), self.peek_at(1)) {
                    (None, _) => {
                        return Err(ExprError {
                            column: quote,
                            kind: ExprErrorKind::UnclosedQuote,
                        });
                    }
                    (Some('`'), Some('`')) => {
                        name.push('`');
                        self.i += 2;
                    }
                    (Some('`'), _) => {
                        self.i += 1;
                        break;
                    }
                    (Some(c), _) => {
                        name.push(c);
                        self.i += 1;
                    }
                }
            }
            if name.is_empty() {
                return Err(ExprError {
                    column: quote,
                    kind: ExprErrorKind::MissingName("``".to_owned()),
                });
            }
            return Ok(name);
        }
        let start = self.i;
        while self.peek().is_some_and(is_bare) {
            self.i += 1;
        }
        if self.i == start {
            let found = self
                .peek()
                .map_or_else(|| "the end".to_owned(), |c| format!("`{c}`"));
            return Err(self.err(ExprErrorKind::MissingName(found)));
        }
        Ok(self.chars[start..self.i].iter().collect())
    }

    /// The format after `:` (white space after the colon already skipped).
    fn format(&mut self) -> Result<Format, ExprError> {
        let at = self.column();
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
        {
            self.i += 1;
        }
        let word: String = self.chars[start..self.i].iter().collect();
        let format = match word.to_ascii_lowercase().as_str() {
            "" => {
                return Err(ExprError {
                    column: at,
                    kind: ExprErrorKind::MissingFormat,
                });
            }
            "day" => Format::Day,
            "hour" => Format::Hour,
            "month" => Format::Month,
            "year" => Format::Year,
            "first" => {
                self.skip_ws();
                Format::First(self.count(Counted::First)?)
            }
            "hash" => {
                self.skip_ws();
                Format::Hash(self.count(Counted::Hash)?)
            }
            _ => {
                return Err(ExprError {
                    // The column of the `:`, which the message shows.
                    column: self.chars[..start]
                        .iter()
                        .rposition(|&c| c == ':')
                        .map_or(at, |p| p + 1),
                    kind: ExprErrorKind::UnknownFormat(word),
                });
            }
        };
        Ok(format)
    }

    /// The N of `:first N`, `:hash N` or `{random N}`: 1 to the placeholder's maximum.
    fn count(&mut self, what: Counted) -> Result<u32, ExprError> {
        let at = self.column();
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        {
            self.i += 1;
        }
        let word: String = self.chars[start..self.i].iter().collect();
        let fail = |kind| ExprError { column: at, kind };
        if word.is_empty() {
            return Err(fail(ExprErrorKind::MissingCount(what)));
        }
        if !word.chars().all(|c| c.is_ascii_digit()) {
            return Err(fail(ExprErrorKind::NotACount { what, found: word }));
        }
        match word.parse::<u32>() {
            Ok(0) => Err(fail(ExprErrorKind::ZeroCount(what))),
            Ok(n) if n <= what.max() => Ok(n),
            _ => Err(fail(ExprErrorKind::CountTooLarge(what))),
        }
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
mod tests {
    use super::*;

    fn item(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn s(text: &str) -> Value {
        Value::S(text.to_owned())
    }

    fn n(text: &str) -> Value {
        Value::number(text).unwrap()
    }

    fn eval(expr: &str, item: &BTreeMap<String, Value>) -> Result<String, EvalError> {
        parse(expr).unwrap().eval(item, ItemSeed::default())
    }

    fn err(expr: &str) -> String {
        parse(expr).unwrap_err().to_string()
    }

    #[test]
    fn literals_and_placeholders() {
        let it = item(&[
            ("tenantId", s("acme")),
            ("n", n("007.50")),
            ("blob", Value::B(vec![1, 2, 3])),
            ("ok", Value::Bool(true)),
        ]);
        assert_eq!(eval("TENANT#{tenantId}", &it).unwrap(), "TENANT#acme");
        assert_eq!(eval("{tenantId}", &it).unwrap(), "acme");
        assert_eq!(eval("BOARD#global", &it).unwrap(), "BOARD#global");
        assert_eq!(
            eval("{ tenantId }/{n}/{blob}/{ok}", &it).unwrap(),
            "acme/7.5/AQID/true"
        );
        assert_eq!(eval("{n}", &item(&[("n", n("1E3"))])).unwrap(), "1000");
        let e = parse("A{x}B{y}{x}").unwrap();
        assert_eq!(
            e.parts(),
            [
                Part::Text("A".into()),
                Part::Attr {
                    path: AttrPath(vec!["x".into()]),
                    format: Format::Text
                },
                Part::Text("B".into()),
                Part::Attr {
                    path: AttrPath(vec!["y".into()]),
                    format: Format::Text
                },
                Part::Attr {
                    path: AttrPath(vec!["x".into()]),
                    format: Format::Text
                },
            ]
        );
        let names: Vec<String> = e.attributes().iter().map(ToString::to_string).collect();
        assert_eq!(names, ["x", "y"]);
        assert_eq!(e.fan_out(), 1);
        assert!(!e.has_random());
    }

    #[test]
    fn plain_attribute() {
        assert_eq!(parse("{pk}").unwrap().is_plain_attribute(), Some("pk"));
        assert_eq!(parse(" {  pk } ").unwrap().is_plain_attribute(), None);
        assert_eq!(parse("{ pk }").unwrap().is_plain_attribute(), Some("pk"));
        assert_eq!(parse("{pk:day}").unwrap().is_plain_attribute(), None);
        assert_eq!(parse("{a.b}").unwrap().is_plain_attribute(), None);
        assert_eq!(parse("x{pk}").unwrap().is_plain_attribute(), None);
        assert_eq!(parse("{random 3}").unwrap().is_plain_attribute(), None);
        assert_eq!(
            parse("{random}").unwrap().is_plain_attribute(),
            Some("random")
        );
        let e = Expr::attribute("user id").unwrap();
        assert_eq!(e.is_plain_attribute(), Some("user id"));
        assert_eq!(e.to_string(), "{`user id`}");
        assert_eq!(parse(&e.to_string()).unwrap(), e);
        assert_eq!(Expr::attribute(""), None);
    }

    #[test]
    fn nested_paths() {
        let address = Value::M(
            [
                ("city".to_owned(), s("Oslo")),
                ("zip code".to_owned(), n("0150")),
            ]
            .into_iter()
            .collect(),
        );
        let it = item(&[
            ("address", address),
            ("tags", Value::L(vec![s("red"), s("blue")])),
            ("a.b", s("dotted")),
        ]);
        assert_eq!(eval("{address.city}", &it).unwrap(), "Oslo");
        assert_eq!(eval("{address.`zip code`}", &it).unwrap(), "150");
        assert_eq!(eval("{tags.1}", &it).unwrap(), "blue");
        assert_eq!(eval("{`a.b`}", &it).unwrap(), "dotted");
        assert_eq!(
            eval("{tags.2}", &it).unwrap_err(),
            EvalError::Missing {
                path: "tags.2".into()
            }
        );
        assert_eq!(
            eval("{address.city.x}", &it).unwrap_err().to_string(),
            "no attribute `address.city.x`"
        );
        let e = parse("{address.city}#{address.`zip code`}#{address.city:first 1}").unwrap();
        let paths = e.attributes();
        assert_eq!(paths.len(), 2);
        assert_eq!(paths[0].segments(), ["address", "city"]);
        assert_eq!(paths[1].root(), "address");
        assert_eq!(paths[1].to_string(), "address.`zip code`");

        // A loader that keeps only the needed paths, and an item given as a map value, key the same.
        let picked: Vec<(AttrPath, Value)> = paths
            .iter()
            .map(|p| (p.clone(), Attrs::get(&it, p).unwrap().clone()))
            .collect();
        let as_value = Value::M(it.clone());
        let from_map = e.eval(&it, ItemSeed::default()).unwrap();
        assert_eq!(from_map, "Oslo#150#O");
        assert_eq!(
            e.eval(picked.as_slice(), ItemSeed::default()).unwrap(),
            from_map
        );
        assert_eq!(e.eval(&as_value, ItemSeed::default()).unwrap(), from_map);
        let hashed: HashMap<String, Value> = it.clone().into_iter().collect();
        assert_eq!(e.eval(&hashed, ItemSeed::default()).unwrap(), from_map);
    }

    #[test]
    fn dates_from_iso_strings() {
        let cases = [
            // (value, day, hour, month, year)
            (
                "2024-05-01",
                "2024-05-01",
                "2024-05-01T00",
                "2024-05",
                "2024",
            ),
            (
                "2024-05-01T13:45:10Z",
                "2024-05-01",
                "2024-05-01T13",
                "2024-05",
                "2024",
            ),
            (
                "2024-05-01T13:45:10.123456z",
                "2024-05-01",
                "2024-05-01T13",
                "2024-05",
                "2024",
            ),
            (
                "2024-05-01 13:45",
                "2024-05-01",
                "2024-05-01T13",
                "2024-05",
                "2024",
            ),
            (
                "2024-05-01T13",
                "2024-05-01",
                "2024-05-01T13",
                "2024-05",
                "2024",
            ),
            // No offset: UTC.
            (
                "2024-05-01T23:59:59",
                "2024-05-01",
                "2024-05-01T23",
                "2024-05",
                "2024",
            ),
            // Offsets convert to UTC, across a day, a month and a year.
            (
                "2024-05-01T01:00:00+02:00",
                "2024-04-30",
                "2024-04-30T23",
                "2024-04",
                "2024",
            ),
            (
                "2023-12-31T22:30:00-0530",
                "2024-01-01",
                "2024-01-01T04",
                "2024-01",
                "2024",
            ),
            (
                "2024-01-01T00:00+01",
                "2023-12-31",
                "2023-12-31T23",
                "2023-12",
                "2023",
            ),
            (
                "2024-02-29T12:00:00,5+00:00",
                "2024-02-29",
                "2024-02-29T12",
                "2024-02",
                "2024",
            ),
            (
                " 1999-12-31 ",
                "1999-12-31",
                "1999-12-31T00",
                "1999-12",
                "1999",
            ),
        ];
        for (value, day, hour, month, year) in cases {
            let it = item(&[("t", s(value))]);
            assert_eq!(eval("{t:day}", &it).unwrap(), day, "{value}");
            assert_eq!(eval("{t:hour}", &it).unwrap(), hour, "{value}");
            assert_eq!(eval("{t:month}", &it).unwrap(), month, "{value}");
            assert_eq!(eval("{t:year}", &it).unwrap(), year, "{value}");
        }
        assert_eq!(
            eval("ORDERS#{t:day}", &item(&[("t", s("2024-05-01T10:00:00Z"))])).unwrap(),
            "ORDERS#2024-05-01"
        );
    }

    #[test]
    fn dates_from_epoch_seconds_and_milliseconds() {
        // 1714567890 s = 2024-05-01T12:51:30Z.
        for v in [
            n("1714567890"),
            n("1714567890.999"),
            n("1714567890123"),
            s("1714567890"),
            s("1714567890123"),
        ] {
            let it = item(&[("t", v.clone())]);
            assert_eq!(eval("{t:hour}", &it).unwrap(), "2024-05-01T12", "{v:?}");
            assert_eq!(eval("{t:day}", &it).unwrap(), "2024-05-01", "{v:?}");
            assert_eq!(eval("{t:month}", &it).unwrap(), "2024-05", "{v:?}");
            assert_eq!(eval("{t:year}", &it).unwrap(), "2024", "{v:?}");
        }
        let day = |v: Value| eval("{t:day}", &item(&[("t", v)])).unwrap();
        assert_eq!(day(n("0")), "1970-01-01");
        assert_eq!(day(n("-1")), "1969-12-31");
        assert_eq!(day(n("86400")), "1970-01-02");
        // The boundary: below 10^11 is seconds (year 5138), from 10^11 milliseconds (March 1973).
        assert_eq!(day(n("99999999999")), "5138-11-16");
        assert_eq!(day(n("100000000000")), "1973-03-03");
        assert_eq!(day(n("-100000000000")), "1966-10-31");
        // Leap days and century rules.
        assert_eq!(day(s("2000-02-29")), "2000-02-29");
        assert_eq!(day(n("951782400")), "2000-02-29");
        assert_eq!(day(n("4107542400")), "2100-03-01");
    }

    #[test]
    fn values_that_are_not_dates() {
        for v in [
            s("yesterday"),
            s("2024-13-01"),
            s("2023-02-29"),
            s("2024-04-31"),
            s("2024-05-01T24:00"),
            s("2024-05-01T12:60"),
            s("2024-05-01T12:00+25:00"),
            s("2024-5-1"),
            s("2024-05-01T"),
            s("2024-05-01T12:00:00.Z"),
            s("2024-05-01Z"),
            s("2024-05-01+02:00"),
            s("2024-05-01T10:00Z+01:00"),
            s("2024-05-01T10:00+02:0"),
            s("2024-05-01Tnoon"),
            s(""),
            n("1E+20"),
            Value::Bool(true),
            Value::B(vec![1]),
            Value::Null,
        ] {
            let it = item(&[("t", v.clone())]);
            let e = eval("{t:day}", &it).unwrap_err();
            assert!(matches!(e, EvalError::NotADate { .. }), "{v:?}: {e}");
            assert_eq!(e.path(), Some("t"));
        }
        assert_eq!(
            eval("{t:day}", &item(&[("t", s("yesterday"))]))
                .unwrap_err()
                .to_string(),
            "`t` is not a date: \"yesterday\" (expected ISO-8601, as 2024-05-01T12:00:00Z, or epoch seconds \
             or milliseconds)"
        );
        let long = "x".repeat(100);
        let msg = eval("{t:year}", &item(&[("t", s(&long))]))
            .unwrap_err()
            .to_string();
        assert!(msg.contains(&format!("\"{}\"…", "x".repeat(60))), "{msg}");
        assert!(!msg.contains(&"x".repeat(61)), "{msg}");
    }

    #[test]
    fn first_n_counts_characters() {
        let it = item(&[
            ("name", s("Åsa-Öberg")),
            ("emoji", s("🎮🎲x")),
            ("n", n("12345.5")),
            ("short", s("ab")),
        ]);
        assert_eq!(eval("{name:first 3}", &it).unwrap(), "Åsa");
        assert_eq!(eval("{emoji:first 2}", &it).unwrap(), "🎮🎲");
        assert_eq!(eval("{n:first 3}", &it).unwrap(), "123");
        assert_eq!(eval("{short:first 10}", &it).unwrap(), "ab");
        assert_eq!(eval("{ name : first   1 }", &it).unwrap(), "Å");
    }

    #[test]
    fn hash_n_is_stable_in_range_and_even() {
        let e = parse("BOARD#global#{playerId:hash 10}").unwrap();
        assert_eq!(e.fan_out(), 10);
        let key = |v: Value| {
            e.eval(&item(&[("playerId", v)]), ItemSeed::default())
                .unwrap()
        };
        // Stable: pinned values, and the teaching hash of the canonical bytes.
        assert_eq!(
            key(s("player-1")),
            format!("BOARD#global#{}", key_hash(b"player-1") % 10)
        );
        assert_eq!(key(s("player-1")), "BOARD#global#8");
        assert_eq!(key(n("42")), "BOARD#global#3");
        // One number, every spelling: one suffix.
        assert_eq!(key(n("42")), key(n("4.2E1")));
        assert_eq!(key(n("42")), key(n("042.0")));
        // Binary hashes its bytes.
        assert_eq!(
            key(Value::B(vec![1, 2, 3])),
            format!("BOARD#global#{}", key_hash(&[1, 2, 3]) % 10)
        );
        // In range and roughly even over 10,000 values.
        let mut buckets = [0u32; 10];
        for i in 0..10_000 {
            let k = key(s(&format!("player-{i}")));
            let b: usize = k.trim_start_matches("BOARD#global#").parse().unwrap();
            buckets[b] += 1;
        }
        for (b, &c) in buckets.iter().enumerate() {
            assert!((850..=1150).contains(&c), "bucket {b}: {c} of 10000");
        }
        assert_eq!(
            eval("{x:hash 1}", &item(&[("x", s("anything"))])).unwrap(),
            "0"
        );
    }

    #[test]
    fn random_n_is_reproducible_and_varies() {
        let e = parse("BOARD#global#{random 10}").unwrap();
        assert!(e.has_random());
        assert_eq!(e.fan_out(), 10);
        assert!(e.attributes().is_empty());
        let empty = BTreeMap::new();
        let keys = |seed: u64| -> Vec<String> {
            (0..1000)
                .map(|i| e.eval(&empty, ItemSeed::new(seed, i)).unwrap())
                .collect()
        };
        let a = keys(7);
        assert_eq!(a, keys(7), "one seed, the same keys");
        assert_ne!(a, keys(8), "another seed, other keys");
        // Order does not matter: item 500 alone gets the key it got in the run.
        assert_eq!(e.eval(&empty, ItemSeed::new(7, 500)).unwrap(), a[500]);
        let mut counts = [0u32; 10];
        for k in &a {
            let s: usize = k.trim_start_matches("BOARD#global#").parse().unwrap();
            counts[s] += 1;
        }
        assert!(
            counts.iter().all(|&c| (50..=150).contains(&c)),
            "{counts:?}"
        );
        // Two draws in one expression are not the same draw.
        let two = parse("{random 1000}-{random 1000}").unwrap();
        let same = (0..100)
            .filter(|&i| {
                let k = two.eval(&empty, ItemSeed::new(1, i)).unwrap();
                let (x, y) = k.split_once('-').unwrap();
                x == y
            })
            .count();
        assert!(same < 5, "{same}");
        assert_eq!(two.fan_out(), 1_000_000);
        assert_eq!(
            parse("{random 1}")
                .unwrap()
                .eval(&empty, ItemSeed::new(3, 4))
                .unwrap(),
            "0"
        );
    }

    #[test]
    fn braces_escape() {
        let it = item(&[("x", s("v"))]);
        assert_eq!(eval("{{x}}", &it).unwrap(), "{x}");
        assert_eq!(eval("{{{x}}}", &it).unwrap(), "{v}");
        assert_eq!(eval("a}}b{{", &it).unwrap(), "a}b{");
        assert_eq!(parse("{{}}").unwrap().parts(), [Part::Text("{}".into())]);
        assert!(parse("{{x}}").unwrap().attributes().is_empty());
    }

    #[test]
    fn parse_errors_name_the_column() {
        let cases = [
            (
                "",
                "column 1: empty expression: write literal text and `{attribute}` placeholders, as `USER#{userId}`",
            ),
            ("{", "column 1: unclosed `{`"),
            ("USER#{userId", "column 6: unclosed `{`"),
            ("a{b:day", "column 2: unclosed `{`"),
            (
                "a}b",
                "column 2: `}` without a `{` (write `}}` for a literal brace)",
            ),
            (
                "x{}",
                "column 2: empty `{}`: name an attribute, as `{pk}` (write `{{}}` for literal braces)",
            ),
            (
                "{ }",
                "column 1: empty `{}`: name an attribute, as `{pk}` (write `{{}}` for literal braces)",
            ),
            (
                "TENANT#{ts:dya}",
                "column 11: unknown format `:dya` (day, hour, month, year, first N, hash N)",
            ),
            (
                "TENANT#{ts: first3}",
                "column 11: unknown format `:first3` (day, hour, month, year, first N, hash N)",
            ),
            (
                "{ts:}",
                "column 5: missing format after `:` (day, hour, month, year, first N, hash N)",
            ),
            ("{:day}", "column 2: expected an attribute name, found `:`"),
            ("{a..b}", "column 4: expected an attribute name, found `.`"),
            ("{a.}", "column 4: expected an attribute name, found `}`"),
            ("{a.", "column 4: expected an attribute name, found the end"),
            ("{``}", "column 2: expected an attribute name, found ``"),
            ("{`abc}", "column 2: unclosed `` ` `` in an attribute name"),
            ("{a b}", "column 4: expected `.`, `:` or `}`, found `b`"),
            ("{a{b}}", "column 3: expected `.`, `:` or `}`, found `{`"),
            ("{a:day x}", "column 8: expected `}`, found `x`"),
            ("{random 0}", "column 9: `{random N}` needs N ≥ 1"),
            (
                "{random }",
                "column 9: `{random N}` needs a count, as `{random 10}`",
            ),
            (
                "{random ten}",
                "column 9: `{random N}` needs a whole number N, found `ten`",
            ),
            (
                "{random -1}",
                "column 9: `{random N}` needs a whole number N, found `-1`",
            ),
            (
                "{random 1000001}",
                "column 9: `{random N}` allows N up to 1000000",
            ),
            (
                "{random 99999999999}",
                "column 9: `{random N}` allows N up to 1000000",
            ),
            (
                "{a:first}",
                "column 9: `:first N` needs a count, as `:first 3`",
            ),
            ("{a:first 0}", "column 10: `:first N` needs N ≥ 1"),
            (
                "{a:first 2.5}",
                "column 10: `:first N` needs a whole number N, found `2.5`",
            ),
            (
                "{a:first 2049}",
                "column 10: `:first N` allows N up to 2048",
            ),
            ("{a:hash 0}", "column 9: `:hash N` needs N ≥ 1"),
            (
                "{a:hash}",
                "column 8: `:hash N` needs a count, as `:hash 10`",
            ),
            (
                "{a:hash 10 }x}",
                "column 14: `}` without a `{` (write `}}` for a literal brace)",
            ),
            // Columns count characters, not bytes.
            (
                "ÅÖ#{ts:dya}",
                "column 7: unknown format `:dya` (day, hour, month, year, first N, hash N)",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(err(text), message, "{text:?}");
        }
        assert_eq!(parse("ab{").unwrap_err().column, 3);
        assert_eq!(
            parse("{random 0}").unwrap_err().kind,
            ExprErrorKind::ZeroCount(Counted::Random)
        );
        assert!("{pk}".parse::<Expr>().is_ok());
    }

    #[test]
    fn missing_and_unusable_attributes() {
        let it = item(&[
            ("tenantId", s("acme")),
            ("gone", Value::Null),
            ("m", Value::M(BTreeMap::new())),
            ("l", Value::L(vec![])),
            ("empty", s("")),
        ]);
        let e = eval("TENANT#{tenantId}#{createdAt:day}", &it).unwrap_err();
        assert_eq!(
            e,
            EvalError::Missing {
                path: "createdAt".into()
            }
        );
        assert_eq!(e.to_string(), "no attribute `createdAt`");
        assert_eq!(e.path(), Some("createdAt"));
        assert_eq!(
            eval("{gone}", &it).unwrap_err().to_string(),
            "`gone` is NULL; a key part needs a string, number, binary or boolean"
        );
        assert!(matches!(
            eval("{m:hash 3}", &it),
            Err(EvalError::NotScalar { kind: "a map", .. })
        ));
        assert!(matches!(
            eval("{l:first 2}", &it),
            Err(EvalError::NotScalar { kind: "a list", .. })
        ));
        assert_eq!(eval("{empty}", &it), Err(EvalError::EmptyKey));
        assert_eq!(eval("x{empty}", &it).unwrap(), "x");
        let long = item(&[("x", s(&"é".repeat(1025)))]);
        assert_eq!(eval("{x}", &long), Err(EvalError::TooLong { len: 2050 }));
        assert_eq!(eval("{x:first 1024}", &long).unwrap().len(), 2048);
        // The buffer is reused and cleared.
        let expr = parse("K#{tenantId}").unwrap();
        let mut out = "stale".to_owned();
        expr.eval_into(&it, ItemSeed::default(), &mut out).unwrap();
        assert_eq!(out, "K#acme");
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "TENANT#{tenantId}#{createdAt:day}",
            "BOARD#global#{playerId:hash 10}",
            "{a:hour}{b:month}{c:year}{d:first 3}",
            "{random 7}",
            "{random}",
            "{random:day}",
            "{{literal}} and {{{x}}}",
            "{address.city}",
            "{address.`zip code`}#{`a.b`}#{`back``tick`}#{`{}`}",
            "ÅÖ#{é}",
            "plain text",
        ] {
            let e = parse(text).unwrap();
            assert_eq!(e.to_string(), text, "{text}");
            assert_eq!(parse(&e.to_string()).unwrap(), e, "{text}");
        }
        // White space and case are normalised, the meaning kept.
        let e = parse("{ a : HASH  4 }-{random   2}").unwrap();
        assert_eq!(e.to_string(), "{a:hash 4}-{random 2}");
        assert_eq!(parse(&e.to_string()).unwrap(), e);
        let odd = parse("{`back``tick`}").unwrap();
        assert_eq!(odd.attributes()[0].segments(), ["back`tick"]);
    }
}
