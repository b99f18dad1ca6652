//! Key designs over loaded items: the key expressions ([`super::keyexpr`]) a load evaluates besides the
//! table's own key — a new partition key (`--key-expr`), up to [`MAX_CANDIDATES`] candidates compared with it
//! (`--compare`), global secondary indexes (`--gsi`), and the attribute calculated sharding hashes
//! (`--shard-by`) — and the figures that compare them.
//!
//! A [`Design`] says what to evaluate; [`Design::roots`] is what a loader must extract from each item (and
//! nothing else, so memory stays bounded by the key sets, not the items). A [`Designer`] takes one item at a
//! time — from a loader, or from [`Items`], the attributes the app keeps so that an edited expression re-keys
//! without reading the file again — and builds one [`KeySet`] per design.
//!
//! GSIs are *sparse*: an item without the index's key attributes is not in the index (AWS developer guide,
//! "Take advantage of sparse indexes"), so it is counted as absent rather than a bad record. A GSI has its
//! own partitions with the same per-partition limits as a table, and when a GSI's writes throttle, the base
//! table's writes throttle with them (AWS developer guide, "Provisioned throughput considerations for Global
//! Secondary Indexes": "If a GSI has insufficient write capacity, write activity on the base table will be
//! throttled").

use std::fmt;

mod designer;
mod figures;
mod items;
#[cfg(test)]
mod tests;

pub use designer::{Designer, Prepared};
pub use figures::{Figures, figures};
pub use items::{Items, MAX_KEPT_VALUES, Rekeyed, Rekeyed1, item_identity};

use super::keyexpr::{AttrPath, Attrs, EvalError, Expr, KeyTuple, Value};
use super::keyset::KeySet;

/// Candidates compared with the current key, at most.
pub const MAX_CANDIDATES: usize = 3;
/// `{random N}` over a record of many writes draws at most this many suffixes and spreads the writes evenly
/// over them (an export's records are one write each, so this only matters for counted lines and CSV rows).
pub const MAX_DRAWS_PER_RECORD: u64 = 256;

/// What a calculated suffix hashes per item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardSource {
    /// The item's sort key (the default when one is loaded: pasted `pk<TAB>sk` lines too).
    SortKey,
    Attr(AttrPath),
}

impl ShardSource {
    pub fn path(&self) -> Option<&AttrPath> {
        match self {
            Self::SortKey => None,
            Self::Attr(p) => Some(p),
        }
    }
}

impl fmt::Display for ShardSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SortKey => f.write_str("the sort key"),
            Self::Attr(p) => write!(f, "{p}"),
        }
    }
}

/// A global secondary index as a key design: its partition key (one to four parts hashed together in order,
/// each an expression, usually one attribute: [`KeyTuple`]), its sort key attributes (none to four, in
/// order), and what it projects. An item without one of the key attributes is not in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsiSpec {
    pub name: String,
    pub key: KeyTuple,
    pub sort_key: Vec<AttrPath>,
    pub projection: Projection,
}

/// What a GSI stores of each item it holds (DescribeTable's `Projection`), which sets the size of its copy and
/// so the write units each base-table write costs it (DYNAMODB-TRAFFIC "Item size" \[AWS\]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Projection {
    /// The whole item.
    #[default]
    All,
    /// The table's and the index's key attributes.
    KeysOnly,
    /// The key attributes and these.
    Include(Vec<String>),
}

impl Projection {
    /// `all`, `keys` (or `keys_only`), `include:a,b` as `--gsi-projection` takes them.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("all") {
            return Ok(Self::All);
        }
        if t.eq_ignore_ascii_case("keys") || t.eq_ignore_ascii_case("keys_only") {
            return Ok(Self::KeysOnly);
        }
        match t.split_once(':') {
            Some((kind, attrs)) if kind.eq_ignore_ascii_case("include") => {
                let attrs: Vec<String> = attrs
                    .split(',')
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .map(str::to_owned)
                    .collect();
                if attrs.is_empty() {
                    return Err(format!("{text:?}: include: names no attributes"));
                }
                Ok(Self::Include(attrs))
            }
            _ => Err(format!(
                "{text:?}: expected all, keys or include:ATTR,ATTR (what the index projects)"
            )),
        }
    }

    /// DynamoDB's name: `ALL`, `KEYS_ONLY`, `INCLUDE`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::All => "ALL",
            Self::KeysOnly => "KEYS_ONLY",
            Self::Include(_) => "INCLUDE",
        }
    }
}

