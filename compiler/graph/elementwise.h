// The float element-wise node kinds of the graph IR and their functions in compiler/ops
// (float_eltwise.h): one place that says which kind computes which function, read by the host
// interpreter (and through it the fp32 LLVM path's kernels).
#pragma once

#include <optional>

#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/graph/interpret_kernels.h"
#include "compiler/ops/float_eltwise.h"

namespace weft::compiler::graph {

/// The one-operand function of a Sigmoid, Tanh, Erf, Sqrt, HardSigmoid (its alpha and beta,
/// ONNX's defaults 0.2 and 0.5) or HardSwish node; nothing for another kind.
std::optional<ops::Unary> unary_of(const Node& n);

/// The two-operand function of an Add, Sub, Mul, Div or Pow node; nothing for another kind.
std::optional<ops::BinaryFn> binary_of(OpKind k);

/// Runs element-wise node `n` in T with the scalar functions: y = f(x), or y = f(x, z) with `x`
/// of shape `xs` and `z` of shape `zs` broadcast to `ys` (z unused for one operand). False,
/// computing nothing, when `n` is not a float element-wise node. (The int8 reference and the
/// executor's plain CPU kernels run the quantizer's fp32 nodes with it.)
template <typename T>
bool run_elementwise(const Node& n, const T* x, const std::vector<int64_t>& xs, const T* z,
                     const std::vector<int64_t>& zs, T* y, const std::vector<int64_t>& ys) {
  if (auto u = unary_of(n)) {
    int64_t count = 1;
    for (int64_t d : ys) count *= d;
    for (int64_t i = 0; i < count; ++i) y[i] = ops::apply<T>(*u, x[i]);
    return true;
  }
  if (auto f = binary_of(n.kind)) {
    broadcast_kernel<T>(x, xs, z, zs, y, ys, [&](T a, T b) { return ops::apply<T>(*f, a, b); });
    return true;
  }
  return false;
}

}  // namespace weft::compiler::graph
