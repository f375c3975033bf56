// The import-time constant folder (compiler/graph/onnx/fold_constants.h): each operator's
// evaluator against values worked out by hand from the ONNX operator specification, the
// folding of a Shape -> Gather -> Unsqueeze -> Concat chain into one initializer, and bad
// values as named UserErrors; and ONNX's own node cases (libonnx-testdata) of every foldable
// operator, with all their inputs as constants, folded to ONNX's expected outputs.
#include "compiler/graph/onnx/fold_constants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/graph/onnx/node_cases.h"
#include "tests/onnx/fold_test_util.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FoldConstants, ShapeWithStartAndEnd) {
  TensorData x;
  x.shape = {2, 3, 4, 5};
  auto c = make("Shape");
  EXPECT_THAT(c.eval({&x}).to_int64(), ElementsAre(2, 3, 4, 5));
  auto s = make("Shape", {{"start", int_attr(1)}, {"end", int_attr(-1)}});
  EXPECT_THAT(s.eval({&x}).to_int64(), ElementsAre(3, 4));
}

TEST(FoldConstants, GatherScalarAndListIndices) {
  const TensorData d = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData j = i64({}, {-1}), k = i64({2}, {1, 0});
  auto c = make("Gather", {{"axis", int_attr(1)}});
  const TensorData a = c.eval({&d, &j});
  EXPECT_THAT(a.shape, ElementsAre(2));
  EXPECT_THAT(a.to_int64(), ElementsAre(3, 6));
  const TensorData b = make("Gather").eval({&d, &k});
  EXPECT_THAT(b.shape, ElementsAre(2, 3));
  EXPECT_THAT(b.to_int64(), ElementsAre(4, 5, 6, 1, 2, 3));
  const TensorData bad = i64({}, {2});
  EXPECT_THROW(make("Gather").eval({&d, &bad}), UserError);
}

TEST(FoldConstants, UnsqueezeSqueezeAndReshape) {
  const TensorData x = i64({}, {7}), axes = i64({1}, {0});
  const TensorData u = make("Unsqueeze").eval({&x, &axes});
  EXPECT_THAT(u.shape, ElementsAre(1));
  EXPECT_TRUE(make("Squeeze").eval({&u, &axes}).shape.empty());
  const TensorData m = i64({2, 3}, {1, 2, 3, 4, 5, 6}), s = i64({2}, {0, -1});
  EXPECT_THAT(make("Reshape").eval({&m, &s}).shape, ElementsAre(2, 3));
  const TensorData bad = i64({1}, {4});
  try {
    make("Reshape").eval({&m, &bad});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("node 'n' (Reshape): cannot reshape [2, 3] to [4]"));
  }
  // Dimensions whose product is past int64 (fuzz_onnx: 4 x INT64_MAX overflowed the product;
  // 2^62 is exact as the double the helper takes).
  const TensorData huge = i64({3}, {4, 4611686018427387904.0, -1});
  try {
    make("Reshape").eval({&m, &huge});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("past int64"));
  }
}

TEST(FoldConstants, ConcatOnAnAxis) {
  const TensorData a = i64({2, 1}, {1, 2}), b = i64({2, 2}, {3, 4, 5, 6});
  auto c = make("Concat", {{"axis", int_attr(-1)}});
  const TensorData r = c.eval({&a, &b});
  EXPECT_THAT(r.shape, ElementsAre(2, 3));
  EXPECT_THAT(r.to_int64(), ElementsAre(1, 3, 4, 2, 5, 6));
  const TensorData f = typed(ElemType::kFloat32, {2, 1}, {1, 2});
  EXPECT_THROW(c.eval({&a, &f}), UserError);  // types differ
}

