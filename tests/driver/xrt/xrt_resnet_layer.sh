#!/usr/bin/env bash
# A ResNet-18 layer through the xrt engine's emulated board on the Verilated kernel top
# (gemm8x8): `weft run conv2d` on the bare rtl engine and through --engine xrt --xrt-emulate
# rtl must give the same cycles and no mismatches. Usage: xrt_resnet_layer.sh WEFT LAYER
set -euo pipefail
weft=$1 layer=$2
field() { /usr/bin/python3 -c "import sys,json; t=sys.stdin.read(); j=json.loads(t[t.index('{'):t.rindex('}')+1]); print(j.get('$1'))"; }
a=$("$weft" run conv2d --layer "$layer" --config gemm8x8 --platform zcu104 --engine rtl)
b=$("$weft" run conv2d --layer "$layer" --config gemm8x8 --platform zcu104 --engine xrt --xrt-emulate rtl)
ca=$(echo "$a" | field cycles) cb=$(echo "$b" | field cycles)
ma=$(echo "$a" | field mismatches) mb=$(echo "$b" | field mismatches)
echo "$layer: rtl cycles $ca mismatches $ma; xrt (kernel top) cycles $cb mismatches $mb"
[ "$ca" = "$cb" ] || { echo "cycles differ" >&2; exit 1; }
[ "$mb" = "0" ] && [ "$ma" = "0" ] || { echo "mismatches against the reference" >&2; exit 1; }
[ "$ca" != "None" ] && [ "$ca" -gt 0 ] || { echo "no cycles reported" >&2; exit 1; }
