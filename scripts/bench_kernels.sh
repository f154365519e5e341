#!/usr/bin/env bash
# The kernel benchmark in one command: installs the peer libraries when missing (Debian packages), builds
# bench/peers, measures this core's FMA peak, runs every peer (OpenBLAS and BLIS as installed and forced to
# their AVX-512 kernels, Eigen, oneDNN plain and with B pre-packed, libxsmm, naive loops, and optionally a
# kriek kernel in each of their processes) at 1 and 2 threads, then prints the tables and writes
# bench/results/kernels.{csv,md,png,log}. See bench/README.md, section "Kernel benchmark".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat >&2 <<EOF
usage: scripts/bench_kernels.sh [--quick] [--sizes LIST] [--threads LIST] [--no-install]
                                [--kriek | --kriek-lib PATH | --kriek-so PATH --kriek-symbol NAME [--kriek-size MxKxN]]
  --quick          a few sizes, 7 reps each (a few minutes)
  --sizes LIST     comma-separated: n (square) or MxKxN, e.g. 256,1024,2048x2048x1
  --threads LIST   comma-separated thread counts (default 1,2; 1 runs pinned to core 0)
  --no-install     do not apt-get the peer packages; peers that are missing are skipped
  --kriek          synthesize kriek kernels for every size (scripts/kriek_library.sh) and race them
  --kriek-*        race kriek kernels from a shared object (C ABI) inside every peer's process
EOF
  exit 2
}

sizes_full=64,128,256,257,512,1000,1024,2048,2048x2048x1,4096x64x64,64x4096x64
sizes_quick=64,256,257,1024,2048x2048x1,4096x64x64,64x4096x64
sizes="" threads=1,2 quick=0 install=1 kriek=() synthesize=0
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --sizes) sizes=${2:?}; shift ;;
    --threads) threads=${2:?}; shift ;;
    --no-install) install=0 ;;
    --kriek) synthesize=1 ;;
    --kriek-so|--kriek-symbol|--kriek-size|--kriek-lib) kriek+=("$1" "${2:?}"); shift ;;
    -h|--help) usage ;;
    *) echo "error: unknown option '$1'" >&2; usage ;;
  esac
  shift
done
[ -n "$sizes" ] || { [ $quick = 1 ] && sizes=$sizes_quick || sizes=$sizes_full; }
driver_flags=(--sizes "$sizes")
[ $quick = 1 ] && driver_flags+=(--quick)

# 1. Peer packages (idempotent: only what is missing is installed).
packages=(libopenblas-dev libblis-dev libeigen3-dev libdnnl-dev libxsmm-dev python3-matplotlib)
if [ $install = 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "bench: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

# 2. Build (incremental).
build=$root/build-peers
"$root/bench/peers/build.sh" "$build"

results=$root/bench/results
mkdir -p "$results"
if [ $synthesize = 1 ]; then
  "$root/scripts/kriek_library.sh" "$sizes" "$build/kriek_kernels.so"
  kriek+=(--kriek-lib "$build/kriek_kernels.so")
fi
csv=$results/kernels.csv log=$results/kernels.log
rm -f "$csv"
exec > >(tee "$log") 2>&1

# 3. This core's peak, so ratios are to the measured peak rather than the nominal ~225 GFLOP/s.
peak=$(taskset -c 0 "$build/peak_fma" | tee /dev/stderr | awk '/^peak_gflops_1core/ {print $2}')
echo "bench: measured single-core FP32 AVX-512 peak: $peak GFLOP/s"
echo "bench: the machine is shared: differences under ~5% are noise; medians are reported"

# 4. Every peer, each in its own process (OpenBLAS and BLIS both export cblas_sgemm). The kernel choice is
# made when the library loads, from the environment, so "as installed" unsets the override and "forced" sets it.
# Each entry: executable|environment assignments (or -u NAME to unset).
variants=(
  "peer_openblas|-u OPENBLAS_CORETYPE"
  "peer_openblas|OPENBLAS_CORETYPE=SkylakeX"
  "peer_blis|-u BLIS_ARCH_TYPE"
  "peer_blis|BLIS_ARCH_TYPE=0"
  "peer_eigen|"
  "peer_onednn|"
  "peer_xsmm|"
  "peer_naive|"
)
status=0
IFS=, read -ra thread_list <<<"$threads"
for t in "${thread_list[@]}"; do
  cpus=0; [ "$t" -gt 1 ] && cpus=0-$((t - 1))
  for v in "${variants[@]}"; do
    exe=${v%%|*} envs=${v#*|}
    if [ ! -x "$build/$exe" ]; then echo "bench: $exe not built, skipped"; continue; fi
    # shellcheck disable=SC2086  # $envs is a list of words for env(1)
    env $envs OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" BLIS_NUM_THREADS="$t" \
      taskset -c "$cpus" "$build/$exe" "${driver_flags[@]}" --threads "$t" --peak "$peak" --csv "$csv" \
      "${kriek[@]}" || { rc=$?; echo "bench: $exe exited with $rc"; status=1; }
  done
done

# 5. Tables and plot (system python: Debian's matplotlib).
python=/usr/bin/python3; [ -x $python ] || python=python3
$python "$root/bench/peers/report.py" "$csv" --png "$results/kernels.png" --md "$results/kernels.md" || status=1
echo "bench: results in $results (kernels.csv, kernels.md, kernels.png, kernels.log)"
exit $status
