// The ALU epilogue pass; see lower_alu.h.
#include "compiler/passes/lower_alu.h"

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/insn.h"

namespace weft::compiler::passes {

namespace {

using ir::Expr;
using ir::Stmt;

constexpr int64_t kImmMin = -(int64_t{1} << 15), kImmMax = (int64_t{1} << 15) - 1;

struct AluStep {
  isa::AluOp op;
  int64_t imm;
  const ir::Load* src = nullptr;  // a second accumulator tile instead of the immediate
};

struct Loop {
  ir::Var var;
  Expr min, extent;
  ir::ForKind kind;
};

class Epilogue {
 public:
  Epilogue(const ir::Buffer& dst, int64_t max_shift, int acc_bits)
      : dst_(dst), max_shift_(max_shift), acc_bits_(acc_bits) {}

  // The accumulator load at the bottom of `e` and the operations applied to it, innermost
  // first.
  void peel(const Expr& e) {
    if (e->kind == ir::NodeKind::kLoad) {
      const auto& l = static_cast<const ir::Load&>(*e);
      if (l.buffer->scope != ir::Scope::kAcc) {
        fail(e, "reads '" + l.buffer->name + "', which is not in the accumulator");
      }
      acc = &l;
      return;
    }
    if (e->kind != ir::NodeKind::kBinary) fail(e, "is not an ALU operation");
    const auto& b = static_cast<const ir::Binary&>(*e);
    // ADD and MUL wrap at the accumulator's width; computed wider, the IR would not wrap.
    if ((b.op == ir::BinOp::kAdd || b.op == ir::BinOp::kMul) &&
        ir::dtype_bits(b.dtype) > acc_bits_) {
      fail(e, std::string("computes in ") + ir::dtype_name(b.dtype) + ", wider than the " +
                  std::to_string(acc_bits_) + "-bit accumulator the ALU wraps at (use " +
                  "int32 constants)");
    }
    const ir::IntImm* rhs = ir::as_imm(b.b);
    const ir::IntImm* lhs = ir::as_imm(b.a);
    const bool commutes = b.op == ir::BinOp::kMin || b.op == ir::BinOp::kMax ||
                          b.op == ir::BinOp::kAdd || b.op == ir::BinOp::kMul;
    if (!rhs && !(commutes && lhs)) {
      // Two tiles: the accumulator chain on one side, a plain load of a second accumulator
      // tile (a bias, say) on the other; the chain is the left side when both are loads.
      const bool a_load = b.a->kind == ir::NodeKind::kLoad;
      const bool b_load = b.b->kind == ir::NodeKind::kLoad;
      // SHR does not commute: its amount (a per-channel shift tile) must be the right side.
      if ((b.op == ir::BinOp::kShr && (!b_load || lhs)) || !(b_load || (a_load && commutes))) {
        fail(e, "has no constant operand and no second accumulator tile");
      }
      const bool chain_left = b_load;
      peel(chain_left ? b.a : b.b);
      const auto& src = static_cast<const ir::Load&>(chain_left ? *b.b : *b.a);
      if (src.buffer->scope != ir::Scope::kAcc) {
        fail(e, "reads '" + src.buffer->name + "', which is not in the accumulator");
      }
      const isa::AluOp op = b.op == ir::BinOp::kMin   ? isa::AluOp::kMin
                            : b.op == ir::BinOp::kMax ? isa::AluOp::kMax
                            : b.op == ir::BinOp::kAdd ? isa::AluOp::kAdd
                            : b.op == ir::BinOp::kMul ? isa::AluOp::kMul
                            : b.op == ir::BinOp::kShr ? isa::AluOp::kShr
                                                      : (fail(e, "is not an ALU operation"),
                                                         isa::AluOp::kAdd);
      steps.push_back({op, 0, &src});
      return;
    }
    const Expr& operand = rhs ? b.a : b.b;
    const ir::IntImm* constant = rhs ? rhs : lhs;
    peel(operand);
    const int64_t v = constant->value;
    switch (b.op) {
      case ir::BinOp::kMin:
        push(e, isa::AluOp::kMin, v);
        return;
      case ir::BinOp::kMax:
        push(e, isa::AluOp::kMax, v);
        return;
      case ir::BinOp::kAdd:
        push(e, isa::AluOp::kAdd, v);
        return;
      case ir::BinOp::kMul:
        push(e, isa::AluOp::kMul, v);
        return;
      case ir::BinOp::kShr:
        if (v < 0 || v > 31) fail(e, "shifts by " + std::to_string(v) + " (0 to 31 allowed)");
        for (int64_t left = v; left > 0; left -= max_shift_) {
          steps.push_back({isa::AluOp::kShr, std::min(left, max_shift_)});
        }
        return;
      default:
        fail(e, std::string("uses '") + ir::binop_name(b.op) + "', which the ALU does not have");
    }
  }

  const ir::Load* acc = nullptr;
  std::vector<AluStep> steps;

