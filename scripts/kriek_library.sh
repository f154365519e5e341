#!/usr/bin/env bash
# Synthesizes and emits a kriek matmul kernel for each size and compiles them into one shared library, the form
# the kernel benchmark races (bench/peers, --kriek-lib). Each size gets kriek_matmul_MxK_KxN_f32 (parallel loops
# allowed, OpenMP) and kriek_matmul_MxK_KxN_f32_t1 (a serial Spec, for one thread). Synthesis goes through the
# per-user DP table, so a second run only compiles.
# Usage: scripts/kriek_library.sh SIZES OUT.so     (SIZES comma-separated: n or MxKxN, e.g. 64,256,2048x2048x1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: scripts/kriek_library.sh SIZES OUT.so" >&2; exit 2; }
sizes=$1 out=$2
"$root/scripts/setup.sh" "$root/build" >/dev/null
kriek=$root/build/kriek
src=$(mktemp -d "${TMPDIR:-/tmp}/kriek-lib-XXXXXX")
trap 'rm -rf "$src"' EXIT
IFS=, read -ra list <<<"$sizes"
for s in "${list[@]}"; do
  if [[ $s =~ ^[0-9]+$ ]]; then m=$s k=$s n=$s; else IFS=x read -r m k n <<<"$s"; fi
  name=kriek_matmul_${m}x${k}_${k}x${n}_f32
  echo "kriek-library: $name" >&2
  "$kriek" emit "matmul ${m}x${k}x${n} f32" --name "$name" -o "$src/$name.c"
  "$kriek" emit "matmul ${m}x${k}x${n} f32 serial" --name "${name}_t1" -o "$src/${name}_t1.c"
done
# The ISA flags are the ones kriek compiles its own kernels with (`kriek target` prints them).
read -ra isa_flags <<<"$("$kriek" target | sed -n 's/^C flags //p')"
"${CC:-cc}" -std=c11 -O3 "${isa_flags[@]}" -fopenmp -fPIC -shared -Wall -Wextra -o "$out" "$src"/*.c
echo "kriek-library: $out" >&2
