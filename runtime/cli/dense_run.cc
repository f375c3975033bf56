// The accelerator run of a dense; see dense_run.h.
#include "runtime/cli/dense_run.h"

#include <algorithm>
#include <chrono>

#include "hardware/isa/errors.h"
#include "runtime/ops/dense.h"

namespace weft::cli {

namespace {

// The roofline of the padded operator on the platform: GEMM block cycles vs. the cycles the
// compulsory DRAM traffic (each packed tensor moved once) needs at the bus width.
nlohmann::ordered_json dense_roofline(const rt::DenseBuild& b, const isa::Platform& p) {
  const double compute = double(b.op.mb) * double(b.op.nb) * double(b.op.kb);
  const double bytes = double(b.a_shape.elements() + b.w_shape.elements() + b.d_shape.elements());
  const double memory = bytes / (p.axi_data_bits / 8.0);
  return {{"compute_cycles", compute},
          {"compulsory_dram_bytes", bytes},
          {"memory_cycles", memory},
          {"bound_cycles", std::max(compute, memory)},
          {"bound_utilization", compute / std::max(compute, memory)}};
}

}  // namespace

DenseRun run_dense_accel(const DenseOptions& d, const DeviceRunOptions& dev,
                         const compiler::ops::DenseKnobs& knobs, const std::vector<int8_t>& a,
                         const std::vector<int8_t>& w,
                         const std::function<void(const std::string&)>& phase,
                         bool keep_timeline) {
  auto say = [&phase](const std::string& what) {
    if (phase) phase(what);
  };
  const isa::Layout& layout = isa::layout_for(d.config);
  const isa::Platform& platform = isa::find_platform(d.platform);
  const DeviceRunOptions run_opts = dev.checked_for_run(keep_timeline);
  const auto s = d.shape();
  if (a.size() != size_t(s.m * s.k) || w.size() != size_t(s.n * s.k))
    throw InternalError("run_dense_accel: input sizes do not match the shape");
  say("compiling");
  const auto t_compile = std::chrono::steady_clock::now();
  const rt::DenseBuild b = rt::build_dense(layout, s, knobs, d.epilogue());
  const double compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_compile).count();

  DenseRun run;
  say("running " + std::to_string(b.placed.stream.insn_count) + " instructions on the " +
      dev.engine + " engine");
  const DeviceRunResult r = run_on_device(
      run_opts, layout, platform, b.placed.image_bytes, "weft run dense", &run.trace,
      [&](driver::Device& device, std::chrono::milliseconds timeout) {
        run.out = rt::run_dense(device, b, a, w, timeout);
      });
  say("checking the output against the CPU reference");
  run.expect = rt::dense_reference(s, a, w, d.epilogue());
  run.mismatches = compare(run.out, run.expect);

  nlohmann::ordered_json& j = run.report;
  j["op"] = "dense";
  j["shape"] = {{"M", s.m}, {"N", s.n}, {"K", s.k}};
  j["config"] = layout.config.name;
  j["engine"] = r.engine;
  j["platform"] = platform.name;
  j["epilogue"] = {{"shift", d.shift}, {"clip", d.relu ? "[0, 127]" : "[-128, 127]"}};
  j["knobs"] = knobs_json(b.op.knobs);
  j["padded_blocks"] = {{"m", b.op.mb}, {"n", b.op.nb}, {"k", b.op.kb}};
  j["instructions"] = b.placed.stream.insn_count;
  j["correct"] = run.mismatches.count == 0;
  j["mismatches"] = run.mismatches.count;
  add_timing(j, r.details, dense_roofline(b, platform),
             2.0 * double(s.m) * double(s.n) * double(s.k), platform);
  add_energy(j, r.details, run_opts.energy, layout, platform, int64_t(s.m) * s.n * s.k);
  j["device"] = r.details;
  j["compile_seconds"] = compile_s;
  j["run_seconds"] = r.seconds;
  return run;
}

void check_dense_run(const DenseRun& r, int64_t n) {
  if (!r.mismatches.count) return;
  const int64_t first = r.mismatches.first;
  if (first < 0)
    throw UserError("the output has " + std::to_string(r.out.size()) + " elements, the CPU "
                    "reference " + std::to_string(r.expect.size()));
  throw UserError("the output differs from the CPU reference in " +
                  std::to_string(r.mismatches.count) + " elements; first at (" +
                  std::to_string(first / n) + ", " + std::to_string(first % n) + "): got " +
                  std::to_string(r.out[first]) + ", expected " + std::to_string(r.expect[first]));
}

}  // namespace weft::cli
