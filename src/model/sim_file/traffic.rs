//! The `[[traffic]]` streams of a scenario file: where each stream's keys come from, its read and write
//! rates over time, item size, consistency, sort-key pattern and active window.

use toml::Spanned;

use super::{Ctx, KeySource, ScenarioError, StreamDoc, line_of};
use crate::model::capacity::Consistency;
use crate::model::simulate::{Keys, Schedule, SortKey, Stream};

/// The stream a `[[traffic]]` entry describes, and where its keys come from.
pub(super) fn stream_of(c: &Ctx<'_>, s: &StreamDoc) -> Result<(Stream, KeySource), ScenarioError> {
    let source = key_source(c, s)?;
    let writes = s
        .writes_per_sec
        .as_ref()
        .map_or(Ok(Schedule::default()), |r| c.rate("writes_per_sec", r))?;
    let reads = s
        .reads_per_sec
        .as_ref()
        .map_or(Ok(Schedule::default()), |r| c.rate("reads_per_sec", r))?;
    let item_size = match &s.item_size {
        Some(v) => {
            let b = c.non_negative("item_size", v)?;
            if b > 400.0 * 1024.0 {
                return c.err(v.span(), "item_size: a DynamoDB item is at most 400 KB");
            }
            b.round() as u64
        }
        None => 1024,
    };
    let consistency = match &s.consistency {
        Some(v) => match c.word("consistency", v, &["strong", "eventual", "transactional"])? {
            "eventual" => Consistency::Eventual,
            "transactional" => Consistency::Transactional,
            _ => Consistency::Strong,
        },
        None => Consistency::Strong,
    };
    let sort_key = match &s.sort_key {
        Some(v) => match c.word("sort_key", v, &["random", "monotonic", "single-item"])? {
            "monotonic" => SortKey::Monotonic,
            "single-item" => SortKey::SingleItem,
            _ => SortKey::Random,
        },
        None => SortKey::Random,
    };
    let from = s.from.as_ref().map_or(Ok(0), |d| c.duration("from", d))?;
    let until = s
        .until
        .as_ref()
        .map(|d| c.duration("until", d))
        .transpose()?;
    if let (Some(u), Some(span)) = (until, s.until.as_ref().map(Spanned::span))
        && u <= from
    {
        return c.err(span, format!("until ({u} s) must be after from ({from} s)"));
    }
    let keys = match &source {
        KeySource::Keys(k) => k.clone(),
        KeySource::File(_) | KeySource::Trace(_) => Keys::Weighted(Vec::new()),
    };
    Ok((
        Stream {
            keys,
            reads_per_sec: reads,
            writes_per_sec: writes,
            item_size,
            consistency,
            sort_key,
            from,
            until,
        },
        source,
    ))
}

/// Where a stream's keys come from: `key` (one key), or `keys` (a file, `uniform:N` or `partition:P`).
fn key_source(c: &Ctx<'_>, s: &StreamDoc) -> Result<KeySource, ScenarioError> {
    if let Some(t) = &s.trace {
        if s.key.is_some() || s.keys.is_some() {
            return c.err(
                t.span(),
                "a stream has a trace or keys, not both: the trace names its keys",
            );
        }
        return Ok(KeySource::Trace(t.get_ref().clone()));
    }
    Ok(match (&s.key, &s.keys) {
        (Some(k), None) => KeySource::Keys(Keys::One(k.get_ref().clone())),
        (None, Some(k)) => {
            let text = k.get_ref();
            if let Some(n) = text.strip_prefix("uniform:") {
                match n.trim().parse::<u32>() {
                    Ok(n) if n > 0 => KeySource::Keys(Keys::Uniform(n)),
                    _ => {
                        return c.err(
                            k.span(),
                            format!("keys = \"{text}\": expected uniform:N with N ≥ 1"),
                        );
                    }
                }
            } else if let Some(p) = text.strip_prefix("partition:") {
                match p.trim().parse::<usize>() {
                    Ok(p) => KeySource::Keys(Keys::InPartition(p)),
                    Err(_) => {
                        return c.err(k.span(), format!("keys = \"{text}\": expected partition:P"));
                    }
                }
            } else {
                KeySource::File(text.clone())
            }
        }
        (Some(k), Some(_)) => return c.err(k.span(), "a stream has either key or keys, not both"),
        (None, None) => {
            let line = s
                .writes_per_sec
                .as_ref()
                .map(Spanned::span)
                .or_else(|| s.reads_per_sec.as_ref().map(Spanned::span))
                .map_or(1, |sp| line_of(c.text, sp.start));
            return Err(ScenarioError {
                line,
                message:
                    "a [[traffic]] stream needs key = \"…\", keys = \"file\" / \"uniform:N\", or trace = \"file\""
                        .to_owned(),
            });
        }
    })
}
