//! What each trace reader is given ([`TraceCx`]): the file, the options, and where its records go (the trace
//! builder, CloudWatch's observed minutes, the units the per-key records cover per minute).

use std::collections::BTreeMap;
use std::path::Path;

use super::{ObservedMinute, ReadError, TraceFile, TraceOptions};
use crate::model::trace::{Dim, SortValue, TraceBuilder, TraceError};
use crate::source::{At, Message, OnBad, SourceError};

/// What each reader is given: the file, the options, and where its records go.
pub(crate) struct TraceCx<'a> {
    pub path: &'a Path,
    pub opts: &'a TraceOptions,
    pub builder: &'a mut TraceBuilder,
    pub file: &'a mut TraceFile,
    /// CloudWatch's minutes, by the minute's Unix second.
    pub observed: &'a mut BTreeMap<i64, ObservedMinute>,
    /// Read and write units of the per-key records, per minute (its Unix second).
    pub covered: &'a mut BTreeMap<i64, [f64; 2]>,
    /// Told how many of the file's bytes the reader has got through (a progress bar's), when someone asks.
    pub progress: Option<&'a dyn Fn(u64)>,
}

impl TraceCx<'_> {
    /// The reader got through the file's first `offset` bytes.
    pub fn parsed(&self, offset: usize) {
        if let Some(p) = self.progress {
            p(offset as u64);
        }
    }

    /// A bad record: an error, or skipped and counted with `--skip-bad`.
    pub fn bad(&mut self, at: At, what: impl Into<Message>) -> Result<(), SourceError> {
        match self.opts.on_bad {
            OnBad::Stop => Err(SourceError::record(self.path, at, what)),
            OnBad::Skip => {
                self.file.skipped += 1;
                Ok(())
            }
        }
    }

    /// A whole-file error, whatever `--skip-bad` says.
    pub fn fail(&self, what: impl Into<Message>) -> ReadError {
        ReadError::Source(SourceError::record(self.path, At::File, what))
    }

    /// A request of `units` at `micros`.
    pub fn add(
        &mut self,
        micros: i64,
        key: &[u8],
        sort_key: Option<SortValue>,
        dim: Dim,
        units: f64,
    ) -> Result<(), TraceError> {
        self.file.saw(micros);
        self.builder.add(micros, key, sort_key, dim, units)?;
        let minute = micros.div_euclid(60_000_000) * 60;
        self.covered.entry(minute).or_default()[dim_index(dim)] += units;
        Ok(())
    }

    /// `requests` requests of `units` in total to `key` over `[from, from + seconds)` (per-period sources).
    pub fn spread(
        &mut self,
        from: i64,
        seconds: u32,
        key: &[u8],
        dim: Dim,
        units: f64,
        requests: f64,
    ) -> Result<(), TraceError> {
        self.file.saw(from * 1_000_000);
        self.builder
            .spread(from, seconds, key, dim, units, requests)?;
        for (minute, share) in minutes_of(from, seconds) {
            self.covered.entry(minute).or_default()[dim_index(dim)] += units * share;
        }
        Ok(())
    }
}

pub(super) fn dim_index(dim: Dim) -> usize {
    usize::from(dim == Dim::Write)
}

/// The minutes (Unix seconds of their start) that `[from, from + seconds)` overlaps, each with its share of
/// the period.
pub(crate) fn minutes_of(from: i64, seconds: u32) -> Vec<(i64, f64)> {
    let seconds = i64::from(seconds.max(1));
    let end = from + seconds;
    let mut out = Vec::new();
    let mut minute = from.div_euclid(60) * 60;
    while minute < end {
        let overlap = (minute + 60).min(end) - minute.max(from);
        out.push((minute, overlap as f64 / seconds as f64));
        minute += 60;
    }
    out
}
