// The rtl backend behind the driver's Device interface (label `rtl`): the same STATS fields
// as the cycle backend with the same values (the two are cycle-exact), a waveform on request,
// and clear errors for what it cannot run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "driver/device.h"
#include "driver/launch.h"
#include "driver/rtl/rtl_engine.h"
#include "driver/rtl_device.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "tests/support/program_builder.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

using ::testing::HasSubstr;
constexpr std::chrono::seconds kTimeout(60);

nlohmann::ordered_json run_on(driver::Device& dev, const Program& p) {
  dev.copy_to_device(dev.alloc(p.dram.size()), p.dram.data(), p.dram.size());
  driver::run(dev, p.insn_offset, p.insn_count, kTimeout);
  return dev.run_details();
}

TEST(RtlDevice, RunDetailsEqualTheCycleBackendsFieldForField) {
  for (const char* cfg : {"tiny", "gemm8x8", "vta"}) {
    SCOPED_TRACE(cfg);
    driver::DeviceOptions o;
    o.layout = &isa::layout_for(cfg);
    o.platform = &isa::find_platform("zcu104");  // another 128-bit platform: other latencies
    o.memory_bytes = 1 << 20;
    const RandomProgram rp = random_program(*o.layout, 21);
    auto cycle = driver::open_device("cycle", o);
    auto rtl = driver::open_device("rtl", o);
    const nlohmann::ordered_json c = run_on(*cycle, rp.program);
    const nlohmann::ordered_json r = run_on(*rtl, rp.program);
    EXPECT_EQ(r.dump(), c.dump());
    EXPECT_GT(r.value("cycles", uint64_t{0}), 0u);
  }
}

TEST(RtlDevice, WaveFileIsWrittenOnRequest) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "weft_rtl_wave_test.fst").string();
  std::filesystem::remove(path);
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = 1 << 20;
  {
    auto dev = driver::make_rtl_device(o, path);
    run_on(*dev, random_program(*o.layout, 5).program);
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
  std::filesystem::remove(path);
}

TEST(RtlDevice, UnalignedInstructionStreamIsAClearError) {
  driver::DeviceOptions o;
  o.layout = &isa::layout_for("tiny");
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = 1 << 16;
  auto dev = driver::open_device("rtl", o);
  const RandomProgram rp = random_program(*o.layout, 2);
  std::vector<uint8_t> img(rp.program.dram.size() + 8, 0);
  std::copy(rp.program.dram.begin() + rp.program.insn_offset,
            rp.program.dram.begin() + rp.program.insn_offset + 16 * rp.program.insn_count,
            img.begin() + 8);
  dev->copy_to_device(dev->alloc(img.size()), img.data(), img.size());
  EXPECT_THAT([&] { driver::run(*dev, 8, 1, kTimeout); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("16-byte aligned")));
}

// Programs that fail while running: the RTL raises the same error bit as the cycle model, at
// the same instruction, and the device reports the same message.
struct BadProgram {
  const char* name;
  const char* config;
  Program program;
  uint32_t bit;
};

std::vector<BadProgram> bad_programs() {
  using isa::MemType;
  std::vector<BadProgram> v;
  {  // seventeen tokens onto a queue of depth sixteen while compute is busy
    const isa::Layout& l = isa::layout_for("tiny");
    ProgramBuilder b(l);
    const int64_t uop = b.add_uops({isa::Uop{0, 0, 0}});
    b.load_1d(MemType::kUop, 0, uop, 1);
    b.gemm_reset(0, 1, Loops{2000, 1, 0, 0, 0, 0, 0, 0});
    for (int i = 0; i < 17; ++i) b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
    for (int i = 0; i < 17; ++i) b.load(MemType::kAcc, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
    b.finish();
    v.push_back({"token overflow", "tiny", b.build(), isa::reg::kErrTokenOverflow});
  }
  {  // a micro-op index that leaves the accumulator after loop arithmetic
    const isa::Layout& l = isa::layout_for("gemm8x8");
    ProgramBuilder b(l);
    const int64_t uop = b.add_uops({isa::Uop{l.acc_depth - 1, 0, 0}});
    b.load_1d(MemType::kUop, 0, uop, 1);
    b.gemm_reset(0, 1, Loops{2, 1, 1, 0, 0, 0, 0, 0});
    b.finish();
    v.push_back({"index out of range", "gemm8x8", b.build(), isa::reg::kErrSramRange});
  }
  {  // FINISH while a LOAD is still running
    const isa::Layout& l = isa::layout_for("vta");
    ProgramBuilder b(l);
    const int64_t inp = b.alloc(MemType::kInp, 4);
    b.load(MemType::kInp, 0, inp, 1, 4, 4);
    b.finish();
    v.push_back({"work left at FINISH", "vta", b.build(), isa::reg::kErrLeftover});
  }
  {  // a full command queue in front of the token that would unblock it
    const isa::Layout& l = isa::layout_for("tiny");
    ProgramBuilder b(l);
    b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
    for (int i = 0; i < l.config.cmd_queue_depth + 1; ++i) b.load(MemType::kUop, 0, 0, 0, 0, 0);
    b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
    b.finish();
    v.push_back({"deadlock", "tiny", b.build(), isa::reg::kErrDeadlock});
  }
  return v;
}

TEST(RtlDevice, RuntimeErrorsMatchTheCycleBackend) {
  for (BadProgram& bp : bad_programs()) {
    SCOPED_TRACE(bp.name);
    driver::DeviceOptions o;
    o.layout = &isa::layout_for(bp.config);
    o.platform = &isa::find_platform("sim");
    o.memory_bytes = 1 << 20;
    std::string messages[2];
    uint32_t bits[2], insns[2];
    int k = 0;
    for (const char* engine : {"cycle", "rtl"}) {
      auto dev = driver::open_device(engine, o);
      dev->copy_to_device(dev->alloc(bp.program.dram.size()), bp.program.dram.data(),
                          bp.program.dram.size());
      try {
        driver::run(*dev, bp.program.insn_offset, bp.program.insn_count, kTimeout);
        ADD_FAILURE() << engine << " ran the bad program";
      } catch (const UserError& e) {
        messages[k] = e.what();
      }
      bits[k] = dev->read_reg(isa::reg::kError);
      insns[k] = dev->read_reg(isa::reg::kErrorInsn);
      EXPECT_NE(dev->read_reg(isa::reg::kControl) & isa::reg::kApIdle, 0u);
      ++k;
    }
    EXPECT_EQ(bits[0], bp.bit);
    EXPECT_EQ(bits[1], bits[0]);
    EXPECT_EQ(insns[1], insns[0]);
    EXPECT_EQ(messages[1], messages[0]);
    // The RTL's own registers, before any diagnosis: the same bit and, for the errors the
    // hardware can attribute, the same instruction (on an FPGA there is no cycle model).
    auto engine = driver::rtl::make_rtl_engine(*o.layout, *o.platform);
    std::vector<uint8_t> img = bp.program.dram;
    const driver::rtl::RtlRunResult rr =
        engine->run(img, bp.program.insn_offset, bp.program.insn_count, {});
    EXPECT_EQ(rr.error, bp.bit);
    if (bp.bit == isa::reg::kErrTokenOverflow || bp.bit == isa::reg::kErrSramRange) {
      EXPECT_EQ(rr.error_insn, insns[0]);
    }
  }
}

}  // namespace
}  // namespace weft::test
