//! A table over time, second by second: burst capacity, adaptive capacity, split-for-heat, on-demand growth
//! and provisioned auto scaling, from the rules in `shared/DYNAMODB-TIME.md` (R1–R7). Pure and deterministic
//! for a seed.
//!
//! Each rule is cited where it is encoded; every choice the documentation does not make is marked **[ours]**
//! and is a named field of [`Params`] with its default.
//!
//! **Partitions** are ranges of a two-level key space: the 64-bit teaching hash of the partition key, then, for
//! one key, a position in `[0, 1)` of its sort-key range. They start as the equal hash ranges of
//! [`crate::model::partition::Partitioner::equal`]; split-for-heat divides one at the traffic median of its
//! range, which can fall *inside* one key's item collection (R4: "an item collection can be split by sort
//! key"), and partitions never merge. A key's writes sit in that space by its sort key: spread over its whole
//! range (random sort keys), at the end of it (only increasing: every new item is the greatest), or at one
//! point (a single item).

use rand::RngExt as _;
use rand::SeedableRng as _;

use super::capacity::{
    PARTITION_READ_UNITS, PARTITION_WRITE_UNITS, ThrottleCause, read_units, write_units,
};
use super::partition::{Partitioner, key_hash};

mod setup;
mod timeline;

/// R1: one partition's read and write ceilings (units per second), never lifted.
const R1: [f64; 2] = [PARTITION_READ_UNITS, PARTITION_WRITE_UNITS];
/// Where the writes of an only-increasing collection land: the end of its sort-key range.
const MONOTONIC_AT: f64 = 1.0 - 1e-9;
/// Where a single item sits in its key's sort-key range.
const SINGLE_ITEM_AT: f64 = 0.5;
const READ: usize = 0;
const WRITE: usize = 1;

pub use setup::*;
pub use timeline::*;

/// A position in the key space: hash, then place in that key's sort-key range.
pub type Point = (u64, f64);

fn before(a: Point, b: Point) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// One key of a stream: where it is and its share of the stream.
#[derive(Debug, Clone)]
struct Atom {
    hash: u64,
    share: f64,
    name: String,
}

#[derive(Debug, Clone)]
struct Part {
    start: Point,
    bank: [f64; 2],
    /// Since when it has consumed at least `split_hot_share` of R1 without a break.
    hot_since: Option<u32>,
    /// Seeded extra delay before its split (R4: the jitter only delays).
    jitter: u32,
    /// Why its last split was skipped (said once, until it cools down).
    skipped: bool,
    /// Its bank ran dry while it was drawing (said once, until it refills).
    exhausted: bool,
}

struct StreamState {
    atoms: Vec<Atom>,
    /// (partition, share of the stream) for the current partitions.
    weights: Vec<(usize, f64)>,
    day: i64,
}

/// `YYYY-MM-DD` of a Unix day number (days since 1970-01-01), by the civil-from-days algorithm.
pub fn date_of_day(day: i64) -> String {
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}")
}

/// A key that the teaching hash puts in partition `p` of `n` equal ones: `P{p}-{i}` for the first `i` that
/// lands there.
pub fn key_in_partition(p: usize, n: usize) -> String {
    let parts = Partitioner::equal(n);
    let p = p.min(n.saturating_sub(1));
    (0u64..)
        .map(|i| format!("P{p}-{i}"))
        .find(|k| parts.partition_of(key_hash(k.as_bytes())) == p)
        .unwrap_or_default()
}

fn atoms_of(keys: &Keys, day: i64, partitions: usize) -> Vec<Atom> {
    let atom = |name: String, share: f64| Atom {
        hash: key_hash(name.as_bytes()),
        share,
        name,
    };
    match keys {
        Keys::One(k) => vec![atom(k.replace("{date}", &date_of_day(day)), 1.0)],
        Keys::Weighted(list) => {
            let total: f64 = list.iter().map(|(_, w)| w.max(0.0)).sum();
            list.iter()
                .filter(|(_, w)| *w > 0.0)
                .map(|(k, w)| {
                    atom(
                        k.replace("{date}", &date_of_day(day)),
                        w / total.max(f64::MIN_POSITIVE),
                    )
                })
                .collect()
        }
        Keys::Uniform(n) => {
            let share = 1.0 / f64::from((*n).max(1));
            (0..(*n).max(1))
                .map(|i| atom(format!("key#{i}"), share))
                .collect()
        }
        Keys::InPartition(p) => vec![atom(key_in_partition(*p, partitions), 1.0)],
    }
}

/// Where a key's mass sits in its sort-key range: a point, or the whole range.
fn mass(sort_key: SortKey) -> Option<f64> {
    match sort_key {
        SortKey::Random => None,
        SortKey::Monotonic => Some(MONOTONIC_AT),
        SortKey::SingleItem => Some(SINGLE_ITEM_AT),
    }
}

/// The share of a key at `hash` (mass `at`, or the whole range) inside `[start, end)`.
fn overlap(hash: u64, at: Option<f64>, start: Point, end: Option<Point>) -> f64 {
    let inside = |p: Point| !before(p, start) && end.is_none_or(|e| before(p, e));
    match at {
        Some(f) => f64::from(u8::from(inside((hash, f)))),
        None => {
            let lo = if start.0 < hash {
                0.0
            } else if start.0 == hash {
                start.1
            } else {
                1.0
            };
            let hi = match end {
                None => 1.0,
                Some(e) if e.0 > hash => 1.0,
                Some(e) if e.0 == hash => e.1,
                Some(_) => 0.0,
            };
            (hi.min(1.0) - lo.max(0.0)).max(0.0)
        }
    }
}

