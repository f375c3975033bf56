#!/usr/bin/python3
"""Exports the small PyTorch models committed in tests/onnx/torch/, so that the CI tests see
torch.onnx.export's own patterns without installing PyTorch: narrow versions of torchvision's
MobileNet V2 (depthwise convolutions, ReLU6, inverted residuals) and ResNeXt (grouped
convolutions), and a BERT-style torch.nn.TransformerEncoder (torch's fused QKV projection cut
by Slice, batched attention MatMuls, Softmax, LayerNormalization, erf GELU, `x[:, 0]`).
Each NAME.onnx comes with NAME.input.npy and NAME.torch.npy (PyTorch's own output).
Random weights from fixed seeds; the three files of all models stay well under 2 MB.

Needs Debian's python3-torchvision (optional; not in quickstart or CI):
  export_torch_fixtures.py [OUT_DIR]        default tests/onnx/torch
"""
import os
import sys

import numpy as np


def encoder():
    import torch

    class Encoder(torch.nn.Module):
        def __init__(self, d=32, heads=2, ff=64, layers=2, classes=4):
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu",
                                                     batch_first=True)
            self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.head = torch.nn.Linear(d, classes)

        def forward(self, x):
            return self.head(self.enc(x)[:, 0])

    return Encoder(), (1, 16, 32), 17


def mobilenet_v2():
    import torchvision
    return torchvision.models.mobilenet_v2(width_mult=0.25, num_classes=10), (1, 3, 64, 64), 13


def resnext():
    import torch
    from torchvision.models.resnet import Bottleneck
    # A stem and two of torchvision's ResNeXt bottlenecks (4 groups of 8 channels), narrow.
    down = torch.nn.Sequential(torch.nn.Conv2d(32, 64, 1, 2, bias=False), torch.nn.BatchNorm2d(64))
    m = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, 2, 1, bias=False), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
        Bottleneck(32, 16, stride=2, downsample=down, groups=4, base_width=32),
        Bottleneck(64, 16, groups=4, base_width=32),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10))
    return m, (1, 3, 64, 64), 13


MODELS = {"torch_encoder": encoder, "torch_mobilenet_v2": mobilenet_v2, "torch_resnext": resnext}


def main(argv):
    import torch
    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "../../tests/onnx/torch")
    os.makedirs(out, exist_ok=True)
    for name, make in MODELS.items():
        torch.manual_seed(7)
        model, shape, opset = make()
        model.eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            y = model(x)
        # Outside no_grad: TransformerEncoderLayer's inference fast path is one fused operator
        # without an ONNX export.
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"],
                          output_names=["output"])
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        np.save(os.path.join(out, name + ".torch.npy"), y.numpy())
        print(f"{path}: {os.path.getsize(path) / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
