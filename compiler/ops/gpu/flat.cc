// The GPU element-wise schedule; see flat.h.
#include "compiler/ops/gpu/flat.h"

namespace weft::compiler::ops::gpu {

void schedule_flat(te::Schedule& s, const te::Tensor& t, int64_t threads) {
  te::Stage& st = s[t];
  te::IterVar f = st.axes()[0];
  for (size_t d = 1; d < st.axes().size(); ++d) f = st.fuse(f, st.axes()[d]);
  auto [b, x] = st.split(f, threads);
  st.bind(b, te::ThreadAxis::kBlockX);
  st.bind(x, te::ThreadAxis::kThreadX);
}

LoweredOp flat_op(const std::string& name, const std::vector<te::Tensor>& inputs,
                  const std::vector<int64_t>& shape, ir::DType out,
                  const std::function<ir::Expr(const std::vector<ir::Expr>&)>& f) {
  te::Tensor y = te::compute(shape, out, f, name);
  te::Schedule s({y});
  schedule_flat(s, y);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return lower_op(name, s, inputs, {y}, double(n), "elementwise");
}

}  // namespace weft::compiler::ops::gpu
