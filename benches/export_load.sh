#!/usr/bin/env bash
# Loading an S3 export folder: `shardlens analyze FOLDER` against `zcat` and DuckDB, in one run; prints figures.
#
#   benches/export_load.sh [ITEMS] [FILES]      (default 2,000,000 items in 8 gzip files, ~400 MB of JSON)
#
# Builds the headless release binary (`--no-default-features`: no GUI, ~2 minutes from scratch), generates the
# export once under $CARGO_TARGET_DIR/tmp (benches/gen_export.py, Zipf keys), checks shardlens' total, distinct
# count and hottest key against the generator's truth, then times each peer with /usr/bin/time -f "%e %M" (wall
# seconds, peak RSS), best and median of 9 interleaved rounds (each peer once a round, in turn):
#   shardlens analyze FOLDER --format json > /dev/null
#   zcat data/*.json.gz > /dev/null                          (decompression alone)
#   DuckDB (installed from PyPI if missing): SELECT Item.pk.S, count(*) FROM read_json('data/*.json.gz') GROUP BY 1
# Goals: wall <= 0.75 x zcat, >= 5 x faster than DuckDB (medians, as issue 26 measured), peak RSS <= 200 MB.
# (`cargo bench` would also build the GUI dev-dependencies, which need system libraries; this script does not.)
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${1:-2000000}
FILES=${2:-8}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --bin shardlens >&2
BIN="$TARGET/release/shardlens"
python3 -c 'import duckdb' 2>/dev/null || python3 -m pip install --quiet duckdb >&2 \
  || python3 -m pip install --quiet --break-system-packages duckdb >&2
ROOT="$TARGET/tmp/export-bench-$ITEMS-$FILES"
if [ ! -f "$ROOT/truth.json" ]; then
  rm -rf "$ROOT"
  echo "generating $ITEMS items in $FILES gzip files under $ROOT" >&2
  python3 benches/gen_export.py "$ROOT" "$ITEMS" "$FILES"
fi

python3 - "$BIN" "$ROOT" <<'PY'
import json, subprocess, sys
sys.path.insert(0, "benches")
from bench_util import check_against_truth, interleaved, spread
bin_, root = sys.argv[1], sys.argv[2]
truth = json.load(open(f"{root}/truth.json"))
gz = sum(__import__("os").path.getsize(f"{root}/data/{f}") for f in __import__("os").listdir(f"{root}/data"))
raw = int(subprocess.run(f"zcat {root}/data/*.json.gz | wc -c", shell=True, capture_output=True, text=True).stdout)
print(f"export: {truth['total']:,} items, {truth['distinct']:,} distinct keys, {gz/1e6:.0f} MB gzip, {raw/1e6:.0f} MB JSON")
check_against_truth(bin_, root, truth)
print(f"shardlens result checked against the generator: total, distinct, hottest key {truth['hot_key']} = {truth['hot_count']:,}")

try:
    import duckdb  # noqa: F401
    have_duck = True
except ImportError:
    have_duck = False
peers = [
    ("shardlens analyze FOLDER --format json", f"{bin_} analyze {root} --format json > /dev/null"),
    ("zcat data/*.json.gz > /dev/null", f"zcat {root}/data/*.json.gz > /dev/null"),
]
if have_duck:
    q = f"SELECT Item.pk.S, count(*) FROM read_json('{root}/data/*.json.gz', format='newline_delimited') GROUP BY 1"
    peers.append(("duckdb read_json ... GROUP BY pk", f"python3 -c \"import duckdb; duckdb.sql(\\\"{q}\\\").fetchall()\""))
print('\nbest (median) of 9 interleaved rounds (/usr/bin/time -f "%e %M"):')
res = {}
for (name, _), m in zip(peers, interleaved([cmd for _, cmd in peers], rounds=9)):
    res[name] = m
    print(f"  {name:<40} {m[0]:>6.2f} s ({m[1]:.2f}) {m[2]:>8.1f} MB peak RSS")
if not have_duck:
    print("  duckdb                                   (not installed: python3 -m pip install duckdb)")
s = res[peers[0][0]]
z = res[peers[1][0]]
r = s[0] / z[0]
print(f"\n  shardlens / zcat wall:    {r:.2f}x best, {s[1] / z[1]:.2f}x median  (goal <= 0.75x: {'met' if r <= 0.75 else 'NOT met'})")
if have_duck:
    d = res[peers[2][0]]
    best, median = d[0] / s[0], d[1] / s[1]
    print(f"  duckdb / shardlens wall:  {best:.2f}x best, {median:.2f}x median  "
          f"(goal >= 5x, as the issue measured it, medians: {'met' if median >= 5 else 'NOT met'})")
print("  medians above best (quiet host: a few per cent): "
      + ", ".join(f"{name.split()[0]} +{pc} %" for (name, _), pc in zip(peers, spread([res[n] for n, _ in peers]))))
print(f"  shardlens peak RSS:       {s[2]:.1f} MB (goal <= 200 MB: {'met' if s[2] <= 200 else 'NOT met'})")
print(f"  shardlens throughput:     {raw/1e6/s[0]:.0f} MB/s of JSON, {truth['total']/1e6/s[0]:.2f} M items/s")
PY
