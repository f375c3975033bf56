// Loop IR printing; see printer.h.
#include "compiler/ir/printer.h"

#include <sstream>

#include "compiler/ir/visitor.h"

namespace weft::compiler::ir {

namespace {

class Printer : public Visitor {
 public:
  std::ostringstream os;
  int indent = 0;

  void line() { os << std::string(static_cast<size_t>(2 * indent), ' '); }

 protected:
  void visit_IntImm(const IntImm& n) override { os << n.value; }
  void visit_FloatImm(const FloatImm& n) override {
    std::ostringstream f;
    f.precision(9);
    f << n.value;
    const std::string t = f.str();
    os << t << (t.find_first_of(".eEin") == std::string::npos ? ".0f" : "f");
  }
  void visit_VarRef(const VarRef& n) override { os << n.var->name; }
  void visit_Binary(const Binary& n) override {
    if (n.op == BinOp::kMin || n.op == BinOp::kMax) {
      os << binop_name(n.op) << "(";
      visit(n.a);
      os << ", ";
      visit(n.b);
      os << ")";
      return;
    }
    const bool tight = n.op == BinOp::kMul || n.op == BinOp::kFloorDiv || n.op == BinOp::kFloorMod;
    os << "(";
    visit(n.a);
    os << (tight ? "" : " ") << binop_name(n.op) << (tight ? "" : " ");
    visit(n.b);
    os << ")";
  }
  void visit_Cast(const Cast& n) override {
    os << dtype_name(n.dtype) << "(";
    visit(n.value);
    os << ")";
  }
  void visit_Load(const Load& n) override {
    os << n.buffer->name << "[";
    for (size_t i = 0; i < n.indices.size(); ++i) {
      if (i) os << ", ";
      visit(n.indices[i]);
    }
    os << "]";
  }
  void visit_Call(const Call& n) override {
    os << intrinsic_name(n.op) << "(";
    bool first = true;
    for (const Buffer& b : n.buffers) {
      os << (first ? "" : ", ") << b->name;
      first = false;
    }
    for (const Expr& a : n.args) {
      if (!first) os << ", ";
      visit(a);
      first = false;
    }
    os << ")";
  }
  void visit_For(const For& n) override {
    if (n.thread) {
      line();
      os << "// attr bind." << thread_axis_name(*n.thread) << " = ";
      visit(n.extent);
      os << "\n";
    }
    line();
    os << for_kind_name(n.kind) << " (" << n.var->name << ", ";
    visit(n.min);
    os << ", ";
    visit(n.extent);
    os << ") {\n";
    ++indent;
    visit(n.body);
    --indent;
    line();
    os << "}\n";
  }
  void visit_Store(const Store& n) override {
    line();
    os << n.buffer->name << "[";
    for (size_t i = 0; i < n.indices.size(); ++i) {
      if (i) os << ", ";
      visit(n.indices[i]);
    }
    os << "] = ";
    visit(n.value);
    os << "\n";
  }
  void visit_Allocate(const Allocate& n) override {
    line();
    os << "allocate " << n.buffer->name << "[" << dtype_name(n.buffer->dtype);
    for (int64_t d : n.buffer->shape) os << " * " << d;
    os << "] in " << scope_name(n.buffer->scope) << "\n";
    visit(n.body);
  }
  void visit_IfThenElse(const IfThenElse& n) override {
    line();
    os << "if (";
    visit(n.cond);
    os << ") {\n";
    ++indent;
    visit(n.then_case);
    --indent;
    if (n.else_case) {
      line();
      os << "} else {\n";
      ++indent;
      visit(n.else_case);
      --indent;
    }
    line();
    os << "}\n";
  }
  void visit_Evaluate(const Evaluate& n) override {
    line();
    visit(n.value);
    os << "\n";
  }
  void visit_AttrStmt(const AttrStmt& n) override {
    line();
    os << "// attr " << n.key << " = ";
    visit(n.value);
    os << "\n";
    visit(n.body);
  }
};

}  // namespace

std::string to_string(const Expr& e) {
  Printer p;
  p.visit(e);
  return p.os.str();
}

std::string to_string(const Stmt& s) {
  Printer p;
  p.visit(s);
  return p.os.str();
}

}  // namespace weft::compiler::ir
