#!/usr/bin/env bash
# The CPU backend against OpenBLAS and oneDNN (docs/cpu-backend.md shows the latest table):
#   scripts/bench/cpu_bench.sh [build-dir] [reps]
# One thread: SGEMM 1024^3 and 2048^3, int8 GEMM 1024^3, ResNet-18 C1-C12 fp32 conv2d.
# Two threads: SGEMM and int8 GEMM. Each case runs Weft and the libraries interleaved in one
# process and reports medians and the ratio Weft time / library time. The libraries' thread
# counts come from OPENBLAS_NUM_THREADS and OMP_NUM_THREADS, set here to Weft's. Measure on a
# quiet machine: the ratios are what to compare, the absolute numbers move with the load.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
reps=${2:-9}
bench=$build/scripts/bench/bench_cpu
if [ ! -x "$bench" ]; then
  echo "cpu_bench: $bench is not built (cmake --build $build --target bench_cpu; it needs" >&2
  echo "libopenblas-dev and libdnnl-dev for the baselines)" >&2
  exit 1
fi
layers=$root/scripts/bench/cpu_resnet18_conv.csv
echo "# Weft CPU backend benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for t in 1 2; do
  what=all
  [ "$t" -gt 1 ] && what=gemm
  export OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t OMP_PROC_BIND=false
  if [ "$what" = all ]; then
    "$bench" --threads "$t" --reps "$reps" --what all --layers "$layers"
  else
    "$bench" --threads "$t" --reps "$reps" --what sgemm
    "$bench" --threads "$t" --reps "$reps" --what igemm
  fi
done
