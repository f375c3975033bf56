// The vector-ISA cap of the CPU backend: "native" compiles for every vector extension the host
// has; "avx2" turns off AVX-512 and VNNI (as on an AVX2-only host such as Haswell), so that an
// AVX-512 machine can measure what Weft does on AVX2 hosts. One setting for the JIT's target
// features (jit.cc) and for host_isa() (the key of the tuning records and dispatch tables).
// No LLVM headers here.
#include <cstdlib>
#include <mutex>
#include <string>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "hardware/isa/errors.h"

namespace weft::compiler::codegen {

namespace {

std::mutex g_mu;
std::string g_isa;  // empty: not decided yet (WEFT_CPU_ISA, else native)

std::string checked(const std::string& isa, const std::string& where) {
  if (isa == "native" || isa == "avx2") return isa;
  throw UserError(where + ": unknown CPU ISA '" + isa + "' (native or avx2)");
}

}  // namespace

void set_cpu_isa(const std::string& isa) {
  const std::string v = checked(isa, "--cpu-isa");
  std::lock_guard<std::mutex> l(g_mu);
  g_isa = v;
}

std::string cpu_isa() {
  std::lock_guard<std::mutex> l(g_mu);
  if (g_isa.empty()) {
    const char* e = std::getenv("WEFT_CPU_ISA");
    g_isa = e && *e ? checked(e, "WEFT_CPU_ISA") : "native";
  }
  return g_isa;
}

HostIsa capped(HostIsa h) {
  if (cpu_isa() == "avx2") h.avx512f = h.avx512bw = h.avx512vnni = h.avxvnni = false;
  return h;
}

}  // namespace weft::compiler::codegen
