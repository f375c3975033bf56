// The interpreter's blocked dense product (interpret_kernels.h, dense_blocked) against its plain
// loops, bit for bit: row and column counts that are not a multiple of the block (one row, one
// column), short and long reductions, values of mixed magnitude (where a reordered sum would
// round differently), in float by the dispatched form (AVX2 where the host has it) and the
// four-lane form, and in double; W as [N, K] and as its transpose [K, N]; sums from 0 and from
// a start value per row.
#include "compiler/graph/interpret_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace weft::compiler::graph {
namespace {

template <typename T, typename Run>
void expect_same(int64_t m, int64_t n, int64_t k, Run run) {
  std::mt19937 rng(static_cast<uint32_t>(m * 1000003 + n * 1009 + k));
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-20, 20);
  std::vector<T> a(static_cast<size_t>(m * k)), w(static_cast<size_t>(n * k));
  for (T& v : a) v = static_cast<T>(std::ldexp(u(rng), e(rng)));
  for (T& v : w) v = static_cast<T>(u(rng));
  std::vector<T> want(static_cast<size_t>(m * n), T(7)), got(want.size(), T(-7));
  dense_kernel_loops(a.data(), w.data(), want.data(), m, n, k);
  run(a.data(), w.data(), got.data(), m, n, k, false, nullptr);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0)
      << m << "x" << n << "x" << k;
  // W given as its transpose [K, N] (a MatMul's B): the same bits.
  std::vector<T> b(w.size()), got_kn(want.size(), T(-7));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t q = 0; q < k; ++q) b[static_cast<size_t>(q * n + j)] = w[static_cast<size_t>(j * k + q)];
  run(a.data(), b.data(), got_kn.data(), m, n, k, true, nullptr);
  EXPECT_EQ(std::memcmp(got_kn.data(), want.data(), got.size() * sizeof(T)), 0)
      << m << "x" << n << "x" << k << " from [K, N]";
  // Rows starting from a value of their own (a 1x1 convolution's bias), -0 among them.
  std::vector<T> init(static_cast<size_t>(m));
  for (T& v : init) v = static_cast<T>(u(rng));
  init[0] = T(-0.0);
  dense_kernel_loops(a.data(), w.data(), want.data(), m, n, k, init.data());
  run(a.data(), w.data(), got.data(), m, n, k, false, init.data());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0)
      << m << "x" << n << "x" << k << " from init";
}

const int64_t kShapes[][3] = {{1, 1, 1},   {1, 17, 5},   {3, 1, 64},  {4, 16, 8},
                              {5, 33, 100}, {13, 40, 37}, {64, 64, 768}, {197, 20, 3}};

TEST(DenseKernel, BlockedFloatEqualsTheLoopsBitForBit) {
  for (const auto& s : kShapes) expect_same<float>(s[0], s[1], s[2], dense_kernel<float>);
}

TEST(DenseKernel, FourLaneFloatEqualsTheLoopsBitForBit) {
  typedef float V __attribute__((vector_size(16)));
  for (const auto& s : kShapes) expect_same<float>(s[0], s[1], s[2], dense_blocked<float, V, 4, 4, 8>);
}

TEST(DenseKernel, BlockedDoubleEqualsTheLoopsBitForBit) {
  for (const auto& s : kShapes) expect_same<double>(s[0], s[1], s[2], dense_kernel<double>);
}

}  // namespace
}  // namespace weft::compiler::graph
