//! The fuzz targets' bodies, shared with the corpus replay test (`tests/fuzz_corpus.rs`), which includes
//! `targets.rs` by path so that a plain `cargo test` runs the same code on the saved corpora.

pub mod targets;
