// The folders of attention-mask operators (compiler/graph/onnx/fold_mask_ops.h) against values
// worked out by hand from the ONNX operator specification: Mod's two sign conventions, the
// logical operators and comparisons on broadcast operands, Transpose, ScatterND, float32
// arithmetic on constants (folded where the importer asks), and their bad values as named
// UserErrors. Their libonnx node cases run in fold_constants_test.cc's FoldNodeCases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/graph/onnx/fold_mask_ops.h"
#include "hardware/isa/errors.h"
#include "tests/onnx/fold_test_util.h"

namespace weft::compiler::onnx_import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TensorData bools(std::vector<int64_t> shape, const std::vector<double>& v) {
  return typed(ElemType::kBool, std::move(shape), v);
}
TensorData f32(std::vector<int64_t> shape, const std::vector<double>& v) {
  return typed(ElemType::kFloat32, std::move(shape), v);
}

std::string error_of(Case c, const std::vector<const TensorData*>& ins) {
  try {
    c.eval(ins);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(FoldMaskOps, ModTakesTheDivisorsSignUnlessFmod) {
  const TensorData a = i64({4}, {7, -7, 7, -7}), b = i64({4}, {3, 3, -3, -3});
  EXPECT_THAT(make("Mod").eval({&a, &b}).to_int64(), ElementsAre(1, 2, -2, -1));
  EXPECT_THAT(make("Mod", {{"fmod", int_attr(1)}}).eval({&a, &b}).to_int64(),
              ElementsAre(1, -1, 1, -1));
  const TensorData x = f32({2}, {5.5, -5.5}), y = f32({}, {2});
  EXPECT_THAT(make("Mod", {{"fmod", int_attr(1)}}).eval({&x, &y}).to_double(),
              ElementsAre(1.5, -1.5));
  EXPECT_THAT(error_of(make("Mod"), {&x, &y}), HasSubstr("fmod must be 1"));
  const TensorData z = i64({}, {0});
  EXPECT_THAT(error_of(make("Mod"), {&a, &z}), HasSubstr("node 'n' (Mod): integer Mod by zero"));
}

TEST(FoldMaskOps, LogicAndComparisonsBroadcast) {
  const TensorData p = bools({2, 2}, {1, 0, 1, 0}), q = bools({2}, {1, 1});
  EXPECT_THAT(make("Not").eval({&p}).to_int64(), ElementsAre(0, 1, 0, 1));
  EXPECT_THAT(make("And").eval({&p, &q}).to_int64(), ElementsAre(1, 0, 1, 0));
  EXPECT_THAT(make("Xor").eval({&p, &q}).to_int64(), ElementsAre(0, 1, 0, 1));
  const TensorData i = i64({3}, {1, 2, 3});
  EXPECT_THAT(error_of(make("Not"), {&i}), HasSubstr("input 0 must be bool"));
  const TensorData two = i64({}, {2});
  EXPECT_THAT(make("Less").eval({&i, &two}).to_int64(), ElementsAre(1, 0, 0));
  EXPECT_THAT(make("GreaterOrEqual").eval({&i, &two}).to_int64(), ElementsAre(0, 1, 1));
  const TensorData nan = f32({2}, {std::nan(""), 1}), one = f32({}, {1});
  EXPECT_THAT(make("LessOrEqual").eval({&nan, &one}).to_int64(), ElementsAre(0, 1));
}

TEST(FoldMaskOps, TransposeAndNeg) {
  const TensorData m = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData t = make("Transpose").eval({&m});  // default: the axes reversed
  EXPECT_THAT(t.shape, ElementsAre(3, 2));
  EXPECT_THAT(t.to_int64(), ElementsAre(1, 4, 2, 5, 3, 6));
  Attribute perm;
  perm.kind = Attribute::Kind::kInts;
  perm.ints = {0, 0};
  EXPECT_THAT(error_of(make("Transpose", {{"perm", perm}}), {&m}),
              HasSubstr("perm [0, 0] is not a permutation of the 2 axes"));
  EXPECT_THAT(make("Neg").eval({&m}).to_int64(), ElementsAre(-1, -2, -3, -4, -5, -6));
  // An empty tensor whose other sizes multiply past int64 (found by fuzz_onnx): transposed,
  // nothing computed from them.
  const int64_t big = int64_t{1} << 40;
  const TensorData empty = i64({3, 0, big, big}, {});
  EXPECT_THAT(make("Transpose").eval({&empty}).shape, ElementsAre(big, big, 0, 3));
}

// Swin's window numbering: zeros, then slices of windows set to their count.
TEST(FoldMaskOps, ScatterNdReplacesSlices) {
  const TensorData data = f32({3, 2}, {0, 0, 0, 0, 0, 0});
  const TensorData idx = i64({2, 1}, {2, -3}), upd = f32({2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(make("ScatterND").eval({&data, &idx, &upd}).to_double(),
              ElementsAre(3, 4, 0, 0, 1, 2));
  const TensorData bad = i64({1, 1}, {3}), one = f32({1, 2}, {1, 1});
  EXPECT_THAT(error_of(make("ScatterND"), {&data, &bad, &one}),
              HasSubstr("node 'n' (ScatterND): index 3 is outside axis 0 of [3, 2]"));
  EXPECT_THAT(error_of(make("ScatterND"), {&data, &idx, &one}),
              HasSubstr("updates of shape [1, 2] do not match [2, 2]"));
  Attribute add;
  add.kind = Attribute::Kind::kString;
  add.s = "add";
  EXPECT_THAT(error_of(make("ScatterND", {{"reduction", add}}), {&data, &idx, &upd}),
              HasSubstr("reduction 'add' is not folded"));
}

// Float32 arithmetic folds as float32 computes it (Swin's mask: a difference of two views).
TEST(FoldMaskOps, FloatArithmeticFoldsWhereAsked) {
  const TensorData a = f32({2}, {0.1, 3}), b = f32({}, {0.2});
  const TensorData s = make("Add").eval({&a, &b});
  EXPECT_EQ(s.type, ElemType::kFloat32);
  EXPECT_THAT(s.to_double(), ElementsAre(double(0.1f + 0.2f), double(3.0f + 0.2f)));
  EXPECT_THAT(make("Div").eval({&a, &b}).to_double(), ElementsAre(double(0.1f / 0.2f), double(3.0f / 0.2f)));
  // fold_constants leaves float arithmetic on constants to the importer; fold_node folds it
  // where the importer asks.
  Model m;
  m.path = "'m.onnx'";
  m.initializers["a"] = a;
  m.initializers["b"] = b;
  Node n;
  n.name = "n";
  n.op = "Sub";
  n.inputs = {"a", "b"};
  n.outputs = {"y"};
  m.nodes = {n};
  const StaticShapeOf none = [](const std::string&, std::vector<int64_t>*) { return false; };
  EXPECT_FALSE(fold_node(&m, n, none, false));
  EXPECT_TRUE(fold_node(&m, n, none, true));
  EXPECT_THAT(m.initializers.at("y").to_double(), ElementsAre(double(0.1f - 0.2f), double(3.0f - 0.2f)));
}

}  // namespace
}  // namespace weft::compiler::onnx_import
