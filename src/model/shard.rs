//! Write sharding: a suffix fans one logical key out over several physical keys.
//!
//! The schemes of the AWS developer guide ("Using write sharding to distribute workloads evenly"): a **random**
//! suffix per write, a **calculated** suffix (a stable hash of another value mod N, so one item can still be
//! found with GetItem), and **round-robin** (an exact even split). Every scheme works on `(key, count)` pairs:
//! a hot key's count is split in one step, never expanded write by write, and the total never changes.

use rand::{RngExt as _, SeedableRng as _};
use rand_distr::{Binomial, Distribution as _};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::keyset::KeySet;
use super::partition::{key_hash, mix64};

pub const MAX_SHARDS: u32 = 200;
pub const DEFAULT_HOT_SHARE: f64 = 0.05;

/// How a write picks its suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// A random suffix per write (seeded, reproducible): the count splits multinomially.
    #[default]
    Random,
    /// A stable hash of a second value mod N; for pasted keys the second value is the write's index
    /// among the writes of its key.
    Calculated,
    /// Writes take suffixes in turn: an exact even split.
    RoundRobin,
}

impl Strategy {
    pub const ALL: [Self; 3] = [Self::Random, Self::Calculated, Self::RoundRobin];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Calculated => "calculated",
            Self::RoundRobin => "round-robin",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Random => "random per write",
            Self::Calculated => "calculated",
            Self::RoundRobin => "round-robin",
        }
    }
}

/// Which keys get a suffix.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Scope {
    All,
    /// Only keys whose share of all writes is above `threshold` (0..1).
    Hot {
        threshold: f64,
    },
}

impl Default for Scope {
    fn default() -> Self {
        Self::Hot {
            threshold: DEFAULT_HOT_SHARE,
        }
    }
}

/// A sharding scheme. `shards <= 1` means no sharding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShardPlan {
    pub shards: u32,
    pub strategy: Strategy,
    pub scope: Scope,
    pub separator: String,
    pub seed: u64,
}

impl Default for ShardPlan {
    fn default() -> Self {
        Self {
            shards: 1,
            strategy: Strategy::default(),
            scope: Scope::default(),
            separator: "#".to_owned(),
            seed: 0,
        }
    }
}

/// One physical key made by sharding: logical key `key` with suffix `shard`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubKey {
    pub key: u32,
    pub shard: u32,
    pub count: u64,
    pub hash: u64,
}

/// The physical keys after applying a [`ShardPlan`] to a [`KeySet`]: unsharded keys as they are, sharded keys
/// replaced by their [`SubKey`]s.
#[derive(Debug, Clone, Default)]
pub struct Sharded {
    pub plan: ShardPlan,
    /// Bit `i` set: logical key `i` was sharded.
    mask: Vec<u64>,
    /// Logical keys that were sharded, in index order.
    pub sharded_keys: Vec<u32>,
    pub subkeys: Vec<SubKey>,
}

/// A physical key: a logical key, with a suffix when it was sharded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PhysicalKey {
    pub key: u32,
    pub shard: Option<u32>,
}

impl ShardPlan {
    pub fn none() -> Self {
        Self::default()
    }

    pub fn is_active(&self) -> bool {
        self.shards > 1
    }

    /// The suffix shard `i` gets: separator then the number.
    pub fn suffix(&self, i: u32) -> String {
        format!("{}{i}", self.separator)
    }

    /// Applies the plan. Cost: one pass over the counts to find the keys in scope, then `O(min(count, shards))`
    /// per sharded key (calculated: `O(count)`, one integer hash per write).
    pub fn apply(&self, keys: &KeySet) -> Sharded {
        self.apply_by(keys, None)
    }

    /// Applies the plan; a calculated suffix hashes each item's `by` value (`--shard-by`) instead of the
    /// write's index, so all writes of one item land on one shard (a hot item stays hot). Writes of items
    /// without the attribute fall back to the write index.
    pub fn apply_by(&self, keys: &KeySet, by: Option<&ShardBy>) -> Sharded {
        let mut out = Sharded {
            plan: self.clone(),
            mask: vec![0; keys.len().div_ceil(64)],
            ..Sharded::default()
        };
        if !self.is_active() || keys.is_empty() {
            return out;
        }
        let n = self.shards.min(MAX_SHARDS);
        let total = keys.total() as f64;
        let in_scope = |count: u64| match self.scope {
            Scope::All => true,
            Scope::Hot { threshold } => count as f64 > threshold * total,
        };
        let mut buf = Vec::with_capacity(64);
        let mut split = vec![0u64; n as usize];
        for (i, count) in keys.counts().enumerate() {
            if count == 0 || !in_scope(count) {
                continue;
            }
            let i = i as u32;
            out.mask[i as usize / 64] |= 1 << (i % 64);
            out.sharded_keys.push(i);
            split.fill(0);
            match self.strategy {
                Strategy::RoundRobin => {
                    let (each, extra) = (count / u64::from(n), count % u64::from(n));
                    for (s, slot) in split.iter_mut().enumerate() {
                        *slot = each + u64::from((s as u64) < extra);
                    }
                }
                Strategy::Calculated => {
                    let mut left = count;
                    for (hash, writes) in by.into_iter().flat_map(|b| b.pairs(i)) {
                        let writes = writes.min(left);
                        split[(hash % u64::from(n)) as usize] += writes;
                        left -= writes;
                    }
                    for write in 0..left {
                        split[(mix64(write) % u64::from(n)) as usize] += 1;
                    }
                }
                Strategy::Random => {
                    let mut rng = Pcg64Mcg::seed_from_u64(mix64(self.seed ^ keys.hash(i)));
                    multinomial_even(count, &mut split, &mut rng);
                }
            }
            let base = keys.key_bytes(i);
            for (s, &c) in split.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                buf.clear();
                buf.extend_from_slice(base);
                buf.extend_from_slice(self.separator.as_bytes());
                push_decimal(&mut buf, s as u32);
                out.subkeys.push(SubKey {
                    key: i,
                    shard: s as u32,
                    count: c,
                    hash: key_hash(&buf),
                });
            }
        }
        out
    }
}

