// Small quantized ResNets for the graph passes' tests (one file per pass).
#pragma once

#include "compiler/graph/models/resnet.h"
#include "compiler/graph/quantize.h"

namespace weft::compiler::graph {

// A small quantized ResNet (10 classes): image x image inputs, `width` channels in stage 1.
inline Graph quantized_resnet(int64_t image, int64_t width, int stages, bool per_channel = false) {
  models::ResNetOptions o;
  o.image = image;
  o.width = width;
  o.classes = 10;
  o.stages = stages;
  QuantizeOptions qo;
  qo.per_channel = per_channel;
  return quantize(models::resnet18(o), qo);
}

inline Graph quantized_small() { return quantized_resnet(32, 16, 2); }

}  // namespace weft::compiler::graph
