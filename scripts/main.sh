#!/usr/bin/env bash
# The main job: set up, build, then synthesize, verify and time a kernel for this machine.
# Usage: scripts/main.sh [SPEC]   (default: matmul 512x512x512 f32)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" "$root/build" >/dev/null
spec=${1:-"matmul 512x512x512 f32"}
"$root/build/kriek" target
"$root/build/kriek" spec check "$spec"
