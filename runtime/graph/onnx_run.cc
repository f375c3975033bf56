// `weft run MODEL.onnx --target llvm`; see onnx_run.h.
#include "runtime/graph/onnx_run.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <optional>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/graph/quant_error.h"
#include "hardware/cost/energy_table.h"
#include "hardware/isa/errors.h"
#include "runtime/graph/cpu_graph.h"
#include "compiler/graph/onnx/qdq.h"
#include "runtime/graph/executor.h"
#include "runtime/io/npy.h"

namespace weft::rt::graph {

using compiler::graph::DType;

HostArray read_input_npy(const std::string& path, const compiler::onnx_import::Imported& model,
                         size_t k) {
  const auto ins = model.graph.inputs();
  if (k >= ins.size()) throw InternalError("the model has no input " + std::to_string(k));
  const auto& v = model.graph.value(ins[k]);
  // A uint8 input is held as int8 = uint8 - 128 (onnx_import.h); its .npy must be uint8.
  const bool u8 = model.uint8_values.count(ins[k]) != 0;
  NpyArray a;
  try {
    a = decode_npy(read_file(path), path);
  } catch (const UserError& e) {
    throw UserError(std::string("--input ") + e.what() +
                    "; save a float32 array, e.g. numpy.save(path, x.astype(numpy.float32))");
  }
  HostArray h;
  h.shape = a.shape;
  const char* got = "";
  switch (a.type) {
    case NpyType::kFloat32: h.dtype = DType::F32; got = "float32"; break;
    case NpyType::kInt8: h.dtype = DType::I8; got = "int8"; break;
    case NpyType::kInt32: h.dtype = DType::I32; got = "int32"; break;
    case NpyType::kUint8: h.dtype = DType::I8; got = "uint8"; break;
  }
  const char* want = u8 ? "uint8"
                     : v.type.dtype == DType::F32 ? "float32"
                     : v.type.dtype == DType::I8  ? "int8"
                                                  : "int32";
  if (h.dtype != v.type.dtype || (a.type == NpyType::kUint8) != u8)
    throw UserError("--input '" + path + "' holds " + got + " values; the model's input '" +
                    v.name + "' is " + want + " " + compiler::graph::shape_str(v.type.shape));
  if (h.shape != v.type.shape)
    throw UserError("--input '" + path + "' has shape " + compiler::graph::shape_str(h.shape) +
                    "; the model's input '" + v.name + "' is " + want + " " +
                    compiler::graph::shape_str(v.type.shape));
  const int64_t n = h.elements();
  h.data.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    switch (a.type) {
      case NpyType::kFloat32: {
        float f;
        std::memcpy(&f, a.data.data() + 4 * i, 4);
        if (!std::isfinite(f))
          throw UserError("--input '" + path + "' holds a non-finite value at element " +
                          std::to_string(i));
        h.data[i] = f;
        break;
      }
      case NpyType::kInt8: h.data[i] = static_cast<int8_t>(a.data[i]); break;
      case NpyType::kUint8: h.data[i] = int{a.data[i]} - 128; break;
      case NpyType::kInt32: {
        int32_t x;
        std::memcpy(&x, a.data.data() + 4 * i, 4);
        h.data[i] = x;
        break;
      }
    }
  }
  return h;
}

OutputError output_error(const HostArray& a, const HostArray& ref) {
  OutputError e;
  double scale = 0, diff = 0;
  for (double v : ref.data) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < a.data.size() && i < ref.data.size(); ++i) {
    const double d = std::fabs(a.data[i] - ref.data[i]);
    diff = std::max(diff, d);
    e.elementwise = std::max(e.elementwise, d / std::max(std::fabs(ref.data[i]), 1e-30));
  }
  e.relative_to_max = scale > 0 ? diff / scale : diff;
  return e;
}

std::vector<uint8_t> output_npy(const HostArray& a) {
  NpyArray n;
  n.type = NpyType::kFloat32;
  n.shape = a.shape;
  n.data.resize(a.data.size() * 4);
  for (size_t i = 0; i < a.data.size(); ++i) {
    const float f = static_cast<float>(a.data[i]);
    std::memcpy(n.data.data() + 4 * i, &f, 4);
  }
  return encode_npy(n);
}

nlohmann::json node_trace(const std::string& process, const nlohmann::json& nodes) {
  nlohmann::json ev = nlohmann::json::array();
  std::map<std::string, int> tid;
  for (const auto& n : nodes) {
    const std::string engine = n.value("engine", "host");
    if (!tid.count(engine)) {
      const int t = static_cast<int>(tid.size()) + 1;
      tid[engine] = t;
      ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", t},
                    {"args", {{"name", engine}}}});
    }
    ev.push_back({{"name", n.value("name", "")},
                  {"cat", n.value("op", "")},
                  {"ph", "X"},
                  {"pid", 1},
                  {"tid", tid[engine]},
                  {"ts", n.value("start_us", 0.0)},
                  {"dur", n.value("us", 0.0)},
                  {"args", {{"op", n.value("op", "")}}}});
  }
  ev.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", process}}}});
  return {{"traceEvents", ev}, {"displayTimeUnit", "ms"}};
}

