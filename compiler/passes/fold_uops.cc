// The micro-op folding pass; see fold_uops.h.
#include "compiler/passes/fold_uops.h"

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {

namespace {

using ir::Expr;
using ir::Stmt;

struct Loop {
  ir::Var var;
  int64_t extent;
};

// How many leading arguments of a block call are micro-op fields: its block indices, one per
// buffer (the registry's convention); the arguments after them (the ALU's opcode and
// immediate) must not depend on the nest's loops and are kept as they are.
size_t index_fields(const ir::Call& c) { return c.buffers.size(); }

// The block call at the bottom of a perfect nest, or null.
// Loops of extent 1 take no hardware loop: they go to `pinned` (their variable is 0).
const ir::Call* nest_call(const Stmt& s, std::vector<Loop>* loops, std::vector<Loop>* pinned) {
  Stmt cur = s;
  while (cur->kind == ir::NodeKind::kFor) {
    const auto& f = static_cast<const ir::For&>(*cur);
    const ir::IntImm* mn = ir::as_imm(f.min);
    const ir::IntImm* ext = ir::as_imm(f.extent);
    if (!mn || !ext || mn->value != 0) return nullptr;
    (ext->value == 1 ? pinned : loops)->push_back({f.var, ext->value});
    cur = f.body;
  }
  if (cur->kind != ir::NodeKind::kEvaluate) return nullptr;
  const Expr& v = static_cast<const ir::Evaluate&>(*cur).value;
  if (v->kind != ir::NodeKind::kCall) return nullptr;
  const auto& c = static_cast<const ir::Call&>(*v);
  return ir::folds_to_kernel(c.op) ? &c : nullptr;
}

// Coefficient of a loop in an index and the index with the nest's loops set to 0.
struct Affine {
  std::vector<int64_t> coef;  // per nest loop
  ir::LinearForm rest;
};

Affine affine(const Expr& e, const std::vector<Loop>& loops, const std::vector<Loop>& pinned,
              const std::string& call) {
  auto f = ir::linear_form(e);
  if (!f) {
    throw UserError("micro-op folding of " + call + ": index " + ir::to_string(e) +
                    " is not affine in its loops");
  }
  Affine a;
  for (const Loop& l : loops) {
    auto it = f->coef.find(l.var.get());
    a.coef.push_back(it == f->coef.end() ? 0 : it->second);
    f->coef[l.var.get()] = 0;
  }
  for (const Loop& l : pinned) f->coef[l.var.get()] = 0;
  a.rest = *f;
  return a;
}

Stmt fold(const std::vector<Loop>& loops, const std::vector<Loop>& pinned, const ir::Call& c) {
  const size_t fields = index_fields(c);
  const std::string name = c.name();
  std::vector<Affine> idx;
  for (size_t k = 0; k < fields; ++k) idx.push_back(affine(c.args.at(k), loops, pinned, name));
  std::vector<Expr> constants(c.args.begin() + static_cast<ptrdiff_t>(fields), c.args.end());
  for (const Expr& e : constants) {
    const Affine a = affine(e, loops, pinned, name);
    for (size_t i = 0; i < loops.size(); ++i) {
      if (a.coef[i] != 0) {
        throw UserError("micro-op folding of " + name + ": operand " + ir::to_string(e) +
                        " changes with loop '" + loops[i].var->name + "'");
      }
    }
  }
  // Hardware loops: the two outermost (padded with extent-1 loops); the rest become micro-ops.
  const size_t hw = std::min<size_t>(2, loops.size());
  const size_t pad = 2 - hw;
  auto extent = [&](size_t h) { return h < pad ? int64_t{1} : loops[h - pad].extent; };
  auto factor = [&](size_t k, size_t h) { return h < pad ? int64_t{0} : idx[k].coef[h - pad]; };
  std::vector<Expr> args = {ir::imm(extent(0)), ir::imm(extent(1))};
  for (size_t k = 0; k < fields; ++k) {
    args.push_back(ir::imm(factor(k, 0)));
    args.push_back(ir::imm(factor(k, 1)));
  }
  args.insert(args.end(), constants.begin(), constants.end());
  // Enumerate the inner loops, innermost fastest.
  int64_t uops = 1;
  for (size_t i = hw; i < loops.size(); ++i) uops *= loops[i].extent;
  args.push_back(ir::imm(uops));
  for (int64_t u = 0; u < uops; ++u) {
    int64_t rem = u;
    std::vector<int64_t> value(loops.size(), 0);
    for (size_t i = loops.size(); i-- > hw;) {
      value[i] = rem % loops[i].extent;
      rem /= loops[i].extent;
    }
    for (size_t k = 0; k < fields; ++k) {
      ir::LinearForm f = idx[k].rest;
      for (size_t i = hw; i < loops.size(); ++i) f.constant += idx[k].coef[i] * value[i];
      args.push_back(ir::from_linear(f));
    }
  }
  return ir::evaluate(ir::call(c.dtype, ir::intrinsic_info(c.op).kernel, args, c.buffers));
}

class FoldUops : public ir::Mutator {
 protected:
  Stmt mutate_For(const ir::For& n, const Stmt& self) override {
    std::vector<Loop> loops, pinned;
    if (const ir::Call* c = nest_call(self, &loops, &pinned)) return fold(loops, pinned, *c);
    return ir::Mutator::mutate_For(n, self);
  }
  Stmt mutate_Evaluate(const ir::Evaluate& n, const Stmt& self) override {
    std::vector<Loop> none, pinned;
    if (const ir::Call* c = nest_call(self, &none, &pinned)) return fold(none, pinned, *c);
    return self;
  }
};

}  // namespace

Stmt fold_uops(const Stmt& s) { return FoldUops().mutate(s); }

}  // namespace weft::compiler::passes
