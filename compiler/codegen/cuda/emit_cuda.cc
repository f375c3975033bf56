// Printing loop IR as CUDA C; see emit_cuda.h and codegen_cuda.h for what each construct
// becomes.
#include "compiler/codegen/cuda/emit_cuda.h"

#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/ir/linear.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

constexpr const char* kWmma = "nvcuda::wmma::";

bool is_fragment(ir::Scope s) {
  return s == ir::Scope::kInp || s == ir::Scope::kWgt || s == ir::Scope::kAcc;
}

std::string sanitize(const std::string& n) {
  std::string s;
  for (char c : n) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
}

// The row-major flat offset of `idx` into the first `dims` dimensions of `b`, simplified.
ir::Expr flatten(const ir::Buffer& b, const std::vector<ir::Expr>& idx, size_t dims) {
  return ir::simplify(ir::flat_index(b, idx, dims));
}

// A factor `e` is known to be a multiple of (1 when nothing is known).
int64_t known_multiple(const ir::Expr& e) {
  auto gcd = [](int64_t a, int64_t b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) std::swap(a %= b, b);
    return a;
  };
  switch (e->kind) {
    case ir::NodeKind::kIntImm: {
      const int64_t v = static_cast<const ir::IntImm&>(*e).value;
      return v == 0 ? int64_t(1) << 40 : (v < 0 ? -v : v);
    }
    case ir::NodeKind::kCast:
      return known_multiple(static_cast<const ir::Cast&>(*e).value);
    case ir::NodeKind::kBinary: {
      const auto& b = static_cast<const ir::Binary&>(*e);
      const int64_t x = known_multiple(b.a), y = known_multiple(b.b);
      switch (b.op) {
        case ir::BinOp::kAdd:
        case ir::BinOp::kSub:
        case ir::BinOp::kMin:
        case ir::BinOp::kMax:
          return gcd(x, y);
        case ir::BinOp::kMul:
          return std::min<int64_t>(x * y, int64_t(1) << 40);
        case ir::BinOp::kFloorDiv:
          return ir::as_imm(b.b) && x % y == 0 ? x / y : 1;
        case ir::BinOp::kFloorMod:
          return ir::as_imm(b.b) ? gcd(x, y) : 1;
        default:
          return 1;
      }
    }
    default:
      return 1;
  }
}

// The binary operation `op` of new operands (`e` when the operator has no builder here).
ir::Expr rebuild(ir::BinOp op, const ir::Expr& a, const ir::Expr& b, const ir::Expr& e) {
  switch (op) {
    case ir::BinOp::kAdd:
      return ir::add(a, b);
    case ir::BinOp::kSub:
      return ir::sub(a, b);
    case ir::BinOp::kMul:
      return ir::mul(a, b);
    case ir::BinOp::kFloorDiv:
      return ir::floordiv(a, b);
    case ir::BinOp::kFloorMod:
      return ir::floormod(a, b);
    case ir::BinOp::kMin:
      return ir::min(a, b);
    case ir::BinOp::kMax:
      return ir::max(a, b);
    default:
      return e;
  }
}

