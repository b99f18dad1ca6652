#!/usr/bin/env bash
# A pretty-printed JSON array of typed items against the same items as DynamoDB JSON lines, as a compact array,
# as typed items one a line, as export lines written with Python's separators, as pretty-printed items back
# to back, as one scan output page, and as plain JSON (no type tags) one a line and pretty-printed in an array,
# in one run; prints figures.
#
#   benches/json_array.sh [ITEMS]      (default 2,000,000 items: ~1 GB pretty-printed, ~0.5 GB of lines)
#
# Builds the headless release binary (`--no-default-features`), generates the files once under
# $CARGO_TARGET_DIR/tmp (benches/gen_json_array.py, Zipf keys; the compact array, the item lines and the
# spaced and plain files are rewritten from the lines, the items back to back and the scan page from the
# array), checks shardlens' total, distinct count and hottest key on each
# against the generator's truth, then times each with /usr/bin/time -f "%e %M" (wall seconds, peak RSS), best
# and median of 9 interleaved rounds (each file once a round, in turn, so that a host getting busier or quieter
# weighs on every file alike):
#   shardlens analyze lines.json --format json > /dev/null      (DynamoDB JSON lines)
#   shardlens analyze array.json --format json > /dev/null      (the same items, one pretty-printed array)
#   shardlens analyze compact.json --format json > /dev/null    (the same items, one compact array)
#   shardlens analyze items.json --format json > /dev/null      (the same items, typed, one a line)
#   shardlens analyze spaced.json --format json > /dev/null     (the lines as json.dumps writes them:
#                                                                `{"Item": {"pk": {"S": "…"}, …}}`)
#   shardlens analyze stream.json --format json > /dev/null     (the array's items back to back, pretty-printed,
#                                                                as `jq '.Items[]'` prints a scan's)
#   shardlens analyze scan.json --format json > /dev/null       (the array as `aws dynamodb scan` prints it:
#                                                                `{"Items": [...], "Count": …}`)
#   shardlens analyze plain.json --format json > /dev/null      (the items as plain JSON, one a line:
#                                                                `{"pk":"user#000007","amount":5714.51,…}`)
#   shardlens analyze plain-array.json --format json > /dev/null
#                                                               (the same, one array pretty-printed with 2
#                                                                spaces, as JSON.stringify(items, null, 2))
# and the pretty-printed array again on one core (taskset -c 0, best of 3): what reading it in stretches costs
# in CPU. Goals (issue 26): the array loads at >= 75 % of the lines' speed (items per second; the medians'
# ratio), peak RSS <= 200 MB.
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
import json, os, shutil, sys
sys.path.insert(0, "benches")
from bench_util import best_of, check_against_truth, interleaved, spread
bin_, root = sys.argv[1], sys.argv[2]
truth = json.load(open(f"{root}/truth.json"))
arr, lines = f"{root}/array.json", f"{root}/lines.json"
compact, items = f"{root}/compact.json", f"{root}/items.json"
spaced, stream, scan = f"{root}/spaced.json", f"{root}/stream.json", f"{root}/scan.json"
plain, plain_arr = f"{root}/plain.json", f"{root}/plain-array.json"
if not os.path.exists(scan):
    # The pretty-printed array as the AWS CLI prints a scan: the page's first field, indented once more.
    with open(arr, "rb") as src:
        body = src.read().strip().replace(b"\n", b"\n    ")
    with open(scan + ".part", "wb") as out:
        out.write(b'{\n    "Items": ' + body + b',\n    "Count": %d,\n    "ScannedCount": %d,\n'
                  b'    "ConsumedCapacity": null\n}\n' % (truth["total"], truth["total"]))
    os.replace(scan + ".part", scan)
if not os.path.exists(stream):
    # The pretty-printed array's items back to back: its brackets and the commas between items left out.
    with open(arr, "rb") as src:
        body = src.read().strip()
    with open(stream + ".part", "wb") as out:
        out.write(body[1:-1].strip().replace(b"\n    },\n    {", b"\n}\n{").replace(b"\n    ", b"\n") + b"\n")
    os.replace(stream + ".part", stream)
if not os.path.exists(spaced):
    # The export lines as a Python script writes them with json.dumps' default separators (", " and ": ").
    with open(lines, "rb") as src, open(spaced + ".part", "w") as out:
        for line in src:
            if line.strip():
                out.write(json.dumps(json.loads(line)) + "\n")
    os.replace(spaced + ".part", spaced)
