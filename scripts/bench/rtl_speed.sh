#!/usr/bin/env bash
# Simulated cycles per second of the Verilated RTL and of the cycle model, measured side by side
# in one run on one core, on the GEMM-heavy program of issue #19 (or, with --program gemm, the
# blocked GEMM of bench_sim_speed). sim_speed.sh runs this and more. Usage:
#   scripts/bench/rtl_speed.sh [BUILD_DIR] [extra bench_rtl_speed flags, e.g. --rounds 5]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
mkdir -p "$build/bench"
# gemm8x8 and vta (tiny's buffers are too small for the programs).
for cfg in gemm8x8 vta; do
  taskset -c 0 "$build/scripts/bench/bench_rtl_speed" --config "$cfg" \
    --json "$build/bench/rtl_speed_${cfg}.json" "$@" \
    || "$build/scripts/bench/bench_rtl_speed" --config "$cfg" \
      --json "$build/bench/rtl_speed_${cfg}.json" "$@"
done
echo "results: $build/bench/rtl_speed_*.json"
