//! shardlens: see how DynamoDB partition keys spread over partitions.
//!
//! The crate is laid out in three layers, and data flows one way through them:
//!
//! - [`model`] is pure logic: key canonicalisation ([`model::key`]), the compact key set
//!   ([`model::keyset`]), the teaching hash and partition ranges ([`model::partition`]), write sharding
//!   ([`model::shard`]), statistics ([`model::stats`]), capacity per partition ([`model::capacity`]: a
//!   workload's read and write units against each partition's 3,000 / 1,000 units per second), the decision
//!   tree ([`model::decision`]), the chart's colours by the tree's rules ([`model::heat`]), sort keys that look
//!   time-ordered ([`model::sortkey`]), the teaching scenarios ([`model::scenario`]) and the time simulation
//!   ([`model::simulate`], its scenario files [`model::sim_file`] and built-in ones [`model::sim_examples`]).
//!   No UI, async or AWS imports.
//! - [`source`] does I/O: it streams files, folders and standard input into a [`model::KeySet`], and reads live
//!   DynamoDB tables ([`source::dynamo`]: the AWS SDK wrapped once, with its own tokio runtime, read-only).
//!   Line formats read a line at a time; whole JSON documents (arrays of items, scan pages, request files)
//!   are cut into items by a streaming splitter ([`source::json_stream`], [`source::json_doc`]) so both go
//!   through the same item reader and a multi-GB file never sits in memory. [`source::sql`] writes the
//!   Athena and DuckDB queries that aggregate an export where it lives.
//! - `app` (feature `gui`) draws: eframe/egui panels over plain state, background jobs for heavy work.
//! - [`cli`] prints the model's results headless (`shardlens analyze`, `shardlens scan`, `shardlens tables`,
//!   `shardlens sql`; `shardlens simulate` in [`simulate_cli`]).
//!
//! The hash is a teaching hash (xxh3-64 over a key's canonical bytes), not DynamoDB's internal one: it shows
//! how keys spread, not which partition a real table would pick.

#[cfg(feature = "gui")]
pub mod app;
pub mod cli;
pub mod model;
pub mod simulate_cli;
pub mod source;
