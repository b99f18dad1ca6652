//! [`Designer`]: each design's keys, built one record at a time.

use super::*;
use crate::model::item_size::value_size;
use crate::model::key::{KeyType, MAX_SORT_KEY_BYTES, canonicalize_into};
use crate::model::keyexpr::{ItemSeed, tuple_text};
use crate::model::partition::{key_hash, mix64};
use crate::model::shard::ShardBy;

/// Builds each design's keys, one item at a time.
#[derive(Debug, Clone)]
pub struct Designer {
    design: Design,
    seed: u64,
    random: bool,
    candidates: Vec<KeySet>,
    gsis: Vec<(KeySet, u64)>,
    pub shard_by: Option<ShardBy>,
    /// Whether a record a candidate cannot key is left out of that candidate only (counted in its
    /// [`DesignKeys::absent`], the first error kept) instead of failing the record: see [`Self::skipping_bad`].
    skip_bad: bool,
    /// Leading candidates that must key a record even under `skip_bad` (see [`Self::strict_first`]).
    strict: usize,
    /// Per candidate: writes of records it could not key, and the first reason.
    not_keyed: Vec<(u64, Option<DesignError>)>,
    buf: String,
    /// A multi-attribute key's part, one at a time.
    scratch: String,
    sk_buf: Vec<u8>,
    /// The next record's size and its table key attributes' size (see [`Self::sized`]).
    sized: Option<(u64, u64)>,
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
            shard_by: design.shard_by.as_ref().map(|_| ShardBy::default()),
            skip_bad: false,
            strict: 0,
            not_keyed: vec![(0, None); design.candidates.len()],
            design: design.clone(),
            buf: String::new(),
            scratch: String::new(),
            sk_buf: Vec::new(),
            sized: None,
        }
    }

    /// Whether [`Self::prepare`] has nothing to do for any record: no candidates, no GSIs, nothing to collect
    /// for `--shard-by` (a load keyed by a key expression alone). A loader then skips it and [`Self::commit`]:
    /// their empty [`Prepared`] was 1.65 % of `shardlens analyze --key-expr '{pk}#{status}#{tags.0}'`'s samples,
    /// and skipping them takes 3.2 % of its instructions (callgrind, 200,000 export lines: 1.629 -> 1.577 G).
    pub fn is_idle(&self) -> bool {
        self.design.candidates.is_empty()
            && self.gsis.is_empty()
            && (self.shard_by.is_none() || self.design.shard_by.is_none())
    }

    /// The size of the record [`Self::prepare`] reads next (DynamoDB's, [`crate::model::item_size`]) and of
    /// its table key attributes (names and values): each GSI that holds it notes its projected size. `None`
    /// for a record without its whole item (a key list): the indexes get no sizes.
    pub fn sized(&mut self, sizes: Option<(u64, u64)>) -> &mut Self {
        self.sized = sizes;
        self
    }

    /// The size of a GSI's copy of an item (DYNAMODB-TRAFFIC "Item size" \[AWS\]): the whole item (`ALL`), or
    /// the table's and the index's key attributes plus any included ones. **\[ours\]** a set is sized as the
    /// list the design reads it as (3 bytes and 1 a member more than DynamoDB counts).
    fn projected(&self, g: &GsiSpec, item: &(impl Attrs + ?Sized)) -> Option<u64> {
        let (whole, table_keys) = self.sized?;
        let attr = |path: &AttrPath| {
            item.get(path)
                .map_or(0, |v| path.root().len() as u64 + value_size(v))
        };
        Some(match &g.projection {
            Projection::All => whole,
            Projection::KeysOnly | Projection::Include(_) => {
                let mut size = table_keys;
                size += g.key.attributes().iter().map(&attr).sum::<u64>();
                size += g.sort_key.iter().map(&attr).sum::<u64>();
                if let Projection::Include(names) = &g.projection {
                    size += names
                        .iter()
                        .filter_map(|n| AttrPath::new(vec![n.clone()]))
                        .map(|p| attr(&p))
                        .sum::<u64>();
                }
                size.min(whole)
            }
        })
    }

    pub fn design(&self) -> &Design {
        &self.design
    }

    /// Under a skip-bad policy (`--skip-bad`, a live scan): a record one candidate cannot key (an attribute
    /// it names is missing, not a date, …) is left out of that candidate alone and counted there, so the
    /// current key and the other candidates still hold every item, as the app's Key design view does
    /// ([`Items::rekey`]). Without it, such a record is an error for the whole record (the caller stops or
    /// skips it).
    #[must_use]
    pub fn skipping_bad(mut self, skip: bool) -> Self {
        self.skip_bad = skip;
        self
    }

    /// The first `n` candidates stand for the current key (a scan's `--key-expr` is evaluated as candidate 1):
    /// a record one of them cannot key is an error for the whole record even under [`Self::skipping_bad`],
    /// as a record the current key cannot key is a bad record.
    #[must_use]
    pub fn strict_first(mut self, n: usize) -> Self {
        self.strict = n;
        self
    }

    /// Per candidate (in the design's order): writes of records it could not key, and the first reason.
    pub fn not_keyed(&self) -> &[(u64, Option<DesignError>)] {
        &self.not_keyed
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
            // Only candidates and GSIs add the sort key (a copy per item otherwise for nothing).
            sort_key: sort_key
                .filter(|_| !self.design.candidates.is_empty() || !self.gsis.is_empty())
                .map(|(b, t)| (b.to_vec(), t)),
            ..Prepared::default()
        };
        'candidates: for (i, expr) in self.design.candidates.iter().enumerate() {
            for (d, writes) in spread(count, draws) {
                if let Err(error) = expr.eval_into(
                    item,
                    ItemSeed::new(self.seed, mix64(identity ^ d)),
                    &mut self.buf,
                ) {
                    let e = DesignError {
                        kind: DesignKind::Candidate(i + 1),
                        expr: expr.to_string(),
                        error,
                    };
                    if !self.skip_bad || i < self.strict {
                        return Err(e);
                    }
                    // None of this record's draws go to the candidate.
                    p.candidates.retain(|&(j, ..)| j != i);
                    p.not_keyed.push((i, e));
                    continue 'candidates;
                }
                p.candidates.push((i, self.buf.clone(), writes));
            }
        }
        for (i, g) in self.design.gsis.iter().enumerate() {
            // No sort key attribute (or not of a key type): not in the index.
            let Some(sk) = gsi_sort_key(&g.sort_key, item, &mut self.sk_buf, &mut self.scratch)
            else {
                continue;
            };
            for (d, writes) in spread(count, draws) {
                match g.key.eval_into(
                    item,
                    ItemSeed::new(self.seed, mix64(identity ^ d)),
                    &mut self.buf,
                    &mut self.scratch,
                ) {
                    Ok(()) => {
                        let size = self.projected(g, item);
                        p.gsis.push((i, self.buf.clone(), sk.clone(), writes, size));
                    }
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
        // What `--shard-by` hashes is the design's; `self.shard_by` collects the hashes.
        p.shard_hash = match self.shard_by.as_ref().and(self.design.shard_by.as_ref()) {
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
        for (i, e) in p.not_keyed {
            let (writes, first) = &mut self.not_keyed[i];
            *writes += p.count;
            first.get_or_insert(e);
        }
        let mut seen = vec![false; self.gsis.len()];
        for (i, k, sk, writes, size) in p.gsis {
            seen[i] = true;
            let sk = sk.as_ref().map(|(b, t)| (b.as_slice(), *t));
            let idx = self.gsis[i].0.add_item(k.as_bytes(), sk, writes);
            if let Some(size) = size {
                self.gsis[i].0.note_item_bytes(idx, size, writes);
            }
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
        for (mine, theirs) in self.not_keyed.iter_mut().zip(&other.not_keyed) {
            mine.0 += theirs.0;
            if mine.1.is_none() {
                mine.1.clone_from(&theirs.1);
            }
        }
        if let (Some(mine), Some(theirs)) = (&mut self.shard_by, &other.shard_by) {
            mine.absorb(theirs, map);
        }
    }

    /// The candidates' and GSIs' keys, in the design's order.
    pub fn finish(mut self) -> (Vec<DesignKeys>, Option<ShardBy>) {
        let mut out = Vec::new();
        for (i, ((expr, keys), (not_keyed, _))) in self
            .design
            .candidates
            .iter()
            .zip(self.candidates)
            .zip(self.not_keyed)
            .enumerate()
        {
            out.push(DesignKeys {
                kind: DesignKind::Candidate(i + 1),
                expr: expr.to_string(),
                fan_out: expr.fan_out(),
                keys,
                absent: not_keyed,
                projection: None,
            });
        }
        for (g, (keys, absent)) in self.design.gsis.iter().zip(self.gsis) {
            out.push(DesignKeys {
                kind: DesignKind::Gsi(g.name.clone()),
                expr: g.key.to_string(),
                fan_out: g.key.fan_out(),
                keys,
                absent,
                projection: Some(g.projection.clone()),
            });
        }
        if let Some(by) = &mut self.shard_by {
            by.finish();
        }
        (out, self.shard_by)
    }
}

/// A record's entry in a GSI: the index's position, the key, its sort key, the writes, its projected size.
type GsiEntry = (usize, String, Option<(Vec<u8>, KeyType)>, u64, Option<u64>);

/// One record evaluated by [`Designer::prepare`], to add with [`Designer::commit`].
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    count: u64,
    sort_key: Option<(Vec<u8>, KeyType)>,
    candidates: Vec<(usize, String, u64)>,
    gsis: Vec<GsiEntry>,
    /// Candidates that could not key the record (under [`Designer::skipping_bad`]), with why.
    not_keyed: Vec<(usize, DesignError)>,
    shard_hash: Option<u64>,
}

/// `count` writes over `draws` draws: `(draw index, writes)`, the remainder on the first draws.
fn spread(count: u64, draws: u64) -> impl Iterator<Item = (u64, u64)> {
    let (each, extra) = (count / draws, count % draws);
    (0..draws)
        .map(move |d| (d, each + u64::from(d < extra)))
        .filter(|&(_, w)| w > 0)
}

/// A GSI's sort key of one item: `Some(None)` without one, `None` when the item lacks one of its attributes
/// (or one is not of a key type, or too long): then the item is not in the index.
fn gsi_sort_key(
    paths: &[AttrPath],
    item: &(impl Attrs + ?Sized),
    sk_buf: &mut Vec<u8>,
    scratch: &mut String,
) -> Option<Option<(Vec<u8>, KeyType)>> {
    match paths {
        [] => Some(None),
        [path] => {
            let (bytes, ty) = item.get(path).and_then(scalar_key)?;
            canonicalize_into(&bytes, ty, MAX_SORT_KEY_BYTES, sk_buf).ok()?;
            Some(Some((sk_buf.clone(), ty)))
        }
        // A multi-attribute sort key: every attribute, in order, as one tuple text.
        paths => tuple_sort_key(item, paths, scratch).map(|b| Some((b, KeyType::S))),
    }
}

/// A multi-attribute sort key's bytes: the [`tuple_text`] of its attributes' texts (S as it is, N canonical,
/// B base64), in order; `None` when the item lacks one of them, one is not of a key type, is empty or is
/// longer than a sort key may be (then the item is not in the index).
fn tuple_sort_key(
    item: &(impl Attrs + ?Sized),
    paths: &[AttrPath],
    out: &mut String,
) -> Option<Vec<u8>> {
    let mut texts = Vec::with_capacity(paths.len());
    for path in paths {
        let value = item.get(path)?;
        scalar_key(value)?;
        let text = value.text()?;
        if text.is_empty() || text.len() > MAX_SORT_KEY_BYTES {
            return None;
        }
        texts.push(text);
    }
    tuple_text(texts.iter().map(AsRef::as_ref), out);
    Some(out.as_bytes().to_vec())
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
