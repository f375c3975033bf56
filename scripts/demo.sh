#!/usr/bin/env bash
# The main demo: assemble a small GEMM program (examples/gemm8x8_demo), lay it out in a DRAM
# image with random int8 inputs and weights, run it on the functional simulator and on the
# cycle-exact model, print their statistics and check that both give the same image.
# Usage: scripts/demo.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
weft=$build/runtime/weft
ex=$root/examples/gemm8x8_demo
out=$build/demo
mkdir -p "$out"

"$weft" asm --config gemm8x8 "$ex/program.s" -o "$out/program.bin"
"$weft" asm --config gemm8x8 --uops "$ex/uops.s" -o "$out/uops.bin"
"$weft" image -o "$out/image.bin" --size 32K --at 0:"$out/program.bin" \
  --at 4096:"$out/uops.bin" --random 8192:384:2026
count=$(( $(stat -c %s "$out/program.bin") / 16 ))
echo
echo "== program ($count instructions) =="
"$weft" disasm --config gemm8x8 "$out/program.bin"
echo
echo "== functional simulation =="
"$weft" sim --config gemm8x8 --engine functional --mem "$out/image.bin" --insn-offset 0 \
  --insn-count "$count" --out "$out/final.bin" --stats "$out/stats.json"
echo
echo "== cycle-exact simulation (platform sim) =="
"$weft" sim --config gemm8x8 --engine cycle --mem "$out/image.bin" --insn-offset 0 \
  --insn-count "$count" --out "$out/final_cycle.bin" --stats "$out/stats_cycle.json" \
  --trace "$out/timeline.json"
"$weft" trace render "$out/timeline.json" -o "$out/timeline.svg" --title "gemm8x8 demo" 2>/dev/null
cmp "$out/final.bin" "$out/final_cycle.bin" && echo "functional and cycle images are identical"
echo
echo "== first output row (8 int8 values at byte 16384) =="
od -A d -t d1 -j 16384 -N 8 "$out/final.bin"
echo "statistics: $out/stats.json $out/stats_cycle.json; timeline: $out/timeline.json (open in"
echo "ui.perfetto.dev) and $out/timeline.svg"
