// The cycle model's data path; see datapath.h.
#include "simulator/cycle/datapath.h"

#include <cstring>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "simulator/common/program_error.h"

namespace weft::sim::cycle {

Datapath::Datapath(const isa::Layout& l, KernelIsa isa)
    : l_(l),
      batch_(l.config.batch()),
      bin_(l.config.block_in()),
      bout_(l.config.block_out()),
      kernel_(batch_, bin_, bout_, isa),
      uop_dst_(static_cast<size_t>(l.uop_depth)),
      uop_src_(static_cast<size_t>(l.uop_depth)),
      uop_wgt_(static_cast<size_t>(l.uop_depth)),
      inp_(static_cast<size_t>(l.inp_depth) * kernel_.inp_bytes()),
      wgt_(static_cast<size_t>(l.wgt_depth) * kernel_.wgt_bytes()),
      acc_(static_cast<size_t>(l.acc_depth * batch_ * bout_)) {
  // Power-on contents are zeros in every layout (packing zeros is not all-zero bytes).
  for (int64_t i = 0; i < l.inp_depth; ++i) {
    kernel_.pack_inp(nullptr, inp_.data() + i * kernel_.inp_bytes());
  }
  for (int64_t i = 0; i < l.wgt_depth; ++i) {
    kernel_.pack_wgt(nullptr, wgt_.data() + i * kernel_.wgt_bytes());
  }
}

void Datapath::write_elem(isa::MemType t, int64_t index, const uint8_t* src) {
  switch (t) {
    case isa::MemType::kUop: {
      uint8_t zero[4] = {0, 0, 0, 0};
      const isa::Uop u = isa::decode_uop(l_, src ? src : zero);
      uop_dst_[index] = static_cast<int32_t>(u.dst);
      uop_src_[index] = static_cast<int32_t>(u.src);
      uop_wgt_[index] = static_cast<int32_t>(u.wgt);
      return;
    }
    case isa::MemType::kInp:
      kernel_.pack_inp(src, inp_.data() + index * kernel_.inp_bytes());
      return;
    case isa::MemType::kWgt:
      kernel_.pack_wgt(src, wgt_.data() + index * kernel_.wgt_bytes());
      return;
    case isa::MemType::kAcc: {
      int32_t* d = &acc_[index * batch_ * bout_];
      if (src)
        std::memcpy(d, src, sizeof(int32_t) * batch_ * bout_);
      else
        std::memset(d, 0, sizeof(int32_t) * batch_ * bout_);
      return;
    }
    case isa::MemType::kAcc8Bit: {
      int32_t* d = &acc_[index * batch_ * bout_];
      for (int i = 0; i < batch_ * bout_; ++i) d[i] = src ? static_cast<int8_t>(src[i]) : 0;
      return;
    }
    case isa::MemType::kOut:
      break;
  }
  throw InternalError("write_elem: bad memory type");
}

void Datapath::read_out_elem(int64_t index, uint8_t* dst, const isa::StoreRequant& rq) const {
  const int32_t* s = &acc_[index * batch_ * bout_];
  if (!rq.on) {
    for (int i = 0; i < batch_ * bout_; ++i) dst[i] = static_cast<uint8_t>(s[i]);
    return;
  }
  for (int i = 0; i < batch_ * bout_; ++i) dst[i] = static_cast<uint8_t>(rq.narrow(s[i]));
}

void Datapath::gemm(int64_t dst, int64_t src, int64_t wgt, bool reset) {
  if (reset) {
    std::memset(&acc_[dst * batch_ * bout_], 0, sizeof(int32_t) * batch_ * bout_);
    return;
  }
  const int32_t d = static_cast<int32_t>(dst), s = static_cast<int32_t>(src);
  kernel_.rows(acc_.data(), inp_.data(), wgt_.data() + wgt * kernel_.wgt_bytes(), &d, &s, 1);
}

void Datapath::gemm_insn(const isa::Insn& in, const std::atomic<bool>* cancel) {
  const int64_t iters_out = in.iter_out, iters_in = in.iter_in;
  const int64_t bgn = in.uop_bgn, end = in.uop_end;
  if (iters_out <= 0 || iters_in <= 0 || end <= bgn) return;
  if (in.reset_reg) {
    const size_t row = sizeof(int32_t) * batch_ * bout_;
    for (int64_t i = 0; i < iters_out; ++i) {
      for (int64_t j = 0; j < iters_in; ++j) {
        const int64_t off = i * in.dst_factor_out + j * in.dst_factor_in;
        for (int64_t k = bgn; k < end; ++k) {
          std::memset(&acc_[(uop_dst_[k] + off) * batch_ * bout_], 0, row);
        }
      }
    }
    return;
  }
  // Iterations that use the same weight element are run as one list of rows. A loop level
  // whose weight factor is 0 keeps the weight, so it moves inside the list ("folded"); so do
  // consecutive micro-ops with the same weight index. The order of the additions changes,
  // the sums do not (int32 addition wraps, so it is associative and commutative).
  const bool fold_out = in.wgt_factor_out == 0, fold_in = in.wgt_factor_in == 0;
  const int64_t outer_i = fold_out ? 1 : iters_out, outer_j = fold_in ? 1 : iters_in;
  const int64_t inner_i = fold_out ? iters_out : 1, inner_j = fold_in ? iters_in : 1;
  constexpr int64_t kChunk = 1024;  // rows per kernel call at most
  constexpr int64_t kDirect = 8;    // micro-ops of one weight that need no row list
  const int64_t acc_row = int64_t{batch_} * bout_;
  rows_dst_.resize(kChunk);
  rows_src_.resize(kChunk);
  int32_t* rd = rows_dst_.data();
  int32_t* rs = rows_src_.data();
  int64_t done_rows = 0;
  // The folded levels' offsets, the same for every outer iteration and micro-op: with many of
  // them, a micro-op's rows are these offsets from its own indices.
  const int64_t folded = inner_i * inner_j;
  if (folded >= kDirect) {
    offs_dst_.resize(static_cast<size_t>(folded));
    offs_src_.resize(static_cast<size_t>(folded));
    for (int64_t ii = 0; ii < inner_i; ++ii) {
      for (int64_t jj = 0; jj < inner_j; ++jj) {
        offs_dst_[ii * inner_j + jj] =
            static_cast<int32_t>(ii * in.dst_factor_out + jj * in.dst_factor_in);
        offs_src_[ii * inner_j + jj] =
            static_cast<int32_t>(ii * in.src_factor_out + jj * in.src_factor_in);
      }
    }
  }
  for (int64_t oi = 0; oi < outer_i; ++oi) {
    for (int64_t oj = 0; oj < outer_j; ++oj) {
      for (int64_t k0 = bgn; k0 < end;) {
        int64_t k1 = k0 + 1;
        while (k1 < end && uop_wgt_[k1] == uop_wgt_[k0]) ++k1;
        const int64_t wgt = uop_wgt_[k0] + oi * in.wgt_factor_out + oj * in.wgt_factor_in;
        const uint8_t* w = wgt_.data() + wgt * kernel_.wgt_bytes();
        done_rows += (k1 - k0) * inner_i * inner_j;
        if (k1 - k0 >= kDirect) {
          // A long run of micro-ops: the kernel reads their indices where they are, from
          // accumulator and input bases moved by the loop offsets.
          for (int64_t ii = 0; ii < inner_i; ++ii) {
            for (int64_t jj = 0; jj < inner_j; ++jj) {
              const int64_t i = oi + ii, j = oj + jj;
              const int64_t dof = i * in.dst_factor_out + j * in.dst_factor_in;
              const int64_t sof = i * in.src_factor_out + j * in.src_factor_in;
              kernel_.rows(acc_.data() + dof * acc_row, inp_.data() + sof * kernel_.inp_bytes(), w,
                           uop_dst_.data() + k0, uop_src_.data() + k0, k1 - k0);
            }
          }
        } else if (folded >= kDirect) {
          for (int64_t k = k0; k < k1; ++k) {
            const int64_t d0 = uop_dst_[k] + oi * in.dst_factor_out + oj * in.dst_factor_in;
            const int64_t s0 = uop_src_[k] + oi * in.src_factor_out + oj * in.src_factor_in;
            kernel_.rows(acc_.data() + d0 * acc_row, inp_.data() + s0 * kernel_.inp_bytes(), w,
                         offs_dst_.data(), offs_src_.data(), folded);
          }
        } else {
          int64_t n = 0;
          for (int64_t ii = 0; ii < inner_i; ++ii) {
            for (int64_t jj = 0; jj < inner_j; ++jj) {
              const int64_t i = oi + ii, j = oj + jj;
              const int64_t dof = i * in.dst_factor_out + j * in.dst_factor_in;
              const int64_t sof = i * in.src_factor_out + j * in.src_factor_in;
              for (int64_t k = k0; k < k1; ++k) {
                rd[n] = static_cast<int32_t>(uop_dst_[k] + dof);
                rs[n] = static_cast<int32_t>(uop_src_[k] + sof);
                if (++n == kChunk) {
                  kernel_.rows(acc_.data(), inp_.data(), w, rd, rs, n);
                  n = 0;
                }
              }
            }
          }
          kernel_.rows(acc_.data(), inp_.data(), w, rd, rs, n);
        }
        if (cancel && done_rows >= (int64_t{1} << 16)) {
          done_rows = 0;
          if (cancel->load(std::memory_order_relaxed)) throw RunCancelled();
        }
        k0 = k1;
      }
    }
  }
}

namespace {
// Deliberately written again rather than shared with the functional model: the equivalence
// tests compare two independent implementations. One loop per operation, so that the lanes
// of an element vectorize.
template <typename Op>
void alu_iterations(const isa::Insn& in, const int32_t* uop_dst, const int32_t* uop_src,
                    int32_t* acc, int lanes, Op op) {
  const int32_t imm = static_cast<int32_t>(in.imm);
  for (int64_t i = 0; i < in.iter_out; ++i) {
    for (int64_t j = 0; j < in.iter_in; ++j) {
      const int64_t dof = i * in.dst_factor_out + j * in.dst_factor_in;
      const int64_t sof = i * in.src_factor_out + j * in.src_factor_in;
      for (int64_t k = in.uop_bgn; k < in.uop_end; ++k) {
        int32_t* d = acc + (uop_dst[k] + dof) * lanes;
        if (in.use_imm) {
          for (int e = 0; e < lanes; ++e) d[e] = op(d[e], imm);
        } else {
          const int32_t* s = acc + (uop_src[k] + sof) * lanes;
          for (int e = 0; e < lanes; ++e) d[e] = op(d[e], s[e]);
        }
      }
    }
  }
}
}  // namespace

void Datapath::alu_insn(const isa::Insn& in) {
  const int lanes = batch_ * bout_;
  const int32_t* dst = uop_dst_.data();
  const int32_t* src = uop_src_.data();
  int32_t* acc = acc_.data();
  switch (in.alu()) {
    case isa::AluOp::kMin:
      return alu_iterations(in, dst, src, acc, lanes,
                            [](int32_t a, int32_t b) { return a < b ? a : b; });
    case isa::AluOp::kMax:
      return alu_iterations(in, dst, src, acc, lanes,
                            [](int32_t a, int32_t b) { return a > b ? a : b; });
    case isa::AluOp::kAdd:
      return alu_iterations(in, dst, src, acc, lanes, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
      });
    case isa::AluOp::kMul:
      return alu_iterations(in, dst, src, acc, lanes, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
      });
    case isa::AluOp::kShr:
      return alu_iterations(in, dst, src, acc, lanes, [](int32_t a, int32_t b) {
        const int32_t sh = static_cast<int32_t>(static_cast<uint32_t>(b) << 27) >> 27;
        return sh >= 0 ? a >> sh : static_cast<int32_t>(static_cast<uint32_t>(a) << -sh);
      });
  }
}

}  // namespace weft::sim::cycle
