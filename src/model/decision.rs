//! The hot-partition decision tree, as data, answered from the data where the data can answer.
//!
//! From the AWS guidance on hot partitions ("Best practices for designing partition keys", "Burst and adaptive
//! capacity", "Using write sharding"):
//!
//! ```text
//! Throttling concentrated on one key?
//! ├─ yes: Is one item hot (one partition + sort key)?
//! │       ├─ yes: shard the key or cache the reads
//! │       └─ no:  the item collection is hot: shard the key (split-for-heat may help, unless the sort key
//! │               only increases or the table has an LSI)
//! └─ no:  Low-cardinality partition key?
//!         ├─ yes: write-shard the prefix
//!         └─ no:  adaptive capacity will most likely absorb it
//! ```
//!
//! "Throttling concentrated on one key?" is answered, in this order, from:
//! 1. an observed throttling reason ([`ThrottleReason`]): `…KeyRangeThroughputExceeded` is a hot partition
//!    (yes); `…ProvisionedThroughputExceeded`, `…AccountLimitExceeded` and `…MaxOnDemandThroughputExceeded`
//!    are table-level limits (no, and the recommendation says so);
//! 2. capacity, when a workload is known ([`CapacityFacts`]): yes when the hottest partition is over its
//!    per-partition limit while the table is within its total and one key is most of that partition's demand;
//! 3. the key counts alone: the top key's bucket is hot and one key dominates it.

use serde::Serialize;

use super::capacity::{CapacityFacts, ITEM_COLLECTION_LIMIT_BYTES, ThrottleReason};
use super::fmt::percent;
use super::keyset::{KeySet, SortKeyFacts};
use super::sortkey::TimeOrdered;
use super::stats::Analysis;

/// A bucket counts as hot from this many times the mean bucket.
pub const HOT_BUCKET_RATIO: f64 = 2.0;
/// One key "is" the hot bucket when it holds at least this share of the bucket's writes...
pub const DOMINANT_SHARE_OF_BUCKET: f64 = 0.5;
/// ...and at least this many times the writes of the next key.
pub const DOMINANT_OVER_NEXT: f64 = 2.0;
/// Fewer distinct keys than this many per bucket is low cardinality.
pub const LOW_CARDINALITY_KEYS_PER_BUCKET: usize = 4;
/// A handful of keys (the top three) taking at least this share of writes is low cardinality too.
pub const LOW_CARDINALITY_TOP3_SHARE: f64 = 0.5;
/// Fewer writes than this (or than [`MIN_WRITES_PER_BUCKET`] per bucket) are too few to judge skew: by chance
/// alone a bucket of a handful of writes is often twice the mean. Our own threshold, not an AWS number.
pub const MIN_WRITES_TO_JUDGE: u64 = 100;
/// See [`MIN_WRITES_TO_JUDGE`].
pub const MIN_WRITES_PER_BUCKET: u64 = 10;

/// Whether `total` writes over `buckets` buckets are too few for the tree (and the chart's colours) to judge.
pub fn too_few_to_judge(total: u64, buckets: usize) -> bool {
    total < MIN_WRITES_TO_JUDGE.max(MIN_WRITES_PER_BUCKET * buckets as u64)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Question {
    OneKey,
    OneItem,
    LowCardinality,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Leaf {
    ShardOrCache,
    ItemCollection,
    WriteShardPrefix,
    AdaptiveCapacity,
    /// Reached from "Throttling concentrated on one key?" = no when the data says the limit is the table's
    /// ([`TABLE_LEVEL`]).
    TableLimit,
}

/// Where an edge of the tree leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    Ask(Question),
    Leaf(Leaf),
}

/// One question of the tree and where each answer leads.
#[derive(Debug, Clone, Copy)]
pub struct Branch {
    pub question: Question,
    pub yes: Node,
    pub no: Node,
}

/// The whole tree; the first branch is the root.
pub const TREE: [Branch; 3] = [
    Branch {
        question: Question::OneKey,
        yes: Node::Ask(Question::OneItem),
        no: Node::Ask(Question::LowCardinality),
    },
    Branch {
        question: Question::OneItem,
        yes: Node::Leaf(Leaf::ShardOrCache),
        no: Node::Leaf(Leaf::ItemCollection),
    },
    Branch {
        question: Question::LowCardinality,
        yes: Node::Leaf(Leaf::WriteShardPrefix),
        no: Node::Leaf(Leaf::AdaptiveCapacity),
    },
];

/// The root's second "no": when the throttling is table-level (an observed `…ProvisionedThroughputExceeded`,
/// `…AccountLimitExceeded` or `…MaxOnDemandThroughputExceeded`, or a workload over the table's total), the key
/// design is not the problem, and the tree ends at its own leaf instead of asking about cardinality.
pub const TABLE_LEVEL: (Question, Leaf) = (Question::OneKey, Leaf::TableLimit);

pub fn branch(question: Question) -> &'static Branch {
    TREE.iter()
        .find(|b| b.question == question)
        .unwrap_or(&TREE[0])
}

