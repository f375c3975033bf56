// One accelerator node's kernel, printed; see node_emit.h.
#include "runtime/graph/node_emit.h"

#include <algorithm>

#include "compiler/accel/printer.h"
#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"

namespace weft::rt::graph {

namespace {

std::string names(const std::vector<std::string>& v) {
  std::string all;
  for (const auto& n : v) all += (all.empty() ? "" : ", ") + n;
  return all;
}

}  // namespace

std::string emit_node_kernel(const compiler::graph::CompiledGraph& c, const isa::Layout& layout,
                             const isa::Platform& platform, const ExecutorOptions& options,
                             const std::string& node, const std::string& emit,
                             const std::string& pass) {
  if (emit != "ir" && emit != "asm")
    throw UserError("--emit for a node's kernel must be ir or asm, not '" + emit + "'");
  if (emit == "ir" && !pass.empty()) {
    const auto& ir = compiler::accel_pass_names();
    const auto& steps = compiler::accel_program_step_names();
    if (std::find(ir.begin(), ir.end(), pass) == ir.end() &&
        std::find(steps.begin(), steps.end(), pass) == steps.end())
      throw UserError("--pass '" + pass + "' is not a pass of the accelerator pipeline (" +
                      names(ir) + ", then on the program: " + names(steps) + ")");
  }
  if (emit == "asm") return GraphExecutor(c, layout, platform, options).kernel_listing(node);
  std::string out = "// " + node + " on " + layout.config.name + "\n";
  auto keep = [&](const std::string& p) { return pass.empty() || p == pass; };
  (void)lower_node(
      c, node, layout, platform, options,
      [&](const std::string& p, const compiler::ir::Stmt& s) {
        if (keep(p)) out += "// ---- after " + p + " ----\n" + compiler::ir::to_string(s) + "\n";
      },
      [&](const std::string& p, const compiler::accel::Program& prog) {
        if (keep(p)) out += "// ---- after " + p + " ----\n" + compiler::accel::to_string(prog);
      });
  return out;
}

}  // namespace weft::rt::graph
