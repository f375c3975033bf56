#!/usr/bin/env bash
# Whole-design synthesis of weft_top with yosys 0.23 for Xilinx UltraScale+ (`synth_xilinx
# -family xcup -flatten` without its `share` step, below): every buffer inferred as block RAM (RAMB36E2/RAMB18E2), the GEMM core
# and the ALU's multipliers as DSP48E2, queues and zero flags as LUT RAM. One JSON per
# configuration (docs/codesign.md, "Synthesis"):
#   {"config", "family", "finished", "synthesized", "seconds", "cpu_seconds", "lut", "ff",
#    "dsp", "bram36", "ramb36", "ramb18", "lutram", "srl", "carry", "yosys"}
# Usage: scripts/synth/synth.sh [--skip] [--timeout S] [--out DIR] [CONFIG...]
#   CONFIG   a shipped configuration (tiny, gemm8x8, vta; the default is all three) or a
#            configuration file (*.json; its package comes from `weft-isa-gen --sv`, found in
#            $WEFT_BUILD or build/)
#   --skip   no yosys (quick sweeps): "synthesized": false and the block RAM of the buffers by
#            arithmetic (one RAMB36E2 per 36 Kbit of each array copy, in its best aspect ratio):
#            `weft config resources CONFIG` (hardware/cost/resource_estimate.h), found in
#            $WEFT_BUILD or build/
#   --timeout seconds yosys may run per configuration (600); past it "finished": false and the
#            step it was in
#   --out    where the JSON and logs go (build-synth/)
# WEFT_SYNTH_READ_ONLY=1 only checks that yosys reads and elaborates the RTL (seconds; the
# `rtl.yosys_read` test). yosys 0.23 has no `string` type: the package's configuration name is
# dropped on the way in.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${WEFT_SYNTH_DIR:-$root/build-synth}"
timeout_s=600
skip=0
configs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --skip) skip=1 ;;
    --timeout) timeout_s="$2"; shift ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) configs+=("$1") ;;
  esac
  shift
