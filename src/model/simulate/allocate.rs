//! What each partition may serve in a second: R1's ceiling (and the combined switch), the provisioned share
//! with adaptive borrowing (R3) and the burst bank (R2), or on-demand's doubled peak (R5); what is thrown
//! back and why (R7), and banks that ran dry.

use super::super::capacity::ThrottleCause;
use super::engine::{Sim, Thrown};
use super::{Billing, EventKind, Limits, R1, READ, WRITE};

/// How a dimension's partitions are served this second: the table's rule, worked out for the whole table
/// before any partition is.
#[derive(Debug, Clone, Copy)]
pub(super) enum Rule {
    /// Provisioned: the share, adaptive capacity's lending factor (R3), the bank's cap (R2).
    Provisioned {
        share: f64,
        give: f64,
        adaptive: bool,
        bank_cap: f64,
    },
    /// On-demand: what every partition's wanted units are scaled by (R5).
    OnDemand { scale: f64 },
}

impl Rule {
    /// What a partition that wants `w` units serves, drawing on and refilling its `bank`; and whether the
    /// bank moved.
    #[inline]
    fn serve(self, w: f64, bank: &mut f64) -> (f64, bool) {
        match self {
            Self::Provisioned {
                share,
                give,
                adaptive,
                bank_cap,
            } => {
                // The partition's share, what adaptive capacity lends (R3), then its own burst bank for what
                // is still unmet (R2); what it leaves of its share refills the bank.
                let b = w.min(share);
                let alloc = if adaptive { b + (w - b) * give } else { b };
                let unmet = (w - alloc).max(0.0);
                let before = *bank;
                let draw = unmet.min(before);
                let served = alloc + draw;
                let unused = (share - served).max(0.0);
                *bank = (before - draw + unused).min(bank_cap);
                (served, (*bank - before).abs() > 1e-9)
            }
            Self::OnDemand { scale } => (w * scale, false),
        }
    }
}

impl PartialEq for Rule {
    /// To the bit: a rule that computes the same numbers.
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (
                Self::Provisioned {
                    share: a,
                    give: b,
                    adaptive: c,
                    bank_cap: d,
                },
                Self::Provisioned {
                    share: e,
                    give: f,
                    adaptive: g,
                    bank_cap: h,
                },
            ) => {
                a.to_bits() == e.to_bits()
                    && b.to_bits() == f.to_bits()
                    && c == g
                    && d.to_bits() == h.to_bits()
            }
            (Self::OnDemand { scale: a }, Self::OnDemand { scale: b }) => {
                a.to_bits() == b.to_bits()
            }
            _ => false,
        }
    }
}

/// Sums over the partitions' wanted units, per dimension (see [`Sim::wanted_sums`]).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WantedSums {
    based: [f64; 2],
    excess: [f64; 2],
    total: [f64; 2],
}

/// The table's totals of a second: demand, served, throttled units (reads, then writes), throttled requests,
/// and throttled requests per dimension; summed partition by partition, reads before writes. With the
/// requests thrown back per (dimension, reason).
#[derive(Default)]
struct Tally {
    sums: [f64; 7],
    events: [f64; 2],
    reasons: Vec<(usize, ThrottleCause, f64)>,
}

impl Tally {
    /// One partition's dimension: its units, and requests thrown back by reason (in proportion to units).
    #[inline]
    fn add(&mut self, dim: usize, d: f64, served: f64, thrown: Thrown, requests: f64) {
        let thr = thrown.over_r1 + thrown.table;
        let base = if dim == READ { 0 } else { 3 };
        self.sums[base] += d;
        self.sums[base + 1] += served;
        self.sums[base + 2] += thr;
        // Nothing thrown back (most partitions, most seconds) throws back no requests: the division and the
        // adds of +0.0 are skipped, to the same bits (the sums are never -0.0). The division waited on was a
        // sixth of a near-limit day's allocation.
        if d <= 0.0 || thr <= 0.0 {
            return;
        }
        let req = requests * thr / d;
        self.sums[6] += req;
        self.events[dim] += req;
        if thrown.over_r1 <= 0.0 && thrown.table <= 0.0 {
            return;
        }
        for (units, cause) in [
            (thrown.over_r1, ThrottleCause::KeyRangeThroughputExceeded),
            (thrown.table, thrown.cause),
        ] {
            if units <= 0.0 {
                continue;
            }
            let req = requests * units / d;
            match self
                .reasons
                .iter_mut()
                .find(|(r, c, _)| *r == dim && *c == cause)
            {
                Some(r) => r.2 += req,
                None => self.reasons.push((dim, cause, req)),
            }
        }
    }
}

