// `weft run resnet18` and `weft compile resnet18`: the built-in ResNet-18 (synthetic weights)
// through the graph pipeline (compiler/graph/pipeline.h) and the network executor
// (runtime/graph/executor.h). run prints the per-node report (or JSON) and can write the
// Perfetto timeline; compile prints the graph after every pass (or one), the executor's
// static step list, or one accelerator node's kernel as the executor runs it.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstring>
#include <iostream>

#include "compiler/graph/dump.h"
#include "compiler/graph/interpret.h"
#include "compiler/graph/models/resnet.h"
#include "compiler/graph/pipeline.h"
#include "compiler/graph/reference_int8.h"
#include "hardware/cost/energy_table.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/device_run.h"
#include "runtime/cli/progress.h"
#include "runtime/graph/executor.h"
#include "runtime/graph/node_emit.h"
#include "runtime/io/files.h"
#include "runtime/io/npy.h"

namespace weft::cli {

namespace {

namespace cg = compiler::graph;

struct NetOptions {
  std::string config = "vta", platform = "sim";
  cg::models::ResNetOptions net;
  bool per_channel = false;
  std::string calibration = "1";  // synthetic samples, or a .npy of calibration inputs
  size_t tune = 6;
  std::string knob_cache = rt::graph::default_graph_knob_cache();
  std::string tune_db;
  bool no_records = false;

  void add_to(CLI::App& cmd) {
    cmd.add_option("--config", config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")->capture_default_str();
    cmd.add_option("--platform", platform, "memory system / clock of the cycle model")->capture_default_str();
    cmd.add_option("--batch", net.batch, "batch size (1 to 256)")->capture_default_str();
    cmd.add_option("--image", net.image, "image height and width (multiple of 32)")->capture_default_str();
    cmd.add_option("--width", net.width, "channels of the first stage (64 for ResNet-18)")->capture_default_str();
    cmd.add_option("--stages", net.stages, "stages of two basic blocks (1 to 4)")->capture_default_str();
    cmd.add_option("--classes", net.classes, "classes of the fc layer")->capture_default_str();
    cmd.add_flag("--per-channel", per_channel,
                 "quantize weights per output channel (one requantization shift per channel: "
                 "the accelerator's epilogue applies them with a register SHR from a shift tile)");
    cmd.add_option("--calibrate", calibration,
                   "calibration inputs: a number of synthetic samples, or C.npy (float32 of the "
                   "network's input shape, or S of them stacked on a leading axis)")
        ->capture_default_str();
    cmd.add_option("--tune", tune,
                   "exact tilings measured on the cycle model per layer shape (1: the analytic "
                   "choice, nothing measured)")->capture_default_str();
    cmd.add_option("--knob-cache", knob_cache,
                   "file remembering the measured choices (\"\" for none)")->capture_default_str();
    cmd.add_option("--tune-db", tune_db,
                   "tuning records (.jsonl, `weft tune`) consulted first for each conv layer's "
                   "schedule, before the shipped records");
    cmd.add_flag("--no-records", no_records,
                 "ignore the tuning records (the executor's own choice, see --tune)");
  }
  // Before any work: the files it reads, and the options that contradict or go unused.
  void check(const CLI::App& cmd) const {
    if (!tune_db.empty()) rt::check_input_file(tune_db, "--tune-db");
    if (no_records) forbid(cmd, {"--tune-db"}, "with the tuning records, not with --no-records");
    if (tune <= 1 && !knob_cache.empty())
      forbid(cmd, {"--knob-cache"}, "with --tune N above 1 (nothing is measured, so nothing is "
                                    "remembered)");
    if (cmd.count("--knob-cache") && !knob_cache.empty())
      rt::check_output_file(knob_cache, "--knob-cache");
    if (!calibration_is_count()) rt::check_input_file(calibration, "--calibrate");
  }
  bool calibration_is_count() const {
    return !calibration.empty() && calibration.size() < 7 &&
           calibration.find_first_not_of("0123456789") == std::string::npos;
  }
  rt::graph::ExecutorOptions executor_options() const {
    rt::graph::ExecutorOptions e;
    e.tune_candidates = tune;
    e.knob_cache = knob_cache;
    e.use_records = !no_records;
    e.tune_db = tune_db;
    return e;
  }
  // `g`: the network (its input shape is what a calibration file must hold).
  cg::GraphCompileOptions compile_options(const cg::Graph& g) const {
    cg::GraphCompileOptions o;
    o.quantize.per_channel = per_channel;
    if (calibration_is_count()) {
      o.quantize.synthetic_samples = std::stoi(calibration);
      if (o.quantize.synthetic_samples < 1)
        throw UserError("--calibrate " + calibration + ": give at least one sample");
    } else {
      o.quantize.calibration = read_calibration(g);
    }
    return o;
  }
  // --calibrate C.npy: float32, the input's shape [B, C, H, W] or [S, B, C, H, W].
  std::vector<std::vector<std::vector<float>>> read_calibration(const cg::Graph& g) const {
    const std::vector<int64_t>& in = g.value(g.inputs().at(0)).type.shape;
    const rt::NpyArray a = rt::decode_npy(rt::read_file(calibration), "--calibrate '" + calibration + "'");
    const bool one = a.shape == in;
    const bool many = a.shape.size() == in.size() + 1 &&
                      std::equal(in.begin(), in.end(), a.shape.begin() + 1);
    if (a.type != rt::NpyType::kFloat32 || !(one || many))
      throw UserError("--calibrate '" + calibration + "' must be float32 of the network's input "
                      "shape " + cg::shape_str(in) + " or [S," + cg::shape_str(in).substr(1) +
                      ", not " + (a.type == rt::NpyType::kFloat32 ? "float32 " : "another dtype ") +
                      cg::shape_str(a.shape));
    int64_t per = 1;
    for (int64_t d : in) per *= d;
    const int64_t samples = one ? 1 : a.shape[0];
    if (samples < 1) throw UserError("--calibrate '" + calibration + "' holds no samples");
    std::vector<std::vector<std::vector<float>>> out;
    for (int64_t s = 0; s < samples; ++s) {
      std::vector<float> x(static_cast<size_t>(per));
      std::memcpy(x.data(), a.data.data() + s * per * 4, static_cast<size_t>(per) * 4);
      for (size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i]))
          throw UserError("--calibrate '" + calibration + "' holds a non-finite value (sample " +
                          std::to_string(s) + ", element " + std::to_string(i) + ")");
      out.push_back({std::move(x)});
    }
    return out;
  }
};

}  // namespace

