#!/usr/bin/env python3
"""Benchmark of `weft tune` on ResNet-18 C1-C12 (docs/tuning.md).

For each configuration and layer: a long random search (--long trials, another seed) gives the
best schedule known; then random, evolutionary and model each run --trials trials with the same
seed. Reports, per strategy, the trials each layer needs to reach 95% of the best known
(best_known / best_so_far >= 0.95), their median, the final best against the layer's roofline
bound, and writes convergence plots as SVG (no matplotlib needed). Also times one
`weft tune resnet18` run of all twelve layers.

  python3 scripts/bench/tune_resnet18.py --weft build/runtime/weft --out docs/tuning
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

STRATS = ["random", "evolutionary", "model"]
COLORS = {"random": "#999999", "evolutionary": "#1f77b4", "model": "#d62728"}


def tune(weft, config, layer, strategy, trials, seed, workers, db):
    if os.path.exists(db):
        os.remove(db)
    extra = ["--db", db]
    cmd = [weft, "tune", "conv2d", "--layer", layer, "--config", config, "--trials",
           str(trials), "--strategy", strategy, "--seed", str(seed), "--workers", str(workers),
           "--quiet", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tasks"][0]


def trials_to(curve, target):
    for i, v in enumerate(curve):
        if v > 0 and v <= target:
            return i + 1
    return None  # not reached


def svg_plot(path, title, series, xmax):
    """series: {name: [ratio per trial]} with ratios in (0, 1]."""
    w, h, m = 560, 320, 50
    def x(i):
        return m + (w - 2 * m) * i / max(1, xmax - 1)
    def y(v):
        lo = 0.5
        return h - m - (h - 2 * m) * (max(lo, v) - lo) / (1 - lo)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<text x="{w/2}" y="20" text-anchor="middle">{title}</text>',
             f'<line x1="{m}" y1="{h-m}" x2="{w-m}" y2="{h-m}" stroke="black"/>',
             f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h-m}" stroke="black"/>',
             f'<text x="{w/2}" y="{h-12}" text-anchor="middle">measured trials</text>',
             f'<text x="14" y="{h/2}" transform="rotate(-90 14 {h/2})" text-anchor="middle">'
             f'best known / best so far (median over layers)</text>']
    for v in (0.5, 0.75, 0.95, 1.0):
        parts.append(f'<line x1="{m}" y1="{y(v):.1f}" x2="{w-m}" y2="{y(v):.1f}" '
                     f'stroke="#ddd"/><text x="{m-4}" y="{y(v)+4:.1f}" text-anchor="end">{v}</text>')
    for t in range(0, xmax + 1, max(1, xmax // 8)):
        parts.append(f'<text x="{x(max(0, t-1)):.1f}" y="{h-m+16}" text-anchor="middle">{t}</text>')
    for k, (name, ys) in enumerate(series.items()):
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(ys))
        col = COLORS.get(name, "black")
        parts.append(f'<polyline fill="none" stroke="{col}" stroke-width="2" points="{pts}"/>')
        parts.append(f'<text x="{w-m-110}" y="{m+16*k+10}" fill="{col}">{name}</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weft", default="build/runtime/weft")
    ap.add_argument("--configs", default="gemm8x8,vta")
    ap.add_argument("--layers", default=",".join(f"C{i}" for i in range(1, 13)))
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--long", type=int, default=96, help="random trials for the best known")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--network-trials", type=int, default=384,
                    help="trials of the timed `weft tune resnet18` run (0: skip)")
    ap.add_argument("--out", default="docs/tuning")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = {"trials": a.trials, "long": a.long, "seed": a.seed, "configs": {}}
    for config in a.configs.split(","):
        layers = {}
        for layer in a.layers.split(","):
            dbs = os.path.join(a.out, "db")
            os.makedirs(dbs, exist_ok=True)
            runs = {s: tune(a.weft, config, layer, s, a.trials, a.seed, a.workers,
                            os.path.join(dbs, f"{config}_{layer}_{s}.jsonl")) for s in STRATS}
            long = tune(a.weft, config, layer, "random", a.long, a.seed + 1000, a.workers,
                        os.path.join(dbs, f"{config}_{layer}_long.jsonl"))
            known = min([long["best"]] + [r["best"] for r in runs.values()])
            roof = runs["model"]["info"]["roofline"]["bound_cycles"]
            entry = {"best_known": known, "bound_cycles": roof, "strategies": {}}
            for s, r in runs.items():
                entry["strategies"][s] = {
                    "best": r["best"], "trials_to_95": trials_to(r["best_after_trial"], known / 0.95),
                    "ratio_curve": [known / v if v > 0 else 0 for v in r["best_after_trial"]],
                    "of_roofline": roof / r["best"], "best_schedule": r["best_schedule"]}
            layers[layer] = entry
            print(config, layer, "known", known, "bound", roof,
                  {s: (e["best"], e["trials_to_95"]) for s, e in entry["strategies"].items()},
                  file=sys.stderr, flush=True)
        summary = {}
        for s in STRATS:
            t95 = [l["strategies"][s]["trials_to_95"] for l in layers.values()]
            reached = [t for t in t95 if t is not None]
            summary[s] = {"median_trials_to_95": statistics.median(
                              [t if t is not None else a.trials + 1 for t in t95]),
                          "layers_reaching_95": len(reached)}
        series = {s: [statistics.median(l["strategies"][s]["ratio_curve"][i]
                                        for l in layers.values())
                      for i in range(a.trials)] for s in STRATS}
        svg_plot(os.path.join(a.out, f"convergence_{config}.svg"),
                 f"weft tune, ResNet-18 C1-C12 on {config}", series, a.trials)
        net = None
        if a.network_trials:
            t0 = time.time()
            db = os.path.join(a.out, f"network_{config}.jsonl")
            if os.path.exists(db):
                os.remove(db)
            subprocess.run([a.weft, "tune", "resnet18", "--config", config, "--trials",
                            str(a.network_trials), "--strategy", "model", "--seed", str(a.seed),
                            "--workers", str(a.workers), "--quiet", "--db", db], check=True,
                           capture_output=True)
            net = {"trials": a.network_trials, "seconds": time.time() - t0}
        results["configs"][config] = {"layers": layers, "summary": summary, "network_run": net}
        print(config, json.dumps(summary), net, file=sys.stderr, flush=True)
    with open(os.path.join(a.out, "tune_resnet18.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
