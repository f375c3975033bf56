// Node builders with integer constant folding, and the names of the IR's enumerations.
#include "compiler/ir/ir.h"

#include <algorithm>

#include "compiler/ir/arith.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::ir {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kInt8:
      return "int8";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
  }
  return "?";
}

int dtype_bits(DType t) {
  if (t == DType::kFloat16) return 16;
  return t == DType::kInt8 ? 8 : (t == DType::kInt32 || t == DType::kFloat32) ? 32 : 64;
}

const char* scope_name(Scope s) {
  switch (s) {
    case Scope::kGlobal:
      return "global";
    case Scope::kInp:
      return "acc.inp";
    case Scope::kWgt:
      return "acc.wgt";
    case Scope::kAcc:
      return "acc.acc";
    case Scope::kUop:
      return "acc.uop";
    case Scope::kLocal:
      return "local";
    case Scope::kShared:
      return "shared";
  }
  return "?";
}

const char* binop_name(BinOp op) {
  switch (op) {
    case BinOp::kAdd:
      return "+";
    case BinOp::kSub:
      return "-";
    case BinOp::kMul:
      return "*";
    case BinOp::kFloorDiv:
      return "/";
    case BinOp::kFloorMod:
      return "%";
    case BinOp::kMin:
      return "min";
    case BinOp::kMax:
      return "max";
    case BinOp::kShr:
      return ">>";
    case BinOp::kLt:
      return "<";
    case BinOp::kGe:
      return ">=";
    case BinOp::kAnd:
      return "&&";
  }
  return "?";
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "for";
    case ForKind::kUnrolled:
      return "unrolled";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVirtualThread:
      return "vthread";
  }
  return "?";
}

const char* thread_axis_name(ThreadAxis a) {
  switch (a) {
    case ThreadAxis::kBlockX:
      return "blockIdx.x";
    case ThreadAxis::kBlockY:
      return "blockIdx.y";
    case ThreadAxis::kBlockZ:
      return "blockIdx.z";
    case ThreadAxis::kThreadX:
      return "threadIdx.x";
    case ThreadAxis::kThreadY:
      return "threadIdx.y";
    case ThreadAxis::kThreadZ:
      return "threadIdx.z";
  }
  return "?";
}

int64_t BufferObj::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Var make_var(const std::string& name) { return std::make_shared<VarObj>(name); }

Buffer make_buffer(const std::string& name, DType dtype, std::vector<int64_t> shape, Scope scope) {
  for (int64_t d : shape) {
    if (d <= 0)
      throw UserError("buffer '" + name + "': dimension " + std::to_string(d) + " is not positive");
  }
  return std::make_shared<BufferObj>(name, dtype, std::move(shape), scope);
}

const IntImm* as_imm(const Expr& e) {
  return e && e->kind == NodeKind::kIntImm ? static_cast<const IntImm*>(e.get()) : nullptr;
}

bool is_var(const Expr& e, const Var& v) {
  return e->kind == NodeKind::kVarRef && static_cast<const VarRef&>(*e).var == v;
}

namespace {

DType wider(DType a, DType b) {
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;  // float wins over integers
  return dtype_bits(a) >= dtype_bits(b) ? a : b;
}

}  // namespace

Expr binary(BinOp op, Expr a, Expr b) {
  if (!a || !b) throw InternalError("binary: null operand");
  const IntImm* x = as_imm(a);
  const IntImm* y = as_imm(b);
  const DType t = wider(a->dtype, b->dtype);
  if (x && y && !is_float(t)) {
    const int64_t u = x->value, v = y->value;
    switch (op) {
      case BinOp::kAdd:
        return imm(u + v, t);
      case BinOp::kSub:
        return imm(u - v, t);
      case BinOp::kMul:
        return imm(u * v, t);
      case BinOp::kFloorDiv:
        if (v != 0) return imm(floor_div(u, v), t);
        break;
      case BinOp::kFloorMod:
        if (v != 0) return imm(floor_mod(u, v), t);
        break;
      case BinOp::kMin:
        return imm(std::min(u, v), t);
      case BinOp::kMax:
        return imm(std::max(u, v), t);
      case BinOp::kShr:
        return imm(u >> v, t);
      case BinOp::kLt:
        return imm(u < v, t);
      case BinOp::kGe:
        return imm(u >= v, t);
      case BinOp::kAnd:
        return imm(u && v, t);
    }
  }
  // Identities that keep lowered index expressions readable.
  if (y && y->value == 0 && (op == BinOp::kAdd || op == BinOp::kSub)) return a;
  if (x && x->value == 0 && op == BinOp::kAdd) return b;
  if (y && y->value == 1 && (op == BinOp::kMul || op == BinOp::kFloorDiv)) return a;
  if (x && x->value == 1 && op == BinOp::kMul) return b;
  if (((x && x->value == 0) || (y && y->value == 0)) && op == BinOp::kMul) return imm(0, t);
  if (y && y->value == 1 && op == BinOp::kFloorMod) return imm(0, t);
  return std::make_shared<Binary>(op, std::move(a), std::move(b), t);
}

