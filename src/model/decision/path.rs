//! The walk through the tree ([`evaluate`]): each question answered by the user or the data, to a leaf and its
//! recommendation, or to the first question nobody can answer.

use serde::Serialize;

use super::advice::recommendation;
use super::answers::{Answer, UserAnswers, answer_from_data};
use super::tree::{Action, Leaf, Node, Question, TABLE_LEVEL, TREE, branch};
use super::{Evidence, MIN_WRITES_PER_BUCKET, MIN_WRITES_TO_JUDGE, too_few_to_judge};
use crate::model::fmt::plural;

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
    let caveat = caveat(ev);
    let mut path = Vec::new();
    let mut node = Node::Ask(TREE[0].question);
    loop {
        let q = match node {
            Node::Leaf(leaf) => return at_leaf(path, leaf, caveat, ev),
            Node::Ask(q) => q,
        };
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
        // Spread keys while throttling was observed: adaptive capacity did not absorb it, the limit is the
        // table's (unless the user says otherwise).
        let observed = ev.observed_throttling.is_some_and(|n| n > 0.0);
        node = match answer {
            Some(false)
                if b.no == Node::Leaf(Leaf::AdaptiveCapacity) && observed && supplied.is_none() =>
            {
                Node::Leaf(Leaf::TableLimit)
            }
            Some(false) if q == TABLE_LEVEL.0 && supplied.is_none() && table_level(ev) => {
                Node::Leaf(TABLE_LEVEL.1)
            }
            Some(true) => b.yes,
            Some(false) => b.no,
            None => return unanswered(path, q, caveat),
        };
    }
}

/// Why the path is not advice, when the writes are too few to judge.
fn caveat(ev: &Evidence) -> Option<String> {
    too_few_to_judge(ev.total, ev.buckets).then(|| {
        let n = ev.noun();
        format!(
            "Too few {n}s to judge: {} over {} buckets (at least {} are needed before a bucket's share means \
             more than chance).",
            plural(ev.total, ev.noun()),
            ev.buckets,
            MIN_WRITES_TO_JUDGE.max(MIN_WRITES_PER_BUCKET * ev.buckets as u64)
        )
    })
}

/// The path that reached `leaf`: its recommendation and fix, or with a caveat, what the few writes suggest.
fn at_leaf(path: Vec<Step>, leaf: Leaf, caveat: Option<String>, ev: &Evidence) -> Path {
    let (recommendation, action) = match &caveat {
        Some(c) => (
            format!(
                "{c} These few {}s lead to \"{}\"; load more of the table's traffic before acting on it.",
                ev.noun(),
                leaf.title()
            ),
            None,
        ),
        None => (recommendation(leaf, ev), action_for(leaf, ev)),
    };
    Path {
        path,
        leaf: Some(leaf),
        recommendation,
        caveat,
        action,
    }
}

/// The path that stops at `q`, which neither the user nor the data answers.
fn unanswered(path: Vec<Step>, q: Question, caveat: Option<String>) -> Path {
    let b = branch(q);
    let (yes, no) = (leaf_title(b.yes), leaf_title(b.no));
    let mut recommendation = format!(
        "Answer \"{}\" to finish: yes leads to \"{yes}\", no to \"{no}\".",
        q.text()
    );
    if let Some(c) = &caveat {
        recommendation = format!("{c} {recommendation}");
    }
    Path {
        path,
        leaf: None,
        recommendation,
        caveat,
        action: None,
    }
}

/// The data says the throttling is the table's: an observed table-level reason, or a workload whose table is
/// over its total while a partition is over its limit.
fn table_level(ev: &Evidence) -> bool {
    ev.table_level_reason().is_some()
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
            (s.shards < crate::model::shard::MAX_SHARDS).then_some(Action::MoreShards)
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