if not (os.path.exists(plain) and os.path.exists(plain_arr)):
    # The export lines' items without their type tags, as the DocumentClient and most scripts write items: sets
    # and lists as arrays, maps as objects, numbers as JSON numbers. One a line, and one array pretty-printed.
    def untyped(v):
        (tag, x), = v.items()
        if tag == "N":
            return json.loads(x)
        if tag == "M":
            return {k: untyped(w) for k, w in x.items()}
        if tag == "L":
            return [untyped(w) for w in x]
        if tag == "NS":
            return [json.loads(n) for n in x]
        return x
    with open(lines, "rb") as src, open(plain + ".part", "w") as p, open(plain_arr + ".part", "w") as a:
        a.write("[")
        for n, line in enumerate(l for l in src if l.strip()):
            item = {k: untyped(v) for k, v in json.loads(line)["Item"].items()}
            p.write(json.dumps(item, separators=(",", ":")) + "\n")
            a.write(("," if n else "") + "\n  " + json.dumps(item, indent=2).replace("\n", "\n  "))
        a.write("\n]\n")
    os.replace(plain + ".part", plain)
    os.replace(plain_arr + ".part", plain_arr)
if not (os.path.exists(compact) and os.path.exists(items)):
    # The export lines' items, unwrapped: one compact array, and one typed item a line.
    with open(lines, "rb") as src, open(compact, "wb") as c, open(items, "wb") as i:
        c.write(b"[")
        for n, line in enumerate(l for l in src if l.strip()):
            item = line.strip()[len(b'{"Item":'):-1]
            c.write((b"," if n else b"") + item)
            i.write(item + b"\n")
        c.write(b"]\n")
size = lambda p: os.path.getsize(p) / 1e6
print(f"items: {truth['total']:,} ({truth['distinct']:,} distinct keys); array.json {size(arr):.0f} MB "
      f"pretty-printed, lines.json {size(lines):.0f} MB, compact.json {size(compact):.0f} MB, "
      f"items.json {size(items):.0f} MB, spaced.json {size(spaced):.0f} MB, stream.json {size(stream):.0f} MB, "
      f"scan.json {size(scan):.0f} MB, plain.json {size(plain):.0f} MB, plain-array.json {size(plain_arr):.0f} MB")
for path in (arr, lines, compact, items, spaced, stream, scan, plain, plain_arr):
    check_against_truth(bin_, path, truth)
print("every result checked against the generator: total, distinct, hottest key")

l, a, c, i, s, t, p, u, v = interleaved(
    [f"{bin_} analyze {f} --format json > /dev/null"
     for f in (lines, arr, compact, items, spaced, stream, scan, plain, plain_arr)],
    rounds=9)
one = best_of(f"taskset -c 0 {bin_} analyze {arr} --format json > /dev/null") if shutil.which("taskset") else None
n = truth["total"] / 1e6
print('\nmedian (best) of 9 interleaved rounds (/usr/bin/time -f "%e %M"):')
for name, w, path in (("DynamoDB JSON lines", l, lines), ("pretty-printed JSON array", a, arr),
                      ("compact JSON array", c, compact), ("typed items one a line", i, items),
                      ("lines, json.dumps spacing", s, spaced), ("pretty items back to back", t, stream),
                      ("aws dynamodb scan output", p, scan), ("plain JSON, one a line", u, plain),
                      ("plain JSON, pretty array", v, plain_arr)):
    print(f"  {name:<26} {w[1]:>6.2f} s ({w[0]:.2f} s)  {n / w[1]:.2f} M items/s  {w[2]:>7.1f} MB peak RSS"
          f"  ({size(path) / w[1]:.0f} MB/s of JSON)")
if one:
    print(f"  pretty array, one core     {one[0]:>6.2f} s best of 3  (taskset -c 0: {one[0] / a[0]:.2f}x the best "
          "time on every core)")
r = l[1] / a[1]
# The times have 10 ms steps (/usr/bin/time's %e), so 0.42 s against 0.56 s is 75 % exactly; as a float it is
# 0.74999..., which the goal's test would call missed. Judged to a thousandth, as the times allow.
print(f"\n  array speed / lines speed: {r * 100:.0f} % of the medians, {l[0] / a[0] * 100:.0f} % of the best  "
      f"(goal >= 75 %: {'met' if round(r, 3) >= 0.75 else 'NOT met'})")
print(f"  medians above best (quiet host: a few per cent): lines +{spread([l])[0]} %, array +{spread([a])[0]} %")
print(f"  array peak RSS:            {a[2]:.1f} MB (goal <= 200 MB: {'met' if a[2] <= 200 else 'NOT met'})")
PY
