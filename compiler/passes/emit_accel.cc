// The emission pass; see emit_accel.h.
#include "compiler/passes/emit_accel.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::passes {

namespace {

using accel::Op;

// Index expressions here are affine in the loops being unrolled: evaluate their linear form.
int64_t eval(const ir::Expr& e, const std::unordered_map<const ir::VarObj*, int64_t>& env) {
  const auto f = ir::linear_form(e);
  if (!f) throw UserError("emit_accel: cannot evaluate index " + ir::to_string(e));
  int64_t v = f->constant;
  for (const ir::Var& var : f->order) {
    auto it = env.find(var.get());
    if (it == env.end()) throw InternalError("emit_accel: unbound variable in " + ir::to_string(e));
    v += f->coef.at(var.get()) * it->second;
  }
  return v;
}

class Emitter {
 public:
  accel::Program run(const ir::Stmt& s) {
    walk(s);
    return std::move(out_);
  }

 private:
  void walk(const ir::Stmt& s) {
    switch (s->kind) {
      case ir::NodeKind::kSeq:
        for (const ir::Stmt& x : static_cast<const ir::Seq&>(*s).stmts) walk(x);
        return;
      case ir::NodeKind::kAllocate:
        walk(static_cast<const ir::Allocate&>(*s).body);
        return;
      case ir::NodeKind::kAttrStmt: {
        const auto& a = static_cast<const ir::AttrStmt&>(*s);
        if (a.key != ir::kQueueAttr) return walk(a.body);
        const ir::IntImm* m = ir::as_imm(a.value);
        if (!m || m->value < 0 || m->value > 2) {
          throw InternalError("emit_accel: bad queue attribute " + ir::to_string(a.value));
        }
        queue_ = static_cast<isa::Module>(m->value);
        walk(a.body);
        queue_.reset();
        return;
      }
      case ir::NodeKind::kFor: {
        const auto& f = static_cast<const ir::For&>(*s);
        const int64_t mn = eval(f.min, env_), ext = eval(f.extent, env_);
        for (int64_t i = mn; i < mn + ext; ++i) {
          env_[f.var.get()] = i;
          walk(f.body);
        }
        env_.erase(f.var.get());
        return;
      }
      case ir::NodeKind::kEvaluate: {
        const ir::Expr& v = static_cast<const ir::Evaluate&>(*s).value;
        if (v->kind == ir::NodeKind::kCall) return call(static_cast<const ir::Call&>(*v));
        break;
      }
      default:
        break;
    }
    throw UserError(
        "emit_accel: the program still holds a statement the accelerator cannot run "
        "(has every pass run?):\n" +
        ir::to_string(s));
  }

  void note_tensor(const ir::Buffer& b) {
    if (std::find(out_.tensors.begin(), out_.tensors.end(), b) == out_.tensors.end()) {
      out_.tensors.push_back(b);
    }
  }

  // Reads a micro-op kernel's loops and micro-ops: `fields` index fields per micro-op, after
  // `extra` operands that follow the factors.
  void kernel(Op& op, const std::vector<int64_t>& a, size_t fields, size_t extra) {
    op.iter_out = a[0];
    op.iter_in = a[1];
    op.dst_factor_out = a[2];
    op.dst_factor_in = a[3];
    if (fields > 1) {
      op.src_factor_out = a[4];
      op.src_factor_in = a[5];
    }
    if (fields > 2) {
      op.wgt_factor_out = a[6];
      op.wgt_factor_in = a[7];
    }
    const size_t n_at = 2 + 2 * fields + extra;
    for (int64_t u = 0; u < a.at(n_at); ++u) {
      const size_t f = n_at + 1 + fields * static_cast<size_t>(u);
      op.uops.push_back({a.at(f), fields > 1 ? a.at(f + 1) : 0, fields > 2 ? a.at(f + 2) : 0});
    }
  }

