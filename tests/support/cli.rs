//! Helpers shared by the tests that run the real `shardlens` binary (`tests/cli.rs`, `tests/loaders.rs`,
//! `tests/capacity.rs`). Included with `#[path = "support/cli.rs"] mod support;`; each test file uses some.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_shardlens"))
}

/// Runs the binary with `args`.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// A fresh folder under the target's temporary folder, unique to this test process.
pub fn temp_dir(group: &str, name: &str) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("{group}-{name}-");
    // Earlier runs' folders for this test (their process is gone) are removed, so they do not pile up.
    for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        let gone = pid.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
        });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    let dir = root.join(format!("{prefix}{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The JSON a successful run printed; a failed run fails the test with its exit status and stderr.
pub fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The bucket of a key, computed here independently of the crate: xxh3-64, then `(h × n) >> 64`.
pub fn bucket_of(key: &str, n: u64) -> usize {
    let h = xxhash_rust::xxh3::xxh3_64(key.as_bytes());
    ((u128::from(h) * u128::from(n)) >> 64) as usize
}
