#!/usr/bin/env python3
"""Key lines for benches/lines_duckdb.sh: LINES partition keys, one a line (`user#0123456`, 13 bytes with the
newline), Zipf-distributed (s = 1.0 over 1,000,000 ranks), plus truth.json (total, distinct keys, the hottest key
and its count). Deterministic (seeded); written by two processes.

Usage: gen_key_lines.py FOLDER [LINES]"""
import itertools, json, os, random, sys
from multiprocessing import Pool

KEYS, S = 1_000_000, 1.0

def part(args):
    seed, n = args
    rng = random.Random(seed)
    cum = list(itertools.accumulate(1.0 / (r ** S) for r in range(1, KEYS + 1)))
    ranks = rng.choices(range(KEYS), cum_weights=cum, k=n)
    counts = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    return "".join(f"user#{r:07}\n" for r in ranks), counts

def main():
    root = sys.argv[1]
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    os.makedirs(root, exist_ok=True)
    parts = 10
    with Pool(min(parts, os.cpu_count() or 2)) as pool:
        results = pool.map(part, [(77 + p, lines // parts + (p < lines % parts)) for p in range(parts)])
    total = {}
    with open(os.path.join(root, "keys.txt"), "w") as out:
        for text, counts in results:
            out.write(text)
            for r, c in counts.items():
                total[r] = total.get(r, 0) + c
    hot = max(total, key=lambda r: (total[r], -r))
    json.dump({"total": lines, "distinct": len(total), "hot_key": f"user#{hot:07}", "hot_count": total[hot]},
              open(os.path.join(root, "truth.json"), "w"))

if __name__ == "__main__":
    main()
