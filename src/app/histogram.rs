//! The live bucket histogram: a read-only view of already-computed counts.

use egui_plot::{Bar, BarChart, Plot};

use super::theme;
use crate::model::Report;
use crate::model::partition::Partitioner;
use crate::model::stats::{Analysis, share};

pub const HASH_CAPTION: &str = "teaching hash (xxh3), not DynamoDB's internal hash";

fn height(count: u64, log_scale: bool) -> f64 {
    if log_scale {
        (count as f64 + 1.0).log10()
    } else {
        count as f64
    }
}

fn tooltip(a: &Analysis, partitions: &Partitioner, bucket: usize) -> String {
    let count = a.buckets.get(bucket).copied().unwrap_or(0);
    let range = partitions.range(bucket);
    let mut text = format!(
        "bucket {bucket}\nhash range {:#018x} – {:#018x}\n{count} writes · {:.1} % of all",
        range.start(),
        range.end(),
        share(count, a.total) * 100.0
    );
    if let Some(top) = a.bucket_top.get(bucket) {
        for k in top {
            text.push_str(&format!(
                "\n  {} — {} ({:.1} %)",
                k.key,
                k.count,
                k.share * 100.0
            ));
        }
    }
    text
}

/// One-line summary above the chart.
pub fn headline(a: &Analysis) -> String {
    if a.total == 0 {
        return String::new();
    }
    format!(
        "hottest bucket {} = {:.0} % of writes ({:.1}× the mean) · Gini {:.2}",
        a.hottest_bucket,
        a.skew.hottest_bucket_share * 100.0,
        a.skew.max_over_mean,
        a.skew.gini
    )
}

/// Bars coloured by heat (count over the mean), each with its tooltip text.
fn heat_chart(name: &str, counts: &[u64], log_scale: bool, tooltips: Vec<String>) -> BarChart {
    let total: u64 = counts.iter().sum();
    let mean = total as f64 / counts.len().max(1) as f64;
    let bars = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let ratio = if mean > 0.0 { c as f64 / mean } else { 0.0 };
            Bar::new(i as f64, height(c, log_scale))
                .width(0.7)
                .fill(theme::heat(ratio))
        })
        .collect();
    BarChart::new(name, bars).element_formatter(Box::new(move |bar, _| {
        tooltips
            .get(bar.argument.round().max(0.0) as usize)
            .cloned()
            .unwrap_or_default()
    }))
}

/// A plot that shows bars as they are: no zoom, drag or scroll, y from zero, whole numbers on the axes (real
/// counts on a log scale), filling the panel.
fn fixed_plot<'a>(
    ui: &egui::Ui,
    id: &str,
    x_label: &str,
    y_label: &str,
    log_scale: bool,
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
        .include_y(0.0)
        .x_axis_label(x_label.to_owned())
        .y_axis_label(y_label)
        .x_grid_spacer(egui_plot::uniform_grid_spacer(|input| bucket_steps(&input)))
        .x_axis_formatter(|mark, _| {
            if mark.value.fract().abs() < 1e-9 && mark.value >= 0.0 {
                format!("{}", mark.value as u64)
            } else {
                String::new()
            }
        })
        .y_axis_formatter(move |mark, _| {
            if log_scale {
                format!("{:.0}", 10f64.powf(mark.value) - 1.0)
            } else {
                format!("{:.0}", mark.value)
            }
        })
        .height((ui.available_height() - 24.0).max(120.0))
}

