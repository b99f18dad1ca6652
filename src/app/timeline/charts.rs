//! The Timeline's words and charts: the headline and findings, throughput over time with the run's events,
//! the partitions at the playhead as bars, and one partition in the inspector.

use egui::{Color32, RichText};
use egui_plot::{Bar, BarChart, HLine, Line, LineStyle, Plot, PlotPoints, VLine};

use super::axes::{TimeAxis, time_plot, y_axis_width};
use super::heatmap::{cell_of, use_of};
use super::{Clock, Drawing, Rects, Simulation, TimelineCommand};
use crate::app::theme;
use crate::model::fmt::{grouped, plural};
use crate::model::simulate::{Cell, Dim, EventKind, Minute, Range};
use crate::source::trace::ObservedMinute;

/// At most this many points per line: a 24 h run at 1 s has 86,400 seconds, more than any plot is wide.
const MAX_POINTS: usize = 1_500;

/// The line chart's points, cut down to [`MAX_POINTS`] by the highest value of each stretch (so a one-second
/// spike stays visible at any zoom), recomputed only when the run has grown.
#[derive(Default)]
pub(super) struct Lines {
    for_len: usize,
    dim: usize,
    points: [Vec<[f64; 2]>; 3],
}

impl Lines {
    fn get(&mut self, s: &crate::model::simulate::Series, d: usize) -> [&[[f64; 2]]; 3] {
        if self.for_len != s.t.len() || self.dim != d {
            let v = if d == 0 {
                [
                    &s.read_demand_units,
                    &s.read_served_units,
                    &s.read_throttled_units,
                ]
            } else {
                [
                    &s.write_demand_units,
                    &s.write_served_units,
                    &s.write_throttled_units,
                ]
            };
            let per = s.t.len().div_ceil(MAX_POINTS).max(1);
            self.points = v.map(|values| {
                s.t.chunks(per)
                    .zip(values.chunks(per))
                    .map(|(t, y)| [f64::from(t[0]), y.iter().copied().fold(0.0, f64::max)])
                    .collect()
            });
            self.for_len = s.t.len();
            self.dim = d;
        }
        [&self.points[0], &self.points[1], &self.points[2]]
    }
}

/// 0 for reads, 1 for writes: the dimension with more demand over the run (the one the story is about).
fn dim(sim: &Simulation) -> usize {
    let s = &sim.outcome.series;
    let reads: f64 = s.read_demand_units.iter().sum();
    let writes: f64 = s.write_demand_units.iter().sum();
    usize::from(writes >= reads)
}

fn unit(d: usize) -> &'static str {
    if d == 0 { "RCU" } else { "WCU" }
}

/// The event kind's marker colour.
fn event_colour(kind: EventKind) -> Color32 {
    match kind {
        EventKind::Split | EventKind::Scale | EventKind::PeakAdopted => theme::PATH,
        EventKind::SplitSkipped | EventKind::BurstExhausted => theme::WARM,
        EventKind::KeyRotated => theme::COOL,
    }
}

/// The run's name, its headline (or how far it has got) and its findings; a finding's click asks to show its
/// moment and partition. In presentation mode (`compact`) only the name (and the progress while running):
/// the headline goes beside the charts, wrapped ([`words_ui`]), the findings into a menu.
pub(super) fn headline_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    rects: &mut Rects,
    compact: bool,
    out: &mut Vec<TimelineCommand>,
) {
    let title = RichText::new(&sim.name).heading().strong();
    rects.title = Some(ui.add(egui::Label::new(title).wrap()).rect);
    let Some(d) = &sim.diagnosis else {
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(format!(
                "simulating: {} of {} done",
                sim.clock().at(sim.done_seconds),
                sim.clock().at(sim.duration())
            ));
        });
        return;
    };
    if compact {
        return;
    }
    ui.add(egui::Label::new(RichText::new(&d.headline).strong()).wrap());
    let row = ui.text_style_height(&egui::TextStyle::Body);
    egui::ScrollArea::vertical()
        .id_salt("timeline-findings")
        .max_height(row * 4.0 + ui.spacing().item_spacing.y * 3.0)
        .show(ui, |ui| {
            for f in &d.findings {
                out.extend(finding_ui(ui, f, sim.clock()));
            }
        });
    if !sim.description().is_empty() {
        ui.add(egui::Label::new(RichText::new(sim.description()).weak()).wrap());
    }
}

