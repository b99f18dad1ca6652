#!/usr/bin/env bash
# The page in a real browser: builds the site (scripts/web.sh build), serves it on 127.0.0.1 and runs
# tests/web/e2e.mjs in Debian's headless Chromium through puppeteer-core (npm). Screenshots go to OUT_DIR
# (default ${CARGO_TARGET_DIR:-target}/web-e2e).
#
# Where Chromium, Node.js or the web toolchain cannot be installed it says so in one line; with CI=true that
# is a failure, otherwise the test is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tests/apt.sh
source tests/apt.sh

out=${1:-${CARGO_TARGET_DIR:-target}/web-e2e}
mkdir -p "$out"

missing() {
    echo "web test: $1" >&2
    if [ "${CI:-}" = true ]; then exit 1; fi
    echo "web test: skipped (not CI)" >&2
    exit 0
}

apt_install web-test chromium || missing "cannot install Debian's chromium"
command -v chromium >/dev/null || missing "no chromium on PATH"
command -v node >/dev/null && command -v npm >/dev/null || missing "no Node.js/npm to drive the browser"
(cd tests/web && npm ci --no-audit --no-fund --silent) || missing "cannot install puppeteer-core from npm"

scripts/web.sh build

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# The page as scripts/web.sh serve gives it (cross-origin isolated), and as a host that sends no headers does.
port=$(free_port)
plain=$(free_port)
python3 scripts/serve.py --directory target/web "$port" &
server=$!
python3 scripts/serve.py --plain --directory target/web "$plain" &
plain_server=$!
trap 'kill $server $plain_server 2>/dev/null || true' EXIT
for p in "$port" "$plain"; do
    for _ in $(seq 50); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$p/index.html')" 2>/dev/null && break
        sleep 0.1
    done
done
node tests/web/e2e.mjs "http://127.0.0.1:$port/index.html" "$out" "http://127.0.0.1:$plain/index.html"
