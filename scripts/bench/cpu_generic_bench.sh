#!/usr/bin/env bash
# Shape-generic CPU schedules against oneDNN (issue #29; docs/cpu-tuning.md shows the figures):
#   scripts/bench/cpu_generic_bench.sh [build-dir] [out-dir] [shapes] [reps]
# 40 GEMM shapes drawn at random (seed 29; M, N, K in 1..4096; float32 and int8 alternating),
# none tuned one by one: Weft with its dispatch table's kernel against oneDNN, interleaved in
# one process, CPU time (one thread: the calling thread's; two: the process's), on the native
# host and under the AVX2 cap (Weft --cpu-isa avx2, ONEDNN_MAX_CPU_ISA=AVX2,
# OPENBLAS_CORETYPE=Haswell), 1 and 2 threads (Weft's pool and OMP_NUM_THREADS alike).
# Writes one JSON per run to out-dir (default: build/cpu_generic) and a summary to stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$build/cpu_generic}
shapes=${3:-40}
reps=${4:-3}
bench=$build/scripts/bench/bench_cpu_generic
if [ ! -x "$bench" ]; then
  echo "cpu_generic_bench: $bench is not built (cmake --build $build --target bench_cpu_generic;" >&2
  echo "it needs libdnnl-dev for the oneDNN baseline)" >&2
  exit 1
fi
mkdir -p "$out"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores," \
     "$(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
for isa in native avx2; do
  for t in 1 2; do
    (
      export OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t OMP_PROC_BIND=false
      if [ "$isa" = avx2 ]; then
        export ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
      fi
      "$bench" --cpu-isa "$isa" --threads "$t" --shapes "$shapes" --reps "$reps" --clock cpu \
        --out "$out/${isa}_t$t.json" | tail -1 | sed "s/^#/# $isa, $t thread(s), load $(cut -d' ' -f1 /proc/loadavg):/"
    )
  done
done
