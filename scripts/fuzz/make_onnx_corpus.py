#!/usr/bin/python3
"""Writes the seed corpus of fuzz_onnx (fuzz/corpus/fuzz_onnx/): the models Weft's own tests
use (scripts/onnx/make_models.py) but the full-size ResNet-18 (45 MB of weights: too big to
commit and to mutate quickly) and tiny_resnet (450 KB), and ResNet-18's topology at 1/32 of its
width on a 32x32 image (every node kind and attribute of the real network, 55 KB).
Deterministic (fixed seeds).

  make_onnx_corpus.py [OUT_DIR]      default: fuzz/corpus/fuzz_onnx
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "onnx"))
import make_models  # noqa: E402  (exits 77 without python3-onnx)
import onnx  # noqa: E402


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(here, "..", "..", "fuzz", "corpus", "fuzz_onnx")
    os.makedirs(out, exist_ok=True)
    # The full ResNet-18 and tiny_resnet (64 channels, 450 KB) are left out: every mutation
    # parses and writes the whole file, and big seeds make every input slow.
    models = {name: f for name, f in make_models.MODELS.items()
              if name not in ("resnet18", "tiny_resnet")}
    models["resnet18_narrow"] = lambda: make_models.resnet18(classes=10, widths=(2, 4, 8, 16),
                                                             image=32)
    for name, make in sorted(models.items()):
        path = os.path.join(out, name + ".onnx")
        onnx.save(make(), path)
        print("%s: %d bytes" % (path, os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
