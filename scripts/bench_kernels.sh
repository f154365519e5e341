#!/usr/bin/env bash
# The kernel benchmark in one command: installs the peer libraries when missing (Debian packages), builds
# bench/peers, measures this core's FMA peak, runs every peer (OpenBLAS and BLIS as installed and forced to
# their AVX-512 kernels, Eigen, oneDNN plain and with B pre-packed, libxsmm, naive loops, and optionally a
# kriek kernel in each of their processes) at 1 and 2 threads, then prints the tables and writes
# bench/results/kernels.{csv,md,png,log}. See bench/README.md, section "Kernel benchmark".
# --suite conv (what scripts/bench_conv.sh runs) does the same for ResNet conv layers against oneDNN's
# convolution and naive loops, into bench/results/conv.*; see bench/README.md, section "Conv benchmark".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  cat >&2 <<EOF
usage: scripts/bench_kernels.sh [--suite matmul|conv] [--quick] [--sizes LIST] [--threads LIST] [--no-install]
                                [--kriek [--timeout S] [--warm] [--tune K] | --kriek-lib PATH
                                 | --kriek-so PATH --kriek-symbol NAME [--kriek-size SIZE]]
  --suite S        matmul (default: plain, odd and batched shapes) or conv (ResNet layers; scripts/bench_conv.sh)
  --quick          a few sizes, 7 reps each (a few minutes)
  --sizes LIST     comma-separated: n (square), MxKxN, BxMxKxN (batched) or a conv [NAME=]NxHxWxC:FHxFWxF[:sS][:pP],
                   or the name of one of the suite's problems (res5_3x3)
  --threads LIST   comma-separated thread counts (default 1,2; 1 runs pinned to core 0)
  --no-install     do not apt-get the peer packages; peers that are missing are skipped
  --kriek          synthesize kriek kernels for every size (scripts/kriek_library.sh) and race them; each
                   search is capped at --timeout S seconds (default 300) and 4 GiB, its time and peak RSS
                   recorded in bench/results/<suite>_search.csv; the conv suite searches cold (a fresh DP
                   table per layer) unless --warm; --tune K builds each kernel as the fastest of its K
                   cheapest candidates, measured (kriek library --tune)
  --kriek-*        race kriek kernels from a shared object (C ABI) inside every peer's process
EOF
  exit 2
}

