// Double buffering of shared tiles; see double_buffer.h.
#include "compiler/codegen/cuda/double_buffer.h"

#include <map>
#include <set>

#include "compiler/codegen/cuda/insert_barriers.h"
#include "compiler/ir/linear.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"
#include "compiler/te/schedule.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

// Accesses of the single-buffered tiles become accesses of one half of the double ones.
class ToHalf : public ir::Mutator {
 public:
  ToHalf(const std::map<const ir::BufferObj*, ir::Buffer>& m, ir::Expr half)
      : map_(m), half_(std::move(half)) {}

 protected:
  ir::Expr mutate_Load(const ir::Load& n, const ir::Expr& self) override {
    auto it = map_.find(n.buffer.get());
    if (it == map_.end()) return ir::Mutator::mutate_Load(n, self);
    return ir::load(it->second, indices(n.indices));
  }
  ir::Stmt mutate_Store(const ir::Store& n, const ir::Stmt& self) override {
    auto it = map_.find(n.buffer.get());
    if (it == map_.end()) return ir::Mutator::mutate_Store(n, self);
    return ir::store(it->second, indices(n.indices), mutate(n.value));
  }

 private:
  std::vector<ir::Expr> indices(const std::vector<ir::Expr>& idx) {
    std::vector<ir::Expr> out{half_};
    for (const ir::Expr& e : idx) out.push_back(mutate(e));
    return out;
  }
  const std::map<const ir::BufferObj*, ir::Buffer>& map_;
  ir::Expr half_;
};

using BufferSet = std::set<const ir::BufferObj*>;

// The buffers a statement stores to and loads from (an intrinsic's buffers count as both).
class Accesses : public ir::Visitor {
 public:
  BufferSet buffers, loads;  // stored, loaded

 protected:
  void visit_Store(const ir::Store& n) override {
    buffers.insert(n.buffer.get());
    ir::Visitor::visit_Store(n);
  }
  void visit_Load(const ir::Load& n) override {
    loads.insert(n.buffer.get());
    ir::Visitor::visit_Load(n);
  }
  void visit_Call(const ir::Call& n) override {
    for (const ir::Buffer& b : n.buffers) {
      buffers.insert(b.get());
      loads.insert(b.get());
    }
    ir::Visitor::visit_Call(n);
  }
};

