#!/usr/bin/env bash
# The sparse DP against the exhaustive search (bench/sparse.cpp): per Spec of a suite of large matmuls and conv
# layers, both searches cold on 2 threads (time, Specs solved, predicted cost) and both picks compiled, verified and
# timed in alternating rounds. Usage: scripts/bench_sparse.sh [--quick]. Never part of the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh >/dev/null
cmake --build build --target bench_sparse >/dev/null
mkdir -p bench/results
echo "load before: $(uptime)"
build/bench/bench_sparse "$@" | tee bench/results/sparse.log
echo "load after: $(uptime)"
