// Test helpers: the dense operator in packed accelerator layouts, scheduled the VTA way
// (acc tiles per output tile, inp/wgt tiles per reduction step, block loops tensorized), and
// the interpreter semantics of the accelerator intrinsics (GEMM, GEMM reset, 2D DMA copy, ALU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/interpreter.h"
#include "compiler/te/lower.h"
#include "hardware/isa/insn.h"

namespace weft::compiler::te {

using ir::DType;

// Packed dense: A[mo, ko, mi, ki] . W[no, ko, ni, ki] -> C[mo, no, mi, ni] (int32).
struct PackedDense {
  PackedDense(const GemmIntrinsic& g, int64_t mo, int64_t no, int64_t ko, int64_t tm, int64_t tn,
              int64_t tk, bool dma_pragmas = false, int64_t vthreads = 1)
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
    if (vthreads > 1) {
      // Row tiles are dealt to `vthreads` virtual threads: split off the thread loop outermost.
      auto [vt, rest] = out.split(moo, moo->extent / vthreads);
      out.set_kind(vt, ir::ForKind::kVirtualThread);
    }
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

// One GEMM block: ACC[acc] += INP[inp] . WGT[wgt]^T (or ACC[acc] = 0).
inline void gemm_block(const GemmIntrinsic& g, std::vector<int64_t>& acc,
                       const std::vector<int64_t>* inp, const std::vector<int64_t>* wgt, int64_t a,
                       int64_t x, int64_t w) {
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t o = 0; o < g.block_out; ++o) {
      int64_t& out = acc[(a * g.batch + b) * g.block_out + o];
      if (!inp) {
        out = 0;
        continue;
      }
      int64_t s = 0;
      for (int64_t c = 0; c < g.block_in; ++c) {
        s += (*inp)[(x * g.batch + b) * g.block_in + c] *
             (*wgt)[(w * g.block_out + o) * g.block_in + c];
      }
      out = ir::wrap(out + s, DType::kInt32);
    }
  }
}

// The intrinsics' semantics, on the buffers the calls name: block calls, and the micro-op
// kernels of fold_uops (hardware loops around a micro-op list).
inline ir::IntrinsicImpls gemm_semantics(const GemmIntrinsic& g) {
  ir::IntrinsicImpls m;
  m[g.update] = [g](const ir::Call& call, const std::vector<int64_t>& a,
                    ir::BufferData& d) -> int64_t {
    gemm_block(g, d.at(call.buffers.at(0).get()), &d.at(call.buffers.at(1).get()),
               &d.at(call.buffers.at(2).get()), a[0], a[1], a[2]);
    return 0;
  };
  m[g.reset] = [g](const ir::Call& call, const std::vector<int64_t>& a,
                   ir::BufferData& d) -> int64_t {
    gemm_block(g, d.at(call.buffers.at(0).get()), nullptr, nullptr, a[0], 0, 0);
    return 0;
  };
  m[ir::Intrinsic::kGemmKernel] = [g](const ir::Call& call, const std::vector<int64_t>& a,
                                      ir::BufferData& d) -> int64_t {
    for (int64_t i = 0; i < a[0]; ++i) {
      for (int64_t j = 0; j < a[1]; ++j) {
        for (int64_t u = 0; u < a[8]; ++u) {
          const int64_t* f = &a[9 + 3 * u];
          gemm_block(g, d.at(call.buffers.at(0).get()), &d.at(call.buffers.at(1).get()),
                     &d.at(call.buffers.at(2).get()), f[0] + i * a[2] + j * a[3],
                     f[1] + i * a[4] + j * a[5], f[2] + i * a[6] + j * a[7]);
        }
      }
    }
    return 0;
  };
  m[ir::Intrinsic::kGemmResetKernel] = [g](const ir::Call& call, const std::vector<int64_t>& a,
                                           ir::BufferData& d) -> int64_t {
    for (int64_t i = 0; i < a[0]; ++i) {
      for (int64_t j = 0; j < a[1]; ++j) {
        for (int64_t u = 0; u < a[4]; ++u) {
          gemm_block(g, d.at(call.buffers.at(0).get()), nullptr, nullptr,
                     a[5 + u] + i * a[2] + j * a[3], 0, 0);
        }
      }
    }
    return 0;
  };
  return m;
}

