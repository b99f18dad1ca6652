#!/usr/bin/env bash
# Scan benchmark, run by hand (not part of the tests): a local dynalite with 100,000 items, then
#  1. shardlens scan, keys only, 8 segments, no read cap, against `aws dynamodb scan --projection-expression pk`
#     (awscli, from PyPI) on the same server in the same run: items/s and the ratio;
#  2. shardlens scan with a read cap chosen so the scan takes about 10 s: the consumed RCU per second
#     (measured from outside: RCU reported by the server / wall time) against the cap.
#
#   benches/scan.sh [ITEMS]          # needs node + npm (tests/dynalite.sh installs dynalite) and `aws`
set -euo pipefail
cd "$(dirname "$0")/.."

ITEMS="${1:-100000}"
eval "$(tests/dynalite.sh)"
command -v aws >/dev/null || { echo "benches/scan.sh: install awscli first (pip install awscli)" >&2; exit 1; }

# SHARDLENS_BENCH_PROFILE=dev uses the dev build (dependencies at opt-level 2, shardlens itself unoptimised).
profile="${SHARDLENS_BENCH_PROFILE:-release}"
target="${CARGO_TARGET_DIR:-target}"
if [ -n "${SHARDLENS_BENCH_BIN:-}" ]; then
    bin="$SHARDLENS_BENCH_BIN"   # a binary built elsewhere; nothing is built
    profile="given"
elif [ "$profile" = dev ]; then
    cargo build --no-default-features --quiet
    bin="$target/debug/shardlens"
else
    cargo build --release --no-default-features --quiet
    bin="$target/release/shardlens"
fi
echo "binary: $bin ($profile profile, no default features)"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
node "$SHARDLENS_DYNALITE_DIR/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$port" \
    --createTableMs 0 --deleteTableMs 0 >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done

endpoint="http://127.0.0.1:$port"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
table=bench
echo "loading $ITEMS items into dynalite ($endpoint)…"
t0=$(date +%s.%N)
node benches/load-dynalite.js "$port" "$table" "$ITEMS" 10000
echo "  loaded in $(echo "$(date +%s.%N) - $t0" | bc) s"

now() { date +%s.%N; }

echo
echo "1. keys-only scan of $ITEMS items"
t0=$(now)
"$bin" scan --endpoint-url "$endpoint" --table "$table" --segments 8 --max-rcu 0 --format json \
    >/tmp/shardlens-bench-scan.json 2>/tmp/shardlens-bench-scan.err
t1=$(now)
ours=$(echo "$t1 - $t0" | bc -l)
total=$(python3 -c 'import json; print(json.load(open("/tmp/shardlens-bench-scan.json"))["total"])')
rcu=$(sed -n 's/.* pages, \([0-9.]*\) RCU consumed.*/\1/p' /tmp/shardlens-bench-scan.err)
echo "   shardlens (8 segments):      $total items in $(printf %.2f "$ours") s = $(printf %.0f "$(echo "$total / $ours" | bc -l)") items/s ($rcu RCU)"

t0=$(now)
aws dynamodb scan --endpoint-url "$endpoint" --table-name "$table" --projection-expression pk \
    --output json >/tmp/shardlens-bench-awscli.json
t1=$(now)
theirs=$(echo "$t1 - $t0" | bc -l)
aws_total=$(python3 -c 'import json; print(json.load(open("/tmp/shardlens-bench-awscli.json"))["Count"])')
echo "   aws dynamodb scan (awscli):  $aws_total items in $(printf %.2f "$theirs") s = $(printf %.0f "$(echo "$aws_total / $theirs" | bc -l)") items/s"
echo "   ratio: $(printf %.1f "$(echo "$theirs / $ours" | bc -l)")× (goal ≥ 3×)"

echo
cap=$(python3 -c "print(round($rcu / 10, 1))")
echo "2. read cap: --max-rcu $cap (the full scan consumes $rcu RCU: about 10 s at the cap)"
t0=$(now)
"$bin" scan --endpoint-url "$endpoint" --table "$table" --segments 8 --max-rcu "$cap" --format csv \
    >/dev/null 2>/tmp/shardlens-bench-cap.err
t1=$(now)
wall=$(echo "$t1 - $t0" | bc -l)
capped_rcu=$(sed -n 's/.* pages, \([0-9.]*\) RCU consumed.*/\1/p' /tmp/shardlens-bench-cap.err)
rate=$(echo "$capped_rcu / $wall" | bc -l)
echo "   $capped_rcu RCU in $(printf %.2f "$wall") s (wall) = $(printf %.1f "$rate") RCU/s against a cap of $cap: $(printf %+.1f "$(echo "($rate / $cap - 1) * 100" | bc -l)") %"
echo "   shardlens says: $(tail -1 /tmp/shardlens-bench-cap.err)"
