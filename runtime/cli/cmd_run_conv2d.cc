// `weft run conv2d`: a quantized 2D convolution on the accelerator (or, with --target llvm,
// on the host CPU): random NCHW input, OIHW weight and bias from --seed, compiled with the
// given or chosen knobs, run on an engine, checked against the CPU reference, reported as JSON
// like `weft run dense`. --save writes input.npy (NCHW), weight.npy (OIHW), bias.npy and
// output.npy (NCHW) in those plain layouts whatever the device layout.
#include <algorithm>
#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/cpu_target.h"
#include "runtime/cli/device_run.h"
#include "runtime/io/files.h"
#include "runtime/io/npy.h"
#include "runtime/ops/conv2d.h"

namespace weft::cli {

namespace {

struct Conv2dOptions {
  std::string layer;
  int64_t n = 1, h = 0, w = 0, ic = 0, oc = 0, k = 0, stride = 1, pad = 0;
  std::string config = "gemm8x8", platform = "sim", vthread_axis;
  int64_t vthreads = 2, tile_h = 0, tile_w = 0, tile_ic = 0, tile_oc = 0;
  size_t search = 1;
  int shift = 8;
  bool no_bias = false, no_relu = false;
  CpuTargetOptions cpu;
  DeviceRunOptions dev;

