#!/usr/bin/python3
"""Writes the ONNX models Weft's import tests and examples use, with Debian's python3-onnx
(onnx.helper) and NumPy; weights are deterministic (fixed seeds), so nothing is downloaded.

  make_models.py OUT_DIR [--only NAME ...]

Models (OUT_DIR/NAME.onnx):
  resnet18      ResNet-18 (torchvision's architecture: conv1 7x7/2, max pool, four stages of two
                basic blocks, global average pool, 1000-way Gemm), batch 1, 3x224x224 input,
                batch norm kept as BatchNormalization nodes, opset 13.
  tiny_resnet   a small ResNet (conv, batch norm, ReLU, max pool, one basic block, a strided
                conv, global average pool, Gemm) that the int8 quantizer takes whole, 1x3x16x16.
  small_cnn     a small network that uses every float operator Weft imports (Conv,
                BatchNormalization, Relu, Clip, MaxPool, AveragePool, GlobalAveragePool, Add,
                Concat, Flatten, Reshape, Gemm, MatMul), 1x3x16x16 input.
  qdq_cnn       small_cnn's first layers in QDQ form (QuantizeLinear/DequantizeLinear around
                activations and weights, int8, power-of-two scales) plus a QLinearConv.
  qdq_zero_point  a QuantizeLinear/DequantizeLinear pair with zero point 3 (asymmetric int8).
  unsupported   a Conv followed by Softmax (an operator Weft does not import).
  bad_attr      a Conv with dilations=2 (an attribute value Weft does not import).
  conv_weight_rank  a Conv without kernel_shape whose weight has more dimensions (6) than its
                input (4): the libonnx 1.12 shape inference reads past the input's shape.
  short_raw_data  a Reshape whose shape initializer (int64, [2]) holds 11 bytes instead of 16:
                libonnx 1.12's shape inference copies them into a buffer sized from the shape.
  zero_stride   a MaxPool with strides [0, 1]: libonnx 1.12's shape inference divides by it.
  no_outputs    a Relu whose graph declares no outputs.
  float_shape   a ConstantOfShape whose shape is the float image input: libonnx 1.12's shape
                inference built shapes of millions of dimensions until memory ran out.
  shape_of_failed  a Shape of an Add whose inputs do not broadcast: libonnx 1.12's data
                propagation reads the type the failed Add never got (a null pointer).
  shape_of_late_failure  the same, but the Add fails only once data propagation has given its
                first input a shape (a Reshape to the Shape of a [3, 5] constant).
  shape_of_untyped  a Shape of a com.microsoft FastGelu, an operator libonnx has no schema for,
                so its output has no type either; the Shape's value feeds a Reshape.
  computed_weight  a Conv without kernel_shape whose weight is computed (Relu of a constant).
  opset18_net   a Pad, a Conv, a Split by num_outputs, a Resize with opset 18's antialias and
                keep_aspect_ratio_policy at their defaults, a ReduceMean with an axes input and
                one with noop_with_empty_axes, at opset 18, 1x4x6x6.
  opset18_mish  a Mish, an operator new in opset 18.
  cycle         two Relu nodes that read each other's output (a graph with a cycle).
  old_opset     a Relu at opset 9 (below the supported 11 to 18).
  vgg_dropout   a small VGG-style classifier (conv, ReLU, max pool, Gemm) with an Identity and a
                Dropout at inference, as torch.onnx.export writes them, 1x3x16x16.
  dropout_training  a Dropout whose training_mode is a constant true.
  tiny_encoder  one BERT/ViT encoder layer (self-attention, LayerNormalization, an MLP with
                the erf GELU) as torch.onnx.export writes it at opset 17, 1x32x128.
  torch_flatten  a small CNN whose flatten is torch.onnx.export's x.view(x.size(0), -1)
                (Shape, Gather, Unsqueeze, Concat, Reshape, with Constant nodes) plus a shape
                and a mask computed from constants (Slice, Squeeze, Mul, Div, Sub, Range, Cast,
                Equal, Where, ConstantOfShape, Expand), all folded at import, 1x3x8x8, opset 13.
  fold_div_zero  torch_flatten with an integer division by zero in its shape sub-graph.
  pad_conv      explicit Pad nodes (zeros on H and W, asymmetric; one a Constant-node pads
                tensor) before Convs, as exporters write padding, and a Pad of all zeros before
                the pooling (torch writes one before DenseNet's AveragePool), 1x3x8x8, opset 13.
  pad_reflect, pad_relu, pad_value  a Pad in reflect mode; a zero Pad read by a Relu (not a
                Conv); a Pad with constant value 1.
  split_net     Split with sizes (a constant input) and equal Split (no sizes) of activations,
                with more than one output used, as ShuffleNet and GLU-style heads write them,
                1x3x8x8, opset 13.
  bad_split     a Split whose sizes do not add up to the axis.
  depthwise_block  MobileNet V2's inverted residual: pointwise 1x1 expansion, depthwise 3x3
                (group = channels, stride 1 and 2), ReLU6 (Clip), pointwise projection, a
                residual Add, 1x16x16x16, opset 13.
  grouped_net   ResNeXt-style grouped 3x3 convolutions (group=4 with 16 channels per group,
                group=8 with 4) between 1x1 convs, 1x16x12x12, opset 13.
  qlinear_grouped  a depthwise QLinearConv (16 channels, int8, power-of-two scales) between
                QuantizeLinear and DequantizeLinear, 1x16x8x8, opset 13.
  bad_group, bad_group_weight  a Conv whose group (3) does not divide its 4 input channels; a
                grouped Conv (group 2) whose weight has 4 input channels instead of 2.
  attention_heads  self-attention's two products of activations (Q.K^T and P.V) batched over
                2 images x 3 heads, with Softmax between, 2x16x48, opset 17.
  gelu_net      com.microsoft Gelu and FastGelu (with and without a bias) around linear layers,
                1x8x32, opset 17 plus com.microsoft 1.
  resize_net    convs with Resize between them: nearest by scales (asymmetric, floor), linear
                to sizes (pytorch_half_pixel), linear by scales (align_corners), nearest to
                sizes (half_pixel, round_prefer_ceil), 1x3x8x8, opset 13.
  bad_resize    a Resize in cubic mode.
  resize_long_axis, resize_too_many  a Resize by scales [1, 1, 1e12, 1] (an axis longer than
                2^40) and [1, 1, 1e6, 1e6] (more than 2^40 elements).
  bad_gelu_input  gelu_net plus a FastGelu whose input is omitted (an empty name) before its bias.
  dynamic_batch  a small CNN whose batch dimension is symbolic (run with --batch N), ?x3x8x8.
  bad_perm, bad_axis, bad_matmul  a Transpose whose perm repeats an axis, a Softmax on axis
                3 of a rank-3 input, a MatMul whose batch dimensions do not broadcast.
  residual_stream  ViT's pre-norm residual stream with a class token of small values, 1x3x32x32.
  outlier_weight  a linear layer whose weights hold one outlier (2.0 among 0.02), 1x64x256.
and OUT_DIR/NAME_input.npy, a float32 input for each runnable model (seed 7).
"""
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # tests that need the models skip themselves
    print("make_models.py: %s (install python3-onnx and python3-numpy)" % e, file=sys.stderr)
    sys.exit(77)


def conv_w(rng, o, c, k):
    # He initialisation, so activations keep their scale through the network.
    return (rng.standard_normal((o, c, k, k)) * np.sqrt(2.0 / (c * k * k))).astype(np.float32)


