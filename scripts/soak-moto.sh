#!/usr/bin/env bash
# The moto half of the watch's soak (issue 61; docs/reliability.md, "A watch that runs for a day"): writes to a
# table of moto's server (127.0.0.1) for SECONDS (default 600) as fast as moto serves them, one boto3 client,
# while `shardlens stream --from trim-horizon` watches; then checks exact counts: records written = records
# read, in all and per key (from the saved trace's records).
#
#   scripts/soak-moto.sh            # 10 minutes
#   scripts/soak-moto.sh 60         # a minute
#   SHARDLENS_BIN=path/to/shardlens scripts/soak-moto.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-600}"
target_dir="${CARGO_TARGET_DIR:-target}"
bin="${SHARDLENS_BIN:-}"
if [ -z "$bin" ]; then
    cargo build --release --locked --bin shardlens
    bin="$target_dir/release/shardlens"
fi
eval "$(tests/moto.sh)"
python="$SHARDLENS_MOTO_PYTHON"
work="$(mktemp -d)"
moto_pid=""
cleanup() {
    [ -n "$moto_pid" ] && kill "$moto_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$python" -m moto.server -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
moto_pid=$!
endpoint="http://127.0.0.1:$port"
for _ in $(seq 100); do
    curl -s -o /dev/null "$endpoint/moto-api/" && break
    sleep 0.2
done

export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_EC2_METADATA_DISABLED=true \
    AWS_CONFIG_FILE=/nonexistent/shardlens-soak AWS_SHARED_CREDENTIALS_FILE=/nonexistent/shardlens-soak
unset AWS_PROFILE AWS_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_DYNAMODB

"$python" - "$endpoint" <<'PY'
import sys, boto3
ddb = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1")
ddb.create_table(TableName="soak", BillingMode="PAY_PER_REQUEST",
    StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}])
PY

# The watch: from the trim horizon, for the writes' time and a minute more to read the last of them.
"$bin" stream --table soak --from trim-horizon --for "$((seconds + 60))s" --endpoint-url "$endpoint" \
    --region us-east-1 --timeout 10 --format json --save-trace "$work/records.jsonl" \
    >"$work/stream.json" 2>"$work/stream.err" &
stream_pid=$!
sleep 2

# The writes: as fast as moto answers, keys skewed (every 10th write to one hot key, the rest over 5,000).
"$python" - "$endpoint" "$seconds" "$work/written.json" <<'PY'
import sys, time, json, boto3
ddb = boto3.client("dynamodb", endpoint_url=sys.argv[1], region_name="us-east-1")
end = time.time() + float(sys.argv[2])
counts, n, started, last = {}, 0, time.time(), time.time()
while time.time() < end:
    key = "HOT#0" if n % 10 == 0 else "USER#%04d" % ((n * 7919) % 5000)
    ddb.put_item(TableName="soak", Item={"pk": {"S": key}, "sk": {"N": str(n)}, "v": {"S": "x" * 100}})
    counts[key] = counts.get(key, 0) + 1
    n += 1
    if time.time() - last >= 60:
        last = time.time()
        print("  %4.0f s: %d writes (%.0f/s)" % (last - started, n, n / (last - started)), flush=True)
json.dump({"writes": n, "seconds": time.time() - started, "keys": counts}, open(sys.argv[3], "w"))
print("  wrote %d items in %.0f s (%.0f/s) over %d keys" % (n, time.time() - started, n / (time.time() - started), len(counts)))
PY

wait "$stream_pid" || { echo "shardlens stream failed:"; cat "$work/stream.err"; exit 1; }
tail -n 3 "$work/stream.err"

"$python" - "$work/written.json" "$work/records.jsonl" "$work/stream.json" <<'PY'
import sys, json
written = json.load(open(sys.argv[1]))
read, seqs = {}, set()
dups = 0
for line in open(sys.argv[2]):
    if not line.strip():
        continue
    r = json.loads(line)
    d = r["dynamodb"]
    key = d["Keys"]["pk"]["S"]
    read[key] = read.get(key, 0) + 1
    seq = d.get("SequenceNumber")
    if seq in seqs:
        dups += 1
    seqs.add(seq)
doc = json.load(open(sys.argv[3]))
total = sum(read.values())
differ = [k for k in set(read) | set(written["keys"]) if read.get(k, 0) != written["keys"].get(k, 0)]
print("  written %d over %d keys; read %d over %d keys (shardlens: total %s, distinct %s); duplicates %d; keys that differ %d"
      % (written["writes"], len(written["keys"]), total, len(read), doc.get("total"), doc.get("distinct"), dups, len(differ)))
ok = total == written["writes"] == doc.get("total") and not differ and dups == 0 and doc.get("distinct") == len(written["keys"])
print("  PASS" if ok else "  FAIL")
sys.exit(0 if ok else 1)
PY
