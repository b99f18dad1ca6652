//! The Timeline's words and time charts: the headline and findings, and throughput over time with the run's
//! events and the observed lines (the table at the playhead and the inspector are in `table.rs`).

use egui::{Color32, RichText};
use egui_plot::{Line, LineStyle, PlotPoints, VLine};

use super::axes::{TimeAxis, time_plot, y_axis_width};
use super::{Clock, Drawing, Rects, Simulation, TimelineCommand};
use crate::app::theme;
use crate::model::capacity::ReasonMetric;
use crate::model::simulate::{EventKind, Minute};
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
pub(super) fn dim(sim: &Simulation) -> usize {
    let s = &sim.outcome.series;
    let reads: f64 = s.read_demand_units.iter().sum();
    let writes: f64 = s.write_demand_units.iter().sum();
    usize::from(writes >= reads)
}

pub(super) fn unit(d: usize) -> &'static str {
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
            let reasons = observed_reasons(sim.observed());
            if reasons.iter().any(|r| r.is_key_range()) {
                swatch(
                    ui,
                    theme::HOT,
                    "observed KeyRange: a hot partition, sharding can help",
                );
            }
            if reasons.iter().any(|r| !r.is_key_range()) {
                swatch(
                    ui,
                    theme::TABLE_LIMIT,
                    "observed Provisioned, AccountLimit, MaxOnDemand: the table's or account's limit, sharding \
                     cannot help",
                );
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

/// The reason metrics CloudWatch's minutes hold a figure of, in [`ReasonMetric::ALL`]'s order.
fn observed_reasons(observed: &[ObservedMinute]) -> Vec<ReasonMetric> {
    ReasonMetric::ALL
        .into_iter()
        .filter(|r| observed.iter().any(|m| m.reasons[r.index()].is_some()))
        .collect()
}

/// What CloudWatch observed, beside the model's minutes (dashed): the consumed units as a per-second
/// average, and the throttle events per minute: one line per reason when the files held the reason metrics
/// (KeyRange hot, the table's or account's limits in their own colour), else one line.
fn observed_lines(
    observed: &[ObservedMinute],
    start: i64,
    d: usize,
) -> (Option<Line<'static>>, Vec<Line<'static>>) {
    let u = unit(d);
    // The minute a replay starts in, when it starts mid-minute, is drawn at t = 0 as the model's partial
    // first minute is.
    let at = |m: &ObservedMinute| (m.minute - start).max(0) as f64;
    let dashed = |name: String, points: PlotPoints<'static>, colour| {
        (!points.points().is_empty()).then(|| {
            Line::new(name, points)
                .color(colour)
                .style(LineStyle::dashed_loose())
        })
    };
    let reasons = observed_reasons(observed);
    let events: Vec<Line<'static>> = if reasons.is_empty() {
        let points = observed
            .iter()
            .filter_map(|m| Some([at(m), m.throttle_events()?]))
            .collect();
        dashed(
            "observed throttle events per minute (CloudWatch)".to_owned(),
            points,
            theme::HOT,
        )
        .into_iter()
        .collect()
    } else {
        reasons
            .into_iter()
            .filter_map(|r| {
                let points = observed
                    .iter()
                    .filter_map(|m| Some([at(m), m.reasons[r.index()]?]))
                    .collect();
                let (colour, help) = if r.is_key_range() {
                    (theme::HOT, "sharding can help")
                } else {
                    (theme::TABLE_LIMIT, "sharding cannot help")
                };
                dashed(
                    format!(
                        "observed {} throttle events (CloudWatch): {help}",
                        r.short()
                    ),
                    points,
                    colour,
                )
            })
            .collect()
    };
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
    (
        dashed(
            format!("observed consumed {u}/s (CloudWatch)"),
            consumed,
            theme::COOL,
        ),
        events,
    )
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
