#!/usr/bin/env python3
"""Writes a DynamoDB JSON S3 export folder for benches/export_load.sh: ITEMS items in FILES gzip data files,
partition keys Zipf-distributed (s = 1.1 over 200,000 ranks), ~200 bytes of JSON per item, plus the manifests
and truth.json (total, distinct keys, the hottest key and its count). Deterministic (seeded). With --ion, the
same items as an Ion export (`$ion_1_0 {Item:{...}}` lines: strings, a decimal, a string set), as DynamoDB writes
with the ION export format, so benches/ion_load.sh compares the two readers on the same data.

Usage: gen_export.py FOLDER [ITEMS] [FILES] [--ion]"""
import gzip, itertools, json, os, random, sys
from multiprocessing import Pool

KEYS, S = 200_000, 1.1

def item_json(pk, sk, status, amount, tags, payload):
    return (f'{{"Item":{{"pk":{{"S":"{pk}"}},"sk":{{"S":"{sk}"}},"status":{{"S":"{status}"}},'
            f'"amount":{{"N":"{amount}"}},"tags":{{"SS":["{tags[0]}","{tags[1]}"]}},"payload":{{"S":"{payload}"}}}}}}\n')

def item_ion(pk, sk, status, amount, tags, payload):
    # A decimal without an exponent is Ion's `d0`-free form with a dot; strings and a string set as the export.
    return (f'$ion_1_0 {{Item:{{pk:"{pk}",sk:"{sk}",status:"{status}",amount:{amount},'
            f'tags:$dynamodb_SS::["{tags[0]}","{tags[1]}"],payload:"{payload}"}}}}\n')

def write_file(args):
    root, f, n, ion = args
    rng = random.Random(1000 + f)
    cum = list(itertools.accumulate(1.0 / (r ** S) for r in range(1, KEYS + 1)))
    ranks = rng.choices(range(KEYS), cum_weights=cum, k=n)
    counts = {}
    name = f"{0x5eed + f:08x}-{f:02}.{'ion' if ion else 'json'}.gz"
    item = item_ion if ion else item_json
    with gzip.open(os.path.join(root, "data", name), "wt", compresslevel=6) as out:
        lines = []
        for i, r in enumerate(ranks):
            counts[r] = counts.get(r, 0) + 1
            lines.append(item(
                f"user#{r:06}",
                f"2024-05-{1 + i % 28:02}T{i % 24:02}:{i % 60:02}:{(i * 7) % 60:02}.{i % 1000:03}Z#{i:07}",
                ("ACTIVE", "PENDING", "CLOSED")[i % 3],
                f"{rng.randrange(10000)}.{rng.randrange(100):02}",
                (f"t{i % 50}", f"u{i % 7}"),
                f"{rng.getrandbits(128):032x}{rng.getrandbits(96):024x}"))
            if len(lines) == 20000:
                out.write("".join(lines))
                lines = []
        out.write("".join(lines))
    return name, n, counts

def main():
    args = [a for a in sys.argv[1:] if a != "--ion"]
    ion = "--ion" in sys.argv[1:]
    root = args[0]
    items = int(args[1]) if len(args) > 1 else 2_000_000
    files = int(args[2]) if len(args) > 2 else 8
    os.makedirs(os.path.join(root, "data"), exist_ok=True)
    with Pool(min(files, os.cpu_count() or 2)) as pool:
        results = pool.map(write_file, [(root, f, items // files, ion) for f in range(files)])
    total = {}
    with open(os.path.join(root, "manifest-files.json"), "w") as m:
        for name, n, counts in results:
            m.write(json.dumps({"itemCount": n, "md5Checksum": "-", "etag": "-",
                                "dataFileS3Key": f"AWSDynamoDB/bench/data/{name}"}) + "\n")
            for k, c in counts.items():
                total[k] = total.get(k, 0) + c
    n_items = sum(n for _, n, _ in results)
    with open(os.path.join(root, "manifest-summary.json"), "w") as s:
        json.dump({"itemCount": n_items, "outputFormat": "ION" if ion else "DYNAMODB_JSON", "exportType": "FULL_EXPORT"}, s)
    hot = max(total, key=lambda k: (total[k], -k))
    with open(os.path.join(root, "truth.json"), "w") as t:
        json.dump({"total": n_items, "distinct": len(total), "hot_key": f"user#{hot:06}", "hot_count": total[hot]}, t)

if __name__ == "__main__":
    main()
