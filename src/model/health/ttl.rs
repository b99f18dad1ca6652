//! The TTL attribute as DynamoDB's TTL process reads it (DYNAMODB-TRAFFIC "TTL" \[AWS\], the developer guide's
//! "Using DynamoDB Time to Live"): it must be a top-level Number holding epoch **seconds**; an item without
//! it, with another type, with another unit (milliseconds read as seconds land tens of thousands of years
//! ahead) or more than five years in the past is never deleted. An expired item is deleted in the background,
//! typically within a few days, and stays readable until then.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::calendar::civil_from_days;

/// Values at or above this many seconds (year 5138) are read as milliseconds or finer: a 13-digit value.
const SECONDS_CEILING: f64 = 1e11;
/// Five years of seconds (365.25 days a year), the oldest expiry TTL still acts on \[AWS\].
const FIVE_YEARS: f64 = 5.0 * 365.25 * 86_400.0;
/// Example keys kept per kind of value.
const EXAMPLES: usize = 3;

/// Names a TTL attribute usually has (compared ignoring case): `ttl`, and names starting `expires`,
/// `expiration` or `expiry` (our guess \[ours\] when no attribute is named).
pub fn looks_like_ttl(name: &[u8]) -> bool {
    let starts = |p: &[u8]| name.len() >= p.len() && name[..p.len()].eq_ignore_ascii_case(p);
    name.eq_ignore_ascii_case(b"ttl")
        || name.eq_ignore_ascii_case(b"timetolive")
        || starts(b"expires")
        || starts(b"expiration")
        || starts(b"expiry")
        || (name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(b"_ttl"))
}

/// One item's TTL attribute, as read.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TtlValue {
    #[default]
    Absent,
    /// A Number, its value.
    Number(f64),
    /// Another type: its tag (`S`, `BOOL`, …).
    Other(&'static str),
}

/// What a load saw of the TTL attribute, item by item.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TtlStats {
    /// The attribute.
    pub attribute: String,
    /// Guessed from its name, not given or read from the table.
    pub guessed: bool,
    /// Items read (with the attribute or not).
    pub items: u64,
    /// Items without it.
    pub missing: u64,
    /// Items where it is not a Number, by type.
    pub not_number: BTreeMap<String, u64>,
    /// Numbers too large to be seconds (milliseconds, microseconds).
    pub not_seconds: u64,
    /// The largest such value (for "these values read as the year 57,000").
    pub not_seconds_max: f64,
    /// Numbers in seconds, counted by hour (epoch seconds / 3600).
    #[serde(skip)]
    by_hour: BTreeMap<i64, u64>,
    /// Example keys: not a Number, not in seconds.
    pub examples_not_number: Vec<String>,
    pub examples_not_seconds: Vec<String>,
}

impl TtlStats {
    pub fn new(attribute: &str, guessed: bool) -> Self {
        Self {
            attribute: attribute.to_owned(),
            guessed,
            ..Self::default()
        }
    }

    /// One item's value; `key` names the item for the examples.
    pub fn note(&mut self, value: TtlValue, key: impl FnOnce() -> String) {
        self.items += 1;
        match value {
            TtlValue::Absent => self.missing += 1,
            TtlValue::Other(tag) => {
                *self.not_number.entry(tag.to_owned()).or_default() += 1;
                example(&mut self.examples_not_number, key);
            }
            TtlValue::Number(v) if v.abs() >= SECONDS_CEILING => {
                self.not_seconds += 1;
                self.not_seconds_max = self.not_seconds_max.max(v);
                example(&mut self.examples_not_seconds, key);
            }
            TtlValue::Number(v) => {
                *self.by_hour.entry((v / 3600.0).floor() as i64).or_default() += 1;
            }
        }
    }

