#!/usr/bin/env python3
"""How many of the accelerator search's proposals are invalid schedules.

For ResNet-18's conv2d layers C1-C12 and two dense shapes (ResNet-18's classifier, M = the
configuration's GEMM batch, N=1000, K=512; and 256x256x256), on each configuration and
strategy, runs `weft tune ... --trials T --quiet` and reads the summary: `proposed` (the
candidates compiled: seeds, samples, children, the model's whole scored population) and
`invalid` (those the compiler or the instruction-stream builder refused). Invalid counts are
deterministic for a seed; the wall time of each run is the machine's and is printed with the
CPU named. With --baseline (a --json file of an earlier build) both columns are printed side
by side.

  scripts/bench/tune_invalid.py --weft build/runtime/weft [--configs vta,gemm8x8]
      [--strategies model,random] [--trials 32] [--json out.json] [--baseline before.json]
  scripts/bench/tune_invalid.py --results a.json,b.json --baseline before.json  (table only)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def cpu_name():
    """The model name, family and model of the first processor, and its vector extensions."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, val = line.partition(":")
                info.setdefault(key.strip(), val.strip())
    except OSError:
        pass
    flags = set(info.get("flags", "").split())
    vec = [v for v in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16") if v in flags]
    return (f"{info.get('model name', 'unknown CPU')} (family {info.get('cpu family', '?')}, "
            f"model {info.get('model', '?')}; {' '.join(vec) or 'no AVX2'})")


def workloads(config):
    batch = 1 if config == "vta" else 8
    out = [(f"C{i}", ["conv2d", "--layer", f"C{i}"]) for i in range(1, 13)]
    out.append((f"dense {batch}x1000x512", ["dense", "--M", str(batch), "--N", "1000", "--K", "512"]))
    out.append(("dense 256x256x256", ["dense", "--M", "256", "--N", "256", "--K", "256"]))
    return out


def run(weft, config, strategy, name, args, trials, seed):
    with tempfile.TemporaryDirectory() as d:
        summary = os.path.join(d, "s.json")
        cmd = [weft, "tune", *args, "--config", config, "--strategy", strategy, "--trials",
               str(trials), "--seed", str(seed), "--quiet", "--summary", summary]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - t0
        if p.returncode != 0:
            return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed",
                    "wall_s": wall}
        t = json.load(open(summary))["tasks"][0]
        return {"proposed": t["proposed"], "invalid": t["invalid"], "trials": t["trials"],
                "best": t["best"], "wall_s": wall}


def cell(r):
    if r is None:
        return "-"
    if "error" in r:
        return "error"
    pct = 100.0 * r["invalid"] / max(1, r["proposed"])
    return f"{r['invalid']}/{r['proposed']} ({pct:.1f}%)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weft", default="build/runtime/weft")
    ap.add_argument("--configs", default="vta,gemm8x8")
    ap.add_argument("--strategies", default="model,random")
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--wall", action="store_true",
                    help="print each run's wall time (only comparable on a quiet machine)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--baseline", help="results of an earlier build (--json files, comma-"
                    "separated) to print beside")
    ap.add_argument("--results", help="print these results (--json files, comma-separated) "
                    "instead of running")
    a = ap.parse_args()
    load = lambda files: {k: v for f in files.split(",") for k, v in json.load(open(f))["runs"].items()}
    base = load(a.baseline) if a.baseline else {}
    runs = load(a.results) if a.results else {}
    for config in a.configs.split(",") if not a.results else []:
        for strategy in a.strategies.split(","):
            for name, args in workloads(config):
                key = f"{config}/{strategy}/{name}"
                runs[key] = run(a.weft, config, strategy, name, args, a.trials, a.seed)
                print(f"{key}: {cell(runs[key])}", file=sys.stderr)
                save(a, runs)  # after every run: a long sweep cut short keeps what it measured
    cpu, trials, seed = cpu_name(), a.trials, a.seed
    if a.results:  # as they were measured
        first = json.load(open(a.results.split(",")[0]))
        cpu, trials, seed = first["cpu"], first["trials"], first["seed"]
    print(f"CPU: {cpu}; {trials} trials per run, seed {seed}; cells are invalid/proposed")
    print()
    head = "| config | strategy | workload |"
    head += " before | after | best before | best after |" if base else " invalid/proposed | best |"
    if a.wall:
        head += " wall before (s) | wall after (s) |" if base else " wall (s) |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    totals = {}
    for key, r in runs.items():
        config, strategy, name = key.split("/", 2)
        b = base.get(key)
        best = lambda x: "-" if not x or "error" in x else f"{x['best']:.0f}"
        wall = lambda x: "-" if not x else f"{x['wall_s']:.1f}"
        row = f"| {config} | {strategy} | {name} |"
        row += f" {cell(b)} | {cell(r)} | {best(b)} | {best(r)} |" if base \
            else f" {cell(r)} | {best(r)} |"
        if a.wall:
            row += f" {wall(b)} | {wall(r)} |" if base else f" {wall(r)} |"
        print(row)
        for side, x in (("before", b), ("after", r)):
            if x and "error" not in x:
                t = totals.setdefault((config, strategy, side), [0, 0, 0.0])
                t[0] += x["invalid"]
                t[1] += x["proposed"]
                t[2] += x["wall_s"]
    print()
    for (config, strategy, side), (inv, prop, wall) in sorted(totals.items()):
        if side == "before" and not base:
            continue
        label = f" ({side})" if base else ""
        print(f"- {config} {strategy}{label}: {inv}/{prop} invalid "
              f"({100.0 * inv / max(1, prop):.1f}%)" + (f", {wall:.0f} s in all" if a.wall else ""))
    save(a, runs)


def save(a, runs):
    if a.json and not a.results:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_name(), "trials": a.trials, "seed": a.seed, "runs": runs}, f,
                      indent=1)


if __name__ == "__main__":
    main()
