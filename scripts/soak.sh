#!/usr/bin/env bash
# The long soak of a watch (issue 61; docs/reliability.md, "A watch that runs for a day"): a day of a
# simulated DynamoDB Stream (a day of history, then 24 hours written while watched: shards rolling over and
# splitting every hour, iterators expiring, throttling bursts, trimmed records, children listed late) read by
# the watch's reader and feed on tokio's paused clock, with RSS each simulated hour and exact counts at the
# end; then the app's frames while its watch reads such a stream. Release build.
#
#   scripts/soak.sh                 # 40 records/s over 1,000,000 keys
#   SHARDLENS_SOAK_RATE=10 SHARDLENS_SOAK_KEYS=100000 scripts/soak.sh
#   scripts/soak.sh soak            # only the reader's soak; `watch` only the app's frames
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir="${CARGO_TARGET_DIR:-target}"
cargo build --release --locked --features bench --bin shardlens-bench
bench="$target_dir/release/shardlens-bench"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(soak watch)
for part in "${parts[@]}"; do
    "$bench" "$part"
done
