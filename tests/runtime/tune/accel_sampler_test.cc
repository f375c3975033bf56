// The accelerator spaces propose only legal schedules: every sample and every mutation of
// ResNet-18's layers and of dense shapes, on vta, gemm8x8 and tiny, passes the compiler's own
// knob check (ops::conv2d_knobs_error / dense_knobs_error, called here directly), legal
// samples compile, a space where legal points are rare still yields them, a space with no
// legal point is refused naming the constraint, and one deterministic tuning run (C8 on vta,
// 32 trials, as in issue 29) proposes under 5% invalid candidates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "compiler/tune/accel_space.h"
#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/search.h"
#include "runtime/tune/thread_runner.h"

namespace weft {
namespace {

using namespace compiler::tune;
using namespace rt::tune;
namespace ops = compiler::ops;
using ::testing::HasSubstr;

// How many points of the space fail the compiler's check (the sampler has work to do).
size_t illegal_points(const AccelSpace& space) {
  size_t n = 0;
  Rng rng(0);
  for_each_decision(space.sample(rng), [&](const Trace& t) {
    n += !space.why_illegal(t).empty();
    return false;
  });
  return n;
}

// Samples and mutations of `space`, `check` being the compiler's verdict on a trace.
template <class Check>
void expect_only_legal(const AccelSpace& space, const std::string& what, Check check,
                       int samples = 150) {
  Rng rng(7);
  std::set<std::string> keys;
  for (int i = 0; i < samples; ++i) {
    const Trace t = space.sample(rng);
    EXPECT_EQ(check(t), "") << what << " sample " << i;
    const Trace m = space.mutate(t, rng);
    EXPECT_EQ(check(m), "") << what << " mutation " << i;
    keys.insert(t.key());
  }
  EXPECT_GT(keys.size(), 1u) << what << ": the sampler should still explore";
}

// A ResNet-18 layer's shape by name (C1..C12), batch 1.
ops::Conv2dShape layer_shape(const std::string& name) {
  for (const rt::LayerSpec& ls : rt::resnet18_layers())
    if (ls.name == name) return ls.shape;
  ADD_FAILURE() << "no layer " << name;
  return {};
}

// `n` of the task's samples compile and place (the runtime's builder, the token verifier).
void expect_samples_compile(const Task& task, int n, uint64_t seed) {
  Rng rng(seed);
  for (int i = 0; i < n; ++i) {
    const Candidate c = task.space->apply(task.space->sample(rng));
    EXPECT_TRUE(c.ok()) << task.name << ": " << c.error;
  }
}

TEST(AccelSampler, ResNet18LayersSampleOnlyLegalSchedules) {
  size_t illegal = 0;
  for (const char* config : {"vta", "gemm8x8", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    const isa::Platform& p = isa::find_platform("sim");
    for (const rt::LayerSpec& layer : rt::resnet18_layers()) {
      ops::Conv2dShape s = layer.shape;
      s.n = l.config.batch();
      const AccelConv2dSpace space(l, p, s, {});
      expect_only_legal(space, std::string(config) + " " + layer.name, [&](const Trace& t) {
        return ops::conv2d_knobs_error(l, s, space.knobs_of(t));
      });
      illegal += illegal_points(space);
    }
  }
  EXPECT_GT(illegal, 0u) << "the spaces hold illegal points, or this test shows nothing";
}

TEST(AccelSampler, DenseShapesSampleOnlyLegalSchedules) {
  for (const char* config : {"vta", "gemm8x8", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    const isa::Platform& p = isa::find_platform("sim");
    for (const ops::DenseShape s : {ops::DenseShape{1, 1000, 512}, ops::DenseShape{256, 256, 256},
                                    ops::DenseShape{64, 4096, 1024}}) {
      const AccelDenseSpace space(l, p, s, {});
      expect_only_legal(
          space,
          std::string(config) + " dense " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
              std::to_string(s.k),
          [&](const Trace& t) { return ops::dense_knobs_error(l, s, space.knobs_of(t)); });
    }
  }
}

// The check is also sufficient: legal samples compile and place (the runtime's builder with
// the static token verifier), on layers of both configurations and a dense shape.
TEST(AccelSampler, LegalSamplesCompile) {
  for (const auto& [config, layer] : {std::pair{"vta", "C9"}, {"vta", "C12"}, {"gemm8x8", "C12"}}) {
    ops::Conv2dShape s = layer_shape(layer);
    s.n = isa::layout_for(config).config.batch();
    expect_samples_compile(make_accel_conv2d_task(layer, config, "sim", s), 4, 3);
  }
  expect_samples_compile(make_accel_dense_task("dense", "vta", "sim", {16, 1000, 512}), 4, 3);
}

// A stride-2 7x7 layer rounds its output up by whole tiles: the last tile's input then runs
// past the image by up to 34 rows (C1 with 32-row tiles), more than the LOAD's 4-bit trailing
// pad field holds. The check refuses such tilings naming the field; the sampler's picks of a
// smaller such layer (trailing pads up to 18 in its space) all compile and place.
TEST(AccelSampler, LoadPadFieldsBoundTheRounding) {
  const isa::Layout& l = isa::layout_for("vta");
  const ops::Conv2dShape c1 = layer_shape("C1");
  EXPECT_THAT(ops::conv2d_knobs_error(l, c1, {32, 1, 1, 1, 1, 'o'}),
              HasSubstr("reach 34 past the input's 224, more padding than the LOAD's y_pad_1 "
                        "field holds (15 on vta)"));
  EXPECT_THAT(ops::conv2d_knobs_error(l, c1, {1, 32, 1, 1, 1, 'o'}), HasSubstr("x_pad_1"));
  EXPECT_EQ(ops::conv2d_knobs_error(l, c1, {16, 16, 1, 1, 1, 'o'}), "");
  const ops::Conv2dShape s{1, 112, 112, 16, 16, 7, 2, 3};
  EXPECT_THAT(ops::conv2d_knobs_error(l, s, {32, 1, 1, 1, 1, 'o'}), HasSubstr("y_pad_1"));
  expect_samples_compile(make_accel_conv2d_task("stride 2", "vta", "sim", s), 8, 5);
}

// Where legal points are rare, sampling still finds them: a 15x15 kernel on tiny fits its
// 256-block buffers only with one channel block of each kind and one thread, one point in
// 675 (tile_ic and tile_oc split 16384 blocks 15 ways each), so most samples come from the
// enumeration after 256 refused draws.
TEST(AccelSampler, RareLegalPointsAreStillFound) {
  const isa::Layout& l = isa::layout_for("tiny");
  const ops::Conv2dShape s{1, 16, 16, 65536, 65536, 15, 1, 0};
  const AccelConv2dSpace space(l, isa::find_platform("sim"), s, {});
  size_t points = 0;
  Rng structure(0);
  for_each_decision(space.sample(structure), [&](const Trace&) { return ++points, false; });
  EXPECT_EQ(points, 2u * 2 * 15 * 15 * 3 * 2);
  EXPECT_EQ(points - illegal_points(space), 8u);  // tile_h, tile_w and the axis are free
  expect_only_legal(
      space, "tiny 15x15 kernel",
      [&](const Trace& t) { return ops::conv2d_knobs_error(l, s, space.knobs_of(t)); }, 40);
}

TEST(AccelSampler, NoLegalPointNamesTheConstraint) {
  const isa::Platform& p = isa::find_platform("sim");
  // Too wide for the DMA stride fields at any tiling.
  EXPECT_THAT(
      [&] {
        AccelConv2dSpace(isa::layout_for("gemm8x8"), p, {8, 3, 40000, 16, 16, 3, 1, 1}, {});
      },
      ::testing::ThrowsMessage<UserError>(
          AllOf(HasSubstr("no valid schedule"), HasSubstr("DMA stride fields"))));
  // Past the 32-bit DRAM offsets whatever the tiles.
  EXPECT_THAT(
      [&] {
        AccelDenseSpace(isa::layout_for("vta"), p, {1 << 20, 1 << 20, 1 << 20}, {});
      },
      ::testing::ThrowsMessage<UserError>(
          AllOf(HasSubstr("dense M=1048576"), HasSubstr("32-bit DRAM addresses"))));
}

// Issue 29's run: C8 on vta, 32 trials, the model strategy (evolutionary without XGBoost).
// It proposed 79 candidates, 47 of them invalid, before the sampler checked legality.
TEST(AccelSampler, TuningRunProposesUnderFivePercentInvalid) {
  ops::Conv2dShape s = layer_shape("C8");
  s.n = 1;  // vta's GEMM batch, as `weft tune --layer` takes it
  const std::vector<Task> tasks = {make_accel_conv2d_task("C8", "vta", "sim", s)};
  SearchOptions o;
  o.strategy = xgboost_available() ? Strategy::kModel : Strategy::kEvolutionary;
  o.trials = 32;
  ThreadRunner runner(1);
  const std::vector<TaskResult> r = tune(tasks, o, runner, nullptr);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].trials, 32);
  EXPECT_GT(r[0].proposed, 0);
  EXPECT_LT(r[0].invalid * 20, r[0].proposed) << r[0].invalid << " of " << r[0].proposed;
}

}  // namespace
}  // namespace weft
