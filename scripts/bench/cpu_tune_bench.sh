#!/usr/bin/env bash
# The CPU backend's tuned schedules against oneDNN (docs/cpu-tuning.md shows the latest table):
#   scripts/bench/cpu_tune_bench.sh [build-dir] [trials] [reps] [db]
# 1. bench_cpu_tune_search: for SGEMM and int8 GEMM 1024^3 and ResNet-18 C1-C12 (fp32), `trials`
#    measured schedules each (the space's seeds, then mutations of the best and random samples),
#    every trial appended to the records database `db` (resumed when it exists).
# 2. bench_cpu --records db: the default schedule, the best record and oneDNN interleaved in one
#    process, one thread, `reps` timed runs; medians and the ratios to oneDNN's time.
# Measure on a quiet machine (the ratios are measured side by side; the absolute times move
# with the load). CLOCK=cpu times the calling thread's CPU time instead of wall time (on a
# shared machine other processes then do not inflate the times; both contenders run on the
# calling thread). To ship the result as this host's default records, copy the best line per
# workload into runtime/tune/records/cpu_<isa>.jsonl (scripts/bench/cpu_best_records.py).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
trials=${2:-32}
reps=${3:-15}
db=${4:-$build/cpu_tune_records.jsonl}
for b in bench_cpu bench_cpu_tune_search; do
  if [ ! -x "$build/scripts/bench/$b" ]; then
    echo "cpu_tune_bench: $build/scripts/bench/$b is not built (cmake --build $build --target $b)" >&2
    exit 1
  fi
done
layers=$root/scripts/bench/cpu_resnet18_conv.csv
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_PROC_BIND=false
"$build/scripts/bench/bench_cpu_tune_search" --what all --layers "$layers" --trials "$trials" --db "$db" >&2
echo "# Weft CPU tuning benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/scripts/bench/bench_cpu" --clock "${CLOCK:-wall}" --threads 1 --reps "$reps" --what all --sizes 1024 --layers "$layers" --records "$db"
