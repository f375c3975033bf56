// Shared dense options; see dense_options.h.
#include "runtime/cli/dense_options.h"

#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/io/files.h"
#include "runtime/tune/accel_tasks.h"

namespace weft::cli {

void DenseOptions::add_to(CLI::App& cmd) {
  this->cmd = &cmd;
  cmd.add_option("--M", m, "rows of the input and of the output")->required();
  cmd.add_option("--N", n, "rows of the weight: columns of the output")->required();
  cmd.add_option("--K", k, "the reduction: columns of the input and of the weight")->required();
  cmd.add_option("--config", config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd.add_option("--platform", platform, "memory platform (sim, pynq, zcu104)")
      ->capture_default_str();
  cmd.add_option("--tune-db", tune_db,
                 "tuning records (weft tune --db) whose best knobs to use; by default the "
                 "shipped records are used when they have the shape");
  cmd.add_flag("--no-records", no_records, "ignore the tuning records (use the chooser)");
  vthreads_opt = cmd.add_option("--vthreads", vthreads,
                 "virtual threads: output tiles dealt to threads whose loads, compute and "
                 "stores overlap (1 = no latency hiding)")
      ->capture_default_str();
  cmd.add_option("--vthread-axis", vthread_axis, "deal tiles along m or n (default: chosen)");
  cmd.add_option("--tile-m", tile_m, "output tile rows, in blocks (default: chosen)");
  cmd.add_option("--tile-n", tile_n, "output tile columns, in blocks (default: chosen)");
  cmd.add_option("--tile-k", tile_k, "reduction step, in blocks (default: chosen)");
  cmd.add_option("--shift", shift, "epilogue: arithmetic shift right of the int32 sums")
      ->capture_default_str();
  cmd.add_flag("--relu", relu, "epilogue: clip to [0, 127] instead of [-128, 127]");
}

void DenseOptions::check() const {
  if (cmd) {
    check_at_least(*cmd, "--tile-m", tile_m, 1);
    check_at_least(*cmd, "--tile-n", tile_n, 1);
    check_at_least(*cmd, "--tile-k", tile_k, 1);
  } else {
    // Set by a program (the Python package), not a command line: 0 is "chosen".
    for (const auto& [name, v] : {std::pair<const char*, int64_t>{"--tile-m", tile_m},
                                  {"--tile-n", tile_n}, {"--tile-k", tile_k}}) {
      if (v < 0) throw UserError(std::string(name) + " " + std::to_string(v) + " is out of range (at least 1)");
    }
  }
  if (!tune_db.empty()) rt::check_input_file(tune_db, "--tune-db");
}

compiler::ops::DenseKnobs DenseOptions::knobs(const isa::Layout& layout) const {
  check();
  if (!vthread_axis.empty() && vthread_axis != "m" && vthread_axis != "n") {
    throw UserError("--vthread-axis must be m or n, not '" + vthread_axis + "'");
  }
  if (vthreads < 1 || vthreads > 64) {
    throw UserError("--vthreads " + std::to_string(vthreads) + " is out of range (1 to 64)");
  }
  const bool all_default = !tile_m && !tile_n && !tile_k && vthread_axis.empty() &&
                           (!vthreads_opt || vthreads_opt->count() == 0);
  if (!no_records && all_default) {
    if (auto r = rt::tune::recorded_dense_knobs(layout.config.name, platform, shape(), tune_db)) {
      try {
        compiler::ops::check_dense_knobs(layout, shape(), *r);
        std::cerr << "weft: knobs from the tuning records: " << r->describe() << "\n";
        return *r;
      } catch (const UserError& e) {
        std::cerr << "weft: the tuning records' knobs do not fit (" << e.what()
                  << "); using the chooser\n";
      }
    }
  }
  compiler::ops::DenseKnobs k =
      compiler::ops::choose_dense_knobs(layout, isa::find_platform(platform), shape(), vthreads);
  if (tile_m) k.tile_m = tile_m;
  if (tile_n) k.tile_n = tile_n;
  if (tile_k) k.tile_k = tile_k;
  if (!vthread_axis.empty()) k.vthread_axis = vthread_axis[0];
  compiler::ops::check_dense_knobs(layout, shape(), k);
  return k;
}

nlohmann::ordered_json knobs_json(const compiler::ops::DenseKnobs& k) {
  return {{"tile_m", k.tile_m},
          {"tile_n", k.tile_n},
          {"tile_k", k.tile_k},
          {"vthreads", k.vthreads},
          {"vthread_axis", std::string(1, k.vthread_axis)}};
}

}  // namespace weft::cli
