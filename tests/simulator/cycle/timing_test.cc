// Exact cycle counts of small programs, computed by hand from docs/microarchitecture.md
// (gemm8x8 on the `sim` platform: 16-byte beats, read latency 32, write latency 16), and the
// latency-hiding property: two virtual threads finish sooner than the serialized program.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "hardware/isa/assembly.h"
#include "hardware/isa/encoding.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"

namespace weft::sim::cycle {
namespace {

// Lays a program out at byte 0 of a 64 KiB image and its micro-ops at byte 4096 (micro-op
// element 1024).
std::vector<uint8_t> image_of(const isa::Layout& l, const std::string& text,
                              const std::vector<isa::Uop>& uops, size_t* count) {
  const std::vector<isa::Insn> p = isa::parse_program(l, text, "test");
  const std::vector<uint8_t> bin = isa::encode_program(l, p);
  std::vector<uint8_t> img(64 << 10, 0);
  std::copy(bin.begin(), bin.end(), img.begin());
  for (size_t i = 0; i < uops.size(); ++i) isa::encode_uop(l, uops[i], &img[4096 + 4 * i], "uop");
  uint32_t x = 12345;  // tensor data (timing does not depend on it; results do)
  for (size_t b = 8192; b < 16384; ++b)
    img[b] = static_cast<uint8_t>((x = x * 1664525 + 1013904223) >> 24);
  for (size_t b = 32768; b < 40960; ++b)
    img[b] = static_cast<uint8_t>((x = x * 1664525 + 1013904223) >> 24);
  *count = p.size();
  return img;
}

CycleStats run_cycle(const std::string& config, const std::string& text,
                     std::vector<uint8_t>* out = nullptr, const std::vector<isa::Uop>& uops = {}) {
  const isa::Layout& l = isa::layout_for(config);
  size_t n = 0;
  std::vector<uint8_t> img = image_of(l, text, uops, &n);
  CycleSim sim(l, isa::find_platform("sim"));
  CycleStats s = sim.run(img, 0, n);
  if (out) *out = img;
  return s;
}

TEST(Timing, SingleLoad) {
  // Fetch: 2 beats arrive in 32, 33 -> dispatched 33, 34. LOAD starts 34, its 4 beats arrive
  // 66..69, the element is written in 70, the push is visible in 71, FINISH runs in 71.
  const CycleStats s =
      run_cycle("gemm8x8",
                "LOAD INP dram_base=64 y_size=1 x_size=1 x_stride=1 push_next_dep\n"
                "FINISH pop_prev_dep\n");
  EXPECT_EQ(s.cycles, 72u);
  EXPECT_EQ(s.load.stall_cmd_empty, 34u);
  EXPECT_EQ(s.load.busy, 2u);
  EXPECT_EQ(s.load.stall_dram, 35u);
  EXPECT_EQ(s.load.idle, 1u);
  EXPECT_EQ(s.compute.stall_cmd_empty, 35u);
  EXPECT_EQ(s.compute.stall_token, 36u);
  EXPECT_EQ(s.compute.busy, 1u);
  EXPECT_EQ(s.counters.inp_load_nbytes, 64u);
  EXPECT_EQ(s.insn_fetch_nbytes, 32u);
}

TEST(Timing, SingleGemm) {
  // LOAD UOP starts 34 (1 beat at 66, written 67); the GEMM starts 68 and issues 6 iterations
  // to distinct accumulators in 68..73; its last write lands in 76; FINISH waits for the drain
  // and runs in 77.
  const CycleStats s =
      run_cycle("gemm8x8",
                "LOAD UOP dram_base=1024 y_size=1 x_size=1 x_stride=1\n"
                "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=3 dst_factor_out=3 dst_factor_in=1\n"
                "FINISH\n");
  EXPECT_EQ(s.cycles, 78u);
  EXPECT_EQ(s.compute.busy, 2u + 6u + 1u);
  EXPECT_EQ(s.compute.stall_dram, 32u);
  EXPECT_EQ(s.compute.stall_drain, 3u);
  EXPECT_EQ(s.compute.stall_hazard, 0u);
  EXPECT_EQ(s.counters.gemm_counter, 6u);
}

TEST(Timing, AccumulatorHazardHoldsIssue) {
  // The same six iterations all accumulate into element 0: each waits P - 1 = 3 cycles for the
  // previous write, so they issue in 68, 71, ..., 83 and FINISH runs in 87.
  const CycleStats s = run_cycle("gemm8x8",
                                 "LOAD UOP dram_base=1024 y_size=1 x_size=1 x_stride=1\n"
                                 "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=3\n"
                                 "FINISH\n");
  EXPECT_EQ(s.cycles, 88u);
  EXPECT_EQ(s.compute.stall_hazard, 10u);
}

TEST(Timing, LoadGemmStoreChain) {
  // Hand schedule (docs/microarchitecture.md): LOAD UOP 34..67, LOAD INP 35..71 (its beats
  // queue behind the micro-op's on the read channel), LOAD WGT 72..108, GEMM issues in 109
  // and lands in 112, STORE starts 113, beats 114..117, response 133, FINISH runs in 134.
  const CycleStats s =
      run_cycle("gemm8x8",
                "LOAD UOP dram_base=1024 y_size=1 x_size=1 x_stride=1\n"
                "LOAD INP dram_base=128 y_size=1 x_size=1 x_stride=1\n"
                "LOAD WGT dram_base=192 y_size=1 x_size=1 x_stride=1 push_next_dep\n"
                "GEMM pop_prev_dep uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 push_next_dep\n"
                "STORE OUT dram_base=256 y_size=1 x_size=1 x_stride=1 pop_prev_dep push_prev_dep\n"
                "FINISH pop_next_dep\n");
  EXPECT_EQ(s.cycles, 135u);
  EXPECT_EQ(s.store.busy, 5u);
  EXPECT_EQ(s.store.stall_dram, 16u);
  EXPECT_EQ(s.counters.out_store_nbytes, 64u);
  EXPECT_EQ(s.write_bursts, 1u);
}

// `tiles` blocked-GEMM tiles on `vthreads` buffer slots with VTA-style tokens: a slot's next
// load waits for the compute that used it (WAR), compute waits for its loads (RAW) and for the
// store of the slot's previous tile, the store waits for compute. One slot serializes
// everything; two let the loads of one tile run under the compute of the other. Micro-op
// `slot` is {dst = 8 slot, src = 8 slot, wgt = slot}; the loops walk the slot's 8 elements.
std::string blocked_program(int tiles, int vthreads) {
  std::string p = "LOAD UOP dram_base=1024 y_size=1 x_size=" + std::to_string(vthreads) +
                  " x_stride=" + std::to_string(vthreads) + "\n";
  for (int t = 0; t < tiles; ++t) {
    const int slot = t % vthreads;
    const bool reuse = t >= vthreads;          // the slot was used before
    const bool reused = t + vthreads < tiles;  // the slot will be used again
    const std::string uop =
        " uop_bgn=" + std::to_string(slot) + " uop_end=" + std::to_string(slot + 1);
    p += "LOAD INP sram_base=" + std::to_string(8 * slot) +
         " dram_base=" + std::to_string(128 + 8 * t) + " y_size=1 x_size=8 x_stride=8" +
         (reuse ? " pop_next_dep" : "") + "\n";
    p += "LOAD WGT sram_base=" + std::to_string(slot) + " dram_base=" + std::to_string(512 + t) +
         " y_size=1 x_size=1 x_stride=1 push_next_dep\n";
    p += "GEMM reset_reg" + uop + " iter_out=1 iter_in=8 dst_factor_in=1 pop_prev_dep" +
         (reuse ? " pop_next_dep" : "") + "\n";
    p += "GEMM" + uop + " iter_out=4 iter_in=8 dst_factor_in=1 src_factor_in=1" +
         (reused ? " push_prev_dep" : "") + " push_next_dep\n";
    p += "STORE OUT sram_base=" + std::to_string(8 * slot) +
         " dram_base=" + std::to_string(256 + 8 * t) +
         " y_size=1 x_size=8 x_stride=8 pop_prev_dep" +
         (reused || t == tiles - 1 ? " push_prev_dep" : "") + "\n";
  }
  p += "FINISH pop_next_dep\n";
  return p;
}

std::vector<isa::Uop> slot_uops(int vthreads) {
  std::vector<isa::Uop> u;
  for (int s = 0; s < vthreads; ++s) u.push_back({8 * s, 8 * s, s});
  return u;
}

TEST(Timing, TwoVirtualThreadsOverlapLoadsWithCompute) {
  std::vector<uint8_t> serial_img, overlap_img;
  const CycleStats serial = run_cycle("gemm8x8", blocked_program(8, 1), &serial_img, slot_uops(1));
  const CycleStats overlap =
      run_cycle("gemm8x8", blocked_program(8, 2), &overlap_img, slot_uops(2));
  EXPECT_LT(overlap.cycles, serial.cycles);
  EXPECT_GT(overlap.utilization(), serial.utilization());
  EXPECT_EQ(serial.counters.gemm_counter, overlap.counters.gemm_counter);
  // Same tiles, same results: the output region (OUT elements 256..319) is identical.
  EXPECT_TRUE(std::equal(serial_img.begin() + 256 * 64, serial_img.begin() + 320 * 64,
                         overlap_img.begin() + 256 * 64));
  RecordProperty("serial_cycles", std::to_string(serial.cycles));
  RecordProperty("overlap_cycles", std::to_string(overlap.cycles));
}

}  // namespace
}  // namespace weft::sim::cycle
