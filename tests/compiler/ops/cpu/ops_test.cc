// Every CPU operator and dtype against a scalar reference on random data: dense and conv2d
// on random and awkward shapes (sizes that are not multiples of the register tile, one
// channel, strides, padding) with one and several threads; the elementwise, pooling and
// epilogue operators of a quantized ResNet-18; and the shape errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "compiler/ops/cpu/blocked_ops.h"
#include "compiler/ops/cpu/conv2d.h"
#include "compiler/ops/cpu/dense.h"
#include "compiler/ops/cpu/depthwise_conv.h"
#include "compiler/ops/cpu/grouped_conv.h"
#include "compiler/ops/cpu/layout.h"
#include "compiler/ops/op_args.h"
#include "compiler/ops/reference.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"

namespace weft::rt::cpu {
namespace {

using namespace compiler::ops::cpu;  // the operators under test
using compiler::ops::conv2d_reference;
using compiler::ops::Conv2dNchw;
using compiler::ops::dense_reference;
using compiler::ops::Unary;

using ::testing::HasSubstr;

template <typename T>
std::vector<T> random_vector(size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (T& x : v) x = d(rng);
  } else {
    std::uniform_int_distribution<int> d(-128, 127);
    for (T& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}

// float results within a tolerance relative to the sum of absolute products; ints exactly.
template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, double scale,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])) >
          1e-5 * scale + 1e-6) {
        ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
        ++bad;
      }
    } else {
      if (got[i] != want[i]) {
        ADD_FAILURE() << what << ": element " << i << " is " << static_cast<int64_t>(got[i])
                      << ", want " << static_cast<int64_t>(want[i]);
        ++bad;
      }
    }
  }
}

template <typename In, typename Out>
void check_dense(int64_t m, int64_t n, int64_t k, int threads, std::mt19937& rng,
                 const DenseSchedule& sch = {}) {
  const DType dt = std::is_same_v<In, float> ? DType::kFloat32 : DType::kInt8;
  CpuKernel kernel(dense(m, n, k, dt, sch));
  auto a = random_vector<In>(static_cast<size_t>(m * k), rng);
  auto w = random_vector<In>(static_cast<size_t>(n * k), rng);
  std::vector<Out> c(static_cast<size_t>(m * n));
  ThreadPool pool(threads);
  kernel.run({a.data(), w.data(), c.data()}, &pool);
  using Acc = std::conditional_t<std::is_same_v<In, float>, double, int32_t>;
  auto ref = dense_reference<In, Acc>(a, w, m, n, k);
  std::vector<Out> want(ref.begin(), ref.end());
  expect_close(c, want, static_cast<double>(k),
               "dense " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
}

TEST(CpuDense, Float32OnRandomAndAwkwardShapes) {
  std::mt19937 rng(1);
  for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1, 1, 1}, {6, 16, 8}, {12, 32, 64}, {7, 13, 5}, {37, 50, 19}, {5, 17, 130}}) {
    check_dense<float, float>(m, n, k, 1, rng);
  }
  std::uniform_int_distribution<int64_t> d(1, 70);
  for (int t = 0; t < 4; ++t) check_dense<float, float>(d(rng), d(rng), d(rng), 2, rng);
}

TEST(CpuDense, Int8AccumulatesInInt32) {
  std::mt19937 rng(2);
  for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1, 1, 1}, {6, 16, 8}, {12, 32, 256}, {7, 13, 5}, {37, 50, 19}}) {
    check_dense<int8_t, int32_t>(m, n, k, 1, rng);
  }
  std::uniform_int_distribution<int64_t> d(1, 70);
  for (int t = 0; t < 4; ++t) check_dense<int8_t, int32_t>(d(rng), d(rng), d(rng), 3, rng);
}

TEST(CpuDense, OtherRegisterTilesAndSerialSchedule) {
  std::mt19937 rng(3);
  check_dense<float, float>(20, 24, 9, 1, rng, DenseSchedule{4, 8, false});
  check_dense<float, float>(9, 40, 33, 2, rng, DenseSchedule{3, 32, true});
  check_dense<int8_t, int32_t>(11, 9, 17, 2, rng, DenseSchedule{1, 4, true});
}

