#!/usr/bin/env bash
# Lints the RTL (weft_top and the Vitis kernel top weft_kernel) of every configuration with `verilator --lint-only -Wall` and the one waiver
# file; exits non-zero on any warning. Usage: scripts/synth/lint.sh [config...]
set -euo pipefail
cd "$(dirname "$0")/../.."
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(tiny gemm8x8 vta)
files=$(cat hardware/rtl/weft_rtl.f)
status=0
for cfg in "${configs[@]}"; do
  if verilator --lint-only -Wall hardware/rtl/lint_waivers.vlt \
      "hardware/isa/generated/weft_pkg_${cfg}.sv" $files --top-module weft_top; then
    echo "lint ${cfg}: clean"
  else
    echo "lint ${cfg}: FAILED" >&2
    status=1
  fi
  # the Vitis kernel top around weft_top (hardware/fpga/weft_kernel.sv)
  if verilator --lint-only -Wall hardware/rtl/lint_waivers.vlt \
      "hardware/isa/generated/weft_pkg_${cfg}.sv" $files $(cat hardware/fpga/weft_kernel.f) \
      --top-module weft_kernel; then
    echo "lint ${cfg} (weft_kernel): clean"
  else
    echo "lint ${cfg}: FAILED" >&2
    status=1
  fi
done
exit $status
