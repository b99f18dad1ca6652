#!/usr/bin/env bash
# Counting key lines: `shardlens analyze FILE` against DuckDB's GROUP BY and `sort | uniq -c` over the same
# file, in one run; prints figures.
#
#   benches/lines_duckdb.sh [LINES]      (default 10,000,000 lines: Zipf over 1,000,000 keys, ~130 MB)
#
# Builds the headless release binary (`--no-default-features`), installs DuckDB from PyPI if it is missing
# (python3 -m pip install duckdb), generates the file once under $CARGO_TARGET_DIR/tmp (benches/gen_key_lines.py),
# checks shardlens' total, distinct count and hottest key against the generator's truth, then times each peer
# with /usr/bin/time -f "%e %M" (wall seconds, peak RSS), interleaved, best of 5 runs:
#   shardlens analyze keys.txt --format json > /dev/null
#   DuckDB, one query in a fresh process (python3 -c 'import duckdb; ...'), both cores:
#     SELECT count(*), sum(c), max(c) FROM (SELECT k, count(*) AS c FROM read_csv(keys.txt, one VARCHAR column)
#     GROUP BY k)
#   DuckDB's query alone, timed inside that process (without starting Python and importing DuckDB)
#   LC_ALL=C sort keys.txt | uniq -c > /dev/null
# Goals: shardlens at least 2x faster than DuckDB's query alone (wall), peak RSS no more than DuckDB's process.
set -euo pipefail
cd "$(dirname "$0")/.."
LINES=${1:-10000000}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --bin shardlens >&2
BIN="$TARGET/release/shardlens"
python3 -c 'import duckdb' 2>/dev/null || python3 -m pip install --quiet duckdb >&2 \
  || python3 -m pip install --quiet --break-system-packages duckdb >&2
ROOT="$TARGET/tmp/lines-bench-$LINES"
if [ ! -f "$ROOT/truth.json" ]; then
  rm -rf "$ROOT"
  echo "generating $LINES key lines under $ROOT" >&2
  python3 benches/gen_key_lines.py "$ROOT" "$LINES"
fi

python3 - "$BIN" "$ROOT" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "benches")
from bench_util import check_against_truth, timed_with_query as timed
import duckdb
bin_, root = sys.argv[1], sys.argv[2]
truth = json.load(open(f"{root}/truth.json"))
keys = f"{root}/keys.txt"
print(f"file: {truth['total']:,} lines, {truth['distinct']:,} distinct keys, {os.path.getsize(keys)/1e6:.0f} MB; "
      f"{os.cpu_count()} cores; DuckDB {duckdb.__version__}")
check_against_truth(bin_, keys, truth)
print(f"shardlens result checked against the generator: total, distinct, hottest key {truth['hot_key']} = {truth['hot_count']:,}")

query = (f"SELECT count(*), sum(c), max(c) FROM (SELECT k, count(*) AS c FROM read_csv('{keys}', header=false, "
         f"delim='\\t', quote='', escape='', columns={{'k': 'VARCHAR'}}) GROUP BY k)")
duck_py = ("import duckdb, sys, time\n"
           "con = duckdb.connect()\n"
           "t = time.perf_counter()\n"
           f"row = con.sql({query!r}).fetchall()[0]\n"
           "sys.stderr.write(f'query {time.perf_counter() - t}\\n')\n"
           "print(*row)\n")
got = subprocess.run(["python3", "-c", duck_py], check=True, capture_output=True, text=True).stdout.split()
assert [int(x) for x in got] == [truth["distinct"], truth["total"], truth["hot_count"]], (got, truth)
print("DuckDB's result checked too: distinct, total, hottest count")

peers = {
    "shardlens": f"{bin_} analyze {keys} --format json > /dev/null",
    "duckdb": f"python3 -c {__import__('shlex').quote(duck_py)} > /dev/null",
    "sort": f"LC_ALL=C sort {keys} | uniq -c > /dev/null",
}
runs = {name: [] for name in peers}
for i in range(5):
    for name, cmd in peers.items():
        if name == "sort" and i >= 2:
            continue  # slow and far behind: two runs are enough
        runs[name].append(timed(cmd))
best = {name: min(r, key=lambda m: m[0]) for name, r in runs.items()}
duck_q = min(m[2] for m in runs["duckdb"])
med = lambda xs: sorted(xs)[len(xs) // 2]
print('\nbest (median) of interleaved runs, wall seconds and peak RSS (/usr/bin/time -f "%e %M"):')
s, d, so = best["shardlens"], best["duckdb"], best["sort"]
print(f"  shardlens analyze FILE --format json      {s[0]:>6.2f} s ({med([m[0] for m in runs['shardlens']]):.2f})  {s[1]:>7.1f} MB")
print(f"  DuckDB GROUP BY, whole process            {d[0]:>6.2f} s ({med([m[0] for m in runs['duckdb']]):.2f})  {d[1]:>7.1f} MB")
print(f"  DuckDB GROUP BY, the query alone          {duck_q:>6.2f} s ({med([m[2] for m in runs['duckdb']]):.2f})")
print(f"  LC_ALL=C sort | uniq -c                   {so[0]:>6.2f} s             {so[1]:>7.1f} MB")
r = duck_q / s[0]
print(f"\n  DuckDB query alone / shardlens wall: {r:.2f}x  (goal >= 2x: {'met' if r >= 2 else 'NOT met'})")
print(f"  DuckDB process / shardlens wall:     {d[0] / s[0]:.2f}x")
print(f"  shardlens / DuckDB peak RSS:         {s[1] / d[1]:.2f}  (goal <= 1: {'met' if s[1] <= d[1] else 'NOT met'})")
print(f"  sort | uniq -c / shardlens wall:     {so[0] / s[0]:.1f}x")
PY