TEST(FoldConstants, ConstantOfShapeExpandRange) {
  const TensorData shape = i64({2}, {2, 2});
  const TensorData z = make("ConstantOfShape").eval({&shape});
  EXPECT_EQ(z.type, ElemType::kFloat32);
  EXPECT_THAT(z.to_double(), ElementsAre(0, 0, 0, 0));
  Attribute v;
  v.kind = Attribute::Kind::kTensor;
  v.t = i64({1}, {9});
  EXPECT_THAT(make("ConstantOfShape", {{"value", v}}).eval({&shape}).to_int64(),
              ElementsAre(9, 9, 9, 9));
  const TensorData col = i64({2, 1}, {1, 2}), to = i64({2}, {1, 3});
  const TensorData e = make("Expand").eval({&col, &to});
  EXPECT_THAT(e.shape, ElementsAre(2, 3));
  EXPECT_THAT(e.to_int64(), ElementsAre(1, 1, 1, 2, 2, 2));
  const TensorData s = i64({}, {5}), l = i64({}, {-1}), d = i64({}, {-2});
  EXPECT_THAT(make("Range").eval({&s, &l, &d}).to_int64(), ElementsAre(5, 3, 1));
  const TensorData fs = typed(ElemType::kFloat32, {}, {0}), fl = typed(ElemType::kFloat32, {}, {1}),
                   fd = typed(ElemType::kFloat32, {}, {0.25});
  EXPECT_THAT(make("Range").eval({&fs, &fl, &fd}).to_double(), ElementsAre(0, 0.25, 0.5, 0.75));
  const TensorData zero = i64({}, {0});
  EXPECT_THROW(make("Range").eval({&s, &l, &zero}), UserError);
  const TensorData huge = i64({1}, {int64_t(1) << 30});
  EXPECT_THROW(make("ConstantOfShape").eval({&huge}), UserError);  // over 2^24 elements
}

TEST(FoldConstants, CastEqualWhere) {
  const TensorData f = typed(ElemType::kFloat32, {3}, {-1.5, 0, 2.7});
  const TensorData asInt = make("Cast", {{"to", int_attr(7)}}).eval({&f});
  EXPECT_THAT(asInt.to_int64(), ElementsAre(-1, 0, 2));
  EXPECT_THAT(make("Cast", {{"to", int_attr(9)}}).eval({&f}).to_int64(), ElementsAre(1, 0, 1));
  EXPECT_THROW(make("Cast", {{"to", int_attr(10)}}).eval({&f}), UserError);  // float16
  const TensorData a = i64({3}, {1, -1, 3}), m1 = i64({}, {-1});
  const TensorData eq = make("Equal").eval({&a, &m1});
  EXPECT_EQ(eq.type, ElemType::kBool);
  EXPECT_THAT(eq.to_int64(), ElementsAre(0, 1, 0));
  const TensorData ones = i64({1}, {1});
  EXPECT_THAT(make("Where").eval({&eq, &ones, &a}).to_int64(), ElementsAre(1, 1, 3));
}

TEST(FoldConstants, SliceWithStepsAndNegativeIndices) {
  const TensorData d = i64({5}, {0, 1, 2, 3, 4});
  const TensorData st = i64({1}, {-1}), en = i64({1}, {-10}), ax = i64({1}, {0}),
                   sp = i64({1}, {-2});
  EXPECT_THAT(make("Slice").eval({&d, &st, &en, &ax, &sp}).to_int64(), ElementsAre(4, 2, 0));
  const TensorData m = i64({2, 3}, {1, 2, 3, 4, 5, 6});
  const TensorData s1 = i64({1}, {1}), e1 = i64({1}, {100}), a1 = i64({1}, {1});
  const TensorData r = make("Slice").eval({&m, &s1, &e1, &a1, nullptr});
  EXPECT_THAT(r.shape, ElementsAre(2, 2));
  EXPECT_THAT(r.to_int64(), ElementsAre(2, 3, 5, 6));
}

TEST(FoldConstants, IntegerArithmeticBroadcasts) {
  const TensorData a = i64({2}, {7, -7}), b = i64({}, {2});
  EXPECT_THAT(make("Add").eval({&a, &b}).to_int64(), ElementsAre(9, -5));
  EXPECT_THAT(make("Sub").eval({&a, &b}).to_int64(), ElementsAre(5, -9));
  EXPECT_THAT(make("Mul").eval({&a, &b}).to_int64(), ElementsAre(14, -14));
  EXPECT_THAT(make("Div").eval({&a, &b}).to_int64(), ElementsAre(3, -3));
  const TensorData z = i64({}, {0});
  EXPECT_THROW(make("Div").eval({&a, &z}), UserError);
  const TensorData c = i64({3}, {1, 2, 3});
  try {
    make("Add").eval({&a, &c});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("shapes [2] and [3] do not broadcast"));
  }
}