  // A padded load: rows [y0, y0 + y) of a dimension of extent ye (likewise columns) read
  // only what lies inside; LOAD's pads zero the rest of the tile.
  static void pad(Op& op, const std::vector<int64_t>& a, const std::string& chip) {
    const int64_t y0 = a.at(6), ye = a.at(7), x0 = a.at(8), xe = a.at(9);
    op.y_pad0 = std::clamp<int64_t>(-y0, 0, op.y_size);
    op.y_pad1 = std::clamp<int64_t>(y0 + op.y_size - ye, 0, op.y_size - op.y_pad0);
    op.x_pad0 = std::clamp<int64_t>(-x0, 0, op.x_size);
    op.x_pad1 = std::clamp<int64_t>(x0 + op.x_size - xe, 0, op.x_size - op.x_pad0);
    op.dram_offset += op.y_pad0 * op.x_stride + op.x_pad0;
    op.y_size -= op.y_pad0 + op.y_pad1;
    op.x_size -= op.x_pad0 + op.x_pad1;
    if (op.y_size <= 0 || op.x_size <= 0) {
      throw UserError("emit_accel: a tile of '" + chip +
                      "' lies entirely in the padding; use larger tiles");
    }
  }

  void call(const ir::Call& c) {
    if (!queue_) {
      throw UserError("emit_accel: call " + c.name() + " has no queue (has assign_queues run?)");
    }
    std::vector<int64_t> a;
    for (const ir::Expr& e : c.args) a.push_back(eval(e, env_));
    Op op;
    using I = ir::Intrinsic;
    if (c.op == I::kDmaCopy2d || c.op == I::kDmaCopy2dPad) {
      const ir::Buffer& dst = c.buffers.at(0);
      const ir::Buffer& src = c.buffers.at(1);
      const bool load = src->scope == ir::Scope::kGlobal;
      const ir::Buffer& chip = load ? dst : src;
      const ir::Buffer& dram = load ? src : dst;
      const int64_t chip_base = load ? a[0] : a[1], dram_base = load ? a[1] : a[0];
      const int64_t chip_stride = load ? a[4] : a[5], dram_stride = load ? a[5] : a[4];
      if (chip->scope == ir::Scope::kGlobal || dram->scope != ir::Scope::kGlobal) {
        throw UserError("emit_accel: a DMA copy must move between DRAM and an on-chip buffer ('" +
                        dst->name + "' <- '" + src->name + "')");
      }
      if (chip_stride != a[3]) {
        throw UserError("emit_accel: the on-chip side of the copy of '" + chip->name +
                        "' is not a dense tile");
      }
      if (!load && chip->scope != ir::Scope::kAcc) {
        throw UserError("emit_accel: stores read the accumulator, not '" + chip->name + "'");
      }
      op.kind = load ? Op::Kind::kLoad : Op::Kind::kStore;
      op.mem = chip->scope == ir::Scope::kInp   ? isa::MemType::kInp
               : chip->scope == ir::Scope::kWgt ? isa::MemType::kWgt
               : load && ir::dtype_bits(dram->dtype) == 8 ? isa::MemType::kAcc8Bit
               : load                           ? isa::MemType::kAcc
                                                : isa::MemType::kOut;
      op.tensor = dram;
      op.sram_base = chip_base;
      op.dram_offset = dram_base;
      op.y_size = a[2];
      op.x_size = a[3];
      op.x_stride = dram_stride;
      if (c.op == I::kDmaCopy2dPad) pad(op, a, chip->name);
      note_tensor(dram);
    } else if (c.op == I::kGemmKernel || c.op == I::kGemmResetKernel) {
      op.kind = Op::Kind::kGemm;
      op.reset = c.op == I::kGemmResetKernel;
      kernel(op, a, op.reset ? 1 : 3, 0);
    } else if (c.op == I::kAluKernel) {
      op.kind = Op::Kind::kAlu;
      op.alu_op = static_cast<isa::AluOp>(a.at(6));
      op.use_imm = a.at(7) != 0;
      op.imm = a.at(8);
      kernel(op, a, 2, 3);
    } else {
      throw UserError("emit_accel: unknown accelerator call '" + c.name() + "'");
    }
    op.module = *queue_;
    if (op.module != accel::module_of(op)) {
      throw InternalError("emit_accel: " + c.name() + " was assigned to the wrong queue");
    }
    out_.ops.push_back(op);
  }

  accel::Program out_;
  std::unordered_map<const ir::VarObj*, int64_t> env_;
  std::optional<isa::Module> queue_;
};

}  // namespace

accel::Program emit_accel(const ir::Stmt& s) { return Emitter().run(s); }

}  // namespace weft::compiler::passes