struct Sim<'a> {
    setup: &'a Setup,
    parts: Vec<Part>,
    streams: Vec<StreamState>,
    rng: rand_pcg::Pcg64,
    /// Provisioned units now, and a pending change (time it applies, units).
    provisioned: [f64; 2],
    pending: Option<(u32, [f64; 2])>,
    previous_peak: [f64; 2],
    /// The highest per-minute served average not yet adopted, and when it was reached.
    candidate_peak: [(f64, u32); 2],
    above_minutes: [u32; 2],
    below_minutes: [u32; 2],
    decreases_today: (i64, u32),
    events: Vec<Event>,
    /// The partitions or the keys changed since demand was last computed.
    reweighed: bool,
}

impl<'a> Sim<'a> {
    fn new(setup: &'a Setup) -> Self {
        let t = &setup.table;
        let (provisioned, previous_peak) = match &t.billing {
            Billing::Provisioned { units } => (*units, [0.0; 2]),
            Billing::OnDemand { previous_peak, .. } => ([0.0; 2], *previous_peak),
        };
        let count = t.partitions.unwrap_or_else(|| match &t.billing {
            // DYNAMODB-FACTS: provisioned partitions = ⌈RCU / 3,000 + WCU / 1,000⌉.
            Billing::Provisioned { units } => {
                (units[READ] / R1[READ] + units[WRITE] / R1[WRITE]).ceil() as usize
            }
            // R5: warm throughput is twice the previous peak; a new table's is 4 partitions.
            Billing::OnDemand { previous_peak, .. } => (2.0 * previous_peak[READ] / R1[READ])
                .max(2.0 * previous_peak[WRITE] / R1[WRITE])
                .ceil() as usize,
        });
        let count = count.clamp(1, super::capacity::MAX_PARTITIONS * 64);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(setup.seed);
        let equal = Partitioner::equal(count);
        let mut parts = Vec::with_capacity(count);
        for i in 0..count {
            parts.push(Part {
                start: (*equal.range(i).start(), 0.0),
                bank: [0.0; 2],
                hot_since: None,
                jitter: rng.random_range(0..=setup.params.split_jitter_seconds),
                skipped: false,
                exhausted: false,
            });
        }
        let day0 = setup.start.div_euclid(86_400);
        let streams = setup
            .traffic
            .iter()
            .map(|s| StreamState {
                atoms: atoms_of(&s.keys, day0, count),
                weights: Vec::new(),
                day: day0,
            })
            .collect();
        let mut sim = Self {
            setup,
            parts,
            streams,
            rng,
            provisioned,
            pending: None,
            previous_peak,
            candidate_peak: [(0.0, 0); 2],
            above_minutes: [0; 2],
            below_minutes: [0; 2],
            decreases_today: (day0, 0),
            events: Vec::new(),
            reweighed: true,
        };
        // R2: idle time before the start fills each bank with the unused allocation, up to 300 s of it.
        let idle = f64::from(t.idle_before);
        let n = sim.parts.len();
        for p in 0..n {
            for dim in [READ, WRITE] {
                let alloc = sim.allocation(dim, n);
                sim.parts[p].bank[dim] = (idle * alloc).min(setup.params.burst_seconds * alloc);
            }
        }
        sim.reweigh();
        sim
    }

    /// A partition's allocated rate: its share of the provisioned units, or (on-demand) its ceiling.
    fn allocation(&self, dim: usize, n: usize) -> f64 {
        match &self.setup.table.billing {
            Billing::Provisioned { .. } => self.provisioned[dim] / n as f64,
            Billing::OnDemand { .. } => R1[dim],
        }
    }

    fn end_of(&self, p: usize) -> Option<Point> {
        self.parts.get(p + 1).map(|n| n.start)
    }

    /// Recomputes each stream's shares per partition (after a split or a key rotation).
    fn reweigh(&mut self) {
        let starts: Vec<Point> = self.parts.iter().map(|p| p.start).collect();
        for (s, state) in self.streams.iter_mut().enumerate() {
            let at = mass(self.setup.traffic[s].sort_key);
            let mut w: Vec<(usize, f64)> = Vec::new();
            for a in &state.atoms {
                // The first partition that can hold the key's range.
                let first = starts
                    .partition_point(|&st| !before((a.hash, 0.0), st) && st != (a.hash, 0.0))
                    .saturating_sub(1);
                let mut p = first;
                while p < starts.len() {
                    let start = starts[p];
                    if start.0 > a.hash {
                        break;
                    }
                    let end = starts.get(p + 1).copied();
                    let share = overlap(a.hash, at, start, end);
                    if share > 0.0 {
                        w.push((p, a.share * share));
                    }
                    p += 1;
                }
            }
            w.sort_by_key(|&(p, _)| p);
            let mut merged: Vec<(usize, f64)> = Vec::with_capacity(w.len());
            for (p, x) in w {
                match merged.last_mut() {
                    Some(last) if last.0 == p => last.1 += x,
                    _ => merged.push((p, x)),
                }
            }
            state.weights = merged;
        }
        self.reweighed = true;
    }

    fn event(&mut self, t: u32, kind: EventKind, partition: Option<usize>, detail: String) {
        self.events.push(Event {
            t,
            kind,
            partition,
            detail,
        });
    }

