// What a statement uses, and the buffers of a lowered function; see lowered_func.h.
#include "compiler/codegen/lowered_func.h"

#include <set>

#include "compiler/ir/visitor.h"
#include "compiler/te/lower.h"

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

LoweredFunc lower_func(const std::string& name, te::Schedule& s,
                       const std::vector<te::Tensor>& inputs, const std::vector<te::Tensor>& outputs) {
  LoweredFunc f;
  f.name = name;
  f.body = te::lower(s);
  for (const te::Tensor& t : inputs) f.args.push_back(t->buffer);
  for (const te::Tensor& t : outputs) f.args.push_back(t->buffer);
  for (const ir::Buffer& b : global_buffers(f.body)) {
    bool known = false;
    for (const ir::Buffer& a : f.args) known |= a == b;
    if (!known) f.args.push_back(b);
  }
  return f;
}

}  // namespace weft::compiler::codegen
