// The cycle-model measurer (see cycle_measurer.h).
#include "runtime/tune/cycle_measurer.h"

#include <chrono>
#include <random>

#include "compiler/tune/accel_features.h"
#include "driver/device.h"
#include "hardware/isa/errors.h"
#include "runtime/ops/conv2d.h"
#include "runtime/ops/dense.h"

namespace weft::rt::tune {

using compiler::tune::AccelBody;

MeasureResult CycleMeasurer::measure(const compiler::tune::Candidate& c, double stop_above) const {
  MeasureResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const AccelBody* b = c.as<AccelBody>();
  if (!c.ok() || !b) {
    r.error = c.error.empty() ? "not an accelerator candidate" : c.error;
    return r;
  }
  const double bound = compiler::tune::accel_lower_bound(*b, *layout_, *platform_);
  if (bound > stop_above) {
    r.value = bound;
    r.stopped_early = true;
    r.details["lower_bound"] = bound;
    return r;
  }
  try {
    driver::DeviceOptions o;
    o.layout = layout_;
    o.platform = platform_;
    std::unique_ptr<driver::Device> dev;
    if (b->op == "conv2d") {
      const Conv2dBuild build = build_conv2d(*layout_, b->conv_shape, b->conv_knobs, conv_e_);
      o.memory_bytes = build.placed.image_bytes;
      dev = driver::open_device("cycle", o);
      run_conv2d(*dev, build, random_conv2d_data(b->conv_shape, 1), std::chrono::hours(1));
    } else {
      const DenseBuild build = build_dense(*layout_, b->dense_shape, b->dense_knobs, dense_e_);
      o.memory_bytes = build.placed.image_bytes;
      dev = driver::open_device("cycle", o);
      std::mt19937 rng(1);
      std::vector<int8_t> a(b->dense_shape.m * b->dense_shape.k), w(b->dense_shape.n * b->dense_shape.k);
      for (auto& x : a) x = static_cast<int8_t>(rng() % 256);
      for (auto& x : w) x = static_cast<int8_t>(rng() % 256);
      run_dense(*dev, build, a, w, std::chrono::hours(1));
    }
    const auto details = dev->run_details();
    r.value = details.at("cycles").get<double>();
    r.details["utilization"] = details.value("utilization", 0.0);
  } catch (const UserError& e) {
    r.error = e.what();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace weft::rt::tune