/// Splits `count` trials evenly at random over `slots.len()` outcomes (a multinomial draw): per trial when
/// there are few, by conditional binomials when there are many.
fn multinomial_even(count: u64, slots: &mut [u64], rng: &mut Pcg64Mcg) {
    let n = slots.len();
    if count <= 4 * n as u64 {
        for _ in 0..count {
            slots[rng.random_range(0..n)] += 1;
        }
        return;
    }
    let mut remaining = count;
    let Some((last, rest)) = slots.split_last_mut() else {
        return;
    };
    for (s, slot) in rest.iter_mut().enumerate() {
        let left = (n - s) as u64;
        let draw =
            Binomial::new(remaining, 1.0 / left as f64).map_or(remaining / left, |b| b.sample(rng));
        *slot = draw;
        remaining -= draw;
    }
    *last = remaining;
}

fn push_decimal(buf: &mut Vec<u8>, mut v: u32) {
    let mut digits = [0u8; 10];
    let mut len = 0;
    loop {
        digits[len] = b'0' + (v % 10) as u8;
        len += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend(digits[..len].iter().rev());
}

impl Sharded {
    pub fn is_sharded(&self, key: u32) -> bool {
        self.mask
            .get(key as usize / 64)
            .is_some_and(|w| w & (1 << (key % 64)) != 0)
    }

    /// Queries needed to read one logical key back: one per shard when the key was sharded (a Query per
    /// suffix and a merge), else one.
    pub fn read_fan_out(&self) -> u32 {
        if self.sharded_keys.is_empty() {
            1
        } else {
            self.plan.shards.min(MAX_SHARDS)
        }
    }

    /// Every physical key as `(hash, count)`: unsharded logical keys, then the sub-keys.
    pub fn hashed_counts<'a>(&'a self, keys: &'a KeySet) -> impl Iterator<Item = (u64, u64)> + 'a {
        let direct = keys
            .hashes()
            .iter()
            .zip(keys.counts())
            .enumerate()
            .filter(|&(i, _)| self.sharded_keys.is_empty() || !self.is_sharded(i as u32))
            .map(|(_, (&h, c))| (h, c));
        direct.chain(self.subkeys.iter().map(|s| (s.hash, s.count)))
    }

    /// Every physical key with its hash and count.
    pub fn physical<'a>(
        &'a self,
        keys: &'a KeySet,
    ) -> impl Iterator<Item = (PhysicalKey, u64, u64)> + 'a {
        let direct = (0..keys.len() as u32)
            .filter(|&i| self.sharded_keys.is_empty() || !self.is_sharded(i))
            .map(|i| {
                (
                    PhysicalKey {
                        key: i,
                        shard: None,
                    },
                    keys.hash(i),
                    keys.count(i),
                )
            });
        direct.chain(self.subkeys.iter().map(|s| {
            (
                PhysicalKey {
                    key: s.key,
                    shard: Some(s.shard),
                },
                s.hash,
                s.count,
            )
        }))
    }

    /// Distinct physical keys.
    pub fn physical_len(&self, keys: &KeySet) -> usize {
        keys.len() - self.sharded_keys.len() + self.subkeys.len()
    }

    /// A physical key as text: the logical key, plus separator and shard number when sharded.
    pub fn label(&self, keys: &KeySet, key: PhysicalKey) -> String {
        let base = keys.display(key.key);
        match key.shard {
            Some(s) => format!("{base}{}", self.plan.suffix(s)),
            None => base.into_owned(),
        }
    }
}

/// Per logical key, the hashes of its items' `--shard-by` values with their writes: what calculated sharding
/// by an attribute splits (all writes of one item share the value, so a hot item stays on one shard). Which
/// value is hashed (the sort key or an attribute) is the key design's `shard_by`; this holds only the hashes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShardBy {
    /// `(key index, value hash, writes)`, merged and sorted by [`Self::finish`].
    entries: Vec<(u32, u64, u64)>,
    /// Writes whose item has no such attribute (they keep the write-index fallback).
    pub missing: u64,
}