class Builder:
    """Collects nodes and initializers; each helper returns its output's name."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def const(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def node(self, op, inputs, base=None, **attrs):
        out = self.name(base or op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, c, o, k, stride=1, pad=0, bias=False):
        ins = [x, self.const("w", conv_w(self.rng, o, c, k))]
        if bias:
            ins.append(self.const("b", (self.rng.standard_normal(o) * 0.1).astype(np.float32)))
        return self.node("Conv", ins, "conv", kernel_shape=[k, k], strides=[stride, stride],
                         pads=[pad] * 4)

    def bn(self, x, c):
        r = self.rng
        scale = (1.0 + 0.1 * r.standard_normal(c)).astype(np.float32)
        shift = (0.1 * r.standard_normal(c)).astype(np.float32)
        mean = (0.1 * r.standard_normal(c)).astype(np.float32)
        var = (1.0 + 0.1 * np.abs(r.standard_normal(c))).astype(np.float32)
        return self.node("BatchNormalization",
                         [x, self.const("gamma", scale), self.const("beta", shift),
                          self.const("mean", mean), self.const("var", var)], "bn", epsilon=1e-5)

    def model(self, inp, in_shape, out, opset, name):
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(inp, TensorProto.FLOAT, in_shape)],
            [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="weft scripts/onnx/make_models.py")
        m.ir_version = 8
        # The output's shape from ONNX's own shape inference (the checker wants one).
        inferred = onnx.shape_inference.infer_shapes(m)
        m.graph.output[0].CopyFrom(inferred.graph.output[0])
        return m


def resnet18(seed=18, classes=1000, widths=(64, 128, 256, 512), image=224):
    # widths/image other than the defaults: the same topology, narrower (the fuzz corpus).
    b = Builder(seed)
    x = "input"
    y = b.node("Relu", [b.bn(b.conv(x, 3, widths[0], 7, 2, 3), widths[0])])
    y = b.node("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = widths[0]
    for stage, o in enumerate(widths):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            t = b.node("Relu", [b.bn(b.conv(y, c, o, 3, stride, 1), o)])
            t = b.bn(b.conv(t, o, o, 3, 1, 1), o)
            short = y if stride == 1 and c == o else b.bn(b.conv(y, c, o, 1, stride, 0), o)
            y = b.node("Relu", [b.node("Add", [t, short])])
            c = o
    y = b.node("GlobalAveragePool", [y])
    y = b.node("Flatten", [y], axis=1)
    w = (b.rng.standard_normal((classes, c)) * np.sqrt(1.0 / c)).astype(np.float32)
    bias = (0.01 * b.rng.standard_normal(classes)).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", bias)], "fc", transB=1)
    return b.model(x, [1, 3, image, image], y, 13, "resnet18")


def small_cnn(seed=3):
    b = Builder(seed)
    x = "input"
    y = b.node("Relu", [b.bn(b.conv(x, 3, 8, 3, 1, 1), 8)])                     # 8x16x16
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])              # 8x8x8
    t = b.bn(b.conv(y, 8, 8, 3, 1, 1, bias=True), 8)
    y = b.node("Relu", [b.node("Add", [t, y])])                                  # residual
    a = b.node("AveragePool", [y], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
               count_include_pad=0)
    c6 = b.node("Clip", [b.conv(y, 8, 8, 1), b.const("lo", np.float32(0)),
                         b.const("hi", np.float32(6))])
    y = b.node("Concat", [a, c6], axis=1)                                        # 16x8x8
    y = b.conv(y, 16, 16, 3, 2, 1)                                               # 16x4x4
    g = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)            # 1x16
    r = b.node("Reshape", [y, b.const("shape", np.array([1, -1], np.int64))])    # 1x256
    m = b.node("MatMul", [r, b.const("mm_w", (b.rng.standard_normal((256, 16)) * 0.06)
                                       .astype(np.float32))])                   # 1x16
    y = b.node("Add", [g, m])
    w = (b.rng.standard_normal((10, 16)) * 0.25).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))],
               transB=1, alpha=1.0, beta=1.0)
    return b.model(x, [1, 3, 16, 16], y, 13, "small_cnn")


def qdq_cnn(seed=5):
    b = Builder(seed)
    x = "input"
    s_act, s_w = np.float32(1.0 / 32), np.float32(1.0 / 128)

    def q(v, s):
        return b.node("QuantizeLinear", [v, b.const("s", s), b.const("z", np.int8(0))])

    def dq(v, s):
        return b.node("DequantizeLinear", [v, b.const("s", s), b.const("z", np.int8(0))])

    def qconst_w(o, c, k):
        w = np.clip(np.round(conv_w(b.rng, o, c, k) / s_w), -127, 127).astype(np.int8)
        return dq(b.const("wq", w), s_w)

    y = dq(q(x, s_act), s_act)
    y = b.node("Conv", [y, qconst_w(8, 3, 3)], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = b.node("Relu", [y])
    yq = q(y, s_act)
    # QLinearConv on the int8 activation: int8 weights, per-tensor scales.
    wq = np.clip(np.round(conv_w(b.rng, 8, 8, 3) / s_w), -127, 127).astype(np.int8)
    y = b.node("QLinearConv", [yq, b.const("xs", s_act), b.const("xz", np.int8(0)),
                               b.const("wq", wq), b.const("ws", s_w), b.const("wz", np.int8(0)),
                               b.const("ys", s_act), b.const("yz", np.int8(0))],
               kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = dq(y, s_act)
    y = b.node("GlobalAveragePool", [y])
    return b.model(x, [1, 3, 8, 8], y, 13, "qdq_cnn")


def qdq_per_channel(seed=6):
    """A QDQ conv whose weights have per-output-channel (axis 0) power-of-two scales."""
    b = Builder(seed)
    x = "input"
    s_act = np.float32(1.0 / 32)
    s_w = np.array([2.0 ** -(6 + c % 4) for c in range(16)], np.float32)  # 2^-6 .. 2^-9

    def q(v, s):
        return b.node("QuantizeLinear", [v, b.const("s", s), b.const("z", np.int8(0))])

    def dq(v, s):
        return b.node("DequantizeLinear", [v, b.const("s", s), b.const("z", np.int8(0))])

    # Every row uses its int8 range, so the rows' real ranges differ by up to 8x: one per-tensor
    # grid (the coarsest row's) would drop up to 3 bits of the finer rows.
    w = conv_w(b.rng, 16, 16, 3)
    wq = np.round(w / np.abs(w).reshape(16, -1).max(axis=1)[:, None, None, None] * 100).astype(np.int8)
    wd = b.node("DequantizeLinear", [b.const("wq", wq), b.const("ws", s_w),
                                     b.const("wz", np.zeros(16, np.int8))], axis=0)
    y = b.node("Conv", [dq(q(x, s_act), s_act), wd], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = dq(q(b.node("Relu", [y]), s_act), s_act)
    return b.model(x, [1, 16, 16, 16], y, 13, "qdq_per_channel")


def tiny_resnet(seed=9):
    b = Builder(seed)
    y = b.node("Relu", [b.bn(b.conv("input", 3, 64, 3, 1, 1), 64)])              # 64x16x16
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])              # 64x8x8
    t = b.node("Relu", [b.bn(b.conv(y, 64, 64, 3, 1, 1), 64)])
    t = b.bn(b.conv(t, 64, 64, 3, 1, 1), 64)
    y = b.node("Relu", [b.node("Add", [t, y])])
    y = b.node("Relu", [b.bn(b.conv(y, 64, 64, 3, 2, 1), 64)])                  # 64x4x4
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)
    w = (b.rng.standard_normal((10, 64)) * 0.15).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))],
               transB=1)
    return b.model("input", [1, 3, 16, 16], y, 13, "tiny_resnet")


def qdq_zero_point(seed=1):
    b = Builder(seed)
    s, z = b.const("s", np.float32(1.0 / 32)), b.const("z", np.int8(3))
    y = b.node("DequantizeLinear", [b.node("QuantizeLinear", ["input", s, z]), s, z])
    return b.model("input", [1, 4], b.node("Relu", [y]), 13, "qdq_zero_point")


def uint8_input():
    """A model whose input is uint8 (an image's pixels): DequantizeLinear(x, 1/2, 0) -> Relu."""
    nodes = [helper.make_node("DequantizeLinear", ["input", "s", "z"], ["dq"], name="dq"),
             helper.make_node("Relu", ["dq"], ["out"], name="relu")]
    inits = [numpy_helper.from_array(np.float32(0.5), "s"),
             numpy_helper.from_array(np.uint8(0), "z")]
    graph = helper.make_graph(nodes, "uint8_input",
                              [helper.make_tensor_value_info("input", TensorProto.UINT8, [1, 4])],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 4])],
                              inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def unsupported(seed=1):
    b = Builder(seed)
    y = b.node("LRN", [b.conv("input", 3, 4, 1)], "lrn", size=3)
    return b.model("input", [1, 3, 4, 4], y, 13, "unsupported")


