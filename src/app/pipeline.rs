//! From input to what is on screen: the generation asked for and the one shown, the last good report (it
//! stays while newer input is invalid or computing), the tree's answers and path. [`Pipeline`] owns them;
//! its methods are the only writers.

use std::sync::Arc;

use super::data::{Change, Data, Keys};
use super::jobs::{self, Computed, Input, Jobs, Request, Shown};
use crate::model::decision::{Path, UserAnswers, evaluate};
use crate::model::text::LineError;
use crate::model::{KeyType, ViewSettings};

/// Inputs up to this many bytes are computed inline (a few milliseconds); larger ones on the worker.
const INLINE_BYTES: usize = 256 * 1024;

/// Key sets up to this many distinct keys are computed inline (a few milliseconds); larger ones on the worker.
const INLINE_KEYS: usize = 20_000;

pub(crate) struct Pipeline {
    /// Generation of the newest request; results of older ones are dropped.
    wanted: u64,
    /// Generation of the report shown.
    shown: u64,
    /// The input or the view changed: recompute once, at the end of the frame's work.
    pub(super) dirty: bool,
    pub(crate) current: Option<Shown>,
    /// The parse error of the current input, if any.
    pub(crate) input_error: Option<String>,
    pub(crate) answers: UserAnswers,
    pub(crate) path: Option<Path>,
    /// The key type before the user switched it: restored if the keys cannot be read as the new type.
    pub(super) key_type_before: Option<KeyType>,
}

/// What became of a computed report ([`Pipeline::on_computed`]).
pub(super) enum Arrived {
    /// An older request's answer: dropped.
    Stale,
    Shown,
    /// The input does not parse: the last good report stays, with the error beside it.
    InputError,
    /// A large paste did not parse: the keys stay.
    PasteFailed(LineError),
    /// The keys cannot be read as the key type just chosen: the type before is back.
    KeyTypeFailed {
        wanted: KeyType,
        kept: KeyType,
        error: LineError,
    },
}

impl Default for Pipeline {
    fn default() -> Self {
        Self {
            wanted: 0,
            shown: 0,
            dirty: true,
            current: None,
            input_error: None,
            answers: UserAnswers::default(),
            path: None,
            key_type_before: None,
        }
    }
}

impl Pipeline {
    /// Whether a report newer than the one shown is wanted.
    pub(super) fn computing(&self) -> bool {
        self.dirty || self.wanted != self.shown
    }

    /// The keys or the view changed: one recompute at the end of this frame's work.
    pub(super) fn input_changed(&mut self) {
        self.dirty = true;
    }

    /// The tree's answers (or the report they are about) changed: the one place the path is re-evaluated.
    pub(super) fn answers_changed(&mut self) {
        if let Some(shown) = &self.current {
            self.path = Some(evaluate(&shown.report.evidence, &self.answers));
        }
    }

    /// Starts computing the report for the keys and the view: inline when small (the result is returned),
    /// else on the worker. Large pasted text waiting to be parsed is what gets computed (it is about to
    /// replace the keys).
    pub(super) fn recompute(
        &mut self,
        data: &Data,
        view: ViewSettings,
        jobs: &mut Jobs,
    ) -> Option<Computed> {
        self.dirty = false;
        self.wanted += 1;
        let key_type = data.reading_as();
        let (input, small) = match (data.pending_text(), data.keys()) {
            (Some(text), _) => (Input::Text(Arc::clone(text), key_type), false),
            (None, Keys::Text(t)) => (
                Input::Text(Arc::new(t.clone()), key_type),
                t.len() <= INLINE_BYTES,
            ),
            (None, Keys::Data(k)) => (
                Input::Keys(Arc::clone(k), data.ttl().cloned()),
                k.len() <= INLINE_KEYS,
            ),
        };
        let generation = self.wanted;
        if small {
            let result = jobs::compute(input, &view, self.current.as_ref(), generation);
            return Some(Computed { generation, result });
        }
        jobs.submit(Request {
            generation,
            input,
            view,
        })
    }

    /// A computed report arrives: shown if it is the newest; a parse error keeps the previous data. Large
    /// pasted text that parsed replaces the keys through their door.
    pub(super) fn on_computed(
        &mut self,
        computed: Computed,
        data: &mut Data,
        design: &mut super::design::DesignState,
    ) -> Arrived {
        if computed.generation != self.wanted {
            return Arrived::Stale;
        }
        self.shown = computed.generation;
        if data.pending_text().is_some() {
            return match computed.result {
                Ok(shown) => {
                    if data.pending_parsed(Arc::clone(&shown.keys), design)
                        == Some(Change::Replaced { same_table: false })
                    {
                        self.answers = UserAnswers::default();
                    }
                    self.show(shown);
                    Arrived::Shown
                }
                Err(e) => {
                    data.drop_pending();
                    Arrived::PasteFailed(e)
                }
            };
        }
        match computed.result {
            Ok(shown) => {
                self.show(shown);
                Arrived::Shown
            }
            Err(error) => match self.key_type_before.take() {
                Some(kept) if kept != data.key_type() => {
                    let wanted = data.set_key_type(kept);
                    self.input_changed();
                    Arrived::KeyTypeFailed {
                        wanted,
                        kept,
                        error,
                    }
                }
                _ => {
                    self.input_error = Some(error.to_string());
                    Arrived::InputError
                }
            },
        }
    }

    fn show(&mut self, shown: Shown) {
        self.input_error = None;
        self.key_type_before = None;
        self.current = Some(shown);
        self.answers_changed();
    }
}
