// Loop IR to LLVM IR: the generator's functions, expressions, memory accesses, statements and
// loops (llvm_gen.h); see codegen_llvm.h for what each loop kind becomes.
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include <set>

#include "compiler/codegen/llvm/float_math.h"
#include "compiler/codegen/llvm/llvm_gen.h"
#include "compiler/codegen/llvm/simplify_index.h"
#include "compiler/codegen/llvm/vector_legality.h"
#include "compiler/codegen/llvm/x86_dot.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

constexpr int64_t kMaxLanes = 64;
constexpr int64_t kMaxUnroll = 1024;

std::string describe(const ir::For& n) {
  return std::string(ir::for_kind_name(n.kind)) + " loop '" + n.var->name + "'";
}

}  // namespace

Gen::Gen(llvm::Module& m, const TargetInfo& t)
    : ctx_(m.getContext()), mod_(m), b_(ctx_), target_(t) {
  i1_ = llvm::Type::getInt1Ty(ctx_);
  i64_ = llvm::Type::getInt64Ty(ctx_);
  ptr_ = llvm::PointerType::get(ctx_, 0);
  parallel_for_ = mod_.getOrInsertFunction(
      kParallelForSymbol,
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), {i64_, ptr_, ptr_}, false));
}

void Gen::function(const LoweredFunc& f) {
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

llvm::Function* Gen::new_function(const std::string& name, const std::vector<llvm::Type*>& params,
                                  bool internal) {
  auto* ty = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx_), params, false);
  auto* f = llvm::Function::Create(
      ty, internal ? llvm::Function::InternalLinkage : llvm::Function::ExternalLinkage, name, mod_);
  if (!target_.cpu.empty()) f->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) f->addFnAttr("target-features", target_.features);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  if (internal) f->addFnAttr(llvm::Attribute::AlwaysInline);
  return f;
}

// ---- types and conversions ----

llvm::Type* Gen::scalar(ir::DType t) {
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
// `t`, or a vector of it when `like` is a vector.
llvm::Type* Gen::shaped(llvm::Type* t, llvm::Value* like) {
  if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(like->getType()))
    return llvm::FixedVectorType::get(t, vt->getNumElements());
  return t;
}
llvm::Value* Gen::splat(llvm::Value* v) {
  if (lanes_ == 0 || is_vec(v)) return v;
  return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), v);
}
// Makes a and b both vectors when either is one.
void Gen::unify(llvm::Value*& a, llvm::Value*& b) {
  if (is_vec(a) != is_vec(b)) {
    a = splat(a);
    b = splat(b);
  }
}
llvm::Value* Gen::convert(llvm::Value* v, ir::DType from, ir::DType to) {
  if (from == to) return v;
  llvm::Type* dst = shaped(scalar(to), v);
  if (ir::is_float(from) && ir::is_float(to)) return v;
  if (ir::is_float(from)) return b_.CreateFPToSI(v, dst);
  if (ir::is_float(to)) return b_.CreateSIToFP(v, dst);
  return b_.CreateSExtOrTrunc(v, dst);
}
llvm::Value* Gen::from_bool(llvm::Value* c, ir::DType to) {
  llvm::Type* dst = shaped(scalar(to), c);
  return ir::is_float(to) ? b_.CreateUIToFP(c, dst) : b_.CreateZExt(c, dst);
}

// ---- expressions ----

