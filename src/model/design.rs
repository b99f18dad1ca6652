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

use super::decision::{UserAnswers, evaluate};
use super::key::{KeyType, MAX_SORT_KEY_BYTES, canonicalize_into};
use super::keyexpr::{AttrPath, Attrs, EvalError, Expr, ItemSeed, Value};
use super::keyset::KeySet;
use super::partition::key_hash;
use super::shard::mix64;
use super::{ViewSettings, report};

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

/// A global secondary index as a key design: its partition key (an expression, usually one attribute) and
/// optional sort key attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GsiSpec {
    pub name: String,
    pub key: Expr,
    pub sort_key: Option<AttrPath>,
}

impl GsiSpec {
    /// `NAME=EXPR` as `--gsi` takes it; `EXPR` may be one attribute (`byStatus=status`) or an expression.
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some((name, expr)) = text.split_once('=') else {
            return Err(format!(
                "{text:?}: expected NAME=EXPR, e.g. byStatus=status or byDay={{createdAt:day}}"
            ));
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("{text:?}: the index name is empty"));
        }
        Ok(Self {
            name: name.to_owned(),
            key: parse_key(expr.trim())?,
            sort_key: None,
        })
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

    /// The top-level attributes every expression of the design reads, sorted, each once: what a loader must
    /// extract from each item.
    pub fn roots(&self) -> Vec<String> {
        let mut roots: Vec<String> = self
            .key
            .iter()
            .chain(&self.candidates)
            .chain(self.gsis.iter().map(|g| &g.key))
            .flat_map(Expr::attributes)
            .chain(self.gsis.iter().filter_map(|g| g.sort_key.clone()))
            .chain(self.shard_by.as_ref().and_then(ShardSource::path).cloned())
            .map(|p| p.root().to_owned())
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
            .chain(self.gsis.iter().map(|g| &g.key))
            .any(Expr::has_random)
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
        let i = self.roots.iter().position(|r| r == path.root())?;
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
    /// Items not in it: a GSI's items without its key attributes.
    pub absent: u64,
}

/// Per logical key, the hashes of its items' `--shard-by` values with their writes: what calculated sharding
/// by an attribute splits (all writes of one item share the value, so a hot item stays on one shard).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShardBy {
    pub source: Option<ShardSource>,
    /// `(key index, value hash, writes)`, merged and sorted by [`Self::finish`].
    entries: Vec<(u32, u64, u64)>,
    /// Writes whose item has no such attribute (they keep the write-index fallback).
    pub missing: u64,
}

impl ShardBy {
    pub fn new(source: ShardSource) -> Self {
        Self {
            source: Some(source),
            ..Self::default()
        }
    }

    /// Notes `count` writes of key `key` whose attribute value hashes to `hash`.
    pub fn add(&mut self, key: u32, hash: u64, count: u64) {
        self.entries.push((key, hash, count));
    }

    /// Merges equal `(key, hash)` entries and sorts them by key.
    pub fn finish(&mut self) {
        self.entries.sort_unstable_by_key(|&(k, h, _)| (k, h));
        let mut out: Vec<(u32, u64, u64)> = Vec::with_capacity(self.entries.len());
        for &(k, h, c) in &self.entries {
            match out.last_mut() {
                Some(last) if last.0 == k && last.1 == h => last.2 += c,
                _ => out.push((k, h, c)),
            }
        }
        self.entries = out;
    }

    /// Adds another load's entries (key indexes already mapped into this one's key set).
    pub fn absorb(&mut self, other: &Self, map: impl Fn(u32) -> u32) {
        self.entries
            .extend(other.entries.iter().map(|&(k, h, c)| (map(k), h, c)));
        self.missing += other.missing;
    }

    /// Key `key`'s `(value hash, writes)` pairs, once [`Self::finish`]ed.
    pub fn pairs(&self, key: u32) -> impl Iterator<Item = (u64, u64)> + '_ {
        let start = self.entries.partition_point(|e| e.0 < key);
        let end = self.entries.partition_point(|e| e.0 <= key);
        self.entries[start..end].iter().map(|&(_, h, c)| (h, c))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Why a design could not key an item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} `{expr}`: {error}")]
pub struct DesignError {
    pub kind: DesignKind,
    pub expr: String,
    pub error: EvalError,
}