namespace {

compiler::onnx_import::LoadOptions load_options(const OnnxRunRequest& r) {
  if (r.batch < 0 || r.batch > 4096)
    throw UserError("--batch " + std::to_string(r.batch) + " is outside [1, 4096]");
  compiler::onnx_import::LoadOptions o;
  o.batch = r.batch;
  return o;
}

}  // namespace

nlohmann::ordered_json run_onnx_llvm(const OnnxRunRequest& r, OutputSet& outputs) {
  if (r.threads < 1 || r.threads > 1024)
    throw UserError("--threads " + std::to_string(r.threads) + " is outside [1, 1024]");
  if (r.input.empty()) throw UserError("weft run MODEL.onnx needs --input X.npy");
  r.phase("importing the model");
  const auto imported = compiler::onnx_import::import_onnx(r.model, load_options(r));
  const auto& g = imported.graph;
  if (g.inputs().size() != 1)
    throw UserError("'" + r.model + "' takes " + std::to_string(g.inputs().size()) +
                    " inputs; weft run feeds one (--input)");
  const HostArray x = read_input_npy(r.input, imported);

  LlvmGraphRunner runner(g, r.threads);
  r.phase("compiling the kernels and running the network once");
  const GraphRun first = runner.run({x});  // compiles the kernels
  r.phase("running the network (timed)");
  const GraphRun run = runner.run({x});
  const HostArray& y = run.outputs.at(0);
  const auto& yv = g.value(g.outputs().at(0));
  const auto& xv = g.value(g.inputs().at(0));

  nlohmann::ordered_json j;
  j["model"] = r.model;
  j["graph"] = g.name();
  j["opset"] = imported.opset;
  j["target"] = "llvm";
  j["threads"] = r.threads;
  j["host_cpu"] = compiler::codegen::host_cpu_name();
  j["input"] = {{"name", xv.name}, {"shape", x.shape}, {"dtype", "float32"}};
  j["output"] = {{"name", yv.name}, {"shape", y.shape},
                 {"dtype", y.dtype == DType::F32 ? "float32" : y.dtype == DType::I8 ? "int8" : "int32"}};
  double macs = 0, llvm_s = 0, host_s = 0;
  for (const NodeRecord& n : run.nodes) {
    macs += n.macs;
    (n.engine == "host" ? host_s : llvm_s) += n.seconds;
  }
  const nlohmann::ordered_json nodes = per_node_json(run);
  j["nodes"] = run.nodes.size();
  j["macs"] = macs;
  j["compile_seconds"] = runner.compile_seconds();
  j["kernels_compiled"] = runner.kernels_compiled();
  j["first_run_seconds"] = first.seconds;
  j["run_seconds"] = run.seconds;
  j["seconds_by_engine"] = {{"llvm", llvm_s}, {"host", host_s}};
  j["gflops"] = run.seconds > 0 ? 2 * macs / run.seconds * 1e-9 : 0.0;
  if (y.shape.size() == 2 && y.shape[0] == 1 && !y.data.empty()) {
    const auto best = std::max_element(y.data.begin(), y.data.end()) - y.data.begin();
    j["argmax"] = best;
  }
  if (r.check) {
    r.phase("checking: the float64 reference interpreter");
    const GraphRun ref = run_reference_f64(g, {x});
    // Relative to the output's largest magnitude (the tolerance the tests assert: 1e-4), and
    // element by element (for information; near-zero elements make it large).
    const OutputError e = output_error(y, ref.outputs.at(0));
    j["reference"] = {{"max_error_relative_to_max", e.relative_to_max},
                      {"within_1e-4", e.relative_to_max <= 1e-4},
                      {"max_elementwise_relative_error", e.elementwise},
                      {"seconds", ref.seconds}};
  }
  j["per_node"] = nodes;
  if (!r.save.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(r.save, ec);
    if (ec) throw UserError("--save: cannot create directory '" + r.save + "': " + ec.message());
    const std::filesystem::path dir(r.save);
    j["saved"] = r.save;
    outputs.add((dir / "output.npy").string(), output_npy(y));
    outputs.add_text((dir / "report.json").string(), j.dump(2) + "\n");
  }
  if (!r.trace.empty())
    outputs.add_text(r.trace, node_trace("weft run " + g.name() + " (llvm)", nodes).dump() + "\n");
  return j;
}

