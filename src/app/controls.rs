//! Bucket count, scale and the shard-suffix toggle, with the read fan-out it costs.

use super::Command;
use super::command::SettingChange;
use super::settings::Settings;
use crate::model::capacity::{
    Billing, Consistency, ItemSize, PartitionCount, ThrottleReason, Workload,
};
use crate::model::decision::UserAnswers;
use crate::model::shard::{MAX_SHARDS, Scope, Strategy};
use crate::model::{KeySet, Report};

/// The view controls over `settings`; returns what they changed.
pub fn controls_ui(ui: &mut egui::Ui, settings: &Settings) -> Vec<Command> {
    let mut edited = settings.clone();
    view_controls(ui, &mut edited);
    SettingChange::between(settings, &edited)
        .into_iter()
        .map(Command::Set)
        .collect()
}

fn view_controls(ui: &mut egui::Ui, settings: &mut Settings) {
    ui.horizontal(|ui| {
        let label = ui.label("Buckets");
        ui.add_enabled(
            !settings.workload_enabled,
            egui::Slider::new(&mut settings.buckets, 1..=64),
        )
        .on_disabled_hover_text("With a workload, the table's partitions are the buckets")
        .labelled_by(label.id);
        ui.checkbox(&mut settings.log_scale, "Log scale");
    });
    shard_controls(ui, settings);
}

fn shard_controls(ui: &mut egui::Ui, settings: &mut Settings) {
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut settings.shard_enabled, "Shard hot keys")
            .on_hover_text(
                "Append a suffix (#0 … #N-1) so one logical key fans out over N physical keys",
            );
        ui.add_enabled_ui(settings.shard_enabled, |ui| {
            let label = ui.label("Shards");
            ui.add(egui::DragValue::new(&mut settings.shard.shards).range(2..=MAX_SHARDS))
                .labelled_by(label.id);
            let label = ui.label("Strategy");
            egui::ComboBox::from_id_salt("strategy")
                .selected_text(settings.shard.strategy.label())
                .show_ui(ui, |ui| {
                    for s in Strategy::ALL {
                        ui.selectable_value(&mut settings.shard.strategy, s, s.label())
                            .on_hover_text(strategy_help(s));
                    }
                })
                .response
                .labelled_by(label.id)
                .on_hover_text(strategy_help(settings.shard.strategy));
            let mut hot_only = matches!(settings.shard.scope, Scope::Hot { .. });
            let threshold = match settings.shard.scope {
                Scope::Hot { threshold } => threshold,
                Scope::All => crate::model::shard::DEFAULT_HOT_SHARE,
            };
            ui.radio_value(&mut hot_only, false, "All keys");
            ui.radio_value(&mut hot_only, true, "Hot keys only");
            let mut pct = threshold * 100.0;
            if hot_only {
                let label = ui.label("above");
                ui.add(
                    egui::DragValue::new(&mut pct)
                        .range(0.0..=99.0)
                        .speed(0.1)
                        .suffix(" % of the total"),
                )
                .labelled_by(label.id);
            }
            settings.shard.scope = if hot_only {
                Scope::Hot {
                    threshold: (pct / 100.0).clamp(0.0, 0.99),
                }
            } else {
                Scope::All
            };
            // The field holds the text as typed: emptied, it stays empty while the separator is `#` (it
            // became `#` at once, so deleting it and typing `-` gave `#-`).
            let label = ui.label("Separator");
            let id = egui::Id::unique("shard-separator-draft");
            let mut text = ui
                .data(|d| d.get_temp::<String>(id))
                .filter(|t| separator(t) == settings.shard.separator)
                .unwrap_or_else(|| settings.shard.separator.clone());
            ui.add(
                egui::TextEdit::singleline(&mut text)
                    .desired_width(ui.text_style_height(&egui::TextStyle::Body) * 2.0),
            )
            .labelled_by(label.id);
            settings.shard.separator = separator(&text);
            ui.data_mut(|d| d.insert_temp(id, text));
        });
    });
    if settings.shard.separator.is_empty() {
        settings.shard.separator = "#".to_owned();
    }
    settings.shard.shards = settings.shard.shards.clamp(2, MAX_SHARDS);
}

