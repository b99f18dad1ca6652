//! Asking for the memory of the keys of records still to come: a loader that can see a few records ahead
//! (lines in a reader's buffer, [`super::read::for_each_line_ahead`]; items in a JSON array's batch) finds
//! each coming record's partition key without parsing it ([`KeyProbe`]) and hands its hash to the key set's
//! [`Lookahead`], so that the lookup finds the key's slot, entry and bytes in cache when the record is added.

use std::io::BufRead;
use std::path::Path;

use super::SourceError;
use super::json::item::Scratch;
use super::read::{Compression, Tick, for_each_line_ahead};
use super::sink::Sink;
use crate::model::bytes::short_eq;
use crate::model::keyset::Lookahead;
use crate::model::{KeyType, key_hash};

/// Asks for the memory of the keys of records still to come, for a loader that can see a few records ahead
/// (lines in a reader's buffer, items in a batch): [`Self::ahead`] with each coming record in order, a few
/// records before it is added, and [`Self::after`] after each record is added.
pub struct KeyAhead {
    /// The records are Ion text (an Ion export's lines), not JSON.
    ion: bool,
    probe: Option<KeyProbe>,
    /// The sort key's probe, when the items have a string sort key and their distinct items are counted.
    sk_probe: Option<KeyProbe>,
    /// The key attributes were known when `probe` was made.
    probed: bool,
    look: Lookahead,
}

impl KeyAhead {
    pub fn new(sink: &Sink) -> Self {
        Self::for_syntax(sink, false)
    }

    /// For the lines of an Ion export (`{Item:{pk:"…",…}}`).
    pub fn for_ion(sink: &Sink) -> Self {
        Self::for_syntax(sink, true)
    }

    fn for_syntax(sink: &Sink, ion: bool) -> Self {
        Self {
            ion,
            probe: KeyProbe::for_sink(sink, ion),
            sk_probe: KeyProbe::for_sort_key(sink, ion),
            probed: sink.names.is_some(),
            look: Lookahead::default(),
        }
    }

    /// A record that will be added a few records from now (its text as read, typed items).
    #[inline]
    pub fn ahead(&mut self, sink: &Sink, record: &[u8]) {
        if let Some(pk) = self.probe.as_mut().and_then(|p| p.find(record)) {
            let hash = key_hash(pk);
            self.look.ahead(&sink.keys, hash);
            // The distinct-item test's slot, a miss in a table of millions of items (`perf record`, the
            // 2,000,000-item JSON array of `benches/json_array.sh`: 17 % of the item reader's thread).
            // Where the partition key's text ends: the sort key is usually the next attribute.
            let end = (pk.as_ptr() as usize).wrapping_sub(record.as_ptr() as usize) + pk.len();
            if let Some(sk) = self
                .sk_probe
                .as_mut()
                .and_then(|p| p.find_after(record, end))
            {
                sink.keys.prefetch_seen(hash, sk);
            }
        }
    }

    /// After a record was added: once the first item has given the key attributes, the probe for them.
    #[inline]
    pub fn after(&mut self, sink: &Sink) {
        if !self.probed && sink.names.is_some() {
            self.probe = KeyProbe::for_sink(sink, self.ion);
            self.sk_probe = KeyProbe::for_sort_key(sink, self.ion);
            self.probed = true;
        }
    }
}

/// The lines of `reader`, one record each, each read by `f` into `sink` with `scratch` (and its line number),
/// and shown to `ahead` a few lines before ([`for_each_line_ahead`]): the lines read.
pub fn for_each_record_line(
    reader: &mut dyn BufRead,
    name: &Path,
    compression: Compression,
    tick: &mut Tick<'_>,
    (ahead, sink, scratch): (KeyAhead, &mut Sink, &mut Scratch),
    mut f: impl FnMut(&[u8], &mut Sink, &mut Scratch, u64) -> Result<(), SourceError>,
) -> Result<u64, SourceError> {
    let mut state = (ahead, sink, scratch);
    for_each_line_ahead(
        reader,
        name,
        compression,
        tick,
        &mut state,
        |(ahead, sink, _), line| ahead.ahead(sink, line),
        |(ahead, sink, scratch), line, n| {
            let result = f(line, sink, scratch, n);
            ahead.after(sink);
            result
        },
    )
}

