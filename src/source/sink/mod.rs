//! The [`Sink`] every format's records go into: it checks key types, canonicalises keys, counts writes and
//! item sizes, applies the bad-record policy, and collects what the user should be told.
//!
//! Forks and merges are in `merge`, staged adds in `staged`, a load's two ends (the key names from its first
//! item, and the `Loaded` it becomes) in `ends`.

use super::json::item::{KeyNames, Scratch, Tag};
use super::{Changes, Hint, LoadOptions, Loaded, Message, OnBad, SourceError};
use crate::model::KeySet;
use crate::model::KeyType;
use crate::model::design::{Designer, Items, Prepared, RootValues, item_identity};
use crate::model::health::ttl::TtlStats;
use crate::model::key::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, canonicalize_into};

mod ends;
mod merge;
pub use ends::estimate_note;
pub use merge::{merge_counts_on_two, merge_planned, plan_merge};
mod staged;

/// Bad-record messages kept in [`Loaded::warnings`] under [`OnBad::Skip`].
const MAX_SKIP_MESSAGES: usize = 5;

/// Turns records into keys: checks key types, canonicalises, counts, and applies the bad-record policy.
#[derive(Debug)]
pub struct Sink {
    pub keys: KeySet,
    /// The partition key type, once known (given, or from the first item).
    pub key_type: Option<KeyType>,
    key_type_given: bool,
    sk_type: Option<KeyType>,
    pub items: u64,
    pub lines: u64,
    pub skipped: u64,
    pub warnings: Vec<Message>,
    pub on_bad: OnBad,
    pub names: Option<KeyNames>,
    /// What the current input turned out to be, set by its loader (see [`Loaded::shape`]).
    pub shape: Option<Message>,
    /// The shapes of the inputs read so far, each once.
    pub shapes: Vec<Message>,
    /// The tables of a file that holds several, and the one loaded.
    pub tables: Vec<String>,
    pub table: Option<String>,
    pub changes: Changes,
    pk_buf: Vec<u8>,
    sk_buf: Vec<u8>,
    /// The load's key designs ([`LoadOptions::design`]), when it has any.
    designer: Option<Designer>,
    /// The extracted attributes kept for every item ([`LoadOptions::keep_items`]).
    kept: Option<Items>,
    /// The first item's attribute names, when the design reads attributes.
    attribute_names: Vec<String>,
    /// The TTL attribute's values, once the items have one.
    pub ttl: Option<TtlStats>,
    /// Items keyed by the key expression, checked and counted but not yet added ([`Self::add_scratch_deferred`]).
    staged: staged::StagedRing,
    /// The TTL attribute as the input's first item decided it, for a loader that starts reading after that
    /// item (a stretch of a file loaded on several threads): its items do not guess the attribute again.
    pub ttl_seed: Option<crate::source::json::ttl::TtlProbe>,
    /// Items kept whose size is an estimate (an attribute that is not a key could not be read as typed), and
    /// the first of them: its key and what was wrong. [`Self::into_loaded`] says them in one warning.
    pub estimated: u64,
    pub first_estimate: Option<String>,
}

impl Sink {
    pub fn new(opts: &LoadOptions) -> Self {
        Self {
            keys: {
                // Every input a sink reads is in read order (lines of writes have their own parser).
                let mut keys = KeySet::new(opts.key_type.unwrap_or_default());
                keys.set_read_order();
                keys
            },
            key_type: opts.key_type,
            key_type_given: opts.key_type.is_some(),
            sk_type: None,
            items: 0,
            lines: 0,
            skipped: 0,
            warnings: Vec::new(),
            on_bad: opts.on_bad,
            names: None,
            shape: None,
            shapes: Vec::new(),
            tables: Vec::new(),
            table: None,
            changes: Changes::default(),
            pk_buf: Vec::with_capacity(64),
            sk_buf: Vec::with_capacity(64),
            designer: (!opts.design.is_empty())
                .then(|| Designer::new(&opts.design).skipping_bad(opts.on_bad == OnBad::Skip)),
            kept: opts.keep_items.then(|| Items::new(opts.design.roots())),
            attribute_names: Vec::new(),
            ttl: None,
            staged: staged::StagedRing::default(),
            ttl_seed: None,
            estimated: 0,
            first_estimate: None,
        }
    }

