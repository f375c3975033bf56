// JSON fields that the reports of several verbs and targets share, written once so that a
// script reads every report with the same keys.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace weft::rt {

/// The shape of a 2D convolution as every `weft run conv2d` report gives it, on the accelerator,
/// the CPU and the GPU alike: N, H, W, IC, OC, K (KH and KW when they differ), stride, pad, and
/// the output's OH and OW.
inline nlohmann::ordered_json conv2d_shape_json(int64_t n, int64_t h, int64_t w, int64_t ic,
                                                int64_t oc, int64_t kh, int64_t kw,
                                                int64_t stride, int64_t pad) {
  nlohmann::ordered_json j = {{"N", n}, {"H", h}, {"W", w}, {"IC", ic}, {"OC", oc}};
  if (kh == kw) {
    j["K"] = kh;
  } else {
    j["KH"] = kh;
    j["KW"] = kw;
  }
  j["stride"] = stride;
  j["pad"] = pad;
  j["OH"] = stride > 0 ? (h + 2 * pad - kh) / stride + 1 : 0;
  j["OW"] = stride > 0 ? (w + 2 * pad - kw) / stride + 1 : 0;
  return j;
}

}  // namespace weft::rt
