#!/usr/bin/env bash
# The cost model's fidelity (bench/fidelity.cpp): per Spec of the suite, the top-K predicted Impls measured, the
# Spearman rank correlation of predicted cost and measured time, and the DP's pick against the fastest; with the
# default constants and with this machine's calibrated profile (made by `kriek calibrate` into build/host.profile when there is
# none). Usage: scripts/bench_fidelity.sh [--quick] [--recalibrate]. Never part of the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
profile=build/host.profile
quick=()
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    --recalibrate) rm -f "$profile" ;;
    *) echo "usage: scripts/bench_fidelity.sh [--quick] [--recalibrate]" >&2; exit 1 ;;
  esac
done
if [ ! -f "$profile" ]; then
  scripts/setup.sh >/dev/null
  build/kriek calibrate -o "$profile"
fi
scripts/bench_run.sh bench_fidelity --profile "$profile" "${quick[@]}"
