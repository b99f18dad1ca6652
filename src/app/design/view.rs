//! Drawing the Key design view: the boxes, the small multiples on one scale and the figures table. It
//! draws from [`DesignState`] and returns [`Command`]s; it computes nothing.

use super::*;

/// The view: the boxes, the small multiples and the table.
pub fn design_ui(ui: &mut egui::Ui, state: &DesignState, noun: &str) -> Vec<Command> {
    let mut commands = Vec::new();
    ui.heading("Key design");
    ui.weak(
        "Try a new partition key on these items before changing any code: an attribute (status) or an \
         expression (TENANT#{tenantId}#{createdAt:day}, BOARD#global#{playerId:hash 10}). Partitions by \
         shardlens's teaching hash, not DynamoDB's.",
    );
    current_key_ui(ui, state);
    boxes_ui(ui, state, &mut commands);
    if let Some(fix) = &state.fix {
        let shown = state.texts.iter().any(|t| t.trim() == fix);
        if !shown
            && ui
                .button(format!("Try the guide's fix: {fix}"))
                .on_hover_text("AWS's write-sharding guide: a calculated suffix from an attribute")
                .clicked()
        {
            commands.push(Command::EditDesign(0, fix.clone()));
        }
    }
    if let Some(g) = &state.gsi_fix
        && state.texts[GSI_SLOT].trim() != g
        && ui
            .button(format!("Try a multi-attribute GSI: {g}"))
            .on_hover_text(
                "The shard as an attribute of its own beside the hot value, hashed together (DynamoDB's \
                 multi-attribute GSI keys), instead of a suffix glued onto a string: the same spread, and \
                 still one query per shard value to read the hot value back",
            )
            .clicked()
    {
        commands.push(Command::EditDesign(GSI_SLOT, g.clone()));
    }
    if let Some(m) = &state.message {
        ui.colored_label(theme::WARM, m);
    }
    if state.busy() {
        ui.horizontal(|ui| {
            ui.spinner();
            match &state.progress {
                Some(p) => ui.label(format!(
                    "reading attributes: {}, {:.1} MB",
                    crate::model::fmt::plural(p.items, "item"),
                    p.bytes as f64 / 1e6
                )),
                None => ui.label("re-keying…"),
            };
        });
    }
    let Some(shown) = &state.shown else {
        return commands;
    };
    ui.separator();
    shard_line_ui(ui, shown, &mut commands);
    egui::ScrollArea::vertical()
        .id_salt("design-scroll")
        .show(ui, |ui| {
            small_multiples_ui(ui, &shown.rows, noun, 90.0);
            ui.add_space(8.0);
            table_ui(ui, shown, &mut commands);
            notes_ui(ui, shown, noun);
        });
    commands
}

/// "Current key:" and the key expression the items are keyed by now.
fn current_key_ui(ui: &mut egui::Ui, state: &DesignState) {
    ui.horizontal(|ui| {
        ui.label("Current key:");
        ui.monospace(if state.current.is_empty() {
            "(the keys as loaded)"
        } else {
            &state.current
        });
    });
}

/// What the shard toggle does to the designs, said above them: with Shard hot keys on, every design's keys
/// above the threshold (or every key) are split, as the command line splits every compared design, and the
/// line names which design it splits; off, the designs are compared as written (and nothing is said).
fn shard_line_ui(ui: &mut egui::Ui, shown: &Compared, commands: &mut Vec<Command>) {
    let Some(plan) = shown.shard() else {
        return;
    };
    let which = match plan.scope {
        crate::model::shard::Scope::All => "every key".to_owned(),
        crate::model::shard::Scope::Hot { threshold } => {
            format!("keys above {} of the writes", percent(threshold))
        }
    };
    let split: Vec<String> = shown
        .rows
        .iter()
        .map(|r| match r.sharded_keys {
            0 => format!("{}: none", r.design),
            n => format!(
                "{}: {}",
                r.design,
                crate::model::fmt::plural(n as u64, "key")
            ),
        })
        .collect();
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(
            theme::WARM,
            format!(
                "Shard hot keys is on: in every design below, {which} are split over {} suffixes ({}); the \
                 top-key shares and read fan-outs are after that split. Split — {}.",
                plan.shards,
                plan.strategy.label(),
                split.join(", ")
            ),
        );
        if ui
            .button("Compare as written")
            .on_hover_text("Turn Shard hot keys off (Ctrl+K): each design's keys as its expression makes them")
            .clicked()
        {
            commands.push(Command::Ui(crate::app::UICommand::ToggleShard));
        }
    });
}