sizes="" threads=1,2 quick=0 install=1 kriek=() synthesize=0 suite=matmul limit_s=300 warm=0 tune=()
while [ $# -gt 0 ]; do
  case $1 in
    --suite) suite=${2:?}; shift ;;
    --timeout) limit_s=${2:?}; shift ;;
    --warm) warm=1 ;;
    --tune) tune=(--tune "${2:?}"); shift ;;
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
# Each entry of `variants`: executable|environment assignments (or -u NAME to unset)[|CPU flag it needs]; see
# step 4.
case $suite in
  matmul)
    # Square sizes, odd shapes (issue 13; three with a rhs narrower than a register; two mid-size ones whose rows
    # are not whole lines), a matrix-vector and two skinny products, batched (B x M x K x N: BERT attention heads,
    # 4 x 64^3).
    sizes_full=64,128,256,257,512,1000,1024,2048,82x99x63,99x36x67,17x160x3,96x256x5,1024x64x2,2048x2048x1,4096x64x64
    sizes_full+=,64x4096x64,300x700x500,1200x96x1500
    sizes_full+=,4x64x64x64,12x128x64x128,16x40x64x40
    sizes_quick=64,256,1024,82x99x63,2048x2048x1,4096x64x64,4x64x64x64,12x128x64x128
    name=kernels
    variants=(
      "peer_openblas|-u OPENBLAS_CORETYPE"
      "peer_openblas|OPENBLAS_CORETYPE=SkylakeX|avx512f"
      "peer_blis|-u BLIS_ARCH_TYPE"
      "peer_blis|BLIS_ARCH_TYPE=0|avx512f"
      "peer_eigen|"
      "peer_onednn|"
      "peer_xsmm|"
      "peer_naive|"
    ) ;;
  conv)
    # ResNet-18/50 layers (ResNet-50's wide ones last), batch 1, NHWC f32 (bench/README.md, section "Conv benchmark", says which is which).
    conv_layers=(
      conv1=1x224x224x3:7x7x64:s2:p3
      res2_3x3=1x56x56x64:3x3x64:p1
      res2_1x1=1x56x56x64:1x1x64
      res2_1x1up=1x56x56x64:1x1x256
      res3a_3x3s2=1x56x56x64:3x3x128:s2:p1
      res3a_1x1s2=1x56x56x64:1x1x128:s2
      res3_3x3=1x28x28x128:3x3x128:p1
      res3_1x1=1x28x28x512:1x1x128
      res4a_3x3s2=1x28x28x128:3x3x256:s2:p1
      res4a_1x1s2=1x28x28x128:1x1x256:s2
      res4_3x3=1x14x14x256:3x3x256:p1
      res5a_3x3s2=1x14x14x256:3x3x512:s2:p1
      res5_3x3=1x7x7x512:3x3x512:p1
      res5_1x1up=1x7x7x512:1x1x2048
      r50_res3a_1x1s2=1x56x56x256:1x1x512:s2
      r50_res4_1x1up=1x14x14x256:1x1x1024
      r50_res4a_1x1s2=1x28x28x512:1x1x1024:s2
      r50_res5a_1x1s2=1x14x14x1024:1x1x2048:s2
    )
    sizes_full=$(IFS=,; echo "${conv_layers[*]}")
    sizes_quick=conv1=1x224x224x3:7x7x64:s2:p3,res2_3x3=1x56x56x64:3x3x64:p1
    sizes_quick+=,res4a_3x3s2=1x28x28x128:3x3x256:s2:p1,res5_1x1up=1x7x7x512:1x1x2048
    name=conv
    variants=("peer_onednn|" "peer_naive|") ;;
  *) echo "error: unknown suite '$suite' (matmul or conv)" >&2; usage ;;
esac
[ -n "$sizes" ] || { [ $quick = 1 ] && sizes=$sizes_quick || sizes=$sizes_full; }
# A bare name of the suite's (res5_3x3) stands for its entry; the rest the drivers parse (checked after the build).
IFS=, read -ra asked <<<"$sizes"
expanded=()
for s in "${asked[@]}"; do
  if [[ $s =~ ^[A-Za-z][A-Za-z0-9_]*$ ]]; then
    match=""
    for entry in ${sizes_full//,/ }; do [ "${entry%%=*}" = "$s" ] && match=$entry; done
    [ -n "$match" ] || { echo "error: no problem named '$s' in the $suite suite" >&2; exit 1; }
    s=$match
  fi
  expanded+=("$s")
done
sizes=$(IFS=,; echo "${expanded[*]}")
driver_flags=(--sizes "$sizes")
[ $quick = 1 ] && driver_flags+=(--quick)

# 1. Peer packages (idempotent: only what is missing is installed).
packages=(libopenblas-dev libblis-dev libeigen3-dev libdnnl-dev libxsmm-dev python3-matplotlib time)
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
# The sizes as the drivers read them (bench/peers/problem.cpp), once, so that a typo stops the run with one line
# instead of failing every driver.
if ! "$build/peer_naive" --sizes "$sizes" --list-kriek >/dev/null 2>"$build/sizes.err"; then
  sed -n '1s/ (see the forms below)/ (the forms: scripts\/bench_kernels.sh --help)/p' "$build/sizes.err" >&2
  exit 1
fi

results=$root/bench/results
mkdir -p "$results"
csv=$results/$name.csv log=$results/$name.log search_csv=$results/${name}_search.csv
speedup_csv=$results/${name}_speedup.csv ratio_csv=$results/${name}_ratios.csv
rm -f "$csv" "$speedup_csv" "$ratio_csv"
exec > >(tee "$log") 2>&1
report_flags=()
if [ $synthesize = 1 ]; then
  rm -f "$search_csv"
  cold=(); [ "$suite" = conv ] && [ $warm = 0 ] && cold=(--cold)
  lib=$build/kriek_${name}.so
  echo "bench: synthesizing kriek kernels (each search <= $limit_s s, 4 GiB; machine: $(uptime))"
  rc=0
  "$root/scripts/kriek_library.sh" "$sizes" "$lib" --search-csv "$search_csv" --timeout "$limit_s" "${cold[@]}" \
    "${tune[@]}" ||
    rc=$?
  case $rc in
    0) kriek+=(--kriek-lib "$lib") ;;
    4) echo "bench: kriek got no kernel for this suite: peers only" ;;
    *) exit $rc ;;
  esac
  report_flags+=(--search "$search_csv")