/// Presentation mode's words beside the charts: the headline, wrapped whole (a projector's audience cannot
/// hover for the rest of a cut line). The findings are a click away ([`findings_menu_ui`]).
pub(super) fn words_ui(ui: &mut egui::Ui, sim: &Simulation) {
    if let Some(d) = &sim.diagnosis {
        ui.add(egui::Label::new(RichText::new(&d.headline).strong()).wrap());
    }
}

/// Presentation mode's "Findings (N)" menu on the playback row: every finding, wrapped whole; a click shows
/// its moment.
pub(super) fn findings_menu_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    out: &mut Vec<TimelineCommand>,
) {
    let Some(d) = &sim.diagnosis else {
        return;
    };
    ui.menu_button(format!("Findings ({})", d.findings.len()), |ui| {
        ui.set_max_width(560.0);
        for f in &d.findings {
            if let Some(show) = finding_ui(ui, f, sim.clock()) {
                out.push(show);
                ui.close();
            }
        }
    });
}

/// One finding, wrapped; clicked, it asks to show its moment (and partition).
fn finding_ui(
    ui: &mut egui::Ui,
    f: &crate::model::simulate::Finding,
    clock: Clock,
) -> Option<TimelineCommand> {
    let text = format!("{}  {}", clock.at(f.from), f.text);
    ui.add(egui::Label::new(text).sense(egui::Sense::click()).wrap())
        .on_hover_text("Show this moment")
        .clicked()
        .then_some(TimelineCommand::Show {
            t: f.from,
            partition: f.start,
        })
}

/// What the line chart's colours mean (drawn above the heatmap, so the line chart sits right under it).
pub(super) fn throughput_legend_ui(ui: &mut egui::Ui, sim: &Simulation) {
    let u = unit(dim(sim));
    ui.horizontal_wrapped(|ui| {
        use crate::app::histogram::swatch;
        if sim.per_minute {
            swatch(
                ui,
                theme::COOL,
                &format!("consumed {u}/s (the minute's average, as CloudWatch shows it)"),
            );
            swatch(ui, theme::HOT, "throttle events in the minute");
            if !sim.observed().is_empty() {
                ui.label("dashed: as CloudWatch observed them");
            }
        } else {
            swatch(ui, Color32::GRAY, &format!("demand {u}/s"));
            swatch(ui, theme::COOL, "served");
            swatch(ui, theme::HOT, "throttled");
        }
        swatch(ui, theme::PATH, "split, scale");
        swatch(ui, theme::WARM, "split skipped, burst spent");
    });
}

