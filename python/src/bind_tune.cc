// weft.tune: the schedule search of `weft tune` (runtime/tune) over an operator (dense,
// conv2d, one of ResNet-18's layers), ResNet-18's layers or an ONNX model's layers, on the accelerator's cycle model or
// the host CPU, with the same tasks, database (JSON lines, committed after every batch) and
// summary as the CLI. It runs with the GIL released; Ctrl-C stops it after the batch in flight
// (the database keeps every committed batch) and raises KeyboardInterrupt.
#include <pybind11/stl.h>

#include <atomic>
#include <iostream>
#include <optional>

#include "compiler/tune/cost_model.h"
#include "hardware/isa/errors.h"
#include "python/src/bindings.h"
#include "runtime/bench/conv2d_study.h"
#ifdef WEFT_HAVE_ONNX_RUN
#include "runtime/graph/onnx_tune_layers.h"
#endif
#include "runtime/tune/accel_tasks.h"
#include "runtime/tune/cpu_tasks.h"
#include "runtime/tune/database.h"
#include "runtime/tune/search.h"
#include "runtime/tune/thread_runner.h"

namespace weft::py_bind {

namespace {

namespace tn = rt::tune;
using Opt = std::optional<int64_t>;

// The options given that `what` does not take: refused by name.
void refuse(const std::string& what, const std::vector<std::pair<const char*, bool>>& given,
            const std::string& why) {
  for (const auto& [name, g] : given)
    if (g) throw UserError("tune " + what + ": " + name + " goes " + why);
}

struct Shape {
  Opt m, n, k, batch, h, w, ic, oc, kernel, stride, pad;
  std::optional<std::string> layer;
  std::optional<std::vector<std::string>> layers;
};

tn::Task cpu_task(compiler::tune::Workload w, const std::string& dtype, const std::string& name) {
  if (dtype != "float32" && dtype != "int8")
    throw UserError("tune: dtype '" + dtype + "' is not float32 or int8");
  w.shape["dtype"] = dtype;
  return tn::make_cpu_task(w, name);
}

std::vector<tn::Task> make_tasks(const std::string& what, const std::string& target,
                                 const std::string& config, const std::string& platform,
                                 const std::string& dtype, const Shape& s) {
  const bool accel = target == "accel";
  std::vector<tn::Task> tasks;
  const std::vector<std::pair<const char*, bool>> conv_only = {
      {"batch", bool(s.batch)}, {"h", bool(s.h)}, {"w", bool(s.w)}, {"ic", bool(s.ic)},
      {"oc", bool(s.oc)}, {"kernel", bool(s.kernel)}, {"stride", bool(s.stride)},
      {"pad", bool(s.pad)}, {"layer", bool(s.layer)}};
  if (what == "dense") {
    refuse(what, conv_only, "with conv2d (dense's shape is m, n, k)");
    refuse(what, {{"layers", bool(s.layers)}}, "with resnet18");
    const compiler::ops::DenseShape d{s.m.value_or(64), s.n.value_or(64), s.k.value_or(64)};
    tasks.push_back(accel ? tn::make_accel_dense_task("dense", config, platform, d)
                          : cpu_task(tn::dense_workload(d), dtype, "dense"));
  } else if (what == "conv2d") {
    refuse(what, {{"m", bool(s.m)}, {"n", bool(s.n)}, {"k", bool(s.k)}},
           "with dense (conv2d's shape is batch, h, w, ic, oc, kernel, stride, pad)");
    refuse(what, {{"layers", bool(s.layers)}}, "with resnet18 (conv2d tunes one shape: layer)");
    compiler::ops::Conv2dShape c{s.batch.value_or(1), s.h.value_or(56), s.w.value_or(56),
                                 s.ic.value_or(64), s.oc.value_or(64), s.kernel.value_or(3),
                                 s.stride.value_or(1), s.pad.value_or(1)};
    std::string name = "conv2d";
    if (s.layer) {
      refuse(what, {{"h", bool(s.h)}, {"w", bool(s.w)}, {"ic", bool(s.ic)}, {"oc", bool(s.oc)},
                    {"kernel", bool(s.kernel)}, {"stride", bool(s.stride)}, {"pad", bool(s.pad)}},
             "with a shape of your own, not with layer (the layer fixes the shape)");
      const rt::LayerSpec* found = nullptr;
      for (const auto& l : rt::resnet18_layers())
        if (l.name == *s.layer) found = &l;
      if (!found) throw UserError("tune conv2d: layer '" + *s.layer + "' is not a ResNet-18 layer C1..C12");
      c = found->shape;
      c.n = s.batch.value_or(accel ? isa::layout_for(config).config.batch() : 1);
      name = found->name;
    }
    tasks.push_back(accel ? tn::make_accel_conv2d_task(name, config, platform, c)
                          : cpu_task(tn::conv2d_workload(c), dtype, name));
  } else if (what == "resnet18") {
    std::vector<std::pair<const char*, bool>> shape = conv_only;
    shape.insert(shape.end(), {{"m", bool(s.m)}, {"n", bool(s.n)}, {"k", bool(s.k)}});
    refuse(what, shape, "with dense or conv2d (resnet18 fixes its layers' shapes)");
    if (accel) {
      tasks = tn::make_accel_resnet18_tasks(config, platform);
    } else {
      for (const auto& l : rt::resnet18_layers())
        tasks.push_back(cpu_task(tn::conv2d_workload(l.shape), dtype, l.name));
    }
    if (s.layers) {
      std::vector<tn::Task> keep;
      for (const std::string& want : *s.layers) {
        bool found = false;
        for (const auto& t : tasks)
          if (t.name == want) keep.push_back(t), found = true;
        if (!found) throw UserError("tune resnet18: layers: '" + want + "' is not a ResNet-18 layer C1..C12");
      }
      if (keep.empty()) throw UserError("tune resnet18: layers is empty (give ['C1', 'C5', ...])");
      tasks = std::move(keep);
    }
  } else if (what.size() > 5 && what.compare(what.size() - 5, 5, ".onnx") == 0) {
    std::vector<std::pair<const char*, bool>> shape = conv_only;
    shape.insert(shape.end(), {{"m", bool(s.m)}, {"n", bool(s.n)}, {"k", bool(s.k)},
                               {"layers", bool(s.layers)}});
    refuse(what, shape, "with dense, conv2d or resnet18 (the model fixes its layers' shapes)");
#ifdef WEFT_HAVE_ONNX_RUN
    tasks = rt::graph::onnx_tune_tasks(what, target, config, platform, dtype);
#else
    throw UserError("tune " + what + ": this weft was built without ONNX import (install "
                    "libonnx-dev and reconfigure)");
#endif
  } else {
    throw UserError("tune: '" + what + "' is not dense, conv2d or resnet18");
  }
  return tasks;
}

py::object tune(const std::string& what, const std::string& target,
                std::optional<std::string> config, std::optional<std::string> platform,
                std::optional<std::string> dtype, int64_t trials, const std::string& strategy,
                const std::string& db_path, uint64_t seed, int per_round, int population,
                int workers, double early_stop, bool quiet, const Shape& shape) {
  if (target != "accel" && target != "llvm")
    throw UserError("tune: target '" + target + "' is not accel or llvm");
  if (target == "llvm" && (config || platform))
    throw UserError("tune: config and platform go with target='accel' (llvm tunes the host CPU)");
  if (target == "accel" && dtype)
    throw UserError("tune: dtype goes with target='llvm' (the accelerator is int8)");
  if (dtype && *dtype != "float32" && *dtype != "int8")
    throw UserError("tune: dtype '" + *dtype + "' is not float32 or int8");
  if (trials < 1) throw UserError("tune: trials must be at least 1 (got " + std::to_string(trials) + ")");
  if (per_round < 1) throw UserError("tune: per_round must be at least 1");
  if (workers < 1 || workers > 1024) throw UserError("tune: workers must be 1 to 1024");
  if (!(early_stop >= 1)) throw UserError("tune: early_stop must be at least 1");
  if (population < 1) throw UserError("tune: population must be at least 1");
  tn::SearchOptions so;
  so.strategy = tn::parse_strategy(strategy);
  so.trials = trials;
  so.seed = seed;
  so.batch = per_round;
  so.population = population;
  so.early_stop = early_stop;
  if (so.strategy == tn::Strategy::kModel && !compiler::tune::xgboost_available())
    throw UserError("tune: strategy 'model' needs the XGBoost cost model, and this build has no "
                    "XGBoost (install libxgboost-dev and reconfigure)");
  if (!db_path.empty()) tn::Database::check_writable(db_path, "tune: db");
  const std::vector<tn::Task> tasks =
      make_tasks(what, target, config.value_or("gemm8x8"), platform.value_or("sim"),
                 dtype.value_or("float32"), shape);
  nlohmann::json summary;
  std::atomic<bool> cancelled{false};
  run_interruptible(
      [&] {
        tn::Database db(db_path);  // a corrupt file stops here, untouched
        tn::ThreadRunner runner(workers);
        auto progress = [&](size_t, const tn::TaskResult&, const std::string& line) {
          db.commit();
          if (!quiet) std::cerr << line << std::endl;
          if (cancelled) throw UserError("tune: cancelled");
        };
        const auto results = tn::tune(tasks, so, runner, db_path.empty() ? nullptr : &db, progress);
        db.commit();
        summary = tn::tune_summary(so, runner, db_path, results);
      },
      [&] { cancelled = true; });
  return to_python(summary);
}

}  // namespace

void bind_tune(py::module_& m) {
  m.def(
      "tune",
      [](const std::string& what, const std::string& target, std::optional<std::string> config,
         std::optional<std::string> platform, std::optional<std::string> dtype, int64_t trials,
         const std::string& strategy, const std::string& db, uint64_t seed, int per_round,
         int population, int workers, double early_stop, bool quiet, Opt m_, Opt n, Opt k,
         Opt batch, Opt h, Opt w, Opt ic, Opt oc, Opt kernel, Opt stride, Opt pad,
         std::optional<std::string> layer, std::optional<std::vector<std::string>> layers) {
        return tune(what, target, config, platform, dtype, trials, strategy, db, seed, per_round,
                    population, workers, early_stop, quiet,
                    Shape{m_, n, k, batch, h, w, ic, oc, kernel, stride, pad, layer, layers});
      },
      py::arg("what"), py::arg("target") = "accel", py::arg("config") = py::none(),
      py::arg("platform") = py::none(), py::arg("dtype") = py::none(), py::arg("trials") = 64,
      py::arg("strategy") = "evolutionary", py::arg("db") = "", py::arg("seed") = 1,
      py::arg("per_round") = 8, py::arg("population") = 48, py::arg("workers") = 1,
      py::arg("early_stop") = 2.0, py::arg("quiet") = true, py::arg("m") = py::none(),
      py::arg("n") = py::none(), py::arg("k") = py::none(), py::arg("batch") = py::none(),
      py::arg("h") = py::none(), py::arg("w") = py::none(), py::arg("ic") = py::none(),
      py::arg("oc") = py::none(), py::arg("kernel") = py::none(), py::arg("stride") = py::none(),
      py::arg("pad") = py::none(), py::arg("layer") = py::none(), py::arg("layers") = py::none(),
      "Schedule search as `weft tune WHAT` (dense, conv2d, resnet18 or MODEL.onnx): the JSON "
      "summary as a "
      "dict; every trial goes to the database `db` (JSON lines) when given.");
}

}  // namespace weft::py_bind
