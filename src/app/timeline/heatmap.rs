//! The heatmap: time (x) × partition in hash-range order (y), one texel per column and row, as one texture.
//!
//! Rows are the union of every partition start seen so far (partitions never merge, R4), so before a split
//! the two halves' rows show the same partition and after it a line divides them. The texture is filled
//! column by column as the run streams in; it is rebuilt whole only when a split adds a row or the colour
//! scale changes. Throttled cells are outlined (runs of them merged per row), which is a handful of shapes,
//! not one per cell.

use std::time::Duration;
use web_time::Instant;

use egui::{Color32, Rect, Sense, Stroke, pos2, vec2};

use super::{Drawing, Simulation, TimelineCommand};
use crate::app::theme;
use crate::model::simulate::{Cell, Point, Range, Timeline};

/// The texture's height is at most this many texels (more rows share texels).
const MAX_TEXTURE_ROWS: usize = 2048;
/// While a run streams in, the texture is uploaded at most this often.
const UPLOAD_EVERY: Duration = Duration::from_millis(200);
/// At most this many outlined throttled runs are drawn (a very split table shows its throttling by colour).
const MAX_OUTLINES: usize = 4000;

fn cmp(a: &Point, b: &Point) -> std::cmp::Ordering {
    a.0.cmp(&b.0).then(a.1.total_cmp(&b.1))
}

/// The index, in `layout`, of the partition whose range holds `p`.
pub(super) fn cell_of(layout: &[Range], p: Point) -> usize {
    layout
        .partition_point(|r| cmp(&r.start, &p) != std::cmp::Ordering::Greater)
        .saturating_sub(1)
}

/// The heatmap's rows and texture, kept between frames.
#[derive(Default)]
pub(super) struct Heat {
    /// Every partition start seen so far, in key-space order.
    pub(super) rows: Vec<Point>,
    layouts_seen: usize,
    image: Option<egui::ColorImage>,
    texture: Option<egui::TextureHandle>,
    /// Columns already painted into `image`.
    filled: usize,
    uploaded: usize,
    uploaded_at: Option<Instant>,
    relative: bool,
    /// The hottest cell's use, for the relative scale.
    scale: f32,
    /// Per row boundary (row ≥ 1): the first column where the row's partition differs from the row above's.
    dividers: Vec<Option<usize>>,
    /// Runs of throttled partitions: (top row, bottom row, first column, last column).
    throttled: Vec<(usize, usize, usize, usize)>,
}

/// A cell's use of its partition's limit: the higher of reads and writes (1.0 = 100 %).
pub(super) fn use_of(cell: &Cell) -> f32 {
    cell.peak_use[0].max(cell.peak_use[1])
}

fn throttled(cell: &Cell) -> bool {
    cell.throttled[0] + cell.throttled[1] > 0.0
}

/// The colour of a use: dark when idle, blue, amber from 80 %, red at 100 % and pink well above it.
pub(super) fn colour(u: f32) -> Color32 {
    const STOPS: [(f32, [u8; 3]); 6] = [
        (0.0, [0x10, 0x16, 0x24]),
        (0.3, [0x1f, 0x4e, 0x79]),
        (0.6, [0x3b, 0x82, 0xc4]),
        (0.8, [0xe0, 0x9a, 0x2b]),
        (1.0, [0xd6, 0x3a, 0x2f]),
        (3.0, [0xff, 0x5c, 0xa8]),
    ];
    let u = u.max(0.0);
    let mut prev = STOPS[0];
    for stop in STOPS {
        if u <= stop.0 {
            let f = if stop.0 > prev.0 {
                (u - prev.0) / (stop.0 - prev.0)
            } else {
                0.0
            };
            let mix = |i: usize| {
                (f32::from(prev.1[i]) + f * (f32::from(stop.1[i]) - f32::from(prev.1[i]))) as u8
            };
            return Color32::from_rgb(mix(0), mix(1), mix(2));
        }
        prev = stop;
    }
    let [r, g, b] = STOPS[STOPS.len() - 1].1;
    Color32::from_rgb(r, g, b)
}

