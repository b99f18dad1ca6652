//! CloudWatch's minutes as observed ([`ObservedMinute`]): the side a replay is compared with, and the metrics
//! a minute holds ([`Metric`]).

use crate::model::capacity::ReasonMetric;

/// One CloudWatch minute as observed: whichever figures the files held (sums over the minute).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ObservedMinute {
    /// Unix seconds of the minute's start.
    pub minute: i64,
    pub consumed_read_units: Option<f64>,
    pub consumed_write_units: Option<f64>,
    pub read_throttle_events: Option<f64>,
    pub write_throttle_events: Option<f64>,
    pub throttled_requests: Option<f64>,
    /// The throttle events of each reason metric (`WriteKeyRangeThroughputThrottleEvents`, …), at
    /// [`ReasonMetric::index`].
    pub reasons: [Option<f64>; 8],
    /// The throttle figures were counted from a request log's throttled requests, not read from CloudWatch.
    pub by_log: bool,
}

impl ObservedMinute {
    /// The minute's throttle events: read and write events; else the events of the reason metrics; else
    /// throttled requests when the files held only those; `None` when they held no throttle figure for the
    /// minute (no datapoint is not zero).
    pub fn throttle_events(&self) -> Option<f64> {
        match (self.read_throttle_events, self.write_throttle_events) {
            (None, None) if self.reasons.iter().any(Option::is_some) => {
                Some(self.reasons.iter().flatten().sum())
            }
            (None, None) => self.throttled_requests,
            (r, w) => Some(r.unwrap_or(0.0) + w.unwrap_or(0.0)),
        }
    }

    /// The reason metrics the minute has a figure for, with it.
    pub fn reason_events(&self) -> impl Iterator<Item = (ReasonMetric, f64)> + '_ {
        ReasonMetric::ALL
            .into_iter()
            .filter_map(|m| Some((m, self.reasons[m.index()]?)))
    }

    /// The minutes' throttle events, for comparing with a replay ([`crate::model::simulate::agreement`]).
    pub fn events(observed: &[Self]) -> Vec<crate::model::simulate::ObservedEvents> {
        observed
            .iter()
            .filter_map(|m| {
                Some(crate::model::simulate::ObservedEvents {
                    minute: m.minute,
                    events: m.throttle_events()?,
                    reasons: m.reason_events().collect(),
                    by_log: m.by_log,
                })
            })
            .collect()
    }

    /// The figure of `metric` (a CloudWatch metric's name).
    pub(super) fn field(&mut self, metric: Metric) -> &mut Option<f64> {
        match metric {
            Metric::ConsumedRead => &mut self.consumed_read_units,
            Metric::ConsumedWrite => &mut self.consumed_write_units,
            Metric::ReadThrottles => &mut self.read_throttle_events,
            Metric::WriteThrottles => &mut self.write_throttle_events,
            Metric::ThrottledRequests => &mut self.throttled_requests,
            Metric::Reason(r) => &mut self.reasons[r.index()],
        }
    }
}

/// The CloudWatch metrics an [`ObservedMinute`] holds (DYNAMODB-TRAFFIC "CloudWatch" and "Throttling by its
/// reason (2025)" \[AWS\]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    ConsumedRead,
    ConsumedWrite,
    ReadThrottles,
    WriteThrottles,
    ThrottledRequests,
    /// One of the eight throttle-reason metrics.
    Reason(ReasonMetric),
}

impl Metric {
    pub(crate) const ALL: [Self; 13] = {
        let r = ReasonMetric::ALL;
        [
            Self::ConsumedRead,
            Self::ConsumedWrite,
            Self::ReadThrottles,
            Self::WriteThrottles,
            Self::ThrottledRequests,
            Self::Reason(r[0]),
            Self::Reason(r[1]),
            Self::Reason(r[2]),
            Self::Reason(r[3]),
            Self::Reason(r[4]),
            Self::Reason(r[5]),
            Self::Reason(r[6]),
            Self::Reason(r[7]),
        ]
    };

    /// Its place in [`Self::ALL`].
    pub(crate) fn index(self) -> usize {
        match self {
            Self::ConsumedRead => 0,
            Self::ConsumedWrite => 1,
            Self::ReadThrottles => 2,
            Self::WriteThrottles => 3,
            Self::ThrottledRequests => 4,
            Self::Reason(r) => 5 + r.index(),
        }
    }

    /// CloudWatch's name of the metric.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::ConsumedRead => "ConsumedReadCapacityUnits",
            Self::ConsumedWrite => "ConsumedWriteCapacityUnits",
            Self::ReadThrottles => "ReadThrottleEvents",
            Self::WriteThrottles => "WriteThrottleEvents",
            Self::ThrottledRequests => "ThrottledRequests",
            Self::Reason(r) => r.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_sits_at_its_index() {
        for (i, m) in Metric::ALL.into_iter().enumerate() {
            assert_eq!(m.index(), i, "{}", m.name());
        }
    }

    #[test]
    fn reason_events_count_as_throttle_events_only_without_read_and_write_events() {
        let key_range = ReasonMetric::ALL[6];
        let mut m = ObservedMinute::default();
        m.reasons[key_range.index()] = Some(40.0);
        m.throttled_requests = Some(30.0);
        assert_eq!(m.throttle_events(), Some(40.0));
        m.write_throttle_events = Some(45.0);
        assert_eq!(m.throttle_events(), Some(45.0));
        assert_eq!(m.reason_events().collect::<Vec<_>>(), [(key_range, 40.0)]);
    }
}
