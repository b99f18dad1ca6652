"""What the load benchmarks share (benches/export_load.sh, json_array.sh, json_lines.sh, lines_duckdb.sh and
ion_load.sh import it from the repository's root): a shardlens result checked against a generator's truth, and
timings (best of N; interleaved rounds; one run with a DuckDB query's own time)."""
import json
import subprocess
import sys


def check_against_truth(bin_, path, truth):
    """`shardlens analyze PATH` must give the generator's total, distinct count and hottest key."""
    doc = json.loads(subprocess.run([bin_, "analyze", path, "--format", "json", "--top", "1"], check=True,
                                    capture_output=True).stdout)
    assert doc["total"] == truth["total"], (path, doc["total"], truth)
    assert doc["distinct"] == truth["distinct"], (path, doc["distinct"], truth)
    top = doc["top_keys"][0]
    assert top["key"] == truth["hot_key"] and top["count"] == truth["hot_count"], (path, top, truth)


def best_of(cmd, runs=3):
    """(wall seconds, peak RSS in MB) of the fastest of `runs` runs of the shell command `cmd`, by
    /usr/bin/time -f "%e %M"; exits naming the command if one run fails."""
    best = None
    for _ in range(runs):
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "sh", "-c", cmd], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"failed: {cmd}\n{p.stderr}")
        wall, rss = p.stderr.strip().splitlines()[-1].split()
        m = (float(wall), int(rss) / 1024)
        best = m if best is None or m[0] < best[0] else best
    return best


def interleaved(cmds, rounds=5):
    """Runs each shell command of `cmds` once a round, in turn, for `rounds` rounds (so that a host getting
    busier or quieter weighs on every command alike); for each, (best wall seconds, median wall seconds, peak RSS
    in MB of the best run), by /usr/bin/time -f "%e %M". Exits naming the command if one run fails."""
    runs = [[] for _ in cmds]
    for _ in range(rounds):
        for i, cmd in enumerate(cmds):
            p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "sh", "-c", cmd], capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"failed: {cmd}\n{p.stderr}")
            wall, rss = p.stderr.strip().splitlines()[-1].split()
            runs[i].append((float(wall), int(rss) / 1024))
    out = []
    for r in runs:
        walls = sorted(w for w, _ in r)
        best = min(r)
        out.append((best[0], walls[len(walls) // 2], best[1]))
    return out


def spread(results):
    """How far above its best run each command's median was, in per cent (`results` as `interleaved` gives
    them): a command whose median is close to its best ran on a quiet host. A short command feels a busy
    minute more than a long one (the same stall is a larger share of its time), so the ratios of medians
    are read against this line."""
    return [round((median / best - 1) * 100) for best, median, _ in results]


def timed_with_query(cmd):
    """(wall seconds, peak RSS in MB, the seconds a `query N` line on stderr reports or None) of one run of the
    shell command `cmd`, by /usr/bin/time -f "%e %M"; exits naming the command if it fails. A DuckDB peer
    writes `query N` from inside its process, so its query is timed without Python's start-up."""
    p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "sh", "-c", cmd], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"failed: {cmd}\n{p.stderr}")
    err = p.stderr.strip().splitlines()
    wall, rss = err[-1].split()
    inner = next((float(l.split()[1]) for l in err if l.startswith("query ")), None)
    return float(wall), int(rss) / 1024, inner