// The value of `e` in its own type.
llvm::Value* Gen::expr(const ir::Expr& e) {
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
llvm::Value* Gen::cond(const ir::Expr& e) {
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

llvm::Value* Gen::binary(const ir::Binary& n) {
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
      // By a power of two, flooring is an arithmetic shift or a mask in two's complement (the
      // byte of an int8 as unsigned, floormod(x, 256), is then a zero extension LLVM sees).
      if (const ir::IntImm* k = ir::as_imm(n.b);
          k && k->value > 0 && (k->value & (k->value - 1)) == 0) {
        int shift = 0;
        while ((int64_t{1} << shift) < k->value) ++shift;
        llvm::Value* bits = llvm::ConstantInt::get(a->getType(), static_cast<uint64_t>(shift));
        llvm::Value* low = llvm::ConstantInt::get(a->getType(), static_cast<uint64_t>(k->value - 1));
        return n.op == BinOp::kFloorDiv ? b_.CreateAShr(a, bits) : b_.CreateAnd(a, low);
      }
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
llvm::Value* Gen::cond_of_binary(const ir::Binary& n) {
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

llvm::Value* Gen::dot4(const ir::Call& n, llvm::Value* acc) {
  llvm::Value* x = convert(expr(n.args[0]), n.args[0]->dtype, ir::DType::kInt32);
  llvm::Value* y = convert(expr(n.args[1]), n.args[1]->dtype, ir::DType::kInt32);
  unify(x, y);
  if (acc) unify(acc, x);
  if (acc) unify(x, acc);
  if (acc) unify(y, acc);
  const unsigned lanes = is_vec(x) ? static_cast<unsigned>(lanes_) : 1;
  return emit_dot4_u8s8(b_, {target_.triple, target_.features}, x, y, acc, lanes);
}

llvm::Value* Gen::call(const ir::Call& n) {
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
  if (is_float_math(n.op)) {
    llvm::Value* x = convert(expr(n.args[0]), n.args[0]->dtype, ir::DType::kFloat32);
    llvm::Value* y = nullptr;
    if (n.args.size() > 1) {
      y = convert(expr(n.args[1]), n.args[1]->dtype, ir::DType::kFloat32);
      unify(x, y);
    }
    return emit_float_math(b_, n.op, x, y);
  }
  if (n.op == ir::Intrinsic::kDot2I16) {
    llvm::Value* x = convert(expr(n.args[0]), n.args[0]->dtype, ir::DType::kInt32);
    llvm::Value* y = convert(expr(n.args[1]), n.args[1]->dtype, ir::DType::kInt32);
    unify(x, y);
    const unsigned lanes = is_vec(x) ? static_cast<unsigned>(lanes_) : 1;
    return emit_dot2_i16(b_, {target_.triple, target_.features}, x, y, lanes);
  }
  throw UserError("llvm codegen: function '" + fname_ + "' calls the intrinsic '" + n.name() +
                  "', which the CPU backend does not implement");
}

llvm::Value* Gen::buffer_ptr(const ir::Buffer& b) {
  auto it = bufs_.find(b.get());
  if (it == bufs_.end()) {
    throw UserError("llvm codegen: function '" + fname_ + "' accesses buffer '" + b->name +
                    "', which is neither an argument nor allocated around the access");
  }
  return it->second;
}

enum class Access { kUniform, kContiguous, kGather };
Gen::Access Gen::classify(const ir::Expr& off) {
  if (!vvar_ || lane0_ || !ir::mentions(off, vvar_)) return Access::kUniform;
  auto c = coef_of(off, vvar_);
  return c && *c == 1 ? Access::kContiguous : Access::kGather;
}
llvm::Value* Gen::lane0_offset(const ir::Expr& off) {
  const bool saved = lane0_;
  lane0_ = true;
  llvm::Value* v = convert(expr(off), off->dtype, ir::DType::kInt64);
  lane0_ = saved;
  return v;
}
llvm::Value* Gen::all_lanes() {
  return llvm::Constant::getAllOnesValue(
      llvm::FixedVectorType::get(i1_, static_cast<unsigned>(lanes_)));
}

llvm::Value* Gen::load(const ir::Load& n) {
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
      if (mask_) return b_.CreateMaskedLoad(vt, p, align, mask_, llvm::Constant::getNullValue(vt));
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

void Gen::stmt(const ir::Stmt& s) {
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

void Gen::store(const ir::Store& n) {
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

void Gen::allocate(const ir::Allocate& n) {
  const int64_t bytes = n.buffer->elements() * ir::dtype_bits(n.buffer->dtype) / 8;
  if (bytes > kMaxLocalBufferBytes) {
    throw UserError("llvm codegen: function '" + fname_ + "': buffer '" + n.buffer->name +
                    "' in scope " + ir::scope_name(n.buffer->scope) + " needs " +
                    std::to_string(bytes) + " bytes, more than the " +
                    std::to_string(kMaxLocalBufferBytes) + " a local buffer may take");
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

void Gen::if_then_else(const ir::IfThenElse& n) {
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
void Gen::masked(llvm::Value* m, const ir::Stmt& s) {
  auto* run = llvm::BasicBlock::Create(ctx_, "masked", fn_);
  auto* done = llvm::BasicBlock::Create(ctx_, "endmasked", fn_);
  b_.CreateCondBr(b_.CreateOrReduce(m), run, done);
  b_.SetInsertPoint(run);
  mask_ = m;
  stmt(s);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

int64_t Gen::const_extent(const ir::For& n) {
  const ir::IntImm* e = ir::as_imm(n.extent);
  if (!e) {
    throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) +
                    " needs a constant extent, not " + ir::to_string(n.extent));
  }
  return e->value;
}

void Gen::loop(const ir::For& n) {
  if (lanes_ != 0) throw InternalError("llvm codegen: loop inside a vectorized loop");
  switch (n.kind) {
    case ir::ForKind::kUnrolled: {
      const int64_t ext = const_extent(n);
      if (ext > kMaxUnroll) {
        throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) + " has extent " +
                        std::to_string(ext) + "; at most " + std::to_string(kMaxUnroll) +
                        " iterations are unrolled (split it)");
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
        throw UserError("llvm codegen: function '" + fname_ + "': " + describe(n) + " has extent " +
                        std::to_string(ext) + "; at most " + std::to_string(kMaxLanes) +
                        " lanes are vectorized (split it)");
      }
      if (!why_not_vectorizable(n).empty() || ext < 2) return serial(n, ext);
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

void Gen::vectorized(const ir::For& n, int64_t lanes) {
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
void Gen::serial(const ir::For& n, int64_t vector_width) {
  llvm::Value* mn = convert(expr(n.min), n.min->dtype, ir::DType::kInt64);
  llvm::Value* end = b_.CreateAdd(mn, convert(expr(n.extent), n.extent->dtype, ir::DType::kInt64));
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
