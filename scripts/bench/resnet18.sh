#!/usr/bin/env bash
# The ResNet-18 latency-hiding study (docs/latency-hiding.md): every convolution layer on the
# cycle model for gemm8x8 (batch 8) and vta (batch 1), with and without virtual threads, knobs
# searched on the cycle model, every run checked against the CPU reference. Usage:
#   scripts/bench/resnet18.sh [BUILD_DIR] [PLATFORM] [extra `weft bench resnet18` flags]
# Writes BUILD_DIR/bench/resnet18-CONFIG/{results.json,table.txt,roofline.svg,C*.trace.json}
# and a timeline picture of C12, cycles 100,000 to 130,000 (C12.timeline.svg there).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
platform=${2:-sim}
shift 2 || shift $# || true
weft="$build/runtime/weft"
for config in gemm8x8 vta; do
  out="$build/bench/resnet18-$config"
  mkdir -p "$out"
  echo "== $config on $platform ==" >&2
  "$weft" bench resnet18 --config "$config" --platform "$platform" --save "$out" \
    --knob-cache "$build/bench/conv2d_knobs.json" "$@" | tee "$out/table.txt"
  "$weft" trace render "$out/C12.trace.json" -o "$out/C12.timeline.svg" --from 100000 --to 130000 \
    --title "C12 on $config, two virtual threads"
done
echo "results: $build/bench/resnet18-{gemm8x8,vta}" >&2
