// Building a GpuRunRequest's operator and its CUDA C (no toolkit needed); see run_op.h.
#include "compiler/codegen/cuda/codegen_cuda.h"
#include "hardware/isa/errors.h"
#include "runtime/gpu/run_op.h"

namespace weft::rt::gpu {

Conv2dShape resnet18_layer(const std::string& name) {
  // name, H, W, IC, OC, K, stride, pad (scripts/bench/cpu_resnet18_conv.csv)
  static const struct {
    const char* name;
    int64_t h, w, c, o, k, s, p;
  } kLayers[] = {{"C1", 224, 224, 3, 64, 7, 2, 3},   {"C2", 56, 56, 64, 64, 3, 1, 1},
                 {"C3", 56, 56, 64, 64, 1, 1, 0},    {"C4", 56, 56, 64, 128, 3, 2, 1},
                 {"C5", 56, 56, 64, 128, 1, 2, 0},   {"C6", 28, 28, 128, 128, 3, 1, 1},
                 {"C7", 28, 28, 128, 256, 3, 2, 1},  {"C8", 28, 28, 128, 256, 1, 2, 0},
                 {"C9", 14, 14, 256, 256, 3, 1, 1},  {"C10", 14, 14, 256, 512, 3, 2, 1},
                 {"C11", 14, 14, 256, 512, 1, 2, 0}, {"C12", 7, 7, 512, 512, 3, 1, 1}};
  for (const auto& l : kLayers) {
    if (name == l.name) return Conv2dShape{1, l.c, l.h, l.w, l.o, l.k, l.k, l.s, l.p};
  }
  throw UserError("unknown ResNet-18 layer '" + name + "' (C1 .. C12)");
}

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
