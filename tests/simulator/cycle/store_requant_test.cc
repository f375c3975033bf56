// The store_requant hardware option (hardware/isa/store_requant.h) in both simulators, on the
// test configuration file that turns it on (tests/support/configs/b2x8x8.json): a STORE with
// requantization writes clamp(acc >> shift, lo, hi) on the functional and the cycle model alike
// (in the same cycles as a truncating STORE), a malformed requantization word is a named
// program error on both, and a configuration without the option still refuses STORE pads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "hardware/isa/store_requant.h"
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/program_builder.h"
#include "tests/support/reference.h"
#include "tests/support/test_configs.h"

namespace weft::test {
namespace {

using isa::MemType;
using ::testing::AllOf;
using ::testing::HasSubstr;

struct Ran {
  std::vector<int8_t> functional, cycle;
  uint64_t cycles = 0;
};

// Loads `values` into the accumulator and stores them with `rq` on both models.
Ran store_with(const isa::Layout& l, const std::vector<int32_t>& values,
               const isa::StoreRequant& rq) {
  const int64_t lanes = l.config.batch() * l.config.block_out();
  const int64_t n = static_cast<int64_t>(values.size()) / lanes;
  ProgramBuilder b(l);
  const int64_t acc = b.add_int32(values);
  const int64_t out = b.alloc(MemType::kOut, n);
  b.load_1d(MemType::kAcc, 0, acc, n, kPushNext);
  const size_t st = b.store(0, out, 1, n, n, kPopPrev | kPushPrev);
  isa::set_store_requant(b.at(st), rq);
  b.finish(kPopNext);
  const Program p = b.build();
  Ran r;
  Program f = p, c = p;
  sim::FunctionalSim(l).run(f.dram, f.insn_offset, f.insn_count);
  r.functional = f.int8s(MemType::kOut, out, n);
  sim::cycle::CycleSim cs(l, isa::find_platform("sim"));
  r.cycles = cs.run(c.dram, c.insn_offset, c.insn_count).cycles;
  r.cycle = c.int8s(MemType::kOut, out, n);
  return r;
}

TEST(StoreRequant, BothModelsShiftAndClamp) {
  const isa::Layout& l = isa::layout_for(test_config_file());
  ASSERT_TRUE(l.config.options.has(isa::HwOption::kStoreRequant));
  const int64_t lanes = l.config.batch() * l.config.block_out();
  std::vector<int32_t> values = {0,    1,     -1,    127,  128,   -128, -129,  1000, -1000,
                                 4095, -4096, 40000, 2047, -2048, 96,   97 * 8};
  const std::vector<int32_t> fill = random_int32(4 * lanes, 5, std::numeric_limits<int32_t>::min(),
                                                 std::numeric_limits<int32_t>::max());
  values.insert(values.end(), fill.begin(), fill.begin() + (4 * lanes - values.size()));
  const uint64_t plain = store_with(l, values, {}).cycles;
  for (const isa::StoreRequant rq : {isa::StoreRequant{true, 0, -128, 127},
                                     isa::StoreRequant{true, 3, 0, 96},
                                     isa::StoreRequant{true, 31, -128, 127},
                                     isa::StoreRequant{true, 11, -128, -5}}) {
    const Ran r = store_with(l, values, rq);
    std::vector<int8_t> want;
    for (int32_t v : values) {
      // Written out here rather than through StoreRequant::narrow.
      int64_t s = static_cast<int64_t>(v) / (int64_t{1} << rq.shift);
      if (static_cast<int64_t>(v) < 0 && s * (int64_t{1} << rq.shift) != v) --s;  // floor
      want.push_back(static_cast<int8_t>(std::min<int64_t>(std::max<int64_t>(s, rq.lo), rq.hi)));
    }
    EXPECT_EQ(r.functional, want) << "shift " << rq.shift;
    EXPECT_EQ(r.cycle, want) << "shift " << rq.shift;
    EXPECT_EQ(r.cycles, plain) << "the requantization takes no cycles of its own";
  }
  // Off, the STORE keeps the low 8 bits as without the option.
  EXPECT_EQ(store_with(l, values, {}).functional, narrow8(values));
}

// The error both models give for a STORE whose pad fields hold `word` (16 bits).
std::string error_of(const isa::Layout& l, int64_t word) {
  ProgramBuilder b(l);
  const int64_t lanes = l.config.batch() * l.config.block_out();
  const int64_t acc = b.add_int32(std::vector<int32_t>(lanes, 5));
  const int64_t out = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kAcc, 0, acc, 1, kPushNext);
  const size_t st = b.store(0, out, 1, 1, 1, kPopPrev | kPushPrev);
  b.at(st).y_pad_0 = word & 0xf;
  b.at(st).y_pad_1 = (word >> 4) & 0xf;
  b.at(st).x_pad_0 = (word >> 8) & 0xf;
  b.at(st).x_pad_1 = (word >> 12) & 0xf;
  b.finish(kPopNext);
  const Program p = b.build();
  std::string f, c;
  std::vector<uint8_t> dram = p.dram;
  try {
    sim::FunctionalSim(l).run(dram, p.insn_offset, p.insn_count);
  } catch (const sim::ProgramError& e) {
    f = e.what();
  }
  dram = p.dram;
  try {
    sim::cycle::CycleSim(l, isa::find_platform("sim")).run(dram, p.insn_offset, p.insn_count);
  } catch (const sim::ProgramError& e) {
    c = e.what();
  }
  EXPECT_EQ(f, c);
  return f;
}

TEST(StoreRequant, MalformedWordsAreNamedErrors) {
  const isa::Layout& l = isa::layout_for(test_config_file());
  EXPECT_EQ(error_of(l, 0x7f41), "");  // on, lo 0, hi 127: accepted
  // A shift without its 'on' bit.
  EXPECT_THAT(error_of(l, 0x10), AllOf(HasSubstr("store_requant"), HasSubstr("'on' bit")));
  EXPECT_THAT(error_of(l, 0x81), AllOf(HasSubstr("store_requant"), HasSubstr("reserved bit 7")));
  // lo = 0 (bit 6) and hi = -1: empty.
  EXPECT_THAT(error_of(l, 0xff41), AllOf(HasSubstr("store_requant"), HasSubstr("[0, -1]")));
  // Without the option the same fields are pads, which a STORE does not have.
  EXPECT_THAT(error_of(isa::layout_for("vta"), 0x10), HasSubstr("STORE does not pad"));
}

}  // namespace
}  // namespace weft::test
