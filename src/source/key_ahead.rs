//! Asking for the memory of the keys of records still to come: a loader that can see a few records ahead
//! (lines in a reader's buffer, [`super::read::for_each_line_ahead`]; items in a JSON array's batch) finds
//! each coming record's partition key without parsing it ([`PkProbe`]) and hands its hash to the key set's
//! [`Lookahead`], so that the lookup finds the key's slot, entry and bytes in cache when the record is added.

use super::sink::Sink;
use crate::model::keyset::Lookahead;
use crate::model::{KeyType, key_hash};

/// Asks for the memory of the keys of records still to come, for a loader that can see a few records ahead
/// (lines in a reader's buffer, items in a batch): [`Self::ahead`] with each coming record in order, a few
/// records before it is added, and [`Self::after`] after each record is added.
pub struct KeyAhead {
    probe: Option<PkProbe>,
    /// The key attributes were known when `probe` was made.
    probed: bool,
    look: Lookahead,
}

impl KeyAhead {
    pub fn new(sink: &Sink) -> Self {
        Self {
            probe: PkProbe::for_sink(sink),
            probed: sink.names.is_some(),
            look: Lookahead::default(),
        }
    }

    /// A record that will be added a few records from now (its text as read, typed items).
    #[inline]
    pub fn ahead(&mut self, sink: &Sink, record: &[u8]) {
        if let Some(pk) = self.probe.as_ref().and_then(|p| p.find(record)) {
            self.look.ahead(&sink.keys, key_hash(pk));
        }
    }

    /// After a record was added: once the first item has given the key attributes, the probe for them.
    #[inline]
    pub fn after(&mut self, sink: &Sink) {
        if !self.probed && sink.names.is_some() {
            self.probe = PkProbe::for_sink(sink);
            self.probed = true;
        }
    }
}

/// Finds a record's string partition key the way exports write it, `"pk":{"S":"…"}`, without parsing the line:
/// a hint for [`Lookahead`] (a match inside another value, or a key with escapes, only asks for memory that is
/// not used; a key written otherwise is not found).
struct PkProbe {
    finder: memchr::memmem::Finder<'static>,
}

impl PkProbe {
    /// The probe for `sink`'s partition key, when its key attributes are known and an item's key is that
    /// attribute's text.
    fn for_sink(sink: &Sink) -> Option<Self> {
        let names = sink.names.as_ref()?;
        if !sink.keyed_by_attribute() || sink.key_type.is_some_and(|t| t != KeyType::S) {
            return None;
        }
        let pk = serde_json::to_string(&names.pk).ok()?;
        let needle = format!("{pk}:{{\"S\":\"");
        Some(Self {
            finder: memchr::memmem::Finder::new(needle.as_bytes()).into_owned(),
        })
    }

    /// The text of the string partition key in `line`, if written the common way.
    #[inline]
    fn find<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        let needle = self.finder.needle();
        // Where the key usually is, the first attribute of an item (`{"pk":…`) or of an export line's item
        // (`{"Item":{"pk":…`), is looked at before searching (`perf record`: the search was 5 % of a JSON
        // array's load, on the thread that bounds it, with every key at byte 1).
        let at = |i: usize| line.get(i..i + needle.len()) == Some(needle);
        let from = if at(1) {
            1
        } else if at(9) {
            9
        } else {
            self.finder.find(line)?
        } + needle.len();
        let rest = line.get(from..)?;
        rest.get(..memchr::memchr(b'"', rest)?)
    }
}
