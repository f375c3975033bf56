// Shape-generic tuning (runtime/tune/shape_generic.h) with small trial counts: family specs
// parse or fail with a clear message; a tuned table covers every member of the family; the
// micro-kernel dispatched to a shape that was never measured compiles into a valid program
// there and its measured cycles are close to the prediction; the table round-trips through
// JSON and the same seed gives the same table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/tune/accel_space.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/shape_generic.h"

namespace {

namespace tn = weft::rt::tune;
namespace ops = weft::compiler::ops;
using ::testing::HasSubstr;

tn::ShapeFamily dense_family(const std::string& spec) {
  return tn::ShapeFamily::parse("dense", spec, {1, 64, 64}, {});
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const weft::UserError& e) {
    return e.what();
  }
  return "";
}

TEST(ShapeGeneric, FamilySpecsParseOrFailClearly) {
  tn::ShapeFamily f = dense_family("M=1:256");
  EXPECT_EQ(f.lo, 1);
  EXPECT_EQ(f.hi, 256);
  EXPECT_EQ(f.representatives(3), (std::vector<int64_t>{1, 16, 256}));
  EXPECT_THAT(error_of([] { dense_family("N=1:4"); }), HasSubstr("dense varies M, not 'N'"));
  EXPECT_THAT(error_of([] { dense_family("M=8:2"); }), HasSubstr("need 1 <= LO <= HI"));
  EXPECT_THAT(error_of([] { dense_family("M=0:2"); }), HasSubstr("need 1 <= LO <= HI"));
  EXPECT_THAT(error_of([] { dense_family("M=a:2"); }), HasSubstr("'a' is not a positive"));
  EXPECT_THAT(error_of([] { dense_family("M1:2"); }), HasSubstr("expected M=LO:HI"));
  EXPECT_THAT(error_of([] { tn::ShapeFamily::parse("resnet18", "M=1:2", {}, {}); }),
              HasSubstr("shape families exist for dense"));
  EXPECT_THAT(error_of([] {
                tn::ShapeFamily::parse("conv2d", "HW=1:28", {}, {1, 1, 1, 16, 16, 3, 1, 0});
              }),
              HasSubstr("smaller than the kernel"));
  // Membership: the fixed sizes must match.
  EXPECT_EQ(f.member(tn::dense_workload({5, 64, 64})), std::optional<int64_t>(5));
  EXPECT_FALSE(f.member(tn::dense_workload({5, 64, 32})));
  EXPECT_FALSE(f.member(tn::dense_workload({300, 64, 64})));
}

TEST(ShapeGeneric, DenseTableCoversTheFamilyAndDispatchesValidKernels) {
  const tn::ShapeFamily f = dense_family("M=1:64");
  tn::GenericOptions o;
  o.trials = 8;
  o.reps = 4;
  o.pool = 16;
  tn::Database db;
  tn::DispatchTable t = tn::tune_family(f, "gemm8x8", "sim", o, &db);
  EXPECT_EQ(t.trials, 8);
  EXPECT_EQ(db.size(), 8u);
  ASSERT_EQ(t.kernel_of.size(), 64u);  // every member 1..64
  for (int64_t v = 1; v <= 64; ++v) {
    ASSERT_TRUE(t.kernel_of.count(v)) << v;
    EXPECT_GT(t.predicted.at(v), 0) << v;
  }
  // A shape no trial measured (the homes are 1, 4, 16, 64): its kernel is valid there and
  // the cycle model lands near the prediction.
  const weft::isa::Layout& l = weft::isa::layout_for("gemm8x8");
  for (int64_t v : {7, 23, 41}) {
    const ops::DenseKnobs k = tn::dense_knobs_from_json(t.kernels[t.kernel_of.at(v)].knobs);
    EXPECT_NO_THROW(ops::check_dense_knobs(l, f.dense_at(v), k)) << v;
    tn::Task task = tn::make_accel_dense_task("d", "gemm8x8", "sim", f.dense_at(v));
    const auto& space = static_cast<const weft::compiler::tune::AccelDenseSpace&>(*task.space);
    // The space only holds tiles up to the shape; a padded tile goes through the knobs.
    ops::DenseKnobs kk = k;
    kk.tile_m = std::min<int64_t>(k.tile_m, (v + 7) / 8);
    weft::compiler::tune::Candidate c;
    try {
      c = space.apply(space.trace_of(kk));
    } catch (const weft::UserError&) {
      continue;  // a padded tile that the space does not list; checked end to end instead
    }
    ASSERT_TRUE(c.ok()) << c.error;
    const tn::MeasureResult m = task.measurer->measure(c);
    ASSERT_TRUE(m.ok()) << m.error;
    if (kk.tile_m == k.tile_m) {
      EXPECT_LT(m.value, 1.5 * t.predicted.at(v)) << v;
      EXPECT_GT(m.value, 0.5 * t.predicted.at(v)) << v;
    }
  }
}

