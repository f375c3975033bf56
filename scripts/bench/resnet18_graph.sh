#!/usr/bin/env bash
# Whole-network benchmark: the built-in ResNet-18 through the graph pipeline and executor on
# the cycle-exact model, batch 1 on `vta` and batch 8 on `gemm8x8`. Prints a markdown table
# of the totals (accelerator cycles, share of conv+dense MACs on the accelerator, fraction of
# the GEMM bound and of the ISA floor, wall and compile time, arenas and the largest copy staging
# buffer) and, per configuration, each layer's cycles, utilization, roofline limit and ISA floor
# (compiler/ops/conv2d_floor.h: the fewest cycles any program for the layer can take on the
# configuration) with the compute module's cycles above the floor split into what took them.
# The latest table is in docs/graph.md.
# Usage: scripts/bench/resnet18_graph.sh [BUILD_DIR] [PLATFORM]   (defaults: build, sim)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
platform=${2:-sim}
weft=$build/runtime/weft
out=$build/bench/resnet18_graph
mkdir -p "$out"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), one core; platform $platform"
for run in "vta 1" "gemm8x8 8"; do
  set -- $run
  "$weft" run resnet18 --config "$1" --batch "$2" --platform "$platform" --engine cycle --json \
    > "$out/$1_b$2.json"
done
/usr/bin/python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
runs = [("vta", 1), ("gemm8x8", 8)]
print()
print("| config | batch | accel cycles | conv+dense MACs on accel | of GEMM bound | ISA floor (every tap) | of ISA floor | wall s (run) | compile s (calibration) | device arena B | host arena B | arenas together B | copy staging B |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for c, b in runs:
    j = json.load(open(os.path.join(out, f"{c}_b{b}.json")))
    bound = j["gemm_bound_cycles"] / j["accel_cycles"]
    calib = j["pass_seconds"].get("quantize", 0)
    fl = j.get("isa_floor_cycles", 0)
    print(f"| {c} | {b} | {j['accel_cycles']:,} | {100*j['accel_mac_fraction']:.1f}% | {100*bound:.1f}% "
          f"| {fl:,} ({j.get('isa_floor_all_taps_cycles', 0):,}) | {100*fl/j['accel_cycles']:.1f}% "
          f"| {j['wall_seconds']:.3f} | {j['compile_seconds']:.2f} ({calib:.2f}) | {j['device_arena_bytes']:,} | {j['host_arena_bytes']:,} "
          f"| {j['device_arena_bytes'] + j['host_arena_bytes']:,} | {j.get('host_staging_bytes', 0):,} |")
for c, b in runs:
    j = json.load(open(os.path.join(out, f"{c}_b{b}.json")))
    print()
    print(f"**{c}, batch {b}** (cycles; util = useful MACs / (cycles x peak); GEMM uops = the run's GEMM micro-ops, resets included (util above 100%: padding taps the MAC bound counts were not run); "
          "memory = DRAM bytes / bus width; ISA floor = fewest cycles any program can take (GEMM micro-ops on "
          "data taps + the epilogue's minimum; in parentheses: a program that runs every tap, padding included); above floor = compute-module work beyond the floor (register ALU ops, "
          "its LOADs) + cycles it did no work)")
    print()
    print("| layer | cycles | util | MAC bound | GEMM uops | memory cycles | limit | ISA floor | of floor | above floor: work + waits | schedule |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    # The row bands of one layer (stem_im2col: conv1.rows0, conv1.rows28, ...) summed in one row.
    rows = []
    for n in j["nodes"]:
        if n["engine"] != "accel":
            continue
        name = n["node"].split(".rows")[0]
        if rows and rows[-1]["node"] == name:
            r = rows[-1]
            r["bands"] += 1
            for k in ("cycles", "macs", "mac_bound_cycles", "gemm_uops", "memory_cycles",
                      "isa_floor_cycles", "isa_floor_all_taps_cycles"):
                r[k] = r.get(k, 0) + n.get(k, 0)
            for k, v in n.get("compute", {}).items():
                r["compute"][k] = r["compute"].get(k, 0) + v
        else:
            rows.append(dict(n, node=name, bands=1, compute=dict(n.get("compute", {}))))
    peak = j["gemm_bound_cycles"] and j["accel_macs"] / j["gemm_bound_cycles"]
    for n in rows:
        util = n["macs"] / (n["cycles"] * peak) if peak else n["utilization"]
        label = n["node"] + (f" ({n['bands']} bands)" if n["bands"] > 1 else "")
        fl = n.get("isa_floor_cycles", 0)
        busy = n["compute"].get("busy", 0)
        # Above the floor: compute-module work the floor does not count (register-operand ALU
        # cycles, LOAD UOP/ACC/ACC_8BIT on that module) and its cycles without work (waiting for
        # tokens, DRAM, the pipeline). A memory-bound floor (the fc) has no work part.
        work = max(busy - fl, 0)
        print(f"| {label} | {n['cycles']:,} | {100*util:.1f}% | {int(n.get('mac_bound_cycles',0)):,} "
              f"| {n.get('gemm_uops',0):,} | {int(n.get('memory_cycles',0)):,} | {n.get('limit','')} "
              f"| {fl:,} ({n.get('isa_floor_all_taps_cycles',0):,}) | {100*fl/n['cycles']:.1f}% "
              f"| {work:,} + {n['cycles'] - max(busy, fl):,} | {n['schedule']} |")
PY
