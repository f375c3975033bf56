#!/usr/bin/env bash
# Simulated cycles per second of the Verilated RTL and of the cycle model, measured in one run
# on one core, on the blocked GEMM of sim_speed.sh. Usage:
#   scripts/bench/rtl_speed.sh [BUILD_DIR] [extra bench_rtl_speed flags, e.g. --size 512]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
mkdir -p "$build/bench"
# gemm8x8 and vta on the 1024^3 GEMM of sim_speed.sh (tiny's buffers are too small for it).
for cfg in gemm8x8 vta; do
  taskset -c 0 "$build/scripts/bench/bench_rtl_speed" --config "$cfg" \
    --json "$build/bench/rtl_speed_${cfg}.json" "$@" \
    || "$build/scripts/bench/bench_rtl_speed" --config "$cfg" \
      --json "$build/bench/rtl_speed_${cfg}.json" "$@"
done
echo "results: $build/bench/rtl_speed_*.json"
