// Unit tests of the static token verifier on small hand-written programs (assembly text):
// what it accepts, the worst-case occupancy it reports, and the message of every kind of
// problem, each naming the instruction index and the queue.
#include "runtime/stream/token_verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hardware/isa/assembly.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"

namespace weft::rt {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class TokenVerifierTest : public ::testing::Test {
 protected:
  TokenVerifierTest() : l_(isa::layout_for("tiny")) {}
  VerifyReport verify(const std::string& text) {
    return verify_tokens(l_, isa::parse_program(l_, text, "test.s"));
  }
  // The only problem verify() reports ("" when there is none or more than one).
  std::string problem(const std::string& text) {
    const VerifyReport r = verify(text);
    EXPECT_EQ(r.errors.size(), 1u) << ::testing::PrintToString(r.errors);
    return r.errors.size() == 1 ? r.errors[0] : "";
  }
  // Whether verify() reports a problem matching `m` (among possibly others).
  template <typename M>
  void expect_problem(const std::string& text, M m) {
    EXPECT_THAT(verify(text).errors, ::testing::Contains(m));
  }
  const isa::Layout& l_;
};

// Load -> compute -> store -> FINISH, each stage handing over a token.
constexpr const char* kChain = R"(
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep push_next_dep uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
STORE OUT pop_prev_dep push_prev_dep sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1
FINISH pop_next_dep
)";

TEST_F(TokenVerifierTest, AcceptsAChainOfHandOvers) {
  const VerifyReport r = verify(kChain);
  EXPECT_THAT(r.errors, IsEmpty());
  EXPECT_EQ(r.max_tokens_of(isa::TokenQueue::kLoadToCompute), 1);
  EXPECT_EQ(r.max_tokens_of(isa::TokenQueue::kComputeToLoad), 0);
  EXPECT_EQ(r.max_tokens_of(isa::TokenQueue::kComputeToStore), 1);
  EXPECT_EQ(r.max_tokens_of(isa::TokenQueue::kStoreToCompute), 1);
  EXPECT_EQ(r.pushes[0], 1);
  EXPECT_NO_THROW(verify_tokens_or_throw(l_, isa::parse_program(l_, kChain, "chain.s")));
}

TEST_F(TokenVerifierTest, AcceptsJustFinish) { EXPECT_THAT(verify("FINISH").errors, IsEmpty()); }

TEST_F(TokenVerifierTest, OccupancyCountsOnlyPopsThatSurelyCameFirst) {
  // Three loads push before compute pops anything: all three may wait at once.
  const VerifyReport r = verify(R"(
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 push_next_dep
LOAD INP sram_base=1 dram_base=1 y_size=1 x_size=1 x_stride=1 push_next_dep
LOAD INP sram_base=2 dram_base=2 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
FINISH
)");
  EXPECT_THAT(r.errors, IsEmpty());
  EXPECT_EQ(r.max_tokens_of(isa::TokenQueue::kLoadToCompute), 3);

  // With a WAR token back before every further load, at most one waits.
  const VerifyReport s = verify(R"(
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep push_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
LOAD INP pop_next_dep sram_base=0 dram_base=1 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep push_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
LOAD INP pop_next_dep sram_base=0 dram_base=2 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
FINISH
)");
  EXPECT_THAT(s.errors, IsEmpty());
  EXPECT_EQ(s.max_tokens_of(isa::TokenQueue::kLoadToCompute), 1);
  EXPECT_EQ(s.max_tokens_of(isa::TokenQueue::kComputeToLoad), 1);
}

TEST_F(TokenVerifierTest, APopWithoutAnyPush) {
  EXPECT_THAT(problem("GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\nFINISH"),
              AllOf(HasSubstr("instruction 0 (GEMM), queue load->compute"),
                    HasSubstr("pushes only 0"), HasSubstr("wait forever")));
}

TEST_F(TokenVerifierTest, APopBeforeItsPushInProgramOrder) {
  expect_problem(R"(
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 push_next_dep
FINISH
)",
                 AllOf(HasSubstr("instruction 0 (GEMM), queue load->compute"),
                       HasSubstr("instruction 1 (LOAD INP) pushes later in program order")));
}

TEST_F(TokenVerifierTest, ATokenNeverPopped) {
  EXPECT_THAT(problem(R"(
GEMM push_next_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
GEMM push_next_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
STORE OUT pop_prev_dep push_prev_dep sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0
FINISH pop_next_dep
)"),
              AllOf(HasSubstr("instruction 1 (GEMM), queue compute->store"),
                    HasSubstr("never popped"), HasSubstr("1 token(s) would be left")));
}

