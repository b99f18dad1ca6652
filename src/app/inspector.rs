//! The partition inspector: pick a bucket, see its keys; pick a key, see what the data says about it. Another
//! panel can ask for a key by name ([`InspectorState::inspect`], Table health's example keys): its bucket is
//! found off the UI thread, and the key is selected there even when it is not among the listed keys.

use std::sync::Arc;

use super::jobs::Shown;
use super::tasks::{Query, TaskError};
use crate::model::fmt::{bytes, grouped, plural};
use crate::model::shard::PhysicalKey;
use crate::model::sortkey::TimeOrdered;
use crate::model::stats::{TopKey, bucket_keys, share};
use crate::model::{KeySet, KeyType, Partitioner};

/// Rows listed per bucket.
const ROWS: usize = 500;

#[derive(Debug, Default)]
pub struct InspectorState {
    /// The bucket shown; `None` follows the hottest.
    pub bucket: Option<usize>,
    /// The key picked (a physical key: a sharded key's shard), for the keys of [`Self::keys_of`].
    pub selected: Option<PhysicalKey>,
    /// The keys' generation ([`Shown::keys_generation`]) the selection is about: new keys clear it.
    keys_of: u64,
    /// A key asked for by name ([`Self::inspect`]): its keys' generation and index, until it is located.
    wanted: Option<(u64, u32)>,
    /// Where a wanted key is: its busiest physical key's bucket and row, for one report and key.
    located: Query<(u64, u32), Option<(usize, TopKey)>>,
    /// The located key, shown in its bucket's list even when the list (the bucket's most written) leaves
    /// it out: the report's generation, the bucket and its row.
    pinned: Option<(u64, usize, TopKey)>,
    /// The selection came from another panel: the next frame opens the inspector and scrolls to it.
    pub reveal: bool,
    /// Keys of the bucket for one report (by its generation) and bucket, listed off the UI thread.
    rows: Query<(u64, usize), (Vec<TopKey>, usize)>,
    /// The selected key's item collection, sorted off the UI thread, for one report and key.
    collection: Query<(u64, u32), Collection>,
    /// Why a list could not be computed (its thread did not start).
    error: Option<String>,
    pub begins_with: String,
    pub between_lo: String,
    pub between_hi: String,
    /// The condition the collection list last scrolled to, so it scrolls once per change.
    scrolled_for: Option<(String, String, String)>,
}

#[derive(Debug)]
struct Collection {
    sorted: Vec<Box<[u8]>>,
    /// Every sort key of the key was kept.
    all: bool,
    /// The sort keys look time-ordered by their values (only judged when the input is not in write order).
    time: Option<TimeOrdered>,
    /// Items in the whole table, for the cost of a Scan next to the Query's.
    table_items: u64,
}

/// A spinner in place of a list that is being computed (or the reason it cannot be).
fn waiting_ui(ui: &mut egui::Ui, what: &str, error: Option<&str>) {
    match error {
        Some(e) => {
            ui.colored_label(super::theme::ERROR, e);
        }
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.weak(what);
            });
        }
    }
}

impl InspectorState {
    /// A list's thread could not start: the panel says why in place of the list.
    pub fn failed(&mut self, error: &TaskError) {
        self.error = Some(error.to_string());
    }

    /// A list is being computed off the UI thread.
    /// The sort-key condition of the `begins_with` field, else of both `between` fields, if filled in.
    pub fn sort_condition(&self) -> Option<crate::model::collection::SortKeyCondition> {
        use crate::model::collection::SortKeyCondition;
        if !self.begins_with.is_empty() {
            Some(SortKeyCondition::BeginsWith(
                self.begins_with.as_bytes().to_vec(),
            ))
        } else if !self.between_lo.is_empty() && !self.between_hi.is_empty() {
            Some(SortKeyCondition::Between(
                self.between_lo.as_bytes().to_vec(),
                self.between_hi.as_bytes().to_vec(),
            ))
        } else {
            None
        }
    }

