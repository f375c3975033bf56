#!/usr/bin/python3
"""Exports torchvision's classification models and a BERT-style encoder with torch.onnx.export
(random weights, fixed seeds), runs each through Weft on the LLVM path (fp32) and on the
accelerator (int8, cycle model), and prints one table: the LLVM output's error against
PyTorch's own output, the int8 run's cosine against it, MACs on the accelerator, cycles,
utilization against the GEMM bound, compile and wall time. docs/networks.md keeps its latest
table.

Needs Debian's python3-torchvision (about 170 packages; optional, not in quickstart or CI):
  apt-get install --no-install-recommends python3-torchvision

  torchvision_table.py [--weft build/runtime/weft] [--out build-networks] [--config vta]
                       [--only NAME ...] [--json FILE] [--keep-going]

A model Weft refuses shows the error's first line in the table instead of figures. Exit code:
0 when every model ran, 1 otherwise (or on bad arguments).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def encoder(d=256, heads=4, layers=2, ff=1024, seq=64, vocab=None):
    """A BERT-style stack: torch.nn.TransformerEncoder (post-norm, GELU), then a linear head."""
    import torch

    class Bert(torch.nn.Module):
        def __init__(self):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu",
                                                     batch_first=True)
            self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = torch.nn.Linear(d, 2)

        def forward(self, x):
            return self.head(self.enc(x)[:, 0])

    return Bert(), (1, seq, d)


# name -> (constructor keyword arguments, input shape); the constructors are torchvision's.
VISION = {
    "resnet18": {}, "resnet50": {}, "resnext50_32x4d": {}, "wide_resnet50_2": {},
    "vgg11": {}, "alexnet": {}, "squeezenet1_0": {}, "densenet121": {},
    "googlenet": {"aux_logits": False, "init_weights": True}, "mobilenet_v2": {},
    "mobilenet_v3_small": {}, "efficientnet_b0": {}, "regnet_x_400mf": {},
    "shufflenet_v2_x1_0": {}, "mnasnet0_5": {}, "convnext_tiny": {}, "vit_b_16": {},
    "swin_t": {},
}
MODELS = list(VISION) + ["bert_encoder"]


def make(name):
    import torch
    import torchvision
    if name == "bert_encoder":
        return encoder()
    return getattr(torchvision.models, name)(**VISION[name]), (1, 3, 224, 224)


def export(name, path, seed=0):
    """Writes NAME.onnx, its input and PyTorch's output; returns (input, output) file names."""
    import torch
    torch.manual_seed(seed)
    model, shape = make(name)
    if name == "vit_b_16":  # torchvision zero-initializes ViT's head: the output would be all 0
        torch.nn.init.normal_(model.heads.head.weight, std=0.02)
    model.eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        y = model(x)
    # Outside no_grad: TransformerEncoderLayer's inference fast path is one fused operator
    # that has no ONNX export.
    torch.onnx.export(model, x, path, opset_version=13 if name != "bert_encoder" else 17,
                      input_names=["input"], output_names=["output"])
    base = path[:-len(".onnx")]
    np.save(base + ".input.npy", x.numpy())
    np.save(base + ".torch.npy", y.numpy())
    return base + ".input.npy", base + ".torch.npy"


def run_weft(weft, model, inp, out_dir, args):
    """Runs `weft run` and returns (report dict or None, error line or None, wall seconds)."""
    t0 = time.time()
    p = subprocess.run([weft, "run", model, "--input", inp, "--save", out_dir] + args,
                       capture_output=True, text=True)
    wall = time.time() - t0
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        return None, (lines[-1] if lines else f"exit {p.returncode}"), wall
    with open(os.path.join(out_dir, "report.json")) as f:
        return json.load(f), None, wall


def compare(ref, got):
    ref, got = ref.reshape(-1).astype(np.float64), got.reshape(-1).astype(np.float64)
    rel = float(np.max(np.abs(ref - got)) / max(np.max(np.abs(ref)), 1e-30))
    cos = float(ref @ got / max(np.linalg.norm(ref) * np.linalg.norm(got), 1e-30))
    return rel, cos


