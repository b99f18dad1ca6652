//! What an expression reads: DynamoDB values, attribute paths, and the [`Attrs`] an item offers.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Write as _};
use std::hash::BuildHasher;

use base64::Engine as _;

use super::super::key::{Decimal, KeyError};

// ---------------------------------------------------------------------------------------------------------
// Values

/// A DynamoDB number as canonical text (`1`, `1.0` and `1E0` are all `1`); see [`crate::model::key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Number(pub(super) String);

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
    /// Bytes; as text, standard base64 (as [`crate::model::key::display_key`] shows binary keys).
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
    pub fn text(&self) -> Option<Cow<'_, str>> {
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

    /// The bytes `:hash` (and calculated sharding by an attribute) hashes: as [`crate::model::key`] canonicalises
    /// keys (binary as its bytes, not base64).
    pub fn canonical_bytes(&self) -> Option<&[u8]> {
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
pub struct AttrPath(pub(super) Vec<String>);

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

pub(super) fn is_bare(c: char) -> bool {
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

pub(super) fn walk<'a>(top: Option<&'a Value>, path: &AttrPath) -> Option<&'a Value> {
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