impl Question {
    pub const ALL: [Self; 3] = [Self::OneKey, Self::OneItem, Self::LowCardinality];

    pub fn text(self) -> &'static str {
        match self {
            Self::OneKey => "Throttling concentrated on one key?",
            Self::OneItem => "Is one item hot (one partition + sort key)?",
            Self::LowCardinality => {
                "Low-cardinality partition key (few distinct values, or a few values taking most writes)?"
            }
        }
    }
}

impl Leaf {
    pub const ALL: [Self; 5] = [
        Self::ShardOrCache,
        Self::ItemCollection,
        Self::WriteShardPrefix,
        Self::AdaptiveCapacity,
        Self::TableLimit,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Self::ShardOrCache => "Shard the key or cache the reads",
            Self::ItemCollection => "The item collection is hot: shard the key",
            Self::WriteShardPrefix => "Write-shard the prefix",
            Self::AdaptiveCapacity => "Adaptive capacity will most likely absorb it",
            Self::TableLimit => "A table-level limit: raise capacity, not the key",
        }
    }

    /// What to do, in plain words.
    pub fn advice(self) -> &'static str {
        match self {
            Self::ShardOrCache => {
                "One item takes the traffic and no partition split can divide one item: a single item is capped at \
                 3,000 reads and 1,000 writes per second. Spread its writes over N suffixed keys \
                 (write sharding) and sum them on read, or put a cache (DAX, ElastiCache) in front of its reads."
            }
            Self::ItemCollection => {
                "Many items under one partition key share one partition. Add a suffix to the partition key so the \
                 collection spreads over partitions; reads then query each suffix and merge."
            }
            Self::WriteShardPrefix => {
                "A few key values carry the writes, so only a few partitions can ever work. Add a suffix (random or \
                 calculated) to those values so each spreads over N partitions."
            }
            Self::AdaptiveCapacity => {
                "Writes spread over many keys. DynamoDB's adaptive capacity and burst capacity absorb moderate \
                 unevenness; watch ThrottledRequests and Contributor Insights rather than redesigning the key."
            }
            Self::TableLimit => {
                "The whole table is at a limit, not one partition: reshaping the key alone will not stop the \
                 throttling. Raise the table's capacity (or let auto scaling or on-demand do it), or spread the \
                 load over time."
            }
        }
    }

    /// The one-click fix the app can offer, if any.
    pub fn action(self) -> Option<Action> {
        match self {
            Self::ShardOrCache | Self::ItemCollection => Some(Action::ShardHotKeys),
            Self::WriteShardPrefix => Some(Action::ShardAllKeys),
            Self::AdaptiveCapacity | Self::TableLimit => None,
        }
    }
}

/// A fix the caller can apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    ShardHotKeys,
    ShardAllKeys,
    /// Sharding is on but a shard is still hot: double the shard count.
    MoreShards,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    Yes,
    No,
    Unknown,
}

impl Answer {
    fn from_bool(b: bool) -> Self {
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

/// The facts the tree is answered from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    pub total: u64,
    pub buckets: usize,
    /// Distinct logical keys (as loaded, before sharding): cardinality is a property of the key design, so the
    /// suffixes of one sharded key do not count as many values.
    pub distinct: usize,
    /// Hottest physical key, its writes, and its share of all writes.
    pub top_key: Option<(String, u64, f64)>,
    /// Writes of the next-hottest physical key.
    pub next_key_count: u64,
    /// The top key's bucket: its writes over the mean bucket, and the top key's share of that bucket.
    pub top_bucket_over_mean: f64,
    pub top_key_share_of_bucket: f64,
    /// Share of writes taken by the three hottest logical keys, each counted by its hottest physical key (so
    /// a sharded key counts by its hottest shard, and the shards of one key are one value).
    pub top3_share: f64,
    /// Sort-key facts of the top key's logical key, when sort keys were loaded.
    pub top_key_items: Option<SortKeyFacts>,
    /// Whether the table has a local secondary index, when known.
    pub has_lsi: Option<bool>,
    /// Per-partition capacity, when a workload is known.
    pub capacity: Option<CapacityFacts>,
    /// The throttling reason DynamoDB reported, when known.
    pub throttle_reason: Option<ThrottleReason>,
    /// Mean item size in bytes, when a workload gives one (for the item-collection size).
    pub item_bytes: Option<f64>,
    /// The top key's items measured while loading (bytes of their JSON together), when the input carried
    /// item sizes: the item-collection size without assuming a mean.
    pub top_key_bytes: Option<u64>,
    /// The top key's sort keys look time-ordered by their values (an inference, for inputs in read order).
    pub top_key_time: Option<TimeOrdered>,
    /// The shard plan in effect, when one is.
    pub sharding: Option<ShardFacts>,
    /// A bucket well above the mean because shards of one key landed together (see `model::heat`), in words.
    pub collision: Option<String>,
}

/// The shard plan the evidence was computed under.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShardFacts {
    pub shards: u32,
    /// Every key is sharded (not only hot ones).
    pub all_keys: bool,
    /// The hottest physical key is a shard of a sharded key.
    pub top_key_sharded: bool,
    /// Physical keys after sharding.
    pub physical_distinct: usize,
}