def bad_attr(seed=1):
    b = Builder(seed)
    w = b.const("w", conv_w(b.rng, 4, 4, 3))
    y = b.node("Conv", ["input", w], "dilated_conv", kernel_shape=[3, 3], dilations=[2, 2])
    return b.model("input", [1, 4, 6, 6], y, 13, "bad_attr")


def grouped_conv(b, x, c, o, k, group, stride=1):
    """A grouped Conv (weight [o, c/group, k, k]) with a bias, 'same' padding."""
    w = b.const("w", conv_w(b.rng, o, c // group, k))
    bias = b.const("b", (b.rng.standard_normal(o) * 0.1).astype(np.float32))
    return b.node("Conv", [x, w, bias], "conv", kernel_shape=[k, k], pads=[k // 2] * 4,
                  strides=[stride, stride], group=group)


def depthwise_block(seed=31):
    """MobileNet V2 inverted residuals (expand 1x1, depthwise 3x3, ReLU6, project 1x1)."""
    b = Builder(seed)
    relu6 = lambda v: b.node("Clip", [v, b.const("lo", np.float32(0)), b.const("hi", np.float32(6))])
    y = relu6(b.conv("input", 16, 32, 1, bias=True))                             # 32x16x16
    y = relu6(grouped_conv(b, y, 32, 32, 3, 32))                                 # depthwise
    y = b.conv(y, 32, 16, 1, bias=True)
    y = b.node("Add", [y, "input"])                                              # residual
    y = relu6(b.conv(y, 16, 48, 1, bias=True))
    y = relu6(grouped_conv(b, y, 48, 48, 3, 48, stride=2))                       # 48x8x8
    y = b.conv(y, 48, 24, 1, bias=True)
    return b.model("input", [1, 16, 16, 16], y, 13, "depthwise_block")


def grouped_net(seed=37):
    """ResNeXt-style grouped 3x3 convs between 1x1 convs."""
    b = Builder(seed)
    y = b.node("Relu", [b.conv("input", 16, 64, 1, bias=True)])
    y = b.node("Relu", [grouped_conv(b, y, 64, 64, 3, 4)])                       # 16 per group
    y = b.node("Relu", [grouped_conv(b, y, 64, 32, 3, 8, stride=2)])             # 8 -> 4
    y = b.conv(y, 32, 32, 1, bias=True)
    return b.model("input", [1, 16, 12, 12], y, 13, "grouped_net")


def qlinear_grouped(seed=41):
    b = Builder(seed)
    c = 16
    s = lambda e: b.const("s", np.float32(2.0 ** e))
    z = lambda: b.const("z", np.int8(0))
    xs, xz, ys, yz = s(-5), z(), s(-4), z()
    w = b.const("w", b.rng.integers(-60, 60, (c, 1, 3, 3)).astype(np.int8))
    xq = b.node("QuantizeLinear", ["input", xs, xz])
    yq = b.node("QLinearConv", [xq, xs, xz, w, s(-6), z(), ys, yz], "qconv", group=c,
                kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    y = b.node("DequantizeLinear", [yq, ys, yz])
    return b.model("input", [1, c, 8, 8], y, 13, "qlinear_grouped")


def bad_group(name, group, wc):
    b = Builder(1)
    y = b.node("Conv", ["input", b.const("w", conv_w(b.rng, 4, wc, 3))], "grouped_conv",
               kernel_shape=[3, 3], group=group)
    return b.model("input", [1, 4, 6, 6], y, 13, name)


def conv_weight_rank():
    nodes = [helper.make_node("Conv", ["input", "w"], ["y"], name="deep_weight_conv")]
    w = numpy_helper.from_array(np.zeros([4, 3, 1, 1, 1, 1], np.float32), "w")
    graph = helper.make_graph(nodes, "conv_weight_rank",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                             [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])], [w])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def short_raw_data():
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [2, 2])
    del shape.int64_data[:]  # make_tensor checks the size: cut the raw bytes after it
    shape.raw_data = np.array([2, 2], np.int64).tobytes()[:11]
    nodes = [helper.make_node("Reshape", ["input", "shape"], ["y"], name="reshape")]
    graph = helper.make_graph(nodes, "short_raw_data",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
                              [shape])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def zero_stride():
    b = Builder(1)
    y = b.node("MaxPool", ["input"], "pool", kernel_shape=[2, 2], strides=[0, 1])
    graph = helper.make_graph(b.nodes, "zero_stride",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                             [1, 2, 4, 4])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def float_shape():
    nodes = [helper.make_node("ConstantOfShape", ["input"], ["y"], name="fill")]
    graph = helper.make_graph(nodes, "float_shape",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                             [16, 3, 8, 7])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def no_outputs():
    nodes = [helper.make_node("Relu", ["input"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "no_outputs",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])],
                              [])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def shape_of(name):
    """Shape of a value whose type ONNX's shape inference cannot know (found by fuzz_onnx)."""
    b = Builder(1)
    if name == "shape_of_failed":
        x = b.node("Add", ["input", b.const("other", np.ones((3, 5), np.float32))], "add")
        opsets = [helper.make_opsetid("", 15)]
    elif name == "shape_of_late_failure":
        # Only data propagation gives the Reshape its shape [3, 5], so only then does the Add fail.
        r = b.node("Reshape", ["input", b.node("Shape", [b.const("other", np.ones((3, 5), np.float32))])])
        x = b.node("Add", [r, "input"], "add")
        opsets = [helper.make_opsetid("", 15)]
    else:
        x = b.node("FastGelu", ["input"], "gelu", domain="com.microsoft")
        opsets = [helper.make_opsetid("", 15), helper.make_opsetid("com.microsoft", 1)]
    s = b.node("Shape", [x], "shape")
    y = b.node("Reshape", ["input", s], "reshape")
    graph = helper.make_graph(b.nodes, name,
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 4])],
                              b.inits)
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


def opset18(name, seed=43):
    """Opset 18's forms of the operators it changed (axes as an input, num_outputs, Resize's
    new attributes); written with explicit shapes, as ONNX 1.12 cannot infer opset 18."""
    b = Builder(seed)
    i64 = np.int64
    if name == "opset18_mish":
        y, shape = b.node("Mish", ["input"]), [1, 4, 6, 6]
    else:
        y = b.node("Pad", ["input", b.const("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], i64))])
        y = b.conv(y, 4, 8, 3, bias=True)                                            # 8x6x6
        first, second = b.name("half"), b.name("half")
        b.nodes.append(helper.make_node("Split", [y], [first, second], name=b.name("split"),
                                        axis=1, num_outputs=2))
        y = b.node("Add", [first, second])                                           # 4x6x6
        y = b.node("Resize", [y, "", b.const("scales", np.array([1, 1, 2, 2], np.float32))],
                   mode="nearest", antialias=0, keep_aspect_ratio_policy="stretch")  # 4x12x12
        m = b.node("ReduceMean", [y, b.const("axes", np.array([2, 3], i64))], keepdims=1)
        m = b.node("ReduceMean", [m], noop_with_empty_axes=1)                        # 4x1x1
        y, shape = b.node("Add", [y, m]), [1, 4, 12, 12]
    graph = helper.make_graph(b.nodes, name,
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                             [1, 4, 6, 6])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, shape)],
                              b.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                          producer_name="weft scripts/onnx/make_models.py")
    m.ir_version = 8
    return m


