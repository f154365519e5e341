#!/usr/bin/env bash
# The main job: set up, build, describe the host, then synthesize the best Impl of a matmul for it, JIT-compile it
# through LLVM, verify it against the reference and time it (kriek run).
# Usage: scripts/main.sh [SPEC]   (default: matmul 64x64x64 f32)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build" >/dev/null
spec=${1:-"matmul 64x64x64 f32"}
"$root/build/kriek" target
echo
"$root/build/kriek" run "$spec"
