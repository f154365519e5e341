#!/usr/bin/env bash
# The sparse DP against the exhaustive search (bench/sparse.cpp): per Spec of a suite of large matmuls and conv
# layers, both searches cold on 2 threads (time, Specs solved, predicted cost) and both picks compiled, verified and
# timed in alternating rounds. Usage: scripts/bench_sparse.sh [--quick]; the log goes to bench/results/sparse.log.
# Never part of the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/bench/results"
"$root/scripts/bench_run.sh" bench_sparse "$@" | tee "$root/bench/results/sparse.log"