/// Demand, served and throttled units per second (or CloudWatch's per-minute view), with the events as
/// vertical lines, on the heatmap's time axis (the same seconds at the same x: its x bounds are the heatmap's
/// span, its time labels are the heatmap's); below, the events in words (a click shows its moment; folded in
/// presentation mode). Draws with `drawing`'s points and records where the chart is in its rects.
pub(super) fn throughput_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    drawing: &mut Drawing,
    height: f32,
    compact: bool,
    out: &mut Vec<TimelineCommand>,
) {
    let d = dim(sim);
    let u = unit(d);
    let (rate_lines, count_lines) = chart_lines(sim, drawing.lines.get(&sim.outcome.series, d), d);
    let rects = &mut drawing.rects;
    let span = rects.heat_seconds.max(f64::from(sim.duration()).max(1.0));
    let events = &sim.outcome.events;
    let per_minute = sim.per_minute;
    let label_px = ui.text_style_height(&egui::TextStyle::Small) * 6.0;
    let width = rects.heatmap.map_or(ui.available_width(), |r| r.width());
    let step = super::time_step(span, width, label_px);
    // Rates and counts each on an axis of their own (a count per minute on the WCU/s axis flattens the
    // rates): in CloudWatch's per-minute view the throttle events get a plot of their own under the units,
    // on top of the rates' height (the view scrolls below its floor).
    let (rate_h, count_h) = if per_minute {
        (height, (height * 0.6).max(72.0))
    } else {
        (height, 0.0)
    };
    let y_w = y_axis_width(ui, &rate_lines, &count_lines);
    let axis = TimeAxis {
        span,
        step,
        first: super::first_mark(sim.setup(), step),
        clock: sim.clock(),
        y_width: y_w,
    };
    let shown = time_plot("timeline-throughput", rate_h, format!("{u}/s"), axis)
        .show_axes([!per_minute, true])
        .show(ui, |plot| {
            for line in rate_lines {
                plot.add(line);
            }
            for e in events {
                plot.add(VLine::new("", f64::from(e.t)).color(event_colour(e.kind)));
            }
        });
    if per_minute {
        time_plot(
            "timeline-throttle-events",
            count_h,
            "events/min".to_owned(),
            axis,
        )
        .show(ui, |plot| {
            for line in count_lines {
                plot.add(line);
            }
            for e in events {
                plot.add(VLine::new("", f64::from(e.t)).color(event_colour(e.kind)));
            }
        });
    }
    let bounds = shown.transform.bounds();
    let frame = *shown.transform.frame();
    // The heatmap takes the plot's x range from the last frame: draw again when it moved (a first frame, a
    // resize, wider y labels).
    if rects.heatmap.is_some_and(|m| {
        (m.left() - frame.left()).abs() > 0.5 || (m.right() - frame.right()).abs() > 0.5
    }) {
        ui.ctx().request_repaint();
    }
    rects.throughput = Some(frame);
    rects.throughput_bounds = (bounds.min()[0], bounds.max()[0]);
    if !compact {
        events_ui(ui, sim, out);
    }
}

/// The line chart's rate lines and count lines: per second demand, served and throttled units (no counts),
/// or per minute the consumed units and, for a plot of their own, the throttle events (the model's and
/// CloudWatch's).
fn chart_lines(
    sim: &Simulation,
    [demand, served, throttled]: [&[[f64; 2]]; 3],
    d: usize,
) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let u = unit(d);
    let points = |v: &[[f64; 2]]| -> PlotPoints<'static> { v.to_vec().into() };
    if sim.per_minute {
        let [consumed, thrown] = minute_lines(&sim.outcome.minutes, d);
        let (o_consumed, o_thrown) = observed_lines(sim.observed(), sim.setup().start, d);
        (
            std::iter::once(consumed).chain(o_consumed).collect(),
            std::iter::once(thrown).chain(o_thrown).collect(),
        )
    } else {
        (
            vec![
                Line::new(format!("demand {u}/s"), points(demand)).color(Color32::GRAY),
                Line::new(format!("served {u}/s"), points(served)).color(theme::COOL),
                Line::new(format!("throttled {u}/s"), points(throttled)).color(theme::HOT),
            ],
            Vec::new(),
        )
    }
}

/// CloudWatch's per-minute view: the minute's consumed units as a per-second average, and its throttle
/// events.
fn minute_lines(minutes: &[Minute], d: usize) -> [Line<'static>; 2] {
    let u = unit(d);
    let consumed: PlotPoints<'static> = minutes
        .iter()
        .map(|m| {
            let units = if d == 0 {
                m.consumed_read_units
            } else {
                m.consumed_write_units
            };
            [f64::from(m.t), units / 60.0]
        })
        .collect();
    let events: PlotPoints<'static> = minutes
        .iter()
        .map(|m| {
            [
                f64::from(m.t),
                m.read_throttle_events + m.write_throttle_events,
            ]
        })
        .collect();
    [
        Line::new(format!("consumed {u}/s (minute average)"), consumed).color(theme::COOL),
        Line::new("throttle events per minute", events).color(theme::HOT),
    ]
}

