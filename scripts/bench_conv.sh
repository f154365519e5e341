#!/usr/bin/env bash
# The conv benchmark in one command: ResNet-18/50 conv layers (NHWC f32, batch 1; 1x1, 3x3 and 7x7 filters,
# stride 1 and 2, padding 0, 1 and 3) against oneDNN's convolution (filters as given, HWIO, and pre-packed into
# the layout the primitive picks) and naive loops, 1 and 2 threads, each peer in its own process with kriek's
# kernels raced inside it (--kriek); writes bench/results/conv.{csv,md,png,log} and conv_search.csv (kriek's
# search time and peak RSS per layer). It is scripts/bench_kernels.sh --suite conv; see bench/README.md, section
# "Conv benchmark".
# Usage: scripts/bench_conv.sh [--quick] [--kriek [--timeout S] [--warm]] [--threads LIST] [--sizes LIST] ...
exec "$(dirname "$0")/bench_kernels.sh" --suite conv "$@"
