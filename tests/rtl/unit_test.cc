// Unit testbenches of the RTL units that carry risk (label `rtl`), each Verilated alone with
// the `tiny` configuration: the token queue (visibility one cycle after a push, overflow),
// the tensor ALU and the GEMM core (random operands against a reference written here), and
// the read DMA with padding (every element of a padded tile, and the completion cycle of the
// cycle model's ReadDma under the same memory timing).
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>

#include "Vunit_alu.h"
#include "Vunit_gemm_core.h"
#include "Vunit_read_dma.h"
#include "Vunit_token_queue.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/datapath.h"
#include "simulator/cycle/read_dma.h"
#include "simulator/memory/axi_memory.h"

namespace weft::test {
namespace {

template <class M>
void clock(M& m) {
  m.clk_i = 0;
  m.eval();
  m.clk_i = 1;
  m.eval();
}

TEST(RtlTokenQueue, PushVisibleNextCycleAndOverflowFlagged) {
  auto ctx = std::make_unique<VerilatedContext>();
  Vunit_token_queue q(ctx.get());  // DEPTH = 4
  q.rst_ni = 0;
  q.clear_i = 0;
  q.push_n_i = 0;
  q.pop_i = 0;
  clock(q);
  q.rst_ni = 1;
  clock(q);
  q.clk_i = 0;
  q.eval();
  EXPECT_EQ(q.avail_o, 0);
  q.push_n_i = 1;  // pushed in this cycle ...
  q.eval();
  EXPECT_EQ(q.avail_o, 0);  // ... not visible yet
  clock(q);
  q.push_n_i = 0;
  q.clk_i = 0;
  q.eval();
  EXPECT_EQ(q.avail_o, 1);  // visible in the next cycle
  q.pop_i = 1;
  clock(q);
  q.pop_i = 0;
  q.clk_i = 0;
  q.eval();
  EXPECT_EQ(q.avail_o, 0);
  q.push_n_i = 3;  // several pushes in one cycle (compute completions that coincide)
  clock(q);
  q.push_n_i = 1;
  clock(q);
  q.push_n_i = 0;
  q.clk_i = 0;
  q.eval();
  EXPECT_EQ(q.count_o, 4);
  EXPECT_EQ(q.overflow_o, 0);  // full, not over
  q.push_n_i = 1;
  clock(q);
  q.push_n_i = 0;
  q.clk_i = 0;
  q.eval();
  EXPECT_EQ(q.overflow_o, 1);  // a fifth token: an error, never a silent drop
  q.clear_i = 1;
  clock(q);
  q.clear_i = 0;
  q.clk_i = 0;
  q.eval();
  EXPECT_EQ(q.count_o, 0);
  EXPECT_EQ(q.overflow_o, 0);
}

int32_t alu_ref(int op, int32_t a, int32_t b) {
  switch (op) {
    case 0: return std::min(a, b);
    case 1: return std::max(a, b);
    case 2: return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case 3: {
      int sh = static_cast<int>(static_cast<uint32_t>(b) & 31u);
      if (sh >= 16) sh -= 32;  // the low 5 bits as a signed number
      return sh >= 0 ? (a >> sh) : static_cast<int32_t>(static_cast<uint32_t>(a) << -sh);
    }
    default: return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
  }
}

TEST(RtlAlu, EveryOpcodeMatchesTheReferenceOnRandomAndEdgeOperands) {
  auto ctx = std::make_unique<VerilatedContext>();
  Vunit_alu alu(ctx.get());  // tiny: 4 int32 lanes
  std::mt19937 rng(7);
  const int32_t edges[] = {0, 1, -1, 15, 16, -16, -17, 31, 0x7FFFFFFF, INT32_MIN};
  int checked = 0;
  for (int op = 0; op < 5; ++op) {
    for (int it = 0; it < 400; ++it) {
      int32_t a[4], b[4];
      for (int l = 0; l < 4; ++l) {
        a[l] = it < 100 ? edges[(it + l) % 10] : static_cast<int32_t>(rng());
        b[l] = it < 100 ? edges[(it / 10 + l) % 10] : static_cast<int32_t>(rng());
        if (op == 3 && it >= 100) b[l] = static_cast<int32_t>(rng() % 64) - 32;
      }
      alu.op_i = op;
      std::memcpy(alu.a_i.data(), a, 16);
      std::memcpy(alu.b_i.data(), b, 16);
      alu.eval();
      for (int l = 0; l < 4; ++l) {
        ASSERT_EQ(static_cast<int32_t>(alu.y_o[l]), alu_ref(op, a[l], b[l]))
            << "op " << op << " a " << a[l] << " b " << b[l];
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 5 * 400 * 4);
}

TEST(RtlGemmCore, RandomBlocksMatchTheReference) {
  auto ctx = std::make_unique<VerilatedContext>();
  Vunit_gemm_core g(ctx.get());  // tiny: 1 x 4 x 4
  std::mt19937 rng(11);
  for (int it = 0; it < 2000; ++it) {
    int8_t inp[4], wgt[16];
    int32_t acc[4];
    for (auto& v : inp) v = static_cast<int8_t>(it < 10 ? -128 : rng());
    for (auto& v : wgt) v = static_cast<int8_t>(it < 10 ? -128 : rng());
    for (auto& v : acc) v = static_cast<int32_t>(rng());
    uint32_t inp_word;
    std::memcpy(&inp_word, inp, 4);
    g.inp_i = inp_word;
    std::memcpy(g.wgt_i.data(), wgt, 16);
    std::memcpy(g.acc_i.data(), acc, 16);
    g.eval();
    for (int o = 0; o < 4; ++o) {
      uint32_t sum = static_cast<uint32_t>(acc[o]);
      for (int c = 0; c < 4; ++c) sum += static_cast<uint32_t>(inp[c] * wgt[o * 4 + c]);
      ASSERT_EQ(static_cast<uint32_t>(g.acc_o[o]), sum) << "iteration " << it << " lane " << o;
    }
  }
}

// One LOAD through the RTL read DMA with the `sim` platform's memory timing; returns the
// tile it wrote (element index -> bytes) and compares its timing with the cycle model's DMA.
void check_load(const isa::Insn& insn, uint64_t start) {
  const isa::Layout& l = isa::layout_for("tiny");
  const isa::Platform& p = isa::find_platform("sim");
  const int64_t e = l.elem_bytes(insn.mem());
  std::vector<uint8_t> dram(1 << 16);
  for (size_t i = 0; i < dram.size(); ++i) dram[i] = static_cast<uint8_t>(i * 7 + 3);

  auto ctx = std::make_unique<VerilatedContext>();
  Vunit_read_dma d(ctx.get());
  d.rst_ni = 0;
  d.start_i = 0;
  d.ar_grant_i = 0;
  d.r_valid_i = 0;
  clock(d);
  d.rst_ni = 1;
  clock(d);

  sim::AxiMemory mem(p);
  sim::cycle::Datapath dp(l);
  sim::cycle::ReadDma model(l, p, insn, start, dp, dram);
  const std::vector<uint8_t> bin = isa::encode_program(l, {insn});
  std::memcpy(d.insn_i.data(), bin.data(), 16);

  std::map<int64_t, std::vector<uint8_t>> tile;
  struct Beat { uint64_t cycle, addr; };
  std::deque<Beat> beats;
  uint64_t done = 0, stalls = 0;
  bool finished = false;
  for (uint64_t t = 0; t < start + 10000 && !finished; ++t) {
    d.start_i = t == start;
    d.ar_grant_i = 0;
    d.r_valid_i = 0;
    if (!beats.empty() && beats.front().cycle == t) {
      d.r_valid_i = 1;
      std::memcpy(d.r_data_i.data(), &dram[beats.front().addr], 16);
      beats.pop_front();
    }
    d.clk_i = 0;
    d.eval();
    if (d.ar_valid_o && mem.next_read_slot(t) == t) {
      d.ar_grant_i = 1;
      d.eval();
      const uint32_t n = d.ar_len_o + 1u;
      const uint64_t first = mem.accept_read(t, n);
      for (uint32_t k = 0; k < n; ++k) beats.push_back({first + k, d.ar_addr_o + 16ull * k});
      // the cycle model's DMA, granted at the same cycle
      ASSERT_TRUE(model.requesting());
      ASSERT_EQ(model.next_beats(), n);
      model.accepted(t, first);
    }
    if (d.wr_valid_o) {
      for (int lane = 0; lane < 4; ++lane) {
        if (!((d.wr_mask_o >> lane) & 1)) continue;
        const int64_t idx = d.wr_idx_o + lane;
        auto& el = tile[idx];
        el.resize(e);
        if (e <= 16) {
          std::memcpy(el.data(), reinterpret_cast<const uint8_t*>(d.wr_data_o.data()) + lane * e, e);
        } else {
          std::memcpy(el.data() + 16 * d.wr_slice_o, d.wr_data_o.data(), 16);
        }
      }
    }
    if (d.pad_valid_o) {
      for (int lane = 0; lane < 4; ++lane)
        if ((d.pad_mask_o >> lane) & 1) tile[d.pad_idx_o + lane].assign(e, 0);
    }
    if (d.stall_o) ++stalls;
    if (d.done_o) {
      done = t;
      finished = true;
    }
    d.clk_i = 1;
    d.eval();
  }
  ASSERT_TRUE(finished) << "the DMA never completed";
  ASSERT_FALSE(model.requesting());
  EXPECT_EQ(done, model.done()) << "completion cycle differs from the cycle model's";
  EXPECT_EQ(stalls, model.dram_stall());
  // Every element of the padded tile: zeros in the padding, DRAM bytes elsewhere.
  const int64_t rows = insn.y_pad_0 + insn.y_size + insn.y_pad_1;
  const int64_t cols = insn.x_pad_0 + insn.x_size + insn.x_pad_1;
  EXPECT_EQ(static_cast<int64_t>(tile.size()), rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t y = r - insn.y_pad_0, x = c - insn.x_pad_0;
      std::vector<uint8_t> want(e, 0);
      if (y >= 0 && y < insn.y_size && x >= 0 && x < insn.x_size) {
        const uint64_t a = static_cast<uint64_t>((insn.dram_base + y * insn.x_stride + x) * e);
        std::memcpy(want.data(), &dram[a], e);
      }
      ASSERT_EQ(tile[insn.sram_base + r * cols + c], want) << "element row " << r << " col " << c;
    }
  }
}

isa::Insn load(isa::MemType t, int64_t sram, int64_t dram, int64_t y, int64_t x, int64_t stride,
               int yp0, int yp1, int xp0, int xp1) {
  isa::Insn i;
  i.opcode = static_cast<int>(isa::Opcode::kLoad);
  i.memory_type = static_cast<int>(t);
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  i.y_pad_0 = yp0;
  i.y_pad_1 = yp1;
  i.x_pad_0 = xp0;
  i.x_pad_1 = xp1;
  return i;
}

TEST(RtlReadDma, PaddedTilesOfEveryElementSize) {
  // tiny: INP 4-byte elements (4 a beat), WGT 16 (one a beat), UOP 4; odd strides and
  // bases so that rows start mid-beat, padding on every side.
  check_load(load(isa::MemType::kInp, 3, 5, 3, 5, 7, 1, 2, 2, 1), 2);
  check_load(load(isa::MemType::kInp, 0, 1, 4, 9, 13, 3, 0, 0, 3), 0);
  check_load(load(isa::MemType::kWgt, 1, 3, 2, 3, 4, 2, 1, 1, 2), 5);
  check_load(load(isa::MemType::kUop, 7, 9, 2, 6, 6, 0, 0, 3, 0), 1);
  check_load(load(isa::MemType::kInp, 0, 0, 0, 4, 4, 2, 1, 0, 0), 3);  // padding only
  check_load(load(isa::MemType::kInp, 0, 1000, 2, 40, 1100, 0, 1, 1, 1), 1);  // 4 KiB crossing
}

}  // namespace
}  // namespace weft::test