impl Sim<'_> {
    /// Computes the second afresh: served and thrown-back units per partition, the table's totals, and
    /// whether the next second may reuse them.
    ///
    /// A busy table computes most seconds afresh (its banks move), so this is one pass for the table's sums
    /// and one over the partitions that does everything else, in buffers kept from second to second: eight
    /// passes and five vectors allocated a second made a near-limit day take 1.9 s to record. Each partition's
    /// numbers are the same operations in the same order as the rules read one by one, and the table's sums
    /// are summed in the same order (partition by partition, reads before writes), so a run is the same to
    /// the last bit.
    pub(super) fn allocate(&mut self, t: u32) {
        let events_before = self.events.len();
        let n = self.parts.len();
        let mut wanted = std::mem::take(&mut self.sec.wanted);
        let sec = &self.sec;
        // The same demand (not recomputed since), the same rules and the same partitions as the last time:
        // a partition whose last computation left its bank and flags as they were would compute the same
        // again, so its numbers are kept and only summed. (Most partitions of a busy table sit at their
        // full bank below their share while a few throttle and draw.)
        // (Not from second 0, where a bank that runs dry is not yet said to.)
        let same_demand = sec
            .computed
            .is_some_and(|(g, at)| g == sec.demand_gen && at > 0)
            && sec.served.len() == n
            && sec.thrown.len() == n
            && wanted.len() == n;
        if !same_demand {
            self.wanted(&mut wanted);
        }
        let sums = self.wanted_sums(&wanted, same_demand);
        let (rules, table_cause) = self.rules(sums);
        let reuse = same_demand && self.sec.rules == Some((rules, table_cause));
        let provisioned = matches!(self.setup.table.billing, Billing::Provisioned { .. });
        let adaptive = self.setup.table.adaptive_capacity;
        let allocation = [self.allocation(READ, n), self.allocation(WRITE, n)];
        let mut exhausted: Vec<(usize, usize)> = Vec::new();
        let mut moved = false;
        let sec = &mut self.sec;
        sec.served.resize(n, [0.0; 2]);
        sec.thrown.resize(n, [Thrown::NONE; 2]);
        // Only a recorder reads which partitions were recomputed, and only when some were kept.
        let track = self.inserted.is_some() && reuse;
        sec.recomputed.clear();
        sec.all_recomputed = !track;
        // Summed in locals: through `sec.sums` every add waited on the store before it.
        let mut tally = Tally {
            reasons: std::mem::take(&mut sec.reasons),
            ..Tally::default()
        };
        tally.reasons.clear();
        for (p, part) in self.parts.iter_mut().enumerate() {
            let (demand, requests) = (sec.demand[p], sec.requests[p]);
            if reuse && part.settled {
                for dim in [READ, WRITE] {
                    let (d, r) = (demand[dim], requests[dim]);
                    tally.add(dim, d, sec.served[p][dim], sec.thrown[p][dim], r);
                }
                continue;
            }
            sec.recomputed.extend(track.then_some(p as u32));
            let w = wanted[p];
            let (banks, flags) = (part.bank, part.exhausted);
            let mut row = [Thrown::NONE; 2];
            for dim in [READ, WRITE] {
                let (served, bank_moved) = rules[dim].serve(w[dim], &mut part.bank[dim]);
                moved |= bank_moved;
                sec.served[p][dim] = served;
                let thrown = Thrown {
                    over_r1: (demand[dim] - w[dim]).max(0.0),
                    cause: table_cause[dim],
                    table: (w[dim] - served).max(0.0),
                };
                row[dim] = thrown;
                // Burst banks that ran dry (R2), said once per emptying, per dimension (a read bank refilling
                // does not say the write bank's emptying again).
                let d = demand[dim];
                let bank = part.bank[dim];
                let dry = bank <= 1e-9 && d > served + 1e-9 && !part.exhausted[dim];
                // R1, R3: a partition adaptive capacity lifted to its ceiling is held by R1, not by its bank.
                let drawing = served > allocation[dim] + 1e-9 && served < R1[dim] - 1e-6;
                if provisioned && dry && ((!adaptive && t > 0) || (adaptive && drawing)) {
                    part.exhausted[dim] = true;
                    exhausted.push((p, dim));
                } else if bank > 1e-9 && part.exhausted[dim] && d <= served {
                    part.exhausted[dim] = false;
                }
                tally.add(dim, d, served, thrown, requests[dim]);
            }
            sec.thrown[p] = row;
            part.settled = part.exhausted == flags
                && (0..2).all(|dim| part.bank[dim].to_bits() == banks[dim].to_bits());
        }
        sec.sums = tally.sums;
        sec.events = tally.events;
        sec.reasons = tally.reasons;
        sec.computed = Some((sec.demand_gen, t));
        sec.rules = Some((rules, table_cause));
        self.sec.wanted = wanted;
        self.say_exhausted(t, exhausted, allocation);
        self.sec.stable = !moved && self.events.len() == events_before;
    }

    /// Says each bank that ran dry this second (R2), in partition order.
    fn say_exhausted(&mut self, t: u32, exhausted: Vec<(usize, usize)>, allocation: [f64; 2]) {
        let adaptive = self.setup.table.adaptive_capacity;
        for (p, dim) in exhausted {
            let detail = if adaptive {
                format!("partition {p}'s burst capacity is spent")
            } else {
                format!(
                    "partition {p}'s burst capacity is spent: it serves its share of {:.0} {} units/s and \
                     throttles the rest",
                    allocation[dim],
                    if dim == READ { "read" } else { "write" }
                )
            };
            self.event(t, EventKind::BurstExhausted, Some(p), detail);
        }
    }

    /// R1 (and the combined switch): what each partition could serve at most, into `wanted`.
    fn wanted(&self, wanted: &mut Vec<[f64; 2]>) {
        let combined = self.setup.table.limits == Limits::Combined;
        wanted.clear();
        wanted.extend(self.sec.demand.iter().map(|d| {
            let mut w = [d[READ].min(R1[READ]), d[WRITE].min(R1[WRITE])];
            if combined {
                let load = w[READ] / R1[READ] + w[WRITE] / R1[WRITE];
                if load > 1.0 {
                    w = [w[READ] / load, w[WRITE] / load];
                }
            }
            w
        }));
    }

    /// Each dimension's rule for this second, and the reason for what the table throws back.
    /// The sums the rules need: per dimension, the wanted units up to the share, those above it, and all
    /// of them; each in partition order. Kept while the demand and the share are the same.
    fn wanted_sums(&mut self, wanted: &[[f64; 2]], same_demand: bool) -> WantedSums {
        let n = self.parts.len();
        let share = [self.allocation(READ, n), self.allocation(WRITE, n)];
        let key = (self.sec.demand_gen, share.map(f64::to_bits));
        if let Some((k, sums)) = self.sec.wanted_sums
            && same_demand
            && k == key
        {
            return sums;
        }
        let mut sums = WantedSums::default();
        for w in wanted {
            for dim in [READ, WRITE] {
                let b = w[dim].min(share[dim]);
                sums.based[dim] += b;
                sums.excess[dim] += w[dim] - b;
                sums.total[dim] += w[dim];
            }
        }
        self.sec.wanted_sums = Some((key, sums));
        sums
    }

    fn rules(&self, sums: WantedSums) -> ([Rule; 2], [ThrottleCause; 2]) {
        let n = self.parts.len();
        match &self.setup.table.billing {
            Billing::Provisioned { .. } => {
                let adaptive = self.setup.table.adaptive_capacity;
                let share = [self.allocation(READ, n), self.allocation(WRITE, n)];
                // R3: a partition over its share borrows, instantly, what the others leave unused of the
                // table's provisioned total, up to R1: in proportion to what each wants over its share.
                let (based, excess) = (sums.based, sums.excess);
                let rule = |dim: usize| {
                    let spare = (self.provisioned[dim] - based[dim]).max(0.0);
                    let give = if adaptive && excess[dim] > 0.0 {
                        (spare / excess[dim]).min(1.0)
                    } else {
                        0.0
                    };
                    Rule::Provisioned {
                        share: share[dim],
                        give,
                        adaptive,
                        bank_cap: self.setup.params.burst_seconds * share[dim],
                    }
                };
                let cause = if adaptive {
                    ThrottleCause::ProvisionedThroughputExceeded
                } else {
                    // [ours] Before adaptive capacity the partition's share is its limit.
                    ThrottleCause::KeyRangeThroughputExceeded
                };
                ([rule(READ), rule(WRITE)], [cause; 2])
            }
            Billing::OnDemand { quota, max, .. } => {
                let total = sums.total;
                let rule = |dim: usize| {
                    // R5: twice the previous peak at once, within the quota and the maximum.
                    let doubled = 2.0 * self.previous_peak[dim];
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
                    let scale = if total[dim] > ceiling {
                        ceiling / total[dim]
                    } else {
                        1.0
                    };
                    (Rule::OnDemand { scale }, cause)
                };
                let (r, w) = (rule(READ), rule(WRITE));
                ([r.0, w.0], [r.1, w.1])
            }
        }
    }
}