/// Semantics of weft.dma_copy2d(dst, src, dst_base, src_base, y, x, dst_stride, src_stride):
/// whole blocks of the buffers' last two dimensions.
inline ir::IntrinsicImpl dma_semantics() {
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

/// One ALU lane as docs/isa.md defines it: `x op operand` on int32; MIN and MAX signed, ADD and
/// MUL wrap at 32 bits, SHR shifts arithmetically by the low 5 bits of the operand read as a
/// signed number (-16..15; negative shifts left).
inline int64_t alu_lane(isa::AluOp op, int64_t x, int64_t operand) {
  const auto x32 = static_cast<int32_t>(x), y32 = static_cast<int32_t>(operand);
  switch (op) {
    case isa::AluOp::kMin:
      return std::min(x32, y32);
    case isa::AluOp::kMax:
      return std::max(x32, y32);
    case isa::AluOp::kAdd:
      return static_cast<int32_t>(static_cast<uint32_t>(x32) + static_cast<uint32_t>(y32));
    case isa::AluOp::kMul:
      return static_cast<int32_t>(static_cast<uint32_t>(x32) * static_cast<uint32_t>(y32));
    case isa::AluOp::kShr: {
      const int shift = ((y32 & 31) ^ 16) - 16;
      return shift >= 0 ? x32 >> shift : static_cast<int32_t>(static_cast<uint32_t>(x32) << -shift);
    }
  }
  throw std::logic_error("alu_lane: unknown opcode");
}

/// DST[dst] = op(DST[dst], use_imm ? imm : SRC[src]) over one accumulator block (the last two
/// dimensions of the buffers: the call's destination and source operands, on the hardware both
/// the accumulator); the immediate is the instruction's signed 16-bit field.
inline void alu_block(const ir::Call& call, ir::BufferData& d, int64_t dst, int64_t src, int64_t op,
                      bool use_imm, int64_t imm) {
  const ir::Buffer& out = call.buffers.at(0);
  const size_t r = out->shape.size();
  const int64_t block = out->shape[r - 1] * out->shape[r - 2];
  const auto imm16 = static_cast<int16_t>(static_cast<uint16_t>(imm));
  std::vector<int64_t>& x = d.at(out.get());
  const std::vector<int64_t>& y = d.at(call.buffers.at(1).get());
  for (int64_t e = 0; e < block; ++e) {
    const int64_t operand = use_imm ? imm16 : y.at(static_cast<size_t>(src * block + e));
    int64_t& v = x.at(static_cast<size_t>(dst * block + e));
    v = alu_lane(static_cast<isa::AluOp>(op), v, operand);
  }
}

/// Semantics of the ALU block call `weft.alu(ACC, ACC, dst, src, op, use_imm, imm)` and of its
/// micro-op kernel `weft.alu_kernel(ACC, ACC, iter_out, iter_in, dst_out, dst_in, src_out,
/// src_in, op, use_imm, imm, n, dst_0, src_0, ...)`.
inline ir::IntrinsicImpls alu_semantics() {
  ir::IntrinsicImpls m;
  m[ir::Intrinsic::kAlu] = [](const ir::Call& call, const std::vector<int64_t>& a,
                              ir::BufferData& d) -> int64_t {
    alu_block(call, d, a.at(0), a.at(1), a.at(2), a.at(3) != 0, a.at(4));
    return 0;
  };
  m[ir::Intrinsic::kAluKernel] = [](const ir::Call& call, const std::vector<int64_t>& a,
                                    ir::BufferData& d) -> int64_t {
    for (int64_t i = 0; i < a.at(0); ++i) {
      for (int64_t j = 0; j < a.at(1); ++j) {
        for (int64_t u = 0; u < a.at(9); ++u) {
          const int64_t dst = a.at(10 + 2 * u) + i * a.at(2) + j * a.at(3);
          const int64_t src = a.at(11 + 2 * u) + i * a.at(4) + j * a.at(5);
          alu_block(call, d, dst, src, a.at(6), a.at(7) != 0, a.at(8));
        }
      }
    }
    return 0;
  };
  return m;
}

}  // namespace weft::compiler::te