/// The read cost of the current sharding, in words, and the key conditions to copy.
pub fn fan_out_ui(
    ui: &mut egui::Ui,
    settings: &Settings,
    keys: &KeySet,
    report: &Report,
) -> Option<Command> {
    if !settings.shard_enabled {
        return None;
    }
    let Some(&first) = report.sharded_keys.first() else {
        ui.label("No key is above the hot threshold: nothing is sharded.");
        return None;
    };
    let n = report.read_fan_out;
    let key = keys.display(first);
    let more = report.sharded_keys.len() - 1;
    let others = if more > 0 {
        format!(
            " (and {more} more sharded key{})",
            if more == 1 { "" } else { "s" }
        )
    } else {
        String::new()
    };
    ui.label(format!(
        "Writes to {key} now spread over {n} keys; reading {key} back takes {n} Queries and a merge{others}."
    ));
    let sep = &settings.shard.separator;
    let conditions = format!(
        "#pk = :pk   with :pk = {key}{sep}0 … {key}{sep}{}",
        n.saturating_sub(1)
    );
    ui.add(
        egui::Label::new(egui::RichText::new(&conditions).monospace())
            .selectable(true)
            .wrap(),
    );
    ui.button("Copy key conditions")
        .on_hover_text("One aws dynamodb query command line per shard, with the inspector's sort-key condition")
        .clicked()
        .then_some(Command::Ui(super::UICommand::CopyConditions))
}

/// The "Workload" group: rates, item size, consistency, billing, partition count, and table facts for the
/// decision tree. `resolved` is the item size the shown report used (an item size "from the data" resolved
/// to the keys' measured sizes). Returns the settings and the answers as edited, for those that changed.
pub fn workload_ui(
    ui: &mut egui::Ui,
    settings: &Settings,
    answers: &UserAnswers,
    resolved: Option<&ItemSize>,
) -> Vec<Command> {
    let mut edited = settings.clone();
    let mut facts = *answers;
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut edited.workload_enabled, "Model capacity")
            .on_hover_text("Turn key counts into read and write units per partition (3,000 RCU / 1,000 WCU each)");
        if edited.workload_enabled {
            rates_ui(ui, &mut edited.workload, resolved);
        }
    });
    if edited.workload_enabled {
        ui.horizontal_wrapped(|ui| {
            table_ui(ui, &mut edited.workload);
            ui.separator();
            facts_ui(ui, &mut facts);
        });
    }
    let mut commands: Vec<Command> = SettingChange::between(settings, &edited)
        .into_iter()
        .map(Command::Set)
        .collect();
    if facts != *answers {
        commands.push(Command::SetAnswers(facts));
    }
    commands
}

/// Reads and writes per second, the item size (set or measured) and the read consistency.
fn rates_ui(ui: &mut egui::Ui, w: &mut Workload, resolved: Option<&ItemSize>) {
    for (name, value) in [
        ("Reads/s", &mut w.reads_per_sec),
        ("Writes/s", &mut w.writes_per_sec),
    ] {
        let label = ui.label(name);
        ui.add(
            egui::DragValue::new(value)
                .range(0.0..=10_000_000.0)
                .speed(10.0),
        )
        .labelled_by(label.id);
    }
    let label = ui.label("Item size");
    let mut measured = w.item_size == ItemSize::FromData;
    if ui
        .checkbox(&mut measured, "Measured")
        .on_hover_text(
            "Use the loaded items' sizes (DynamoDB JSON and Ion exports and scan output carry them): the bytes of each \
             item's JSON, which runs a little larger than DynamoDB's own item size",
        )
        .changed()
    {
        w.item_size = if measured {
            ItemSize::FromData
        } else {
            let mean = resolved.map_or(1024.0, ItemSize::mean_bytes);
            ItemSize::Bytes((mean.round() as u64).clamp(1, 400 * 1024))
        };
    }
    match &w.item_size {
        ItemSize::Bytes(b) => {
            let mut bytes = *b;
            if ui
                .add(
                    egui::DragValue::new(&mut bytes)
                        .range(0..=400 * 1024)
                        .suffix(" B"),
                )
                .labelled_by(label.id)
                .changed()
            {
                w.item_size = ItemSize::Bytes(bytes);
            }
        }
        _ => {
            let text = match resolved {
                Some(ItemSize::Measured(p)) => {
                    format!(
                        "mean {} B over {}",
                        p.mean(),
                        crate::model::fmt::plural(p.items(), "item")
                    )
                }
                _ => "none in the data: 1,024 B".to_owned(),
            };
            ui.label(text)
                .on_hover_text(resolved.map_or_else(|| w.item_size.describe(), ItemSize::describe));
        }
    }
    let label = ui.label("Reads");
    egui::ComboBox::from_id_salt("consistency")
        .selected_text(w.consistency.as_str())
        .show_ui(ui, |ui| {
            for c in Consistency::ALL {
                ui.selectable_value(&mut w.consistency, c, c.as_str());
            }
        })
        .response
        .labelled_by(label.id);
}

