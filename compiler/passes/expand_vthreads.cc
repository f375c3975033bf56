// The virtual-thread expansion pass; see expand_vthreads.h.
#include "compiler/passes/expand_vthreads.h"

#include <map>

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {

namespace {

using ir::Expr;
using ir::Stmt;

bool on_chip(const ir::Buffer& b) {
  return b->scope == ir::Scope::kInp || b->scope == ir::Scope::kWgt || b->scope == ir::Scope::kAcc;
}

// Replaces a variable by a constant and buffers by their thread's copies.
class ThreadView : public ir::Substituter {
 public:
  ThreadView(const ir::VarObj* v, int64_t t, const std::map<const ir::BufferObj*, ir::Buffer>& b)
      : ir::Substituter({{v, ir::imm(t)}}), buffers_(b) {}

 protected:
  Expr mutate_Load(const ir::Load& n, const Expr& self) override {
    std::vector<Expr> idx;
    for (const Expr& i : n.indices) idx.push_back(mutate(i));
    return ir::load(swap(n.buffer), idx);
  }
  Expr mutate_Call(const ir::Call& n, const Expr& self) override {
    std::vector<Expr> args;
    for (const Expr& a : n.args) args.push_back(mutate(a));
    std::vector<ir::Buffer> bufs;
    for (const ir::Buffer& b : n.buffers) bufs.push_back(swap(b));
    return ir::call(n.dtype, n.op, args, bufs);
  }
  Stmt mutate_Store(const ir::Store& n, const Stmt& self) override {
    std::vector<Expr> idx;
    for (const Expr& i : n.indices) idx.push_back(mutate(i));
    return ir::store(swap(n.buffer), idx, mutate(n.value));
  }

 private:
  ir::Buffer swap(const ir::Buffer& b) const {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }
  const std::map<const ir::BufferObj*, ir::Buffer>& buffers_;
};

// A loop nest around one call (a DMA copy or a GEMM block) or a pragma'd nest: a unit that a
// thread runs whole, so that later passes still see it as one operation.
bool is_unit(const Stmt& s) {
  if (s->kind == ir::NodeKind::kAttrStmt) {
    return static_cast<const ir::AttrStmt&>(*s).key.rfind("pragma_", 0) == 0;
  }
  Stmt cur = s;
  while (cur->kind == ir::NodeKind::kFor) cur = static_cast<const ir::For&>(*cur).body;
  return cur->kind == ir::NodeKind::kEvaluate;
}

// Which module a unit will run on, from the call at its bottom: loads into the input and
// weight buffers, stores, or compute (GEMM, ALU, accumulator loads); 0 for anything else.
int unit_module(const Stmt& s) {
  Stmt cur = s;
  while (true) {
    if (cur->kind == ir::NodeKind::kFor) {
      cur = static_cast<const ir::For&>(*cur).body;
    } else if (cur->kind == ir::NodeKind::kAttrStmt) {
      cur = static_cast<const ir::AttrStmt&>(*cur).body;
    } else {
      break;
    }
  }
  if (cur->kind != ir::NodeKind::kEvaluate) return 0;
  const Expr& v = static_cast<const ir::Evaluate&>(*cur).value;
  if (v->kind != ir::NodeKind::kCall) return 0;
  const auto& c = static_cast<const ir::Call&>(*v);
  if (ir::intrinsic_info(c.op).effect != ir::Effect::kDma) return 2;
  const ir::Scope dst = c.buffers.at(0)->scope;
  return dst == ir::Scope::kGlobal                           ? 3
         : dst == ir::Scope::kInp || dst == ir::Scope::kWgt ? 1
                                                             : 2;
}

class Expander {
 public:
  Expander(const ir::For& loop, int64_t threads) : loop_(loop), threads_(threads) {
    copies_.resize(static_cast<size_t>(threads));
  }

  Stmt interleave(const Stmt& s) {
    if (is_unit(s)) return per_thread(s);
    switch (s->kind) {
      case ir::NodeKind::kSeq: {
        // Consecutive units bound for the same module run as one group per thread (thread 0's
        // input and weight loads, then thread 1's), so that a thread's tiles arrive together
        // and no thread's operation queues behind another thread's on the same module.
        const auto& stmts = static_cast<const ir::Seq&>(*s).stmts;
        std::vector<Stmt> out;
        for (size_t i = 0; i < stmts.size();) {
          const int m = is_unit(stmts[i]) ? unit_module(stmts[i]) : 0;
          size_t j = i + 1;
          while (m && j < stmts.size() && is_unit(stmts[j]) && unit_module(stmts[j]) == m) ++j;
          if (j - i > 1) {
            out.push_back(per_thread(ir::seq({stmts.begin() + static_cast<ptrdiff_t>(i),
                                              stmts.begin() + static_cast<ptrdiff_t>(j)})));
          } else {
            out.push_back(interleave(stmts[i]));
          }
          i = j;
        }
        return ir::seq(out);
      }
      case ir::NodeKind::kFor: {
        const auto& f = static_cast<const ir::For&>(*s);
        if (ir::mentions(f.min, loop_.var.get()) || ir::mentions(f.extent, loop_.var.get())) {
          throw UserError("virtual thread '" + loop_.var->name + "': loop '" + f.var->name +
                          "' inside it has bounds that depend on the thread");
        }
        return ir::with_body(f, interleave(f.body));
      }
      case ir::NodeKind::kAttrStmt: {
        const auto& a = static_cast<const ir::AttrStmt&>(*s);
        return ir::attr(a.key, a.value, interleave(a.body));
      }
      case ir::NodeKind::kAllocate: {
        const auto& a = static_cast<const ir::Allocate&>(*s);
        if (!on_chip(a.buffer)) return ir::allocate(a.buffer, interleave(a.body));
        std::vector<ir::Buffer> per_thread;
        for (int64_t t = 0; t < threads_; ++t) {
          ir::Buffer b = ir::make_buffer(a.buffer->name + ".t" + std::to_string(t), a.buffer->dtype,
                                         a.buffer->shape, a.buffer->scope);
          copies_[static_cast<size_t>(t)][a.buffer.get()] = b;
          per_thread.push_back(b);
        }
        Stmt body = interleave(a.body);
        for (auto it = per_thread.rbegin(); it != per_thread.rend(); ++it) {
          body = ir::allocate(*it, body);
        }
        return body;
      }
      default:
        return per_thread(s);
    }
  }

 private:
  // The statement once per thread, thread after thread.
  Stmt per_thread(const Stmt& s) {
    std::vector<Stmt> out;
    for (int64_t t = 0; t < threads_; ++t) {
      ThreadView view(loop_.var.get(), t, copies_[static_cast<size_t>(t)]);
      out.push_back(view.mutate(s));
    }
    return ir::seq(out);
  }

 public:
 private:
  const ir::For& loop_;
  int64_t threads_;
  std::vector<std::map<const ir::BufferObj*, ir::Buffer>> copies_;
};

class ExpandVthreads : public ir::Mutator {
 protected:
  Stmt mutate_For(const ir::For& n, const Stmt& self) override {
    if (n.kind != ir::ForKind::kVirtualThread) return ir::Mutator::mutate_For(n, self);
    const ir::IntImm* mn = ir::as_imm(n.min);
    const ir::IntImm* ext = ir::as_imm(n.extent);
    if (!mn || !ext || mn->value != 0) {
      throw UserError("virtual thread '" + n.var->name + "' needs a constant extent from 0");
    }
    Stmt body = mutate(n.body);  // inner virtual threads first
    return ir::simplify(Expander(n, ext->value).interleave(body));
  }
};

}  // namespace

Stmt expand_vthreads(const Stmt& s) { return ExpandVthreads().mutate(s); }

}  // namespace weft::compiler::passes