impl Heat {
    /// Brings rows, texture and overlays up to date with the timeline (cheap when nothing arrived).
    fn refresh(&mut self, ctx: &egui::Context, t: &Timeline, columns: usize, relative: bool) {
        if t.layouts.len() != self.layouts_seen {
            self.layouts_seen = t.layouts.len();
            let mut rows: Vec<Point> = t.layouts.iter().flatten().map(|r| r.start).collect();
            rows.sort_by(cmp);
            rows.dedup_by(|a, b| cmp(a, b).is_eq());
            if rows != self.rows {
                self.rows = rows;
                self.reset();
            }
        }
        let hottest = t.columns[self.filled.min(t.columns.len())..]
            .iter()
            .flat_map(|c| c.cells.iter().map(use_of))
            .fold(self.scale, f32::max);
        if relative != self.relative || (relative && hottest > self.scale * 1.1) {
            self.relative = relative;
            self.reset();
        }
        self.scale = self.scale.max(hottest);
        let height = self.rows.len().clamp(1, MAX_TEXTURE_ROWS);
        let width = columns.max(1);
        let mut image = self
            .image
            .take()
            .unwrap_or_else(|| egui::ColorImage::filled([width, height], colour(0.0)));
        for (x, column) in t.columns.iter().enumerate().skip(self.filled) {
            let (Some(layout), true) = (t.layouts.get(column.layout), x < width) else {
                continue;
            };
            for y in 0..height {
                let row = y * self.rows.len() / height;
                let Some(cell) = column.cells.get(cell_of(layout, self.rows[row])) else {
                    continue;
                };
                let u = if self.relative {
                    use_of(cell) / self.scale.max(f32::MIN_POSITIVE)
                } else {
                    use_of(cell)
                };
                image.pixels[y * width + x] = colour(u);
            }
            self.mark(x, column, layout);
        }
        self.filled = t.columns.len();
        let image = self.image.insert(image);
        let due = self
            .uploaded_at
            .is_none_or(|at| at.elapsed() >= UPLOAD_EVERY);
        if self.filled != self.uploaded && (due || self.texture.is_none()) {
            let options = egui::TextureOptions::NEAREST;
            match &mut self.texture {
                Some(tex) => tex.set(image.clone(), options),
                None => {
                    self.texture = Some(ctx.load_texture("timeline-heat", image.clone(), options));
                }
            }
            self.uploaded = self.filled;
            self.uploaded_at = Some(Instant::now());
        }
    }

    /// Notes one column's split dividers and throttled partitions (a partition spans the rows from its start
    /// to the next partition's; its throttled columns merge into one outline while its span stays the same).
    fn mark(&mut self, x: usize, column: &crate::model::simulate::Column, layout: &[Range]) {
        self.dividers.resize(self.rows.len(), None);
        let mut spans: Vec<(usize, usize, usize)> = Vec::new();
        for (row, &start) in self.rows.iter().enumerate() {
            let i = cell_of(layout, start);
            match spans.last_mut() {
                Some(span) if span.2 == i => span.1 = row,
                _ => {
                    if row > 0 && self.dividers[row].is_none() {
                        self.dividers[row] = Some(x);
                    }
                    spans.push((row, row, i));
                }
            }
        }
        for (top, bottom, i) in spans {
            if !column.cells.get(i).is_some_and(throttled) {
                continue;
            }
            let room = self.throttled.len() < MAX_OUTLINES;
            match self
                .throttled
                .iter_mut()
                .rev()
                .find(|r| r.0 == top && r.1 == bottom)
            {
                Some(run) if run.3 + 1 == x => run.3 = x,
                _ if room => self.throttled.push((top, bottom, x, x)),
                _ => {}
            }
        }
    }

    fn reset(&mut self) {
        self.image = None;
        self.filled = 0;
        self.uploaded = usize::MAX;
        self.scale = 0.0;
        self.dividers.clear();
        self.throttled.clear();
    }
}

/// What the heatmap's colours mean, on the scale in use.
pub(super) fn legend_ui(ui: &mut egui::Ui, relative: bool) {
    use crate::app::histogram::swatch;
    ui.horizontal_wrapped(|ui| {
        let stops: [(f32, &str); 5] = if relative {
            [
                (0.0, "idle"),
                (0.6, "60 % of the hottest cell"),
                (0.8, "80 %"),
                (1.0, "the hottest cell"),
                (1.0, ""),
            ]
        } else {
            [
                (0.0, "idle"),
                (0.6, "60 % of the partition's limit"),
                (0.8, "80 %"),
                (1.0, "100 %: throttling"),
                (3.0, "300 %"),
            ]
        };
        for (u, text) in stops.into_iter().filter(|(_, t)| !t.is_empty()) {
            swatch(ui, colour(u), text);
        }
        let h = ui.text_style_height(&egui::TextStyle::Body) * 0.8;
        let (rect, _) = ui.allocate_exact_size(vec2(h * 1.4, h), Sense::hover());
        ui.painter().rect_filled(rect, 2.0, colour(1.0));
        ui.painter().rect_stroke(
            rect,
            0.0,
            Stroke::new(1.5, Color32::WHITE),
            egui::StrokeKind::Inside,
        );
        ui.label("throttled");
    });
}

