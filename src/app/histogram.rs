//! The live bucket histogram: a read-only view of already-computed counts.
//!
//! Each chart is drawn as one block (headline, legend, plot with its axes, caption) whose rectangle is what
//! "Export chart as PNG" saves, so the picture carries everything a slide needs. Colours come from
//! [`crate::model::heat`], which uses the decision tree's own rules: red only where the tree would say "one key
//! is hot". Hovering a bar shows a framed tooltip kept inside the plot, with the count before and after
//! sharding.

use egui::{Color32, RichText};
use egui_plot::{Bar, BarChart, GridInput, GridMark, Plot, PlotPoint};

use super::chart_words::{headline, label_for_screen_readers};
use super::theme;
use crate::model::Report;
use crate::model::fmt::grouped;
use crate::model::heat::{BucketHeat, Heat};
use crate::model::partition::Partitioner;
use crate::model::stats::share;

pub const HASH_CAPTION: &str = "teaching hash (xxh3), not DynamoDB's internal hash";

/// Bar height of a count: the count, or log10(count + 1) on a log scale (so 0 stays at 0).
fn height(count: u64, log_scale: bool) -> f64 {
    if log_scale {
        (count as f64 + 1.0).log10()
    } else {
        count as f64
    }
}

/// Grid marks of a count axis over `bounds`: whole numbers in round steps (1, 2, 5, 10, …) about six of them;
/// on a log scale, the powers of ten (0, 1, 10, 100, …) at their bar heights.
pub fn count_marks(bounds: (f64, f64), log_scale: bool) -> Vec<GridMark> {
    let (lo, hi) = (bounds.0.max(0.0), bounds.1);
    if !hi.is_finite() || hi <= lo {
        return vec![GridMark {
            value: 0.0,
            step_size: 1.0,
        }];
    }
    if log_scale {
        let mut marks = vec![GridMark {
            value: 0.0,
            step_size: 1.0,
        }];
        let top = (10f64.powf(hi) - 1.0).max(1.0).log10().floor() as i32;
        let every = top / 7 + 1;
        for k in (0..=top.min(18)).filter(|k| k % every == 0) {
            let v = (10f64.powi(k) + 1.0).log10();
            if v >= lo && v <= hi {
                marks.push(GridMark {
                    value: v,
                    step_size: 1.0,
                });
            }
        }
        return marks;
    }
    let span = hi - lo;
    let mut step = 1.0;
    for factor in [2.0, 2.5, 2.0].iter().cycle() {
        if span / step <= 6.0 {
            break;
        }
        step *= factor;
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .map(|i| GridMark {
            value: i as f64 * step,
            step_size: step,
        })
        .collect()
}

/// The label of a count-axis mark: a whole number with separators (or "1k", "1M" on a log scale).
pub fn count_label(value: f64, log_scale: bool) -> String {
    if log_scale {
        let c = (10f64.powf(value) - 1.0).round();
        if c < 0.5 {
            return "0".to_owned();
        }
        return match c as u64 {
            n if n >= 1_000_000_000 => format!("{}G", n / 1_000_000_000),
            n if n >= 1_000_000 => format!("{}M", n / 1_000_000),
            n if n >= 1_000 => format!("{}k", n / 1_000),
            n => n.to_string(),
        };
    }
    if value < 0.0 || value.fract().abs() > 1e-9 {
        return String::new();
    }
    grouped(value.round() as u64)
}

/// Grid steps along the bucket axis: every bucket while there are few (so each bar is numbered), then 2, 5,
/// 10, 20, 50 … so that about 16 numbers fit.
fn bucket_steps(input: &GridInput) -> [f64; 3] {
    let span = (input.bounds.1 - input.bounds.0).max(1.0);
    let mut step = 1.0;
    // 1, 2, 5, 10, 20, 50 …; a span that is not a finite number gets every bucket.
    for factor in [2.0, 2.5, 2.0].iter().cycle() {
        if !span.is_finite() || span / step <= 16.0 {
            break;
        }
        step *= factor;
    }
    [step, step * 2.0, step * 10.0]
}

/// The label of a bucket-axis mark: the bucket's number, and nothing for marks outside `0..n`.
pub fn bucket_label(value: f64, n: usize) -> String {
    if value.fract().abs() < 1e-9 && value >= 0.0 && (value as usize) < n {
        format!("{}", value as u64)
    } else {
        String::new()
    }
}

/// Pixels between two numbers of a bar axis from which they are drawn, at full strength (egui_plot's default
/// fades x labels in from 60 to 80 px: eight partitions 37 px apart were labelled only "0").
pub const BAR_LABEL_PX: f32 = 24.0;

/// The x axis of bars numbered `0..n` (buckets, partitions), labelled `label`: every bar numbered while they
/// are [`BAR_LABEL_PX`] apart, else every 2nd, 5th, 10th ([`bucket_steps`]); nothing outside `0..n`. Use it
/// with [`bar_grid`].
pub fn bar_axis<'a>(label: &str, n: usize) -> egui_plot::AxisHints<'a> {
    egui_plot::AxisHints::new_x()
        .label(label.to_owned())
        .formatter(move |mark, _| bucket_label(mark.value, n))
        .label_spacing(BAR_LABEL_PX..=BAR_LABEL_PX + 0.5)
}

/// The grid of a bar axis ([`bar_axis`]): whole numbers in steps of 1, 2, 5, 10, …
pub fn bar_grid() -> impl Fn(egui_plot::GridInput) -> Vec<GridMark> {
    egui_plot::uniform_grid_spacer(|input| bucket_steps(&input))
}

/// A plot that shows bars as they are: no zoom, drag or scroll, y from zero, whole numbers on the axes (real
/// counts on a log scale, powers of ten), only existing buckets numbered, no built-in hover label (the block
/// draws its own tooltip).
fn fixed_plot<'a>(
    id: &str,
    n: usize,
    x_label: &str,
    y_label: &str,
    log_scale: bool,
    height: f32,
) -> Plot<'a> {
    let y_label = if log_scale {
        format!("{y_label} (log scale)")
    } else {
        y_label.to_owned()
    };
    Plot::new(id)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .allow_boxed_zoom(false)
        .show_x(false)
        .show_y(false)
        .show_crosshair(false)
        .include_y(0.0)
        .include_x(-0.5)
        .include_x(n as f64 - 0.5)
        // Bucket numbers are short: every one drawn at full strength from 24 px apart (egui_plot's default
        // fades x labels in from 60 to 80 px, which left the odd numbers of a narrow export nearly invisible).
        .custom_x_axes(vec![bar_axis(x_label, n)])
        .y_axis_label(y_label)
        .x_grid_spacer(bar_grid())
        .y_grid_spacer(move |input| count_marks(input.bounds, log_scale))
        .y_axis_formatter(move |mark, _| count_label(mark.value, log_scale))
        .height(height)
}

