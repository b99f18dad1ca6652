//! Teaching examples for key design: whole items (not just keys), so a candidate key can be built from their
//! attributes. Generated deterministically (a fixed seed), never read from a file.
//!
//! - **Leaderboard items**: the seeds' leaderboard as a table — `PK = BOARD#global`, `SK = PLAYER#<playerId>`,
//!   a `playerId` and a `score` — where every score update writes the one key. The hot-partition guide's fix,
//!   `BOARD#global#{playerId:hash 10}`, is one click away; one celebrity player writes far more than the
//!   others, so the fix's consequence shows too: a calculated suffix keeps that player's writes on one shard.
//! - **Orders with a status GSI**: `PK = ORDER#<n>` spreads well, but the GSI on `status` puts 80 % of the
//!   writes on `OPEN`. The candidates compare "by status", "by customer" and "by customer and day"; a
//!   multi-attribute GSI, `status+{customerId:hash 10}`, is one click away (the shard as its own attribute).

use rand::{RngExt as _, SeedableRng as _};
use rand_pcg::Pcg64Mcg;

use crate::model::design::{GsiSpec, Items, parse_key};
use crate::model::key::KeyType;
use crate::model::keyexpr::{Number, Value};
use crate::model::keyset::KeySet;

/// A key-design example: its items, the keys they are loaded by, and the designs to start from.
#[derive(Debug, Clone)]
pub struct DesignExample {
    pub title: &'static str,
    /// The partition key attribute (what the current key is).
    pub key_attribute: &'static str,
    pub keys: KeySet,
    pub items: Items,
    /// Candidate expressions to show first.
    pub candidates: Vec<&'static str>,
    /// GSIs as `NAME=EXPR`.
    pub gsis: Vec<&'static str>,
    /// The fix the example teaches, one click away.
    pub fix: Option<&'static str>,
    /// A multi-attribute GSI (`NAME=a+b`) the example offers, one click away: the shard as an attribute of its
    /// own instead of a suffix glued onto a string.
    pub gsi_fix: Option<&'static str>,
}

/// The examples, by slug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DesignScenario {
    LeaderboardItems,
    OrdersByStatus,
}

impl DesignScenario {
    pub const ALL: [Self; 2] = [Self::LeaderboardItems, Self::OrdersByStatus];

    pub fn title(self) -> &'static str {
        match self {
            Self::LeaderboardItems => "Leaderboard items (BOARD#global)",
            Self::OrdersByStatus => "Orders with a status GSI",
        }
    }

    pub fn build(self) -> DesignExample {
        match self {
            Self::LeaderboardItems => leaderboard(),
            Self::OrdersByStatus => orders(),
        }
    }
}

fn s(text: impl Into<String>) -> Option<Value> {
    Some(Value::S(text.into()))
}

fn n(v: i64) -> Option<Value> {
    Some(Value::N(Number::from(v)))
}

/// Adds one record: the key set (partition key and sort key) and the kept values (in `roots` order).
fn push(
    keys: &mut KeySet,
    items: &mut Items,
    pk: &str,
    sk: Option<&str>,
    values: &[Option<Value>],
    count: u64,
) {
    let sk = sk.map(|s| (s.as_bytes(), KeyType::S));
    let idx = keys.add_item(pk.as_bytes(), sk, count);
    let identity = crate::model::design::item_identity(pk.as_bytes(), sk.map(|s| s.0));
    items.push(values, idx, sk, count, identity);
}

/// 1,000 players on one board; player `p0007` (a streamer) posts 3,000 score updates, the others 1–20.
fn leaderboard() -> DesignExample {
    let roots = ["PK", "SK", "playerId", "score"].map(String::from).to_vec();
    let mut keys = KeySet::new(KeyType::S);
    let mut items = Items::new(roots);
    let mut rng = Pcg64Mcg::seed_from_u64(14);
    for p in 0..1000 {
        let id = format!("p{p:04}");
        let sk = format!("PLAYER#{id}");
        let writes = if p == 7 {
            3000
        } else {
            rng.random_range(1..=20)
        };
        let score = rng.random_range(0..100_000);
        let values = [s("BOARD#global"), s(sk.clone()), s(id), n(score)];
        push(
            &mut keys,
            &mut items,
            "BOARD#global",
            Some(&sk),
            &values,
            writes,
        );
    }
    DesignExample {
        title: DesignScenario::LeaderboardItems.title(),
        key_attribute: "PK",
        keys,
        items,
        candidates: vec!["BOARD#global#{playerId:hash 10}"],
        gsis: Vec::new(),
        fix: Some("BOARD#global#{playerId:hash 10}"),
        gsi_fix: None,
    }
}

/// The orders example's multi-attribute GSI: the status and a shard of 10 from the customer, as two attributes
/// hashed together.
pub const ORDERS_GSI_FIX: &str = "byStatusShard=status+{customerId:hash 10}";

