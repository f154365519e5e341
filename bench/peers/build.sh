#!/usr/bin/env bash
# Builds the peer side of the kernel benchmark with g++ directly (not part of CMake's `all` nor the tests):
# one executable per library, each = driver (+ its paired measurement) + kriek runner + that library's runner(s),
# plus the peak probe.
# OpenBLAS and BLIS both export cblas_sgemm, so they never share an executable. A peer whose package is
# missing is skipped with a note. Rebuilds only what is older than its sources.
# Usage: bench/peers/build.sh [out-dir]   (default: <repo>/build-peers)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build-peers}
mkdir -p "$out"

CXX=${CXX:-g++}
CC=${CC:-gcc}
# Our own code: the project's warning flags. Kernels under test get the flags a user would give them.
cxxflags=(-std=c++20 -O2 -g -Wall -Wextra -Werror -I"$here")
common_src=("$here/driver.cpp" "$here/paired.cpp" "$here/problem.cpp" "$here/kriek_runner.cpp" "$here/driver.h"
            "$here/problem.h")

# stale TARGET SOURCES...: true when TARGET is missing or older than any source or this script.
stale() {
  local target=$1; shift
  [ -f "$target" ] || return 0
  for s in "$@" "$here/build.sh"; do [ "$s" -nt "$target" ] && return 0; done
  return 1
}

# have_header HEADER: true when the compiler finds it.
have_header() { echo "#include <$1>" | $CXX -std=c++20 -x c++ -fsyntax-only "${@:2}" - 2>/dev/null; }

# peer NAME RUNNER_SRC [--flags ...] -- [link args ...]
peer() {
  local name=$1 src=$2; shift 2
  local flags=() links=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  links=("$@")
  local exe="$out/peer_$name"
  if stale "$exe" "$src" "${common_src[@]}"; then
    echo "build: peer_$name" >&2
    $CXX "${cxxflags[@]}" "${flags[@]}" "$here/driver.cpp" "$here/paired.cpp" "$here/problem.cpp" \
      "$here/kriek_runner.cpp" "$src" -o "$exe" "${links[@]}" -ldl
  fi
}

built=()
skip() { echo "build: skipping peer_$1: $2 not installed (scripts/bench_kernels.sh installs it)" >&2; }

if have_header openblas-pthread/cblas.h; then
  peer openblas "$here/blas_runner.cpp" -- -lopenblas; built+=(openblas)
else skip openblas libopenblas-dev; fi

if have_header blis-openmp/blis.h; then
  peer blis "$here/blas_runner.cpp" -DPEER_BLIS -Wno-unused-parameter -- -lblis -fopenmp; built+=(blis)
else skip blis libblis-dev; fi

if have_header Eigen/Core -isystem /usr/include/eigen3; then
  # -Wno-maybe-uninitialized: gcc 12 false positive inside Eigen's AVX-512 packet code.
  peer eigen "$here/eigen_runner.cpp" -O3 -march=native -DNDEBUG -fopenmp -Wno-maybe-uninitialized \
    -isystem /usr/include/eigen3 -- -fopenmp
  built+=(eigen)
else skip eigen libeigen3-dev; fi

if have_header dnnl.hpp; then
  peer onednn "$here/onednn_runner.cpp" -fopenmp -- -ldnnl -fopenmp; built+=(onednn)
else skip onednn libdnnl-dev; fi

if have_header libxsmm.h && [ -f /usr/lib/libxsmm.a ]; then
  peer xsmm "$here/xsmm_runner.cpp" -fopenmp -- -L/usr/lib -lxsmm -lxsmmnoblas -lpthread -ldl -lm -lrt -fopenmp
  built+=(xsmm)
else skip xsmm libxsmm-dev; fi

peer naive "$here/naive_runner.cpp" -O3 -march=native -fopenmp -- -fopenmp; built+=(naive)

if stale "$out/peak_fma" "$here/peak_fma.c"; then
  echo "build: peak_fma" >&2
  $CC -O2 -Wall -Wextra -Werror "$here/peak_fma.c" -o "$out/peak_fma"
fi
if stale "$out/kriek_stub.so" "$here/kriek_stub.c"; then
  echo "build: kriek_stub.so" >&2
  $CC -std=c11 -O3 -march=native -fPIC -shared -Wall -Wextra -Werror "$here/kriek_stub.c" -o "$out/kriek_stub.so"
fi
echo "build: ${built[*]}, peak_fma and kriek_stub.so in $out" >&2
