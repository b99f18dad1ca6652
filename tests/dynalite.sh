#!/usr/bin/env bash
# Installs dynalite (a local DynamoDB server on Node.js) for the SDK tests in tests/dynamo.rs, outside the
# repository, and prints the `export` line that points the tests at it. Idempotent: an existing install is kept.
#
#   eval "$(tests/dynalite.sh)"      # then: cargo test --test dynamo
#
# Needs Node.js ≥ 18 and npm. The folder defaults to $HOME/.cache/shardlens-dynalite; set SHARDLENS_DYNALITE_DIR
# to choose another one.
set -euo pipefail

DYNALITE_VERSION=4.0.0
dir="${SHARDLENS_DYNALITE_DIR:-$HOME/.cache/shardlens-dynalite}"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "tests/dynalite.sh: node and npm are needed for the DynamoDB tests (install Node.js 18 or newer)" >&2
    exit 1
fi

installed="$(node -p "require('$dir/node_modules/dynalite/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$DYNALITE_VERSION" ]; then
    echo "tests/dynalite.sh: installing dynalite@$DYNALITE_VERSION into $dir" >&2
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "dynalite@$DYNALITE_VERSION" >&2
fi
test -f "$dir/node_modules/dynalite/cli.js" || {
    echo "tests/dynalite.sh: dynalite did not install into $dir" >&2
    exit 1
}
echo "export SHARDLENS_DYNALITE_DIR='$dir'"
