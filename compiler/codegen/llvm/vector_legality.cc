// Vector legality and lane analysis of the LLVM backend; see vector_legality.h.
#include "compiler/codegen/llvm/vector_legality.h"

#include "compiler/codegen/llvm/float_math.h"

#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"

namespace weft::compiler::codegen {

namespace {

// Why a vectorized loop's body cannot be turned into lane-wide operations (empty: it can).
class VectorCheck : public ir::Visitor {
 public:
  explicit VectorCheck(const ir::VarObj* v) : var_(v) {}
  std::string why;

  void finish() {
    // A buffer stored with a lane-dependent index and read at a different index carries a
    // dependence between lanes.
    for (const auto& [buf, store_idx] : stores_) {
      for (const auto& [lbuf, load_idx] : loads_) {
        if (lbuf == buf && load_idx != store_idx) {
          fail("buffer is stored and loaded at different indices");
        }
      }
    }
  }

 protected:
  void visit_For(const ir::For& n) override { fail("it contains the loop '" + n.var->name + "'"); }
  void visit_Allocate(const ir::Allocate& n) override { fail("it allocates a buffer"); }
  void visit_Call(const ir::Call& n) override {
    if (!cpu_implements(n.op)) fail("it calls '" + n.name() + "'");
    ir::Visitor::visit_Call(n);
  }
  void visit_Load(const ir::Load& n) override {
    loads_.push_back({n.buffer.get(), ir::to_string(flat_offset(n.buffer, n.indices))});
    ir::Visitor::visit_Load(n);
  }
  void visit_Store(const ir::Store& n) override {
    const ir::Expr off = flat_offset(n.buffer, n.indices);
    if (!ir::mentions(off, var_)) {
      if (ir::mentions(n.value, var_)) fail("a lane-dependent value is stored to one address");
    } else {
      auto c = coef_of(off, var_);
      if (c && *c == 0) fail("a lane-dependent value is stored to one address");
      stores_.push_back({n.buffer.get(), ir::to_string(off)});
    }
    ir::Visitor::visit_Store(n);
  }

 private:
  void fail(const std::string& w) {
    if (why.empty()) why = w;
  }
  const ir::VarObj* var_;
  std::vector<std::pair<const ir::BufferObj*, std::string>> stores_, loads_;
};

}  // namespace

std::optional<int64_t> coef_of(const ir::Expr& e, const ir::VarObj* v) {
  if (!ir::mentions(e, v)) return 0;
  switch (e->kind) {
    case ir::NodeKind::kVarRef:
      return 1;
    case ir::NodeKind::kCast:
      if (ir::is_float(e->dtype)) return std::nullopt;
      return coef_of(static_cast<const ir::Cast&>(*e).value, v);
    case ir::NodeKind::kBinary: {
      const auto& b = static_cast<const ir::Binary&>(*e);
      if (b.op == ir::BinOp::kAdd || b.op == ir::BinOp::kSub) {
        auto x = coef_of(b.a, v), y = coef_of(b.b, v);
        if (!x || !y) return std::nullopt;
        return b.op == ir::BinOp::kAdd ? *x + *y : *x - *y;
      }
      if (b.op == ir::BinOp::kMul) {
        if (const ir::IntImm* k = ir::as_imm(b.b)) {
          auto x = coef_of(b.a, v);
          return x ? std::optional<int64_t>(*x * k->value) : std::nullopt;
        }
        if (const ir::IntImm* k = ir::as_imm(b.a)) {
          auto y = coef_of(b.b, v);
          return y ? std::optional<int64_t>(*y * k->value) : std::nullopt;
        }
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

ir::Expr flat_offset(const ir::Buffer& b, const std::vector<ir::Expr>& idx) {
  std::vector<ir::Expr> idx64;
  for (const ir::Expr& i : idx) idx64.push_back(ir::cast(ir::DType::kInt64, i));
  return ir::flat_index(b, idx64, idx64.size());
}

bool cpu_implements(ir::Intrinsic op) {
  return op == ir::Intrinsic::kSelect || op == ir::Intrinsic::kDot2I16 ||
         op == ir::Intrinsic::kDot4U8S8 || op == ir::Intrinsic::kRoundEven || is_float_math(op);
}

std::string why_not_vectorizable(const ir::For& n) {
  VectorCheck check(n.var.get());
  check.visit(n.body);
  check.finish();
  return check.why;
}

}  // namespace weft::compiler::codegen
