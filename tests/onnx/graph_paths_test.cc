// The host graph paths on whole networks written by scripts/onnx/make_models.py (the CTest
// fixture onnx.make_models writes them into the build tree): the fp32 LLVM path matches the
// float64 reference within 1e-4 relative (to the output's largest magnitude) on a network with
// every float operator and on ResNet-18; the import's structure; QDQ models run with ONNX's
// rounding. Skipped when the models could not be written (no python3-onnx).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>

#include "compiler/graph/dump.h"
#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/onnx/qdq.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/reference_int8.h"
#include "runtime/graph/executor.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/cpu_graph.h"
#include "runtime/graph/onnx_run.h"

namespace weft {
namespace {

using compiler::graph::DType;
using compiler::graph::OpKind;

std::string model(const std::string& name) {
  const std::string p = std::string(WEFT_ONNX_MODELS) + "/" + name + ".onnx";
  return std::filesystem::exists(p) ? p : "";
}

rt::graph::HostArray random_input(const compiler::graph::Graph& g, uint32_t seed) {
  rt::graph::HostArray x;
  x.dtype = DType::F32;
  x.shape = g.value(g.inputs().at(0)).type.shape;
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  x.data.resize(static_cast<size_t>(x.elements()));
  for (double& v : x.data) v = d(rng);
  return x;
}

void expect_matches_reference(const std::string& name, int runs) {
  const std::string path = model(name);
  if (path.empty()) GTEST_SKIP() << name << ".onnx was not written (python3-onnx missing?)";
  const auto imp = compiler::onnx_import::import_onnx(path);
  rt::graph::LlvmGraphRunner runner(imp.graph, 2);
  for (int r = 0; r < runs; ++r) {
    const auto x = random_input(imp.graph, 11 + r);
    const auto got = runner.run({x});
    const auto want = rt::graph::run_reference_f64(imp.graph, {x});
    const auto e = rt::graph::output_error(got.outputs.at(0), want.outputs.at(0));
    EXPECT_LE(e.relative_to_max, 1e-4) << name << " run " << r;
    EXPECT_GT(e.relative_to_max, 0.0) << "float32 and float64 should differ a little";
    for (const auto& rec : got.nodes) {
      if (rec.op == "Conv" || rec.op == "Gemm" || rec.op == "MatMul") {
        EXPECT_EQ(rec.engine, "llvm");
      }
    }
  }
}

// `count` weights from N(0, 0.3^2), drawn from `seed`.
std::shared_ptr<const compiler::graph::ConstData> random_f32(int64_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 0.3f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = d(rng);
  return compiler::graph::ConstData::from_f32(v);
}

// A conv of `in` (c channels) to o channels, k x k, with a bias, weights drawn from `seed`.
compiler::graph::ValueId add_conv(compiler::graph::Graph& g, const std::string& name,
                                  compiler::graph::ValueId in, int64_t c, int64_t o, int64_t k,
                                  int64_t stride, uint32_t seed) {
  namespace cg = compiler::graph;
  const cg::ValueId w = g.add_constant(name + ".w", cg::TensorType(DType::F32, {o, c, k, k}),
                                       random_f32(o * c * k * k, seed));
  const cg::ValueId b =
      g.add_constant(name + ".b", cg::TensorType(DType::F32, {o}), random_f32(o, seed + 1));
  const int64_t p = k / 2;
  return g.add_op(OpKind::Conv, name, {in, w, b},
                  {{"strides", std::vector<int64_t>{stride, stride}},
                   {"pads", std::vector<int64_t>{p, p, p, p}},
                   {"kernel_shape", std::vector<int64_t>{k, k}}});
}

// A depthwise 3x3 conv of `in` (c channels) with a bias, `pads` as ONNX's four.
compiler::graph::ValueId add_depthwise(compiler::graph::Graph& g, const std::string& name,
                                       compiler::graph::ValueId in, int64_t c, int64_t stride,
                                       const std::vector<int64_t>& pads, uint32_t seed) {
  namespace cg = compiler::graph;
  const cg::ValueId w = g.add_constant(name + ".w", cg::TensorType(DType::F32, {c, 1, 3, 3}),
                                       random_f32(c * 9, seed));
  const cg::ValueId b =
      g.add_constant(name + ".b", cg::TensorType(DType::F32, {c}), random_f32(c, seed + 1));
  return g.add_op(OpKind::Conv, name, {in, w, b},
                  {{"group", c},
                   {"strides", std::vector<int64_t>{stride, stride}},
                   {"pads", pads},
                   {"kernel_shape", std::vector<int64_t>{3, 3}}});
}

// Three runs of `g` on one LlvmGraphRunner (inputs from `seed` on, each through the storage of
// the run before) against the float64 reference, within 1e-5; each node's engine is what
// `engine_of` names for it.
void expect_runs_match_f64(const compiler::graph::Graph& g, uint32_t seed,
                           const std::function<std::string(const rt::graph::NodeRecord&)>& engine_of) {
  rt::graph::LlvmGraphRunner runner(g, 1);
  for (int r = 0; r < 3; ++r) {
    const auto in = random_input(g, seed + r);
    const auto got = runner.run({in});
    const auto want = rt::graph::run_reference_f64(g, {in});
    const auto e = rt::graph::output_error(got.outputs.at(0), want.outputs.at(0));
    EXPECT_LE(e.relative_to_max, 1e-5) << "run " << r;
    for (const auto& rec : got.nodes) EXPECT_EQ(rec.engine, engine_of(rec)) << rec.name;
  }
}

// Two convolutions of batch 2 whose output channels are not whole blocks of 16 (20, then 16
// from 20), with a bias: the LLVM path's layout changes (NCHW to channel blocks, a blocked
// output read by the next convolution in other blocks, and back) against the float64
// reference, three runs.
TEST(OnnxGraph, ConvsOfPartBlocksAndBatchTwoOnLlvmMatchFloat64) {
  namespace cg = compiler::graph;
  cg::Graph g("part_blocks");
  const cg::ValueId x = g.add_input("x", cg::TensorType(DType::F32, {2, 8, 9, 11}));
  const cg::ValueId y = add_conv(g, "c2", add_conv(g, "c1", x, 8, 20, 3, 1, 5), 20, 16, 3, 2, 7);
  g.set_outputs({y});
  expect_runs_match_f64(g, 21, [](const rt::graph::NodeRecord&) { return "llvm"; });
}

// A residual block of 20 channels, batch 2, as ResNet writes it (with a clipped ReLU in the
// middle): conv -> relu -> conv -> clip -> conv -> add(first relu, .) -> relu. The activations
// stay in channel blocks between the convolutions (the 20-channel ones re-blocked by 10 for the
// next input), and every Relu, the Clip and the Add are folded into the convolution before them
// ("fused"); the same values as the float64 reference, three runs through storage kept from
// the run before.
TEST(OnnxGraph, AResidualBlockOnLlvmFoldsItsAddAndActivationsAndMatchesFloat64) {
  namespace cg = compiler::graph;
  cg::Graph g("residual_block");
  const cg::ValueId x = g.add_input("x", cg::TensorType(DType::F32, {2, 20, 7, 9}));
  const cg::ValueId r0 = g.add_op(OpKind::Relu, "r0", {add_conv(g, "c0", x, 20, 20, 1, 1, 3)});
  // A ReLU6 as opset 11 writes it: Clip with constant min and max inputs.
  const cg::ValueId lo = g.add_constant("lo", cg::TensorType(DType::F32, {}), cg::ConstData::from_f32({0.0f}));
  const cg::ValueId hi = g.add_constant("hi", cg::TensorType(DType::F32, {}), cg::ConstData::from_f32({0.5f}));
  const cg::ValueId r1 =
      g.add_op(OpKind::Clip, "r1", {add_conv(g, "c1", r0, 20, 24, 3, 1, 5), lo, hi});
  const cg::ValueId c2 = add_conv(g, "c2", r1, 24, 20, 3, 1, 7);
  const cg::ValueId sum = g.add_op(OpKind::Add, "add", {r0, c2});
  g.set_outputs({g.add_op(OpKind::Relu, "out", {sum})});
  expect_runs_match_f64(g, 31, [](const rt::graph::NodeRecord& rec) {
    return rec.op == "Conv" ? "llvm" : "fused";
  });
}

// MobileNet V2's inverted residual on 20 channels (not whole blocks of 16), batch 2: a depthwise
// conv of the plain input (re-blocked with a partial block) -> ReLU6, then the block: a 1x1
// expansion to 40 -> ReLU6 -> a 3x3 depthwise conv (group 40, with a bias) -> ReLU6 -> a 1x1
// projection -> the residual Add; then a strided depthwise conv with asymmetric pads (as
// TensorFlow's SAME writes them). The depthwise convs run in channel blocks (the one in the
// block reads the expansion's blocks as they are) with their bias and ReLU6 in the kernel,
// every Clip and the Add folded ("fused"); the float64 reference's values, three runs.
TEST(OnnxGraph, AnInvertedResidualBlockOnLlvmRunsItsDepthwiseConvsInBlocksAndMatchesFloat64) {
  namespace cg = compiler::graph;
  cg::Graph g("inverted_residual");
  const cg::ValueId lo = g.add_constant("lo", cg::TensorType(DType::F32, {}), cg::ConstData::from_f32({0.0f}));
  const cg::ValueId hi = g.add_constant("hi", cg::TensorType(DType::F32, {}), cg::ConstData::from_f32({0.6f}));
  auto relu6 = [&](const std::string& name, cg::ValueId v) {
    return g.add_op(OpKind::Clip, name, {v, lo, hi});
  };
  const cg::ValueId x = g.add_input("x", cg::TensorType(DType::F32, {2, 20, 9, 11}));
  const cg::ValueId r = relu6("dw0.clip", add_depthwise(g, "dw0", x, 20, 1, {1, 1, 1, 1}, 2));
  const cg::ValueId e = relu6("e.clip", add_conv(g, "expand", r, 20, 40, 1, 1, 3));
  const cg::ValueId d = relu6("dw.clip", add_depthwise(g, "dw", e, 40, 1, {1, 1, 1, 1}, 5));
  const cg::ValueId sum = g.add_op(OpKind::Add, "add", {r, add_conv(g, "project", d, 40, 20, 1, 1, 7)});
  g.set_outputs({add_depthwise(g, "dw2", sum, 20, 2, {0, 0, 1, 1}, 9)});
  expect_runs_match_f64(g, 41, [](const rt::graph::NodeRecord& rec) {
    return rec.op == "Conv" ? "llvm" : "fused";
  });
}

// EfficientNet's MBConv block on 24 channels: a 1x1 expansion to 40 -> SiLU (Sigmoid, Mul) ->
// a depthwise 3x3 -> SiLU -> squeeze-and-excite (GlobalAveragePool, a 1x1 conv to 8, SiLU, a
// 1x1 conv back to 40, Sigmoid, Mul by the scale) -> a 1x1 projection. Each SiLU's Sigmoid and
// Mul are folded into the convolution before them ("fused": the depthwise kernel's epilogue,
// the others' activation pass); the gate's Sigmoid and the excitation's Mul, which a
// convolution's output is not alone in reading, run on their own LLVM kernels, reading the
// blocks (no conversion); the float64 reference's values, three runs.
TEST(OnnxGraph, AnMBConvBlockOnLlvmKeepsItsBlocksThroughSiluAndSqueezeExcite) {
  namespace cg = compiler::graph;
  cg::Graph g("mbconv");
  auto silu = [&](const std::string& name, cg::ValueId v) {
    return g.add_op(OpKind::Mul, name + ".mul", {v, g.add_op(OpKind::Sigmoid, name, {v})});
  };
  const cg::ValueId x = g.add_input("x", cg::TensorType(DType::F32, {1, 24, 10, 10}));
  const cg::ValueId e = silu("e.silu", add_conv(g, "expand", x, 24, 40, 1, 1, 3));
  const cg::ValueId d = silu("dw.silu", add_depthwise(g, "dw", e, 40, 1, {1, 1, 1, 1}, 5));
  const cg::ValueId pooled = g.add_op(OpKind::GlobalAveragePool, "se.pool", {d});
  const cg::ValueId squeezed = silu("se.silu", add_conv(g, "se.reduce", pooled, 40, 8, 1, 1, 7));
  const cg::ValueId scale = g.add_op(OpKind::Sigmoid, "se.gate", {add_conv(g, "se.expand", squeezed, 8, 40, 1, 1, 9)});
  const cg::ValueId excited = g.add_op(OpKind::Mul, "se.excite", {d, scale});
  g.set_outputs({add_conv(g, "project", excited, 40, 24, 1, 1, 11)});
  expect_runs_match_f64(g, 51, [](const rt::graph::NodeRecord& rec) {
    const bool silu = rec.name.size() > 5 && (rec.name.substr(rec.name.size() - 5) == ".silu" ||
                                              rec.name.find(".silu.mul") != std::string::npos);
    return silu ? "fused" : "llvm";
  });
}

// MobileNet V3's activations as opset 13 exports write them: HardSwish as a HardSigmoid
// (alpha 1/6, beta 1/2) of a conv's output and a Mul of the two, after a 1x1 conv and after a
// depthwise conv, folded into them ("fused"); a HardSigmoid with other constants (0.2, 0.5)
// times its input is no HardSwish and runs as its nodes. The float64 reference's values.
TEST(OnnxGraph, HardSwishWrittenAsAHardSigmoidAndAMulIsFoldedIntoTheConvBeforeIt) {
  namespace cg = compiler::graph;
  cg::Graph g("hard_swish");
  auto gated = [&](const std::string& name, cg::ValueId v, double alpha) {
    const cg::ValueId hs = g.add_op(OpKind::HardSigmoid, name, {v}, {{"alpha", alpha}, {"beta", 0.5}});
    return g.add_op(OpKind::Mul, name + ".mul", {hs, v});
  };
  const cg::ValueId x = g.add_input("x", cg::TensorType(DType::F32, {1, 24, 10, 10}));
  const cg::ValueId e = gated("e.hswish", add_conv(g, "expand", x, 24, 40, 1, 1, 3), 1.0 / 6.0);
  const cg::ValueId d = gated("dw.hswish", add_depthwise(g, "dw", e, 40, 2, {1, 1, 1, 1}, 5), 1.0 / 6.0);
  g.set_outputs({gated("other", add_conv(g, "project", d, 40, 24, 1, 1, 7), 0.2)});
  expect_runs_match_f64(g, 71, [](const rt::graph::NodeRecord& rec) {
    return rec.name.find(".hswish") != std::string::npos ? "fused" : "llvm";
  });
}

// ResNeXt's block on 16 channels, batch 2: a 1x1 conv to 32 -> ReLU -> a 3x3 conv of 8 groups
// of 4 channels (run in channel blocks as 2 merged groups of 16, block-diagonal weights) ->
// ReLU -> a 1x1 conv back -> the residual Add -> ReLU; then a 1x1 conv to 24 and a strided
// conv of 3 groups of 8 (which no group of whole blocks takes: the NCHW grouped kernel). Every
// activation and the Add folded; the float64 reference's values, three runs.
TEST(OnnxGraph, AResNeXtBlockOnLlvmRunsItsGroupedConvsInBlocksAndMatchesFloat64) {
  namespace cg = compiler::graph;
  cg::Graph g("resnext_block");
  auto grouped = [&](const std::string& name, cg::ValueId in, int64_t c, int64_t groups,
                     int64_t stride, uint32_t seed) {
    const cg::ValueId wv = g.add_constant(name + ".w", cg::TensorType(DType::F32, {c, c / groups, 3, 3}),
                                          random_f32(c * (c / groups) * 9, seed));
    return g.add_op(OpKind::Conv, name, {in, wv},
                    {{"group", groups},
                     {"strides", std::vector<int64_t>{stride, stride}},
                     {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                     {"kernel_shape", std::vector<int64_t>{3, 3}}});
  };
  const cg::ValueId x = g.add_input("x", cg::TensorType(DType::F32, {2, 16, 9, 9}));
  const cg::ValueId r0 = g.add_op(OpKind::Relu, "r0", {add_conv(g, "c0", x, 16, 16, 1, 1, 2)});
  const cg::ValueId r1 = g.add_op(OpKind::Relu, "r1", {add_conv(g, "reduce", r0, 16, 32, 1, 1, 3)});
  const cg::ValueId r2 = g.add_op(OpKind::Relu, "r2", {grouped("grouped", r1, 32, 8, 1, 5)});
  const cg::ValueId sum = g.add_op(OpKind::Add, "add", {r0, add_conv(g, "expand", r2, 32, 16, 1, 1, 7)});
  const cg::ValueId r3 = g.add_op(OpKind::Relu, "r3", {sum});
  g.set_outputs({grouped("odd_groups", add_conv(g, "c24", r3, 16, 24, 1, 1, 9), 24, 3, 2, 11)});
  expect_runs_match_f64(g, 61, [](const rt::graph::NodeRecord& rec) {
    return rec.op == "Conv" ? "llvm" : "fused";
  });
}

TEST(OnnxGraph, SmallCnnOnLlvmMatchesFloat64) { expect_matches_reference("small_cnn", 3); }

TEST(OnnxGraph, ResNet18OnLlvmMatchesFloat64) { expect_matches_reference("resnet18", 1); }

TEST(OnnxGraph, ElementwiseOperatorsOnLlvmMatchFloat64) {
  expect_matches_reference("eltwise_cnn", 3);
}

TEST(OnnxGraph, TinyEncoderOnLlvmMatchesFloat64) { expect_matches_reference("tiny_encoder", 2); }

TEST(OnnxGraph, ResNet18ImportsAsTheArchitecture) {
  const std::string path = model("resnet18");
  if (path.empty()) GTEST_SKIP() << "resnet18.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  const auto& g = imp.graph;
  EXPECT_EQ(g.count(OpKind::Conv), 20);  // conv1, 16 in the blocks, 3 downsamples
  EXPECT_EQ(g.count(OpKind::BatchNormalization), 20);
  EXPECT_EQ(g.count(OpKind::Add), 8);
  EXPECT_EQ(g.count(OpKind::Relu), 17);
  EXPECT_EQ(g.count(OpKind::MaxPool), 1);
  EXPECT_EQ(g.count(OpKind::Gemm), 1);
  EXPECT_EQ(g.value(g.outputs().at(0)).type.shape, (std::vector<int64_t>{1, 1000}));
  // The first lines of the dump: the input and conv1 with its explicit window.
  const std::string text = compiler::graph::to_text(g);
  EXPECT_NE(text.find("input %input: f32[1,3,224,224]"), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(text.find("pads=[3,3,3,3]"), std::string::npos);
}

TEST(OnnxGraph, QdqModelRunsWithOnnxRounding) {
  const std::string path = model("qdq_cnn");
  if (path.empty()) GTEST_SKIP() << "qdq_cnn.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  const auto& g = imp.graph;
  EXPECT_EQ(g.count(OpKind::QuantizeLinear), 2);
  EXPECT_EQ(g.count(OpKind::QLinearConv), 1);
  // Scales are kept: every QuantizeLinear/DequantizeLinear reads a power-of-two constant.
  for (const auto& n : g.nodes()) {
    if (n.kind != OpKind::QuantizeLinear && n.kind != OpKind::DequantizeLinear) continue;
    const auto& s = g.value(n.inputs.at(1));
    ASSERT_TRUE(s.is_constant());
    const float v = s.data->f32()[0];
    EXPECT_EQ(std::exp2(std::round(std::log2(v))), v) << n.name;
  }
  rt::graph::LlvmGraphRunner runner(g);
  const auto x = random_input(g, 3);
  const auto got = runner.run({x});
  const auto want = rt::graph::run_reference_f64(g, {x});
  // After the first QuantizeLinear every value is on a power-of-two grid: the two paths agree
  // exactly up to the final average (float32 vs float64 sums of exact values).
  const auto e = rt::graph::output_error(got.outputs.at(0), want.outputs.at(0));
  EXPECT_LE(e.relative_to_max, 1e-6);
}

TEST(OnnxGraph, QdqMapsToTheFloatNetworkWithFixedExponents) {
  const std::string path = model("qdq_cnn");
  if (path.empty()) GTEST_SKIP() << "qdq_cnn.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  ASSERT_TRUE(compiler::onnx_import::has_qdq(imp.graph));
  const auto m = compiler::onnx_import::map_qdq(imp.graph);
  EXPECT_FALSE(compiler::onnx_import::has_qdq(m.graph));
  EXPECT_EQ(m.graph.count(OpKind::Conv), 2);  // the QDQ conv and the QLinearConv
  // The input (1/32), the ReLU's output (1/32) and the QLinearConv's output (1/32).
  ASSERT_EQ(m.exponents.size(), 3u);
  for (const auto& [name, e] : m.exponents) EXPECT_EQ(e, -5) << name;
  EXPECT_TRUE(m.changed.empty());
}

TEST(OnnxGraph, QdqWithAZeroPointIsRefusedOnTheAccelerator) {
  const std::string path = model("qdq_zero_point");
  if (path.empty()) GTEST_SKIP() << "qdq_zero_point.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  try {
    compiler::onnx_import::map_qdq(imp.graph);
    FAIL() << "an asymmetric zero point mapped onto the accelerator";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("nonzero zero point"), std::string::npos) << e.what();
  }
  // The LLVM path runs it with ONNX's arithmetic: x = 0.1 -> q = round(3.2) + 3 = 6 -> 0.09375.
  rt::graph::LlvmGraphRunner runner(imp.graph);
  rt::graph::HostArray x;
  x.shape = {1, 4};
  x.data = {0.1, -1.0, 0.5, 5.0};
  const auto y = runner.run({x}).outputs.at(0).data;
  EXPECT_DOUBLE_EQ(y[0], 0.09375);
  EXPECT_DOUBLE_EQ(y[1], 0.0);    // -32 + 3 = -29 -> -1.0 -> ReLU
  EXPECT_DOUBLE_EQ(y[2], 0.5);
  EXPECT_DOUBLE_EQ(y[3], 3.875);  // saturates at 127: (127 - 3) / 32
}

}  // namespace
}  // namespace weft