/// What CloudWatch observed, beside the model's minutes (dashed): the throttle events per minute and the
/// consumed units as a per-second average, where the files held them.
fn observed_lines(
    observed: &[ObservedMinute],
    start: i64,
    d: usize,
) -> (Option<Line<'static>>, Option<Line<'static>>) {
    let u = unit(d);
    // The minute a replay starts in, when it starts mid-minute, is drawn at t = 0 as the model's partial
    // first minute is.
    let at = |m: &ObservedMinute| (m.minute - start).max(0) as f64;
    let events: PlotPoints<'static> = observed
        .iter()
        .filter_map(|m| Some([at(m), m.throttle_events()?]))
        .collect();
    let consumed: PlotPoints<'static> = observed
        .iter()
        .filter_map(|m| {
            let units = if d == 0 {
                m.consumed_read_units
            } else {
                m.consumed_write_units
            }?;
            Some([at(m), units / 60.0])
        })
        .collect();
    let events = (!events.points().is_empty()).then(|| {
        Line::new("observed throttle events per minute (CloudWatch)", events)
            .color(theme::HOT)
            .style(LineStyle::dashed_loose())
    });
    let consumed = (!consumed.points().is_empty()).then(|| {
        Line::new(format!("observed consumed {u}/s (CloudWatch)"), consumed)
            .color(theme::COOL)
            .style(LineStyle::dashed_loose())
    });
    (consumed, events)
}

/// The run's events, each a line with its time; a click shows its moment (the playhead there, paused).
fn events_ui(ui: &mut egui::Ui, sim: &Simulation, out: &mut Vec<TimelineCommand>) {
    let count = sim.outcome.events.len();
    egui::CollapsingHeader::new(format!("Events ({count})"))
        .id_salt("timeline-events")
        .default_open(count > 0 && count <= 12)
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("timeline-events-list")
                .max_height(110.0)
                .show(ui, |ui| {
                    for e in &sim.outcome.events {
                        let partition = e
                            .partition
                            .map(|p| format!(" partition {p}:"))
                            .unwrap_or_default();
                        let text = format!(
                            "{}  {}{partition} {}",
                            sim.clock().at(e.t),
                            e.kind.as_str(),
                            e.detail
                        );
                        let label = RichText::new(text).color(event_colour(e.kind));
                        if ui
                            .add(egui::Label::new(label).sense(egui::Sense::click()).wrap())
                            .clicked()
                        {
                            out.push(TimelineCommand::Show {
                                t: e.t,
                                partition: None,
                            });
                        }
                    }
                });
        });
}