/// Under the table: the items a design could not key, sparse and throttling GSIs, and what a calculated
/// suffix does when one is compared.
fn notes_ui(ui: &mut egui::Ui, shown: &Compared, noun: &str) {
    for (row, (skipped, why)) in shown.rows.iter().skip(1).zip(&shown.skipped) {
        if *skipped > 0 {
            ui.colored_label(
                theme::WARM,
                format!(
                    "{}: {} {noun} could not be keyed and are left out{}",
                    row.design,
                    grouped(*skipped),
                    why.as_ref().map_or_else(String::new, |w| format!(" ({w})"))
                ),
            );
        }
    }
    for row in &shown.rows {
        if row.design.starts_with("GSI") && row.absent > 0 {
            ui.weak(format!(
                "{}: {} its key attributes and {} not in it (a sparse index)",
                row.design,
                if row.absent == 1 {
                    "1 item lacks".to_owned()
                } else {
                    format!("{} items lack", grouped(row.absent))
                },
                if row.absent == 1 { "is" } else { "are" }
            ));
        }
        if row.design.starts_with("GSI") && row.throttled_units.is_some_and(|t| t > 0.0) {
            ui.colored_label(
                theme::HOT,
                format!(
                    "{} throttles, and a throttled GSI throttles the base table's writes too",
                    row.design
                ),
            );
        }
    }
    for row in &shown.rows {
        if let Some(q) = &row.query {
            ui.weak(q);
        }
    }
    if shown.rows.iter().any(|r| r.expr.contains(":hash")) {
        ui.weak(
            "A calculated suffix (:hash N) gives all writes of one item the same shard: one hot item stays \
             on one shard. A random suffix per write ({random N}, or the shard toggle) spreads it, at N \
             queries per read.",
        );
    }
}

/// The candidate boxes and the GSI box, each with its parse error.
fn boxes_ui(ui: &mut egui::Ui, state: &DesignState, commands: &mut Vec<Command>) {
    let (_, _, errors) = parse_boxes(&state.texts, 0);
    egui::Grid::new("design-boxes")
        .num_columns(2)
        .spacing([8.0, 4.0])
        .show(ui, |ui| {
            for (i, text) in state.texts.iter().enumerate() {
                let label = if i == GSI_SLOT {
                    "GSI (NAME=EXPR or NAME=a+b)".to_owned()
                } else {
                    format!("Candidate {}", i + 1)
                };
                let label_id = ui.label(&label).id;
                ui.vertical(|ui| {
                    let mut edited = text.clone();
                    let hint = if i == GSI_SLOT {
                        "byStatus=status"
                    } else {
                        "CUST#{customerId}#{createdAt:day}"
                    };
                    let r = ui.add(
                        egui::TextEdit::singleline(&mut edited)
                            .hint_text(hint)
                            .desired_width(360.0)
                            .font(egui::TextStyle::Monospace),
                    );
                    let r = r.labelled_by(label_id);
                    if r.changed() {
                        commands.push(Command::EditDesign(i, edited));
                    }
                    if let Some(Some(e)) = errors.get(i) {
                        ui.colored_label(theme::ERROR, e);
                    }
                });
                ui.end_row();
            }
        });
}

/// What Export chart saves in Key design: the designs' histograms alone (no boxes, no buttons, nothing
/// scrolled away), every one on the same scale with its design, expression and figures, drawn for one frame
/// over the whole window so that all of them are seen at once, their bars as tall as the window lets them be.
/// Returns the rectangle to save; `None` before anything is compared.
pub fn export_ui(ctx: &egui::Context, state: &DesignState, noun: &str) -> Option<egui::Rect> {
    let shown = state.shown.as_ref()?;
    let window = ctx.content_rect();
    let area = egui::Area::new(egui::Id::unique("design-export"))
        .order(egui::Order::Foreground)
        .fade_in(false)
        .fixed_pos(window.min)
        .show(ctx, |ui| {
            egui::Frame::central_panel(ui.style()).show(ui, |ui| {
                let inner = window.shrink(ui.spacing().window_margin.sum().x / 2.0 + 8.0);
                ui.set_width(inner.width());
                ui.set_max_height(inner.height());
                ui.heading("Key design");
                current_key_ui(ui, state);
                let row =
                    ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
                let cells = shown.rows.len().max(1);
                let lines = cells.div_ceil(per_row(ui.available_width())) as f32;
                // Each cell's words (design, expression, figures wrapped on two lines) and the caption.
                let words = lines * (4.0 * row + 2.0 * ui.spacing().item_spacing.y) + 2.0 * row;
                let room = inner.bottom() - ui.cursor().top();
                let bar_h = ((room - words) / lines).clamp(40.0, 240.0);
                small_multiples_ui(ui, &shown.rows, noun, bar_h);
            });
        });
    Some(area.response.rect)
}

/// Histograms side by side: four on a wide view, two on a narrow one.
fn per_row(width: f32) -> usize {
    if width > 900.0 { 4 } else { 2 }
}

