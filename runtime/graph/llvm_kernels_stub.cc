// llvm_kernels.h in a build without the LLVM CPU backend (WEFT_CPU_BACKEND=OFF): no node has
// an LLVM kernel, so the executor runs every CPU node on cpu_kernels.h's and packed_io.h's loops, and the fp32
// path's callers run their plain loops.
#include "runtime/graph/llvm_kernels.h"

#include "hardware/isa/errors.h"

namespace weft::rt::graph {

class LlvmNodeKernel {};

bool have_llvm_kernels() { return false; }

std::shared_ptr<LlvmNodeKernel> make_llvm_node_kernel(const compiler::graph::Graph&,
                                                      const compiler::graph::Node&) {
  return nullptr;
}

void run_llvm_node(LlvmNodeKernel&, const std::vector<const uint8_t*>&, uint8_t*) {
  throw InternalError("run_llvm_node: this build has no LLVM CPU backend");
}

std::shared_ptr<LlvmNodeKernel> make_llvm_packed_kernel(const compiler::graph::Graph&,
                                                        const compiler::graph::Node&) {
  return nullptr;
}

int64_t run_llvm_packed(LlvmNodeKernel&, const void*, const PackedWriter&) {
  throw InternalError("run_llvm_packed: this build has no LLVM CPU backend");
}

const std::string& llvm_node_kernel_key(const LlvmNodeKernel&) {
  static const std::string none;
  return none;
}

LlvmKernelStats llvm_kernel_stats() { return {}; }

bool llvm_clip_f32(const float*, float*, int64_t, float, float) { return false; }
bool llvm_pool_f32(bool, const float*, float*, int64_t, int64_t, int64_t, int64_t, int64_t,
                   const std::vector<int64_t>&, const std::vector<int64_t>&,
                   const std::vector<int64_t>&, bool) {
  return false;
}
bool llvm_global_avg_pool_f32(const float*, float*, int64_t, int64_t) { return false; }
bool llvm_scale_shift_f32(const float*, const float*, const float*, float*, int64_t, int64_t,
                          int64_t) {
  return false;
}
bool llvm_unary_f32(const compiler::ops::Unary&, const float*, float*, int64_t) { return false; }
bool llvm_binary_f32(compiler::ops::BinaryFn, const float*, const std::vector<int64_t>&,
                     const float*, const std::vector<int64_t>&, float*,
                     const std::vector<int64_t>&) {
  return false;
}
bool llvm_softmax_f32(const float*, float*, int64_t, int64_t, int64_t) { return false; }
bool llvm_layer_norm_f32(const float*, const float*, const float*, float*, int64_t, int64_t,
                         double, int64_t, int64_t) {
  return false;
}
bool llvm_transpose_f32(const float*, const std::vector<int64_t>&, const std::vector<int64_t>&,
                        float*) {
  return false;
}
bool llvm_slice_f32(const float*, const std::vector<int64_t>&, size_t, int64_t, int64_t, int64_t,
                    float*) {
  return false;
}
bool llvm_reduce_mean_f32(const float*, const std::vector<int64_t>&, const std::vector<bool>&,
                          float*) {
  return false;
}
bool llvm_resize_f32(const float*, const std::vector<int64_t>&,
                     const std::vector<compiler::graph::ResizeAxis>&, float*) {
  return false;
}

}  // namespace weft::rt::graph