    pub fn pending(&self) -> bool {
        self.rows.pending() || self.collection.pending() || self.located.pending()
    }

    /// Selects key `key` (an index into the keys of generation `keys_generation`): the next ticks find its
    /// bucket (the busiest of its shards when sharded) and show it there.
    pub fn inspect(&mut self, keys_generation: u64, key: u32) {
        self.wanted = Some((keys_generation, key));
    }

    /// The selected key's row: in the bucket's list, or the key located by name.
    fn selected_row<'a>(
        &'a self,
        list: &'a [TopKey],
        shown: &Shown,
        bucket: usize,
    ) -> Option<&'a TopKey> {
        let id = self.selected?;
        list.iter().find(|k| k.id == id).or_else(|| {
            self.pinned
                .as_ref()
                .filter(|(g, b, k)| *g == shown.generation && *b == bucket && k.id == id)
                .map(|(.., k)| k)
        })
    }

    /// A wanted key: located off the UI thread, then selected in its bucket.
    fn locate(&mut self, ctx: &egui::Context, shown: &Shown) -> Result<(), TaskError> {
        self.located.drain();
        let Some((generation, key)) = self.wanted else {
            return Ok(());
        };
        if generation != shown.keys_generation {
            self.wanted = None;
            return Ok(());
        }
        let asked = (shown.generation, key);
        if let Some(found) = self.located.value(&asked) {
            self.wanted = None;
            if let Some((bucket, row)) = found.as_ref() {
                self.bucket = Some(*bucket);
                self.selected = Some(row.id);
                self.pinned = Some((shown.generation, *bucket, row.clone()));
                self.reveal = true;
            }
            return Ok(());
        }
        let (keys, shard) = (Arc::clone(&shown.keys), shown.view.shard.clone());
        let n = shown.report.analysis.buckets.len();
        self.located.ask(asked, ctx, "inspector", move || {
            let partitions = Partitioner::equal(n);
            let sharded = shard.apply(&keys);
            let total = keys.total();
            sharded
                .physical(&keys)
                .filter(|(id, ..)| id.key == key)
                .max_by_key(|&(_, _, count)| count)
                .map(|(id, hash, count)| {
                    let row = TopKey {
                        id,
                        key: sharded.label(&keys, id),
                        count,
                        share: share(count, total),
                    };
                    (partitions.partition_of(hash), row)
                })
        })
    }

    /// The bucket shown: the one picked, else the hottest.
    fn bucket(&self, shown: &Shown) -> usize {
        let a = &shown.report.analysis;
        self.bucket
            .filter(|&b| b < a.buckets.len())
            .unwrap_or(a.hottest_bucket)
    }

    /// Per frame while the inspector is on screen (the app's logic, before drawing): answers in, and the
    /// lists the panel will show asked for, off the UI thread.
    pub fn tick(&mut self, ctx: &egui::Context, shown: &Shown) -> Result<(), TaskError> {
        self.rows.drain();
        self.collection.drain();
        if self.keys_of != shown.keys_generation {
            self.keys_of = shown.keys_generation;
            self.selected = None;
            self.pinned = None;
        }
        self.locate(ctx, shown)?;
        let a = &shown.report.analysis;
        if a.total == 0 || a.buckets.is_empty() {
            return Ok(());
        }
        let (n, bucket) = (a.buckets.len(), self.bucket(shown));
        let key = (shown.generation, bucket);
        let for_rows = shown.clone();
        self.rows.ask(key, ctx, "inspector", move || {
            let partitions = Partitioner::equal(n);
            let sharded = for_rows.view.shard.apply(&for_rows.keys);
            bucket_keys(&for_rows.keys, &sharded, &partitions, bucket, ROWS)
        })?;
        let picked = self.selected.map(|id| id.key);
        if let (Some(k), Some(ty)) = (picked, shown.keys.sort_key_type()) {
            let keys = Arc::clone(&shown.keys);
            self.collection
                .ask((shown.generation, k), ctx, "inspector", move || {
                    collection(&keys, k, ty)
                })?;
        }
        Ok(())
    }
}

