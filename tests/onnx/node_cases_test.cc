// ONNX's own operator tests (Debian's libonnx-testdata) on Weft's fp32 LLVM path: every case
// of every supported operator is listed here, either in scope (imported, run on the LLVM CPU
// backend, outputs compared with ONNX's expected ones) or out of scope with the reason, in
// which case importing it must fail with a UserError that names the node. docs/onnx.md copies
// this table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/graph/onnx/node_cases.h"
#include "compiler/graph/onnx/onnx_import.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/cpu_graph.h"

namespace weft {
namespace {

using compiler::onnx_import::ElemType;
using compiler::onnx_import::TensorData;

struct Case {
  const char* name;
  const char* out_of_scope;  // nullptr: in scope
};

const char* const k1d3d = "only 2D (NCHW) pooling is imported";
const char* const kIntArith = "integer arithmetic (imported for float32)";
const char* const kCubic = "Resize mode cubic (nearest and linear are imported)";
const char* const kSoftmaxExpanded = "the expanded form (Exp, ReduceMax, ReduceSum)";
const char* const kLayerNormExpanded =
    "the expanded form (Shape, ConstantOfShape, Reciprocal ... on computed shapes)";
// Gather on a computed tensor takes one index (a transformer's `x[:, 0]`); with constant data
// it is folded at import (fold_constants_test.cc runs these cases that way).
const char* const kGatherMany = "several indices on a computed tensor";
const Case kCases[] = {
    {"test_add", nullptr},
    {"test_add_bcast", nullptr},
    {"test_add_uint8", "integer Add (Weft's int8 Add is requantized, not modular arithmetic)"},
    {"test_averagepool_1d_default", k1d3d},
    {"test_averagepool_2d_ceil", nullptr},
    {"test_averagepool_2d_default", nullptr},
    {"test_averagepool_2d_pads", nullptr},
    {"test_averagepool_2d_pads_count_include_pad", nullptr},
    {"test_averagepool_2d_precomputed_pads", nullptr},
    {"test_averagepool_2d_precomputed_pads_count_include_pad", nullptr},
    {"test_averagepool_2d_precomputed_same_upper", nullptr},
    {"test_averagepool_2d_precomputed_strides", nullptr},
    {"test_averagepool_2d_same_lower", nullptr},
    {"test_averagepool_2d_same_upper", nullptr},
    {"test_averagepool_2d_strides", nullptr},
    {"test_averagepool_3d_default", k1d3d},
    {"test_basic_conv_with_padding", nullptr},
    {"test_basic_conv_without_padding", nullptr},
    {"test_conv_with_autopad_same", nullptr},
    {"test_conv_with_strides_and_asymmetric_padding", nullptr},
    {"test_conv_with_strides_no_padding", nullptr},
    {"test_conv_with_strides_padding", nullptr},
    {"test_batchnorm_epsilon", nullptr},
    {"test_batchnorm_example", nullptr},
    {"test_batchnorm_epsilon_training_mode", "training mode (running statistics as outputs)"},
    {"test_batchnorm_example_training_mode", "training mode (running statistics as outputs)"},
    {"test_clip", nullptr},
    {"test_clip_default_inbounds", nullptr},
    {"test_clip_default_int8_inbounds", nullptr},
    {"test_clip_default_int8_max", nullptr},
    {"test_clip_default_int8_min", nullptr},
    {"test_clip_default_max", nullptr},
    {"test_clip_default_min", nullptr},
    {"test_clip_example", nullptr},
    {"test_clip_inbounds", nullptr},
    {"test_clip_outbounds", nullptr},
    {"test_clip_splitbounds", nullptr},
    {"test_concat_1d_axis_0", nullptr},
    {"test_concat_1d_axis_negative_1", nullptr},
    {"test_concat_2d_axis_0", nullptr},
    {"test_concat_2d_axis_1", nullptr},
    {"test_concat_2d_axis_negative_1", nullptr},
    {"test_concat_2d_axis_negative_2", nullptr},
    {"test_concat_3d_axis_0", nullptr},
    {"test_concat_3d_axis_1", nullptr},
    {"test_concat_3d_axis_2", nullptr},
    {"test_concat_3d_axis_negative_1", nullptr},
    {"test_concat_3d_axis_negative_2", nullptr},
    {"test_concat_3d_axis_negative_3", nullptr},
    {"test_dequantizelinear", nullptr},
    {"test_dequantizelinear_axis", nullptr},
    {"test_div", nullptr},
    {"test_div_bcast", nullptr},
    {"test_div_example", nullptr},
    {"test_div_uint8", kIntArith},
    {"test_dropout_default", nullptr},
    {"test_dropout_default_mask", "the mask output (training only)"},
    {"test_dropout_default_mask_ratio", "the mask output (training only)"},
    {"test_dropout_default_old", nullptr},
    {"test_dropout_default_ratio", nullptr},
    {"test_dropout_random_old", nullptr},
    {"test_training_dropout", "training mode"},
    {"test_training_dropout_default", "training mode"},
    {"test_training_dropout_default_mask", "training mode"},
    {"test_training_dropout_mask", "training mode"},
    {"test_training_dropout_zero_ratio", nullptr},  // ratio 0: the identity even in training
    {"test_training_dropout_zero_ratio_mask", "the mask output, a graph output"},
    {"test_erf", nullptr},
    {"test_flatten_axis0", nullptr},
    {"test_flatten_axis1", nullptr},
    {"test_flatten_axis2", nullptr},
    {"test_flatten_axis3", nullptr},
    {"test_flatten_default_axis", nullptr},
    {"test_flatten_negative_axis1", nullptr},
    {"test_flatten_negative_axis2", nullptr},
    {"test_flatten_negative_axis3", nullptr},
    {"test_flatten_negative_axis4", nullptr},
    {"test_gather_0", kGatherMany},
    {"test_gather_1", kGatherMany},
    {"test_gather_2d_indices", kGatherMany},
    {"test_gather_negative_indices", kGatherMany},
    {"test_gemm_all_attributes", nullptr},
    {"test_gemm_alpha", nullptr},
    {"test_gemm_beta", nullptr},
    {"test_gemm_default_matrix_bias", nullptr},
    {"test_gemm_default_no_bias", nullptr},
    {"test_gemm_default_scalar_bias", nullptr},
    {"test_gemm_default_single_elem_vector_bias", nullptr},
    {"test_gemm_default_vector_bias", nullptr},
    {"test_gemm_default_zero_bias", nullptr},
    {"test_gemm_transposeA", nullptr},
    {"test_gemm_transposeB", nullptr},
    {"test_globalaveragepool", nullptr},
    {"test_globalaveragepool_precomputed", nullptr},
    {"test_hardsigmoid", nullptr},
    {"test_hardsigmoid_default", nullptr},
    {"test_hardsigmoid_example", nullptr},
    {"test_hardswish", nullptr},
    {"test_hardswish_expanded", nullptr},
    {"test_identity", nullptr},
    {"test_layer_normalization_2d_axis0", nullptr},
    {"test_layer_normalization_2d_axis0_expanded", kLayerNormExpanded},
    {"test_layer_normalization_2d_axis1", nullptr},
    {"test_layer_normalization_2d_axis1_expanded", kLayerNormExpanded},
    {"test_layer_normalization_2d_axis_negative_1", nullptr},
    {"test_layer_normalization_2d_axis_negative_1_expanded", kLayerNormExpanded},
    {"test_layer_normalization_2d_axis_negative_2", nullptr},
    {"test_layer_normalization_2d_axis_negative_2_expanded", kLayerNormExpanded},
    {"test_layer_normalization_3d_axis0_epsilon", nullptr},
    {"test_layer_normalization_3d_axis0_epsilon_expanded", kLayerNormExpanded},
    {"test_layer_normalization_3d_axis1_epsilon", nullptr},
    {"test_layer_normalization_3d_axis1_epsilon_expanded", kLayerNormExpanded},
    {"test_layer_normalization_3d_axis2_epsilon", nullptr},
    {"test_layer_normalization_3d_axis2_epsilon_expanded", kLayerNormExpanded},
    {"test_layer_normalization_3d_axis_negative_1_epsilon", nullptr},
    {"test_layer_normalization_3d_axis_negative_1_epsilon_expanded", kLayerNormExpanded},
    {"test_layer_normalization_3d_axis_negative_2_epsilon", nullptr},
    {"test_layer_normalization_3d_axis_negative_2_epsilon_expanded", kLayerNormExpanded},
    {"test_layer_normalization_3d_axis_negative_3_epsilon", nullptr},
    {"test_layer_normalization_3d_axis_negative_3_epsilon_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis0", nullptr},
    {"test_layer_normalization_4d_axis0_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis1", nullptr},
    {"test_layer_normalization_4d_axis1_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis2", nullptr},
    {"test_layer_normalization_4d_axis2_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis3", nullptr},
    {"test_layer_normalization_4d_axis3_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis_negative_1", nullptr},
    {"test_layer_normalization_4d_axis_negative_1_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis_negative_2", nullptr},
    {"test_layer_normalization_4d_axis_negative_2_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis_negative_3", nullptr},
    {"test_layer_normalization_4d_axis_negative_3_expanded", kLayerNormExpanded},
    {"test_layer_normalization_4d_axis_negative_4", nullptr},
    {"test_layer_normalization_4d_axis_negative_4_expanded", kLayerNormExpanded},
    {"test_layer_normalization_default_axis", nullptr},
    {"test_layer_normalization_default_axis_expanded", kLayerNormExpanded},
    {"test_matmul_2d", nullptr},
    {"test_matmul_3d", nullptr},
    {"test_matmul_4d", nullptr},
    {"test_maxpool_1d_default", k1d3d},
    {"test_maxpool_2d_ceil", nullptr},
    {"test_maxpool_2d_default", nullptr},
    {"test_maxpool_2d_dilations", nullptr},
    {"test_maxpool_2d_pads", nullptr},
    {"test_maxpool_2d_precomputed_pads", nullptr},
    {"test_maxpool_2d_precomputed_same_upper", nullptr},
    {"test_maxpool_2d_precomputed_strides", nullptr},
    {"test_maxpool_2d_same_lower", nullptr},
    {"test_maxpool_2d_same_upper", nullptr},
    {"test_maxpool_2d_strides", nullptr},
    {"test_maxpool_2d_uint8", nullptr},
    {"test_maxpool_3d_default", k1d3d},
    {"test_maxpool_with_argmax_2d_precomputed_pads", "the second output (Indices)"},
    {"test_maxpool_with_argmax_2d_precomputed_strides", "the second output (Indices)"},
    {"test_mul", nullptr},
    {"test_mul_bcast", nullptr},
    {"test_mul_example", nullptr},
    {"test_mul_uint8", kIntArith},
    {"test_pow", nullptr},
    {"test_pow_bcast_array", nullptr},
    {"test_pow_bcast_scalar", nullptr},
    {"test_pow_example", nullptr},
    {"test_pow_types_float32_int32", nullptr},
    {"test_pow_types_float32_int64", nullptr},
    {"test_pow_types_int", nullptr},
    // Not listed: pow_types_float, pow_types_int64_* (an int64 graph input, refused by name before
    // any node) and pow_types_float32_uint32/uint64 (uint32/uint64 test data, no Weft type).
    {"test_pow_types_int32_float32", "an int32 base (Pow is imported for float32 bases)"},
    {"test_pow_types_int32_int32", "an int32 base (Pow is imported for float32 bases)"},
    {"test_qlinearconv", nullptr},
    {"test_quantizelinear", nullptr},
    {"test_quantizelinear_axis", nullptr},
    {"test_reduce_mean_default_axes_keepdims_example", nullptr},
    {"test_reduce_mean_default_axes_keepdims_random", nullptr},
    {"test_reduce_mean_do_not_keepdims_example", nullptr},
    {"test_reduce_mean_do_not_keepdims_random", nullptr},
    {"test_reduce_mean_keepdims_example", nullptr},
    {"test_reduce_mean_keepdims_random", nullptr},
    {"test_reduce_mean_negative_axes_keepdims_example", nullptr},
    {"test_reduce_mean_negative_axes_keepdims_random", nullptr},
    {"test_relu", nullptr},
    {"test_reshape_allowzero_reordered", nullptr},
    {"test_reshape_extended_dims", nullptr},
    {"test_reshape_negative_dim", nullptr},
    {"test_reshape_negative_extended_dims", nullptr},
    {"test_reshape_one_dim", nullptr},
    {"test_reshape_reduced_dims", nullptr},
    {"test_reshape_reordered_all_dims", nullptr},
    {"test_reshape_reordered_last_dims", nullptr},
    {"test_reshape_zero_and_negative_dim", nullptr},
    {"test_resize_downsample_scales_cubic", kCubic},
    {"test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", kCubic},
    {"test_resize_downsample_scales_cubic_align_corners", kCubic},
    {"test_resize_downsample_scales_linear", nullptr},
    {"test_resize_downsample_scales_linear_align_corners", nullptr},
    {"test_resize_downsample_scales_nearest", nullptr},
    {"test_resize_downsample_sizes_cubic", kCubic},
    {"test_resize_downsample_sizes_linear_pytorch_half_pixel", nullptr},
    {"test_resize_downsample_sizes_nearest", nullptr},
    {"test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn", nullptr},
    {"test_resize_tf_crop_and_resize", "coordinate_transformation_mode tf_crop_and_resize (a region of interest)"},
    {"test_resize_upsample_scales_cubic", kCubic},
    {"test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", kCubic},
    {"test_resize_upsample_scales_cubic_align_corners", kCubic},
    {"test_resize_upsample_scales_cubic_asymmetric", kCubic},
    {"test_resize_upsample_scales_linear", nullptr},
    {"test_resize_upsample_scales_linear_align_corners", nullptr},
    {"test_resize_upsample_scales_nearest", nullptr},
    {"test_resize_upsample_sizes_cubic", kCubic},
    {"test_resize_upsample_sizes_nearest", nullptr},
    {"test_resize_upsample_sizes_nearest_ceil_half_pixel", nullptr},
    {"test_resize_upsample_sizes_nearest_floor_align_corners", nullptr},
    {"test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric", nullptr},
    {"test_reshape_zero_dim", nullptr},
    {"test_sigmoid", nullptr},
    {"test_sigmoid_example", nullptr},
    {"test_slice", nullptr},
    {"test_slice_default_axes", nullptr},
    {"test_slice_default_steps", nullptr},
    {"test_slice_end_out_of_bounds", nullptr},
    {"test_slice_neg", nullptr},
    {"test_slice_neg_steps", "negative steps on a computed tensor"},
    {"test_slice_negative_axes", nullptr},
    {"test_slice_start_out_of_bounds", "an empty output (Weft has no empty tensors)"},
    {"test_softmax_axis_0", nullptr},
    {"test_softmax_axis_0_expanded", kSoftmaxExpanded},
    {"test_softmax_axis_1", nullptr},
    {"test_softmax_axis_1_expanded", kSoftmaxExpanded},
    {"test_softmax_axis_2", nullptr},
    {"test_softmax_axis_2_expanded", kSoftmaxExpanded},
    {"test_softmax_default_axis", nullptr},
    {"test_softmax_default_axis_expanded", kSoftmaxExpanded},
    {"test_softmax_example", nullptr},
    {"test_softmax_example_expanded", kSoftmaxExpanded},
    {"test_softmax_large_number", nullptr},
    {"test_softmax_large_number_expanded", kSoftmaxExpanded},
    {"test_softmax_negative_axis", nullptr},
    {"test_softmax_negative_axis_expanded", kSoftmaxExpanded},
    {"test_sqrt", nullptr},
    {"test_sqrt_example", nullptr},
    {"test_constant_pad", "a Pad of constant value 1.2 (Weft folds a zero Pad into a Conv)"},
    {"test_edge_pad", "Pad mode edge (a zero Pad folded into a Conv only)"},
    {"test_reflect_pad", "Pad mode reflect (a zero Pad folded into a Conv only)"},
    {"test_split_equal_parts_1d", nullptr},
    {"test_split_equal_parts_2d", nullptr},
    {"test_split_equal_parts_default_axis", nullptr},
    {"test_split_variable_parts_1d", nullptr},
    {"test_split_variable_parts_2d", nullptr},
    {"test_split_variable_parts_default_axis", nullptr},
    {"test_split_zero_size_splits", "a part of size 0 (an empty tensor)"},
    {"test_squeeze", nullptr},
    {"test_squeeze_negative_axes", nullptr},
    {"test_sub", nullptr},
    {"test_sub_bcast", nullptr},
    {"test_sub_example", nullptr},
    {"test_sub_uint8", kIntArith},
    {"test_tanh", nullptr},
    {"test_tanh_example", nullptr},
    {"test_transpose_all_permutations_0", nullptr},
    {"test_transpose_all_permutations_1", nullptr},
    {"test_transpose_all_permutations_2", nullptr},
    {"test_transpose_all_permutations_3", nullptr},
    {"test_transpose_all_permutations_4", nullptr},
    {"test_transpose_all_permutations_5", nullptr},
    {"test_transpose_default", nullptr},
    {"test_unsqueeze_axis_0", nullptr},
    {"test_unsqueeze_axis_1", nullptr},
    {"test_unsqueeze_axis_2", nullptr},
    {"test_unsqueeze_axis_3", nullptr},
    {"test_unsqueeze_negative_axes", nullptr},
    {"test_unsqueeze_three_axes", nullptr},
    {"test_unsqueeze_two_axes", nullptr},
    {"test_unsqueeze_unsorted_axes", nullptr},
};

// A node test's tensor as a graph input (uint8 is held as int8 - 128, see onnx_import.h).
rt::graph::HostArray to_host(const TensorData& t) {
  rt::graph::HostArray a;
  a.shape = t.shape;
  a.data = t.to_double();
  switch (t.type) {
    case ElemType::kFloat32: a.dtype = compiler::graph::DType::F32; break;
    case ElemType::kInt8: a.dtype = compiler::graph::DType::I8; break;
    case ElemType::kUint8:
      a.dtype = compiler::graph::DType::I8;
      for (double& v : a.data) v -= 128;
      break;
    default: a.dtype = compiler::graph::DType::I32; break;
  }
  return a;
}

class NodeCases : public ::testing::TestWithParam<Case> {};

TEST_P(NodeCases, RunsOnTheLlvmPathOrIsRejected) {
  const std::string root = compiler::onnx_import::node_case_root();
  if (root.empty()) GTEST_SKIP() << "libonnx-testdata is not installed";
  const Case& c = GetParam();
  const auto nc = compiler::onnx_import::read_node_case(root, c.name);
  for (size_t set = 0; set < nc.sets.size(); ++set) {
    const auto& d = nc.sets[set];
    compiler::onnx_import::LoadOptions opts;
    opts.lift_old_opset = true;
    for (size_t i = 1; i < nc.input_names.size() && i < d.inputs.size(); ++i)
      opts.bind[nc.input_names[i]] = d.inputs[i];
    if (c.out_of_scope) {
      try {
        compiler::onnx_import::import_onnx(nc.dir + "/model.onnx", opts);
        FAIL() << c.name << " is listed out of scope (" << c.out_of_scope
               << ") but imported without an error";
      } catch (const UserError& e) {
        EXPECT_NE(std::string(e.what()).find("node '"), std::string::npos) << e.what();
      }
      return;
    }
    auto imp = compiler::onnx_import::import_onnx(nc.dir + "/model.onnx", opts);
    rt::graph::LlvmGraphRunner runner(imp.graph);
    const auto run = runner.run({to_host(d.inputs.at(0))});
    // Conv, Gemm and MatMul run JIT-compiled kernels of the LLVM backend.
    for (const auto& rec : run.nodes) {
      if (rec.op == "Conv" || rec.op == "Gemm" || rec.op == "MatMul") {
        EXPECT_EQ(rec.engine, "llvm") << c.name;
      }
    }
    ASSERT_EQ(run.outputs.size(), d.outputs.size());
    for (size_t k = 0; k < d.outputs.size(); ++k) {
      const auto want = d.outputs[k].to_double();
      auto got = run.outputs[k].data;
      if (imp.uint8_values.count(imp.graph.outputs()[k]))
        for (double& v : got) v += 128;
      ASSERT_EQ(run.outputs[k].shape, d.outputs[k].shape) << c.name;
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        // ONNX's backend tests' default tolerance (rtol 1e-3, atol 1e-7); integers exactly.
        const double tol = d.outputs[k].type == ElemType::kFloat32 ? 1e-7 + 1e-3 * std::fabs(want[i]) : 0;
        ASSERT_LE(std::fabs(got[i] - want[i]), tol)
            << c.name << " set " << set << " output " << k << " element " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, NodeCases, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.name).substr(5);
                         });

}  // namespace
}  // namespace weft
