#!/usr/bin/env bash
# ResNet-18 and ResNet-50 convolutions on the CPU backend against oneDNN (issue #29; figures in
# docs/cpu-tuning.md, "ResNet convolutions against oneDNN"):
#   scripts/bench/cpu_resnet_conv_bench.sh [build-dir] [out-dir] [threads] [isa]
# Every distinct conv layer of scripts/bench/cpu_resnet{18,50}_conv.csv, float32 and int8,
# batch 1 and 8: Weft with the schedule `weft run conv2d --target llvm` takes (shipped record,
# else the dispatch table) against oneDNN's direct convolution, interleaved in one process, CPU
# time (one thread: the calling thread's; more: the process's). isa: native (default) or avx2
# (Weft --cpu-isa avx2 and ONEDNN_MAX_CPU_ISA=AVX2). Writes one JSON per run to out-dir
# (default: build/cpu_resnet_conv) and a summary table to stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$build/cpu_resnet_conv}
threads=${3:-1}
isa=${4:-native}
bench=$build/scripts/bench/bench_cpu_resnet_conv
if [ ! -x "$bench" ]; then
  echo "cpu_resnet_conv_bench: $bench is not built (cmake --build $build --target" \
       "bench_cpu_resnet_conv; it needs libdnnl-dev for the oneDNN baseline)" >&2
  exit 1
fi
case "$isa" in native|avx2) ;; *) echo "cpu_resnet_conv_bench: isa '$isa' is not native or avx2" >&2; exit 1;; esac
mkdir -p "$out"
export OMP_NUM_THREADS=$threads OMP_PROC_BIND=false
extra=()
if [ "$isa" = avx2 ]; then
  export ONEDNN_MAX_CPU_ISA=AVX2
  extra=(--cpu-isa avx2)
fi
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc --all) cores," \
     "$(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg), $threads thread(s), $isa"
echo "| network | dtype | batch | geomean speed vs oneDNN | min | the network's convolutions |"
echo "|---|---|---:|---:|---:|---:|"
for net in resnet18 resnet50; do
  for dtype in float32 int8; do
    for batch in 1 8; do
      json=$out/${net}_${dtype}_b${batch}_t${threads}_${isa}.json
      "$bench" --layers "$root/scripts/bench/cpu_${net}_conv.csv" --dtype "$dtype" \
        --batch "$batch" --threads "$threads" --reps 3 --out "$json" "${extra[@]}" \
        > "$out/${net}_${dtype}_b${batch}_t${threads}_${isa}.txt"
      /usr/bin/python3 - "$json" "$net" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("| %s | %s | %d | %.2fx | %.2fx | %.2fx |" % (sys.argv[2], r["dtype"], r["batch"],
      r["geomean_speed_vs_onednn"], r["min_speed_vs_onednn"], r["network_speed_vs_onednn"]))
PY
    done
  done
done
