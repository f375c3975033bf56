// The GPU dense operator; see dense.h.
#include "compiler/ops/gpu/dense.h"

#include "hardware/isa/errors.h"

namespace weft::compiler::ops::gpu {

using ir::Expr;

LoweredOp dense(int64_t m, int64_t n, int64_t k, DType dtype, const GemmSchedule& s) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw UserError("dense: M, N and K must be positive (got " + std::to_string(m) + ", " +
                    std::to_string(n) + ", " + std::to_string(k) + ")");
  }
  te::Tensor a = te::placeholder({m, k}, dtype, "A");
  te::Tensor w = te::placeholder({n, k}, dtype, "W");
  GemmSpec spec;
  spec.name = "dense";
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.in = dtype;
  spec.a = [a](const Expr& i, const Expr& r) { return a({i, r}); };
  spec.b = [w](const Expr& j, const Expr& r) { return w({j, r}); };
  spec.inputs = {a, w};
  spec.ops = 2.0 * double(m) * double(n) * double(k);
  return gemm(spec, s);
}

}  // namespace weft::compiler::ops::gpu
