// `weft run OP`: compile an operator for the accelerator, run it on an engine through the
// driver with random int8 data, check it against the CPU reference, and print JSON with the
// result, the cycles, the utilization next to the platform's roofline and the stall
// breakdown. --save writes the plain row-major arrays as .npy files.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>

#include "driver/device.h"
#include "driver/timeline.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/dense_estimate.h"
#include "runtime/cli/dense_options.h"
#include "runtime/cli/dense_run.h"
#include "runtime/cli/device_run.h"
#include "runtime/cli/op_target.h"
#include "runtime/io/files.h"
#include "runtime/io/npy.h"
#include "runtime/ops/dense.h"

namespace weft::cli {

namespace {

std::vector<int8_t> random_int8(int64_t n, std::mt19937& rng) {
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(rng());
  return v;
}

void add_run_dense(CLI::App& run) {
  struct Opts {
    DenseOptions d;
    TargetOptions cpu;
    DeviceRunOptions dev;
    bool dry_run = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = run.add_subcommand(
      "dense",
      "int8 dense on the accelerator: out = clip((A . W^T) >> shift) as int8, A M x K,\n"
      "W N x K, random data from --seed. Prints JSON: correct (against a CPU reference),\n"
      "cycles, utilization (non-reset GEMM micro-ops per cycle) next to the platform's\n"
      "roofline bound, and per-module busy/stall cycles. Exit code 1 when the result is wrong.\n"
      "A big dense first shows on stderr what it implies (MACs, instructions, memory, and the\n"
      "compile, engine and check times measured on a sample), then its progress; Ctrl-C stops\n"
      "it (exit code 130, nothing written). --dry-run prints that estimate as JSON and stops.\n"
      "--target llvm runs it on the host CPU instead (see docs/cpu-backend.md), --target cuda\n"
      "on an NVIDIA GPU (docs/gpu-backend.md).");
  o->d.add_to(*cmd);
  o->cpu.add_to(*cmd, true);
  o->dev.add_to(*cmd,
                "write input.npy (M x K), weight.npy (N x K) and output.npy (M x N), int8 "
                "row-major, into this directory");
  cmd->add_flag("--dry-run", o->dry_run,
                "print what the run implies (MACs, instructions, memory, times measured on a "
                "sample of it) as JSON, and run nothing");
  cmd->callback([o, cmd] {
    // Everything the command line says is checked before any work.
    check_target_options(*cmd, o->cpu.target);
    o->d.check();
    if (o->cpu.target != "accel" && !o->dev.save.empty()) rt::check_output_dir(o->dev.save, "--save");
    if (o->cpu.is_llvm_or_cuda()) {
      return run_dense_on_target(o->cpu.with_records(o->d.tune_db, o->d.no_records), o->d.m,
                                 o->d.n, o->d.k, o->dev.seed, o->dev.save);
    }
    const isa::Layout& layout = isa::layout_for(o->d.config);
    const isa::Platform& platform = isa::find_platform(o->d.platform);
    o->dev.check();
    const compiler::ops::DenseKnobs knobs = o->d.knobs(layout);
    // A big dense says what it implies before anything is allocated, and refuses what cannot
    // fit in this machine's memory.
    const bool big = dense_is_big(layout, o->d.shape(), knobs);
    if (o->dry_run || big) {
      const DenseEstimate est = estimate_dense(layout, platform, o->dev.engine, o->d.shape(),
                                               knobs, o->d.epilogue());
      if (o->dry_run) {
        nlohmann::ordered_json j;
        j["op"] = "dense";
        j["shape"] = {{"M", o->d.m}, {"N", o->d.n}, {"K", o->d.k}};
        j["config"] = layout.config.name;
        j["platform"] = platform.name;
        j["knobs"] = knobs_json(knobs);
        j["estimate"] = est.to_json();
        std::cout << j.dump(2) << "\n";
        return;
      }
      if (!est.fits_in_memory()) {
        throw UserError("this dense needs about " + std::to_string(int64_t(est.host_bytes / 1e9)) +
                        " GB of memory (the DRAM image and the host's arrays), but this machine "
                        "has " + std::to_string(int64_t(est.host_memory_bytes / 1e9)) +
                        " GB; see --dry-run for the whole estimate");
      }
      std::cerr << "weft run dense: " << est.summary()
                << ". Progress follows on stderr; Ctrl-C stops it.\n";
    }
    auto phase = [big](const std::string& what) {
      if (big) std::cerr << "weft run dense: " << what << "\n";
    };
    std::mt19937 rng(o->dev.seed);
    const auto s = o->d.shape();
    const auto a = random_int8(s.m * s.k, rng), w = random_int8(s.n * s.k, rng);
    DenseRun r = run_dense_accel(o->d, o->dev, knobs, a, w, phase);
    nlohmann::ordered_json& j = r.report;
    const std::vector<int8_t>& out = r.out;
    driver::Timeline& trace = r.trace;

    rt::OutputSet outputs;
    if (!o->dev.save.empty()) {
      const std::filesystem::path dir = save_dir(o->dev.save);
      outputs.add((dir / "input.npy").string(), rt::encode_npy(rt::npy_int8({s.m, s.k}, a)));
      outputs.add((dir / "weight.npy").string(), rt::encode_npy(rt::npy_int8({s.n, s.k}, w)));
      outputs.add((dir / "output.npy").string(), rt::encode_npy(rt::npy_int8({s.m, s.n}, out)));
      j["saved"] = o->dev.save;
    }
    if (!o->dev.trace.empty()) outputs.add_text(o->dev.trace, trace.to_json().dump() + "\n");
    outputs.commit();
    std::cout << j.dump(2) << "\n";
    check_dense_run(r, s.n);
  });
}

}  // namespace

void add_run_command(CLI::App& app) {
  CLI::App* run = app.add_subcommand(
      "run", "Compile an operator for the accelerator, run it and check it against the CPU;\n"
             "or run a whole ONNX network: weft run MODEL.onnx --input X.npy [--target llvm].");
  run->require_subcommand(0, 1);
  add_run_dense(*run);
  add_run_conv2d(*run);
  add_run_resnet18(*run);
  add_run_model(*run);
}

}  // namespace weft::cli