void add_run_resnet18(CLI::App& run) {
  struct Opts {
    NetOptions net;
    NetworkDeviceOptions dev;
    std::string trace, save;
    bool json = false, check = false, listing = false, progress = false;
    uint32_t seed = 1;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = run.add_subcommand(
      "resnet18",
      "The built-in ResNet-18 (deterministic synthetic weights, no download) end to end:\n"
      "batch norms folded, quantized to int8 with power-of-two scales, every conv and the fc\n"
      "fused with bias, residual add and ReLU into one accelerator kernel, run on --engine\n"
      "(functional, cycle, rtl, xrt) with pooling on the CPU. Prints the per-node report (engine,\n"
      "cycles or host time, utilization, share of the total); --json prints it as JSON.\n"
      "--check also runs the int8 reference interpreter (must match bit for bit) and the fp32\n"
      "network (cosine similarity, top-1 agreement). A run that takes more than a second shows\n"
      "its phases on stderr. See docs/graph.md.");
  o->net.add_to(*cmd);
  o->dev.add_to(*cmd, "functional, cycle, rtl, or xrt (--xrt-emulate rtl|cycle, or a board)");
  cmd->add_option("--seed", o->seed, "seed of the synthetic input")->capture_default_str();
  cmd->add_flag("--json", o->json, "print the report as JSON");
  cmd->add_flag("--check", o->check, "compare with the int8 reference and the fp32 network");
  cmd->add_flag("--listing", o->listing, "print the executor's static step list first");
  cmd->add_option("--trace", o->trace, "write the network's timeline (Perfetto / Chrome JSON)");
  cmd->add_option("--save", o->save, "write output.npy (float32 logits) and report.json here");
  cmd->add_flag("--progress", o->progress, "show every phase on stderr from the start");
  cmd->callback([o, cmd] {
    // Everything the command line says is checked before any work.
    o->dev.check();
    o->net.check(*cmd);
    if (!o->trace.empty()) rt::check_output_file(o->trace, "--trace");
    if (!o->save.empty()) rt::check_output_dir(o->save, "--save");
    const isa::Layout& layout = isa::layout_for(o->net.config);
    const isa::Platform& pf = isa::find_platform(o->net.platform);
    Phases phase("weft run resnet18", o->progress);
    phase("compiling the network (graph passes)");
    cg::Graph g = cg::models::resnet18(o->net.net);
    const auto tc = std::chrono::steady_clock::now();
    cg::CompiledGraph c = cg::compile_graph(g, layout, pf, o->net.compile_options(g));
    phase("compiling its accelerator kernels");
    rt::graph::GraphExecutor exe(c, layout, pf, o->net.executor_options());
    const double compile_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - tc).count();
    if (o->listing) std::cout << exe.listing();
    auto x = cg::models::synthetic_input(g.value(g.inputs()[0]).type, o->seed);
    driver::FaultPlan faults;
    auto dev = rt::graph::open_graph_device(o->dev.engine, exe, layout, pf,
                                            o->dev.device_options(faults));
    phase("running the network on the " + o->dev.engine + " engine");
    rt::graph::RunResult r = exe.run(*dev, {x}, o->dev.timeout());
    rt::graph::add_energy(r.report, cost::energy_table_for(o->dev.energy), layout, pf);
    auto j = r.report.to_json();
    j["compile_seconds"] = compile_s;
    j["kernel_compile_seconds"] = exe.kernel_compile_seconds();
    for (const auto& [p, sec] : c.pass_seconds) j["pass_seconds"][p] = sec;
    const auto& logits = r.outputs[0];
    const int64_t classes = o->net.net.classes;
    std::vector<int64_t> top1;
    for (int64_t b = 0; b < o->net.net.batch; ++b)
      top1.push_back(std::max_element(logits.begin() + b * classes, logits.begin() + (b + 1) * classes) -
                     (logits.begin() + b * classes));
    j["top1"] = top1;
    bool ok = true;
    if (o->check) {
      phase("checking: the int8 reference interpreter");
      const auto want = cg::reference_int8(c.graph, {x})[0];
      const bool exact = want == logits;
      ok = exact;
      phase("checking: the fp32 network");
      const auto f = cg::interpret<float>(g, {x})[0];
      double ab = 0, aa = 0, bb = 0;
      int agree = 0;
      for (size_t i = 0; i < f.size(); ++i) {
        ab += double(f[i]) * logits[i];
        aa += double(f[i]) * f[i];
        bb += double(logits[i]) * logits[i];
      }
      for (int64_t b = 0; b < o->net.net.batch; ++b)
        agree += std::max_element(f.begin() + b * classes, f.begin() + (b + 1) * classes) -
                     (f.begin() + b * classes) == top1[b];
      j["check"] = {{"bit_exact_with_int8_reference", exact},
                    {"cosine_vs_fp32", ab / std::sqrt(aa * bb)},
                    {"top1_agreement_vs_fp32", double(agree) / double(o->net.net.batch)}};
    }
    phase.done();
    if (!ok) {
      std::cout << j.dump(2) << "\n";
      throw UserError("run resnet18: the result differs from the int8 reference interpreter "
                      "(nothing written)");
    }
    // All outputs or none (runtime/io/files.h).
    rt::OutputSet outputs;
    if (!o->trace.empty()) outputs.add_text(o->trace, r.report.timeline().dump() + "\n");
    if (!o->save.empty()) {
      const std::filesystem::path dir = save_dir(o->save);
      rt::NpyArray a;
      a.type = rt::NpyType::kFloat32;
      a.shape = {o->net.net.batch, classes};
      a.data.resize(logits.size() * 4);
      std::memcpy(a.data.data(), logits.data(), a.data.size());
      outputs.add((dir / "output.npy").string(), rt::encode_npy(a));
      outputs.add_text((dir / "report.json").string(), j.dump(2) + "\n");
    }
    outputs.commit();
    if (o->json) {
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << r.report.table();
      std::cout << "compile " << compile_s << " s; top-1 class of image 0: " << top1[0] << "\n";
      if (j.contains("check")) std::cout << "check: " << j["check"].dump() << "\n";
    }
  });
}