/// Billing mode, provisioned units and the partition count.
fn table_ui(ui: &mut egui::Ui, w: &mut Workload) {
    let mut provisioned = matches!(w.billing, Billing::Provisioned { .. });
    ui.radio_value(&mut provisioned, false, "On-demand");
    ui.radio_value(&mut provisioned, true, "Provisioned");
    let (mut rcu, mut wcu) = match w.billing {
        Billing::Provisioned { rcu, wcu } => (rcu, wcu),
        Billing::OnDemand => (12_000, 4_000),
    };
    if provisioned {
        for (name, value) in [("RCU", &mut rcu), ("WCU", &mut wcu)] {
            let label = ui.label(name);
            ui.add(
                egui::DragValue::new(value)
                    .range(1..=40_000_000)
                    .speed(10.0),
            )
            .labelled_by(label.id);
        }
    }
    w.billing = if provisioned {
        Billing::Provisioned { rcu, wcu }
    } else {
        Billing::OnDemand
    };
    let mut fixed = matches!(w.partitions, PartitionCount::Override(_));
    let mut count = match w.partitions {
        PartitionCount::Override(n) => n,
        PartitionCount::Auto => 4,
    };
    ui.checkbox(&mut fixed, "Set partitions");
    if fixed {
        let label = ui.label("Partitions");
        ui.add(egui::DragValue::new(&mut count).range(1..=64))
            .labelled_by(label.id);
    }
    w.partitions = if fixed {
        PartitionCount::Override(count)
    } else {
        PartitionCount::Auto
    };
}

/// Facts about the table the tree asks for: an LSI, the throttling seen.
fn facts_ui(ui: &mut egui::Ui, answers: &mut UserAnswers) {
    let mut lsi = answers.has_lsi.unwrap_or(false);
    if ui.checkbox(&mut lsi, "Table has an LSI").changed() {
        answers.has_lsi = Some(lsi);
    }
    let label = ui.label("Throttling seen");
    let current = answers
        .throttle_reason
        .map_or_else(|| "none".to_owned(), |r| r.to_string());
    egui::ComboBox::from_id_salt("throttle-reason")
        .selected_text(current)
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut answers.throttle_reason, None, "none");
            for r in ThrottleReason::all() {
                ui.selectable_value(&mut answers.throttle_reason, Some(r), r.to_string());
            }
        })
        .response
        .labelled_by(label.id);
}

/// What a strategy does, for its tooltip.
fn strategy_help(s: Strategy) -> &'static str {
    match s {
        Strategy::Random => {
            "A random suffix per write: even one hot item spreads over the shards (reads query every shard)"
        }
        Strategy::Calculated => {
            "A stable hash mod N of the item's sort key (pasted pk<TAB>sk lines) or, without one, of the write's \
             index: all writes of one item take one shard, so a hot item stays hot. Hash any attribute in \
             Key design with {attr:hash N}"
        }
        Strategy::RoundRobin => "Writes take the suffixes in turn: an exact even split",
    }
}

/// The separator a field's text means: `#` when it is empty.
fn separator(text: &str) -> String {
    if text.is_empty() { "#" } else { text }.to_owned()
}