impl ShardBy {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::key::KeyType;

    fn skewed() -> KeySet {
        let mut keys = KeySet::new(KeyType::S);
        keys.add(b"HOT", 9_000);
        for i in 0..100 {
            keys.add(format!("cold-{i}").as_bytes(), 10);
        }
        keys
    }

    fn plan(shards: u32, strategy: Strategy, scope: Scope) -> ShardPlan {
        ShardPlan {
            shards,
            strategy,
            scope,
            ..ShardPlan::default()
        }
    }

    #[test]
    fn sharding_never_changes_the_total() {
        let keys = skewed();
        for strategy in Strategy::ALL {
            for scope in [Scope::All, Scope::default()] {
                for shards in [1, 2, 3, 10, 200] {
                    for seed in [0, 1, 42] {
                        let p = ShardPlan {
                            seed,
                            ..plan(shards, strategy, scope)
                        };
                        let sharded = p.apply(&keys);
                        let total: u64 = sharded.hashed_counts(&keys).map(|(_, c)| c).sum();
                        assert_eq!(total, keys.total(), "{p:?}");
                        // Per key, the sub-key counts add up to the key's count.
                        for &k in &sharded.sharded_keys {
                            let sum: u64 = sharded
                                .subkeys
                                .iter()
                                .filter(|s| s.key == k)
                                .map(|s| s.count)
                                .sum();
                            assert_eq!(sum, keys.count(k));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn round_robin_splits_exactly() {
        let keys = skewed();
        let sharded = plan(7, Strategy::RoundRobin, Scope::default()).apply(&keys);
        assert_eq!(sharded.sharded_keys, [0]);
        let counts: Vec<u64> = sharded.subkeys.iter().map(|s| s.count).collect();
        // 9000 = 7 × 1285 + 5
        assert_eq!(counts, [1286, 1286, 1286, 1286, 1286, 1285, 1285]);
        assert_eq!(sharded.read_fan_out(), 7);
        assert_eq!(
            sharded.label(
                &keys,
                PhysicalKey {
                    key: 0,
                    shard: Some(3)
                }
            ),
            "HOT#3"
        );
    }

    #[test]
    fn random_is_reproducible_for_a_seed_and_varies_with_it() {
        let keys = skewed();
        let a = plan(10, Strategy::Random, Scope::All).apply(&keys);
        let b = plan(10, Strategy::Random, Scope::All).apply(&keys);
        assert_eq!(a.subkeys, b.subkeys);
        let c = ShardPlan {
            seed: 7,
            ..plan(10, Strategy::Random, Scope::All)
        }
        .apply(&keys);
        assert_ne!(a.subkeys, c.subkeys);
        // A multinomial split of 9000 over 10 is close to even (each ~900 ± 3σ = 85).
        for s in a.subkeys.iter().filter(|s| s.key == 0) {
            assert!((800..=1000).contains(&s.count), "{s:?}");
        }
    }

    #[test]
    fn calculated_is_stable_and_roughly_even() {
        let keys = skewed();
        let a = plan(10, Strategy::Calculated, Scope::default()).apply(&keys);
        let b = ShardPlan {
            seed: 99,
            ..plan(10, Strategy::Calculated, Scope::default())
        }
        .apply(&keys);
        assert_eq!(
            a.subkeys, b.subkeys,
            "calculated suffixes do not depend on the seed"
        );
        assert_eq!(a.subkeys.len(), 10);
        for s in &a.subkeys {
            assert!((800..=1000).contains(&s.count), "{s:?}");
        }
    }

    #[test]
    fn hot_scope_only_shards_hot_keys() {
        let keys = skewed();
        let sharded = plan(4, Strategy::RoundRobin, Scope::Hot { threshold: 0.5 }).apply(&keys);
        assert_eq!(sharded.sharded_keys, [0]);
        assert!(sharded.is_sharded(0));
        assert!(!sharded.is_sharded(1));
        assert_eq!(sharded.physical_len(&keys), 100 + 4);
        let none = plan(4, Strategy::RoundRobin, Scope::Hot { threshold: 0.95 }).apply(&keys);
        assert!(none.sharded_keys.is_empty());
        assert_eq!(none.read_fan_out(), 1);
    }

    #[test]
    fn sub_key_hash_is_the_hash_of_its_text() {
        let keys = skewed();
        let sharded = ShardPlan {
            separator: ".".into(),
            ..plan(12, Strategy::RoundRobin, Scope::default())
        }
        .apply(&keys);
        for s in &sharded.subkeys {
            let text = sharded.label(
                &keys,
                PhysicalKey {
                    key: s.key,
                    shard: Some(s.shard),
                },
            );
            assert_eq!(s.hash, key_hash(text.as_bytes()), "{text}");
        }
    }
}
