//! [`Items`]: the extracted attributes the app keeps, re-keyed without reading the input again.

use super::*;
use crate::model::key::KeyType;
use crate::model::keyexpr::ItemSeed;
use crate::model::partition::{key_hash, mix64};
use crate::model::shard::ShardBy;

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
    /// The item's size and its key attributes' size (DynamoDB's rules), when the load measured them: what a
    /// re-keyed GSI notes as its projected sizes ([`Designer::sized`]). 400 KB items fit in `u32`.
    sized: Option<(u32, u32)>,
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
        self.push_sized(values, (key, sort_key), count, identity, None);
    }

    /// [`Self::push`] with the item's size and its key attributes' size, when the load measured them.
    pub fn push_sized(
        &mut self,
        values: &[Option<Value>],
        (key, sort_key): (u32, Option<(&[u8], KeyType)>),
        count: u64,
        identity: u64,
        sized: Option<(u64, u64)>,
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
            sized: sized.map(|(item, keys)| {
                let fit = |b: u64| u32::try_from(b).unwrap_or(u32::MAX);
                (fit(item), fit(keys))
            }),
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
                designer.sized(rec.sized.map(|(i, k)| (u64::from(i), u64::from(k))));
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
                projection: None,
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
