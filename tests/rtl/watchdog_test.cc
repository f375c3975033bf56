// The Verilator harness's watchdog (label `cosim`): a unit that executes an instruction makes
// progress however long the instruction runs, so one GEMM of more cycles than the watchdog's
// window runs to the end, cycle-exact with the cycle model; a real deadlock is still found
// within the window after the last progress, and named as the cycle model names it: the
// instruction each waiting module is at and the token queue it waits on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "simulator/common/program_error.h"
#include "tests/rtl/cosim.h"

namespace weft::test {
namespace {

using isa::MemType;
using ::testing::HasSubstr;

constexpr int kUops = 256;

// 256 micro-ops x 32 x 32 iterations: 262 144 issue cycles with no memory traffic, more than
// twice the watchdog's default window of 100 000 cycles. Distinct accumulator rows per
// micro-op, so that no iteration waits on a hazard. `tiny` holds 1024 micro-ops and 256
// accumulator rows.
// With `deadlock`, an ALU after the GEMM pops a load->compute token that nobody pushes, so
// compute and (behind it) store wait for ever once the GEMM is done.
Program long_gemm_program(const isa::Layout& l, bool deadlock = false) {
  ProgramBuilder b(l);
  std::vector<isa::Uop> uops;
  for (int k = 0; k < kUops; ++k) uops.push_back(isa::Uop{k, k, k});
  const int64_t uop = b.add_uops(uops);
  std::vector<int8_t> inp(kUops * l.config.batch() * l.config.block_in());
  std::vector<int8_t> wgt(kUops * l.config.block_out() * l.config.block_in());
  for (size_t i = 0; i < inp.size(); ++i) inp[i] = static_cast<int8_t>(i * 7 % 251 - 125);
  for (size_t i = 0; i < wgt.size(); ++i) wgt[i] = static_cast<int8_t>(i * 13 % 241 - 120);
  const int64_t inp_at = b.add_int8(MemType::kInp, inp);
  const int64_t wgt_at = b.add_int8(MemType::kWgt, wgt);
  const int64_t out_at = b.alloc(MemType::kOut, kUops);
  b.load_1d(MemType::kUop, 0, uop, kUops);
  b.load_1d(MemType::kInp, 0, inp_at, kUops);
  b.load_1d(MemType::kWgt, 0, wgt_at, kUops, kPushNext);
  b.gemm_reset(0, kUops, Loops{}, kPopPrev);
  if (deadlock) {
    b.gemm(0, kUops, Loops{32, 32, 0, 0, 0, 0, 0, 0});
    b.alu_imm(isa::AluOp::kAdd, 1, 0, kUops, Loops{}, kPopPrev | kPushNext);
  } else {
    b.gemm(0, kUops, Loops{32, 32, 0, 0, 0, 0, 0, 0}, kPushNext);
  }
  b.store(0, out_at, 1, kUops, kUops, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  return b.build();
}

TEST(RtlWatchdog, GemmLongerThanTheWindowRunsCycleExact) {
  const isa::Layout& l = isa::layout_for("tiny");
  sim::FunctionalSim f(l);
  sim::cycle::CycleSim c(l, isa::find_platform("sim"));
  const Cosim r = cosimulate(long_gemm_program(l), f, c, rtl_engine("tiny"));
  EXPECT_EQ(r.rtl.error, 0u) << r.rtl.error_detail;
  EXPECT_EQ(r.mismatch, "");
  EXPECT_GT(r.rtl_cycles, 262144u);
  EXPECT_EQ(r.rtl_cycles, r.cycles);
}

// Runs `p` on the cycle model, which must find a deadlock: its message.
std::string cycle_deadlock(const Program& p) {
  sim::cycle::CycleSim c(*p.layout, isa::find_platform("sim"));
  std::vector<uint8_t> img = p.dram;
  try {
    c.run(img, p.insn_offset, p.insn_count);
  } catch (const sim::ProgramError& e) {
    EXPECT_EQ(e.bit(), isa::reg::kErrDeadlock) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the cycle model ran the program";
  return "";
}

// What a deadlock message says after its opening: the clause of each waiting module.
std::string clauses(const std::string& message) {
  const size_t semi = message.find(';');
  return semi == std::string::npos ? "" : message.substr(semi + 1);
}

// The cycle at which a deadlock message says the deadlock began.
uint64_t deadlock_cycle(const std::string& message) {
  const std::string at = "deadlock at cycle ";
  return message.rfind(at, 0) == 0 ? std::stoull(message.substr(at.size())) : 0;
}

// Runs `p` on the RTL with the default watchdog window; it must deadlock, and the watchdog
// must fire one window after the last progress (plus the register accesses that start the
// run). Returns the harness's message.
std::string rtl_deadlock(const Program& p, const std::string& config) {
  std::vector<uint8_t> img = p.dram;
  const driver::rtl::RtlRunOptions options;
  const driver::rtl::RtlRunResult r =
      rtl_engine(config).run(img, p.insn_offset, p.insn_count, options);
  EXPECT_EQ(r.error, isa::reg::kErrDeadlock) << r.error_detail;
  EXPECT_GT(r.model_cycles, deadlock_cycle(r.error_detail) + options.idle_limit);
  EXPECT_LT(r.model_cycles, deadlock_cycle(r.error_detail) + options.idle_limit + 100);
  return r.error_detail;
}

// The long GEMM, then an ALU whose token never comes: the compute module is named at the ALU
// (not at the GEMM, nor at an instruction it has not reached), found one window after the
// GEMM's last write rather than one window after it started.
TEST(RtlWatchdog, DeadlockAfterALongGemmNamesTheInstructionAndQueue) {
  const Program p = long_gemm_program(isa::layout_for("tiny"), /*deadlock=*/true);
  const std::string rtl = rtl_deadlock(p, "tiny");
  EXPECT_THAT(rtl, HasSubstr("the compute module waits at instruction 5 (ALU ADD) for a token "
                             "on the load->compute queue, which is empty; the store module "
                             "waits at instruction 6 (STORE OUT) for a token on the "
                             "compute->store queue, which is empty"));
  EXPECT_GT(deadlock_cycle(rtl), 262144u) << rtl;
  const std::string cycle = cycle_deadlock(p);
  EXPECT_EQ(clauses(rtl), clauses(cycle)) << rtl << "\n" << cycle;
}

// Deadlocks of every kind the cycle model names: the RTL names the same modules, instructions
// and queues (and the instruction fetch cannot dispatch) in the same words.
TEST(RtlWatchdog, DeadlocksAreNamedAsTheCycleModelNamesThem) {
  const isa::Layout& l = isa::layout_for("tiny");
  std::vector<std::pair<std::string, Program>> programs;
  {
    ProgramBuilder b(l);
    b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);  // nothing pushes load->compute
    b.finish();
    programs.emplace_back("a pop never pushed", b.build());
  }
  {
    ProgramBuilder b(l);
    b.store(0, 0, 0, 0, 0, kPopPrev);  // waits for compute->store
    b.finish(kPopNext);                // waits for store->compute
    programs.emplace_back("two modules wait on each other", b.build());
  }
  {
    ProgramBuilder b(l);
    b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
    for (int i = 0; i < l.config.cmd_queue_depth; ++i) b.load(MemType::kUop, 0, 0, 0, 0, 0);
    b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
    b.store(0, 0, 0, 0, 0);
    b.finish();
    programs.emplace_back("a full command queue in front of the token", b.build());
  }
  for (const auto& [name, p] : programs) {
    SCOPED_TRACE(name);
    const std::string rtl = rtl_deadlock(p, "tiny");
    const std::string cycle = cycle_deadlock(p);
    EXPECT_NE(clauses(cycle), "");
    EXPECT_EQ(clauses(rtl), clauses(cycle)) << rtl << "\n" << cycle;
  }
}

}  // namespace
}  // namespace weft::test
