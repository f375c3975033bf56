// Quantization of fp32 graphs to int8 with power-of-two scales, so that every requantization is
// the accelerator's shift/add/clip epilogue.
//
//   Graph q = quantize(fp32_graph, options);
//
// What it does, in order: folds batch norms (passes/fold_batch_norm), runs the fp32 graph
// (interpret<float>, interpret.h) on the calibration inputs recording each value's largest
// magnitude, gives values that must share a scale one scale (a ReLU's, max pool's and
// flatten's input and output; an Add's output and the input that will become the fused
// residual; a Concat's inputs and output), takes for each group the exponent
// e = ceil(log2(max/127)), and rewrites the graph (every rounding below is
// compiler/ops/int8_rounding.h's):
//   input             -> weft.Quantize (round half to even, saturate to [-128, 127])
//   Conv [+bias]      -> weft.QConv(x, w_i8, bias_i32) {shift = e_out - e_x - e_w, relu=0}
//   Gemm/MatMul (B constant) -> weft.QDense(x, w_i8 [N,K], bias_i32)
//   Relu, MaxPool, Flatten, Reshape, Concat -> the same kinds on int8 (a constant Concat
//                                              input, ViT's class token, an int8 constant at
//                                              the Concat's scale, which its values join)
//   Add, AveragePool, GlobalAveragePool     -> int8 with "out_scale" (requantized, rounding
//                                              half up); a pool of an fp32 value, and an Add
//                                              of two (a residual stream), stay fp32
//   Sigmoid, Tanh, Erf, Sqrt, HardSigmoid, HardSwish, Sub, Mul, Div, Pow, and an Add that
//   broadcasts (float element-wise operators without an int8 form)
//                     -> the same node in fp32 (the CPU's LLVM kernels), its int8 inputs through
//                        weft.Dequantize, its output through weft.Quantize at its calibrated
//                        scale where an int8 node reads it (chains of them stay in fp32)
//   BatchNormalization that fold_batch_norm left (DenseNet's pre-activation), Transpose,
//   Slice, Softmax, ReduceMean, LayerNormalization, Resize -> fp32 the same way
//   outputs           -> weft.Dequantize (f32), or the fp32 value itself
// A shift past 31 (an output scale 2^32 above the product's) raises the weight exponent until
// the shift fits the epilogue (docs/graph.md, "quantize").
// Weights are symmetric int8 in [-127, 127] (per tensor, or per output channel with
// per_channel or where the tensor has an outlier) at the exponent of least squared error
// (pow2_scales.h); biases int32 at the scale 2^(e_x + e_w), plus the rounding term 2^(shift-1)
// of the epilogue's shift (so the accelerator's floor shift rounds half up).
// QConv/QDense semantics: acc = sum(x*w) + bias (int32, wrapping); v = acc >> shift
// (arithmetic; facts `shift`, or per channel `shifts` with per_channel; graph.h); [v += residual];
// v = clip(v, relu ? 0 : -128, 127). An operator the quantizer does not handle is a UserError
// naming the node.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"

namespace weft::compiler::graph {

/// Quantization options.
struct QuantizeOptions {
  bool per_channel = false;  // weights per output channel (else per tensor, but for outliers)
  /// Calibration samples; each sample holds one plain fp32 tensor per graph input (in
  /// g.inputs() order). Empty: `synthetic_samples` deterministic standard-normal samples
  /// (pow2_scales.h says why).
  std::vector<std::vector<std::vector<float>>> calibration;
  int synthetic_samples = 1;
  uint32_t seed = 7;
  /// Exponents fixed by the model (by value name; an imported QDQ model's scales, see
  /// compiler/graph/onnx/qdq.h): the value's scale group takes this exponent instead of the
  /// calibrated one (still raised where a layer's shift would be negative).
  std::map<std::string, int> fixed_exponents;
};

/// Calibrates and quantizes; the result verifies. UserError naming an unsupported node.
Graph quantize(const Graph& fp32, const QuantizeOptions& options = {});

/// ceil(log2(max_abs / 127)) (-20 for zero).
int pow2_exponent(double max_abs);

}  // namespace weft::compiler::graph
