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
    // The build made while validating the candidate when the task's builder made one (the task
    // gives its builder and this measurer the same epilogue), else built here.
    if (b->op == "conv2d") {
      std::shared_ptr<const Conv2dBuild> own =
          b->prepared ? std::static_pointer_cast<const Conv2dBuild>(b->prepared)
              : std::make_shared<const Conv2dBuild>(
                    build_conv2d(*layout_, b->conv_shape, b->conv_knobs, conv_e_));
      const Conv2dBuild& build = *own;
      o.memory_bytes = build.placed.image_bytes;
      dev = driver::open_device("cycle", o);
      std::shared_ptr<const Conv2dData> data;
      {
        std::lock_guard<std::mutex> lock(data_m_);
        if (!conv_data_ || conv_data_shape_.describe() != b->conv_shape.describe()) {
          conv_data_ = std::make_shared<const Conv2dData>(random_conv2d_data(b->conv_shape, 1));
          conv_data_shape_ = b->conv_shape;
        }
        data = conv_data_;
      }
      run_conv2d(*dev, build, *data, std::chrono::hours(1));
    } else {
      std::shared_ptr<const DenseBuild> own =
          b->prepared ? std::static_pointer_cast<const DenseBuild>(b->prepared)
                      : std::make_shared<const DenseBuild>(
                            build_dense(*layout_, b->dense_shape, b->dense_knobs, dense_e_));
      const DenseBuild& build = *own;
      o.memory_bytes = build.placed.image_bytes;
      dev = driver::open_device("cycle", o);
      std::shared_ptr<const std::vector<int8_t>> a, w;
      {
        const auto& s = b->dense_shape;
        std::lock_guard<std::mutex> lock(data_m_);
        if (!dense_a_ || dense_data_shape_.m != s.m || dense_data_shape_.n != s.n ||
            dense_data_shape_.k != s.k) {
          std::mt19937 rng(1);
          std::vector<int8_t> va(s.m * s.k), vw(s.n * s.k);
          for (auto& x : va) x = static_cast<int8_t>(rng() % 256);
          for (auto& x : vw) x = static_cast<int8_t>(rng() % 256);
          dense_a_ = std::make_shared<const std::vector<int8_t>>(std::move(va));
          dense_w_ = std::make_shared<const std::vector<int8_t>>(std::move(vw));
          dense_data_shape_ = s;
        }
        a = dense_a_;
        w = dense_w_;
      }
      run_dense(*dev, build, *a, *w, std::chrono::hours(1));
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
