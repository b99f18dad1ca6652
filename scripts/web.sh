#!/usr/bin/env bash
# shardlens in the browser (docs/web.md).
#
#   scripts/web.sh build          writes the static site to target/web/ (index.html, shardlens.js and
#                                 shardlens_bg.wasm, icons, the web manifest, the fonts and their licences)
#   scripts/web.sh serve [PORT]   serves target/web/ on http://127.0.0.1:PORT/ (default 8080), cross-origin
#                                 isolated (the headers that let the page's workers share its memory)
#   scripts/web.sh lint           clippy on the page's build (what only a page compiles: app/web.rs, …)
#
# The page runs its long work on Web Workers that share its memory (src/app/workers.rs), so the standard
# library is built again with atomics (-Zbuild-std, allowed on a stable toolchain by RUSTC_BOOTSTRAP=1, as
# egui's and wasm-bindgen's own threaded examples do). Its source comes from rustup's rust-src where rustup has
# or can download the wasm32 target and rust-src; otherwise (a machine whose rustup cannot download) from
# Debian's rustc-web, rust-web-src and lld-22. wasm-bindgen-cli is installed from crates.io at exactly the
# version in Cargo.lock. Environment: SHARDLENS_WEB_TARGET_DIR (where cargo builds the page; default
# ${CARGO_TARGET_DIR:-target}/wasm, apart from the desktop build because the toolchain may differ).
set -euo pipefail
cd "$(dirname "$0")/.."
. tests/apt.sh

OUT=target/web
TARGET=wasm32-unknown-unknown
BUILD_DIR=${SHARDLENS_WEB_TARGET_DIR:-${CARGO_TARGET_DIR:-target}/wasm}

say() { echo "web.sh: $*" >&2; }

# Sets CARGO_ARGS (and the environment) for a wasm32 build: rustup's target, or Debian's route. With
# `threads`, the standard library is built with atomics from source (rustup's rust-src or Debian's).
choose_toolchain() {
    local threads=${1:-}
    if command -v rustup >/dev/null && { rustup target list --installed 2>/dev/null | grep -qx "$TARGET" \
        || timeout 120 rustup target add "$TARGET" >/dev/null 2>&1; }; then
        if [ -z "$threads" ]; then
            say "wasm32 from rustup"
            CARGO_ARGS=()
            return
        fi
        if rustup component list --installed 2>/dev/null | grep -q '^rust-src' \
            || timeout 300 rustup component add rust-src >/dev/null 2>&1; then
            say "wasm32 from rustup, std built with atomics from rust-src"
            export RUSTC_BOOTSTRAP=1
            CARGO_ARGS=(-Zbuild-std=std,panic_abort -Zbuild-std-features=)
            return
        fi
    fi
    say "rustup cannot give the wasm32 target here: building std with Debian's rustc-web"
    apt_install web.sh rustc-web rust-web-src lld-22 || exit 1
    export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
    # rustc-web names its linker rust-lld, which Debian does not ship: LLVM's wasm-ld is the same linker.
    export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-22/bin/wasm-ld
    CARGO_ARGS=(-Zbuild-std=std,panic_abort -Zbuild-std-features=)
}

# wasm-bindgen-cli at the lock file's wasm-bindgen version (they must match exactly).
ensure_wasm_bindgen() {
    local want
    want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
    [ -n "$want" ] || { say "no wasm-bindgen in Cargo.lock"; exit 1; }
    if ! wasm-bindgen --version 2>/dev/null | grep -q " $want\$"; then
        say "installing wasm-bindgen-cli $want (a few minutes, once)"
        # Not --locked: one of its locked dependencies is not on crates.io any more.
        (unset RUSTC RUSTC_BOOTSTRAP; cargo install --quiet wasm-bindgen-cli --version "$want")
    fi
}

build() {
    local started=$SECONDS
    choose_toolchain threads
    ensure_wasm_bindgen
    # Shared memory for the workers: every crate with atomics and bulk memory, and the module linked with a
    # shared, imported memory of at most 2 GiB (a browser reserves a shared memory's maximum when the page
    # starts; 1 GiB is too little for a 100 MB export's bytes beside what is read from them) that exports
    # what wasm-bindgen's loader needs to give each worker its own thread-local storage.
    local link=(--shared-memory --import-memory --max-memory=2147483648
        --export=__wasm_init_tls --export=__tls_size --export=__tls_align --export=__tls_base)
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+atomics,+bulk-memory,+mutable-globals" \
        CARGO_TARGET_DIR=$BUILD_DIR cargo rustc --bin shardlens --profile web --target "$TARGET" "${CARGO_ARGS[@]}" \
        -- "${link[@]/#/-Clink-arg=}"
    rm -rf "$OUT"
    mkdir -p "$OUT"
    wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
        --out-dir "$OUT" --out-name shardlens \
        "$BUILD_DIR/$TARGET/web/shardlens.wasm"
    cp web/index.html web/manifest.webmanifest web/worker.js web/sw.js web/_headers "$OUT/"
    cp assets/icon-32.png assets/icon-256.png assets/icon-512.png "$OUT/"
    # The fonts for CJK and emoji keys, fetched by the page only when keys need them (src/app/web.rs,
    # FALLBACKS): Debian's WenQuanYi Micro Hei (Han, kana and Hangul; Apache-2.0) and Symbola (emoji and
    # symbols of Unicode 9, monochrome; free for any use), each with its licence beside it.
    apt_install web.sh fonts-wqy-microhei fonts-symbola >/dev/null 2>&1 || true
    mkdir -p "$OUT/fonts"
    local font package what
    for font in wqy/wqy-microhei.ttc:fonts-wqy-microhei:CJK ancient-scripts/Symbola_hint.ttf:fonts-symbola:emoji; do
        IFS=: read -r font package what <<<"$font"
        if [ -f "/usr/share/fonts/truetype/$font" ]; then
            cp "/usr/share/fonts/truetype/$font" "$OUT/fonts/"
            cp "/usr/share/doc/$package/copyright" "$OUT/fonts/$(basename "${font%.*}").LICENSE.txt"
        else
            say "no /usr/share/fonts/truetype/$font (Debian's $package): $what keys will show as boxes in the page"
        fi
    done
    local raw gz
    raw=$(stat -c %s "$OUT/shardlens_bg.wasm")
    gz=$(gzip -9 -c "$OUT/shardlens_bg.wasm" | wc -c)
    say "wrote $OUT/ in $((SECONDS - started)) s: shardlens_bg.wasm $((raw / 1024)) KiB raw, $((gz / 1024)) KiB gzipped"
    say "serve it with: scripts/web.sh serve"
}

lint() {
    choose_toolchain
    CARGO_TARGET_DIR=$BUILD_DIR cargo clippy --locked --lib --bins --target "$TARGET" "${CARGO_ARGS[@]}" -- -D warnings
}

serve() {
    local port=${1:-8080}
    [ -f "$OUT/index.html" ] || { say "no $OUT/index.html: run scripts/web.sh build first"; exit 1; }
    say "serving $OUT on http://127.0.0.1:$port/ (Ctrl+C stops)"
    exec python3 scripts/serve.py --directory "$OUT" "$port"
}

case "${1:-}" in
    build) build ;;
    serve) shift; serve "$@" ;;
    lint) lint ;;
    *) echo "usage: scripts/web.sh build | serve [PORT] | lint" >&2; exit 2 ;;
esac
