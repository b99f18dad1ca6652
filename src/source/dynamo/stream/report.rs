//! What a stream's read reports: its figures as it goes ([`StreamProgress`], in each [`StreamEvent`]) and how
//! it ended ([`StreamRead`], [`StreamStatus`]).

use std::time::Duration;

use super::super::error::DynamoError;

/// Figures of a read so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamProgress {
    pub records: u64,
    /// GetRecords calls answered.
    pub calls: u64,
    /// Shard iterators obtained (a shard's first, and renewals): with one per shard, reading has begun.
    pub iterators: u64,
    /// Calls retried after throttling or transient errors.
    pub retries: u64,
    /// Iterators renewed (expired, or about to).
    pub renewed: u64,
    /// Records dropped because their shard had already given them (a renewed iterator's overlap).
    pub duplicates: u64,
    /// Shards being read, and shards read to their end.
    pub shards_reading: u32,
    pub shards_done: u32,
    pub elapsed: Duration,
}

impl StreamProgress {
    /// `1,204 records · 2 shards · 35 calls` for a status line.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} · {} read{} · {}",
            crate::model::fmt::plural(self.records, "record"),
            crate::model::fmt::plural(u64::from(self.shards_reading), "shard"),
            if self.shards_done > 0 {
                format!(", {} closed and read", self.shards_done)
            } else {
                String::new()
            },
            crate::model::fmt::plural(self.calls, "GetRecords call"),
        );
        if self.retries > 0 {
            s.push_str(&format!(" · {} retried", self.retries));
        }
        if self.renewed > 0 {
            s.push_str(&format!(
                " · {} renewed",
                crate::model::fmt::plural(self.renewed, "iterator")
            ));
        }
        s
    }
}

/// What a read reports as it goes.
#[derive(Debug, Clone)]
pub enum StreamEvent {
    /// New records (in shard order; shards interleave), with the figures so far.
    Records {
        records: Vec<serde_json::Value>,
        progress: StreamProgress,
    },
    /// The figures changed without records (a retry, a shard closed).
    Progress(StreamProgress),
}

/// How a read ended.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamStatus {
    /// The duration asked for has passed.
    Finished,
    /// Every shard is closed and read (the stream was disabled).
    Closed,
    Cancelled,
    /// A call failed for good; the records read before it are kept.
    Failed(DynamoError),
}

impl StreamStatus {
    pub fn describe(&self) -> String {
        match self {
            Self::Finished => "finished".to_owned(),
            Self::Closed => "every shard closed and read (the stream is disabled)".to_owned(),
            Self::Cancelled => "stopped".to_owned(),
            Self::Failed(e) => format!("stopped by an error: {e}"),
        }
    }
}

/// The end of a read (the records went out as events).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRead {
    pub status: StreamStatus,
    pub progress: StreamProgress,
    /// What happened that a reader should know (trimmed records, describe failures), each once.
    pub notes: Vec<String>,
}
