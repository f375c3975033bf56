// Checking an ONNX Pad that folds into a Conv; see pad_into_conv.h.
#include "compiler/graph/onnx/pad_into_conv.h"

#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

std::vector<int64_t> pad_as_conv_pads(const Model& model, const Node& n,
                                      const std::vector<int64_t>& in_shape) {
  auto fail = [&](const std::string& what) {
    throw UserError(model.path + ": " + n.where() + ": " + what);
  };
  auto constant = [&](size_t i, const std::string& what) -> const TensorData& {
    auto it = i < n.inputs.size() ? model.initializers.find(n.inputs[i]) : model.initializers.end();
    if (it == model.initializers.end())
      fail(what + " must be a constant (an initializer or a Constant node)");
    return it->second;
  };
  std::string mode = "constant";
  if (auto it = n.attrs.find("mode"); it != n.attrs.end()) mode = it->second.s;
  if (mode != "constant")
    fail("mode '" + mode +
         "' is not supported (Weft imports a constant Pad of zeros, folded "
         "into the Conv that reads it)");
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) fail("the axes input is not supported");
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const TensorData& v = constant(2, "the constant value");
    for (double x : v.to_double())
      if (x != 0)
        fail("constant value " + std::to_string(x) +
             " is not supported (only 0, which folds "
             "into a Conv's padding)");
  }
  if (in_shape.size() != 4)
    fail("input of shape " + shape_string(in_shape) + " is not 4-D (N, C, H, W)");
  const TensorData& p = constant(1, "pads");
  if (p.type != ElemType::kInt64) fail("pads must be int64");
  const std::vector<int64_t> pads = p.to_int64();
  if (pads.size() != 8)
    fail("pads " + shape_string(pads) + " must have 8 values (begin and end of 4 axes)");
  for (int64_t v : pads)
    if (v < 0) fail("pads " + shape_string(pads) + " must not be negative (cropping)");
  if (pads[0] || pads[1] || pads[4] || pads[5])
    fail("pads " + shape_string(pads) +
         " pad the batch or channel axis; only H and W fold "
         "into a Conv");
  return {pads[2], pads[3], pads[6], pads[7]};
}

}  // namespace weft::compiler::onnx_import
