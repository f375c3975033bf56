// Parallel loops of the LLVM backend: the body of a `parallel` loop is outlined into a task
// function that the host's parallel-for (kParallelForSymbol) runs once per iteration; the
// buffers and variables the body uses from outside travel in a closure struct on the stack.
#include "compiler/codegen/llvm/llvm_gen.h"

namespace weft::compiler::codegen {

// Outlines the body into `void task(i64 i, ptr closure)` and calls the host's parallel-for.
void Gen::parallel(const ir::For& n) {
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

}  // namespace weft::compiler::codegen