TEST_F(TokenVerifierTest, AFlagTheModuleCannotHonour) {
  expect_problem(
      "LOAD WGT pop_prev_dep sram_base=0 dram_base=0 y_size=0 x_size=0 "
      "x_stride=0\nFINISH",
      AllOf(HasSubstr("instruction 0 (LOAD WGT)"), HasSubstr("pop_prev_dep"),
            HasSubstr("load module has no previous module")));
  expect_problem(
      "STORE OUT push_next_dep sram_base=0 dram_base=0 y_size=0 x_size=0 "
      "x_stride=0\nFINISH pop_next_dep",
      HasSubstr("store module has no next module"));
}

TEST_F(TokenVerifierTest, FinishMustBeLastAndPushNothing) {
  EXPECT_THAT(problem("FINISH\nGEMM uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\nFINISH"),
              AllOf(HasSubstr("instruction 0 (FINISH)"), HasSubstr("must be the last")));
  EXPECT_THAT(problem("GEMM uop_bgn=0 uop_end=0 iter_out=1 iter_in=1"),
              AllOf(HasSubstr("instruction 0 (GEMM)"), HasSubstr("not FINISH")));
  const VerifyReport r = verify("FINISH push_prev_dep");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_THAT(r.errors[0], AllOf(HasSubstr("instruction 0 (FINISH), queue compute->load"),
                                 HasSubstr("nothing can pop")));
  EXPECT_THAT(verify_tokens(l_, {}).errors, ::testing::ElementsAre(HasSubstr("empty")));
}

TEST_F(TokenVerifierTest, FinishMustPopTheLastStoresToken) {
  EXPECT_THAT(problem(R"(
STORE OUT sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1
FINISH
)"),
              AllOf(HasSubstr("instruction 1 (FINISH), queue store->compute"),
                    HasSubstr("instruction 0 (STORE OUT)"), HasSubstr("pop_next_dep")));
  // FINISH takes the token of instruction 1; the last store, 3, pushes none.
  expect_problem(R"(
STORE OUT push_prev_dep sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1
STORE OUT push_prev_dep sram_base=0 dram_base=1 y_size=1 x_size=1 x_stride=1
GEMM pop_next_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
STORE OUT sram_base=0 dram_base=2 y_size=1 x_size=1 x_stride=1
FINISH pop_next_dep
)",
                 AllOf(HasSubstr("instruction 4 (FINISH), queue store->compute"),
                       HasSubstr("does not come from the last store-module instruction, "
                                 "instruction 3 (STORE OUT)")));
}

TEST_F(TokenVerifierTest, FinishMustWaitForTheLoadModule) {
  EXPECT_THAT(
      problem(R"(
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1 push_next_dep
GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
LOAD INP sram_base=0 dram_base=0 y_size=1 x_size=1 x_stride=1
FINISH
)"),
      AllOf(HasSubstr("instruction 3 (FINISH)"),
            HasSubstr("may run before instruction 2 (LOAD INP)"), HasSubstr("load module")));
}

TEST_F(TokenVerifierTest, OverflowOnTheShallowTinyQueues) {
  ASSERT_EQ(l_.config.token_queue_depth, 16);
  std::string text;
  for (int i = 0; i < 17; ++i) {
    text += "LOAD INP sram_base=0 dram_base=0 y_size=0 x_size=0 x_stride=0 push_next_dep\n";
  }
  for (int i = 0; i < 17; ++i)
    text += "GEMM pop_prev_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\n";
  text += "FINISH\n";
  const VerifyReport r = verify(text);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0],
              AllOf(HasSubstr("instruction 16 (LOAD INP), queue load->compute"),
                    HasSubstr("token 17"), HasSubstr("holds 16"), HasSubstr("overflow")));
  EXPECT_EQ(r.max_tokens_of(isa::TokenQueue::kLoadToCompute), 17);
  // The same program fits the 256-deep queues of gemm8x8.
  const isa::Layout& big = isa::layout_for("gemm8x8");
  EXPECT_THAT(verify_tokens(big, isa::parse_program(big, text, "t.s")).errors, IsEmpty());
}

TEST_F(TokenVerifierTest, OrThrowNamesTheFirstProblemAndCountsTheRest) {
  const auto p = isa::parse_program(l_, R"(
GEMM pop_prev_dep pop_next_dep uop_bgn=0 uop_end=0 iter_out=1 iter_in=1
FINISH
)",
                                    "t.s");
  try {
    verify_tokens_or_throw(l_, p);
    FAIL() << "no UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(std::string(e.what()),
                AllOf(HasSubstr("token check failed: instruction 0 (GEMM), queue load->compute"),
                      HasSubstr("(and 1 more problem)")));
  }
}

}  // namespace
}  // namespace weft::rt
