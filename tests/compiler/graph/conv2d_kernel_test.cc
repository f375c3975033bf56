// The interpreter's blocked convolution (interpret_kernels.h, conv2d_kernel_blocked) against its
// plain loops, bit for bit: strides, dilations, asymmetric pads, groups and depthwise, widths
// that are not a multiple of the block, channel counts that are not a multiple of four; and the
// two cases where the dispatcher must keep the plain loops (a -0 bias, a non-finite weight);
// the four-lane and the AVX2 forms each.
#include "compiler/graph/interpret_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace weft::compiler::graph {
namespace {

struct Case {
  int64_t n, c, h, w, o, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, group;
};

Window2d window(const Case& k) {
  Window2d s;
  s.n = k.n, s.c = k.c, s.h = k.h, s.w = k.w, s.kh = k.kh, s.kw = k.kw, s.sh = k.sh, s.sw = k.sw;
  s.dh = k.dh, s.dw = k.dw, s.pt = k.pt, s.pl = k.pl, s.pb = k.pb, s.pr = k.pr;
  s.oh = (k.h + k.pt + k.pb - (k.kh - 1) * k.dh - 1) / k.sh + 1;
  s.ow = (k.w + k.pl + k.pr - (k.kw - 1) * k.dw - 1) / k.sw + 1;
  return s;
}

// Runs one form of the blocked kernel; false when this host has no such form.
template <typename T>
using Blocked = bool (*)(const T* x, const T* w, const T* bias, T* y, const Window2d& s,
                         int64_t o, int64_t group);

template <typename T>
bool dispatched(const T* x, const T* w, const T* bias, T* y, const Window2d& s, int64_t o,
                int64_t group) {
  conv2d_kernel_blocked<T>(x, w, bias, y, s, o, group);
  return true;
}

// The four-lane form the dispatcher takes on a host without AVX2.
bool four_lanes(const float* x, const float* w, const float* bias, float* y, const Window2d& s,
                int64_t o, int64_t group) {
  typedef float V __attribute__((vector_size(16)));
  conv2d_blocked<float, V, 4, 4, 8>(x, w, bias, y, s, o, group);
  return true;
}

template <typename T>
void expect_same(const Case& k, bool with_bias, Blocked<T> blocked_form = dispatched<T>) {
  const Window2d s = window(k);
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> x(static_cast<size_t>(k.n * k.c * k.h * k.w)),
      w(static_cast<size_t>(k.o * (k.c / k.group) * k.kh * k.kw)), b(static_cast<size_t>(k.o));
  for (T& v : x) v = static_cast<T>(u(rng));
  for (T& v : w) v = static_cast<T>(u(rng));
  for (T& v : b) v = static_cast<T>(u(rng));
  const size_t ny = static_cast<size_t>(k.n * k.o * s.oh * s.ow);
  std::vector<T> plain(ny, T(7)), blocked(ny, T(9));
  const T* bias = with_bias ? b.data() : nullptr;
  conv2d_kernel_loops<T>(x.data(), w.data(), bias, plain.data(), s, k.o, k.group);
  if (!blocked_form(x.data(), w.data(), bias, blocked.data(), s, k.o, k.group)) return;
  EXPECT_EQ(0, std::memcmp(plain.data(), blocked.data(), ny * sizeof(T)))
      << "c=" << k.c << " o=" << k.o << " " << k.h << "x" << k.w << " k=" << k.kh << "x" << k.kw
      << " stride " << k.sh << "," << k.sw << " group " << k.group;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // odd widths, o not a multiple of 4
      {2, 8, 14, 14, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // stride 2, batch 2
      {1, 4, 7, 7, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},     // 1x1 on 7x7
      {1, 3, 15, 13, 4, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1},   // a 7x7 stem
      {1, 6, 10, 10, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},   // dilation 2
      {1, 5, 8, 9, 3, 2, 3, 1, 2, 1, 1, 0, 1, 2, 0, 1},     // asymmetric pads, unequal strides
      {1, 12, 9, 9, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6},   // groups of 2 in, 3 out
      {1, 10, 11, 11, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 10},  // depthwise
      {1, 4, 3, 3, 4, 3, 3, 1, 1, 1, 1, 3, 3, 3, 3, 1},     // pads wider than the image
      {1, 40, 7, 7, 21, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1},   // 1x1, o past two blocks of 8
  };
  return v;
}

TEST(Conv2dKernel, BlockedIsTheLoopsBitForBitFloat) {
  for (const Case& k : cases()) {
    expect_same<float>(k, true);
    expect_same<float>(k, false);
  }
}

// Each vector width on its own: the four-lane form (every x86-64 host) and the AVX2 form
// (skipped on a host without AVX2), whichever the dispatcher takes here.
TEST(Conv2dKernel, EveryVectorWidthIsTheLoopsBitForBit) {
  for (const Case& k : cases()) {
    for (Blocked<float> form : {four_lanes, conv2d_blocked_avx2}) {
      expect_same<float>(k, true, form);
      expect_same<float>(k, false, form);
    }
  }
}

TEST(Conv2dKernel, BlockedIsTheLoopsBitForBitDouble) {
  for (const Case& k : cases()) expect_same<double>(k, true);
}

// A -0 bias (a padded tap, +1 * +0, would turn a sum of -0 terms into +0) and an infinite
// weight on a padded tap (inf * 0 is NaN) keep the plain loops: conv2d_kernel gives exactly
// their result, where the blocked form would not.
TEST(Conv2dKernel, DispatchKeepsTheLoopsWhereBlockingWouldDiffer) {
  const Case k{1, 1, 2, 2, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const Window2d s = window(k);
  std::vector<float> x(4, -0.0f), w(9, 1.0f), y(4), ref(4), blocked(4);
  const float neg0 = -0.0f;
  conv2d_kernel<float>(x.data(), w.data(), &neg0, y.data(), s, 1, 1);
  conv2d_kernel_loops<float>(x.data(), w.data(), &neg0, ref.data(), s, 1, 1);
  conv2d_kernel_blocked<float>(x.data(), w.data(), &neg0, blocked.data(), s, 1, 1);
  EXPECT_EQ(0, std::memcmp(y.data(), ref.data(), sizeof(float) * 4));
  EXPECT_TRUE(std::signbit(y[0]));
  EXPECT_FALSE(std::signbit(blocked[0]));
  w[0] = INFINITY;  // the top-left tap of output (0, 0) lies in the padding
  conv2d_kernel<float>(x.data(), w.data(), nullptr, y.data(), s, 1, 1);
  conv2d_kernel_loops<float>(x.data(), w.data(), nullptr, ref.data(), s, 1, 1);
  EXPECT_EQ(0, std::memcmp(y.data(), ref.data(), sizeof(float) * 4));
  EXPECT_FALSE(std::isnan(y[0]));
}

// A 1x1 convolution with stride 1 and no padding runs as a dense product per image (from the
// bias, no padded tap): the loops' bits for every 1x1 case, batch 2, channel counts off the
// blocks, and with a -0 bias and an infinite weight (no padded tap, so nothing to keep the
// loops for), in float and double.
template <typename T>
void expect_one_by_one_same(int64_t n, int64_t c, int64_t hw, int64_t o, bool odd_values) {
  const Case k{n, c, hw, hw + 1, o, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1};
  const Window2d s = window(k);
  std::mt19937 rng(static_cast<uint32_t>(c * 100 + o));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> x(static_cast<size_t>(n * c * s.h * s.w)), w(static_cast<size_t>(o * c)),
      b(static_cast<size_t>(o));
  for (T& v : x) v = static_cast<T>(u(rng));
  for (T& v : w) v = static_cast<T>(u(rng));
  for (T& v : b) v = static_cast<T>(u(rng));
  if (odd_values) {
    b[0] = T(-0.0);
    w[1] = T(INFINITY);
  }
  const size_t ny = static_cast<size_t>(n * o * s.oh * s.ow);
  std::vector<T> plain(ny, T(7)), got(ny, T(9));
  conv2d_kernel_loops<T>(x.data(), w.data(), b.data(), plain.data(), s, o, 1);
  conv2d_kernel<T>(x.data(), w.data(), b.data(), got.data(), s, o, 1);
  EXPECT_EQ(0, std::memcmp(plain.data(), got.data(), ny * sizeof(T)))
      << "c=" << c << " o=" << o << " " << hw;
}

TEST(Conv2dKernel, OneByOneAsADenseProductIsTheLoopsBitForBit) {
  for (bool odd : {false, true}) {
    expect_one_by_one_same<float>(2, 40, 7, 21, odd);
    expect_one_by_one_same<float>(1, 256, 14, 64, odd);
    expect_one_by_one_same<float>(1, 3, 5, 17, odd);
    expect_one_by_one_same<double>(2, 40, 7, 21, odd);
  }
}

}  // namespace
}  // namespace weft::compiler::graph
