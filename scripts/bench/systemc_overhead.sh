#!/usr/bin/env bash
# The SystemC TLM-2.0 wrapper's wall-time overhead over the bare cycle model, same program,
# same process, on one core: ResNet-18 layers on vta (batch 1) and gemm8x8 (batch 8), each
# run bare and through a platform (memory, bus, host thread, registers, interrupt) in four
# wrapper modes; medians of --reps repetitions and the median per-repetition ratio. The goal
# is a ratio of at most 1.10 at a 10 us quantum with DMI. Every SystemC run is checked against
# the bare one (cycles, memory image, completion time). Usage:
#   scripts/bench/systemc_overhead.sh [BUILD_DIR] [extra bench_systemc_overhead flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
bench="$build/scripts/bench/bench_systemc_overhead"
if [[ ! -x $bench ]]; then
  echo "no $bench: install libsystemc-dev, reconfigure, build bench_systemc_overhead" >&2
  exit 1
fi
mkdir -p "$build/bench"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
pin=(taskset -c 0)
"${pin[@]}" true 2>/dev/null || pin=()
field() { grep -m1 "^$1" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'; }
vector=$(grep -m1 -o -w -E 'avx2|fma|avx512f|avx512_vnni|avx512_bf16' /proc/cpuinfo | sort -u |
         tr '\n' ' ')
echo "CPU: $(field 'model name') (family $(field 'cpu family'), model $(field 'model\s'));" \
     "${vector:-no AVX2}; one core pinned, $(nproc) online"
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"${pin[@]}" "$bench" --header --config vta --batch 1 --layers C1,C2,C5,C8,C12 \
  --json "$build/bench/systemc_overhead_vta.json" "$@" | tee -a "$table"
"${pin[@]}" "$bench" --config gemm8x8 --batch 8 --layers C6,C12 \
  --json "$build/bench/systemc_overhead_gemm8x8.json" "$@" | tee -a "$table"
# Geometric mean of the goal column's ratio (timed, DMI, quantum 10 us).
awk -F'|' '/^\| C/ { split($6, a, /[()]/); s += log(a[2]); n++ }
  END { if (n) printf "geometric mean ratio at 10 us with DMI: %.3f over %d layers\n", exp(s / n), n }' \
  "$table"
echo "results: $build/bench/systemc_overhead_{vta,gemm8x8}.json"