TEST(CpuDense, KBlockedAndRowPackedSchedulesComputeTheReference) {
  // K blocking (passes of k_block reduction steps, each adding to the previous pass's C, the
  // last block shorter when k_block does not divide K) and W packed row by row, alone and
  // together, and W's panels packed inside the kernel (pack_w 2, 3: a local panel computed at
  // the column-panel loop, read by the row tiles' micro-kernel inside it), for fp32, int8
  // pairs and int8 byte quads, with tiles that pad M and N.
  std::mt19937 rng(4);
  auto sched = [](int pack_w, int64_t kb, int64_t k_pack) {
    DenseSchedule s{3, 16, true};
    s.k_unroll = 4;
    s.pack_w = pack_w;
    s.k_block = kb;
    s.k_pack = k_pack;
    return s;
  };
  for (auto [pack_w, kb] : std::vector<std::pair<int, int64_t>>{{1, 0}, {0, 8}, {3, 0}}) {
    SCOPED_TRACE("pack_w " + std::to_string(pack_w) + ", k_block " + std::to_string(kb));
    check_dense<float, float>(10, 35, 37, 2, rng, sched(pack_w, kb, 2));
    check_dense<int8_t, int32_t>(10, 35, 37, 1, rng, sched(pack_w, kb, 2));  // pairs: 19 steps
    check_dense<int8_t, int32_t>(7, 20, 45, 2, rng, sched(pack_w, kb, 4));   // quads: 12 steps
  }
  // Row blocks outside the column panels (and A packed, rows parallel): a K-blocked pass with a
  // short last block, and panels packed in the kernel once per row block.
  for (auto [pack_w, kb, kp] :
       std::vector<std::tuple<int, int64_t, int64_t>>{{1, 12, 2}, {2, 0, 2}, {2, 0, 4}}) {
    SCOPED_TRACE("row blocks, pack_w " + std::to_string(pack_w) + ", k_block " +
                 std::to_string(kb) + ", k_pack " + std::to_string(kp));
    DenseSchedule s = sched(pack_w, kb, kp);
    s.row_block = 6;
    s.pack_a = true;
    s.parallel_axis = 1;
    if (kp == 2) check_dense<float, float>(13, 17, 40, 2, rng, s);
    check_dense<int8_t, int32_t>(13, 17, 40, 2, rng, s);
  }
}

TEST(CpuDense, PanelsPackedInTheKernelNeedOneKPass) {
  DenseSchedule s{4, 16, true};
  s.pack_w = 3;
  s.k_block = 8;
  try {
    dense(8, 16, 40, DType::kFloat32, s);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("needs one K pass, not k_block 8 of 40 steps"));
  }
  s.k_block = 0;
  s.parallel_axis = 1;  // row tiles outside the column panels: a panel per row tile
  try {
    dense(8, 16, 40, DType::kFloat32, s);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("needs the column panels outside the row tiles"));
  }
  s.pack_w = 4;
  EXPECT_THROW(dense(8, 16, 40, DType::kFloat32, s), UserError);
}

TEST(CpuDense, ShapeAndScheduleErrors) {
  EXPECT_THAT([] { dense(0, 4, 4, DType::kFloat32); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("dense: M is 0")));
  EXPECT_THAT([] { dense(4, 4, -2, DType::kInt8); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("dense: K is -2")));
  EXPECT_THAT([] { dense(4, 4, 4, DType::kInt32); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("dtype int32 is not supported")));
  EXPECT_THAT(
      [] {
        dense(4, 4, 4, DType::kFloat32, DenseSchedule{6, 128, true});
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("register tile 6x128")));
  EXPECT_THAT(
      [] {
        compiler::ops::parse_dtype("float16", "--dtype", {DType::kFloat32, DType::kInt8});
      },
      ::testing::ThrowsMessage<UserError>(
          HasSubstr("--dtype: unknown dtype 'float16' (float32 or int8)")));
}

