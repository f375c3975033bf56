// Every GPU operator and dtype run on the GPU against a scalar reference, on random shapes that
// are multiples of no tile (label gpu). Without a GPU and driver every test skips, saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/ops/gpu/conv2d.h"
#include "compiler/ops/gpu/dense.h"
#include "compiler/ops/gpu/pool.h"
#include "compiler/ops/reference.h"
#include "runtime/gpu/cuda_driver.h"
#include "runtime/gpu/executor.h"
#include "runtime/target/host_values.h"

namespace weft::rt::gpu {
namespace {

using namespace compiler::ops::gpu;  // the operators under test
using compiler::ops::conv2d_reference;
using compiler::ops::Conv2dNchw;
using compiler::ops::dense_reference;
using compiler::ops::LoweredOp;

#define WEFT_NEED_GPU()                         \
  do {                                          \
    const std::string why = Gpu::unavailable(); \
    if (!why.empty()) GTEST_SKIP() << why;      \
  } while (0)

std::vector<double> run(const LoweredOp& op, const std::vector<std::vector<double>>& inputs) {
  Gpu& gpu = Gpu::get();
  GpuKernel k(op);
  std::vector<DeviceBuffer> bufs;
  std::vector<uint64_t> ptrs;
  for (size_t i = 0; i < op.num_inputs + op.num_outputs; ++i) {
    const auto& b = op.func.args[i];
    bufs.emplace_back(size_t(b->elements()) * dtype_bytes(b->dtype));
    ptrs.push_back(bufs.back().ptr());
    if (i < op.num_inputs) {
      const auto bytes = to_bytes(inputs[i], b->dtype);
      gpu.upload(ptrs.back(), bytes.data(), bytes.size());
    }
  }
  k.run(ptrs);
  gpu.synchronize();
  const auto& out = op.func.args[op.num_inputs];
  std::vector<uint8_t> raw(size_t(out->elements()) * dtype_bytes(out->dtype));
  gpu.download(raw.data(), ptrs[op.num_inputs], raw.size());
  return from_bytes(raw, out->dtype);
}

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > tol && bad++ < 5)
      ADD_FAILURE() << "element " << i << ": " << got[i] << ", expected " << want[i];
  }
  EXPECT_EQ(bad, 0);
}

TEST(GpuOps, DenseEveryDtypeAndPath) {
  WEFT_NEED_GPU();
  std::mt19937 rng(1);
  struct Case {
    DType t;
    GemmPath p;
  } cases[] = {{DType::kFloat32, GemmPath::kSimt},
               {DType::kFloat16, GemmPath::kTensorCore},
               {DType::kInt8, GemmPath::kTensorCore},
               {DType::kInt8, GemmPath::kDp4a}};
  const int64_t shapes[][3] = {
      {1, 1, 1}, {129, 257, 65}, {64, 64, 64}, {37, 50, 19}, {256, 128, 512}};
  for (const Case& c : cases)
    for (const auto& sh : shapes) {
      const int64_t m = sh[0], n = sh[1], k = sh[2];
      SCOPED_TRACE(std::string(compiler::ir::dtype_name(c.t)) + " " + gemm_path_name(c.p) + " " +
                   std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
      GemmSchedule s;
      s.path = c.p;
      const auto a = random_values(m * k, c.t, rng), w = random_values(n * k, c.t, rng);
      const auto want = dense_reference<double, double>(a, w, m, n, k);
      expect_near(run(dense(m, n, k, c.t, s), {a, w}), want,
                  c.t == DType::kFloat32 ? 1e-5 * double(k) : 1e-6);
    }
}

TEST(GpuOps, Conv2dEveryDtype) {
  WEFT_NEED_GPU();
  std::mt19937 rng(2);
  const Conv2dNchw shapes[] = {{1, 3, 32, 30, 16, 7, 7, 2, 3},
                               {2, 5, 15, 13, 33, 3, 3, 2, 1},
                               {1, 64, 14, 14, 64, 3, 3, 1, 1},
                               {3, 16, 9, 9, 20, 1, 1, 1, 0}};
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt8})
    for (const Conv2dNchw& s : shapes) {
      SCOPED_TRACE(compiler::ir::dtype_name(t));
      const auto x = random_values(s.n * s.c * s.h * s.w, t, rng);
      const auto w = random_values(s.o * s.c * s.kh * s.kw, t, rng);
      const auto want = conv2d_reference<double, double>(x, w, s);
      expect_near(run(conv2d(s, t), {x, w}), want,
                  t == DType::kFloat32 ? 1e-5 * double(s.c * s.kh * s.kw) : 1e-6);
    }
}

