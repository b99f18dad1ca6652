//! The one door for changing the key set: replacing the keys (a paste, an example, a file, a scan, a re-key),
//! typing, "Edit as text", and Undo. Each change is one undo step that brings back the keys, their source,
//! their key type, the data files' groups and the Key design's current key.

use std::sync::Arc;

use super::notices::{Activity, Level};
use super::{App, Keys, Replaced, UNDO_STEPS, design, editor};
use crate::model::KeySet;
use crate::model::decision::UserAnswers;
use crate::source::Source;

impl App {
    /// Replaces the keys with a key set held as data (a loaded file, a benchmark).
    pub fn set_key_set(&mut self, keys: KeySet, source: Source) {
        self.replace_keys(Keys::Data(Arc::new(keys)), source);
    }

    /// Pastes keys: appended to the user's own text in the editor, or replacing an example's keys or keys
    /// held as data (one undo step brings them back).
    pub fn paste(&mut self, text: &str) {
        let mut joined = match (&self.data.keys, &self.data.source) {
            (Keys::Text(_), Source::Example(_)) | (Keys::Data(_), _) => String::new(),
            (Keys::Text(t), _) => t.clone(),
        };
        if !joined.is_empty() && !joined.ends_with('\n') {
            joined.push('\n');
        }
        joined.push_str(text);
        self.set_text(joined);
    }

    /// Replaces the keys with text.
    pub fn set_text(&mut self, text: String) {
        self.replace_keys(Keys::Text(text), Source::Paste);
    }

    /// Replaces the keys. Text too long for the editor is parsed on the worker first and replaces the keys
    /// only if it parses ([`Pipeline::pending_text`]); the frame never parses it.
    pub(super) fn replace_keys(&mut self, keys: Keys, source: Source) {
        self.data.typing = false;
        if let Keys::Text(t) = &keys
            && t.as_bytes()
                .split(|&b| b == b'\n')
                .nth(editor::TEXT_LINE_LIMIT)
                .is_some_and(|rest| !rest.is_empty())
        {
            let Keys::Text(t) = keys else { return };
            self.pipeline.pending_text = Some((Arc::new(t), source));
            self.input_changed();
            return;
        }
        self.pipeline.pending_text = None;
        // Answers are about the data: new data clears them, except more of the same table (a live scan's
        // pages, or a scan of the table again), whose answers the user gave while watching it grow.
        let same_table = matches!(
            (&self.data.source, &source),
            (Source::Table { name: a, .. }, Source::Table { name: b, .. }) if a == b
        );
        if !same_table {
            self.pipeline.answers = UserAnswers::default();
        }
        // Every change of the key set can be brought back (Ctrl+Z); a live scan's pages replace its own
        // earlier pages, which is no loss.
        if !same_table {
            self.push_undo();
        }
        self.data.empty_reason = None;
        // New keys bring their own attributes (or where to read them): the Key design view starts over.
        let (from, current) = match &source {
            Source::File(path) => (
                design::ItemsFrom::File(path.clone(), Box::new(self.data.load_options.clone())),
                String::new(),
            ),
            Source::Table { .. } => (design::ItemsFrom::Table, String::new()),
            Source::Items(_) => (design::ItemsFrom::Kept, String::new()),
            _ => (design::ItemsFrom::Keys, "{pk}".to_owned()),
        };
        if !same_table {
            self.data.design.reset(None, from, current);
        }
        self.data.keys = keys;
        self.data.source = source;
        self.data.groups = None;
        self.input_changed();
    }

    /// Keeps the key set as it is now (keys, source, key type, groups, the design's key) as one undo step.
    fn push_undo(&mut self) {
        let d = &self.data.design;
        let replaced = Replaced {
            keys: self.data.keys.clone(),
            source: self.data.source.clone(),
            key_type: self.settings.key_type,
            groups: self.data.groups.clone(),
            design_current: d.current.clone(),
            design_items: d.items.clone(),
            design_from: d.from.clone(),
        };
        self.data.undo.push(replaced);
        if self.data.undo.len() > UNDO_STEPS {
            self.data.undo.remove(0);
        }
    }

    /// Typing in the editor: the first keystroke after any other change is an undo step, and the keys
    /// typed after it join that step. Typing wins over a large paste still being read (which is dropped,
    /// and said so): the keys are never a mix of the two.
    pub(super) fn edit_text(&mut self, text: String) {
        if !self.data.typing {
            self.push_undo();
        }
        if self.pipeline.pending_text.take().is_some() {
            self.notify(
                Activity::Keys,
                Level::Warning,
                "the paste still being read was dropped: the keys are what you typed",
            );
        }
        self.data.keys = Keys::Text(text);
        self.data.source = Source::Paste;
        self.data.groups = None;
        self.data.empty_reason = None;
        self.data.typing = true;
        self.input_changed();
    }

    pub(super) fn edit_as_text(&mut self) {
        if let Keys::Data(k) = &self.data.keys {
            let mut text = String::new();
            for (i, _, count) in k.iter() {
                let key = k.display(i);
                for _ in 0..count {
                    text.push_str(&key);
                    text.push('\n');
                }
            }
            self.push_undo();
            self.data.typing = false;
            self.data.keys = Keys::Text(text);
            self.input_changed();
        }
    }

    /// Brings back the keys the last example, file, session or scan replaced.
    pub(super) fn undo(&mut self) {
        let Some(r) = self.data.undo.pop() else {
            self.notify(Activity::Keys, Level::Info, "nothing to undo");
            return;
        };
        let what = r.source.describe();
        self.pipeline.pending_text = None;
        self.data.typing = false;
        self.data.keys = r.keys;
        self.data.source = r.source;
        self.settings.key_type = r.key_type;
        self.data.groups = r.groups;
        self.data
            .design
            .reset(None, r.design_from, r.design_current);
        self.data.design.items = r.design_items;
        self.pipeline.answers = UserAnswers::default();
        self.data.empty_reason = None;
        self.pipeline.dirty = true;
        self.notify(Activity::Keys, Level::Info, format!("back to {what}"));
    }

    /// What Undo would bring back, for the Edit menu.
    pub fn undo_label(&self) -> Option<String> {
        self.data.undo.last().map(|r| r.source.describe())
    }
}