/// Draws the inspector; `noun` is what the counts are ("writes", or "items" for exports and scans).
/// `live`: each key's live rate, when the keys are a watch's writes (the selected key's is said under its
/// facts).
pub fn inspector_ui(
    ui: &mut egui::Ui,
    state: &mut InspectorState,
    shown: &Shown,
    noun: &str,
    live: Option<&super::live::LiveRates>,
) {
    let a = &shown.report.analysis;
    if a.total == 0 || a.buckets.is_empty() {
        ui.label("No keys to inspect.");
        return;
    }
    let n = a.buckets.len();
    let bucket = bucket_picker_ui(ui, state, shown, noun);
    let Some(rows) = state.rows.value(&(shown.generation, bucket)) else {
        waiting_ui(ui, "listing the bucket's keys…", state.error.as_deref());
        // A bucket just picked is asked for by the next frame's logic.
        if !state.pending() {
            ui.ctx().request_repaint();
        }
        return;
    };
    let (list, all) = (&rows.0, rows.1);
    let range = Partitioner::equal(n).range(bucket);
    ui.weak(format!(
        "bucket {bucket}: hash range {:#018x} – {:#018x}, {} {noun} ({:.1} % of all), {}{}",
        range.start(),
        range.end(),
        grouped(a.buckets[bucket]),
        share(a.buckets[bucket], a.total) * 100.0,
        plural(all as u64, "key"),
        if all > list.len() {
            let most = if noun == "items" {
                "with the most items"
            } else {
                "most written"
            };
            format!(", the {} {most} listed", list.len())
        } else {
            String::new()
        }
    ));
    let bucket_total = a.buckets[bucket];
    let pinned = state
        .pinned
        .as_ref()
        .filter(|(g, b, k)| {
            *g == shown.generation && *b == bucket && !list.iter().any(|r| r.id == k.id)
        })
        .map(|(.., k)| k.clone());
    key_list_ui(ui, state, list, pinned.as_ref(), bucket_total);
    let Some(k) = state.selected_row(list, shown, bucket).cloned() else {
        // The same room as a key's facts, so picking a key does not move what is below.
        ui.weak("Pick a key above to see its writes, its items and their sort keys.");
        return;
    };
    let collection = shown
        .keys
        .sort_key_type()
        .map(|_| state.collection.value(&(shown.generation, k.id.key)));
    let time = collection.as_ref().and_then(|c| c.as_ref()?.time.clone());
    ui.label(key_facts(shown, &k, bucket_total, time.as_ref(), noun));
    if let Some(said) = live.and_then(|l| l.describe(&shown.keys.display(k.id.key))) {
        ui.label(said);
    }
    match collection {
        Some(Some(c)) => collection_ui(ui, state, shown, &c),
        Some(None) => {
            waiting_ui(ui, "sorting the item collection…", state.error.as_deref());
            if !state.pending() {
                ui.ctx().request_repaint();
            }
        }
        None => {}
    }
}

/// The bucket to inspect (the hottest until the user picks one).
fn bucket_picker_ui(
    ui: &mut egui::Ui,
    state: &mut InspectorState,
    shown: &Shown,
    noun: &str,
) -> usize {
    let a = &shown.report.analysis;
    let n = a.buckets.len();
    let bucket = state.bucket.filter(|&b| b < n).unwrap_or(a.hottest_bucket);
    ui.horizontal(|ui| {
        let label = ui.label("Bucket");
        let mut b = bucket;
        egui::ComboBox::from_id_salt("inspect-bucket")
            .selected_text(format!("{b}"))
            .show_ui(ui, |ui| {
                for i in 0..n {
                    let text = format!(
                        "{i} — {} {noun} ({:.1} %)",
                        grouped(a.buckets[i]),
                        share(a.buckets[i], a.total) * 100.0
                    );
                    ui.selectable_value(&mut b, i, text);
                }
            })
            .response
            .labelled_by(label.id);
        if b != bucket {
            state.bucket = Some(b);
            state.selected = None;
            state.pinned = None;
        }
    });
    state.bucket.filter(|&b| b < n).unwrap_or(bucket)
}

