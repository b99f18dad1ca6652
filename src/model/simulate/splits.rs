//! Split-for-heat (R4) and splits for consumption (R5) or capacity (R6): where a partition divides, or why
//! nothing can divide its load; partitions never merge.

use rand::RngExt as _;

use super::super::capacity::{read_units, write_units};
use super::super::trace::{Dim, Trace};
use super::engine::{Part, Sim};
use super::keys::{mass, midpoint, overlap, overlap_hi, overlap_lo};
use super::{EventKind, Point, R1, READ, SortKey, WRITE, before};

/// Seconds of a trace a split divides: the last minute's traffic.
const TRACE_SPLIT_WINDOW: u32 = 60;

impl Sim<'_> {
    /// Split-for-heat (R4): sustained consumption near R1, never before `split_after` (+ jitter).
    pub(super) fn split_for_heat(&mut self, t: u32) {
        if !self.setup.table.split_for_heat {
            return;
        }
        // A second reused whole (nothing moved, nothing split since the last look) has the same hot
        // partitions as the last, and its cool ones forgot their heat then: only the hot ones need a look.
        // (Looking at every partition every second was a tenth of a busy day.)
        if !self.sec.fresh && self.heat_valid {
            let hot = std::mem::take(&mut self.heat_hot);
            for &p in &hot {
                if self.heat_one(p, t) {
                    // The indices after it moved: the rest is looked at as the full pass does.
                    self.heat_valid = false;
                    self.heat_pass(p + 2, t);
                    return;
                }
            }
            self.heat_hot = hot;
            return;
        }
        self.heat_hot.clear();
        self.heat_valid = self.heat_pass(0, t);
    }

    /// Every partition from `p` on: cool ones forget their heat, hot ones are looked at. Returns whether
    /// nothing split (the hot ones, from the first, are then in `heat_hot`).
    fn heat_pass(&mut self, mut p: usize, t: u32) -> bool {
        let setup = self.setup;
        let hot = [
            setup.params.split_hot_share * R1[READ],
            setup.params.split_hot_share * R1[WRITE],
        ];
        let mut whole = true;
        loop {
            // Cool partitions forget their heat (a tight loop: most partitions are cool most seconds).
            let (served, parts) = (&self.sec.served, &mut self.parts);
            while p < parts.len()
                && served
                    .get(p)
                    .is_none_or(|s| s[READ] < hot[READ] && s[WRITE] < hot[WRITE])
            {
                parts[p].hot_since = None;
                parts[p].skipped = false;
                p += 1;
            }
            if p >= parts.len() {
                break;
            }
            if self.heat_one(p, t) {
                // The new halves start cool; skip the one just made.
                whole = false;
                p += 2;
                continue;
            }
            if whole {
                self.heat_hot.push(p);
            }
            p += 1;
        }
        whole
    }

    /// A hot partition at second `t`: its heat starts, or it splits once it has lasted (or says why it
    /// cannot). Returns whether it split.
    fn heat_one(&mut self, p: usize, t: u32) -> bool {
        let setup = self.setup;
        let since = *self.parts[p].hot_since.get_or_insert(t);
        let due = since + setup.table.split_after + self.parts[p].jitter;
        if t + 1 < due || self.parts[p].skipped {
            return false;
        }
        match self.split_point(p, t) {
            Ok((point, where_)) => {
                let from = self.parts.len();
                self.split(p, point);
                let detail = format!(
                    "partition {p} split {where_} after {} s near its limit: from {from} to {} partitions",
                    t + 1 - since,
                    self.parts.len()
                );
                self.event(t, EventKind::Split, Some(p), detail);
                true
            }
            Err(why) => {
                self.parts[p].skipped = true;
                let detail = format!("split skipped: {why}");
                self.event(t, EventKind::SplitSkipped, Some(p), detail);
                false
            }
        }
    }

    /// Every key's traffic inside partition `p` at second `t`: (hash, mass point or the whole range, weight,
    /// kind, name), in key-space order.
    fn traffic_in(&self, p: usize, t: u32) -> Vec<(u64, Option<f64>, f64, SortKey, &str)> {
        let start = self.parts[p].start;
        let end = self.end_of(p);
        let mut items = Vec::new();
        let streams = self.setup.traffic.len();
        for (s, state) in self.streams.iter().take(streams).enumerate() {
            let stream = &self.setup.traffic[s];
            let units = stream.writes_per_sec.at(t)
                * write_units(stream.item_size, stream.consistency)
                / R1[WRITE]
                + stream.reads_per_sec.at(t) * read_units(stream.item_size, stream.consistency)
                    / R1[READ];
            let at = mass(stream.sort_key);
            // Only the atoms in the partition's hash range (by hash, then index: after the stable sort below
            // they stand as they would from every atom in index order).
            for a in state
                .between(start.0, end.map(|e| e.0))
                .iter()
                .map(|&i| &state.atoms[i as usize])
            {
                let share = overlap(a.hash, at, start, end);
                if share > 0.0 && units > 0.0 {
                    items.push((
                        a.hash,
                        at,
                        a.share * share * units,
                        stream.sort_key,
                        a.name.as_str(),
                    ));
                }
            }
        }
        if let Some(trace) = self.setup.trace.as_deref() {
            self.trace_in(trace, start, end, t, &mut items);
        }
        items.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.unwrap_or(0.0).total_cmp(&b.1.unwrap_or(0.0)))
        });
        items
    }

    /// The trace's keys inside `[start, end)` with their load over the last minute up to `t` (**\[ours\]**:
    /// a split divides the recent traffic, and one second of a trace is too sparse to judge it by).
    fn trace_in<'t>(
        &self,
        trace: &'t Trace,
        start: Point,
        end: Option<Point>,
        t: u32,
        items: &mut Vec<(u64, Option<f64>, f64, SortKey, &'t str)>,
    ) {
        let mut load: Vec<(u32, f64)> = Vec::new();
        for s in t.saturating_sub(TRACE_SPLIT_WINDOW - 1)..=t {
            for e in trace.at(s) {
                let r1 = match e.dim() {
                    Dim::Read => R1[READ],
                    Dim::Write => R1[WRITE],
                };
                load.push((e.key(), f64::from(e.units) / r1));
            }
        }
        load.sort_unstable_by_key(|&(k, _)| k);
        let seconds = f64::from(TRACE_SPLIT_WINDOW);
        for chunk in load.chunk_by(|a, b| a.0 == b.0) {
            let Some(key) = trace.keys.get(chunk[0].0 as usize) else {
                continue;
            };
            let at = mass(key.sort_key);
            let share = overlap(key.hash, at, start, end);
            let units: f64 = chunk.iter().map(|&(_, u)| u).sum::<f64>() / seconds;
            if share > 0.0 && units > 0.0 {
                items.push((key.hash, at, share * units, key.sort_key, key.name.as_str()));
            }
        }
    }

    /// The traffic median of partition `p` in the key space at second `t`, as a point to split at and where
    /// it is, or why no split can divide the load (R3, R4): a single hot item, a collection written in
    /// sort-key order, a collection on a table with an LSI.
    pub(super) fn split_point(&self, p: usize, t: u32) -> Result<(Point, String), String> {
        let start = self.parts[p].start;
        let end = self.end_of(p);
        let items = self.traffic_in(p, t);
        let total: f64 = items.iter().map(|i| i.2).sum();
        let inside = |point: Point| before(start, point) && end.is_none_or(|e| before(point, e));
        let mut acc = 0.0;
        for &(hash, at, w, kind, name) in &items {
            if acc + w < total / 2.0 {
                acc += w;
                continue;
            }
            if w < total / 2.0 {
                // Many keys: split between them, before the key where the median falls (or after it).
                let point = (hash, overlap_lo(hash, start));
                if inside(point) {
                    return Ok((point, format!("before {name}")));
                }
                let point = (hash.saturating_add(1), 0.0);
                if inside(point) {
                    return Ok((point, format!("after {name}")));
                }
            }
            // One key holds most of the load.
            if at.is_none() && !self.setup.table.lsi {
                // Random sort keys: split its item collection at its sort-key median (R4).
                let (lo, hi) = (overlap_lo(hash, start), overlap_hi(hash, end));
                let f = lo + (hi - lo) * ((total / 2.0 - acc) / w).clamp(0.01, 0.99);
                return Ok(((hash, f), format!("inside the item collection of {name}")));
            }
            // Hot items are isolated onto their own partition (R3), when others share it.
            for point in [
                (hash, overlap_lo(hash, start)),
                (hash.saturating_add(1), 0.0),
            ] {
                if items.len() > 1 && inside(point) {
                    return Ok((point, format!("isolating {name}")));
                }
            }
            return Err(if at.is_none() {
                format!(
                    "{name} is one item collection and the table has a local secondary index: item collections \
                     are never split"
                )
            } else {
                skip_reason(kind, name)
            });
        }
        Err("no traffic to divide".to_owned())
    }

    /// Splits partition `p` at `point`: the halves share its bank; neither is hot yet. Every split passes
    /// here (heat, consumption, capacity, size), so R8's next split is computed again afterwards.
    pub(super) fn split(&mut self, p: usize, point: Point) {
        self.size_stale = true;
        let jitter_max = self.setup.params.split_jitter_seconds;
        let bank = self.parts[p].bank;
        self.parts[p].bank = [bank[0] / 2.0, bank[1] / 2.0];
        self.parts[p].hot_since = None;
        self.parts[p].skipped = false;
        self.parts[p].settled = false;
        let jitter = self.rng.random_range(0..=jitter_max);
        self.parts[p].jitter = self.rng.random_range(0..=jitter_max);
        self.parts.insert(
            p + 1,
            Part {
                start: point,
                bank: [bank[0] / 2.0, bank[1] / 2.0],
                hot_since: None,
                jitter,
                skipped: false,
                exhausted: [false; 2],
                settled: false,
            },
        );
        if let Some(log) = &mut self.inserted {
            log.push(p + 1);
        }
        self.reweigh_split(p);
    }

    /// On-demand (R5 \[ours\]): enough partitions for the table's ceiling, splitting the busiest first.
    pub(super) fn grow_for(&mut self, t: u32, ceiling: [f64; 2]) {
        let needed =
            ((ceiling[READ] / R1[READ]).max(ceiling[WRITE] / R1[WRITE]) - 1e-6).ceil() as usize;
        if needed <= self.parts.len() {
            return;
        }
        let before_count = self.parts.len();
        let demand = &self.sec.demand;
        let load = |p: usize| demand.get(p).map_or(0.0, |d| d[0] / R1[0] + d[1] / R1[1]);
        let mut order: Vec<usize> = (0..self.parts.len()).collect();
        order.sort_by(|&a, &b| load(b).total_cmp(&load(a)));
        // Split from the highest index down, so earlier indices stay valid.
        let mut chosen: Vec<usize> = order.into_iter().take(needed - before_count).collect();
        chosen.sort_unstable_by(|a, b| b.cmp(a));
        for p in chosen {
            let point = match self.split_point(p, t) {
                Ok((point, _)) => point,
                Err(_) => midpoint(self.parts[p].start, self.end_of(p)),
            };
            if before(self.parts[p].start, point) && self.end_of(p).is_none_or(|e| before(point, e))
            {
                self.split(p, point);
            }
        }
        // Every partition's share may have changed: the next second is computed afresh.
        self.reweighed = true;
        let detail = format!(
            "from {} to {} partitions for consumption: the table may now serve {:.0} reads and {:.0} writes per \
             second (twice the previous peak)",
            before_count,
            self.parts.len(),
            ceiling[READ],
            ceiling[WRITE]
        );
        self.event(t, EventKind::Split, None, detail);
    }

    /// Provisioned capacity that needs more partitions (R6 applying, DYNAMODB-FACTS' formula): the widest
    /// ranges split at their middle (partitions for capacity, not heat). Returns the count before.
    pub(super) fn split_for_capacity(&mut self, needed: usize) -> usize {
        let from = self.parts.len();
        while self.parts.len() < needed {
            let p = (0..self.parts.len())
                .max_by_key(|&p| self.end_of(p).map_or(u64::MAX, |e| e.0) - self.parts[p].start.0)
                .unwrap_or(0);
            let point = midpoint(self.parts[p].start, self.end_of(p));
            if !before(self.parts[p].start, point) {
                break;
            }
            self.split(p, point);
        }
        self.reweighed = true;
        from
    }
}

pub(super) fn skip_reason(kind: SortKey, name: &str) -> String {
    match kind {
        SortKey::Monotonic => format!(
            "{name}'s sort key only increases: every new item lands at the end of its range, so no split divides \
             the writes"
        ),
        SortKey::SingleItem => format!("{name} is a single hot item: no split can divide one item"),
        SortKey::Random => format!("{name} cannot be divided further"),
    }
}
