#!/usr/bin/env bash
# The one command that runs every test: unit, integration (CLI) and UI tests.
# Installs what the tests need that the Rust toolchain does not bring.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --locked --all-features "$@"
