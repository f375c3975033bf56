#!/usr/bin/env bash
# The main demo: the whole ResNet-18 (built in, deterministic synthetic weights) compiled by the
# graph pipeline (batch norms folded, int8 with power-of-two scales, every conv and the fc
# fused with bias, residual add and ReLU into one accelerator kernel) and run on the
# cycle-exact model of the `vta` configuration, with its per-layer report (engine, cycles,
# utilization, share of the total), a check against the independent int8 reference
# interpreter, and one Perfetto timeline of the network. Takes a few seconds after the build.
# Usage: scripts/demo.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
weft=$build/runtime/weft
out=$build/demo
mkdir -p "$out"

echo "== ResNet-18, batch 1, vta configuration, cycle-exact model =="
"$weft" run resnet18 --config vta --engine cycle --trace "$out/resnet18_timeline.json" \
  --save "$out/resnet18"
echo
echo "report: $out/resnet18/report.json; logits: $out/resnet18/output.npy; timeline:"
echo "$out/resnet18_timeline.json (open in ui.perfetto.dev)"
echo "the graph after every pass: $weft compile resnet18 --emit graph [--pass P]"
