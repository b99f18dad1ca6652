#!/usr/bin/env bash
# One large uncompressed file of DynamoDB JSON lines: `shardlens analyze FILE` on every core against one core and
# DuckDB's GROUP BY over the same file, in one run; prints figures.
#
#   benches/json_lines.sh [ITEMS]      (default 2,000,000 items, ~470 MB: an export's items in one file)
#
# Builds the headless release binary (`--no-default-features`), installs DuckDB from PyPI if it is missing,
# generates the file once under $CARGO_TARGET_DIR/tmp (benches/gen_export.py's items as one data file,
# decompressed: every item once), checks shardlens' total, distinct count and hottest key against the
# generator's truth and that one core gives the same output to the byte, then times each peer with
# /usr/bin/time -f "%e %M" (wall seconds, peak RSS), interleaved, best (and median) of 5 runs:
#   shardlens analyze items.json --format json > /dev/null            (stretches on every core)
#   taskset -c 0 shardlens analyze items.json --format json           (one core: one reader, as before)
#   DuckDB, one query in a fresh process, both cores, and its query alone timed inside that process:
#     SELECT Item.pk.S, count(*) FROM read_json(items.json, format='newline_delimited') GROUP BY 1
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${1:-2000000}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --bin shardlens >&2
BIN="$TARGET/release/shardlens"
python3 -c 'import duckdb' 2>/dev/null || python3 -m pip install --quiet duckdb >&2 \
  || python3 -m pip install --quiet --break-system-packages duckdb >&2
ROOT="$TARGET/tmp/json-lines-bench-$ITEMS"
if [ ! -f "$ROOT/truth.json" ]; then
  rm -rf "$ROOT"
  echo "generating $ITEMS items in one file under $ROOT" >&2
  python3 benches/gen_export.py "$ROOT/export" "$ITEMS" 1
  zcat "$ROOT"/export/data/*.json.gz > "$ROOT/items.json"
  mv "$ROOT/export/truth.json" "$ROOT/truth.json"
  rm -rf "$ROOT/export"
fi

python3 - "$BIN" "$ROOT" <<'PY'
import json, os, shlex, subprocess, sys
sys.path.insert(0, "benches")
from bench_util import check_against_truth, timed_with_query as timed
import duckdb
bin_, root = sys.argv[1], sys.argv[2]
truth = json.load(open(f"{root}/truth.json"))
items = f"{root}/items.json"
print(f"file: {truth['total']:,} items, {truth['distinct']:,} distinct keys, {os.path.getsize(items)/1e6:.0f} MB; "
      f"{os.cpu_count()} cores; DuckDB {duckdb.__version__}")
check_against_truth(bin_, items, truth)
both = subprocess.run([bin_, "analyze", items, "--format", "json"], check=True, capture_output=True).stdout
one = subprocess.run(["taskset", "-c", "0", bin_, "analyze", items, "--format", "json"], check=True,
                     capture_output=True).stdout
assert both == one, "every core and one core disagree"
print("shardlens checked against the generator (total, distinct, hottest key); one core's output is the same to the byte")

query = f"SELECT Item.pk.S, count(*) FROM read_json('{items}', format='newline_delimited') GROUP BY 1"
duck_py = ("import duckdb, sys, time\n"
           "con = duckdb.connect()\n"
           "t = time.perf_counter()\n"
           f"rows = con.sql({query!r}).fetchall()\n"
           "sys.stderr.write(f'query {time.perf_counter() - t}\\n')\n"
           "print(len(rows))\n")
got = subprocess.run(["python3", "-c", duck_py], check=True, capture_output=True, text=True).stdout.split()
assert int(got[0]) == truth["distinct"], (got, truth)
print("DuckDB's result checked too: distinct keys")

peers = {
    "every core": f"{bin_} analyze {items} --format json > /dev/null",
    "one core": f"taskset -c 0 {bin_} analyze {items} --format json > /dev/null",
    "duckdb": f"python3 -c {shlex.quote(duck_py)} > /dev/null",
}
runs = {name: [] for name in peers}
for _ in range(5):
    for name, cmd in peers.items():
        runs[name].append(timed(cmd))
best = {name: min(r, key=lambda m: m[0]) for name, r in runs.items()}
med = lambda xs: sorted(xs)[len(xs) // 2]
duck_q = min(m[2] for m in runs["duckdb"])
print('\nbest (median) of 5 interleaved runs, wall seconds and peak RSS (/usr/bin/time -f "%e %M"):')
for name, label in [("every core", "shardlens analyze FILE, every core"), ("one core", "shardlens analyze FILE, one core")]:
    b = best[name]
    print(f"  {label:<40} {b[0]:>6.2f} s ({med([m[0] for m in runs[name]]):.2f})  {b[1]:>7.1f} MB")
d = best["duckdb"]
print(f"  {'DuckDB GROUP BY, whole process':<40} {d[0]:>6.2f} s ({med([m[0] for m in runs['duckdb']]):.2f})  {d[1]:>7.1f} MB")
print(f"  {'DuckDB GROUP BY, the query alone':<40} {duck_q:>6.2f} s ({med([m[2] for m in runs['duckdb']]):.2f})")
s = best["every core"][0]
print(f"\n  one core / every core wall:           {best['one core'][0] / s:.2f}x")
print(f"  DuckDB query alone / shardlens wall:  {duck_q / s:.2f}x")
print(f"  DuckDB process / shardlens wall:      {d[0] / s:.2f}x")
PY
