#!/usr/bin/env python3
"""What a hardware option changes, network by network: each model runs on the cycle model on a
base configuration and on the same hardware with the option (docs/codesign.md, "Hardware
options"), and the table gives cycles, the share of the GEMM bound, the ISA floor and whether
the int8 outputs are the same bytes.

  option_effect.py [--weft build/runtime/weft] [--base vta] [--with examples/configs/vta_rq.json]
                   [--out build-option] [--json FILE] MODEL ...

MODEL: `resnet18` (the built-in network) or an ONNX file (with MODEL.input.npy beside it when
there is one, as scripts/onnx/torchvision_table.py saves them). Progress goes to stderr, the
table (markdown) to stdout.
"""
import argparse
import json
import os
import platform
import subprocess
import sys

import numpy as np


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def run(weft, model, config, out):
    """The run's report (dict) and its output bytes (or None)."""
    os.makedirs(out, exist_ok=True)
    if model == "resnet18":
        cmd = [weft, "run", "resnet18", "--config", config, "--engine", "cycle", "--json"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"option_effect: {' '.join(cmd)} failed:\n{r.stderr}")
        return json.loads(r.stdout), None
    cmd = [weft, "run", model, "--config", config, "--engine", "cycle", "--save", out]
    inp = model[:-len(".onnx")] + ".input.npy"
    if os.path.exists(inp):
        cmd += ["--input", inp]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"option_effect: {' '.join(cmd)} failed:\n{r.stderr}")
    with open(os.path.join(out, "report.json")) as f:
        report = json.load(f)["report"]
    return report, np.load(os.path.join(out, "output.npy"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft", default="build/runtime/weft")
    ap.add_argument("--base", default="vta")
    ap.add_argument("--with", dest="option", default="examples/configs/vta_rq.json")
    ap.add_argument("--out", default="build-option")
    ap.add_argument("--json")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    for m in a.models:
        if m != "resnet18" and not os.path.isfile(m):
            sys.exit(f"option_effect: no model '{m}' (resnet18 or an ONNX file)")
    if not os.access(a.weft, os.X_OK):
        sys.exit(f"option_effect: no weft binary at '{a.weft}' (--weft)")
    rows = []
    for m in a.models:
        name = "resnet18 (built-in)" if m == "resnet18" else os.path.basename(m).replace(".onnx", "")
        got = {}
        for label, config in (("base", a.base), ("option", a.option)):
            print(f"[{name}] {config}", file=sys.stderr, flush=True)
            got[label] = run(a.weft, m, config, os.path.join(a.out, name, label))
        (b, bo), (o, oo) = got["base"], got["option"]
        same = None if bo is None else bool(np.array_equal(bo, oo))
        rows.append({"model": name, "base_cycles": b["accel_cycles"], "option_cycles": o["accel_cycles"],
                     "base_utilization": b["utilization"], "option_utilization": o["utilization"],
                     "base_isa_floor": b["isa_floor_cycles"], "option_isa_floor": o["isa_floor_cycles"],
                     "same_output": same})
    print(f"CPU: {cpu_name()}; base: {a.base}; with the option: {a.option}\n")
    print("| model | cycles | of GEMM bound | ISA floor | with the option: cycles | of GEMM bound | ISA floor | "
          "cycles saved | same int8 output |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = "—" if r["same_output"] is None else ("yes" if r["same_output"] else "NO")
        print(f"| {r['model']} | {r['base_cycles']:,} | {100 * r['base_utilization']:.1f}% | {r['base_isa_floor']:,} | "
              f"{r['option_cycles']:,} | {100 * r['option_utilization']:.1f}% | {r['option_isa_floor']:,} | "
              f"{100 * (1 - r['option_cycles'] / r['base_cycles']):.1f}% | {same} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu_name(), "base": a.base, "option": a.option, "models": rows}, f, indent=1)


if __name__ == "__main__":
    main()