void add_compile_resnet18(CLI::App& compile) {
  struct Opts {
    NetOptions net;
    std::string emit = "graph", pass, node;
  };
  auto o = std::make_shared<Opts>();
  std::string passes;  // the pipeline's own list, so that the help never goes stale
  for (const std::string& p : cg::graph_pass_names()) passes += (passes.empty() ? "" : ", ") + p;
  CLI::App* cmd = compile.add_subcommand(
      "resnet18",
      "The built-in ResNet-18 through the graph pipeline: --emit graph prints the graph after\n"
      "every pass (--pass P: only after P), --emit json the same as JSON, --emit steps the\n"
      "executor's static list of launches and copies. Passes:\n" + passes + ".\n"
      "--emit ir|asm --node NAME: that accelerator node's kernel as the executor runs it (the\n"
      "accelerator pipeline after every pass and program step, the rewrites included; or its\n"
      "placed instructions), --pass P for one of them.");
  o->net.add_to(*cmd);
  cmd->add_option("--emit", o->emit, "graph, json, steps, or with --node ir or asm")
      ->capture_default_str();
  cmd->add_option("--pass", o->pass, "only the graph (with --node: the kernel) after this pass");
  cmd->add_option("--node", o->node, "with --emit ir|asm: the accelerator node to print");
  cmd->callback([o, cmd] {
    const bool kernel = o->emit == "ir" || o->emit == "asm";
    if (o->emit != "graph" && o->emit != "json" && o->emit != "steps" && !kernel)
      throw UserError("--emit must be graph, json, steps, ir or asm, not '" + o->emit + "'");
    if (kernel != !o->node.empty())
      throw UserError("--emit ir|asm goes with --node NAME (and --node with them)");
    if (o->emit == "steps") forbid(*cmd, {"--pass"}, "with --emit graph, json, ir or asm");
    o->net.check(*cmd);
    const auto& names = cg::graph_pass_names();
    if (!kernel && !o->pass.empty() &&
        std::find(names.begin(), names.end(), o->pass) == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw UserError("--pass '" + o->pass + "' is not a graph pass (" + all + ")");
    }
    const isa::Layout& layout = isa::layout_for(o->net.config);
    const isa::Platform& pf = isa::find_platform(o->net.platform);
    cg::Graph g = cg::models::resnet18(o->net.net);
    nlohmann::json passes = nlohmann::json::array();
    cg::CompiledGraph c =
        cg::compile_graph(g, layout, pf, o->net.compile_options(g),
                          [&](const std::string& p, const cg::Graph& after) {
                            if (o->emit == "steps" || kernel || (!o->pass.empty() && p != o->pass))
                              return;
                            if (o->emit == "json") {
                              passes.push_back({{"pass", p}, {"graph", cg::to_json(after)}});
                            } else {
                              std::cout << "// after " << p << "\n" << cg::to_text(after);
                            }
                          });
    if (kernel) {
      std::cout << rt::graph::emit_node_kernel(c, layout, pf, o->net.executor_options(), o->node,
                                               o->emit, o->pass);
    } else if (o->emit == "json") {
      std::cout << passes.dump(1) << "\n";
    } else if (o->emit == "steps") {
      rt::graph::GraphExecutor exe(c, layout, pf, o->net.executor_options());
      std::cout << exe.listing();
    } else if (o->pass.empty() || o->pass == "plan_memory") {
      std::cout << cg::passes::describe(c.plan);
    }
  });
}


}  // namespace weft::cli
