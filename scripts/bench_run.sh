#!/usr/bin/env bash
# Builds one benchmark of bench/ (after the set-up) and runs it from the repository's root between two lines of the
# machine's load (benchmarks are not tests: the load says how far to trust the figures). The benchmarks' scripts
# call it. Usage: scripts/bench_run.sh TARGET [ARGS...]   (runs build/bench/TARGET ARGS...)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${1:?usage: scripts/bench_run.sh TARGET [ARGS...]}
shift
scripts/setup.sh >/dev/null
cmake --build build --target "$target" >/dev/null
mkdir -p bench/results
echo "load before: $(uptime)"
"build/bench/$target" "$@"
echo "load after: $(uptime)"
