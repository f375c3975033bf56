// The GPU operators' loop IR run by the reference interpreter (no GPU, no toolkit): every
// schedule path of the int8 dense and conv2d (dp4a, tensor cores), the int8 epilogue and
// pooling operators, against scalar references on awkward shapes. The interpreter runs bound
// loops one iteration after another, so a block's threads run in turn: this checks region
// inference, cooperative copies, guards, padding and double buffering (the GPU passes are
// applied too), not races, which need a GPU. Floats are not interpreted (integers only).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/double_buffer.h"
#include "compiler/codegen/cuda/insert_barriers.h"
#include "compiler/ir/interpreter.h"
#include "compiler/ops/gpu/conv2d.h"
#include "compiler/ops/gpu/dense.h"
#include "compiler/ops/gpu/pool.h"

namespace weft::compiler::ops::gpu {
namespace {

namespace cg = compiler::codegen;

int64_t byte(int64_t v, int i) { return static_cast<int8_t>((v >> (8 * i)) & 0xff); }

// The GPU intrinsics as integer functions: dp4a, the WMMA GEMM on 16x16 blocks, barriers.
ir::IntrinsicImpls gpu_intrinsics() {
  ir::IntrinsicImpls m;
  m[ir::Intrinsic::kDot4I8] = [](const ir::Call&, const std::vector<int64_t>& a, ir::BufferData&) {
    int64_t s = 0;
    for (int i = 0; i < 4; ++i) s += byte(a[0], i) * byte(a[1], i);
    return ir::wrap(s, ir::DType::kInt32);
  };
  m[ir::Intrinsic::kWmmaFill] = [](const ir::Call& c, const std::vector<int64_t>& a,
                                   ir::BufferData& b) {
    auto& acc = b.at(c.buffers[0].get());
    std::fill(acc.begin() + a[0] * 256, acc.begin() + a[0] * 256 + 256, 0);
    return int64_t(0);
  };
  m[ir::Intrinsic::kWmmaMma] = [](const ir::Call& c, const std::vector<int64_t>& a,
                                  ir::BufferData& b) {
    auto& acc = b.at(c.buffers[0].get());
    const auto& x = b.at(c.buffers[1].get());
    const auto& y = b.at(c.buffers[2].get());
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        int64_t s = acc[size_t(a[0] * 256 + i * 16 + j)];
        for (int k = 0; k < 16; ++k)
          s += x[size_t(a[1] * 256 + i * 16 + k)] * y[size_t(a[2] * 256 + j * 16 + k)];
        acc[size_t(a[0] * 256 + i * 16 + j)] = ir::wrap(s, ir::DType::kInt32);
      }
    return int64_t(0);
  };
  m[ir::Intrinsic::kSyncThreads] = [](const ir::Call&, const std::vector<int64_t>&,
                                      ir::BufferData&) { return int64_t(0); };
  return m;
}

// Runs `op` on the given inputs (after the GPU passes, kernel by kernel); returns its output.
std::vector<int64_t> run(const LoweredOp& op, const std::vector<std::vector<int64_t>>& inputs) {
  ir::BufferData data;
  for (size_t i = 0; i < op.func.args.size(); ++i) {
    const auto& b = op.func.args[i];
    data[b.get()] =
        i < inputs.size() ? inputs[i] : std::vector<int64_t>(static_cast<size_t>(b->elements()));
  }
  std::vector<ir::Stmt> kernels{op.func.body};
  if (op.func.body->kind == ir::NodeKind::kSeq)
    kernels = static_cast<const ir::Seq&>(*op.func.body).stmts;
  for (const ir::Stmt& k : kernels)
    ir::interpret(cg::insert_barriers(cg::double_buffer(k)), data, gpu_intrinsics());
  return data[op.func.args[op.num_inputs].get()];
}

std::vector<int64_t> random_int8(int64_t n, std::mt19937& rng) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<int8_t>(rng());
  return v;
}

std::vector<int64_t> dense_ref(const std::vector<int64_t>& a, const std::vector<int64_t>& w,
                               int64_t m, int64_t n, int64_t k) {
  std::vector<int64_t> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t r = 0; r < k; ++r)
        c[size_t(i * n + j)] += a[size_t(i * k + r)] * w[size_t(j * k + r)];
  return c;
}

TEST(GpuInterpreted, Int8DenseEveryPathMatchesReference) {
  std::mt19937 rng(7);
  struct Case {
    int64_t m, n, k;
    GemmPath path;
  } cases[] = {{33, 47, 37, GemmPath::kDp4a},
               {5, 3, 7, GemmPath::kDp4a},
               {33, 47, 37, GemmPath::kTensorCore},
               {17, 70, 16, GemmPath::kTensorCore},
               {1, 1, 1, GemmPath::kAuto}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " " +
                 gemm_path_name(c.path));
    GemmSchedule s;
    s.path = c.path;
    const LoweredOp op = dense(c.m, c.n, c.k, ir::DType::kInt8, s);
    const auto a = random_int8(c.m * c.k, rng), w = random_int8(c.n * c.k, rng);
    EXPECT_EQ(run(op, {a, w}), dense_ref(a, w, c.m, c.n, c.k));
  }
}