impl GsiSpec {
    /// `NAME=EXPR` as `--gsi` takes it; `EXPR` may be one attribute (`byStatus=status`), an expression, or
    /// up to four of them joined by `+`, a multi-attribute key (`byTenantRegion=tenantId+region`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some((name, expr)) = text.split_once('=') else {
            return Err(format!(
                "{text:?}: expected NAME=EXPR, e.g. byStatus=status, byDay={{createdAt:day}} or \
                 byTenantRegion=tenantId+region"
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("{text:?}: the index name is empty"));
        }
        let expr = expr.trim();
        Ok(Self {
            name: name.to_owned(),
            key: KeyTuple::parse(expr).map_err(|e| format!("{expr:?}: {e}"))?,
            sort_key: Vec::new(),
            projection: Projection::All,
        })
    }

    /// A one-attribute index on `attr` projecting everything (no sort key).
    pub fn on_attribute(name: &str, attr: &str) -> Option<Self> {
        Some(Self {
            name: name.to_owned(),
            key: KeyTuple::one(Expr::attribute(attr)?),
            sort_key: Vec::new(),
            projection: Projection::All,
        })
    }

    /// What reading one logical key of the index back costs (see [`query_note`]).
    pub fn query_note(&self) -> Option<String> {
        query_note(&DesignKind::Gsi(self.name.clone()), &self.key.to_string())
    }
}

/// What reading one logical key of a design back costs in queries, for a key that is not simply read with
/// one: a sharded string key (`{status}#{id:hash 10}`) takes N queries, one per suffix, each reading one
/// partition; a multi-attribute key with the shard as its own partition-key attribute (`status+{id:hash 10}`)
/// takes N queries too, since a Query gives every partition-key attribute by equality (AWS developer guide,
/// GSI.DesignPattern.MultiAttributeKeys: no range or prefix on a partition-key attribute; only the rightmost
/// sort-key attribute a Query names may take a range). Its gain is elsewhere: no string to build or parse,
/// and each attribute keeps its type. `None` for a one-attribute key without suffixes. `expr` is the design's
/// expression as [`DesignKeys::expr`] writes it.
pub fn query_note(kind: &DesignKind, expr: &str) -> Option<String> {
    let key = match kind {
        DesignKind::Gsi(_) => KeyTuple::parse(expr).ok()?,
        _ => KeyTuple::one(parse_key(expr).ok()?),
    };
    let n = key.fan_out();
    if key.is_multi() {
        let names: Vec<String> = key.parts().iter().map(ToString::to_string).collect();
        let reads = if n > 1 {
            format!(
                "{n} queries, one per shard value, each reading one partition (a Query gives every \
                 partition-key attribute by equality, so a shard of its own is read as a string suffix is)"
            )
        } else {
            "one query, giving every partition-key attribute by equality".to_owned()
        };
        Some(format!(
            "{kind}: a multi-attribute key ({}) hashed together; reading one key back takes {reads}; no \
             string to build or parse, each attribute keeps its type (AWS: GSI.DesignPattern.MultiAttributeKeys)",
            names.join(" + ")
        ))
    } else if n > 1 {
        Some(format!(
            "{kind}: a sharded string key; reading one logical key back takes {n} queries, one per suffix, \
             each reading one partition, and the application builds the suffix into the string and parses \
             it out"
        ))
    } else {
        None
    }
}

/// A key design given as an attribute name (`status`) or an expression (`TENANT#{tenantId}`): text without
/// braces is one attribute.
pub fn parse_key(text: &str) -> Result<Expr, String> {
    if !text.contains(['{', '}'])
        && let Some(e) = Expr::attribute(text)
    {
        return Ok(e);
    }
    super::keyexpr::parse(text).map_err(|e| format!("{text:?}: {e}"))
}

/// What a load evaluates besides the table's key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Design {
    /// Keys the items by this expression instead of their partition key attribute (`--key-expr`).
    pub key: Option<Expr>,
    /// Candidates compared with the key (`--compare`), at most [`MAX_CANDIDATES`].
    pub candidates: Vec<Expr>,
    /// Global secondary indexes.
    pub gsis: Vec<GsiSpec>,
    /// What calculated sharding hashes per item (`--shard-by`).
    pub shard_by: Option<ShardSource>,
    /// Seed of `{random N}` draws.
    pub seed: u64,
}

impl Design {
    /// Whether there is nothing to evaluate (the seed alone is nothing).
    pub fn is_empty(&self) -> bool {
        self.key.is_none()
            && self.candidates.is_empty()
            && self.gsis.is_empty()
            && self.shard_by.is_none()
    }

    /// The key expression, when it is all the design evaluates (no candidates, GSIs or `--shard-by`): a
    /// loader then extracts values for the key alone.
    pub fn key_alone(&self) -> Option<&Expr> {
        self.key.as_ref().filter(|_| {
            self.candidates.is_empty() && self.gsis.is_empty() && self.shard_by.is_none()
        })
    }

