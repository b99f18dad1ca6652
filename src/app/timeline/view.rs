//! The Timeline's drawing: the whole view ([`timeline_ui`]: words, playback bar, heatmap and line chart on one
//! time axis, the table at the playhead), side by side in presentation mode, and the tree and path strip for
//! the side panel ([`tree_ui`], [`path_strip_ui`]). Each draws from a `&Simulation` (`super`) and returns
//! what its controls ask for.

use super::replay::{what_if_menu_ui, what_if_ui};
use super::{Drawing, Rects, SPEEDS, Simulation, TimelineCommand, charts, heatmap, table};
/// The whole view: headline and findings, the playback bar, the heatmap, the line chart under it on the same
/// time axis (one playhead through both), and the table at the playhead. Returns the rectangle of the chart
/// block (what Export chart as PNG saves); what its controls ask for goes into `commands`, for the app to
/// apply after drawing.
///
/// The words come first; the charts share what is left of the panel's height, so the words never squeeze the
/// heatmap off screen; below a floor the view scrolls. `compact` (presentation mode) puts the headline and
/// the table beside the time charts ([`side_by_side_ui`]) and folds the findings and the colour and metric
/// choices into menus on the playback row.
pub fn timeline_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    compact: bool,
    commands: &mut Vec<crate::app::Command>,
) -> egui::Rect {
    if sim.playing || sim.running() {
        ui.ctx().request_repaint();
    }
    let mut drawing = sim.drawing.borrow_mut();
    let d = &mut *drawing;
    let mut out = Vec::new();
    let total = ui.available_height();
    let rect = egui::ScrollArea::vertical()
        .id_salt("timeline")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.scope(|ui| {
                let top = ui.cursor().top();
                // A replay's What if row first, where nothing above it changes: under the headline it
                // moved down a line when the findings came, and a click aimed at it missed. On a
                // projector it folds into a menu on the playback row.
                if !compact {
                    what_if_ui(ui, sim, &mut out);
                }
                charts::headline_ui(ui, sim, &mut d.rects, compact, &mut out);
                playback_ui(ui, sim, compact, &mut out);
                d.rects.charts_top = ui.cursor().top();
                // On a projector the legends are in the "Legend" menu: their two
                // wrapped rows would take the charts' height.
                if !compact {
                    heatmap::legend_ui(ui, sim.relative);
                    charts::throughput_legend_ui(ui, sim);
                }
                let row =
                    ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
                let left = total - (ui.cursor().top() - top);
                if compact {
                    side_by_side_ui(ui, sim, d, left, &mut out);
                    return;
                }
                // What is left for the three charts, less the rows between and under them (the line chart's
                // time labels, the events' header, the table's title and legend).
                let words = 4.0 * row + ui.spacing().interact_size.y;
                let room = left - words - 8.0;
                let heat_top = ui.cursor().top();
                heatmap::heatmap_ui(ui, sim, d, (room * 0.4).max(140.0), &mut out);
                charts::throughput_ui(ui, sim, d, (room * 0.22).max(100.0), false, &mut out);
                playhead_ui(ui, sim, &d.rects, heat_top);
                let rest = total - (ui.cursor().top() - top) - row - 8.0;
                table::snapshot_ui(ui, sim, &mut d.rects, rest.max(190.0), &mut out);
                d.rects.charts_bottom = ui.min_rect().bottom();
            })
            .response
            .rect
        })
        .inner;
    commands.extend(out.into_iter().map(crate::app::Command::Timeline));
    rect
}

/// Presentation mode's charts: the heatmap over the line chart (one time axis) on the left; the headline,
/// the findings (wrapped whole) and "the table at …" beside them on the right; all in the `height` left
/// under the title and the playback row. At a projector's 1024×768 the time charts get the block's full
/// height and nothing is cut mid-line (stacked, three charts and two cut findings had ~100 px each).
fn side_by_side_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    d: &mut Drawing,
    height: f32,
    out: &mut Vec<TimelineCommand>,
) {
    let sp = ui.spacing().item_spacing;
    let height = (height - sp.y).max(330.0);
    let width = ui.available_width();
    let side_w = (width * 0.36).clamp(300.0, 560.0);
    // The two columns and the space egui puts between them (plus a gap) fill the width.
    let charts_w = (width - side_w - 3.0 * sp.x).max(200.0);
    let line = (height * 0.3).clamp(110.0, 220.0);
    let heat = height - line - 2.0 * sp.y;
    let layout = egui::Layout::top_down(egui::Align::Min);
    let block = ui.horizontal_top(|ui| {
        ui.allocate_ui_with_layout(egui::vec2(charts_w, height), layout, |ui| {
            ui.set_width(charts_w);
            let heat_top = ui.cursor().top();
            heatmap::heatmap_ui(ui, sim, d, heat.max(120.0), out);
            charts::throughput_ui(ui, sim, d, line, true, out);
            playhead_ui(ui, sim, &d.rects, heat_top);
        });
        ui.add_space(sp.x);
        ui.allocate_ui_with_layout(egui::vec2(side_w, height), layout, |ui| {
            ui.set_width(side_w);
            let top = ui.cursor().top();
            charts::words_ui(ui, sim);
            ui.add_space(sp.y);
            let rest = height - (ui.cursor().top() - top);
            table::snapshot_ui(ui, sim, &mut d.rects, rest.max(200.0), out);
        });
    });
    d.rects.charts_bottom = block.response.rect.bottom();
}