TEST(GpuOps, ElementwiseEpiloguesAndPooling) {
  WEFT_NEED_GPU();
  std::mt19937 rng(3);
  const Nchw s{2, 5, 15, 13};
  for (DType t : {DType::kFloat32, DType::kInt8}) {
    const auto a = random_values(s.elements(), t, rng), b = random_values(s.elements(), t, rng);
    std::vector<double> r(a.size()), ar(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      r[i] = std::max(a[i], 0.0);
      ar[i] = t == DType::kFloat32 ? std::max(float(a[i]) + float(b[i]), 0.0f)
                                   : std::clamp(a[i] + b[i], 0.0, 127.0);
    }
    expect_near(run(relu(s, t), {a}), r, 0);
    expect_near(run(add(s, t, true), {a, b}), ar, 1e-6);
    // Pooling 3x3 stride 2 pad 1.
    const int64_t oh = 8, ow = 7;
    std::vector<double> mx, av;
    for (int64_t n = 0; n < s.n; ++n)
      for (int64_t c = 0; c < s.c; ++c)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t x = 0; x < ow; ++x) {
            double m = -1e300, sum = 0;
            int cnt = 0;
            for (int dy = 0; dy < 3; ++dy)
              for (int dx = 0; dx < 3; ++dx) {
                const int64_t iy = y * 2 + dy - 1, ix = x * 2 + dx - 1;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                const double v = a[size_t(((n * s.c + c) * s.h + iy) * s.w + ix)];
                m = std::max(m, v);
                sum += v;
                ++cnt;
              }
            mx.push_back(m);
            av.push_back(t == DType::kFloat32 ? sum / cnt : std::floor(sum / cnt + 0.5));
          }
    expect_near(run(max_pool2d(s, 3, 2, 1, t), {a}), mx, 0);
    expect_near(run(avg_pool2d(s, 3, 2, 1, t), {a}), av, 1e-5);
    std::vector<double> g;
    for (int64_t i = 0; i < s.n * s.c; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < s.h * s.w; ++j) sum += a[size_t(i * s.h * s.w + j)];
      const double mean = sum / double(s.h * s.w);
      g.push_back(t == DType::kFloat32 ? mean : std::floor(mean + 0.5));
    }
    expect_near(run(global_avg_pool(s, t), {a}), g, 1e-5);
  }
  // Epilogues.
  const auto x = random_values(s.elements(), DType::kFloat32, rng),
             bias = random_values(s.c, DType::kFloat32, rng);
  std::vector<double> br(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    br[i] = std::max(float(x[i]) + float(bias[size_t(int64_t(i) / (s.h * s.w) % s.c)]), 0.0f);
  expect_near(run(bias_add(s, true), {x, bias}), br, 1e-6);
  std::vector<double> xi(x.size()), bi{3, -7, 100, -300, 0}, q(x.size());
  for (size_t i = 0; i < xi.size(); ++i) xi[i] = double(int64_t(rng() % 200000) - 100000);
  for (size_t i = 0; i < xi.size(); ++i)
    q[i] = std::clamp(
        double((int64_t(xi[i]) >> 5) + int64_t(bi[size_t(int64_t(i) / (s.h * s.w) % s.c)])), 0.0,
        127.0);
  expect_near(run(requantize(s, 5, 0, 127), {xi, bi}), q, 0);
}

}  // namespace
}  // namespace weft::rt::gpu
