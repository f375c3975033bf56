#!/usr/bin/env bash
# FPGA resource estimate of the RTL with yosys 0.23 `synth_xilinx -family xc7` for each
# configuration: LUT, FF and DSP48E1 of the logic from yosys, BRAM36 of the on-chip buffers.
# Usage: scripts/synth/synth.sh [config...]   (default: tiny gemm8x8 vta; logs in build-synth/)
#
# The buffers (weft_buffer, weft_acc_buffer) are read as black boxes: written as behavioural
# arrays with asynchronous reads, yosys would build them from flip-flops and multiplexers
# (millions of cells for gemm8x8, hours of synthesis), which says nothing about the part. They
# are counted in BRAM36 blocks instead, each buffer in the best of the 7-series aspect ratios
# (512x72 ... 32768x1); the accumulator twice, since it has three read ports (operands dst and
# src, store) and a block RAM two. WEFT_SYNTH_FULL=1 synthesizes the buffers too (tiny only).
# WEFT_SYNTH_READ_ONLY=1 only checks that yosys reads and elaborates the RTL (seconds; the
# `rtl.yosys_read` test). yosys 0.23 has no `string` type: the package's configuration name is
# dropped on the way in.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${WEFT_SYNTH_DIR:-$root/build-synth}"
mkdir -p "$out"
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(tiny gemm8x8 vta)
rtl="$root/hardware/rtl"
logic_files=""
buffer_files=""
while read -r f; do
  case "$f" in
    */weft_buffer.sv|*/weft_acc_buffer.sv) buffer_files="$buffer_files $root/$f" ;;
    *) logic_files="$logic_files $root/$f" ;;
  esac
done < "$rtl/weft_rtl.f"

[ "${WEFT_SYNTH_READ_ONLY:-0}" = 1 ] || printf "%-8s %8s %8s %6s %8s\n" config LUT FF DSP BRAM36
# LUT counts LUT1..LUT6 cells (yosys also leaves INV cells, which the vendor tools fold
# into LUTs and flip-flop inversions); FF every flip-flop kind; LUTRAM cells (small
# queues and FIFOs) are listed apart.
for cfg in "${configs[@]}"; do
  pkg="$out/weft_pkg_${cfg}.sv"
  grep -v 'localparam string' "$root/hardware/isa/generated/weft_pkg_${cfg}.sv" > "$pkg"
  log="$out/${cfg}.log"
  stat="$out/${cfg}.stat"
  if [ "${WEFT_SYNTH_FULL:-0}" = 1 ]; then
    read="read_verilog -sv $pkg $logic_files $buffer_files"
  else
    # the packages first, then the buffers as black boxes, then the logic
    read="read_verilog -sv $pkg $root/hardware/rtl/weft_rtl_pkg.sv; read_verilog -sv -lib $buffer_files; read_verilog -sv $(echo $logic_files | sed "s#$root/hardware/rtl/weft_rtl_pkg.sv##")"
  fi
  if [ "${WEFT_SYNTH_READ_ONLY:-0}" = 1 ]; then
    yosys -q -l "$log" -p "read_verilog -sv $pkg $logic_files $buffer_files; hierarchy -check -top weft_top; proc; check -assert" >/dev/null
    echo "$cfg: yosys reads and elaborates weft_top"
    continue
  fi
  # WEFT_SYNTH_REPORT_ONLY=1 tabulates the statistics of an earlier run.
  if [ "${WEFT_SYNTH_REPORT_ONLY:-0}" != 1 ]; then
    yosys -q -l "$log" -p "$read; synth_xilinx -family xc7 -top weft_top -flatten; tee -q -o $stat stat" \
      >/dev/null
  fi
  # the first listing of the cell counts (stat prints it once per module, then in total)
  count() { awk -v c="$1" '$1 == c && $2 ~ /^[0-9]+$/ {print $2; exit}' "$stat" | awk '{s+=$1} END {print s+0}'; }
  lut=0; for c in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do lut=$((lut + $(count $c))); done
  lutram=0; for c in RAM32M RAM64M RAM32X1D RAM64X1D RAM128X1D RAM256X1S RAM64X1S RAM128X1S; do
    lutram=$((lutram + $(count $c))); done
  ff=0; for c in FDRE FDSE FDCE FDPE; do ff=$((ff + $(count $c))); done
  dsp=$(count DSP48E1)
  bram=$(python3 - "$root/hardware/isa/generated/weft_pkg_${cfg}.sv" <<'PY'
import re, sys
p = dict((k, int(v)) for k, v in re.findall(r'localparam int unsigned (\w+) = (\d+);', open(sys.argv[1]).read()))
modes = [(72, 512), (36, 1024), (18, 2048), (9, 4096), (4, 8192), (2, 16384), (1, 32768)]
def blocks(depth, width):
    return min(-(-width // w) * -(-depth // d) for w, d in modes)
bufs = [(p['UOP_DEPTH'], p['UOP_BITS']), (p['INP_DEPTH'], p['INP_ELEM_BYTES'] * 8),
        (p['WGT_DEPTH'], p['WGT_ELEM_BYTES'] * 8), (p['ACC_DEPTH'], p['ACC_ELEM_BYTES'] * 8),
        (p['ACC_DEPTH'], p['ACC_ELEM_BYTES'] * 8)]
print(sum(blocks(d, w) for d, w in bufs))
PY
)
  [ "${WEFT_SYNTH_FULL:-0}" = 1 ] && bram="$(($(count RAMB36E1) + ($(count RAMB18E1) + 1) / 2))"
  printf "%-8s %8d %8d %6d %8s" "$cfg" "$lut" "$ff" "$dsp" "$bram"
  [ "$lutram" -gt 0 ] && printf "   (+%d LUTRAM cells)" "$lutram"
  printf "\n"
done
if [ "${WEFT_SYNTH_READ_ONLY:-0}" != 1 ]; then
  echo "Zynq-7020 (PYNQ-Z1): 53200 LUT, 106400 FF, 220 DSP, 140 BRAM36"
  echo "ZCU104 (XCZU7EV):   230400 LUT, 460800 FF, 1728 DSP, 312 BRAM36 (+96 UltraRAM)"
fi
