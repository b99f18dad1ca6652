//! The key set on screen and everything that is a fact about it: the keys, their source, their key type, the
//! data files' groups, the items' TTL attribute, large pasted text still being read, and the undo history. [`Data`] is their one
//! owner: its fields are private to this module, so every change goes through one of its doors
//! ([`Data::replace`], [`Data::type_text`], [`Data::edit_as_text`], [`Data::set_key_type`], [`Data::undo`]),
//! and each change of the key set is one undo step that brings back exactly the keys, their source, key type,
//! groups, TTL attribute and the Key design's keying (the Key design's state is its view's, `App::design`: the
//! doors that change the keys take it, so that an undo step keeps and restores its keying with the keys). What the app does around a change (clearing the tree's answers,
//! recomputing, saying so) is in `key_changes`.
//!
//! The key type is persisted in [`super::settings::Settings`] between runs and in sessions; at run time this
//! module owns it, and the settings' copy is written only when they are saved. Two types are kept apart: the
//! keys' own ([`Data::key_type`]: a file's comes from its data) and the one typed and pasted text is read as
//! ([`Data::text_key_type`]: the editor's Key type, as the user chose it or as text was last read). A file of
//! number keys never makes the next paste a number.

use std::path::PathBuf;
use std::sync::Arc;

use super::design::{self, DesignKeying, DesignState};
use super::editor;
use super::live::LiveRates;
use crate::model::design::Items;
use crate::model::health::ttl::TtlStats;
use crate::model::query::Target;
use crate::model::{KeySet, KeyType};
use crate::source::{Group, LoadOptions, Source};

/// Undo steps kept for key sets replaced (typing, a paste, an example, a file, a session, a scan, a re-key).
const UNDO_STEPS: usize = 8;

/// Where the keys live: as text in the editor, or as data (large sets, loaded files).
#[derive(Debug, Clone)]
pub enum Keys {
    Text(String),
    Data(Arc<KeySet>),
}

/// The facts of a key set: the keys, where they come from, their type, and what their load read beside them.
/// The keys on screen, a key set that replaces them and one kept for Undo each hold one.
#[derive(Clone)]
struct KeyFacts {
    keys: Keys,
    source: Source,
    key_type: KeyType,
    /// Items per data file of a loaded S3 export: the real grouping by partition.
    groups: Option<Vec<Group>>,
    /// The items' TTL attribute as the load read it (Table health); not saved in sessions.
    ttl: Option<Arc<TtlStats>>,
    /// Each key's live rate, when the keys are a watch's writes ([`super::live`]).
    live: Option<Arc<LiveRates>>,
}

/// The key set as it was before a change, for Undo.
struct Replaced {
    facts: KeyFacts,
    design: DesignKeying,
}

/// A key set that replaces the one on screen, with what comes with it.
pub(crate) struct NewKeys {
    facts: KeyFacts,
    keying: Keying,
    target: Option<Target>,
}

/// What the Key design view says new keys are keyed by.
pub(crate) enum Keying {
    /// What the source says: a file's key attribute (as an expression, when known), a table, typed keys.
    Source(Option<String>),
    /// The same items re-keyed by an expression ("Use as key"): the items and where they come from stay.
    Rekey(String),
    /// An example's items and the expression they are keyed by.
    Items(Items, String),
}

impl NewKeys {
    /// Keys as text, read as `key_type`.
    pub(crate) fn text(text: String, source: Source, key_type: KeyType) -> Self {
        Self::new(Keys::Text(text), source, key_type)
    }

    /// Keys held as data, of the key set's own type.
    pub(crate) fn data(keys: Arc<KeySet>, source: Source) -> Self {
        let key_type = keys.key_type();
        Self::new(Keys::Data(keys), source, key_type)
    }

    fn new(keys: Keys, source: Source, key_type: KeyType) -> Self {
        Self {
            facts: KeyFacts::new(keys, source, key_type),
            keying: Keying::Source(None),
            target: None,
        }
    }