std::vector<std::vector<float>> read_calibration_npy(const std::string& path,
                                                     const std::vector<int64_t>& input_shape) {
  const NpyArray a = decode_npy(read_file(path), path);
  int64_t per = 1;
  for (int64_t d : input_shape) per *= d;
  const bool one = a.shape == input_shape;
  const bool batch = a.shape.size() == input_shape.size() + 1 &&
                     std::equal(input_shape.begin(), input_shape.end(), a.shape.begin() + 1);
  if (a.type != NpyType::kFloat32 || !(one || batch))
    throw UserError("--calibrate '" + path + "' must be float32 of the input's shape " +
                    compiler::graph::shape_str(input_shape) + " or [S, " +
                    compiler::graph::shape_str(input_shape).substr(1) + " (S samples), not " +
                    (a.type == NpyType::kFloat32 ? "float32 " : "another type ") +
                    compiler::graph::shape_str(a.shape));
  const int64_t samples = one ? 1 : a.shape[0];
  if (samples < 1) throw UserError("--calibrate '" + path + "' holds no samples");
  std::vector<std::vector<float>> out(static_cast<size_t>(samples),
                                      std::vector<float>(static_cast<size_t>(per)));
  for (int64_t s = 0; s < samples; ++s)
    std::memcpy(out[s].data(), a.data.data() + s * per * 4, static_cast<size_t>(per) * 4);
  return out;
}