done
[ ${#configs[@]} -eq 0 ] && configs=(tiny gemm8x8 vta)
mkdir -p "$out"
files=$(sed "s#^#$root/#" "$root/hardware/rtl/weft_rtl.f" | tr '\n' ' ')

# The package of a configuration, without its `string` parameter: committed for a shipped one,
# generated for a file.
package() {
  local cfg="$1" dst="$2"
  if [[ "$cfg" == *.json || "$cfg" == */* ]]; then
    local gen="${WEFT_BUILD:-$root/build}/hardware/isa/weft-isa-gen"
    [ -x "$gen" ] || { echo "synth.sh: $gen not found (build the weft-isa-gen target, or set WEFT_BUILD)" >&2; exit 1; }
    "$gen" --sv "$cfg" > "$dst.full"
  else
    [ -f "$root/hardware/isa/generated/weft_pkg_${cfg}.sv" ] || { echo "synth.sh: unknown configuration '$cfg'" >&2; exit 1; }
    cp "$root/hardware/isa/generated/weft_pkg_${cfg}.sv" "$dst.full"
  fi
  grep -v 'localparam string' "$dst.full" > "$dst"
  rm -f "$dst.full"
}
name_of() { sed -n 's/.*localparam string CONFIG_NAME = "\(.*\)";/\1/p' "$1"; }

for cfg in "${configs[@]}"; do
  pkg="$out/pkg.sv"
  package "$cfg" "$pkg"
  [[ "$cfg" == *.json || "$cfg" == */* ]] && "${WEFT_BUILD:-$root/build}/hardware/isa/weft-isa-gen" --sv "$cfg" > "$out/pkg_named.sv" || cp "$root/hardware/isa/generated/weft_pkg_${cfg}.sv" "$out/pkg_named.sv"
  name=$(name_of "$out/pkg_named.sv")
  mv "$pkg" "$out/weft_pkg_${name}.sv"; pkg="$out/weft_pkg_${name}.sv"
  log="$out/${name}.log"; stat="$out/${name}.stat"; json="$out/${name}.json"
  if [ "${WEFT_SYNTH_READ_ONLY:-0}" = 1 ]; then
    yosys -q -l "$log" -p "read_verilog -sv $pkg $files; hierarchy -check -top weft_top; proc; check -assert" >/dev/null
    echo "$name: yosys reads and elaborates weft_top"
    continue
  fi
  if [ "$skip" = 1 ]; then
    # The one arithmetic estimate (hardware/cost/resource_estimate.h), as `weft dse` uses it.
    weft="${WEFT_BUILD:-$root/build}/runtime/weft"
    [ -x "$weft" ] || { echo "synth.sh: $weft not found (build the weft target, or set WEFT_BUILD)" >&2; exit 1; }
    "$weft" config resources "$cfg" > "$json"
    cat "$json"
    continue
  fi
  start=$(date +%s.%N)
  rc=0
  # synth_xilinx's steps with its `coarse` step spelled out and `share` left out: share merges
  # arithmetic cells behind a common multiplexer, found nothing worth merging here and took a
  # fifth of the run (gemm8x8: 851 CPU s with it, 511 without, and 2,046 fewer LUTs without).
  flow="synth_xilinx -family xcup -top weft_top -flatten -noiopad -run :coarse"
  flow="$flow; techmap -map +/cmp2lut.v -map +/cmp2lcu.v -D LUT_WIDTH=6; alumacc; opt; memory -nomap; opt_clean"
  flow="$flow; synth_xilinx -family xcup -top weft_top -flatten -noiopad -run map_memory:"
  /usr/bin/time -f "%U %S" -o "$out/${name}.time" timeout "$timeout_s" \
    yosys -q -l "$log" -p "read_verilog -sv $pkg $files; $flow; tee -q -o $stat stat -tech xilinx" \
    >/dev/null 2>&1 || rc=$?
  end=$(date +%s.%N)
  python3 - "$name" "$rc" "$start" "$end" "$out/${name}.time" "$stat" "$log" "$timeout_s" > "$json" <<'PY'
import json, os, re, subprocess, sys
name, rc, t0, t1, tfile, stat, log, limit = sys.argv[1:]
r = {"config": name, "family": "xcup", "synthesized": True, "finished": rc == "0",
     "seconds": round(float(t1) - float(t0), 1)}
try:
    u, s = open(tfile).read().split()[-2:]
    r["cpu_seconds"] = round(float(u) + float(s), 1)
except Exception:
    pass
r["yosys"] = subprocess.run(["yosys", "-V"], capture_output=True, text=True).stdout.strip()
if rc != "0":
    steps = re.findall(r'^\d+\.(?:\d+\.)* Executing (\S+)', open(log).read(), re.M) if os.path.exists(log) else []
    r["reason"] = (f"yosys did not finish in {limit} s" if rc == "124" else f"yosys exited with {rc}") + \
                  (f"; it was in {steps[-1]}" if steps else "")
else:
    text = open(stat).read()
    # the design's total (stat prints per module, then the top; flattened: one module)
    cells = {}
    for k, v in re.findall(r'^\s+(\w+)\s+(\d+)\s*$', text, re.M):
        cells[k] = cells.get(k, 0) + int(v)
    g = lambda *ks: sum(cells.get(k, 0) for k in ks)
    r["lut"] = g("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6")
    r["ff"] = g("FDRE", "FDSE", "FDCE", "FDPE")
    r["dsp"] = g("DSP48E2")
    r["ramb36"] = g("RAMB36E2")
    r["ramb18"] = g("RAMB18E2")
    r["bram36"] = r["ramb36"] + (r["ramb18"] + 1) // 2
    r["uram"] = g("URAM288")
    r["lutram"] = g("RAM32M", "RAM64M", "RAM32M16", "RAM64M8", "RAM32X1D", "RAM64X1D", "RAM128X1D",
                    "RAM256X1D", "RAM32X1S", "RAM64X1S", "RAM128X1S", "RAM256X1S", "RAM512X1S")
    r["srl"] = g("SRL16E", "SRLC32E")
    r["carry"] = g("CARRY4", "CARRY8")
print(json.dumps(r))
PY
  cat "$json"
done
