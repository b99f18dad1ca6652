//! The Timeline line chart's axes: the time axis its plots share with the heatmap, and y axes whose 1-2-5
//! ticks stay readable on a short plot, as wide on every plot so that their frames line up.

use egui::Color32;
use egui_plot::{Line, Plot};

use super::Clock;
use crate::model::fmt::grouped;

/// The y axes' width for both plots, so that their frames (and the heatmap) line up: the widest tick label
/// of either, with egui_plot's margins, and the axis' own label beside it.
pub(super) fn y_axis_width(
    ui: &egui::Ui,
    rates: &[Line<'static>],
    counts: &[Line<'static>],
) -> f32 {
    use egui_plot::PlotItem as _;
    let highest = |lines: &[Line<'static>]| {
        lines
            .iter()
            .map(|l| l.bounds().max()[1])
            .filter(|y| y.is_finite())
            .fold(0.0, f64::max)
    };
    let label_w = |v: f64| {
        ui.painter()
            .layout_no_wrap(
                y_label((v * 1.05).ceil()),
                egui::TextStyle::Body.resolve(ui.style()),
                Color32::WHITE,
            )
            .size()
            .x
            + 12.0
    };
    let axis_label = ui.text_style_height(&egui::TextStyle::Body) * 1.5;
    label_w(highest(rates)).max(label_w(highest(counts))) + axis_label
}

/// What the line chart's plots share: the time axis (the heatmap's span and marks, the run's clock) and the
/// y axis' width.
#[derive(Clone, Copy)]
pub(super) struct TimeAxis {
    pub span: f64,
    pub step: f64,
    pub first: f64,
    pub clock: Clock,
    pub y_width: f32,
}

/// A plot of `h` points on the shared time axis, its y axis labelled `unit` with readable ticks.
pub(super) fn time_plot(id: &'static str, h: f32, unit: String, a: TimeAxis) -> Plot<'static> {
    let TimeAxis {
        span,
        step,
        first,
        clock,
        y_width,
    } = a;
    Plot::new((id, span.to_bits()))
        .height(h)
        .default_x_bounds(0.0, span)
        .include_y(0.0)
        .x_grid_spacer(move |_| {
            (0..)
                .map(|i| first + f64::from(i) * step)
                .take_while(|&t| t <= span)
                .map(|value| egui_plot::GridMark {
                    value,
                    step_size: step,
                })
                .collect()
        })
        .allow_scroll(false)
        .allow_drag(false)
        .allow_zoom(false)
        .x_axis_formatter(move |mark, _| clock.axis(mark.value.max(0.0) as u32))
        .custom_y_axes(vec![
            egui_plot::AxisHints::new_y()
                .label(unit)
                .formatter(|mark, _| y_label(mark.value))
                .min_thickness(y_width)
                .label_spacing(Y_LABEL_SPACING..=Y_LABEL_SPACING + 2.0),
        ])
        .y_grid_spacer(|input| y_marks(&input))
}

/// Points between two labelled y ticks, at least: labels of the body's size, readable on a chart of 60 px.
const Y_LABEL_SPACING: f32 = 18.0;

/// The y axis' marks: a 1-2-5 step whose labels are at least [`Y_LABEL_SPACING`] + 4 points apart, so a
/// short chart still shows its scale (egui_plot's powers of ten left only "0" on a chart ~80 px tall).
fn y_marks(input: &egui_plot::GridInput) -> Vec<egui_plot::GridMark> {
    // egui_plot's base step is the value of its smallest grid spacing, 8 points.
    let per_point = input.base_step_size / 8.0;
    let step = nice_step(per_point * f64::from(Y_LABEL_SPACING + 4.0));
    let (lo, hi) = input.bounds;
    if !(step.is_finite() && step > 0.0 && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .take(200)
        .map(|i| egui_plot::GridMark {
            value: i as f64 * step,
            step_size: step,
        })
        .collect()
}

/// The smallest of 1, 2, 5 × a power of ten that is at least `x`.
fn nice_step(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return 0.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= x * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A y tick's label: whole numbers grouped (`33,000`), else up to two decimals.
fn y_label(v: f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        let n = v.round();
        let sign = if n < 0.0 { "-" } else { "" };
        format!("{sign}{}", grouped(n.abs() as u64))
    } else {
        let t = format!("{v:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}
