// A tuning task: one workload on one target with its space, measurer and features, and its
// weight in a network (the task scheduler spreads trials by it). Task builders for each target
// live beside this header: accel_tasks.h (the accelerator, in this branch) and cpu_tasks.h
// (the LLVM CPU backend).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/tune/features.h"
#include "compiler/tune/space.h"
#include "runtime/tune/measurer.h"

namespace weft::rt::tune {

struct Task {
  std::string name;  // "C5", "dense", ...
  compiler::tune::Workload workload;
  compiler::tune::Target target;
  std::shared_ptr<const compiler::tune::SearchSpace> space;
  std::shared_ptr<const Measurer> measurer;
  std::shared_ptr<const compiler::tune::FeatureExtractor> features;
  double weight = 1.0;  // share of the network's time (any scale)
  nlohmann::json info = nlohmann::json::object();  // copied to the summary (e.g. the roofline)
};

}  // namespace weft::rt::tune
