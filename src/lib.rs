//! shardlens: see how DynamoDB partition keys spread over partitions.
//!
//! The crate is laid out in layers, and data flows one way through them: sources produce a [`model::KeySet`];
//! the model turns a key set and view settings into plain results; the app and the CLI only draw or print them.
//!
//! - [`model`] is pure logic, with no UI, async or AWS imports:
//!   - keys and key sets: canonical keys ([`model::key`]) and byte comparisons ([`model::bytes`]), the
//!     compact key set ([`model::keyset`]), the plain-text format ([`model::text`]), item collections in
//!     sort-key order ([`model::collection`]) and sort keys that look time-ordered ([`model::sortkey`]);
//!   - the analysis: the teaching hash (and `mix64`, the integer mix the other modules seed with) and partition
//!     ranges ([`model::partition`]), write sharding ([`model::shard`], with the `--shard-by` hashes it splits
//!     by), statistics ([`model::stats`]), and [`model::report`], which puts them together;
//!   - capacity per partition ([`model::capacity`], by concept: `units` of one request, the `workload` and its
//!     partition plan, `compute`, observed `throttle` reasons) against each partition's 3,000 / 1,000 units per
//!     second;
//!   - the decision tree ([`model::decision`], by concept: the `tree` as data, the `evidence`, the user's and
//!     the data's `answers`, the `path` walked by [`model::evaluate`], the `advice` text), the chart's colours
//!     by its rules ([`model::heat`]);
//!   - the time simulation ([`model::simulate`]: `setup` holds what a run takes and gives, `timeline` what the
//!     Timeline view draws; its scenario files [`model::sim_file`]) and the real traffic it replays
//!     ([`model::trace`]; `simulate::observed` holds a replay's minutes against CloudWatch's observed ones);
//!   - the built-in examples ([`model::examples`]: the teaching key sets `keys`, the key-design examples with
//!     whole items `design`, the scenarios over time `time`);
//!   - key expressions that build a partition key from an item's attributes ([`model::keyexpr`]: `value`,
//!     `parser`, `dates`; the loaders extract what they read), on the shared calendar ([`model::calendar`]);
//!   - output shared by the app and the CLI: the report as a document and CSV ([`model::export`]) and numbers
//!     in words ([`model::fmt`]: counts, bytes, percentages, units).
//! - [`source`] does I/O: [`source::load`] streams files, folders and standard input into a key set
//!   ([`source::detect`] guesses each format; one module per format; every format's loader takes one
//!   [`source::read::FileLoad`] and feeds a [`source::sink::Sink`]), and [`source::dynamo`] reads live DynamoDB
//!   tables (the AWS SDK wrapped once, with its own tokio runtime, read-only). Line formats read a line at a
//!   time; whole JSON documents (arrays of items, scan pages, request files) are cut into items by a streaming
//!   splitter ([`source::json::json_stream`], [`source::json::json_doc`]) so both go through the same item
//!   reader and a multi-GB file never sits in memory; the JSON readers are together in [`source::json`]. A load
//!   with a key design ([`model::design`]) also extracts the top-level attributes the design reads into the item
//!   reader's [`source::json::item::Scratch`] (`source/json/extract.rs` for typed and plain JSON, with the JSON
//!   fast path; Ion and CSV in their modules). [`source::trace`] reads records of real traffic (Streams,
//!   incremental exports, request logs, CloudWatch, Contributor Insights) into a trace. [`source::sql`] writes the Athena and DuckDB queries that aggregate an
//!   export where it lives; [`source::session`] reads and writes the app's settings and session files (here so the
//!   headless build and the fuzz targets read them too). What a message tells the user to do is data
//!   ([`source::hint`]: a [`source::Hint`] in a [`source::Message`]), said as a flag by the CLI and as a
//!   control by the app.
//! - `app` (feature `gui`) draws, split by role as rerun's viewer is: `app/mod.rs` holds the `App` struct
//!   (its state grouped by role: persisted `Settings`, the keys' `Data`, the `Pipeline` from input to report,
//!   everything running in the `Background`, per-panel state in `Panels`), its construction and accessors and
//!   `impl eframe::App`; `logic` the per-frame work that does not draw; `command_handling` applying the
//!   `Command`s that panels return (`command`: the one way to ask, with the `UICommand` table that menus,
//!   shortcuts and Help loop over); `ui` the layout, one function per panel; `tasks` the one helper every
//!   background thread is; `assets` the icon and fonts; one file per panel (editor, histogram, inspector,
//!   Table health beside it (`health`), controls, decision tree, connect, table picker, `timeline/` for the time simulation's view), the compute
//!   worker and loads (`jobs`), file dialogs with the path field that stands in for them (`dialogs/`), notices
//!   (with the window's words for a source's hints), a task's error typed until a notice says it (`error`),
//!   settings and the theme.
//! - [`cli`] prints the model's results headless (`shardlens analyze`, `scan`, `tables`, `sql`, `simulate`), by
//!   concept: `args` (clap parses straight into the model's enums, `values`), `commands` (and `simulate`, with
//!   its own arguments and story), and the output computed once and written as a table, JSON or CSV (`output`,
//!   `table`, `json`).
//!
//! The hash is a teaching hash (xxh3-64 over a key's canonical bytes), not DynamoDB's internal one: it shows
//! how keys spread, not which partition a real table would pick.

// Non-test functions are still held to 80 lines (clippy.toml): clippy checks the build without `cfg(test)` too.
#![cfg_attr(
    test,
    allow(
        clippy::too_many_lines,
        reason = "a test is one story told step by step"
    )
)]

#[cfg(feature = "gui")]
pub mod app;
pub mod cli;
pub mod model;
pub mod source;
