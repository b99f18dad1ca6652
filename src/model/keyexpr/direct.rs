//! A key expression compiled against a loader's extracted slots ([`Direct`]), so a loader that can read a
//! value in place (a string's text where it lies in the input line) builds the key with no [`Value`] made.
//!
//! Only the common shapes are compiled: literal text and placeholders `{attr}` or `{attr.N}` (a whole-number
//! index into a set or list) shown as text, `:first N` or `:hash N`. Anything else (`{random N}`, the date
//! formats, deeper paths, a map key) gives no [`Direct`], and the loader makes [`Value`]s as before. Per item,
//! [`Direct::eval_into`] gives up (`false`) wherever [`Expr::eval_into`] would not give exactly the same key:
//! a value the reader does not take in place, a missing attribute, an empty or too long key. The loader then
//! reads the item's values and evaluates the expression, which gives the key or the error message.
//!
//! Why: re-keying 2,000,000 export lines by `{pk}#{status}#{tags.0}` (`shardlens-bench extract`) spent about
//! 300 ms of CPU making, parking and walking each item's values (`perf record`: `simple_value`,
//! `Scratch::clear`, `Spare::string_in`, `Expr::eval_into`, `render`, `RootValues::get`, against the plain
//! load's whole 1.1 s of CPU). Built in place, the load went 0.89 -> 0.71 s (1.63× -> 1.28× the plain load),
//! and the same items as plain JSON lines 1.27 -> 0.84 s.

use super::{Expr, Format, MAX_PARTITION_KEY_BYTES, Number, Part, push_first, push_hash};

/// A value read in place: a string's text, or a number's text as written (canonicalised here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar<'a> {
    S(&'a str),
    N(&'a str),
}

/// How a compiled placeholder shows its value: the formats of [`Format`] a string's or number's canonical text
/// is all that is needed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Show {
    Text,
    First(u32),
    Hash(u32),
}

impl Show {
    /// Writes `text` (a string's text or a number's canonical text: both are their canonical bytes) as
    /// `render` writes such a value.
    fn push(self, text: &str, out: &mut String) {
        match self {
            Self::Text => out.push_str(text),
            Self::First(n) => push_first(text, n, out),
            Self::Hash(n) => push_hash(text.as_bytes(), n, out),
        }
    }
}

/// One piece of a compiled expression.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DirectPart {
    Text(String),
    /// The value in extracted slot `slot` (member `index` of a set or list when given), shown as `show` says.
    Slot {
        slot: usize,
        index: Option<usize>,
        show: Show,
    },
}

/// A key expression compiled against the sorted attribute names a loader extracts (see the module's doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Direct {
    parts: Vec<DirectPart>,
}

impl Expr {
    /// This expression compiled against `roots`, the attribute names a loader extracts into slots (slot `i`
    /// holds `roots[i]`); `None` when it has a part a loader cannot read in place (see the module's doc), or
    /// when it does not read every slot (a value it would not read could not be checked as the values path
    /// checks it).
    pub fn direct(&self, roots: &[String]) -> Option<Direct> {
        let parts = self
            .parts
            .iter()
            .map(|part| match part {
                Part::Text(t) => Some(DirectPart::Text(t.clone())),
                Part::Random(_) => None,
                Part::Attr { path, format } => {
                    let show = match *format {
                        Format::Text => Show::Text,
                        Format::First(n) => Show::First(n),
                        Format::Hash(n) => Show::Hash(n),
                        Format::Day | Format::Hour | Format::Month | Format::Year => return None,
                    };
                    let slot = roots.iter().position(|r| r == path.root())?;
                    let index = match path.segments() {
                        [_] => None,
                        // As `Value::get_path` reads a list's index.
                        [_, i] => Some(i.parse::<usize>().ok()?),
                        _ => return None,
                    };
                    Some(DirectPart::Slot { slot, index, show })
                }
            })
            .collect::<Option<Vec<_>>>()?;
        // Every value the loader extracts is read whenever a key is built, so none goes unchecked.
        let reads = |i| {
            parts
                .iter()
                .any(|p| matches!(p, DirectPart::Slot { slot, .. } if *slot == i))
        };
        (0..roots.len()).all(reads).then_some(Direct { parts })
    }
}

