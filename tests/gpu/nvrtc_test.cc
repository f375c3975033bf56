// NVRTC without a GPU: every GPU operator's generated kernels, on awkward shapes, compile to
// PTX and to cubins for Turing (sm_75), Ampere (sm_80) and Hopper (sm_90); the compile cache
// answers repeats from memory and from disk; bad input is a user error with NVRTC's log; and
// without a driver the runtime says why (the device tests then skip).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/ops/gpu/conv2d.h"
#include "compiler/ops/gpu/dense.h"
#include "compiler/ops/gpu/pool.h"
#include "hardware/isa/errors.h"
#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/nvrtc_compiler.h"

namespace weft::rt::gpu {
namespace {

using namespace compiler::ops::gpu;  // the operators compiled here

using ::testing::HasSubstr;
namespace cg = compiler::codegen;

struct Named {
  std::string name;
  compiler::ops::LoweredOp op;
};

GemmSchedule path(GemmPath p) {
  GemmSchedule s;
  s.path = p;
  return s;
}

// One kernel of every operator, dtype and GEMM path, on shapes that are multiples of no tile.
std::vector<Named> every_operator() {
  const DType f32 = DType::kFloat32, f16 = DType::kFloat16, i8 = DType::kInt8;
  const compiler::ops::Conv2dNchw conv{2, 5, 15, 13, 33, 3, 3, 2, 1};
  const Nchw act{2, 5, 15, 13};
  return {
      {"dense f32 129x257x65", dense(129, 257, 65, f32)},
      {"dense f16 129x257x65", dense(129, 257, 65, f16)},
      {"dense i8 tensor-core 129x257x65", dense(129, 257, 65, i8)},
      {"dense i8 dp4a 129x257x65", dense(129, 257, 65, i8, path(GemmPath::kDp4a))},
      {"dense f32 64x64x64 (vector loads)", dense(64, 64, 64, f32)},
      {"conv2d f32", conv2d(conv, f32)},
      {"conv2d f16", conv2d(conv, f16)},
      {"conv2d i8 tensor-core", conv2d(conv, i8)},
      {"conv2d i8 dp4a", conv2d(conv, i8, path(GemmPath::kDp4a))},
      {"relu f32", relu(act, f32)},
      {"add_relu i8", add(act, i8, true)},
      {"bias_relu f32", bias_add(act, true)},
      {"requantize", requantize(act, 7, 0, 127)},
      {"max_pool2d i8", max_pool2d(act, 3, 2, 1, i8)},
      {"avg_pool2d f32", avg_pool2d(act, 3, 2, 1, f32)},
      {"global_avg_pool f32", global_avg_pool(act, f32)},
  };
}

TEST(Nvrtc, EveryOperatorCompilesToPtxAndCubinForTuringAmpereHopper) {
  const auto t0 = std::chrono::steady_clock::now();
  int compiles = 0;
  for (const Named& o : every_operator()) {
    SCOPED_TRACE(o.name);
    const cg::CudaModule m = cg::codegen_cuda(o.op.func);
    const std::string ptx = nvrtc_compile(m.source, "sm_75", Emit::kPtx);
    EXPECT_THAT(ptx, HasSubstr(".target sm_75"));
    for (const auto& k : m.kernels) EXPECT_THAT(ptx, HasSubstr(".entry " + k.name + "("));
    // The GEMM-like kernels on all three architectures; the flat ones on the oldest and the
    // newest (their code has nothing architecture-specific).
    const bool gemm = o.name.rfind("dense", 0) == 0 || o.name.rfind("conv2d", 0) == 0;
    for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
      if (!gemm && std::string(arch) == "sm_80") continue;
      const std::string cubin = nvrtc_compile(m.source, arch, Emit::kCubin);
      ASSERT_GE(cubin.size(), 4u);
      EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF") << arch;
      ++compiles;
    }
    ++compiles;
  }
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ info ] " << compiles << " NVRTC compiles in " << s << " s\n";
}

TEST(Nvrtc, CacheAnswersRepeatsFromMemoryAndDisk) {
  const std::string src = cg::codegen_cuda(relu({1, 1, 3, 5}, DType::kFloat32).func).source;
  const auto dir = std::filesystem::temp_directory_path() / "weft_nvrtc_cache_test";
  std::filesystem::remove_all(dir);
  set_disk_cache(dir.string());
  const CompileStats s0 = nvrtc_stats();
  const std::string a = nvrtc_compile(src, "sm_80", Emit::kCubin);
  const std::string b = nvrtc_compile(src, "sm_80", Emit::kCubin);
  const CompileStats s1 = nvrtc_stats();
  EXPECT_EQ(a, b);
  EXPECT_EQ(s1.compiles - s0.compiles, 1);
  EXPECT_EQ(s1.memory_hits - s0.memory_hits, 1);
  ASSERT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  // A new process would find it on disk: same key, read back from the file.
  clear_memory_cache();
  EXPECT_EQ(nvrtc_compile(src, "sm_80", Emit::kCubin), a);
  EXPECT_EQ(nvrtc_stats().disk_hits - s1.disk_hits, 1);
  // Another architecture or output is another entry.
  EXPECT_NE(nvrtc_compile(src, "sm_90", Emit::kCubin), a);
  set_disk_cache("");
  std::filesystem::remove_all(dir);
}

TEST(Nvrtc, ErrorsAreUserErrorsWithTheLog) {
  EXPECT_THAT([] { nvrtc_compile("__global__ void k() { undefined_thing(); }", "sm_75", Emit::kPtx); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("undefined_thing")));
  EXPECT_THAT([] { nvrtc_compile("__global__ void k() {}", "sm_12", Emit::kPtx); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("sm_12")));
}

TEST(Driver, WithoutAGpuTheRuntimeSaysWhy) {
  const std::string why = Gpu::unavailable();
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present (" << Gpu::get().name() << ")";
  EXPECT_THAT(why, ::testing::AnyOf(HasSubstr("no CUDA driver: libcuda.so.1 not found"),
                                    HasSubstr("no CUDA device")));
  EXPECT_THAT([] { Gpu::get(); }, ::testing::Throws<UserError>());
}

}  // namespace
}  // namespace weft::rt::gpu
