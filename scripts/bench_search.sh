#!/usr/bin/env bash
# Search benchmark: cold synthesis of the suite on 1 and 2 threads, one process per run.
# Usage: scripts/bench_search.sh [--quick | --goals] [--sparse]   (--goals: issue 14's shapes;
# --sparse: the sparse DP, synth/sparse.h)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build" >/dev/null
cmake --build "$root/build" --target bench_search >/dev/null
specs=("matmul 64x64x64 f32" "matmul 256x256x256 f32" "matmul 1024x1024x1024 f32" "matmul 2048x2048x2048 f32"
       "conv 1x56x56x64 3x3x64x64 f32")
thread_counts=(1 2)
mode="" sparse=()
for a in "$@"; do
  case "$a" in
    --quick | --goals) mode=$a ;;
    --sparse) sparse=(--sparse) ;;
    *) echo "usage: scripts/bench_search.sh [--quick | --goals] [--sparse]" >&2; exit 1 ;;
  esac
done
[ "$mode" = "--quick" ] && specs=("matmul 64x64x64 f32" "matmul 256x256x256 f32")
if [ "$mode" = "--goals" ]; then
  specs=("matmul 2048x2048x2048 f32" "matmul 1000x1000x1000 f32" "matmul 384x768x3072 f32" "matmul 127x255x63 f32"
         "matmul 4096x4096x1 f32" "matmul 64x4096x64 f32" "conv 1x14x14x32 3x3x32x32 f32")
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for spec in "${specs[@]}"; do
  for threads in "${thread_counts[@]}"; do
    "$root/build/bench/bench_search" --spec "$spec" --threads "$threads" "${sparse[@]}" | tee -a "$out"
  done
done
# Each Spec's 2-thread speed-up (1-thread seconds / 2-thread seconds) and the extra CPU time 2 threads spend.
awk '{ spec = $0; sub(/^spec="/, "", spec); sub(/".*/, "", spec)
       for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
       t[spec, v["threads"]] = v["seconds"]; c[spec, v["threads"]] = v["cpu_s"]
       if (!(spec in seen)) { seen[spec] = 1; order[++n] = spec } }
     END { for (i = 1; i <= n; ++i) { s = order[i]
             if (t[s, 1] > 0 && t[s, 2] > 0)
               printf "speedup spec=\"%s\" 2_threads=%.2fx cpu_2_over_1=%.2f\n", s, t[s, 1] / t[s, 2],
                      c[s, 2] / c[s, 1] } }' "$out"
