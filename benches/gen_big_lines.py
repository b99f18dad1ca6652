"""DynamoDB JSON lines (an S3 export data file, uncompressed) for benches/big_file.sh: N items over 1,000,000
possible partition keys (seeded), each with a unique sort key and three other attributes (~180 bytes a line).

    python3 benches/gen_big_lines.py N OUT
"""
import random
import sys

n = int(sys.argv[1])
out = open(sys.argv[2], "w", buffering=1 << 22)
r = random.Random(7)
status = ["OPEN", "CLOSED", "PENDING"]
buf = []
for i in range(n):
    k = r.randrange(1_000_000)
    buf.append(
        '{"Item":{"pk":{"S":"USER#%07d"},"sk":{"S":"ORDER#2026-11-%02d#%09d"},"status":{"S":"%s"},'
        '"amount":{"N":"%d.%02d"},"note":{"S":"%s"}}}\n'
        % (k, i % 28 + 1, i, status[i % 3], i % 997, i % 100, "x" * (20 + i % 40))
    )
    if len(buf) >= 100_000:
        out.write("".join(buf))
        buf = []
out.write("".join(buf))
