// The accelerator's measurer: builds the candidate's instruction stream and runs it once on
// the cycle model with fixed random data (the count is deterministic, so one run is the
// measurement). Before running, a lower bound read from the program (GEMM micro-ops, DRAM
// bytes on the bus) is compared with the early-stop threshold: a candidate that cannot beat it
// is not simulated at all.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "runtime/ops/conv2d.h"

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/tune/measurer.h"

namespace weft::rt::tune {

class CycleMeasurer : public Measurer {
 public:
  CycleMeasurer(const isa::Layout& layout, const isa::Platform& platform,
                compiler::ops::Conv2dEpilogue conv_epilogue = {},
                compiler::ops::DenseEpilogue dense_epilogue = {})
      : layout_(&layout), platform_(&platform), conv_e_(conv_epilogue), dense_e_(dense_epilogue) {}
  std::string unit() const override { return "cycles"; }
  MeasureResult measure(const compiler::tune::Candidate& c, double stop_above) const override;

 private:
  const isa::Layout* layout_;
  const isa::Platform* platform_;
  compiler::ops::Conv2dEpilogue conv_e_;
  compiler::ops::DenseEpilogue dense_e_;
  // The fixed random data, made once per shape (a measurer serves one task, so one shape;
  // drawing it per trial cost as much as compiling).
  mutable std::mutex data_m_;
  mutable std::shared_ptr<const Conv2dData> conv_data_;
  mutable std::shared_ptr<const std::vector<int8_t>> dense_a_, dense_w_;
  mutable compiler::ops::Conv2dShape conv_data_shape_;
  mutable compiler::ops::DenseShape dense_data_shape_;
};

}  // namespace weft::rt::tune
