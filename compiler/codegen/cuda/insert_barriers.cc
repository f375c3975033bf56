// Barrier insertion; see insert_barriers.h.
#include "compiler/codegen/cuda/insert_barriers.h"

#include <set>

#include "compiler/ir/visitor.h"
#include "compiler/te/schedule.h"

namespace weft::compiler::codegen {

namespace {

using BufferSet = std::set<const ir::BufferObj*>;

// The shared buffers a statement reads and writes (those of `skip` excluded).
class Access : public ir::Visitor {
 public:
  explicit Access(const BufferSet& skip) : skip_(skip) {}
  BufferSet reads, writes;

 protected:
  void visit_Load(const ir::Load& n) override {
    if (tracked(n.buffer)) reads.insert(n.buffer.get());
    ir::Visitor::visit_Load(n);
  }
  void visit_Store(const ir::Store& n) override {
    if (tracked(n.buffer)) writes.insert(n.buffer.get());
    ir::Visitor::visit_Store(n);
  }

 private:
  bool tracked(const ir::Buffer& b) const {
    return b->scope == ir::Scope::kShared && !skip_.count(b.get());
  }
  const BufferSet& skip_;
};

bool intersects(const BufferSet& a, const BufferSet& b) {
  for (const ir::BufferObj* x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

class Inserter : public ir::Mutator {
 protected:
  ir::Stmt mutate_AttrStmt(const ir::AttrStmt& n, const ir::Stmt& self) override {
    if (n.key == te::kDoubleBufferAttr && n.body->kind == ir::NodeKind::kAllocate) {
      skip_.insert(static_cast<const ir::Allocate&>(*n.body).buffer.get());
    }
    return ir::Mutator::mutate_AttrStmt(n, self);
  }

  ir::Stmt mutate_Seq(const ir::Seq& n, const ir::Stmt& self) override {
    std::vector<ir::Stmt> out;
    BufferSet written, read;  // since the last barrier
    for (const ir::Stmt& s0 : n.stmts) {
      const ir::Stmt s = mutate(s0);
      Access a(skip_);
      a.visit(s);
      if (intersects(a.reads, written) || intersects(a.writes, read)) {
        out.push_back(sync_threads());
        written.clear();
        read.clear();
      }
      written.insert(a.writes.begin(), a.writes.end());
      read.insert(a.reads.begin(), a.reads.end());
      out.push_back(s);
    }
    return ir::seq(out);
  }

  ir::Stmt mutate_For(const ir::For& n, const ir::Stmt& self) override {
    ir::Stmt body = mutate(n.body);
    Access a(skip_);
    a.visit(body);
    if (intersects(a.reads, a.writes)) body = ir::seq({body, sync_threads()});
    if (body == n.body) return self;
    return ir::with_body(n, body);
  }

 private:
  BufferSet skip_;
};

}  // namespace

ir::Stmt sync_threads() {
  return ir::evaluate(ir::call(ir::DType::kInt32, ir::Intrinsic::kSyncThreads, {}));
}

ir::Stmt insert_barriers(const ir::Stmt& kernel) { return Inserter().mutate(kernel); }

}  // namespace weft::compiler::codegen
