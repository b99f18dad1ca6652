//! Teaching key sets ([`KeyExample`]): small, reproducible key sets that each tell one hot-partition story.
//!
//! Each scenario is generated from a fixed seed, in the plain-text key format (`pk` or `pk<TAB>sk` per line),
//! so it can be pasted, edited and saved like any other keys.

use std::fmt::Write as _;

use rand::{RngExt as _, SeedableRng as _};
use rand_pcg::Pcg64Mcg;

use crate::model::decision::Leaf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyExample {
    Leaderboard,
    LeaderboardSharded,
    StatusFlag,
    TodaysDate,
    Tournament,
    Healthy,
}

impl KeyExample {
    pub const ALL: [Self; 6] = [
        Self::Leaderboard,
        Self::LeaderboardSharded,
        Self::StatusFlag,
        Self::TodaysDate,
        Self::Tournament,
        Self::Healthy,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Self::Leaderboard => "Celebrity leaderboard",
            Self::LeaderboardSharded => "Leaderboard, sharded by player",
            Self::StatusFlag => "Low-cardinality flag (status=…)",
            Self::TodaysDate => "Today's date as the key",
            Self::Tournament => "Tournament events",
            Self::Healthy => "Healthy high-cardinality key",
        }
    }

    pub fn slug(self) -> &'static str {
        match self {
            Self::Leaderboard => "leaderboard",
            Self::LeaderboardSharded => "leaderboard-sharded",
            Self::StatusFlag => "status-flag",
            Self::TodaysDate => "todays-date",
            Self::Tournament => "tournament",
            Self::Healthy => "healthy",
        }
    }

    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.slug() == slug)
    }

    pub fn story(self) -> &'static str {
        match self {
            Self::Leaderboard => {
                "Every score updates one summary item, BOARD#global: one item takes about three quarters of all writes, one \
                 partition throttles while the others idle."
            }
            Self::LeaderboardSharded => {
                "The same traffic with a calculated suffix, BOARD#global#<playerId mod 10>: the hot item is now ten \
                 items on several partitions; reading the board takes ten queries and a merge."
            }
            Self::StatusFlag => {
                "Orders keyed by status=OPEN/PENDING/CLOSED: three values can use at most three partitions, \
                 however large the table grows."
            }
            Self::TodaysDate => {
                "Events keyed by day: today's date takes nearly every write and its sort key (a timestamp) only \
                 increases, so split-for-heat cannot help."
            }
            Self::Tournament => {
                "A live tournament writes EVT#<ts>#<id> items under one arena key: a hot, ever-growing item \
                 collection."
            }
            Self::Healthy => {
                "USER#<uuid> keys: thousands of distinct values spread evenly; nothing to fix."
            }
        }
    }

    /// The leaf of the decision tree this scenario teaches.
    pub fn expected_leaf(self) -> Leaf {
        match self {
            Self::Leaderboard => Leaf::ShardOrCache,
            Self::LeaderboardSharded | Self::Healthy => Leaf::AdaptiveCapacity,
            Self::StatusFlag => Leaf::WriteShardPrefix,
            Self::TodaysDate | Self::Tournament => Leaf::ItemCollection,
        }
    }

    /// The scenario's keys, one write per line.
    pub fn text(self) -> String {
        let mut rng = Pcg64Mcg::seed_from_u64(0x5ad_1e25 + self as u64);
        let mut out = String::new();
        match self {
            Self::Leaderboard => leaderboard(&mut rng, &mut out, false),
            Self::LeaderboardSharded => leaderboard(&mut rng, &mut out, true),
            Self::StatusFlag => status_flag(&mut rng, &mut out),
            Self::TodaysDate => todays_date(&mut rng, &mut out),
            Self::Tournament => tournament(&mut rng, &mut out),
            Self::Healthy => healthy(&mut rng, &mut out),
        }
        out
    }
}

/// One write: `pk`, or `pk<TAB>sk`.
fn line(out: &mut String, pk: &str, sk: &str) {
    out.push_str(pk);
    if !sk.is_empty() {
        out.push('\t');
        out.push_str(sk);
    }
    out.push('\n');
}

const BOARDS: [&str; 40] = [
    "chess",
    "go",
    "tetris",
    "snake",
    "pong",
    "doom",
    "myst",
    "zork",
    "rogue",
    "nethack",
    "quake",
    "pacman",
    "frogger",
    "asteroids",
    "galaga",
    "qbert",
    "digdug",
    "joust",
    "tempest",
    "robotron",
    "defender",
    "centipede",
    "xevious",
    "contra",
    "metroid",
    "zelda",
    "kirby",
    "sonic",
    "mario",
    "lemmings",
    "worms",
    "civ",
    "simcity",
    "starcraft",
    "diablo",
    "portal",
    "celeste",
    "hades",
    "braid",
    "limbo",
];