    /// Adds another load's figures (the same attribute).
    pub fn merge(&mut self, o: &Self) {
        self.items += o.items;
        self.missing += o.missing;
        for (t, n) in &o.not_number {
            *self.not_number.entry(t.clone()).or_default() += n;
        }
        self.not_seconds += o.not_seconds;
        self.not_seconds_max = self.not_seconds_max.max(o.not_seconds_max);
        for (h, n) in &o.by_hour {
            *self.by_hour.entry(*h).or_default() += n;
        }
        for (mine, theirs) in [
            (&mut self.examples_not_number, &o.examples_not_number),
            (&mut self.examples_not_seconds, &o.examples_not_seconds),
        ] {
            for k in theirs {
                example(mine, || k.clone());
            }
        }
    }

    /// Items whose value is a Number not too large to be seconds.
    pub fn in_seconds(&self) -> u64 {
        self.by_hour.values().sum()
    }

    /// Of the values in seconds, at time `now` (epoch seconds): (expired within five years: pending deletion,
    /// older than five years: never deleted, in the future). Counted by hour: an item in `now`'s own hour
    /// counts as not yet expired.
    pub fn split_at(&self, now: i64) -> TtlSplit {
        let hour = now.div_euclid(3600);
        let oldest = ((now as f64 - FIVE_YEARS) / 3600.0).floor() as i64;
        let mut s = TtlSplit::default();
        for (&h, &n) in &self.by_hour {
            if h >= hour {
                s.future += n;
            } else if h >= oldest {
                s.expired += n;
            } else {
                s.too_old += n;
            }
        }
        s
    }
}

/// Keeps `key` among the examples while there is room, each key once (an item collection's items share it).
fn example(examples: &mut Vec<String>, key: impl FnOnce() -> String) {
    if examples.len() < EXAMPLES {
        let key = key();
        if !examples.contains(&key) {
            examples.push(key);
        }
    }
}

/// The values in seconds at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TtlSplit {
    /// Expired, pending deletion (deleted typically within a few days; readable until then).
    pub expired: u64,
    /// More than five years past: TTL never deletes these.
    pub too_old: u64,
    /// Not yet expired.
    pub future: u64,
}

/// The calendar year `seconds` (epoch) falls in.
pub fn year_of(seconds: f64) -> i64 {
    let days = (seconds / 86_400.0).floor();
    // Past any date a calendar can name: say so with the year of the largest day it takes.
    let days = days.clamp(-1e12, 1e12) as i64;
    civil_from_days(days).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_like_ttl() {
        for yes in [
            "ttl",
            "TTL",
            "expiresAt",
            "expires_at",
            "expirationTime",
            "expiry",
            "session_ttl",
        ] {
            assert!(looks_like_ttl(yes.as_bytes()), "{yes}");
        }
        for no in ["pk", "settle", "expire", "status", "ttlx", "_ttl"] {
            assert!(!looks_like_ttl(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn values_sort_into_what_ttl_does_with_them() {
        let now = 1_764_633_600; // 2025-12-02
        let mut s = TtlStats::new("ttl", true);
        let key = || "k".to_owned();
        s.note(TtlValue::Absent, key);
        s.note(TtlValue::Other("S"), key);
        s.note(TtlValue::Number(1_764_633_600_000.0), key); // milliseconds
        s.note(TtlValue::Number(now as f64 - 86_400.0), key); // yesterday
        s.note(TtlValue::Number(1_171_734_022.0), key); // 2007: over five years past
        s.note(TtlValue::Number(now as f64 + 86_400.0), key); // tomorrow
        assert_eq!(
            (s.items, s.missing, s.not_seconds, s.in_seconds()),
            (6, 1, 1, 3)
        );
        assert_eq!(s.not_number["S"], 1);
        assert_eq!(
            s.split_at(now),
            TtlSplit {
                expired: 1,
                too_old: 1,
                future: 1
            }
        );
        assert_eq!(year_of(s.not_seconds_max), 57_889);
        // Merged twice: the counts add up, the example key ("k") is kept once.
        let mut t = TtlStats::new("ttl", true);
        t.merge(&s);
        t.merge(&s);
        assert_eq!(
            (t.items, t.in_seconds(), t.examples_not_number.len()),
            (12, 6, 1)
        );
    }
}
