// `weft run conv2d`: a quantized 2D convolution on the accelerator (or, with --target llvm,
// on the host CPU): random NCHW input, OIHW weight and bias from --seed, compiled with the
// given or chosen knobs, run on an engine, checked against the CPU reference, reported as JSON
// like `weft run dense`. --save writes input.npy (NCHW), weight.npy (OIHW), output.npy (NCHW)
// and, with a bias, bias.npy in those plain layouts whatever the device layout.
#include <iostream>

#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/conv2d_options.h"
#include "runtime/cli/conv2d_run.h"
#include "runtime/cli/device_run.h"
#include "runtime/cli/op_target.h"
#include "runtime/io/files.h"
#include "runtime/io/npy.h"
#include "runtime/ops/conv2d.h"

namespace weft::cli {

void add_run_conv2d(CLI::App& run) {
  struct Opts : Conv2dOptions {
    TargetOptions cpu;
    DeviceRunOptions dev;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = run.add_subcommand(
      "conv2d",
      "int8 2D convolution on the accelerator: out = clip(((conv(input, weight) >> shift) +\n"
      "bias), 0, 127) as int8, NCHW input, OIHW weight, zero padding done by the DMA. Prints\n"
      "JSON like `weft run dense`. --layer C1..C12 takes a ResNet-18 layer's shape. Knobs\n"
      "(tiles, virtual threads) are chosen analytically, or by trying --search candidates on\n"
      "the cycle model, unless given. --target llvm runs it on the host CPU instead.");
  o->add_to(*cmd);
  o->cpu.add_to(*cmd, true);
  o->dev.add_to(*cmd,
                "write input.npy (NCHW), weight.npy (OIHW) and output.npy (NCHW) into this "
                "directory, and on the accelerator bias.npy (int32, OC) unless --no-bias "
                "(--target llvm and cuda compute the convolution alone, with no bias)");
  cmd->callback([o, cmd] {
    // Everything the command line says is checked before any work.
    check_target_options(*cmd, o->cpu.target);
    o->check();
    if (o->cpu.target != "accel" && !o->dev.save.empty()) rt::check_output_dir(o->dev.save, "--save");
    if (o->cpu.is_llvm_or_cuda()) {
      return run_conv2d_on_target(o->cpu.with_records(o->tune_db, o->no_records), o->layer,
                                  o->n, o->ic, o->h, o->w, o->oc, o->k, o->stride, o->pad,
                                  o->dev.seed, o->dev.save);
    }
    isa::layout_for(o->config);
    isa::find_platform(o->platform);
    o->dev.check();
    const compiler::ops::Conv2dShape s = o->shape();
    compiler::ops::check_conv2d_shape(s);
    const rt::Conv2dData data = rt::random_conv2d_data(s, o->dev.seed);
    Conv2dRun r = run_conv2d_accel(*o, o->dev, data);
    nlohmann::ordered_json& j = r.report;

    rt::OutputSet outputs;
    if (!o->dev.save.empty()) {
      const std::filesystem::path dir = save_dir(o->dev.save);
      outputs.add((dir / "input.npy").string(),
                  rt::encode_npy(rt::npy_int8({s.n, s.ic, s.h, s.w}, data.input)));
      outputs.add((dir / "weight.npy").string(),
                  rt::encode_npy(rt::npy_int8({s.oc, s.ic, s.k, s.k}, data.weight)));
      if (!o->no_bias) {
        outputs.add((dir / "bias.npy").string(), rt::encode_npy(rt::npy_int32({s.oc}, data.bias)));
      }
      outputs.add((dir / "output.npy").string(),
                  rt::encode_npy(rt::npy_int8({s.n, s.oc, s.out_h(), s.out_w()}, r.out)));
      j["saved"] = o->dev.save;
    }
    if (!o->dev.trace.empty()) outputs.add_text(o->dev.trace, r.trace.to_json().dump() + "\n");
    outputs.commit();
    std::cout << j.dump(2) << "\n";
    check_conv2d_run(r);
  });
}

}  // namespace weft::cli
