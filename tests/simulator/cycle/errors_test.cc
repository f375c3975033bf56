// Errors of the cycle model: every bad program or run that cannot finish is reported as a
// weft::sim::ProgramError carrying the right error-register bit (hardware/isa/registers.h), the
// instruction index, and a message naming the instruction and field, or the module and queue.
// Covers deadlocks (including one behind a full command queue, which only timing reveals),
// token-queue overflow at tiny's depth of 16, static checks of bad programs, data-dependent
// micro-op ranges, and work left when FINISH runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/program_check.h"
#include "tests/support/random_program.h"

namespace weft::test {
namespace {

using isa::MemType;
using isa::Uop;
using ::testing::AllOf;
using ::testing::HasSubstr;
namespace reg = isa::reg;

// What a rejected run reported.
struct Caught {
  bool thrown = false;
  uint32_t bit = 0;
  int64_t insn = sim::ProgramError::kNoInsn;
  std::string message;
};

class CycleErrorsTest : public ::testing::TestWithParam<std::string> {
 protected:
  CycleErrorsTest()
      : layout_(isa::layout_for(GetParam())), sim_(layout_, isa::find_platform("sim")) {}

  const isa::Layout& layout() const { return layout_; }
  ProgramBuilder builder() const { return ProgramBuilder(layout_); }

  // Runs on the cycle model, which must throw ProgramError.
  Caught run_error(const Program& p) {
    Caught c;
    std::vector<uint8_t> dram = p.dram;
    try {
      sim_.run(dram, p.insn_offset, p.insn_count);
      ADD_FAILURE() << "the cycle model ran the program to completion";
    } catch (const sim::ProgramError& e) {
      c = Caught{true, e.bit(), e.insn(), e.what()};
    } catch (const std::exception& e) {
      ADD_FAILURE() << "expected sim::ProgramError, got: " << e.what();
    }
    return c;
  }
  // Runs on a fresh functional model: the error message, or "" when it accepts the program.
  std::string functional_error(const Program& p) {
    sim::FunctionalSim f(layout_);
    std::vector<uint8_t> dram = p.dram;
    try {
      f.run(dram, p.insn_offset, p.insn_count);
    } catch (const sim::ProgramError& e) {
      return e.what();
    }
    return "";
  }

  const isa::Layout& layout_;
  sim::cycle::CycleSim sim_;
};

// --- Deadlocks -------------------------------------------------------------------------------

TEST_P(CycleErrorsTest, PopThatIsNeverPushedIsADeadlockNamingModuleAndQueue) {
  ProgramBuilder b = builder();
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);  // nothing ever pushes load->compute
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrDeadlock);
  EXPECT_EQ(c.insn, sim::ProgramError::kNoInsn);
  EXPECT_THAT(c.message, AllOf(HasSubstr("deadlock"),
                               HasSubstr("the compute module waits at instruction 0 (LOAD UOP) "
                                         "for a token on the load->compute queue, which is "
                                         "empty")));
}

TEST_P(CycleErrorsTest, DeadlockNamesEveryWaitingModule) {
  ProgramBuilder b = builder();
  b.store(0, 0, 0, 0, 0, kPopPrev);  // waits for compute->store
  b.finish(kPopNext);                // waits for store->compute
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrDeadlock);
  EXPECT_THAT(c.message,
              AllOf(HasSubstr("the compute module waits at instruction 1 (FINISH) for a token on "
                              "the store->compute queue"),
                    HasSubstr("the store module waits at instruction 0 (STORE OUT) for a token "
                              "on the compute->store queue")));
}

// A correct random program whose FINISH also pops a load->compute token nobody pushes: the
// deadlock comes only after everything else has run, and the run still returns (the test
// binary's timeout guards against a hang).
TEST_P(CycleErrorsTest, DeadlockAfterALongRunIsStillReported) {
  RandomProgram rp = random_program(layout(), 11);
  Program& p = rp.program;
  const size_t finish = p.insn_count - 1;
  const isa::Field& pop_prev = *layout().finish.find("pop_prev_dep");
  p.set_insn_bits(finish, pop_prev.lsb, 1, 1);
  const Caught c = run_error(p);
  EXPECT_EQ(c.bit, reg::kErrDeadlock);
  EXPECT_THAT(c.message,
              HasSubstr("the compute module waits at instruction " + std::to_string(finish) +
                        " (FINISH) for a token on the load->compute queue"));
}

