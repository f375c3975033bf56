// How benchmarks and reports name the host CPU: the processor's own model name (from
// /proc/cpuinfo), LLVM's name for it and the vector features the backend detected. LLVM's name
// alone is not enough: LLVM 16 calls CPUs it does not know "generic" (AMD Zen 5 among them).
#include <fstream>
#include <string>

#include "compiler/codegen/llvm/codegen_llvm.h"

namespace weft::compiler::codegen {

namespace {

// The first value of each /proc/cpuinfo field (e.g. "model name", "cpu family"), "" where
// there is none.
struct CpuInfo {
  std::string model_name, family, model;
};

CpuInfo read_cpuinfo() {
  CpuInfo info;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) break;  // the end of the first processor's block: enough
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const size_t first = line.find_first_not_of(" \t", colon + 1);
    const std::string value = first == std::string::npos ? "" : line.substr(first);
    std::string* slot = key == "model name" ? &info.model_name
                        : key == "cpu family" ? &info.family
                        : key == "model"      ? &info.model
                                              : nullptr;
    if (slot && slot->empty()) *slot = value;
  }
  return info;
}

}  // namespace

std::string host_cpu_description() {
  const HostIsa isa = host_isa();
  std::string features;
  for (const auto& [has, name] : {std::pair{isa.avx2, "avx2"}, {isa.fma, "fma"},
                                  {isa.avx512f, "avx512f"}, {isa.avx512bw, "avx512bw"},
                                  {isa.avx512vnni, "avx512vnni"}, {isa.avxvnni, "avxvnni"}})
    if (has) features += std::string(features.empty() ? "" : " ") + name;
  const CpuInfo info = read_cpuinfo();
  std::string out = info.model_name.empty() ? "unknown CPU model" : info.model_name;
  // The model name alone may be as vague as "AMD EPYC" (a VM); family and model pin it down.
  if (!info.family.empty()) out += " (family " + info.family + ", model " + info.model + ")";
  return out + ", LLVM host CPU " + host_cpu_name() +
         ", vector features: " + (features.empty() ? "none of AVX2/AVX-512" : features) +
         (cpu_isa() == "native" ? "" : " (capped to " + cpu_isa() + ")");
}

}  // namespace weft::compiler::codegen
