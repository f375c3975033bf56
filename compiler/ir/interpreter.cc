// The loop-IR interpreter; see interpreter.h.
#include "compiler/ir/interpreter.h"

#include <algorithm>
#include <unordered_map>

#include "compiler/ir/arith.h"
#include "compiler/ir/printer.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ir {

int64_t wrap(int64_t v, DType t) {
  switch (t) {
    case DType::kInt8:
      return static_cast<int8_t>(static_cast<uint64_t>(v));
    case DType::kInt32:
      return static_cast<int32_t>(static_cast<uint64_t>(v));
    case DType::kInt64:
      return v;
    case DType::kFloat32:
    case DType::kFloat16:
      throw UserError(std::string("interpreter: ") + dtype_name(t) +
                      " values are not supported (integers only)");
  }
  return v;
}

namespace {

class Interpreter {
 public:
  Interpreter(BufferData& b, const IntrinsicImpls& i) : buffers_(b), intr_(i) {}

  int64_t eval(const Expr& e) {
    switch (e->kind) {
      case NodeKind::kIntImm:
        return static_cast<const IntImm&>(*e).value;
      case NodeKind::kFloatImm:
        throw UserError("interpreter: float32 values are not supported (integers only)");
      case NodeKind::kVarRef: {
        auto it = env_.find(static_cast<const VarRef&>(*e).var.get());
        if (it == env_.end()) {
          throw InternalError("interpreter: unbound variable " +
                              static_cast<const VarRef&>(*e).var->name);
        }
        return it->second;
      }
      case NodeKind::kBinary: {
        const auto& n = static_cast<const Binary&>(*e);
        const int64_t a = eval(n.a), b = eval(n.b);
        switch (n.op) {
          case BinOp::kAdd:
            return wrap(a + b, n.dtype);
          case BinOp::kSub:
            return wrap(a - b, n.dtype);
          case BinOp::kMul:
            return wrap(a * b, n.dtype);
          case BinOp::kFloorDiv:
          case BinOp::kFloorMod: {
            if (b == 0) throw UserError("division by zero in " + to_string(e));
            return n.op == BinOp::kFloorDiv ? floor_div(a, b) : floor_mod(a, b);
          }
          case BinOp::kMin:
            return std::min(a, b);
          case BinOp::kMax:
            return std::max(a, b);
          case BinOp::kShr:
            return b >= 0 ? a >> b : wrap(a << -b, n.dtype);
          case BinOp::kLt:
            return a < b;
          case BinOp::kGe:
            return a >= b;
          case BinOp::kAnd:
            return a && b;
        }
        return 0;
      }
      case NodeKind::kCast: {
        const auto& n = static_cast<const Cast&>(*e);
        return wrap(eval(n.value), n.dtype);
      }
      case NodeKind::kLoad: {
        const auto& n = static_cast<const Load&>(*e);
        return data(n.buffer)[offset(n.buffer, n.indices)];
      }
      case NodeKind::kCall: {
        const auto& n = static_cast<const Call&>(*e);
        if (n.op == Intrinsic::kSelect && !intr_.count(n.op)) {
          const int64_t c = eval(n.args[0]), a = eval(n.args[1]), b = eval(n.args[2]);
          return c ? a : b;
        }
        if (n.op == Intrinsic::kDot4U8S8 && !intr_.count(n.op)) {
          const int64_t x = eval(n.args[0]), y = eval(n.args[1]);
          int64_t sum = 0;
          for (int b = 0; b < 4; ++b) {
            const int64_t u = (x >> (8 * b)) & 0xff;
            const int64_t s = static_cast<int8_t>((y >> (8 * b)) & 0xff);
            sum += u * s;
          }
          return wrap(sum, DType::kInt32);
        }
        if (n.op == Intrinsic::kDot2I16 && !intr_.count(n.op)) {
          const int64_t x = eval(n.args[0]), y = eval(n.args[1]);
          auto lo = [](int64_t v) {
            return static_cast<int64_t>(static_cast<int16_t>(v & 0xffff));
          };
          auto hi = [](int64_t v) {
            return static_cast<int64_t>(static_cast<int16_t>((v >> 16) & 0xffff));
          };
          return wrap(lo(x) * lo(y) + hi(x) * hi(y), DType::kInt32);
        }
        auto it = intr_.find(n.op);
        if (it == intr_.end()) throw UserError("interpreter: unknown intrinsic '" + n.name() + "'");
        std::vector<int64_t> args;
        for (const Expr& a : n.args) args.push_back(eval(a));
        return it->second(n, args, buffers_);
      }
      default:
        throw InternalError("interpreter: statement in expression position");
    }
  }

  void exec(const Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case NodeKind::kFor: {
        const auto& n = static_cast<const For&>(*s);
        const int64_t mn = eval(n.min), ext = eval(n.extent);
        for (int64_t i = mn; i < mn + ext; ++i) {
          env_[n.var.get()] = i;
          exec(n.body);
        }
        env_.erase(n.var.get());
        return;
      }
      case NodeKind::kStore: {
        const auto& n = static_cast<const Store&>(*s);
        const int64_t v = wrap(eval(n.value), n.buffer->dtype);
        data(n.buffer)[offset(n.buffer, n.indices)] = v;
        return;
      }
      case NodeKind::kSeq:
        for (const Stmt& x : static_cast<const Seq&>(*s).stmts) exec(x);
        return;
      case NodeKind::kAllocate: {
        const auto& n = static_cast<const Allocate&>(*s);
        buffers_[n.buffer.get()].assign(static_cast<size_t>(n.buffer->elements()), 0);
        exec(n.body);
        buffers_.erase(n.buffer.get());
        return;
      }
      case NodeKind::kIfThenElse: {
        const auto& n = static_cast<const IfThenElse&>(*s);
        exec(eval(n.cond) ? n.then_case : n.else_case);
        return;
      }
      case NodeKind::kEvaluate:
        eval(static_cast<const Evaluate&>(*s).value);
        return;
      case NodeKind::kAttrStmt:
        exec(static_cast<const AttrStmt&>(*s).body);
        return;
      default:
        throw InternalError("interpreter: expression in statement position");
    }
  }

 private:
  std::vector<int64_t>& data(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it == buffers_.end()) throw UserError("interpreter: buffer '" + b->name + "' is not bound");
    if (static_cast<int64_t>(it->second.size()) != b->elements()) {
      throw UserError("interpreter: buffer '" + b->name + "' is bound with " +
                      std::to_string(it->second.size()) + " elements, expected " +
                      std::to_string(b->elements()));
    }
    return it->second;
  }
  size_t offset(const Buffer& b, const std::vector<Expr>& indices) {
    int64_t off = 0;
    for (size_t d = 0; d < indices.size(); ++d) {
      const int64_t i = eval(indices[d]);
      if (i < 0 || i >= b->shape[d]) {
        throw UserError("interpreter: index " + std::to_string(i) + " of dimension " +
                        std::to_string(d) + " of buffer '" + b->name + "' is outside [0, " +
                        std::to_string(b->shape[d]) + ")");
      }
      off = off * b->shape[d] + i;
    }
    return static_cast<size_t>(off);
  }

  BufferData& buffers_;
  const IntrinsicImpls& intr_;
  std::unordered_map<const VarObj*, int64_t> env_;
};

}  // namespace

void interpret(const Stmt& s, BufferData& buffers, const IntrinsicImpls& intrinsics) {
  Interpreter(buffers, intrinsics).exec(s);
}

}  // namespace weft::compiler::ir
