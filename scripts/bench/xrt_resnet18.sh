#!/usr/bin/env bash
# ResNet-18 layers through the xrt engine's emulated board against the bare engine: the same
# cycles and no mismatches, and the wall time of each (docs/fpga.md). Usage:
#   scripts/bench/xrt_resnet18.sh [ENGINE] [LAYER...]   (ENGINE cycle or rtl; default cycle C1..C12)
# Needs a built tree (build/runtime/weft).
set -euo pipefail
cd "$(dirname "$0")/../.."
engine=${1:-cycle}
shift || true
layers=("$@")
[ ${#layers[@]} -eq 0 ] && layers=(C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11 C12)
weft=${WEFT:-build/runtime/weft}
printf "| layer | %s cycles | xrt (emulated %s) cycles | mismatches | %s s | xrt s |\n|---|---|---|---|---|---|\n" "$engine" "$engine" "$engine"
field() { /usr/bin/python3 -c "import sys,json; t=sys.stdin.read(); j=json.loads(t[t.index('{'):t.rindex('}')+1]); print(j.get('$1'))"; }
for l in "${layers[@]}"; do
  t0=$(date +%s.%N); a=$($weft run conv2d --layer "$l" --config gemm8x8 --platform zcu104 --engine "$engine" 2>/dev/null); t1=$(date +%s.%N)
  b=$($weft run conv2d --layer "$l" --config gemm8x8 --platform zcu104 --engine xrt --xrt-emulate "$engine" 2>/dev/null); t2=$(date +%s.%N)
  ca=$(echo "$a" | field cycles); cb=$(echo "$b" | field cycles); mb=$(echo "$b" | field mismatches)
  [ "$ca" = "$cb" ] || { echo "cycles differ on $l: $ca vs $cb" >&2; exit 1; }
  printf "| %s | %s | %s | %s | %.2f | %.2f |\n" "$l" "$ca" "$cb" "$mb" "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
done