template <typename In, typename Out>
void check_conv(const Conv2dNchw& s, int threads, std::mt19937& rng, const ConvSchedule& sch = {}) {
  const DType dt = std::is_same_v<In, float> ? DType::kFloat32 : DType::kInt8;
  CpuKernel kernel(conv2d(s, dt, sch));
  auto x = random_vector<In>(static_cast<size_t>(s.n * s.c * s.h * s.w), rng);
  auto w = random_vector<In>(static_cast<size_t>(s.o * s.c * s.kh * s.kw), rng);
  const int64_t cb = conv_in_block(s.c), ob = kConvOutBlock;
  auto xb = to_blocked(x, s.n, s.c, s.h, s.w, cb);
  auto wb = pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, ob);
  const int64_t nob = (s.o + ob - 1) / ob;
  std::vector<Out> yb(static_cast<size_t>(s.n * nob * s.oh() * s.ow() * ob));
  ThreadPool pool(threads);
  std::vector<int32_t> wpairs;
  if constexpr (std::is_same_v<In, int8_t>) {
    wpairs = pack_int8_conv_weights(wb, sch.k_pack, nob, s.c / cb, s.kh, s.kw, cb, ob);
  }
  kernel.run({xb.data(), wpairs.empty() ? static_cast<void*>(wb.data()) : wpairs.data(), yb.data()},
             &pool);
  auto y = from_blocked(yb, s.n, s.o, s.oh(), s.ow(), ob);
  using Acc = std::conditional_t<std::is_same_v<In, float>, double, int32_t>;
  auto ref = conv2d_reference<In, Acc>(x, w, s);
  std::vector<Out> want(ref.begin(), ref.end());
  expect_close(y, want, static_cast<double>(s.c * s.kh * s.kw),
               "conv2d c" + std::to_string(s.c) + " " + std::to_string(s.h) + "x" +
                   std::to_string(s.w) + " o" + std::to_string(s.o) + " k" + std::to_string(s.kh) +
                   " s" + std::to_string(s.stride) + " p" + std::to_string(s.pad));
}

std::vector<Conv2dNchw> conv_shapes() {
  // n, c, h, w, o, kh, kw, stride, pad
  return {{1, 3, 15, 15, 16, 7, 7, 2, 3}, {1, 16, 14, 14, 32, 3, 3, 1, 1},
          {2, 8, 9, 11, 16, 1, 1, 1, 0},  {1, 32, 10, 10, 16, 3, 3, 2, 1},
          {1, 5, 6, 13, 20, 3, 2, 1, 1},  {1, 24, 8, 8, 40, 1, 1, 2, 0},
          {1, 16, 7, 7, 16, 3, 3, 1, 1}};
}

TEST(CpuConv2d, Float32BlockedOnResNetLikeAndAwkwardShapes) {
  std::mt19937 rng(4);
  for (const Conv2dNchw& s : conv_shapes()) check_conv<float, float>(s, 1, rng);
  check_conv<float, float>({1, 16, 12, 12, 32, 3, 3, 1, 1}, 2, rng, ConvSchedule{4, true});
}

TEST(CpuConv2d, Int8BlockedAccumulatesInInt32) {
  std::mt19937 rng(5);
  for (const Conv2dNchw& s : conv_shapes()) check_conv<int8_t, int32_t>(s, 2, rng);
}

// Byte quads (dot4_u8s8): the input offset to unsigned bytes in the padded copy, padding taps
// and channels past a block included, and 128 x each channel's weight sum taken back out; exact
// against the reference on the same shapes (3, 5, 8, 16, 24 and 32 channels: blocks of 3, 5 and
// 8 channels end inside a quad), with the channel loop unrolled too.
TEST(CpuConv2d, Int8ByteQuadsAreExact) {
  std::mt19937 rng(6);
  ConvSchedule q;
  q.k_pack = 4;
  for (const Conv2dNchw& s : conv_shapes()) check_conv<int8_t, int32_t>(s, 2, rng, q);
  q.ci_unroll = 2;
  check_conv<int8_t, int32_t>({2, 32, 9, 9, 32, 3, 3, 1, 1}, 1, rng, q);
  EXPECT_THAT(
      [] {
        conv2d({1, 16, 8, 8, 16, 3, 3, 1, 1}, DType::kFloat32,
               ConvSchedule{0, true, 1, 0, 1, false, 4});
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("k_pack 4 (2; 4: byte quads, int8 only)")));
}

