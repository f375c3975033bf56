// Built-in ResNet-18 (He et al., 2016: 7x7 stem, max pool, four stages of two basic blocks,
// global average pool, fully connected layer) as an fp32 graph with batch normalization after
// every convolution, and deterministic synthetic weights (no download): He-scaled uniform
// weights from a fixed-seed generator, batch-norm statistics near identity. The same builder
// makes smaller members of the family (fewer channels, smaller images) for fast tests and the
// rtl engine.
#pragma once

#include <cstdint>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph::models {

/// Family parameters; the defaults are ResNet-18 on 224x224 ImageNet images.
struct ResNetOptions {
  int64_t batch = 1;
  int64_t image = 224;       // input height and width
  int64_t width = 64;        // channels of the stem and the first stage (doubling per stage)
  int64_t classes = 1000;
  int64_t stages = 4;        // 1 to 4 stages of two basic blocks
  uint32_t seed = 2016;
};

/// The fp32 network: input "data" f32[batch,3,image,image], output "logits" f32[batch,classes].
/// UserError for options out of range.
Graph resnet18(const ResNetOptions& o = {});

/// Deterministic synthetic input in [-1, 1) (what `weft run resnet18` feeds).
std::vector<float> synthetic_input(const TensorType& t, uint32_t seed);

}  // namespace weft::compiler::graph::models
