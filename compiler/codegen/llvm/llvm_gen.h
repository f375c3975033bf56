// Internal to compiler/codegen/llvm: the generator that turns loop IR into LLVM IR, one object
// per module. Values are scalars, or vectors of `lanes_` elements inside a vectorized loop;
// booleans are i1 while they are conditions and become the node's type when stored. Its
// methods live in codegen_llvm.cc (functions, expressions, memory, statements, loops) and
// parallel_outline.cc (parallel loops); the dot-product lowering is x86_dot.h, the vector
// legality analysis vector_legality.h. Includes LLVM headers: include it from no other file.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/codegen/llvm/llvm_module.h"
#include "compiler/codegen/lowered_func.h"

namespace weft::compiler::codegen {

class Gen {
 public:
  Gen(llvm::Module& m, const TargetInfo& t);
  /// Adds `f` (its wrapper `void name(ptr args)` and its inlined body) to the module.
  void function(const LoweredFunc& f);

 private:
  llvm::Function* new_function(const std::string& name, const std::vector<llvm::Type*>& params,
                               bool internal);

  // ---- types and conversions ----
  llvm::Type* scalar(ir::DType t);
  static bool is_vec(llvm::Value* v) { return v->getType()->isVectorTy(); }
  // `t`, or a vector of it when `like` is a vector.
  llvm::Type* shaped(llvm::Type* t, llvm::Value* like);
  llvm::Value* splat(llvm::Value* v);
  // Makes a and b both vectors when either is one.
  void unify(llvm::Value*& a, llvm::Value*& b);
  llvm::Value* convert(llvm::Value* v, ir::DType from, ir::DType to);
  llvm::Value* from_bool(llvm::Value* c, ir::DType to);

  // ---- expressions ----
  // The value of `e` in its own type.
  llvm::Value* expr(const ir::Expr& e);
  // `e` as an i1 (vector) condition.
  llvm::Value* cond(const ir::Expr& e);
  llvm::Value* binary(const ir::Binary& n);
  // A comparison or conjunction as an i1 (vector).
  llvm::Value* cond_of_binary(const ir::Binary& n);
  // dot4_u8s8(x, y) [+ acc] (x86_dot.h); null only when acc is given and the target has no
  // VNNI (the caller adds).
  llvm::Value* dot4(const ir::Call& n, llvm::Value* acc);
  llvm::Value* call(const ir::Call& n);

  // ---- memory ----
  llvm::Value* buffer_ptr(const ir::Buffer& b);
  enum class Access { kUniform, kContiguous, kGather };
  Access classify(const ir::Expr& off);
  llvm::Value* lane0_offset(const ir::Expr& off);
  llvm::Value* all_lanes();
  llvm::Value* load(const ir::Load& n);

  // ---- statements ----
  void stmt(const ir::Stmt& s);
  void store(const ir::Store& n);
  void allocate(const ir::Allocate& n);
  void if_then_else(const ir::IfThenElse& n);
  void masked(llvm::Value* m, const ir::Stmt& s);
  int64_t const_extent(const ir::For& n);
  void loop(const ir::For& n);
  void vectorized(const ir::For& n, int64_t lanes);
  // A counted loop; `vector_width` > 0 asks LLVM's loop vectorizer for that width.
  void serial(const ir::For& n, int64_t vector_width);
  // Outlines the body into `void task(i64 i, ptr closure)` and calls the host's parallel-for
  // (parallel_outline.cc).
  void parallel(const ir::For& n);

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

}  // namespace weft::compiler::codegen
