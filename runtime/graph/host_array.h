// The arrays a graph run takes and gives back: element type, logical shape (plain row-major
// layout) and the values widened to double (exact for float32, int8 and int32), so the fp32
// LLVM path and the float64 reference share one interface.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/graph/types.h"

namespace weft::rt::graph {

struct HostArray {
  compiler::graph::DType dtype = compiler::graph::DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> data;

  int64_t elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
};

}  // namespace weft::rt::graph
