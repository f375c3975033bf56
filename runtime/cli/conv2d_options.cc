// Shared conv2d options; see conv2d_options.h.
#include "runtime/cli/conv2d_options.h"

#include <algorithm>
#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/io/files.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/tune/accel_tasks.h"

namespace weft::cli {

compiler::ops::Conv2dShape conv2d_shape(const std::string& layer, int64_t n, int64_t h, int64_t w,
                                        int64_t ic, int64_t oc, int64_t k, int64_t stride,
                                        int64_t pad) {
  if (!layer.empty()) {
    const auto& all = rt::resnet18_layers();
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& x) { return x.name == layer; });
    if (it == all.end()) throw UserError("--layer: no ResNet-18 layer '" + layer + "' (C1 to C12)");
    compiler::ops::Conv2dShape s = it->shape;
    s.n = n;
    return s;
  }
  if (h == 0 || w == 0 || ic == 0 || oc == 0 || k == 0) {
    throw UserError("conv2d needs --layer, or all of --H --W --IC --OC --K");
  }
  return {n, h, w, ic, oc, k, stride, pad};
}

void Conv2dOptions::add_to(CLI::App& cmd) {
  this->cmd = &cmd;
  cmd.add_option("--layer", layer, "a ResNet-18 layer, C1..C12 (instead of the shape)");
  cmd.add_option("--N,--batch", n, "batch")->capture_default_str();
  cmd.add_option("--H", h, "input height");
  cmd.add_option("--W", w, "input width");
  cmd.add_option("--IC,--C", ic, "input channels");
  cmd.add_option("--OC,--O", oc, "output channels");
  cmd.add_option("--K,--kernel", k, "kernel height and width");
  cmd.add_option("--stride", stride, "stride")->capture_default_str();
  cmd.add_option("--pad", pad, "zero padding on each side")->capture_default_str();
  cmd.add_option("--config", config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd.add_option("--platform", platform, "memory platform (sim, pynq, zcu104)")
      ->capture_default_str();
  vthreads_opt = cmd.add_option("--vthreads", vthreads, "virtual threads (1 = no latency hiding)")
      ->capture_default_str();
  cmd.add_option("--tune-db", tune_db,
                 "tuning records (weft tune --db) whose best knobs to use; by default the "
                 "shipped records are used when they have the shape");
  cmd.add_flag("--no-records", no_records, "ignore the tuning records (use the chooser)");
  cmd.add_option("--vthread-axis", vthread_axis, "o (output channels) or h (output rows)");
  cmd.add_option("--tile-h", tile_h, "output rows per tile (default: chosen)");
  cmd.add_option("--tile-w", tile_w, "output columns per tile (default: chosen)");
  cmd.add_option("--tile-ic", tile_ic, "input channel blocks per step (default: chosen)");
  cmd.add_option("--tile-oc", tile_oc, "output channel blocks per tile (default: chosen)");
  cmd.add_option("--search", search,
                 "try this many knob candidates on the cycle model and keep the fastest")
      ->capture_default_str();
  cmd.add_option("--shift", shift, "epilogue shift")->capture_default_str();
  cmd.add_flag("--no-bias", no_bias, "epilogue without the bias");
  cmd.add_flag("--no-relu", no_relu, "clip to [-128, 127] instead of [0, 127]");
}

void Conv2dOptions::check() const {
  if (cmd) {
    if (!layer.empty()) {
      forbid(*cmd, {"--H", "--W", "--IC", "--OC", "--K", "--stride", "--pad"},
             "with a shape of your own, not with --layer " + layer + " (the layer fixes the "
             "shape; --N sets its batch)");
    }
    check_at_least(*cmd, "--tile-h", tile_h, 1);
    check_at_least(*cmd, "--tile-w", tile_w, 1);
    check_at_least(*cmd, "--tile-ic", tile_ic, 1);
    check_at_least(*cmd, "--tile-oc", tile_oc, 1);
  } else {
    // Set by a program (the Python package), not a command line: 0 is "chosen".
    for (const auto& [name, v] : {std::pair<const char*, int64_t>{"--tile-h", tile_h},
                                  {"--tile-w", tile_w}, {"--tile-ic", tile_ic},
                                  {"--tile-oc", tile_oc}}) {
      if (v < 0) throw UserError(std::string(name) + " " + std::to_string(v) + " is out of range (at least 1)");
    }
  }
  if (!tune_db.empty()) rt::check_input_file(tune_db, "--tune-db");
}

compiler::ops::Conv2dShape Conv2dOptions::shape() const {
  check();
  return conv2d_shape(layer, n, h, w, ic, oc, k, stride, pad);
}

compiler::ops::Conv2dKnobs Conv2dOptions::knobs(const isa::Layout& layout,
                                                const isa::Platform& platform,
                                                rt::KnobSearch* searched) const {
  const compiler::ops::Conv2dShape s = shape();
  compiler::ops::check_conv2d_shape(s);
  if (!vthread_axis.empty() && vthread_axis != "o" && vthread_axis != "h") {
    throw UserError("--vthread-axis must be o or h, not '" + vthread_axis + "'");
  }
  if (vthreads < 1 || vthreads > 64) {
    throw UserError("--vthreads " + std::to_string(vthreads) + " is out of range (1 to 64)");
  }
  compiler::ops::Conv2dKnobs k;
  const bool all_default = !tile_h && !tile_w && !tile_ic && !tile_oc && vthread_axis.empty() &&
                           (!vthreads_opt || vthreads_opt->count() == 0);
  if (!no_records && search <= 1 && all_default) {
    if (auto r = rt::tune::recorded_conv2d_knobs(layout.config.name, platform.name, s, tune_db)) {
      try {
        compiler::ops::check_conv2d_knobs(layout, s, *r);
        std::cerr << "weft: knobs from the tuning records: " << r->describe() << "\n";
        knobs_source = "records";
        return *r;
      } catch (const UserError& e) {
        std::cerr << "weft: the tuning records' knobs do not fit (" << e.what()
                  << "); using the chooser\n";
      }
    }
  }
  knobs_source = search > 1 ? "search" : "chooser";
  if (search > 1) {
    std::cerr << "weft: searching " << search << " knob candidates on the cycle model\n";
    const rt::KnobSearch found = rt::search_knobs(
        layout, platform, s, vthreads, search, nullptr,
        [](const std::string& m) { std::cerr << "weft: search: " << m << "\n"; });
    if (!found.rejected.empty()) {
      std::cerr << "weft: search: " << found.rejected.size() << " of " << found.candidates
                << " candidates rejected (see \"search\" in the JSON)\n";
    }
    k = found.best;
    if (searched) *searched = found;
  } else {
    k = compiler::ops::conv2d_candidates(layout, platform, s, vthreads, 1)[0];
  }
  if (tile_h) k.tile_h = tile_h;
  if (tile_w) k.tile_w = tile_w;
  if (tile_ic) k.tile_ic = tile_ic;
  if (tile_oc) k.tile_oc = tile_oc;
  if (!vthread_axis.empty()) k.vthread_axis = vthread_axis[0];
  return k;
}

}  // namespace weft::cli
