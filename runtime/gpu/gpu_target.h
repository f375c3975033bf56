// An NVIDIA GPU as a Target (runtime/target/target.h) for `weft run|compile dense|conv2d
// --target cuda`: the operators of compiler/ops/gpu on the GEMM path asked for, their CUDA C
// from the code generator (no toolkit needed: `--emit cuda`), PTX from NVRTC (`--emit ptx`,
// the toolkit but no GPU), and runs through NVRTC and the driver (executor.h), timed by CUDA
// events. Without the toolkit at build time, or a GPU at run time, running is a UserError
// that says why ("no CUDA driver: ...", "no CUDA device: ...").
#pragma once

#include <string>

#include "runtime/target/target.h"

namespace weft::rt::gpu {

class GpuTarget : public Target {
 public:
  /// `path`: the GEMM path (--gpu-path: auto, simt, tensor-core, dp4a); `arch`: the
  /// architecture of --emit ptx (sm_XX; empty: the GPU's, else sm_75).
  explicit GpuTarget(std::string path = "auto", std::string arch = "");

  std::string name() const override { return "cuda"; }
  TargetOp build(const OpRequest& r) const override;
  void describe(const TargetOp& op, nlohmann::ordered_json& j) const override;
  std::unique_ptr<TargetKernel> compile(const TargetOp& op) const override;
  /// `emit` "cuda": the generated CUDA C; "ptx": NVRTC's PTX for the architecture.
  std::string emit(const OpRequest& r, const std::string& emit) const override;
  std::pair<std::string, double> throughput(bool int8) const override;

 private:
  std::string path_, arch_;
};

}  // namespace weft::rt::gpu