/// One histogram per design, side by side, on one scale (the largest bucket of any), its bars `bar_h` tall.
fn small_multiples_ui(ui: &mut egui::Ui, rows: &[Figures], noun: &str, bar_h: f32) {
    let max = rows
        .iter()
        .flat_map(|r| r.buckets.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1);
    let width = ui.available_width();
    let per_row = per_row(width);
    let cell_w = (width / per_row as f32 - 12.0).max(120.0);
    ui.label(format!(
        "{noun} per partition, one scale for all (the tallest bar is {})",
        grouped(max)
    ));
    ui.horizontal_wrapped(|ui| {
        for r in rows {
            ui.allocate_ui(egui::vec2(cell_w, bar_h + 60.0), |ui| {
                ui.vertical(|ui| {
                    ui.strong(&r.design);
                    ui.monospace(&r.expr);
                    let (rect, _) =
                        ui.allocate_exact_size(egui::vec2(cell_w, bar_h), egui::Sense::hover());
                    bars(ui, rect, &r.buckets, max);
                    ui.weak(format!(
                        "{} · top key {}{} · {:.2}× mean",
                        crate::model::fmt::plural(r.distinct_keys as u64, "key"),
                        percent(r.top_key_share),
                        if r.sharded_keys > 0 {
                            " after sharding"
                        } else {
                            ""
                        },
                        r.max_over_mean
                    ));
                });
            });
        }
    });
}

fn bars(ui: &egui::Ui, rect: egui::Rect, buckets: &[u64], max: u64) {
    let painter = ui.painter_at(rect);
    painter.rect_stroke(
        rect,
        2.0,
        egui::Stroke::new(1.0, ui.visuals().weak_text_color()),
        egui::StrokeKind::Inside,
    );
    let n = buckets.len().max(1);
    let mean = buckets.iter().sum::<u64>() as f64 / n as f64;
    let w = rect.width() / n as f32;
    for (i, &b) in buckets.iter().enumerate() {
        let h = rect.height() * (b as f32 / max as f32);
        let x = rect.left() + i as f32 * w;
        let bar = egui::Rect::from_min_max(
            egui::pos2(x + w * 0.1, rect.bottom() - h),
            egui::pos2(x + w * 0.9, rect.bottom()),
        );
        let colour = if mean > 0.0 && b as f64 > 2.0 * mean {
            theme::HOT
        } else if mean > 0.0 && b as f64 > 1.25 * mean {
            theme::WARM
        } else {
            theme::COOL
        };
        painter.rect_filled(bar, 1.0, colour);
    }
}

/// The figures, one block per design: "Use as key" (for the candidates) at the left, clear of the scrollbar on
/// the right, the design and its expression, and its figures wrapped under them, so the table fits any width
/// without a sideways scroll.
fn table_ui(ui: &mut egui::Ui, shown: &Compared, commands: &mut Vec<Command>) {
    let throttled = shown.rows.iter().any(|r| r.throttled_units.is_some());
    let shards = shown.shard().map(|p| p.shards);
    for (i, r) in shown.rows.iter().enumerate() {
        let candidate = i > 0 && shown.slots.get(i - 1).is_some_and(|&s| s < GSI_SLOT);
        egui::Frame::group(ui.style()).show(ui, |ui| {
            // Leave room for the vertical scrollbar that floats over the right edge.
            ui.set_width(ui.available_width() - ui.spacing().scroll.bar_width - 8.0);
            ui.horizontal_wrapped(|ui| {
                if candidate
                    && ui
                        .button("Use as key")
                        .on_hover_text("Re-key the loaded data by this candidate (Ctrl+Z undoes)")
                        .clicked()
                {
                    commands.push(Command::UseDesign(i - 1));
                }
                ui.strong(&r.design);
                ui.monospace(&r.expr);
            });
            ui.horizontal_wrapped(|ui| {
                let figure = |ui: &mut egui::Ui, name: &str, value: String| {
                    ui.weak(name);
                    ui.label(value);
                    ui.add_space(8.0);
                };
                figure(ui, "distinct keys", grouped(r.distinct_keys as u64));
                figure(ui, "max/mean", format!("{:.2}×", r.max_over_mean));
                figure(ui, "top-key share", top_share(r));
                figure(ui, "Gini", format!("{:.3}", r.gini));
                figure(
                    ui,
                    "throttled /s",
                    r.throttled_units
                        .map_or_else(|| "-".to_owned(), |t| format!("{t:.0}")),
                );
                figure(ui, "read fan-out", fan_out(r, shards));
                figure(
                    ui,
                    "decision tree",
                    r.leaf.as_deref().unwrap_or("-").to_owned(),
                );
            });
        });
    }
    if !throttled {
        ui.weak("Throttled units need a workload: tick Model capacity and give reads or writes per second.");
    }
    ui.weak(format!("computed in {:.0} ms", shown.millis));
}

/// The top key's share; where the shard toggle split the design's keys, after and before the split.
fn top_share(r: &Figures) -> String {
    if r.sharded_keys > 0 {
        format!(
            "{} after sharding ({} as written)",
            percent(r.top_key_share),
            percent(r.unsharded_top_key_share)
        )
    } else {
        percent(r.top_key_share)
    }
}

/// The queries to read one logical key back; with the shard toggle on, whether it split this design's keys.
fn fan_out(r: &Figures, shards: Option<u32>) -> String {
    match shards {
        Some(n) if r.sharded_keys > 0 => format!(
            "{} ({} split ×{n})",
            r.read_fan_out,
            crate::model::fmt::plural(r.sharded_keys as u64, "key")
        ),
        Some(_) => format!("{} (no key split)", r.read_fan_out),
        None => r.read_fan_out.to_string(),
    }
}
