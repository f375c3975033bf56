// The int8 form of a MatMul of two activations; see quantize_matmul.h.
#include "compiler/graph/quantize_matmul.h"

#include <cmath>
#include <numeric>

namespace weft::compiler::graph {

ValueId add_reshape(Graph& q, ValueId v, const std::vector<int64_t>& to, const std::string& as) {
  const std::vector<int32_t> d(to.begin(), to.end());
  const ValueId sv = q.add_constant(as + ".shape", TensorType(DType::I32, {int64_t(to.size())}),
                                    ConstData::from_i32(d));
  return q.add_op(OpKind::Reshape, as, {v, sv}, {});
}

bool is_batched_product(const TensorType& a, const TensorType& b) {
  if (a.rank() < 2 || a.rank() != b.rank()) return false;
  for (int64_t d = 0; d + 2 < a.rank(); ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return a.shape.back() == b.shape[b.rank() - 2];
}

ValueId quantize_activation_matmul(Graph& q, const ActivationProduct& p) {
  const TensorType& at = q.value(p.a_q).type;
  const std::vector<int64_t> bshape = q.value(p.b_f32).type.shape;
  const int64_t r = at.rank(), M = at.shape[r - 2], K = at.shape[r - 1], N = bshape[r - 1];
  const int64_t S = std::accumulate(at.shape.begin(), at.shape.end() - 2, int64_t{1},
                                    [](int64_t x, int64_t y) { return x * y; });
  // w = B with its last two axes swapped: [..., N, K], the dense layer's [out, in] rows.
  std::vector<int64_t> perm(static_cast<size_t>(r));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[r - 2], perm[r - 1]);
  ValueId b = p.b_f32;
  const Node* bt = q.producer(b);
  if (p.b_sole_use && bt && bt->kind == OpKind::Transpose) {
    // B = Transpose(u, t) read only here: one Transpose of u by the composition (K's transpose
    // to heads and this one become the same perm as Q's and V's).
    const std::vector<int64_t> t = bt->get_ints("perm");
    for (auto& a : perm) a = t.at(static_cast<size_t>(a));
    b = bt->inputs[0];
  }
  const ValueId wt = q.add_op(OpKind::Transpose, p.name + ".wT", {b}, {{"perm", perm}});
  const ValueId wq = q.add_op(OpKind::Quantize, p.name + ".wT.q", {wt},
                              {{"out_scale", std::ldexp(1.0, p.b_exponent)}});
  const ValueId x2 = add_reshape(q, p.a_q, {S * M, K}, p.name + ".rows");
  const ValueId w2 = add_reshape(q, wq, {S * N, K}, p.name + ".wT.rows");
  // No bias: only the epilogue's rounding term, so that its floor shift rounds half up.
  const std::vector<int32_t> bias(static_cast<size_t>(N),
                                  p.shift > 0 ? int32_t{1} << (p.shift - 1) : 0);
  const ValueId bv = q.add_constant(p.name + ".bias", TensorType(DType::I32, {N}),
                                    ConstData::from_i32(bias));
  NodeFacts f;
  f.shift = p.shift;
  f.relu = false;
  f.slices = S;
  const ValueId y2 = q.add_op(OpKind::QDense, p.name + ".2d", {x2, w2, bv},
                              {{"out_scale", p.out_scale}}, f);
  return add_reshape(q, y2, p.out_shape, p.name);
}

}  // namespace weft::compiler::graph
