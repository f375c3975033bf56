#!/usr/bin/env bash
# ResNet-18's CPU nodes (quantize, max pool, global average pool, dequantize, im2col, pack/
# unpack...) on the plain C++ loops against the LLVM kernels, one core, medians of N runs
# (scripts/bench/graph_cpu_kernels.cc). The latest table is in docs/graph.md.
# Usage: scripts/bench/graph_cpu_kernels.sh [BUILD_DIR] [REPEATS]   (defaults: build, 9)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), one core; load: $(uptime | sed 's/.*load average: //')"
taskset -c 0 "$build/scripts/bench/bench_graph_cpu_kernels" --repeats "${2:-9}"
