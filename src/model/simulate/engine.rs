//! The engine's state and its second: what a run keeps from one second to the next (partitions, banks,
//! streams, capacity) and the order of the phases of each second. The phases live by concept in
//! `allocate.rs`, `splits.rs`, `scaling.rs` and `account.rs`.

use rand::RngExt as _;
use rand::SeedableRng as _;

use super::super::capacity::{ThrottleCause, read_units, write_units};
use super::super::partition::Partitioner;
use super::super::trace::{Dim, Entry, Trace};
use super::account::Accounts;
use super::keys::{Atom, atoms_of, mass, overlap};
use super::{
    Billing, Event, EventKind, Keys, MAX_RUN_PARTITIONS, Outcome, Point, R1, READ, Setup, WRITE,
    before,
};

#[derive(Debug, Clone)]
pub(super) struct Part {
    pub(super) start: Point,
    pub(super) bank: [f64; 2],
    /// Since when it has consumed at least `split_hot_share` of R1 without a break.
    pub(super) hot_since: Option<u32>,
    /// Seeded extra delay before its split (R4: the jitter only delays).
    pub(super) jitter: u32,
    /// Why its last split was skipped (said once, until it cools down).
    pub(super) skipped: bool,
    /// Its read and write banks ran dry while it was drawing (said once, until they refill).
    pub(super) exhausted: [bool; 2],
    /// Its last computed second left its banks and flags as they were (see [`Sim::allocate`]).
    pub(super) settled: bool,
}

pub(super) struct StreamState {
    pub(super) atoms: Vec<Atom>,
    /// The atoms' indices by hash (then index): the atoms of a key-space range are a slice of it. Empty
    /// for a trace's keys, which are never looked up by range.
    order: Vec<u32>,
    /// (partition, share of the stream) for the current partitions, by partition.
    pub(super) weights: Vec<(usize, f64)>,
    day: i64,
}

impl StreamState {
    fn new(atoms: Vec<Atom>, day: i64) -> Self {
        let mut state = Self {
            atoms: Vec::new(),
            order: Vec::new(),
            weights: Vec::new(),
            day,
        };
        state.set_atoms(atoms);
        state
    }

    fn set_atoms(&mut self, atoms: Vec<Atom>) {
        let mut order: Vec<u32> = (0..atoms.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (atoms[i as usize].hash, i));
        self.order = order;
        self.atoms = atoms;
    }

    /// The indices of the atoms whose hash lies in `[lo, hi]` (`hi` none: to the end of the key space), by
    /// hash, then index.
    pub(super) fn between(&self, lo: u64, hi: Option<u64>) -> &[u32] {
        let hash = |i: &u32| self.atoms[*i as usize].hash;
        let from = self.order.partition_point(|i| hash(i) < lo);
        let to = hi.map_or(self.order.len(), |hi| {
            self.order.partition_point(|i| hash(i) <= hi)
        });
        &self.order[from..to.max(from)]
    }
}

/// Units a partition threw back in a second, per dimension: over R1 (always `KeyRangeThroughputExceeded`),
/// and over the table's allocation (for `cause`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Thrown {
    pub(super) over_r1: f64,
    pub(super) cause: ThrottleCause,
    pub(super) table: f64,
}

impl Thrown {
    pub(super) const NONE: Self = Self {
        over_r1: 0.0,
        cause: ThrottleCause::ProvisionedThroughputExceeded,
        table: 0.0,
    };
}

/// The last computed second, per partition: reused while nothing changes.
#[derive(Default)]
pub(super) struct Second {
    /// The streams' demand and requests per partition (without the trace), reused while their rates hold.
    pub(super) base: Vec<[[f64; 2]; 2]>,
    /// The second before had trace entries (so this one differs even without any).
    pub(super) trace_busy: bool,
    pub(super) demand: Vec<[f64; 2]>,
    pub(super) requests: Vec<[f64; 2]>,
    pub(super) last_rates: Vec<[f64; 2]>,
    pub(super) served: Vec<[f64; 2]>,
    pub(super) thrown: Vec<[Thrown; 2]>,
    /// Table totals: demand, served, throttled units (reads, then writes), throttled requests.
    pub(super) sums: [f64; 7],
    pub(super) events: [f64; 2],
    pub(super) reasons: Vec<(usize, ThrottleCause, f64)>,
    /// R1's ceilings per partition: a buffer of [`Sim::allocate`], kept from second to second.
    pub(super) wanted: Vec<[f64; 2]>,
    /// Bumped whenever the demand is computed again.
    pub(super) demand_gen: u64,
    /// The demand (its generation) and the second, and the rules, the last allocation was computed from.
    pub(super) computed: Option<(u64, u32)>,
    pub(super) rules: Option<([super::allocate::Rule; 2], [ThrottleCause; 2])>,
    /// The wanted units' sums, for the demand's generation and the shares they were summed with.
    pub(super) wanted_sums: Option<((u64, [u64; 2]), super::allocate::WantedSums)>,
    /// The second before was like the one before it: nothing moved.
    pub(super) stable: bool,
    /// This second was computed afresh (not reused).
    pub(super) fresh: bool,
    /// When a recorder follows the run and `all_recomputed` is false: the partitions whose numbers
    /// [`Sim::allocate`] computed again in the last fresh second, in order. The others kept theirs to the bit.
    pub(super) recomputed: Vec<u32>,
    pub(super) all_recomputed: bool,
}

