#!/usr/bin/env bash
# Installs moto's server (PyPI `moto[server]`: a local AWS with DynamoDB, DynamoDB Streams and CloudWatch) and
# boto3 for the live-table tests (tests/live.rs), and prints the `export` line that tells the tests which Python
# has them. Idempotent: an installed moto and boto3 are kept.
#
#   eval "$(tests/moto.sh)"      # then: cargo test --test live
#
# Needs python3 with pip; set SHARDLENS_PYTHON to use another Python.
set -euo pipefail

MOTO_VERSION=5.2.1
python="${SHARDLENS_PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "tests/moto.sh: $python is needed for the live-table tests (install Python 3 with pip)" >&2
    exit 1
fi
if ! "$python" -c "import moto.server, boto3" >/dev/null 2>&1; then
    echo "tests/moto.sh: installing moto[server]==$MOTO_VERSION and boto3 for $python" >&2
    "$python" -m pip install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" boto3 >&2 ||
        "$python" -m pip install --quiet --disable-pip-version-check --break-system-packages \
            "moto[server]==$MOTO_VERSION" boto3 >&2
fi
"$python" -c "import moto.server, boto3" || {
    echo "tests/moto.sh: moto[server] and boto3 did not install for $python" >&2
    exit 1
}
echo "export SHARDLENS_MOTO_PYTHON='$(command -v "$python")'"
