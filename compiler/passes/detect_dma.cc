// The DMA pattern detection pass; see detect_dma.h.
#include "compiler/passes/detect_dma.h"

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

[[noreturn]] void fail(const ir::Buffer& dst, const std::string& why) {
  throw UserError("DMA copy into '" + dst->name + "': " + why);
}

bool is_var(const Expr& e, const ir::Var& v) {
  return e->kind == ir::NodeKind::kVarRef && static_cast<const ir::VarRef&>(*e).var == v;
}

// The element (block) index of an access: row-major over all but the last two dimensions.
ir::LinearForm block_index(const ir::Buffer& b, const std::vector<Expr>& idx,
                           const ir::Buffer& dst) {
  Expr flat = ir::imm(0);
  for (size_t d = 0; d + 2 < idx.size(); ++d) {
    flat = ir::add(ir::mul(flat, ir::imm(b->shape[d])), idx[d]);
  }
  auto f = ir::linear_form(ir::simplify(flat));
  if (!f) fail(dst, "the index into '" + b->name + "' is not affine: " + ir::to_string(flat));
  return *f;
}

int64_t coef(const ir::LinearForm& f, const ir::Var& v) {
  auto it = f.coef.find(v.get());
  return it == f.coef.end() ? 0 : it->second;
}

// The form with the loop variables removed: the base in terms of enclosing loops.
Expr base_of(ir::LinearForm f, const std::vector<Loop>& loops) {
  for (const Loop& l : loops) f.coef[l.var.get()] = 0;
  return ir::from_linear(f);
}

Stmt lower_copy(const Stmt& body) {
  std::vector<Loop> loops;
  Stmt s = body;
  while (s->kind == ir::NodeKind::kFor) {
    const auto& f = static_cast<const ir::For&>(*s);
    const ir::IntImm* mn = ir::as_imm(f.min);
    const ir::IntImm* ext = ir::as_imm(f.extent);
    if (!mn || !ext || mn->value != 0) {
      throw UserError("DMA copy: loop '" + f.var->name +
                      "' must start at 0 with a constant extent");
    }
    loops.push_back({f.var, ext->value});
    s = f.body;
  }
  if (s->kind == ir::NodeKind::kIfThenElse) {
    throw UserError("DMA copy: the copy is guarded (" +
                    ir::to_string(static_cast<const ir::IfThenElse&>(*s).cond) +
                    "), a partial tile; pad the tensor to whole tiles");
  }
  if (s->kind != ir::NodeKind::kStore) {
    throw UserError("DMA copy: expected a loop nest around one copy, found:\n" + ir::to_string(s));
  }
  const auto& st = static_cast<const ir::Store&>(*s);
  const ir::Buffer& dst = st.buffer;
  // A store out of the accumulator may narrow (STORE keeps the low bits of each element).
  Expr value = st.value;
  if (value->kind == ir::NodeKind::kCast) {
    const Expr& inner = static_cast<const ir::Cast&>(*value).value;
    if (inner->kind == ir::NodeKind::kLoad && dst->scope == ir::Scope::kGlobal &&
        static_cast<const ir::Load&>(*inner).buffer->scope == ir::Scope::kAcc) {
      value = inner;
    }
  }
  if (value->kind != ir::NodeKind::kLoad) {
    fail(dst, "the stored value is not a plain load (run lower_alu for an epilogue): " +
                  ir::to_string(st.value));
  }
  const auto& ld = static_cast<const ir::Load&>(*value);
  const ir::Buffer& src = ld.buffer;
  const size_t r = dst->shape.size();
  if (r < 2 || src->shape.size() < 2 || loops.size() < 2) {
    fail(dst, "needs at least two dimensions (the block) and their two loops");
  }
  for (int k = 0; k < 2; ++k) {
    const size_t dd = r - 2 + k, sd = src->shape.size() - 2 + k;
    const Loop& l = loops[loops.size() - 2 + k];
    if (dst->shape[dd] != src->shape[sd]) {
      fail(dst, "block dimension " + std::to_string(dd) + " is " + std::to_string(dst->shape[dd]) +
                    " here and " + std::to_string(src->shape[sd]) + " in '" + src->name + "'");
    }
    if (!is_var(st.indices[dd], l.var) || !is_var(ld.indices[sd], l.var) ||
        l.extent != dst->shape[dd]) {
      fail(dst, "block dimension " + std::to_string(dd) + " must be copied whole by loop '" +
                    l.var->name + "'");
    }
  }
  const std::vector<Loop> outer(loops.begin(), loops.end() - 2);
  if (outer.size() > 2) {
    fail(dst, "a 2D DMA allows two loops outside the block; loop '" + outer[0].var->name +
                  "' is a third");
  }
  const ir::LinearForm d = block_index(dst, st.indices, dst);
  const ir::LinearForm f = block_index(src, ld.indices, dst);
  const Loop one{nullptr, 1};
  const Loop& y = outer.size() == 2 ? outer[0] : one;
  const Loop& x = outer.empty() ? one : outer.back();
  auto step = [&](const ir::LinearForm& form, const Loop& l) {
    return l.var ? coef(form, l.var) : int64_t{0};
  };
  if (x.var && (step(d, x) != 1 || step(f, x) != 1)) {
    fail(dst, "loop '" + x.var->name + "' must step one block in both buffers (it steps " +
                  std::to_string(step(d, x)) + " and " + std::to_string(step(f, x)) + ")");
  }
  const int64_t dst_stride = y.var ? step(d, y) : x.extent;
  const int64_t src_stride = y.var ? step(f, y) : x.extent;
  if (dst->scope != ir::Scope::kGlobal && dst_stride != x.extent) {
    fail(dst, "loop '" + y.var->name + "' steps the on-chip tile by " + std::to_string(dst_stride) +
                  " blocks, not " + std::to_string(x.extent) + " (the tile must be dense)");
  }
  if (src_stride < x.extent || dst_stride < x.extent) {
    fail(dst, "rows of " + std::to_string(x.extent) + " blocks overlap (stride " +
                  std::to_string(std::min(src_stride, dst_stride)) + ")");
  }
  return ir::evaluate(ir::call(ir::DType::kInt32, "weft.dma_copy2d",
                               {base_of(d, outer), base_of(f, outer), ir::imm(y.extent),
                                ir::imm(x.extent), ir::imm(dst_stride), ir::imm(src_stride)},
                               {dst, src}));
}

class DetectDma : public ir::Mutator {
 protected:
  Stmt mutate_AttrStmt(const ir::AttrStmt& n, const Stmt& self) override {
    if (n.key != "pragma_dma_copy") return ir::Mutator::mutate_AttrStmt(n, self);
    return lower_copy(n.body);
  }
};

}  // namespace

Stmt detect_dma(const Stmt& s) { return DetectDma().mutate(s); }

}  // namespace weft::compiler::passes