/// The index of the bar under the pointer, if any.
fn hovered_bar(pointer: Option<PlotPoint>, n: usize) -> Option<usize> {
    let p = pointer?;
    let i = p.x.round();
    (i >= 0.0 && (i as usize) < n && (p.x - i).abs() <= 0.45).then_some(i as usize)
}

/// A framed tooltip next to the pointer, kept inside the plot (flipped left or up near its edges). Only
/// while the plot itself is hovered: never over an open menu or popup (a menu's layer is above the plot, so
/// the plot is not hovered there), and never once the pointer has left the window.
pub fn plot_tooltip(
    ui: &egui::Ui,
    plot: &egui::Response,
    id: &str,
    add: impl FnOnce(&mut egui::Ui),
) {
    if !plot.hovered() || egui::Popup::is_any_open(ui.ctx()) {
        return;
    }
    let Some(pointer) = ui.ctx().pointer_hover_pos() else {
        return;
    };
    let plot = plot.rect;
    if !plot.contains(pointer) {
        return;
    }
    let area_id = egui::Id::unique(("chart-tooltip", id));
    let size = ui
        .ctx()
        .memory(|m| m.area_rect(area_id))
        .map_or(egui::vec2(260.0, 120.0), |r| r.size());
    let mut pos = pointer + egui::vec2(14.0, 14.0);
    if pos.x + size.x > plot.right() {
        pos.x = (pointer.x - 14.0 - size.x).max(plot.left());
    }
    if pos.y + size.y > plot.bottom() {
        pos.y = (pointer.y - 14.0 - size.y).max(plot.top());
    }
    egui::Area::new(area_id)
        .order(egui::Order::Tooltip)
        .fixed_pos(pos)
        .interactable(false)
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width((plot.width() * 0.6).max(220.0));
                add(ui);
            });
        });
}

