// The GPU backend through the `weft` binary: `weft compile dense|conv2d --target cuda --emit
// cuda` prints the kernels (no toolkit needed), `--emit ptx` NVRTC's PTX (no GPU needed), and
// without a GPU `weft run dense --target cuda` exits 1 saying there is no CUDA driver or
// device; mismatched flags are user errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

using ::testing::HasSubstr;

struct Result {
  int code;
  std::string out;
};

Result weft(const std::string& args) {
  const std::string cmd = std::string(WEFT_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WEXITSTATUS(status), out};
}

TEST(GpuCli, CompileEmitsCuda) {
  Result r = weft("compile dense --target cuda --emit cuda --M 129 --N 257 --K 65");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("extern \"C\" __global__ void __launch_bounds__(256) dense_k0("));
  EXPECT_THAT(r.out, HasSubstr("__syncthreads();"));
  r = weft("compile conv2d --target cuda --emit cuda --dtype float16 --layer C6");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("nvcuda::wmma::mma_sync("));
  r = weft("compile dense --target cuda --emit llvm --M 8 --N 8 --K 8");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("--emit cuda|ptx goes with --target cuda"));
}

#ifdef WEFT_HAVE_CUDA
TEST(GpuCli, CompileEmitsPtxWithoutAGpu) {
  Result r = weft("compile dense --target cuda --emit ptx --arch sm_90 --dtype int8 --M 33 "
                  "--N 47 --K 37");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(".target sm_90"));
  EXPECT_THAT(r.out, HasSubstr(".entry dense_k0("));
  EXPECT_THAT(r.out, HasSubstr("wmma.mma.sync"));  // int8 tensor cores in the PTX
}

TEST(GpuCli, RunWithoutAGpuSaysSoAndExits1) {
  Result r = weft("run dense --target cuda --M 64 --N 64 --K 64 --repeats 1");
  if (r.code == 0) GTEST_SKIP() << "a GPU is present: weft ran the dense on it";
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, ::testing::AnyOf(HasSubstr("no CUDA driver: libcuda.so.1 not found"),
                                      HasSubstr("no CUDA device")));
  // Shape and dtype errors come first, with or without a GPU.
  r = weft("run dense --target cuda --dtype float64 --M 4 --N 4 --K 4");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("unknown dtype 'float64'"));
}

// On a GPU (skipped without one): the user's commands end to end, checked against the CPU
// reference by `weft run` itself. The tensor-core cases failed on an H100 before the
// double-buffering fix (B's tile was filled in the step that read it, with no barrier).
TEST(GpuCli, RunOnAGpuIsCorrectOnEveryPath) {
  Result probe = weft("run dense --target cuda --M 8 --N 8 --K 8 --repeats 1");
  if (probe.code == 1 && (probe.out.find("no CUDA driver") != std::string::npos ||
                          probe.out.find("no CUDA device") != std::string::npos))
    GTEST_SKIP() << "no GPU: " << probe.out;
  for (const char* args :
       {"dense --M 129 --N 4096 --K 257 --dtype float16", "dense --M 100 --N 70 --K 300 --dtype int8",
        "dense --M 65 --N 33 --K 129 --dtype int8 --gpu-path dp4a",
        "dense --M 127 --N 129 --K 31 --dtype float32", "conv2d --layer C6 --dtype float16",
        "conv2d --layer C12 --dtype int8", "conv2d --layer C1 --dtype float32"}) {
    SCOPED_TRACE(args);
    Result r = weft(std::string("run ") + args + " --target cuda --repeats 1");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("\"correct\": true"));
    EXPECT_THAT(r.out, HasSubstr("\"mismatches\": 0"));
  }
}
#endif

}  // namespace