/// Builds each design's keys, one item at a time.
#[derive(Debug, Clone)]
pub struct Designer {
    design: Design,
    seed: u64,
    random: bool,
    candidates: Vec<KeySet>,
    gsis: Vec<(KeySet, u64)>,
    pub shard_by: Option<ShardBy>,
    buf: String,
    sk_buf: Vec<u8>,
}

impl Designer {
    pub fn new(design: &Design) -> Self {
        Self {
            seed: design.seed,
            random: design.has_random(),
            candidates: design
                .candidates
                .iter()
                .map(|_| KeySet::new(KeyType::S))
                .collect(),
            gsis: design
                .gsis
                .iter()
                .map(|_| (KeySet::new(KeyType::S), 0))
                .collect(),
            shard_by: design.shard_by.clone().map(ShardBy::new),
            design: design.clone(),
            buf: String::new(),
            sk_buf: Vec::new(),
        }
    }

    pub fn design(&self) -> &Design {
        &self.design
    }

    /// The partition key `--key-expr` gives `item` (`None` without one), into the designer's buffer.
    pub fn key_of(
        &mut self,
        item: &(impl Attrs + ?Sized),
        identity: u64,
    ) -> Result<Option<&str>, DesignError> {
        let Some(expr) = &self.design.key else {
            return Ok(None);
        };
        expr.eval_into(item, ItemSeed::new(self.seed, identity), &mut self.buf)
            .map_err(|error| DesignError {
                kind: DesignKind::Current,
                expr: expr.to_string(),
                error,
            })?;
        Ok(Some(&self.buf))
    }

    /// Adds one record (`count` writes of one item) to every candidate and GSI, and its `--shard-by` value
    /// under key `key` of the current key set: [`Self::prepare`] then [`Self::commit`].
    pub fn add(
        &mut self,
        item: &(impl Attrs + ?Sized),
        key: u32,
        sort_key: Option<(&[u8], KeyType)>,
        count: u64,
        identity: u64,
    ) -> Result<(), DesignError> {
        let prepared = self.prepare(item, sort_key, count, identity)?;
        self.commit(prepared, key);
        Ok(())
    }

    /// Evaluates every candidate and GSI on one record (`count` writes of one item) without adding anything,
    /// so a bad record leaves every key set as it was. `identity` is a stable number of the item (see
    /// [`item_identity`]), so `{random N}` draws do not depend on the order items arrive in. `sort_key` is
    /// the item's sort key (canonical bytes): candidates keep it; GSIs use their own.
    pub fn prepare(
        &mut self,
        item: &(impl Attrs + ?Sized),
        sort_key: Option<(&[u8], KeyType)>,
        count: u64,
        identity: u64,
    ) -> Result<Prepared, DesignError> {
        let draws = if self.random {
            count.clamp(1, MAX_DRAWS_PER_RECORD)
        } else {
            1
        };
        let mut p = Prepared {
            count,
            sort_key: sort_key.map(|(b, t)| (b.to_vec(), t)),
            ..Prepared::default()
        };
        for (i, expr) in self.design.candidates.iter().enumerate() {
            for (d, writes) in spread(count, draws) {
                expr.eval_into(
                    item,
                    ItemSeed::new(self.seed, mix64(identity ^ d)),
                    &mut self.buf,
                )
                .map_err(|error| DesignError {
                    kind: DesignKind::Candidate(i + 1),
                    expr: expr.to_string(),
                    error,
                })?;
                p.candidates.push((i, self.buf.clone(), writes));
            }
        }
        for (i, g) in self.design.gsis.iter().enumerate() {
            let sk = match &g.sort_key {
                None => None,
                Some(path) => match item.get(path).and_then(scalar_key) {
                    Some((bytes, ty)) => {
                        match canonicalize_into(&bytes, ty, MAX_SORT_KEY_BYTES, &mut self.sk_buf) {
                            Ok(()) => Some((self.sk_buf.clone(), ty)),
                            Err(_) => continue,
                        }
                    }
                    // No sort key attribute (or not of a key type): not in the index.
                    None => continue,
                },
            };
            for (d, writes) in spread(count, draws) {
                match g.key.eval_into(
                    item,
                    ItemSeed::new(self.seed, mix64(identity ^ d)),
                    &mut self.buf,
                ) {
                    Ok(()) => p.gsis.push((i, self.buf.clone(), sk.clone(), writes)),
                    // Sparse: an item without the index's key attribute is not in the index.
                    Err(EvalError::Missing { .. } | EvalError::NotScalar { .. }) => {}
                    Err(error) => {
                        return Err(DesignError {
                            kind: DesignKind::Gsi(g.name.clone()),
                            expr: g.key.to_string(),
                            error,
                        });
                    }
                }
            }
        }
        p.shard_hash = match self.shard_by.as_ref().and_then(|by| by.source.as_ref()) {
            Some(ShardSource::SortKey) => sort_key.map(|(b, _)| key_hash(b)),
            Some(ShardSource::Attr(path)) => item
                .get(path)
                .and_then(Value::canonical_bytes)
                .map(key_hash),
            None => None,
        };
        Ok(p)
    }

