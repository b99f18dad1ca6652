//! Answers: the user's ([`UserAnswers`]: answers the data cannot give, and table facts only the user knows)
//! and the data's ([`answer_from_data`]: each question answered from the [`Evidence`], with its numbers).

use serde::Serialize;

use super::evidence::ObservedReason;
use super::tree::Question;
use super::{
    DOMINANT_OVER_NEXT, DOMINANT_SHARE_OF_BUCKET, Evidence, HOT_BUCKET_RATIO,
    LOW_CARDINALITY_KEYS_PER_BUCKET, LOW_CARDINALITY_TOP3_SHARE,
};
use crate::model::capacity::{CapacityFacts, ThrottleReason, ThrottleResource};
use crate::model::fmt::{bytes, grouped, percent};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Yes,
    No,
    Unknown,
}

impl Answer {
    pub(super) fn from_bool(b: bool) -> Self {
        if b { Self::Yes } else { Self::No }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Yes => "yes",
            Self::No => "no",
            Self::Unknown => "unknown",
        }
    }
}

/// Answers supplied by the user for questions the data cannot answer (or to explore "what if"), and facts
/// about the table only the user knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct UserAnswers {
    pub one_key: Option<bool>,
    pub one_item: Option<bool>,
    pub low_cardinality: Option<bool>,
    /// The table has a local secondary index (a switch in the app, `--has-lsi` in the CLI).
    pub has_lsi: Option<bool>,
    /// The throttling reason DynamoDB reported, when the user saw one.
    pub throttle_reason: Option<ThrottleReason>,
}

impl UserAnswers {
    pub fn get(&self, q: Question) -> Option<bool> {
        match q {
            Question::OneKey => self.one_key,
            Question::OneItem => self.one_item,
            Question::LowCardinality => self.low_cardinality,
        }
    }

    pub fn set(&mut self, q: Question, answer: Option<bool>) {
        match q {
            Question::OneKey => self.one_key = answer,
            Question::OneItem => self.one_item = answer,
            Question::LowCardinality => self.low_cardinality = answer,
        }
    }
}

/// Answers one question from the evidence: the answer (if the data gives one) and its numbers.
pub fn answer_from_data(q: Question, ev: &Evidence) -> (Option<bool>, String) {
    match q {
        Question::OneKey => {
            if ev.top_key.is_none() {
                return (Some(false), "no keys".to_owned());
            }
            if let Some(reason) = ev.throttle_reason {
                return one_key_from_reason(reason, ev);
            }
            if ev.observed_reasons.iter().any(|r| r.events > 0.0) {
                return one_key_from_observed(ev);
            }
            if let Some(why) = &ev.keys_unknown {
                return (None, why.clone());
            }
            if let Some(c) = &ev.capacity {
                return one_key_from_capacity(c);
            }
            one_key_from_counts(ev)
        }
        Question::OneItem | Question::LowCardinality if ev.keys_unknown.is_some() => {
            (None, ev.keys_unknown.clone().unwrap_or_default())
        }
        Question::OneItem => one_item(ev),
        Question::LowCardinality => low_cardinality(ev),
    }
}

/// "Throttling concentrated on one key?" from the key counts alone: the top key's bucket is hot and one key
/// dominates it.
fn one_key_from_counts(ev: &Evidence) -> (Option<bool>, String) {
    let Some((key, count, share)) = &ev.top_key else {
        return (Some(false), "no keys".to_owned());
    };
    let over_next = if ev.next_key_count == 0 {
        f64::INFINITY
    } else {
        *count as f64 / ev.next_key_count as f64
    };
    let next = if over_next.is_finite() {
        format!("{over_next:.1}× the next key")
    } else {
        "the only key".to_owned()
    };
    let yes = ev.buckets > 1
        && ev.top_bucket_over_mean >= HOT_BUCKET_RATIO
        && ev.top_key_share_of_bucket >= DOMINANT_SHARE_OF_BUCKET
        && over_next >= DOMINANT_OVER_NEXT;
    (
        Some(yes),
        format!(
            "top key {key} = {} of {}s, its bucket {:.1}× the mean bucket ({} of that bucket), {next} \
             (yes from ≥ {HOT_BUCKET_RATIO}× the mean, ≥ {} of the bucket, ≥ {DOMINANT_OVER_NEXT}× the next)",
            percent(*share),
            ev.noun(),
            ev.top_bucket_over_mean,
            percent(ev.top_key_share_of_bucket),
            percent(DOMINANT_SHARE_OF_BUCKET),
        ),
    )
}

