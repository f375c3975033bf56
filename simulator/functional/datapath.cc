// Instruction semantics of the functional model; see datapath.h.
#include "simulator/functional/datapath.h"

#include <cstring>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/store_requant.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"

namespace weft::sim {

using isa::Insn;
using isa::MemType;

namespace {

// Copies one DRAM element of type t into on-chip element `dst` (or zeroes it for padding).
void put_elem(const isa::Layout& l, MemType t, OnChipBuffers& buf, int64_t dst,
              const uint8_t* src) {
  const size_t lanes = static_cast<size_t>(l.config.batch() * l.config.block_out());
  switch (t) {
    case MemType::kUop: {
      uint32_t w = 0;
      if (src) std::memcpy(&w, src, 4);
      buf.uop[dst] = w;
      break;
    }
    case MemType::kInp:
      if (src)
        std::memcpy(&buf.inp[dst * l.inp_elem_bytes], src, l.inp_elem_bytes);
      else
        std::memset(&buf.inp[dst * l.inp_elem_bytes], 0, l.inp_elem_bytes);
      break;
    case MemType::kWgt:
      if (src)
        std::memcpy(&buf.wgt[dst * l.wgt_elem_bytes], src, l.wgt_elem_bytes);
      else
        std::memset(&buf.wgt[dst * l.wgt_elem_bytes], 0, l.wgt_elem_bytes);
      break;
    case MemType::kAcc:
      if (src)
        std::memcpy(&buf.acc[dst * lanes], src, lanes * 4);  // little-endian host
      else
        std::memset(&buf.acc[dst * lanes], 0, lanes * 4);
      break;
    case MemType::kAcc8Bit:
      for (size_t k = 0; k < lanes; ++k) {
        buf.acc[dst * lanes + k] = src ? static_cast<int8_t>(src[k]) : 0;
      }
      break;
    case MemType::kOut:
      throw InternalError("LOAD OUT passed validation");
  }
}

uint64_t& load_counter(MemType t, VtaCounters& c) {
  switch (t) {
    case MemType::kUop:
      return c.uop_load_nbytes;
    case MemType::kInp:
      return c.inp_load_nbytes;
    case MemType::kWgt:
      return c.wgt_load_nbytes;
    default:
      return c.acc_load_nbytes;
  }
}

// Computes dst/src/wgt of one micro-op iteration.
struct Indices {
  int64_t dst, src, wgt;
};
Indices indices(const isa::Layout& l, const Insn& insn, const OnChipBuffers& buf, int64_t k,
                int64_t i, int64_t j) {
  const isa::Uop u = isa::decode_uop(l, reinterpret_cast<const uint8_t*>(&buf.uop[k]));
  return {u.dst + i * insn.dst_factor_out + j * insn.dst_factor_in,
          u.src + i * insn.src_factor_out + j * insn.src_factor_in,
          u.wgt + i * insn.wgt_factor_out + j * insn.wgt_factor_in};
}

void check_index(size_t index, const Insn& insn, int64_t k, int64_t i, int64_t j, const char* field,
                 int64_t value, const char* buffer, int64_t depth) {
  if (value >= depth)
    throw uop_index_out_of_range(index, insn, k, i, j, field, value, buffer, depth);
}

// Long loops look at the cancel flag every 2^16 micro-ops.
void poll(const std::atomic<bool>* cancel, uint64_t& counter) {
  if (cancel && (++counter & 0xFFFF) == 0 && cancel->load(std::memory_order_relaxed)) {
    throw RunCancelled();
  }
}

}  // namespace

void exec_load(const isa::Layout& l, const Insn& insn, const std::vector<uint8_t>& dram,
               OnChipBuffers& buf, VtaCounters& c) {
  if (insn.x_size == 0) return;
  const MemType t = insn.mem();
  const int64_t elem = l.elem_bytes(t);
  const int64_t cols = insn.x_pad_0 + insn.x_size + insn.x_pad_1;
  const int64_t rows = insn.y_pad_0 + insn.y_size + insn.y_pad_1;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t y = r - insn.y_pad_0;
    const bool row_pad = y < 0 || y >= insn.y_size;
    for (int64_t col = 0; col < cols; ++col) {
      const int64_t x = col - insn.x_pad_0;
      const bool pad = row_pad || x < 0 || x >= insn.x_size;
      const uint8_t* src = pad ? nullptr : &dram[(insn.dram_base + y * insn.x_stride + x) * elem];
      put_elem(l, t, buf, insn.sram_base + r * cols + col, src);
    }
  }
  load_counter(t, c) += static_cast<uint64_t>(insn.y_size * insn.x_size * elem);
}