    /// Adds a prepared record; `key` is its index in the current key set (for `--shard-by`).
    pub fn commit(&mut self, p: Prepared, key: u32) {
        let sort_key = p.sort_key.as_ref().map(|(b, t)| (b.as_slice(), *t));
        for (i, k, writes) in p.candidates {
            self.candidates[i].add_item(k.as_bytes(), sort_key, writes);
        }
        let mut seen = vec![false; self.gsis.len()];
        for (i, k, sk, writes) in p.gsis {
            seen[i] = true;
            let sk = sk.as_ref().map(|(b, t)| (b.as_slice(), *t));
            self.gsis[i].0.add_item(k.as_bytes(), sk, writes);
        }
        for (i, s) in seen.into_iter().enumerate() {
            if !s {
                self.gsis[i].1 += p.count;
            }
        }
        if let Some(by) = &mut self.shard_by {
            match p.shard_hash {
                Some(h) => by.add(key, h, p.count),
                None => by.missing += p.count,
            }
        }
    }

    /// Adds another designer's keys (same design; key indexes of `--shard-by` mapped by `map`).
    pub fn absorb(&mut self, other: &Self, map: impl Fn(u32) -> u32) {
        for (mine, theirs) in self.candidates.iter_mut().zip(&other.candidates) {
            mine.merge(theirs);
        }
        for (mine, theirs) in self.gsis.iter_mut().zip(&other.gsis) {
            mine.0.merge(&theirs.0);
            mine.1 += theirs.1;
        }
        if let (Some(mine), Some(theirs)) = (&mut self.shard_by, &other.shard_by) {
            mine.absorb(theirs, map);
        }
    }

    /// The candidates' and GSIs' keys, in the design's order.
    pub fn finish(mut self) -> (Vec<DesignKeys>, Option<ShardBy>) {
        let mut out = Vec::new();
        for (i, (expr, keys)) in self
            .design
            .candidates
            .iter()
            .zip(self.candidates)
            .enumerate()
        {
            out.push(DesignKeys {
                kind: DesignKind::Candidate(i + 1),
                expr: expr.to_string(),
                fan_out: expr.fan_out(),
                keys,
                absent: 0,
            });
        }
        for (g, (keys, absent)) in self.design.gsis.iter().zip(self.gsis) {
            out.push(DesignKeys {
                kind: DesignKind::Gsi(g.name.clone()),
                expr: g.key.to_string(),
                fan_out: g.key.fan_out(),
                keys,
                absent,
            });
        }
        if let Some(by) = &mut self.shard_by {
            by.finish();
        }
        (out, self.shard_by)
    }
}

/// A record's entry in a GSI: the index's position, the key, its sort key, the writes.
type GsiEntry = (usize, String, Option<(Vec<u8>, KeyType)>, u64);

/// One record evaluated by [`Designer::prepare`], to add with [`Designer::commit`].
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    count: u64,
    sort_key: Option<(Vec<u8>, KeyType)>,
    candidates: Vec<(usize, String, u64)>,
    gsis: Vec<GsiEntry>,
    shard_hash: Option<u64>,
}

/// `count` writes over `draws` draws: `(draw index, writes)`, the remainder on the first draws.
fn spread(count: u64, draws: u64) -> impl Iterator<Item = (u64, u64)> {
    let (each, extra) = (count / draws, count % draws);
    (0..draws)
        .map(move |d| (d, each + u64::from(d < extra)))
        .filter(|&(_, w)| w > 0)
}