/// The bucket's keys, most written first (and a key located by name that the list leaves out, last); a click
/// selects one. A key selected from another panel is scrolled to once.
fn key_list_ui(
    ui: &mut egui::Ui,
    state: &mut InspectorState,
    list: &[TopKey],
    pinned: Option<&TopKey>,
    bucket_total: u64,
) {
    let reveal = std::mem::take(&mut state.reveal);
    egui::ScrollArea::vertical()
        .id_salt("inspector-keys")
        .max_height(160.0)
        .show(ui, |ui| {
            for k in list.iter().chain(pinned) {
                let text = format!(
                    "{:>8}  {:>5.1} % of bucket  {}",
                    k.count,
                    share(k.count, bucket_total) * 100.0,
                    k.key
                );
                let on = state.selected == Some(k.id);
                // Cut to the panel with "…" (a long key never widens it), the key whole on hover.
                let r = ui
                    .add(
                        egui::Button::selectable(on, egui::RichText::new(text).monospace())
                            .truncate(),
                    )
                    .on_hover_text(&k.key);
                if on && reveal {
                    r.scroll_to_me(Some(egui::Align::Center));
                }
                if r.clicked() {
                    state.selected = Some(k.id);
                }
            }
        });
}

/// What the data says about one key: its share, its items and sort keys, their sizes, its shard.
fn key_facts(
    shown: &Shown,
    k: &TopKey,
    bucket_total: u64,
    time: Option<&TimeOrdered>,
    noun: &str,
) -> String {
    let mut facts = format!(
        "{}: {} {noun}, {:.1} % of its bucket, {:.1} % of all {noun}",
        k.key,
        grouped(k.count),
        share(k.count, bucket_total) * 100.0,
        k.share * 100.0
    );
    match shown.keys.sort_key_facts(k.id.key) {
        Some(f) => facts.push_str(&format!(
            "; {} (distinct sort keys){}",
            plural(f.items, "item"),
            if f.only_increasing {
                ", written in only-increasing sort-key order: split-for-heat cannot split this collection"
                    .to_owned()
            } else if let Some(t) = time {
                format!("; its {}", t.describe())
            } else {
                String::new()
            }
        )),
        None => facts.push_str("; no sort keys loaded"),
    }
    if let Some(b) = shown.keys.item_bytes(k.id.key) {
        facts.push_str(&format!(
            "; items {} each on average (largest {}), {} together (by DynamoDB's item size rules){}",
            bytes(b.mean() as f64),
            bytes(b.max as f64),
            bytes(b.bytes as f64),
            if b.bytes > crate::model::capacity::ITEM_COLLECTION_LIMIT_BYTES {
                ": over 10 GB, the most an item collection may hold on a table with a local secondary index"
            } else {
                ""
            }
        ));
    }
    if let Some(s) = k.id.shard {
        facts.push_str(&format!(
            "; shard {s} of {}",
            shown.view.shard.shards.max(1)
        ));
    }
    facts
}

/// The item collection of `key`, sorted and judged for time-ordered values (once per report, off the UI
/// thread).
fn collection(keys: &KeySet, key: u32, ty: KeyType) -> Collection {
    let (mut sks, all) = keys.item_sort_keys(key);
    let time = if keys.write_ordered() {
        None
    } else {
        crate::model::sortkey::infer(&sks, ty)
    };
    crate::model::collection::sort(&mut sks, ty);
    let sorted: Vec<Box<[u8]>> = sks.into_iter().map(Box::from).collect();
    let table_items = (0..keys.len() as u32)
        .map(|k| keys.sort_key_facts(k).map_or(keys.count(k), |f| f.items))
        .sum();
    Collection {
        sorted,
        all,
        time,
        table_items,
    }
}