    /// Where the keys come from.
    pub(crate) fn source(&self) -> &Source {
        &self.facts.source
    }

    /// Items per data file of a loaded S3 export.
    pub(crate) fn groups(mut self, groups: Option<Vec<Group>>) -> Self {
        self.facts.groups = groups;
        self
    }

    /// What the load read of the items' TTL attribute (for Table health).
    pub(crate) fn ttl(mut self, ttl: Option<Arc<TtlStats>>) -> Self {
        self.facts.ttl = ttl;
        self
    }

    pub(crate) fn keying(mut self, keying: Keying) -> Self {
        self.keying = keying;
        self
    }

    /// What the load or scan said about its table (for the key conditions Copy gives).
    pub(crate) fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }

    /// Each key's live rate (a watch of the table's writes), which the inspector shows.
    pub(crate) fn live(mut self, rates: Arc<LiveRates>) -> Self {
        self.facts.live = Some(rates);
        self
    }
}

impl KeyFacts {
    fn new(keys: Keys, source: Source, key_type: KeyType) -> Self {
        Self {
            keys,
            source,
            key_type,
            groups: None,
            ttl: None,
            live: None,
        }
    }
}

/// What [`Data::replace`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// The keys were replaced. `same_table`: more of the table on screen (a live scan's pages, a scan of it
    /// again), which keeps the tree's answers and adds no undo step.
    Replaced { same_table: bool },
    /// Text too long for the editor: it is read off the UI thread first ([`Data::pending_text`]) and replaces
    /// the keys only if it parses ([`Data::pending_parsed`]).
    Pending,
}

/// The keys and where they came from, and what the app keeps beside them.
pub(crate) struct Data {
    facts: KeyFacts,
    /// The type typed and pasted text is read as: the editor's Key type as chosen, or as text keys were read
    /// (a session's, an example's); keys held as data (a file's) leave it as it was.
    text_key_type: KeyType,
    /// Large pasted text being parsed on the worker, where it came from and the type it is read as.
    pending_text: Option<(Arc<String>, Source, KeyType)>,
    /// The last change of the keys was typing in the editor: more typing joins its undo step.
    typing: bool,
    /// Key sets replaced, newest last: each change is one step.
    undo: Vec<Replaced>,
    /// What the last load or scan said about its table, with the source it describes: it holds only while
    /// that is still the keys' source ([`Self::target`]).
    target: Option<(Source, Target)>,
    /// How files are read (format, key attributes, bad-record policy).
    pub(crate) load_options: LoadOptions,
    /// The last file or folder opened, whether it loaded or not, and the table chosen in it (a file of
    /// several tables): File > Reload reads it again with the current [`Self::load_options`] (after a load
    /// error says which option to set), on the same table.
    pub(crate) last_file: Option<(crate::source::open::Input, Option<String>)>,
    /// The file the current [`Self::load_options`] were used for: opening another one starts from detection
    /// again (format, key attributes, CSV columns and header), unless [`Self::keep_load_options`]. `None`
    /// while the options were chosen and not used yet.
    pub(crate) options_for: Option<PathBuf>,
    /// File > Load options > Keep these options for the next files.
    pub(crate) keep_load_options: bool,
    /// Why the chart is empty when it is not the user's choice (a file given at start that failed to load).
    pub(crate) empty_reason: Option<String>,
}

impl Data {
    pub(crate) fn new(keys: Keys, source: Source, key_type: KeyType) -> Self {
        Self {
            facts: KeyFacts::new(keys, source, key_type),
            text_key_type: key_type,
            pending_text: None,
            typing: false,
            undo: Vec::new(),
            target: None,
            load_options: LoadOptions::default(),
            last_file: None,
            options_for: None,
            keep_load_options: false,
            empty_reason: None,
        }
    }