def computed_weight(seed=1):
    b = Builder(seed)
    w = b.node("Relu", [b.const("w", conv_w(b.rng, 4, 3, 3))])
    y = b.node("Conv", ["input", w], "conv")
    return b.model("input", [1, 3, 6, 6], y, 13, "computed_weight")


def cycle():
    nodes = [helper.make_node("Add", ["input", "b"], ["a"], name="add_a"),
             helper.make_node("Relu", ["a"], ["b"], name="relu_b")]
    graph = helper.make_graph(nodes, "cycle",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def vgg_dropout(seed=11):
    """A small VGG-style classifier with the pass-through nodes torch.onnx.export writes: an
    Identity, and Dropout at inference (opset 13: ratio and training_mode as constant inputs)."""
    b = Builder(seed)
    y = b.node("Relu", [b.conv("input", 3, 8, 3, 1, 1, bias=True)])             # 8x16x16
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])              # 8x8x8
    y = b.node("Relu", [b.conv(y, 8, 16, 3, 1, 1, bias=True)])
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])              # 16x4x4
    y = b.node("Flatten", [b.node("Identity", [y])], axis=1)                     # 1x256
    ratio, train = b.const("ratio", np.float32(0.5)), b.const("train", np.bool_(False))

    def fc(x, k, n):
        w = (b.rng.standard_normal((n, k)) * np.sqrt(2.0 / k)).astype(np.float32)
        return b.node("Gemm", [x, b.const("fc_w", w), b.const("fc_b", np.zeros(n, np.float32))],
                      transB=1)
    y = b.node("Dropout", [b.node("Relu", [fc(y, 256, 32)]), ratio, train])
    return b.model("input", [1, 3, 16, 16], fc(y, 32, 10), 13, "vgg_dropout")


def eltwise_cnn(seed=13):
    """The element-wise operators of EfficientNet, MobileNet V3 and BERT around small convs: an
    EfficientNet block (SiLU as Sigmoid and Mul, a squeeze-excite with GlobalAveragePool,
    Sigmoid and a broadcasting Mul), a MobileNet V3 squeeze-excite (HardSwish, HardSigmoid), and
    a classifier head with BERT's erf GELU (Div, Erf, Add, Mul), the tanh GELU (Pow, Tanh) and a
    root-mean-square normalisation (Sub, Sqrt, Div)."""
    b = Builder(seed)
    f32 = np.float32

    def silu(x):
        return b.node("Mul", [x, b.node("Sigmoid", [x])])

    y = silu(b.conv("input", 3, 16, 3, 1, 1, bias=True))                       # 16x16x16
    s = b.node("GlobalAveragePool", [y])                                         # 16x1x1
    s = silu(b.conv(s, 16, 4, 1, bias=True))
    s = b.node("Sigmoid", [b.conv(s, 4, 16, 1, bias=True)])
    y = b.node("Mul", [y, s])                                                    # excite
    y = b.node("HardSwish", [b.conv(y, 16, 16, 1, bias=True)])
    s = b.conv(b.node("GlobalAveragePool", [y]), 16, 16, 1, bias=True)
    y = b.node("Mul", [b.node("HardSigmoid", [s], alpha=1.0 / 6, beta=0.5), y])  # 16x16x16
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)            # 1x16
    w = (b.rng.standard_normal((32, 16)) * 0.5).astype(f32)
    y = b.node("Gemm", [y, b.const("fc1_w", w), b.const("fc1_b", np.zeros(32, f32))], transB=1)
    erf = b.node("Erf", [b.node("Div", [y, b.const("sqrt2", f32(np.sqrt(2.0)))])])
    y = b.node("Mul", [b.node("Mul", [y, b.const("half", f32(0.5))]),
                       b.node("Add", [erf, b.const("one", f32(1.0))])])          # GELU (erf)
    cube = b.node("Pow", [y, b.const("three", f32(3.0))])
    inner = b.node("Add", [y, b.node("Mul", [cube, b.const("k", f32(0.044715))])])
    t = b.node("Tanh", [b.node("Mul", [inner, b.const("c", f32(np.sqrt(2 / np.pi)))])])
    y = b.node("Mul", [b.node("Mul", [y, b.const("half2", f32(0.5))]),
                       b.node("Add", [t, b.const("one2", f32(1.0))])])           # GELU (tanh)
    d = b.node("Sub", [y, b.const("centre", (0.1 * b.rng.standard_normal(32)).astype(f32))])
    row = np.array([1, 1, 1, 32], np.int64)
    rms = b.node("Sqrt", [b.node("Add", [b.node("GlobalAveragePool", [
        b.node("Reshape", [b.node("Mul", [d, d]), b.const("s4", row)])]),
        b.const("eps", f32(1e-5))])])                                            # 1x1x1x1
    y = b.node("Div", [b.node("Reshape", [d, b.const("s4b", row)]), rms])
    y = b.node("Reshape", [y, b.const("s2", np.array([1, 32], np.int64))])
    w = (b.rng.standard_normal((10, 32)) * 0.25).astype(f32)
    y = b.node("Gemm", [y, b.const("fc2_w", w), b.const("fc2_b", np.zeros(10, f32))], transB=1)
    return b.model("input", [1, 3, 16, 16], y, 14, "eltwise_cnn")  # HardSwish-14


def tiny_encoder(seed=17, seq=32, d=128, heads=4, ff=256):
    """One BERT/ViT encoder layer as torch.onnx.export writes it at opset 17 (batch 1, `seq`
    tokens of width `d`): Q, K and V as MatMul by constant weights plus Add of the bias,
    Reshape and Transpose to `heads` heads, Q.K^T (a MatMul of two activations, K transposed
    with perm [0, 2, 3, 1]), Div by sqrt(d / heads), Softmax, the product with V, Transpose and
    Reshape back, the output projection, the residual Add and LayerNormalization; then the MLP
    with the erf GELU (Div, Erf, Add, Mul, Mul), its residual and a second LayerNormalization;
    last a mean over the tokens (ReduceMean) and Squeeze/Unsqueeze round trip to [1, d]. The
    widths are the smallest at which the partition's cost estimate puts the linear layers on
    vta's accelerator (a smaller layer is cheaper on the CPU than one launch)."""
    b = Builder(seed)
    f32 = np.float32
    hd = d // heads

    def linear(x, k, n, scale=1.0):
        w = (b.rng.standard_normal((k, n)) * scale / np.sqrt(k)).astype(f32)
        bias = (0.05 * b.rng.standard_normal(n)).astype(f32)
        return b.node("Add", [b.node("MatMul", [x, b.const("w", w)]), b.const("b", bias)])

    def heads_of(x, perm):
        shape = b.const("shape", np.array([1, seq, heads, hd], np.int64))
        return b.node("Transpose", [b.node("Reshape", [x, shape])], perm=perm)

    def layer_norm(x):
        g = (1.0 + 0.1 * b.rng.standard_normal(d)).astype(f32)
        beta = (0.1 * b.rng.standard_normal(d)).astype(f32)
        return b.node("LayerNormalization", [x, b.const("ln_g", g), b.const("ln_b", beta)],
                      "layernorm", axis=-1, epsilon=1e-5)

    x = "input"                                                                  # 1 x seq x d
    q = heads_of(linear(x, d, d), [0, 2, 1, 3])                                  # 1 x h x seq x hd
    k = heads_of(linear(x, d, d), [0, 2, 3, 1])                                  # 1 x h x hd x seq
    v = heads_of(linear(x, d, d), [0, 2, 1, 3])
    s = b.node("Div", [b.node("MatMul", [q, k]), b.const("sqrt_hd", f32(np.sqrt(hd)))])
    a = b.node("MatMul", [b.node("Softmax", [s], axis=-1), v])                   # 1 x h x seq x hd
    a = b.node("Reshape", [b.node("Transpose", [a], perm=[0, 2, 1, 3]),
                           b.const("shape", np.array([1, seq, d], np.int64))])
    y = layer_norm(b.node("Add", [x, linear(a, d, d)]))
    h = linear(y, d, ff)
    erf = b.node("Erf", [b.node("Div", [h, b.const("sqrt2", f32(np.sqrt(2.0)))])])
    h = b.node("Mul", [b.node("Mul", [h, b.node("Add", [erf, b.const("one", f32(1.0))])]),
                       b.const("half", f32(0.5))])                               # GELU (erf)
    y = layer_norm(b.node("Add", [y, linear(h, ff, d)]))
    pooled = b.node("ReduceMean", [y], axes=[1], keepdims=1)                     # 1 x 1 x d
    flat = b.node("Squeeze", [pooled, b.const("axes", np.array([1], np.int64))])  # 1 x d
    back = b.node("Unsqueeze", [flat, b.const("axes", np.array([-1], np.int64))])  # 1 x d x 1
    out = b.node("Squeeze", [back, b.const("axes", np.array([2], np.int64))])   # 1 x d
    return b.model("input", [1, seq, d], out, 17, "tiny_encoder")


