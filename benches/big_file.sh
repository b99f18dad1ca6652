#!/usr/bin/env bash
# Memory stays bounded however big the file: the same items once (~0.9 GB) and six times over (~5.4 GB of
# DynamoDB JSON lines), and the six times as one JSON array of typed items (~5.2 GB, a single document); prints
# each file's size, wall time and peak RSS. Keys are the same in all three (1,000,000 possible partition keys),
# so a loader that streams has the same peak RSS for all of them, and one that holds the file grows with it.
#
#   benches/big_file.sh [ITEMS]    (default 5,000,000 items in the small file; needs ~12 GB of free disk)
#
# Builds the headless release binary (`--no-default-features`); the files go under $CARGO_TARGET_DIR/tmp and
# are removed at the end (set KEEP=1 to keep them). Peak RSS by /usr/bin/time -f "%e %M".
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${1:-5000000}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --bin shardlens >&2
BIN="$TARGET/release/shardlens"
ROOT="$TARGET/tmp/big-file-bench-$ITEMS"
mkdir -p "$ROOT"
one="$ROOT/once.json" six="$ROOT/six.json" array="$ROOT/six-array.json"
[ -f "$one" ] || python3 benches/gen_big_lines.py "$ITEMS" "$one"
[ -f "$six" ] || for _ in 1 2 3 4 5 6; do cat "$one"; done >"$six"
if [ ! -f "$array" ]; then
  # The records' items, comma-separated, one per line: `{"Item":{…}}` → `{…}`.
  { echo '['; sed -e 's/^{"Item"://' -e 's/}$//' -e '$!s/$/,/' "$six"; echo ']'; } >"$array"
fi
printf '%-16s %8s %8s %8s %10s\n' file GB seconds "RSS MB" items
for f in "$one" "$six" "$array"; do
  t=$( { /usr/bin/time -f "%e %M" "$BIN" analyze "$f" --format json >"$ROOT/out.json"; } 2>&1 | tail -1)
  python3 - "$f" "$ROOT/out.json" $t <<'PY'
import json, os, sys
path, out, secs, rss_kb = sys.argv[1:5]
items = json.load(open(out))["total"]
print(f"{os.path.basename(path):<16} {os.path.getsize(path) / 1e9:8.2f} {float(secs):8.1f} {int(rss_kb) / 1024:8.0f} {items:>10}")
PY
done
[ "${KEEP:-0}" = 1 ] || rm -rf "$ROOT"
