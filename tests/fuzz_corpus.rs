//! Replays the fuzz corpora without a fuzzer: every file under `fuzz/seeds/<target>/`, `fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/` goes through the same function the fuzz target calls
//! (`fuzz/src/targets.rs`, included here by path), so a plain `cargo test` checks that no saved input panics
//! or breaks a law the targets assert. `scripts/fuzz.sh` runs the fuzzers themselves.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a failed step fails the test

#[path = "../fuzz/src/targets.rs"]
mod targets;

use std::path::Path;

/// The files of `fuzz/<kind>/<target>/`, sorted (none when the folder does not exist).
fn inputs(kind: &str, target: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let (_, run) = targets::ALL
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a target of fuzz/src/targets.rs");
    let mut n = 0;
    for kind in ["seeds", "corpus", "regressions"] {
        for path in inputs(kind, target) {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{target}: {} fails", path.display());
            n += 1;
        }
    }
    assert!(n > 0, "{target}: no saved inputs under fuzz/");
}

macro_rules! replays {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                replay(stringify!($name));
            }
        )*

        /// Every target of `fuzz/src/targets.rs` has its replay test here.
        #[test]
        fn every_target_is_replayed() {
            let here = [$(stringify!($name)),*];
            for (name, _) in targets::ALL {
                assert!(here.contains(&name), "no replay test for fuzz target {name}");
            }
        }
    };
}

replays!(
    lines,
    number,
    csv,
    dynamodb_json,
    fast_json,
    json_doc,
    ion,
    incremental_export,
    workbench,
    s3_manifest,
    scenario,
    keyexpr,
    session,
    ion_rs,
    trace,
    trace_log,
    scenario_trace,
    share_link,
    app_state,
);
