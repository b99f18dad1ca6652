//! CloudWatch's minutes as observed ([`ObservedMinute`]): the side a replay is compared with, and the metrics
//! a minute holds ([`Metric`]).

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
}

impl ObservedMinute {
    /// The minute's throttle events: read and write events, or throttled requests when the files held only
    /// those; `None` when they held no throttle figure for the minute (no datapoint is not zero).
    pub fn throttle_events(&self) -> Option<f64> {
        match (self.read_throttle_events, self.write_throttle_events) {
            (None, None) => self.throttled_requests,
            (r, w) => Some(r.unwrap_or(0.0) + w.unwrap_or(0.0)),
        }
    }

    /// The minutes' throttle events, for comparing with a replay ([`crate::model::simulate::agreement`]).
    pub fn events(observed: &[Self]) -> Vec<crate::model::simulate::ObservedEvents> {
        observed
            .iter()
            .filter_map(|m| {
                Some(crate::model::simulate::ObservedEvents {
                    minute: m.minute,
                    events: m.throttle_events()?,
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
        }
    }
}

/// The CloudWatch metrics an [`ObservedMinute`] holds (DYNAMODB-TRAFFIC "CloudWatch" \[AWS\]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    ConsumedRead,
    ConsumedWrite,
    ReadThrottles,
    WriteThrottles,
    ThrottledRequests,
}

impl Metric {
    pub(crate) const ALL: [Self; 5] = [
        Self::ConsumedRead,
        Self::ConsumedWrite,
        Self::ReadThrottles,
        Self::WriteThrottles,
        Self::ThrottledRequests,
    ];

    /// CloudWatch's name of the metric.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::ConsumedRead => "ConsumedReadCapacityUnits",
            Self::ConsumedWrite => "ConsumedWriteCapacityUnits",
            Self::ReadThrottles => "ReadThrottleEvents",
            Self::WriteThrottles => "WriteThrottleEvents",
            Self::ThrottledRequests => "ThrottledRequests",
        }
    }
}