bool meets(const BufferSet& a, const BufferSet& b) {
  for (const ir::BufferObj* x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

class DoubleBuffer : public ir::Mutator {
 protected:
  ir::Stmt mutate_For(const ir::For& n, const ir::Stmt& self) override {
    // Peel the attributes and allocations at the top of the body.
    std::vector<ir::Buffer> doubled, others;
    ir::Stmt inner = n.body;
    for (;;) {
      if (inner->kind == ir::NodeKind::kAttrStmt) {
        const auto& a = static_cast<const ir::AttrStmt&>(*inner);
        if (a.key == te::kDoubleBufferAttr && a.body->kind == ir::NodeKind::kAllocate) {
          const auto& al = static_cast<const ir::Allocate&>(*a.body);
          doubled.push_back(al.buffer);
          inner = al.body;
          continue;
        }
        break;
      }
      if (inner->kind == ir::NodeKind::kAllocate) {
        const auto& al = static_cast<const ir::Allocate&>(*inner);
        others.push_back(al.buffer);
        inner = al.body;
        continue;
      }
      break;
    }
    if (doubled.empty()) return ir::Mutator::mutate_For(n, self);
    const std::string& name = doubled[0]->name;
    const int64_t* extent = nullptr;
    if (const ir::IntImm* e = ir::as_imm(n.extent)) extent = &e->value;
    if (n.kind != ir::ForKind::kSerial || n.thread || !extent || !ir::as_imm(n.min) ||
        ir::as_imm(n.min)->value != 0) {
      throw UserError("double_buffer of '" + name + "': it must be filled at the top of a serial "
                      "loop from 0 with a constant extent (loop '" + n.var->name + "' is not)");
    }
    // The leading statements of the body fill the doubled tiles.
    std::vector<ir::Stmt> parts;
    if (inner->kind == ir::NodeKind::kSeq) {
      parts = static_cast<const ir::Seq&>(*inner).stmts;
    } else {
      parts = {inner};
    }
    BufferSet is_doubled;
    for (const ir::Buffer& b : doubled) is_doubled.insert(b.get());
    // A statement storing to a doubled tile is a fill. Fills that come after other statements
    // (two tiles, each filled just before its own fragments are read) move up to the leading
    // fills, so that every fill is issued one step ahead: left in place, a fill would write the
    // half being read in this step with no barrier before its readers. A fill moves only past
    // statements it does not depend on (it reads nothing they write, and they neither read nor
    // write what it writes).
    std::vector<ir::Stmt> fill_parts, rest;
    BufferSet rest_writes, rest_reads;
    for (const ir::Stmt& p : parts) {
      Accesses a;
      a.visit(p);
      if (!meets(a.buffers, is_doubled)) {
        rest.push_back(p);
        rest_writes.insert(a.buffers.begin(), a.buffers.end());
        rest_reads.insert(a.loads.begin(), a.loads.end());
        continue;
      }
      if (meets(a.loads, rest_writes) || meets(a.buffers, rest_writes) ||
          meets(a.buffers, rest_reads)) {
        std::string tile;
        for (const ir::Buffer& b : doubled)
          if (a.buffers.count(b.get()) && tile.empty()) tile = b->name;
        throw UserError("double_buffer of '" + tile + "': in loop '" + n.var->name +
                        "' it is filled after statements that the fill depends on, so it "
                        "cannot be filled one step ahead");
      }
      fill_parts.push_back(p);
    }
    if (fill_parts.empty() || rest.empty()) {
      throw UserError("double_buffer of '" + name + "': the body of loop '" + n.var->name +
                      "' must start by filling it and then use it");
    }
    const size_t fills = fill_parts.size();
    parts = fill_parts;
    std::map<const ir::BufferObj*, ir::Buffer> twice;
    for (const ir::Buffer& b : doubled) {
      std::vector<int64_t> shape{2};
      shape.insert(shape.end(), b->shape.begin(), b->shape.end());
      twice[b.get()] = ir::make_buffer(b->name, b->dtype, shape, b->scope);
    }
    const ir::Expr ko = ir::ref(n.var);
    auto fill_at = [&](const ir::Expr& step, const ir::Expr& half) {
      std::vector<ir::Stmt> f(parts.begin(), parts.begin() + static_cast<ptrdiff_t>(fills));
      std::map<const ir::VarObj*, ir::Expr> at{{n.var.get(), step}};
      // The step first, then the half: the half's index must not be shifted again.
      return ToHalf(twice, half).mutate(ir::simplify(ir::substitute(ir::seq(f), at)));
    };
    const ir::Stmt prologue = fill_at(ir::imm(0), ir::imm(0));
    const ir::Expr next = ir::add(ko, ir::imm(1));
    const ir::Stmt ahead = ir::if_then_else(ir::lt(next, ir::imm(*extent)),
                                            fill_at(next, ir::floormod(next, ir::imm(2))));
    ir::Stmt use = ToHalf(twice, ir::floormod(ko, ir::imm(2))).mutate(ir::seq(rest));
    use = mutate(use);
    ir::Stmt body = ir::seq({ahead, use, sync_threads()});
    for (auto it = others.rbegin(); it != others.rend(); ++it) body = ir::allocate(*it, body);
    ir::Stmt out = ir::seq({prologue, sync_threads(), ir::with_body(n, body)});
    for (auto it = doubled.rbegin(); it != doubled.rend(); ++it) {
      out = ir::attr(te::kDoubleBufferAttr, ir::imm(1), ir::allocate(twice[it->get()], out));
    }
    return out;
  }
};

}  // namespace

ir::Stmt double_buffer(const ir::Stmt& kernel) { return DoubleBuffer().mutate(kernel); }

}  // namespace weft::compiler::codegen
