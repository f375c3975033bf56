// Cost-model features of an accelerator candidate, read from its lowered program (the ordered
// loads, stores, GEMM/ALU micro-op kernels and dependency tokens) without simulating it:
// operations and micro-ops per module, DMA bytes and bursts per memory type, padding, buffer
// occupancy, token traffic, reuse (MACs per DRAM byte), the compute and memory roofline terms
// and their bound, and the schedule's own knobs. accel_lower_bound is a cycle count no run of
// the program can beat, which the cycle measurer uses to stop hopeless candidates early.
#pragma once

#include "compiler/tune/accel_space.h"
#include "compiler/tune/features.h"

namespace weft::compiler::tune {

class AccelFeatures : public FeatureExtractor {
 public:
  AccelFeatures(const isa::Layout& layout, const isa::Platform& platform)
      : layout_(&layout), platform_(&platform) {}
  std::vector<std::string> names() const override;
  std::vector<float> extract(const Candidate& c) const override;

 private:
  const isa::Layout* layout_;
  const isa::Platform* platform_;
};

/// Cycles no run can beat: max(GEMM micro-ops on the compute module, DRAM bytes on the bus).
double accel_lower_bound(const AccelBody& b, const isa::Layout& layout,
                         const isa::Platform& platform);

}  // namespace weft::compiler::tune
