// The accelerator run of a conv2d; see conv2d_run.h.
#include "runtime/cli/conv2d_run.h"

#include <chrono>

#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/io/report_json.h"
#include "runtime/tune/knob_search.h"

namespace weft::cli {

Conv2dRun run_conv2d_accel(const Conv2dOptions& o, const DeviceRunOptions& dev,
                           const rt::Conv2dData& data, bool keep_timeline) {
  const isa::Layout& layout = isa::layout_for(o.config);
  const isa::Platform& platform = isa::find_platform(o.platform);
  const DeviceRunOptions run_opts = dev.checked_for_run(keep_timeline);
  const compiler::ops::Conv2dShape s = o.shape();
  rt::KnobSearch searched;
  const compiler::ops::Conv2dKnobs k = o.knobs(layout, platform, &searched);
  const compiler::ops::Conv2dEpilogue e = o.epilogue();

  const auto t_compile = std::chrono::steady_clock::now();
  const rt::Conv2dBuild b = rt::build_conv2d(layout, s, k, e);
  const double compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_compile).count();
  Conv2dRun run;
  const DeviceRunResult r = run_on_device(
      run_opts, layout, platform, b.placed.image_bytes, "weft run conv2d", &run.trace,
      [&](driver::Device& device, std::chrono::milliseconds timeout) {
        run.out = rt::run_conv2d(device, b, data, timeout);
      });
  run.expect = rt::conv2d_reference(s, data, e);
  run.mismatches = compare(run.out, run.expect);

  nlohmann::ordered_json& j = run.report;
  j["op"] = "conv2d";
  j["shape"] = rt::conv2d_shape_json(s.n, s.h, s.w, s.ic, s.oc, s.k, s.k, s.stride, s.pad);
  j["macs"] = s.macs();
  j["config"] = layout.config.name;
  j["engine"] = r.engine;
  j["platform"] = platform.name;
  j["epilogue"] = {{"shift", e.shift}, {"bias", e.bias}, {"clip", e.relu ? "[0, 127]" : "[-128, 127]"}};
  j["knobs"] = rt::knobs_to_json(b.op.knobs);
  if (o.search > 1) j["search"] = searched.to_json();
  j["instructions"] = b.placed.stream.insn_count;
  j["correct"] = run.mismatches.count == 0;
  j["mismatches"] = run.mismatches.count;
  add_timing(j, r.details, rt::conv2d_roofline(layout, platform, s).to_json(),
             2.0 * double(s.macs()), platform);
  add_energy(j, r.details, run_opts.energy, layout, platform, s.macs());
  j["device"] = r.details;
  j["compile_seconds"] = compile_s;
  j["run_seconds"] = r.seconds;
  return run;
}

void check_conv2d_run(const Conv2dRun& r) {
  if (!r.mismatches.count) return;
  const int64_t first = r.mismatches.first;
  if (first < 0)
    throw UserError("the output has " + std::to_string(r.out.size()) + " elements, the CPU "
                    "reference " + std::to_string(r.expect.size()));
  throw UserError("the output differs from the CPU reference in " +
                  std::to_string(r.mismatches.count) + " elements; first at flat NCHW index " +
                  std::to_string(first) + ": got " + std::to_string(r.out[first]) +
                  ", expected " + std::to_string(r.expect[first]));
}

}  // namespace weft::cli
