// The on-chip allocation pass; see allocate_onchip.h.
#include "compiler/passes/allocate_onchip.h"

#include <map>

#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {

namespace {

struct ScopeInfo {
  const char* name;
  int64_t rows, cols, depth;
};

class Allocator : public ir::Mutator {
 public:
  explicit Allocator(const isa::Layout& l) {
    const auto& c = l.config;
    scopes_[ir::Scope::kInp] = {"INP", c.batch(), c.block_in(), l.inp_depth};
    scopes_[ir::Scope::kWgt] = {"WGT", c.block_out(), c.block_in(), l.wgt_depth};
    scopes_[ir::Scope::kAcc] = {"ACC", c.batch(), c.block_out(), l.acc_depth};
  }

 protected:
  ir::Stmt mutate_Allocate(const ir::Allocate& n, const ir::Stmt& self) override {
    auto it = scopes_.find(n.buffer->scope);
    if (it == scopes_.end()) return ir::Mutator::mutate_Allocate(n, self);
    const ScopeInfo& s = it->second;
    const auto& shape = n.buffer->shape;
    const size_t r = shape.size();
    if (r < 2 || shape[r - 2] != s.rows || shape[r - 1] != s.cols) {
      throw UserError("on-chip allocation: '" + n.buffer->name + "' in " +
                      ir::scope_name(n.buffer->scope) + " must end in the " + s.name + " block " +
                      std::to_string(s.rows) + "x" + std::to_string(s.cols));
    }
    const int64_t blocks = n.buffer->elements() / (s.rows * s.cols);
    int64_t& top = top_[n.buffer->scope];
    const int64_t base = top;
    if (base + blocks > s.depth) {
      throw UserError("on-chip allocation: '" + n.buffer->name + "' needs " +
                      std::to_string(blocks) + " " + s.name + " blocks at " + std::to_string(base) +
                      ", beyond the " + s.name + " buffer's " + std::to_string(s.depth) +
                      " (make the tile or the number of virtual threads smaller)");
    }
    base_[n.buffer.get()] = base;
    top += blocks;
    ir::Stmt body = mutate(n.body);
    top -= blocks;
    return ir::attr("sram_base(" + n.buffer->name + ")", ir::imm(base),
                    ir::allocate(n.buffer, body));
  }

  ir::Expr mutate_Call(const ir::Call& n, const ir::Expr& self) override {
    ir::Expr m = ir::Mutator::mutate_Call(n, self);
    const auto& c = static_cast<const ir::Call&>(*m);
    if (c.buffers.empty()) return m;
    std::vector<ir::Expr> args = c.args;
    bool changed = false;
    for (size_t i = 0; i < c.buffers.size() && i < args.size(); ++i) {
      auto it = base_.find(c.buffers[i].get());
      if (it == base_.end() || it->second == 0) continue;
      args[i] = ir::add(args[i], ir::imm(it->second));
      changed = true;
    }
    return changed ? ir::call(c.dtype, c.op, args, c.buffers) : m;
  }

 private:
  std::map<ir::Scope, ScopeInfo> scopes_;
  std::map<ir::Scope, int64_t> top_;
  std::map<const ir::BufferObj*, int64_t> base_;
};

}  // namespace

ir::Stmt allocate_onchip(const ir::Stmt& s, const isa::Layout& layout) {
  return Allocator(layout).mutate(s);
}

}  // namespace weft::compiler::passes