/// One playhead, through the heatmap and the line chart (which map the same second to the same x).
fn playhead_ui(ui: &egui::Ui, sim: &Simulation, rects: &Rects, top: f32) {
    let (Some(x), Some(line)) = (rects.heatmap_x(sim.position), rects.throughput) else {
        return;
    };
    ui.painter().line_segment(
        [egui::pos2(x, top), egui::pos2(x, line.bottom())],
        egui::Stroke::new(2.0, ui.visuals().strong_text_color()),
    );
}

/// Play/pause, speed, the scrubber, and the colour and metric choices.
fn playback_ui(ui: &mut egui::Ui, sim: &Simulation, compact: bool, out: &mut Vec<TimelineCommand>) {
    ui.horizontal_wrapped(|ui| {
        let label = if sim.playing { "Pause" } else { "Play" };
        if ui.button(label).clicked() {
            out.push(TimelineCommand::TogglePlay);
        }
        let speed_label = ui.label("Speed");
        let mut speed = sim.speed;
        egui::ComboBox::from_id_salt("timeline-speed")
            .selected_text(format!("{}×", sim.speed))
            .show_ui(ui, |ui| {
                for s in SPEEDS {
                    if ui
                        .selectable_value(&mut speed, s, format!("{s}×"))
                        .changed()
                    {
                        out.push(TimelineCommand::Speed(s));
                    }
                }
            })
            .response
            .labelled_by(speed_label.id);
        let end = sim.duration().saturating_sub(1);
        let mut t = sim.second();
        // On a projector the row's text is larger: a shorter scrubber keeps the row on one line at 1024 px.
        // On a projector the row also holds Findings, Legend (and a replay's What if): a shorter scrubber
        // keeps them on the one row at 1024 px.
        let slider_max = match (compact, sim.replay().is_some()) {
            (true, true) => 200.0,
            (true, false) => 260.0,
            (false, _) => 420.0,
        };
        let time_label = ui.label("Time");
        let slider = egui::Slider::new(&mut t, 0..=end)
            .show_value(false)
            .trailing_fill(true);
        if ui
            .add_sized(
                [ui.available_width().clamp(120.0, slider_max), 18.0],
                slider,
            )
            .labelled_by(time_label.id)
            .changed()
        {
            out.push(TimelineCommand::Seek(t));
        }
        // "00:08:12 / 00:30:00"; a replay's "10:08:12 / 10:30:00 UTC" (the zone once). A replay on a
        // projector says the playhead's time only (the axis shows the span), so its row fits 1024 px.
        if compact && sim.replay().is_some() {
            ui.monospace(sim.clock().at(sim.second()));
        } else {
            ui.monospace(format!(
                "{} / {}",
                sim.clock().axis(sim.second()),
                sim.clock().at(sim.duration())
            ));
        }
        if compact {
            charts::findings_menu_ui(ui, sim, out);
            what_if_menu_ui(ui, sim, out);
            ui.menu_button("Legend", |ui| {
                choices_ui(ui, sim, out);
                ui.separator();
                heatmap::legend_ui(ui, sim.relative);
                charts::throughput_legend_ui(ui, sim);
            });
        } else {
            ui.separator();
            choices_ui(ui, sim, out);
        }
    });
}

/// The colour scale and the line chart's resolution.
fn choices_ui(ui: &mut egui::Ui, sim: &Simulation, out: &mut Vec<TimelineCommand>) {
    let mut relative = sim.relative;
    let absolute = ui
        .radio_value(&mut relative, false, "Absolute")
        .on_hover_text("Red at 100 % of a partition's limit (3,000 RCU or 1,000 WCU)");
    let rel = ui
        .radio_value(&mut relative, true, "Relative")
        .on_hover_text("Red at the run's hottest cell, as the Key Visualizers colour");
    if absolute.changed() || rel.changed() {
        out.push(TimelineCommand::Relative(relative));
    }
    ui.separator();
    let mut per_minute = sim.per_minute;
    let second = ui.radio_value(&mut per_minute, false, "Per second");
    let minute = ui.radio_value(&mut per_minute, true, "Per minute (CloudWatch)");
    if second.changed() || minute.changed() {
        out.push(TimelineCommand::PerMinute(per_minute));
    }
}

/// Presentation mode's one-line path through the tree, for the simulated scenario.
pub fn path_strip_ui(ui: &mut egui::Ui, sim: &Simulation) -> Option<crate::app::Command> {
    let path = sim.path.as_ref()?;
    scenario_command(crate::app::decision_ui::path_strip_ui(
        ui,
        path,
        &sim.answers,
    )?)
}

/// A tree command about the scenario: answers stay with the simulation, the fix re-runs it sharded.
fn scenario_command(c: crate::app::Command) -> Option<crate::app::Command> {
    use crate::app::Command;
    Some(match c {
        Command::Answer(q, a) => Command::SimulationAnswer(q, a),
        Command::Apply(action) => Command::ShardSimulation(action),
        other => other,
    })
}

/// The decision tree for the simulated scenario's keys, with what the timeline showed: the answers it gives
/// and the fix, which runs the scenario again write-sharded.
pub fn tree_ui(ui: &mut egui::Ui, sim: &Simulation) -> Option<crate::app::Command> {
    ui.label(egui::RichText::new("Over time").strong());
    match &sim.time {
        Some(t) => ui.label(&t.text),
        None => ui.weak("the timeline's evidence comes when the run is done"),
    };
    ui.separator();
    let path = sim.path.as_ref()?;
    scenario_command(crate::app::decision_ui::decision_ui(
        ui,
        path,
        &sim.answers,
    )?)
}