/// "Is one item hot?": one sort key under the top key is one item; more are an item collection, described
/// with its write order and size where known.
fn one_item(ev: &Evidence) -> (Option<bool>, String) {
    let key = ev.top_key.as_ref().map_or("the top key", |k| k.0.as_str());
    match ev.top_key_items {
        Some(f) if f.items == 1 => (
            Some(true),
            format!("every write to {key} goes to one item (one sort key)"),
        ),
        Some(f) => {
            let order = if f.only_increasing {
                ", written in only-increasing sort-key order".to_owned()
            } else if let Some(t) = &ev.top_key_time {
                format!("; its {}", t.describe())
            } else {
                String::new()
            };
            let size = match (ev.top_key_bytes, ev.collection_bytes()) {
                (Some(_), Some(b)) => format!(
                    "; its item collection ≈ {} ({}, sizes measured from the data)",
                    bytes(b),
                    crate::model::fmt::plural(f.items, "item")
                ),
                (None, Some(b)) => format!(
                    "; its item collection ≈ {} ({} × {})",
                    bytes(b),
                    crate::model::fmt::plural(f.items, "item"),
                    bytes(ev.item_bytes.unwrap_or(0.0))
                ),
                _ => String::new(),
            };
            (
                Some(false),
                format!(
                    "{key} has {} (distinct sort keys){order}{size}",
                    crate::model::fmt::plural(f.items, "item")
                ),
            )
        }
        None => (
            None,
            "no sort keys in the data: answer from what you know of the table".to_owned(),
        ),
    }
}

/// "Low-cardinality partition key?": few distinct keys per bucket, or the top three taking most writes.
fn low_cardinality(ev: &Evidence) -> (Option<bool>, String) {
    let limit = LOW_CARDINALITY_KEYS_PER_BUCKET * ev.buckets.max(1);
    let yes = ev.distinct < limit || ev.top3_share >= LOW_CARDINALITY_TOP3_SHARE;
    (
        Some(yes),
        format!(
            "{} (before sharding) for {} (low below {limit}); top 3 keys take {} of \
             {}s (low from {})",
            crate::model::fmt::plural(ev.distinct as u64, "distinct key"),
            crate::model::fmt::plural(ev.buckets as u64, "bucket"),
            percent(ev.top3_share),
            ev.noun(),
            percent(LOW_CARDINALITY_TOP3_SHARE)
        ),
    )
}

/// The capacity numbers in a line: "table at 5 % of its capacity · hottest partition 3 at 140 % of its write
/// limit".
fn capacity_line(c: &CapacityFacts) -> String {
    format!(
        "table at {} of its capacity · hottest partition {} at {} of its {} limit",
        percent(c.table_util()),
        c.hottest_partition,
        percent(c.hottest_util()),
        if c.hottest_kind() == "reads" {
            "read"
        } else {
            "write"
        }
    )
}

fn one_key_from_reason(reason: ThrottleReason, ev: &Evidence) -> (Option<bool>, String) {
    let numbers = ev
        .capacity
        .as_ref()
        .map(|c| format!(" ({})", capacity_line(c)))
        .unwrap_or_default();
    if reason.is_key_range() {
        (
            Some(true),
            format!(
                "observed {reason}: one partition's key range is over its limit, a hot partition{numbers}"
            ),
        )
    } else {
        (
            Some(false),
            format!(
                "observed {reason}: the throttling is table-level, not one key{numbers}; see the note on \
                 table-level limits below"
            ),
        )
    }
}

