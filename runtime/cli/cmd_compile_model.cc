// `weft compile MODEL.onnx --emit graph [--pass P] [--json]`: import an ONNX model and print
// the graph IR after each pass of the graph pipeline (compiler/graph/pipeline.h), or after one
// pass; "import" is the graph as imported. The model is the `compile` verb's positional
// argument (any name that is not one of its operator subcommands).
#include <algorithm>
#include <iostream>
#include <memory>

#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"
#if defined(WEFT_HAVE_ONNX_RUN)
#include "compiler/graph/dump.h"
#include "compiler/graph/onnx/onnx_import.h"
#include "compiler/graph/pipeline.h"
#include "runtime/graph/onnx_run.h"
#endif

namespace weft::cli {

namespace {

struct ModelCompileOptions {
  std::string model, emit = "graph", pass, config = "gemm8x8", platform = "sim", calibrate;
  bool json = false, per_channel = false;
};

void compile_model(const ModelCompileOptions& o) {
  if (o.emit != "graph") throw UserError("--emit for a model must be graph, not '" + o.emit + "'");
#if defined(WEFT_HAVE_ONNX_RUN)
  namespace cg = compiler::graph;
  const auto& names = cg::graph_pass_names();
  if (!o.pass.empty() && std::find(names.begin(), names.end(), o.pass) == names.end()) {
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    throw UserError("--pass '" + o.pass + "' is not a pass of the graph pipeline (" + all + ")");
  }
  const isa::Layout& layout = isa::layout_for(o.config);
  const isa::Platform& platform = isa::find_platform(o.platform);
  rt::check_input_file(o.model, "the model");
  if (!o.calibrate.empty()) rt::check_input_file(o.calibrate, "--calibrate");
  const auto imported = compiler::onnx_import::import_onnx(o.model);
  cg::GraphCompileOptions opts;
  opts.quantize.per_channel = o.per_channel;
  if (!o.calibrate.empty()) {
    const auto ins = imported.graph.inputs();
    if (ins.size() != 1) throw UserError("--calibrate needs a model with one input");
    for (auto& s : rt::graph::read_calibration_npy(o.calibrate,
                                                   imported.graph.value(ins[0]).type.shape))
      opts.quantize.calibration.push_back({std::move(s)});
  }
  std::string text;
  nlohmann::json passes = nlohmann::json::array();
  auto observe = [&](const std::string& pass, const cg::Graph& g) {
    if (!o.pass.empty() && pass != o.pass) return;
    if (o.json) {
      passes.push_back({{"pass", pass}, {"graph", cg::to_json(g)}});
    } else {
      text += "// ---- after " + pass + " ----\n" + cg::to_text(g) + "\n";
    }
  };
  // The pipeline reports the imported graph itself, as its first step ("import").
  if (o.pass == "import") {
    observe("import", imported.graph);
  } else {
    cg::compile_graph(imported.graph, layout, platform, opts, observe);
  }
  if (o.json) {
    std::cout << nlohmann::json{{"model", o.model}, {"config", o.config}, {"passes", passes}}.dump(2)
              << "\n";
  } else {
    std::cout << "// " << o.model << " on " << o.config << "\n" << text;
  }
#else
  throw UserError("this weft was built without ONNX import (install libonnx-dev and "
                  "libprotobuf-dev, and the CPU backend's LLVM 16, then reconfigure)");
#endif
}

}  // namespace

void add_compile_model(CLI::App& compile) {
  auto o = std::make_shared<ModelCompileOptions>();
  compile.add_option("model", o->model, "an ONNX model (MODEL.onnx) to compile");
  compile.add_option("--emit", o->emit, "for a model: graph (the graph IR after each pass)")
      ->capture_default_str();
  compile.add_option("--pass", o->pass, "only the graph after this pass (import, ...)");
  compile.add_option("--config", o->config, "the hardware configuration")->capture_default_str();
  compile.add_option("--platform", o->platform, "the memory platform")->capture_default_str();
  compile.add_option("--calibrate", o->calibrate, "calibration inputs (.npy), as for weft run");
  compile.add_flag("--per-channel", o->per_channel, "quantize weights per output channel");
  compile.add_flag("--json", o->json, "the graphs as JSON");
  compile.callback([&compile, o] {
    if (!compile.get_subcommands().empty()) return;  // an operator subcommand ran
    if (o->model.empty())
      throw CLI::RequiredError("a subcommand (dense, conv2d) or MODEL.onnx");
    compile_model(*o);
  });
}

}  // namespace weft::cli
