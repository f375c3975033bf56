#!/usr/bin/env bash
# An ONNX CNN's fp32 inference on Weft's LLVM path against the same graph on oneDNN (issue #29;
# figures in docs/cpu-tuning.md, "The fp32 ONNX path against oneDNN-backed inference"):
#   scripts/bench/onnx_onednn.sh MODEL.onnx INPUT.npy [build-dir] [threads] [rounds] [json]
# Both run in one process, interleaved, with the same thread count (Weft's pool and
# OMP_NUM_THREADS); prints the medians of both (the calling thread's CPU time and wall time),
# their ratio, the output difference and each side's time by operator.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: $0 MODEL.onnx INPUT.npy [build-dir] [threads] [rounds] [json]" >&2
  exit 1
fi
model=$1 input=$2
build=${3:-$root/build}
threads=${4:-1}
rounds=${5:-5}
json=${6:-}
bench=$build/scripts/bench/bench_onnx_onednn
if [ ! -x "$bench" ]; then
  echo "onnx_onednn: $bench is not built (cmake --build $build --target bench_onnx_onednn;" \
       "it needs ONNX import and libdnnl-dev)" >&2
  exit 1
fi
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc --all) cores," \
     "$(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
args=("$model" --input "$input" --threads "$threads" --rounds "$rounds")
[ -n "$json" ] && args+=(--json "$json")
exec "$bench" "${args[@]}"
