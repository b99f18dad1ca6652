//! What each partition may serve in a second: R1's ceiling (and the combined switch), the provisioned share
//! with adaptive borrowing (R3) and the burst bank (R2), or on-demand's doubled peak (R5); what is thrown
//! back and why (R7), and banks that ran dry.

use super::super::capacity::ThrottleCause;
use super::engine::{Sim, Thrown};
use super::{Billing, EventKind, Limits, R1, READ, WRITE};

impl Sim<'_> {
    /// Computes the second afresh: served and thrown-back units per partition, the table's totals, and
    /// whether the next second may reuse them.
    pub(super) fn allocate(&mut self, t: u32) {
        let events_before = self.events.len();
        let banks_before: Vec<[f64; 2]> = self.parts.iter().map(|p| p.bank).collect();
        let n = self.parts.len();
        self.sec.served.clear();
        self.sec.served.resize(n, [0.0; 2]);
        let wanted = self.wanted();
        let mut table_cause = [ThrottleCause::ProvisionedThroughputExceeded; 2];
        for dim in [READ, WRITE] {
            table_cause[dim] = match &self.setup.table.billing {
                Billing::Provisioned { .. } => self.serve_provisioned(dim, &wanted),
                Billing::OnDemand { quota, max, .. } => {
                    self.serve_on_demand(dim, &wanted, quota[dim], max[dim])
                }
            };
        }
        let sec = &mut self.sec;
        sec.thrown.clear();
        for (p, w) in wanted.iter().enumerate() {
            let thrown = |dim: usize| Thrown {
                over_r1: (sec.demand[p][dim] - w[dim]).max(0.0),
                cause: table_cause[dim],
                table: (w[dim] - sec.served[p][dim]).max(0.0),
            };
            let row = [thrown(READ), thrown(WRITE)];
            sec.thrown.push(row);
        }
        self.note_exhausted(t);
        self.totals();
        let moved = self.parts.iter().zip(&banks_before).any(|(p, b)| {
            (p.bank[READ] - b[READ]).abs() > 1e-9 || (p.bank[WRITE] - b[WRITE]).abs() > 1e-9
        });
        self.sec.stable = !moved && self.events.len() == events_before;
    }

    /// R1 (and the combined switch): what each partition could serve at most.
    fn wanted(&self) -> Vec<[f64; 2]> {
        let combined = self.setup.table.limits == Limits::Combined;
        self.sec
            .demand
            .iter()
            .map(|d| {
                let mut w = [d[READ].min(R1[READ]), d[WRITE].min(R1[WRITE])];
                if combined {
                    let load = w[READ] / R1[READ] + w[WRITE] / R1[WRITE];
                    if load > 1.0 {
                        w = [w[READ] / load, w[WRITE] / load];
                    }
                }
                w
            })
            .collect()
    }

    /// Provisioned: the partition's share, what adaptive capacity lends (R3), then its burst bank (R2).
    /// Returns the reason for what the table throws back.
    fn serve_provisioned(&mut self, dim: usize, wanted: &[[f64; 2]]) -> ThrottleCause {
        let n = self.parts.len();
        let share = self.allocation(dim, n);
        let cap = self.provisioned[dim];
        let adaptive = self.setup.table.adaptive_capacity;
        let burst_seconds = self.setup.params.burst_seconds;
        let base: Vec<f64> = wanted.iter().map(|w| w[dim].min(share)).collect();
        let alloc: Vec<f64> = if adaptive {
            // R3: a partition over its share borrows, instantly, what the others leave unused of the table's
            // provisioned total, up to R1.
            let spare = (cap - base.iter().sum::<f64>()).max(0.0);
            let excess: Vec<f64> = wanted.iter().zip(&base).map(|(w, b)| w[dim] - b).collect();
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
            let bank = &mut self.parts[p].bank[dim];
            let draw = unmet.min(*bank);
            self.sec.served[p][dim] = alloc[p] + draw;
            *bank -= draw;
            let unused = (share - self.sec.served[p][dim]).max(0.0);
            *bank = (*bank + unused).min(burst_seconds * share);
        }
        if adaptive {
            ThrottleCause::ProvisionedThroughputExceeded
        } else {
            // [ours] Before adaptive capacity the partition's share is its limit.
            ThrottleCause::KeyRangeThroughputExceeded
        }
    }

    /// On-demand (R5): twice the previous peak at once, within the quota and the maximum.
    fn serve_on_demand(
        &mut self,
        dim: usize,
        wanted: &[[f64; 2]],
        quota: f64,
        max: f64,
    ) -> ThrottleCause {
        let doubled = 2.0 * self.previous_peak[dim];
        let mut ceiling = doubled.min(quota);
        // [ours] Past twice the peak, throttling shows on the partitions that have not grown yet.
        let mut cause = ThrottleCause::KeyRangeThroughputExceeded;
        if quota < doubled {
            cause = ThrottleCause::AccountLimitExceeded;
        }
        if max > 0.0 && max < ceiling {
            ceiling = max;
            cause = ThrottleCause::MaxOnDemandThroughputExceeded;
        }
        let total: f64 = wanted.iter().map(|w| w[dim]).sum();
        let scale = if total > ceiling {
            ceiling / total
        } else {
            1.0
        };
        for (served, w) in self.sec.served.iter_mut().zip(wanted) {
            served[dim] = w[dim] * scale;
        }
        cause
    }

    /// Burst banks that ran dry (R2), said once per emptying, per dimension (a read bank refilling does not
    /// say the write bank's emptying again).
    fn note_exhausted(&mut self, t: u32) {
        let provisioned = matches!(self.setup.table.billing, Billing::Provisioned { .. });
        let adaptive = self.setup.table.adaptive_capacity;
        let n = self.parts.len();
        for p in 0..n {
            for dim in [READ, WRITE] {
                let (demand, served) = (self.sec.demand[p][dim], self.sec.served[p][dim]);
                let part = &self.parts[p];
                let dry = part.bank[dim] <= 1e-9 && demand > served + 1e-9 && !part.exhausted[dim];
                // R1, R3: a partition adaptive capacity lifted to its ceiling is held by R1, not by its bank.
                let drawing = served > self.allocation(dim, n) + 1e-9 && served < R1[dim] - 1e-6;
                if provisioned && !adaptive && dry && t > 0 {
                    self.parts[p].exhausted[dim] = true;
                    let detail = format!(
                        "partition {p}'s burst capacity is spent: it serves its share of {:.0} {} units/s and \
                         throttles the rest",
                        self.allocation(dim, n),
                        if dim == READ { "read" } else { "write" }
                    );
                    self.event(t, EventKind::BurstExhausted, Some(p), detail);
                } else if provisioned && adaptive && dry && drawing {
                    self.parts[p].exhausted[dim] = true;
                    let detail = format!("partition {p}'s burst capacity is spent");
                    self.event(t, EventKind::BurstExhausted, Some(p), detail);
                } else if part.bank[dim] > 1e-9 && part.exhausted[dim] && demand <= served {
                    self.parts[p].exhausted[dim] = false;
                }
            }
        }
    }

    /// The table's totals of the second, and requests thrown back by reason (in proportion to units).
    fn totals(&mut self) {
        let sec = &mut self.sec;
        sec.sums = [0.0f64; 7];
        sec.events = [0.0; 2];
        sec.reasons.clear();
        for p in 0..sec.demand.len() {
            for dim in [READ, WRITE] {
                let demand = sec.demand[p][dim];
                let thrown = sec.thrown[p][dim];
                let thr = thrown.over_r1 + thrown.table;
                let base = if dim == READ { 0 } else { 3 };
                sec.sums[base] += demand;
                sec.sums[base + 1] += sec.served[p][dim];
                sec.sums[base + 2] += thr;
                let req = if demand > 0.0 {
                    sec.requests[p][dim] * thr / demand
                } else {
                    0.0
                };
                sec.sums[6] += req;
                sec.events[dim] += req;
                for (units, cause) in [
                    (thrown.over_r1, ThrottleCause::KeyRangeThroughputExceeded),
                    (thrown.table, thrown.cause),
                ] {
                    if units <= 0.0 || demand <= 0.0 {
                        continue;
                    }
                    let req = sec.requests[p][dim] * units / demand;
                    match sec
                        .reasons
                        .iter_mut()
                        .find(|(d, c, _)| *d == dim && *c == cause)
                    {
                        Some(r) => r.2 += req,
                        None => sec.reasons.push((dim, cause, req)),
                    }
                }
            }
        }
    }
}
