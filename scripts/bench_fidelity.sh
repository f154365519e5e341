#!/usr/bin/env bash
# The cost model's fidelity (bench/fidelity.cpp): per Spec of the suite, the top-K predicted Impls measured, the
# Spearman rank correlation of predicted cost and measured time (beside the retest correlation of two timing passes,
# the most a model can reach), and the DP's pick against the fastest; with the default constants and with this
# machine's calibrated profile (made by `kriek calibrate` into build/host.profile when there is none). The suite is
# the kernel benchmarks' shapes (--suite small: sub-microsecond ones), the kernels LLVM's (--backend c: kriek's C).
# Usage: scripts/bench_fidelity.sh [--quick | --suite kernels|small] [--backend llvm|c] [--recalibrate]. Never part
# of the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
profile=build/host.profile
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) args+=(--quick) ;;
    --suite) args+=(--suite "${2:?--suite needs kernels or small}"); shift ;;
    --backend) args+=(--backend "${2:?--backend needs llvm or c}"); shift ;;
    --recalibrate) rm -f "$profile" ;;
    *) echo "usage: scripts/bench_fidelity.sh [--quick | --suite kernels|small] [--backend llvm|c] [--recalibrate]" >&2
       exit 1 ;;
  esac
  shift
done
if [ ! -f "$profile" ]; then
  scripts/setup.sh >/dev/null
  build/kriek calibrate -o "$profile"
fi
scripts/bench_run.sh bench_fidelity --profile "$profile" "${args[@]}"
