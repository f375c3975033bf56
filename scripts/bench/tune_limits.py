#!/usr/bin/env python3
"""Which hardware resource stops each ResNet-18 layer short of its roofline bound.

For every layer C1-C12 on a configuration, runs `weft run conv2d --layer CX --config C` (the
cycle model, knobs from the best tuning record) and reads its counters: the roofline bound
(GEMM micro-ops at one per cycle, or the compulsory DRAM bytes on the bus), the compute module's
busy cycles and what it spent them on (GEMM micro-ops, accumulator resets, the epilogue's ALU
micro-ops: the epilogue runs on the same compute module, serially with the GEMMs), the DRAM
bytes the schedule actually moves against the compulsory ones, and each module's largest stall.
The "compute-module bound" counts every micro-op the compute module must issue (GEMM + reset +
ALU); a layer at >= 90% of it is limited by the compute module itself, not by the schedule.

  scripts/bench/tune_limits.py --weft build/runtime/weft --config vta [--tune-db DB] [--json out.json]
"""
import argparse
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weft", default="build/runtime/weft")
    ap.add_argument("--config", default="vta")
    ap.add_argument("--batch", type=int, help="default: the configuration's GEMM batch")
    ap.add_argument("--tune-db", help="records to take the knobs from (default: the shipped)")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    for i in range(1, 13):
        layer = f"C{i}"
        batch = a.batch or (1 if a.config == "vta" else 8)
        cmd = [a.weft, "run", "conv2d", "--layer", layer, "--config", a.config,
               "--N", str(batch)] + (["--tune-db", a.tune_db] if a.tune_db else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        if "knobs from the tuning records" not in p.stderr:
            sys.exit(f"{layer}: no tuning record for this shape ({' '.join(cmd)})")
        if p.returncode != 0:
            sys.exit(f"weft run conv2d --layer {layer} failed: {p.stderr}")
        d = json.loads(p.stdout)
        dev, rf, mods = d["device"], d["roofline"], d["modules"]
        cyc = d["cycles"]
        gemm = dev["gemm_counter"]
        reset = dev["gemm_uops"] - gemm
        alu = dev["alu_uops"]
        uop_bound = gemm + reset + alu
        moved = sum(dev[k] for k in ("inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes",
                                     "uop_load_nbytes", "out_store_nbytes"))
        stalls = {}
        for m in ("load", "compute", "store"):
            st = {k: v for k, v in mods[m].items() if k.startswith("stall_") and v > 0}
            stalls[m] = max(st, key=st.get) if st else "-"
        rows.append({
            "layer": layer, "cycles": cyc, "roofline_bound": rf["bound_cycles"],
            "of_roofline": rf["bound_cycles"] / cyc,
            "gemm_uops": gemm, "reset_uops": reset, "alu_uops": alu,
            "compute_busy": mods["compute"]["busy"] / cyc,
            "compute_module_bound": uop_bound, "of_compute_module_bound": uop_bound / cyc,
            "dram_bytes_moved": moved, "dram_bytes_compulsory": rf["compulsory_dram_bytes"],
            "memory_cycles_moved": moved / (rf["compulsory_dram_bytes"] / rf["memory_cycles"])
            if rf["memory_cycles"] else 0,
            "largest_stall": stalls, "knobs": d["knobs"]})
    print(f"| layer | cycles | roofline bound | of bound | GEMM / reset / ALU uops | compute busy |"
          f" compute-module bound | of it | DRAM moved / compulsory | load / store stall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['layer']} | {r['cycles']} | {int(r['roofline_bound'])} | "
              f"{r['of_roofline']:.2f} | {r['gemm_uops']} / {r['reset_uops']} / {r['alu_uops']} | "
              f"{r['compute_busy']:.2f} | {r['compute_module_bound']} | "
              f"{r['of_compute_module_bound']:.2f} | "
              f"{r['dram_bytes_moved']/r['dram_bytes_compulsory']:.2f}x | "
              f"{r['largest_stall']['load'][6:]} / {r['largest_stall']['store'][6:]} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"config": a.config, "layers": rows}, f, indent=1)


if __name__ == "__main__":
    main()
