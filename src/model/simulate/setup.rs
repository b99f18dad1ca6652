//! What a simulation takes and gives: the table, its traffic and our own modelling choices ([`Params`]), and
//! the series, CloudWatch minutes, events and final partitions of a run ([`Outcome`]).

use super::super::capacity::Consistency;

/// Our own modelling choices (R2–R6 "\[ours\]"), with the defaults of `DYNAMODB-TIME.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// R2 \[doc\]: seconds of a partition's unused allocation kept as burst capacity.
    pub burst_seconds: f64,
    /// R4 \[ours\]: a partition is "hot" for split-for-heat while it consumes at least this share of R1.
    pub split_hot_share: f64,
    /// R4 \[ours\]: at most this many seconds of seeded jitter are added to `split_after` (it only delays).
    pub split_jitter_seconds: u32,
    /// R5 \[ours\]: a new peak is adopted this long after it was reached.
    pub peak_adopt_after: u32,
    /// R6 \[doc\]: consecutive minutes above the target before auto scaling raises capacity.
    pub scale_out_minutes: u32,
    /// R6 \[doc\]: consecutive minutes below the target before it lowers capacity.
    pub scale_in_minutes: u32,
    /// R6 \[ours\]: seconds until a new provisioned capacity applies.
    pub scale_apply_delay: u32,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            burst_seconds: 300.0,
            split_hot_share: 0.8,
            split_jitter_seconds: 90,
            peak_adopt_after: 30 * 60,
            scale_out_minutes: 2,
            scale_in_minutes: 15,
            scale_apply_delay: 120,
        }
    }
}

/// How reads and writes share a partition's ceiling (R1 \[ours\] switch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Limits {
    /// 3,000 read units and 1,000 write units, each on its own (today's documentation).
    #[default]
    Independent,
    /// A linear combination: read units / 3,000 + write units / 1,000 ≤ 1 (older Knowledge Center pages).
    Combined,
}

