#!/usr/bin/env bash
# Loading a CSV file: `shardlens analyze FILE.csv` timed for each binary given (default: the headless release
# build of this tree), on the same generated file; prints figures. Used to compare the `csv` crate reader with
# the hand-written one it replaced: build the older commit's binary and pass both.
#
#   benches/csv_load.sh [BIN…]      (1,000,000 rows: key,count and three text columns, one quoted field each)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
if [ $# -eq 0 ]; then
  cargo build --release --no-default-features --bin shardlens >&2
  set -- "$TARGET/release/shardlens"
fi
FILE="$TARGET/tmp/csv-bench-1000000.csv"
mkdir -p "$TARGET/tmp"
if [ ! -f "$FILE" ]; then
  python3 - "$FILE" <<'PY'
import random, sys
rng = random.Random(3)
with open(sys.argv[1], "w") as f:
    f.write("pk,count,name,city,note\n")
    for i in range(1_000_000):
        r = min(int(rng.paretovariate(1.1)), 200_000)
        f.write(f'user#{r:06},{1 + i % 5},name {i},"City, {i % 977}","say ""hi"" {i}"\n')
PY
fi
python3 - "$FILE" "$@" <<'PY'
import json, os, subprocess, sys
path, bins = sys.argv[1], sys.argv[2:]
print(f"{path}: {os.path.getsize(path)/1e6:.0f} MB, 1,000,000 rows")
ref = None
for b in bins:
    doc = json.loads(subprocess.run([b, "analyze", path, "--format", "json", "--top", "1"], check=True,
                                    capture_output=True).stdout)
    got = (doc["total"], doc["distinct"])
    assert ref is None or got == ref, (b, got, ref)
    ref = got
    best = None
    for _ in range(3):
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", b, "analyze", path, "--format", "json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
        wall, rss = p.stderr.strip().splitlines()[-1].split()
        best = min(best or 1e9, float(wall))
    print(f"  {b}: {best:.2f} s best of 3 (total {got[0]:,}, distinct {got[1]:,})")
PY
