// The cycle model's data path; see datapath.h.
#include "simulator/cycle/datapath.h"

#include <cstring>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"

namespace weft::sim::cycle {

Datapath::Datapath(const isa::Layout& l)
    : l_(l),
      batch_(l.config.batch()),
      bin_(l.config.block_in()),
      bout_(l.config.block_out()),
      uop_dst_(static_cast<size_t>(l.uop_depth)),
      uop_src_(static_cast<size_t>(l.uop_depth)),
      uop_wgt_(static_cast<size_t>(l.uop_depth)),
      inp_(static_cast<size_t>(l.inp_depth * batch_ * bin_)),
      wgtt_(static_cast<size_t>(l.wgt_depth * bin_ * bout_)),
      acc_(static_cast<size_t>(l.acc_depth * batch_ * bout_)) {}

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
    case isa::MemType::kInp: {
      int16_t* d = &inp_[index * batch_ * bin_];
      for (int i = 0; i < batch_ * bin_; ++i) d[i] = src ? static_cast<int8_t>(src[i]) : 0;
      return;
    }
    case isa::MemType::kWgt: {
      int16_t* d = &wgtt_[index * bin_ * bout_];
      for (int o = 0; o < bout_; ++o) {
        for (int c = 0; c < bin_; ++c) {
          d[c * bout_ + o] = src ? static_cast<int8_t>(src[o * bin_ + c]) : 0;
        }
      }
      return;
    }
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

void Datapath::read_out_elem(int64_t index, uint8_t* dst) const {
  const int32_t* s = &acc_[index * batch_ * bout_];
  for (int i = 0; i < batch_ * bout_; ++i) dst[i] = static_cast<uint8_t>(s[i]);
}

namespace {

// acc[b][o] += sum_c x[b][c] * wt[c][o] with wrapping int32 accumulation. Fixed sizes let the
// compiler unroll and vectorize over o; target_clones adds an AVX2 version chosen at load time
// (GCC only: clang does not multiversion function templates, and clang builds the fuzz targets).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WEFT_CLONES_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define WEFT_CLONES_AVX2
#endif

template <int B, int BI, int BO>
WEFT_CLONES_AVX2 void gemm_fixed(int32_t* __restrict acc, const int16_t* __restrict x,
                                 const int16_t* __restrict wt) {
  for (int b = 0; b < B; ++b) {
    uint32_t sum[BO] = {};
    for (int c = 0; c < BI; ++c) {
      const int32_t xv = x[b * BI + c];
      for (int o = 0; o < BO; ++o) sum[o] += static_cast<uint32_t>(xv * wt[c * BO + o]);
    }
    for (int o = 0; o < BO; ++o) {
      acc[b * BO + o] = static_cast<int32_t>(static_cast<uint32_t>(acc[b * BO + o]) + sum[o]);
    }
  }
}

void gemm_any(int batch, int bin, int bout, int32_t* acc, const int16_t* x, const int16_t* wt) {
  for (int b = 0; b < batch; ++b) {
    for (int c = 0; c < bin; ++c) {
      const int32_t xv = x[b * bin + c];
      for (int o = 0; o < bout; ++o) {
        acc[b * bout + o] = static_cast<int32_t>(static_cast<uint32_t>(acc[b * bout + o]) +
                                                 static_cast<uint32_t>(xv * wt[c * bout + o]));
      }
    }
  }
}

}  // namespace

void Datapath::gemm(int64_t dst, int64_t src, int64_t wgt, bool reset) {
  int32_t* acc = &acc_[dst * batch_ * bout_];
  if (reset) {
    std::memset(acc, 0, sizeof(int32_t) * batch_ * bout_);
    return;
  }
  const int16_t* x = &inp_[src * batch_ * bin_];
  const int16_t* w = &wgtt_[wgt * bin_ * bout_];
  if (batch_ == 8 && bin_ == 8 && bout_ == 8) return gemm_fixed<8, 8, 8>(acc, x, w);
  if (batch_ == 1 && bin_ == 16 && bout_ == 16) return gemm_fixed<1, 16, 16>(acc, x, w);
  if (batch_ == 1 && bin_ == 4 && bout_ == 4) return gemm_fixed<1, 4, 4>(acc, x, w);
  gemm_any(batch_, bin_, bout_, acc, x, w);
}

namespace {
// Deliberately written again rather than shared with the functional model: the equivalence
// tests compare two independent implementations.
inline int32_t alu_op(isa::AluOp op, int32_t a, int32_t b) {
  switch (op) {
    case isa::AluOp::kMin:
      return a < b ? a : b;
    case isa::AluOp::kMax:
      return a > b ? a : b;
    case isa::AluOp::kAdd:
      return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case isa::AluOp::kMul:
      return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
    case isa::AluOp::kShr: {
      const int32_t sh = static_cast<int32_t>(static_cast<uint32_t>(b) << 27) >> 27;
      return sh >= 0 ? a >> sh : static_cast<int32_t>(static_cast<uint32_t>(a) << -sh);
    }
  }
  return a;
}
}  // namespace

void Datapath::alu(isa::AluOp op, int64_t dst, int64_t src, bool use_imm, int32_t imm) {
  const int lanes = batch_ * bout_;
  int32_t* d = &acc_[dst * lanes];
  if (use_imm) {
    for (int e = 0; e < lanes; ++e) d[e] = alu_op(op, d[e], imm);
  } else {
    const int32_t* s = &acc_[src * lanes];
    for (int e = 0; e < lanes; ++e) d[e] = alu_op(op, d[e], s[e]);
  }
}

}  // namespace weft::sim::cycle