impl Evidence {
    /// Estimated size of the top key's item collection: its items as measured, else its items × the mean
    /// item size.
    pub fn collection_bytes(&self) -> Option<f64> {
        if let Some(b) = self.top_key_bytes {
            return Some(b as f64);
        }
        let items = self.top_key_items?.items;
        Some(items as f64 * self.item_bytes?)
    }

    /// Collects the evidence from an analysis of `keys`.
    pub fn from_analysis(keys: &KeySet, analysis: &Analysis) -> Self {
        let top = analysis.top_keys.first();
        let mean = if analysis.buckets.is_empty() {
            0.0
        } else {
            analysis.total as f64 / analysis.buckets.len() as f64
        };
        let (over_mean, share_of_bucket) = top
            .and_then(|t| {
                let b = analysis
                    .bucket_top
                    .iter()
                    .position(|list| list.first().is_some_and(|k| k.id == t.id))?;
                let count = analysis.buckets[b];
                Some((
                    if mean > 0.0 { count as f64 / mean } else { 0.0 },
                    if count > 0 {
                        t.count as f64 / count as f64
                    } else {
                        0.0
                    },
                ))
            })
            .unwrap_or((0.0, 0.0));
        let top_key_items = top.and_then(|t| keys.sort_key_facts(t.id.key));
        Self {
            total: analysis.total,
            buckets: analysis.buckets.len(),
            distinct: analysis.distinct,
            top_key: top.map(|t| (t.key.clone(), t.count, t.share)),
            next_key_count: analysis.top_keys.get(1).map_or(0, |k| k.count),
            top_bucket_over_mean: over_mean,
            top_key_share_of_bucket: share_of_bucket,
            top3_share: top_values_share(analysis, 3),
            top_key_items,
            // Only when the order of writes is unknown, and only for a collection (one item has no order).
            top_key_time: top
                .filter(|_| !keys.write_ordered() && top_key_items.is_some_and(|f| f.items >= 2))
                .and_then(|t| keys.sort_key_time_pattern(t.id.key)),
            sharding: None,
            collision: None,
            has_lsi: None,
            capacity: None,
            throttle_reason: None,
            item_bytes: None,
            top_key_bytes: top.and_then(|t| keys.item_bytes(t.id.key)).map(|b| b.bytes),
        }
    }
}

/// The share of writes of the `n` hottest logical keys, each by its hottest physical key, from the analysis'
/// top list (physical keys, hottest first). When that list holds fewer than `n` logical keys, each missing one
/// counts as the smallest listed share: an upper bound, since every key not listed writes no more than that.
fn top_values_share(analysis: &Analysis, n: usize) -> f64 {
    let mut seen: Vec<u32> = Vec::with_capacity(n);
    let mut sum = 0.0;
    for k in &analysis.top_keys {
        if seen.len() == n {
            break;
        }
        if !seen.contains(&k.id.key) {
            seen.push(k.id.key);
            sum += k.share;
        }
    }
    let more = analysis.physical_distinct > analysis.top_keys.len();
    if seen.len() < n && more {
        let smallest = analysis.top_keys.last().map_or(0.0, |k| k.share);
        let missing = (n - seen.len()).min(analysis.distinct.saturating_sub(seen.len()));
        sum += smallest * missing as f64;
    }
    sum
}

/// One answered (or unanswerable) question on the path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    #[serde(skip)]
    pub id: Question,
    pub question: &'static str,
    pub answer: Answer,
    /// The numbers that answered it, or why the data cannot.
    pub evidence: String,
    /// The answer came from the user, not the data.
    pub supplied: bool,
}