 private:
  void push(const Expr& e, isa::AluOp op, int64_t v) {
    if (v < kImmMin || v > kImmMax) {
      fail(e, "has the constant " + std::to_string(v) + ", beyond the ALU's 16-bit immediate");
    }
    steps.push_back({op, v});
  }
  [[noreturn]] void fail(const Expr& e, const std::string& why) const {
    throw UserError("ALU epilogue of '" + dst_->name + "': " + ir::to_string(e) + " " + why +
                    " (supported: min, max, add, mul with a constant or a second accumulator "
                    "tile; shift right by a constant or by a tile of amounts)");
  }
  const ir::Buffer& dst_;
  const int64_t max_shift_;
  const int acc_bits_;
};

Stmt wrap(const std::vector<Loop>& loops, Stmt body) {
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    body = ir::for_loop(it->var, it->min, it->extent, it->kind, body);
  }
  return body;
}

// The block index into an accumulator tile: row-major over all but the last two dimensions.
Expr block_index(const ir::Load& l) {
  const size_t n = l.indices.size();
  return ir::simplify(ir::flat_index(l.buffer, l.indices, n < 2 ? 0 : n - 2));
}

Stmt lower_epilogue(const ir::AttrStmt& attr, const Stmt& self, int64_t max_shift,
                    int acc_bits) {
  std::vector<Loop> loops;
  Stmt s = attr.body;
  while (s->kind == ir::NodeKind::kFor) {
    const auto& f = static_cast<const ir::For&>(*s);
    loops.push_back({f.var, f.min, f.extent, f.kind});
    s = f.body;
  }
  if (s->kind != ir::NodeKind::kStore) return self;  // detect_dma reports the shape
  const auto& st = static_cast<const ir::Store&>(*s);
  if (st.buffer->scope != ir::Scope::kGlobal) return self;  // a load: detect_dma's
  Expr value = st.value;
  if (value->kind == ir::NodeKind::kCast) value = static_cast<const ir::Cast&>(*value).value;
  if (value->kind == ir::NodeKind::kLoad) return self;  // a plain (or narrowing) copy
  Epilogue ep(st.buffer, max_shift, acc_bits);
  ep.peel(value);
  const ir::Load& acc = *ep.acc;
  // The ALU works on whole accumulator blocks: the two innermost loops must sweep the
  // block's two dimensions.
  const size_t r = acc.indices.size();
  if (loops.size() < 2 || r < 2 || !ir::is_var(acc.indices[r - 2], loops[loops.size() - 2].var) ||
      !ir::is_var(acc.indices[r - 1], loops.back().var) ||
      !ir::as_imm(loops[loops.size() - 2].extent) || !ir::as_imm(loops.back().extent) ||
      ir::as_imm(loops[loops.size() - 2].extent)->value != acc.buffer->shape[r - 2] ||
      ir::as_imm(loops.back().extent)->value != acc.buffer->shape[r - 1]) {
    throw UserError("ALU epilogue of '" + st.buffer->name +
                    "': the two innermost loops must sweep whole accumulator blocks of '" +
                    acc.buffer->name + "'");
  }
  const std::vector<Loop> outer(loops.begin(), loops.end() - 2);
  const Expr block = block_index(acc);
  std::vector<Stmt> out;
  for (const AluStep& step : ep.steps) {
    Expr src_block = block;
    ir::Buffer src_buffer = acc.buffer;
    if (step.src) {
      // The second tile must hold the same lanes: its block dimensions swept by the same
      // two loops.
      const size_t sr = step.src->indices.size();
      if (sr < 2 || !ir::is_var(step.src->indices[sr - 2], loops[loops.size() - 2].var) ||
          !ir::is_var(step.src->indices[sr - 1], loops.back().var)) {
        throw UserError("ALU epilogue of '" + st.buffer->name + "': '" + step.src->buffer->name +
                        "' must be read block for block like '" + acc.buffer->name + "'");
      }
      src_block = block_index(*step.src);
      src_buffer = step.src->buffer;
    }
    const Expr call = ir::call(ir::DType::kInt32, ir::Intrinsic::kAlu,
                               {block, src_block, ir::imm(static_cast<int64_t>(step.op)),
                                ir::imm(step.src ? 0 : 1), ir::imm(step.imm)},
                               {acc.buffer, src_buffer});
    out.push_back(ir::attr("pragma_alu", ir::imm(1), wrap(outer, ir::evaluate(call))));
  }
  const Stmt copy = ir::store(st.buffer, st.indices,
                              st.value->kind == ir::NodeKind::kCast
                                  ? ir::cast(st.value->dtype, ir::load(acc.buffer, acc.indices))
                                  : ir::load(acc.buffer, acc.indices));
  out.push_back(ir::attr(attr.key, attr.value, wrap(loops, copy)));
  return ir::seq(out);
}

class LowerAlu : public ir::Mutator {
 public:
  LowerAlu(int64_t max_shift, int acc_bits) : max_shift_(max_shift), acc_bits_(acc_bits) {}

 protected:
  Stmt mutate_AttrStmt(const ir::AttrStmt& n, const Stmt& self) override {
    if (n.key != "pragma_dma_copy") return ir::Mutator::mutate_AttrStmt(n, self);
    return lower_epilogue(n, self, max_shift_, acc_bits_);
  }

 private:
  int64_t max_shift_;
  int acc_bits_;
};

}  // namespace

Stmt lower_alu(const Stmt& s, const isa::Layout& layout) {
  // SHR takes its amount from the low log2(accumulator bits) bits of the operand, read as a
  // signed number: 15 is the largest right shift of one instruction for int32.
  int log_bits = 0;
  while ((1 << log_bits) < layout.config.acc_bits) ++log_bits;
  return LowerAlu((int64_t{1} << (log_bits - 1)) - 1, layout.config.acc_bits).mutate(s);
}

}  // namespace weft::compiler::passes
