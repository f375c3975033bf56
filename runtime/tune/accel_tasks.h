// Tuning tasks for the accelerator: the dense/conv2d spaces (compiler/tune/accel_space.h) with
// the runtime's post-processor (instruction-stream building and the static token verifier),
// the cycle-model measurer and the lowered-program features. Also the ResNet-18 task list
// (rt::resnet18_layers(), batch = the configuration's GEMM batch) and the knobs the tuning
// records give a workload, which `weft run` uses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "runtime/tune/task.h"

namespace weft::rt::tune {

/// The target key parts of an accelerator run.
compiler::tune::Target accel_target(const std::string& config, const std::string& platform);
/// The workload of a conv2d / dense (the records' key).
compiler::tune::Workload conv2d_workload(const compiler::ops::Conv2dShape& s);
compiler::tune::Workload dense_workload(const compiler::ops::DenseShape& s);

/// A conv2d task on the cycle model (default epilogue: shift 8, bias, relu).
Task make_accel_conv2d_task(const std::string& name, const std::string& config,
                            const std::string& platform, const compiler::ops::Conv2dShape& s);
/// A dense task on the cycle model (default epilogue: shift 8, no relu).
Task make_accel_dense_task(const std::string& name, const std::string& config,
                           const std::string& platform, const compiler::ops::DenseShape& s);
/// C1..C12 of ResNet-18 (batch = the configuration's GEMM batch), weighted by their MACs.
std::vector<Task> make_accel_resnet18_tasks(const std::string& config,
                                            const std::string& platform);

/// The best recorded knobs for a conv2d / dense on a target (from `db_path` when given, else
/// the shipped default records; the shape-generic dispatch table `db_path.dispatch.json` when
/// its family holds the shape and no exact record is predicted faster), or nothing.
std::optional<compiler::ops::Conv2dKnobs> recorded_conv2d_knobs(
    const std::string& config, const std::string& platform, const compiler::ops::Conv2dShape& s,
    const std::string& db_path = "");
std::optional<compiler::ops::DenseKnobs> recorded_dense_knobs(
    const std::string& config, const std::string& platform, const compiler::ops::DenseShape& s,
    const std::string& db_path = "");

}  // namespace weft::rt::tune
