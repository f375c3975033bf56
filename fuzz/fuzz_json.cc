// Fuzz target: the JSON documents Weft reads besides assembly (whose JSON lines fuzz_asm
// covers): the conv2d knob cache (runtime/bench/conv2d_study.h, read from a file) and a
// timeline given to `weft trace render` (simulator/cycle/trace_svg.h). The first byte picks
// the reader and the rendering window. A cache entry that is not a valid choice must be
// refused by check_conv2d_knobs with a UserError (search_knobs then searches again); a
// timeline either renders or is a UserError.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "compiler/ops/conv2d.h"
#include "fuzz/fuzz_common.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "simulator/cycle/trace_svg.h"

using namespace weft;

namespace {

void knob_cache(const std::string& text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return;  // KnobCache ignores an unreadable file with one line on stderr: nothing to reach
  }
  if (!doc.is_object()) return;
  static const std::string path = "/tmp/weft_fuzz_knobs_" + std::to_string(getpid()) + ".json";
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  rt::KnobCache cache(path);
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const compiler::ops::Conv2dShape shape{8, 14, 14, 64, 64, 3, 1, 1};
  int n = 0;
  for (const auto& [key, value] : doc.items()) {
    if (++n > 8) break;
    const auto k = cache.find(key);
    if (!k) continue;
    const auto j = rt::knobs_to_json(*k);
    fuzz::check(j["tile_h"] == k->tile_h && j["vthreads"] == k->vthreads, "knobs_to_json");
    try {
      compiler::ops::check_conv2d_knobs(l, shape, *k);
    } catch (const UserError&) {
    }
  }
}

void timeline(const std::string& text, uint8_t window) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return;  // `weft trace render` reports a parse error as "not JSON"
  }
  sim::cycle::SvgOptions o;
  o.from = window & 0x0F;
  if (window & 0x10) o.to = o.from + (window >> 5);
  o.width = (window & 0x80) ? 300 : 1200;
  try {
    const std::string svg = sim::cycle::trace_to_svg(doc, o);
    fuzz::check(svg.rfind("<svg", 0) == 0 || svg.find("<svg") != std::string::npos,
                "the rendering is not an SVG");
  } catch (const UserError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 8192) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] & 1) {
    knob_cache(text);
  } else {
    timeline(text, data[0]);
  }
  return 0;
}