/// The height left for a plot with `lines` lines of small caption text under it.
fn remaining(ui: &egui::Ui, lines: usize) -> f32 {
    let line = ui.text_style_height(&egui::TextStyle::Small) + ui.spacing().item_spacing.y;
    (ui.available_height() - lines as f32 * line * 1.6 - 6.0).max(120.0)
}

/// One swatch and its words, for the legend.
pub(crate) fn swatch(ui: &mut egui::Ui, color: Color32, text: &str) {
    let h = ui.text_style_height(&egui::TextStyle::Body) * 0.8;
    let (rect, _) = ui.allocate_exact_size(egui::vec2(h * 1.4, h), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, color);
    ui.label(text);
}

fn heat_color(h: Heat) -> Color32 {
    match h {
        Heat::Even => theme::COOL,
        Heat::Uneven | Heat::Collision => theme::WARM,
        Heat::Hot => theme::HOT,
    }
}

/// What a histogram block needs.
pub struct HistogramArgs<'a> {
    pub report: &'a Report,
    pub log_scale: bool,
    /// "writes" or "items": what the counts are.
    pub noun: &'a str,
}

/// Draws `add` in the middle of the space left, as normal wrapped lines.
pub fn centred_block(ui: &mut egui::Ui, add: impl FnOnce(&mut egui::Ui)) {
    let space = ui.available_size_before_wrap();
    ui.add_space((space.y / 3.0).max(0.0));
    ui.vertical_centered(|ui| {
        ui.set_max_width((space.x * 0.8).max(200.0));
        add(ui);
    });
}

/// The empty state: what to do, or why there is nothing (a load that failed on a fresh start).
pub fn empty_ui(ui: &mut egui::Ui, reason: Option<&str>) -> egui::Rect {
    let rect = ui.available_rect_before_wrap();
    // Centred, wrapped text (not `centered_and_justified`, whose justified layout spaced the letters out).
    centred_block(ui, |ui| match reason {
        Some(r) => {
            ui.label(RichText::new(r).color(theme::ERROR).heading());
        }
        None => {
            ui.label(
                RichText::new(
                    "No keys yet: paste keys into the editor, open a file (File > Open…), or pick one of the \
                     Examples.",
                )
                .heading(),
            );
        }
    });
    rect
}

