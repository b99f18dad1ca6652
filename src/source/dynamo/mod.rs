//! Live DynamoDB tables through the AWS SDK, read-only: ListTables, DescribeTable and a keys-only
//! parallel Scan, gently (a read-capacity cap), with progress and cancellation.
//!
//! AWS access is wrapped once, here: [`DynamoClient`] owns the SDK client *and* a small tokio runtime, so
//! callers (the app's background thread, the CLI) use plain blocking methods and the rest of the crate stays
//! free of async. The only DynamoDB operations this module can send are `ListTables`, `DescribeTable` and
//! `Scan`; the minimal IAM policy is `dynamodb:ListTables`, `dynamodb:DescribeTable`, `dynamodb:Scan`.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use shardlens::source::dynamo::{ConnectOptions, DynamoClient, ScanEvent, ScanOptions};
//!
//! # fn main() -> Result<(), shardlens::source::dynamo::DynamoError> {
//! let client = DynamoClient::connect(&ConnectOptions {
//!     profile: Some("dev".into()),
//!     region: Some("eu-west-1".into()),
//!     ..ConnectOptions::default()
//! })?;
//! for name in client.list_tables()? {
//!     let table = client.describe_table(&name)?;
//!     println!("{}", table.describe_keys());
//! }
//! let cancel = AtomicBool::new(false);
//! let scanned = client.scan(&ScanOptions::new("Orders"), &cancel, &mut |event| {
//!     if let ScanEvent::Page { keys, progress, .. } = event {
//!         // merge `keys` (this page's keys) into a live histogram; show `progress`
//!         let _ = (keys, progress);
//!     }
//! })?;
//! println!("{} items, {}", scanned.progress.items, scanned.status.describe());
//! # Ok(()) }
//! ```
//!
//! - Connection: [`ConnectOptions`] → [`DynamoClient::connect`] uses the default `aws-config` chain
//!   (environment, shared profiles, SSO, `credential_process`, IMDS), with an optional profile, region and
//!   endpoint URL (`AWS_ENDPOINT_URL_DYNAMODB` is honoured too). Connect, per-attempt and per-operation
//!   timeouts are always set: the SDK has no read timeout by default, and a frozen server must not hang a scan.
//! - Tables: [`DynamoClient::list_tables`] (all pages), [`DynamoClient::describe_table`] → [`TableInfo`].
//! - Scan: [`DynamoClient::scan`] runs `TotalSegments` segments in parallel, projecting only the key attributes,
//!   and reports a [`ScanEvent::Page`] per page.
//! - Key designs: [`ScanOptions::design`] adds the top-level attributes its expressions read to the projection
//!   and keys every item by each of them ([`Scanned::designs`]); [`gsi_designs`] makes the designs of a table's
//!   global secondary indexes from its description (GSIs are sparse: items without the index's key
//!   attributes are counted as absent). The result ([`Scanned`]) always keeps what was read; its
//!   [`ScanStatus`] says whether it is complete, a sample, cancelled or cut short by an error.
//!   [`DynamoClient::scan_to_channel`] is the same over a bounded `std` channel, ending with
//!   [`ScanEvent::Done`]: the shape the app's background jobs use. [`ScanFeed`] merges the pages as they come
//!   and gives a [`ScanSnapshot`] of the scan so far (keys, designs' keys, progress) when asked: what a live
//!   view shows while the scan runs.
//!
//! Files: `table.rs` (connection options and table descriptions, plain values), `client.rs` (the client:
//! tables, and the credentials for a server on this machine), `endpoint.rs` (endpoint URLs), `gsi.rs` (GSIs as key designs), `sdk_pages.rs` (scan
//! pages from the SDK), `scan.rs` (the parallel scan itself, independent of the SDK: segments started, pages
//! merged into keys and designs), `scan_feed.rs` (a scan's pages merged into snapshots for a live view), `segment.rs` (one segment's pages, retries and backoff), `pace.rs` (backoff
//! and the read-capacity limiter), `stream.rs` (a table's stream read, independent of the SDK; what it reports
//! in `stream/report.rs`) over `stream_sdk.rs`, `metrics.rs` (CloudWatch and Contributor Insights: what is read) over
//! `metrics_sdk.rs` (the calls), `error.rs` (errors in short messages) with `sdk_error.rs` (the SDK's errors in
//! them). The SDK's files (`client`, `sdk_pages`, `stream_sdk`, `metrics_sdk`, `sdk_error`) build for the desktop
//! and the CLI only; in a page `web.rs` stands in for the client (docs/web.md).

// The AWS SDK's files: the desktop app and the CLI only (its TLS is C code and it needs the system's sockets).
#[cfg(not(target_arch = "wasm32"))]
mod client;
#[cfg(not(target_arch = "wasm32"))]
mod metrics_sdk;
#[cfg(not(target_arch = "wasm32"))]
mod sdk_error;
#[cfg(not(target_arch = "wasm32"))]
mod sdk_pages;
#[cfg(not(target_arch = "wasm32"))]
mod stream_sdk;
// In a page, what stands in for the client: it cannot be made, and says what to use instead.
#[cfg(target_arch = "wasm32")]
mod web;

mod endpoint;
mod error;
mod gsi;
mod metrics;
mod pace;
mod scan;
mod scan_designs;
mod scan_feed;
mod segment;
mod stream;
mod table;

#[cfg(not(target_arch = "wasm32"))]
pub use client::DynamoClient;
pub use endpoint::validate_endpoint;
pub use error::DynamoError;
pub use gsi::{describe_index, gsi_designs};
pub use metrics::{
    INSIGHTS_COST, Insights, InsightsMode, METRICS, MetricsOptions, MetricsRead, metric_field,
};
pub use scan::{
    Backoff, DEFAULT_MAX_RCU, DEFAULT_SEGMENTS, MAX_SEGMENTS, Page, PageRequest, PageSource,
    RcuLimiter, ScanEvent, ScanOptions, ScanProgress, ScanStatus, Scanned, SegmentProgress,
    SegmentState, run_scan,
};
pub use scan_feed::{ScanFeed, ScanSnapshot};
pub use stream::{
    DEFAULT_MAX_RPS, IteratorAt, RecordsPage, ShardInfo, StreamApi, StreamEvent, StreamOptions,
    StreamProgress, StreamRead, StreamRecord, StreamStart, StreamStatus, run_stream,
};
pub use table::{
    Billing, ConnectOptions, DEFAULT_ATTEMPT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, IndexInfo,
    KeyAttribute, StaticKeys, TableInfo, Throughput,
};
#[cfg(target_arch = "wasm32")]
pub use web::{DynamoClient, LIVE_READS_IN_A_PAGE};