namespace weft {
namespace {

// `g` through the graph pipeline, calibrated on its one input `xf`.
compiler::graph::CompiledGraph compile_calibrated(const compiler::graph::Graph& g,
                                                  const std::vector<float>& xf,
                                                  const isa::Layout& l, const isa::Platform& pf) {
  compiler::graph::GraphCompileOptions o;
  o.quantize.calibration = {{xf}};
  return compiler::graph::compile_graph(g, l, pf, o);
}

// small_cnn's Clip(conv, 0, 6) quantizes to an int8 Clip with integer bounds (6 / 2^e rounded)
// on the CPU; the executor (functional and cycle engines) matches the independent int8
// reference bit for bit, and a Clip whose upper bound is beyond the int8 range becomes a ReLU.
TEST(OnnxGraph, ClipQuantizesToAnInt8ClampBitExact) {
  const std::string path = model("small_cnn");
  if (path.empty()) GTEST_SKIP() << "small_cnn.onnx was not written";
  auto imp = compiler::onnx_import::import_onnx(path);
  const auto x = random_input(imp.graph, 5);
  const std::vector<float> xf(x.data.begin(), x.data.end());
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const auto c = compile_calibrated(imp.graph, xf, l, pf);
  int clips = 0;
  for (compiler::graph::NodeId id : c.graph.topo_order()) {
    const auto& n = c.graph.node(id);
    if (n.kind != OpKind::Clip) continue;
    ++clips;
    EXPECT_EQ(n.get_float("min", -1), 0.0);
    const int e = c.graph.value(n.inputs[0]).type.quant.exponent();
    EXPECT_EQ(n.get_float("max", -1), std::nearbyint(std::ldexp(6.0, -e))) << "2^" << e;
  }
  EXPECT_EQ(clips, 1);
  const auto want = compiler::graph::reference_int8(c.graph, {xf});
  for (const char* engine : {"functional", "cycle"}) {
    rt::graph::GraphExecutor exe(c, l, pf);
    auto dev = rt::graph::open_graph_device(engine, exe, l, pf);
    EXPECT_EQ(exe.run(*dev, {xf}).outputs, want) << engine;
  }
  // Clip(0, 1e6): the same network with the bound out of the int8 range has no Clip but a ReLU.
  for (compiler::graph::NodeId id : imp.graph.topo_order()) {
    const auto& n = imp.graph.node(id);
    if (n.kind == OpKind::Clip)
      imp.graph.value(n.inputs[2]).data = compiler::graph::ConstData::from_f32({1e6f});
  }
  const auto r = compile_calibrated(imp.graph, xf, l, pf);
  for (compiler::graph::NodeId id : r.graph.topo_order())
    EXPECT_NE(r.graph.node(id).kind, OpKind::Clip);
}

// eltwise_cnn on the accelerator: the float element-wise nodes the int8 path has no operator
// for (Sigmoid, Mul, HardSwish, Erf, ...) stay in fp32 between a Dequantize and a Quantize, on
// the CPU with the reason in their facts; the convs run on the accelerator where the partition
// prefers it. The executor on either CPU kernel set matches the int8 reference (which runs
// those nodes with the same scalar functions) bit for bit.
TEST(OnnxGraph, FloatElementwiseNodesStayInFp32OnTheCpuBitExact) {
  const std::string path = model("eltwise_cnn");
  if (path.empty()) GTEST_SKIP() << "eltwise_cnn.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  const auto x = random_input(imp.graph, 7);
  const std::vector<float> xf(x.data.begin(), x.data.end());
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const auto c = compile_calibrated(imp.graph, xf, l, pf);
  int fp32_nodes = 0;
  for (compiler::graph::NodeId id : c.graph.topo_order()) {
    const auto& n = c.graph.node(id);
    if (n.kind != OpKind::Sigmoid && n.kind != OpKind::Mul && n.kind != OpKind::Erf) continue;
    ++fp32_nodes;
    EXPECT_EQ(c.graph.value(n.outputs[0]).type.dtype, DType::F32) << n.name;
    EXPECT_EQ(n.facts.device, compiler::graph::Device::kCpu) << n.name;
    EXPECT_EQ(n.facts.cpu_reason.value_or("").rfind("fp32: the int8 quantizer has no ", 0), 0u)
        << n.name;
  }
  EXPECT_GE(fp32_nodes, 8);
  const auto want = compiler::graph::reference_int8(c.graph, {xf});
  for (bool llvm : {false, true}) {
    rt::graph::ExecutorOptions eo;
    eo.llvm_kernels = llvm;
    rt::graph::GraphExecutor exe(c, l, pf, eo);
    auto dev = rt::graph::open_graph_device("functional", exe, l, pf);
    EXPECT_EQ(exe.run(*dev, {xf}).outputs, want) << (llvm ? "llvm kernels" : "plain kernels");
  }
}

// tiny_encoder on the accelerator: the linear layers (MatMul of [1, seq, d] by a constant
// weight) become int8 dense layers over the rows, the attention products of two activations
// batched int8 dense layers over the 4 heads (quantize_matmul.h), the operators without an int8
// form stay in fp32 on the CPU; the executor on either CPU kernel set matches the int8
// reference bit for bit.
TEST(OnnxGraph, EncoderLinearLayersAndAttentionProductsQuantizedBitExact) {
  const std::string path = model("tiny_encoder");
  if (path.empty()) GTEST_SKIP() << "tiny_encoder.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  const auto x = random_input(imp.graph, 7);
  const std::vector<float> xf(x.data.begin(), x.data.end());
  const isa::Layout& l = isa::layout_for("vta");
  const isa::Platform& pf = isa::find_platform("sim");
  const auto c = compile_calibrated(imp.graph, xf, l, pf);
  int dense = 0, batched = 0, fp32_matmul = 0, fp32_other = 0;
  for (compiler::graph::NodeId id : c.graph.topo_order()) {
    const auto& n = c.graph.node(id);
    if (n.kind == OpKind::AccelDense) ++dense;
    if (n.kind == OpKind::AccelDense && n.facts.slices) {
      ++batched;
      EXPECT_EQ(*n.facts.slices, 4) << n.name;  // the heads
      EXPECT_EQ(c.graph.producer(n.inputs[1])->kind, OpKind::Pack) << n.name;
    }
    if (n.kind == OpKind::MatMul) ++fp32_matmul;
    if (n.kind == OpKind::Softmax || n.kind == OpKind::LayerNormalization ||
        n.kind == OpKind::Transpose || n.kind == OpKind::ReduceMean) {
      ++fp32_other;
      EXPECT_EQ(c.graph.value(n.outputs[0]).type.dtype, DType::F32) << n.name;
      EXPECT_EQ(n.facts.device, compiler::graph::Device::kCpu) << n.name;
    }
  }
  EXPECT_EQ(dense, 8);    // Q, K, V, the output projection, the MLP's two layers, Q.K^T, P.V
  EXPECT_EQ(batched, 2);  // Q.K^T and the product with V
  EXPECT_EQ(fp32_matmul, 0);
  // Softmax, 2 LayerNormalizations, ReduceMean; Q's and the output's Transposes, K's and V's
  // each folded with the product's own transposition into one
  EXPECT_EQ(fp32_other, 1 + 2 + 1 + 4);
  const auto want = compiler::graph::reference_int8(c.graph, {xf});
  for (bool llvm : {false, true}) {
    rt::graph::ExecutorOptions eo;
    eo.llvm_kernels = llvm;
    rt::graph::GraphExecutor exe(c, l, pf, eo);
    auto dev = rt::graph::open_graph_device("functional", exe, l, pf);
    EXPECT_EQ(exe.run(*dev, {xf}).outputs, want) << (llvm ? "llvm kernels" : "plain kernels");
  }
}

// Attention's products batched over 2 images x 3 heads, on vta's batch-1 core and gemm8x8's
// 8-row blocks (the partition's CPU estimate turned down so that these small products go to
// the accelerator): each a batched weft.AccelDense over 6 slices in one launch, bit-exact
// against the int8 reference on the functional and cycle engines.
TEST(OnnxGraph, BatchedAttentionProductsOnTheAcceleratorBitExact) {
  const std::string path = model("attention_heads");
  if (path.empty()) GTEST_SKIP() << "attention_heads.onnx was not written";
  const auto imp = compiler::onnx_import::import_onnx(path);
  const auto x = random_input(imp.graph, 3);
  const std::vector<float> xf(x.data.begin(), x.data.end());
  const isa::Platform& pf = isa::find_platform("sim");
  for (const char* config : {"vta", "gemm8x8"}) {
    const isa::Layout& l = isa::layout_for(config);
    compiler::graph::GraphCompileOptions o;
    o.quantize.calibration = {{xf}};
    o.cpu_gmacs = 1e-3;
    const auto c = compiler::graph::compile_graph(imp.graph, l, pf, o);
    int batched = 0;
    for (compiler::graph::NodeId id : c.graph.topo_order()) {
      const auto& n = c.graph.node(id);
      if (n.kind == OpKind::AccelDense && n.facts.slices.value_or(1) == 6) ++batched;
      EXPECT_NE(n.kind, OpKind::MatMul) << config << " " << n.name;
    }
    EXPECT_EQ(batched, 2) << config;
    const auto want = compiler::graph::reference_int8(c.graph, {xf});
    for (const char* engine : {"functional", "cycle"}) {
      rt::graph::GraphExecutor exe(c, l, pf, {});
      auto dev = rt::graph::open_graph_device(engine, exe, l, pf);
      EXPECT_EQ(exe.run(*dev, {xf}).outputs, want) << config << " " << engine;
    }
  }
}

}  // namespace
}  // namespace weft