def attention_heads(seed=31, batch=2, seq=16, d=48, heads=3):
    """Self-attention without the projections around it, batch 2, 3 heads of width 16: Q and K
    as MatMul by constant weights, Reshape and Transpose to heads (K with perm [0, 2, 3, 1]),
    Q.K^T, Softmax, the product with V (the input itself, to heads), back to [batch, seq, d].
    The two products of activations are batched over 6 (batch, head) slices."""
    b = Builder(seed)
    f32 = np.float32
    hd = d // heads

    def heads_of(x, perm):
        shape = b.const("shape", np.array([batch, seq, heads, hd], np.int64))
        return b.node("Transpose", [b.node("Reshape", [x, shape])], perm=perm)

    def proj(x):
        return b.node("MatMul", [x, b.const("w", (b.rng.standard_normal((d, d)) /
                                                   np.sqrt(d)).astype(f32))])

    q = heads_of(proj("input"), [0, 2, 1, 3])
    k = heads_of(proj("input"), [0, 2, 3, 1])
    v = heads_of("input", [0, 2, 1, 3])
    p = b.node("Softmax", [b.node("MatMul", [q, k])], axis=-1)
    a = b.node("Transpose", [b.node("MatMul", [p, v])], perm=[0, 2, 1, 3])
    y = b.node("Reshape", [a, b.const("shape", np.array([batch, seq, d], np.int64))])
    return b.model("input", [batch, seq, d], y, 17, "attention_heads")


def gelu_net(seed=37, empty_input=False):
    """GELU as a model carries it before ONNX's Gelu-20: ONNX Runtime's com.microsoft Gelu (the
    erf form) after a linear layer, FastGelu (the tanh form) with a bias input, and FastGelu
    without one, 1x8x32, opset 17 plus com.microsoft 1."""
    b = Builder(seed)
    f32 = np.float32
    h = b.node("MatMul", ["input", b.const("w", (b.rng.standard_normal((32, 48)) / 6).astype(f32))])
    h = b.node("Gelu", [h], domain="com.microsoft")
    h = b.node("MatMul", [h, b.const("w", (b.rng.standard_normal((48, 32)) / 7).astype(f32))])
    h = b.node("FastGelu", [h, b.const("bias", (0.1 * b.rng.standard_normal(32)).astype(f32))],
               domain="com.microsoft")
    y = b.node("FastGelu", [h], domain="com.microsoft")
    if empty_input:  # the input omitted (an empty name) before a given bias (found by fuzz_onnx)
        y = b.node("FastGelu", ["", b.const("bias", np.zeros(32, f32))], domain="com.microsoft")
    graph = helper.make_graph(
        b.nodes, "bad_gelu_input" if empty_input else "gelu_net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 8, 32])],
        [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 8, 32])], b.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("com.microsoft", 1)],
                          producer_name="weft scripts/onnx/make_models.py")
    m.ir_version = 8
    return m


def resize_net(seed=41):
    """A detection-style neck: a conv, a nearest 2x upsampling by scales as torch's
    F.interpolate(mode="nearest") exports it (asymmetric, floor), a conv, a linear resize to
    sizes with pytorch_half_pixel (bilinear, align_corners=False), a linear one with
    align_corners, and a nearest one with half_pixel and round_prefer_ceil, 1x3x8x8, opset 13."""
    b = Builder(seed)
    f32 = np.float32
    none = b.const("roi", np.zeros(0, f32))
    y = b.node("Relu", [b.conv("input", 3, 16, 3, pad=1, bias=True)])
    y = b.node("Resize", [y, none, b.const("scales", np.array([1, 1, 2, 2], f32))], mode="nearest",
               coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    y = b.node("Relu", [b.conv(y, 16, 16, 3, pad=1, bias=True)])                # 1x16x16x16
    y = b.node("Resize", [y, none, b.const("scales", np.zeros(0, f32)),
                          b.const("sizes", np.array([1, 16, 24, 20], np.int64))], mode="linear",
               coordinate_transformation_mode="pytorch_half_pixel")
    y = b.node("Resize", [y, none, b.const("scales", np.array([1, 1, 0.5, 0.6], f32))],
               mode="linear", coordinate_transformation_mode="align_corners")  # 1x16x12x12
    y = b.node("Resize", [y, none, b.const("scales", np.zeros(0, f32)),
                          b.const("sizes", np.array([1, 16, 18, 7], np.int64))], mode="nearest",
               coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_ceil")
    y = b.conv(y, 16, 8, 1, bias=True)
    return b.model("input", [1, 3, 8, 8], y, 13, "resize_net")


def bad_resize():
    """A Resize in cubic mode (outside nearest and linear)."""
    b = Builder(1)
    y = b.node("Resize", ["input", b.const("roi", np.zeros(0, np.float32)),
                          b.const("scales", np.array([1, 1, 2, 2], np.float32))], mode="cubic")
    return b.model("input", [1, 2, 4, 4], y, 13, "bad_resize")


def huge_resize(name, scales):
    """A Resize to an output too large to exist (found by fuzz_onnx: a scale of 1e12)."""
    b = Builder(1)
    y = b.node("Resize", ["input", b.const("roi", np.zeros(0, np.float32)),
                          b.const("scales", np.array(scales, np.float32))], mode="nearest")
    return b.model("input", [1, 2, 4, 4], y, 13, name)


def dynamic_batch(seed=43):
    """A small CNN whose batch dimension is symbolic ("batch"), as torch.onnx.export writes it
    with dynamic_axes: conv, ReLU, global average pool, Flatten, Gemm, ?x3x8x8, opset 13 (run
    with --batch N; its _input.npy holds a batch of 4)."""
    b = Builder(seed)
    y = b.node("Relu", [b.conv("input", 3, 16, 3, pad=1, bias=True)])
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])])
    w = (b.rng.standard_normal((10, 16)) * 0.3).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))],
               transB=1)
    m = b.model("input", [1, 3, 8, 8], y, 13, "dynamic_batch")
    for v in (m.graph.input[0], m.graph.output[0]):
        d0 = v.type.tensor_type.shape.dim[0]
        d0.Clear()
        d0.dim_param = "batch"
    return m