/// A value of a key type, as key text: S as UTF-8, N canonical, B as bytes.
fn scalar_key(value: &Value) -> Option<(Vec<u8>, KeyType)> {
    match value {
        Value::S(s) => Some((s.as_bytes().to_vec(), KeyType::S)),
        Value::N(n) => Some((n.as_str().as_bytes().to_vec(), KeyType::N)),
        Value::B(b) => Some((b.clone(), KeyType::B)),
        _ => None,
    }
}

/// Values the app keeps for loaded items, at most (about 1 GB of small strings).
pub const MAX_KEPT_VALUES: usize = 20_000_000;

/// One kept record: its writes, a stable identity (see [`Designer::add`]), the index of its key among the
/// loaded keys, and its sort key.
#[derive(Debug, Clone)]
struct Record {
    count: u64,
    identity: u64,
    key: u32,
    sort_key: Option<(Box<[u8]>, KeyType)>,
}

/// The extracted attributes of loaded items, kept so that an edited expression re-keys them at once instead
/// of reading the input again. Only the attributes a design read when the items were loaded are here
/// ([`Self::roots`]); an expression that needs another one needs a new load ([`Self::covers`]).
#[derive(Debug, Clone, Default)]
pub struct Items {
    roots: Vec<String>,
    /// Row-major: record `r`'s value of `roots[i]` is `values[r * roots.len() + i]`.
    values: Vec<Option<Value>>,
    records: Vec<Record>,
    /// Whether every item of the load is here (false once [`MAX_KEPT_VALUES`] was reached).
    pub complete: bool,
}