// Grouped convs on channel blocks: each group's outputs against the dense reference over its
// own channels (groups of 16 and 32 output channels, input groups of 16, 8 and 24 channels:
// blocks of 16 and 8; a register tile over two output blocks of different groups; stride 2 and
// padding; batch 2); int8 and groups of part of a block are refused.
TEST(CpuConv2d, Float32GroupedOnBlocksReducesOverEachGroupsChannels) {
  std::mt19937 rng(8);
  struct Case {
    Conv2dNchw s;
    int64_t groups;
    ConvSchedule sch;
  };
  for (const Case& t : {Case{{2, 32, 9, 9, 32, 3, 3, 1, 1}, 2, {}},
                        Case{{1, 32, 10, 10, 64, 3, 3, 2, 1}, 4, {}},
                        Case{{1, 48, 7, 7, 32, 1, 1, 1, 0}, 2, ConvSchedule{7, true, 2}}}) {
    const Conv2dNchw& s = t.s;
    const int64_t g = t.groups, cg = s.c / g, og = s.o / g, taps = s.kh * s.kw;
    SCOPED_TRACE("groups " + std::to_string(g) + " c " + std::to_string(s.c));
    auto x = random_vector<float>(static_cast<size_t>(s.n * s.c * s.h * s.w), rng);
    auto w = random_vector<float>(static_cast<size_t>(s.o * cg * taps), rng);
    const int64_t cb = conv_in_block(cg), ob = kConvOutBlock;
    auto xb = to_blocked(x, s.n, s.c, s.h, s.w, cb);
    auto wb = pack_conv_weights(w, s.o, cg, s.kh, s.kw, cb, ob);
    std::vector<float> yb(static_cast<size_t>(s.n * (s.o / ob) * s.oh() * s.ow() * ob));
    CpuKernel kernel(conv2d(s, DType::kFloat32, t.sch, g));
    ThreadPool pool(2);
    kernel.run({xb.data(), wb.data(), yb.data()}, &pool);
    const auto y = from_blocked(yb, s.n, s.o, s.oh(), s.ow(), ob);
    const int64_t plane = s.h * s.w, oplane = s.oh() * s.ow();
    for (int64_t k = 0; k < g; ++k) {
      Conv2dNchw one = s;
      one.c = cg, one.o = og;
      std::vector<float> xg, yg;
      const std::vector<float> wg(w.begin() + k * og * cg * taps, w.begin() + (k + 1) * og * cg * taps);
      for (int64_t b = 0; b < s.n; ++b) {
        const auto at = x.begin() + (b * s.c + k * cg) * plane;
        xg.insert(xg.end(), at, at + cg * plane);
        const auto yat = y.begin() + (b * s.o + k * og) * oplane;
        yg.insert(yg.end(), yat, yat + og * oplane);
      }
      const auto ref = conv2d_reference<float, double>(xg, wg, one);
      expect_close(yg, std::vector<float>(ref.begin(), ref.end()), double(cg * taps),
                   "group " + std::to_string(k));
    }
  }
  EXPECT_THROW(conv2d({1, 32, 8, 8, 32, 3, 3, 1, 1}, DType::kInt8, {}, 2), UserError);
  EXPECT_THROW(conv2d({1, 32, 8, 8, 32, 3, 3, 1, 1}, DType::kFloat32, {}, 4), UserError);
  EXPECT_THROW(conv2d({1, 30, 8, 8, 32, 3, 3, 1, 1}, DType::kFloat32, {}, 4), UserError);
}

// An input held in blocks of 16 read by kernels whose blocks are 8 (24 and 40 channels; 8 in
// one half-filled block), without padding (read directly) and with it (the padded stage): the
// reference's values, and the spare lanes (NaN here) never read.
TEST(CpuConv2d, Float32ReadsAnInputHeldInBlocksOfAMultipleOfItsOwn) {
  std::mt19937 rng(9);
  for (const Conv2dNchw& s : {Conv2dNchw{1, 24, 8, 8, 32, 1, 1, 1, 0}, Conv2dNchw{2, 40, 7, 9, 16, 3, 3, 1, 1},
                              Conv2dNchw{1, 8, 6, 6, 16, 3, 3, 2, 1}}) {
    SCOPED_TRACE("c " + std::to_string(s.c));
    ASSERT_EQ(conv_in_block(s.c), 8);
    const auto x = random_vector<float>(static_cast<size_t>(s.n * s.c * s.h * s.w), rng);
    const auto w = random_vector<float>(static_cast<size_t>(s.o * s.c * s.kh * s.kw), rng);
    auto xb = to_blocked(x, s.n, s.c, s.h, s.w, 16);
    const int64_t plane = s.h * s.w, nb = (s.c + 15) / 16;
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t ch = s.c; ch < nb * 16; ++ch)
        for (int64_t p = 0; p < plane; ++p)
          xb[static_cast<size_t>(((i * nb + ch / 16) * plane + p) * 16 + ch % 16)] = std::nanf("");
    const auto wb = pack_conv_weights(w, s.o, s.c, s.kh, s.kw, 8, kConvOutBlock);
    std::vector<float> yb(static_cast<size_t>(s.n * (s.o / 16) * s.oh() * s.ow() * 16));
    CpuKernel kernel(conv2d(s, DType::kFloat32, {}, 1, 16));
    ThreadPool pool(2);
    kernel.run({xb.data(), const_cast<float*>(wb.data()), yb.data()}, &pool);
    const auto ref = conv2d_reference<float, double>(x, w, s);
    expect_close(from_blocked(yb, s.n, s.o, s.oh(), s.ow(), 16), std::vector<float>(ref.begin(), ref.end()),
                 double(s.c * s.kh * s.kw), "held in 16");
  }
  EXPECT_THROW(conv2d({1, 24, 8, 8, 32, 1, 1, 1, 0}, DType::kFloat32, {}, 1, 12), UserError);
  EXPECT_THROW(conv2d({1, 24, 8, 8, 32, 1, 1, 1, 0}, DType::kInt8, {}, 1, 16), UserError);
}