def bad_broadcast():
    """Mul of [1,4,6,6] by [3]: shapes that do not broadcast (the output type is declared, as
    shape inference cannot give one)."""
    nodes = [helper.make_node("Mul", ["input", "w"], ["y"], name="mul_1")]
    graph = helper.make_graph(
        nodes, "bad_broadcast",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])],
        [numpy_helper.from_array(np.ones(3, np.float32), "w")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def one_node(name, op, in_shape, out_shape, inits=(), **attrs):
    """A single `op` node on "input" (and the constants `inits`, (name, array) pairs) with its
    output type declared, for the bad-input tests (shape inference cannot give one)."""
    nodes = [helper.make_node(op, ["input"] + [n for n, _ in inits], ["y"], name=name + "_1",
                              **attrs)]
    graph = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def bad_perm():
    return one_node("bad_perm", "Transpose", [1, 4, 6], [1, 4, 6], perm=[0, 0, 1])


def bad_axis():
    return one_node("bad_axis", "Softmax", [1, 4, 6], [1, 4, 6], axis=3)


def bad_matmul():
    """A MatMul of [2, 3, 4] by [3, 4, 5]: batch dimensions 2 and 3 do not broadcast."""
    w = np.ones((3, 4, 5), np.float32)
    return one_node("bad_matmul", "MatMul", [2, 3, 4], [2, 3, 5], [("w", w)])


def dropout_training(seed=1):
    b = Builder(seed)
    y = b.node("Dropout", ["input", b.const("ratio", np.float32(0.5)),
                           b.const("train", np.bool_(True))])
    return b.model("input", [1, 4], y, 13, "dropout_training")


def old_opset():
    b = Builder(1)
    y = b.node("Relu", ["input"])
    return b.model("input", [1, 4], y, 9, "old_opset")


def torch_flatten(seed=19, div_zero=False):
    """x.view(x.size(0), -1) as torch.onnx.export writes it, plus constant-only sub-graphs."""
    b = Builder(seed)
    i64 = np.int64

    def constant(base, array):  # a Constant node, as the exporter writes scalars and shapes
        out = b.name(base)
        b.nodes.append(helper.make_node("Constant", [], [out], name=out,
                                        value=numpy_helper.from_array(np.asarray(array))))
        return out

    y = b.node("Relu", [b.conv("input", 3, 8, 3, 1, 1, bias=True)])            # 8x8x8
    y = b.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2])             # 8x4x4
    s = b.node("Shape", [y])
    n = b.node("Gather", [s, constant("idx", i64(0))], axis=0)
    n1 = b.node("Unsqueeze", [n, constant("axes", np.array([0], i64))])
    flat = b.node("Reshape", [y, b.node("Concat", [n1, constant("m1", np.array([-1], i64))],
                                        axis=0)])                               # 1x128
    hw = b.node("Slice", [s, constant("st", np.array([2], i64)), constant("en", np.array([4], i64))])
    area = b.node("Mul", [b.node("Gather", [hw, constant("i0", i64(0))]),
                          b.node("Gather", [hw, constant("i1", i64(1))])])      # 16
    per = b.node("Div", [b.node("Mul", [area, b.node("Gather", [s, constant("i2", i64(1))])]),
                         b.node("Sub", [constant("two", i64(2 if div_zero else 3)), constant("one", i64(2))])])
    sq = b.node("Squeeze", [n1, constant("ax0", np.array([0], i64))])
    shape2 = b.node("Concat", [b.node("Unsqueeze", [sq, constant("a1", np.array([0], i64))]),
                               b.node("Unsqueeze", [per, constant("a2", np.array([0], i64))])],
                    axis=0)                                                     # [1, 128]
    y = b.node("Add", [flat, b.node("Reshape", [y, shape2])])
    w = (b.rng.standard_normal((10, 128)) * 0.1).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))], transB=1)
    r = b.node("Cast", [b.node("Range", [constant("r0", i64(0)), constant("r1", i64(10)),
                                         constant("r2", i64(1))])], to=TensorProto.INT64)
    half = b.node("ConstantOfShape", [constant("ten", np.array([10], i64))],
                  value=numpy_helper.from_array(np.array([0.5], np.float32)))
    ones = b.node("Expand", [constant("onef", np.float32(1.0)), constant("ten2", np.array([10], i64))])
    mask = b.node("Where", [b.node("Equal", [r, constant("three", i64(3))]), half, ones])
    y = b.node("Mul", [y, mask])
    name = "fold_div_zero" if div_zero else "torch_flatten"
    m = b.model("input", [1, 3, 8, 8], y, 13, name)
    # ONNX's shape inference does not evaluate the shape sub-graph: declare the output.
    m.graph.output[0].CopyFrom(helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 10]))
    return m


def fold_div_zero():
    return torch_flatten(div_zero=True)


def pad_conv(seed=23):
    """Zero Pads before Convs (asymmetric, as TF-style SAME exports and ZeroPad2d write them)."""
    b = Builder(seed)
    i64 = np.int64
    y = b.node("Pad", ["input", b.const("pads", np.array([0, 0, 1, 0, 0, 0, 2, 1], i64))])
    y = b.node("Relu", [b.conv(y, 3, 8, 3, bias=True)])                          # 8x9x7
    pads = b.name("pads_c")
    b.nodes.append(helper.make_node("Constant", [], [pads], name=pads, value=numpy_helper.from_array(
        np.array([0, 0, 1, 1, 0, 0, 1, 1], i64))))
    y = b.node("Pad", [y, pads, b.const("zero", np.float32(0))], mode="constant")
    y = b.node("Relu", [b.conv(y, 8, 8, 3, 2, 1, bias=True)])                    # 8x6x5 (pads 2)
    # A Pad of zeros before a pooling, as torch writes it before DenseNet's AveragePool: nothing.
    y = b.node("Pad", [y, b.const("pads_0", np.zeros(8, i64))])
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)
    w = (b.rng.standard_normal((10, 8)) * 0.3).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))], transB=1)
    return b.model("input", [1, 3, 8, 8], y, 13, "pad_conv")


def pad_bad(name, mode="constant", value=None, then="Conv"):
    b = Builder(1)
    ins = ["input", b.const("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))]
    if value is not None:
        ins.append(b.const("value", np.float32(value)))
    y = b.node("Pad", ins, mode=mode)
    y = b.conv(y, 3, 4, 3) if then == "Conv" else b.node("Relu", [y])
    return b.model("input", [1, 3, 6, 6], y, 13, name)


def split_net(seed=29):
    b = Builder(seed)
    y = b.node("Relu", [b.conv("input", 3, 8, 3, 1, 1, bias=True)])             # 8x8x8
    outs = [b.name("part") for _ in range(3)]
    b.nodes.append(helper.make_node("Split", [y, b.const("sizes", np.array([2, 4, 2], np.int64))],
                                    outs, name=b.name("split"), axis=1))
    y = b.node("Concat", [outs[2], b.node("Sigmoid", [outs[1]]), outs[0]], axis=1)
    halves = [b.name("half") for _ in range(2)]
    b.nodes.append(helper.make_node("Split", [b.conv(y, 8, 8, 3, 1, 1, bias=True)], halves,
                                    name=b.name("split"), axis=-2))              # 8x4x8 each
    y = b.node("Mul", [halves[0], b.node("Sigmoid", [halves[1]])])               # GLU on H
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)
    w = (b.rng.standard_normal((10, 8)) * 0.3).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))], transB=1)
    return b.model("input", [1, 3, 8, 8], y, 13, "split_net")