/// 4,000 orders from 300 customers over a week; 80 % are OPEN.
fn orders() -> DesignExample {
    let roots = ["PK", "createdAt", "customerId", "status"]
        .map(String::from)
        .to_vec();
    let mut keys = KeySet::new(KeyType::S);
    let mut items = Items::new(roots);
    let mut rng = Pcg64Mcg::seed_from_u64(15);
    for o in 0..4000 {
        let pk = format!("ORDER#{o:05}");
        let status = match rng.random_range(0..100) {
            0..80 => "OPEN",
            80..92 => "SHIPPED",
            92..98 => "DELIVERED",
            _ => "CANCELLED",
        };
        // A few customers order far more often (a skewed but many-valued key).
        let c = (rng.random_range(0.0f64..1.0).powi(3) * 300.0) as u32;
        let day = 1 + rng.random_range(0..7);
        let created = format!(
            "2026-11-{day:02}T{:02}:{:02}:00Z",
            rng.random_range(0..24),
            rng.random_range(0..60)
        );
        let values = [s(pk.clone()), s(created), s(format!("C{c:03}")), s(status)];
        push(&mut keys, &mut items, &pk, None, &values, 1);
    }
    DesignExample {
        title: DesignScenario::OrdersByStatus.title(),
        key_attribute: "PK",
        keys,
        items,
        candidates: vec![
            "{status}",
            "CUST#{customerId}",
            "CUST#{customerId}#{createdAt:day}",
        ],
        gsis: vec!["byStatus=status"],
        fix: None,
        gsi_fix: Some(ORDERS_GSI_FIX),
    }
}

impl DesignExample {
    /// The example's GSIs, parsed.
    pub fn gsi_specs(&self) -> Vec<GsiSpec> {
        self.gsis
            .iter()
            .filter_map(|g| GsiSpec::parse(g).ok())
            .collect()
    }
}

/// Whether every candidate of every example parses (checked by the tests; the app shows a parse error in the
/// box otherwise).
pub fn candidates_parse() -> bool {
    DesignScenario::ALL.iter().all(|e| {
        let ex = e.build();
        ex.candidates.iter().all(|c| parse_key(c).is_ok())
            && ex.gsi_specs().len() == ex.gsis.len()
            && ex.gsi_fix.is_none_or(|g| GsiSpec::parse(g).is_ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::design::{Design, DesignKind};
    use crate::model::shard::{Scope, ShardPlan, Strategy};

    #[test]
    fn the_guides_fix_spreads_the_board_but_not_the_streamer() {
        let ex = DesignScenario::LeaderboardItems.build();
        assert!(candidates_parse());
        assert_eq!(ex.keys.len(), 1, "one board key");
        assert_eq!(ex.items.len(), 1000);
        let design = Design {
            candidates: vec![parse_key(ex.fix.unwrap()).unwrap()],
            ..Design::default()
        };
        let r = ex.items.rekey(&design);
        let fixed = &r.designs[0].keys;
        assert_eq!(fixed.kind, DesignKind::Candidate(1));
        assert_eq!(fixed.keys.len(), 10);
        assert_eq!(fixed.keys.total(), ex.keys.total());
        // The streamer's 3,000 writes all land on their shard: it holds more than any other.
        let counts: Vec<u64> = fixed.keys.counts().collect();
        let max = *counts.iter().max().unwrap();
        let min = *counts.iter().min().unwrap();
        assert!(max >= 3000 && max > 2 * min, "{counts:?}");
        // A random suffix per write, through the shard toggle, spreads even that one item.
        let random = ShardPlan {
            shards: 10,
            strategy: Strategy::Random,
            scope: Scope::All,
            ..ShardPlan::default()
        }
        .apply(&ex.keys);
        let max = random.subkeys.iter().map(|s| s.count).max().unwrap();
        assert!(max < 2 * ex.keys.total() / 10, "{max}");
    }

    #[test]
    fn orders_by_status_is_the_hot_partition() {
        let ex = DesignScenario::OrdersByStatus.build();
        let design = Design {
            candidates: ex
                .candidates
                .iter()
                .map(|c| parse_key(c).unwrap())
                .collect(),
            gsis: ex.gsi_specs(),
            ..Design::default()
        };
        assert!(ex.items.covers(&design));
        let r = ex.items.rekey(&design);
        let by_status = &r.designs[0].keys.keys;
        assert_eq!(by_status.len(), 4);
        let open = by_status.find(b"OPEN").map(|i| by_status.count(i)).unwrap();
        assert!((3000..3400).contains(&open), "{open}");
        assert!(r.designs[1].keys.keys.len() > 100, "many customers");
        assert!(r.designs[2].keys.keys.len() > r.designs[1].keys.keys.len());
        assert_eq!(r.designs[3].keys.kind, DesignKind::Gsi("byStatus".into()));
        assert_eq!(r.designs[3].keys.keys.total(), 4000);
    }

    /// The offered multi-attribute GSI splits OPEN over its 10 shard values, as the same shard glued onto the
    /// string would, at 10 queries to read OPEN back.
    #[test]
    fn the_multi_attribute_gsi_splits_open_over_its_shards() {
        let ex = DesignScenario::OrdersByStatus.build();
        let multi = GsiSpec::parse(ex.gsi_fix.unwrap()).unwrap();
        let glued = GsiSpec::parse("glued={status}#{customerId:hash 10}").unwrap();
        let design = Design {
            gsis: vec![ex.gsi_specs().remove(0), multi, glued],
            ..Design::default()
        };
        let r = ex.items.rekey(&design);
        let (one, multi, glued) = (&r.designs[0].keys, &r.designs[1].keys, &r.designs[2].keys);
        assert_eq!(one.keys.len(), 4);
        assert_eq!(multi.keys.len(), glued.keys.len());
        assert!(multi.keys.len() > 30, "{}", multi.keys.len());
        let top = |k: &crate::model::KeySet| k.counts().max().unwrap();
        // OPEN's 3,250 orders over 10 shards of their customers: the largest shard holds 799 (the example's
        // customers are skewed), about a quarter of the unsplit key.
        assert!(
            top(&multi.keys) * 3 < top(&one.keys),
            "OPEN is split: {} vs {}",
            top(&multi.keys),
            top(&one.keys)
        );
        assert_eq!(top(&multi.keys), top(&glued.keys));
        assert_eq!(multi.fan_out, 10);
        assert!(multi.expr.contains('+'));
    }
}
