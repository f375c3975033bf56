// The float32 math intrinsics as LLVM IR; see float_math.h.
#include "compiler/codegen/llvm/float_math.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <string>

#include "compiler/ir/float_functions.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

// The float32 functions of compiler/ir/float_functions.h, the same steps on every lane of a
// value (a float or a float vector), in the order the host functions take them.
class Functions {
 public:
  Functions(llvm::IRBuilderBase& b, llvm::Type* ft) : b_(b), ft_(ft), it_(b.getInt32Ty()) {
    if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(ft))
      it_ = llvm::FixedVectorType::get(it_, vt->getNumElements());
  }

  llvm::Value* exp(llvm::Value* x) {
    namespace c = ir::fexp;
    x = select_lt(x, f(c::kLo), f(c::kLo), x);
    x = b_.CreateSelect(b_.CreateFCmpOGT(x, f(c::kHi)), f(c::kHi), x);
    llvm::Value* t = fma(x, f(c::kLog2e), f(c::kRound));
    llvm::Value* n = b_.CreateFSub(t, f(c::kRound));
    llvm::Value* r = fma(n, f(-c::kLn2Hi), x);
    r = fma(n, f(-c::kLn2Lo), r);
    llvm::Value* p = horner(c::kPoly, r);
    llvm::Value* ni = b_.CreateSub(b_.CreateBitCast(t, it_), i(c::kRoundBits));
    llvm::Value* n1 = b_.CreateAShr(ni, i(1));
    return fence(b_.CreateFMul(b_.CreateFMul(p, pow2(n1)), pow2(b_.CreateSub(ni, n1))));
  }

  llvm::Value* tanh(llvm::Value* x) {
    llvm::Value* a = abs(x);
    llvm::Value* small = b_.CreateFMul(x, horner(ir::ftanh::kQ, b_.CreateFMul(x, x)));
    llvm::Value* e = exp(b_.CreateFMul(a, f(2.0f)));
    llvm::Value* v = b_.CreateFSub(f(1.0f), b_.CreateFDiv(f(2.0f), b_.CreateFAdd(e, f(1.0f))));
    return fence(select_lt(a, f(ir::ftanh::kSmall), small, signed_like(x, v)));
  }

  llvm::Value* erf(llvm::Value* x) {
    namespace c = ir::ferf;
    llvm::Value* a = abs(x);
    llvm::Value* small = b_.CreateFMul(x, horner(c::kP, b_.CreateFMul(x, x)));
    llvm::Value* ac = b_.CreateSelect(b_.CreateFCmpOGT(a, f(c::kMax)), f(c::kMax), a);
    llvm::Value* e = exp(b_.CreateFNeg(b_.CreateFMul(ac, ac)));
    llvm::Value* v = fma(b_.CreateFNeg(e), horner(c::kR, b_.CreateFDiv(f(1.0f), ac)), f(1.0f));
    return fence(select_lt(a, f(c::kSmall), small, signed_like(x, v)));
  }

 private:
  llvm::Value* f(float v) { return llvm::ConstantFP::get(ft_, v); }
  llvm::Value* i(uint32_t v) { return llvm::ConstantInt::get(it_, v); }
  llvm::Value* fma(llvm::Value* a, llvm::Value* m, llvm::Value* add) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fma, {ft_}, {a, m, add});
  }
  template <size_t N>
  llvm::Value* horner(const float (&c)[N], llvm::Value* x) {
    llvm::Value* p = f(c[0]);
    for (size_t k = 1; k < N; ++k) p = fma(p, x, f(c[k]));
    return p;
  }
  // a < b ? t : e (false for a NaN).
  llvm::Value* select_lt(llvm::Value* a, llvm::Value* b, llvm::Value* t, llvm::Value* e) {
    return b_.CreateSelect(b_.CreateFCmpOLT(a, b), t, e);
  }
  llvm::Value* abs(llvm::Value* x) { return select_lt(x, f(0.0f), b_.CreateFNeg(x), x); }
  // x < 0 ? -v : v
  llvm::Value* signed_like(llvm::Value* x, llvm::Value* v) {
    return select_lt(x, f(0.0f), b_.CreateFNeg(v), v);
  }
  // 2^e for an integer e within float32's normal exponents.
  llvm::Value* pow2(llvm::Value* e) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(e, i(127)), i(23)), ft_);
  }
  // Keeps the backend from fusing this value's last product into an add that uses it (the
  // host rounds the product first).
  llvm::Value* fence(llvm::Value* v) { return b_.CreateArithmeticFence(v, ft_); }

  llvm::IRBuilderBase& b_;
  llvm::Type* ft_;
  llvm::Type* it_;
};

}  // namespace

bool is_float_math(ir::Intrinsic op) {
  using I = ir::Intrinsic;
  return op == I::kExp || op == I::kTanh || op == I::kErf || op == I::kSqrt || op == I::kPow ||
         op == I::kFDiv;
}

llvm::Value* emit_float_math(llvm::IRBuilderBase& b, ir::Intrinsic op, llvm::Value* x,
                             llvm::Value* y) {
  using I = ir::Intrinsic;
  switch (op) {
    case I::kExp: return Functions(b, x->getType()).exp(x);
    case I::kSqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case I::kTanh: return Functions(b, x->getType()).tanh(x);
    case I::kErf: return Functions(b, x->getType()).erf(x);
    case I::kPow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
    case I::kFDiv: return b.CreateFDiv(x, y);
    default: break;
  }
  throw InternalError(std::string("llvm codegen: '") + ir::intrinsic_name(op) +
                      "' is not a float math intrinsic");
}

}  // namespace weft::compiler::codegen
