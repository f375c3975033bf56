// Fuzz target: the compiler on random shapes and schedules. The bytes choose the operator
// (dense or conv2d), the configuration, the shape, the epilogue and the knobs (raw values,
// which may be nonsense, or one of the analytic chooser's own proposals). The compiler must
// either refuse with a UserError, or compile a program that runs on the functional model
// without an error and gives exactly the CPU reference's output. An InternalError, a run
// error on compiled code, a wrong result or a crash is a bug.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <random>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/errors.h"
#include "runtime/ops/conv2d.h"
#include "runtime/ops/dense.h"
#include "simulator/functional/functional_sim.h"

using namespace weft;
namespace ops = compiler::ops;

namespace {

constexpr int64_t kMaxMacs = 1 << 20;  // keeps one input well under a second

std::vector<uint8_t> run_functional(const isa::Layout& l, const rt::PlacedProgram& placed,
                                    std::vector<uint8_t> image) {
  sim::FunctionalSim sim(l);
  try {
    sim.run(image, 0, placed.stream.insn_count);
  } catch (const UserError& e) {
    fuzz::check(false, std::string("compiled code fails on the functional model: ") + e.what());
  }
  return image;
}

void dense(FuzzedDataProvider& f, const isa::Layout& l, bool chooser) {
  ops::DenseShape s;
  s.m = f.ConsumeIntegralInRange<int64_t>(-1, 40);
  s.n = f.ConsumeIntegralInRange<int64_t>(-1, 40);
  s.k = f.ConsumeIntegralInRange<int64_t>(-1, 64);
  ops::DenseEpilogue e;
  e.shift = f.ConsumeIntegralInRange(-2, 34);
  e.relu = f.ConsumeBool();
  ops::DenseKnobs k;
  if (chooser && s.m > 0 && s.n > 0 && s.k > 0) {
    try {
      k = ops::choose_dense_knobs(l, isa::shipped_platforms()[0], s,
                                  f.ConsumeIntegralInRange(1, 4));
    } catch (const UserError&) {
      return;
    }
  } else {
    k.tile_m = f.ConsumeIntegralInRange<int64_t>(-1, 6);
    k.tile_n = f.ConsumeIntegralInRange<int64_t>(-1, 6);
    k.tile_k = f.ConsumeIntegralInRange<int64_t>(-1, 6);
    k.vthreads = f.ConsumeIntegralInRange<int64_t>(-1, 4);
    k.vthread_axis = "mnxo"[f.ConsumeIntegralInRange(0, 3)];
  }
  if (s.m > 0 && s.n > 0 && s.k > 0 && s.m * s.n * s.k > kMaxMacs) return;
  rt::DenseBuild b;
  try {
    b = rt::build_dense(l, s, k, e);
  } catch (const UserError&) {
    return;
  }
  std::mt19937 rng(f.ConsumeIntegral<uint32_t>());
  std::vector<int8_t> a(s.m * s.k), w(s.n * s.k);
  for (auto& x : a) x = static_cast<int8_t>(rng());
  for (auto& x : w) x = static_cast<int8_t>(rng());
  const auto image = run_functional(l, b.placed, rt::dense_image(b, a, w));
  fuzz::check(rt::dense_output(b, image) == rt::dense_reference(s, a, w, e),
              "dense " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                  std::to_string(s.k) + " knobs " + k.describe() + " shift " +
                  std::to_string(e.shift) + ": wrong result");
}

void conv2d(FuzzedDataProvider& f, const isa::Layout& l, bool chooser) {
  ops::Conv2dShape s;
  s.n = f.ConsumeIntegralInRange<int64_t>(0, 2);
  s.h = f.ConsumeIntegralInRange<int64_t>(0, 12);
  s.w = f.ConsumeIntegralInRange<int64_t>(0, 12);
  s.ic = f.ConsumeIntegralInRange<int64_t>(0, 40);
  s.oc = f.ConsumeIntegralInRange<int64_t>(0, 40);
  s.k = f.ConsumeIntegralInRange<int64_t>(0, 5);
  s.stride = f.ConsumeIntegralInRange<int64_t>(0, 3);
  s.pad = f.ConsumeIntegralInRange<int64_t>(-1, 3);
  ops::Conv2dEpilogue e;
  e.shift = f.ConsumeIntegralInRange(-2, 34);
  e.bias = f.ConsumeBool();
  e.relu = f.ConsumeBool();
  ops::Conv2dKnobs k;
  if (chooser) {
    try {
      ops::check_conv2d_shape(s);
      const auto c = ops::conv2d_candidates(l, isa::shipped_platforms()[0], s,
                                            f.ConsumeIntegralInRange(1, 4), 4);
      if (c.empty()) return;
      k = c[f.ConsumeIntegralInRange<size_t>(0, c.size() - 1)];
    } catch (const UserError&) {
      return;
    }
  } else {
    k.tile_h = f.ConsumeIntegralInRange<int64_t>(-1, 8);
    k.tile_w = f.ConsumeIntegralInRange<int64_t>(-1, 8);
    k.tile_ic = f.ConsumeIntegralInRange<int64_t>(-1, 4);
    k.tile_oc = f.ConsumeIntegralInRange<int64_t>(-1, 4);
    k.vthreads = f.ConsumeIntegralInRange<int64_t>(-1, 4);
    k.vthread_axis = "ohxm"[f.ConsumeIntegralInRange(0, 3)];
  }
  rt::Conv2dBuild b;
  try {
    b = rt::build_conv2d(l, s, k, e);
  } catch (const UserError&) {
    return;
  }
  if (s.macs() > kMaxMacs) return;
  const rt::Conv2dData data = rt::random_conv2d_data(s, f.ConsumeIntegral<uint32_t>());
  const auto image = run_functional(l, b.placed, rt::conv2d_image(b, data));
  fuzz::check(rt::conv2d_output(b, image) == rt::conv2d_reference(s, data, e),
              "conv2d " + s.describe() + " knobs " + k.describe() + " shift " +
                  std::to_string(e.shift) + ": wrong result");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  FuzzedDataProvider f(data, size);
  const uint8_t mode = f.ConsumeIntegral<uint8_t>();
  const isa::Layout& l = fuzz::layout_of(mode);
  const bool chooser = (mode & 0x40) != 0;
  if (mode & 0x80) {
    conv2d(f, l, chooser);
  } else {
    dense(f, l, chooser);
  }
  return 0;
}
