#!/usr/bin/python3
"""Depthwise convolutions of MobileNet V2 on the accelerator's cycle model: for each layer
(a 3x3 depthwise conv + ReLU6, 'same' padding, batch 1) writes a one-layer ONNX model, runs it
with `weft run --config CONFIG --engine cycle` (calibrated on its own input, checked against
the fp32 network on the LLVM path) and prints one Markdown row: the layer's useful MACs, its
own MAC bound (useful MACs / MACs per cycle), the cycles of its accelerator slices
(split_groups), utilization against that bound and against the block-diagonal limit
(1/BLOCK_IN of each GEMM is useful), and the cosine. Needs python3-onnx and NumPy.

  depthwise_layers.py [BUILD_DIR] [CONFIG]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# (channels, input size, stride): MobileNet V2's depthwise layers at 224x224.
LAYERS = [(32, 112, 1), (96, 112, 2), (144, 56, 1), (144, 56, 2), (192, 28, 1), (384, 14, 1),
          (576, 14, 1), (960, 7, 1)]


def layer_model(c, hw, stride, path):
    rng = np.random.default_rng(c * 1000 + hw)
    w = (rng.standard_normal((c, 1, 3, 3)) * np.sqrt(2.0 / 9)).astype(np.float32)
    b = (rng.standard_normal(c) * 0.1).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="dw", group=c,
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride]),
             helper.make_node("Clip", ["y", "lo", "hi"], ["z"], name="relu6")]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
             numpy_helper.from_array(np.float32(0), "lo"), numpy_helper.from_array(np.float32(6), "hi")]
    g = helper.make_graph(nodes, "dw%d_%d_s%d" % (c, hw, stride),
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT,
                                                         [1, c, hw // stride, hw // stride])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    np.save(path + ".npy", rng.uniform(0, 2, (1, c, hw, hw)).astype(np.float32))


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = argv[1] if len(argv) > 1 else os.path.join(root, "build")
    config = argv[2] if len(argv) > 2 else "vta"
    weft = os.path.join(build, "runtime", "weft")
    print("| layer (C, HxW in, stride) | useful MACs | MAC bound (cycles) | accel cycles | "
          "utilization | of the 1/16 limit | slices on accel | cosine |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for c, hw, s in LAYERS:
            path = os.path.join(d, "dw.onnx")
            layer_model(c, hw, s, path)
            out = subprocess.run([weft, "run", path, "--input", path + ".npy", "--config", config,
                                  "--engine", "cycle", "--calibrate", path + ".npy", "--check"],
                                 capture_output=True, text=True, check=True).stdout
            r = json.loads(out[out.index("{"):])
            rep = r["report"]
            slices = [n for n in rep["nodes"] if n["op"] == "weft.AccelConv"]
            on_accel = sum(n["engine"] == "accel" for n in slices)
            useful = sum(n["macs"] for n in slices)
            cycles = sum(n.get("cycles", 0) for n in slices)
            per_cycle = useful / max(1, rep["gemm_bound_cycles"])  # MACs per cycle of the GEMM
            bound = useful / per_cycle
            util = bound / max(1, cycles)
            block = 16 if config == "vta" else 8
            print("| %d, %dx%d, s%d | %s | %s | %s | %.2f%% | %.0f%% | %d of %d | %.4f |" % (
                c, hw, hw, s, f"{useful:,}", f"{bound:,.0f}", f"{cycles:,}", 100 * util,
                100 * util * block, on_accel, len(slices), r["fp32_check"]["cosine_similarity"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