/// "The table at 00:08:12": each partition's use of its limit at the playhead, served and throttled, in
/// `height` points from its title to the bottom of its plot (recorded in `rects`); a click on a bar picks its
/// partition.
pub(super) fn snapshot_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    rects: &mut Rects,
    height: f32,
    out: &mut Vec<TimelineCommand>,
) {
    let t = sim.second();
    let title = RichText::new(format!("The table at {}", sim.clock().at(t))).strong();
    let Some((column, layout)) = sim.timeline.column_at(t) else {
        ui.label(title);
        ui.weak("not simulated yet");
        rects.snapshot = None;
        return;
    };
    let d = dim(sim);
    let limit = if d == 0 { 3_000.0 } else { 1_000.0 };
    let (served_chart, throttled_chart) = snapshot_bars(&column.cells, d, limit);
    let n = column.cells.len();
    // Its title and legend share a row.
    let top = ui.cursor().top();
    ui.horizontal_wrapped(|ui| {
        use crate::app::histogram::swatch;
        ui.label(title);
        ui.add_space(8.0);
        swatch(ui, theme::COOL, "served");
        swatch(ui, theme::HOT, "throttled");
        swatch(
            ui,
            theme::HOT,
            &format!(
                "line: the partition's limit, {} {}",
                grouped(limit as u64),
                unit(d)
            ),
        );
    });
    // `height` is the whole block: the plot gets what the title and legend rows leave.
    let plot_height = height - (ui.cursor().top() - top);
    let response = Plot::new("timeline-snapshot")
        .height(plot_height.max(120.0))
        .include_y(0.0)
        .include_y(110.0)
        .include_x(-0.5)
        .include_x(n as f64 - 0.5)
        .allow_scroll(false)
        .allow_drag(false)
        .allow_zoom(false)
        // Every partition numbered (egui_plot's default axis numbered eight of them "0" only).
        .custom_x_axes(vec![crate::app::histogram::bar_axis(
            "partition (hash-range order)",
            n,
        )])
        .x_grid_spacer(crate::app::histogram::bar_grid())
        .y_axis_label("% of limit")
        .show(ui, |plot| {
            plot.add(served_chart);
            plot.add(throttled_chart);
            plot.add(HLine::new("partition limit (100 %)", 100.0).color(theme::HOT));
            let hovered = plot
                .pointer_coordinate()
                .map(|p| p.x.round())
                .filter(|&x| x >= 0.0 && (x as usize) < n)
                .map(|x| x as usize);
            (hovered, plot.response().clicked())
        });
    let r = response.response.rect;
    rects.snapshot = Some(egui::Rect::from_x_y_ranges(r.x_range(), top..=r.bottom()));
    let (hovered, clicked) = response.inner;
    if let Some(i) = hovered {
        let text = partition_text(layout, i, &column.cells[i], None, sim.clock());
        response.response.clone().on_hover_text_at_pointer(text);
        if clicked {
            out.push(TimelineCommand::Pick(layout.get(i).map(|r| r.start)));
        }
    }
}

/// Each partition's served and throttled units as % of its limit, throttled stacked on served.
fn snapshot_bars(cells: &[Cell], d: usize, limit: f64) -> (BarChart, BarChart) {
    let bars = |units: &dyn Fn(&Cell) -> f32, colour| -> Vec<Bar> {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Bar::new(i as f64, f64::from(units(c)) / limit * 100.0)
                    .width(0.7)
                    .fill(colour)
            })
            .collect()
    };
    let served = BarChart::new("served", bars(&|c| c.served[d], theme::COOL));
    let throttled =
        BarChart::new("throttled", bars(&|c| c.throttled[d], theme::HOT)).stack_on(&[&served]);
    (served, throttled)
}

/// One partition in words: its place, range and keys, then what it was asked for and did in `span` (the
/// heatmap's column), or at the playhead.
pub(super) fn partition_text(
    layout: &[Range],
    i: usize,
    cell: &Cell,
    span: Option<(u32, u32)>,
    clock: Clock,
) -> String {
    let range = &layout[i];
    let end = layout.get(i + 1).map(|r| r.start);
    let mut text = format!(
        "partition {i} of {}\nhash {:#018x}",
        layout.len(),
        range.start.0
    );
    if range.start.1 > 0.0 {
        text.push_str(&format!(
            " (from {:.0} % of one key's sort keys)",
            range.start.1 * 100.0
        ));
    }
    match end {
        Some(e) => text.push_str(&format!(" – {:#018x}", e.0)),
        None => text.push_str(" – the end"),
    }
    text.push('\n');
    if range.key_count == 0 {
        text.push_str("no keys");
    } else {
        text.push_str(&plural(range.key_count as u64, "key"));
        text.push_str(": ");
        text.push_str(&range.keys.join(", "));
        if range.key_count > range.keys.len() {
            text.push_str(", …");
        }
    }
    if let Some((from, until)) = span {
        text.push_str(&format!("\n{} – {}", clock.at(from), clock.at(until)));
    }
    for (d, name) in [(0, "reads"), (1, "writes")] {
        if cell.peak_use[d] <= 0.0 && cell.served[d] <= 0.0 {
            continue;
        }
        text.push_str(&format!(
            "\n{name}: peak {:.0} % of {} {}, served {}/s, throttled {}/s, burst bank {}",
            f64::from(cell.peak_use[d]) * 100.0,
            if d == 0 { "3,000" } else { "1,000" },
            unit(d),
            grouped(cell.served[d].round() as u64),
            grouped(cell.throttled[d].round() as u64),
            grouped(cell.bank[d].round() as u64),
        ));
    }
    if let Some((d, cause)) = cell.reason {
        let dim = if d == Dim::Read { "Read" } else { "Write" };
        text.push_str(&format!("\nthrottled as Table{dim}{}", cause.as_str()));
    }
    text
}