Expr imm(int64_t v, DType t) { return std::make_shared<IntImm>(t, v); }
Expr fimm(double v, DType t) { return std::make_shared<FloatImm>(t, v); }
Expr dot2_i16(Expr x, Expr y) {
  return call(DType::kInt32, Intrinsic::kDot2I16, {std::move(x), std::move(y)});
}
Expr dot4_u8s8(Expr x, Expr y) {
  return call(DType::kInt32, Intrinsic::kDot4U8S8, {std::move(x), std::move(y)});
}
Expr dot4_i8(Expr x, Expr y) {
  return call(DType::kInt32, Intrinsic::kDot4I8, {std::move(x), std::move(y)});
}
Expr round_even(Expr x) {
  const DType t = x->dtype;
  return call(t, Intrinsic::kRoundEven, {std::move(x)});
}
Expr float_math(Intrinsic op, Expr x, Expr y) {
  const bool unary =
      op == Intrinsic::kExp || op == Intrinsic::kTanh || op == Intrinsic::kErf || op == Intrinsic::kSqrt;
  const bool binary = op == Intrinsic::kPow || op == Intrinsic::kFDiv;
  if (!unary && !binary)
    throw InternalError(std::string("float_math: '") + intrinsic_name(op) + "' is not a math call");
  std::vector<Expr> args = {cast(DType::kFloat32, std::move(x))};
  if (binary) args.push_back(cast(DType::kFloat32, std::move(y)));
  return call(DType::kFloat32, op, std::move(args));
}
Expr select(Expr cond, Expr a, Expr b) {
  const DType t = a->dtype;
  return call(t, Intrinsic::kSelect, {std::move(cond), std::move(a), std::move(b)});
}
Expr flat_index(const Buffer& b, const std::vector<Expr>& idx, size_t dims) {
  if (dims == 0) return imm(0);
  Expr e = idx[0];
  for (size_t d = 1; d < dims; ++d) e = add(mul(e, imm(b->shape[d])), idx[d]);
  return e;
}
Expr ref(const Var& v) { return std::make_shared<VarRef>(v); }
Expr add(Expr a, Expr b) { return binary(BinOp::kAdd, std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return binary(BinOp::kSub, std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return binary(BinOp::kMul, std::move(a), std::move(b)); }
Expr floordiv(Expr a, Expr b) { return binary(BinOp::kFloorDiv, std::move(a), std::move(b)); }
Expr floormod(Expr a, Expr b) { return binary(BinOp::kFloorMod, std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return binary(BinOp::kMin, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return binary(BinOp::kMax, std::move(a), std::move(b)); }
Expr shr(Expr a, Expr b) { return binary(BinOp::kShr, std::move(a), std::move(b)); }
Expr lt(Expr a, Expr b) { return binary(BinOp::kLt, std::move(a), std::move(b)); }
Expr ge(Expr a, Expr b) { return binary(BinOp::kGe, std::move(a), std::move(b)); }
Expr logical_and(Expr a, Expr b) { return binary(BinOp::kAnd, std::move(a), std::move(b)); }
Expr cast(DType t, Expr v) {
  if (v->dtype == t) return v;
  return std::make_shared<Cast>(t, std::move(v));
}
Expr load(const Buffer& b, std::vector<Expr> indices) {
  if (indices.size() != b->shape.size()) {
    throw InternalError("load of '" + b->name + "' with " + std::to_string(indices.size()) +
                        " indices for " + std::to_string(b->shape.size()) + " dimensions");
  }
  return std::make_shared<Load>(b, std::move(indices));
}
Expr call(DType t, Intrinsic op, std::vector<Expr> args, std::vector<Buffer> buffers) {
  const IntrinsicInfo& info = intrinsic_info(op);
  if ((info.args != IntrinsicInfo::kVariadic && static_cast<int>(args.size()) != info.args) ||
      static_cast<int>(buffers.size()) != info.buffers) {
    throw InternalError(std::string("call of ") + info.name + " with " +
                        std::to_string(buffers.size()) + " buffers and " +
                        std::to_string(args.size()) + " arguments (it takes " +
                        std::to_string(info.buffers) + " and " +
                        (info.args == IntrinsicInfo::kVariadic ? std::string("any number")
                                                               : std::to_string(info.args)) +
                        ")");
  }
  return std::make_shared<Call>(t, op, std::move(args), std::move(buffers));
}

Stmt for_loop(const Var& v, Expr min, Expr extent, ForKind kind, Stmt body,
              std::optional<ThreadAxis> thread) {
  return std::make_shared<For>(v, std::move(min), std::move(extent), kind, std::move(body), thread);
}
Stmt with_body(const For& f, Stmt body) {
  return for_loop(f.var, f.min, f.extent, f.kind, std::move(body), f.thread);
}
Stmt store(const Buffer& b, std::vector<Expr> indices, Expr value) {
  if (indices.size() != b->shape.size()) {
    throw InternalError("store to '" + b->name + "' with " + std::to_string(indices.size()) +
                        " indices for " + std::to_string(b->shape.size()) + " dimensions");
  }
  return std::make_shared<Store>(b, std::move(indices), std::move(value));
}
Stmt seq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s) continue;
    if (s->kind == NodeKind::kSeq) {
      for (const Stmt& inner : static_cast<const Seq&>(*s).stmts) flat.push_back(inner);
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return std::make_shared<Seq>(std::move(flat));
}
Stmt allocate(const Buffer& b, Stmt body) { return std::make_shared<Allocate>(b, std::move(body)); }
Stmt if_then_else(Expr cond, Stmt then_case, Stmt else_case) {
  return std::make_shared<IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case));
}
Stmt evaluate(Expr v) { return std::make_shared<Evaluate>(std::move(v)); }
Stmt attr(const std::string& key, Expr value, Stmt body) {
  return std::make_shared<AttrStmt>(key, std::move(value), std::move(body));
}

}  // namespace weft::compiler::ir