def row(name, weft, out, config):
    path = os.path.join(out, name + ".onnx")
    if not os.path.exists(path):
        print(f"[{name}] exporting", file=sys.stderr, flush=True)
        export(name, path)
    inp, ref_file = path[:-5] + ".input.npy", path[:-5] + ".torch.npy"
    ref = np.load(ref_file)
    r = {"model": name, "onnx_mb": round(os.path.getsize(path) / 1e6, 1)}
    print(f"[{name}] llvm", file=sys.stderr, flush=True)
    rep, err, wall = run_weft(weft, path, inp, os.path.join(out, name + ".llvm"), ["--target", "llvm"])
    if err:
        r["llvm_error"] = err
    else:
        r["llvm_rel_err"], _ = compare(ref, np.load(os.path.join(out, name + ".llvm", "output.npy")))
        r["llvm_wall_s"] = round(wall, 2)
    print(f"[{name}] accel ({config})", file=sys.stderr, flush=True)
    rep, err, wall = run_weft(weft, path, inp, os.path.join(out, name + ".accel"),
                              ["--target", "accel", "--config", config])
    if err:
        r["accel_error"] = err
    else:
        _, r["accel_cosine"] = compare(ref, np.load(os.path.join(out, name + ".accel", "output.npy")))
        g = rep["report"]
        r.update({"accel_mac_fraction": g["accel_mac_fraction"], "cycles": g["accel_cycles"],
                  "utilization": g["utilization"], "compile_s": round(rep["compile_seconds"], 2),
                  "run_wall_s": round(g["wall_seconds"], 3), "accel_wall_s": round(wall, 2)})
    return r


def table(rows, config):
    head = (f"| model | ONNX MB | LLVM fp32 max err / max | int8 cosine ({config}) | MACs on accel | "
            "cycles | GEMM util | compile s | cycle run s |")
    lines = [head, "|" + "---|" * 9]
    for r in rows:
        llvm = f"{r['llvm_rel_err']:.1e}" if "llvm_rel_err" in r else "refused: " + r.get("llvm_error", "")
        if "accel_cosine" in r:
            lines.append(f"| {r['model']} | {r['onnx_mb']} | {llvm} | {r['accel_cosine']:.4f} | "
                         f"{100 * r['accel_mac_fraction']:.1f}% | {r['cycles']:,} | "
                         f"{100 * r['utilization']:.1f}% | {r['compile_s']} | {r['run_wall_s']} |")
        else:
            lines.append(f"| {r['model']} | {r['onnx_mb']} | {llvm} | refused: "
                         f"{r.get('accel_error', '')} | | | | | |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weft", default="build/runtime/weft")
    ap.add_argument("--out", default="build-networks")
    ap.add_argument("--config", default="vta")
    ap.add_argument("--only", nargs="+", choices=MODELS)
    ap.add_argument("--json")
    a = ap.parse_args()
    if not os.access(a.weft, os.X_OK):
        sys.exit(f"torchvision_table.py: {a.weft} is not an executable weft (build it, or --weft)")
    try:
        import torchvision  # noqa: F401
    except ImportError:
        sys.exit("torchvision_table.py: needs python3-torchvision "
                 "(apt-get install --no-install-recommends python3-torchvision)")
    os.makedirs(a.out, exist_ok=True)
    if a.json:
        open(a.json, "a").close()
    rows = []
    for name in a.only or MODELS:
        rows.append(row(name, a.weft, a.out, a.config))
        print(table(rows[-1:], a.config).splitlines()[-1], file=sys.stderr, flush=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"CPU: {cpu}; weft: {a.weft}; config: {a.config}\n")
    print(table(rows, a.config))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpu": cpu, "config": a.config, "models": rows}, f, indent=1)
    return 0 if all("accel_cosine" in r and "llvm_rel_err" in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
