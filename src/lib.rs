//! shardlens: see how DynamoDB partition keys spread over partitions.
//!
//! The crate is laid out in layers, and data flows one way through them: [`source`] reads files, folders,
//! standard input and live tables into a [`model::KeySet`] (and traffic into a trace); [`model`] turns them
//! into plain results, with no I/O, threads or UI; `app` (feature `gui`) draws them and [`cli`] prints them.
//! The map of the modules, how a click becomes a report on screen and the house rules are in `ARCHITECTURE.md`
//! at the root of the repository: the one map, which `tests/house.rs` checks names every module.

// No unsafe code in shardlens: it lives in crates/ (see the root Cargo.toml's lints).
#![forbid(unsafe_code)]
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
// The command line: not in a page (docs/web.md).
#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
pub mod model;
pub mod source;