    pub(crate) fn keys(&self) -> &Keys {
        &self.facts.keys
    }

    pub(crate) fn source(&self) -> &Source {
        &self.facts.source
    }

    /// The keys' own type (what the editor's Key type shows).
    pub(crate) fn key_type(&self) -> KeyType {
        self.facts.key_type
    }

    /// The type pasted text is read as: the editor's Key type as the user chose it, never a file's.
    pub(crate) fn text_key_type(&self) -> KeyType {
        self.text_key_type
    }

    pub(crate) fn groups(&self) -> Option<&[Group]> {
        self.facts.groups.as_deref()
    }

    /// The items' TTL attribute as the load read it, when they had one.
    pub(crate) fn ttl(&self) -> Option<&Arc<TtlStats>> {
        self.facts.ttl.as_ref()
    }

    /// Each key's live rate, when the keys are a watch's writes.
    pub(crate) fn live(&self) -> Option<&LiveRates> {
        self.facts.live.as_deref()
    }

    /// Large pasted text still being read.
    pub(crate) fn pending_text(&self) -> Option<&Arc<String>> {
        self.pending_text.as_ref().map(|(t, _, _)| t)
    }

    /// The type the keys being computed are read as: the large pasted text's while it is read, else the keys'.
    pub(crate) fn reading_as(&self) -> KeyType {
        self.pending_text
            .as_ref()
            .map_or(self.facts.key_type, |&(_, _, ty)| ty)
    }

    /// What the last load or scan said about its table, while it is still the keys' source (a scan's table
    /// by name, as its pages change the status).
    pub(crate) fn target(&self) -> Option<&Target> {
        let (source, target) = self.target.as_ref()?;
        let same = match (source, &self.facts.source) {
            (Source::Table { name: a, .. }, Source::Table { name: b, .. }) => a == b,
            (a, b) => a == b,
        };
        same.then_some(target)
    }

    /// What Undo would bring back, in the key panel's words.
    pub(crate) fn undo_label(&self) -> Option<String> {
        self.undo.last().map(|r| r.facts.source.describe())
    }

    /// Replaces the key set (a paste, an example, a file, a session, a scan, a re-key): one undo step, unless
    /// it is more of the table on screen. Text too long for the editor waits until it has been read.
    pub(crate) fn replace(&mut self, new: NewKeys, design: &mut DesignState) -> Change {
        self.typing = false;
        if let Keys::Text(t) = &new.facts.keys
            && too_long_for_the_editor(t)
        {
            let KeyFacts {
                keys: Keys::Text(t),
                source,
                key_type,
                ..
            } = new.facts
            else {
                return Change::Pending;
            };
            self.pending_text = Some((Arc::new(t), source, key_type));
            return Change::Pending;
        }
        self.pending_text = None;
        let same_table = matches!(
            (&self.facts.source, &new.facts.source),
            (Source::Table { name: a, .. }, Source::Table { name: b, .. }) if a == b
        );
        if !same_table {
            self.push_undo(design);
            self.start_design(design, &new.facts.source, new.keying);
        }
        if let Some(target) = new.target {
            self.target = Some((new.facts.source.clone(), target));
        }
        self.empty_reason = None;
        if matches!(new.facts.keys, Keys::Text(_)) {
            self.text_key_type = new.facts.key_type;
        }
        self.facts = new.facts;
        Change::Replaced { same_table }
    }

    /// The Key design view starts over for new keys: their own items (or where to read them) and keying.
    fn start_design(&self, design: &mut DesignState, source: &Source, keying: Keying) {
        let from = match source {
            Source::File(path) => {
                design::ItemsFrom::File(path.clone(), Box::new(self.load_options.clone()))
            }
            Source::Table { .. } => design::ItemsFrom::Table,
            Source::Items(_) => design::ItemsFrom::Kept,
            _ => design::ItemsFrom::Keys,
        };
        match keying {
            Keying::Source(current) => {
                let current = current.unwrap_or_else(|| match from {
                    design::ItemsFrom::Keys => "{pk}".to_owned(),
                    _ => String::new(),
                });
                design.reset(None, from, current);
            }
            Keying::Rekey(current) => design.rekey(current),
            Keying::Items(items, current) => {
                design.reset(Some(items), design::ItemsFrom::Kept, current);
            }
        }
    }

