#!/usr/bin/env bash
# The hand-written key index, JSON fast path and Ion reader against the crates they were measured against
# (issue 12 item 6), on the same inputs in one run; prints medians.
#
#   benches/peers.sh [RUNS]      (default 5 runs of each, interleaved)
#
# Builds `shardlens-bench` with the `bench-peers` feature, makes the inputs once under $CARGO_TARGET_DIR/tmp
# (the 2,000,000-item export of benches/gen_export.py, decompressed, and the same items as Ion lines by
# benches/gen_peer_inputs.py), then runs `shardlens-bench peer PIECE IMPL FILE` for each peer under
# /usr/bin/time -f "%e %M" and prints the median wall seconds and peak RSS of each, with what each counted.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --features bench-peers --bin shardlens-bench >&2
BIN="$TARGET/release/shardlens-bench"
EXPORT="$TARGET/tmp/export-bench-2000000-8"
IN="$TARGET/tmp/peers"
[ -f "$EXPORT/truth.json" ] || python3 benches/gen_export.py "$EXPORT" 2000000 8
[ -f "$IN/export.ion" ] || python3 benches/gen_peer_inputs.py "$EXPORT" "$IN"

python3 - "$BIN" "$IN" "$RUNS" <<'PY'
import statistics, subprocess, sys
bin_, inp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
peers = [
    ("index", "ours", None), ("index", "ours-nowarm", None), ("index", "hashbrown", None),
    ("index", "hashbrown-tag", None),
] + [("json", i, "export.json") for i in ("ours", "sonic_lazy", "sonic_serde", "simd_json", "serde_json")] + [
    ("json", i, "export.json parse") for i in ("ours", "sonic_lazy", "sonic_serde", "simd_json", "serde_json")
] + [
    ("ion", "ours", "export.ion"), ("ion", "ion_rs", "export.ion"),
]
res = {p: [] for p in peers}
said = {}
for _ in range(runs):
    for p in peers:
        piece, impl, f = p
        cmd = ["/usr/bin/time", "-f", "%e %M", bin_, "peer", piece, impl] + (f"{inp}/{f}".split() if f else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
            sys.exit(1)
        wall, rss = r.stderr.strip().splitlines()[-1].split()
        measured = float(r.stdout.split("MEASURED ")[1].split()[0])
        res[p].append((float(wall), int(rss) / 1024, measured))
        said[p] = r.stdout.strip()
print(f"median of {runs} runs each (measured: the part timed inside, the adds alone for the index; wall and peak RSS"
      f" from /usr/bin/time -f \"%e %M\"):")
for p in peers:
    w = statistics.median(x[0] for x in res[p])
    m = statistics.median(x[1] for x in res[p])
    t = statistics.median(x[2] for x in res[p])
    mode = " parse" if p[2] and p[2].endswith("parse") else ""
    print(f"  {p[0]:<5} {p[1] + mode:<18} measured {t:>6.2f} s  wall {w:>6.2f} s  peak {m:>7.1f} MB   | {said[p]}")
PY
