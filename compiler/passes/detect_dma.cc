// The DMA pattern detection pass; see detect_dma.h.
#include "compiler/passes/detect_dma.h"

#include <optional>

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {

namespace {

using ir::Expr;
using ir::Stmt;

struct Loop {
  ir::Var var;
  int64_t extent;
  std::vector<ir::Var> merged;  // outer loops coalesced into this one (see lower_copy)
};

[[noreturn]] void fail(const ir::Buffer& dst, const std::string& why) {
  throw UserError("DMA copy into '" + dst->name + "': " + why);
}

// The element (block) index of an access: row-major over all but the last two dimensions.
ir::LinearForm block_index(const ir::Buffer& b, const std::vector<Expr>& idx,
                           const ir::Buffer& dst) {
  const Expr flat = ir::flat_index(b, idx, idx.size() - 2);
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
  for (const Loop& l : loops) {
    f.coef[l.var.get()] = 0;
    for (const ir::Var& m : l.merged) f.coef[m.get()] = 0;
  }
  return ir::from_linear(f);
}

// `s` with the variables `vars` at 0.
Stmt pin(const Stmt& s, const std::vector<ir::Var>& vars) {
  ir::VarMap zero;
  for (const ir::Var& v : vars) zero[v.get()] = ir::imm(0);
  return ir::substitute(s, zero);
}

// A zero-padded read, select(in bounds, src[...], 0): the DMA pads what lies outside.
const ir::Load* padded_load(const Expr& value) {
  if (value->kind != ir::NodeKind::kCall) return nullptr;
  const auto& c = static_cast<const ir::Call&>(*value);
  if (c.op != ir::Intrinsic::kSelect) return nullptr;
  const ir::IntImm* zero = ir::as_imm(c.args[2]);
  if (!zero || zero->value != 0 || c.args[1]->kind != ir::NodeKind::kLoad) return nullptr;
  return static_cast<const ir::Load*>(c.args[1].get());
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
    loops.push_back({f.var, ext->value, {}});
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
  // A store out of the accumulator may narrow (STORE keeps the low bits of each element); a
  // load may read a zero-padded view of its source.
  Expr value = st.value;
  if (value->kind == ir::NodeKind::kCast) {
    const Expr& inner = static_cast<const ir::Cast&>(*value).value;
    if (inner->kind == ir::NodeKind::kLoad && dst->scope == ir::Scope::kGlobal &&
        static_cast<const ir::Load&>(*inner).buffer->scope == ir::Scope::kAcc) {
      value = inner;
    }
    // A load of int8 DRAM data widened into the accumulator (LOAD ACC_8BIT sign-extends).
    if (inner->kind == ir::NodeKind::kLoad && dst->scope == ir::Scope::kAcc &&
        static_cast<const ir::Load&>(*inner).buffer->scope == ir::Scope::kGlobal &&
        ir::dtype_bits(static_cast<const ir::Load&>(*inner).buffer->dtype) == 8) {
      value = inner;
    }
  }
  const ir::Load* padded = padded_load(value);
  if (padded) {
    if (dst->scope == ir::Scope::kGlobal) fail(dst, "only loads into on-chip buffers pad");
  } else if (value->kind != ir::NodeKind::kLoad) {
    fail(dst, "the stored value is not a plain load (run lower_alu for an epilogue): " +
                  ir::to_string(st.value));
  }
  const auto& ld = padded ? *padded : static_cast<const ir::Load&>(*value);
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
    if (!ir::is_var(st.indices[dd], l.var) || !ir::is_var(ld.indices[sd], l.var) ||
        l.extent != dst->shape[dd]) {
      fail(dst, "block dimension " + std::to_string(dd) + " must be copied whole by loop '" +
                    l.var->name + "'");
    }
  }
  // For a padded copy, the source dimensions the rows and columns walk: the two just outside
  // the block (height and width).
  const size_t sr = src->shape.size();
  if (padded && sr < 4) fail(dst, "a padded copy needs rows and columns outside the block");
  auto dim_form = [&](size_t dim) {
    auto f = ir::linear_form(ir::simplify(ld.indices[dim]));
    if (!f) fail(dst, "the index into '" + src->name + "' is not affine");
    return *f;
  };
  const std::optional<ir::LinearForm> fy = padded ? std::optional(dim_form(sr - 4)) : std::nullopt;
  const std::optional<ir::LinearForm> fx = padded ? std::optional(dim_form(sr - 3)) : std::nullopt;
  auto walks = [&](const std::optional<ir::LinearForm>& form, const Loop& l) {
    return form && coef(*form, l.var) != 0;
  };
  ir::LinearForm d = block_index(dst, st.indices, dst);
  ir::LinearForm f = block_index(src, ld.indices, dst);
  // Loops of extent 1 outside the block vanish (their variable is 0), except a padded copy's
  // row and column loops, whose position still decides the padding.
  std::vector<Loop> outside;
  std::vector<ir::Var> pinned;
  for (size_t i = 0; i + 2 < loops.size(); ++i) {
    const Loop& l = loops[i];
    if (l.extent == 1 && !walks(fy, l) && !walks(fx, l)) {
      pinned.push_back(l.var);
      d.coef[l.var.get()] = 0;
      f.coef[l.var.get()] = 0;
    } else {
      outside.push_back(l);
    }
  }
  // Neighbouring loops that walk both buffers contiguously are one longer loop (a weight tile
  // of whole kernels is one row); padded copies keep their dimensions apart.
  for (size_t i = outside.size(); !padded && i-- > 1;) {
    Loop& in = outside[i];
    const Loop& out = outside[i - 1];
    if (coef(d, out.var) == coef(d, in.var) * in.extent &&
        coef(f, out.var) == coef(f, in.var) * in.extent) {
      in.extent *= out.extent;
      in.merged.push_back(out.var);
      in.merged.insert(in.merged.end(), out.merged.begin(), out.merged.end());
      outside.erase(outside.begin() + static_cast<ptrdiff_t>(i - 1));
    }
  }
  auto step = [&](const ir::LinearForm& form, const Loop& l) {
    return l.var ? coef(form, l.var) : int64_t{0};
  };
  // Rows and columns: a padded copy's height and width loops; otherwise the innermost loop is
  // the columns when it steps one block in both buffers (else the rows, of one block each)
  // and the loop outside it the rows. Loops further out stay loops around the copy.
  const Loop one{nullptr, 1, {}};
  Loop y = one, x = one;
  std::vector<Loop> around;
  if (padded) {
    for (const Loop& l : outside) {
      if (walks(fx, l) && !x.var) {
        x = l;
      } else if (walks(fy, l) && !y.var) {
        y = l;
      } else {
        around.push_back(l);
      }
    }
  } else {
    around = outside;
    // Rows of one block walk the on-chip tile densely; anything else innermost is the columns.
    const ir::LinearForm& chip = dst->scope != ir::Scope::kGlobal ? d : f;
    if (!around.empty() && !(step(chip, around.back()) == 1 &&
                             (step(d, around.back()) != 1 || step(f, around.back()) != 1))) {
      x = around.back();
      around.pop_back();
    }
    if (!around.empty()) {
      y = around.back();
      around.pop_back();
    }
  }
  std::vector<Loop> copy_loops;
  for (const Loop* l : {&y, &x}) {
    if (l->var) copy_loops.push_back(*l);
  }
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
  // (A padded copy reads at most the source's width per row; emission clips the rest.)
  if ((!padded && src_stride < x.extent) || dst_stride < x.extent) {
    fail(dst, "rows of " + std::to_string(x.extent) + " blocks overlap (stride " +
                  std::to_string(std::min(src_stride, dst_stride)) + ")");
  }
  std::vector<Expr> args = {base_of(d, copy_loops), base_of(f, copy_loops), ir::imm(y.extent),
                            ir::imm(x.extent), ir::imm(dst_stride), ir::imm(src_stride)};
  ir::Intrinsic op = ir::Intrinsic::kDmaCopy2d;
  if (padded) {
    // The source coordinates where the rows and columns start (negative in the padding) and
    // the extents of those dimensions; emission turns what falls outside into pads.
    op = ir::Intrinsic::kDmaCopy2dPad;
    for (const auto& [form, dim] : {std::pair{*fy, sr - 4}, std::pair{*fx, sr - 3}}) {
      ir::LinearForm start = form;
      for (const ir::Var& v : pinned) start.coef[v.get()] = 0;
      args.push_back(base_of(start, copy_loops));
      args.push_back(ir::imm(src->shape[dim]));
    }
  }
  Stmt out = ir::evaluate(ir::call(ir::DType::kInt32, op, args, {dst, src}));
  for (auto it = around.rbegin(); it != around.rend(); ++it) {
    // A coalesced loop outside the copy: its variable, over the product of the extents,
    // stands for all of them (their coefficients are its coefficient times inner extents).
    if (!it->merged.empty()) out = pin(out, it->merged);
    out = ir::for_loop(it->var, ir::imm(0), ir::imm(it->extent), ir::ForKind::kSerial, out);
  }
  return out;
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
