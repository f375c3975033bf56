// Shared CPU schedule pieces; see schedules.h.
#include "compiler/ops/cpu/schedules.h"

namespace weft::compiler::ops::cpu {

using ir::Expr;
using ir::ForKind;

void schedule_blocked(te::Stage& st, int64_t vec) {
  const auto axes = st.axes();
  const te::IterVar last = axes.back();
  if (last->extent > vec) {
    auto [o, i] = st.split(last, vec);
    st.set_kind(i, ForKind::kVectorized);
  } else {
    st.set_kind(last, ForKind::kVectorized);
  }
  // The channel-block axis of a blocked tensor (the batch is usually 1), else the first.
  if (axes.size() > 1) st.set_kind(axes[axes.size() >= 3 ? 1 : 0], ForKind::kParallel);
}

int64_t vector_width(int64_t extent, int64_t max) {
  for (int64_t w = max; w >= 4; w /= 2)
    if (extent % w == 0) return w;
  return 1;
}

void vectorize_inner(te::Stage& st) {
  const te::IterVar last = st.axes().back();
  const int64_t w = vector_width(last->extent);
  if (w == last->extent) {
    st.set_kind(last, ForKind::kVectorized);
  } else if (w > 1) {
    auto [o, i] = st.split(last, w);
    st.set_kind(i, ForKind::kVectorized);
  }
}

void schedule_window(te::Stage& st) {
  const auto ax = st.axes();
  const auto red = st.reduce_axes();
  const int64_t w = vector_width(ax.back()->extent, 16);
  if (w == 1) {
    std::vector<te::IterVar> order(ax.begin(), ax.end());
    order.insert(order.end(), red.begin(), red.end());
    st.reorder(order);
    return;
  }
  std::vector<te::IterVar> order(ax.begin(), ax.end() - 1);
  te::IterVar inner = ax.back();
  if (w < ax.back()->extent) {
    auto [o, i] = st.split(ax.back(), w);
    order.push_back(o);
    inner = i;
  }
  order.insert(order.end(), red.begin(), red.end());
  order.push_back(inner);
  st.reorder(order);
  st.set_kind(inner, ForKind::kVectorized);
}

te::Tensor crop(const te::Tensor& src, const std::vector<int64_t>& shape, const std::string& name) {
  return te::compute(
      shape, src->dtype, [&](const std::vector<Expr>& i) { return src(i); }, name);
}

Expr pair16(const Expr& lo, const Expr& hi) {
  const ir::DType i32 = ir::DType::kInt32;
  return ir::add(ir::floormod(ir::cast(i32, lo), ir::imm(65536, i32)),
                 ir::mul(ir::cast(i32, hi), ir::imm(65536, i32)));
}

Expr signed_byte(const Expr& word, int64_t b) {
  const ir::DType i32 = ir::DType::kInt32;
  const Expr u =
      ir::floormod(ir::floordiv(word, ir::imm(int64_t{1} << (8 * b), i32)), ir::imm(256, i32));
  return ir::sub(u, ir::mul(ir::floordiv(u, ir::imm(128, i32)), ir::imm(256, i32)));
}

Expr offset_quad(const Expr& word) {
  const ir::DType i32 = ir::DType::kInt32;
  return byte_quad(
      [&](int64_t b) {
        // Byte b's bits as 0..255 (floor division and modulo by powers of two: a shift and a
        // mask); byte_quad's offset needs them only modulo 256.
        return ir::floormod(ir::floordiv(word, ir::imm(int64_t{1} << (8 * b), i32)),
                            ir::imm(256, i32));
      },
      true);
}

Expr byte_quad(const std::function<Expr(int64_t)>& byte, bool offset) {
  const ir::DType i32 = ir::DType::kInt32;
  Expr sum;
  for (int64_t b = 0; b < 4; ++b) {
    const Expr v = ir::cast(i32, byte(b));
    Expr x;
    if (b < 3) {
      x = ir::floormod(offset ? ir::add(v, ir::imm(128, i32)) : v, ir::imm(256, i32));
    } else {  // the top byte as a signed value, so that the int32 does not overflow
      x = offset ? ir::sub(ir::floormod(v, ir::imm(256, i32)), ir::imm(128, i32)) : v;
    }
    if (b > 0) x = ir::mul(x, ir::imm(int64_t{1} << (8 * b), i32));
    sum = sum ? ir::add(sum, x) : x;
  }
  return sum;
}

}  // namespace weft::compiler::ops::cpu
