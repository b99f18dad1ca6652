//! "The table at 00:08:12": the partitions at the playhead as bars ([`snapshot_ui`]) and one partition in the
//! inspector ([`inspector_ui`]: its range, its use over the run, its hottest keys and their rates).

use egui::RichText;
use egui_plot::{Bar, BarChart, HLine, Plot};

use super::charts::{dim, unit};
use super::heatmap::{cell_of, use_of};
use super::{Clock, Rects, Simulation, TimelineCommand};
use crate::app::theme;
use crate::model::fmt::{grouped, plural};
use crate::model::simulate::{Cell, Dim, Range};
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
    throttled_keys_ui(ui, sim, &column.cells, layout);
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

/// A replay with Contributor Insights' throttled-keys reports: the keys it observed throttled in the period
/// at the playhead, beside the keys of the partitions the model throttles there. Nothing for other runs.
fn throttled_keys_ui(ui: &mut egui::Ui, sim: &Simulation, cells: &[Cell], layout: &[Range]) {
    let Some(replay) = sim.replay().filter(|r| !r.throttled.is_empty()) else {
        return;
    };
    let now = sim.setup().start + i64::from(sim.second());
    let observed = match replay.throttled.iter().find(|p| p.holds(now)) {
        Some(p) => {
            let top: Vec<String> = p
                .keys
                .iter()
                .take(5)
                .map(|(k, n)| format!("{k} ({})", grouped(n.round() as u64)))
                .collect();
            format!(
                "Most throttled keys observed (Contributor Insights, {} from {}): {}",
                plural(u64::from(p.seconds), "second"),
                crate::model::trace::iso(p.start),
                top.join(", ")
            )
        }
        None => {
            "Most throttled keys observed (Contributor Insights): none in this period".to_owned()
        }
    };
    let mut modelled: Vec<&str> = cells
        .iter()
        .zip(layout)
        .filter(|(c, _)| c.throttled[0] + c.throttled[1] > 0.0)
        .flat_map(|(_, r)| r.keys.iter().map(String::as_str))
        .take(5)
        .collect();
    modelled.dedup();
    let model = if modelled.is_empty() {
        "The model throttles no partition here".to_owned()
    } else {
        format!(
            "The model throttles partitions holding: {}",
            modelled.join(", ")
        )
    };
    ui.label(observed);
    ui.label(model);
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
