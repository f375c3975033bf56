// The host CPU as a Target; see cpu_target.h.
#include "runtime/cpu/cpu_target.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/ops/cpu/layout.h"
#include "compiler/ops/op_args.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/target/host_values.h"

namespace weft::rt::cpu {

namespace ops = compiler::ops;
using compiler::ir::DType;
using ops::cpu::kConvOutBlock;

namespace {

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A compiled CPU operator with 64-byte aligned host buffers for its arguments.
class CpuTargetKernel : public TargetKernel {
 public:
  CpuTargetKernel(const ops::LoweredOp& op, int threads) : kernel_(op), pool_(threads) {
    for (size_t i = 0; i < op.num_inputs + op.num_outputs; ++i) {
      const size_t bytes = buffer_bytes(op.func.args[i]);
      owned_.emplace_back(std::aligned_alloc(64, (bytes + 63) / 64 * 64), &std::free);
      if (!owned_.back()) {
        throw UserError("out of memory for the buffer '" + op.func.args[i]->name + "'");
      }
      buffers_.push_back(owned_.back().get());
      sizes_.push_back(bytes);
    }
  }
  void write(size_t arg, const std::vector<uint8_t>& bytes) override {
    if (bytes.size() != sizes_.at(arg))
      throw InternalError("CPU kernel argument " + std::to_string(arg) + ": " +
                          std::to_string(bytes.size()) + " bytes for a buffer of " +
                          std::to_string(sizes_[arg]));
    std::memcpy(buffers_[arg], bytes.data(), bytes.size());
  }
  std::vector<uint8_t> read(size_t arg) override {
    const auto* p = static_cast<const uint8_t*>(buffers_.at(arg));
    return {p, p + sizes_[arg]};
  }
  void run() override { kernel_.run(buffers_, &pool_); }
  double timed_run() override {
    const auto t0 = std::chrono::steady_clock::now();
    kernel_.run(buffers_, &pool_);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  CpuKernel kernel_;
  ThreadPool pool_;
  std::vector<std::unique_ptr<void, void (*)(void*)>> owned_;
  std::vector<void*> buffers_;  // owned_'s, as the kernel takes them
  std::vector<size_t> sizes_;
};

}  // namespace

CpuTarget::CpuTarget(Options o) : o_(std::move(o)) {
  if (o_.threads < 1 || o_.threads > 1024)
    throw UserError("--threads " + std::to_string(o_.threads) + " is outside [1, 1024]");
}

TargetOp CpuTarget::layouts(const OpRequest& r, int64_t conv_k_pack) {
  const DType dt = ops::parse_dtype(r.dtype, "--dtype", {DType::kFloat32, DType::kInt8});
  const DType out = ops::accumulator_of(dt);
  TargetOp t;
  if (r.op == "dense") {
    t.pack = [dt](size_t, const std::vector<double>& v) { return to_bytes(v, dt); };
    t.unpack = [out](const std::vector<uint8_t>& b) { return from_bytes(b, out); };
    return t;
  }
  if (r.op != "conv2d")
    throw UserError("the CPU backend has no operator '" + r.op + "' (dense or conv2d)");
  // conv2d's inputs in the operator's blocked layouts (int8 weights in pairs or quads), its
  // output back.
  const ops::Conv2dNchw s = r.conv;
  const int64_t cb = ops::cpu::conv_in_block(s.c), nob = (s.o + kConvOutBlock - 1) / kConvOutBlock;
  t.pack = [s, dt, cb, nob, conv_k_pack](size_t arg, const std::vector<double>& v) {
    if (arg == 0) return to_bytes(ops::cpu::to_blocked(v, s.n, s.c, s.h, s.w, cb), dt);
    const auto wb = ops::cpu::pack_conv_weights(v, s.o, s.c, s.kh, s.kw, cb, kConvOutBlock);
    if (dt != DType::kInt8) return to_bytes(wb, dt);
    return bytes_of(ops::cpu::pack_int8_conv_weights(values_as<int8_t>(wb), conv_k_pack, nob,
                                                     s.c / cb, s.kh, s.kw, cb, kConvOutBlock));
  };
  t.unpack = [s, out](const std::vector<uint8_t>& b) {
    return ops::cpu::from_blocked(from_bytes(b, out), s.n, s.o, s.oh(), s.ow(), kConvOutBlock);
  };
  return t;
}

TargetOp CpuTarget::build(const OpRequest& r) const {
  const ops::cpu::ConvSchedule conv = o_.conv_schedule.value_or(ops::cpu::ConvSchedule{});
  TargetOp t = layouts(r, conv.k_pack);  // dtype and op errors first
  const DType dt = ops::parse_dtype(r.dtype, "--dtype", {DType::kFloat32, DType::kInt8});
  if (r.op == "dense") {
    t.op =
        ops::cpu::dense(r.m, r.n, r.k, dt, o_.dense_schedule.value_or(ops::cpu::DenseSchedule{}));
  } else {
    t.op = ops::cpu::conv2d(r.conv, dt, conv);
  }
  return t;
}

void CpuTarget::describe(const TargetOp&, nlohmann::ordered_json& j) const {
  j["threads"] = o_.threads;
  j["host_cpu"] = compiler::codegen::host_cpu_name();
  j["host_isa"] = compiler::codegen::host_isa().key();
  if (!o_.schedule_info.is_null()) j["schedule"] = o_.schedule_info;
}

std::unique_ptr<TargetKernel> CpuTarget::compile(const TargetOp& op) const {
  return std::make_unique<CpuTargetKernel>(op.op, o_.threads);
}

std::string CpuTarget::emit(const OpRequest& r, const std::string& emit) const {
  if (emit != "llvm") throw UserError("--emit with --target llvm is llvm, not '" + emit + "'");
  return compiler::codegen::emit_llvm({build(r).op.func});
}

std::pair<std::string, double> CpuTarget::throughput(bool int8) const {
  return {int8 ? "gops" : "gflops", 1e9};
}

}  // namespace weft::rt::cpu
