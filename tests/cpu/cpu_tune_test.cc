// The CPU half of the tuner (issue #14) on small shapes: every knob of the dense and conv2d
// schedules computes the reference result (checked by the host measurer, which compares each
// candidate with the scalar reference), schedule errors name the knob, the search spaces
// sample, replay and reject over-large register tiles as recorded errors (never throwing),
// features have a fixed length, and tuning records reach `weft run --target llvm`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/tune/cpu_features.h"
#include "compiler/tune/cpu_space.h"
#include "hardware/isa/errors.h"
#include "runtime/tune/cpu_measurer.h"
#include "runtime/tune/cpu_schedules.h"
#include "runtime/tune/cpu_tasks.h"
#include "runtime/tune/database.h"

namespace weft::rt::tune {
namespace {

namespace cpu = compiler::ops::cpu;  // the CPU operators' schedules
using compiler::tune::CpuKnobs;
using compiler::tune::CpuSpace;
using ::testing::HasSubstr;

const CpuSpace& space_of(const Task& t) { return dynamic_cast<const CpuSpace&>(*t.space); }

// Builds the knobs as a candidate of `t` and measures it (which checks the result).
MeasureResult run_knobs(const Task& t, const CpuKnobs& k) {
  const compiler::tune::Candidate c = t.space->apply(space_of(t).trace_of(k));
  EXPECT_TRUE(c.ok()) << k.dump() << ": " << c.error;
  if (!c.ok()) return {};
  return t.measurer->measure(c);
}

TEST(CpuTune, HostIsaComesFromFeatures) {
  const auto isa = compiler::codegen::host_isa();
  EXPECT_THAT(isa.key(), ::testing::AnyOf("avx512-vnni", "avx512", "avx2", "generic"));
  EXPECT_EQ(isa.lanes32(), isa.avx512f ? 16 : (isa.avx2 ? 8 : 4));
  EXPECT_EQ(cpu_host_target().key(), "llvm/" + isa.key() + "/");
}

// Benchmarks name the real CPU (LLVM 16 calls Zen 5 "generic"): the model name from
// /proc/cpuinfo, LLVM's name and the features host_isa detected.
TEST(CpuTune, HostDescriptionNamesTheRealCpu) {
  const std::string d = compiler::codegen::host_cpu_description();
  EXPECT_THAT(d, HasSubstr("LLVM host CPU " + compiler::codegen::host_cpu_name()));
  if (compiler::codegen::host_isa().avx2) {
    EXPECT_THAT(d, HasSubstr("avx2"));
  }
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      EXPECT_THAT(
          d, ::testing::StartsWith(line.substr(line.find_first_not_of(" \t", line.find(':') + 1))));
      break;
    }
}

TEST(CpuTune, EveryDenseKnobComputesTheReference) {
  for (const char* dtype : {"float32", "int8"}) {
    Task t = make_cpu_task(cpu_dense_workload(19, 40, 23, dtype), "d");
    const int64_t vl = compiler::codegen::host_isa().lanes32();
    for (const CpuKnobs& k : std::vector<CpuKnobs>{knobs_of(cpu::DenseSchedule{}),
                                                   {{"rows", 4},
                                                    {"cols", 2 * vl},
                                                    {"lanes", 8},
                                                    {"k_unroll", 1},
                                                    {"pack_a", 1},
                                                    {"row_block_tiles", 4},
                                                    {"parallel_axis", 1}},
                                                   {{"rows", 3},
                                                    {"cols", vl},
                                                    {"lanes", 0},
                                                    {"k_unroll", 4},
                                                    {"pack_a", 0},
                                                    {"row_block_tiles", 0},
                                                    {"parallel_axis", 1}},
                                                   {{"rows", 5},
                                                    {"cols", vl},
                                                    {"lanes", 0},
                                                    {"k_unroll", 2},
                                                    {"pack_a", 1},
                                                    {"row_block_tiles", 0},
                                                    {"parallel_axis", 0}},
                                                   {{"rows", 3},
                                                    {"cols", 2 * vl},
                                                    {"lanes", 0},
                                                    {"k_unroll", 1},
                                                    {"pack_a", 0},
                                                    {"row_block_tiles", 0},
                                                    {"parallel_axis", 0},
                                                    {"k_pack", 4}},
                                                   {{"rows", 2},
                                                    {"cols", vl},
                                                    {"lanes", 0},
                                                    {"k_unroll", 1},
                                                    {"pack_a", 1},
                                                    {"row_block_tiles", 4},
                                                    {"parallel_axis", 1},
                                                    {"k_pack", 4}}}) {
      if (std::string(dtype) == "float32" && k.contains("k_pack")) continue;
      CpuKnobs kk = k;
      if (std::string(dtype) == "int8" && !kk.contains("k_pack")) kk["k_pack"] = 2;
      if (!kk.contains("pack_w")) kk["pack_w"] = 0;
      if (!kk.contains("k_block")) kk["k_block"] = 0;
      MeasureResult m = run_knobs(t, kk);
      EXPECT_TRUE(m.ok()) << dtype << " " << k.dump() << ": " << m.error;
      EXPECT_GT(m.value, 0);
    }
  }
}

TEST(CpuTune, KBlockAndRowPackingFromTheSpaceComputeTheReference) {
  // K = 150: k_block 64 makes three passes (the last of 22 steps, 6 quads with k_pack 4);
  // pack_w 2 and 3 pack each W panel inside the kernel.
  for (const char* dtype : {"float32", "int8"}) {
    Task t = make_cpu_task(cpu_dense_workload(9, 20, 150, dtype), "d");
    const int64_t vl = compiler::codegen::host_isa().lanes32();
    for (int64_t kp : {2, 4}) {
      if (std::string(dtype) == "float32" && kp == 4) continue;
      for (auto [pw, kb] : std::vector<std::pair<int64_t, int64_t>>{{1, 64}, {3, 0}, {2, 0}}) {
        CpuKnobs k = {{"rows", 4},   {"cols", vl},         {"lanes", 0},
                      {"k_unroll", 4}, {"pack_a", 0},      {"row_block_tiles", 0},
                      {"parallel_axis", 0}, {"pack_w", pw}, {"k_block", kb}};
        if (std::string(dtype) == "int8") k["k_pack"] = kp;
        MeasureResult m = run_knobs(t, k);
        EXPECT_TRUE(m.ok()) << dtype << " " << k.dump() << ": " << m.error;
        EXPECT_EQ(dense_schedule_of(k).k_block, kb);
        EXPECT_EQ(dense_schedule_of(k).pack_w, pw);
      }
    }
    // Panels packed in the kernel with three K passes: an invalid candidate with its reason.
    CpuKnobs bad = {{"rows", 4},   {"cols", vl},        {"lanes", 0},
                    {"k_unroll", 4}, {"pack_a", 0},     {"row_block_tiles", 0},
                    {"parallel_axis", 0}, {"pack_w", 3}, {"k_block", 64}};
    if (std::string(dtype) == "int8") bad["k_pack"] = 2;
    const compiler::tune::Candidate c = t.space->apply(space_of(t).trace_of(bad));
    EXPECT_FALSE(c.ok());
    EXPECT_THAT(c.error, ::testing::HasSubstr("needs one K pass"));
  }
  // A record from before these knobs: the schedule it measured (no blocking, gathers).
  cpu::DenseSchedule before;
  before.pack_w = 0;
  before.k_block = 0;
  CpuKnobs old = knobs_of(before);
  old.erase("pack_w");
  old.erase("k_block");
  EXPECT_EQ(dense_schedule_of(old), before);
}

TEST(CpuTune, EveryConvKnobComputesTheReference) {
  compiler::ops::Conv2dNchw s{1, 16, 9, 9, 64, 3, 3, 1, 1};
  // Tiles that fit the host's register file: a block of 16 channels is one AVX-512 register
  // but two of AVX2 (16 registers in all), where more than one block a tile does not fit.
  const bool wide = compiler::codegen::host_isa().avx512f;
  for (const char* dtype : {"float32", "int8"}) {
    Task t = make_cpu_task(cpu_conv2d_workload(s, dtype), "c");
    for (const CpuKnobs& k : std::vector<CpuKnobs>{
             {{"ow", 3}, {"oc_blocks", wide ? 2 : 1}, {"reduce_order", 1}, {"ci_unroll", 2},
              {"rows_outer", 1}},
             {{"ow", 4}, {"oc_blocks", wide ? 4 : 1}, {"reduce_order", 0}, {"ci_unroll", 4},
              {"rows_outer", 0}},
             {{"ow", 5}, {"oc_blocks", 1}, {"reduce_order", 1}, {"ci_unroll", 1},
              {"rows_outer", 0}}}) {
      MeasureResult m = run_knobs(t, k);
      EXPECT_TRUE(m.ok()) << dtype << " " << k.dump() << ": " << m.error;
    }
  }
}

TEST(CpuTune, ScheduleErrorsNameTheKnob) {
  cpu::DenseSchedule d;
  d.lanes = 5;
  EXPECT_THAT([&] { cpu::validate(d); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("lanes 5 do not divide")));
  d = {};
  d.row_block = 10;
  EXPECT_THAT([&] { cpu::validate(d); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("row_block 10 is not a multiple")));
  cpu::ConvSchedule c;
  c.oc_blocks = 3;
  EXPECT_THAT([&] { cpu::validate({1, 16, 8, 8, 64, 3, 3, 1, 1}, compiler::ir::DType::kFloat32, c); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("oc_blocks 3 does not divide")));
  c = {};
  c.ci_unroll = 4;
  EXPECT_THAT([&] { cpu::validate({1, 3, 8, 8, 16, 3, 3, 1, 1}, compiler::ir::DType::kFloat32, c); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("ci_unroll 4 does not divide")));
}

TEST(CpuTune, SpacesSampleReplayAndRecordInvalidCandidates) {
  Task t = make_cpu_task(cpu_dense_workload(8, 16, 8, "float32"), "d");
  const CpuSpace& sp = space_of(t);
  EXPECT_EQ(sp.name(), "llvm.dense");
  // Today's default schedule is the first seed.
  ASSERT_FALSE(sp.seeds().empty());
  EXPECT_EQ(dense_schedule_of(sp.knobs_of(sp.seeds()[0])), cpu::DenseSchedule{});
  compiler::tune::Rng rng(3);
  int valid = 0, invalid = 0;
  for (int i = 0; i < 60; ++i) {
    compiler::tune::Trace tr = sp.sample(rng);
    compiler::tune::Candidate c = sp.apply(tr);  // never throws
    (c.ok() ? valid : invalid)++;
    if (!c.ok()) {
      EXPECT_FALSE(c.error.empty());
    }
    // JSON round trip replays the same knobs.
    EXPECT_EQ(sp.knobs_of(compiler::tune::Trace::from_json(tr.to_json())), sp.knobs_of(tr));
  }
  EXPECT_GT(valid, 0);
  EXPECT_GT(invalid, 0);
  // A register tile larger than the register file is an invalid candidate with its reason
  // (the widest column choice: four vectors, 64 lanes of AVX-512 or 32 of AVX2).
  const int64_t widest = 4 * compiler::codegen::host_isa().lanes32();
  CpuKnobs big = knobs_of(cpu::DenseSchedule{16, widest});
  compiler::tune::Candidate c = sp.apply(sp.trace_of(big));
  EXPECT_FALSE(c.ok());
  EXPECT_THAT(c.error, HasSubstr("register tile 16x" + std::to_string(widest) + " needs"));
  // A knob outside the space is a user error naming it.
  CpuKnobs odd = knobs_of(cpu::DenseSchedule{});
  odd["k_unroll"] = 3;
  EXPECT_THAT([&] { sp.trace_of(odd); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("k_unroll = 3 is not one")));
}

TEST(CpuTune, FeaturesHaveAFixedLengthAndSeeTheSchedule) {
  Task t = make_cpu_task(cpu_dense_workload(32, 64, 32, "float32"), "d");
  const CpuSpace& sp = space_of(t);
  auto a = t.features->extract(sp.apply(sp.trace_of(knobs_of(cpu::DenseSchedule{}))));
  auto b = t.features->extract(sp.apply(sp.trace_of(knobs_of(cpu::DenseSchedule{2, 16}))));
  ASSERT_EQ(a.size(), t.features->size());
  ASSERT_EQ(b.size(), a.size());
  EXPECT_NE(a, b);
  compiler::tune::Candidate bad;
  bad.error = "x";
  EXPECT_EQ(t.features->extract(bad), std::vector<float>(a.size(), 0.0f));
}

TEST(CpuTune, BadWorkloadsAreUserErrors) {
  EXPECT_THAT([] { make_cpu_task({"pool", {{"m", 1}}}, "x"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("no CPU search space for 'pool'")));
  EXPECT_THAT([] { make_cpu_task({"dense", {{"m", 4}, {"n", 4}}}, "x"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("no integer 'k'")));
  EXPECT_THAT([] { make_cpu_task(cpu_dense_workload(0, 4, 4, "float32"), "x"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("dense: M is 0")));
}

TEST(CpuTune, TunedScheduleComesFromTheRecords) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "weft_cpu_tune_test.jsonl").string();
  std::filesystem::remove(path);
  Task t = make_cpu_task(cpu_dense_workload(24, 48, 16, "float32"), "d");
  const CpuSpace& sp = space_of(t);
  {
    Database db(path);
    cpu::DenseSchedule fast{4, 16}, slow{2, 16};
    db.add({t.workload, t.target, sp.trace_of(knobs_of(slow)), 2e-3, "seconds", "", 0, "random", 1});
    db.add({t.workload, t.target, sp.trace_of(knobs_of(fast)), 1e-3, "seconds", "", 1, "random", 1});
    db.add({t.workload, t.target, sp.trace_of(knobs_of(cpu::DenseSchedule{3, 16})), 0,
            "seconds", "register tile ...", 2, "random", 1});
    db.commit();
  }
  auto got = tuned_dense(24, 48, 16, "float32", path);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->schedule, (cpu::DenseSchedule{4, 16}));
  EXPECT_EQ(got->source, path);
  EXPECT_FALSE(tuned_dense(24, 48, 17, "float32", path).has_value() &&
               tuned_dense(24, 48, 17, "float32", path)->source == path);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace weft::rt::tune