/// Draws the histogram block of a report: headline, legend, bars (ghost bars for the unsharded distribution
/// when sharding is on), a framed tooltip, the caption and any collision notes. Returns the block's rectangle.
pub fn plot_ui(ui: &mut egui::Ui, args: &HistogramArgs<'_>) -> egui::Rect {
    let a = &args.report.analysis;
    let n = a.buckets.len();
    let heat = &args.report.heat;
    let ghost = args.report.unsharded.as_ref();
    let collisions = heat
        .iter()
        .filter(|h| h.heat == Heat::Collision)
        .count()
        .min(3);
    let block = ui.scope(|ui| {
        ui.label(RichText::new(headline(a, args.noun)).strong().heading());
        legend_ui(
            ui,
            args.noun,
            crate::model::decision::too_few_to_judge(a.total, n),
            ghost.is_some(),
        );
        let partitions = Partitioner::equal(n);
        let log = args.log_scale;
        let response = fixed_plot(
            "histogram",
            n,
            "bucket",
            args.noun,
            log,
            remaining(ui, 1 + collisions),
        )
        .show(ui, |plot| {
            let hovered = hovered_bar(plot.pointer_coordinate(), n);
            if let Some(u) = ghost {
                let bars = u
                    .buckets
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| {
                        Bar::new(i as f64, height(c, log))
                            .width(0.9)
                            .fill(theme::GHOST)
                    })
                    .collect();
                plot.add(BarChart::new("before sharding", bars).allow_hover(false));
            }
            let bars = a
                .buckets
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let color = heat_color(heat.get(i).map_or(Heat::Even, |h| h.heat));
                    let bar = Bar::new(i as f64, height(c, log)).width(0.7).fill(color);
                    if hovered == Some(i) {
                        bar.stroke(egui::Stroke::new(2.0, theme::OUTLINE))
                    } else {
                        bar
                    }
                })
                .collect();
            plot.add(BarChart::new(args.noun, bars).allow_hover(false));
            hovered
        });
        label_for_screen_readers(&response.response, args);
        if let Some(b) = response.inner {
            plot_tooltip(ui, &response.response, "histogram", |ui| {
                bucket_tooltip(ui, args, &partitions, heat, b);
            });
        }
        ui.label(RichText::new(HASH_CAPTION).small().weak());
        let notes: Vec<String> = heat
            .iter()
            .enumerate()
            .filter(|(_, h)| h.heat == Heat::Collision)
            .filter_map(|(b, h)| h.note.as_ref().map(|n| format!("bucket {b}: {n}")))
            .take(3)
            .collect();
        for note in notes {
            ui.label(RichText::new(note).small());
        }
    });
    block.response.rect
}

/// The histogram's colours in words: even, uneven and hot (or why every bar is blue), and the grey bars
/// before sharding when they are drawn.
fn legend_ui(ui: &mut egui::Ui, noun: &str, too_few: bool, ghost: bool) {
    ui.horizontal_wrapped(|ui| {
        if too_few {
            // Every bar is drawn blue then (model::heat), which is not "even": say why.
            swatch(
                ui,
                theme::COOL,
                &format!("too few {noun} to judge the spread"),
            );
        } else {
            swatch(ui, theme::COOL, "even");
            swatch(ui, theme::WARM, "uneven (no one key)");
            swatch(ui, theme::HOT, "hot: one key holds a bucket ≥ 2× the mean");
        }
        if ghost {
            swatch(ui, theme::GHOST_SWATCH, "grey: before sharding");
        }
    });
}

fn bucket_tooltip(
    ui: &mut egui::Ui,
    args: &HistogramArgs<'_>,
    partitions: &Partitioner,
    heat: &[BucketHeat],
    bucket: usize,
) {
    let a = &args.report.analysis;
    let count = a.buckets.get(bucket).copied().unwrap_or(0);
    let range = partitions.range(bucket);
    ui.strong(format!("bucket {bucket}"));
    match args.report.unsharded.as_ref() {
        Some(u) => {
            let before = u.buckets.get(bucket).copied().unwrap_or(0);
            ui.label(format!(
                "{} {} after sharding (before: {})",
                grouped(count),
                args.noun,
                grouped(before)
            ));
        }
        None => {
            ui.label(format!("{} {}", grouped(count), args.noun));
        }
    }
    ui.label(format!("{:.1} % of all", share(count, a.total) * 100.0));
    if let Some(note) = heat.get(bucket).and_then(|h| h.note.as_ref()) {
        ui.label(note);
    }
    if let Some(top) = a.bucket_top.get(bucket) {
        for k in top {
            ui.label(format!(
                "{} — {} ({:.1} %)",
                k.key,
                grouped(k.count),
                k.share * 100.0
            ));
        }
    }
    ui.weak(format!(
        "hash range {:#018x} – {:#018x}",
        range.start(),
        range.end()
    ));
}

