// Optimizing and JIT-compiling generated modules for the host CPU: the host target from ORC's
// JITTargetMachineBuilder, the O3 pipeline of the new pass manager with that target's cost
// model, then ORC LLJIT with the runtime's host symbols and the process's own symbols (for
// memset/memcpy the optimizer may introduce).
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/codegen/llvm/llvm_module.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

template <typename T>
T check(llvm::Expected<T> v, const std::string& what) {
  if (!v) throw InternalError("llvm " + what + ": " + message(v.takeError()));
  return std::move(*v);
}

llvm::orc::JITTargetMachineBuilder host_builder() {
  init_llvm();
  auto jtmb = check(llvm::orc::JITTargetMachineBuilder::detectHost(), "host detection");
  if (cpu_isa() == "avx2") {
    // The host's features again, with AVX-512 (and the extensions that need it), VNNI and AMX
    // off; the feature string then names them "-..." so x86_dot's checks see them off too.
    llvm::StringMap<bool> f;
    llvm::sys::getHostCPUFeatures(f);
    llvm::SubtargetFeatures capped_features;
    for (const auto& e : f) {
      const llvm::StringRef n = e.getKey();
      const bool off = n.startswith("avx512") || n.startswith("avxvnni") || n == "avxifma" ||
                       n == "avxneconvert" || n.startswith("amx");
      capped_features.AddFeature(n, e.getValue() && !off);
    }
    jtmb.getFeatures() = capped_features;
  }
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return jtmb;
}

// LLVM's loop vectorizer warns "loop not vectorized" (naming no loop, no source) when a loop a
// schedule vectorized cannot be widened; that loop then runs scalar and correct, so the warning
// tells a user nothing to act on. Every other diagnostic prints as LLVM prints it.
void on_diagnostic(const llvm::DiagnosticInfo& d, void*) {
  if (d.getKind() == llvm::DK_OptimizationFailure) return;
  llvm::errs() << llvm::LLVMContext::getDiagnosticMessagePrefix(d.getSeverity()) << ": ";
  llvm::DiagnosticPrinterRawOStream printer(llvm::errs());
  d.print(printer);
  llvm::errs() << "\n";
}

// Generates and optimizes the module; returns it with its printed IR.
std::unique_ptr<llvm::Module> generate(llvm::LLVMContext& ctx,
                                       const std::vector<LoweredFunc>& funcs,
                                       llvm::orc::JITTargetMachineBuilder& jtmb,
                                       std::string* ir_text) {
  ctx.setDiagnosticHandlerCallBack(on_diagnostic, nullptr, /*RespectFilters=*/true);
  std::unique_ptr<llvm::TargetMachine> tm = check(jtmb.createTargetMachine(), "target machine");
  TargetInfo target{jtmb.getTargetTriple().str(), jtmb.getCPU(), jtmb.getFeatures().getString(),
                    tm->createDataLayout()};
  std::unique_ptr<llvm::Module> m = build_module(ctx, funcs, target);
  std::string err;
  llvm::raw_string_ostream es(err);
  if (llvm::verifyModule(*m, &es)) {
    throw InternalError("llvm codegen produced an invalid module: " + es.str());
  }

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(tm.get(), pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*m, mam);

  if (ir_text) {
    llvm::raw_string_ostream os(*ir_text);
    m->print(os, nullptr);
  }
  return m;
}

class LlJitModule : public JitModule {
 public:
  LlJitModule(std::unique_ptr<llvm::orc::LLJIT> jit, std::string ir)
      : jit_(std::move(jit)), ir_(std::move(ir)) {}

  Kernel kernel(const std::string& name) const override {
    auto addr = jit_->lookup(name);
    if (!addr) {
      const std::string why = message(addr.takeError());
      throw UserError("JIT: no function named '" + name + "' (" + why + ")");
    }
    return addr->toPtr<Kernel>();
  }
  const std::string& optimized_ir() const override { return ir_; }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string ir_;
};

}  // namespace

std::unique_ptr<JitModule> jit_compile(const std::vector<LoweredFunc>& funcs,
                                       const HostSymbols& symbols) {
  llvm::orc::JITTargetMachineBuilder jtmb = host_builder();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::string ir;
  std::unique_ptr<llvm::Module> m = generate(*ctx, funcs, jtmb, &ir);

  std::unique_ptr<llvm::orc::LLJIT> jit =
      check(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(), "LLJIT");
  llvm::orc::JITDylib& lib = jit->getMainJITDylib();
  lib.addGenerator(check(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                             jit->getDataLayout().getGlobalPrefix()),
                         "process symbols"));
  llvm::orc::SymbolMap map;
  for (const auto& [name, addr] : symbols) {
    map[jit->mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(addr), llvm::JITSymbolFlags::Exported);
  }
  if (!map.empty()) {
    if (llvm::Error e = lib.define(llvm::orc::absoluteSymbols(std::move(map))))
      throw InternalError("JIT: defining host symbols: " + message(std::move(e)));
  }
  if (llvm::Error e = jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) {
    throw InternalError("JIT: adding the module: " + message(std::move(e)));
  }
  auto out = std::make_unique<LlJitModule>(std::move(jit), std::move(ir));
  // Compile now, so that errors surface here and the first call is not slow.
  for (const LoweredFunc& f : funcs) out->kernel(f.name);
  return out;
}

std::string emit_llvm(const std::vector<LoweredFunc>& funcs) {
  llvm::orc::JITTargetMachineBuilder jtmb = host_builder();
  llvm::LLVMContext ctx;
  std::string ir;
  generate(ctx, funcs, jtmb, &ir);
  return ir;
}

std::string host_cpu_name() { return host_builder().getCPU(); }

std::string HostIsa::key() const {
  if (avx512f && avx512bw) return avx512vnni ? "avx512-vnni" : "avx512";
  if (avx2 && fma) return "avx2";
  return "generic";
}

HostIsa host_isa() {
  llvm::StringMap<bool> f;
  HostIsa h;
  if (!llvm::sys::getHostCPUFeatures(f)) return h;
  auto has = [&](const char* n) { return f.lookup(n); };
  h.avx2 = has("avx2");
  h.fma = has("fma");
  h.avx512f = has("avx512f");
  h.avx512bw = has("avx512bw");
  h.avx512vnni = has("avx512vnni");
  h.avxvnni = has("avxvnni");
  return capped(h);
}

}  // namespace weft::compiler::codegen