/// Finds a record's string partition key, `"pk":{"S":"…"}` as exports write it or with white space between
/// the tokens (`"pk": {"S": "…"}` as Python's `json.dumps` writes it), or a plain JSON item's `"pk":"…"`,
/// without parsing the line; in an Ion export's line, `pk:"…"` after `{` or `,`: a hint for
/// [`Lookahead`] (a match inside another value, or a key with escapes, only asks for memory that is not used;
/// a key written otherwise is not found).
struct KeyProbe {
    /// `"pk":{"S":"`, and the attribute's name quoted, `"pk"`.
    compact: memchr::memmem::Finder<'static>,
    name: memchr::memmem::Finder<'static>,
    /// The last key found had white space in it: the next is looked for that way first.
    spaced: bool,
    /// Lines where neither way found the key.
    misses: u32,
    /// Ion text: `compact` is `pk:"` ([`Self::find_ion`]).
    ion: bool,
}

/// Lines where neither way finds the key before a [`KeyProbe`] looks only the way it last found one.
const MISSES: u32 = 16;

impl KeyProbe {
    /// The probe for `sink`'s partition key, when its key attributes are known and an item's key is that
    /// attribute's text.
    fn for_sink(sink: &Sink, ion: bool) -> Option<Self> {
        let names = sink.names.as_ref()?;
        if !sink.keyed_by_attribute() || sink.key_type.is_some_and(|t| t != KeyType::S) {
            return None;
        }
        Self::for_name(&names.pk, ion)
    }

    /// The probe for `sink`'s string sort key, when its items' distinct count is kept (items of a table's
    /// export are distinct already: nothing to ask for). A key written with escapes is not found, or its
    /// memory asked for in vain: never a wrong count.
    fn for_sort_key(sink: &Sink, ion: bool) -> Option<Self> {
        let names = sink.names.as_ref()?;
        if !sink.keyed_by_attribute() || sink.keys.items_distinct() {
            return None;
        }
        Self::for_name(names.sk.as_ref()?, ion)
    }

    /// For the attribute `name`; in Ion text only a name written as an identifier (as DynamoDB's Ion exports
    /// write them), not a quoted one.
    fn for_name(name: &str, ion: bool) -> Option<Self> {
        let (compact, name) = if ion {
            let identifier = name.bytes().enumerate().all(|(i, b)| {
                b == b'_' || b == b'$' || b.is_ascii_alphabetic() || (i > 0 && b.is_ascii_digit())
            });
            if name.is_empty() || !identifier {
                return None;
            }
            (format!("{name}:\""), name.to_owned())
        } else {
            let name = serde_json::to_string(name).ok()?;
            (format!("{name}:{{\"S\":\""), name)
        };
        Some(Self {
            compact: memchr::memmem::Finder::new(compact.as_bytes()).into_owned(),
            name: memchr::memmem::Finder::new(name.as_bytes()).into_owned(),
            spaced: false,
            misses: 0,
            ion,
        })
    }

