#!/usr/bin/env python3
"""Writes the same ITEMS typed DynamoDB JSON items twice for benches/json_array.sh: `array.json`, one JSON array
pretty-printed with 4 spaces (as `aws dynamodb` and most tools print; ~1 GB for 2,000,000 items) and
`lines.json`, DynamoDB JSON lines `{"Item":{…}}` as an S3 export writes them; plus truth.json (total, distinct
keys, the hottest key and its count). Partition keys Zipf-distributed (s = 1.1 over 200,000 ranks), as
benches/gen_export.py. Deterministic (seeded).

Usage: gen_json_array.py FOLDER [ITEMS]"""
import itertools, json, os, random, sys

KEYS, S = 200_000, 1.1

def main():
    root = sys.argv[1]
    items = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000_000
    os.makedirs(root, exist_ok=True)
    rng = random.Random(7)
    cum = list(itertools.accumulate(1.0 / (r ** S) for r in range(1, KEYS + 1)))
    counts = {}
    with open(os.path.join(root, "array.json"), "w") as arr, open(os.path.join(root, "lines.json"), "w") as lines:
        arr.write("[\n")
        for start in range(0, items, 10000):
            ranks = rng.choices(range(KEYS), cum_weights=cum, k=min(10000, items - start))
            pretty, compact = [], []
            for j, r in enumerate(ranks):
                i = start + j
                counts[r] = counts.get(r, 0) + 1
                item = {
                    "pk": {"S": f"user#{r:06}"},
                    "sk": {"S": f"2024-05-{1 + i % 28:02}T{i % 24:02}:{i % 60:02}:{(i * 7) % 60:02}.{i % 1000:03}Z#{i:07}"},
                    "status": {"S": ("ACTIVE", "PENDING", "CLOSED")[i % 3]},
                    "amount": {"N": f"{rng.randrange(10000)}.{rng.randrange(100):02}"},
                    "tags": {"SS": [f"t{i % 50}", f"t{i % 7}"]},
                    "address": {"M": {"city": {"S": "Springfield"}}},
                    "payload": {"S": f"{rng.getrandbits(128):032x}{rng.getrandbits(96):024x}"},
                }
                pretty.append("    " + json.dumps(item, indent=4).replace("\n", "\n    "))
                compact.append(json.dumps({"Item": item}, separators=(",", ":")))
            if start:
                arr.write(",\n")
            arr.write(",\n".join(pretty))
            lines.write("\n".join(compact) + "\n")
        arr.write("\n]\n")
    hot = max(counts, key=lambda k: (counts[k], -k))
    with open(os.path.join(root, "truth.json"), "w") as t:
        json.dump({"total": items, "distinct": len(counts), "hot_key": f"user#{hot:06}", "hot_count": counts[hot]}, t)

if __name__ == "__main__":
    main()
