#!/usr/bin/env bash
# The one command that runs every test: unit, integration (CLI, loaders, DynamoDB against dynalite), UI
# (egui_kittest), the real binary under Xvfb (smoke; desktop: clipboard and file-dialog fallback), the page in
# headless Chromium (tests/web.sh: the web build, share links, a dropped file, the widget, CJK keys), and the
# Linux packaging files. Installs what the tests need beyond the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

target_dir="${CARGO_TARGET_DIR:-target}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# The SDK tests (tests/dynamo.rs) start their own dynalite (a local DynamoDB server) on 127.0.0.1.
eval "$(tests/dynalite.sh)"
# The DuckDB test (tests/cli.rs) runs `shardlens sql`'s query with DuckDB's Python package.
eval "$(tests/duckdb.sh)"
# The live-table tests (tests/live.rs) start their own moto server (DynamoDB Streams and CloudWatch) on 127.0.0.1.
eval "$(tests/moto.sh)"

# ISA-L's inflate (Debian's libisal-dev, found through pkg-config when shardlens builds): with it installed the
# gzip tests also check ISA-L against zlib-rs, and fail if the build did not pick it up.
# shellcheck source=tests/apt.sh
source tests/apt.sh
if apt_install isal libisal-dev pkg-config && pkg-config --exists libisal 2>/dev/null; then
    export SHARDLENS_REQUIRE_ISAL=1
fi

# Every crate of the workspace: shardlens and its two small unsafe crates (ISA-L's inflate, the SIMD kernels).
cargo test --workspace --locked --all-features "$@" 2>&1 | tee "$log"

echo "== smoke test of the desktop app under Xvfb"
tests/smoke.sh "$target_dir/debug/shardlens" "$target_dir/smoke.png"
echo "== the app starts on a settings file cut short (moved aside and said)"
SMOKE_STATE=tests/fixtures/bad/app-settings-cut.ron SMOKE_KEPT=app.ron.bad \
    SMOKE_EXPECT='Your settings cannot be read \(line [0-9]+, column [0-9]+: .*started fresh; the old file is kept as app.ron.bad' \
    tests/smoke.sh "$target_dir/debug/shardlens" "$target_dir/smoke-bad-settings.png"

echo "== desktop test: clipboard and file-dialog fallback under Xvfb"
tests/desktop.sh "$target_dir/debug/shardlens" "$target_dir/desktop"

echo "== the page in headless Chromium (scripts/web.sh build, tests/web/e2e.mjs)"
tests/web.sh "$target_dir/web-e2e"

echo "== packaging files"
tests/packaging.sh

# One closing line over every cargo test binary, for people and for CI.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
