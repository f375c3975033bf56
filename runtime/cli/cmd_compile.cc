// `weft compile OP`: show what the compiler makes of an operator: the loop IR after each pass
// of the accelerator pipeline (--emit ir, or one pass with --pass) or the instruction listing
// (--emit asm).
#include <iostream>

#include "compiler/ir/printer.h"
#include "hardware/isa/assembly.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/cpu_target.h"
#include "runtime/cli/dense_options.h"
#include "runtime/ops/dense.h"

namespace weft::cli {

namespace {

void add_compile_dense(CLI::App& compile) {
  struct Opts {
    DenseOptions d;
    CpuTargetOptions cpu;
    std::string emit = "asm", pass;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = compile.add_subcommand(
      "dense", "Compile the int8 dense (see `weft run dense --help`) and print it.");
  o->d.add_to(*cmd);
  o->cpu.add_to(*cmd, false);
  cmd->add_option("--emit", o->emit,
                  "ir: the loop IR after each pass; asm: the instruction listing; llvm (with "
                  "--target llvm): the optimized LLVM IR")
      ->capture_default_str();
  cmd->add_option("--pass", o->pass, "with --emit ir: only the IR after this pass");
  cmd->callback([o] {
    if (o->cpu.is_llvm() || o->emit == "llvm") {
      if (!o->cpu.is_llvm() || o->emit != "llvm")
        throw UserError("--emit llvm goes with --target llvm (and --target llvm with --emit llvm)");
      return print_dense_llvm(o->cpu, o->d.m, o->d.n, o->d.k);
    }
    if (o->emit != "ir" && o->emit != "asm") {
      throw UserError("--emit must be ir or asm, not '" + o->emit + "'");
    }
    const auto& names = compiler::accel_pass_names();
    if (!o->pass.empty() && std::find(names.begin(), names.end(), o->pass) == names.end()) {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw UserError("--pass '" + o->pass + "' is not a pass of the pipeline (" + all + ")");
    }
    const isa::Layout& layout = isa::layout_for(o->d.config);
    std::string ir;
    auto observe = [&](const std::string& pass, const compiler::ir::Stmt& s) {
      if (!o->pass.empty() && pass != o->pass) return;
      ir += "// ---- after " + pass + " ----\n" + compiler::ir::to_string(s) + "\n";
    };
    const rt::DenseBuild b = rt::build_dense(layout, o->d.shape(), o->d.knobs(layout),
                                             o->d.epilogue(), compiler::PassObserver(observe));
    std::cout << "// dense M=" << o->d.m << " N=" << o->d.n << " K=" << o->d.k << " on "
              << layout.config.name << ": " << b.op.knobs.describe() << "\n";
    if (o->emit == "ir") {
      std::cout << ir;
      return;
    }
    std::cout << "// " << b.stream.insn_count << " instructions; A at byte " << b.a_at
              << ", W at " << b.w_at << ", D at " << b.d_at << ", micro-ops at " << b.uop_at
              << "\n";
    for (size_t i = 0; i < b.stream.insns.size(); ++i) {
      std::cout << i << ": " << isa::format_insn(layout, b.stream.insns[i]) << "\n";
    }
  });
}

}  // namespace

void add_compile_command(CLI::App& app) {
  CLI::App* compile = app.add_subcommand(
      "compile", "Compile an operator for the accelerator and print its IR or instructions.");
  compile->require_subcommand(1);
  add_compile_dense(*compile);
  add_compile_conv2d(*compile);
}

}  // namespace weft::cli