/// Provisioned auto scaling (R6), target tracking on per-minute consumed capacity.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoScaling {
    /// Target utilisation, 0.2–0.9 (default 0.7).
    pub target: f64,
    pub min: [f64; 2],
    pub max: [f64; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub enum Billing {
    /// Provisioned read and write capacity units.
    Provisioned { units: [f64; 2] },
    /// On-demand (R5): twice the previous peak at once, within the account quota and the table's maximum.
    OnDemand {
        previous_peak: [f64; 2],
        quota: [f64; 2],
        /// `MaxOnDemandThroughput`; 0 = none.
        max: [f64; 2],
    },
}

impl Billing {
    /// A new on-demand table: previous peak 6,000 reads / 2,000 writes, quota 40,000 each (R5).
    pub fn on_demand() -> Self {
        Self::OnDemand {
            previous_peak: [6_000.0, 2_000.0],
            quota: [40_000.0, 40_000.0],
            max: [0.0, 0.0],
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub billing: Billing,
    /// Partitions at the start; `None`: from the capacity formula (provisioned) or the warm throughput
    /// (on-demand), as in DYNAMODB-FACTS.
    pub partitions: Option<usize>,
    /// A local secondary index: item collections are never split (R3, R4).
    pub lsi: bool,
    /// R3: off is "before adaptive capacity": each partition gets its share plus burst only.
    pub adaptive_capacity: bool,
    pub split_for_heat: bool,
    /// R4 \[ours\]: sustained hot time before a split (default 8 minutes).
    pub split_after: u32,
    /// Idle seconds before t = 0, which fill the burst banks (R2).
    pub idle_before: u32,
    pub limits: Limits,
    pub autoscaling: Option<AutoScaling>,
    /// R8: the table's storage at t = 0, GB (1 GB = 2³⁰ bytes): it starts with at least ⌈size / 10 GB⌉
    /// partitions. 0 = empty.
    pub size_gb: f64,
    /// R8 \[ours\]: storage added per day, GB, spread over the key space; 0 = none. The traffic's writes add
    /// nothing by themselves: a scenario does not say which writes insert items and which overwrite them.
    pub growth_gb_per_day: f64,
}

impl Table {
    /// The same table on-demand (a what-if of a replay): a new on-demand table's warm throughput, no auto
    /// scaling.
    #[must_use]
    pub fn on_demand(&self) -> Self {
        Self {
            billing: Billing::on_demand(),
            autoscaling: None,
            ..self.clone()
        }
    }

    /// The same table with twice its capacity (a what-if of a replay): twice the provisioned units, or
    /// on-demand twice the previous peak, and twice the partitions when they are given.
    #[must_use]
    pub fn twice_the_capacity(&self) -> Self {
        let double = |x: [f64; 2]| [x[0] * 2.0, x[1] * 2.0];
        let billing = match &self.billing {
            Billing::Provisioned { units } => Billing::Provisioned {
                units: double(*units),
            },
            Billing::OnDemand {
                previous_peak,
                quota,
                max,
            } => Billing::OnDemand {
                previous_peak: double(*previous_peak),
                quota: *quota,
                max: *max,
            },
        };
        Self {
            billing,
            partitions: self.partitions.map(|p| p * 2),
            ..self.clone()
        }
    }
}

impl Default for Table {
    fn default() -> Self {
        Self {
            billing: Billing::on_demand(),
            partitions: None,
            lsi: false,
            adaptive_capacity: true,
            split_for_heat: true,
            split_after: 8 * 60,
            idle_before: 5 * 60,
            limits: Limits::Independent,
            autoscaling: None,
            size_gb: 0.0,
            growth_gb_per_day: 0.0,
        }
    }
}

/// How a key's items are written along its sort-key range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    /// New items anywhere in the range: split-for-heat can divide the collection.
    #[default]
    Random,
    /// Each new item is the greatest (timestamps): all writes at the end of the range.
    Monotonic,
    /// One item, written again and again.
    SingleItem,
}

/// The keys of a stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Keys {
    /// One partition key; `{date}` becomes the simulated day (`YYYY-MM-DD`, UTC).
    One(String),
    /// Keys with their shares of the stream (they need not sum to 1).
    Weighted(Vec<(String, f64)>),
    /// N distinct keys `key#0 … key#N-1` with equal shares.
    Uniform(u32),
    /// One key that the teaching hash puts in partition `p` of the table's first partitions (for teaching
    /// examples that load one partition: "partition 4 gets 150 WCU/s").
    InPartition(usize),
}

/// A rate over time: `(second, rate)` points, the rate holding until the next point; 0 before the first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schedule(pub Vec<(u32, f64)>);

impl Schedule {
    pub fn constant(rate: f64) -> Self {
        Self(vec![(0, rate)])
    }

    pub fn at(&self, t: u32) -> f64 {
        let i = self.0.partition_point(|&(s, _)| s <= t);
        if i == 0 { 0.0 } else { self.0[i - 1].1 }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub keys: Keys,
    pub reads_per_sec: Schedule,
    pub writes_per_sec: Schedule,
    pub item_size: u64,
    pub consistency: Consistency,
    pub sort_key: SortKey,
    pub from: u32,
    pub until: Option<u32>,
}

impl Default for Stream {
    fn default() -> Self {
        Self {
            keys: Keys::One("key".to_owned()),
            reads_per_sec: Schedule::default(),
            writes_per_sec: Schedule::default(),
            item_size: 1024,
            consistency: Consistency::Strong,
            sort_key: SortKey::Random,
            from: 0,
            until: None,
        }
    }
}

/// Everything a run needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    pub table: Table,
    pub traffic: Vec<Stream>,
    /// Seconds simulated.
    pub duration: u32,
    /// Seconds per output point of the series (1 or 60).
    pub step: u32,
    /// The simulated clock at t = 0, Unix seconds (for `{date}` keys).
    pub start: i64,
    pub seed: u64,
    pub params: Params,
    /// Real traffic replayed beside the streams ([`crate::model::trace`]): its t = 0 is the run's.
    pub trace: Option<std::sync::Arc<crate::model::trace::Trace>>,
}

/// Something that happened, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub t: u32,
    pub kind: EventKind,
    /// The partition's index in hash order at that moment, when the event is about one.
    pub partition: Option<usize>,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Split,
    SplitSkipped,
    BurstExhausted,
    Scale,
    PeakAdopted,
    KeyRotated,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Split => "split",
            Self::SplitSkipped => "split-skipped",
            Self::BurstExhausted => "burst-exhausted",
            Self::Scale => "scale",
            Self::PeakAdopted => "peak-adopted",
            Self::KeyRotated => "key-rotated",
        }
    }
}

/// Table-wide values per output step (per-second rates, averaged over a step of a minute).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    pub t: Vec<u32>,
    pub read_demand_units: Vec<f64>,
    pub read_served_units: Vec<f64>,
    pub read_throttled_units: Vec<f64>,
    pub write_demand_units: Vec<f64>,
    pub write_served_units: Vec<f64>,
    pub write_throttled_units: Vec<f64>,
    pub throttled_requests: Vec<f64>,
    pub partitions: Vec<usize>,
}

/// One CloudWatch-style minute (R7): sums of consumed units and throttled requests, by reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Minute {
    /// The minute's first second in the run: the start of a whole UTC minute (`start + t` is `hh:mm:00`,
    /// as CloudWatch's minutes are), or 0 for the partial first minute of a run that starts mid-minute.
    pub t: u32,
    pub consumed_read_units: f64,
    pub consumed_write_units: f64,
    pub read_throttle_events: f64,
    pub write_throttle_events: f64,
    /// Reason (e.g. `TableWriteKeyRangeThroughputExceeded`) → throttled requests.
    pub throttle_reasons: Vec<(String, f64)>,
}

/// A partition at the end of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalPartition {
    /// First hash of its range, and where in that key's sort-key range it starts (0 = the whole key).
    pub start_hash: u64,
    pub start_sort_key: f64,
    /// Units per second provisioned to it (provisioned tables) or its ceiling (on-demand).
    pub read_units: f64,
    pub write_units: f64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub step_seconds: u32,
    pub series: Series,
    pub minutes: Vec<Minute>,
    pub events: Vec<Event>,
    pub final_partitions: Vec<FinalPartition>,
}