TEST(GpuInterpreted, Int8Conv2dMatchesReference) {
  std::mt19937 rng(8);
  for (GemmPath path : {GemmPath::kDp4a, GemmPath::kTensorCore}) {
    const Conv2dNchw sh{2, 5, 9, 7, 6, 3, 3, 2, 1};
    SCOPED_TRACE(gemm_path_name(path));
    GemmSchedule s;
    s.path = path;
    const LoweredOp op = conv2d(sh, ir::DType::kInt8, s);
    const auto x = random_int8(sh.n * sh.c * sh.h * sh.w, rng);
    const auto w = random_int8(sh.o * sh.c * sh.kh * sh.kw, rng);
    std::vector<int64_t> want(static_cast<size_t>(sh.n * sh.o * sh.oh() * sh.ow()));
    for (int64_t n = 0; n < sh.n; ++n)
      for (int64_t o = 0; o < sh.o; ++o)
        for (int64_t r = 0; r < sh.oh(); ++r)
          for (int64_t q = 0; q < sh.ow(); ++q) {
            int64_t acc = 0;
            for (int64_t c = 0; c < sh.c; ++c)
              for (int64_t dy = 0; dy < 3; ++dy)
                for (int64_t dx = 0; dx < 3; ++dx) {
                  const int64_t iy = r * 2 + dy - 1, ix = q * 2 + dx - 1;
                  if (iy < 0 || iy >= sh.h || ix < 0 || ix >= sh.w) continue;
                  acc += x[size_t(((n * sh.c + c) * sh.h + iy) * sh.w + ix)] *
                         w[size_t(((o * sh.c + c) * 3 + dy) * 3 + dx)];
                }
            want[size_t(((n * sh.o + o) * sh.oh() + r) * sh.ow() + q)] = acc;
          }
    EXPECT_EQ(run(op, {x, w}), want);
  }
}

TEST(GpuInterpreted, Int8EpiloguesAndPoolingMatchReference) {
  std::mt19937 rng(9);
  const Nchw s{2, 3, 5, 7};
  const auto a = random_int8(s.elements(), rng), b = random_int8(s.elements(), rng);
  {
    std::vector<int64_t> want(a.size());
    for (size_t i = 0; i < a.size(); ++i) want[i] = std::clamp<int64_t>(a[i] + b[i], 0, 127);
    EXPECT_EQ(run(add(s, ir::DType::kInt8, true), {a, b}), want);
  }
  {
    std::vector<int64_t> x(a.size()), bias{5, -300, 1000}, want(a.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = int64_t(rng() % 200000) - 100000;
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t c = int64_t(i) / (s.h * s.w) % s.c;
      want[i] = std::clamp<int64_t>((x[i] >> 6) + bias[size_t(c)], -128, 127);
    }
    EXPECT_EQ(run(requantize(s, 6, -128, 127), {x, bias}), want);
  }
  {
    const Nchw p{1, 2, 9, 8};
    const auto x = random_int8(p.elements(), rng);
    const int64_t oh = (9 + 2 - 3) / 2 + 1, ow = (8 + 2 - 3) / 2 + 1;
    std::vector<int64_t> mx, av;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t q = 0; q < ow; ++q) {
          int64_t m = -128, sum = 0, cnt = 0;
          for (int64_t dy = 0; dy < 3; ++dy)
            for (int64_t dx = 0; dx < 3; ++dx) {
              const int64_t y = r * 2 + dy - 1, xx = q * 2 + dx - 1;
              if (y < 0 || y >= 9 || xx < 0 || xx >= 8) continue;
              const int64_t v = x[size_t((c * 9 + y) * 8 + xx)];
              m = std::max(m, v);
              sum += v;
              ++cnt;
            }
          mx.push_back(m);
          const double mean = double(sum) / double(cnt);
          av.push_back(static_cast<int64_t>(std::floor(mean + 0.5)));
        }
    EXPECT_EQ(run(max_pool2d(p, 3, 2, 1, ir::DType::kInt8), {x}), mx);
    EXPECT_EQ(run(avg_pool2d(p, 3, 2, 1, ir::DType::kInt8), {x}), av);
    std::vector<int64_t> g;
    for (int64_t c = 0; c < 2; ++c) {
      int64_t sum = 0;
      for (int64_t i = 0; i < 72; ++i) sum += x[size_t(c * 72 + i)];
      g.push_back(static_cast<int64_t>(std::floor(double(sum) / 72.0 + 0.5)));
    }
    EXPECT_EQ(run(global_avg_pool(p, ir::DType::kInt8), {x}), g);
  }
}

}  // namespace
}  // namespace weft::compiler::ops::gpu