    /// The large pasted text was read: its keys replace the key set (`None` when nothing was pending).
    pub(crate) fn pending_parsed(
        &mut self,
        keys: Arc<KeySet>,
        design: &mut DesignState,
    ) -> Option<Change> {
        let (_, source, _) = self.pending_text.take()?;
        Some(self.replace(NewKeys::data(keys, source), design))
    }

    /// The large pasted text could not be read: the keys stay. Whether any was pending.
    pub(crate) fn drop_pending(&mut self) -> bool {
        self.pending_text.take().is_some()
    }

    /// Typing in the editor: the first keystroke after any other change is an undo step, and the keys typed
    /// after it join that step. Typing wins over a large paste still being read, which is dropped (returns
    /// whether one was): the keys are never a mix of the two.
    pub(crate) fn type_text(&mut self, text: String, design: &DesignState) -> bool {
        if !self.typing {
            self.push_undo(design);
        }
        let dropped = self.drop_pending();
        self.facts.keys = Keys::Text(text);
        self.facts.source = Source::Paste;
        self.facts.groups = None;
        self.facts.ttl = None;
        self.facts.live = None;
        self.empty_reason = None;
        self.typing = true;
        dropped
    }

    /// "Edit as text": keys held as data become the editor's text, one line per write (one undo step).
    /// Whether anything changed.
    pub(crate) fn edit_as_text(&mut self, design: &DesignState) -> bool {
        let Keys::Data(k) = &self.facts.keys else {
            return false;
        };
        let mut text = String::new();
        for (i, _, count) in k.iter() {
            let key = k.display(i);
            for _ in 0..count {
                text.push_str(&key);
                text.push('\n');
            }
        }
        self.push_undo(design);
        self.typing = false;
        self.facts.keys = Keys::Text(text);
        self.text_key_type = self.facts.key_type;
        true
    }

    /// Reads the keys (and text pasted from now on) as another type; returns the keys' type before.
    pub(crate) fn set_key_type(&mut self, key_type: KeyType) -> KeyType {
        self.text_key_type = key_type;
        std::mem::replace(&mut self.facts.key_type, key_type)
    }

    /// Brings back the key set the last change replaced; returns its source, or `None` with nothing to undo.
    pub(crate) fn undo(&mut self, design: &mut DesignState) -> Option<&Source> {
        let r = self.undo.pop()?;
        self.pending_text = None;
        self.typing = false;
        if matches!(r.facts.keys, Keys::Text(_)) {
            self.text_key_type = r.facts.key_type;
        }
        self.facts = r.facts;
        design.restore(r.design);
        self.empty_reason = None;
        Some(&self.facts.source)
    }

    /// Forgets the undo history (the empty start of a file given on the command line is nothing to go back
    /// to).
    pub(crate) fn forget_undo(&mut self) {
        self.undo.clear();
    }

    /// Keeps the key set as it is now as one undo step.
    fn push_undo(&mut self, design: &DesignState) {
        self.undo.push(Replaced {
            facts: self.facts.clone(),
            design: design.keying(),
        });
        if self.undo.len() > UNDO_STEPS {
            self.undo.remove(0);
        }
    }
}

/// Text with more lines than the editor holds is parsed off the UI thread before it replaces the keys.
fn too_long_for_the_editor(text: &str) -> bool {
    text.as_bytes()
        .split(|&b| b == b'\n')
        .nth(editor::TEXT_LINE_LIMIT)
        .is_some_and(|rest| !rest.is_empty())
}
