#!/usr/bin/env bash
# Synthesizes a kriek kernel for each benchmark problem (plain or batched matmul, conv) and builds them with
# `kriek library` (LLVM by default, as for users) into one shared library, the form the benchmarks race
# (bench/peers, --kriek-lib). Each problem gets SYMBOL
# (parallel loops allowed, OpenMP) and SYMBOL_t1 (a serial Spec, for one thread), and the same pair for B
# pre-packed (SYMBOL_pk, SYMBOL_pk_t1: filters or rhs in kriek's output-column panels); the peer driver says what
# kriek calls each problem (`--list-kriek`: Problem::kriek_symbol, kriek_packed_symbol and their specs), so the
# names are defined once.
# Each search runs as `kriek synth` under a time limit and an address-space limit; its time, peak RSS and Specs
# solved go to the search CSV. A problem kriek cannot state yet (`kriek: error`), or whose search times out or
# fails, is skipped with a note; the library holds the others. By default synthesis goes through the per-user DP
# table (a second run only compiles); --cold gives each problem a fresh table, so the times are cold searches (the
# packed kernel's search shares its problem's table: it finds the plain search's Specs there).
# With --tune K the library build measures each kernel's K cheapest distinct candidates and keeps the fastest
# (`kriek library --tune`, README "Kernel libraries").
# Usage: scripts/kriek_library.sh PROBLEMS OUT.so [--search-csv FILE] [--timeout S] [--mem-gib G] [--cold]
#                                 [--backend llvm|c] [--tune K]
#   PROBLEMS: the driver's comma-separated list (bench/peers/problem.h), e.g. 64,4x64x64x64,1x56x56x64:3x3x64:p1
# Exits 0 when it wrote OUT.so, 4 when no problem got a kernel (OUT.so removed), 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: scripts/kriek_library.sh PROBLEMS OUT.so [--search-csv FILE] [--timeout S] [--mem-gib G] [--cold]" \
    "[--backend llvm|c] [--tune K]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
problems=$1 out=$2; shift 2
search_csv="" limit_s=300 mem_gib=4 cold=0 backend=llvm tune=()
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=${2:?}; shift ;;
    --search-csv) search_csv=${2:?}; shift ;;
    --timeout) limit_s=${2:?}; shift ;;
    --mem-gib) mem_gib=${2:?}; shift ;;
    --cold) cold=1 ;;
    --tune) tune=(--tune "${2:?}"); shift ;;
    *) usage ;;
  esac
  shift
done
"$root/scripts/setup.sh" "$root/build" >/dev/null
"$root/bench/peers/build.sh" "$root/build-peers" 2>/dev/null
kriek=$root/build/kriek
src=$(mktemp -d "${TMPDIR:-/tmp}/kriek-lib-XXXXXX")
trap 'rm -rf "$src"' EXIT
header=problem,symbol,spec,status,search_s,peak_rss_mib,specs_solved,time_limit_s,mem_limit_gib,table,note
[ -z "$search_csv" ] || [ -s "$search_csv" ] || echo "$header" >"$search_csv"

# search LABEL SYMBOL SPEC TABLE_ARGS...: `kriek synth` under the limits into the table; on success the kernel
# joins the library's list. Appends one CSV row; returns 0 on success.
search() {
  local label=$1 sym=$2 spec=$3; shift 3
  local log=$src/$sym.log times=$src/$sym.time status note="" rc=0
  # Limits: timeout(1) ends the search, ulimit -v caps its address space (a failed allocation ends it).
  (ulimit -v $((mem_gib * 1024 * 1024)); exec /usr/bin/time -f "%e %M" -o "$times" \
    timeout "$limit_s" "$kriek" synth "$spec" "$@") </dev/null >"$log" 2>&1 || rc=$?
  local secs rss_kib solved
  read -r secs rss_kib < <(grep -E '^[0-9.]+ [0-9]+$' "$times" | tail -1 || echo "0 0")
  solved=$(sed -n 's/^search: \([0-9]*\) specs solved.*/\1/p' "$log")
  if [ $rc = 0 ]; then
    status=ok
    echo "$sym = $spec" >>"$src/kernels.list"
  elif grep -q '^kriek: error' "$log"; then
    status=unsupported note=$(grep -m1 '^kriek: error' "$log")
  elif [ $rc = 124 ]; then
    status=timeout note="no result within ${limit_s} s"
  else
    status=failed note="exit $rc$(grep -q -i 'bad_alloc\|memory' "$log" && echo " (out of memory at ${mem_gib} GiB?)")"
  fi
  local table=per-user; [ $cold = 1 ] && table=cold
  echo "kriek-library: $sym: $status, ${secs} s, $((rss_kib / 1024)) MiB${note:+ ($note)}" >&2
  [ -z "$search_csv" ] || printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$label" "$sym" "${spec//,/;}" "$status" "$secs" \
    "$((rss_kib / 1024))" "${solved:-}" "$limit_s" "$mem_gib" "$table" "${note//,/;}" >>"$search_csv"
  [ $status = ok ]
}

while IFS=$'\t' read -r sym spec label; do
  table=(); [ $cold = 1 ] && table=(--table "$src/${sym%_pk}.table")
  # The serial kernel's search reuses the parallel one's table: it shares every Spec below the parallel threshold.
  search "$label" "$sym" "$spec" "${table[@]}" && search "$label" "${sym}_t1" "$spec serial" "${table[@]}" || true
done < <("$root/build-peers/peer_naive" --list-kriek --sizes "$problems")

if [ ! -s "$src/kernels.list" ]; then
  rm -f "$out"
  echo "kriek-library: no problem got a kernel; no library written" >&2
  exit 4
fi
# One library of every kernel searched, built by `kriek library` with the backend users get by default (LLVM;
# `--backend c` compiles kriek's C with $CC instead), from the tables the searches saved (merged when cold).
table=()
shopt -s nullglob
tables=("$src"/*.table)  # the cold searches' tables (none: the per-user table holds them)
if ((${#tables[@]} > 0)); then
  "$kriek" table merge "${tables[@]}" -o "$src/merged.table" >/dev/null
  table=(--table "$src/merged.table")
fi
"$kriek" library "$src/kernels.list" -o "$src/lib" --name kriek_bench --backend "$backend" "${table[@]}" "${tune[@]}" \
  </dev/null >"$src/library.log" 2>&1 || { cat "$src/library.log" >&2; exit 1; }
cp "$src/lib/lib/libkriek_bench.so" "$out"
echo "kriek-library: $out ($(grep -c . "$src/kernels.list") kernels, $backend backend)" >&2
