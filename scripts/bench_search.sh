#!/usr/bin/env bash
# Search benchmark: cold synthesis of the suite on 1 and 2 threads, one process per run.
# Usage: scripts/bench_search.sh [--quick]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build" >/dev/null
cmake --build "$root/build" --target bench_search >/dev/null
specs=("matmul 64x64x64 f32" "matmul 256x256x256 f32" "matmul 1024x1024x1024 f32" "matmul 2048x2048x2048 f32"
       "conv 1x56x56x64 3x3x64x64 f32")
[ "${1:-}" = "--quick" ] && specs=("matmul 64x64x64 f32" "matmul 256x256x256 f32")
for spec in "${specs[@]}"; do
  for threads in 1 2; do
    "$root/build/bench/bench_search" --spec "$spec" --threads "$threads"
  done
done