    /// The traffic median of partition `p` in the key space at second `t`, as a point to split at and where
    /// it is, or why no split can divide the load (R3, R4): a single hot item, a collection written in
    /// sort-key order, a collection on a table with an LSI.
    fn split_point(&self, p: usize, t: u32) -> Result<(Point, String), String> {
        let start = self.parts[p].start;
        let end = self.end_of(p);
        // Every key's traffic inside this partition: (hash, mass point or the whole range, weight, kind, name).
        let mut items: Vec<(u64, Option<f64>, f64, SortKey, &str)> = Vec::new();
        for (s, state) in self.streams.iter().enumerate() {
            let stream = &self.setup.traffic[s];
            let units = stream.writes_per_sec.at(t)
                * write_units(stream.item_size, stream.consistency)
                / R1[WRITE]
                + stream.reads_per_sec.at(t) * read_units(stream.item_size, stream.consistency)
                    / R1[READ];
            let at = mass(stream.sort_key);
            for a in &state.atoms {
                let share = overlap(a.hash, at, start, end);
                if share > 0.0 && units > 0.0 {
                    items.push((
                        a.hash,
                        at,
                        a.share * share * units,
                        stream.sort_key,
                        &a.name,
                    ));
                }
            }
        }
        items.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.unwrap_or(0.0).total_cmp(&b.1.unwrap_or(0.0)))
        });
        let total: f64 = items.iter().map(|i| i.2).sum();
        let mut acc = 0.0;
        for &(hash, at, w, kind, name) in &items {
            if acc + w < total / 2.0 {
                acc += w;
                continue;
            }
            let inside =
                |point: Point| before(start, point) && end.is_none_or(|e| before(point, e));
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

    /// Splits partition `p` at `point`: the halves share its bank; neither is hot yet.
    fn split(&mut self, p: usize, point: Point) {
        let bank = self.parts[p].bank;
        self.parts[p].bank = [bank[0] / 2.0, bank[1] / 2.0];
        self.parts[p].hot_since = None;
        self.parts[p].skipped = false;
        let jitter = self
            .rng
            .random_range(0..=self.setup.params.split_jitter_seconds);
        self.parts[p].jitter = self
            .rng
            .random_range(0..=self.setup.params.split_jitter_seconds);
        self.parts.insert(
            p + 1,
            Part {
                start: point,
                bank: [bank[0] / 2.0, bank[1] / 2.0],
                hot_since: None,
                jitter,
                skipped: false,
                exhausted: false,
            },
        );
    }

    /// On-demand (R5 [ours]): enough partitions for the table's ceiling, splitting the busiest first.
    fn grow_for(&mut self, t: u32, ceiling: [f64; 2], demand: &[[f64; 2]]) {
        let needed =
            ((ceiling[READ] / R1[READ]).max(ceiling[WRITE] / R1[WRITE]) - 1e-6).ceil() as usize;
        if needed <= self.parts.len() {
            return;
        }
        let before_count = self.parts.len();
        let mut order: Vec<usize> = (0..self.parts.len()).collect();
        order.sort_by(|&a, &b| {
            let da = demand.get(a).map_or(0.0, |d| d[0] / R1[0] + d[1] / R1[1]);
            let db = demand.get(b).map_or(0.0, |d| d[0] / R1[0] + d[1] / R1[1]);
            db.total_cmp(&da)
        });
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
        self.reweigh();
        let detail = format!(
            "{} → {} partitions for consumption: the table may now serve {:.0} reads and {:.0} writes per \
             second (twice the previous peak)",
            before_count,
            self.parts.len(),
            ceiling[READ],
            ceiling[WRITE]
        );
        self.event(t, EventKind::Split, None, detail);
    }
}

fn overlap_lo(hash: u64, start: Point) -> f64 {
    if start.0 == hash { start.1 } else { 0.0 }
}

fn overlap_hi(hash: u64, end: Option<Point>) -> f64 {
    match end {
        Some(e) if e.0 == hash => e.1,
        _ => 1.0,
    }
}

fn midpoint(start: Point, end: Option<Point>) -> Point {
    let end_hash = end.map_or(u64::MAX, |e| e.0);
    (start.0 + (end_hash - start.0) / 2, 0.0)
}

fn skip_reason(kind: SortKey, name: &str) -> String {
    match kind {
        SortKey::Monotonic => format!(
            "{name}'s sort key only increases: every new item lands at the end of its range, so no split divides \
             the writes"
        ),
        SortKey::SingleItem => format!("{name} is a single hot item: no split can divide one item"),
        SortKey::Random => format!("{name} cannot be divided further"),
    }
}

fn reason_name(dim: usize, cause: ThrottleCause) -> String {
    format!(
        "Table{}{}",
        if dim == READ { "Read" } else { "Write" },
        cause.as_str()
    )
}