    /// [`Self::find`] for an attribute that usually comes right after the one whose text ends at `end` (the
    /// sort key after the partition key, `…"},"sk":{"S":"` or, in Ion, `…",sk:"`): looked at there before it
    /// is searched for. Measured with `valgrind --tool=callgrind` on `shardlens analyze` of 200,000 of
    /// `shardlens-bench extract`'s export lines (its items not distinct, so their sort keys are probed): the
    /// search took 330 instructions a line; looked at first where it usually is, the load 822 -> 785 M
    /// instructions. `benches/json_array.sh`'s 2,000,000 items (medians of 9–11 interleaved runs): the export
    /// lines 0.44 -> 0.42 s (CPU 0.82 -> 0.77 s), the pretty array 0.57 -> 0.54 s (CPU 1.07 -> 1.02 s).
    #[inline]
    fn find_after<'l>(&mut self, line: &'l [u8], end: usize) -> Option<&'l [u8]> {
        // The value's closing quote, then `},` (JSON) or `,` (Ion), then the name.
        let (between, at): (&[u8], usize) = if self.ion {
            (b",", end + 2)
        } else {
            (b"},", end + 3)
        };
        let needle = self.compact.needle();
        if !self.spaced
            && line.get(end + 1..at) == Some(between)
            && line
                .get(at..at + needle.len())
                .is_some_and(|here| short_eq(here, needle))
        {
            let rest = line.get(at + needle.len()..)?;
            return rest.get(..memchr::memchr(b'"', rest)?);
        }
        self.find(line)
    }

    /// The text of the string key attribute in `line`, if written the common way: looked for as the last one
    /// was written, then the other way, until neither way has found it in [`MISSES`] lines (a sort key that is
    /// a number is never found: each line is then searched once, not twice).
    #[inline]
    fn find<'l>(&mut self, line: &'l [u8]) -> Option<&'l [u8]> {
        if self.ion {
            return self.find_ion(line);
        }
        if !self.spaced
            && let Some(text) = self.find_compact(line)
        {
            return Some(text);
        }
        self.find_otherwise(line)
    }

    /// [`Self::find`] past the export's way: the spaced way first, or only, when the last key found was.
    #[inline(never)]
    fn find_otherwise<'l>(&mut self, line: &'l [u8]) -> Option<&'l [u8]> {
        if self.spaced
            && let Some(text) = self.find_spaced(line)
        {
            return Some(text);
        }
        if self.misses >= MISSES {
            return None;
        }
        let other = if self.spaced {
            self.find_compact(line)
        } else {
            self.find_spaced(line)
        };
        if other.is_some() {
            self.spaced = !self.spaced;
            self.misses = 0;
        } else {
            self.misses += 1;
        }
        other
    }

    /// `pk:"…` in an Ion line, the name right after `{` or `,` (a longer name ending the same way is not it).
    #[inline]
    fn find_ion<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        let needle = self.compact.needle().len();
        let mut from = 0;
        while let Some(k) = self.compact.find(line.get(from..)?) {
            let at = from + k;
            from = at + needle;
            if at > 0 && matches!(line[at - 1], b'{' | b',' | b' ' | b'\t') {
                let rest = line.get(from..)?;
                return rest.get(..memchr::memchr(b'"', rest)?);
            }
        }
        None
    }

    /// `"pk":{"S":"…` as exports write it, found by comparing bytes.
    #[inline]
    fn find_compact<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        let needle = self.compact.needle();
        // Where the key usually is, the first attribute of an item (`{"pk":…`) or of an export line's item
        // (`{"Item":{"pk":…`), is looked at before searching (`perf record`: the search was 5 % of a JSON
        // array's load, on the thread that bounds it, with every key at byte 1).
        let at = |i: usize| {
            line.get(i..i + needle.len())
                .is_some_and(|here| short_eq(here, needle))
        };
        let from = if at(1) {
            1
        } else if at(9) {
            9
        } else {
            self.compact.find(line)?
        } + needle.len();
        let rest = line.get(from..)?;
        rest.get(..memchr::memchr(b'"', rest)?)
    }

    /// The key with white space between its tokens: each place the name is (first where the key usually is,
    /// byte 1, or 10 after Python's `{"Item": {`), then the value after it read token by token.
    #[inline]
    fn find_spaced<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        let name = self.name.needle();
        for at in [1, 10] {
            if line
                .get(at..at + name.len())
                .is_some_and(|here| short_eq(here, name))
                && let Some(text) = string_value(line, at + name.len())
            {
                return Some(text);
            }
        }
        let mut from = 0;
        while let Some(k) = self.name.find(line.get(from..)?) {
            from += k + name.len();
            if let Some(text) = string_value(line, from) {
                return Some(text);
            }
        }
        None
    }
}