def bad_split():
    outs = ["a", "b"]
    nodes = [helper.make_node("Split", ["input", "sizes"], outs, name="split_1", axis=1),
             helper.make_node("Add", outs, ["y"], name="add_2")]
    graph = helper.make_graph(
        nodes, "bad_split", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
        [numpy_helper.from_array(np.array([2, 3], np.int64), "sizes")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def class_token(seed=47):
    """ViT's stem: a patch-embedding conv, its patches as tokens (Reshape, Transpose), a constant
    class token concatenated in front (its values, 4x the tokens', set the Concat's int8 scale)
    and a linear layer over the tokens."""
    b = Builder(seed)
    y = b.conv("input", 3, 64, 4, 4, 0, bias=True)                              # 64x8x8
    y = b.node("Reshape", [y, b.const("shape", np.array([1, 64, 64], np.int64))])
    y = b.node("Transpose", [y], perm=[0, 2, 1])                                # 1x64x64
    cls = (4.0 * b.rng.standard_normal((1, 1, 64))).astype(np.float32)
    y = b.node("Concat", [b.const("cls", cls), y], axis=1)                      # 1x65x64
    w = (b.rng.standard_normal((64, 128)) * 0.2).astype(np.float32)
    y = b.node("MatMul", [y, b.const("fc_w", w)])                               # 1x65x128
    return b.model("input", [1, 3, 32, 32], y, 13, "class_token")


def deep_shift(seed=53):
    """GoogLeNet's pattern under torchvision's random initialization: the branches of one Concat
    differ in scale by far more than 2^31, so the small branch's requantization shift (42 in
    GoogLeNet) is past the epilogue's 31."""
    b = Builder(seed)
    x = b.node("Relu", [b.conv("input", 8, 16, 3, 1, 1, bias=True)])
    big = b.conv(x, 16, 16, 1, bias=True)
    w = (b.rng.standard_normal((16, 16, 1, 1)) * 1e-12).astype(np.float32)
    small = b.node("Conv", [x, b.const("w_small", w), b.const("b_small", np.full(16, 1e-3, np.float32))],
                   "conv", kernel_shape=[1, 1])
    y = b.node("Concat", [big, small], axis=1)
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)
    w = (b.rng.standard_normal((10, 32)) * 0.3).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))], transB=1)
    return b.model("input", [1, 8, 16, 16], y, 13, "deep_shift")


def preact_bn(seed=59):
    """DenseNet's dense layer: the block's Concat, then BatchNormalization -> ReLU -> Conv (the
    BatchNormalization follows a Concat, not a convolution, so it cannot fold into one)."""
    b = Builder(seed)
    x, c = b.node("Relu", [b.bn(b.conv("input", 3, 16, 3, 1, 1), 16)]), 16
    for _ in range(2):
        y = b.conv(b.node("Relu", [b.bn(x, c)]), c, 8, 3, 1, 1)
        x, c = b.node("Concat", [x, y], axis=1), c + 8
    y = b.node("Relu", [b.bn(x, 32)])
    y = b.node("Flatten", [b.node("GlobalAveragePool", [y])], axis=1)
    w = (b.rng.standard_normal((10, 32)) * 0.3).astype(np.float32)
    y = b.node("Gemm", [y, b.const("fc_w", w), b.const("fc_b", np.zeros(10, np.float32))], transB=1)
    return b.model("input", [1, 3, 16, 16], y, 13, "preact_bn")


def residual_stream(seed=67, d=128, blocks=2):
    """ViT's pre-norm residual stream: patch tokens (a strided conv, Reshape, Transpose), a
    class token of small values (ViT's starts at zero: only its position embedding, 0.02) in
    front, the position embedding added (a constant Add), blocks of x + Linear(LayerNorm(x))
    (the Linear as MatMul plus an Add of its bias), a last LayerNormalization and the class
    token's row (Gather) through the head. The residual Adds sum two fp32 values; on one int8
    grid the class token's row, a hundred times smaller than the patches', keeps no digits."""
    b = Builder(seed)
    f32 = np.float32
    y = b.conv("input", 3, d, 4, 4, 0, bias=True)                               # d x 8 x 8
    y = b.node("Reshape", [y, b.const("shape", np.array([1, d, 64], np.int64))])
    y = b.node("Transpose", [y], perm=[0, 2, 1])                                # 1 x 64 x d
    cls = np.zeros((1, 1, d), f32)
    y = b.node("Concat", [b.const("cls", cls), y], axis=1)                      # 1 x 65 x d
    pos = (0.02 * b.rng.standard_normal((1, 65, d))).astype(f32)
    x = b.node("Add", [y, b.const("pos", pos)])

    def layer_norm(v):
        g = (1.0 + 0.1 * b.rng.standard_normal(d)).astype(f32)
        beta = (0.1 * b.rng.standard_normal(d)).astype(f32)
        return b.node("LayerNormalization", [v, b.const("ln_g", g), b.const("ln_b", beta)],
                      "layernorm", axis=-1, epsilon=1e-5)

    for _ in range(blocks):
        w = (0.05 * b.rng.standard_normal((d, d)) / np.sqrt(d)).astype(f32)
        bias = (0.01 * b.rng.standard_normal(d)).astype(f32)
        h = b.node("Add", [b.node("MatMul", [layer_norm(x), b.const("w", w)]), b.const("b", bias)])
        x = b.node("Add", [x, h])
    y = b.node("Gather", [layer_norm(x), b.const("index", np.array(0, np.int64))], axis=1)
    w = (b.rng.standard_normal((10, d)) / np.sqrt(d)).astype(f32)
    y = b.node("Gemm", [y, b.const("head_w", w), b.const("head_b", np.zeros(10, f32))], transB=1)
    return b.model("input", [1, 3, 32, 32], y, 17, "residual_stream")


def outlier_weight(seed=71, d=256):
    """A linear layer whose weights (standard deviation 0.02) hold one value of 2.0, as
    PyTorch's trunc_normal_ writes a few (Swin-T, ConvNeXt): no one power-of-two scale serves
    the outlier and the rest. Then a ReLU and a second linear layer without outliers."""
    b = Builder(seed)
    f32 = np.float32
    w = (0.02 * b.rng.standard_normal((d, d))).astype(f32)
    w[17, 99] = 2.0
    h = b.node("Relu", [b.node("MatMul", ["input", b.const("w_outlier", w)])])
    w2 = (0.02 * b.rng.standard_normal((d, d))).astype(f32)
    y = b.node("MatMul", [h, b.const("w_plain", w2)])
    return b.model("input", [1, 64, d], y, 13, "outlier_weight")


def window_mask(seed=61, bad_index=False):
    """Swin's shifted-window attention as torch.onnx.export writes it: the padding computed with
    Mod from the activation's Shape (a Pad of zeros here), PatchMerging's x[:, 0::2] (a Slice
    with step 2), the attention mask built from constants only (ScatterND into zeros, Sub of
    two views, Equal, Not, Where) and a Dropout exported in training mode with ratio 0 and an
    unread mask output."""
    b = Builder(seed)
    i64 = np.int64

    def constant(base, array):
        out = b.name(base)
        b.nodes.append(helper.make_node("Constant", [], [out], name=out,
                                        value=numpy_helper.from_array(np.asarray(array))))
        return out

    x = b.node("Add", ["input", b.const("bias", np.float32(0.5))])              # 1x1x8x4
    # pad = (4 - L % 4) % 4 on the token axis: 0 here, computed from the Shape
    n_tok = b.node("Gather", [b.node("Shape", [x]), constant("i2", i64(2))], axis=0)
    four = constant("four", i64(4))
    pad = b.node("Mod", [b.node("Sub", [four, b.node("Mod", [n_tok, four])]), four])
    pads = b.node("Concat", [constant("z2", np.zeros(2, i64)),
                             b.node("Unsqueeze", [pad, constant("ax", np.array([0], i64))]),
                             constant("z5", np.zeros(5, i64))], axis=0)
    x = b.node("Reshape", [b.node("Pad", [x, pads]), constant("s3", np.array([1, 8, 4], i64))])
    # the mask: zeros [8], windows numbered by ScatterND, pairs that differ get -100
    idx = np.array([[8]] if bad_index else [[4], [5], [6], [7]], i64)
    upd = np.ones(1 if bad_index else 4, np.float32)
    ids = b.node("ScatterND", [b.node("ConstantOfShape", [constant("n8", np.array([8], i64))]),
                               constant("idx", idx), constant("upd", upd)])
    diff = b.node("Sub", [b.node("Unsqueeze", [ids, constant("a0", np.array([0], i64))]),
                          b.node("Unsqueeze", [ids, constant("a1", np.array([1], i64))])])
    same = b.node("Equal", [diff, constant("zero", np.float32(0))])
    mask = b.node("Where", [b.node("Not", [same]), constant("m100", np.float32(-100)),
                            constant("z", np.float32(0))])                      # 8x8
    scores = b.node("MatMul", [x, b.node("Transpose", [x], perm=[0, 2, 1])])    # 1x8x8
    p = b.node("Softmax", [b.node("Add", [scores, mask])], axis=-1)
    drop, unused = b.name("dropout"), b.name("dropout_mask")
    b.nodes.append(helper.make_node("Dropout", [p, constant("ratio", np.float32(0)),
                                                constant("train", np.bool_(True))],
                                    [drop, unused], name=drop))
    y = b.node("MatMul", [drop, x])                                              # 1x8x4
    even = b.node("Slice", [y, constant("s0", np.array([0], i64)), constant("e0", np.array([8], i64)),
                            constant("ax1", np.array([1], i64)), constant("st2", np.array([2], i64))])
    odd = b.node("Slice", [y, constant("s1", np.array([1], i64)), constant("e1", np.array([8], i64)),
                           constant("ax1b", np.array([1], i64)), constant("st2b", np.array([2], i64))])
    y = b.node("Concat", [even, odd], axis=-1)                                  # 1x4x8
    name = "bad_window_mask" if bad_index else "window_mask"
    m = b.model("input", [1, 1, 8, 4], y, 13, name)
    m.graph.output[0].CopyFrom(helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 4, 8]))
    return m


