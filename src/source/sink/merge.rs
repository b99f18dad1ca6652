//! Loader threads: a [`Sink`] forked for each, and their sinks (or a file of lines' keys) merged back, keys
//! renumbered for what refers to them by index (designs, kept items, calculated sharding).

use super::{Loaded, Sink};
use crate::model::KeySet;
use crate::model::design::{Designer, Items};
use crate::source::{LoadOptions, OnBad};

impl Sink {
    /// An empty sink with this one's settings (names, key types, policy) for one of `of` loader threads, which
    /// share the budget of sort keys kept, so the merged set stays within it.
    pub fn fork(&self, of: usize) -> Self {
        let mut fork = Self::new(&LoadOptions {
            key_type: self.key_type,
            on_bad: self.on_bad,
            ..LoadOptions::default()
        });
        fork.keys =
            KeySet::with_kept_budget(self.keys.key_type(), self.keys.kept_budget() / of.max(1));
        if !self.keys.tracks_order() {
            fork.keys.set_read_order();
        }
        fork.key_type_given = self.key_type_given;
        fork.sk_type = self.sk_type;
        fork.names = self.names.clone();
        fork.designer = self
            .designer
            .as_ref()
            .map(|d| Designer::new(d.design()).skipping_bad(self.on_bad == OnBad::Skip));
        fork.kept = self.kept.as_ref().map(|k| Items::new(k.roots().to_vec()));
        fork
    }

    /// Adds a worker's keys and counts. Items both sinks hold are counted twice when their key has several
    /// items in `other` ([`KeySet::merge_counted`]; [`KeySet::merge_plan`] tells beforehand).
    pub fn absorb(&mut self, other: Sink) {
        self.absorb_planned(other, None);
    }

    /// [`Self::absorb`], `other`'s keys merged by the places `plan` found for them here
    /// ([`KeySet::merge_plan`]), when there is one.
    pub fn absorb_planned(&mut self, mut other: Sink, plan: Option<&[u32]>) {
        self.settle();
        other.settle();
        if self.key_type.is_none() {
            self.key_type = other.key_type;
        }
        let kept = other.kept.take();
        if self.keys.is_empty() && !self.keys.has_sort_keys() {
            self.absorb_designs(&other, kept, &|k| k);
            let budget = self.keys.kept_budget();
            self.keys = std::mem::take(&mut other.keys);
            self.keys.set_kept_budget(budget);
            self.keys.set_items_distinct(false);
        } else {
            match plan {
                Some(plan) => self.keys.merge_planned(&other.keys, plan),
                None => self.keys.merge(&other.keys),
            }
            // Where the other sink's keys are now; only needed by what refers to keys by index.
            let needs_map = kept.is_some()
                || self
                    .designer
                    .as_ref()
                    .is_some_and(|d| d.design().shard_by.is_some());
            let map: Vec<u32> = if needs_map {
                (0..other.keys.len() as u32)
                    .map(|k| self.keys.find(other.keys.key_bytes(k)).unwrap_or(k))
                    .collect()
            } else {
                Vec::new()
            };
            self.absorb_designs(&other, kept, &|k| map.get(k as usize).copied().unwrap_or(k));
        }
        if self.attribute_names.is_empty() {
            self.attribute_names = other.attribute_names;
        }
        self.sk_type = self.sk_type.or(other.sk_type);
        self.items += other.items;
        self.lines += other.lines;
        self.skipped += other.skipped;
        self.changes.add(&other.changes);
        match (&mut self.ttl, other.ttl) {
            (Some(mine), Some(theirs)) if mine.attribute == theirs.attribute => mine.merge(&theirs),
            // Two inputs guessed different attributes: the one more items have wins.
            (Some(mine), Some(theirs))
                if theirs.items - theirs.missing > mine.items - mine.missing =>
            {
                *mine = theirs;
            }
            (slot @ None, theirs) => *slot = theirs,
            _ => {}
        }
        for w in other.warnings {
            self.warn(w);
        }
    }

    /// Adds the keys of a file of lines (and what they noted for calculated sharding).
    pub fn absorb_lines(&mut self, loaded: Loaded) {
        let map: Vec<u32>;
        if self.keys.is_empty() && !self.keys.has_sort_keys() {
            map = (0..loaded.keys.len() as u32).collect();
            self.keys = loaded.keys;
        } else {
            self.keys.merge(&loaded.keys);
            map = (0..loaded.keys.len() as u32)
                .map(|k| self.keys.find(loaded.keys.key_bytes(k)).unwrap_or(k))
                .collect();
        }
        if let (Some(d), Some(by)) = (&mut self.designer, &loaded.shard_by)
            && let Some(mine) = &mut d.shard_by
        {
            mine.absorb(by, |k| map.get(k as usize).copied().unwrap_or(k));
        }
    }

    fn absorb_designs(&mut self, other: &Sink, kept: Option<Items>, map: &dyn Fn(u32) -> u32) {
        if let (Some(mine), Some(theirs)) = (&mut self.designer, &other.designer) {
            mine.absorb(theirs, map);
        }
        match (&mut self.kept, kept) {
            (Some(mine), Some(theirs)) => mine.absorb(theirs, map),
            (Some(mine), None) => mine.complete = false,
            _ => {}
        }
    }
}
