// The float32 math intrinsics as LLVM IR; see float_math.h.
#include "compiler/codegen/llvm/float_math.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <string>

#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

// A call of the C library's `float name(float)`, lane by lane when `x` is a vector.
llvm::Value* libm_call(llvm::IRBuilderBase& b, const char* name, llvm::Value* x) {
  llvm::Module* m = b.GetInsertBlock()->getModule();
  llvm::Type* f32 = b.getFloatTy();
  llvm::FunctionCallee fn =
      m->getOrInsertFunction(name, llvm::FunctionType::get(f32, {f32}, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setWillReturn();
  }
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vt) return b.CreateCall(fn, {x});
  llvm::Value* out = llvm::UndefValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i)
    out = b.CreateInsertElement(out, b.CreateCall(fn, {b.CreateExtractElement(x, i)}), i);
  return out;
}

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
    case I::kExp: return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
    case I::kSqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case I::kTanh: return libm_call(b, "tanhf", x);
    case I::kErf: return libm_call(b, "erff", x);
    case I::kPow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
    case I::kFDiv: return b.CreateFDiv(x, y);
    default: break;
  }
  throw InternalError(std::string("llvm codegen: '") + ir::intrinsic_name(op) +
                      "' is not a float math intrinsic");
}

}  // namespace weft::compiler::codegen
