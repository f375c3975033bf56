#!/usr/bin/env bash
# Per-channel vs per-tensor quantization of the built-in ResNet-18 on the cycle-exact model:
# accelerator cycles, the share of conv+dense MACs on the accelerator, bit-exactness with the
# int8 reference, and cosine similarity / top-1 agreement of the logits with the fp32 network
# (`weft run resnet18 --check`), batch 1 on `vta` and batch 8 on `gemm8x8`; plus how many
# kernels needed a shift tile (channels whose shifts differ). The latest table is in
# docs/graph.md ("Per-channel weights on the accelerator").
# Usage: scripts/bench/resnet18_per_channel.sh [BUILD_DIR] [PLATFORM]   (defaults: build, sim)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
platform=${2:-sim}
weft=$build/runtime/weft
out=$build/bench/resnet18_per_channel
mkdir -p "$out"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); platform $platform; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in "vta 1" "gemm8x8 8"; do
  set -- $run
  for q in per-tensor per-channel; do
    flag=$([ "$q" = per-channel ] && echo --per-channel || true)
    "$weft" run resnet18 --config "$1" --batch "$2" --platform "$platform" --engine cycle --check \
      --json $flag > "$out/$1_b$2_$q.json"
    "$weft" compile resnet18 --config "$1" --batch "$2" --platform "$platform" --emit steps $flag \
      | grep -c "per-channel shifts" > "$out/$1_b$2_$q.tiles" || true
  done
done
/usr/bin/python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
print()
print("| config | batch | weights | accel cycles | vs per tensor | conv+dense MACs on accel | kernels with a shift tile | bit-exact with int8 reference | cosine vs fp32 | top-1 agreement vs fp32 |")
print("|---|---|---|---|---|---|---|---|---|---|")
for c, b in (("vta", 1), ("gemm8x8", 8)):
    base = None
    for q in ("per-tensor", "per-channel"):
        j = json.load(open(os.path.join(out, f"{c}_b{b}_{q}.json")))
        tiles = open(os.path.join(out, f"{c}_b{b}_{q}.tiles")).read().strip()
        kernels = sum(1 for n in j["nodes"] if n["engine"] == "accel")
        base = base or j["accel_cycles"]
        ch = j["check"]
        print(f"| {c} | {b} | {q} | {j['accel_cycles']:,} | {100*(j['accel_cycles']/base-1):+.2f}% "
              f"| {100*j['accel_mac_fraction']:.1f}% | {tiles} of {kernels} "
              f"| {str(ch['bit_exact_with_int8_reference']).lower()} | {ch['cosine_vs_fp32']:.5f} "
              f"| {ch['top1_agreement_vs_fp32']:.3f} |")
PY