// Overflow wraps around as ONNX runtimes compute it (found by fuzz_onnx: 4 * 2^62 was signed
// overflow, undefined behaviour); a float outside int64's range casts to the nearest end.
TEST(FoldConstants, IntegerOverflowWrapsAndFloatCastsSaturate) {
  auto exact = [](std::vector<int64_t> v) {
    TensorData t = i64({static_cast<int64_t>(v.size())}, std::vector<double>(v.size(), 0));
    std::memcpy(t.bytes.data(), v.data(), v.size() * 8);
    return t;
  };
  const int64_t big = int64_t(1) << 62, lo = std::numeric_limits<int64_t>::min();
  const TensorData a = exact({big, lo, lo}), b = exact({4, -1, 1});
  EXPECT_THAT(make("Mul").eval({&a, &b}).to_int64(), ElementsAre(0, lo, lo));
  EXPECT_THAT(make("Div").eval({&a, &b}).to_int64(), ElementsAre(big / 4, lo, lo));
  EXPECT_THAT(make("Sub").eval({&b, &a}).to_int64(),
              ElementsAre(4 - big, std::numeric_limits<int64_t>::max(), lo + 1));
  const TensorData f = typed(ElemType::kFloat32, {3}, {1e30, -1e30, std::nan("")});
  EXPECT_THAT(make("Cast", {{"to", int_attr(7)}}).eval({&f}).to_int64(),
              ElementsAre(std::numeric_limits<int64_t>::max(), lo, 0));
}

// torch's x.view(x.size(0), -1): the chain folds to one int64 initializer [1, -1] and only the
// Reshape of the activation is left.
TEST(FoldConstants, FoldsTheTorchFlattenChain) {
  Model m;
  m.path = "'m.onnx'";
  ValueType vt;
  vt.shape = {1, 8, 4, 4};
  vt.has_shape = true;
  m.types["x"] = vt;
  m.initializers["zero"] = i64({}, {0});
  m.initializers["axes"] = i64({1}, {0});
  m.initializers["m1"] = i64({1}, {-1});
  auto node = [&](const std::string& op, std::vector<std::string> ins, const std::string& out) {
    Node n;
    n.name = out;
    n.op = op;
    n.inputs = std::move(ins);
    n.outputs = {out};
    m.nodes.push_back(n);
  };
  node("Shape", {"x"}, "s");
  node("Gather", {"s", "zero"}, "n");
  node("Unsqueeze", {"n", "axes"}, "n1");
  node("Concat", {"n1", "m1"}, "shape");
  m.nodes.back().attrs["axis"] = int_attr(0);
  node("Reshape", {"x", "shape"}, "flat");
  fold_constants(&m);
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].op, "Reshape");
  EXPECT_THAT(m.initializers.at("shape").to_int64(), ElementsAre(1, -1));
  EXPECT_THAT(m.types.at("shape").shape, ElementsAre(2));
}

