// ResNet-18 layer programs; see resnet_program.h.
#include "scripts/bench/resnet_program.h"

#include <algorithm>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/ops/conv2d.h"

namespace weft::bench {

BenchProgram resnet18_layer(const isa::Layout& l, const isa::Platform& p, const std::string& name,
                            int64_t vthreads, uint32_t seed) {
  const auto& layers = rt::resnet18_layers();
  const auto it =
      std::find_if(layers.begin(), layers.end(), [&](const auto& x) { return x.name == name; });
  if (it == layers.end()) throw UserError("no ResNet-18 layer '" + name + "' (C1 to C12)");
  compiler::ops::Conv2dShape s = it->shape;
  s.n = l.config.batch();
  const compiler::ops::Conv2dKnobs k = compiler::ops::conv2d_candidates(l, p, s, vthreads, 1).at(0);
  const rt::Conv2dBuild b = rt::build_conv2d(l, s, k, compiler::ops::Conv2dEpilogue{});
  BenchProgram out;
  out.name = name;
  out.image = rt::conv2d_image(b, rt::random_conv2d_data(s, seed));
  out.insn_offset = b.placed.stream.insn_byte_offset;
  out.insn_count = b.placed.stream.insn_count;
  out.macs = static_cast<uint64_t>(s.macs());
  return out;
}

}  // namespace weft::bench