// Compute waits for a token that a LOAD later in the program pushes, but enough compute
// instructions lie between them to fill the compute command queue: fetch can never dispatch
// the LOAD. The functional model, which has no command queues, runs it.
TEST_P(CycleErrorsTest, FullCommandQueueInFrontOfTheTokenIsADeadlock) {
  ProgramBuilder b = builder();
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
  for (int i = 0; i < layout().config.cmd_queue_depth; ++i) {
    b.load(MemType::kUop, 0, 0, 0, 0, 0);
  }
  const size_t load = b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  b.finish();
  const Program p = b.build();
  EXPECT_EQ(functional_error(p), "");
  const Caught c = run_error(p);
  EXPECT_EQ(c.bit, reg::kErrDeadlock);
  // Instruction 0 and the next depth - 1 fill the queue; fetch holds instruction `depth`.
  const int depth = layout().config.cmd_queue_depth;
  EXPECT_THAT(c.message,
              AllOf(HasSubstr("the compute module waits at instruction 0 (LOAD UOP) "
                              "for a token on the load->compute queue"),
                    HasSubstr("the load module waits for instruction " + std::to_string(load) +
                              " (LOAD INP) from fetch"),
                    HasSubstr("fetch cannot dispatch instruction " + std::to_string(depth) +
                              " (LOAD UOP): the compute command queue is full")));
}

// --- Token-queue overflow --------------------------------------------------------------------

// While compute is busy with a long reset GEMM, the load module pushes `pushes` tokens onto
// load->compute; compute pops them all afterwards.
Program flood_load_to_compute(const isa::Layout& l, int pushes) {
  ProgramBuilder b(l);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.gemm_reset(0, 1, Loops{2000, 1, 0, 0, 0, 0, 0, 0});
  for (int i = 0; i < pushes; ++i) b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  for (int i = 0; i < pushes; ++i) b.load(MemType::kAcc, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
  b.finish();
  return b.build();
}

class TinyErrorsTest : public CycleErrorsTest {};

TEST_P(TinyErrorsTest, SeventeenthTokenOverflowsAQueueOfDepthSixteen) {
  ASSERT_EQ(layout().config.token_queue_depth, 16);
  const Caught c = run_error(flood_load_to_compute(layout(), 17));
  EXPECT_EQ(c.bit, reg::kErrTokenOverflow);
  EXPECT_EQ(c.insn, 2 + 16);  // the 17th LOAD INP
  EXPECT_THAT(c.message, AllOf(HasSubstr("instruction 18 (LOAD INP): token queue load->compute "
                                         "overflows: it already holds 16 tokens"),
                               HasSubstr("the compute module has not popped")));
}

TEST_P(TinyErrorsTest, SixteenTokensFitAQueueOfDepthSixteen) {
  const Program p = flood_load_to_compute(layout(), 16);
  std::vector<uint8_t> dram = p.dram;
  const sim::cycle::CycleStats s = sim_.run(dram, p.insn_offset, p.insn_count);
  EXPECT_GT(s.cycles, 2000u);  // the pops really waited for the GEMM
}

// The load module is busy with a LOAD of 64 one-burst rows while compute pushes 9 tokens onto
// compute->load, hands a token to store, gets one back and pushes 8 more: 17 unpopped tokens.
// In the functional model's order the load module pops the first 9 before compute gets the
// store's token, so it never holds more than 9; the protocol checker's bound over all timings
// is 17.
Program overflow_by_timing(const isa::Layout& l) {
  ProgramBuilder b(l);
  const int64_t inp = b.alloc(MemType::kInp, 64 * 4);
  b.load(MemType::kInp, 0, inp, 64, 1, 4);
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  for (int i = 0; i < 9; ++i) b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPushPrev);
  b.store(0, 0, 0, 0, 0, kPopPrev | kPushPrev);
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopNext);
  for (int i = 0; i < 8; ++i) b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPushPrev);
  for (int i = 0; i < 17; ++i) {
    b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, i == 16 ? kPopNext | kPushNext : kPopNext);
  }
  b.finish(kPopPrev);
  return b.build();
}