TEST(CpuConv2d, ShapeErrors) {
  EXPECT_THAT(
      [] {
        conv2d({1, 3, 4, 4, 8, 7, 7, 1, 0}, DType::kFloat32);
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("kernel 7x7 is larger")));
  EXPECT_THAT(
      [] {
        conv2d({1, 3, 8, 8, 8, 3, 3, 0, 1}, DType::kFloat32);
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("conv2d: stride is 0")));
  EXPECT_THAT(
      [] {
        conv2d({1, 0, 8, 8, 8, 3, 3, 1, 1}, DType::kInt8);
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("input channels is 0")));
}

// Grouped and depthwise float32 convolutions: each group against the dense scalar reference
// over its own channels (batch 2, stride 1 and 2, with and without padding).
TEST(CpuGroupedConv, EachGroupIsTheDenseReferenceOfItsChannels) {
  std::mt19937 rng(41);
  struct Case {
    int64_t c, o, group, k, stride, pad, h;
  };
  for (const Case& t : {Case{8, 8, 8, 3, 1, 1, 9}, Case{12, 12, 12, 3, 2, 1, 10},
                        Case{16, 8, 4, 3, 1, 0, 7}, Case{6, 9, 3, 1, 1, 0, 5}}) {
    const int64_t n = 2, cg = t.c / t.group, og = t.o / t.group;
    Conv2dNchw one{n, cg, t.h, t.h, og, t.k, t.k, t.stride, t.pad};
    const int64_t oh = one.oh(), ow = one.ow();
    GroupedConv gc{n,   t.c,      t.h,      t.h,   t.o,   t.group, t.k,
                   t.k, t.stride, t.stride, t.pad, t.pad, oh,      ow};
    SCOPED_TRACE(gc.str());
    auto x = random_vector<float>(static_cast<size_t>(n * t.c * t.h * t.h), rng);
    auto w = random_vector<float>(static_cast<size_t>(t.o * cg * t.k * t.k), rng);
    std::vector<float> y(static_cast<size_t>(n * t.o * oh * ow));
    CpuKernel kernel(grouped_conv2d(gc));
    ThreadPool pool(2);
    kernel.run({x.data(), w.data(), y.data()}, &pool);
    const int64_t plane = t.h * t.h, wsize = cg * t.k * t.k, oplane = oh * ow;
    for (int64_t g = 0; g < t.group; ++g) {
      std::vector<float> xg, wg(w.begin() + g * og * wsize, w.begin() + (g + 1) * og * wsize), yg;
      for (int64_t b = 0; b < n; ++b) {
        const auto at = x.begin() + (b * t.c + g * cg) * plane;
        xg.insert(xg.end(), at, at + cg * plane);
        const auto yat = y.begin() + (b * t.o + g * og) * oplane;
        yg.insert(yg.end(), yat, yat + og * oplane);
      }
      expect_close(yg, conv2d_reference<float, float>(xg, wg, one), double(wsize),
                   "group " + std::to_string(g));
    }
  }
  EXPECT_THROW(grouped_conv2d(GroupedConv{1, 6, 5, 5, 6, 4, 3, 3, 1, 1, 1, 1, 5, 5}), UserError);
}

