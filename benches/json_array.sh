#!/usr/bin/env bash
# A pretty-printed JSON array of typed items against the same items as DynamoDB JSON lines, in one run; prints
# figures.
#
#   benches/json_array.sh [ITEMS]      (default 2,000,000 items: ~1 GB pretty-printed, ~0.5 GB of lines)
#
# Builds the headless release binary (`--no-default-features`), generates both files once under
# $CARGO_TARGET_DIR/tmp (benches/gen_json_array.py, Zipf keys), checks shardlens' total, distinct count and
# hottest key on both against the generator's truth, then times each with /usr/bin/time -f "%e %M" (wall
# seconds, peak RSS), best of 3 runs:
#   shardlens analyze lines.json --format json > /dev/null      (DynamoDB JSON lines)
#   shardlens analyze array.json --format json > /dev/null      (the same items, one pretty-printed array)
# Goals (issue 26): the array loads at >= 75 % of the lines' speed (items per second), peak RSS <= 200 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${1:-2000000}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --bin shardlens >&2
BIN="$TARGET/release/shardlens"
ROOT="$TARGET/tmp/json-array-bench-$ITEMS"
if [ ! -f "$ROOT/truth.json" ]; then
  rm -rf "$ROOT"
  echo "generating $ITEMS items under $ROOT" >&2
  python3 benches/gen_json_array.py "$ROOT" "$ITEMS"
fi

python3 - "$BIN" "$ROOT" <<'PY'
import json, os, sys
sys.path.insert(0, "benches")
from bench_util import best_of, check_against_truth
bin_, root = sys.argv[1], sys.argv[2]
truth = json.load(open(f"{root}/truth.json"))
arr, lines = f"{root}/array.json", f"{root}/lines.json"
print(f"items: {truth['total']:,} ({truth['distinct']:,} distinct keys); array.json {os.path.getsize(arr)/1e6:.0f} MB "
      f"pretty-printed, lines.json {os.path.getsize(lines)/1e6:.0f} MB")
for path in (arr, lines):
    check_against_truth(bin_, path, truth)
print("both results checked against the generator: total, distinct, hottest key")

l, a = (best_of(f"{bin_} analyze {p} --format json > /dev/null") for p in (lines, arr))
n = truth["total"] / 1e6
print('\nbest of 3 runs (/usr/bin/time -f "%e %M"):')
print(f"  DynamoDB JSON lines        {l[0]:>6.2f} s  {n / l[0]:.2f} M items/s  {l[1]:>7.1f} MB peak RSS")
print(f"  pretty-printed JSON array  {a[0]:>6.2f} s  {n / a[0]:.2f} M items/s  {a[1]:>7.1f} MB peak RSS"
      f"  ({os.path.getsize(arr) / 1e6 / a[0]:.0f} MB/s of JSON)")
r = l[0] / a[0]
print(f"\n  array speed / lines speed: {r * 100:.0f} %  (goal >= 75 %: {'met' if r >= 0.75 else 'NOT met'})")
print(f"  array peak RSS:            {a[1]:.1f} MB (goal <= 200 MB: {'met' if a[1] <= 200 else 'NOT met'})")
PY