TEST_P(TinyErrorsTest, OverflowThatOnlyTimingReveals) {
  const Program p = overflow_by_timing(layout());
  const ProtocolReport r = check_protocol(p);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.max_tokens[1], 17);  // compute->load
  const Caught c = run_error(p);
  EXPECT_EQ(c.bit, reg::kErrTokenOverflow);
  EXPECT_EQ(c.insn, 20);  // the 17th push
  EXPECT_THAT(c.message, AllOf(HasSubstr("instruction 20 (LOAD UOP): token queue compute->load "
                                         "overflows: it already holds 16 tokens"),
                               HasSubstr("the load module has not popped")));
}

// The documented difference (docs/isa.md): queue depth is checked under each engine's own
// order, so this program, whose occupancy depends on timing, passes the functional model
// (at most 9 tokens in its greedy order) and overflows on the cycle model (above).
TEST_P(TinyErrorsTest, FunctionalModelChecksDepthUnderItsOwnOrder) {
  EXPECT_EQ(functional_error(overflow_by_timing(layout())), "");
}

INSTANTIATE_TEST_SUITE_P(Tiny, TinyErrorsTest, ::testing::Values("tiny"), ConfigName());

// --- Bad programs ----------------------------------------------------------------------------

TEST_P(CycleErrorsTest, UnknownOpcode) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0);
  b.finish();
  Program p = b.build();
  p.set_insn_bits(0, 0, 3, 6);
  const Caught c = run_error(p);
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_EQ(c.insn, 0);
  EXPECT_THAT(c.message, HasSubstr("instruction 0: unknown opcode 6 in field 'opcode'"));
}

TEST_P(CycleErrorsTest, UnknownMemoryType) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0);
  b.finish();
  Program p = b.build();
  const isa::Field& f = *layout().mem.find("memory_type");
  p.set_insn_bits(0, f.lsb, f.width, 7);
  const Caught c = run_error(p);
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_THAT(c.message, HasSubstr("instruction 0: unknown memory type 7 in field 'memory_type'"));
}

TEST_P(CycleErrorsTest, LoadTileBeyondItsBuffer) {
  ProgramBuilder b = builder();
  const int64_t inp = b.alloc(MemType::kInp, 4);
  b.load(MemType::kInp, layout().inp_depth - 2, inp, 1, 2, 2, Pads{0, 0, 0, 1});
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrSramRange);
  EXPECT_EQ(c.insn, 0);
  EXPECT_THAT(c.message, AllOf(HasSubstr("instruction 0 (LOAD INP): field 'sram_base'"),
                               HasSubstr("beyond the INP buffer depth " +
                                         std::to_string(layout().inp_depth))));
}

TEST_P(CycleErrorsTest, MicroOpIndexBeyondTheAccumulatorAfterLoopArithmetic) {
  ProgramBuilder b = builder();
  const int64_t uop = b.add_uops({Uop{layout().acc_depth - 1, 0, 0}});
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.gemm_reset(0, 1, Loops{2, 1, 1, 0, 0, 0, 0, 0});
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrSramRange);
  EXPECT_EQ(c.insn, 1);
  EXPECT_THAT(c.message,
              HasSubstr("instruction 1 (GEMM): micro-op 0 at iteration (1, 0) "
                        "computes dst index " +
                        std::to_string(layout().acc_depth) + ", beyond the ACC buffer depth"));
}

TEST_P(CycleErrorsTest, DramAccessBeyondTheImage) {
  ProgramBuilder b = builder();
  b.load(MemType::kWgt, 0, 1 << 20, 1, 1, 1);
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrDramRange);
  EXPECT_EQ(c.insn, 0);
  EXPECT_THAT(c.message, AllOf(HasSubstr("instruction 0 (LOAD WGT): field 'dram_base'"),
                               HasSubstr("beyond the")));
}

TEST_P(CycleErrorsTest, UopEndBeforeUopBegin) {
  ProgramBuilder b = builder();
  b.gemm(5, 3);
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_EQ(c.insn, 0);
  EXPECT_THAT(c.message, HasSubstr("instruction 0 (GEMM): field 'uop_end' = 3 is less than "
                                   "uop_bgn = 5"));
}