// The depthwise conv on channel blocks against a scalar loop over each channel: a partial last
// block (its spare input lanes hold garbage the zero weights must not let through), strides 1
// and 2, symmetric, asymmetric and no padding, 3x3, 5x5 and 1x3 kernels, widths that take a
// register tile of 7 columns and a prime one, batch 2, rows too wide to pad per band; the
// kernel's own epilogue (bias, then a ReLU6 or a ReLU) on every other shape.
TEST(CpuDepthwiseConv, EachChannelIsItsOwnWindowSum) {
  std::mt19937 rng(43);
  const int64_t B = kDepthwiseBlock;
  int index = 0;
  for (DepthwiseConv d :
       {DepthwiseConv{2, 40, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 14, 14},
        DepthwiseConv{1, 16, 15, 15, 3, 3, 2, 2, 1, 1, 1, 1, 8, 8},
        DepthwiseConv{2, 24, 11, 13, 5, 5, 2, 2, 2, 2, 2, 2, 6, 7},
        DepthwiseConv{1, 8, 9, 9, 3, 3, 2, 2, 0, 0, 1, 1, 4, 4},
        DepthwiseConv{1, 32, 6, 17, 1, 3, 1, 1, 0, 1, 0, 1, 6, 17},
        DepthwiseConv{1, 16, 7, 7, 3, 3, 1, 1, 0, 0, 0, 0, 5, 5},
        // rows too wide for a band on the stack: the padding a workspace of the whole input
        DepthwiseConv{1, 16, 4, 2100, 3, 3, 1, 1, 1, 1, 1, 1, 4, 2100}}) {
    if (index++ % 2) {
      d.bias = d.clip = true;
      d.lo = 0.0f;
      d.hi = index % 4 == 2 ? 0.5f : std::numeric_limits<float>::infinity();
    }
    SCOPED_TRACE(d.str());
    const int64_t nb = d.blocks(), plane = d.h * d.w, oplane = d.oh * d.ow, taps = d.kh * d.kw;
    const auto x = random_vector<float>(static_cast<size_t>(d.n * d.c * plane), rng);
    const auto w = random_vector<float>(static_cast<size_t>(d.c * taps), rng);
    std::vector<float> xb(static_cast<size_t>(d.n * nb * plane * B), 1e30f);
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t ch = 0; ch < d.c; ++ch)
        for (int64_t p = 0; p < plane; ++p)
          xb[static_cast<size_t>(((i * nb + ch / B) * plane + p) * B + ch % B)] =
              x[static_cast<size_t>((i * d.c + ch) * plane + p)];
    std::vector<float> wb = pack_depthwise_weights(w.data(), d.c, d.kh, d.kw);
    const auto bias = random_vector<float>(static_cast<size_t>(d.c), rng);
    std::vector<float> bb = pack_depthwise_weights(bias.data(), d.c, 1, 1);
    std::vector<float> yb(static_cast<size_t>(d.n * nb * oplane * B), -7.0f);
    CpuKernel kernel(depthwise_conv2d(d));
    ThreadPool pool(2);
    if (d.bias)
      kernel.run({xb.data(), wb.data(), bb.data(), yb.data()}, &pool);
    else
      kernel.run({xb.data(), wb.data(), yb.data()}, &pool);
    std::vector<float> got, want;
    for (int64_t i = 0; i < d.n; ++i)
      for (int64_t ch = 0; ch < d.c; ++ch)
        for (int64_t oy = 0; oy < d.oh; ++oy)
          for (int64_t ox = 0; ox < d.ow; ++ox) {
            double sum = 0;
            for (int64_t ky = 0; ky < d.kh; ++ky)
              for (int64_t kx = 0; kx < d.kw; ++kx) {
                const int64_t iy = oy * d.sh + ky - d.pt, ix = ox * d.sw + kx - d.pl;
                if (iy < 0 || iy >= d.h || ix < 0 || ix >= d.w) continue;
                sum += double(x[static_cast<size_t>(((i * d.c + ch) * d.h + iy) * d.w + ix)]) *
                       w[static_cast<size_t>(ch * taps + ky * d.kw + kx)];
              }
            if (d.bias) sum += bias[static_cast<size_t>(ch)];
            if (d.clip) sum = std::min(std::max(sum, double(d.lo)), double(d.hi));
            want.push_back(static_cast<float>(sum));
            got.push_back(yb[static_cast<size_t>(((i * nb + ch / B) * oplane + oy * d.ow + ox) * B + ch % B)]);
          }
    expect_close(got, want, double(taps), "depthwise");
  }
  // Outputs that would read past the padded input, a zero stride.
  EXPECT_THROW(depthwise_conv2d(DepthwiseConv{1, 16, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1, 6, 5}), UserError);
  EXPECT_THROW(depthwise_conv2d(DepthwiseConv{1, 16, 5, 5, 3, 3, 0, 1, 1, 1, 1, 1, 5, 5}), UserError);
}

