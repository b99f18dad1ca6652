#!/usr/bin/env bash
# Installs DuckDB's Python package (PyPI `duckdb`) for the test that runs `shardlens sql`'s DuckDB query for
# real (tests/cli.rs), and prints the `export` line that tells the test which Python has it. Idempotent: an
# installed duckdb is kept.
#
#   eval "$(tests/duckdb.sh)"      # then: cargo test --test cli sql_
#
# Needs python3 with pip.
set -euo pipefail

DUCKDB_VERSION=2.0.1
python="${SHARDLENS_PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "tests/duckdb.sh: $python is needed for the DuckDB test (install Python 3 with pip)" >&2
    exit 1
fi
if ! "$python" -c "import duckdb" >/dev/null 2>&1; then
    echo "tests/duckdb.sh: installing duckdb==$DUCKDB_VERSION for $python" >&2
    "$python" -m pip install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION" >&2 ||
        "$python" -m pip install --quiet --disable-pip-version-check --break-system-packages \
            "duckdb==$DUCKDB_VERSION" >&2
fi
"$python" -c "import duckdb" || {
    echo "tests/duckdb.sh: duckdb did not install for $python" >&2
    exit 1
}
echo "export SHARDLENS_PYTHON='$(command -v "$python")'"
