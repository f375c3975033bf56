// Temporal decoupling and the direct memory interface change how the SystemC model reaches
// memory, never what it computes or when it completes: one compiled ResNet-18 layer run at
// several global quanta (none at all up to 1 ms), with DMI, without it, and with a memory that
// refuses it, gives the same memory image, cycle count and completion time every time. The
// runs also show that each path was really taken (DMI copies or b_transport calls) and that a
// larger quantum synchronises less often. Without DMI, every transaction reaches the memory
// at the same time at every quantum (the time of its cycle), between ap_start and completion.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/ops/conv2d.h"
#include "tests/simulator/systemc/test_platform.h"

namespace weft::test {
namespace {

using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

struct Outcome {
  std::vector<uint8_t> image;
  RegisterRun run;
  sysc::DmaStats dma;
  std::vector<sc_time> at;  // when each b_transport took place, from ap_start
};

TEST(SystemcDmiAndQuantum, SameDataAndCompletionTimeAtEveryQuantumWithAndWithoutDmi) {
  TestPlatform& tp = TestPlatform::get();
  const std::string config = "vta";
  const isa::Layout& l = isa::layout_for(config);
  compiler::ops::Conv2dShape s;
  for (const auto& spec : rt::resnet18_layers()) {
    if (spec.name == "C12") s = spec.shape;
  }
  const rt::Conv2dBuild b = rt::build_conv2d(
      l, s, compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, 2, 1).at(0), {});
  const std::vector<uint8_t> image = rt::conv2d_image(b, rt::random_conv2d_data(s, 5));
  const uint64_t insn_count = b.placed.stream.insn_count;
  sysc::Accelerator& acc = tp.accel(config);
  acc.set_timing(sysc::Timing::kTimed);

  auto run = [&](const sc_time& quantum, bool use_dmi, bool memory_grants_dmi) {
    tlm::tlm_global_quantum::instance().set(quantum);
    acc.set_use_dmi(use_dmi);
    tp.memory().set_dmi_allowed(memory_grants_dmi);
    tp.load(0, image);
    Outcome o;
    tp.probe().times.clear();
    tp.probe().recording = true;
    tp.run_host([&] { o.run = tp.run_registers(config, TestPlatform::kMemBase, 0, insn_count); });
    tp.probe().recording = false;
    for (const sc_time& t : tp.probe().times) o.at.push_back(t - o.run.started);
    EXPECT_EQ(o.run.error, 0u) << acc.error_detail();
    o.image = tp.dump(0, image.size());
    o.dma = acc.last_dma_stats();
    return o;
  };

  const Outcome ref = run(sc_time(10, SC_US), true, true);
  ASSERT_GT(ref.run.cycles, 0u);
  EXPECT_GT(ref.dma.dmi_copies, 0u);
  EXPECT_LE(ref.dma.transactions, 4u) << "with DMI only the first accesses use b_transport";
  EXPECT_TRUE(ref.image != image) << "the layer wrote nothing";

  // Each transaction at the time of its cycle, whatever the quantum: the same times every run.
  std::vector<sc_time> times;
  const sc_time quanta[] = {sc_core::SC_ZERO_TIME, sc_time(10, SC_NS), sc_time(1, SC_US),
                            sc_time(10, SC_US), sc_time(1, SC_MS)};
  uint64_t syncs_prev = ~uint64_t{0};
  for (const sc_time& q : quanta) {
    for (const bool dmi : {true, false}) {
      SCOPED_TRACE("quantum " + q.to_string() + (dmi ? ", DMI" : ", no DMI"));
      const Outcome o = run(q, dmi, true);
      EXPECT_EQ(o.run.cycles, ref.run.cycles);
      EXPECT_EQ(o.run.elapsed(), ref.run.elapsed());
      EXPECT_TRUE(o.image == ref.image) << "memory differs";
      if (dmi) {
        EXPECT_GT(o.dma.dmi_copies, 0u);
      } else {
        EXPECT_EQ(o.dma.dmi_copies, 0u);
        EXPECT_GT(o.dma.transactions, 1000u);
        EXPECT_EQ(o.dma.transactions, ref.dma.transactions + ref.dma.dmi_copies)
            << "one b_transport per burst";
        EXPECT_GT(o.dma.target_delay, sc_time()) << "the memory's latency is seen, not applied";
        EXPECT_LE(o.dma.syncs, syncs_prev) << "a larger quantum synchronises less often";
        syncs_prev = o.dma.syncs;
        ASSERT_EQ(o.at.size(), o.dma.transactions);
        EXPECT_EQ(o.at.front(), sc_time()) << "the instruction fetch is at cycle 0";
        EXPECT_TRUE(std::is_sorted(o.at.begin(), o.at.end()));
        EXPECT_LT(o.at.back(), o.run.elapsed());
        if (times.empty()) times = o.at;
        EXPECT_TRUE(o.at == times) << "transactions took place at other times";
      }
    }
  }

  // A memory that refuses DMI: the model falls back to b_transport.
  const Outcome refused = run(sc_time(10, SC_US), true, false);
  EXPECT_EQ(refused.dma.dmi_copies, 0u);
  EXPECT_EQ(refused.run.elapsed(), ref.run.elapsed());
  EXPECT_TRUE(refused.image == ref.image);
  tp.memory().set_dmi_allowed(true);
  acc.set_use_dmi(true);
}

}  // namespace
}  // namespace weft::test
