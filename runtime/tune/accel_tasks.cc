// Accelerator tuning tasks and the records' knobs for `weft run` (see accel_tasks.h).
#include "runtime/tune/accel_tasks.h"

#include "compiler/tune/accel_features.h"
#include "compiler/tune/accel_space.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/ops/conv2d.h"
#include "runtime/ops/dense.h"
#include "runtime/ops/placement.h"
#include "runtime/tune/cycle_measurer.h"
#include "runtime/tune/database.h"
#include "runtime/tune/shape_generic.h"

namespace weft::rt::tune {

using namespace compiler::tune;
namespace ops = compiler::ops;

namespace {

// The runtime's post-processing of a compiled candidate: build and place its instruction
// stream, which runs the static token verifier; any UserError becomes the candidate's error.
AccelPostProcess verify_stream(const isa::Layout& l) {
  return [&l](const compiler::accel::Program& p) -> std::string {
    std::vector<TensorSlot> slots;
    for (const auto& b : p.tensors) {
      const int eb = std::max(1, compiler::ir::dtype_bits(b->dtype) / 8);
      slots.push_back({b, static_cast<uint64_t>(b->elements()) * eb, eb});
    }
    try {
      place_program(l, p, slots);
    } catch (const UserError& e) {
      return std::string("instruction stream: ") + e.what();
    }
    return "";
  };
}

// The runtime's builder: compile and place the candidate exactly as the measurer runs it
// (placing runs the static token verifier); the build rides on the candidate to the measurer,
// so a trial compiles once.
AccelBuilder build_candidate(const isa::Layout& l) {
  return [&l](AccelBody& b) {
    try {
      if (b.op == "conv2d") {
        auto build = std::make_shared<Conv2dBuild>(
            build_conv2d(l, b.conv_shape, b.conv_knobs, ops::Conv2dEpilogue{}));
        b.program = build->program;
        b.prepared = std::move(build);
      } else {
        auto build = std::make_shared<DenseBuild>(
            build_dense(l, b.dense_shape, b.dense_knobs, ops::DenseEpilogue{}));
        b.program = build->program;
        b.prepared = std::move(build);
      }
    } catch (const UserError& e) {
      throw UserError(std::string("instruction stream: ") + e.what());
    }
  };
}

// A space refused when built (no legal schedule) names the task it was for.
template <class F>
auto named_errors(const std::string& task, F&& make) {
  try {
    return make();
  } catch (const UserError& e) {
    throw UserError("tune " + task + ": " + e.what());
  }
}

}  // namespace

Target accel_target(const std::string& config, const std::string& platform) {
  return {"accel", config, platform};
}

Workload conv2d_workload(const ops::Conv2dShape& s) {
  return {"conv2d", {{"n", s.n}, {"h", s.h}, {"w", s.w}, {"ic", s.ic}, {"oc", s.oc}, {"k", s.k},
                     {"stride", s.stride}, {"pad", s.pad}}};
}

Workload dense_workload(const ops::DenseShape& s) {
  return {"dense", {{"m", s.m}, {"n", s.n}, {"k", s.k}}};
}

Task make_accel_conv2d_task(const std::string& name, const std::string& config,
                            const std::string& platform, const ops::Conv2dShape& s) {
  const isa::Layout& l = isa::layout_for(config);
  const isa::Platform& p = isa::find_platform(platform);
  Task t;
  t.name = name;
  t.workload = conv2d_workload(s);
  t.target = accel_target(config, platform);
  auto space = named_errors(name, [&] {
    return std::make_shared<AccelConv2dSpace>(l, p, s, ops::Conv2dEpilogue{}, verify_stream(l));
  });
  space->set_builder(build_candidate(l));
  t.space = space;
  t.info["roofline"] = conv2d_roofline(l, p, s).to_json();
  t.measurer = std::make_shared<CycleMeasurer>(l, p);
  t.features = std::make_shared<AccelFeatures>(l, p);
  t.weight = t.space->weight();
  return t;
}

Task make_accel_dense_task(const std::string& name, const std::string& config,
                           const std::string& platform, const ops::DenseShape& s) {
  const isa::Layout& l = isa::layout_for(config);
  const isa::Platform& p = isa::find_platform(platform);
  Task t;
  t.name = name;
  t.workload = dense_workload(s);
  t.target = accel_target(config, platform);
  auto space = named_errors(name, [&] {
    return std::make_shared<AccelDenseSpace>(l, p, s, ops::DenseEpilogue{}, verify_stream(l));
  });
  space->set_builder(build_candidate(l));
  t.space = space;
  t.measurer = std::make_shared<CycleMeasurer>(l, p);
  t.features = std::make_shared<AccelFeatures>(l, p);
  t.weight = t.space->weight();
  return t;
}

std::vector<Task> make_accel_resnet18_tasks(const std::string& config,
                                            const std::string& platform) {
  const isa::Layout& l = isa::layout_for(config);
  std::vector<Task> tasks;
  for (const LayerSpec& layer : resnet18_layers()) {
    ops::Conv2dShape s = layer.shape;
    s.n = l.config.batch();
    tasks.push_back(make_accel_conv2d_task(layer.name, config, platform, s));
  }
  return tasks;
}

std::optional<ops::Conv2dKnobs> recorded_conv2d_knobs(const std::string& config,
                                                      const std::string& platform,
                                                      const ops::Conv2dShape& s,
                                                      const std::string& db_path) {
  auto r = lookup_best(conv2d_workload(s), accel_target(config, platform), db_path);
  // The shape-generic dispatch table next to the database, when no exact record exists or
  // its micro-kernel is predicted faster than the best exact record.
  auto d = dispatch_knobs(conv2d_workload(s), accel_target(config, platform), db_path);
  if (d && (!r || d->predicted < r->value)) return conv2d_knobs_from_json(d->knobs);
  if (!r) return std::nullopt;
  const isa::Layout& l = isa::layout_for(config);
  AccelConv2dSpace space(l, isa::find_platform(platform), s, {});
  return space.knobs_of(r->trace);
}

std::optional<ops::DenseKnobs> recorded_dense_knobs(const std::string& config,
                                                    const std::string& platform,
                                                    const ops::DenseShape& s,
                                                    const std::string& db_path) {
  auto r = lookup_best(dense_workload(s), accel_target(config, platform), db_path);
  // The shape-generic dispatch table next to the database, when no exact record exists or
  // its micro-kernel is predicted faster than the best exact record.
  auto d = dispatch_knobs(dense_workload(s), accel_target(config, platform), db_path);
  if (d && (!r || d->predicted < r->value)) return dense_knobs_from_json(d->knobs);
  if (!r) return std::nullopt;
  const isa::Layout& l = isa::layout_for(config);
  AccelDenseSpace space(l, isa::find_platform(platform), s, {});
  return space.knobs_of(r->trace);
}

}  // namespace weft::rt::tune
