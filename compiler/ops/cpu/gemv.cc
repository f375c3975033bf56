// The matrix-vector form of the CPU dense operator; see gemv.h.
#include "compiler/ops/cpu/gemv.h"

#include <algorithm>

#include "compiler/ops/op_args.h"
#include "compiler/ops/tiling.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;

bool gemv_applies(int64_t m, int64_t n, int64_t k, const DenseSchedule& s) {
  return ((n == 1 && m > 1) || (m == 1 && n > 1)) && k >= s.cols;
}

LoweredOp gemv(int64_t m, int64_t k, ir::DType dtype, int64_t rows, int64_t lanes,
               bool vector_first) {
  const ir::DType acc = accumulator_of(dtype);
  const int64_t r = std::min(rows, m), mp = round_up(m, r);
  const int64_t steps = k / lanes, k0 = steps * lanes, tail = k - k0;
  // The arguments in dense's order (A, W): the matrix is A, or W when the vector comes first.
  te::Tensor a = te::placeholder({vector_first ? 1 : m, k}, dtype, "A");
  te::Tensor w = te::placeholder({vector_first ? m : 1, k}, dtype, "W");
  const te::Tensor& matrix = vector_first ? w : a;
  const te::Tensor& vec = vector_first ? a : w;
  auto product = [&](const Expr& row, const Expr& col) {
    Expr x = matrix({row, col}), y = vec({ir::imm(0), col});
    if (dtype != acc) x = ir::cast(acc, x), y = ir::cast(acc, y);
    return ir::mul(x, y);
  };
  // Lane l of row i sums K's columns l, l + lanes, ... below k0 (rows past M read row M-1).
  const te::IterVar ko = te::reduce_axis(steps, "ko");
  te::Tensor part = te::compute_reduce(
      {mp, lanes}, acc,
      [&](const std::vector<Expr>& i) {
        const Expr row = mp == m ? i[0] : ir::min(i[0], ir::imm(m - 1));
        return te::sum(product(row, ir::add(ir::mul(ir::ref(ko->var), ir::imm(lanes)), i[1])),
                       {ko});
      },
      "C.lanes");
  // C[i] = the lanes' sum, plus the columns from k0 on (fewer than `lanes`) in lanes below
  // `tail`.
  const te::IterVar l = te::reduce_axis(lanes, "l");
  te::Tensor c = te::compute_reduce(
      {m, 1}, acc,
      [&](const std::vector<Expr>& i) {
        Expr v = part({i[0], ir::ref(l->var)});
        if (tail > 0) {
          const Expr col = ir::min(ir::add(ir::ref(l->var), ir::imm(k0)), ir::imm(k - 1));
          v = ir::add(v, ir::select(ir::lt(ir::ref(l->var), ir::imm(tail)), product(i[0], col),
                                    ir::imm(0, acc)));
        }
        return te::sum(v, {l});
      },
      "C");
  te::Schedule s({c});
  te::Stage& sc = s[c];
  auto [io, ii] = sc.split(sc.axes()[0], r);
  sc.set_kind(io, ForKind::kParallel);
  s.set_scope(part, ir::Scope::kLocal);
  te::Stage& sp = s[part];
  sp.compute_at(sc, io);
  const te::IterVar pr = sp.axes()[0], pl = sp.axes()[1];
  sp.reorder({sp.reduce_axes()[0], pr, pl});
  sp.set_kind(pr, ForKind::kUnrolled);
  sp.set_kind(pl, ForKind::kVectorized);
  return lower_op(std::string("dense_") + ir::dtype_name(dtype), s, {a, w}, {c},
                  2.0 * static_cast<double>(m) * static_cast<double>(k));
}

}  // namespace weft::compiler::ops::cpu
