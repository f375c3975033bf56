// The axes of an ONNX Resize; see resize.h.
#include "compiler/graph/resize.h"

#include <algorithm>
#include <cmath>

#include "hardware/isa/errors.h"

namespace weft::compiler::graph {

void check_resize(const Node& n, const std::vector<int64_t>& in,
                  const std::vector<int64_t>& out) {
  auto fail = [&](const std::string& what) {
    throw UserError("Resize node '" + n.name + "': " + what);
  };
  const std::string mode = n.get_string("mode", "nearest");
  const std::string ctm = n.get_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = n.get_string("nearest_mode", "round_prefer_floor");
  const std::vector<double> scales = n.get_floats("scales");
  if (mode != "nearest" && mode != "linear")
    fail("mode '" + mode + "' is not supported (nearest, linear)");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" &&
      ctm != "asymmetric" && ctm != "tf_half_pixel_for_nn")
    fail("coordinate_transformation_mode '" + ctm + "' is not supported (half_pixel, "
         "pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn)");
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" &&
      nearest != "ceil")
    fail("nearest_mode '" + nearest + "' is not supported (round_prefer_floor, "
         "round_prefer_ceil, floor, ceil)");
  if (scales.size() != in.size() || out.size() != in.size())
    fail("has " + std::to_string(scales.size()) + " scales for a rank-" +
         std::to_string(in.size()) + " input");
  for (size_t a = 0; a < in.size(); ++a)
    if (in[a] < 1 || !(scales[a] > 0)) fail("axis " + std::to_string(a) + " has no elements or scale");
}

std::vector<ResizeAxis> resize_axes(const Node& n, const std::vector<int64_t>& in,
                                    const std::vector<int64_t>& out) {
  check_resize(n, in, out);
  const std::string mode = n.get_string("mode", "nearest");
  const std::string ctm = n.get_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = n.get_string("nearest_mode", "round_prefer_floor");
  const std::vector<double> scales = n.get_floats("scales");
  std::vector<ResizeAxis> axes(in.size());
  for (size_t a = 0; a < in.size(); ++a) {
    ResizeAxis& ax = axes[a];
    const int64_t li = in[a], lo = out[a];
    const double s = scales[a];
    ax.identity = li == lo && s == 1.0;
    const double lf = s * double(li);  // the resized length before flooring (ONNX's reference)
    for (int64_t x = 0; x < lo; ++x) {
      double c = 0;
      if (ctm == "half_pixel") c = (x + 0.5) / s - 0.5;
      else if (ctm == "pytorch_half_pixel") c = lo > 1 ? (x + 0.5) / s - 0.5 : 0.0;
      else if (ctm == "align_corners") c = lf > 1 ? double(x) * (li - 1) / (lf - 1) : 0.0;
      else if (ctm == "asymmetric") c = x / s;
      else c = (x + 0.5) / s;  // tf_half_pixel_for_nn
      const double f = std::floor(c), r = c - f;
      const auto clamp = [&](double i) {
        return static_cast<int64_t>(std::min<double>(std::max(i, 0.0), double(li - 1)));
      };
      if (mode == "linear") {
        ax.lo.push_back(clamp(f));
        ax.hi.push_back(clamp(f + 1));
        ax.w.push_back(r);
        continue;
      }
      bool up = false;  // nearest: the second neighbour
      if (r == 0) up = false;
      else if (nearest == "round_prefer_floor") up = r > 0.5;
      else if (nearest == "round_prefer_ceil") up = r >= 0.5;
      else up = nearest == "ceil";
      // Both indices the chosen one, weight 0: the copy is exact.
      ax.lo.push_back(clamp(up ? f + 1 : f));
      ax.hi.push_back(ax.lo.back());
      ax.w.push_back(0.0);
    }
  }
  return axes;
}

}  // namespace weft::compiler::graph
