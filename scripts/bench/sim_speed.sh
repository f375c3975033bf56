#!/usr/bin/env bash
# Simulated cycles per wall-clock second of the cycle model, with full data, on one core:
# a 1024^3 blocked GEMM on gemm8x8 and a load-heavy program. Usage:
#   scripts/bench/sim_speed.sh [BUILD_DIR] [extra bench_sim_speed flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
mkdir -p "$build/bench"
taskset -c 0 "$build/scripts/bench/bench_sim_speed" --json "$build/bench/sim_speed.json" "$@" \
  || "$build/scripts/bench/bench_sim_speed" --json "$build/bench/sim_speed.json" "$@"
echo "results: $build/bench/sim_speed.json"