/// Items per S3 export data file: the export's real grouping by partition (not the teaching hash).
pub fn groups_ui(
    ui: &mut egui::Ui,
    groups: &[crate::source::Group],
    log_scale: bool,
) -> egui::Rect {
    let counts: Vec<u64> = groups.iter().map(|g| g.items).collect();
    let total: u64 = counts.iter().sum();
    let n = counts.len();
    let mean = total as f64 / n.max(1) as f64;
    let block = ui.scope(|ui| {
        ui.label(
            RichText::new(format!(
                "{} in {}",
                crate::model::fmt::plural(total, "item"),
                crate::model::fmt::plural(n as u64, "export data file")
            ))
            .strong()
            .heading(),
        );
        let response = fixed_plot(
            "data-files",
            n,
            "export data file",
            "items",
            log_scale,
            remaining(ui, 1),
        )
        .show(ui, |plot| {
            let hovered = hovered_bar(plot.pointer_coordinate(), n);
            let bars = counts
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let ratio = if mean > 0.0 { c as f64 / mean } else { 0.0 };
                    let color = if ratio >= crate::model::heat::UNEVEN_RATIO {
                        theme::WARM
                    } else {
                        theme::COOL
                    };
                    Bar::new(i as f64, height(c, log_scale))
                        .width(0.7)
                        .fill(color)
                })
                .collect();
            plot.add(BarChart::new("items per data file", bars).allow_hover(false));
            hovered
        });
        if let Some(i) = response.inner
            && let Some(g) = groups.get(i)
        {
            plot_tooltip(ui, &response.response, "data-files", |ui| {
                ui.strong(&g.name);
                ui.label(format!(
                    "{} · {:.1} %",
                    crate::model::fmt::plural(g.items, "item"),
                    share(g.items, total) * 100.0
                ));
            });
        }
        ui.label(
            RichText::new("real grouping of this S3 export: one data file per partition key range")
                .small()
                .weak(),
        );
    });
    block.response.rect
}