/// The selected key's item collection in sort-key order, with the contiguous run a Query's `begins_with` or
/// `between` reads highlighted (the list scrolls to it), and its cost against a Scan of the whole table.
/// The `begins_with` and `between` fields, in two rows so each keeps a usable width in a narrow panel.
fn condition_fields_ui(ui: &mut egui::Ui, state: &mut InspectorState) {
    let field = ((ui.available_width() - 120.0) / 2.0).max(110.0);
    ui.horizontal(|ui| {
        let label = ui.label("begins_with");
        ui.add(egui::TextEdit::singleline(&mut state.begins_with).desired_width(field * 2.0))
            .labelled_by(label.id);
    });
    ui.horizontal(|ui| {
        let label = ui.label("between");
        ui.add(egui::TextEdit::singleline(&mut state.between_lo).desired_width(field))
            .labelled_by(label.id);
        let label = ui.label("and");
        ui.add(egui::TextEdit::singleline(&mut state.between_hi).desired_width(field))
            .labelled_by(label.id);
    });
}

/// What a Query of `range` costs, against a Scan of all `table_items`.
fn query_cost(shown: &Shown, r: &std::ops::Range<usize>, table_items: u64) -> String {
    use crate::model::collection::query_units;
    let item_bytes = shown
        .view
        .workload
        .as_ref()
        .map_or(1024, |w| w.item_size.mean_bytes().round() as u64);
    format!(
        "The Query reads items {}–{} ({}, one contiguous run): {} read units strongly consistent, {} \
         eventually; a Scan of the table reads all {}: {} units ({item_bytes}-byte items).",
        r.start,
        r.end.saturating_sub(1),
        plural(r.len() as u64, "item"),
        query_units(r.len() as u64, item_bytes, false),
        query_units(r.len() as u64, item_bytes, true),
        plural(table_items, "item"),
        query_units(table_items, item_bytes, false),
    )
}

fn collection_ui(ui: &mut egui::Ui, state: &mut InspectorState, shown: &Shown, c: &Collection) {
    use crate::model::collection::query_range;
    let Some(ty) = shown.keys.sort_key_type() else {
        return;
    };
    let (sorted, all) = (&c.sorted, c.all);
    if sorted.is_empty() {
        return;
    }
    ui.separator();
    ui.strong(format!(
        "Item collection: {} in sort-key order{}",
        plural(sorted.len() as u64, "item"),
        if all {
            ""
        } else {
            " (a sample: the input was too large to keep every sort key)"
        }
    ));
    condition_fields_ui(ui, state);
    let refs: Vec<&[u8]> = sorted.iter().map(AsRef::as_ref).collect();
    let cond = state.sort_condition();
    let range = cond.as_ref().map(|c| query_range(&refs, ty, c));
    if let Some(r) = &range {
        ui.label(query_cost(shown, r, c.table_items));
    }
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    let wanted = (
        state.begins_with.clone(),
        state.between_lo.clone(),
        state.between_hi.clone(),
    );
    let mut area = egui::ScrollArea::vertical()
        .id_salt("collection")
        .max_height(160.0);
    if let Some(r) = range.as_ref().filter(|r| !r.is_empty())
        && state.scrolled_for.as_ref() != Some(&wanted)
    {
        state.scrolled_for = Some(wanted);
        let step = row_height + ui.spacing().item_spacing.y;
        area = area.vertical_scroll_offset(r.start as f32 * step);
    }
    area.show_rows(ui, row_height, refs.len(), |ui, rows| {
        for i in rows {
            let text = crate::model::key::display_key(refs[i], ty);
            let hit = range.as_ref().is_some_and(|r| r.contains(&i));
            let rich = egui::RichText::new(format!("{i:>6}  {text}")).monospace();
            let rich = if hit {
                rich.strong().color(super::theme::PATH)
            } else {
                rich.weak()
            };
            ui.add(egui::Label::new(rich).truncate());
        }
    });
}