/// Draws the heatmap in `height` points (with `drawing`'s texture, recording where in its rects); hovering
/// names the partition, clicking picks it and the time.
pub(super) fn heatmap_ui(
    ui: &mut egui::Ui,
    sim: &Simulation,
    drawing: &mut Drawing,
    height: f32,
    out: &mut Vec<TimelineCommand>,
) {
    let t = &sim.timeline;
    let columns = (sim.duration().div_ceil(t.column_seconds.max(1))) as usize;
    drawing.heat.refresh(ui.ctx(), t, columns, sim.relative);
    let rects = &mut drawing.rects;
    // Tick marks under it; the time labels are the line chart's, right below, on the same x.
    let axis = 6.0;
    let (rect, response) =
        ui.allocate_exact_size(vec2(ui.available_width(), height.max(60.0)), Sense::click());
    // The x range of the line chart's frame (last frame's), so both charts share one time axis.
    let (left, right) = rects
        .throughput
        .map_or((rect.left(), rect.right()), |f| (f.left(), f.right()));
    let map = Rect::from_min_max(
        pos2(left.max(rect.left()), rect.min.y),
        pos2(right.min(rect.right()), rect.max.y - axis),
    );
    let painter = ui.painter_at(rect);
    rects.heatmap = Some(map);
    rects.heat_seconds = f64::from(columns as u32 * t.column_seconds.max(1));
    painter.rect_filled(map, 0.0, colour(0.0));
    let heat = &drawing.heat;
    let rows = heat.rows.len().max(1);
    let (cw, rh) = (
        map.width() / columns.max(1) as f32,
        map.height() / rows as f32,
    );
    if let Some(tex) = &heat.texture {
        let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
        painter.image(tex.id(), map, uv, Color32::WHITE);
    }
    overlays_ui(&painter, heat, map, (cw, rh), sim.selected);
    let span = rects.heat_seconds;
    let label_px = ui.text_style_height(&egui::TextStyle::Small) * 6.0;
    let step = super::time_step(span, map.width(), label_px);
    let font = egui::TextStyle::Small.resolve(ui.style());
    time_axis(
        &painter,
        map,
        (span, step, super::first_mark(sim.setup(), step)),
        font,
        ui.visuals().weak_text_color(),
    );
    if let Some(pos) = response.hover_pos().filter(|p| map.contains(*p)) {
        let col = ((pos.x - map.left()) / cw) as usize;
        let row = (((pos.y - map.top()) / rh) as usize).min(rows - 1);
        if let Some(text) = cell_tooltip(sim, heat, col, row) {
            response.clone().on_hover_text_at_pointer(text);
        }
        if response.clicked() {
            // The cell's partition and the column's second; playing goes on from there.
            out.push(TimelineCommand::Pick(heat.rows.get(row).copied()));
            out.push(TimelineCommand::Seek(col as u32 * t.column_seconds.max(1)));
        }
    }
}

/// Split dividers (when rows are tall enough to see them), throttled partitions outlined, the picked one.
fn overlays_ui(
    painter: &egui::Painter,
    heat: &Heat,
    map: Rect,
    (cw, rh): (f32, f32),
    selected: Option<Point>,
) {
    let x_of = |col: usize| map.left() + col as f32 * cw;
    let y_of = |row: usize| map.top() + row as f32 * rh;
    if rh >= 3.0 {
        for (row, from) in heat.dividers.iter().enumerate() {
            if let Some(from) = from {
                let y = y_of(row);
                painter.line_segment(
                    [pos2(x_of(*from), y), pos2(map.right(), y)],
                    Stroke::new(1.0, Color32::from_gray(200)),
                );
            }
        }
    }
    for &(top, bottom, a, b) in &heat.throttled {
        let r = Rect::from_min_max(
            pos2(x_of(a), y_of(top)),
            pos2(x_of(b + 1), y_of(bottom + 1)),
        );
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(1.5, Color32::WHITE),
            egui::StrokeKind::Inside,
        );
    }
    if let Some(sel) = selected {
        let row = heat.rows.partition_point(|p| cmp(p, &sel).is_lt());
        let r = Rect::from_min_max(
            pos2(map.left(), y_of(row)),
            pos2(map.right(), y_of(row + 1)),
        );
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(1.0, theme::PATH),
            egui::StrokeKind::Outside,
        );
    }
}

/// Tick marks along the bottom at the line chart's time labels (`step` seconds apart over `span`), and what
/// the y axis is.
fn time_axis(
    painter: &egui::Painter,
    map: Rect,
    (span, step, first): (f64, f64, f64),
    font: egui::FontId,
    color: Color32,
) {
    let mut t = first;
    while t <= span && step > 0.0 {
        let x = map.left() + (t / span.max(1.0)) as f32 * map.width();
        painter.line_segment(
            [pos2(x, map.bottom()), pos2(x, map.bottom() + 5.0)],
            Stroke::new(1.0, color),
        );
        t += step;
    }
    painter.text(
        map.left_top() + vec2(4.0, 2.0),
        egui::Align2::LEFT_TOP,
        "partitions in hash-range order, top to bottom",
        font,
        Color32::from_gray(220),
    );
}

/// What the heatmap says under the pointer: the partition, its keys, its use and why it throttled.
fn cell_tooltip(sim: &Simulation, heat: &Heat, col: usize, row: usize) -> Option<String> {
    let t = &sim.timeline;
    let column = t.columns.get(col)?;
    let layout = t.layouts.get(column.layout)?;
    let i = cell_of(layout, *heat.rows.get(row)?);
    let cell = column.cells.get(i)?;
    let from = column.t;
    let until = from + t.column_seconds.max(1);
    Some(super::table::partition_text(
        layout,
        i,
        cell,
        Some((from, until)),
        sim.clock(),
    ))
}
