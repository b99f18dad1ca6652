//! Observed throttling reasons, as DynamoDB reports them on a throttled request: parsed, printed and
//! sorted into a hot partition (`KeyRangeThroughputExceeded`) or a table-level limit.

use serde::{Deserialize, Serialize};

/// An observed throttling reason, as DynamoDB reports it on a throttled request:
/// `{Table|Index}{Read|Write}{ProvisionedThroughputExceeded|AccountLimitExceeded|KeyRangeThroughputExceeded|
/// MaxOnDemandThroughputExceeded}` ("Troubleshooting throttling issues in DynamoDB",
/// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottling.html>).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ThrottleReason {
    pub resource: ThrottleResource,
    pub op: ThrottleOp,
    pub cause: ThrottleCause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThrottleResource {
    Table,
    Index,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ThrottleOp {
    Read,
    Write,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ThrottleCause {
    /// The table's (or index's) provisioned units: table-level.
    ProvisionedThroughputExceeded,
    /// The account's per-table limit: table-level.
    AccountLimitExceeded,
    /// One partition's limit: a hot partition.
    KeyRangeThroughputExceeded,
    /// The on-demand table's configured maximum: table-level.
    MaxOnDemandThroughputExceeded,
}

impl ThrottleCause {
    pub const ALL: [Self; 4] = [
        Self::ProvisionedThroughputExceeded,
        Self::AccountLimitExceeded,
        Self::KeyRangeThroughputExceeded,
        Self::MaxOnDemandThroughputExceeded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ProvisionedThroughputExceeded => "ProvisionedThroughputExceeded",
            Self::AccountLimitExceeded => "AccountLimitExceeded",
            Self::KeyRangeThroughputExceeded => "KeyRangeThroughputExceeded",
            Self::MaxOnDemandThroughputExceeded => "MaxOnDemandThroughputExceeded",
        }
    }
}

impl ThrottleReason {
    /// Every reason, for a picker.
    pub fn all() -> Vec<Self> {
        let mut all = Vec::with_capacity(16);
        for resource in [ThrottleResource::Table, ThrottleResource::Index] {
            for op in [ThrottleOp::Read, ThrottleOp::Write] {
                for cause in ThrottleCause::ALL {
                    all.push(Self {
                        resource,
                        op,
                        cause,
                    });
                }
            }
        }
        all
    }

    /// A hot partition (key range), as opposed to a table-level limit.
    pub fn is_key_range(self) -> bool {
        self.cause == ThrottleCause::KeyRangeThroughputExceeded
    }
}

impl std::fmt::Display for ThrottleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let resource = match self.resource {
            ThrottleResource::Table => "Table",
            ThrottleResource::Index => "Index",
        };
        let op = match self.op {
            ThrottleOp::Read => "Read",
            ThrottleOp::Write => "Write",
        };
        write!(f, "{resource}{op}{}", self.cause.as_str())
    }
}

/// A string that is not one of the sixteen throttling reasons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a throttling reason: expected {{Table|Index}}{{Read|Write}}{{ProvisionedThroughputExceeded|\
     AccountLimitExceeded|KeyRangeThroughputExceeded|MaxOnDemandThroughputExceeded}}"
)]
pub struct BadThrottleReason(pub String);

impl std::str::FromStr for ThrottleReason {
    type Err = BadThrottleReason;

    /// Parses e.g. `TableWriteKeyRangeThroughputExceeded` (ASCII case ignored).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        Self::all()
            .into_iter()
            .find(|r| r.to_string().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| BadThrottleReason(text.to_owned()))
    }
}

impl TryFrom<String> for ThrottleReason {
    type Error = BadThrottleReason;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<ThrottleReason> for String {
    fn from(r: ThrottleReason) -> Self {
        r.to_string()
    }
}

/// One of CloudWatch's eight throttle-reason metrics: an operation and a cause, per table and per global
/// secondary index (the dimension `GlobalSecondaryIndexName` says which), one-minute sums of events, e.g.
/// `WriteKeyRangeThroughputThrottleEvents` (DYNAMODB-TRAFFIC "Throttling by its reason (2025)" \[AWS\]:
/// developer guide "DynamoDB Metrics and dimensions",
/// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html>).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReasonMetric {
    pub op: ThrottleOp,
    pub cause: ThrottleCause,
}

impl ReasonMetric {
    /// The eight, reads first, each side in [`ThrottleCause::ALL`]'s order.
    pub const ALL: [Self; 8] = {
        let c = ThrottleCause::ALL;
        let (r, w) = (ThrottleOp::Read, ThrottleOp::Write);
        [
            Self { op: r, cause: c[0] },
            Self { op: r, cause: c[1] },
            Self { op: r, cause: c[2] },
            Self { op: r, cause: c[3] },
            Self { op: w, cause: c[0] },
            Self { op: w, cause: c[1] },
            Self { op: w, cause: c[2] },
            Self { op: w, cause: c[3] },
        ]
    };

    /// Its place in [`Self::ALL`].
    pub fn index(self) -> usize {
        let side = match self.op {
            ThrottleOp::Read => 0,
            ThrottleOp::Write => 4,
        };
        side + self.cause as usize
    }

    /// CloudWatch's name: `WriteKeyRangeThroughputThrottleEvents`, `ReadAccountLimitThrottleEvents`, ….
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 8] = [
            "ReadProvisionedThroughputThrottleEvents",
            "ReadAccountLimitThrottleEvents",
            "ReadKeyRangeThroughputThrottleEvents",
            "ReadMaxOnDemandThroughputThrottleEvents",
            "WriteProvisionedThroughputThrottleEvents",
            "WriteAccountLimitThrottleEvents",
            "WriteKeyRangeThroughputThrottleEvents",
            "WriteMaxOnDemandThroughputThrottleEvents",
        ];
        NAMES[self.index()]
    }

    /// The name in snake case, as shardlens's JSON carries it: `write_key_range_throughput_throttle_events`.
    pub fn snake_name(self) -> String {
        let mut out = String::new();
        for (i, c) in self.name().chars().enumerate() {
            if c.is_ascii_uppercase() {
                if i > 0 {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }

    /// The reason a throttled request carries for these events on `resource`.
    pub fn reason(self, resource: ThrottleResource) -> ThrottleReason {
        ThrottleReason {
            resource,
            op: self.op,
            cause: self.cause,
        }
    }

    /// In words: "KeyRange write", "Provisioned read", "AccountLimit write", "MaxOnDemand read".
    pub fn short(self) -> String {
        let cause = match self.cause {
            ThrottleCause::ProvisionedThroughputExceeded => "Provisioned",
            ThrottleCause::AccountLimitExceeded => "AccountLimit",
            ThrottleCause::KeyRangeThroughputExceeded => "KeyRange",
            ThrottleCause::MaxOnDemandThroughputExceeded => "MaxOnDemand",
        };
        let op = match self.op {
            ThrottleOp::Read => "read",
            ThrottleOp::Write => "write",
        };
        format!("{cause} {op}")
    }

    /// A hot partition (sharding can help), as opposed to the table's or the account's limit.
    pub fn is_key_range(self) -> bool {
        self.cause == ThrottleCause::KeyRangeThroughputExceeded
    }
}

impl From<ThrottleReason> for ReasonMetric {
    fn from(r: ThrottleReason) -> Self {
        Self {
            op: r.op,
            cause: r.cause,
        }
    }
}
