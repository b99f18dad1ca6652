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

use serde::Serialize;

use super::keyset::{KeySet, SortKeyFacts};
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
    pub const ALL: [Self; 4] = [
        Self::ShardOrCache,
        Self::ItemCollection,
        Self::WriteShardPrefix,
        Self::AdaptiveCapacity,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Self::ShardOrCache => "Shard the key or cache the reads",
            Self::ItemCollection => "The item collection is hot: shard the key",
            Self::WriteShardPrefix => "Write-shard the prefix",
            Self::AdaptiveCapacity => "Adaptive capacity will most likely absorb it",
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
        }
    }

    /// The one-click fix the app can offer, if any.
    pub fn action(self) -> Option<Action> {
        match self {
            Self::ShardOrCache | Self::ItemCollection => Some(Action::ShardHotKeys),
            Self::WriteShardPrefix => Some(Action::ShardAllKeys),
            Self::AdaptiveCapacity => None,
        }
    }
}

/// A fix the caller can apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    ShardHotKeys,
    ShardAllKeys,
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

/// Answers supplied by the user for questions the data cannot answer (or to explore "what if").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct UserAnswers {
    pub one_key: Option<bool>,
    pub one_item: Option<bool>,
    pub low_cardinality: Option<bool>,
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
    /// Distinct physical keys (after sharding).
    pub distinct: usize,
    /// Hottest physical key, its writes, and its share of all writes.
    pub top_key: Option<(String, u64, f64)>,
    /// Writes of the next-hottest physical key.
    pub next_key_count: u64,
    /// The top key's bucket: its writes over the mean bucket, and the top key's share of that bucket.
    pub top_bucket_over_mean: f64,
    pub top_key_share_of_bucket: f64,
    /// Share of writes taken by the three hottest physical keys.
    pub top3_share: f64,
    /// Sort-key facts of the top key's logical key, when sort keys were loaded.
    pub top_key_items: Option<SortKeyFacts>,
    /// Whether the table has a local secondary index, when known.
    pub has_lsi: Option<bool>,
}

impl Evidence {
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
        Self {
            total: analysis.total,
            buckets: analysis.buckets.len(),
            distinct: analysis.physical_distinct,
            top_key: top.map(|t| (t.key.clone(), t.count, t.share)),
            next_key_count: analysis.top_keys.get(1).map_or(0, |k| k.count),
            top_bucket_over_mean: over_mean,
            top_key_share_of_bucket: share_of_bucket,
            top3_share: analysis.top_keys.iter().take(3).map(|k| k.share).sum(),
            top_key_items: top.and_then(|t| keys.sort_key_facts(t.id.key)),
            has_lsi: None,
        }
    }
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
                        "{key} has {} items (distinct sort keys){}",
                        f.items,
                        if f.only_increasing {
                            ", written in only-increasing sort-key order"
                        } else {
                            ""
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
                    "{} distinct keys for {} buckets (low below {limit}); top 3 keys take {} of writes (low from {})",
                    ev.distinct,
                    ev.buckets,
                    pct(ev.top3_share),
                    pct(LOW_CARDINALITY_TOP3_SHARE)
                ),
            )
        }
    }
}

/// Walks the tree from the root: each question answered by the user if they did, else by the data.
pub fn evaluate(ev: &Evidence, user: &UserAnswers) -> Path {
    if ev.total == 0 {
        return Path {
            path: Vec::new(),
            leaf: None,
            recommendation: "No keys yet: paste keys or open a file.".to_owned(),
        };
    }
    let mut path = Vec::new();
    let mut node = Node::Ask(TREE[0].question);
    loop {
        match node {
            Node::Leaf(leaf) => {
                return Path {
                    path,
                    leaf: Some(leaf),
                    recommendation: recommendation(leaf, ev),
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
                    Some(true) => node = b.yes,
                    Some(false) => node = b.no,
                    None => {
                        let (yes, no) = (leaf_title(b.yes), leaf_title(b.no));
                        return Path {
                            path,
                            leaf: None,
                            recommendation: format!(
                                "Answer \"{}\" to finish: yes leads to \"{yes}\", no to \"{no}\".",
                                q.text()
                            ),
                        };
                    }
                }
            }
        }
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
        if ev.top_key_items.is_some_and(|f| f.only_increasing) {
            blockers.push(
                "its sort key only increases, so every write lands at the end of the collection",
            );
        }
        if ev.has_lsi == Some(true) {
            blockers.push("the table has a local secondary index");
        }
        if blockers.is_empty() {
            text.push_str(" Split-for-heat can help here: nothing found that blocks it.");
        } else {
            text.push_str(" Split-for-heat cannot help: ");
            text.push_str(&blockers.join("; "));
            text.push('.');
        }
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
        };
        let path = evaluate(&ev, &UserAnswers::default());
        assert_eq!(path.leaf, Some(Leaf::AdaptiveCapacity));
        assert!(!path.visits(Question::OneItem));
        assert_eq!(Leaf::AdaptiveCapacity.action(), None);
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
        assert_eq!(leaves.len(), Leaf::ALL.len());
        for l in Leaf::ALL {
            assert!(leaves.contains(&l));
        }
        for q in Question::ALL {
            assert_eq!(branch(q).question, q);
        }
    }
}
