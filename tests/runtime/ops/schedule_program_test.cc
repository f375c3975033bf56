// A user's accelerator schedule made into a placed program (runtime/ops/schedule_program.h, the
// Python package's weft.build(target="accel")): the arguments it must be given, and that their
// dtypes are what the program's transfers move. (Runs on the engines are tested from Python,
// tests/python/test_accel_build.py, against NumPy and `weft sim`.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/isa/errors.h"
#include "runtime/ops/schedule_program.h"
#include "tests/compiler/packed_dense.h"

namespace weft::rt {
namespace {

using compiler::te::PackedDense;
using ::testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(ScheduleProgram, EveryDramTensorMustBeAnArgument) {
  const isa::Layout& l = isa::layout_for("vta");
  PackedDense d(compiler::te::gemm_intrinsic(l), 2, 2, 2, 1, 1, 1, /*dma_pragmas=*/true);
  EXPECT_THAT(error_of([&] { build_schedule_program(l, *d.s, {d.a, d.c}); }),
              HasSubstr("tensor 'W' is read or written in DRAM by the program but is not an "
                        "argument"));
}

TEST(ScheduleProgram, AStoredTensorIsInt8) {
  // PackedDense stores its int32 sums (STORE narrows them to int8 in DRAM): the caller's int32
  // array would not be what DRAM holds.
  const isa::Layout& l = isa::layout_for("vta");
  PackedDense d(compiler::te::gemm_intrinsic(l), 2, 2, 2, 1, 1, 1, /*dma_pragmas=*/true);
  EXPECT_THAT(error_of([&] { build_schedule_program(l, *d.s, {d.a, d.w, d.c}); }),
              HasSubstr("tensor 'C' is int32 but the program moves it as OUT (int8 elements)"));
}

TEST(ScheduleProgram, AnArgumentTheProgramNeverMovesIsAnError) {
  const isa::Layout& l = isa::layout_for("vta");
  PackedDense d(compiler::te::gemm_intrinsic(l), 2, 2, 2, 1, 1, 1, /*dma_pragmas=*/true);
  const auto extra = compiler::te::placeholder({4}, compiler::ir::DType::kInt8, "X");
  EXPECT_THAT(error_of([&] { build_schedule_program(l, *d.s, {extra, d.a, d.w, d.c}); }),
              HasSubstr("argument 'X' is never loaded or stored by the program"));
}

}  // namespace
}  // namespace weft::rt