// `e` as base + coef * v for the lane variable v in [0, lanes), with base free of v (floor
// division and modulo by multiples of coef * lanes of a suitably aligned base keep the lane
// inside one quotient). Nothing when `e` is not of that form.
std::optional<std::pair<ir::Expr, int64_t>> lane_form(const ir::Expr& e, const ir::Var& v,
                                                      int64_t lanes) {
  using R = std::optional<std::pair<ir::Expr, int64_t>>;
  switch (e->kind) {
    case ir::NodeKind::kVarRef:
      if (static_cast<const ir::VarRef&>(*e).var == v) return R({ir::imm(0), 1});
      return R({e, 0});
    case ir::NodeKind::kIntImm:
      return R({e, 0});
    case ir::NodeKind::kCast: {
      const auto& c = static_cast<const ir::Cast&>(*e);
      auto r = lane_form(c.value, v, lanes);
      if (!r || ir::is_float(c.dtype)) return std::nullopt;
      return R({ir::cast(c.dtype, r->first), r->second});
    }
    case ir::NodeKind::kBinary: {
      const auto& b = static_cast<const ir::Binary&>(*e);
      auto x = lane_form(b.a, v, lanes);
      auto y = lane_form(b.b, v, lanes);
      if (!x || !y) return std::nullopt;
      if (x->second == 0 && y->second == 0) {
        // Free of the lane, though a floor division below may have dropped it.
        if (x->first == b.a && y->first == b.b) return R({e, 0});
        return R({rebuild(b.op, x->first, y->first, e), 0});
      }
      const ir::IntImm* c = ir::as_imm(b.b);
      switch (b.op) {
        case ir::BinOp::kAdd:
          return R({ir::add(x->first, y->first), x->second + y->second});
        case ir::BinOp::kSub:
          return R({ir::sub(x->first, y->first), x->second - y->second});
        case ir::BinOp::kMul:
          if (c) return R({ir::mul(x->first, b.b), x->second * c->value});
          if (const ir::IntImm* k = ir::as_imm(b.a))
            return R({ir::mul(b.a, y->first), y->second * k->value});
          return std::nullopt;
        case ir::BinOp::kFloorDiv:
        case ir::BinOp::kFloorMod: {
          const int64_t span = x->second * lanes;
          if (!c || y->second != 0 || x->second <= 0 || c->value % span != 0 ||
              known_multiple(x->first) % span != 0) {
            return std::nullopt;
          }
          if (b.op == ir::BinOp::kFloorDiv) return R({ir::floordiv(x->first, b.b), 0});
          return R({ir::floormod(x->first, b.b), x->second});
        }
        default:
          return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

// Whether every coefficient and the constant of `e`'s affine form are multiples of `k`.
bool multiple_of(const ir::Expr& e, int64_t k) {
  if (known_multiple(e) % k == 0) return true;
  const auto f = ir::linear_form(e);
  if (!f) return false;
  if (f->constant % k != 0) return false;
  for (const auto& [v, c] : f->coef) {
    if (c % k != 0) return false;
  }
  return true;
}

class Stored : public ir::Visitor {
 public:
  std::set<const ir::BufferObj*> buffers;

 protected:
  void visit_Store(const ir::Store& n) override {
    buffers.insert(n.buffer.get());
    ir::Visitor::visit_Store(n);
  }
};

class Emitter {
 public:
  Emitter(const LaunchConfig& launch, EmitInfo& info) : launch_(launch), info_(info) {}

  std::string kernel(const std::string& name, const std::vector<ir::Buffer>& args,
                     const ir::Stmt& body) {
    Stored stored;
    stored.visit(body);
    std::string params;
    for (const ir::Buffer& b : args) {
      if (b->dtype == ir::DType::kFloat16) info_.uses_fp16 = true;
      const bool out = stored.buffers.count(b.get()) > 0;
      params += std::string(params.empty() ? "" : ", ") + (out ? "" : "const ") +
                cuda_type(b->dtype) + "* __restrict__ " + buffer(b);
    }
    os_ << "\n// grid (" << launch_.grid[0] << ", " << launch_.grid[1] << ", " << launch_.grid[2]
        << "), block (" << launch_.block[0] << ", " << launch_.block[1] << ", "
        << launch_.block[2] << "), " << launch_.shared_bytes << " bytes of shared memory\n";
    os_ << "extern \"C\" __global__ void __launch_bounds__(" << launch_.threads() << ") " << name
        << "(" << params << ") {\n";
    indent_ = 1;
    declare_shared(body);
    stmt(body);
    os_ << "}\n";
    return os_.str();
  }

 private:
  // ---- names ----
  std::string unique(const std::string& base) {
    std::string n = sanitize(base);
    while (!used_.insert(n).second) n = sanitize(base) + "_" + std::to_string(++counter_);
    return n;
  }
  std::string var(const ir::Var& v) {
    auto it = vars_.find(v.get());
    if (it != vars_.end()) return it->second;
    return vars_[v.get()] = unique(v->name);
  }
  std::string buffer(const ir::Buffer& b) {
    auto it = bufs_.find(b.get());
    if (it != bufs_.end()) return it->second;
    return bufs_[b.get()] = unique(b->name);
  }
  void line() { os_ << std::string(2 * static_cast<size_t>(indent_), ' '); }

  // ---- declarations ----
  void declare_shared(const ir::Stmt& body) {
    class Shared : public ir::Visitor {
     public:
      std::vector<ir::Buffer> list;

     protected:
      void visit_Allocate(const ir::Allocate& n) override {
        if (n.buffer->scope == ir::Scope::kShared) list.push_back(n.buffer);
        ir::Visitor::visit_Allocate(n);
      }
    } shared;
    shared.visit(body);
    for (const ir::Buffer& b : shared.list) {
      if (b->dtype == ir::DType::kFloat16) info_.uses_fp16 = true;
      line();
      os_ << "__shared__ __align__(32) " << cuda_type(b->dtype) << " " << buffer(b) << "["
          << b->elements() << "];\n";
    }
  }
  std::string fragment_type(const ir::Buffer& b) {
    const std::string t = cuda_type(b->dtype);
    switch (b->scope) {
      case ir::Scope::kInp:
        return std::string(kWmma) + "fragment<" + kWmma + "matrix_a, 16, 16, 16, " + t + ", " +
               kWmma + "row_major>";
      case ir::Scope::kWgt:
        return std::string(kWmma) + "fragment<" + kWmma + "matrix_b, 16, 16, 16, " + t + ", " +
               kWmma + "col_major>";
      default:
        return std::string(kWmma) + "fragment<" + kWmma + "accumulator, 16, 16, 16, " + t + ">";
    }
  }
  void check_fragment_buffer(const ir::Buffer& b) {
    const size_t n = b->shape.size();
    if (n < 2 || b->shape[n - 1] != kWmmaTile || b->shape[n - 2] != kWmmaTile) {
      throw UserError("buffer '" + b->name + "' in " + ir::scope_name(b->scope) +
                      " scope is a tensor-core fragment on the GPU and must end in 16x16 tiles");
    }
    const bool in = b->scope != ir::Scope::kAcc;
    const ir::DType t = b->dtype;
    if (in ? (t != ir::DType::kFloat16 && t != ir::DType::kInt8)
           : (t != ir::DType::kFloat32 && t != ir::DType::kInt32 && t != ir::DType::kFloat16)) {
      throw UserError("buffer '" + b->name + "': tensor-core " +
                      (in ? "input fragments hold float16 or int8"
                          : "accumulators hold float32, float16 or int32") +
                      ", not " + ir::dtype_name(t));
    }
  }

  // ---- expressions ----
  std::string imm_as(int64_t v, ir::DType t) {
    switch (t) {
      case ir::DType::kFloat32:
        return std::to_string(v) + ".0f";
      case ir::DType::kFloat16:
        return "__float2half(" + std::to_string(v) + ".0f)";
      case ir::DType::kInt8:
        return "(signed char)(" + std::to_string(v) + ")";
      default:
        if (v > INT32_MAX || v < INT32_MIN) {
          throw UserError("cuda codegen: constant " + std::to_string(v) +
                          " does not fit the GPU's 32-bit index arithmetic");
        }
        return v == INT32_MIN ? "(-2147483647 - 1)" : std::to_string(v);
    }
  }
  // `e` converted to `t` (the C text).
  std::string as(const ir::Expr& e, ir::DType t) {
    if (e->kind == ir::NodeKind::kIntImm) return imm_as(static_cast<const ir::IntImm&>(*e).value, t);
    return convert(expr(e), e->dtype, t);
  }
  std::string convert(const std::string& s, ir::DType from, ir::DType to) {
    if (std::string(cuda_type(from)) == cuda_type(to)) return s;
    if (to == ir::DType::kFloat16) {
      info_.uses_fp16 = true;
      return "__float2half((float)(" + s + "))";
    }
    if (from == ir::DType::kFloat16) return "((" + std::string(cuda_type(to)) + ")__half2float(" + s + "))";
    return "((" + std::string(cuda_type(to)) + ")(" + s + "))";
  }

  std::string expr(const ir::Expr& e) {
    switch (e->kind) {
      case ir::NodeKind::kIntImm: {
        const auto& n = static_cast<const ir::IntImm&>(*e);
        return imm_as(n.value, n.dtype);
      }
      case ir::NodeKind::kFloatImm: {
        const auto& n = static_cast<const ir::FloatImm&>(*e);
        std::ostringstream f;
        f.precision(9);
        f << n.value;
        std::string t = f.str();
        if (t == "inf") t = "__int_as_float(0x7f800000)";
        else if (t == "-inf") t = "__int_as_float(0xff800000)";
        else t += t.find_first_of(".eE") == std::string::npos ? ".0f" : "f";
        return n.dtype == ir::DType::kFloat16 ? "__float2half(" + t + ")" : t;
      }
      case ir::NodeKind::kVarRef:
        return var(static_cast<const ir::VarRef&>(*e).var);
      case ir::NodeKind::kBinary:
        return binary(static_cast<const ir::Binary&>(*e));
      case ir::NodeKind::kCast: {
        const auto& n = static_cast<const ir::Cast&>(*e);
        return as(n.value, n.dtype);
      }
      case ir::NodeKind::kLoad: {
        const auto& n = static_cast<const ir::Load&>(*e);
        if (is_fragment(n.buffer->scope)) {
          throw UserError("buffer '" + n.buffer->name +
                          "' is a tensor-core fragment on the GPU: it is read only by the "
                          "tensorized GEMM or by a whole 16x16 tile copy");
        }
        return buffer(n.buffer) + "[" + expr(flatten(n.buffer, n.indices, n.indices.size())) + "]";
      }
      case ir::NodeKind::kCall:
        return call(static_cast<const ir::Call&>(*e));
      default:
        throw InternalError("cuda codegen: statement where an expression belongs");
    }
  }

  std::string binary(const ir::Binary& n) {
    const ir::DType t = n.dtype;
    // dp4a with its addend: acc + dot4_i8(x, y).
    if (n.op == ir::BinOp::kAdd) {
      for (int side = 0; side < 2; ++side) {
        const ir::Expr& d = side ? n.a : n.b;
        const ir::Expr& other = side ? n.b : n.a;
        if (d->kind == ir::NodeKind::kCall &&
            static_cast<const ir::Call&>(*d).op == ir::Intrinsic::kDot4I8 &&
            t == ir::DType::kInt32) {
          const auto& c = static_cast<const ir::Call&>(*d);
          return "__dp4a(" + as(c.args[0], ir::DType::kInt32) + ", " +
                 as(c.args[1], ir::DType::kInt32) + ", " + as(other, ir::DType::kInt32) + ")";
        }
      }
    }
    // Comparisons and logic compare in the wider operand type.
    const ir::DType ot = n.op == ir::BinOp::kLt || n.op == ir::BinOp::kGe || n.op == ir::BinOp::kAnd
                             ? (ir::is_float(n.a->dtype) ? n.a->dtype : n.b->dtype)
                             : t;
    const std::string a = as(n.a, ot), b = as(n.b, ot);
    const bool f = ir::is_float(ot);
    switch (n.op) {
      case ir::BinOp::kAdd:
        return "(" + a + " + " + b + ")";
      case ir::BinOp::kSub:
        return "(" + a + " - " + b + ")";
      case ir::BinOp::kMul:
        return "(" + a + " * " + b + ")";
      case ir::BinOp::kFloorDiv:
        return f ? "floorf(" + a + " / " + b + ")" : "weft_floordiv(" + a + ", " + b + ")";
      case ir::BinOp::kFloorMod:
        if (f) throw UserError("cuda codegen: floor modulo of floating-point values");
        return "weft_floormod(" + a + ", " + b + ")";
      case ir::BinOp::kMin:
        return (f ? "fminf(" : "min(") + a + ", " + b + ")";
      case ir::BinOp::kMax:
        return (f ? "fmaxf(" : "max(") + a + ", " + b + ")";
      case ir::BinOp::kShr:
        return "(" + a + " >> " + b + ")";
      case ir::BinOp::kLt:
        return "(" + a + " < " + b + ")";
      case ir::BinOp::kGe:
        return "(" + a + " >= " + b + ")";
      case ir::BinOp::kAnd:
        return "(" + a + " && " + b + ")";
    }
    throw InternalError("cuda codegen: unknown binary operator");
  }

  std::string call(const ir::Call& n) {
    switch (n.op) {
      case ir::Intrinsic::kSelect:
        return "(" + expr(n.args[0]) + " ? " + as(n.args[1], n.dtype) + " : " +
               as(n.args[2], n.dtype) + ")";
      case ir::Intrinsic::kDot4I8:
        return "__dp4a(" + as(n.args[0], ir::DType::kInt32) + ", " +
               as(n.args[1], ir::DType::kInt32) + ", 0)";
      case ir::Intrinsic::kRcp:
        return "(1.0f / " + as(n.args[0], ir::DType::kFloat32) + ")";
      case ir::Intrinsic::kDot2I16:
        return "weft_dot2_i16(" + as(n.args[0], ir::DType::kInt32) + ", " +
               as(n.args[1], ir::DType::kInt32) + ")";
      default:
        throw UserError("cuda codegen: unknown intrinsic '" + n.name() + "' in an expression");
    }
  }

  // ---- statements ----
  void stmt(const ir::Stmt& s) {
    switch (s->kind) {
      case ir::NodeKind::kSeq:
        for (const ir::Stmt& x : static_cast<const ir::Seq&>(*s).stmts) stmt(x);
        return;
      case ir::NodeKind::kFor:
        return loop(static_cast<const ir::For&>(*s));
      case ir::NodeKind::kStore:
        return store(static_cast<const ir::Store&>(*s));
      case ir::NodeKind::kAllocate:
        return allocate(static_cast<const ir::Allocate&>(*s));
      case ir::NodeKind::kIfThenElse: {
        const auto& n = static_cast<const ir::IfThenElse&>(*s);
        line();
        os_ << "if (" << expr(n.cond) << ") {\n";
        block(n.then_case);
        if (n.else_case) {
          line();
          os_ << "} else {\n";
          block(n.else_case);
        }
        line();
        os_ << "}\n";
        return;
      }
      case ir::NodeKind::kEvaluate:
        return evaluate(static_cast<const ir::Evaluate&>(*s));
      case ir::NodeKind::kAttrStmt:  // pragmas and double_buffer markers print nothing
        return stmt(static_cast<const ir::AttrStmt&>(*s).body);
      default:
        throw InternalError("cuda codegen: expression where a statement belongs");
    }
  }
  void block(const ir::Stmt& s) {
    ++indent_;
    stmt(s);
    --indent_;
  }

  // A loop bound to a block or thread index: its variable is that index.
  void bound_loop(const ir::For& f) {
    const std::string axis = ir::thread_axis_name(*f.thread);
    const int a = static_cast<int>(*f.thread);
    const int64_t launch = a < 3 ? launch_.grid[a] : launch_.block[a - 3];
    const int64_t extent = ir::as_imm(f.extent)->value;
    line();
    os_ << "{  // " << f.var->name << " bound to " << axis << "\n";
    ++indent_;
    line();
    os_ << "const int " << var(f.var) << " = " << axis;
    if (const ir::IntImm* mn = ir::as_imm(f.min); !mn || mn->value != 0)
      os_ << " + " << expr(f.min);
    os_ << ";\n";
    if (extent < launch) {
      line();
      os_ << "if (" << axis << " < " << extent << ") {\n";
      block(f.body);
      line();
      os_ << "}\n";
    } else {
      stmt(f.body);
    }
    --indent_;
    line();
    os_ << "}\n";
  }

  void loop(const ir::For& n) {
    if (n.thread) return bound_loop(n);
    if (fragment_copy(n)) return;
    if (n.kind == ir::ForKind::kVectorized && vector_copy(n)) return;
    const std::string v = var(n.var);
    const std::string mn = expr(n.min);
    if (n.kind == ir::ForKind::kUnrolled || n.kind == ir::ForKind::kVectorized) {
      line();
      os_ << "#pragma unroll\n";
    }
    line();
    os_ << "for (int " << v << " = " << mn << "; " << v << " < "
        << (mn == "0" ? expr(n.extent) : expr(ir::simplify(ir::add(n.min, n.extent)))) << "; ++"
        << v << ") {\n";
    block(n.body);
    line();
    os_ << "}\n";
  }

  // A vectorized loop copying contiguous, aligned elements: one wide access.
  bool vector_copy(const ir::For& n) {
    const ir::IntImm* ext = ir::as_imm(n.extent);
    if (!ext || n.body->kind != ir::NodeKind::kStore) return false;
    const auto& st = static_cast<const ir::Store&>(*n.body);
    if (st.value->kind != ir::NodeKind::kLoad) return false;
    const auto& ld = static_cast<const ir::Load&>(*st.value);
    if (ld.buffer->dtype != st.buffer->dtype || is_fragment(ld.buffer->scope) ||
        is_fragment(st.buffer->scope)) {
      return false;
    }
    const int64_t lanes = ext->value, bytes = lanes * ir::dtype_bits(st.buffer->dtype) / 8;
    const char* vt = bytes == 4 ? "unsigned int" : bytes == 8 ? "uint2" : bytes == 16 ? "uint4" : nullptr;
    if (!vt) return false;
    const auto dst = lane_form(flatten(st.buffer, st.indices, st.indices.size()), n.var, lanes);
    const auto src = lane_form(flatten(ld.buffer, ld.indices, ld.indices.size()), n.var, lanes);
    if (!dst || !src || dst->second != 1 || src->second != 1) return false;
    const ir::Expr d0 = ir::simplify(ir::add(dst->first, n.min));
    const ir::Expr s0 = ir::simplify(ir::add(src->first, n.min));
    if (!multiple_of(d0, lanes) || !multiple_of(s0, lanes)) return false;
    line();
    os_ << "*reinterpret_cast<" << vt << "*>(&" << buffer(st.buffer) << "[" << expr(d0)
        << "]) = *reinterpret_cast<const " << vt << "*>(&" << buffer(ld.buffer) << "["
        << expr(s0) << "]);  // " << n.var->name << ": " << lanes << " lanes\n";
    return true;
  }

  // A 16x16 copy nest into (or out of) a tensor-core fragment: load_matrix_sync or
  // store_matrix_sync. False when the loop touches no fragment.
  bool fragment_copy(const ir::For& n) {
    const ir::Store* st = nullptr;
    const ir::For* inner = nullptr;
    if (n.body->kind == ir::NodeKind::kFor) {
      inner = static_cast<const ir::For*>(n.body.get());
      if (inner->body->kind == ir::NodeKind::kStore)
        st = static_cast<const ir::Store*>(inner->body.get());
    }
    const ir::Load* ld = st && st->value->kind == ir::NodeKind::kLoad
                             ? static_cast<const ir::Load*>(st->value.get())
                             : nullptr;
    const bool into = st && is_fragment(st->buffer->scope);
    const bool out = ld && is_fragment(ld->buffer->scope);
    if (!into && !out) return false;
    auto fail = [&](const std::string& why) -> bool {
      throw UserError("loop '" + n.var->name + "': the copy " +
                      (into ? "into tensor-core fragment '" + st->buffer->name
                            : "out of tensor-core fragment '" + ld->buffer->name) +
                      "' must be one whole 16x16 tile per iteration: " + why);
    };
    if (!ld) fail("its value is not a plain load");
    if (ld->buffer->dtype != st->buffer->dtype) fail("the element types differ");
    if (into && out) fail("fragment to fragment");
    const ir::IntImm* e0 = ir::as_imm(n.extent);
    const ir::IntImm* e1 = ir::as_imm(inner->extent);
    if (!e0 || !e1 || e0->value != kWmmaTile || e1->value != kWmmaTile)
      fail("the two innermost loops must have extent 16");
    const ir::Buffer& frag = into ? st->buffer : ld->buffer;
    const std::vector<ir::Expr>& fidx = into ? st->indices : ld->indices;
    const ir::Buffer& mem = into ? ld->buffer : st->buffer;
    const std::vector<ir::Expr>& midx = into ? ld->indices : st->indices;
    check_fragment_buffer(frag);
    const size_t nd = fidx.size();
    if (!ir::is_var(fidx[nd - 2], n.var) || !ir::is_var(fidx[nd - 1], inner->var))
      fail("the fragment's tile dimensions must be indexed by the two loops");
    const auto rows = lane_form(flatten(mem, midx, midx.size()), n.var, kWmmaTile);
    const auto cols = rows ? lane_form(rows->first, inner->var, kWmmaTile) : std::nullopt;
    if (!rows || !cols || cols->second != 1 || rows->second <= 0)
      fail("'" + mem->name + "' must be read row by row with unit column stride");
    const int64_t ldm = rows->second;
    const int64_t esize = ir::dtype_bits(mem->dtype) / 8;
    if ((ldm * esize) % 16 != 0) {
      fail("the row stride of '" + mem->name + "' (" + std::to_string(ldm) +
           " elements) must be a multiple of 16 bytes");
    }
    const ir::Expr base = ir::simplify(cols->first);
    if (!multiple_of(base, 32 / esize))
      fail("the tile's start in '" + mem->name + "' must be 32-byte aligned");
    const std::string fi = buffer(frag) + "[" + expr(flatten(frag, fidx, nd - 2)) + "]";
    const std::string ptr = "&" + buffer(mem) + "[" + expr(base) + "]";
    info_.uses_wmma = true;
    line();
    if (into) {
      os_ << kWmma << "load_matrix_sync(" << fi << ", " << ptr << ", " << ldm << ");\n";
    } else {
      os_ << kWmma << "store_matrix_sync(" << ptr << ", " << fi << ", " << ldm << ", " << kWmma
          << "mem_row_major);\n";
    }
    return true;
  }

  void store(const ir::Store& n) {
    if (is_fragment(n.buffer->scope)) {
      throw UserError("buffer '" + n.buffer->name +
                      "' is a tensor-core fragment on the GPU: it is written only by the "
                      "tensorized GEMM or by a whole 16x16 tile copy");
    }
    line();
    os_ << buffer(n.buffer) << "[" << expr(flatten(n.buffer, n.indices, n.indices.size()))
        << "] = " << as(n.value, n.buffer->dtype) << ";\n";
  }

  void allocate(const ir::Allocate& n) {
    const ir::Buffer& b = n.buffer;
    if (b->dtype == ir::DType::kFloat16) info_.uses_fp16 = true;
    if (b->scope == ir::Scope::kShared) return stmt(n.body);  // declared at the top
    line();
    os_ << "{\n";
    ++indent_;
    line();
    if (is_fragment(b->scope)) {
      check_fragment_buffer(b);
      info_.uses_wmma = true;
      os_ << fragment_type(b) << " " << buffer(b) << "[" << b->elements() / (kWmmaTile * kWmmaTile)
          << "];\n";
    } else if (b->scope == ir::Scope::kLocal) {
      os_ << cuda_type(b->dtype) << " " << buffer(b) << "[" << b->elements() << "];\n";
    } else {
      throw UserError(std::string("buffer '") + b->name + "' in " + ir::scope_name(b->scope) +
                      " scope cannot be allocated in a GPU kernel");
    }
    stmt(n.body);
    --indent_;
    line();
    os_ << "}\n";
  }

  void evaluate(const ir::Evaluate& n) {
    if (n.value->kind == ir::NodeKind::kCall) {
      const auto& c = static_cast<const ir::Call&>(*n.value);
      if (c.op == ir::Intrinsic::kSyncThreads) {
        line();
        os_ << "__syncthreads();\n";
        return;
      }
      if (c.op == ir::Intrinsic::kWmmaMma || c.op == ir::Intrinsic::kWmmaFill) {
        info_.uses_wmma = true;
        for (const ir::Buffer& b : c.buffers) check_fragment_buffer(b);
        const std::string acc = buffer(c.buffers[0]) + "[" + expr(c.args[0]) + "]";
        line();
        if (c.op == ir::Intrinsic::kWmmaFill) {
          os_ << kWmma << "fill_fragment(" << acc << ", "
              << imm_as(0, c.buffers[0]->dtype) << ");\n";
        } else {
          os_ << kWmma << "mma_sync(" << acc << ", " << buffer(c.buffers[1]) << "["
              << expr(c.args[1]) << "], " << buffer(c.buffers[2]) << "[" << expr(c.args[2])
              << "], " << acc << ");\n";
        }
        return;
      }
    }
    line();
    os_ << "(void)(" << expr(n.value) << ");\n";
  }

  const LaunchConfig& launch_;
  EmitInfo& info_;
  std::ostringstream os_;
  int indent_ = 0;
  int counter_ = 0;
  std::set<std::string> used_;
  std::map<const ir::VarObj*, std::string> vars_;
  std::map<const ir::BufferObj*, std::string> bufs_;
};

}  // namespace

void emit_kernel(const std::string& name, const std::vector<ir::Buffer>& args,
                 const ir::Stmt& body, const LaunchConfig& launch, std::string& out,
                 EmitInfo& info) {
  out += Emitter(launch, info).kernel(name, args, body);
}

std::string cuda_prelude(const EmitInfo& info) {
  std::string s;
  if (info.uses_fp16) s += "#include <cuda_fp16.h>\n";
  if (info.uses_wmma) s += "#include <mma.h>\n";
  s += R"(
// Floor division and modulo of the IR (rounding towards negative infinity).
__device__ __forceinline__ int weft_floordiv(int a, int b) {
  const int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ int weft_floormod(int a, int b) {
  const int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// Two int16 halves per int32, multiplied pairwise and added (the IR's dot2_i16).
__device__ __forceinline__ int weft_dot2_i16(int x, int y) {
  return (int)(short)(x & 0xffff) * (int)(short)(y & 0xffff) + (x >> 16) * (y >> 16);
}
)";
  return s;
}

}  // namespace weft::compiler::codegen
