//! A load's two ends, each once: the key names resolved from its first item ([`Sink::resolve_from_first`]), and
//! the [`Loaded`] the sink becomes ([`Sink::into_loaded`]) with what is said once at the end (the designs' keys
//! and their notes, items whose size is an estimate).

use super::super::json::item::{Scratch, Tag};
use super::super::{Group, Hint, LoadOptions, Loaded, Message};
use super::Sink;
use crate::model::KeyType;

/// The warning of a load that kept `n` items with a malformed attribute that is not a key, `first` the first
/// of them (`item "p1": attribute "a.M": …`).
pub fn estimate_note(n: u64, first: &str) -> String {
    format!(
        "{} kept with an attribute (not a key) that is not a DynamoDB typed value; {} estimated from what \
         could be read (the first: {first})",
        crate::model::fmt::plural(n, "item"),
        if n == 1 {
            "its size is"
        } else {
            "their sizes are"
        },
    )
}

impl Sink {
    /// Resolves the key names from the first item's attributes in `scratch.attrs`, then moves that item's
    /// keys into place.
    pub fn resolve_from_first(
        &mut self,
        scratch: &mut Scratch,
        opts: &LoadOptions,
    ) -> Result<(), Message> {
        let attrs = scratch.attrs.take().unwrap_or_default();
        let listed: Vec<(&str, Option<KeyType>)> = attrs
            .iter()
            .map(|(n, t, _)| {
                (
                    n.as_str(),
                    match t {
                        Tag::Key(k) => Some(*k),
                        Tag::Other(_) => None,
                    },
                )
            })
            .collect();
        // With a key expression and no --key, the expression's first attribute stands in for the partition
        // key attribute (the key itself comes from the expression).
        let key = opts.key.clone().or_else(|| {
            let expr = opts.design.key.as_ref()?;
            expr.attributes().first().map(|p| p.root().to_owned())
        });
        let (names, mut note) = super::super::json::item::resolve_names(
            &listed,
            key.as_deref(),
            opts.sort_key.as_deref(),
        )?;
        if opts.key.is_none() && opts.design.key.is_some() {
            // The key comes from the expression: only a guessed sort key is news.
            note = note.and(names.sk.as_ref()).map(|sk| {
                Message::hinted(
                    format!("sort key guessed from the first item: {sk:?} ("),
                    Hint::ChooseSortKey,
                    " to choose)",
                )
            });
        }
        if let Some(note) = note {
            self.warn(note);
        }
        scratch.attrs = Some(attrs);
        scratch.take_from_attrs(&names);
        self.names = Some(names);
        Ok(())
    }

    pub fn into_loaded(mut self, bytes: u64, groups: Option<Vec<Group>>) -> Loaded {
        self.settle();
        let key_expr = self
            .designer
            .as_ref()
            .and_then(|d| d.design().key.as_ref().map(ToString::to_string));
        let (designs, shard_by) = match self.designer.take() {
            Some(d) => {
                for (items, first) in d.not_keyed() {
                    if let Some(e) = first {
                        self.warnings
                            .push(crate::model::design::not_keyed_note(*items, e).into());
                    }
                }
                d.finish()
            }
            None => (Vec::new(), None),
        };
        let has = if self.attribute_names.is_empty() {
            String::new()
        } else {
            format!("; the first item has {}", self.attribute_names.join(", "))
        };
        let read = self.items + self.skipped > 0;
        if let Some(expr) = key_expr.filter(|_| self.keys.is_empty() && read) {
            self.warnings
                .push(format!("the key expression `{expr}` keyed no item{has}").into());
        }
        for d in designs.iter().filter(|d| d.keys.is_empty() && read) {
            self.warnings
                .push(format!("no item is in {} `{}`{has}", d.kind, d.expr).into());
        }
        if let Some(first) = self.first_estimate.take() {
            self.warnings
                .push(estimate_note(self.estimated, &first).into());
        }
        let (key_attribute, sort_key_attribute) = match self.names {
            Some(n) => (Some(n.pk), n.sk),
            None => (None, None),
        };
        Loaded {
            keys: self.keys,
            lines: self.lines,
            bytes,
            items: self.items,
            groups,
            skipped: self.skipped,
            warnings: self.warnings,
            key_attribute,
            sort_key_attribute,
            shape: (!self.shapes.is_empty()).then(|| Message::join(&self.shapes, "; ")),
            tables: self.tables,
            table: self.table,
            changes: self.changes,
            designs,
            shard_by,
            kept: self.kept,
            attribute_names: self.attribute_names,
            ttl: self.ttl,
        }
    }
}
