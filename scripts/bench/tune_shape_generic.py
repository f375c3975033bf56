#!/usr/bin/env python3
"""Benchmark of shape-generic tuning against per-shape tuning (docs/tuning.md, "Shape-generic
tuning").

For each family (dense M=1:256 with N=K=256; conv2d H=W=7:224 with ResNet-18's first-stage
channels IC=OC=64, 3x3, pad 1) on the `vta` configuration:
  - shape-generic: one `weft tune --family ... --trials G` run writes a dispatch table; each
    spread shape is then run with `weft run --tune-db DB` (which dispatches from the table when
    no exact record exists) and its cycles are read;
  - per-shape: `weft tune --trials P --strategy evolutionary` on each spread shape alone.
Reports per shape the cycles ratio (per-shape best / generic, >= 0.95 is the goal), and the
trials ratio (per-shape trials over the spread, and over the whole family, / generic trials).

  python3 scripts/bench/tune_shape_generic.py --weft build/runtime/weft --out docs/tuning
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

FAMILIES = {
    "dense": {"spec": "M=1:256", "fixed": ["--N", "256", "--K", "256"], "var": ["--M"],
              "spread": [1, 3, 8, 13, 24, 32, 50, 64, 100, 128, 180, 256], "members": 256},
    "conv2d": {"spec": "HW=7:224",
               "fixed": ["--IC", "64", "--OC", "64", "--kernel", "3", "--stride", "1",
                         "--pad", "1"],
               "var": ["--H", "--W"], "spread": [7, 14, 20, 28, 40, 56, 80, 112, 150, 224],
               "members": 218},
}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--weft", default="build/runtime/weft")
    ap.add_argument("--config", default="vta")
    ap.add_argument("--families", default="dense,conv2d")
    ap.add_argument("--generic-trials", default="dense=36,conv2d=16")
    ap.add_argument("--reps", default="dense=18,conv2d=8")
    ap.add_argument("--per-shape-trials", default="dense=32,conv2d=16")
    ap.add_argument("--population", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    gt = dict(x.split("=") for x in a.generic_trials.split(","))
    pt = dict(x.split("=") for x in a.per_shape_trials.split(","))
    reps = dict(x.split("=") for x in a.reps.split(","))
    tmp = tempfile.mkdtemp(prefix="weft_sg_")
    report = {"config": a.config, "families": {}}
    for op in a.families.split(","):
        fam = FAMILIES[op]
        db = os.path.join(tmp, op + ".jsonl")
        t0 = time.time()
        summary = json.loads(run([a.weft, "tune", op, "--family", fam["spec"], *fam["fixed"],
                                  "--config", a.config, "--trials", gt[op], "--reps", reps[op], "--seed",
                                  str(a.seed), "--population", str(a.population), "--db", db,
                                  "--quiet"]))
        generic_s = time.time() - t0
        rows = []
        per_shape_s = 0.0
        for v in fam["spread"]:
            shape = [x for flag in fam["var"] for x in (flag, str(v))]
            out = json.loads(run([a.weft, "run", op, *shape, *fam["fixed"], "--config",
                                  a.config, "--tune-db", db]))
            assert out["correct"], (op, v)
            t0 = time.time()
            ps = json.loads(run([a.weft, "tune", op, *shape, *fam["fixed"], "--config",
                                 a.config, "--trials", pt[op], "--strategy", "evolutionary",
                                 "--seed", str(a.seed), "--quiet"]))["tasks"][0]
            per_shape_s += time.time() - t0
            rows.append({"value": v, "generic_cycles": out["cycles"],
                         "per_shape_cycles": ps["best"],
                         "ratio": ps["best"] / out["cycles"]})
            print(f"{op} {fam['spec'].split('=')[0]}={v}: generic {out['cycles']} "
                  f"per-shape {ps['best']:.0f} ratio {rows[-1]['ratio']:.3f}", flush=True)
        g = summary["trials"]
        p_spread = int(pt[op]) * len(fam["spread"])
        res = {"spec": fam["spec"], "generic_trials": g, "reps": int(reps[op]), "generic_seconds": generic_s,
               "per_shape_trials_each": int(pt[op]), "per_shape_trials_spread": p_spread,
               "per_shape_seconds_spread": per_shape_s,
               "trials_ratio_spread": p_spread / g,
               "trials_ratio_family": int(pt[op]) * fam["members"] / g,
               "min_ratio": min(r["ratio"] for r in rows),
               "geomean_ratio": statistics.geometric_mean([r["ratio"] for r in rows]),
               "kernels": len(summary["kernels"]), "rows": rows}
        report["families"][op] = res
        print(json.dumps({k: v for k, v in res.items() if k != "rows"}), flush=True)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "shape_generic_%s.json" % a.config), "w") as f:
            json.dump(report, f, indent=1)
    for op, res in report["families"].items():
        print(f"\n| {op} shape | per-shape best ({res['per_shape_trials_each']} trials) | "
              f"shape-generic ({res['generic_trials']} trials total) | ratio |")
        print("|---|---|---|---|")
        for r in res["rows"]:
            print(f"| {r['value']} | {r['per_shape_cycles']:.0f} | {r['generic_cycles']} | "
                  f"{r['ratio']:.3f} |")


if __name__ == "__main__":
    main()