impl Items {
    pub fn new(roots: Vec<String>) -> Self {
        Self {
            roots,
            complete: true,
            ..Self::default()
        }
    }

    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// Items from keys alone (pasted `pk` or `pk<TAB>sk` lines): attributes `pk` and `sk`, one record per
    /// kept sort key (a key's writes spread evenly over them), else one per key.
    pub fn from_keys(keys: &KeySet) -> Self {
        let mut items = Self::new(vec!["pk".to_owned(), "sk".to_owned()]);
        for (idx, _, count) in keys.iter() {
            let pk = Some(Value::S(keys.display(idx).into_owned()));
            let (sks, _) = keys.item_sort_keys(idx);
            let sk_type = keys.sort_key_type().unwrap_or(KeyType::S);
            if sks.is_empty() {
                items.push(&[pk, None], idx, None, count, u64::from(idx));
                continue;
            }
            let n = sks.len() as u64;
            for (j, sk) in sks.iter().enumerate() {
                let writes = count / n + u64::from((j as u64) < count % n);
                if writes == 0 {
                    continue;
                }
                let value = Some(Value::S(String::from_utf8_lossy(sk).into_owned()));
                let identity = item_identity(keys.key_bytes(idx), Some(sk));
                items.push(
                    &[pk.clone(), value],
                    idx,
                    Some((sk, sk_type)),
                    writes,
                    identity,
                );
            }
        }
        items
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether every attribute `design` reads was kept.
    pub fn covers(&self, design: &Design) -> bool {
        self.complete
            && design
                .roots()
                .iter()
                .all(|r| self.roots.binary_search(r).is_ok())
    }

    /// Keeps one record; past [`MAX_KEPT_VALUES`] values the items are marked incomplete and dropped.
    pub fn push(
        &mut self,
        values: &[Option<Value>],
        key: u32,
        sort_key: Option<(&[u8], KeyType)>,
        count: u64,
        identity: u64,
    ) {
        if !self.complete {
            return;
        }
        if self.values.len() + values.len() > MAX_KEPT_VALUES {
            self.complete = false;
            self.values = Vec::new();
            self.records = Vec::new();
            return;
        }
        self.values.extend_from_slice(values);
        self.records.push(Record {
            count,
            identity,
            key,
            sort_key: sort_key.map(|(b, t)| (b.into(), t)),
        });
    }

    /// Adds another load's records, their key indexes mapped by `map`.
    pub fn absorb(&mut self, other: Self, map: impl Fn(u32) -> u32) {
        if !other.complete || self.values.len() + other.values.len() > MAX_KEPT_VALUES {
            self.complete = false;
            self.values = Vec::new();
            self.records = Vec::new();
            return;
        }
        self.values.extend(other.values);
        self.records
            .extend(other.records.into_iter().map(|r| Record {
                key: map(r.key),
                ..r
            }));
    }

    /// Re-keys the kept items by each candidate and GSI of `design` (each on its own, so one candidate's bad
    /// records do not leave out items of another; a record a candidate cannot key is skipped for it and
    /// counted). `design.key` is ignored: the current keys are the loaded ones.
    pub fn rekey(&self, design: &Design) -> Rekeyed {
        let width = self.roots.len();
        let row = |r: usize| RootValues {
            roots: &self.roots,
            values: &self.values[r * width..(r + 1) * width],
        };
        let mut out = Rekeyed::default();
        for single in design.singles() {
            if let Some(one) = self.rekey_plain(&single, &row) {
                out.designs.push(one);
                continue;
            }
            let mut designer = Designer::new(&single);
            let mut skipped = 0;
            let mut first_error = None;
            for (r, rec) in self.records.iter().enumerate() {
                let sk = rec.sort_key.as_ref().map(|(b, t)| (&b[..], *t));
                if let Err(e) = designer.add(&row(r), rec.key, sk, rec.count, rec.identity) {
                    skipped += rec.count;
                    first_error.get_or_insert(e);
                }
            }
            let (keys, shard_by) = designer.finish();
            if let Some(by) = shard_by {
                out.shard_by = Some(by);
            }
            for k in keys {
                out.designs.push(Rekeyed1 {
                    keys: k,
                    skipped,
                    first_error: first_error.clone(),
                });
            }
        }
        // Candidates were numbered 1 in their single designs: number them as in `design`.
        let mut n = 0;
        for d in &mut out.designs {
            if let DesignKind::Candidate(_) = d.keys.kind {
                n += 1;
                d.keys.kind = DesignKind::Candidate(n);
            }
        }
        out
    }
}

impl Items {
    /// [`Items::rekey`]'s common case without the per-record bookkeeping of a [`Designer`]: one candidate
    /// without `{random N}`, each record's key written straight into the key set (measured by `shardlens-bench
    /// preview`: the app re-keys this way on every edit). `None` for any other design.
    fn rekey_plain<'a>(
        &'a self,
        single: &Design,
        row: &dyn Fn(usize) -> RootValues<'a>,
    ) -> Option<Rekeyed1> {
        let [expr] = single.candidates.as_slice() else {
            return None;
        };
        if expr.has_random() || !single.gsis.is_empty() || single.shard_by.is_some() {
            return None;
        }
        let mut keys = KeySet::new(KeyType::S);
        let (mut skipped, mut first_error, mut buf) = (0, None, String::new());
        for (r, rec) in self.records.iter().enumerate() {
            match expr.eval_into(&row(r), ItemSeed::new(single.seed, rec.identity), &mut buf) {
                Ok(()) => {
                    let sk = rec.sort_key.as_ref().map(|(b, t)| (&b[..], *t));
                    keys.add_item(buf.as_bytes(), sk, rec.count);
                }
                Err(error) => {
                    skipped += rec.count;
                    first_error.get_or_insert(DesignError {
                        kind: DesignKind::Candidate(1),
                        expr: expr.to_string(),
                        error,
                    });
                }
            }
        }
        Some(Rekeyed1 {
            keys: DesignKeys {
                kind: DesignKind::Candidate(1),
                expr: expr.to_string(),
                fan_out: expr.fan_out(),
                keys,
                absent: 0,
            },
            skipped,
            first_error,
        })
    }
}

/// One design's keys from [`Items::rekey`], with the records it could not key.
#[derive(Debug, Clone)]
pub struct Rekeyed1 {
    pub keys: DesignKeys,
    /// Writes of records it could not key.
    pub skipped: u64,
    pub first_error: Option<DesignError>,
}

/// What [`Items::rekey`] gives.
#[derive(Debug, Clone, Default)]
pub struct Rekeyed {
    pub designs: Vec<Rekeyed1>,
    pub shard_by: Option<ShardBy>,
}

/// A stable identity of an item from its canonical key bytes (partition key, then sort key): what
/// `{random N}` draws are seeded by, so they do not depend on the order items arrive in.
pub fn item_identity(pk: &[u8], sk: Option<&[u8]>) -> u64 {
    let h = key_hash(pk);
    match sk {
        Some(sk) => mix64(h ^ key_hash(sk).rotate_left(17)),
        None => h,
    }
}

// ---------------------------------------------------------------------------------------------------------
// Comparing designs

