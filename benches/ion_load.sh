#!/usr/bin/env bash
# The Ion reader against the DynamoDB JSON reader on the same items: two S3 export folders of one generated
# table (benches/gen_export.py, with and without --ion), loaded by `shardlens analyze FOLDER`; prints figures.
#
#   benches/ion_load.sh [ITEMS] [FILES]      (default 2,000,000 items in 8 gzip files)
#
# Builds the headless release binary, generates both exports once under $CARGO_TARGET_DIR/tmp, checks that both
# loads give the generator's total, distinct count and hottest key, then times, best of 3 runs with
# /usr/bin/time -f "%e %M" (wall seconds, peak RSS):
#   shardlens analyze JSON-FOLDER --format json > /dev/null      (the peer: the fast JSON scanner)
#   shardlens analyze ION-FOLDER --format json > /dev/null
#   zcat of each folder's data files > /dev/null                 (decompression alone)
# and prints each load's wall time per item, and Ion's cost relative to JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${1:-2000000}
FILES=${2:-8}
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --no-default-features --bin shardlens >&2
BIN="$TARGET/release/shardlens"
for kind in json ion; do
  root="$TARGET/tmp/ion-bench-$ITEMS-$FILES/$kind"
  if [ ! -f "$root/truth.json" ]; then
    rm -rf "$root"
    echo "generating $ITEMS items ($kind) in $FILES gzip files under $root" >&2
    if [ "$kind" = ion ]; then
      python3 benches/gen_export.py "$root" "$ITEMS" "$FILES" --ion
    else
      python3 benches/gen_export.py "$root" "$ITEMS" "$FILES"
    fi
  fi
done

python3 - "$BIN" "$TARGET/tmp/ion-bench-$ITEMS-$FILES" <<'PY'
import json, subprocess, sys
sys.path.insert(0, "benches")
from bench_util import best_of, check_against_truth
bin_, base = sys.argv[1], sys.argv[2]

res = {}
for kind in ("json", "ion"):
    root = f"{base}/{kind}"
    truth = json.load(open(f"{root}/truth.json"))
    raw = int(subprocess.run(f"zcat {root}/data/*.gz | wc -c", shell=True, capture_output=True, text=True).stdout)
    check_against_truth(bin_, root, truth)
    print(f"{kind}: {truth['total']:,} items, {truth['distinct']:,} distinct keys, {raw/1e6:.0f} MB of text; "
          f"checked against the generator (hottest {truth['hot_key']} = {truth['hot_count']:,})")
    res[kind] = (truth["total"], raw,
                 best_of(f"{bin_} analyze {root} --format json > /dev/null"),
                 best_of(f"zcat {root}/data/*.gz > /dev/null"))

print('\nbest of 3 runs (/usr/bin/time -f "%e %M"):')
for kind, (items, raw, load, unzip) in res.items():
    print(f"  {kind:<5} shardlens analyze {load[0]:>6.2f} s {load[1]:>7.1f} MB peak RSS   zcat {unzip[0]:>6.2f} s   "
          f"{raw/1e6/load[0]:>4.0f} MB/s, {items/1e6/load[0]:.2f} M items/s")
(ji, _, jl, jz), (ii, _, il, iz) = res["json"], res["ion"]
print(f"\n  Ion / JSON wall:                {il[0]/jl[0]:.2f}x")
print(f"  per item (wall, all cores):     JSON {jl[0]/ji*1e6:.2f} us, Ion {il[0]/ii*1e6:.2f} us")
PY