/// The inspector in Timeline mode: the picked partition (or the hottest) at the playhead.
pub fn inspector_ui(ui: &mut egui::Ui, sim: &Simulation) {
    let t = sim.second();
    let Some((column, layout)) = sim.timeline.column_at(t) else {
        ui.label("Nothing simulated at this time yet.");
        return;
    };
    let picked = sim.selected.map(|p| cell_of(layout, p));
    let hottest = column
        .cells
        .iter()
        .enumerate()
        .max_by(|a, b| use_of(a.1).total_cmp(&use_of(b.1)))
        .map(|(i, _)| i);
    let Some(i) = picked.or(hottest) else {
        ui.label("No partitions.");
        return;
    };
    ui.label(RichText::new(format!("At {}", sim.clock().at(t))).strong());
    if picked.is_none() {
        ui.weak("The hottest partition (click one on the heatmap or the bars to pick it):");
    }
    ui.label(partition_text(
        layout,
        i,
        &column.cells[i],
        None,
        sim.clock(),
    ));
    if let Some(trace) = sim.setup().trace.as_deref() {
        let start = layout[i].start.0;
        let end = layout.get(i + 1).map_or(u64::MAX, |r| r.start.0);
        rates_ui(ui, trace, t, start, end);
    }
}

/// A replay's keys in a partition's hash range at second `t`, busiest first, with the units the trace sends
/// them in that second.
fn rates_ui(ui: &mut egui::Ui, trace: &crate::model::trace::Trace, t: u32, start: u64, end: u64) {
    use crate::model::trace::Dim as TraceDim;
    let mut by_key: std::collections::HashMap<u32, [f64; 2]> = std::collections::HashMap::new();
    for e in trace.at(t) {
        let Some(key) = trace.keys.get(e.key() as usize) else {
            continue;
        };
        if key.hash < start || (key.hash >= end && end != u64::MAX) {
            continue;
        }
        let d = usize::from(e.dim() == TraceDim::Write);
        by_key.entry(e.key()).or_default()[d] += f64::from(e.units);
    }
    let mut rates: Vec<(&str, [f64; 2])> = by_key
        .into_iter()
        .filter_map(|(k, r)| Some((trace.keys.get(k as usize)?.name.as_str(), r)))
        .collect();
    if rates.is_empty() {
        ui.weak("No traffic to this partition in this second of the trace.");
        return;
    }
    rates.sort_by(|a, b| {
        (b.1[0] + b.1[1])
            .total_cmp(&(a.1[0] + a.1[1]))
            .then(a.0.cmp(b.0))
    });
    ui.label(RichText::new("Keys in this second of the trace").strong());
    for (name, r) in rates.iter().take(8) {
        let mut text = format!("{name}:");
        if r[1] > 0.0 {
            text.push_str(&format!(" {} WCU/s", grouped(r[1].round() as u64)));
        }
        if r[0] > 0.0 {
            text.push_str(&format!(" {} RCU/s", grouped(r[0].round() as u64)));
        }
        ui.label(text);
    }
    if rates.len() > 8 {
        ui.weak(format!(
            "… and {} more keys",
            grouped(rates.len() as u64 - 8)
        ));
    }
}