/// The way through the tree for some evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Path {
    pub path: Vec<Step>,
    /// The leaf reached; `None` when a question on the way is unknown.
    #[serde(skip)]
    pub leaf: Option<Leaf>,
    pub recommendation: String,
    /// Why the path is not advice: too few writes to judge. The leaf is then what these writes suggest, and
    /// no fix is offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
    /// The one-click fix for this data, if any: the leaf's, unless the input is too small to judge or the fix
    /// is already in effect.
    #[serde(skip)]
    pub action: Option<Action>,
}

impl Path {
    pub fn visits(&self, q: Question) -> bool {
        self.path.iter().any(|s| s.id == q)
    }
    pub fn answer(&self, q: Question) -> Option<Answer> {
        self.path.iter().find(|s| s.id == q).map(|s| s.answer)
    }
}

fn pct(x: f64) -> String {
    let p = x * 100.0;
    if p >= 10.0 || p == 0.0 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// Answers one question from the evidence: the answer (if the data gives one) and its numbers.
pub fn answer_from_data(q: Question, ev: &Evidence) -> (Option<bool>, String) {
    match q {
        Question::OneKey => {
            let Some((key, count, share)) = &ev.top_key else {
                return (Some(false), "no keys".to_owned());
            };
            if let Some(reason) = ev.throttle_reason {
                return one_key_from_reason(reason, ev);
            }
            if let Some(c) = &ev.capacity {
                return one_key_from_capacity(c);
            }
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
                    "top key {key} = {} of writes, its bucket {:.1}× the mean bucket ({} of that bucket), {next} \
                     (yes from ≥ {HOT_BUCKET_RATIO}× the mean, ≥ {} of the bucket, ≥ {DOMINANT_OVER_NEXT}× the next)",
                    pct(*share),
                    ev.top_bucket_over_mean,
                    pct(ev.top_key_share_of_bucket),
                    pct(DOMINANT_SHARE_OF_BUCKET),
                ),
            )
        }
        Question::OneItem => {
            let key = ev.top_key.as_ref().map_or("the top key", |k| k.0.as_str());
            match ev.top_key_items {
                Some(f) if f.items == 1 => (
                    Some(true),
                    format!("every write to {key} goes to one item (one sort key)"),
                ),
                Some(f) => (
                    Some(false),
                    format!(
                        "{key} has {} items (distinct sort keys){}{}",
                        f.items,
                        if f.only_increasing {
                            ", written in only-increasing sort-key order".to_owned()
                        } else if let Some(t) = &ev.top_key_time {
                            format!("; its {}", t.describe())
                        } else {
                            String::new()
                        },
                        match (ev.top_key_bytes, ev.collection_bytes()) {
                            (Some(_), Some(b)) => format!(
                                "; its item collection ≈ {} ({} items, sizes measured from the data)",
                                bytes(b),
                                f.items
                            ),
                            (None, Some(b)) => format!(
                                "; its item collection ≈ {} ({} items × {})",
                                bytes(b),
                                f.items,
                                bytes(ev.item_bytes.unwrap_or(0.0))
                            ),
                            _ => String::new(),
                        }
                    ),
                ),
                None => (
                    None,
                    "no sort keys in the data: answer from what you know of the table".to_owned(),
                ),
            }
        }
        Question::LowCardinality => {
            let limit = LOW_CARDINALITY_KEYS_PER_BUCKET * ev.buckets.max(1);
            let yes = ev.distinct < limit || ev.top3_share >= LOW_CARDINALITY_TOP3_SHARE;
            (
                Some(yes),
                format!(
                    "{} distinct keys (before sharding) for {} buckets (low below {limit}); top 3 keys take {} of \
                     writes (low from {})",
                    ev.distinct,
                    ev.buckets,
                    pct(ev.top3_share),
                    pct(LOW_CARDINALITY_TOP3_SHARE)
                ),
            )
        }
    }
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