impl Direct {
    /// Writes the key into `out` (cleared first) from the values `read(slot, index)` gives: `true` when `out`
    /// holds exactly what [`Expr::eval_into`] gives for the item, `false` when `read` gave `None` for a value
    /// or the key is empty or too long (the caller then evaluates the expression on the item's values).
    pub fn eval_into<'a>(
        &self,
        mut read: impl FnMut(usize, Option<usize>) -> Option<Scalar<'a>>,
        out: &mut String,
    ) -> bool {
        out.clear();
        for part in &self.parts {
            match part {
                DirectPart::Text(t) => out.push_str(t),
                DirectPart::Slot { slot, index, show } => match read(*slot, *index) {
                    Some(Scalar::S(text)) => show.push(text, out),
                    Some(Scalar::N(text)) => match Number::parse(text) {
                        Ok(n) => show.push(n.as_str(), out),
                        Err(_) => return false,
                    },
                    None => return false,
                },
            }
        }
        !out.is_empty() && out.len() <= MAX_PARTITION_KEY_BYTES
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::keyexpr::{ItemSeed, Value, parse};

    fn roots(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn compiles_only_what_a_loader_reads_in_place() {
        let r = roots(&["a", "b", "tags"]);
        for expr in ["X#{a}#{b:first 3}#{tags.0}", "{tags.00}{b:hash 10}{a}{a}"] {
            assert!(parse(expr).unwrap().direct(&r).is_some(), "{expr}");
        }
        for expr in [
            "{a}#{b}#{tags.0}#{random 4}",
            "{a:day}{b}{tags}",
            "{a:year}{b}{tags}",
            "{a}{b}{tags.x}",
            "{a}{b}{tags.0.1}",
            "{a}{b}{tags}{c}",
            // `tags` would not be read.
            "{a}#{b}",
        ] {
            assert!(parse(expr).unwrap().direct(&r).is_none(), "{expr}");
        }
    }

    /// The compiled expression gives `eval_into`'s key whenever it gives one, and gives up exactly where it
    /// must: a value it was not handed, an empty or too long key.
    #[test]
    fn gives_the_expression_s_key_or_gives_up() {
        let r = roots(&["a", "n", "tags"]);
        let items: Vec<(Option<Scalar<'static>>, Option<Scalar<'static>>, Vec<&str>)> = vec![
            (
                Some(Scalar::S("héllo wörld")),
                Some(Scalar::N("1.50")),
                vec!["x", "y"],
            ),
            (Some(Scalar::S("")), Some(Scalar::N("-0.0")), vec!["only"]),
            (Some(Scalar::S("a")), Some(Scalar::N("1E3")), vec![]),
            (None, Some(Scalar::N("7")), vec!["t"]),
            (
                Some(Scalar::S("a")),
                Some(Scalar::N("not a number")),
                vec!["t"],
            ),
        ];
        let exprs = [
            "{a}#{n}#{tags.0}",
            "{a:first 3}#{n:hash 10}{tags.1}",
            "{tags.1}{n}{a}",
            "{a}{tags.0}-{n:first 2}{a:hash 7}",
        ];
        for expr in exprs {
            let e = parse(expr).unwrap();
            let Some(direct) = e.direct(&r) else {
                panic!("{expr}");
            };
            for (a, n, tags) in &items {
                let mut item = BTreeMap::new();
                if let Some(Scalar::S(s)) = a {
                    item.insert("a".to_owned(), Value::S((*s).to_owned()));
                }
                if let Some(Scalar::N(t)) = n
                    && let Ok(v) = Value::number(t)
                {
                    item.insert("n".to_owned(), v);
                }
                item.insert(
                    "tags".to_owned(),
                    Value::L(tags.iter().map(|t| Value::S((*t).to_owned())).collect()),
                );
                let read = |slot: usize, index: Option<usize>| match (slot, index) {
                    (0, None) => *a,
                    (1, None) => *n,
                    (2, Some(i)) => tags.get(i).map(|t| Scalar::S(t)),
                    _ => None,
                };
                let mut out = String::from("stale");
                let took = direct.eval_into(read, &mut out);
                let want = e.eval(&item, ItemSeed::default());
                match want {
                    Ok(key) if took => assert_eq!(out, key, "{expr} on {item:?}"),
                    Ok(key) => panic!("{expr} on {item:?}: gave up where the key is {key:?}"),
                    Err(err) => assert!(!took, "{expr} on {item:?}: took {out:?}, want {err}"),
                }
            }
        }
        // Too long for a partition key: given up, as `eval_into` refuses it.
        let long = "x".repeat(MAX_PARTITION_KEY_BYTES);
        let direct = parse("{a}#").unwrap().direct(&r[..1]).unwrap();
        let mut out = String::new();
        assert!(!direct.eval_into(|_, _| Some(Scalar::S(&long)), &mut out));
        assert!(direct.eval_into(|_, _| Some(Scalar::S(&long[1..])), &mut out));
        assert_eq!(out.len(), MAX_PARTITION_KEY_BYTES);
    }
}
