// The int8 form of a MatMul of two activations (attention's Q.K^T and P.V), for quantize.cc:
// a batched weft.QDense (facts.def: `slices`) whose weight is the second operand, transposed
// in fp32 and quantized at run time, so that the accelerator's dense kernel runs it one
// batch/head slice per launch.
//
//   A [..., M, K] int8 --Reshape--> x [S*M, K]
//   B [..., K, N] fp32 --Transpose (last two axes; folded into B's own Transpose when B is
//     one read only here)--> [..., N, K] --weft.Quantize--> --Reshape--> w [S*N, K]
//   y = weft.QDense(x, w, rounding bias) {slices=S} [S*M, N] --Reshape--> [..., M, N]
//
// S is the product of the batch dimensions, which must be equal in A and B (no broadcasting).
#pragma once

#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// A Reshape of `v` to `to` (a constant shape named `as`.shape), named `as`.
ValueId add_reshape(Graph& q, ValueId v, const std::vector<int64_t>& to, const std::string& as);

/// True when a MatMul of `a` by `b` (both activations) has the batched dense form above: ranks
/// at least 2 and equal batch dimensions.
bool is_batched_product(const TensorType& a, const TensorType& b);

/// The operands and scales of one MatMul of two activations, as quantize.cc has them in `q`.
struct ActivationProduct {
  std::string name;              // the MatMul's output name
  ValueId a_q = kNone;           // A, int8
  ValueId b_f32 = kNone;         // B, fp32
  bool b_sole_use = false;       // B is read by this MatMul only (its Transpose may fold)
  int b_exponent = 0;            // B's scale 2^e
  int shift = 0;                 // e_out - e_a - e_b, >= 0
  double out_scale = 1.0;
  std::vector<int64_t> out_shape;
};

/// Emits the batched QDense of `p` into `q`; returns the int8 output of shape p.out_shape.
ValueId quantize_activation_matmul(Graph& q, const ActivationProduct& p);

}  // namespace weft::compiler::graph
