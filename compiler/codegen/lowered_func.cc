// The buffers of a lowered function; see lowered_func.h.
#include "compiler/codegen/lowered_func.h"

#include <set>

#include "compiler/ir/visitor.h"

namespace weft::compiler::codegen {

namespace {

class BufferUses : public ir::Visitor {
 public:
  std::vector<ir::Buffer> buffers;

 protected:
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
    if (seen_.insert(b.get()).second) buffers.push_back(b);
  }
  std::set<const ir::BufferObj*> seen_;
};

}  // namespace

std::vector<ir::Buffer> global_buffers(const ir::Stmt& s) {
  BufferUses uses;
  uses.visit(s);
  std::vector<ir::Buffer> out;
  for (const ir::Buffer& b : uses.buffers) {
    if (b->scope == ir::Scope::kGlobal) out.push_back(b);
  }
  return out;
}

}  // namespace weft::compiler::codegen
