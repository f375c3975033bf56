#!/usr/bin/env bash
# Latency hiding on the compiled dense: utilization of an M x N x K int8 dense (default
# 1024^3) with 1, 2 and 4 virtual threads on the cycle model, for gemm8x8 and vta, next to the
# roofline bound of the platform. Every run is checked against the CPU reference. Usage:
#   scripts/bench/dense_utilization.sh [BUILD_DIR] [SIZE] [PLATFORM]
# Writes BUILD_DIR/bench/dense_utilization.json and prints a Markdown table.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
size=${2:-1024}
platform=${3:-sim}
weft="$build/runtime/weft"
out="$build/bench"
mkdir -p "$out"
: > "$out/dense_utilization.jsonl"
for config in gemm8x8 vta; do
  for vt in 1 2 4; do
    echo "dense ${size}^3 on $config, $vt virtual thread(s)..." >&2
    "$weft" run dense --M "$size" --N "$size" --K "$size" --config "$config" --platform "$platform" \
      --vthreads "$vt" --engine cycle | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))' \
      >> "$out/dense_utilization.jsonl"
  done
done
python3 - "$out/dense_utilization.jsonl" "$out/dense_utilization.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
json.dump(rows, open(sys.argv[2], "w"), indent=2)
print("| config | vthreads | tiles (m,n,k blocks) | cycles | utilization | roofline bound | of bound | compute token stall | correct |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    k = r["knobs"]
    print(f'| {r["config"]} | {k["vthreads"]} | {k["tile_m"]},{k["tile_n"]},{k["tile_k"]} | '
          f'{r["cycles"]:,} | {100*r["utilization"]:.1f}% | {100*r["roofline"]["bound_utilization"]:.1f}% | '
          f'{100*r["fraction_of_roofline"]:.1f}% | {r["modules"]["compute"]["stall_token"]:,} | {r["correct"]} |')
PY
echo "results: $out/dense_utilization.json" >&2
