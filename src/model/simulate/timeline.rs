//! What the app's Timeline view draws: every partition over time, at a resolution a screen can show, streamed
//! while the simulation runs.
//!
//! A run is cut into **columns** of `column_seconds` (the step, or more for long runs so that there are at
//! most [`MAX_COLUMNS`]). Each column lists the partitions live during it in key-space order, each with the
//! start of its range; a split shows as one more start from that column on. Partitions never merge (R4), so
//! the union of all starts seen so far is the set of heatmap rows, and a row whose partition differs from the
//! row above's in a column is a boundary.
//!
//! Layouts (the starts) change rarely, so columns refer to a shared layout by index instead of repeating it:
//! 24 h × 1,000 partitions at 1 s is 1,800 columns of 48 s × 1,000 cells of 36 bytes (≈ 65 MB).

use super::{Event, Minute, Point, ThrottleCause};

/// At most this many columns in a run's timeline (a 24 h run at 1 s gets 48 s columns).
pub const MAX_COLUMNS: usize = 1_800;

/// The width of a column for a run of `duration` seconds stepped at `step`: the step, or the smallest
/// multiple of it that keeps the run within [`MAX_COLUMNS`].
pub fn column_seconds(duration: u32, step: u32) -> u32 {
    let step = step.max(1);
    let steps = duration.div_ceil(step).max(1) as usize;
    let per = steps.div_ceil(MAX_COLUMNS).max(1) as u32;
    step * per
}

/// One partition in one column: what it was asked for, what it served, what it threw back and why.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cell {
    /// The highest per-second demand during the column as a share of R1, per `[read, write]` (1.0 = 3,000 RCU
    /// or 1,000 WCU; a hot partition reads 3.0 = 300 %).
    pub peak_use: [f32; 2],
    /// Mean served units per second over the column, per `[read, write]`.
    pub served: [f32; 2],
    /// Mean throttled units per second over the column, per `[read, write]`.
    pub throttled: [f32; 2],
    /// Burst bank at the column's end, in units, per `[read, write]` (R2).
    pub bank: [f32; 2],
    /// The throttle reason that threw back the most units in the column, if any.
    pub reason: Option<(Dim, ThrottleCause)>,
}

/// Reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dim {
    Read,
    Write,
}

/// One column: its first second, which layout it uses, and one cell per partition of that layout, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Column {
    pub t: u32,
    /// Index into [`Timeline::layouts`].
    pub layout: usize,
    pub cells: Vec<Cell>,
}

/// A partition's range, as a layout lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Range {
    /// Start in the key space (hash, then place in one key's sort-key range); it ends where the next begins.
    pub start: Point,
    /// The first few keys whose hash falls in the range (names as the scenario gives them) and how many there
    /// are in all: for tooltips and the inspector. Shared by the layouts that keep the range: a busy day
    /// lays out ~1,900 ranges 89 times, and cloning their names was a third of laying them out.
    pub keys: std::sync::Arc<[String]>,
    pub key_count: usize,
}

/// The whole timeline so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub column_seconds: u32,
    /// The partition layouts in the order they appeared; a new one after every split.
    pub layouts: Vec<Vec<Range>>,
    pub columns: Vec<Column>,
}

/// What a running simulation reports as it goes: the columns, per-second series values, minutes and events
/// finished since the last chunk. Appending every chunk in order gives the run's [`Timeline`] and
/// [`super::Outcome`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chunk {
    /// Layouts first seen in this chunk (appended to [`Timeline::layouts`] in order).
    pub layouts: Vec<Vec<Range>>,
    pub columns: Vec<Column>,
    /// Series values for the steps finished in this chunk (same fields as [`super::Series`]).
    pub series: super::Series,
    pub minutes: Vec<Minute>,
    pub events: Vec<Event>,
    /// How far the run has got, in simulated seconds.
    pub done_seconds: u32,
    /// The run's column width ([`Timeline::column_seconds`]) and output step ([`super::Outcome::step_seconds`]),
    /// in every chunk.
    pub column_seconds: u32,
    pub step_seconds: u32,
    /// The partitions at the end of the run: in the last chunk only, empty before.
    pub final_partitions: Vec<super::FinalPartition>,
}

impl Timeline {
    /// Appends a chunk of a run (its layouts and columns), as a receiver rebuilds the run's timeline.
    pub fn push(&mut self, chunk: Chunk) {
        self.column_seconds = chunk.column_seconds;
        self.layouts.extend(chunk.layouts);
        self.columns.extend(chunk.columns);
    }

    /// The column holding second `t`, with its layout (the ranges its cells belong to, in order).
    pub fn column_at(&self, t: u32) -> Option<(&Column, &[Range])> {
        let i = (t / self.column_seconds.max(1)) as usize;
        let column = self.columns.get(i)?;
        let layout = self.layouts.get(column.layout)?;
        Some((column, layout.as_slice()))
    }

    /// Seconds covered so far.
    pub fn seconds(&self) -> u32 {
        self.columns.len() as u32 * self.column_seconds
    }
}

impl super::Outcome {
    /// Appends a chunk of a run (series, minutes, events; the final partitions from the last chunk), as a
    /// receiver rebuilds the run's outcome.
    pub fn push(&mut self, chunk: &Chunk) {
        self.step_seconds = chunk.step_seconds;
        self.series.append(&chunk.series);
        self.minutes.extend_from_slice(&chunk.minutes);
        self.events.extend_from_slice(&chunk.events);
        if !chunk.final_partitions.is_empty() {
            self.final_partitions.clone_from(&chunk.final_partitions);
        }
    }
}

impl super::Series {
    /// The points from index `from` on.
    pub fn slice(&self, from: usize) -> Self {
        let tail = |v: &[f64]| v.get(from..).unwrap_or_default().to_vec();
        Self {
            t: self.t.get(from..).unwrap_or_default().to_vec(),
            read_demand_units: tail(&self.read_demand_units),
            read_served_units: tail(&self.read_served_units),
            read_throttled_units: tail(&self.read_throttled_units),
            write_demand_units: tail(&self.write_demand_units),
            write_served_units: tail(&self.write_served_units),
            write_throttled_units: tail(&self.write_throttled_units),
            throttled_requests: tail(&self.throttled_requests),
            partitions: self.partitions.get(from..).unwrap_or_default().to_vec(),
        }
    }

    /// Appends `other`'s points.
    pub fn append(&mut self, other: &Self) {
        self.t.extend_from_slice(&other.t);
        self.read_demand_units
            .extend_from_slice(&other.read_demand_units);
        self.read_served_units
            .extend_from_slice(&other.read_served_units);
        self.read_throttled_units
            .extend_from_slice(&other.read_throttled_units);
        self.write_demand_units
            .extend_from_slice(&other.write_demand_units);
        self.write_served_units
            .extend_from_slice(&other.write_served_units);
        self.write_throttled_units
            .extend_from_slice(&other.write_throttled_units);
        self.throttled_requests
            .extend_from_slice(&other.throttled_requests);
        self.partitions.extend_from_slice(&other.partitions);
    }
}
