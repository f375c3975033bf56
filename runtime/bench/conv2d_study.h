// Running conv2d layers for a study: ResNet-18's layers, choosing knobs by searching with the
// cycle model (runtime/tune/knob_search.h, with a cache of the choices), running a layer on an
// engine with a correctness check (runtime/ops/conv2d.h: run_layer), and the layer's roofline
// on a platform. `weft bench resnet18` and `weft run conv2d` are built on it.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "driver/timeline.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "runtime/ops/conv2d.h"
#include "runtime/tune/knob_search.h"

namespace weft::rt {

/// A named layer (batch 1; the study sets the batch per configuration).
struct LayerSpec {
  std::string name;
  compiler::ops::Conv2dShape shape;
};

/// ResNet-18's convolution layers C1-C12 (He et al. 2016, as in the VTA paper's study).
const std::vector<LayerSpec>& resnet18_layers();

/// The roofline of a layer on a platform: GEMM cycles of the channel-padded layer against the
/// cycles its compulsory DRAM traffic (each packed tensor moved once) takes on the bus.
struct Roofline {
  double compute_cycles = 0, dram_bytes = 0, memory_cycles = 0, bound_cycles = 0;
  double bound_utilization = 0;  // compute / bound
  double intensity = 0;          // useful ops per compulsory byte
  double peak_gops = 0, bandwidth_gbs = 0;
  nlohmann::ordered_json to_json() const;
};
Roofline conv2d_roofline(const isa::Layout& l, const isa::Platform& p,
                         const compiler::ops::Conv2dShape& s);

/// Chooses knobs for `vthreads` threads: the cached choice, else the best of the analytic
/// chooser's first `candidates` measured by measure_knobs (then cached). `note` hears about
/// each candidate tried.
KnobSearch search_knobs(const isa::Layout& l, const isa::Platform& p,
                        const compiler::ops::Conv2dShape& s, int64_t vthreads, size_t candidates,
                        KnobCache* cache, const std::function<void(const std::string&)>& note = {});

/// An SVG roofline: the platform's roof and each layer with and without latency hiding.
struct RooflinePoint {
  std::string name;
  double intensity, gops_hidden, gops_serial;
};
std::string roofline_svg(const Roofline& platform_roof, const std::vector<RooflinePoint>& points,
                         const std::string& title);

}  // namespace weft::rt