// The node cases in scope: every case of Shape, Gather, Unsqueeze, Squeeze, Concat,
// ConstantOfShape, Expand, Range, Equal, Where, Slice and Reshape in Debian's libonnx-testdata.
// Not listed: Cast's cases (each has a double, float16, bfloat16 or string side, types Weft does
// not read), float Add/Sub/Mul/Div (imported as graph nodes, see node_cases_test.cc) and their
// uint8 cases (the folder's arithmetic is int64/int32, what shape sub-graphs use).
const char* const kFoldCases[] = {"test_shape",
                                  "test_shape_clip_end",
                                  "test_shape_clip_start",
                                  "test_shape_end_1",
                                  "test_shape_end_negative_1",
                                  "test_shape_example",
                                  "test_shape_start_1",
                                  "test_shape_start_1_end_2",
                                  "test_shape_start_1_end_negative_1",
                                  "test_shape_start_negative_1",
                                  "test_gather_0",
                                  "test_gather_1",
                                  "test_gather_2d_indices",
                                  "test_gather_negative_indices",
                                  "test_unsqueeze_axis_0",
                                  "test_unsqueeze_axis_1",
                                  "test_unsqueeze_axis_2",
                                  "test_unsqueeze_axis_3",
                                  "test_unsqueeze_negative_axes",
                                  "test_unsqueeze_three_axes",
                                  "test_unsqueeze_two_axes",
                                  "test_unsqueeze_unsorted_axes",
                                  "test_squeeze",
                                  "test_squeeze_negative_axes",
                                  "test_concat_1d_axis_0",
                                  "test_concat_1d_axis_negative_1",
                                  "test_concat_2d_axis_0",
                                  "test_concat_2d_axis_1",
                                  "test_concat_2d_axis_negative_1",
                                  "test_concat_2d_axis_negative_2",
                                  "test_concat_3d_axis_0",
                                  "test_concat_3d_axis_1",
                                  "test_concat_3d_axis_2",
                                  "test_concat_3d_axis_negative_1",
                                  "test_concat_3d_axis_negative_2",
                                  "test_concat_3d_axis_negative_3",
                                  "test_constantofshape_float_ones",
                                  "test_constantofshape_int_shape_zero",
                                  "test_constantofshape_int_zeros",
                                  "test_expand_dim_changed",
                                  "test_expand_dim_unchanged",
                                  "test_range_float_type_positive_delta",
                                  "test_range_int32_type_negative_delta",
                                  "test_equal",
                                  "test_equal_bcast",
                                  "test_where_example",
                                  "test_where_long_example",
                                  "test_slice",
                                  "test_slice_default_axes",
                                  "test_slice_default_steps",
                                  "test_slice_end_out_of_bounds",
                                  "test_slice_neg",
                                  "test_slice_neg_steps",
                                  "test_slice_negative_axes",
                                  "test_slice_start_out_of_bounds",
                                  "test_reshape_allowzero_reordered",
                                  "test_reshape_extended_dims",
                                  "test_reshape_negative_dim",
                                  "test_reshape_negative_extended_dims",
                                  "test_reshape_one_dim",
                                  "test_reshape_reduced_dims",
                                  "test_reshape_reordered_all_dims",
                                  "test_reshape_reordered_last_dims",
                                  "test_reshape_zero_and_negative_dim",
                                  "test_reshape_zero_dim",
                                  // fold_mask_ops.cc (the int16, uint16/32/64 and float16/64
                                  // cases are types Weft does not read)
                                  "test_mod_broadcast",
                                  "test_mod_int64_fmod",
                                  "test_mod_mixed_sign_float32",
                                  "test_mod_mixed_sign_int32",
                                  "test_mod_mixed_sign_int64",
                                  "test_mod_mixed_sign_int8",
                                  "test_mod_uint8",
                                  "test_not_2d",
                                  "test_not_3d",
                                  "test_not_4d",
                                  "test_and2d",
                                  "test_and_bcast4v3d",
                                  "test_or3d",
                                  "test_or_bcast3v1d",
                                  "test_xor4d",
                                  "test_xor_bcast4v4d",
                                  "test_less",
                                  "test_less_bcast",
                                  "test_less_equal",
                                  "test_less_equal_bcast",
                                  "test_greater",
                                  "test_greater_bcast",
                                  "test_greater_equal",
                                  "test_greater_equal_bcast",
                                  "test_neg",
                                  "test_neg_example",
                                  "test_transpose_default",
                                  "test_transpose_all_permutations_0",
                                  "test_transpose_all_permutations_3",
                                  "test_transpose_all_permutations_5",
                                  "test_scatternd"};

class FoldNodeCases : public ::testing::TestWithParam<const char*> {};

TEST_P(FoldNodeCases, FoldsToOnnxsExpectedOutput) {
  const std::string root = node_case_root();
  if (root.empty()) GTEST_SKIP() << "libonnx-testdata is not installed";
  const NodeCase nc = read_node_case(root, GetParam());
  for (const NodeCaseData& d : nc.sets) {
    LoadOptions opts;
    opts.lift_old_opset = true;
    for (size_t i = 0; i < nc.input_names.size() && i < d.inputs.size(); ++i)
      opts.bind[nc.input_names[i]] = d.inputs[i];
    Model m = load_model(nc.dir + "/model.onnx", opts);
    fold_constants(&m);
    ASSERT_TRUE(m.nodes.empty()) << GetParam();
    ASSERT_EQ(m.outputs.size(), d.outputs.size());
    for (size_t k = 0; k < d.outputs.size(); ++k) {
      const TensorData& got = m.initializers.at(m.outputs[k]);
      const TensorData& want = d.outputs[k];
      EXPECT_EQ(got.type, want.type) << GetParam();
      ASSERT_EQ(got.shape, want.shape) << GetParam();
      const auto g = got.to_double(), w = want.to_double();
      for (size_t i = 0; i < w.size(); ++i)
        ASSERT_LE(std::fabs(g[i] - w[i]), 1e-6 * (1 + std::fabs(w[i]))) << GetParam() << " " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, FoldNodeCases, ::testing::ValuesIn(kFoldCases),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param).substr(5);
                         });

}  // namespace
}  // namespace weft::compiler::onnx_import