    /// The top-level attributes every expression of the design reads, sorted, each once: what a loader must
    /// extract from each item.
    pub fn roots(&self) -> Vec<String> {
        let mut roots: Vec<String> = self
            .key
            .iter()
            .chain(&self.candidates)
            .flat_map(Expr::attributes)
            .chain(self.gsis.iter().flat_map(|g| g.key.attributes()))
            .chain(self.gsis.iter().flat_map(|g| g.sort_key.iter().cloned()))
            .chain(self.shard_by.as_ref().and_then(ShardSource::path).cloned())
            .map(|p| p.root().to_owned())
            .chain(self.gsis.iter().flat_map(|g| match &g.projection {
                Projection::Include(attrs) => attrs.clone(),
                _ => Vec::new(),
            }))
            .collect();
        roots.sort();
        roots.dedup();
        roots
    }

    /// Whether any expression draws `{random N}`.
    fn has_random(&self) -> bool {
        self.key
            .iter()
            .chain(&self.candidates)
            .any(Expr::has_random)
            || self.gsis.iter().any(|g| g.key.has_random())
    }

    /// Each candidate, GSI and `shard_by` as a design of its own (same seed), in that order: what the app
    /// re-keys one by one, so one design's bad records do not leave items out of another.
    pub fn singles(&self) -> impl Iterator<Item = Design> + '_ {
        let one = |d: Design| Design {
            seed: self.seed,
            ..d
        };
        self.candidates
            .iter()
            .map(move |c| {
                one(Design {
                    candidates: vec![c.clone()],
                    ..Design::default()
                })
            })
            .chain(self.gsis.iter().map(move |g| {
                one(Design {
                    gsis: vec![g.clone()],
                    ..Design::default()
                })
            }))
            .chain(self.shard_by.iter().map(|p| Design {
                shard_by: Some(p.clone()),
                ..Design::default()
            }))
    }

    /// Checks the design's size limits.
    pub fn validate(&self) -> Result<(), String> {
        if self.candidates.len() > MAX_CANDIDATES {
            return Err(format!(
                "at most {MAX_CANDIDATES} candidates can be compared, not {}",
                self.candidates.len()
            ));
        }
        for (i, g) in self.gsis.iter().enumerate() {
            if self.gsis[..i].iter().any(|o| o.name == g.name) {
                return Err(format!("the index {:?} is given twice", g.name));
            }
        }
        Ok(())
    }
}

/// An item's top-level attributes as a loader extracted them: `values[i]` is the value of `roots[i]`, `None`
/// when the item does not have it.
#[derive(Debug, Clone, Copy)]
pub struct RootValues<'a> {
    pub roots: &'a [String],
    pub values: &'a [Option<Value>],
}

impl Attrs for RootValues<'_> {
    fn get(&self, path: &AttrPath) -> Option<&Value> {
        let root = path.root().as_bytes();
        let i = self
            .roots
            .iter()
            .position(|r| crate::model::bytes::short_eq(r.as_bytes(), root))?;
        self.values
            .get(i)?
            .as_ref()?
            .get_path(&path.segments()[1..])
    }
}

/// What a design is, in the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DesignKind {
    /// The key the keys were loaded by (the partition key attribute or `--key-expr`).
    Current,
    /// A candidate, numbered from 1.
    Candidate(usize),
    Gsi(String),
}

impl fmt::Display for DesignKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Current => f.write_str("current key"),
            Self::Candidate(i) => write!(f, "candidate {i}"),
            Self::Gsi(name) => write!(f, "GSI {name}"),
        }
    }
}

/// The keys one design gives the items.
#[derive(Debug, Clone)]
pub struct DesignKeys {
    pub kind: DesignKind,
    /// The expression, as written back (the current key: the attribute or `--key-expr`).
    pub expr: String,
    /// Queries needed to read back one logical key (see [`Expr::fan_out`]).
    pub fan_out: u64,
    pub keys: KeySet,
    /// Items not in it: a GSI's items without its key attributes, or (under a skip-bad policy, see
    /// [`Designer::skipping_bad`]) the items a candidate could not key.
    pub absent: u64,
    /// A GSI's projection (`None` for the other designs).
    pub projection: Option<Projection>,
}

/// The note for a candidate that could not key `items` items under a skip-bad policy, with the first reason.
pub fn not_keyed_note(items: u64, first: &DesignError) -> String {
    format!(
        "{} `{}` could not key {}, left out of its figures only (first: {})",
        first.kind,
        first.expr,
        crate::model::fmt::plural(items, "item"),
        first.error
    )
}

/// Why a design could not key an item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} `{expr}`: {error}")]
pub struct DesignError {
    pub kind: DesignKind,
    pub expr: String,
    pub error: EvalError,
}
