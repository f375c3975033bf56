// Importing ONNX Resize; see import_resize.h.
#include "compiler/graph/onnx/import_resize.h"

#include <cmath>

#include "compiler/graph/types.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::onnx_import {

graph::Attrs resize_attrs(const Model& m, const Node& n, const std::vector<int64_t>& in) {
  auto fail = [&](const std::string& what) {
    throw UserError(m.path + ": " + n.where() + ": " + what);
  };
  auto str = [&](const char* a, const char* dflt) {
    auto it = n.attrs.find(a);
    return it == n.attrs.end() ? std::string(dflt) : it->second.s;
  };
  auto num = [&](const char* a) {
    auto it = n.attrs.find(a);
    return it == n.attrs.end() ? 0.0 : it->second.kind == Attribute::Kind::kFloat ? it->second.f
                                                                                    : double(it->second.i);
  };
  const std::string mode = str("mode", "nearest"),
                    ctm = str("coordinate_transformation_mode", "half_pixel"),
                    nearest = str("nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear")
    fail("mode '" + mode + "' is not supported (nearest, linear)");
  if (ctm == "tf_crop_and_resize") fail("coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  if (num("antialias") != 0) fail("antialias is not supported");
  if (num("exclude_outside") != 0) fail("exclude_outside is not supported (a cubic option)");
  if (n.attrs.count("axes")) fail("attribute 'axes' is not supported (give every axis)");
  if (str("keep_aspect_ratio_policy", "stretch") != "stretch")
    fail("keep_aspect_ratio_policy other than 'stretch' is not supported");
  // Inputs X, roi, scales, sizes; an empty name or an empty tensor is "not given".
  auto constant = [&](size_t i, const char* what) -> const TensorData* {
    if (n.inputs.size() <= i || n.inputs[i].empty()) return nullptr;
    auto it = m.initializers.find(n.inputs[i]);
    if (it == m.initializers.end()) fail(std::string("the ") + what + " input is not a constant");
    return it->second.elements() == 0 ? nullptr : &it->second;
  };
  const TensorData* scales = constant(2, "scales");
  const TensorData* sizes = constant(3, "sizes");
  if ((scales == nullptr) == (sizes == nullptr)) fail("give exactly one of scales and sizes");
  const size_t r = in.size();
  std::vector<double> s;
  std::vector<int64_t> out;
  if (scales) {
    s = scales->to_double();
    if (s.size() != r) fail("has " + std::to_string(s.size()) + " scales for a rank-" + std::to_string(r) + " input");
    for (size_t a = 0; a < r; ++a) {
      if (!(s[a] > 0) || !std::isfinite(s[a])) fail("scale " + std::to_string(s[a]) + " is not positive");
      const double length = std::floor(double(in[a]) * s[a]);
      if (length > double(graph::kMaxTensorElements))  // before the cast, which would overflow
        fail("scale " + std::to_string(s[a]) + " makes axis " + std::to_string(a) +
             " longer than 2^40");
      out.push_back(static_cast<int64_t>(length));
    }
  } else {
    out = sizes->to_int64();
    if (out.size() != r) fail("has " + std::to_string(out.size()) + " sizes for a rank-" + std::to_string(r) + " input");
    for (size_t a = 0; a < r; ++a) s.push_back(double(out[a]) / double(in[a]));
  }
  for (int64_t d : out)
    if (d < 1) fail("the output " + shape_string(out) + " has an empty axis");
  graph::Attrs a;
  a["mode"] = mode;
  a["coordinate_transformation_mode"] = ctm;
  a["nearest_mode"] = nearest;
  a["scales"] = s;
  a["sizes"] = out;
  return a;
}

}  // namespace weft::compiler::onnx_import
