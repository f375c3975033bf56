#!/usr/bin/env bash
# Latency hiding on the cycle model: the same six blocked-GEMM tiles with one buffer slot
# (everything serialized) and with two virtual threads (loads of one tile under the compute
# of the other). Writes timelines (JSON for ui.perfetto.dev, SVG pictures) and prints cycles.
# Usage: scripts/latency_hiding_demo.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$build/latency_hiding}
weft=$build/runtime/weft
ex=$root/examples/latency_hiding
mkdir -p "$out"
"$weft" asm --config gemm8x8 --uops "$ex/uops.s" -o "$out/uops.bin" 2>/dev/null
for variant in serial overlap; do
  "$weft" asm --config gemm8x8 "$ex/$variant.s" -o "$out/$variant.bin" 2>/dev/null
  "$weft" image -o "$out/$variant.img" --size 64K --at 0:"$out/$variant.bin" \
    --at 4096:"$out/uops.bin" --random 8192:8192:1 --random 32768:8192:2 2>/dev/null
  count=$(( $(stat -c %s "$out/$variant.bin") / 16 ))
  "$weft" sim --config gemm8x8 --engine cycle --mem "$out/$variant.img" --insn-offset 0 \
    --insn-count "$count" --out "$out/$variant.final" --stats "$out/$variant.json" \
    --trace "$out/$variant.trace.json" >/dev/null
  "$weft" trace render "$out/$variant.trace.json" -o "$out/$variant.svg" \
    --title "$variant: $(grep -m1 '"cycles"' "$out/$variant.json" | tr -dc 0-9) cycles" 2>/dev/null
  printf '%-8s %s cycles, utilization %s\n' "$variant" \
    "$(grep -m1 '"cycles"' "$out/$variant.json" | tr -dc 0-9)" \
    "$(grep -m1 '"utilization"' "$out/$variant.json" | sed 's/.*: //; s/,//')"
done
cmp -s <(tail -c +16385 "$out/serial.final" | head -c 4096) \
       <(tail -c +16385 "$out/overlap.final" | head -c 4096) \
  && echo "outputs identical" || { echo "outputs differ" >&2; exit 1; }
echo "timelines: $out/{serial,overlap}.{trace.json,svg}"