MODELS = {"resnet18": resnet18, "small_cnn": small_cnn, "tiny_resnet": tiny_resnet,
          "qdq_cnn": qdq_cnn, "qdq_zero_point": qdq_zero_point, "qdq_per_channel": qdq_per_channel,
          "unsupported": unsupported, "bad_attr": bad_attr, "cycle": cycle,
          "conv_weight_rank": conv_weight_rank, "short_raw_data": short_raw_data, "zero_stride": zero_stride, "no_outputs": no_outputs,
          "float_shape": float_shape, "shape_of_failed": lambda: shape_of("shape_of_failed"),
          "shape_of_late_failure": lambda: shape_of("shape_of_late_failure"),
          "opset18_net": lambda: opset18("opset18_net"),
          "opset18_mish": lambda: opset18("opset18_mish"),
          "shape_of_untyped": lambda: shape_of("shape_of_untyped"), "computed_weight": computed_weight,
          "old_opset": old_opset, "uint8_input": uint8_input, "vgg_dropout": vgg_dropout,
          "dropout_training": dropout_training, "eltwise_cnn": eltwise_cnn,
          "bad_broadcast": bad_broadcast, "tiny_encoder": tiny_encoder,
          "attention_heads": attention_heads, "gelu_net": gelu_net, "resize_net": resize_net,
          "bad_resize": bad_resize, "dynamic_batch": dynamic_batch,
          "resize_long_axis": lambda: huge_resize("resize_long_axis", [1, 1, 1e12, 1]),
          "resize_too_many": lambda: huge_resize("resize_too_many", [1, 1, 1e6, 1e6]),
          "bad_gelu_input": lambda: gelu_net(empty_input=True),
          "bad_perm": bad_perm, "bad_axis": bad_axis, "bad_matmul": bad_matmul,
          "torch_flatten": torch_flatten, "fold_div_zero": fold_div_zero, "pad_conv": pad_conv,
          "pad_reflect": lambda: pad_bad("pad_reflect", mode="reflect"),
          "pad_relu": lambda: pad_bad("pad_relu", then="Relu"),
          "pad_value": lambda: pad_bad("pad_value", value=1.0), "split_net": split_net,
          "bad_split": bad_split, "depthwise_block": depthwise_block, "grouped_net": grouped_net,
          "bad_group": lambda: bad_group("bad_group", 3, 2), "qlinear_grouped": qlinear_grouped,
          "bad_group_weight": lambda: bad_group("bad_group_weight", 2, 4),
          "class_token": class_token, "deep_shift": deep_shift, "preact_bn": preact_bn,
          "residual_stream": residual_stream, "outlier_weight": outlier_weight,
          "window_mask": window_mask, "bad_window_mask": lambda: window_mask(bad_index=True)}
INPUTS = {"resnet18": [1, 3, 224, 224], "small_cnn": [1, 3, 16, 16],
          "tiny_resnet": [1, 3, 16, 16], "qdq_cnn": [1, 3, 8, 8], "qdq_per_channel": [1, 16, 16, 16],
          "unsupported": [1, 3, 4, 4], "bad_attr": [1, 4, 6, 6],
          "conv_weight_rank": [1, 3, 8, 8], "computed_weight": [1, 3, 6, 6], "short_raw_data": [1, 4], "zero_stride": [1, 2, 4, 4], "no_outputs": [1, 4],
          "float_shape": [16, 3, 8, 7],
          "shape_of_failed": [1, 4], "shape_of_late_failure": [1, 4],
          "opset18_net": [1, 4, 6, 6], "opset18_mish": [1, 4, 6, 6],
          "shape_of_untyped": [1, 4],
          "vgg_dropout": [1, 3, 16, 16], "dropout_training": [1, 4], "eltwise_cnn": [1, 3, 16, 16],
          "bad_broadcast": [1, 4, 6, 6], "tiny_encoder": [1, 32, 128],
          "attention_heads": [2, 16, 48], "gelu_net": [1, 8, 32], "resize_net": [1, 3, 8, 8],
          "bad_resize": [1, 2, 4, 4], "resize_long_axis": [1, 2, 4, 4],
          "resize_too_many": [1, 2, 4, 4], "dynamic_batch": [4, 3, 8, 8], "bad_gelu_input": [1, 8, 32],
          "bad_perm": [1, 4, 6], "bad_axis": [1, 4, 6], "bad_matmul": [2, 3, 4],
          "torch_flatten": [1, 3, 8, 8], "fold_div_zero": [1, 3, 8, 8], "pad_conv": [1, 3, 8, 8],
          "pad_reflect": [1, 3, 6, 6], "pad_relu": [1, 3, 6, 6], "pad_value": [1, 3, 6, 6],
          "split_net": [1, 3, 8, 8], "bad_split": [1, 4], "depthwise_block": [1, 16, 16, 16],
          "grouped_net": [1, 16, 12, 12], "bad_group": [1, 4, 6, 6], "bad_group_weight": [1, 4, 6, 6],
          "qlinear_grouped": [1, 16, 8, 8], "class_token": [1, 3, 32, 32],
          "deep_shift": [1, 8, 16, 16], "preact_bn": [1, 3, 16, 16], "window_mask": [1, 1, 8, 4],
          "bad_window_mask": [1, 1, 8, 4], "residual_stream": [1, 3, 32, 32],
          "outlier_weight": [1, 64, 256]}


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    out = argv[1]
    names = argv[3:] if len(argv) > 2 and argv[2] == "--only" else list(MODELS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        if name not in MODELS:
            print("make_models.py: no model '%s' (%s)" % (name, ", ".join(MODELS)),
                  file=sys.stderr)
            return 1
        model = MODELS[name]()
        if name != "cycle" and not name.startswith("opset18"):  # ONNX 1.12 checks up to 17
            onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, name + ".onnx"))
        if name in INPUTS:
            x = np.random.default_rng(7).standard_normal(INPUTS[name]).astype(np.float32)
            np.save(os.path.join(out, name + "_input.npy"), x)
        if name == "uint8_input":  # pixels 0, 1, 128, 255
            np.save(os.path.join(out, name + "_input.npy"), np.array([[0, 1, 128, 255]], np.uint8))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
