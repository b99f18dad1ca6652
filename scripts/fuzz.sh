#!/usr/bin/env bash
# Fuzz campaign: builds every target of fuzz/ (cargo-fuzz, libFuzzer) and runs each for DURATION seconds
# (default 900) or FUZZ_RUNS executions (default 10,000,000), whichever comes first, then prints per target the executions, executions per second, coverage (libFuzzer's final
# `cov:` and `ft:`) and the crashes found (saved under fuzz/artifacts/<target>/).
#
#   scripts/fuzz.sh [DURATION] [TARGET...]
#
# DURATION 0 runs no fuzzer: it only merges (with FUZZ_MERGE=1) and prints the figures of the last runs.
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`); on a stable toolchain it runs with RUSTC_BOOTSTRAP=1.
# New inputs go to fuzz/corpus-full/<target>/ (not committed); with FUZZ_MERGE=1 the end merges them into
# the committed, minimised fuzz/corpus/<target>/ (libFuzzer -merge=1), inputs of at most FUZZ_KEEP_LEN bytes
# (default 1024) only, and then the smallest of them up to FUZZ_KEEP_BYTES (default 24000) per target, so that
# the committed corpus stays small (the whole one stays in corpus-full/). A crash input worth keeping goes to
# fuzz/regressions/<target>/ once fixed, and `cargo test --test fuzz_corpus` replays it.
# Environment: FUZZ_TARGET_DIR (build folder, default ~/.cache/shardlens-fuzz-target), FUZZ_MAX_LEN (8192),
# FUZZ_RUNS (10000000), FUZZ_TIMEOUT (seconds one input may take, 10; the `trace` target ran with 60: it reads
# each input a dozen ways, and ten hours of CloudWatch minutes replayed on stand-in keys take 2 s a read).
set -euo pipefail

duration="${1:-900}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"
target_dir="${FUZZ_TARGET_DIR:-$HOME/.cache/shardlens-fuzz-target}"
max_len="${FUZZ_MAX_LEN:-8192}"
runs="${FUZZ_RUNS:-10000000}"
keep_len="${FUZZ_KEEP_LEN:-1024}"
keep_bytes="${FUZZ_KEEP_BYTES:-24000}"
export RUSTC_BOOTSTRAP=1

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^shardlens-fuzz$')
fi

# No sanitizer: the crate forbids unsafe code, so ASan would only slow the runs down.
if [ "${#targets[@]}" -eq 1 ]; then
    cargo fuzz build -s none --target-dir "$target_dir" "${targets[0]}"
else
    cargo fuzz build -s none --target-dir "$target_dir"
fi
bin_dir="$target_dir/x86_64-unknown-linux-gnu/release"

mkdir -p logs
for t in "${targets[@]}"; do
    mkdir -p "corpus-full/$t" "corpus/$t" "artifacts/$t"
    dirs=("corpus-full/$t" "corpus/$t")
    for extra in seeds regressions; do
        [ -d "$extra/$t" ] && dirs+=("$extra/$t")
    done
    if [ "$duration" -gt 0 ]; then
        echo "== $t: ${duration}s" >&2
        "$bin_dir/$t" "${dirs[@]}" -max_total_time="$duration" -runs="$runs" -print_final_stats=1 -max_len="$max_len" \
            -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -artifact_prefix="artifacts/$t/" >"logs/$t.log" 2>&1 || true
    fi
    if [ "${FUZZ_MERGE:-0}" = 1 ]; then
        rm -rf "corpus-new/$t" "corpus-cand/$t" && mkdir -p "corpus-new/$t" "corpus-cand/$t"
        for from in "corpus/$t" "corpus-full/$t"; do
            find "$from" -type f -size -"$((keep_len + 1))"c -exec cp -f -t "corpus-cand/$t" {} +
        done
        if "$bin_dir/$t" -merge=1 -max_len="$max_len" "corpus-new/$t" "corpus-cand/$t" >"logs/$t.merge.log" 2>&1
        then
            rm -rf "corpus/$t" && mv "corpus-new/$t" "corpus/$t"
        fi
        total=0
        while IFS= read -r f; do
            total=$((total + $(stat -c %s "$f")))
            if [ "$total" -gt "$keep_bytes" ]; then rm -f "$f"; fi
        done < <(find "corpus/$t" -type f -printf '%s %p\n' | sort -n | cut -d' ' -f2-)
        rm -rf "corpus-cand/$t"
    fi
done

printf '%-20s %12s %10s %8s %8s %8s\n' target execs execs/s cov ft crashes
for t in "${targets[@]}"; do
    log="logs/$t.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    crashes=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    printf '%-20s %12s %10s %8s %8s %8s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "$crashes"
done