/// Bytes in words: "980 B", "4.2 MB", "12.5 GB" (1 KB = 1,024 bytes).
pub fn bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = b;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// Walks the tree from the root: each question answered by the user if they did, else by the data. The user's
/// table facts (`has_lsi`, `throttle_reason`) take precedence over the evidence's.
pub fn evaluate(ev: &Evidence, user: &UserAnswers) -> Path {
    let merged;
    let ev = if user.has_lsi.is_some() || user.throttle_reason.is_some() {
        merged = Evidence {
            has_lsi: user.has_lsi.or(ev.has_lsi),
            throttle_reason: user.throttle_reason.or(ev.throttle_reason),
            ..ev.clone()
        };
        &merged
    } else {
        ev
    };
    if ev.total == 0 {
        return Path {
            path: Vec::new(),
            leaf: None,
            recommendation: "No keys yet: paste keys or open a file.".to_owned(),
            caveat: None,
            action: None,
        };
    }
    let caveat = too_few_to_judge(ev.total, ev.buckets).then(|| {
        format!(
            "Too few writes to judge: {} over {} buckets (at least {} are needed before a bucket's share means \
             more than chance).",
            plural(ev.total, "write"),
            ev.buckets,
            MIN_WRITES_TO_JUDGE.max(MIN_WRITES_PER_BUCKET * ev.buckets as u64)
        )
    });
    let mut path = Vec::new();
    let mut node = Node::Ask(TREE[0].question);
    loop {
        match node {
            Node::Leaf(leaf) => {
                let (recommendation, action) = match &caveat {
                    Some(c) => (
                        format!(
                            "{c} These few writes lead to \"{}\"; load more of the table's traffic before acting \
                             on it.",
                            leaf.title()
                        ),
                        None,
                    ),
                    None => (recommendation(leaf, ev), action_for(leaf, ev)),
                };
                return Path {
                    path,
                    leaf: Some(leaf),
                    recommendation,
                    caveat,
                    action,
                };
            }
            Node::Ask(q) => {
                let (data, evidence) = answer_from_data(q, ev);
                let supplied = user.get(q);
                let answer = supplied.or(data);
                path.push(Step {
                    id: q,
                    question: q.text(),
                    answer: answer.map_or(Answer::Unknown, Answer::from_bool),
                    evidence,
                    supplied: supplied.is_some(),
                });
                let b = branch(q);
                match answer {
                    Some(false) if q == TABLE_LEVEL.0 && supplied.is_none() && table_level(ev) => {
                        node = Node::Leaf(TABLE_LEVEL.1);
                    }
                    Some(true) => node = b.yes,
                    Some(false) => node = b.no,
                    None => {
                        let (yes, no) = (leaf_title(b.yes), leaf_title(b.no));
                        let mut recommendation = format!(
                            "Answer \"{}\" to finish: yes leads to \"{yes}\", no to \"{no}\".",
                            q.text()
                        );
                        if let Some(c) = &caveat {
                            recommendation = format!("{c} {recommendation}");
                        }
                        return Path {
                            path,
                            leaf: None,
                            recommendation,
                            caveat,
                            action: None,
                        };
                    }
                }
            }
        }
    }
}

/// A count with thousands separators: "1,204".
pub fn grouped(n: u64) -> String {
    super::fmt::grouped(n)
}

/// "1 write", "1,204 writes": a count and its noun, plural unless the count is one.
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", grouped(n))
    }
}

/// The data says the throttling is the table's: an observed table-level reason, or a workload whose table is
/// over its total while a partition is over its limit.
fn table_level(ev: &Evidence) -> bool {
    ev.throttle_reason.is_some_and(|r| !r.is_key_range())
        || ev
            .capacity
            .as_ref()
            .is_some_and(|c| c.table_util() > 1.0 && c.hottest_util() > 1.0)
}

/// The leaf's fix, unless it is in effect already: with the hot key sharded and a shard still hot, more
/// shards; with every key sharded, nothing more to click.
fn action_for(leaf: Leaf, ev: &Evidence) -> Option<Action> {
    let action = leaf.action()?;
    let Some(s) = ev.sharding else {
        return Some(action);
    };
    match action {
        Action::ShardHotKeys if s.top_key_sharded => {
            (s.shards < super::shard::MAX_SHARDS).then_some(Action::MoreShards)
        }
        Action::ShardAllKeys if s.all_keys => None,
        other => Some(other),
    }
}

fn leaf_title(node: Node) -> &'static str {
    match node {
        Node::Leaf(l) => l.title(),
        Node::Ask(q) => q.text(),
    }
}