// An activation in the depthwise kernel's epilogue (a SiLU, a HardSwish: what a Sigmoid and a
// Mul, or a HardSwish, after the convolution become on the fp32 path) computes, bit for bit,
// the scalar definition (float_eltwise.h) of the same kernel's output without it: the
// activation's own kernel and the interpreter agree with that definition bit for bit too
// (LlvmKernels.FloatFunctionsAreOneDefinitionOnTheHostAndInTheJit).
TEST(CpuDepthwiseConv, AnActivationInTheEpilogueIsItsDefinitionBitForBit) {
  std::mt19937 rng(47);
  DepthwiseConv d{1, 40, 9, 11, 3, 3, 2, 2, 1, 1, 1, 1, 5, 6};
  d.bias = true;
  const int64_t nb = d.blocks(), B = kDepthwiseBlock;
  const auto xb = random_vector<float>(static_cast<size_t>(d.n * nb * d.h * d.w * B), rng);
  const auto w = random_vector<float>(static_cast<size_t>(d.c * d.kh * d.kw), rng);
  const auto bias = random_vector<float>(static_cast<size_t>(d.c), rng);
  std::vector<float> wb = pack_depthwise_weights(w.data(), d.c, d.kh, d.kw);
  std::vector<float> bb = pack_depthwise_weights(bias.data(), d.c, 1, 1);
  const size_t out = static_cast<size_t>(d.n * nb * d.oh * d.ow * B);
  ThreadPool pool(2);
  auto run = [&](const DepthwiseConv& dc) {
    std::vector<float> y(out, -7.0f);
    CpuKernel kernel(depthwise_conv2d(dc));
    kernel.run({const_cast<float*>(xb.data()), wb.data(), bb.data(), y.data()}, &pool);
    return y;
  };
  const std::vector<float> plain = run(d);
  for (Unary u : {Unary{Unary::kSilu}, Unary{Unary::kHardSwish}}) {
    DepthwiseConv da = d;
    da.act = u;
    SCOPED_TRACE(da.str());
    const std::vector<float> got = run(da);
    for (size_t i = 0; i < out; ++i) {
      const float want = compiler::ops::apply<float>(u, plain[i]);
      ASSERT_EQ(std::memcmp(&got[i], &want, sizeof(float)), 0)
          << i << ": " << got[i] << ", not " << want;
    }
  }
}

// Elementwise, pooling and epilogue operators on a blocked shape with an awkward width.
const Blocked kAct{2, 3, 5, 9, 16};

template <typename T>
std::vector<T> run1(const compiler::ops::LoweredOp& op, const std::vector<void*>& in,
                    size_t out_elems) {
  CpuKernel k(op);
  std::vector<T> out(out_elems);
  std::vector<void*> bufs(in);
  bufs.push_back(out.data());
  ThreadPool pool(2);
  k.run(bufs, &pool);
  return out;
}

TEST(CpuElementwise, ReluAndResidualAdd) {
  std::mt19937 rng(6);
  const size_t n = static_cast<size_t>(kAct.elements());
  auto xf = random_vector<float>(n, rng), zf = random_vector<float>(n, rng);
  auto xi = random_vector<int8_t>(n, rng), zi = random_vector<int8_t>(n, rng);
  auto r = run1<float>(relu(kAct, DType::kFloat32), {xf.data()}, n);
  auto ri = run1<int8_t>(relu(kAct, DType::kInt8), {xi.data()}, n);
  auto a = run1<float>(add_relu(kAct, DType::kFloat32), {xf.data(), zf.data()}, n);
  auto ai = run1<int8_t>(add_relu(kAct, DType::kInt8), {xi.data(), zi.data()}, n);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(r[i], std::max(xf[i], 0.0f)) << i;
    ASSERT_EQ(ri[i], std::max<int8_t>(xi[i], 0)) << i;
    ASSERT_EQ(a[i], std::max(xf[i] + zf[i], 0.0f)) << i;
    ASSERT_EQ(ai[i], std::clamp(xi[i] + zi[i], 0, 127)) << i;
  }
}

