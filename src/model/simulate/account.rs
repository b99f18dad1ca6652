//! Accounting: each second's totals into the series (per output step) and the CloudWatch minute (R7), and
//! the run's [`Outcome`] at the end.

use super::super::capacity::ThrottleCause;
use super::engine::Sim;
use super::{FinalPartition, Minute, Outcome, READ, WRITE};

/// The run's output so far, and the step and minute being summed.
pub(super) struct Accounts {
    pub(super) out: Outcome,
    /// Sums over the current output step (demand, served, throttled per dimension; throttled requests).
    acc: [f64; 7],
    minute: Minute,
    /// The first second of the minute being summed (a whole UTC minute's, or t = 0 for a partial first one).
    minute_from: u32,
    minute_served: [f64; 2],
    reasons: Vec<(String, f64)>,
}

impl Accounts {
    pub(super) fn new(step: u32) -> Self {
        Self {
            out: Outcome {
                step_seconds: step,
                ..Outcome::default()
            },
            acc: [0.0; 7],
            minute: Minute::default(),
            minute_from: 0,
            minute_served: [0.0; 2],
            reasons: Vec::new(),
        }
    }
}

/// `TableWriteKeyRangeThroughputExceeded` and the like (R7).
pub(super) fn reason_name(dim: usize, cause: ThrottleCause) -> String {
    format!(
        "Table{}{}",
        if dim == READ { "Read" } else { "Write" },
        cause.as_str()
    )
}

impl Sim<'_> {
    /// Adds the second's totals to the minute and the output step; closes the step when it is full.
    pub(super) fn account(&mut self, t: u32) {
        let sec = &self.sec;
        let a = &mut self.acct;
        a.minute.read_throttle_events += sec.events[READ];
        a.minute.write_throttle_events += sec.events[WRITE];
        for &(dim, cause, req) in &sec.reasons {
            let name = reason_name(dim, cause);
            match a.reasons.iter_mut().find(|(r, _)| *r == name) {
                Some(r) => r.1 += req,
                None => a.reasons.push((name, req)),
            }
        }
        a.minute.consumed_read_units += sec.sums[1];
        a.minute.consumed_write_units += sec.sums[4];
        a.minute_served[READ] += sec.sums[1];
        a.minute_served[WRITE] += sec.sums[4];
        for (x, s) in a.acc.iter_mut().zip(sec.sums) {
            *x += s;
        }
        let step = a.out.step_seconds;
        if (t + 1).is_multiple_of(step) || t + 1 == self.setup.duration {
            let k = f64::from((t % step) + 1);
            let acc = a.acc;
            let s = &mut a.out.series;
            s.t.push(t - (t % step));
            s.read_demand_units.push(acc[0] / k);
            s.read_served_units.push(acc[1] / k);
            s.read_throttled_units.push(acc[2] / k);
            s.write_demand_units.push(acc[3] / k);
            s.write_served_units.push(acc[4] / k);
            s.write_throttled_units.push(acc[5] / k);
            s.throttled_requests.push(acc[6] / k);
            s.partitions.push(self.parts.len());
            a.acc = [0.0; 7];
        }
    }

    /// Closes the CloudWatch minute (R7) ending at second `t`; returns its average served units per second.
    pub(super) fn close_minute(&mut self, t: u32) -> [f64; 2] {
        let a = &mut self.acct;
        let seconds = f64::from(t + 1 - a.minute_from);
        let avg = [
            a.minute_served[READ] / seconds,
            a.minute_served[WRITE] / seconds,
        ];
        a.minute.t = a.minute_from;
        a.minute_from = t + 1;
        a.reasons.sort_by(|x, y| x.0.cmp(&y.0));
        a.minute.throttle_reasons = std::mem::take(&mut a.reasons);
        a.out.minutes.push(std::mem::take(&mut a.minute));
        a.minute_served = [0.0; 2];
        avg
    }

    /// The partitions as they are now, with their allocations.
    pub(super) fn final_partitions(&self) -> Vec<FinalPartition> {
        let n = self.parts.len();
        self.parts
            .iter()
            .map(|p| FinalPartition {
                start_hash: p.start.0,
                start_sort_key: p.start.1,
                read_units: self.allocation(READ, n),
                write_units: self.allocation(WRITE, n),
            })
            .collect()
    }
}
