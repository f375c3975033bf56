// What a statement uses, and the buffers of a lowered function; see lowered_func.h.
#include "compiler/codegen/lowered_func.h"

#include <set>

#include "compiler/ir/visitor.h"

namespace weft::compiler::codegen {

namespace {

class UsesVisitor : public ir::Visitor {
 public:
  StmtUses uses;

 protected:
  void visit_VarRef(const ir::VarRef& n) override {
    if (seen_vars_.insert(n.var.get()).second) uses.vars.push_back(n.var.get());
  }
  void visit_Load(const ir::Load& n) override {
    use(n.buffer);
    ir::Visitor::visit_Load(n);
  }
  void visit_Store(const ir::Store& n) override {
    use(n.buffer);
    ir::Visitor::visit_Store(n);
  }
  void visit_Call(const ir::Call& n) override {
    for (const ir::Buffer& b : n.buffers) use(b);
    ir::Visitor::visit_Call(n);
  }
  void visit_Allocate(const ir::Allocate& n) override {
    use(n.buffer);
    ir::Visitor::visit_Allocate(n);
  }

 private:
  void use(const ir::Buffer& b) {
    if (seen_bufs_.insert(b.get()).second) uses.buffers.push_back(b);
  }
  std::set<const ir::VarObj*> seen_vars_;
  std::set<const ir::BufferObj*> seen_bufs_;
};

}  // namespace

StmtUses uses_of(const ir::Stmt& s) {
  UsesVisitor v;
  v.visit(s);
  return std::move(v.uses);
}

std::vector<ir::Buffer> global_buffers(const ir::Stmt& s) {
  std::vector<ir::Buffer> out;
  for (const ir::Buffer& b : uses_of(s).buffers) {
    if (b->scope == ir::Scope::kGlobal) out.push_back(b);
  }
  return out;
}

}  // namespace weft::compiler::codegen
