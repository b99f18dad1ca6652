//! Which attribute holds an item's TTL, and its value as each loader reads it: the attribute named by
//! `--ttl-attr` (or by the table's DescribeTimeToLive on a live scan), else guessed from the first item's
//! attribute names ([`looks_like_ttl`]). The loaders call [`TtlProbe::is_ttl`] with each top-level attribute
//! name they read, and set [`TtlProbe::value`] for the one it says; the sink counts the values
//! ([`crate::model::health::ttl::TtlStats`]).

use crate::model::health::ttl::{TtlValue, looks_like_ttl};

/// The TTL attribute of a load, and the current item's value of it.
#[derive(Debug, Clone, Default)]
pub struct TtlProbe {
    /// The attribute, once known.
    pub name: Option<Vec<u8>>,
    /// Whether it was guessed from a name (not given).
    pub guessed: bool,
    /// Whether the attribute is settled: given, or the first item has been read.
    pub decided: bool,
    /// The current item's value.
    pub value: TtlValue,
}

impl TtlProbe {
    /// A probe for `given` (`--ttl-attr`), or one that guesses from the first item.
    pub fn new(given: Option<&str>) -> Self {
        Self {
            name: given.map(|n| n.as_bytes().to_vec()),
            guessed: false,
            decided: given.is_some(),
            value: TtlValue::Absent,
        }
    }

    /// Whether top-level attribute `name` is the TTL attribute; while undecided, the first name that looks like
    /// one becomes it.
    #[inline]
    pub fn is_ttl(&mut self, name: &[u8]) -> bool {
        match &self.name {
            Some(n) => n.as_slice() == name,
            None if !self.decided && looks_like_ttl(name) => {
                self.name = Some(name.to_vec());
                self.guessed = true;
                true
            }
            None => false,
        }
    }

    /// The end of an item: the attribute is settled (guessed from this first item, or none).
    #[inline]
    pub fn item_done(&mut self) {
        self.decided = true;
    }

    /// The attribute's name, when there is one.
    pub fn attribute(&self) -> Option<String> {
        self.name
            .as_ref()
            .map(|n| String::from_utf8_lossy(n).into_owned())
    }
}

/// The TTL reading of a typed value written the common way (`{"N":"…"}`, or another tag); `None` for anything
/// else (the caller asks serde).
fn typed_ttl_fast(span: &[u8]) -> Option<crate::model::health::ttl::TtlValue> {
    use crate::model::health::ttl::TtlValue;
    let mut c = super::fast_json::Cursor { s: span, i: 0 };
    c.expect(b'{')?;
    c.expect(b'"')?;
    let tag = c.plain_str()?;
    c.expect(b':')?;
    if tag != b"N" {
        return Some(TtlValue::Other(tag_name(std::str::from_utf8(tag).ok()?)));
    }
    c.expect(b'"')?;
    let text = std::str::from_utf8(c.plain_str()?).ok()?;
    Some(number(text))
}

/// A typed value's TTL reading from its JSON text (`{"N":"1700000000"}`).
pub fn typed_ttl(span: &[u8]) -> TtlValue {
    if let Some(v) = typed_ttl_fast(span) {
        return v;
    }
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(span) else {
        return TtlValue::Absent;
    };
    let Some((tag, inner)) = v.as_object().and_then(|o| o.iter().next()) else {
        return TtlValue::Absent;
    };
    match (tag.as_str(), inner.as_str()) {
        ("N", Some(n)) => number(n),
        _ => TtlValue::Other(tag_name(tag)),
    }
}

/// A number's text as a TTL value.
pub fn number(text: &str) -> TtlValue {
    text.trim()
        .parse()
        .map_or(TtlValue::Other("N"), TtlValue::Number)
}

/// A plain JSON value's TTL reading from its text (a number is a Number, as the document clients store it).
pub fn plain_ttl(span: &[u8]) -> TtlValue {
    match span.trim_ascii().first() {
        Some(b'-' | b'0'..=b'9') => number(&String::from_utf8_lossy(span)),
        Some(b'"') => TtlValue::Other("S"),
        Some(b't' | b'f') => TtlValue::Other("BOOL"),
        Some(b'n') => TtlValue::Other("NULL"),
        Some(b'[') => TtlValue::Other("L"),
        Some(b'{') => TtlValue::Other("M"),
        _ => TtlValue::Absent,
    }
}

/// A type tag as a static name (an unknown one as `?`).
pub fn tag_name(tag: &str) -> &'static str {
    ["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"]
        .into_iter()
        .find(|t| *t == tag)
        .unwrap_or("?")
}

/// The TTL value of a record the fast path declined, read with serde: the item under `field` of `text` (the
/// whole of `text` when `None`), typed DynamoDB JSON or plain. Only those records pay for this second read.
pub fn probe_slow(text: &[u8], field: Option<&str>, typed: bool, probe: &mut TtlProbe) {
    use serde_json::Value;
    let Ok(v) = serde_json::from_slice::<Value>(text) else {
        return;
    };
    let item = match field {
        Some(f) => v.get(f),
        None => Some(&v),
    };
    let Some(map) = item.and_then(Value::as_object) else {
        return;
    };
    for (name, value) in map {
        if probe.is_ttl(name.as_bytes()) {
            let text = serde_json::to_vec(value).unwrap_or_default();
            probe.value = if typed {
                typed_ttl(&text)
            } else {
                plain_ttl(&text)
            };
        }
    }
    probe.item_done();
}