/// "Throttling concentrated on one key?" from CloudWatch's reason metrics: KeyRange events are a hot
/// partition, the others the table's or the account's limit (DYNAMODB-TRAFFIC "Throttling by its reason
/// (2025)" \[AWS\]); with both, the larger share answers and the words give both shares.
fn one_key_from_observed(ev: &Evidence) -> (Option<bool>, String) {
    let mut seen: Vec<&ObservedReason> = ev
        .observed_reasons
        .iter()
        .filter(|r| r.events > 0.0)
        .collect();
    seen.sort_by(|a, b| b.events.total_cmp(&a.events));
    let total: f64 = seen.iter().map(|r| r.events).sum();
    let key_range: f64 = seen
        .iter()
        .filter(|r| r.metric.is_key_range())
        .map(|r| r.events)
        .sum();
    let said = |r: &ObservedReason| {
        format!(
            "{} {} throttle events{}",
            grouped(r.events.round() as u64),
            r.metric.short(),
            r.span.map(span_words).unwrap_or_default()
        )
    };
    let on = |r: &ObservedReason| match r.resource {
        ThrottleResource::Table => "the table's",
        ThrottleResource::Index => "the index's",
    };
    let listed = |rs: &[&ObservedReason]| rs.iter().map(|r| said(r)).collect::<Vec<_>>().join(", ");
    if key_range >= total {
        (
            Some(true),
            format!(
                "{} ({}): one partition's key range over its limit, a hot partition",
                listed(&seen),
                seen[0].observer
            ),
        )
    } else if key_range <= 0.0 {
        let top = seen[0];
        (
            Some(false),
            format!(
                "{} ({}): {} limit ({}), not one key: raise capacity, not the key",
                listed(&seen),
                top.observer,
                if top.metric.cause == crate::model::capacity::ThrottleCause::AccountLimitExceeded {
                    "the account's".to_owned()
                } else {
                    on(top).to_owned()
                },
                top.reason()
            ),
        )
    } else {
        let share = key_range / total;
        let (hot, table): (Vec<&ObservedReason>, Vec<&ObservedReason>) =
            seen.iter().partition(|r| r.metric.is_key_range());
        (
            Some(share >= 0.5),
            format!(
                "both ({}): {} KeyRange, a hot partition ({}); {} the table's or the account's limit ({}), \
                 which raising capacity, not the key, fixes",
                seen[0].observer,
                percent(share),
                listed(&hot),
                percent(1.0 - share),
                listed(&table)
            ),
        )
    }
}

/// " from 10:03 to 10:11 UTC" (with the dates when the span crosses a day; " in the minute from 10:03 UTC"
/// for one minute).
fn span_words((from, until): (i64, i64)) -> String {
    let at = |t: i64| crate::model::trace::iso(t);
    let (a, b) = (at(from), at(until));
    let hm = |s: &str| s.get(11..16).unwrap_or_default().to_owned();
    let same_day = from.div_euclid(86_400) == (until - 1).div_euclid(86_400);
    let day = |s: &str| s.get(5..10).unwrap_or_default().to_owned();
    if until - from <= 60 {
        format!(" in the minute from {} UTC", hm(&a))
    } else if same_day {
        format!(" from {} to {} UTC", hm(&a), hm(&b))
    } else {
        format!(" from {} {} to {} {} UTC", day(&a), hm(&a), day(&b), hm(&b))
    }
}

fn one_key_from_capacity(c: &CapacityFacts) -> (Option<bool>, String) {
    let over = c.hottest_util() > 1.0;
    let within = c.table_util() <= 1.0;
    let dominant = c.hottest_top_key_share >= DOMINANT_SHARE_OF_BUCKET;
    let key = c.hottest_top_key.as_deref().unwrap_or("no key");
    let why = if !over {
        "no partition is over its limit"
    } else if !within {
        "the table is over its total: table-level throttling, not one key"
    } else if !dominant {
        "no single key is most of the hottest partition's demand"
    } else {
        "one key overloads one partition while the table has room"
    };
    (
        Some(over && within && dominant),
        format!(
            "{} · top key there {key} = {} of its demand; {why} (yes from: hottest partition over 100 %, table at \
             or under 100 %, one key ≥ {} of that partition)",
            capacity_line(c),
            percent(c.hottest_top_key_share),
            percent(DOMINANT_SHARE_OF_BUCKET),
        ),
    )
}