/// Runs `setup` and returns its series, minutes, events and final partitions.
pub fn run(setup: &Setup) -> Outcome {
    let mut sim = Sim::new(setup);
    let params = &setup.params;
    let step = setup.step.max(1);
    let mut out = Outcome {
        step_seconds: step,
        ..Outcome::default()
    };
    // Per-step accumulators of the series.
    let mut acc = [0.0f64; 7];
    let mut minute = Minute::default();
    let mut minute_served = [0.0f64; 2];
    let mut reasons: Vec<(String, f64)> = Vec::new();
    let mut demand: Vec<[f64; 2]> = Vec::new();
    let mut requests: Vec<[f64; 2]> = Vec::new();
    let mut last_rates: Vec<[f64; 2]> = Vec::new();
    // The last computed second, reused while nothing changes.
    let mut served: Vec<[f64; 2]> = Vec::new();
    let mut sums = [0.0f64; 7];
    let mut sec_events = [0.0f64; 2];
    let mut sec_reasons: Vec<(usize, ThrottleCause, f64)> = Vec::new();
    let mut stable = false;
    for t in 0..setup.duration {
        // A day key rotates at midnight (the simulated clock).
        let day = (setup.start + i64::from(t)).div_euclid(86_400);
        let mut rotated = Vec::new();
        for (s, state) in sim.streams.iter_mut().enumerate() {
            if state.day != day {
                state.day = day;
                if let Keys::One(k) = &setup.traffic[s].keys
                    && k.contains("{date}")
                {
                    state.atoms = atoms_of(&setup.traffic[s].keys, day, 1);
                    rotated.push(state.atoms[0].name.clone());
                }
            }
        }
        if !rotated.is_empty() {
            sim.reweigh();
            for name in rotated {
                sim.event(
                    t,
                    EventKind::KeyRotated,
                    None,
                    format!("midnight: the key is now {name}"),
                );
            }
        }
        // Auto scaling's pending change applies (R6).
        if let Some((at, units)) = sim.pending
            && t >= at
        {
            sim.pending = None;
            sim.provisioned = units;
            // Every partition's share changed: compute the next second afresh.
            sim.reweighed = true;
            let needed = (units[READ] / R1[READ] + units[WRITE] / R1[WRITE]).ceil() as usize;
            let mut detail = format!(
                "provisioned capacity is now {:.0} RCU and {:.0} WCU",
                units[READ], units[WRITE]
            );
            if needed > sim.parts.len() {
                let from = sim.parts.len();
                while sim.parts.len() < needed {
                    // Split the widest range at its middle (partitions for capacity, not heat).
                    let p = (0..sim.parts.len())
                        .max_by_key(|&p| {
                            sim.end_of(p).map_or(u64::MAX, |e| e.0) - sim.parts[p].start.0
                        })
                        .unwrap_or(0);
                    let point = midpoint(sim.parts[p].start, sim.end_of(p));
                    if !before(sim.parts[p].start, point) {
                        break;
                    }
                    sim.split(p, point);
                }
                sim.reweigh();
                detail.push_str(&format!(
                    "; {from} → {} partitions for the new capacity",
                    sim.parts.len()
                ));
            }
            sim.event(t, EventKind::Scale, None, detail);
        }

        // 1. Demand per partition (units and requests): recomputed only when a rate or the partitions change.
        let n = sim.parts.len();
        let rates: Vec<[f64; 2]> = setup
            .traffic
            .iter()
            .map(|stream| {
                if t < stream.from || stream.until.is_some_and(|u| t >= u) {
                    [0.0; 2]
                } else {
                    [stream.reads_per_sec.at(t), stream.writes_per_sec.at(t)]
                }
            })
            .collect();
        let mut demand_changed = false;
        if sim.reweighed || rates != last_rates || demand.len() != n {
            demand_changed = true;
            sim.reweighed = false;
            demand.clear();
            demand.resize(n, [0.0; 2]);
            requests.clear();
            requests.resize(n, [0.0; 2]);
            for (s, stream) in setup.traffic.iter().enumerate() {
                let rate = rates[s];
                let unit = [
                    read_units(stream.item_size, stream.consistency),
                    write_units(stream.item_size, stream.consistency),
                ];
                for &(p, share) in &sim.streams[s].weights {
                    for dim in [READ, WRITE] {
                        demand[p][dim] += rate[dim] * share * unit[dim];
                        requests[p][dim] += rate[dim] * share;
                    }
                }
            }
            last_rates = rates;
        }

        // 2. What each partition may serve. A second like the one before (same demand, banks that did not
        // move, nothing happened) is not computed again: its results are reused.
        if demand_changed || !stable {
            let events_before = sim.events.len();
            let banks_before: Vec<[f64; 2]> = sim.parts.iter().map(|p| p.bank).collect();
            served.clear();
            served.resize(n, [0.0; 2]);
            let mut throttled_by: Vec<[(f64, ThrottleCause, f64); 2]> = Vec::with_capacity(n);
            // R1 (and the combined switch): what a partition could serve at most.
            let wanted: Vec<[f64; 2]> = demand
                .iter()
                .map(|d| {
                    let mut w = [d[READ].min(R1[READ]), d[WRITE].min(R1[WRITE])];
                    if setup.table.limits == Limits::Combined {
                        let load = w[READ] / R1[READ] + w[WRITE] / R1[WRITE];
                        if load > 1.0 {
                            w = [w[READ] / load, w[WRITE] / load];
                        }
                    }
                    w
                })
                .collect();
            let mut table_cause = [ThrottleCause::ProvisionedThroughputExceeded; 2];
            for dim in [READ, WRITE] {
                match &setup.table.billing {
                    Billing::Provisioned { .. } => {
                        let share = sim.allocation(dim, n);
                        let cap = sim.provisioned[dim];
                        let base: Vec<f64> = wanted.iter().map(|w| w[dim].min(share)).collect();
                        let alloc: Vec<f64> = if setup.table.adaptive_capacity {
                            // R3: a partition over its share borrows, instantly, what the others leave unused of
                            // the table's provisioned total, up to R1.
                            let spare = (cap - base.iter().sum::<f64>()).max(0.0);
                            let excess: Vec<f64> =
                                wanted.iter().zip(&base).map(|(w, b)| w[dim] - b).collect();
                            let want: f64 = excess.iter().sum();
                            let give = if want > 0.0 {
                                (spare / want).min(1.0)
                            } else {
                                0.0
                            };
                            base.iter()
                                .zip(&excess)
                                .map(|(b, e)| b + e * give)
                                .collect()
                        } else {
                            base
                        };
                        for p in 0..n {
                            // R2: what is still unmet is drawn from the partition's own burst bank.
                            let unmet = (wanted[p][dim] - alloc[p]).max(0.0);
                            let draw = unmet.min(sim.parts[p].bank[dim]);
                            served[p][dim] = alloc[p] + draw;
                            sim.parts[p].bank[dim] -= draw;
                            let unused = (share - served[p][dim]).max(0.0);
                            sim.parts[p].bank[dim] =
                                (sim.parts[p].bank[dim] + unused).min(params.burst_seconds * share);
                        }
                        table_cause[dim] = if setup.table.adaptive_capacity {
                            ThrottleCause::ProvisionedThroughputExceeded
                        } else {
                            // [ours] Before adaptive capacity the partition's share is its limit.
                            ThrottleCause::KeyRangeThroughputExceeded
                        };
                    }
                    Billing::OnDemand { quota, max, .. } => {
                        // R5: twice the previous peak at once, within the quota and the maximum.
                        let doubled = 2.0 * sim.previous_peak[dim];
                        let mut ceiling = doubled.min(quota[dim]);
                        // [ours] Past twice the peak, throttling shows on the partitions that have not grown yet.
                        let mut cause = ThrottleCause::KeyRangeThroughputExceeded;
                        if quota[dim] < doubled {
                            cause = ThrottleCause::AccountLimitExceeded;
                        }
                        if max[dim] > 0.0 && max[dim] < ceiling {
                            ceiling = max[dim];
                            cause = ThrottleCause::MaxOnDemandThroughputExceeded;
                        }
                        let total: f64 = wanted.iter().map(|w| w[dim]).sum();
                        let scale = if total > ceiling {
                            ceiling / total
                        } else {
                            1.0
                        };
                        for p in 0..n {
                            served[p][dim] = wanted[p][dim] * scale;
                        }
                        table_cause[dim] = cause;
                    }
                }
            }
            for p in 0..n {
                let mut row = [(0.0, ThrottleCause::KeyRangeThroughputExceeded, 0.0); 2];
                for dim in [READ, WRITE] {
                    let over_r1 = demand[p][dim] - wanted[p][dim];
                    let table = (wanted[p][dim] - served[p][dim]).max(0.0);
                    row[dim] = (over_r1.max(0.0), table_cause[dim], table);
                }
                throttled_by.push(row);
            }

            // Burst banks that ran dry (R2), once per emptying.
            for p in 0..n {
                for dim in [READ, WRITE] {
                    let part = &sim.parts[p];
                    let drawing = served[p][dim] > sim.allocation(dim, n) + 1e-9;
                    if matches!(setup.table.billing, Billing::Provisioned { .. })
                        && !setup.table.adaptive_capacity
                        && part.bank[dim] <= 1e-9
                        && demand[p][dim] > served[p][dim] + 1e-9
                        && !part.exhausted
                        && t > 0
                    {
                        sim.parts[p].exhausted = true;
                        sim.event(
                        t,
                        EventKind::BurstExhausted,
                        Some(p),
                        format!(
                            "partition {p}'s burst capacity is spent: it serves its share of {:.0} {} units/s \
                             and throttles the rest",
                            sim.allocation(dim, n),
                            if dim == READ { "read" } else { "write" }
                        ),
                    );
                    } else if matches!(setup.table.billing, Billing::Provisioned { .. })
                        && setup.table.adaptive_capacity
                        && part.bank[dim] <= 1e-9
                        && demand[p][dim] > served[p][dim] + 1e-9
                        && !part.exhausted
                        && drawing
                    {
                        sim.parts[p].exhausted = true;
                        sim.event(
                            t,
                            EventKind::BurstExhausted,
                            Some(p),
                            format!("partition {p}'s burst capacity is spent"),
                        );
                    } else if part.bank[dim] > 1e-9
                        && part.exhausted
                        && demand[p][dim] <= served[p][dim]
                    {
                        sim.parts[p].exhausted = false;
                    }
                }
            }

            // 3. Totals for the series and the minute.
            sums = [0.0f64; 7];
            sec_events = [0.0; 2];
            sec_reasons.clear();
            for p in 0..n {
                for dim in [READ, WRITE] {
                    let thr = throttled_by[p][dim].0 + throttled_by[p][dim].2;
                    let base = if dim == READ { 0 } else { 3 };
                    sums[base] += demand[p][dim];
                    sums[base + 1] += served[p][dim];
                    sums[base + 2] += thr;
                    // Requests throttled in proportion to units throttled.
                    let req = if demand[p][dim] > 0.0 {
                        requests[p][dim] * thr / demand[p][dim]
                    } else {
                        0.0
                    };
                    sums[6] += req;
                    sec_events[dim] += req;
                    for (units, cause) in [
                        (
                            throttled_by[p][dim].0,
                            ThrottleCause::KeyRangeThroughputExceeded,
                        ),
                        (throttled_by[p][dim].2, throttled_by[p][dim].1),
                    ] {
                        if units <= 0.0 || demand[p][dim] <= 0.0 {
                            continue;
                        }
                        let req = requests[p][dim] * units / demand[p][dim];
                        match sec_reasons
                            .iter_mut()
                            .find(|(d, c, _)| *d == dim && *c == cause)
                        {
                            Some(r) => r.2 += req,
                            None => sec_reasons.push((dim, cause, req)),
                        }
                    }
                }
            }
            let moved = sim.parts.iter().zip(&banks_before).any(|(p, b)| {
                (p.bank[READ] - b[READ]).abs() > 1e-9 || (p.bank[WRITE] - b[WRITE]).abs() > 1e-9
            });
            stable = !moved && sim.events.len() == events_before;
        }
        minute.read_throttle_events += sec_events[READ];
        minute.write_throttle_events += sec_events[WRITE];
        for &(dim, cause, req) in &sec_reasons {
            let name = reason_name(dim, cause);
            match reasons.iter_mut().find(|(r, _)| *r == name) {
                Some(r) => r.1 += req,
                None => reasons.push((name, req)),
            }
        }
        minute.consumed_read_units += sums[1];
        minute.consumed_write_units += sums[4];
        minute_served[READ] += sums[1];
        minute_served[WRITE] += sums[4];
        for (a, s) in acc.iter_mut().zip(sums) {
            *a += s;
        }
        if (t + 1) % step == 0 || t + 1 == setup.duration {
            let k = f64::from((t % step) + 1);
            let s = &mut out.series;
            s.t.push(t - (t % step));
            s.read_demand_units.push(acc[0] / k);
            s.read_served_units.push(acc[1] / k);
            s.read_throttled_units.push(acc[2] / k);
            s.write_demand_units.push(acc[3] / k);
            s.write_served_units.push(acc[4] / k);
            s.write_throttled_units.push(acc[5] / k);
            s.throttled_requests.push(acc[6] / k);
            s.partitions.push(n);
            acc = [0.0; 7];
        }

        // 4. Split-for-heat (R4): sustained consumption near R1, never before `split_after` (+ jitter).
        if setup.table.split_for_heat {
            let mut p = 0;
            while p < sim.parts.len() {
                let hot = p < served.len()
                    && (served[p][READ] >= params.split_hot_share * R1[READ]
                        || served[p][WRITE] >= params.split_hot_share * R1[WRITE]);
                if !hot {
                    sim.parts[p].hot_since = None;
                    sim.parts[p].skipped = false;
                    p += 1;
                    continue;
                }
                let since = *sim.parts[p].hot_since.get_or_insert(t);
                let due = since + setup.table.split_after + sim.parts[p].jitter;
                if t + 1 >= due && !sim.parts[p].skipped {
                    match sim.split_point(p, t) {
                        Ok((point, where_)) => {
                            let from = sim.parts.len();
                            sim.split(p, point);
                            sim.reweigh();
                            let detail = format!(
                                "partition {p} split {where_} after {} s near its limit: {from} → {} partitions",
                                t + 1 - since,
                                sim.parts.len()
                            );
                            sim.event(t, EventKind::Split, Some(p), detail);
                            // The new halves start cool; skip the one just made.
                            p += 2;
                            continue;
                        }
                        Err(why) => {
                            sim.parts[p].skipped = true;
                            sim.event(
                                t,
                                EventKind::SplitSkipped,
                                Some(p),
                                format!("split skipped: {why}"),
                            );
                        }
                    }
                }
                p += 1;
            }
        }

        // 5. Once a minute: the CloudWatch minute (R7), on-demand peaks (R5), auto scaling (R6).
        if (t + 1) % 60 == 0 || t + 1 == setup.duration {
            let seconds = f64::from(t % 60 + 1);
            let avg = [
                minute_served[READ] / seconds,
                minute_served[WRITE] / seconds,
            ];
            minute.t = t - (t % 60);
            reasons.sort_by(|a, b| a.0.cmp(&b.0));
            minute.throttle_reasons = std::mem::take(&mut reasons);
            out.minutes.push(std::mem::take(&mut minute));
            minute_served = [0.0; 2];
            if let Billing::OnDemand { quota, max, .. } = &setup.table.billing {
                for dim in [READ, WRITE] {
                    if avg[dim] > sim.candidate_peak[dim].0.max(sim.previous_peak[dim]) {
                        sim.candidate_peak[dim] = (avg[dim], t + 1);
                    }
                    let (peak, at) = sim.candidate_peak[dim];
                    if peak > sim.previous_peak[dim] && t + 1 >= at + params.peak_adopt_after {
                        sim.previous_peak[dim] = peak;
                        sim.candidate_peak[dim] = (0.0, 0);
                        sim.event(
                            t,
                            EventKind::PeakAdopted,
                            None,
                            format!(
                                "new previous peak {:.0} {} units/s (reached {} s ago): the table now serves up \
                                 to {:.0} at once",
                                peak,
                                if dim == READ { "read" } else { "write" },
                                t + 1 - at,
                                2.0 * peak
                            ),
                        );
                    }
                }
                let mut ceiling = [0.0; 2];
                for dim in [READ, WRITE] {
                    ceiling[dim] = (2.0 * sim.previous_peak[dim]).min(quota[dim]);
                    if max[dim] > 0.0 {
                        ceiling[dim] = ceiling[dim].min(max[dim]);
                    }
                }
                sim.grow_for(t, ceiling, &demand);
            }
            if let (Billing::Provisioned { .. }, Some(scaling)) =
                (&setup.table.billing, &setup.table.autoscaling)
                && sim.pending.is_none()
            {
                let today = (setup.start + i64::from(t)).div_euclid(86_400);
                if sim.decreases_today.0 != today {
                    sim.decreases_today = (today, 0);
                }
                let mut next = sim.provisioned;
                let mut change = false;
                for dim in [READ, WRITE] {
                    let cap = sim.provisioned[dim].max(1.0);
                    let util = avg[dim] / cap;
                    if util > scaling.target {
                        sim.above_minutes[dim] += 1;
                        sim.below_minutes[dim] = 0;
                    } else if util < scaling.target {
                        sim.below_minutes[dim] += 1;
                        sim.above_minutes[dim] = 0;
                    }
                    let wanted =
                        (avg[dim] / scaling.target).clamp(scaling.min[dim], scaling.max[dim]);
                    if sim.above_minutes[dim] >= params.scale_out_minutes && wanted > cap {
                        next[dim] = wanted.ceil();
                        sim.above_minutes[dim] = 0;
                        change = true;
                    }
                    let seconds_today = (setup.start + i64::from(t)).rem_euclid(86_400);
                    // R6: 4 decreases in the first hour of a UTC day, then 1 an hour, 27 a day.
                    let allowed = if seconds_today < 3_600 {
                        4
                    } else {
                        (4 + (seconds_today / 3_600) as u32).min(27)
                    };
                    if sim.below_minutes[dim] >= params.scale_in_minutes
                        && wanted < cap
                        && sim.decreases_today.1 < allowed
                    {
                        next[dim] = wanted.ceil();
                        sim.below_minutes[dim] = 0;
                        sim.decreases_today.1 += 1;
                        change = true;
                    }
                }
                if change {
                    sim.pending = Some((t + 1 + params.scale_apply_delay, next));
                    sim.event(
                        t,
                        EventKind::Scale,
                        None,
                        format!(
                            "auto scaling asks for {:.0} RCU and {:.0} WCU (target {:.0} % of consumed); it \
                             applies in {} s",
                            next[READ],
                            next[WRITE],
                            scaling.target * 100.0,
                            params.scale_apply_delay
                        ),
                    );
                }
            }
        }
    }
    let n = sim.parts.len();
    out.final_partitions = sim
        .parts
        .iter()
        .map(|p| FinalPartition {
            start_hash: p.start.0,
            start_sort_key: p.start.1,
            read_units: sim.allocation(READ, n),
            write_units: sim.allocation(WRITE, n),
        })
        .collect();
    out.events = sim.events;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::capacity::Consistency;

    fn setup(table: Table, traffic: Vec<Stream>, duration: u32) -> Setup {
        Setup {
            table,
            traffic,
            duration,
            step: 1,
            start: 1_782_172_800, // 2026-06-23T00:00:00Z
            seed: 1,
            params: Params::default(),
        }
    }

    fn writes(key: &str, rate: f64, sort_key: SortKey) -> Stream {
        Stream {
            keys: Keys::One(key.to_owned()),
            writes_per_sec: Schedule::constant(rate),
            sort_key,
            ..Stream::default()
        }
    }

    fn key_in(p: usize, n: usize) -> String {
        key_in_partition(p, n)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn dates_from_day_numbers() {
        assert_eq!(date_of_day(0), "1970-01-01");
        assert_eq!(date_of_day(1_782_172_800 / 86_400), "2026-06-23");
        assert_eq!(date_of_day(11_016), "2000-02-29");
    }

    // R3 [doc: burst-adaptive-capacity]: 400 WCU over 4 partitions; three get 50 WCU/s, one 150.
    #[test]
    fn aws_adaptive_capacity_example() {
        let traffic: Vec<Stream> = [50.0, 50.0, 50.0, 150.0]
            .iter()
            .enumerate()
            .map(|(p, &rate)| writes(&key_in(p, 4), rate, SortKey::Random))
            .collect();
        let table = Table {
            billing: Billing::Provisioned {
                units: [0.0, 400.0],
            },
            partitions: Some(4),
            ..Table::default()
        };
        let on = run(&setup(table.clone(), traffic.clone(), 1_200));
        assert!(on.series.write_throttled_units.iter().all(|&x| x == 0.0));
        assert!(
            on.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 400.0 - 100.0))
        );
        // Without adaptive capacity: the share (100) plus burst (300 s × 100 banked while idle) lasts 600 s,
        // then 50 WCU/s throttle.
        let off = run(&setup(
            Table {
                adaptive_capacity: false,
                ..table
            },
            traffic,
            1_200,
        ));
        let thr = &off.series.write_throttled_units;
        assert!(thr[..600].iter().all(|&x| x == 0.0), "{:?}", &thr[590..610]);
        assert!(
            thr[601..].iter().all(|&x| close(x, 50.0)),
            "{:?}",
            &thr[598..605]
        );
        assert!(
            off.events
                .iter()
                .any(|e| e.kind == EventKind::BurstExhausted)
        );
    }

    // R2 [doc: re:Post "spiky workloads"]: 150 RCU, idle 5 min → 45,000 units banked; 200 RCU/s lasts 900 s.
    #[test]
    fn burst_after_idle() {
        let reads = |consistency| Stream {
            keys: Keys::One("REPORT".into()),
            reads_per_sec: Schedule::constant(200.0),
            item_size: 4096,
            consistency,
            ..Stream::default()
        };
        let table = |idle| Table {
            billing: Billing::Provisioned {
                units: [150.0, 0.0],
            },
            idle_before: idle,
            ..Table::default()
        };
        let out = run(&setup(table(300), vec![reads(Consistency::Strong)], 1_200));
        let thr = &out.series.read_throttled_units;
        assert!(thr[..900].iter().all(|&x| x == 0.0), "{:?}", &thr[895..905]);
        assert!(thr[901..].iter().all(|&x| close(x, 50.0)));
        let out = run(&setup(table(120), vec![reads(Consistency::Strong)], 600));
        let thr = &out.series.read_throttled_units;
        assert!(thr[..360].iter().all(|&x| x == 0.0));
        assert!(close(thr[361], 50.0));
        // Eventually consistent reads cost half: 100 RCU/s, within the 150 provisioned.
        let out = run(&setup(table(0), vec![reads(Consistency::Eventual)], 600));
        assert!(out.series.read_throttled_units.iter().all(|&x| x == 0.0));
    }

    // R1, R4: one key at 4,000 writes/s of 1 KB with an only-increasing sort key on a new on-demand table.
    #[test]
    fn a_monotonic_key_is_capped_for_ever() {
        let out = run(&setup(
            Table::default(),
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Monotonic)],
            1_800,
        ));
        assert!(
            out.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 1_000.0))
        );
        assert!(
            out.series
                .write_throttled_units
                .iter()
                .all(|&x| close(x, 3_000.0))
        );
        let m = &out.minutes[3];
        assert!(close(m.write_throttle_events, 180_000.0), "{m:?}");
        assert_eq!(m.throttle_reasons.len(), 1);
        assert_eq!(
            m.throttle_reasons[0].0,
            "TableWriteKeyRangeThroughputExceeded"
        );
        assert!(!out.events.iter().any(|e| e.kind == EventKind::Split));
        let skipped = out
            .events
            .iter()
            .find(|e| e.kind == EventKind::SplitSkipped)
            .unwrap();
        assert!(
            skipped.detail.contains("sort key only increases"),
            "{}",
            skipped.detail
        );
        assert!(skipped.t >= 8 * 60);
        // 1.5 KB items cost 2 units each: 500 writes/s are served.
        let mut big = writes("ARENA#7f3a", 4_000.0, SortKey::Monotonic);
        big.item_size = 1_536;
        let out = run(&setup(Table::default(), vec![big], 120));
        assert!(
            out.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 1_000.0))
        );
        let served_requests = 4_000.0 - out.series.throttled_requests[60];
        assert!(close(served_requests, 500.0), "{served_requests}");
    }

    // R4: the same key with random sort keys is relieved by splits, in steps, never before `split_after`.
    #[test]
    fn a_random_sort_key_is_relieved_by_splits() {
        let out = run(&setup(
            Table::default(),
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Random)],
            3_600,
        ));
        let served = &out.series.write_served_units;
        let first = out
            .events
            .iter()
            .find(|e| e.kind == EventKind::Split)
            .unwrap();
        assert!(first.t + 1 >= 8 * 60, "no split before 8 min: {}", first.t);
        assert!(first.t < 8 * 60 + 120, "{first:?}");
        assert!(served[..8 * 60].iter().all(|&x| close(x, 1_000.0)));
        assert!(
            close(served[first.t as usize + 1], 2_000.0),
            "{}",
            served[first.t as usize + 1]
        );
        assert!(
            close(*served.last().unwrap(), 4_000.0),
            "{:?}",
            served.last()
        );
        // Partitions never fewer; served rises in steps, never falls.
        for w in out.series.partitions.windows(2) {
            assert!(w[1] >= w[0]);
        }
        for w in served.windows(2) {
            assert!(w[1] + 1e-9 >= w[0]);
        }
        // With a local secondary index the collection is never split.
        let lsi = run(&setup(
            Table {
                lsi: true,
                ..Table::default()
            },
            vec![writes("ARENA#7f3a", 4_000.0, SortKey::Random)],
            1_200,
        ));
        assert!(
            lsi.series
                .write_served_units
                .iter()
                .all(|&x| close(x, 1_000.0))
        );
        assert!(lsi.events.iter().any(
            |e| e.kind == EventKind::SplitSkipped && e.detail.contains("local secondary index")
        ));
    }

    // R5 [doc blog "Demystifying on-demand"]: from a 50,000/s peak to 250,000/s takes about an hour.
    #[test]
    fn on_demand_doubles_its_previous_peak() {
        let table = Table {
            billing: Billing::OnDemand {
                previous_peak: [0.0, 50_000.0],
                quota: [1e6, 1e6],
                max: [0.0, 0.0],
            },
            split_for_heat: false,
            ..Table::default()
        };
        let traffic = vec![Stream {
            keys: Keys::Uniform(100_000),
            writes_per_sec: Schedule::constant(250_000.0),
            ..Stream::default()
        }];
        let out = run(&setup(table, traffic, 2 * 3_600));
        let served = &out.series.write_served_units;
        let near = |x: f64, want: f64| (x - want).abs() <= 0.02 * want;
        assert!(near(served[60], 100_000.0), "{}", served[60]);
        assert!(near(served[40 * 60], 200_000.0), "{}", served[40 * 60]);
        assert!(near(served[100 * 60], 250_000.0), "{}", served[100 * 60]);
        let adopted: Vec<u32> = out
            .events
            .iter()
            .filter(|e| e.kind == EventKind::PeakAdopted)
            .map(|e| e.t)
            .collect();
        // 100,000 after 30 min, 200,000 after another 30: about an hour to 250,000 (then 250,000 is adopted).
        assert!(adopted.len() >= 2, "{:?}", out.events);
        assert!(adopted[0] >= 30 * 60 && adopted[1] < 65 * 60, "{adopted:?}");
    }

    // R7: a one-second spike throttles thousands of requests inside a minute whose average looks calm.
    #[test]
    fn a_one_second_spike_hides_in_the_minute() {
        let table = Table {
            billing: Billing::Provisioned {
                units: [0.0, 1_000.0],
            },
            idle_before: 0,
            ..Table::default()
        };
        let traffic = vec![Stream {
            keys: Keys::One("EVENT".into()),
            writes_per_sec: Schedule(vec![(0, 100.0), (30, 5_000.0), (31, 100.0)]),
            ..Stream::default()
        }];
        let out = run(&setup(table, traffic, 60));
        assert!(close(out.series.write_throttled_units[30], 4_000.0));
        assert!(close(out.minutes[0].write_throttle_events, 4_000.0));
        assert!(
            close(out.minutes[0].consumed_write_units, 6_900.0),
            "{}",
            out.minutes[0].consumed_write_units
        );
    }

    #[test]
    fn a_date_key_rotates_at_midnight() {
        let mut s = setup(
            Table::default(),
            vec![writes("ORDERS#{date}", 2_000.0, SortKey::Random)],
            600,
        );
        s.start = 1_782_172_800 - 300; // five minutes before midnight
        let out = run(&s);
        let rotated: Vec<&Event> = out
            .events
            .iter()
            .filter(|e| e.kind == EventKind::KeyRotated)
            .collect();
        assert_eq!(rotated.len(), 1);
        assert_eq!(rotated[0].t, 300);
        assert!(rotated[0].detail.contains("ORDERS#2026-06-23"));
    }

    #[test]
    fn laws_served_within_demand_and_units_conserved() {
        for sort_key in [SortKey::Random, SortKey::Monotonic, SortKey::SingleItem] {
            let traffic = vec![
                writes("HOT", 3_000.0, sort_key),
                Stream {
                    keys: Keys::Uniform(500),
                    writes_per_sec: Schedule(vec![(0, 500.0), (300, 4_000.0)]),
                    reads_per_sec: Schedule::constant(2_000.0),
                    ..Stream::default()
                },
            ];
            let out = run(&setup(Table::default(), traffic, 1_500));
            let s = &out.series;
            for i in 0..s.t.len() {
                assert!(s.write_served_units[i] <= s.write_demand_units[i] + 1e-6);
                assert!(close(
                    s.write_served_units[i] + s.write_throttled_units[i],
                    s.write_demand_units[i]
                ));
                assert!(close(
                    s.read_served_units[i] + s.read_throttled_units[i],
                    s.read_demand_units[i]
                ));
                // R1 per partition bounds the table.
                assert!(s.write_served_units[i] <= s.partitions[i] as f64 * 1_000.0 + 1e-6);
            }
            for w in s.partitions.windows(2) {
                assert!(w[1] >= w[0]);
            }
        }
    }
}
