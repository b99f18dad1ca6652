//! The partition inspector: pick a bucket, see its keys; pick a key, see what the data says about it.

use std::sync::Arc;

use super::jobs::Shown;
use crate::model::Partitioner;
use crate::model::stats::{TopKey, bucket_keys, share};

/// Rows listed per bucket.
const ROWS: usize = 500;

#[derive(Debug, Default)]
pub struct InspectorState {
    /// The bucket shown; `None` follows the hottest.
    pub bucket: Option<usize>,
    pub selected: Option<usize>,
    /// Keys of the bucket for one report (by pointer) and bucket.
    cache: Option<Cached>,
}

#[derive(Debug)]
struct Cached {
    report: usize,
    bucket: usize,
    rows: Arc<(Vec<TopKey>, usize)>,
}

pub fn inspector_ui(ui: &mut egui::Ui, state: &mut InspectorState, shown: &Shown) {
    let a = &shown.report.analysis;
    if a.total == 0 || a.buckets.is_empty() {
        ui.label("No keys to inspect.");
        return;
    }
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
                        "{i} — {} writes ({:.1} %)",
                        a.buckets[i],
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
        }
    });
    let report_id = Arc::as_ptr(&shown.report) as usize;
    let rows = match &state.cache {
        Some(c) if c.report == report_id && c.bucket == bucket => Arc::clone(&c.rows),
        _ => {
            let partitions = Partitioner::equal(n);
            let sharded = shown.view.shard.apply(&shown.keys);
            let rows = Arc::new(bucket_keys(
                &shown.keys,
                &sharded,
                &partitions,
                bucket,
                ROWS,
            ));
            state.cache = Some(Cached {
                report: report_id,
                bucket,
                rows: Arc::clone(&rows),
            });
            rows
        }
    };
    let (list, all) = (&rows.0, rows.1);
    let range = Partitioner::equal(n).range(bucket);
    ui.weak(format!(
        "bucket {bucket}: hash range {:#018x} – {:#018x}, {} writes ({:.1} % of all), {all} keys{}",
        range.start(),
        range.end(),
        a.buckets[bucket],
        share(a.buckets[bucket], a.total) * 100.0,
        if all > list.len() {
            format!(", the {} most written listed", list.len())
        } else {
            String::new()
        }
    ));
    let bucket_total = a.buckets[bucket];
    egui::ScrollArea::vertical()
        .id_salt("inspector-keys")
        .max_height(160.0)
        .show(ui, |ui| {
            for (i, k) in list.iter().enumerate() {
                let text = format!(
                    "{:>8}  {:>5.1} % of bucket  {}",
                    k.count,
                    share(k.count, bucket_total) * 100.0,
                    k.key
                );
                if ui
                    .selectable_label(
                        state.selected == Some(i),
                        egui::RichText::new(text).monospace(),
                    )
                    .clicked()
                {
                    state.selected = Some(i);
                }
            }
        });
    if let Some(k) = state.selected.and_then(|i| list.get(i)) {
        let mut facts = format!(
            "{}: {} writes, {:.1} % of its bucket, {:.1} % of all writes",
            k.key,
            k.count,
            share(k.count, bucket_total) * 100.0,
            k.share * 100.0
        );
        match shown.keys.sort_key_facts(k.id.key) {
            Some(f) => facts.push_str(&format!(
                "; {} item{} (distinct sort keys){}",
                f.items,
                if f.items == 1 { "" } else { "s" },
                if f.only_increasing {
                    ", sort keys only increase: split-for-heat cannot split this collection"
                } else {
                    ""
                }
            )),
            None => facts.push_str("; no sort keys loaded"),
        }
        if let Some(s) = k.id.shard {
            facts.push_str(&format!(
                "; shard {s} of {}",
                shown.view.shard.shards.max(1)
            ));
        }
        ui.label(facts);
    }
}