/// One row of the comparison: a design's spread and its consequences under the view's workload.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Figures {
    /// "current key", "candidate 2", "GSI byStatus".
    pub design: String,
    pub expr: String,
    /// Writes keyed (a GSI: the writes of items in it).
    pub writes: u64,
    pub distinct_keys: usize,
    /// The hottest partition over the mean partition.
    pub max_over_mean: f64,
    /// The hottest key's share of the writes.
    pub top_key_share: f64,
    pub gini: f64,
    /// Units per second throttled under the view's workload (after its sharding), when it has one.
    pub throttled_units: Option<f64>,
    /// Queries to read one logical key back: the expression's `:hash`/`{random}` fan-out times the view's
    /// shard count where it shards.
    pub read_fan_out: u64,
    /// The decision tree's leaf for this design's keys, or "asks: …" where it stops at a question the data
    /// cannot answer.
    pub leaf: Option<String>,
    /// Items not in it (GSI) or not keyed (bad records skipped).
    pub absent: u64,
    /// Writes per partition (bucket) of the teaching hash, after the view's sharding.
    pub buckets: Vec<u64>,
}

/// The comparison's figures of `designs` (each keys the same items) under `view`. A GSI's workload is the
/// view's writes in proportion to the writes of the items it holds (every write of such an item writes the
/// index too), and no reads (the table's reads go to the table, and the queries of the index are not in the
/// data); the rest of the view applies as it is.
pub fn figures(
    designs: &[(&DesignKeys, u64)],
    base_writes: u64,
    view: &ViewSettings,
    answers: &UserAnswers,
) -> Vec<Figures> {
    designs
        .iter()
        .map(|&(d, absent)| {
            let mut v = view.clone();
            if let (DesignKind::Gsi(_), Some(w)) = (&d.kind, v.workload.as_mut())
                && base_writes > 0
            {
                w.writes_per_sec *= d.keys.total() as f64 / base_writes as f64;
                // The table's reads go to the table; the index's own queries are not in the data.
                w.reads_per_sec = 0.0;
            }
            let r = report(&d.keys, &v);
            let path = evaluate(&r.evidence, answers);
            let throttled = r
                .capacity
                .as_ref()
                .and_then(|c| c.as_ref().ok())
                .map(|c| c.throttled_read_units + c.throttled_write_units);
            Figures {
                design: d.kind.to_string(),
                expr: d.expr.clone(),
                writes: d.keys.total(),
                distinct_keys: d.keys.len(),
                max_over_mean: r.analysis.skew.max_over_mean,
                top_key_share: r.analysis.skew.top_key_share,
                gini: r.analysis.skew.gini,
                throttled_units: throttled,
                read_fan_out: d.fan_out.saturating_mul(u64::from(r.read_fan_out)),
                leaf: Some(match path.leaf {
                    Some(l) => l.title().to_owned(),
                    // Where the tree stops: the question the data cannot answer.
                    None => path
                        .path
                        .last()
                        .map_or_else(|| "-".to_owned(), |s| format!("asks: {}", s.question)),
                }),
                absent: d.absent + absent,
                buckets: r.analysis.buckets.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::shard::{Scope, ShardPlan, Strategy};

    fn item(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    fn s(text: &str) -> Value {
        Value::S(text.to_owned())
    }

    fn expr(text: &str) -> Expr {
        parse_key(text).unwrap()
    }

    /// 100 orders: 90 OPEN, 10 CLOSED, one customer per 10 orders; every 4th has no `region`.
    fn orders() -> Vec<BTreeMap<String, Value>> {
        (0..100)
            .map(|i| {
                let mut it = item(&[
                    ("id", s(&format!("order-{i}"))),
                    ("status", s(if i < 90 { "OPEN" } else { "CLOSED" })),
                    ("customer", s(&format!("c{}", i / 10))),
                ]);
                if i % 4 != 0 {
                    it.insert("region".into(), s("eu"));
                }
                it
            })
            .collect()
    }

    #[test]
    fn candidates_and_sparse_gsis_key_the_same_items() {
        let design = Design {
            candidates: vec![expr("status"), expr("CUST#{customer}")],
            gsis: vec![GsiSpec::parse("byRegion=region").unwrap()],
            ..Design::default()
        };
        assert_eq!(design.roots(), ["customer", "region", "status"]);
        let mut d = Designer::new(&design);
        for (i, it) in orders().iter().enumerate() {
            d.add(it, i as u32, None, 1, i as u64).unwrap();
        }
        let (keys, by) = d.finish();
        assert!(by.is_none());
        assert_eq!(keys.len(), 3);
        assert_eq!(keys[0].kind, DesignKind::Candidate(1));
        assert_eq!(keys[0].keys.len(), 2);
        assert_eq!(keys[0].keys.count(0), 90, "OPEN first");
        assert_eq!(keys[1].keys.len(), 10);
        assert_eq!(keys[1].expr, "CUST#{customer}");
        assert_eq!(keys[2].kind, DesignKind::Gsi("byRegion".into()));
        assert_eq!(keys[2].keys.total(), 75);
        assert_eq!(
            keys[2].absent, 25,
            "items without the index key are not in it"
        );
    }

    #[test]
    fn a_bad_record_changes_no_key_set() {
        let design = Design {
            candidates: vec![expr("status"), expr("{region}")],
            ..Design::default()
        };
        let mut d = Designer::new(&design);
        let err = d.add(&orders()[0], 0, None, 1, 0).unwrap_err();
        assert_eq!(err.kind, DesignKind::Candidate(2));
        assert!(err.to_string().contains("no attribute `region`"), "{err}");
        let (keys, _) = d.finish();
        assert!(
            keys[0].keys.is_empty(),
            "candidate 1 did not keep the record"
        );
    }

    #[test]
    fn a_calculated_suffix_keeps_a_hot_item_on_one_shard() {
        // BOARD#global: one player with 9,000 writes, 100 players with 10.
        let mut keys = KeySet::new(KeyType::S);
        let mut by = ShardBy::new(ShardSource::Attr(
            AttrPath::new(vec!["playerId".into()]).unwrap(),
        ));
        let idx = keys.add(b"BOARD#global", 10_000);
        by.add(idx, key_hash(b"hot-player"), 9_000);
        for p in 0..100 {
            by.add(idx, key_hash(format!("p{p}").as_bytes()), 10);
        }
        by.finish();
        let plan = |strategy| ShardPlan {
            shards: 10,
            strategy,
            scope: Scope::All,
            ..ShardPlan::default()
        };
        let calculated = plan(Strategy::Calculated).apply_by(&keys, Some(&by));
        let biggest = calculated.subkeys.iter().map(|s| s.count).max().unwrap();
        assert!(biggest >= 9_000, "the hot player's shard: {biggest}");
        let total: u64 = calculated.subkeys.iter().map(|s| s.count).sum();
        assert_eq!(total, 10_000);
        let random = plan(Strategy::Random).apply_by(&keys, Some(&by));
        let biggest = random.subkeys.iter().map(|s| s.count).max().unwrap();
        assert!(biggest < 1_200, "random per write spreads it: {biggest}");
        // Without the attribute, calculated falls back to the write index: an even spread.
        let by_index = plan(Strategy::Calculated).apply(&keys);
        assert!(by_index.subkeys.iter().all(|s| s.count < 1_200));
    }

    #[test]
    fn shard_by_the_sort_key_from_a_designer() {
        let design = Design {
            shard_by: Some(ShardSource::SortKey),
            ..Design::default()
        };
        assert!(design.roots().is_empty());
        let mut d = Designer::new(&design);
        let empty = BTreeMap::<String, Value>::new();
        d.add(&empty, 0, Some((b"a", KeyType::S)), 5, 1).unwrap();
        d.add(&empty, 0, Some((b"a", KeyType::S)), 3, 2).unwrap();
        d.add(&empty, 0, Some((b"b", KeyType::S)), 1, 3).unwrap();
        d.add(&empty, 1, None, 4, 4).unwrap();
        let (_, by) = d.finish();
        let by = by.unwrap();
        let mut pairs: Vec<(u64, u64)> = by.pairs(0).collect();
        pairs.sort_by_key(|p| p.1);
        assert_eq!(pairs, [(key_hash(b"b"), 1), (key_hash(b"a"), 8)]);
        assert_eq!(by.missing, 4);
    }

    #[test]
    fn kept_items_rekey_as_the_load_did() {
        let design = Design {
            candidates: vec![expr("{customer}#{status}")],
            gsis: vec![GsiSpec::parse("byRegion=region").unwrap()],
            ..Design::default()
        };
        let roots = design.roots();
        let mut kept = Items::new(roots.clone());
        let mut d = Designer::new(&design);
        for (i, it) in orders().iter().enumerate() {
            let values: Vec<Option<Value>> = roots.iter().map(|r| it.get(r).cloned()).collect();
            kept.push(&values, 0, None, 1, i as u64);
            d.add(it, 0, None, 1, i as u64).unwrap();
        }
        let (loaded, _) = d.finish();
        let again = kept.rekey(&design);
        assert_eq!(again.designs.len(), 2);
        for (a, b) in loaded.iter().zip(&again.designs) {
            assert_eq!(a.kind, b.keys.kind);
            assert_eq!(a.keys.len(), b.keys.keys.len());
            assert_eq!(a.keys.total(), b.keys.keys.total());
            assert_eq!(a.absent, b.keys.absent);
        }
        assert!(kept.covers(&design));
        let other = Design {
            candidates: vec![expr("{id}")],
            ..Design::default()
        };
        assert!(!kept.covers(&other), "`id` was not kept");
        // A candidate over a missing attribute skips every record, and says why.
        let region = Design {
            candidates: vec![expr("R#{region}"), expr("{status}")],
            ..Design::default()
        };
        let r = kept.rekey(&region);
        assert_eq!(r.designs[0].skipped, 25);
        assert!(r.designs[0].first_error.is_some());
        assert_eq!(r.designs[1].keys.kind, DesignKind::Candidate(2));
        assert_eq!(r.designs[1].skipped, 0);
    }

    #[test]
    fn random_draws_do_not_depend_on_order() {
        let design = Design {
            candidates: vec![expr("B#{random 10}")],
            seed: 7,
            ..Design::default()
        };
        let run = |order: &mut dyn Iterator<Item = usize>| {
            let items = orders();
            let mut d = Designer::new(&design);
            for i in order {
                d.add(
                    &items[i],
                    0,
                    None,
                    1,
                    item_identity(format!("{i}").as_bytes(), None),
                )
                .unwrap();
            }
            let (k, _) = d.finish();
            let mut counts: Vec<(String, u64)> = k[0]
                .keys
                .iter()
                .map(|(_, b, c)| (String::from_utf8_lossy(b).into_owned(), c))
                .collect();
            counts.sort();
            counts
        };
        let forward = run(&mut (0..100));
        assert_eq!(forward, run(&mut (0..100).rev()));
        assert!(forward.len() >= 8, "{forward:?}");
        // A record of many writes spreads them over its draws.
        let mut d = Designer::new(&design);
        d.add(&orders()[0], 0, None, 1_000, 1).unwrap();
        let (k, _) = d.finish();
        assert_eq!(k[0].keys.total(), 1_000);
        assert_eq!(k[0].keys.len(), 10);
    }

    #[test]
    fn figures_compare_designs_on_one_scale() {
        let design = Design {
            candidates: vec![expr("status"), expr("{customer}")],
            ..Design::default()
        };
        let mut d = Designer::new(&design);
        for (i, it) in orders().iter().enumerate() {
            d.add(it, 0, None, 1, i as u64).unwrap();
        }
        let (keys, _) = d.finish();
        let rows: Vec<(&DesignKeys, u64)> = keys.iter().map(|k| (k, 0)).collect();
        let view = ViewSettings::default();
        let f = figures(&rows, 100, &view, &UserAnswers::default());
        assert_eq!(f[0].distinct_keys, 2);
        assert!((f[0].top_key_share - 0.9).abs() < 1e-9);
        assert_eq!(f[1].distinct_keys, 10);
        assert!(f[1].gini < f[0].gini, "{} vs {}", f[1].gini, f[0].gini);
        assert_eq!(f[0].read_fan_out, 1);
        assert!(f[0].throttled_units.is_none(), "no workload");
    }

    #[test]
    fn gsi_and_key_text() {
        let g = GsiSpec::parse("byDay={createdAt:day}").unwrap();
        assert_eq!(g.name, "byDay");
        assert_eq!(g.key.to_string(), "{createdAt:day}");
        assert!(GsiSpec::parse("status").unwrap_err().contains("NAME=EXPR"));
        assert!(GsiSpec::parse("=status").is_err());
        assert!(GsiSpec::parse("x={a").unwrap_err().contains("column"));
        assert_eq!(parse_key("status").unwrap().to_string(), "{status}");
        let too_many = Design {
            candidates: vec![expr("a"); 4],
            ..Design::default()
        };
        assert!(too_many.validate().is_err());
    }
}
