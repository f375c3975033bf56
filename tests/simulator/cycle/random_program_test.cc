// The random program generator (tests/support/random_program.h) and the protocol checker it is
// judged by (tests/support/program_check.h). The checker is shown to catch each kind of broken
// program on small hand-written ones; then every generated program must pass it, stay within a
// few tokens per queue, and the seeds together must cover every instruction kind.
#include "tests/support/random_program.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "hardware/isa/layout.h"
#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"
#include "tests/support/program_check.h"

namespace weft::test {
namespace {

using isa::MemType;
using isa::Uop;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int kSeeds = 200;

// True when some problem line contains `text`.
bool reports(const ProtocolReport& r, const std::string& text) {
  for (const std::string& p : r.problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string problems(const ProtocolReport& r) {
  std::string s;
  for (const std::string& p : r.problems) s += "  " + p + "\n";
  return s;
}

class ProgramCheckTest : public ::testing::TestWithParam<std::string> {
 protected:
  const isa::Layout& layout() const { return isa::layout_for(GetParam()); }
};

// The shape of tokens_test's first program: a LOAD reuses an INP slot only after the GEMM that
// read it pushed compute->load. Correct as written; a race once that token is removed.
ProgramBuilder two_tiles_through_one_slot(const isa::Layout& l, bool with_war_token) {
  ProgramBuilder b(l);
  const int64_t inp = b.alloc(MemType::kInp, 2);
  const int64_t wgt = b.alloc(MemType::kWgt, 1);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}, Uop{1, 0, 0}});
  const int64_t out = b.alloc(MemType::kOut, 2);
  b.load_1d(MemType::kUop, 0, uop, 2);
  b.gemm_reset(0, 2);
  b.load_1d(MemType::kWgt, 0, wgt, 1);
  b.load_1d(MemType::kInp, 0, inp, 1, kPushNext);
  b.gemm(0, 1, Loops{}, kPopPrev | (with_war_token ? kPushPrev : Deps{}));
  b.load_1d(MemType::kInp, 0, inp + 1, 1, (with_war_token ? kPopNext : Deps{}) | kPushNext);
  b.gemm(1, 2, Loops{}, kPopPrev | kPushNext);
  b.store(0, out, 1, 2, 2, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  return b;
}

TEST_P(ProgramCheckTest, AcceptsACorrectProgram) {
  const ProtocolReport r = check_protocol(two_tiles_through_one_slot(layout(), true).build());
  EXPECT_TRUE(r.ok()) << problems(r);
  EXPECT_EQ(r.max_tokens[0], 1);  // load->compute
  EXPECT_EQ(r.max_tokens[1], 1);  // compute->load
}

TEST_P(ProgramCheckTest, ReportsALoadThatOverwritesABufferStillBeingRead) {
  const ProtocolReport r = check_protocol(two_tiles_through_one_slot(layout(), false).build());
  EXPECT_TRUE(reports(r,
                      "data race on INP[0] between instruction 4 (GEMM) and instruction 5 "
                      "(LOAD INP)"))
      << problems(r);
}

TEST_P(ProgramCheckTest, ReportsAStoreRacingWithTheComputeThatWritesItsTile) {
  ProgramBuilder b(layout());
  const int64_t acc = b.alloc(MemType::kAcc, 1);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}});
  const int64_t out = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.load_1d(MemType::kAcc, 0, acc, 1, kPushNext);
  b.store(0, out, 1, 1, 1, kPopPrev | kPushPrev);
  b.alu_imm(isa::AluOp::kAdd, 1, 0, 1);  // no pop of the store's WAR token before writing
  b.finish(kPopNext);
  const ProtocolReport r = check_protocol(b.build());
  EXPECT_TRUE(reports(r,
                      "data race on ACC[0] between instruction 2 (STORE OUT) and "
                      "instruction 3 (ALU)"))
      << problems(r);
}