TEST(ShapeGeneric, TableRoundTripsAndSameSeedSameTable) {
  const tn::ShapeFamily f = dense_family("M=1:32");
  tn::GenericOptions o;
  o.trials = 6;
  o.reps = 3;
  o.pool = 12;
  tn::DispatchTable a = tn::tune_family(f, "gemm8x8", "sim", o, nullptr);
  tn::DispatchTable b = tn::tune_family(f, "gemm8x8", "sim", o, nullptr);
  EXPECT_EQ(a.to_json(), b.to_json());
  const std::string dir = std::filesystem::temp_directory_path() /
                          ("weft_sg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string db = dir + "/db.jsonl";
  a.save(tn::dispatch_path(db));
  tn::DispatchTable c = tn::DispatchTable::load(tn::dispatch_path(db));
  EXPECT_EQ(c.to_json(), a.to_json());
  auto d = tn::dispatch_knobs(tn::dense_workload({19, 64, 64}),
                              tn::accel_target("gemm8x8", "sim"), db);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->knobs, a.kernels[a.kernel_of.at(19)].knobs);
  // Not a member (another N), another target: nothing.
  EXPECT_FALSE(tn::dispatch_knobs(tn::dense_workload({19, 32, 64}),
                                  tn::accel_target("gemm8x8", "sim"), db));
  EXPECT_FALSE(tn::dispatch_knobs(tn::dense_workload({19, 64, 64}),
                                  tn::accel_target("vta", "sim"), db));
  // A corrupt table is a clear error naming the file.
  { std::ofstream(tn::dispatch_path(db)) << "{\"format\":\"weft.dispatch.v1\"}"; }
  EXPECT_THAT(error_of([&] {
                tn::dispatch_knobs(tn::dense_workload({19, 64, 64}),
                                   tn::accel_target("gemm8x8", "sim"), db);
              }),
              HasSubstr("db.jsonl.dispatch.json"));
  std::filesystem::remove_all(dir);
}

TEST(ShapeGeneric, Conv2dTableCoversTheFamily) {
  const tn::ShapeFamily f =
      tn::ShapeFamily::parse("conv2d", "HW=7:20", {}, {1, 1, 1, 16, 16, 3, 1, 1});
  tn::GenericOptions o;
  o.trials = 4;
  o.reps = 2;
  o.pool = 8;
  tn::DispatchTable t = tn::tune_family(f, "gemm8x8", "sim", o, nullptr);
  ASSERT_EQ(t.kernel_of.size(), 14u);
  const weft::isa::Layout& l = weft::isa::layout_for("gemm8x8");
  for (const auto& [v, i] : t.kernel_of)
    EXPECT_NO_THROW(
        ops::check_conv2d_knobs(l, f.conv_at(v), tn::conv2d_knobs_from_json(t.kernels[i].knobs)))
        << v;
}

}  // namespace
