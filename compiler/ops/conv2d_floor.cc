// The ISA floor of a convolution; see conv2d_floor.h.
#include "compiler/ops/conv2d_floor.h"

#include <algorithm>

#include "compiler/ops/tiling.h"

namespace weft::compiler::ops {

namespace {

// Taps of a K-wide window that land inside the input, summed over the outputs of one axis.
int64_t inside_taps(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t pad) {
  int64_t t = 0;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t first = o * stride - pad;
    t += std::max<int64_t>(0, std::min(first + k, in) - std::max<int64_t>(first, 0));
  }
  return t;
}

}  // namespace

Conv2dFloor conv2d_floor(const isa::Layout& l, const Conv2dShape& s, const Conv2dEpilogue& e,
                         int64_t bus_bytes) {
  const auto& c = l.config;
  const int64_t nb = ceil_div(s.n, c.batch()), icb = ceil_div(s.ic, c.block_in()),
                ocb = ceil_div(s.oc, c.block_out());
  Conv2dFloor f;
  f.vectors = nb * ocb * s.out_h() * s.out_w();
  f.gemm_uops_all_taps = f.vectors * icb * s.k * s.k;
  f.gemm_uops = nb * ocb * icb * inside_taps(s.h, s.out_h(), s.k, s.stride, s.pad) *
                       inside_taps(s.w, s.out_w(), s.k, s.stride, s.pad);
  // init, shift, clip, bias, residual; the store_requant option does shift and clip on the STORE
  const bool on_store = c.options.has(isa::HwOption::kStoreRequant);
  f.epilogue_ops = 1 + (on_store ? 0 : (e.shift > 0 ? 1 : 0) + 2) + (e.bias ? 1 : 0) +
                   (e.residual ? 1 : 0);
  // On-chip elements are whole blocks: an INP element holds BATCH x BLOCK_IN int8 values.
  const int64_t bytes = nb * icb * s.h * s.w * l.inp_elem_bytes +
                        ocb * icb * s.k * s.k * l.wgt_elem_bytes +
                        f.vectors * l.out_elem_bytes * (e.residual ? 2 : 1);
  f.memory_cycles = ceil_div(bytes, bus_bytes);
  // The initialisation: one op, or a LOAD writing G rows a cycle where the bus is wider than a row.
  const int64_t g = std::max<int64_t>(1, bus_bytes / l.acc8_elem_bytes);
  const int64_t epilogue = f.vectors * (f.epilogue_ops - 1) + ceil_div(f.vectors, g);
  f.cycles = std::max(f.gemm_uops + epilogue, f.memory_cycles);
  f.cycles_all_taps = std::max(f.gemm_uops_all_taps + epilogue, f.memory_cycles);
  return f;
}

}  // namespace weft::compiler::ops
