// Loop IR to LLVM IR; see codegen_llvm.h for what each loop kind becomes. One Gen object
// builds one module. Values are scalars, or vectors of `lanes_` elements inside a vectorized
// loop; booleans are i1 while they are conditions and become the node's type when stored.
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/TargetParser/Triple.h>

#include <optional>
#include <set>
#include <unordered_map>

#include "compiler/codegen/llvm/llvm_module.h"
#include "compiler/codegen/lowered_func.h"
#include "compiler/codegen/llvm/simplify_index.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

constexpr int64_t kMaxLanes = 64;
constexpr int64_t kMaxUnroll = 1024;
constexpr int64_t kMaxStackBytes = 512 * 1024;

// Whether an expression or statement mentions a variable.
class Mentions : public ir::Visitor {
 public:
  explicit Mentions(const ir::VarObj* v) : var_(v) {}
  bool found = false;

 protected:
  void visit_VarRef(const ir::VarRef& n) override { found |= n.var.get() == var_; }

 private:
  const ir::VarObj* var_;
};
template <typename T>
bool mentions(const T& node, const ir::VarObj* v) {
  Mentions m(v);
  m.visit(node);
  return m.found;
}

// d(e)/d(v) when `e` is affine in `v` (other subterms may be anything not mentioning `v`).
std::optional<int64_t> coef_of(const ir::Expr& e, const ir::VarObj* v) {
  if (!mentions(e, v)) return 0;
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

// The row-major flat offset of an access, each index as int64.
ir::Expr flat_offset(const ir::Buffer& b, const std::vector<ir::Expr>& idx) {
  std::vector<ir::Expr> idx64;
  for (const ir::Expr& i : idx) idx64.push_back(ir::cast(ir::DType::kInt64, i));
  return ir::flat_index(b, idx64, idx64.size());
}

// The intrinsics the CPU backend implements.
bool implemented(ir::Intrinsic op) {
  return op == ir::Intrinsic::kSelect || op == ir::Intrinsic::kDot2I16 ||
         op == ir::Intrinsic::kDot4U8S8 || op == ir::Intrinsic::kRoundEven;
}

std::string describe(const ir::For& n) {
  return std::string(ir::for_kind_name(n.kind)) + " loop '" + n.var->name + "'";
}

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
    if (!implemented(n.op)) fail("it calls '" + n.name() + "'");
    ir::Visitor::visit_Call(n);
  }
  void visit_Load(const ir::Load& n) override {
    loads_.push_back({n.buffer.get(), ir::to_string(flat_offset(n.buffer, n.indices))});
    ir::Visitor::visit_Load(n);
  }
  void visit_Store(const ir::Store& n) override {
    const ir::Expr off = flat_offset(n.buffer, n.indices);
    if (!mentions(off, var_)) {
      if (mentions(n.value, var_)) fail("a lane-dependent value is stored to one address");
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

class Gen {
 public:
  Gen(llvm::Module& m, const TargetInfo& t) : ctx_(m.getContext()), mod_(m), b_(ctx_), target_(t) {
    i1_ = llvm::Type::getInt1Ty(ctx_);
    i64_ = llvm::Type::getInt64Ty(ctx_);
    ptr_ = llvm::PointerType::get(ctx_, 0);
    parallel_for_ = mod_.getOrInsertFunction(
        kParallelForSymbol,
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {i64_, ptr_, ptr_}, false));
  }

  void function(const LoweredFunc& f) {
    fname_ = f.name;
    task_count_ = 0;
    if (f.args.empty()) throw UserError("llvm codegen: function '" + f.name + "' has no buffers");
    // The body: one noalias pointer per buffer, inlined into the wrapper.
    std::vector<llvm::Type*> params(f.args.size(), ptr_);
    llvm::Function* body = new_function(f.name + ".body", params, true);
    for (size_t i = 0; i < f.args.size(); ++i)
      body->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    // The wrapper: void name(ptr args).
    llvm::Function* wrapper = new_function(f.name, {ptr_}, false);
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", wrapper));
    std::vector<llvm::Value*> ptrs;
    for (size_t i = 0; i < f.args.size(); ++i) {
      llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(ptr_, wrapper->getArg(0), i);
      ptrs.push_back(b_.CreateLoad(ptr_, slot, f.args[i]->name));
    }
    b_.CreateCall(body, ptrs);
    b_.CreateRetVoid();

    fn_ = body;
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", body));
    for (size_t i = 0; i < f.args.size(); ++i) {
      if (f.args[i]->scope != ir::Scope::kGlobal) {
        throw UserError("llvm codegen: function '" + f.name + "': argument '" + f.args[i]->name +
                        "' is in scope " + ir::scope_name(f.args[i]->scope) + ", not global");
      }
      body->getArg(static_cast<unsigned>(i))->setName(f.args[i]->name);
      bufs_[f.args[i].get()] = body->getArg(static_cast<unsigned>(i));
    }
    stmt(simplify_index(f.body));
    b_.CreateRetVoid();
    bufs_.clear();
    vars_.clear();
  }

 private:
  llvm::Function* new_function(const std::string& name, const std::vector<llvm::Type*>& params,
                               bool internal) {
    auto* ty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false);
    auto* f = llvm::Function::Create(
        ty, internal ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage, name,
        mod_);
    if (!target_.cpu.empty()) f->addFnAttr("target-cpu", target_.cpu);
    if (!target_.features.empty()) f->addFnAttr("target-features", target_.features);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    if (internal) f->addFnAttr(llvm::Attribute::AlwaysInline);
    return f;
  }

  // ---- types and conversions ----

  llvm::Type* scalar(ir::DType t) {
    switch (t) {
      case ir::DType::kInt8:
        return llvm::Type::getInt8Ty(ctx_);
      case ir::DType::kInt32:
        return llvm::Type::getInt32Ty(ctx_);
      case ir::DType::kInt64:
        return i64_;
      case ir::DType::kFloat32:
        return llvm::Type::getFloatTy(ctx_);
      case ir::DType::kFloat16:
        throw UserError("llvm codegen: float16 is not supported by the CPU backend");
    }
    throw InternalError("llvm codegen: unknown dtype");
  }
  static bool is_vec(llvm::Value* v) { return v->getType()->isVectorTy(); }
  // `t`, or a vector of it when `like` is a vector.
  llvm::Type* shaped(llvm::Type* t, llvm::Value* like) {
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like->getType()))
      return llvm::FixedVectorType::get(t, vt->getNumElements());
    return t;
  }
  llvm::Value* splat(llvm::Value* v) {
    if (lanes_ == 0 || is_vec(v)) return v;
    return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), v);
  }
  // Makes a and b both vectors when either is one.
  void unify(llvm::Value*& a, llvm::Value*& b) {
    if (is_vec(a) != is_vec(b)) {
      a = splat(a);
      b = splat(b);
    }
  }
  llvm::Value* convert(llvm::Value* v, ir::DType from, ir::DType to) {
    if (from == to) return v;
    llvm::Type* dst = shaped(scalar(to), v);
    if (ir::is_float(from) && ir::is_float(to)) return v;
    if (ir::is_float(from)) return b_.CreateFPToSI(v, dst);
    if (ir::is_float(to)) return b_.CreateSIToFP(v, dst);
    return b_.CreateSExtOrTrunc(v, dst);
  }
  llvm::Value* from_bool(llvm::Value* c, ir::DType to) {
    llvm::Type* dst = shaped(scalar(to), c);
    return ir::is_float(to) ? b_.CreateUIToFP(c, dst) : b_.CreateZExt(c, dst);
  }

  // ---- expressions ----

  // The value of `e` in its own type.
  llvm::Value* expr(const ir::Expr& e) {
    switch (e->kind) {
      case ir::NodeKind::kIntImm: {
        const auto& n = static_cast<const ir::IntImm&>(*e);
        if (ir::is_float(n.dtype))
          return llvm::ConstantFP::get(scalar(n.dtype), static_cast<double>(n.value));
        return llvm::ConstantInt::get(scalar(n.dtype), static_cast<uint64_t>(n.value), true);
      }
      case ir::NodeKind::kFloatImm: {
        const auto& n = static_cast<const ir::FloatImm&>(*e);
        if (!ir::is_float(n.dtype)) {
          return llvm::ConstantInt::get(scalar(n.dtype),
                                        static_cast<uint64_t>(static_cast<int64_t>(n.value)), true);
        }
        return llvm::ConstantFP::get(scalar(n.dtype), n.value);
      }
      case ir::NodeKind::kVarRef: {
        const auto& n = static_cast<const ir::VarRef&>(*e);
        if (n.var.get() == vvar_) return lane0_ ? vbase_ : vlanes_;
        auto it = vars_.find(n.var.get());
        if (it == vars_.end()) {
          throw InternalError("llvm codegen: variable '" + n.var->name + "' is not bound");
        }
        return it->second;
      }
      case ir::NodeKind::kBinary:
        return binary(static_cast<const ir::Binary&>(*e));
      case ir::NodeKind::kCast: {
        const auto& n = static_cast<const ir::Cast&>(*e);
        return convert(expr(n.value), n.value->dtype, n.dtype);
      }
      case ir::NodeKind::kLoad:
        return load(static_cast<const ir::Load&>(*e));
      case ir::NodeKind::kCall:
        return call(static_cast<const ir::Call&>(*e));
      default:
        throw InternalError("llvm codegen: statement in expression position");
    }
  }

  // `e` as an i1 (vector) condition.
  llvm::Value* cond(const ir::Expr& e) {
    if (e->kind == ir::NodeKind::kBinary) {
      const auto& n = static_cast<const ir::Binary&>(*e);
      if (n.op == ir::BinOp::kAnd || n.op == ir::BinOp::kLt || n.op == ir::BinOp::kGe) {
        return cond_of_binary(n);
      }
    }
    llvm::Value* v = expr(e);
    llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
    return ir::is_float(e->dtype) ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }

  llvm::Value* binary(const ir::Binary& n) {
    using ir::BinOp;
    if (n.op == BinOp::kLt || n.op == BinOp::kGe || n.op == BinOp::kAnd) {
      return from_bool(cond_of_binary(n), n.dtype);
    }
    if (n.op == BinOp::kAdd && n.dtype == ir::DType::kInt32) {
      // acc + dot4_u8s8(x, y) (either side): one vpdpbusd with acc as its addend.
      for (const auto& [acc, d] : {std::make_pair(n.a, n.b), std::make_pair(n.b, n.a)}) {
        if (d->kind != ir::NodeKind::kCall) continue;
        const auto& c = static_cast<const ir::Call&>(*d);
        if (c.op != ir::Intrinsic::kDot4U8S8) continue;
        if (llvm::Value* v = dot4(c, convert(expr(acc), acc->dtype, ir::DType::kInt32))) return v;
      }
    }
    llvm::Value* a = convert(expr(n.a), n.a->dtype, n.dtype);
    llvm::Value* b = convert(expr(n.b), n.b->dtype, n.dtype);
    unify(a, b);
    if (ir::is_float(n.dtype)) {
      llvm::FastMathFlags fmf;
      fmf.setAllowContract(true);
      llvm::IRBuilder<>::FastMathFlagGuard guard(b_);
      b_.setFastMathFlags(fmf);
      switch (n.op) {
        case BinOp::kAdd:
          return b_.CreateFAdd(a, b);
        case BinOp::kSub:
          return b_.CreateFSub(a, b);
        case BinOp::kMul:
          return b_.CreateFMul(a, b);
        case BinOp::kMin:
          return b_.CreateSelect(b_.CreateFCmpOLT(a, b), a, b);
        case BinOp::kMax:
          return b_.CreateSelect(b_.CreateFCmpOGT(a, b), a, b);
        default:
          throw UserError(std::string("llvm codegen: operator '") + ir::binop_name(n.op) +
                          "' is not defined on float32 values (in " + fname_ + ")");
      }
    }
    switch (n.op) {
      case BinOp::kAdd:
        return b_.CreateAdd(a, b);
      case BinOp::kSub:
        return b_.CreateSub(a, b);
      case BinOp::kMul:
        return b_.CreateMul(a, b);
      case BinOp::kMin:
        return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
      case BinOp::kMax:
        return b_.CreateSelect(b_.CreateICmpSGT(a, b), a, b);
      case BinOp::kFloorDiv:
      case BinOp::kFloorMod: {
        // Truncating division, corrected towards negative infinity.
        llvm::Value* q = b_.CreateSDiv(a, b);
        llvm::Value* r = b_.CreateSRem(a, b);
        llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
        llvm::Value* fix =
            b_.CreateAnd(b_.CreateICmpNE(r, zero),
                         b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
        if (n.op == BinOp::kFloorDiv) return b_.CreateSub(q, b_.CreateZExt(fix, q->getType()));
        return b_.CreateSelect(fix, b_.CreateAdd(r, b), r);
      }
      case BinOp::kShr: {
        if (const ir::IntImm* k = ir::as_imm(n.b); k && k->value >= 0) return b_.CreateAShr(a, b);
        llvm::Value* zero = llvm::Constant::getNullValue(b->getType());
        llvm::Value* neg = b_.CreateICmpSLT(b, zero);
        return b_.CreateSelect(neg, b_.CreateShl(a, b_.CreateNeg(b)), b_.CreateAShr(a, b));
      }
      default:
        break;
    }
    throw InternalError("llvm codegen: unhandled binary operator");
  }
  // A comparison or conjunction as an i1 (vector).
  llvm::Value* cond_of_binary(const ir::Binary& n) {
    using ir::BinOp;
    if (n.op == BinOp::kAnd) {
      llvm::Value* a = cond(n.a);
      llvm::Value* b = cond(n.b);
      unify(a, b);
      return b_.CreateAnd(a, b);
    }
    llvm::Value* a = convert(expr(n.a), n.a->dtype, n.dtype);
    llvm::Value* b = convert(expr(n.b), n.b->dtype, n.dtype);
    unify(a, b);
    const bool lt = n.op == BinOp::kLt;
    if (ir::is_float(n.dtype)) return lt ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOGE(a, b);
    return lt ? b_.CreateICmpSLT(a, b) : b_.CreateICmpSGE(a, b);
  }

  // dot4_u8s8(x, y) [+ acc]: vpdpbusd in 16-lane (AVX512-VNNI) or 8-lane (AVX-VNNI or
  // AVX512-VNNI with VL) pieces where the host has it, else widening multiplies and three adds
  // per lane. With `acc` null the addend is zero; the generic path adds acc itself. Returns
  // null only when acc is given and the generic path applies (the caller adds).
  llvm::Value* dot4(const ir::Call& n, llvm::Value* acc) {
    llvm::Value* x = convert(expr(n.args[0]), n.args[0]->dtype, ir::DType::kInt32);
    llvm::Value* y = convert(expr(n.args[1]), n.args[1]->dtype, ir::DType::kInt32);
    unify(x, y);
    if (acc) unify(acc, x);
    if (acc) unify(x, acc);
    if (acc) unify(y, acc);
    const bool scalar = !is_vec(x);
    const unsigned lanes = scalar ? 1 : static_cast<unsigned>(lanes_);
    auto* i8 = llvm::Type::getInt8Ty(ctx_);
    auto* i32 = llvm::Type::getInt32Ty(ctx_);
    const auto& f = target_.features;
    const bool x86 = llvm::Triple(target_.triple).isX86();
    const bool vnni512 = f.find("+avx512vnni") != std::string::npos &&
                         f.find("+avx512bw") != std::string::npos;
    const bool vnni256 = (vnni512 && f.find("+avx512vl") != std::string::npos) ||
                         f.find("+avxvnni") != std::string::npos;
    const unsigned chunk = vnni512 && lanes % 16 == 0 ? 16 : (vnni256 && lanes % 8 == 0 ? 8 : 0);
    if (x86 && chunk > 0) {
      const llvm::Intrinsic::ID id = chunk == 16 ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                                 : llvm::Intrinsic::x86_avx512_vpdpbusd_256;
      auto* vc = llvm::FixedVectorType::get(i32, chunk);
      std::vector<llvm::Value*> parts;
      for (unsigned c = 0; c < lanes; c += chunk) {
        std::vector<int> m;
        for (unsigned i = 0; i < chunk; ++i) m.push_back(static_cast<int>(c + i));
        auto piece = [&](llvm::Value* v) {
          return lanes == chunk ? v : b_.CreateShuffleVector(v, v, m);
        };
        llvm::Value* a0 = acc ? piece(acc) : llvm::Constant::getNullValue(vc);
        parts.push_back(b_.CreateIntrinsic(id, {}, {a0, piece(x), piece(y)}));
      }
      while (parts.size() > 1) {  // concatenate pairwise (an odd count padded with undef)
        if (parts.size() % 2 != 0) parts.push_back(llvm::UndefValue::get(parts.back()->getType()));
        std::vector<llvm::Value*> next;
        for (size_t i = 0; i + 1 < parts.size(); i += 2) {
          const unsigned w =
              llvm::cast<llvm::FixedVectorType>(parts[i]->getType())->getNumElements();
          std::vector<int> m;
          for (unsigned q = 0; q < 2 * w; ++q) m.push_back(static_cast<int>(q));
          next.push_back(b_.CreateShuffleVector(parts[i], parts[i + 1], m));
        }
        parts = std::move(next);
      }
      llvm::Value* r = parts[0];
      if (llvm::cast<llvm::FixedVectorType>(r->getType())->getNumElements() != lanes) {
        std::vector<int> m;
        for (unsigned q = 0; q < lanes; ++q) m.push_back(static_cast<int>(q));
        r = b_.CreateShuffleVector(r, r, m);
      }
      return r;
    }
    if (acc) return nullptr;
    // Generic: bytes widened (x unsigned, y signed), multiplied, the four of a lane added.
    if (scalar) {
      x = b_.CreateVectorSplat(1, x);
      y = b_.CreateVectorSplat(1, y);
    }
    auto* v8 = llvm::FixedVectorType::get(i8, 4 * lanes);
    auto* v32 = llvm::FixedVectorType::get(i32, lanes);
    llvm::Value* xs = b_.CreateBitCast(x, v8);
    llvm::Value* ys = b_.CreateBitCast(y, v8);
    llvm::Value* r = nullptr;
    for (unsigned byte = 0; byte < 4; ++byte) {
      std::vector<int> m;
      for (unsigned i = 0; i < lanes; ++i) m.push_back(static_cast<int>(4 * i + byte));
      llvm::Value* p = b_.CreateMul(b_.CreateZExt(b_.CreateShuffleVector(xs, xs, m), v32),
                                    b_.CreateSExt(b_.CreateShuffleVector(ys, ys, m), v32));
      r = r ? b_.CreateAdd(r, p) : p;
    }
    return scalar ? b_.CreateExtractElement(r, uint64_t{0}) : r;
  }

  llvm::Value* call(const ir::Call& n) {
    if (n.op == ir::Intrinsic::kSelect) {
      llvm::Value* c = cond(n.args[0]);
      llvm::Value* a = convert(expr(n.args[1]), n.args[1]->dtype, n.dtype);
      llvm::Value* b = convert(expr(n.args[2]), n.args[2]->dtype, n.dtype);
      if (is_vec(c) || is_vec(a) || is_vec(b)) {
        c = splat(c);
        a = splat(a);
        b = splat(b);
      }
      return b_.CreateSelect(c, a, b);
    }
    if (n.op == ir::Intrinsic::kDot4U8S8) return dot4(n, nullptr);
    if (n.op == ir::Intrinsic::kRoundEven && ir::is_float(n.dtype)) {
      llvm::Value* x = convert(expr(n.args[0]), n.args[0]->dtype, n.dtype);
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
    }
    if (n.op == ir::Intrinsic::kDot2I16) {
      // Each int32 lane is two int16 halves: multiply pairwise and add (x86 pmaddwd).
      llvm::Value* x = convert(expr(n.args[0]), n.args[0]->dtype, ir::DType::kInt32);
      llvm::Value* y = convert(expr(n.args[1]), n.args[1]->dtype, ir::DType::kInt32);
      unify(x, y);
      const bool scalar = !is_vec(x);
      const unsigned lanes = scalar ? 1 : static_cast<unsigned>(lanes_);
      auto* i16 = llvm::Type::getInt16Ty(ctx_);
      auto* i32 = llvm::Type::getInt32Ty(ctx_);
      auto* v16 = llvm::FixedVectorType::get(i16, 2 * lanes);
      auto* v32 = llvm::FixedVectorType::get(i32, lanes);
      if (scalar) {
        x = b_.CreateVectorSplat(1, x);
        y = b_.CreateVectorSplat(1, y);
      }
      llvm::Value* xs = b_.CreateBitCast(x, v16);
      llvm::Value* ys = b_.CreateBitCast(y, v16);
      llvm::Value* r = nullptr;
      const bool x86 = llvm::Triple(target_.triple).isX86();
      const bool avx512 = target_.features.find("+avx512bw") != std::string::npos;
      const bool avx2 = target_.features.find("+avx2") != std::string::npos;
      const unsigned chunk = avx512 && lanes % 16 == 0 ? 16 : 8;
      if (x86 && (avx2 || avx512) && lanes % 8 == 0) {
        // pmaddwd on 8 (AVX2) or 16 (AVX-512BW) lanes at a time.
        const llvm::Intrinsic::ID id = chunk == 16 ? llvm::Intrinsic::x86_avx512_pmaddw_d_512
                                                   : llvm::Intrinsic::x86_avx2_pmadd_wd;
        std::vector<llvm::Value*> parts;
        for (unsigned c = 0; c < lanes; c += chunk) {
          std::vector<int> m;
          for (unsigned i = 0; i < 2 * chunk; ++i) m.push_back(static_cast<int>(2 * c + i));
          llvm::Value* xc = lanes == chunk ? xs : b_.CreateShuffleVector(xs, xs, m);
          llvm::Value* yc = lanes == chunk ? ys : b_.CreateShuffleVector(ys, ys, m);
          parts.push_back(b_.CreateIntrinsic(id, {}, {xc, yc}));
        }
        while (parts.size() > 1) {  // concatenate pairwise (an odd count padded with undef)
          if (parts.size() % 2 != 0)
            parts.push_back(llvm::UndefValue::get(parts.back()->getType()));
          std::vector<llvm::Value*> next;
          for (size_t i = 0; i + 1 < parts.size(); i += 2) {
            const unsigned w =
                llvm::cast<llvm::FixedVectorType>(parts[i]->getType())->getNumElements();
            std::vector<int> m;
            for (unsigned q = 0; q < 2 * w; ++q) m.push_back(static_cast<int>(q));
            next.push_back(b_.CreateShuffleVector(parts[i], parts[i + 1], m));
          }
          parts = std::move(next);
        }
        r = parts[0];
        const unsigned got = llvm::cast<llvm::FixedVectorType>(r->getType())->getNumElements();
        if (got != lanes) {  // drop the padding
          std::vector<int> m;
          for (unsigned q = 0; q < lanes; ++q) m.push_back(static_cast<int>(q));
          r = b_.CreateShuffleVector(r, r, m);
        }
      } else {
        std::vector<int> even, odd;
        for (unsigned i = 0; i < lanes; ++i) {
          even.push_back(static_cast<int>(2 * i));
          odd.push_back(static_cast<int>(2 * i + 1));
        }
        auto half = [&](llvm::Value* v, const std::vector<int>& m) {
          return b_.CreateSExt(b_.CreateShuffleVector(v, v, m), v32);
        };
        r = b_.CreateAdd(b_.CreateMul(half(xs, even), half(ys, even)),
                         b_.CreateMul(half(xs, odd), half(ys, odd)));
      }
      return scalar ? b_.CreateExtractElement(r, uint64_t{0}) : r;
    }
    throw UserError("llvm codegen: function '" + fname_ + "' calls the intrinsic '" + n.name() +
                    "', which the CPU backend does not implement");
  }

  llvm::Value* buffer_ptr(const ir::Buffer& b) {
    auto it = bufs_.find(b.get());
    if (it == bufs_.end()) {
      throw UserError("llvm codegen: function '" + fname_ + "' accesses buffer '" + b->name +
                      "', which is neither an argument nor allocated around the access");
    }
    return it->second;
  }

  enum class Access { kUniform, kContiguous, kGather };
  Access classify(const ir::Expr& off) {
    if (!vvar_ || lane0_ || !mentions(off, vvar_)) return Access::kUniform;
    auto c = coef_of(off, vvar_);
    return c && *c == 1 ? Access::kContiguous : Access::kGather;
  }
  llvm::Value* lane0_offset(const ir::Expr& off) {
    const bool saved = lane0_;
    lane0_ = true;
    llvm::Value* v = convert(expr(off), off->dtype, ir::DType::kInt64);
    lane0_ = saved;
    return v;
  }
  llvm::Value* all_lanes() {
    return llvm::Constant::getAllOnesValue(
        llvm::FixedVectorType::get(i1_, static_cast<unsigned>(lanes_)));
  }

  llvm::Value* load(const ir::Load& n) {
    llvm::Type* et = scalar(n.buffer->dtype);
    llvm::Value* base = buffer_ptr(n.buffer);
    const ir::Expr off = flat_offset(n.buffer, n.indices);
    const llvm::Align align(static_cast<uint64_t>(ir::dtype_bits(n.buffer->dtype) / 8));
    switch (classify(off)) {
      case Access::kUniform:
        return b_.CreateLoad(et, b_.CreateInBoundsGEP(et, base, lane0_offset(off)));
      case Access::kContiguous: {
        llvm::Value* p = b_.CreateInBoundsGEP(et, base, lane0_offset(off));
        auto* vt = llvm::FixedVectorType::get(et, static_cast<unsigned>(lanes_));
        if (mask_)
          return b_.CreateMaskedLoad(vt, p, align, mask_, llvm::Constant::getNullValue(vt));
        return b_.CreateAlignedLoad(vt, p, align);
      }
      case Access::kGather: {
        llvm::Value* offs = splat(convert(expr(off), off->dtype, ir::DType::kInt64));
        llvm::Value* ptrs = b_.CreateInBoundsGEP(et, base, offs);
        auto* vt = llvm::FixedVectorType::get(et, static_cast<unsigned>(lanes_));
        return b_.CreateMaskedGather(vt, ptrs, align, mask_ ? mask_ : all_lanes(),
                                     llvm::Constant::getNullValue(vt));
      }
    }
    return nullptr;
  }

  // ---- statements ----

  void stmt(const ir::Stmt& s) {
    if (!s) return;
    switch (s->kind) {
      case ir::NodeKind::kFor:
        return loop(static_cast<const ir::For&>(*s));
      case ir::NodeKind::kStore:
        return store(static_cast<const ir::Store&>(*s));
      case ir::NodeKind::kSeq:
        for (const ir::Stmt& x : static_cast<const ir::Seq&>(*s).stmts) stmt(x);
        return;
      case ir::NodeKind::kAllocate:
        return allocate(static_cast<const ir::Allocate&>(*s));
      case ir::NodeKind::kIfThenElse:
        return if_then_else(static_cast<const ir::IfThenElse&>(*s));
      case ir::NodeKind::kEvaluate:
        expr(static_cast<const ir::Evaluate&>(*s).value);
        return;
      case ir::NodeKind::kAttrStmt:
        return stmt(static_cast<const ir::AttrStmt&>(*s).body);
      default:
        throw InternalError("llvm codegen: expression in statement position");
    }
  }

  void store(const ir::Store& n) {
    llvm::Type* et = scalar(n.buffer->dtype);
    llvm::Value* base = buffer_ptr(n.buffer);
    const ir::Expr off = flat_offset(n.buffer, n.indices);
    const llvm::Align align(static_cast<uint64_t>(ir::dtype_bits(n.buffer->dtype) / 8));
    llvm::Value* v = convert(expr(n.value), n.value->dtype, n.buffer->dtype);
    switch (classify(off)) {
      case Access::kUniform:
        if (is_vec(v)) throw InternalError("llvm codegen: vector value stored to one address");
        b_.CreateStore(v, b_.CreateInBoundsGEP(et, base, lane0_offset(off)));
        return;
      case Access::kContiguous: {
        llvm::Value* p = b_.CreateInBoundsGEP(et, base, lane0_offset(off));
        v = splat(v);
        if (mask_) {
          b_.CreateMaskedStore(v, p, align, mask_);
        } else {
          b_.CreateAlignedStore(v, p, align);
        }
        return;
      }
      case Access::kGather: {
        llvm::Value* offs = splat(convert(expr(off), off->dtype, ir::DType::kInt64));
        llvm::Value* ptrs = b_.CreateInBoundsGEP(et, base, offs);
        b_.CreateMaskedScatter(splat(v), ptrs, align, mask_ ? mask_ : all_lanes());
        return;
      }
    }
  }

  void allocate(const ir::Allocate& n) {
    const int64_t bytes = n.buffer->elements() * ir::dtype_bits(n.buffer->dtype) / 8;
    if (bytes > kMaxStackBytes) {
      throw UserError("llvm codegen: function '" + fname_ + "': buffer '" + n.buffer->name +
                      "' in scope " + ir::scope_name(n.buffer->scope) + " needs " +
                      std::to_string(bytes) + " bytes, more than the " +
                      std::to_string(kMaxStackBytes) + " a local buffer may take");
    }
    llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::Type* ty =
        llvm::ArrayType::get(scalar(n.buffer->dtype), static_cast<uint64_t>(n.buffer->elements()));
    llvm::AllocaInst* a = eb.CreateAlloca(ty, nullptr, n.buffer->name);
    a->setAlignment(llvm::Align(64));
    bufs_[n.buffer.get()] = a;
    stmt(n.body);
    bufs_.erase(n.buffer.get());
  }

  void if_then_else(const ir::IfThenElse& n) {
    llvm::Value* c = cond(n.cond);
    if (is_vec(c)) {
      // A lane-dependent guard: run both sides under masks, each only when a lane is active.
      llvm::Value* outer = mask_;
      llvm::Value* then_mask = outer ? b_.CreateAnd(outer, c) : c;
      masked(then_mask, n.then_case);
      if (n.else_case) {
        llvm::Value* not_c = b_.CreateNot(c);
        masked(outer ? b_.CreateAnd(outer, not_c) : not_c, n.else_case);
      }
      mask_ = outer;
      return;
    }
    llvm::Function* f = fn_;
    auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", f);
    auto* else_bb = n.else_case ? llvm::BasicBlock::Create(ctx_, "else", f) : nullptr;
    auto* done = llvm::BasicBlock::Create(ctx_, "endif", f);
    b_.CreateCondBr(c, then_bb, else_bb ? else_bb : done);
    b_.SetInsertPoint(then_bb);
    stmt(n.then_case);
    b_.CreateBr(done);
    if (else_bb) {
      b_.SetInsertPoint(else_bb);
      stmt(n.else_case);
      b_.CreateBr(done);
    }
    b_.SetInsertPoint(done);
  }
  void masked(llvm::Value* m, const ir::Stmt& s) {
    auto* run = llvm::BasicBlock::Create(ctx_, "masked", fn_);
    auto* done = llvm::BasicBlock::Create(ctx_, "endmasked", fn_);
    b_.CreateCondBr(b_.CreateOrReduce(m), run, done);
    b_.SetInsertPoint(run);
    mask_ = m;
    stmt(s);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  int64_t const_extent(const ir::For& n) {
    const ir::IntImm* e = ir::as_imm(n.extent);
    if (!e) {
      throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) +
                      " needs a constant extent, not " + ir::to_string(n.extent));
    }
    return e->value;
  }

  void loop(const ir::For& n) {
    if (lanes_ != 0) throw InternalError("llvm codegen: loop inside a vectorized loop");
    switch (n.kind) {
      case ir::ForKind::kUnrolled: {
        const int64_t ext = const_extent(n);
        if (ext > kMaxUnroll) {
          throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) +
                          " has extent " + std::to_string(ext) + "; at most " +
                          std::to_string(kMaxUnroll) + " iterations are unrolled (split it)");
        }
        llvm::Value* mn = convert(expr(n.min), n.min->dtype, ir::DType::kInt64);
        for (int64_t i = 0; i < ext; ++i) {
          vars_[n.var.get()] = b_.CreateAdd(mn, b_.getInt64(static_cast<uint64_t>(i)));
          stmt(n.body);
        }
        vars_.erase(n.var.get());
        return;
      }
      case ir::ForKind::kVectorized: {
        const int64_t ext = const_extent(n);
        if (ext > kMaxLanes) {
          throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) +
                          " has extent " + std::to_string(ext) + "; at most " +
                          std::to_string(kMaxLanes) + " lanes are vectorized (split it)");
        }
        VectorCheck check(n.var.get());
        check.visit(n.body);
        check.finish();
        if (!check.why.empty() || ext < 2) return serial(n, ext);
        vectorized(n, ext);
        return;
      }
      case ir::ForKind::kParallel:
        return parallel(n);
      case ir::ForKind::kVirtualThread:
        throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) +
                        " is a virtual thread, which only the accelerator backend expands");
      case ir::ForKind::kSerial:
        return serial(n, 0);
    }
  }

  void vectorized(const ir::For& n, int64_t lanes) {
    lanes_ = lanes;
    vvar_ = n.var.get();
    vbase_ = convert(expr(n.min), n.min->dtype, ir::DType::kInt64);
    std::vector<llvm::Constant*> steps;
    for (int64_t i = 0; i < lanes; ++i) steps.push_back(b_.getInt64(static_cast<uint64_t>(i)));
    vlanes_ = b_.CreateAdd(b_.CreateVectorSplat(static_cast<unsigned>(lanes), vbase_),
                           llvm::ConstantVector::get(steps));
    stmt(n.body);
    lanes_ = 0;
    vvar_ = nullptr;
    vbase_ = vlanes_ = nullptr;
    mask_ = nullptr;
  }

  // A counted loop; `vector_width` > 0 asks LLVM's loop vectorizer for that width.
  void serial(const ir::For& n, int64_t vector_width) {
    llvm::Value* mn = convert(expr(n.min), n.min->dtype, ir::DType::kInt64);
    llvm::Value* end =
        b_.CreateAdd(mn, convert(expr(n.extent), n.extent->dtype, ir::DType::kInt64));
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx_, n.var->name + ".header", fn_);
    auto* body = llvm::BasicBlock::Create(ctx_, n.var->name + ".body", fn_);
    auto* exit = llvm::BasicBlock::Create(ctx_, n.var->name + ".exit", fn_);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* i = b_.CreatePHI(i64_, 2, n.var->name);
    i->addIncoming(mn, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(i, end), body, exit);
    b_.SetInsertPoint(body);
    vars_[n.var.get()] = i;
    stmt(n.body);
    vars_.erase(n.var.get());
    llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), "", true, true);
    llvm::BranchInst* back = b_.CreateBr(header);
    i->addIncoming(next, b_.GetInsertBlock());
    if (vector_width > 0) {
      llvm::MDBuilder md(ctx_);
      llvm::Metadata* enable[] = {llvm::MDString::get(ctx_, "llvm.loop.vectorize.enable"),
                                  llvm::ConstantAsMetadata::get(b_.getTrue())};
      llvm::Metadata* width[] = {
          llvm::MDString::get(ctx_, "llvm.loop.vectorize.width"),
          llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(vector_width)))};
      llvm::Metadata* ops[] = {nullptr, llvm::MDNode::get(ctx_, enable),
                               llvm::MDNode::get(ctx_, width)};
      llvm::MDNode* loop_id = llvm::MDNode::getDistinct(ctx_, ops);
      loop_id->replaceOperandWith(0, loop_id);
      back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
    }
    b_.SetInsertPoint(exit);
  }

  // Outlines the body into `void task(i64 i, ptr closure)` and calls the host's parallel-for.
  void parallel(const ir::For& n) {
    const StmtUses uses = uses_of(n.body);
    std::vector<const ir::VarObj*> free_vars;
    for (const ir::VarObj* v : uses.vars) {
      if (vars_.count(v)) free_vars.push_back(v);
    }
    std::vector<ir::Buffer> free_bufs;
    for (const ir::Buffer& b : uses.buffers) {
      if (bufs_.count(b.get())) free_bufs.push_back(b);
    }
    llvm::Value* mn = convert(expr(n.min), n.min->dtype, ir::DType::kInt64);
    llvm::Value* ext = convert(expr(n.extent), n.extent->dtype, ir::DType::kInt64);

    // The closure: buffer pointers, then free variables, then the loop's min.
    std::vector<llvm::Type*> fields(free_bufs.size(), ptr_);
    fields.insert(fields.end(), free_vars.size() + 1, i64_);
    auto* cl_ty = llvm::StructType::get(ctx_, fields);
    llvm::AllocaInst* cl;
    {
      llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      cl = eb.CreateAlloca(cl_ty, nullptr, "closure");
    }
    std::vector<llvm::Value*> values;
    for (const ir::Buffer& b : free_bufs) values.push_back(bufs_.at(b.get()));
    for (const ir::VarObj* v : free_vars) values.push_back(vars_.at(v));
    values.push_back(mn);
    for (size_t k = 0; k < values.size(); ++k) {
      b_.CreateStore(values[k], b_.CreateStructGEP(cl_ty, cl, static_cast<unsigned>(k)));
    }

    const std::string name = fname_ + ".task" + std::to_string(task_count_++);
    // The task body: (i64 i, noalias ptr buffers..., i64 vars..., i64 min), inlined into the
    // task wrapper so that the buffers keep their no-alias facts.
    std::vector<llvm::Type*> params{i64_};
    params.insert(params.end(), fields.begin(), fields.end());
    llvm::Function* body = new_function(name + ".body", params, true);
    for (size_t k = 0; k < free_bufs.size(); ++k)
      body->addParamAttr(static_cast<unsigned>(k + 1), llvm::Attribute::NoAlias);
    llvm::Function* task = new_function(name, {i64_, ptr_}, true);
    task->removeFnAttr(llvm::Attribute::AlwaysInline);
    task->setLinkage(llvm::Function::InternalLinkage);

    // Save the state of the enclosing function.
    llvm::IRBuilderBase::InsertPoint ip = b_.saveIP();
    llvm::Function* saved_fn = fn_;
    auto saved_vars = vars_;
    auto saved_bufs = bufs_;

    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", task));
    std::vector<llvm::Value*> args{task->getArg(0)};
    for (size_t k = 0; k < fields.size(); ++k) {
      args.push_back(b_.CreateLoad(
          fields[k], b_.CreateStructGEP(cl_ty, task->getArg(1), static_cast<unsigned>(k))));
    }
    b_.CreateCall(body, args);
    b_.CreateRetVoid();

    fn_ = body;
    vars_.clear();
    bufs_.clear();
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", body));
    for (size_t k = 0; k < free_bufs.size(); ++k)
      bufs_[free_bufs[k].get()] = body->getArg(static_cast<unsigned>(k + 1));
    for (size_t k = 0; k < free_vars.size(); ++k)
      vars_[free_vars[k]] = body->getArg(static_cast<unsigned>(free_bufs.size() + k + 1));
    llvm::Value* task_min = body->getArg(static_cast<unsigned>(fields.size()));
    vars_[n.var.get()] = b_.CreateAdd(task_min, body->getArg(0), n.var->name);
    stmt(n.body);
    b_.CreateRetVoid();

    fn_ = saved_fn;
    vars_ = std::move(saved_vars);
    bufs_ = std::move(saved_bufs);
    b_.restoreIP(ip);
    b_.CreateCall(parallel_for_, {ext, task, cl});
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& mod_;
  llvm::IRBuilder<> b_;
  const TargetInfo& target_;
  llvm::Type* i1_;
  llvm::Type* i64_;
  llvm::PointerType* ptr_;
  llvm::FunctionCallee parallel_for_;
  std::string fname_;
  int task_count_ = 0;
  llvm::Function* fn_ = nullptr;
  std::unordered_map<const ir::VarObj*, llvm::Value*> vars_;
  std::unordered_map<const ir::BufferObj*, llvm::Value*> bufs_;
  // Inside a vectorized loop: its variable, lane count, first index and per-lane indices.
  const ir::VarObj* vvar_ = nullptr;
  int64_t lanes_ = 0;
  llvm::Value* vbase_ = nullptr;
  llvm::Value* vlanes_ = nullptr;
  bool lane0_ = false;           // evaluate the vector variable as its first lane
  llvm::Value* mask_ = nullptr;  // active lanes under a lane-dependent guard
};

}  // namespace

std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& ctx,
                                           const std::vector<LoweredFunc>& funcs,
                                           const TargetInfo& target) {
  auto m = std::make_unique<llvm::Module>("weft", ctx);
  m->setTargetTriple(target.triple);
  m->setDataLayout(target.layout);
  Gen gen(*m, target);
  std::set<std::string> names;
  for (const LoweredFunc& f : funcs) {
    if (!names.insert(f.name).second)
      throw UserError("llvm codegen: two functions are named '" + f.name + "'");
    gen.function(f);
  }
  return m;
}

}  // namespace weft::compiler::codegen