pub(super) struct Sim<'a> {
    pub(super) setup: &'a Setup,
    pub(super) parts: Vec<Part>,
    pub(super) streams: Vec<StreamState>,
    pub(super) rng: rand_pcg::Pcg64,
    /// Provisioned units now, and a pending change (time it applies, units).
    pub(super) provisioned: [f64; 2],
    pub(super) pending: Option<(u32, [f64; 2])>,
    pub(super) previous_peak: [f64; 2],
    /// The highest per-minute served average not yet adopted, and when it was reached.
    pub(super) candidate_peak: [(f64, u32); 2],
    pub(super) above_minutes: [u32; 2],
    pub(super) below_minutes: [u32; 2],
    pub(super) decreases_today: (i64, u32),
    pub(super) events: Vec<Event>,
    /// The partitions or the keys changed since demand was last computed.
    pub(super) reweighed: bool,
    pub(super) sec: Second,
    pub(super) acct: Accounts,
    /// Bumped whenever a stream's keys change (a date key at midnight).
    pub(super) key_epoch: u32,
    /// Indices inserted by splits, in order, when a recorder follows the partitions (`None`: nobody does).
    pub(super) inserted: Option<Vec<usize>>,
    /// R8: the next second in which a partition passes 10 GB (`None`: none will in the run).
    pub(super) size_due: Option<u32>,
    /// The partitions changed since `size_due` was computed.
    pub(super) size_stale: bool,
    /// The partitions split-for-heat last found hot, in order, and whether that still holds (the same
    /// served units and partitions, nothing split since).
    pub(super) heat_hot: Vec<usize>,
    pub(super) heat_valid: bool,
}