/// 71 % of the score updates go to the global board (one key, or ten by player when `sharded`), the rest to
/// 40 game boards.
fn leaderboard(rng: &mut Pcg64Mcg, out: &mut String, sharded: bool) {
    for _ in 0..1000 {
        let player: u32 = rng.random_range(0..5000);
        if rng.random_range(0..100) < 71 {
            let pk = if sharded {
                format!("BOARD#global#{}", player % 10)
            } else {
                "BOARD#global".to_owned()
            };
            line(out, &pk, "SUMMARY");
        } else {
            let board = BOARDS[rng.random_range(0..BOARDS.len())];
            line(out, &format!("BOARD#{board}"), "SUMMARY");
        }
    }
}

/// Orders keyed by their status: three keys.
fn status_flag(rng: &mut Pcg64Mcg, out: &mut String) {
    for order in 0..1200u32 {
        let roll = rng.random_range(0..100);
        let status = match roll {
            0..45 => "OPEN",
            45..80 => "PENDING",
            _ => "CLOSED",
        };
        line(
            out,
            &format!("status={status}"),
            &format!("ORDER#{order:06}"),
        );
    }
}

/// Events keyed by their day: 85 % go to today.
fn todays_date(rng: &mut Pcg64Mcg, out: &mut String) {
    let days = [
        "2026-06-17",
        "2026-06-18",
        "2026-06-19",
        "2026-06-20",
        "2026-06-21",
    ];
    let mut seconds = 0u32;
    for i in 0..1500u32 {
        seconds += rng.random_range(1..40);
        let roll = rng.random_range(0..100);
        let day = match roll {
            0..85 => "2026-06-23",
            85..95 => "2026-06-22",
            _ => days[rng.random_range(0..days.len())],
        };
        let sk = if day == "2026-06-23" {
            format!(
                "T{:02}:{:02}:{:02}#{i:05}",
                seconds / 3600 % 24,
                seconds / 60 % 60,
                seconds % 60
            )
        } else {
            // Late corrections to older days arrive out of order.
            format!(
                "T{:02}:{:02}:00#{i:05}",
                rng.random_range(0..24),
                rng.random_range(0..60)
            )
        };
        line(out, day, &sk);
    }
}

/// Match events keyed by arena: 80 % in one arena, time-ordered sort keys.
fn tournament(rng: &mut Pcg64Mcg, out: &mut String) {
    let arenas: Vec<String> = (0..24)
        .map(|_| format!("ARENA#{:04x}", rng.random_range(0..0x10000u32)))
        .collect();
    let mut ts = 1_782_000_000_000u64;
    for i in 0..2000u32 {
        ts += rng.random_range(1..500);
        let arena = if rng.random_range(0..100) < 80 {
            "ARENA#7f3a"
        } else {
            arenas[rng.random_range(0..arenas.len())].as_str()
        };
        line(out, arena, &format!("EVT#{ts}#{i:05}"));
    }
}

/// Profiles keyed by a random user id: many keys, none hot.
fn healthy(rng: &mut Pcg64Mcg, out: &mut String) {
    let mut users: Vec<String> = Vec::new();
    for _ in 0..2500 {
        // Mostly new users, some returning.
        let user = if users.is_empty() || rng.random_range(0..100) < 80 {
            let mut id = String::with_capacity(36);
            let a: u128 = rng.random();
            for (i, nibble) in (0..32).map(|k| (a >> (k * 4)) & 0xf).enumerate() {
                if matches!(i, 8 | 12 | 16 | 20) {
                    id.push('-');
                }
                let _ = write!(id, "{nibble:x}");
            }
            users.push(format!("USER#{id}"));
            users.len() - 1
        } else {
            rng.random_range(0..users.len())
        };
        line(out, &users[user], "PROFILE");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::decision::{Evidence, UserAnswers, evaluate};
    use crate::model::key::KeyType;
    use crate::model::partition::Partitioner;
    use crate::model::shard::ShardPlan;
    use crate::model::stats::analyze;
    use crate::model::text::parse_text;

    #[test]
    fn every_scenario_reaches_its_leaf_at_eight_buckets() {
        for s in KeyExample::ALL {
            let text = s.text();
            assert_eq!(text, s.text(), "{s:?} is reproducible");
            let lines = text.lines().count();
            assert!((300..=5000).contains(&lines), "{s:?}: {lines} lines");
            let keys = parse_text(text.as_bytes(), KeyType::S).unwrap();
            let analysis = analyze(
                &keys,
                &ShardPlan::none().apply(&keys),
                &Partitioner::equal(8),
                10,
            );
            let path = evaluate(
                &Evidence::from_analysis(&keys, &analysis),
                &UserAnswers::default(),
            );
            assert_eq!(path.leaf, Some(s.expected_leaf()), "{s:?}: {path:#?}");
            assert_eq!(KeyExample::from_slug(s.slug()), Some(s));
        }
    }
}