TEST_P(CycleErrorsTest, StoreFromAMemoryOtherThanOut) {
  ProgramBuilder b = builder();
  const size_t store = b.store(0, 0, 1, 1, 1);
  b.at(store).memory_type = static_cast<int64_t>(MemType::kAcc);
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_EQ(c.insn, 0);
  EXPECT_THAT(c.message, HasSubstr("instruction 0 (STORE ACC): field 'memory_type': STORE reads "
                                   "only from OUT, not ACC"));
}

TEST_P(CycleErrorsTest, FlagTheModuleCannotHonour) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_THAT(c.message, AllOf(HasSubstr("instruction 0 (LOAD INP): field 'pop_prev_dep'"),
                               HasSubstr("load module")));
}

TEST_P(CycleErrorsTest, ProgramWithoutFinish) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0);
  b.load(MemType::kWgt, 0, 0, 0, 0, 0);
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_THAT(c.message, HasSubstr("no FINISH instruction (2 instructions)"));
}

TEST_P(CycleErrorsTest, InstructionAfterFinish) {
  ProgramBuilder b = builder();
  b.finish();
  b.load(MemType::kInp, 0, 0, 0, 0, 0);
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrIllegalInsn);
  EXPECT_EQ(c.insn, 1);
  EXPECT_THAT(c.message, HasSubstr("instruction 1 (LOAD INP) follows FINISH (instruction 0)"));
}

// --- Work left at FINISH ---------------------------------------------------------------------

// FINISH does not wait for the STORE: compute keeps busy with a reset GEMM while the STORE,
// started by compute's token, is still writing 32 rows when FINISH runs. The functional model
// runs FINISH last of all and accepts the program; the cycle model names the running STORE.
TEST_P(CycleErrorsTest, FinishWhileAStoreIsStillRunning) {
  ProgramBuilder b = builder();
  const int64_t acc = b.alloc(MemType::kAcc, 32);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  const int64_t out = b.alloc(MemType::kOut, 32 * 4);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.load_1d(MemType::kAcc, 0, acc, 32, kPushNext);
  b.gemm_reset(0, 1, Loops{8, 1, 0, 0, 0, 0, 0, 0});
  const size_t store = b.store(0, out, 32, 1, 4, kPopPrev);
  b.finish();
  const Program p = b.build();
  EXPECT_EQ(functional_error(p), "");
  const Caught c = run_error(p);
  EXPECT_EQ(c.bit, reg::kErrLeftover);
  EXPECT_EQ(c.insn, static_cast<int64_t>(store));
  EXPECT_THAT(c.message, AllOf(HasSubstr("FINISH ran at cycle"),
                               HasSubstr("while the store module was still executing "
                                         "instruction 3 (STORE OUT)"),
                               HasSubstr("dependency token")));
}

TEST_P(CycleErrorsTest, TokensLeftOverAtFinish) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev | kPushNext);  // compute->store, kept
  b.finish();
  const Caught c = run_error(b.build());
  EXPECT_EQ(c.bit, reg::kErrLeftover);
  EXPECT_EQ(c.insn, 1);
  EXPECT_THAT(c.message, HasSubstr("tokens left over at FINISH: 1 token(s) pushed on the "
                                   "compute->store queue were never popped (the last pushed by "
                                   "instruction 1 (LOAD UOP))"));
}

// After a rejected run the model runs the next program normally.
TEST_P(CycleErrorsTest, ModelRunsAgainAfterAnError) {
  ProgramBuilder bad = builder();
  bad.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopPrev);
  bad.finish();
  run_error(bad.build());
  const RandomProgram rp = random_program(layout(), 3);
  sim::FunctionalSim functional(layout());
  std::vector<uint8_t> expected = rp.program.dram;
  functional.run(expected, rp.program.insn_offset, rp.program.insn_count);
  std::vector<uint8_t> dram = rp.program.dram;
  sim_.run(dram, rp.program.insn_offset, rp.program.insn_count);
  EXPECT_EQ(dram, expected);
}

INSTANTIATE_TEST_SUITE_P(Configs, CycleErrorsTest, ::testing::ValuesIn(config_names()),
                         ConfigName());

}  // namespace
}  // namespace weft::test