    /// Whether an input may be read in stretches on several threads, each into a [`Self::fork`] merged back in
    /// order, with the result one reader would have had: nothing read yet, and nothing that follows the items
    /// beyond the key set (a key design other than a key expression alone, kept items), nor a key drawn at
    /// random (`{random N}`: an item without a partition key draws by its place in the input).
    pub fn splits(&self) -> bool {
        let keyed_alone =
            |d: &Designer| d.is_idle() && d.design().key.as_ref().is_none_or(|k| !k.has_random());
        self.designer.as_ref().is_none_or(keyed_alone)
            && self.kept.is_none()
            && self.items == 0
            && self.keys.is_empty()
            && !self.keys.has_sort_keys()
            && self.ttl.is_none()
    }

    /// Whether calculated sharding hashes the sort key (lines note it as they are read).
    pub fn shards_by_sort_key(&self) -> bool {
        self.designer.as_ref().is_some_and(|d| {
            d.design().shard_by == Some(crate::model::design::ShardSource::SortKey)
        })
    }

    /// Records the shape of the input just read: the loader's, else `fallback`.
    pub fn note_shape(&mut self, fallback: &str) {
        let shape = self.shape.take().unwrap_or_else(|| fallback.into());
        if !self.shapes.contains(&shape) {
            self.shapes.push(shape);
        }
    }

