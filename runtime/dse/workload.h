// What a design-space point runs (`weft dse`): the built-in ResNet-18, an ONNX model, or a
// list of single layers (ResNet-18's conv2d layers C1..C12 and dense shapes MxNxK). A network
// goes through the same graph pipeline and executor as `weft run resnet18` / `weft run
// MODEL.onnx --target accel` (synthetic weights and input, synthetic calibration); a layer
// through the same build and run as `weft run conv2d|dense`. Every run is on the cycle model
// and priced by the energy table; the configuration and platform are objects in memory (the
// point's), never looked up by name.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "compiler/ops/dense.h"
#include "hardware/cost/energy.h"
#include "hardware/isa/layout.h"

namespace weft::rt::dse {

/// One layer of a layer-list workload.
struct Layer {
  std::string name;  // "C5", "dense64x64x64"
  bool dense = false;
  compiler::ops::Conv2dShape conv;
  compiler::ops::DenseShape gemm;
};

/// A workload.
struct Workload {
  enum class Kind { kResNet18, kOnnx, kLayers } kind = Kind::kResNet18;
  std::string model;          // kOnnx: the file
  std::vector<Layer> layers;  // kLayers
  int64_t batch = 1;          // the network's (or the conv layers') batch
  /// Schedules: 1 takes the analytic chooser's first choice (no measuring); N > 1 measures
  /// the chooser's N best on the cycle model per layer shape and keeps the fastest.
  size_t search = 1;
  /// What identifies the workload in the results database.
  std::string key() const;
};

/// The workload `what` names: "resnet18", "layers" (with `layers`: C1..C12 and dense:MxNxK,
/// comma-separated) or MODEL.onnx. UserError naming the problem (an unknown layer, an empty
/// list, a model file that cannot be read or ONNX import missing from the build).
Workload parse_workload(const std::string& what, const std::string& layers, int64_t batch,
                        size_t search);

/// One layer's (or network node's) share of a run.
struct LayerResult {
  std::string name, op;
  uint64_t cycles = 0;
  int64_t macs = 0;
  double utilization = 0;  // MACs / (cycles x MACs per cycle): against the GEMM bound
  double energy_uj = 0;
};

/// A run of the workload on one configuration.
struct WorkloadRun {
  uint64_t cycles = 0;  // the accelerator's (a network's CPU nodes are host work, not counted)
  int64_t macs = 0;     // useful MACs on the accelerator
  double utilization = 0;
  cost::Energy energy;
  std::vector<LayerResult> layers;
};

/// Compiles and runs `w` on the cycle model of `layout` and `platform`, priced by `table`.
/// UserError when a layer cannot be scheduled on the configuration or a run fails.
WorkloadRun run_workload(const Workload& w, const isa::Layout& layout,
                         const isa::Platform& platform, const cost::EnergyTable& table);

}  // namespace weft::rt::dse
