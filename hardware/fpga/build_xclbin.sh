#!/usr/bin/env bash
# Builds weft_kernel.xclbin for one configuration and one platform with Vitis (docs/fpga.md).
# Needs Vivado and v++ on PATH (source <Vitis>/settings64.sh) and the platform installed.
# Usage: hardware/fpga/build_xclbin.sh CONFIG PLATFORM [BUILD_DIR] [OUT_DIR]
#   CONFIG    tiny | gemm8x8 | vta          PLATFORM  u250 | u55c | zcu104
#   BUILD_DIR the weft CMake build (default: build); its target fpga-files holds the
#             generated kernel.xml, package_xo.tcl and link_<platform>.cfg
#   OUT_DIR   where the .xo, the .xclbin and the logs go (default: fpga_out/CONFIG-PLATFORM)
# Then: weft xclbin-info OUT_DIR/weft_kernel.xclbin, and copy it to the board (docs/fpga.md).
set -euo pipefail
if [ $# -lt 2 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -lt 2 ] && exit 1 || exit 0
fi
cfg=$1 plat=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${3:-$root/build}")
out=$(realpath -m "${4:-$root/fpga_out/$cfg-$plat}")
gen=$build/hardware/fpga/$cfg
case $cfg in tiny|gemm8x8|vta) ;; *) echo "build_xclbin.sh: unknown configuration '$cfg' (tiny, gemm8x8, vta)" >&2; exit 1;; esac
cmake --build "$build" --target fpga-files >/dev/null
cfgfile=$gen/link_$plat.cfg
if [ ! -f "$cfgfile" ]; then
  echo "build_xclbin.sh: unknown platform '$plat' (known: $(ls "$gen" | sed -n 's/^link_\(.*\)\.cfg$/\1/p' | tr '\n' ' '))" >&2
  exit 1
fi
for tool in vivado v++; do
  command -v $tool >/dev/null || { echo "build_xclbin.sh: '$tool' not found: source <Vitis>/settings64.sh first" >&2; exit 1; }
done
platform=$(sed -n 's/^platform=//p' "$cfgfile")
part=$(sed -n 's/^# part=//p' "$cfgfile")
mkdir -p "$out"
cp "$gen/kernel.xml" "$gen/package_xo.tcl" "$out/"
cd "$out"
# 1. package the RTL as a kernel object (.xo)
vivado -mode batch -nojournal -log package_xo.log -source package_xo.tcl -tclargs "$part" weft_kernel.xo
# 2. link it into the platform (synthesis, place and route: hours on an Alveo card)
v++ -l -t hw --config "$cfgfile" -o weft_kernel.xclbin weft_kernel.xo 2>&1 | tee link.log
echo "built $out/weft_kernel.xclbin"