/// After an attribute's name at `i` in `line`: the text of its value `:{"S":"…"}`, or `:"…"` in a plain JSON
/// item, white space allowed between the tokens, up to the next quote.
#[inline]
fn string_value(line: &[u8], i: usize) -> Option<&[u8]> {
    let mut i = i;
    for (k, token) in [&b":"[..], b"{", b"\"S\"", b":", b"\""]
        .into_iter()
        .enumerate()
    {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = line.get(i) {
            i += 1;
        }
        // A plain item's string: its quote where a typed item's `{` is.
        if k == 1 && line.get(i) == Some(&b'"') {
            i += 1;
            break;
        }
        if line.get(i..i + token.len())? != token {
            return None;
        }
        i += token.len();
    }
    let rest = line.get(i..)?;
    rest.get(..memchr::memchr(b'"', rest)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::LoadOptions;
    use crate::source::json::item::KeyNames;

    fn sink(sk: Option<&str>, distinct: bool) -> Sink {
        let mut sink = Sink::new(&LoadOptions::default());
        sink.names = Some(KeyNames {
            pk: "pk".into(),
            sk: sk.map(str::to_owned),
            guessed: false,
        });
        sink.keys.set_items_distinct(distinct);
        sink
    }

    /// The sort key right after the partition key is taken there; anywhere else it is searched for as before,
    /// and a name that only ends like it is not taken.
    #[test]
    fn the_sort_key_is_looked_for_after_the_partition_key_first() {
        let s = sink(Some("sk"), false);
        let end_of = |line: &[u8]| line.windows(6).position(|w| w == b"user#1").unwrap() + 6;
        let mut sk = KeyProbe::for_sort_key(&s, false).unwrap();
        for line in [
            &br#"{"Item":{"pk":{"S":"user#1"},"sk":{"S":"2024"},"x":{"N":"1"}}}"#[..],
            br#"{"Item":{"pk":{"S":"user#1"},"x":{"S":"2"},"sk":{"S":"2024"}}}"#,
            br#"{"Item":{"pk":{"S":"user#1"}, "sk":{"S":"2024"}}}"#,
            br#"{"Item":{"pk":{"S":"user#1"},"ask":{"S":"no"},"sk":{"S":"2024"}}}"#,
        ] {
            assert_eq!(sk.find_after(line, end_of(line)), Some(&b"2024"[..]));
        }
        let mut ion = KeyProbe::for_sort_key(&s, true).unwrap();
        for line in [
            &br#"{Item:{pk:"user#1",sk:"2024",x:1}}"#[..],
            br#"{Item:{pk:"user#1",ask:"no",sk:"2024"}}"#,
            br#"{Item:{pk:"user#1",x:1,sk:"2024"}}"#,
        ] {
            assert_eq!(ion.find_after(line, end_of(line)), Some(&b"2024"[..]));
        }
    }

    #[test]
    fn the_probes_find_both_key_attributes_where_they_are_written() {
        let s = sink(Some("sk"), false);
        let (mut pk, mut sk) = (
            KeyProbe::for_sink(&s, false).unwrap(),
            KeyProbe::for_sort_key(&s, false).unwrap(),
        );
        let line = br#"{"Item":{"pk":{"S":"user#1"},"sk":{"S":"2024-05-01"},"x":{"N":"1"}}}"#;
        assert_eq!(pk.find(line), Some(&b"user#1"[..]));
        assert_eq!(sk.find(line), Some(&b"2024-05-01"[..]));
        // In any order, and with white space between the tokens as Python and pretty printers write it.
        let item = br#"{"sk":{"S":"b"},"pk":{"S":"a"}}"#;
        assert_eq!(
            (pk.find(item), sk.find(item)),
            (Some(&b"a"[..]), Some(&b"b"[..]))
        );
        let spaced = br#"{"Item": {"pk": {"S": "user#1"}, "sk": {"S": "x y"}}}"#;
        assert_eq!(
            (pk.find(spaced), sk.find(spaced)),
            (Some(&b"user#1"[..]), Some(&b"x y"[..]))
        );
        let pretty =
            b"{\n    \"sk\" : {\n        \"S\": \"b\"\n    },\n    \"pk\": {\r\n\t\"S\":\"a\"}\n}";
        assert_eq!(
            (pk.find(pretty), sk.find(pretty)),
            (Some(&b"a"[..]), Some(&b"b"[..]))
        );
        // The name as a value, then as a name: the name's place is found past the value.
        let named = br#"{"x":"pk","pk":{"S":"a"}}"#;
        assert_eq!(pk.find(named), Some(&b"a"[..]));
        // Plain JSON items, compact or spaced.
        let plain = br#"{"pk":"user#1","sk":"2024","n":5}"#;
        assert_eq!(
            (pk.find(plain), sk.find(plain)),
            (Some(&b"user#1"[..]), Some(&b"2024"[..]))
        );
        let plain = br#"{"n": 5, "sk" : "b c", "pk": "a"}"#;
        assert_eq!(
            (pk.find(plain), sk.find(plain)),
            (Some(&b"a"[..]), Some(&b"b c"[..]))
        );
        // Not a string key, or no sort key: not found (a hint only).
        assert_eq!(sk.find(br#"{"pk":{"S":"a"},"sk":{"N":"5"}}"#), None);
        assert_eq!(sk.find(br#"{"pk": {"S": "a"}}"#), None);
        assert_eq!(pk.find(br#"{"pk": { "S" : "#), None);
        assert_eq!(pk.find(br#"{"pk": {" S": "a"}}"#), None);
        assert_eq!(pk.find(br#"{"pk": 5, "sk": "b"}"#), None);
    }

    #[test]
    fn no_sort_key_probe_when_items_are_distinct_or_there_is_no_sort_key() {
        for ion in [false, true] {
            assert!(KeyProbe::for_sort_key(&sink(Some("sk"), true), ion).is_none());
            assert!(KeyProbe::for_sort_key(&sink(None, false), ion).is_none());
            assert!(KeyProbe::for_sink(&sink(None, false), ion).is_some());
        }
    }

    #[test]
    fn the_ion_probes_find_identifier_names_after_a_brace_or_a_comma() {
        let s = sink(Some("sk"), false);
        let (mut pk, mut sk) = (
            KeyProbe::for_sink(&s, true).unwrap(),
            KeyProbe::for_sort_key(&s, true).unwrap(),
        );
        let line = br#"$ion_1_0 {Item:{pk:"user#1",sk:"2024",n:12.5,tags:$dynamodb_SS::["a"]}}"#;
        assert_eq!(
            (pk.find(line), sk.find(line)),
            (Some(&b"user#1"[..]), Some(&b"2024"[..]))
        );
        // A name that ends the same way, then the key itself.
        let line = br#"{Item:{xpk:"no",apk:"no", pk:"yes"}}"#;
        assert_eq!(pk.find(line), Some(&b"yes"[..]));
        // A number, a quoted name, or no such attribute: not found.
        assert_eq!(pk.find(br#"{Item:{pk:5}}"#), None);
        assert_eq!(pk.find(br#"{Item:{'pk':"a"}}"#), None);
        assert_eq!(pk.find(br#"{Item:{sk:"a"}}"#), None);
        // A name that is not an identifier gets no Ion probe.
        let mut odd = sink(None, false);
        odd.names.as_mut().unwrap().pk = "my-key".into();
        assert!(KeyProbe::for_sink(&odd, true).is_none());
        assert!(KeyProbe::for_sink(&odd, false).is_some());
    }
}