void exec_store(const isa::Layout& l, const Insn& insn, std::vector<uint8_t>& dram,
                const OnChipBuffers& buf, VtaCounters& c) {
  if (insn.x_size == 0) return;
  const int64_t lanes = l.out_elem_bytes;  // one int8 per accumulator lane
  const isa::StoreRequant rq = isa::store_requant_of(l, insn);
  for (int64_t y = 0; y < insn.y_size; ++y) {
    for (int64_t x = 0; x < insn.x_size; ++x) {
      const int32_t* src = &buf.acc[(insn.sram_base + y * insn.x_size + x) * lanes];
      uint8_t* dst = &dram[(insn.dram_base + y * insn.x_stride + x) * lanes];
      for (int64_t k = 0; k < lanes; ++k) dst[k] = static_cast<uint8_t>(rq.narrow(src[k]));
    }
  }
  c.out_store_nbytes += static_cast<uint64_t>(insn.y_size * insn.x_size * lanes);
}

void exec_gemm(const isa::Layout& l, const Insn& insn, size_t index, OnChipBuffers& buf,
               VtaCounters& c, const std::atomic<bool>* cancel) {
  uint64_t polled = 0;
  const int batch = l.config.batch(), bin = l.config.block_in(), bout = l.config.block_out();
  for (int64_t i = 0; i < insn.iter_out; ++i) {
    for (int64_t j = 0; j < insn.iter_in; ++j) {
      for (int64_t k = insn.uop_bgn; k < insn.uop_end; ++k) {
        poll(cancel, polled);
        const Indices ix = indices(l, insn, buf, k, i, j);
        check_index(index, insn, k, i, j, "dst", ix.dst, "ACC", l.acc_depth);
        int32_t* acc = &buf.acc[ix.dst * batch * bout];
        if (insn.reset_reg) {
          std::memset(acc, 0, sizeof(int32_t) * batch * bout);
          continue;
        }
        check_index(index, insn, k, i, j, "src", ix.src, "INP", l.inp_depth);
        check_index(index, insn, k, i, j, "wgt", ix.wgt, "WGT", l.wgt_depth);
        const int8_t* inp = &buf.inp[ix.src * l.inp_elem_bytes];
        const int8_t* wgt = &buf.wgt[ix.wgt * l.wgt_elem_bytes];
        for (int b = 0; b < batch; ++b) {
          for (int o = 0; o < bout; ++o) {
            uint32_t sum = 0;  // int32 accumulation wraps
            for (int ci = 0; ci < bin; ++ci) {
              sum += static_cast<uint32_t>(int32_t{inp[b * bin + ci]} * wgt[o * bin + ci]);
            }
            acc[b * bout + o] =
                static_cast<int32_t>(static_cast<uint32_t>(acc[b * bout + o]) + sum);
          }
        }
      }
    }
  }
  if (!insn.reset_reg) {
    c.gemm_counter +=
        static_cast<uint64_t>(insn.iter_out * insn.iter_in * (insn.uop_end - insn.uop_bgn));
  }
}

int32_t alu_lane(isa::AluOp op, int32_t a, int32_t b) {
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
      // The low 5 bits of the operand, read as a signed number: -16..15.
      const int32_t amount = static_cast<int32_t>(static_cast<uint32_t>(b) << 27) >> 27;
      if (amount >= 0) return a >> amount;  // arithmetic shift
      return static_cast<int32_t>(static_cast<uint32_t>(a) << -amount);
    }
  }
  throw InternalError("alu_lane: bad ALU opcode");
}

void exec_alu(const isa::Layout& l, const Insn& insn, size_t index, OnChipBuffers& buf,
              VtaCounters& c, const std::atomic<bool>* cancel) {
  uint64_t polled = 0;
  const int lanes = l.config.batch() * l.config.block_out();
  const isa::AluOp op = insn.alu();
  const int32_t imm = static_cast<int32_t>(insn.imm);
  for (int64_t i = 0; i < insn.iter_out; ++i) {
    for (int64_t j = 0; j < insn.iter_in; ++j) {
      for (int64_t k = insn.uop_bgn; k < insn.uop_end; ++k) {
        poll(cancel, polled);
        const Indices ix = indices(l, insn, buf, k, i, j);
        check_index(index, insn, k, i, j, "dst", ix.dst, "ACC", l.acc_depth);
        int32_t* dst = &buf.acc[ix.dst * lanes];
        if (insn.use_imm) {
          for (int e = 0; e < lanes; ++e) dst[e] = alu_lane(op, dst[e], imm);
        } else {
          check_index(index, insn, k, i, j, "src", ix.src, "ACC", l.acc_depth);
          const int32_t* src = &buf.acc[ix.src * lanes];
          for (int e = 0; e < lanes; ++e) dst[e] = alu_lane(op, dst[e], src[e]);
        }
      }
    }
  }
  c.alu_counter +=
      static_cast<uint64_t>(insn.iter_out * insn.iter_in * (insn.uop_end - insn.uop_bgn));
}

}  // namespace weft::sim
