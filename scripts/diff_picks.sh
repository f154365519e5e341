#!/usr/bin/env bash
# Which picks a change moves: two kriek binaries (before and after) synthesize the same Specs, each into a DP table
# of its own, and for every Spec whose Impl differs the two predicted costs are printed (each by its own model).
# Deterministic (no timing): run it before timing the changed picks side by side (bench/README, "A/B").
# Usage: scripts/diff_picks.sh OLD_KRIEK NEW_KRIEK [--serial] [--specs FILE]
#   FILE: one Spec per line (# comments); default: the matmul and conv suites below.
set -euo pipefail
old=${1:?usage: scripts/diff_picks.sh OLD_KRIEK NEW_KRIEK [--serial] [--specs FILE]}
new=${2:?usage: scripts/diff_picks.sh OLD_KRIEK NEW_KRIEK [--serial] [--specs FILE]}
shift 2
serial="" specs_file=""
while [ $# -gt 0 ]; do
  case "$1" in
    --serial) serial=" serial" ;;
    --specs) specs_file=${2:?--specs needs a file}; shift ;;
    *) echo "error: unknown option '$1'" >&2; exit 1 ;;
  esac
  shift
done
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "error: '$b' is not an executable kriek" >&2; exit 1; }
done
if [ -n "$specs_file" ]; then
  [ -r "$specs_file" ] || { echo "error: cannot read '$specs_file'" >&2; exit 1; }
  mapfile -t specs < <(grep -v '^\s*\(#\|$\)' "$specs_file")
else
  specs=("matmul 64x64x64 f32" "matmul 128x128x128 f32" "matmul 256x256x256 f32" "matmul 512x512x512 f32"
         "matmul 1024x1024x1024 f32" "matmul 257x257x257 f32" "matmul 82x99x63 f32" "matmul 99x36x67 f32"
         "matmul 127x255x63 f32" "matmul 200x300x170 f32" "matmul 128x768x768 f32" "matmul 128x3072x768 f32"
         "matmul 300x700x500 f32" "matmul 1200x96x1500 f32" "matmul 64x4096x64 f32" "matmul 4x64x64x64 f32"
         "conv[pad=1] 1x56x56x64 3x3x64x64 f32" "conv 1x56x56x64 1x1x64x256 f32"
         "conv[pad=1] 1x28x28x128 3x3x128x128 f32"
         "conv[pad=1] 1x14x14x256 3x3x256x256 f32" "conv[pad=1] 1x7x7x512 3x3x512x512 f32"
         "conv[stride=2,pad=1] 1x56x56x128 3x3x128x128 f32")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
changed=0
for spec in "${specs[@]}"; do
  for side in old new; do
    bin=$old
    [ $side = new ] && bin=$new
    # The tree without its cost column, and the total cost line.
    "$bin" synth "$spec$serial" --table "$work/$side.table" > "$work/$side.out" 2>&1 ||
      { echo "error: $side kriek failed on '$spec$serial':" >&2; tail -3 "$work/$side.out" >&2; exit 1; }
    sed -n '/^cost /q;p' "$work/$side.out" | grep -v '^\s*#' | sed 's/ \{2,\}[0-9]*$//' > "$work/$side.tree"
    grep -m1 '^cost ' "$work/$side.out" | awk '{print $2}' > "$work/$side.cost"
  done
  if cmp -s "$work/old.tree" "$work/new.tree"; then
    printf 'same     %s\n' "$spec$serial"
  else
    changed=$((changed + 1))
    printf 'changed  %s  cost %s -> %s\n' "$spec$serial" "$(cat "$work/old.cost")" "$(cat "$work/new.cost")"
  fi
done
echo "$changed of ${#specs[@]} picks changed"
