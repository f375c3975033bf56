// Building a GpuRunRequest's operator and its CUDA C (no toolkit needed); see run_op.h.
#include "compiler/codegen/cuda/codegen_cuda.h"
#include "hardware/isa/errors.h"
#include "runtime/gpu/run_op.h"

namespace weft::rt::gpu {

GpuOp build_request_op(const GpuRunRequest& r) {
  const DType dt = parse_dtype(r.dtype, "--dtype");
  GemmSchedule s;
  if (r.path == "auto") s.path = GemmPath::kAuto;
  else if (r.path == "simt") s.path = GemmPath::kSimt;
  else if (r.path == "tensor-core") s.path = GemmPath::kTensorCore;
  else if (r.path == "dp4a") s.path = GemmPath::kDp4a;
  else throw UserError("--gpu-path must be auto, simt, tensor-core or dp4a, not '" + r.path + "'");
  if (r.op == "dense") return dense(r.m, r.n, r.k, dt, s);
  if (r.op == "conv2d") return conv2d(r.conv, dt, s);
  throw UserError("the GPU backend has no operator '" + r.op + "' for weft run (dense or conv2d)");
}

std::string gpu_op_cuda(const GpuRunRequest& r) {
  return compiler::codegen::codegen_cuda(build_request_op(r).func).source;
}

}  // namespace weft::rt::gpu