  compiler::ops::Conv2dShape shape() const {
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
};

}  // namespace

void add_run_conv2d(CLI::App& run) {
  auto o = std::make_shared<Conv2dOptions>();
  CLI::App* cmd = run.add_subcommand(
      "conv2d",
      "int8 2D convolution on the accelerator: out = clip(((conv(input, weight) >> shift) +\n"
      "bias), 0, 127) as int8, NCHW input, OIHW weight, zero padding done by the DMA. Prints\n"
      "JSON like `weft run dense`. --layer C1..C12 takes a ResNet-18 layer's shape. Knobs\n"
      "(tiles, virtual threads) are chosen analytically, or by trying --search candidates on\n"
      "the cycle model, unless given. --target llvm runs it on the host CPU instead.");
  cmd->add_option("--layer", o->layer, "a ResNet-18 layer, C1..C12 (instead of the shape)");
  cmd->add_option("--N,--batch", o->n, "batch")->capture_default_str();
  cmd->add_option("--H", o->h, "input height");
  cmd->add_option("--W", o->w, "input width");
  cmd->add_option("--IC,--C", o->ic, "input channels");
  cmd->add_option("--OC,--O", o->oc, "output channels");
  cmd->add_option("--K,--kernel", o->k, "kernel height and width");
  cmd->add_option("--stride", o->stride, "stride")->capture_default_str();
  cmd->add_option("--pad", o->pad, "zero padding on each side")->capture_default_str();
  cmd->add_option("--config", o->config, "hardware configuration (gemm8x8, vta, tiny)")
      ->capture_default_str();
  cmd->add_option("--platform", o->platform, "memory platform (sim, pynq, zcu104)")
      ->capture_default_str();
  cmd->add_option("--vthreads", o->vthreads, "virtual threads (1 = no latency hiding)")
      ->capture_default_str();
  cmd->add_option("--vthread-axis", o->vthread_axis, "o (output channels) or h (output rows)");
  cmd->add_option("--tile-h", o->tile_h, "output rows per tile (default: chosen)");
  cmd->add_option("--tile-w", o->tile_w, "output columns per tile (default: chosen)");
  cmd->add_option("--tile-ic", o->tile_ic, "input channel blocks per step (default: chosen)");
  cmd->add_option("--tile-oc", o->tile_oc, "output channel blocks per tile (default: chosen)");
  cmd->add_option("--search", o->search,
                  "try this many knob candidates on the cycle model and keep the fastest")
      ->capture_default_str();
  cmd->add_option("--shift", o->shift, "epilogue shift")->capture_default_str();
  cmd->add_flag("--no-bias", o->no_bias, "epilogue without the bias");
  cmd->add_flag("--no-relu", o->no_relu, "clip to [-128, 127] instead of [0, 127]");
  o->cpu.add_to(*cmd, true);
  o->dev.add_to(*cmd,
                "write input.npy (NCHW), weight.npy (OIHW), bias.npy and output.npy (NCHW) "
                "into this directory");
  cmd->callback([o] {
    if (o->cpu.is_llvm()) {
      return run_conv2d_on_cpu(o->cpu, o->layer, o->n, o->ic, o->h, o->w, o->oc, o->k, o->stride,
                               o->pad, o->dev.seed, o->dev.save);
    }
    const isa::Layout& layout = isa::layout_for(o->config);
    const isa::Platform& platform = isa::find_platform(o->platform);
    o->dev.check();
    const compiler::ops::Conv2dShape s = o->shape();
    compiler::ops::check_conv2d_shape(s);
    if (!o->vthread_axis.empty() && o->vthread_axis != "o" && o->vthread_axis != "h") {
      throw UserError("--vthread-axis must be o or h, not '" + o->vthread_axis + "'");
    }
    if (o->vthreads < 1 || o->vthreads > 64) {
      throw UserError("--vthreads " + std::to_string(o->vthreads) + " is out of range (1 to 64)");
    }
    compiler::ops::Conv2dKnobs k =
        o->search > 1 ? rt::search_knobs(layout, platform, s, o->vthreads, o->search, nullptr)
                      : compiler::ops::conv2d_candidates(layout, platform, s, o->vthreads, 1)[0];
    if (o->tile_h) k.tile_h = o->tile_h;
    if (o->tile_w) k.tile_w = o->tile_w;
    if (o->tile_ic) k.tile_ic = o->tile_ic;
    if (o->tile_oc) k.tile_oc = o->tile_oc;
    if (!o->vthread_axis.empty()) k.vthread_axis = o->vthread_axis[0];
    const compiler::ops::Conv2dEpilogue e{o->shift, !o->no_bias, !o->no_relu};

    const auto t_compile = std::chrono::steady_clock::now();
    const rt::Conv2dBuild b = rt::build_conv2d(layout, s, k, e);
    const double compile_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_compile).count();
    const rt::Conv2dData data = rt::random_conv2d_data(s, o->dev.seed);
    driver::Timeline trace;
    std::vector<int8_t> out;
    const DeviceRunResult r = run_on_device(
        o->dev, layout, platform, b.placed.image_bytes, "weft run conv2d", &trace,
        [&](driver::Device& dev, std::chrono::milliseconds timeout) {
          out = rt::run_conv2d(dev, b, data, timeout);
        });
    const auto expect = rt::conv2d_reference(s, data, e);
    const Mismatches bad = compare(out, expect);
    const int64_t mismatches = bad.count, first = bad.first;

    nlohmann::ordered_json j;
    j["op"] = "conv2d";
    j["shape"] = {{"N", s.n},   {"H", s.h}, {"W", s.w},           {"IC", s.ic},   {"OC", s.oc},
                  {"K", s.k},   {"stride", s.stride}, {"pad", s.pad}, {"OH", s.out_h()},
                  {"OW", s.out_w()}};
    j["macs"] = s.macs();
    j["config"] = o->config;
    j["engine"] = r.engine;
    j["platform"] = platform.name;
    j["epilogue"] = {{"shift", e.shift}, {"bias", e.bias}, {"clip", e.relu ? "[0, 127]" : "[-128, 127]"}};
    j["knobs"] = rt::knobs_to_json(b.op.knobs);
    j["instructions"] = b.placed.stream.insn_count;
    j["correct"] = mismatches == 0;
    j["mismatches"] = mismatches;
    add_timing(j, r.details, rt::conv2d_roofline(layout, platform, s).to_json(),
               2.0 * double(s.macs()), platform);
    j["device"] = r.details;
    j["compile_seconds"] = compile_s;
    j["run_seconds"] = r.seconds;

    rt::OutputSet outputs;
    if (!o->dev.save.empty()) {
      const std::filesystem::path dir = save_dir(o->dev.save);
      outputs.add((dir / "input.npy").string(),
                  rt::encode_npy(rt::npy_int8({s.n, s.ic, s.h, s.w}, data.input)));
      outputs.add((dir / "weight.npy").string(),
                  rt::encode_npy(rt::npy_int8({s.oc, s.ic, s.k, s.k}, data.weight)));
      if (e.bias) {
        outputs.add((dir / "bias.npy").string(), rt::encode_npy(rt::npy_int32({s.oc}, data.bias)));
      }
      outputs.add((dir / "output.npy").string(),
                  rt::encode_npy(rt::npy_int8({s.n, s.oc, s.out_h(), s.out_w()}, out)));
      j["saved"] = o->dev.save;
    }
    if (!o->dev.trace.empty()) outputs.add_text(o->dev.trace, trace.to_json().dump() + "\n");
    outputs.commit();
    std::cout << j.dump(2) << "\n";
    if (mismatches) {
      throw UserError("the output differs from the CPU reference in " + std::to_string(mismatches) +
                      " elements; first at flat NCHW index " + std::to_string(first) + ": got " +
                      std::to_string(out[first]) + ", expected " + std::to_string(expect[first]));
    }
  });
}

}  // namespace weft::cli
