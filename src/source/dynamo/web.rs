//! In a page, the stand-in for the AWS SDK's client: it has the desktop client's methods, so the app's
//! Connect dialog, scans, stream watches and CloudWatch reads build unchanged, but it cannot be made.
//! [`DynamoClient::connect`] says what to use instead, and a client value never exists, so every other method
//! is unreachable (`match self.never {}`) rather than a second, pretend implementation.
//!
//! Why live reads stay out of a page (docs/web.md, "What runs where"): the SDK's TLS is C code that does not
//! build for wasm32, a page cannot open sockets, DynamoDB sends no CORS headers, and credentials typed into a
//! page would be a worse place for them than `~/.aws`.

use std::convert::Infallible;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;

use super::error::DynamoError;
use super::metrics::{MetricsOptions, MetricsRead};
use super::scan::{ScanEvent, ScanOptions, Scanned};
use super::stream::{StreamEvent, StreamOptions, StreamRead};
use super::table::{ConnectOptions, TableInfo};
use crate::source::Message;

/// What the page says wherever a live read would start.
pub const LIVE_READS_IN_A_PAGE: &str = "Live reads (scan, stream, CloudWatch) need the desktop app or the \
     CLI: a web page cannot reach AWS with your credentials. In the page, open what they save instead: a \
     scan's output, a stream's records, a get-metric-data file, or a session";

/// The client of a page: never made (see the module docs).
pub struct DynamoClient {
    never: Infallible,
}

impl std::fmt::Debug for DynamoClient {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.never {}
    }
}

impl DynamoClient {
    /// Always the error that live reads need the desktop app or the CLI.
    pub fn connect(_: &ConnectOptions) -> Result<Self, DynamoError> {
        Err(DynamoError::Config(Message::new(LIVE_READS_IN_A_PAGE)))
    }

    pub fn region(&self) -> &str {
        match self.never {}
    }

    pub fn endpoint(&self) -> Option<&str> {
        match self.never {}
    }

    pub fn describe_target(&self) -> String {
        match self.never {}
    }

    pub fn list_tables(&self) -> Result<Vec<String>, DynamoError> {
        match self.never {}
    }

    pub fn describe_table(&self, _: &str) -> Result<TableInfo, DynamoError> {
        match self.never {}
    }

    pub fn scan(
        &self,
        _: &ScanOptions,
        _: &AtomicBool,
        _: &mut dyn FnMut(ScanEvent),
    ) -> Result<Scanned, DynamoError> {
        match self.never {}
    }

    pub fn scan_to_channel(&self, _: &ScanOptions, _: &AtomicBool, _: &SyncSender<ScanEvent>) {
        match self.never {}
    }

    pub fn metrics(&self, _: &MetricsOptions) -> Result<MetricsRead, DynamoError> {
        match self.never {}
    }

    pub fn stream(
        &self,
        _: &StreamOptions,
        _: &AtomicBool,
        _: &mut dyn FnMut(StreamEvent),
    ) -> Result<(TableInfo, StreamRead), DynamoError> {
        match self.never {}
    }

    pub fn stream_of(
        &self,
        _: &TableInfo,
        _: &StreamOptions,
        _: &AtomicBool,
        _: &mut dyn FnMut(StreamEvent),
    ) -> Result<StreamRead, DynamoError> {
        match self.never {}
    }
}
