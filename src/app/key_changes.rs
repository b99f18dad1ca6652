//! What the app does around a change of the key set, whose one owner is [`super::data::Data`]: a paste,
//! typing, "Edit as text", the key type and Undo go through its doors here, and the app clears the tree's
//! answers, recomputes and says what happened.

use std::sync::Arc;

use super::App;
use super::data::{Change, Keys, NewKeys};
use super::notices::{Activity, Level};
use super::views::View;
use crate::model::decision::UserAnswers;
use crate::model::{KeySet, KeyType};
use crate::source::Source;

impl App {
    /// Replaces the keys with a key set held as data (a loaded file, a benchmark).
    pub fn set_key_set(&mut self, keys: KeySet, source: Source) {
        self.replace_keys(NewKeys::data(Arc::new(keys), source));
    }

    /// Pastes keys: appended to the user's own text in the editor, or replacing an example's keys or keys
    /// held as data (one undo step brings them back).
    pub fn paste(&mut self, text: &str) {
        if crate::source::link::is_link(text) {
            return self.open_link(text);
        }
        let mut joined = match (self.data.keys(), self.data.source()) {
            (Keys::Text(_), Source::Example(_)) | (Keys::Data(_), _) => String::new(),
            (Keys::Text(t), _) => t.clone(),
        };
        if !joined.is_empty() && !joined.ends_with('\n') {
            joined.push('\n');
        }
        joined.push_str(text);
        self.set_text(joined);
    }

    /// Replaces the keys with text, read as the editor's key type (as chosen, never a loaded file's).
    pub fn set_text(&mut self, text: String) {
        // A share link pasted into the editor opens as the link it is, not as one more key.
        if let Some(link) = link_in(&text) {
            return self.open_link(link);
        }
        let key_type = self.data.text_key_type();
        self.replace_keys(NewKeys::text(text, Source::Paste, key_type));
    }

    /// Replaces the key set through its door; new data clears the tree's answers, except more of the same
    /// table (a live scan's pages, or a scan of the table again), whose answers the user gave while watching
    /// it grow. Large text is parsed on the worker first and replaces the keys only if it parses; the frame
    /// never parses it.
    ///
    /// The lines about the keys replaced go ([`super::notices::Notices::keys_replaced`]): a file's "loaded …"
    /// warning is not left standing beside a table's keys.
    pub(super) fn replace_keys(&mut self, new: NewKeys) {
        let by = match new.source() {
            Source::File(_) => Activity::Load,
            Source::Table { .. } => Activity::Scan,
            Source::Paste | Source::Example(_) | Source::Items(_) => Activity::Keys,
        };
        let change = self.data.replace(new, &mut self.design);
        if change == (Change::Replaced { same_table: false }) {
            self.pipeline.answers = UserAnswers::default();
        }
        if matches!(change, Change::Replaced { .. }) {
            self.notices.keys_replaced(by);
        }
        self.pipeline.input_changed();
    }

    /// Typing in the editor (one undo step for a run of typing); a large paste still being read is dropped,
    /// and said so.
    pub(super) fn edit_text(&mut self, text: String) {
        // A share link pasted into the editor opens as the link it is (see `set_text`).
        if let Some(link) = link_in(&text) {
            return self.open_link(link);
        }
        if self.data.type_text(text, &self.design) {
            self.notify(
                Activity::Keys,
                Level::Warning,
                "the paste still being read was dropped: the keys are what you typed",
            );
        }
        self.pipeline.input_changed();
    }

    pub(super) fn edit_as_text(&mut self) {
        if self.data.edit_as_text(&self.design) {
            self.pipeline.input_changed();
        }
    }

    /// The key type chosen in the editor; if the keys cannot be read as it, the type before comes back
    /// (`Pipeline::key_type_before`).
    pub(super) fn set_key_type(&mut self, key_type: KeyType) {
        let before = self.data.set_key_type(key_type);
        self.pipeline.key_type_before = Some(before);
        self.pipeline.input_changed();
    }

    /// Brings back the keys the last change replaced.
    pub(super) fn undo(&mut self) {
        // In the Timeline, Undo brings back the run before (the tree's fix, a What if, another run opened).
        if self.view() == View::Timeline && self.undo_run() {
            return;
        }
        let Some(what) = self.data.undo(&mut self.design).map(Source::describe) else {
            self.notify(Activity::Keys, Level::Info, "nothing to undo");
            return;
        };
        self.pipeline.answers = UserAnswers::default();
        self.pipeline.dirty = true;
        self.notify(Activity::Keys, Level::Info, format!("back to {what}"));
    }

    /// What Undo would bring back, for the Edit menu.
    pub fn undo_label(&self) -> Option<String> {
        if self.view() == View::Timeline
            && let Some(run) = self.timeline.undo_label()
        {
            return Some(run);
        }
        self.data.undo_label()
    }
}

/// A line of the editor's text that is a whole share link that opens: a key that merely looks like one
/// (`X#shardlens1=…` that does not decode) stays a key, and what was typed is never dropped for it.
fn link_in(text: &str) -> Option<&str> {
    use crate::source::{link, session::Session};
    // One search of the whole text before any line is looked at: a paste of millions of keys holds no link
    // (looking line by line took 0.65 s of the page's thread for 2,000,000 lines).
    if !link::may_hold_link(text) {
        return None;
    }
    text.lines().find(|l| {
        link::is_link(l) && link::decode(l).is_ok_and(|json| Session::parse(&json).is_ok())
    })
}