nlohmann::ordered_json run_onnx_accel(const OnnxRunRequest& r, OutputSet& outputs) {
  if (r.input.empty()) throw UserError("weft run MODEL.onnx needs --input X.npy");
  const isa::Layout& layout = isa::layout_for(r.config);
  const isa::Platform& platform = isa::find_platform(r.platform);
  // Where the wall time goes, phase by phase (reported as "phase_seconds"): import, calibration
  // and the other graph passes, kernel compilation, the run, the --check.
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  // And the CPU time of each (process CPU, every thread: "phase_cpu_seconds"), which a busy
  // machine does not inflate as it does the wall time.
  auto cpu_now = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  nlohmann::ordered_json phases, cpu;
  auto t_phase = Clock::now();
  double c_phase = cpu_now();
  auto end_phase = [&](const char* name) {
    phases[name] = since(t_phase);
    t_phase = Clock::now();
    const double c = cpu_now();
    cpu[name] = c - c_phase;
    c_phase = c;
  };
  r.phase("importing the model");
  const auto imported = compiler::onnx_import::import_onnx(r.model, load_options(r));
  end_phase("import");
  const auto& g = imported.graph;
  if (g.inputs().size() != 1)
    throw UserError("'" + r.model + "' takes " + std::to_string(g.inputs().size()) +
                    " inputs; weft run feeds one (--input)");
  const HostArray x = read_input_npy(r.input, imported);
  if (x.dtype != DType::F32)
    throw UserError("--target accel takes a float32 input (the network is quantized from it)");
  const auto& xv = g.value(g.inputs().at(0));
  compiler::graph::GraphCompileOptions opts;
  opts.quantize.per_channel = r.per_channel;
  if (!r.calibrate.empty()) {
    for (auto& s : read_calibration_npy(r.calibrate, xv.type.shape))
      opts.quantize.calibration.push_back({std::move(s)});
  }
  // A QDQ model: its scales become fixed exponents of the float network (compiler/graph/onnx/qdq.h).
  std::optional<compiler::onnx_import::QdqMapping> qdq;
  if (compiler::onnx_import::has_qdq(g)) {
    qdq = compiler::onnx_import::map_qdq(g);
    opts.quantize.fixed_exponents = qdq->exponents;
    // Per-axis weight scales are the model's own: keep each row's grid (per-channel weights).
    if (qdq->per_channel_weights) opts.quantize.per_channel = true;
  }
  const auto t0 = Clock::now();
  t_phase = t0;
  c_phase = cpu_now();
  r.phase("compiling the network (graph passes)");
  // --compare-fp32 compares quantize's own output (value names as in the fp32 graph).
  std::optional<compiler::graph::Graph> quantized;
  const compiler::graph::CompiledGraph compiled = compiler::graph::compile_graph(
      qdq ? qdq->graph : g, layout, platform, opts,
      [&](const std::string& pass, const compiler::graph::Graph& after) {
        if (r.compare_fp32 && pass == "quantize") quantized = after;
      });
  end_phase("graph_passes");
  for (const auto& [pass, sec] : compiled.pass_seconds) phases["pass_" + pass] = sec;
  for (const auto& [pass, sec] : compiled.pass_cpu_seconds) cpu["pass_" + pass] = sec;
  t_phase = Clock::now();
  ExecutorOptions exe_opts;
  exe_opts.use_records = !r.no_records;
  exe_opts.tune_db = r.tune_db;
  exe_opts.program_cache = r.program_cache;
  r.phase("compiling its accelerator kernels");
  GraphExecutor exe(compiled, layout, platform, exe_opts);
  end_phase("kernel_compile");
  const double compile_s = since(t0);
  t_phase = Clock::now();
  c_phase = cpu_now();
  auto dev = open_graph_device(r.engine, exe, layout, platform, r.device);
  const std::vector<float> xf(x.data.begin(), x.data.end());
  r.phase("running the network on the " + r.engine + " engine");
  RunResult res = exe.run(*dev, {xf}, r.timeout);
  end_phase("run");

  HostArray y;
  y.dtype = DType::F32;
  y.shape = g.value(g.outputs().at(0)).type.shape;
  y.data.assign(res.outputs.at(0).begin(), res.outputs.at(0).end());
  if (y.elements() != static_cast<int64_t>(y.data.size()))
    throw InternalError("the accelerator's output has " + std::to_string(y.data.size()) +
                        " values for shape " + compiler::graph::shape_str(y.shape));

  nlohmann::ordered_json j;
  j["model"] = r.model;
  j["graph"] = g.name();
  j["opset"] = imported.opset;
  j["target"] = "accel";
  j["calibration"] = r.calibrate.empty() ? std::string("synthetic") : r.calibrate;
  j["input"] = {{"name", xv.name}, {"shape", x.shape}, {"dtype", "float32"}};
  j["output"] = {{"name", g.value(g.outputs().at(0)).name}, {"shape", y.shape},
                 {"dtype", "float32 (dequantized)"}};
  if (qdq) {
    nlohmann::ordered_json changed = nlohmann::ordered_json::array();
    for (const auto& c : qdq->changed)
      changed.push_back({{"value", c.value}, {"onnx_scale", c.onnx_scale},
                         {"power_of_two", "2^" + std::to_string(c.exponent)}});
    j["qdq"] = {{"scales_kept", qdq->exponents.size()}, {"scales_rounded", changed},
                {"per_channel_weights", qdq->per_channel_weights}};
  }
  j["compile_seconds"] = compile_s;
  const ProgramSources ps = exe.program_sources();
  j["accel_programs"] = {{"compiled", ps.compiled}, {"reused_in_network", ps.reused},
                         {"from_cache", ps.cached},
                         {"cache", r.program_cache.empty() ? std::string("off") : r.program_cache}};
  if (y.shape.size() == 2 && y.shape[0] == 1 && !y.data.empty())
    j["argmax"] = std::max_element(y.data.begin(), y.data.end()) - y.data.begin();
  if (r.check) {
    // Against the fp32 network on the LLVM path: cosine similarity and top-1 agreement.
    t_phase = Clock::now();
    c_phase = cpu_now();
    r.phase("checking: the fp32 network on the LLVM path");
    LlvmGraphRunner runner(g, r.threads);
    const HostArray f = runner.run({x}).outputs.at(0);
    double dot = 0, na = 0, nb = 0;
    for (size_t i = 0; i < f.data.size(); ++i) {
      dot += f.data[i] * y.data[i];
      na += f.data[i] * f.data[i];
      nb += y.data[i] * y.data[i];
    }
    nlohmann::ordered_json c;
    c["cosine_similarity"] = na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0.0;
    if (f.shape.size() == 2 && f.shape[0] == 1)
      c["top1_agrees"] = std::max_element(f.data.begin(), f.data.end()) - f.data.begin() ==
                         std::max_element(y.data.begin(), y.data.end()) - y.data.begin();
    j["fp32_check"] = c;
    end_phase("check");
  }
  if (r.compare_fp32) {
    t_phase = Clock::now();
    r.phase("comparing every value with the fp32 network's (int8 and float interpreters)");
    if (!quantized)
      throw UserError("--compare-fp32: '" + r.model + "' is an int8 graph already (no fp32 "
                      "network to compare with)");
    j["fp32_compare"] = compiler::graph::quant_error_json(
        compiler::graph::compare_to_fp32(compiled.folded_f32, *quantized, {xf}));
    phases["compare_fp32"] = since(t_phase);
  }
  j["phase_seconds"] = phases;
  j["phase_cpu_seconds"] = cpu;
  add_energy(res.report, cost::energy_table_for(r.energy), layout, platform);
  j["report"] = res.report.to_json();
  if (!r.save.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(r.save, ec);
    if (ec) throw UserError("--save: cannot create directory '" + r.save + "': " + ec.message());
    const std::filesystem::path dir(r.save);
    j["saved"] = r.save;
    outputs.add((dir / "output.npy").string(), output_npy(y));
    outputs.add_text((dir / "report.json").string(), j.dump(2) + "\n");
  }
  if (!r.trace.empty()) outputs.add_text(r.trace, res.report.timeline().dump() + "\n");
  return j;
}

}  // namespace weft::rt::graph
