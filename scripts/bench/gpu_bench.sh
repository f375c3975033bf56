#!/usr/bin/env bash
# The GPU backend against cuBLAS/cuBLASLt and cuDNN (docs/gpu-backend.md has the table):
#   scripts/bench/gpu_bench.sh [build-dir] [reps]
# SGEMM, HGEMM (fp16 in, fp32 accumulate) and int8 GEMM (cuBLASLt) at 1024^3, 4096^3,
# 1000^3 and 129x4096x257, then the ResNet-18 C1-C12 convolutions in float32 and float16
# against cuDNN at batch 1 and batch 32. Each row also says how far Weft's output is from the
# library's (max err). Weft and the library run side by side in one process on the same
# buffers; each row gives medians and the ratio Weft time / library time (below 1: Weft is
# faster). Without a GPU it says so and exits 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-20}
bench=$build/scripts/bench/bench_gpu
if [ ! -x "$bench" ]; then
  echo "gpu_bench: $bench is not built (it needs the CUDA toolkit with cuBLAS and cuDNN;" >&2
  echo "cmake --build $build --target bench_gpu)" >&2
  exit 1
fi
echo "# Weft GPU backend benchmark, $(date -u +%Y-%m-%dT%H:%MZ)"
layers=$root/scripts/bench/cpu_resnet18_conv.csv
"$bench" --reps "$reps" --sizes 1024 4096 --shapes 1000x1000x1000 129x4096x257 --layers "$layers"
exec "$bench" --reps "$reps" --what conv --batch 32 --layers "$layers"