/// Grid steps along the bucket axis: every bucket while there are few (so each bar is numbered), then 2, 5,
/// 10, 20, 50 … so that about 16 numbers fit.
fn bucket_steps(input: &egui_plot::GridInput) -> [f64; 3] {
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

/// Draws the histogram of `report` (ghost bars for the unsharded distribution when sharding is on).
pub fn plot_ui(ui: &mut egui::Ui, report: Option<&Report>, log_scale: bool) -> egui::Rect {
    let Some(report) = report.filter(|r| r.analysis.total > 0) else {
        let rect = ui.available_rect_before_wrap();
        ui.centered_and_justified(|ui| {
            ui.label(
                egui::RichText::new(
                    "No keys yet: paste keys into the editor, open a file (File > Open…), or pick one of the \
                     Examples.",
                )
                .size(16.0),
            );
        });
        return rect;
    };
    let a = &report.analysis;
    let partitions = Partitioner::equal(a.buckets.len());
    let tooltips: Vec<String> = (0..a.buckets.len())
        .map(|b| tooltip(a, &partitions, b))
        .collect();
    let chart = heat_chart("writes per bucket", &a.buckets, log_scale, tooltips);
    let ghost = report.unsharded.as_ref().map(|u| {
        let bars = u
            .buckets
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                Bar::new(i as f64, height(c, log_scale))
                    .width(0.9)
                    .fill(theme::GHOST)
            })
            .collect();
        BarChart::new("before sharding", bars).allow_hover(false)
    });
    let response = fixed_plot(ui, "histogram", "bucket", "writes", log_scale).show(ui, |plot| {
        if let Some(g) = ghost {
            plot.add(g);
        }
        plot.add(chart);
    });
    let rect = response.response.rect;
    ui.label(egui::RichText::new(HASH_CAPTION).small().weak());
    rect
}

/// Items per S3 export data file: the export's real grouping by partition (not the teaching hash).
pub fn groups_ui(
    ui: &mut egui::Ui,
    groups: &[crate::source::Group],
    log_scale: bool,
) -> egui::Rect {
    let counts: Vec<u64> = groups.iter().map(|g| g.items).collect();
    let total: u64 = counts.iter().sum();
    let names: Vec<String> = groups
        .iter()
        .map(|g| {
            format!(
                "{}\n{} items · {:.1} %",
                g.name,
                g.items,
                share(g.items, total) * 100.0
            )
        })
        .collect();
    let chart = heat_chart("items per data file", &counts, log_scale, names);
    let response = fixed_plot(ui, "data-files", "export data file", "items", log_scale)
        .show(ui, |plot| plot.add(chart));
    ui.label(
        egui::RichText::new(
            "real grouping of this S3 export: one data file per partition key range",
        )
        .small()
        .weak(),
    );
    response.response.rect
}

/// Each partition's demand as % of its capacity (the larger of reads and writes), the 100 % limit drawn as a
/// line, bars over it in the hot colour.
pub fn capacity_ui(ui: &mut egui::Ui, capacity: &crate::model::capacity::Capacity) -> egui::Rect {
    use crate::model::capacity::percent;
    let util = capacity.utilisation();
    let tooltips: Vec<String> = capacity
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "partition {i}\nreads {:.0} units/s ({}), writes {:.0} units/s ({})\nthrottled: {:.0} read, {:.0} write units/s",
                p.read_units,
                percent(p.read_util),
                p.write_units,
                percent(p.write_util),
                p.throttled_read_units,
                p.throttled_write_units
            )
        })
        .collect();
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
    let chart = BarChart::new("% of partition capacity", bars).element_formatter(Box::new(
        move |bar, _| {
            tooltips
                .get(bar.argument.round().max(0.0) as usize)
                .cloned()
                .unwrap_or_default()
        },
    ));
    let limit = egui_plot::HLine::new("partition limit (100 %)", 100.0).color(theme::HOT);
    let response = fixed_plot(
        ui,
        "capacity",
        "partition",
        "% of partition capacity",
        false,
    )
    .include_y(110.0)
    .show(ui, |plot| {
        plot.add(chart);
        plot.add(limit);
    });
    ui.label(
        egui::RichText::new(format!(
            "{} partitions ({}); each serves 3,000 read and 1,000 write units/s · {HASH_CAPTION}",
            capacity.partition_count,
            capacity.partitions_from.describe()
        ))
        .small()
        .weak(),
    );
    response.response.rect
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
}