TEST_P(ProgramCheckTest, ReportsTokenProblemsAndAnEarlyFinish) {
  ProgramBuilder b(layout());
  b.load(MemType::kInp, 0, 0, 0, 0, 0, Pads{}, kPushNext);  // pushed, never popped
  b.store(0, 0, 0, 0, 0, kPopPrev);                         // never pushed
  b.load(MemType::kUop, 0, 0, 0, 0, 0, Pads{}, kPopNext);   // pushed later in the program
  b.store(0, 0, 0, 0, 0, kPushPrev);
  b.finish();
  const ProtocolReport r = check_protocol(b.build());
  EXPECT_TRUE(reports(r, "queue load->compute: 1 token(s) pushed but never popped")) << problems(r);
  EXPECT_TRUE(reports(r,
                      "instruction 1 (STORE OUT): pops a token on compute->store that is never "
                      "pushed"))
      << problems(r);
  EXPECT_TRUE(reports(r, "comes from instruction 3 (STORE OUT), later in program order"))
      << problems(r);
  EXPECT_TRUE(reports(r, "FINISH can run before instruction 0 (LOAD INP) completes"))
      << problems(r);
}

TEST_P(ProgramCheckTest, ReportsReadsOfDataTheProgramNeverWrote) {
  ProgramBuilder b(layout());
  const int64_t uop = b.add_uops({Uop{3, 2, 1}});
  b.load_1d(MemType::kUop, 0, uop, 1);
  b.gemm(0, 1);
  b.finish();
  const ProtocolReport r = check_protocol(b.build());
  EXPECT_TRUE(reports(r, "reads INP[2] before this program surely wrote it")) << problems(r);
  EXPECT_TRUE(reports(r, "reads WGT[1] before")) << problems(r);
  EXPECT_TRUE(reports(r, "reads ACC[3] before")) << problems(r);
}

INSTANTIATE_TEST_SUITE_P(Configs, ProgramCheckTest, ::testing::ValuesIn(config_names()),
                         ConfigName());

class RandomProgramTest : public ::testing::TestWithParam<std::string> {
 protected:
  const isa::Layout& layout() const { return isa::layout_for(GetParam()); }
};

TEST_P(RandomProgramTest, SameSeedGivesTheSameImage) {
  const RandomProgram a = random_program(layout(), 42);
  const RandomProgram b = random_program(layout(), 42);
  const RandomProgram c = random_program(layout(), 43);
  EXPECT_EQ(a.program.dram, b.program.dram);
  EXPECT_EQ(a.program.insn_offset, b.program.insn_offset);
  EXPECT_EQ(a.program.insn_count, b.program.insn_count);
  EXPECT_NE(a.program.dram, c.program.dram);
}

TEST_P(RandomProgramTest, HonoursTheThreadOptions) {
  RandomProgramOptions o;
  o.min_threads = o.max_threads = 4;
  o.max_iterations = 1;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const RandomProgram p = random_program(layout(), seed, o);
    EXPECT_EQ(p.threads, 4);
    EXPECT_EQ(p.stages, 4);
  }
}

// Every program is race-free, balanced and fetch-deadlock-free under any timing, reads only
// what it wrote, lets FINISH wait for everything, and holds at most threads + 1 tokens per
// queue (well under the depth, 16 on tiny).
TEST_P(RandomProgramTest, ProgramsAreRaceFreeAndKeepQueuesShort) {
  const int depth = layout().config.token_queue_depth;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const RandomProgram p = random_program(layout(), seed);
    const ProtocolReport r = check_protocol(p.program);
    ASSERT_TRUE(r.ok()) << "seed " << seed << ":\n" << problems(r);
    for (int q = 0; q < 4; ++q) {
      ASSERT_LE(r.max_tokens[q], p.threads + 1) << "seed " << seed << ", queue " << q;
      ASSERT_LT(r.max_tokens[q], depth) << "seed " << seed << ", queue " << q;
    }
  }
}

TEST_P(RandomProgramTest, SeedsCoverEveryInstructionKind) {
  std::map<std::string, int> total;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    for (const auto& [feature, n] : random_program(layout(), seed).coverage) total[feature] += n;
  }
  for (const std::string& f : random_program_features()) {
    EXPECT_GT(total[f], 0) << "no program of " << kSeeds << " seeds has " << f;
  }
  for (const auto& [feature, n] : total) {
    EXPECT_THAT(random_program_features(), Contains(feature)) << "unlisted feature";
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, RandomProgramTest, ::testing::ValuesIn(config_names()),
                         ConfigName());

}  // namespace
}  // namespace weft::test
