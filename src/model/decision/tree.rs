//! The tree as data: its questions, its leaves (each with its advice and one-click fix) and where each answer
//! leads ([`TREE`]).

use serde::Serialize;

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
