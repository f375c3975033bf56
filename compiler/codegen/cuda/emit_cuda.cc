// Printing loop IR as CUDA C; see emit_cuda.h and codegen_cuda.h for what each construct
// becomes.
#include "compiler/codegen/cuda/emit_cuda.h"

#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/codegen/cuda/cuda_index.h"
#include "compiler/codegen/cuda/wmma.h"
#include "compiler/ir/linear.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

std::string sanitize(const std::string& n) {
  std::string s;
  for (char c : n) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v" + s;
  return s;
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
    const std::optional<FragmentCopy> c = codegen::fragment_copy(n);
    if (!c) return false;
    const std::string fi = buffer(c->fragment) + "[" + expr(c->tile) + "]";
    const std::string ptr = "&" + buffer(c->memory) + "[" + expr(c->base) + "]";
    info_.uses_wmma = true;
    line();
    if (c->into) {
      os_ << kWmmaNamespace << "load_matrix_sync(" << fi << ", " << ptr << ", " << c->ldm << ");\n";
    } else {
      os_ << kWmmaNamespace << "store_matrix_sync(" << ptr << ", " << fi << ", " << c->ldm << ", "
          << kWmmaNamespace << "mem_row_major);\n";
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
          os_ << kWmmaNamespace << "fill_fragment(" << acc << ", " << imm_as(0, c.buffers[0]->dtype)
              << ");\n";
        } else {
          os_ << kWmmaNamespace << "mma_sync(" << acc << ", " << buffer(c.buffers[1]) << "["
              << expr(c.args[1]) << "], " << buffer(c.buffers[2]) << "[" << expr(c.args[2]) << "], "
              << acc << ");\n";
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
