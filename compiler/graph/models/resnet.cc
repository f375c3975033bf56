// Built-in ResNet-18 with synthetic weights; see resnet.h.
#include "compiler/graph/models/resnet.h"

#include <cmath>
#include <string>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph::models {

namespace {

// A small, fixed generator (xorshift32) so weights are identical on every platform.
struct Rng {
  uint32_t s;
  explicit Rng(uint32_t seed) : s(seed ? seed : 1) {}
  float uniform() {  // [-1, 1)
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
};

class Builder {
 public:
  Builder(Graph& g, uint32_t seed) : g_(g), rng_(seed) {}

  ValueId constant(const std::string& name, std::vector<int64_t> shape, float scale, float bias) {
    TensorType t(DType::F32, std::move(shape));
    std::vector<float> v(static_cast<size_t>(t.elements()));
    for (float& x : v) x = bias + scale * rng_.uniform();
    return g_.add_constant(name, t, ConstData::from_f32(v));
  }

  // conv (no bias) + batch norm [+ relu]
  ValueId conv_bn(const std::string& name, ValueId x, int64_t oc, int64_t k, int64_t stride,
                  bool relu) {
    const int64_t ic = g_.value(x).type.shape[1];
    const float a = std::sqrt(6.0f / static_cast<float>(ic * k * k));
    ValueId w = constant(name + ".w", {oc, ic, k, k}, a, 0.0f);
    const int64_t p = k / 2;
    ValueId c = g_.add_op(OpKind::Conv, name, {x, w},
                          {{"kernel_shape", std::vector<int64_t>{k, k}},
                           {"strides", std::vector<int64_t>{stride, stride}},
                           {"pads", std::vector<int64_t>{p, p, p, p}}});
    ValueId gamma = constant(name + ".bn.gamma", {oc}, 0.1f, 1.0f);
    ValueId beta = constant(name + ".bn.beta", {oc}, 0.1f, 0.0f);
    ValueId mean = constant(name + ".bn.mean", {oc}, 0.1f, 0.0f);
    ValueId var = constant(name + ".bn.var", {oc}, 0.2f, 1.0f);
    ValueId b = g_.add_op(OpKind::BatchNormalization, name + ".bn", {c, gamma, beta, mean, var},
                          {{"epsilon", 1e-5}});
    return relu ? g_.add_op(OpKind::Relu, name + ".relu", {b}) : b;
  }

  ValueId basic_block(const std::string& name, ValueId x, int64_t oc, int64_t stride) {
    const int64_t ic = g_.value(x).type.shape[1];
    ValueId y = conv_bn(name + ".conv1", x, oc, 3, stride, true);
    y = conv_bn(name + ".conv2", y, oc, 3, 1, false);
    ValueId skip = x;
    if (stride != 1 || ic != oc) skip = conv_bn(name + ".downsample", x, oc, 1, stride, false);
    ValueId s = g_.add_op(OpKind::Add, name + ".add", {y, skip});
    return g_.add_op(OpKind::Relu, name + ".relu", {s});
  }

 private:
  Graph& g_;
  Rng rng_;
};

}  // namespace

Graph resnet18(const ResNetOptions& o) {
  if (o.batch < 1 || o.batch > 256) throw UserError("resnet18: batch must be 1 to 256");
  if (o.image < 32 || o.image > 512 || o.image % 32 != 0)
    throw UserError("resnet18: the image size must be a multiple of 32 from 32 to 512");
  if (o.width < 4 || o.width > 256 || o.stages < 1 || o.stages > 4 || o.classes < 1)
    throw UserError("resnet18: width (4-256), stages (1-4) or classes out of range");
  Graph g(o.image == 224 && o.width == 64 && o.stages == 4 ? "resnet18" : "resnet18_small");
  Builder b(g, o.seed);
  ValueId x = g.add_input("data", TensorType(DType::F32, {o.batch, 3, o.image, o.image}));
  ValueId y = b.conv_bn("conv1", x, o.width, 7, 2, true);
  y = g.add_op(OpKind::MaxPool, "maxpool", {y},
               {{"kernel_shape", std::vector<int64_t>{3, 3}},
                {"strides", std::vector<int64_t>{2, 2}},
                {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  int64_t ch = o.width;
  for (int64_t s = 0; s < o.stages; ++s) {
    const std::string stage = "layer" + std::to_string(s + 1);
    y = b.basic_block(stage + ".0", y, ch, s == 0 ? 1 : 2);
    y = b.basic_block(stage + ".1", y, ch, 1);
    if (s + 1 < o.stages) ch *= 2;
  }
  y = g.add_op(OpKind::GlobalAveragePool, "avgpool", {y});
  y = g.add_op(OpKind::Flatten, "flatten", {y}, {{"axis", int64_t{1}}});
  const float a = std::sqrt(6.0f / static_cast<float>(ch));
  ValueId w = b.constant("fc.w", {o.classes, ch}, a, 0.0f);
  ValueId bias = b.constant("fc.b", {o.classes}, 0.05f, 0.0f);
  y = g.add_op(OpKind::Gemm, "fc", {y, w, bias}, {{"transB", int64_t{1}}});
  g.value(y).name = "logits";
  g.set_outputs({y});
  return g;
}

std::vector<float> synthetic_input(const TensorType& t, uint32_t seed) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(t.elements()));
  for (float& x : v) x = r.uniform();
  return v;
}

}  // namespace weft::compiler::graph::models
