#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (ctest, every Catch2 test case, slow ones included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build"
cd "$root/build"
ctest -j "$(nproc)" --output-on-failure --timeout 1200