/// Each partition's demand as % of its capacity (the larger of reads and writes), the 100 % limit drawn as a
/// line, bars over it in the hot colour, under the capacity headline.
pub fn capacity_ui(ui: &mut egui::Ui, capacity: &crate::model::capacity::Capacity) -> egui::Rect {
    use crate::model::fmt::percent;
    let util = capacity.utilisation();
    let n = util.len();
    let block = ui.scope(|ui| {
        ui.label(RichText::new(capacity.headline()).strong().heading());
        ui.horizontal_wrapped(|ui| {
            swatch(ui, theme::COOL, "within its limit");
            swatch(ui, theme::WARM, "over 80 %");
            swatch(ui, theme::HOT, "over its limit: throttled");
        });
        let response = fixed_plot(
            "capacity",
            n,
            "partition",
            "% of partition capacity",
            false,
            remaining(ui, 2),
        )
        .include_y(110.0)
        .show(ui, |plot| {
            let hovered = hovered_bar(plot.pointer_coordinate(), n);
            let bars: Vec<Bar> = util
                .iter()
                .enumerate()
                .map(|(i, &u)| {
                    let color = if u > 1.0 {
                        theme::HOT
                    } else if u > 0.8 {
                        theme::WARM
                    } else {
                        theme::COOL
                    };
                    Bar::new(i as f64, u * 100.0).width(0.7).fill(color)
                })
                .collect();
            plot.add(BarChart::new("% of partition capacity", bars).allow_hover(false));
            plot.add(egui_plot::HLine::new("partition limit (100 %)", 100.0).color(theme::HOT));
            hovered
        });
        if let Some(i) = response.inner
            && let Some(p) = capacity.partitions.get(i)
        {
            plot_tooltip(ui, &response.response, "capacity", |ui| {
                ui.strong(format!("partition {i}"));
                ui.label(format!(
                    "reads {:.0} units/s ({}), writes {:.0} units/s ({})",
                    p.read_units,
                    percent(p.read_util),
                    p.write_units,
                    percent(p.write_util)
                ));
                ui.label(format!(
                    "throttled: {:.0} read, {:.0} write units/s",
                    p.throttled_read_units, p.throttled_write_units
                ));
            });
        }
        ui.label(
            RichText::new(format!(
                "{} ({}); each serves 3,000 read and 1,000 write units/s · {HASH_CAPTION}",
                crate::model::fmt::plural(capacity.partition_count as u64, "partition"),
                capacity.partitions_from.describe()
            ))
            .small()
            .weak(),
        );
    });
    block.response.rect
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_steps_number_every_bar_of_a_few_and_round_steps_of_many() {
        let steps = |lo: f64, hi: f64| {
            bucket_steps(&egui_plot::GridInput {
                bounds: (lo, hi),
                base_step_size: 0.01,
            })[0]
        };
        assert_eq!(steps(-0.5, 7.5), 1.0);
        assert_eq!(steps(-0.5, 16.5), 2.0);
        assert_eq!(steps(-0.5, 63.5), 5.0);
        assert_eq!(steps(-0.5, 255.5), 20.0);
        assert_eq!(steps(0.0, f64::INFINITY), 1.0);
        assert_eq!(steps(f64::NAN, 1.0), 1.0);
    }

    fn labels(bounds: (f64, f64), log: bool) -> Vec<String> {
        count_marks(bounds, log)
            .into_iter()
            .map(|m| count_label(m.value, log))
            .collect()
    }

    #[test]
    fn small_counts_get_distinct_whole_number_ticks() {
        // Three keys over eight buckets: bars of 0 and 1, the plot's y range a little over 1.
        let got = labels((-0.05, 1.05), false);
        assert_eq!(got, ["0", "1"]);
        let got = labels((0.0, 3.2), false);
        assert_eq!(got, ["0", "1", "2", "3"]);
        let got = labels((0.0, 12_345.0), false);
        assert_eq!(got, ["0", "5,000", "10,000"]);
    }

    #[test]
    fn log_scale_ticks_are_powers_of_ten() {
        // Bars up to 5,000 writes: heights up to log10(5001).
        let got = labels((0.0, (5_001f64).log10() * 1.05), true);
        assert_eq!(got, ["0", "1", "10", "100", "1k"]);
        assert!(!got.iter().any(|l| l.starts_with('-')));
    }

    /// The numbers a bar axis draws for `n` bars over `width` px: egui_plot draws a mark's label when its step
    /// is more than [`BAR_LABEL_PX`] wide.
    fn drawn(n: usize, width: f32) -> Vec<String> {
        let bounds = (-0.5, n as f64 - 0.5);
        let steps = bucket_steps(&egui_plot::GridInput {
            bounds,
            base_step_size: 0.01,
        });
        let px = f64::from(width) / (bounds.1 - bounds.0);
        let mut labels: Vec<(i64, String)> = Vec::new();
        for step in steps {
            let mut v = (bounds.0 / step).ceil() * step;
            while v <= bounds.1 {
                let label = bucket_label(v, n);
                if step * px > f64::from(BAR_LABEL_PX)
                    && !label.is_empty()
                    && !labels.iter().any(|(x, _)| *x == v as i64)
                {
                    labels.push((v as i64, label));
                }
                v += step;
            }
        }
        labels.sort();
        labels.into_iter().map(|l| l.1).collect()
    }

    /// Eight partitions in the Timeline's narrow "table at" chart (~300 px at 1024×768) were labelled "0" only.
    #[test]
    fn eight_partitions_are_each_numbered_on_a_narrow_chart() {
        assert_eq!(drawn(8, 300.0), ["0", "1", "2", "3", "4", "5", "6", "7"]);
        assert_eq!(drawn(8, 220.0).len(), 8);
        // Many: round steps, still more than one number.
        let many = drawn(64, 300.0);
        assert!(many.len() >= 6 && many[0] == "0", "{many:?}");
    }

    #[test]
    fn only_existing_buckets_are_numbered() {
        assert_eq!(bucket_label(15.0, 16), "15");
        assert_eq!(bucket_label(16.0, 16), "");
        assert_eq!(bucket_label(-1.0, 16), "");
        assert_eq!(bucket_label(2.5, 16), "");
    }
}