TEST(CpuElementwise, Epilogues) {
  std::mt19937 rng(7);
  const size_t n = static_cast<size_t>(kAct.elements());
  const size_t nc = static_cast<size_t>(kAct.cb * kAct.c);
  auto xf = random_vector<float>(n, rng), bf = random_vector<float>(nc, rng);
  std::vector<int32_t> xi(n), bi(nc);
  std::uniform_int_distribution<int32_t> d(-40000, 40000), db(-20, 60);
  for (auto& v : xi) v = d(rng);
  for (auto& v : bi) v = db(rng);
  auto y = run1<float>(bias_relu(kAct), {xf.data(), bf.data()}, n);
  auto q = run1<int8_t>(requantize(kAct, 8), {xi.data(), bi.data()}, n);
  for (size_t i = 0; i < n; ++i) {
    const size_t c = (i / static_cast<size_t>(kAct.h * kAct.w * kAct.c)) %
                         static_cast<size_t>(kAct.cb) * static_cast<size_t>(kAct.c) +
                     i % static_cast<size_t>(kAct.c);
    ASSERT_EQ(y[i], std::max(xf[i] + bf[c], 0.0f)) << i;
    ASSERT_EQ(q[i], std::clamp((xi[i] >> 8) + bi[c], 0, 127)) << i;
  }
  EXPECT_THAT([] { requantize(kAct, 40); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("shift 40")));
}

template <typename T>
void check_pool(std::mt19937& rng) {
  const DType dt = std::is_same_v<T, float> ? DType::kFloat32 : DType::kInt8;
  const Blocked b = kAct;
  const int64_t k = 3, st = 2, p = 1;
  const int64_t oh = (b.h + 2 * p - k) / st + 1, ow = (b.w + 2 * p - k) / st + 1;
  auto x = random_vector<T>(static_cast<size_t>(b.elements()), rng);
  auto y = run1<T>(max_pool2d(b, k, st, p, dt), {x.data()},
                   static_cast<size_t>(b.n * b.cb * oh * ow * b.c));
  for (int64_t n = 0; n < b.n * b.cb; ++n)
    for (int64_t r = 0; r < oh; ++r)
      for (int64_t q = 0; q < ow; ++q)
        for (int64_t c = 0; c < b.c; ++c) {
          T best = std::numeric_limits<T>::lowest();
          for (int64_t dy = 0; dy < k; ++dy)
            for (int64_t dx = 0; dx < k; ++dx) {
              const int64_t iy = r * st + dy - p, ix = q * st + dx - p;
              if (iy < 0 || iy >= b.h || ix < 0 || ix >= b.w) continue;
              best = std::max(best, x[static_cast<size_t>(((n * b.h + iy) * b.w + ix) * b.c + c)]);
            }
          ASSERT_EQ(y[static_cast<size_t>(((n * oh + r) * ow + q) * b.c + c)], best);
        }
  auto g = run1<T>(global_avg_pool(b, dt), {x.data()}, static_cast<size_t>(b.n * b.cb * b.c));
  const int64_t hw = b.h * b.w;
  for (int64_t n = 0; n < b.n * b.cb; ++n)
    for (int64_t c = 0; c < b.c; ++c) {
      double s = 0;
      for (int64_t i = 0; i < hw; ++i)
        s += static_cast<double>(x[static_cast<size_t>((n * hw + i) * b.c + c)]);
      const T got = g[static_cast<size_t>(n * b.c + c)];
      if constexpr (std::is_floating_point_v<T>) {
        ASSERT_NEAR(got, s / static_cast<double>(hw), 1e-5);
      } else {
        const int64_t si = static_cast<int64_t>(s);
        const int64_t want = (si + hw / 2 - (((si + hw / 2) % hw) + hw) % hw) / hw;
        ASSERT_EQ(got, want);
      }
    }
}

TEST(CpuPooling, MaxPoolAndGlobalAveragePool) {
  std::mt19937 rng(8);
  check_pool<float>(rng);
  check_pool<int8_t>(rng);
  EXPECT_THAT([] { max_pool2d(kAct, 3, 2, 3, DType::kFloat32); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("padding 3")));
}

TEST(CpuKernel, WrongBufferCountIsAUserError) {
  CpuKernel k(relu(Blocked{1, 1, 1, 1, 16}, DType::kFloat32));
  std::vector<float> x(16);
  EXPECT_THAT([&] { k.run({x.data()}); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("takes 2 buffers, given 1")));
}

}  // namespace
}  // namespace weft::rt::cpu