fn recommendation(leaf: Leaf, ev: &Evidence) -> String {
    let mut text = format!("{}. {}", leaf.title(), leaf.advice());
    if leaf == Leaf::ItemCollection {
        let mut blockers = Vec::new();
        let mut likely = Vec::new();
        if ev.top_key_items.is_some_and(|f| f.only_increasing) {
            blockers.push(
                "its sort key only increases, so every write lands at the end of the collection"
                    .to_owned(),
            );
        } else if let Some(t) = &ev.top_key_time {
            likely.push(format!(
                "its {}: if new items are written at the end of the range, every write lands there",
                t.describe()
            ));
        }
        if ev.has_lsi == Some(true) {
            let size = ev
                .collection_bytes()
                .map(|b| {
                    let limit = ITEM_COLLECTION_LIMIT_BYTES as f64;
                    if b > limit {
                        format!(
                            " (its item collection, ≈ {}, is over the 10 GB an LSI allows: writes to it fail with \
                             ItemCollectionSizeLimitExceededException)",
                            bytes(b)
                        )
                    } else {
                        format!(
                            " (its item collection ≈ {} = {} of the 10 GB an LSI allows)",
                            bytes(b),
                            percent(b / limit)
                        )
                    }
                })
                .unwrap_or_default();
            blockers.push(format!("the table has a local secondary index{size}"));
        }
        if !blockers.is_empty() {
            text.push_str(" Split-for-heat cannot help: ");
            blockers.extend(likely);
            text.push_str(&blockers.join("; "));
            text.push('.');
        } else if !likely.is_empty() {
            text.push_str(" Split-for-heat may not help: ");
            text.push_str(&likely.join("; "));
            text.push('.');
        } else {
            text.push_str(" Split-for-heat can help here: nothing found that blocks it.");
        }
    }
    if let Some(s) = ev.sharding {
        match leaf {
            Leaf::ShardOrCache | Leaf::ItemCollection if s.top_key_sharded => {
                text.push_str(&format!(
                    " Sharding is on ({} shards) and one shard still takes most of a hot bucket: more shards \
                     spread it further (each shard is one more Query on read).",
                    s.shards
                ));
            }
            Leaf::WriteShardPrefix if s.all_keys => text.push_str(&format!(
                " Every key is sharded already ({} shards, {} physical keys): the few values now spread over more \
                 partitions.",
                s.shards,
                grouped(s.physical_distinct as u64)
            )),
            _ => {}
        }
    }
    if let Some(note) = &ev.collision
        && matches!(leaf, Leaf::AdaptiveCapacity | Leaf::WriteShardPrefix)
    {
        text.push_str(&format!(
            " One bucket stays uneven where shards collide ({note}): more shards, or a calculated suffix, spread \
             them further."
        ));
    }
    if leaf == Leaf::AdaptiveCapacity
        && let Some(c) = ev.capacity.as_ref().filter(|c| c.hottest_util() > 1.0)
    {
        text.push_str(&format!(
            " Partition {} is over its limit ({}) with no single key behind it: split-for-heat divides such a \
             partition after some minutes of sustained load; until then its excess requests throttle.",
            c.hottest_partition,
            percent(c.hottest_util())
        ));
    }
    if let Some(reason) = ev.throttle_reason.filter(|r| !r.is_key_range()) {
        let raise = match reason.cause {
            super::capacity::ThrottleCause::ProvisionedThroughputExceeded => {
                "provisioned units (or let auto scaling raise them)"
            }
            super::capacity::ThrottleCause::AccountLimitExceeded => {
                "account's per-table quota (Service Quotas)"
            }
            _ => "table's maximum on-demand throughput",
        };
        if leaf == Leaf::TableLimit {
            text.push_str(&format!(" The observed {reason}: raise the {raise}."));
        } else {
            text.push_str(&format!(
                " Note: the observed {reason} is a table-level limit, not a hot partition: raise the {raise}, or \
                 spread the load over time; reshaping the key alone will not stop it."
            ));
        }
    } else if leaf == Leaf::TableLimit
        && let Some(c) = &ev.capacity
    {
        text.push_str(&format!(
            " The workload puts the table at {} of its capacity.",
            percent(c.table_util())
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hot_key_evidence() -> Evidence {
        Evidence {
            total: 1000,
            buckets: 8,
            distinct: 50,
            top_key: Some(("BOARD#global".into(), 710, 0.71)),
            next_key_count: 20,
            top_bucket_over_mean: 5.9,
            top_key_share_of_bucket: 0.96,
            top3_share: 0.75,
            top_key_items: None,
            has_lsi: None,
            capacity: None,
            throttle_reason: None,
            item_bytes: None,
            top_key_bytes: None,
            top_key_time: None,
            sharding: None,
            collision: None,
        }
    }

    #[test]
    fn one_item_hot_reaches_shard_or_cache() {
        let ev = Evidence {
            top_key_items: Some(SortKeyFacts {
                items: 1,
                only_increasing: false,
            }),
            ..hot_key_evidence()
        };
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.leaf, Some(Leaf::ShardOrCache));
        assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
        assert!(
            path.path[0]
                .evidence
                .contains("BOARD#global = 71 % of writes"),
            "{}",
            path.path[0].evidence
        );
        assert!(
            path.recommendation
                .starts_with("Shard the key or cache the reads")
        );
    }

    #[test]
    fn hot_collection_names_its_blockers() {
        let ev = Evidence {
            top_key_items: Some(SortKeyFacts {
                items: 400,
                only_increasing: true,
            }),
            has_lsi: Some(true),
            ..hot_key_evidence()
        };
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.leaf, Some(Leaf::ItemCollection));
        assert!(path.recommendation.contains("sort key only increases"));
        assert!(path.recommendation.contains("local secondary index"));
        let fine = Evidence {
            top_key_items: Some(SortKeyFacts {
                items: 400,
                only_increasing: false,
            }),
            ..hot_key_evidence()
        };
        assert!(
            evaluate(&fine, &UserAnswers::default())
                .recommendation
                .contains("can help")
        );
    }

    #[test]
    fn unknown_stops_until_the_user_answers() {
        let ev = hot_key_evidence();
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.leaf, None);
        assert_eq!(path.answer(Question::OneItem), Some(Answer::Unknown));
        let answered = evaluate(
            &ev,
            &UserAnswers {
                one_item: Some(false),
                ..UserAnswers::default()
            },
        );
        assert_eq!(answered.leaf, Some(Leaf::ItemCollection));
        assert!(answered.path[1].supplied);
    }

    #[test]
    fn few_values_reach_write_shard_the_prefix() {
        let ev = Evidence {
            total: 1000,
            buckets: 8,
            distinct: 3,
            top_key: Some(("status=OPEN".into(), 500, 0.5)),
            next_key_count: 300,
            top_bucket_over_mean: 4.0,
            top_key_share_of_bucket: 1.0,
            top3_share: 1.0,
            top_key_items: None,
            has_lsi: None,
            capacity: None,
            throttle_reason: None,
            item_bytes: None,
            top_key_bytes: None,
            top_key_time: None,
            sharding: None,
            collision: None,
        };
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
        assert_eq!(path.leaf, Some(Leaf::WriteShardPrefix));
        assert_eq!(Leaf::WriteShardPrefix.action(), Some(Action::ShardAllKeys));
    }

    #[test]
    fn spread_keys_reach_adaptive_capacity() {
        let ev = Evidence {
            total: 10_000,
            buckets: 8,
            distinct: 5_000,
            top_key: Some(("USER#1".into(), 5, 0.0005)),
            next_key_count: 5,
            top_bucket_over_mean: 1.05,
            top_key_share_of_bucket: 0.004,
            top3_share: 0.0015,
            top_key_items: None,
            has_lsi: None,
            capacity: None,
            throttle_reason: None,
            item_bytes: None,
            top_key_bytes: None,
            top_key_time: None,
            sharding: None,
            collision: None,
        };
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.leaf, Some(Leaf::AdaptiveCapacity));
        assert!(!path.visits(Question::OneItem));
        assert_eq!(Leaf::AdaptiveCapacity.action(), None);
    }

    fn capacity_facts(table: f64, hottest: f64, share: f64) -> CapacityFacts {
        CapacityFacts {
            table_read_util: 0.0,
            table_write_util: table,
            hottest_partition: 3,
            hottest_read_util: 0.0,
            hottest_write_util: hottest,
            hottest_top_key: Some("BOARD#global".into()),
            hottest_top_key_share: share,
            throttled_units: 0.0,
        }
    }

    #[test]
    fn capacity_answers_one_key_with_its_numbers() {
        let ev = Evidence {
            capacity: Some(capacity_facts(0.05, 1.4, 0.96)),
            ..hot_key_evidence()
        };
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
        assert!(
            path.path[0].evidence.contains(
                "table at 5.0 % of its capacity · hottest partition 3 at 140 % of its write limit"
            ),
            "{}",
            path.path[0].evidence
        );
        // The counts say one key is hot, but no partition is over its limit: capacity decides.
        let calm = Evidence {
            capacity: Some(capacity_facts(0.05, 0.6, 0.96)),
            ..hot_key_evidence()
        };
        let path = evaluate(&calm, &UserAnswers::default());
        assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
        assert!(
            path.path[0]
                .evidence
                .contains("no partition is over its limit")
        );
        // Over its limit, but the whole table is over too: table-level.
        let table = Evidence {
            capacity: Some(capacity_facts(1.5, 1.4, 0.96)),
            ..hot_key_evidence()
        };
        let path = evaluate(&table, &UserAnswers::default());
        assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
        assert!(path.path[0].evidence.contains("table-level"));
        // Over its limit with room in the table, but many keys share that partition.
        let shared = Evidence {
            capacity: Some(capacity_facts(0.3, 1.4, 0.2)),
            ..hot_key_evidence()
        };
        assert_eq!(
            evaluate(&shared, &UserAnswers::default()).answer(Question::OneKey),
            Some(Answer::No)
        );
    }

    #[test]
    fn an_observed_reason_steers_the_first_question() {
        let spread = Evidence {
            total: 10_000,
            buckets: 8,
            distinct: 5_000,
            top_key: Some(("USER#1".into(), 5, 0.0005)),
            next_key_count: 5,
            top_bucket_over_mean: 1.05,
            top_key_share_of_bucket: 0.004,
            top3_share: 0.0015,
            ..Evidence::default()
        };
        let key_range = UserAnswers {
            throttle_reason: Some("TableWriteKeyRangeThroughputExceeded".parse().unwrap()),
            ..UserAnswers::default()
        };
        let path = evaluate(&spread, &key_range);
        assert_eq!(path.answer(Question::OneKey), Some(Answer::Yes));
        assert!(path.path[0].evidence.contains("hot partition"));

        let table_level = UserAnswers {
            throttle_reason: Some("TableWriteProvisionedThroughputExceeded".parse().unwrap()),
            ..UserAnswers::default()
        };
        let hot = Evidence {
            capacity: Some(capacity_facts(1.2, 1.4, 0.96)),
            ..hot_key_evidence()
        };
        let path = evaluate(&hot, &table_level);
        assert_eq!(path.answer(Question::OneKey), Some(Answer::No));
        assert!(path.path[0].evidence.contains("table-level"));
        assert!(path.path[0].evidence.contains("table at 120 %"));
        assert!(path.recommendation.contains("table-level limit"));
        assert!(path.recommendation.contains("provisioned units"));
        for reason in [
            "TableReadAccountLimitExceeded",
            "IndexWriteMaxOnDemandThroughputExceeded",
        ] {
            let user = UserAnswers {
                throttle_reason: Some(reason.parse().unwrap()),
                ..UserAnswers::default()
            };
            assert_eq!(
                evaluate(&hot, &user).answer(Question::OneKey),
                Some(Answer::No),
                "{reason}"
            );
        }
    }

    #[test]
    fn the_collection_leaf_reports_its_size_against_the_lsi_limit() {
        let ev = Evidence {
            top_key_items: Some(SortKeyFacts {
                items: 2_000_000,
                only_increasing: true,
            }),
            item_bytes: Some(8192.0),
            top_key_bytes: None,
            capacity: Some(capacity_facts(0.1, 2.0, 0.9)),
            ..hot_key_evidence()
        };
        let user = UserAnswers {
            has_lsi: Some(true),
            ..UserAnswers::default()
        };
        let path = evaluate(&ev, &user);
        assert_eq!(path.leaf, Some(Leaf::ItemCollection));
        assert!(
            path.path[1].evidence.contains("item collection ≈ 15.3 GB"),
            "{}",
            path.path[1].evidence
        );
        assert!(path.recommendation.contains("sort key only increases"));
        assert!(
            path.recommendation
                .contains("ItemCollectionSizeLimitExceededException"),
            "{}",
            path.recommendation
        );
        let small = Evidence {
            item_bytes: Some(1000.0),
            top_key_bytes: None,
            top_key_items: Some(SortKeyFacts {
                items: 1000,
                only_increasing: false,
            }),
            ..ev
        };
        let path = evaluate(&small, &user);
        assert!(
            path.recommendation.contains("of the 10 GB an LSI allows"),
            "{}",
            path.recommendation
        );
        // Without the switch, no LSI blocker.
        assert!(
            evaluate(&small, &UserAnswers::default())
                .recommendation
                .contains("can help")
        );
        // Sizes measured while loading win over items × the mean.
        let measured = Evidence {
            top_key_bytes: Some(11 * 1024 * 1024 * 1024),
            ..small
        };
        let path = evaluate(&measured, &user);
        assert!(
            path.path[1]
                .evidence
                .contains("item collection ≈ 11.0 GB (1000 items, sizes measured from the data)"),
            "{}",
            path.path[1].evidence
        );
    }

    #[test]
    fn the_tree_reaches_every_leaf_and_every_question() {
        let mut leaves: Vec<Leaf> = Vec::new();
        for b in TREE {
            for node in [b.yes, b.no] {
                if let Node::Leaf(l) = node {
                    leaves.push(l);
                }
            }
        }
        leaves.push(TABLE_LEVEL.1);
        assert_eq!(leaves.len(), Leaf::ALL.len());
        for l in Leaf::ALL {
            assert!(leaves.contains(&l));
        }
        for q in Question::ALL {
            assert_eq!(branch(q).question, q);
        }
    }
}
