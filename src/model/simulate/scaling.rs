//! Capacity that changes over a run: on-demand's previous peak and growth (R5), provisioned auto scaling's
//! target tracking and its delayed changes (R6).

use super::engine::Sim;
use super::{AutoScaling, Billing, EventKind, R1, READ, WRITE};

impl Sim<'_> {
    /// Auto scaling's pending change applies (R6).
    pub(super) fn apply_scaling(&mut self, t: u32) {
        let Some((at, units)) = self.pending else {
            return;
        };
        if t < at {
            return;
        }
        self.pending = None;
        self.provisioned = units;
        // Every partition's share changed: compute the next second afresh.
        self.reweighed = true;
        let needed = (units[READ] / R1[READ] + units[WRITE] / R1[WRITE]).ceil() as usize;
        let mut detail = format!(
            "provisioned capacity is now {:.0} RCU and {:.0} WCU",
            units[READ], units[WRITE]
        );
        if needed > self.parts.len() {
            let from = self.split_for_capacity(needed);
            detail.push_str(&format!(
                "; from {from} to {} partitions for the new capacity",
                self.parts.len()
            ));
        }
        self.event(t, EventKind::Scale, None, detail);
    }

    /// On-demand, once a minute (R5): a new previous peak is adopted `peak_adopt_after` after it was reached;
    /// the partitions grow for the ceiling.
    pub(super) fn on_demand_minute(&mut self, t: u32, avg: [f64; 2]) {
        let Billing::OnDemand { quota, max, .. } = &self.setup.table.billing else {
            return;
        };
        let adopt_after = self.setup.params.peak_adopt_after;
        for dim in [READ, WRITE] {
            if avg[dim] > self.candidate_peak[dim].0.max(self.previous_peak[dim]) {
                self.candidate_peak[dim] = (avg[dim], t + 1);
            }
            let (peak, at) = self.candidate_peak[dim];
            if peak > self.previous_peak[dim] && t + 1 >= at + adopt_after {
                self.previous_peak[dim] = peak;
                self.candidate_peak[dim] = (0.0, 0);
                let detail = format!(
                    "new previous peak {:.0} {} units/s (reached {} s ago): the table now serves up to {:.0} at \
                     once",
                    peak,
                    if dim == READ { "read" } else { "write" },
                    t + 1 - at,
                    2.0 * peak
                );
                self.event(t, EventKind::PeakAdopted, None, detail);
            }
        }
        let mut ceiling = [0.0; 2];
        for dim in [READ, WRITE] {
            ceiling[dim] = (2.0 * self.previous_peak[dim]).min(quota[dim]);
            if max[dim] > 0.0 {
                ceiling[dim] = ceiling[dim].min(max[dim]);
            }
        }
        self.grow_for(t, ceiling);
    }

    /// Provisioned auto scaling, once a minute (R6): target tracking on the minute's consumed average.
    pub(super) fn autoscale_minute(&mut self, t: u32, avg: [f64; 2]) {
        let setup = self.setup;
        let (Billing::Provisioned { .. }, Some(scaling)) =
            (&setup.table.billing, &setup.table.autoscaling)
        else {
            return;
        };
        if self.pending.is_some() {
            return;
        }
        let today = (setup.start + i64::from(t)).div_euclid(86_400);
        if self.decreases_today.0 != today {
            self.decreases_today = (today, 0);
        }
        let seconds_today = (setup.start + i64::from(t)).rem_euclid(86_400);
        let mut next = self.provisioned;
        let mut change = false;
        for dim in [READ, WRITE] {
            if let Some(units) = self.scaling_decision(dim, avg[dim], scaling, seconds_today) {
                next[dim] = units;
                change = true;
            }
        }
        if change {
            let delay = setup.params.scale_apply_delay;
            self.pending = Some((t + 1 + delay, next));
            let detail = format!(
                "auto scaling asks for {:.0} RCU and {:.0} WCU (target {:.0} % of consumed); it applies in {} s",
                next[READ],
                next[WRITE],
                scaling.target * 100.0,
                delay
            );
            self.event(t, EventKind::Scale, None, detail);
        }
    }

    /// One dimension's auto scaling step: the new capacity, if it changes.
    fn scaling_decision(
        &mut self,
        dim: usize,
        avg: f64,
        scaling: &AutoScaling,
        seconds_today: i64,
    ) -> Option<f64> {
        let params = &self.setup.params;
        let cap = self.provisioned[dim].max(1.0);
        let util = avg / cap;
        if util > scaling.target {
            self.above_minutes[dim] += 1;
            self.below_minutes[dim] = 0;
        } else if util < scaling.target {
            self.below_minutes[dim] += 1;
            self.above_minutes[dim] = 0;
        }
        let wanted = (avg / scaling.target).clamp(scaling.min[dim], scaling.max[dim]);
        let mut next = None;
        if self.above_minutes[dim] >= params.scale_out_minutes && wanted > cap {
            next = Some(wanted.ceil());
            self.above_minutes[dim] = 0;
        }
        // R6: 4 decreases in the first hour of a UTC day, then 1 an hour, 27 a day.
        let allowed = if seconds_today < 3_600 {
            4
        } else {
            (4 + (seconds_today / 3_600) as u32).min(27)
        };
        if self.below_minutes[dim] >= params.scale_in_minutes
            && wanted < cap
            && self.decreases_today.1 < allowed
        {
            next = Some(wanted.ceil());
            self.below_minutes[dim] = 0;
            self.decreases_today.1 += 1;
        }
        next
    }
}
