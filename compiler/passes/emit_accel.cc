// The emission pass with token planning; see emit_accel.h.
#include "compiler/passes/emit_accel.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/tokens.h"

namespace weft::compiler::passes {

namespace {

using accel::Op;
using isa::Module;

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

// Which on-chip blocks an operation touches, as (scope, block) keys.
enum Space { kInpSpace = 0, kWgtSpace = 1, kAccSpace = 2 };

class Emitter {
 public:
  Emitter() = default;

  accel::Program run(const ir::Stmt& s) {
    walk(s);
    assemble();
    return std::move(out_);
  }

 private:
  struct Last {
    int64_t op = -1;
    Module module = Module::kLoad;
  };

  struct Access {
    std::vector<std::pair<int, int64_t>> reads, writes;
  };

  void walk(const ir::Stmt& s) {
    switch (s->kind) {
      case ir::NodeKind::kSeq:
        for (const ir::Stmt& x : static_cast<const ir::Seq&>(*s).stmts) walk(x);
        return;
      case ir::NodeKind::kAllocate:
        walk(static_cast<const ir::Allocate&>(*s).body);
        return;
      case ir::NodeKind::kAttrStmt:
        walk(static_cast<const ir::AttrStmt&>(*s).body);
        return;
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

  static int space_of(ir::Scope s) {
    return s == ir::Scope::kInp ? kInpSpace : s == ir::Scope::kWgt ? kWgtSpace : kAccSpace;
  }

  void note_tensor(const ir::Buffer& b) {
    if (std::find(out_.tensors.begin(), out_.tensors.end(), b) == out_.tensors.end()) {
      out_.tensors.push_back(b);
    }
  }

  void call(const ir::Call& c) {
    std::vector<int64_t> a;
    for (const ir::Expr& e : c.args) a.push_back(eval(e, env_));
    Op op;
    Access acc;
    if (c.name == "weft.dma_copy2d") {
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
               : load                           ? isa::MemType::kAcc
                                                : isa::MemType::kOut;
      op.tensor = dram;
      op.sram_base = chip_base;
      op.dram_offset = dram_base;
      op.y_size = a[2];
      op.x_size = a[3];
      op.x_stride = dram_stride;
      note_tensor(dram);
      for (int64_t b = 0; b < a[2] * a[3]; ++b) {
        (load ? acc.writes : acc.reads).push_back({space_of(chip->scope), chip_base + b});
      }
    } else if (c.name == "weft.gemm_kernel" || c.name == "weft.gemm_reset_kernel") {
      const bool reset = c.name == "weft.gemm_reset_kernel";
      op.kind = Op::Kind::kGemm;
      op.reset = reset;
      op.iter_out = a[0];
      op.iter_in = a[1];
      op.dst_factor_out = a[2];
      op.dst_factor_in = a[3];
      size_t n_at = 4;
      if (!reset) {
        op.src_factor_out = a[4];
        op.src_factor_in = a[5];
        op.wgt_factor_out = a[6];
        op.wgt_factor_in = a[7];
        n_at = 8;
      }
      const int64_t n = a[n_at];
      const size_t per = reset ? 1 : 3;
      for (int64_t u = 0; u < n; ++u) {
        const int64_t* f = &a[n_at + 1 + per * static_cast<size_t>(u)];
        op.uops.push_back({f[0], reset ? 0 : f[1], reset ? 0 : f[2]});
      }
      for (int64_t i = 0; i < op.iter_out; ++i) {
        for (int64_t j = 0; j < op.iter_in; ++j) {
          for (const isa::Uop& u : op.uops) {
            const int64_t d = u.dst + i * op.dst_factor_out + j * op.dst_factor_in;
            acc.writes.push_back({kAccSpace, d});
            if (reset) continue;
            acc.reads.push_back({kAccSpace, d});
            acc.reads.push_back({kInpSpace, u.src + i * op.src_factor_out + j * op.src_factor_in});
            acc.reads.push_back({kWgtSpace, u.wgt + i * op.wgt_factor_out + j * op.wgt_factor_in});
          }
        }
      }
    } else {
      throw UserError("emit_accel: unknown accelerator call '" + c.name + "'");
    }
    append(op, acc);
  }

  // Emits `op` after the pops it needs, and pushes after the producers they wait for.
  void append(const Op& op, const Access& acc) {
    const Module m = accel::module_of(op);
    std::array<int64_t, 3> need{-1, -1, -1};  // per producer module: latest op index needed
    auto depend = [&](const Last& last) {
      if (last.op >= 0 && last.module != m) {
        need[int(last.module)] = std::max(need[int(last.module)], last.op);
      }
    };
    for (const auto& key : acc.reads) depend(writer_[key]);
    for (const auto& key : acc.writes) {
      depend(writer_[key]);
      depend(reader_[key]);
    }
    for (int p = 0; p < 3; ++p) {
      if (need[p] < 0 || need[p] <= waited_[p][int(m)]) continue;
      const Module from = static_cast<Module>(p);
      if (!isa::queue_between(from, m)) {
        throw UserError("emit_accel: an operation on the " + std::string(isa::module_name(m)) +
                        " module depends on the " + isa::module_name(from) +
                        " module, which it cannot exchange tokens with");
      }
      push_after_[need[p]].push_back({from, m});
      Op pop;
      pop.kind = Op::Kind::kDepPop;
      pop.from = from;
      pop.to = m;
      pending_.push_back(pop);
      waited_[p][int(m)] = need[p];
    }
    const int64_t index = static_cast<int64_t>(ops_.size());
    ops_.push_back({pending_, op});
    pending_.clear();
    for (const auto& key : acc.reads) reader_[key] = {index, m};
    for (const auto& key : acc.writes) writer_[key] = {index, m};
  }

  // Program order: each op's pops, the op, then the pushes that later ops asked of it.
  void assemble() {
    out_.ops.clear();
    for (size_t i = 0; i < ops_.size(); ++i) {
      for (const Op& p : ops_[i].first) out_.ops.push_back(p);
      out_.ops.push_back(ops_[i].second);
      auto it = push_after_.find(static_cast<int64_t>(i));
      if (it == push_after_.end()) continue;
      for (const auto& [from, to] : it->second) {
        Op push;
        push.kind = Op::Kind::kDepPush;
        push.from = from;
        push.to = to;
        out_.ops.push_back(push);
      }
    }
  }

  accel::Program out_;
  std::unordered_map<const ir::VarObj*, int64_t> env_;
  std::vector<std::pair<std::vector<Op>, Op>> ops_;  // (pops before, op)
  std::vector<Op> pending_;
  std::map<int64_t, std::vector<std::pair<Module, Module>>> push_after_;
  std::map<std::pair<int, int64_t>, Last> writer_, reader_;
  std::array<std::array<int64_t, 3>, 3> waited_{{{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}};
};

}  // namespace

accel::Program emit_accel(const ir::Stmt& s) { return Emitter().run(s); }

}  // namespace weft::compiler::passes