impl<'a> Sim<'a> {
    pub(super) fn new(setup: &'a Setup) -> Self {
        let t = &setup.table;
        let (provisioned, previous_peak) = match &t.billing {
            Billing::Provisioned { units } => (*units, [0.0; 2]),
            Billing::OnDemand { previous_peak, .. } => ([0.0; 2], *previous_peak),
        };
        let count = initial_partitions(setup);
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
                exhausted: [false; 2],
                settled: false,
            });
        }
        let day0 = setup.start.div_euclid(86_400);
        let mut streams: Vec<StreamState> = setup
            .traffic
            .iter()
            .map(|s| StreamState::new(atoms_of(&s.keys, day0, count), day0))
            .collect();
        if let Some(trace) = &setup.trace {
            // The trace's keys, after the streams': named and ranked like theirs in the Timeline.
            // Nobody asks for its atoms by range (a split reads the trace itself): not put in hash order.
            streams.push(StreamState {
                atoms: trace_atoms(trace),
                order: Vec::new(),
                weights: Vec::new(),
                day: day0,
            });
        }
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
            sec: Second::default(),
            acct: Accounts::new(setup.step.max(1)),
            key_epoch: 0,
            inserted: None,
            size_due: None,
            size_stale: true,
            heat_hot: Vec::new(),
            heat_valid: false,
        };
        sim.fill_banks();
        sim.reweigh();
        sim
    }

    /// R2: idle time before the start fills each bank with the unused allocation, up to 300 s of it.
    fn fill_banks(&mut self) {
        let idle = f64::from(self.setup.table.idle_before);
        let n = self.parts.len();
        for p in 0..n {
            for dim in [READ, WRITE] {
                let alloc = self.allocation(dim, n);
                self.parts[p].bank[dim] =
                    (idle * alloc).min(self.setup.params.burst_seconds * alloc);
            }
        }
    }

    /// One simulated second, phase by phase: [`Self::serve`], then [`Self::settle`].
    pub(super) fn step(&mut self, t: u32) {
        self.serve(t);
        self.settle(t);
    }

    /// The first half of a second: keys rotate, capacity changes apply, demand meets what each partition
    /// may serve, the totals are counted.
    pub(super) fn serve(&mut self, t: u32) {
        self.rotate_keys(t);
        self.apply_scaling(t);
        let changed = self.demand(t);
        self.sec.fresh = changed || !self.sec.stable;
        if self.sec.fresh {
            self.allocate(t);
        }
        self.account(t);
    }

    /// The second half: what the second's load and growth lead to (splits for heat and for size, and once a
    /// minute the CloudWatch minute, on-demand peaks, auto scaling).
    pub(super) fn settle(&mut self, t: u32) {
        self.split_for_heat(t);
        self.split_for_size(t);
        // CloudWatch's minutes are whole UTC minutes (DYNAMODB-TRAFFIC "CloudWatch"): a run that starts
        // mid-minute has a partial first minute.
        let utc = self.setup.start + i64::from(t) + 1;
        if utc.rem_euclid(60) == 0 || t + 1 == self.setup.duration {
            let avg = self.close_minute(t);
            self.on_demand_minute(t, avg);
            self.autoscale_minute(t, avg);
        }
    }

    /// The run's outcome (after its last second).
    pub(super) fn finish(mut self) -> Outcome {
        let mut out = std::mem::take(&mut self.acct.out);
        out.final_partitions = self.final_partitions();
        out.events = self.events;
        out
    }

    /// A partition's allocated rate: its share of the provisioned units, or (on-demand) its ceiling.
    pub(super) fn allocation(&self, dim: usize, n: usize) -> f64 {
        match &self.setup.table.billing {
            Billing::Provisioned { .. } => self.provisioned[dim] / n as f64,
            Billing::OnDemand { .. } => R1[dim],
        }
    }

    pub(super) fn end_of(&self, p: usize) -> Option<Point> {
        self.parts.get(p + 1).map(|n| n.start)
    }

    /// Recomputes each stream's shares per partition (after a split or a key rotation).
    pub(super) fn reweigh(&mut self) {
        let starts: Vec<Point> = self.parts.iter().map(|p| p.start).collect();
        let streams = self.setup.traffic.len();
        for (s, state) in self.streams.iter_mut().take(streams).enumerate() {
            let at = mass(self.setup.traffic[s].sort_key);
            let mut w: Vec<(usize, f64)> = Vec::new();
            for a in &state.atoms {
                place(&starts, a.hash, at, |p, share| w.push((p, a.share * share)));
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

    /// After partition `p` split into `p` and `p + 1`: each stream's shares of the two halves, computed from
    /// the atoms inside the old range only (the other partitions' shares keep their values and move up one
    /// index). The same sums, in the same order, as [`Self::reweigh`] over every atom: a busy table splits
    /// hundreds of times a day, and a full reweigh per split (100,000 atoms placed and sorted) was 63 % of
    /// a near-limit day (10.4 s).
    pub(super) fn reweigh_split(&mut self, p: usize) {
        let (lo, mid, end) = (
            self.parts[p].start,
            self.parts[p + 1].start,
            self.end_of(p + 1),
        );
        let streams = self.setup.traffic.len();
        for (s, state) in self.streams.iter_mut().take(streams).enumerate() {
            let at = mass(self.setup.traffic[s].sort_key);
            let i = state.weights.partition_point(|&(q, _)| q < p);
            let j = i + usize::from(state.weights.get(i).is_some_and(|&(q, _)| q == p));
            for w in &mut state.weights[j..] {
                w.0 += 1;
            }
            // In index order, as the full reweigh sums them.
            let mut idx: Vec<u32> = state.between(lo.0, end.map(|e| e.0)).to_vec();
            idx.sort_unstable();
            let mut sums: [Option<f64>; 2] = [None; 2];
            for a in idx.into_iter().map(|i| &state.atoms[i as usize]) {
                for (k, (from, to)) in [(lo, Some(mid)), (mid, end)].into_iter().enumerate() {
                    let share = overlap(a.hash, at, from, to);
                    if share > 0.0 {
                        let x = a.share * share;
                        sums[k] = Some(sums[k].map_or(x, |v| v + x));
                    }
                }
            }
            let halves = sums
                .into_iter()
                .enumerate()
                .filter_map(|(k, sum)| sum.map(|x| (p + k, x)));
            state.weights.splice(i..j, halves);
        }
        self.reweighed = true;
    }

    pub(super) fn event(
        &mut self,
        t: u32,
        kind: EventKind,
        partition: Option<usize>,
        detail: String,
    ) {
        self.events.push(Event {
            t,
            kind,
            partition,
            detail,
        });
    }

    /// A day key rotates at midnight (the simulated clock).
    fn rotate_keys(&mut self, t: u32) {
        let setup = self.setup;
        let day = (setup.start + i64::from(t)).div_euclid(86_400);
        let mut rotated = Vec::new();
        let streams = setup.traffic.len();
        for (s, state) in self.streams.iter_mut().take(streams).enumerate() {
            if state.day != day {
                state.day = day;
                if let Keys::One(k) = &setup.traffic[s].keys
                    && k.contains("{date}")
                {
                    state.set_atoms(atoms_of(&setup.traffic[s].keys, day, 1));
                    rotated.push(state.atoms[0].name.clone());
                }
            }
        }
        if !rotated.is_empty() {
            self.key_epoch += 1;
            self.reweigh();
            for name in rotated {
                self.event(
                    t,
                    EventKind::KeyRotated,
                    None,
                    format!("midnight: the key is now {name}"),
                );
            }
        }
    }

    /// Demand per partition (units and requests): recomputed only when a rate or the partitions change.
    /// Returns whether it changed.
    fn demand(&mut self, t: u32) -> bool {
        let setup = self.setup;
        let n = self.parts.len();
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
        let entries = setup.trace.as_deref().map_or(&[][..], |tr| tr.at(t));
        let sec = &mut self.sec;
        let streams_changed = self.reweighed || rates != sec.last_rates || sec.base.len() != n;
        if !(streams_changed || sec.trace_busy || !entries.is_empty()) {
            return false;
        }
        if streams_changed {
            sec.base.clear();
            sec.base.resize(n, [[0.0; 2]; 2]);
            for (s, stream) in setup.traffic.iter().enumerate() {
                let rate = rates[s];
                let unit = [
                    read_units(stream.item_size, stream.consistency),
                    write_units(stream.item_size, stream.consistency),
                ];
                for &(p, share) in &self.streams[s].weights {
                    for dim in [READ, WRITE] {
                        sec.base[p][0][dim] += rate[dim] * share * unit[dim];
                        sec.base[p][1][dim] += rate[dim] * share;
                    }
                }
            }
        }
        self.reweighed = false;
        sec.demand.clear();
        sec.demand.extend(sec.base.iter().map(|b| b[0]));
        sec.requests.clear();
        sec.requests.extend(sec.base.iter().map(|b| b[1]));
        if let Some(trace) = setup.trace.as_deref() {
            self.trace_demand(trace, entries);
        }
        self.sec.trace_busy = !entries.is_empty();
        self.sec.last_rates = rates;
        self.sec.demand_gen += 1;
        true
    }

    /// Adds second `t`'s trace entries to the demand, each key by where its items sit now.
    fn trace_demand(&mut self, trace: &Trace, entries: &[Entry]) {
        let starts: Vec<Point> = self.parts.iter().map(|p| p.start).collect();
        let sec = &mut self.sec;
        for e in entries {
            let Some(key) = trace.keys.get(e.key() as usize) else {
                continue;
            };
            let dim = match e.dim() {
                Dim::Read => READ,
                Dim::Write => WRITE,
            };
            let (units, requests) = (f64::from(e.units), f64::from(e.requests));
            place(&starts, key.hash, mass(key.sort_key), |p, share| {
                sec.demand[p][dim] += units * share;
                sec.requests[p][dim] += requests * share;
            });
        }
    }
}

/// Calls `f(partition, share)` for each partition (of those starting at `starts`) that holds part of the key
/// at `hash`, whose mass sits at `at` (or spreads over its whole sort-key range).
pub(super) fn place(starts: &[Point], hash: u64, at: Option<f64>, mut f: impl FnMut(usize, f64)) {
    // The first partition that can hold the key's range.
    let mut p = starts
        .partition_point(|&st| !before((hash, 0.0), st) && st != (hash, 0.0))
        .saturating_sub(1);
    while p < starts.len() {
        let start = starts[p];
        if start.0 > hash {
            break;
        }
        let share = overlap(hash, at, start, starts.get(p + 1).copied());
        if share > 0.0 {
            f(p, share);
        }
        p += 1;
    }
}

/// A trace's keys as atoms: each with its share of the trace's units.
fn trace_atoms(trace: &Trace) -> Vec<Atom> {
    let total: f64 = trace.units().iter().sum::<f64>().max(f64::MIN_POSITIVE);
    trace
        .keys
        .iter()
        .map(|k| Atom {
            hash: k.hash,
            share: (k.units[0] + k.units[1]) / total,
            name: k.name.clone(),
        })
        .collect()
}

/// The partitions a run starts with: the scenario's count, or the table's from its capacity; and at least
/// ⌈size / 10 GB⌉ (R8).
pub fn initial_partitions(setup: &Setup) -> usize {
    let t = &setup.table;
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
    count
        .max(super::size::partitions_for(t.size_gb))
        .clamp(1, MAX_RUN_PARTITIONS)
}
