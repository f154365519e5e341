#!/usr/bin/env bash
# Search benchmark: cold synthesis of the suite on 1 and 2 threads, one process per run.
# Usage: scripts/bench_search.sh [--quick | --goals] [--sparse] [--rounds N]   (--goals: issue 14's shapes;
# --sparse: the sparse DP, synth/sparse.h; --rounds: N rounds per Spec, each a 1-thread and a 2-thread process
# back to back, and the speed-up of their median times: a shared VM moves one process's time by up to a fifth)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build" >/dev/null
cmake --build "$root/build" --target bench_search >/dev/null
specs=("matmul 64x64x64 f32" "matmul 256x256x256 f32" "matmul 1024x1024x1024 f32" "matmul 2048x2048x2048 f32"
       "conv 1x56x56x64 3x3x64x64 f32")
thread_counts=(1 2)
mode="" sparse=() rounds=1
usage="usage: scripts/bench_search.sh [--quick | --goals] [--sparse] [--rounds N]"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick | --goals) mode=$1 ;;
    --sparse) sparse=(--sparse) ;;
    --rounds)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "bench_search.sh: --rounds takes a positive count, got '${2:-}'" >&2; exit 1; }
      rounds=$2; shift ;;
    *) echo "$usage" >&2; exit 1 ;;
  esac
  shift
done
[ "$mode" = "--quick" ] && specs=("matmul 64x64x64 f32" "matmul 256x256x256 f32")
if [ "$mode" = "--goals" ]; then
  specs=("matmul 2048x2048x2048 f32" "matmul 1000x1000x1000 f32" "matmul 384x768x3072 f32" "matmul 127x255x63 f32"
         "matmul 4096x4096x1 f32" "matmul 64x4096x64 f32" "conv 1x14x14x32 3x3x32x32 f32")
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for spec in "${specs[@]}"; do
  for ((round = 0; round < rounds; ++round)); do
    for threads in "${thread_counts[@]}"; do
      "$root/build/bench/bench_search" --spec "$spec" --threads "$threads" "${sparse[@]}" | tee -a "$out"
    done
  done
done
# Each Spec's 2-thread speed-up (median 1-thread seconds / median 2-thread seconds, over the rounds) and the extra
# CPU time 2 threads spend (the same of the CPU seconds).
awk 'function median(a, k,   i, j, x) { for (i = 2; i <= k; ++i) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; --j)
                                          a[j + 1] = a[j]; a[j + 1] = x }
                                        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
     { spec = $0; sub(/^spec="/, "", spec); sub(/".*/, "", spec)
       for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
       k = ++runs[spec, v["threads"]]; t[spec, v["threads"], k] = v["seconds"]; c[spec, v["threads"], k] = v["cpu_s"]
       if (!(spec in seen)) { seen[spec] = 1; order[++n] = spec } }
     END { for (i = 1; i <= n; ++i) { s = order[i]
             for (th = 1; th <= 2; ++th) { k = runs[s, th]; split("", ts); split("", cs)
               for (r = 1; r <= k; ++r) { ts[r] = t[s, th, r]; cs[r] = c[s, th, r] }
               mt[th] = k ? median(ts, k) : 0; mc[th] = k ? median(cs, k) : 0 }
             if (mt[1] > 0 && mt[2] > 0)
               printf "speedup spec=\"%s\" rounds=%d seconds_1=%.3g seconds_2=%.3g 2_threads=%.2fx cpu_2_over_1=%.2f\n",
                      s, runs[s, 2], mt[1], mt[2], mt[1] / mt[2], mc[2] / mc[1] } }' "$out"