    pub fn warn(&mut self, w: impl Into<Message>) {
        let w = w.into();
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    /// Applies the bad-record policy to a record's result.
    pub fn check(&mut self, result: Result<(), SourceError>) -> Result<(), SourceError> {
        match result {
            Err(e) if self.on_bad == OnBad::Skip && !e.is_fatal() => {
                self.skipped += 1;
                if self.skipped <= MAX_SKIP_MESSAGES as u64 {
                    self.warnings.push(e.message().after("skipped: "));
                }
                Ok(())
            }
            other => other,
        }
    }

    /// Fixes the key type from the first key seen (typed formats), or checks it against the known one.
    fn check_type(&mut self, ty: KeyType, what: &str) -> Result<(), Message> {
        match self.key_type {
            None => {
                self.key_type = Some(ty);
                if self.keys.is_empty() {
                    self.keys = self.keys.empty_like(ty);
                }
                Ok(())
            }
            Some(t) if t == ty => Ok(()),
            Some(t) => {
                let said = format!(
                    "{what} is of type {}; expected {} ({}) ",
                    Tag::Key(ty),
                    t,
                    t.describe(),
                );
                Err(if self.key_type_given {
                    Message::hinted(said, Hint::KeyTypeSays, "")
                } else {
                    Message::new(said + "like the first item's")
                })
            }
        }
    }

    /// Adds the key of one item read into `scratch`; `Err` is the reason it is not a valid item.
    pub fn add_scratch(&mut self, scratch: &Scratch, count: u64) -> Result<(), Message> {
        self.add_scratch_then(scratch, count, false)
    }

    /// [`Self::add_scratch`] for a loader that reads items one after another: an item keyed by the key
    /// expression may go into the key set only when the next item comes ([`Staged`]). The loader calls
    /// [`Self::settle`] before it returns.
    pub fn add_scratch_deferred(&mut self, scratch: &Scratch, count: u64) -> Result<(), Message> {
        self.add_scratch_then(scratch, count, true)
    }

    fn add_scratch_then(
        &mut self,
        scratch: &Scratch,
        count: u64,
        defer: bool,
    ) -> Result<(), Message> {
        let Some(names) = self.names.take() else {
            return Err("key attributes unknown".into());
        };
        let result = self.add_named(&names, scratch, count, defer);
        self.names = Some(names);
        result
    }

    fn add_named(
        &mut self,
        names: &KeyNames,
        scratch: &Scratch,
        count: u64,
        defer: bool,
    ) -> Result<(), Message> {
        let view = RootValues {
            roots: &scratch.extract,
            values: &scratch.values,
        };
        if self.designer.is_some() && self.attribute_names.is_empty() {
            self.attribute_names.clone_from(&scratch.names);
        }
        // A stable identity from the item's key text (or its position when it has no partition key), so
        // `{random N}` draws do not depend on which thread read the item. Only a design and kept items use it:
        // two key hashes an item saved on a plain load (`perf record` of the S3 export bench: `key_hash` 2.3 %).
        // A key built in place has no `{random N}`, and nothing else of its design or kept items exists.
        let identity = match scratch.pk {
            _ if scratch.direct_ok || (self.designer.is_none() && self.kept.is_none()) => 0,
            Some(_) => item_identity(
                &scratch.pk_raw,
                scratch.sk.is_some().then_some(&scratch.sk_raw[..]),
            ),
            None => crate::model::partition::mix64(self.items ^ self.lines.rotate_left(32)),
        };
        let by_expr = if scratch.direct_ok {
            // The reader built the key expression's key in place (`Scratch::direct`).
            self.pk_buf.clear();
            self.pk_buf.extend_from_slice(scratch.direct_key.as_bytes());
            true
        } else {
            self.key_by_expr(&view, identity)?
        };
        if by_expr {
            if self.key_type != Some(KeyType::S) {
                self.check_type(KeyType::S, "the key expression's key")?;
            }
        } else {
            self.pk_of(names, scratch)?;
        }
        let sk = self.sk_of(names, scratch)?;
        let sk_ref = sk.map(|st| (&self.sk_buf[..], st));
        let sized = scratch
            .item_bytes
            .filter(|_| self.designer.is_some() || self.kept.is_some())
            .map(|b| {
                (
                    b,
                    self.key_attribute_bytes(Some(names), sk_ref.map(|(s, t)| (s.len(), t))),
                )
            });
        let mut prepared = None;
        self.prepare(&view, sk, count, identity, sized, &mut prepared)?;
        // Staged only when the key set and the designer are all that take the item: nothing keeps it, and it
        // has no TTL attribute (whose note names the item's key by its index).
        if defer
            && by_expr
            && self.kept.is_none()
            && scratch.ttl.name.is_none()
            && scratch.size_estimate.is_none()
        {
            self.stage(sk, count, prepared, scratch.item_bytes);
            self.items += count;
            return Ok(());
        }
        self.add_prepared(scratch, sk, count, identity, sized, &mut prepared);
        Ok(())
    }

    /// What the load's designs prepare of the item of `view` whose key is in `pk_buf` (and its sort key, of type
    /// `sk`, in `sk_buf`), added `count` times, with its `identity` and `sized` (its size and its key
    /// attributes'), into `prepared` (nothing without designs, or when they have nothing to do).
    ///
    /// This and [`Self::add_prepared`] are inlined into both callers, and what they are given lies in the
    /// caller's frame: written as one function called with seven arguments, or with the prepared item moved in
    /// and out, they cost every item of a plain load 24 to 56 instructions more (`valgrind --tool=callgrind`,
    /// 200,000 plain JSON items: 1.0058 G instructions as the tail was written twice).
    #[inline(always)]
    fn prepare(
        &mut self,
        view: &RootValues<'_>,
        sk: Option<KeyType>,
        count: u64,
        identity: u64,
        sized: Option<(u64, u64)>,
        prepared: &mut Option<Prepared>,
    ) -> Result<(), Message> {
        let sk_ref = sk.map(|st| (&self.sk_buf[..], st));
        if let Some(d) = &mut self.designer
            && !d.is_idle()
        {
            match d.sized(sized).prepare(view, sk_ref, count, identity) {
                Ok(p) => *prepared = Some(p),
                Err(e) => return Err(self.design_message(&e)),
            }
        }
        Ok(())
    }

    /// Adds the item read into `scratch` whose key is in `pk_buf` (and its sort key, of type `sk`, in `sk_buf`),
    /// `count` times, with its `identity`, `sized` and what the designs `prepared` of it ([`Self::prepare`]):
    /// into the key set (the items staged before it first), the designs, the kept items and the whole item's
    /// notes.
    #[inline(always)]
    fn add_prepared(
        &mut self,
        scratch: &Scratch,
        sk: Option<KeyType>,
        count: u64,
        identity: u64,
        sized: Option<(u64, u64)>,
        prepared: &mut Option<Prepared>,
    ) {
        self.settle();
        let sk_ref = sk.map(|st| (&self.sk_buf[..], st));
        let idx = self.keys.add_item(&self.pk_buf, sk_ref, count);
        if let (Some(d), Some(p)) = (&mut self.designer, prepared.take()) {
            d.commit(p, idx);
        }
        if let Some(kept) = &mut self.kept {
            kept.push_sized(&scratch.values, (idx, sk_ref), count, identity, sized);
        }
        self.note_whole_item(idx, scratch, count);
        self.items += count;
    }

    /// The size of the current item's key attributes (names and values, DynamoDB's rules): the partition key
    /// in `pk_buf`, and a sort key of `sk` (its canonical length and type).
    fn key_attribute_bytes(&self, names: Option<&KeyNames>, sk: Option<(usize, KeyType)>) -> u64 {
        let value = |len: usize, bytes: &[u8], t: KeyType| match t {
            KeyType::N => crate::model::item_size::number_size(&String::from_utf8_lossy(bytes)),
            KeyType::S | KeyType::B => len as u64,
        };
        let pk = names.map_or(0, |n| n.pk.len()) as u64
            + value(self.pk_buf.len(), &self.pk_buf, self.keys.key_type());
        let sk = sk.map_or(0, |(len, t)| {
            names.and_then(|n| n.sk.as_ref()).map_or(0, String::len) as u64
                + value(len, &self.sk_buf, t)
        });
        pk + sk
    }

    /// Notes what a whole item tells besides its key (its size, its TTL value); nothing for key-only records.
    fn note_whole_item(&mut self, idx: u32, scratch: &Scratch, count: u64) {
        let Some(bytes) = scratch.item_bytes else {
            return;
        };
        self.keys.note_item_bytes(idx, bytes, count);
        if let Some(what) = &scratch.size_estimate {
            self.keys.note_estimated_sizes(count);
            self.estimated += count;
            if self.first_estimate.is_none() {
                self.first_estimate = Some(format!("item {:?}: {what}", self.keys.display(idx)));
            }
        }
        if let Some(name) = &scratch.ttl.name {
            let keys = &self.keys;
            let stats = self.ttl.get_or_insert_with(|| {
                TtlStats::new(&String::from_utf8_lossy(name), scratch.ttl.guessed)
            });
            stats.note(scratch.ttl.value, || keys.display(idx).into_owned());
        }
    }

    /// Is an item's key its partition key attribute's text (no key expression in the design)?
    pub fn keyed_by_attribute(&self) -> bool {
        self.designer
            .as_ref()
            .is_none_or(|d| d.design().key.is_none())
    }

    /// With a key expression, its key for this item into `pk_buf` (true); false without one.
    fn key_by_expr(&mut self, view: &RootValues<'_>, identity: u64) -> Result<bool, Message> {
        match &mut self.designer {
            Some(d) if d.design().key.is_some() => match d.key_of(view, identity) {
                Ok(Some(key)) => {
                    self.pk_buf.clear();
                    self.pk_buf.extend_from_slice(key.as_bytes());
                    Ok(true)
                }
                Ok(None) => Ok(false),
                Err(e) => Err(self.design_message(&e)),
            },
            _ => Ok(false),
        }
    }

    /// A design's bad record as a message; on the first item, with the attributes it has.
    fn design_message(&self, e: &crate::model::design::DesignError) -> Message {
        match (&e.error, self.items + self.skipped) {
            (crate::model::keyexpr::EvalError::Missing { .. }, 0)
                if !self.attribute_names.is_empty() =>
            {
                format!(
                    "{e} (the first item has {})",
                    self.attribute_names.join(", ")
                )
                .into()
            }
            // Past the first item, some items have the attribute: say how to go on without the others.
            (crate::model::keyexpr::EvalError::Missing { .. }, _) if self.on_bad == OnBad::Stop => {
                Message::hinted(format!("{e} ("), Hint::SkipBad, ")")
            }
            _ => e.to_string().into(),
        }
    }

    /// The partition key attribute's canonical bytes into `pk_buf`, its type checked.
    fn pk_of(&mut self, names: &KeyNames, scratch: &Scratch) -> Result<(), Message> {
        let pk_name = &names.pk;
        let Some(tag) = scratch.pk.as_ref() else {
            let guessed = if names.guessed {
                ", guessed from the first item,"
            } else {
                ""
            };
            return Err(Message::hinted(
                format!("item has no attribute {pk_name:?}; expected the partition key{guessed} ("),
                Hint::ChooseKey,
                " to choose another)",
            ));
        };
        let ty = match tag {
            Tag::Key(t) => *t,
            Tag::Other(t) => {
                return Err(format!(
                    "partition key {pk_name:?} is of type {t}; expected S, N or B"
                )
                .into());
            }
        };
        if self.key_type != Some(ty) {
            self.check_type(ty, &format!("partition key {pk_name:?}"))?;
        }
        if ty == KeyType::S
            && !scratch.pk_raw.is_empty()
            && scratch.pk_raw.len() <= MAX_PARTITION_KEY_BYTES
        {
            // Text read from a parsed `&str` is UTF-8 already: a string key is its bytes.
            self.pk_buf.clear();
            self.pk_buf.extend_from_slice(&scratch.pk_raw);
        } else {
            canonicalize_into(
                &scratch.pk_raw,
                ty,
                MAX_PARTITION_KEY_BYTES,
                &mut self.pk_buf,
            )
            .map_err(|e| format!("partition key {pk_name:?}: {e}"))?;
        }
        Ok(())
    }

    /// The sort key's canonical bytes into `sk_buf` and its type, when the item has one.
    fn sk_of(&mut self, names: &KeyNames, scratch: &Scratch) -> Result<Option<KeyType>, Message> {
        Ok(match (&scratch.sk, names.sk.as_ref()) {
            (Some(Tag::Key(st)), Some(sk_name)) => {
                let st = *st;
                match self.sk_type {
                    None => self.sk_type = Some(st),
                    Some(t) if t == st => {}
                    Some(t) => {
                        return Err(format!(
                            "sort key {sk_name:?} is of type {}; expected {} like the first item's",
                            Tag::Key(st),
                            Tag::Key(t)
                        )
                        .into());
                    }
                }
                canonicalize_into(&scratch.sk_raw, st, MAX_SORT_KEY_BYTES, &mut self.sk_buf)
                    .map_err(|e| format!("sort key {sk_name:?}: {e}"))?;
                Some(st)
            }
            (Some(Tag::Other(t)), Some(sk_name)) => {
                return Err(
                    format!("sort key {sk_name:?} is of type {t}; expected S, N or B").into(),
                );
            }
            _ => None,
        })
    }

    /// Adds a key given as text of the sink's key type (text formats: CSV).
    pub fn add_text(
        &mut self,
        pk: &[u8],
        sk: Option<&[u8]>,
        count: u64,
    ) -> Result<u32, crate::model::key::KeyError> {
        let ty = self.keys.key_type();
        canonicalize_into(pk, ty, MAX_PARTITION_KEY_BYTES, &mut self.pk_buf)?;
        let idx = match sk.filter(|s| !s.is_empty()) {
            Some(sk) => {
                canonicalize_into(sk, KeyType::S, MAX_SORT_KEY_BYTES, &mut self.sk_buf)?;
                self.keys
                    .add_item(&self.pk_buf, Some((&self.sk_buf, KeyType::S)), count)
            }
            None => self.keys.add(&self.pk_buf, count),
        };
        self.items += count;
        Ok(idx)
    }

    /// Like [`Self::add_text`], with the row's extracted values in `scratch` for the load's designs (a
    /// key expression replaces the key column), and its size when `scratch.item_bytes` has one. `Err` is the
    /// reason the row is not a valid record.
    pub fn add_text_with(
        &mut self,
        pk: &[u8],
        sk: Option<&[u8]>,
        count: u64,
        scratch: &Scratch,
    ) -> Result<(), Message> {
        if self.designer.is_none() {
            let idx = self
                .add_text(pk, sk, count)
                .map_err(|e| format!("key column: {e}"))?;
            self.note_whole_item(idx, scratch, count);
            return Ok(());
        }
        if self.attribute_names.is_empty() {
            self.attribute_names.clone_from(&scratch.names);
        }
        let view = RootValues {
            roots: &scratch.extract,
            values: &scratch.values,
        };
        self.settle();
        let sk = sk.filter(|s| !s.is_empty());
        let identity = item_identity(pk, sk);
        let by_expr = self.key_by_expr(&view, identity)?;
        if by_expr {
            if self.keys.key_type() != KeyType::S {
                return Err(Message::hinted(
                    "a key expression makes string keys: ",
                    Hint::KeyTypeMustBeS,
                    "",
                ));
            }
        } else {
            let ty = self.keys.key_type();
            canonicalize_into(pk, ty, MAX_PARTITION_KEY_BYTES, &mut self.pk_buf)
                .map_err(|e| format!("key column: {e}"))?;
        }
        let sk_ref = match sk {
            Some(sk) => {
                canonicalize_into(sk, KeyType::S, MAX_SORT_KEY_BYTES, &mut self.sk_buf)
                    .map_err(|e| format!("sort key column: {e}"))?;
                Some((&self.sk_buf[..], KeyType::S))
            }
            None => None,
        };
        let sized = scratch.item_bytes.map(|b| {
            (
                b,
                self.key_attribute_bytes(self.names.as_ref(), sk_ref.map(|(s, t)| (s.len(), t))),
            )
        });
        let sk = sk_ref.map(|(_, t)| t);
        let mut prepared = None;
        self.prepare(&view, sk, count, identity, sized, &mut prepared)?;
        self.add_prepared(scratch, sk, count, identity, sized, &mut prepared);
        Ok(())
    }
}
