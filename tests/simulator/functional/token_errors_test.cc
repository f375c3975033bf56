// Functional model: programs rejected for their dependency tokens. Each case must throw
// weft::UserError naming the instruction and the flag, module or token queue: a flag the
// module cannot use, deadlocks (the message names every waiting module and the empty queue),
// FINISH while a module waits, tokens left over at FINISH and token-queue overflow on each of
// the four queues.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"

namespace weft::test {
namespace {

using isa::MemType;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

std::string str(int64_t v) { return std::to_string(v); }

class TokenErrorsTest : public FunctionalSimTest {
 protected:
  // An empty transfer: a harmless instruction that shifts the index of the next one.
  void nop(ProgramBuilder& b) { b.load(MemType::kUop, 0, 0, 0, 0, 0); }
};

TEST_P(TokenErrorsTest, DependencyFlagAModuleCannotUse) {
  struct Case {
    const char* flag;
    Deps deps;
    bool store;
    MemType t;
    const char* insn;
    const char* module;
  };
  const std::vector<Case> cases = {
      {"pop_prev_dep", kPopPrev, false, MemType::kInp, "(LOAD INP)", "load"},
      {"push_prev_dep", kPushPrev, false, MemType::kInp, "(LOAD INP)", "load"},
      {"pop_prev_dep", kPopPrev, false, MemType::kWgt, "(LOAD WGT)", "load"},
      {"push_prev_dep", kPushPrev, false, MemType::kWgt, "(LOAD WGT)", "load"},
      {"pop_next_dep", kPopNext, true, MemType::kOut, "(STORE OUT)", "store"},
      {"push_next_dep", kPushNext, true, MemType::kOut, "(STORE OUT)", "store"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.insn) + " " + c.flag);
    ProgramBuilder b = builder();
    nop(b);
    if (c.store) {
      b.store(0, 0, 0, 0, 0, c.deps);
    } else {
      b.load(c.t, 0, 0, 0, 0, 0, Pads{}, c.deps);
    }
    b.finish();
    Program p = b.build();
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 1 " + std::string(c.insn)),
                                    HasSubstr("'" + std::string(c.flag) + "'"),
                                    HasSubstr("the " + std::string(c.module) + " module")));
  }
}

TEST_P(TokenErrorsTest, DeadlockOnATokenNeverPushed) {
  ProgramBuilder b = builder();
  nop(b);
  b.gemm(0, 0, Loops{}, kPopPrev);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("deadlock"),
                                  HasSubstr("the compute module waits at instruction 1 (GEMM)"),
                                  HasSubstr("load->compute queue")));
}

TEST_P(TokenErrorsTest, DeadlockBetweenTwoModulesNamesBoth) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPopNext | kPushNext);
  b.gemm(0, 0, Loops{}, kPopPrev | kPushPrev);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p),
              AllOf(HasSubstr("deadlock"),
                    HasSubstr("the load module waits at instruction 0 (LOAD INP) for a token on "
                              "the compute->load queue"),
                    HasSubstr("the compute module waits at instruction 1 (GEMM) for a token on "
                              "the load->compute queue")));
}

TEST_P(TokenErrorsTest, DeadlockOfStoreAndFinish) {
  ProgramBuilder b = builder();
  nop(b);
  b.store(0, 0, 0, 0, 0, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  Program p = b.build();
  EXPECT_THAT(run_error(p),
              AllOf(HasSubstr("deadlock"),
                    HasSubstr("the store module waits at instruction 1 (STORE OUT) for a token "
                              "on the compute->store queue"),
                    HasSubstr("the compute module waits at instruction 2 (FINISH) for a token "
                              "on the store->compute queue")));
}

// FINISH that does not wait for a module stuck on a token: the module is named.
TEST_P(TokenErrorsTest, FinishWhileAModuleWaits) {
  ProgramBuilder b = builder();
  b.gemm(0, 0);
  b.load(MemType::kWgt, 0, 0, 0, 0, 0, Pads{}, kPopNext);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("FINISH"), HasSubstr("the load module"),
                                  HasSubstr("instruction 1 (LOAD WGT)")));
}

TEST_P(TokenErrorsTest, TokensLeftOverAtFinish) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  b.finish(kPopPrev);
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("left over at FINISH"), HasSubstr("1 token"),
                                  HasSubstr("load->compute")));
}

// The leftover-token error names the instruction whose push was never popped.
TEST_P(TokenErrorsTest, TokensLeftOverAtFinishNamesAnInstruction) {
  ProgramBuilder b = builder();
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p),
              AllOf(HasSubstr("load->compute"), HasSubstr("instruction 0 (LOAD INP)")));
}

// One more push than the depth overflows, on each of the four queues; the pushing
// instruction and the queue are named.
TEST_P(TokenErrorsTest, TokenQueueOverflow) {
  const int64_t depth = layout().config.token_queue_depth;
  struct Case {
    const char* queue;
    const char* pusher;
  };
  for (const Case& c : {Case{"load->compute", "(LOAD INP)"}, Case{"compute->load", "(GEMM)"},
                        Case{"compute->store", "(GEMM)"}, Case{"store->compute", "(STORE OUT)"}}) {
    SCOPED_TRACE(c.queue);
    const std::string q = c.queue;
    ProgramBuilder b = builder();
    // depth + 1 pushes, then depth + 1 pops by the receiving module.
    for (int64_t i = 0; i <= depth; ++i) {
      if (q == "load->compute") b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);
      if (q == "compute->load") b.gemm(0, 0, Loops{}, kPushPrev);
      if (q == "compute->store") b.gemm(0, 0, Loops{}, kPushNext);
      if (q == "store->compute") b.store(0, 0, 0, 0, 0, kPushPrev);
    }
    for (int64_t i = 0; i <= depth; ++i) {
      if (q == "load->compute") b.gemm(0, 0, Loops{}, kPopPrev);
      if (q == "compute->load") b.load(MemType::kWgt, 0, 0, 0, 0, 0, Pads{}, kPopNext);
      if (q == "compute->store") b.store(0, 0, 0, 0, 0, kPopPrev);
      if (q == "store->compute") b.gemm(0, 0, Loops{}, kPopNext);
    }
    b.finish();
    Program p = b.build();
    EXPECT_THAT(run_error(p),
                AllOf(HasSubstr("instruction " + str(depth) + " " + c.pusher),
                      HasSubstr("token queue " + q + " overflows"), HasSubstr(str(depth))));
  }
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(TokenErrorsTest);

}  // namespace
}  // namespace weft::test
