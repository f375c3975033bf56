// `weft run MODEL.onnx --input X.npy [--target accel|llvm] ...`: a whole ONNX network. The
// model is the `run` verb's positional argument (any name that is not one of its operator
// subcommands). --target llvm imports it and runs it in float32 on the LLVM CPU backend
// (runtime/graph/onnx_run.h); --target accel quantizes and compiles it for the accelerator.
#include <iostream>
#include <memory>

#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/device_run.h"
#include "runtime/cli/progress.h"
#include "runtime/graph/program_cache.h"
#include "runtime/io/files.h"
#if defined(WEFT_HAVE_ONNX_RUN)
#include "compiler/graph/quant_error.h"
#include "runtime/graph/onnx_run.h"
#endif

namespace weft::cli {

namespace {

struct ModelRunOptions {
  std::string model, input, target = "accel", calibrate, save, trace, config, platform = "sim";
  NetworkDeviceOptions dev;
  int threads = 1;
  int64_t batch = 0;
  bool check = false, per_channel = false, no_records = false, compare_fp32 = false;
  std::string tune_db;
  std::string program_cache = rt::graph::default_program_cache_dir();
};

// Before any work: the files read and written, and the options the target would ignore.
void check_model_run(const ModelRunOptions& o, const CLI::App& run) {
  if (o.target != "accel" && o.target != "llvm")
    throw UserError("--target must be accel or llvm, not '" + o.target + "'");
  rt::check_input_file(o.model, "the model");
  if (o.input.empty()) throw UserError("weft run " + o.model + " needs --input X.npy");
  rt::check_input_file(o.input, "--input");
  if (o.target == "llvm") {
    if (!o.calibrate.empty())
      throw UserError("--calibrate goes with --target accel (the llvm target runs in float32)");
    forbid(run, {"--engine", "--config", "--platform", "--per-channel", "--tune-db", "--no-records",
                 "--compare-fp32", "--program-cache",
                 "--inject-fault", "--timeout", "--xclbin", "--device", "--xrt-emulate",
                 "--xrt-bank", "--energy"},
           "with --target accel (--target llvm runs the float32 network on the host CPU)");
  } else {
    if (!o.check) forbid(run, {"--threads"}, "with --target llvm, or with --check (its fp32 run)");
    if (o.no_records) forbid(run, {"--tune-db"}, "with the tuning records, not --no-records");
    o.dev.check();
    if (!o.calibrate.empty()) rt::check_input_file(o.calibrate, "--calibrate");
    if (!o.tune_db.empty()) rt::check_input_file(o.tune_db, "--tune-db");
  }
  if (!o.save.empty()) rt::check_output_dir(o.save, "--save");
  if (!o.trace.empty()) rt::check_output_file(o.trace, "--trace");
}

void run_model(const ModelRunOptions& o) {
#if defined(WEFT_HAVE_ONNX_RUN)
  Phases phase("weft run " + o.model, false);
  rt::graph::OnnxRunRequest r;
  r.model = o.model;
  r.input = o.input;
  r.save = o.save;
  r.trace = o.trace;
  r.threads = o.threads;
  r.batch = o.batch;
  r.check = o.check;
  r.phase = [&phase](const std::string& p) { phase(p); };
  rt::OutputSet outputs;
  nlohmann::ordered_json j;
  if (o.target == "llvm") {
    j = rt::graph::run_onnx_llvm(r, outputs);
  } else {
    r.engine = o.dev.engine;
    if (!o.config.empty()) r.config = o.config;
    r.platform = o.platform;
    r.calibrate = o.calibrate;
    r.per_channel = o.per_channel;
    r.compare_fp32 = o.compare_fp32;
    r.tune_db = o.tune_db;
    r.no_records = o.no_records;
    r.program_cache = o.program_cache == "off" ? std::string() : o.program_cache;
    driver::FaultPlan faults;
    r.device = o.dev.device_options(faults);
    r.timeout = o.dev.timeout();
    r.energy = o.dev.energy;
    j = rt::graph::run_onnx_accel(r, outputs);
  }
  phase.done();
  outputs.commit();
  std::cout << j.dump(2) << "\n";
  // The table for a reader; stdout stays one JSON document.
  if (j.contains("fp32_compare"))
    std::cerr << compiler::graph::quant_error_table(j["fp32_compare"]);
#else
  (void)o;
  throw UserError("this weft was built without ONNX import (install libonnx-dev and "
                  "libprotobuf-dev, and the CPU backend's LLVM 16, then reconfigure)");
#endif
}

}  // namespace

void add_run_model(CLI::App& run) {
  auto o = std::make_shared<ModelRunOptions>();
  run.add_option("model", o->model,
                 "an ONNX model to run (MODEL.onnx; opsets 11-18, see docs/onnx.md)");
  run.add_option("--input", o->input, "the model's input as .npy (float32, NCHW)");
  run.add_option("--batch", o->batch,
                 "for a model whose batch dimension is symbolic: the batch to compile for (the "
                 "input's first dimension)");
  run.add_option("--target", o->target,
                 "accel: quantize to int8 and run on the accelerator engine; llvm: float32 on "
                 "the host CPU through the LLVM backend")
      ->capture_default_str();
  o->dev.add_to(run, "with --target accel: functional, cycle, rtl, or xrt (--xrt-emulate "
                     "rtl|cycle, or a board)");
  run.add_option("--config", o->config,
                 "with --target accel: the hardware configuration (default gemm8x8)");
  run.add_option("--platform", o->platform, "with --target accel: the memory platform")
      ->capture_default_str();
  run.add_flag("--per-channel", o->per_channel,
               "with --target accel: quantize weights per output channel (else per tensor)");
  run.add_option("--calibrate", o->calibrate,
                 "with --target accel: calibration inputs (.npy, a batch of the input's shape "
                 "stacked on a leading axis)");
  run.add_option("--tune-db", o->tune_db,
                 "with --target accel: tuning records (.jsonl) consulted first for each conv "
                 "layer's schedule, before the shipped records");
  run.add_flag("--no-records", o->no_records,
               "with --target accel: ignore the tuning records (the executor's own choice)");
  run.add_option("--program-cache", o->program_cache,
                 "with --target accel: the folder of compiled accelerator programs kept across "
                 "runs (one file per layer program; docs/networks.md, Compile time), or off")
      ->capture_default_str();
  run.add_option("--save", o->save,
                 "write DIR/output.npy (the first output, float32) and DIR/report.json");
  run.add_option("--trace", o->trace, "write the run's timeline (Chrome trace JSON, Perfetto)");
  run.add_option("--threads", o->threads, "with --target llvm: CPU threads")->capture_default_str();
  run.add_flag("--check", o->check,
               "--target llvm: also run the float64 reference interpreter and report the "
               "largest relative difference; --target accel: compare with the fp32 network on "
               "the LLVM path (cosine similarity, top-1 agreement)");
  run.add_flag("--compare-fp32", o->compare_fp32,
               "with --target accel: find where int8 loses accuracy. Runs the int8 graph (on the "
               "int8 reference, bit for bit the engines' result) and the fp32 network on the "
               "input and compares every value they share, in order: cosine and relative error "
               "of the int8 value against the fp32 one, the cosine each node lost (drop), and "
               "what its scale alone costs (share clipped, grid cosine). A table on stderr, "
               "\"fp32_compare\" in the JSON report; see docs/networks.md");
  run.callback([&run, o] {
    if (!run.get_subcommands().empty()) return;  // an operator subcommand ran
    if (o->model.empty())
      throw CLI::RequiredError("a subcommand (dense, conv2d) or MODEL.onnx");
    check_model_run(*o, run);
    run_model(*o);
  });
}

}  // namespace weft::cli