fi

# 3. This core's peak, so ratios are to the measured peak rather than the nominal ~225 GFLOP/s.
peak=$(taskset -c 0 "$build/peak_fma" | tee /dev/stderr | awk '/^peak_gflops_1core/ {print $2}')
echo "bench: measured single-core FP32 FMA peak (the widest vectors this CPU has): $peak GFLOP/s"
echo "bench: the machine is shared: differences under ~5% are noise; medians are reported"

# 4. Every peer, each in its own process (OpenBLAS and BLIS both export cblas_sgemm). The kernel choice is
# made when the library loads, from the environment, so "as installed" unsets the override and "forced" sets it.
status=0
IFS=, read -ra thread_list <<<"$threads"
for t in "${thread_list[@]}"; do
  cpus=0; [ "$t" -gt 1 ] && cpus=0-$((t - 1))
  for v in "${variants[@]}"; do
    IFS='|' read -r exe envs needs <<<"$v"
    if [ ! -x "$build/$exe" ]; then echo "bench: $exe not built, skipped"; continue; fi
    if [ -n "$needs" ] && ! grep -qw "$needs" /proc/cpuinfo; then
      echo "bench: $exe with $envs skipped: this CPU has no $needs"; continue
    fi
    # shellcheck disable=SC2086  # $envs is a list of words for env(1)
    # With 2+ threads kriek's speed-up is also timed within the process (its parallel and serial kernels
    # alternating), which the ratio of two processes' medians below cannot be on a noisy machine.
    # Every kriek / peer ratio is paired the same way (both prepared, rounds alternating), into $ratio_csv.
    paired=(); ((${#kriek[@]})) && paired=(--ratio-csv "$ratio_csv")
    [ "$t" -gt 1 ] && ((${#kriek[@]})) && paired+=(--speedup-csv "$speedup_csv")
    env $envs OMP_NUM_THREADS="$t" OPENBLAS_NUM_THREADS="$t" BLIS_NUM_THREADS="$t" \
      taskset -c "$cpus" "$build/$exe" "${driver_flags[@]}" --threads "$t" --peak "$peak" --csv "$csv" \
      "${kriek[@]}" "${paired[@]}" || { rc=$?; echo "bench: $exe exited with $rc"; status=1; }
  done
done

# 5. Tables and plot (system python: Debian's matplotlib).
python=/usr/bin/python3; [ -x $python ] || python=python3
[ -s "$speedup_csv" ] && report_flags+=(--speedup "$speedup_csv")
[ -s "$ratio_csv" ] && report_flags+=(--ratios "$ratio_csv")
[ -s "$csv" ] || { echo "bench: no peer wrote a result (see $log)"; exit 1; }
$python "$root/bench/peers/report.py" "$csv" --png "$results/$name.png" --md "$results/$name.md" \
  "${report_flags[@]}" || status=1
echo "bench: results in $results ($name.csv, $name.md, $name.png, $name.log${report_flags:+, ${name}_search.csv})"
exit $status
