//! Bucket count, scale and the shard-suffix toggle, with the read fan-out it costs.

use super::Command;
use super::settings::Settings;
use crate::model::shard::{MAX_SHARDS, Scope, Strategy};
use crate::model::{KeySet, Report};

/// Changes view settings; returns whether anything changed.
pub fn controls_ui(ui: &mut egui::Ui, settings: &mut Settings) -> bool {
    let before = settings.clone();
    ui.horizontal(|ui| {
        let label = ui.label("Buckets");
        ui.add(egui::Slider::new(&mut settings.buckets, 1..=64))
            .labelled_by(label.id);
        ui.checkbox(&mut settings.log_scale, "Log scale");
    });
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
                        ui.selectable_value(&mut settings.shard.strategy, s, s.label());
                    }
                })
                .response
                .labelled_by(label.id);
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
                        .suffix(" % of writes"),
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
            let label = ui.label("Separator");
            ui.add(egui::TextEdit::singleline(&mut settings.shard.separator).desired_width(28.0))
                .labelled_by(label.id);
        });
    });
    if settings.shard.separator.is_empty() {
        settings.shard.separator = "#".to_owned();
    }
    settings.shard.shards = settings.shard.shards.clamp(2, MAX_SHARDS);
    *settings != before
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
        "PK = :pk AND begins_with(SK, :sk)   with :pk = {key}{sep}0 … {key}{sep}{}",
        n.saturating_sub(1)
    );
    let mut command = None;
    ui.add(
        egui::Label::new(egui::RichText::new(&conditions).monospace())
            .selectable(true)
            .wrap(),
    );
    if ui.button("Copy key conditions").clicked() {
        let all: Vec<String> = (0..n)
            .map(|i| format!("PK = \"{key}{sep}{i}\" AND begins_with(SK, :sk)"))
            .collect();
        command = Some(Command::Copy(all.join("\n")));
    }
    command
}
