// `weft compile OP`: show what the compiler makes of an operator: the loop IR after each pass
// of the accelerator pipeline (--emit ir, or one pass with --pass), the instruction listing
// (--emit asm), or with --target llvm the optimized LLVM IR of the CPU backend (--emit llvm).
#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>

#include "compiler/ir/printer.h"
#include "hardware/isa/assembly.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/checks.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/conv2d_options.h"
#include "runtime/cli/dense_options.h"
#include "runtime/cli/op_target.h"
#include "runtime/ops/conv2d.h"
#include "runtime/ops/dense.h"

namespace weft::cli {

namespace {

struct EmitOptions {
  TargetOptions cpu;
  std::string emit = "asm", pass;

  void add_to(CLI::App& cmd) {
    cpu.add_to(cmd, false);
    cmd.add_option("--emit", emit,
                   "ir: the loop IR after each pass; asm: the instruction listing; llvm (with "
                   "--target llvm): the optimized LLVM IR; cuda or ptx (with --target cuda): "
                   "the generated CUDA C or NVRTC's PTX")
        ->capture_default_str();
    cmd.add_option("--pass", pass, "with --emit ir: only the IR after this pass");
  }
  /// Whether the GPU backend's CUDA or PTX is asked for; UserError for mismatched flags.
  bool cuda() const {
    const bool gpu_emit = emit == "cuda" || emit == "ptx";
    if (cpu.is_cuda() != gpu_emit)
      throw UserError("--emit cuda|ptx goes with --target cuda (and --target cuda with them)");
    return gpu_emit;
  }
  /// Whether the CPU backend's LLVM IR is asked for; UserError for mismatched flags.
  bool llvm() const {
    if (cpu.is_llvm() || emit == "llvm") {
      if (!cpu.is_llvm() || emit != "llvm")
        throw UserError("--emit llvm goes with --target llvm (and --target llvm with --emit llvm)");
      return true;
    }
    if (emit != "ir" && emit != "asm") {
      throw UserError("--emit must be ir, asm or llvm, not '" + emit + "'");
    }
    if (!pass.empty() && emit != "ir") {
      throw UserError("--pass goes with --emit ir (it picks the pass whose IR is printed); --emit " +
                      emit + " prints no IR");
    }
    const auto& names = compiler::accel_pass_names();
    if (!pass.empty() && std::find(names.begin(), names.end(), pass) == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw UserError("--pass '" + pass + "' is not a pass of the pipeline (" + all + ")");
    }
    return false;
  }
};

// Compiles through `build` (which sees the IR after each pass and returns the placed
// program; the caller keeps the build, whose tensors the placement names, alive) and prints
// what --emit asks for.
void print_accel(
    const EmitOptions& o, const isa::Layout& layout, const std::string& title,
    const std::function<const rt::PlacedProgram&(const compiler::PassObserver&)>& build) {
  std::string ir;
  auto observe = [&](const std::string& pass, const compiler::ir::Stmt& s) {
    if (!o.pass.empty() && pass != o.pass) return;
    ir += "// ---- after " + pass + " ----\n" + compiler::ir::to_string(s) + "\n";
  };
  const rt::PlacedProgram& placed = build(compiler::PassObserver(observe));
  std::cout << "// " << title << "\n";
  if (o.emit == "ir") {
    std::cout << ir;
    return;
  }
  std::cout << rt::listing(layout, placed);
}

void add_compile_dense(CLI::App& compile) {
  struct Opts : EmitOptions {
    DenseOptions d;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = compile.add_subcommand(
      "dense", "Compile the int8 dense (see `weft run dense --help`) and print it.");
  o->d.add_to(*cmd);
  o->EmitOptions::add_to(*cmd);
  cmd->callback([o, cmd] {
    check_target_options(*cmd, o->cpu.target);
    o->d.check();
    if (o->cuda() || o->llvm()) {
      return print_dense_on_target(o->cpu.with_records(o->d.tune_db, o->d.no_records), o->emit,
                                   o->d.m, o->d.n, o->d.k);
    }
    const isa::Layout& layout = isa::layout_for(o->d.config);
    const auto knobs = o->d.knobs(layout);
    std::optional<rt::DenseBuild> b;
    print_accel(*o, layout,
                "dense M=" + std::to_string(o->d.m) + " N=" + std::to_string(o->d.n) +
                    " K=" + std::to_string(o->d.k) + " on " + layout.config.name + ": " +
                    knobs.describe(),
                [&](const compiler::PassObserver& observe) -> const rt::PlacedProgram& {
                  b = rt::build_dense(layout, o->d.shape(), knobs, o->d.epilogue(), observe);
                  return b->placed;
                });
  });
}

void add_compile_conv2d(CLI::App& compile) {
  struct Opts : EmitOptions {
    Conv2dOptions c;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = compile.add_subcommand(
      "conv2d", "Compile the int8 conv2d (see `weft run conv2d --help`) and print it.");
  o->c.add_to(*cmd);
  o->EmitOptions::add_to(*cmd);
  cmd->callback([o, cmd] {
    const auto& c = o->c;
    check_target_options(*cmd, o->cpu.target);
    c.check();
    if (o->cuda() || o->llvm()) {
      return print_conv2d_on_target(o->cpu.with_records(c.tune_db, c.no_records), o->emit,
                                    c.layer, c.n, c.ic, c.h, c.w, c.oc, c.k, c.stride, c.pad);
    }
    const isa::Layout& layout = isa::layout_for(c.config);
    const isa::Platform& platform = isa::find_platform(c.platform);
    const auto shape = c.shape();
    const auto knobs = c.knobs(layout, platform);
    std::optional<rt::Conv2dBuild> b;
    print_accel(*o, layout,
                "conv2d " + shape.describe() + " on " + layout.config.name + ": " +
                    knobs.describe(),
                [&](const compiler::PassObserver& observe) -> const rt::PlacedProgram& {
                  b = rt::build_conv2d(layout, shape, knobs, c.epilogue(), observe);
                  return b->placed;
                });
  });
}

}  // namespace

void add_compile_command(CLI::App& app) {
  CLI::App* compile = app.add_subcommand(
      "compile", "Compile an operator and print its loop IR, instructions or LLVM IR;\n"
                 "or a whole ONNX network: weft compile MODEL.onnx --emit graph [--pass P].");
  compile->require_subcommand(0, 1);
  add_compile_dense(*compile);
  add_compile_conv2d(*compile);
  add_compile_resnet18(*compile);
  add_compile_model(*compile);
}

}  // namespace weft::cli
