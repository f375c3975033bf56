// Test helpers: the dense operator in packed accelerator layouts, scheduled the VTA way
// (acc tiles per output tile, inp/wgt tiles per reduction step, block loops tensorized), and
// the interpreter semantics of the accelerator intrinsics (GEMM, GEMM reset, 2D DMA copy).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/interpreter.h"
#include "compiler/te/lower.h"

namespace weft::compiler::te {

using ir::DType;

// Packed dense: A[mo, ko, mi, ki] . W[no, ko, ni, ki] -> C[mo, no, mi, ni] (int32).
struct PackedDense {
  PackedDense(const GemmIntrinsic& g, int64_t mo, int64_t no, int64_t ko, int64_t tm, int64_t tn,
              int64_t tk, bool dma_pragmas = false)
      : g(g), mo(mo), no(no), ko(ko) {
    a = placeholder({mo, ko, g.batch, g.block_in}, DType::kInt8, "A");
    w = placeholder({no, ko, g.block_out, g.block_in}, DType::kInt8, "W");
    const IterVar rko = reduce_axis(ko, "ko"), rki = reduce_axis(g.block_in, "ki");
    c = compute_reduce(
        {mo, no, g.batch, g.block_out}, DType::kInt32,
        [&](const std::vector<ir::Expr>& i) {
          const ir::Expr k0 = ir::ref(rko->var), k1 = ir::ref(rki->var);
          return sum(ir::mul(ir::cast(DType::kInt32, a({i[0], k0, i[2], k1})),
                             ir::cast(DType::kInt32, w({i[1], k0, i[3], k1}))),
                     {rko, rki});
        },
        "C");
    s = std::make_unique<Schedule>(std::vector<Tensor>{c});
    c_acc = s->cache_write(c, ir::Scope::kAcc);
    a_inp = s->cache_read(a, ir::Scope::kInp, {c_acc});
    w_wgt = s->cache_read(w, ir::Scope::kWgt, {c_acc});
    Stage& out = (*s)[c];
    auto [moo, moi] = out.split(out.axes()[0], tm);
    auto [noo, noi] = out.split(out.axes()[1], tn);
    out.reorder({moo, noo, moi, noi});
    Stage& acc = (*s)[c_acc];
    acc.compute_at(out, noo);
    auto [koo, koi] = acc.split(acc.reduce_axes()[0], tk);
    const auto& ax = acc.axes();
    acc.reorder({koo, koi, ax[0], ax[1], ax[2], ax[3], acc.reduce_axes()[1]});
    acc.tensorize(ax[2], g);
    (*s)[a_inp].compute_at(acc, koo);
    (*s)[w_wgt].compute_at(acc, koo);
    if (dma_pragmas) {
      (*s)[a_inp].pragma((*s)[a_inp].axes()[0], "dma_copy");
      (*s)[w_wgt].pragma((*s)[w_wgt].axes()[0], "dma_copy");
      out.pragma(moi, "dma_copy");
    }
  }
  GemmIntrinsic g;
  int64_t mo, no, ko;
  Tensor a, w, c, c_acc, a_inp, w_wgt;
  std::unique_ptr<Schedule> s;
};

// The intrinsics' semantics, on the buffers the calls name.
inline std::map<std::string, ir::Intrinsic> gemm_semantics(const GemmIntrinsic& g) {
  std::map<std::string, ir::Intrinsic> m;
  m[g.name] = [g](const ir::Call& call, const std::vector<int64_t>& a,
                  ir::BufferData& d) -> int64_t {
    auto& acc = d.at(call.buffers.at(0).get());
    const auto& inp = d.at(call.buffers.at(1).get());
    const auto& wgt = d.at(call.buffers.at(2).get());
    for (int64_t b = 0; b < g.batch; ++b) {
      for (int64_t o = 0; o < g.block_out; ++o) {
        int64_t s = 0;
        for (int64_t c = 0; c < g.block_in; ++c) {
          s += inp[(a[1] * g.batch + b) * g.block_in + c] *
               wgt[(a[2] * g.block_out + o) * g.block_in + c];
        }
        int64_t& x = acc[(a[0] * g.batch + b) * g.block_out + o];
        x = ir::wrap(x + s, DType::kInt32);
      }
    }
    return 0;
  };
  m[g.reset_name] = [g](const ir::Call& call, const std::vector<int64_t>& a,
                        ir::BufferData& d) -> int64_t {
    auto& acc = d.at(call.buffers.at(0).get());
    for (int64_t e = 0; e < g.batch * g.block_out; ++e) acc[a[0] * g.batch * g.block_out + e] = 0;
    return 0;
  };
  return m;
}

/// Semantics of weft.dma_copy2d(dst, src, dst_base, src_base, y, x, dst_stride, src_stride):
/// whole blocks of the buffers' last two dimensions.
inline ir::Intrinsic dma_semantics() {
  return [](const ir::Call& call, const std::vector<int64_t>& a, ir::BufferData& d) -> int64_t {
    const ir::Buffer& dst = call.buffers.at(0);
    const ir::Buffer& src = call.buffers.at(1);
    const int64_t block = dst->shape[dst->shape.size() - 1] * dst->shape[dst->shape.size() - 2];
    auto& out = d.at(dst.get());
    const auto& in = d.at(src.get());
    for (int64_t y = 0; y < a[2]; ++y) {
      for (int64_t x = 0; x < a[3]; ++x) {
        for (int64_t e = 0; e < block; ++e) {
          out[(a[0] + y * a[4] + x) * block + e] =
              ir::wrap(in[(a[1] + y * a[5] + x) * block + e], dst->dtype);
        }
      }
    }
    return 0;
  };
}

}  // namespace weft::compiler::te
