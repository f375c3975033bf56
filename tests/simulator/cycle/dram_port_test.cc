// The cycle model's memory port (simulator/memory/dram_port.h), the seam the SystemC model
// (simulator/systemc) puts its TLM initiator socket behind. A port that keeps the real memory
// elsewhere and fills the model's image only with what the model announces it reads must give
// the same memory and the same cycles as a plain run, even when the image starts as garbage:
// so the model announces every byte before it reads it and every byte it writes. The cycles
// the port is told of never decrease (a quantum keeper relies on it).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

// Memory lives in `memory`; the model's image is a cache filled and flushed through the port.
class CopyingPort : public sim::DramPort {
 public:
  CopyingPort(std::vector<uint8_t>& memory, std::vector<uint8_t>& image)
      : memory_(memory), image_(image) {}
  void before_read(uint64_t cycle, uint64_t addr, uint64_t n) override {
    step(cycle);
    ASSERT_LE(addr + n, memory_.size());
    std::memcpy(image_.data() + addr, memory_.data() + addr, n);
    read_bytes += n;
  }
  void after_write(uint64_t cycle, uint64_t addr, uint64_t n) override {
    step(cycle);
    ASSERT_LE(addr + n, memory_.size());
    std::memcpy(memory_.data() + addr, image_.data() + addr, n);
    written_bytes += n;
  }
  void reached(uint64_t cycle) override { step(cycle); }

  uint64_t read_bytes = 0, written_bytes = 0;
  bool monotonic = true;

 private:
  void step(uint64_t cycle) {
    if (cycle < last_) monotonic = false;
    last_ = cycle;
  }
  std::vector<uint8_t>& memory_;
  std::vector<uint8_t>& image_;
  uint64_t last_ = 0;
};

class DramPortTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DramPortTest, APortOverAGarbageImageGivesThePlainRunsMemoryAndCycles) {
  const isa::Layout& l = isa::layout_for(GetParam());
  const isa::Platform& platform = isa::find_platform("sim");
  sim::cycle::CycleSim plain(l, platform), ported(l, platform);
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const RandomProgram rp = random_program(l, seed);
    const Program& p = rp.program;
    std::vector<uint8_t> expect = p.dram;
    const sim::cycle::CycleStats want = plain.run(expect, p.insn_offset, p.insn_count);

    std::vector<uint8_t> memory = p.dram;
    std::vector<uint8_t> image(p.dram.size(), uint8_t(0xA5 + seed));
    CopyingPort port(memory, image);
    sim::cycle::RunOptions options;
    options.port = &port;
    const sim::cycle::CycleStats got = ported.run(image, p.insn_offset, p.insn_count, options);

    EXPECT_EQ(got.cycles, want.cycles) << "seed " << seed;
    EXPECT_TRUE(memory == expect) << "seed " << seed << ": memory differs from a plain run";
    EXPECT_TRUE(port.monotonic) << "seed " << seed;
    EXPECT_EQ(port.written_bytes, want.counters.out_store_nbytes) << "seed " << seed;
    EXPECT_GE(port.read_bytes, p.insn_count * 16) << "seed " << seed;
    if (HasFailure()) break;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, DramPortTest, ::testing::Values("gemm8x8", "vta", "tiny"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace weft::test
