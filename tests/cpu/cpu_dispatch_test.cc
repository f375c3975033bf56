// Shape-generic CPU schedules (issue #29): the micro-kernels of each host kind fit its
// registers, a shape dispatches to its bucket's kernel fitted to the shape (for both host
// kinds, passed explicitly, so the result does not depend on the machine), the shipped tables
// cover every bucket, a malformed table is a UserError naming the file and the entry, and the
// dispatched kernels compute the reference on odd shapes, natively and under the AVX2 cap.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/ops/cpu/gemv.h"
#include "compiler/ops/cpu/layout.h"
#include "compiler/ops/reference.h"
#include "hardware/isa/errors.h"
#include "runtime/cpu/executor.h"
#include "runtime/tune/cpu_dispatch.h"
#include "runtime/tune/cpu_schedules.h"

namespace weft::rt::tune {
namespace {

namespace cpu = compiler::ops::cpu;
using compiler::ir::DType;
using nlohmann::json;
using ::testing::HasSubstr;

const char* const kKinds[] = {"avx512-vnni", "avx512", "avx2"};

// Vector registers a dense kernel's tile needs (accumulators, one row of W, a broadcast).
int64_t dense_registers(const json& k, int64_t vl) {
  const int64_t per_row = (k["cols"].get<int64_t>() + vl - 1) / vl;
  return k["rows"].get<int64_t>() * per_row + per_row + 1;
}

TEST(CpuDispatch, MicroKernelsFitTheHostKindsRegisters) {
  for (const std::string kind : kKinds) {
    const int64_t vl = kind == "avx2" ? 8 : 16, regs = kind == "avx2" ? 16 : 32;
    for (const char* dtype : {"float32", "int8"}) {
      const auto ks = micro_kernels(kind, "dense", dtype);
      ASSERT_FALSE(ks.empty()) << kind;
      for (const CpuMicroKernel& k : ks) {
        EXPECT_LE(dense_registers(k.knobs, vl), regs) << kind << " " << k.name;
        EXPECT_EQ(k.knobs["cols"].get<int64_t>() % vl, 0) << kind << " " << k.name;
        EXPECT_NO_THROW(cpu::validate(dense_schedule_of(k.knobs)));
        if (std::string(dtype) == "int8" && kind == "avx512-vnni") {
          EXPECT_EQ(k.knobs["k_pack"], 4) << "VNNI hosts use byte quads";
        }
      }
    }
    for (const CpuMicroKernel& k : micro_kernels(kind, "conv2d", "float32")) {
      const int64_t acc = k.knobs["ow"].get<int64_t>() * k.knobs["oc_blocks"].get<int64_t>() * (16 / vl);
      EXPECT_LE(acc + k.knobs["oc_blocks"].get<int64_t>() * (16 / vl) + 1, regs) << kind << " " << k.name;
    }
  }
  EXPECT_THROW(micro_kernels("generic", "dense", "float32"), UserError);
}

// A table with one catch-all kernel per family and a small-M bucket before it.
std::string write_table(const std::string& kind, const std::string& name) {
  const int64_t vl = kind == "avx2" ? 8 : 16;
  json small = knobs_of(cpu::DenseSchedule{});
  small["rows"] = 3;
  small["cols"] = 4 * vl;
  small["lanes"] = vl;
  json big = small;
  big["rows"] = kind == "avx2" ? 6 : 8;
  big["cols"] = 2 * vl;
  big["pack_w"] = 3;
  json conv = knobs_of(cpu::ConvSchedule{7, true, 4, 0, 4, false});
  json t = {{"host_kind", kind},
            {"entries",
             {{{"op", "dense"}, {"dtype", "float32"}, {"when", {{"m", {1, 3}}}},
               {"kernel", "small"}, {"knobs", small}},
              {{"op", "dense"}, {"dtype", "float32"}, {"kernel", "big"}, {"knobs", big}},
              {{"op", "conv2d"}, {"dtype", "float32"}, {"kernel", "c"}, {"knobs", conv}}}}};
  const std::string path =
      (std::filesystem::temp_directory_path() / ("weft_dispatch_" + name + ".json")).string();
  std::ofstream(path) << t.dump();
  return path;
}

TEST(CpuDispatch, ShapeGoesToItsBucketsKernelFittedToTheShape) {
  for (const std::string kind : {"avx512-vnni", "avx2"}) {
    const int64_t vl = kind == "avx2" ? 8 : 16;
    const std::string path = write_table(kind, kind);
    auto d = dispatch_dense(2, 1000, 33, "float32", 1, kind, path);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->kernel, "small");
    EXPECT_EQ(d->bucket, "m 1..3");
    EXPECT_EQ(d->source, path);
    EXPECT_EQ(d->schedule.rows, 2) << "no taller than the shape";
    EXPECT_EQ(d->schedule.cols, 4 * vl);
    d = dispatch_dense(1000, 7, 7, "float32", 1, kind, path);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->kernel, "big");
    EXPECT_EQ(d->schedule.cols, vl) << "7 columns: one vector";
    EXPECT_EQ(d->schedule.parallel_axis, 0);
    // Two threads and a single column panel: the parallel loop goes over row blocks.
    d = dispatch_dense(1000, 7, 7, "float32", 2, kind, path);
    EXPECT_EQ(d->schedule.parallel_axis, 1);
    EXPECT_GT(d->schedule.row_block, 0);
    EXPECT_EQ(d->schedule.row_block % d->schedule.rows, 0);
    EXPECT_FALSE(dispatch_dense(4, 4, 4, "int8", 1, kind, path).has_value()) << "no int8 bucket";
    // conv2d: 7 columns cut to a 5-wide output, 4 channel blocks to the 2 there are, the
    // unroll to the 3-channel block's divisor.
    const compiler::ops::Conv2dNchw c{1, 3, 5, 5, 32, 3, 3, 1, 1};
    auto dc = dispatch_conv2d(c, "float32", 1, kind, path);
    ASSERT_TRUE(dc.has_value());
    EXPECT_EQ(dc->schedule.ow, 5);
    EXPECT_EQ(dc->schedule.oc_blocks, 2);
    EXPECT_EQ(dc->schedule.ci_unroll, 1);
    EXPECT_THROW(dispatch_dense(8, 8, 8, "float32", 1, kind == "avx2" ? "avx512" : "avx2", path),
                 UserError)
        << "a table of another host kind";
    std::filesystem::remove(path);
  }
}

TEST(CpuDispatch, LongReductionsNarrowTheFusedPanel) {
  cpu::DenseSchedule s = dense_schedule_of(micro_kernels("avx512-vnni", "dense", "float32")[0].knobs);
  ASSERT_EQ(s.cols, 64);
  ASSERT_EQ(s.pack_w, 3);
  EXPECT_EQ(fit_dense(s, 512, 512, 2048, "float32", "avx512-vnni", 1).cols, 64);  // 512 KiB
  const cpu::DenseSchedule f = fit_dense(s, 512, 512, 4096, "float32", "avx512-vnni", 1);
  EXPECT_EQ(f.cols, 32);
  EXPECT_EQ(f.pack_w, 3);
  EXPECT_EQ(f.cols % f.lanes, 0);
  const cpu::DenseSchedule g = fit_dense(s, 512, 512, 100000, "float32", "avx512-vnni", 1);
  EXPECT_EQ(g.cols, 16);
  EXPECT_EQ(g.pack_w, 1) << "the pack in a pass of its own";
  // int8 quads: 4096 steps of K are 1024 32-bit steps.
  s.k_pack = 4;
  EXPECT_EQ(fit_dense(s, 512, 512, 4096, "int8", "avx512-vnni", 1).cols, 64);
}

TEST(CpuDispatch, MatrixVectorProductsTakeTheGemvForm) {
  // N = 1 or M = 1: rows of two vectors of partial sums along K (gemv.h), whatever the
  // bucket's tile; a 1x1 product or K shorter than the vectors stays a dense tile.
  for (const std::string kind : {"avx512-vnni", "avx2"}) {
    const int64_t vl = kind == "avx2" ? 8 : 16;
    for (const CpuMicroKernel& mk : micro_kernels(kind, "dense", "float32")) {
      const cpu::DenseSchedule g =
          fit_dense(dense_schedule_of(mk.knobs), 2660, 1, 1049, "float32", kind, 2);
      EXPECT_EQ(g.rows, 4) << mk.name;
      EXPECT_EQ(g.cols, 2 * vl) << mk.name;
      EXPECT_TRUE(cpu::gemv_applies(2660, 1, 1049, g)) << mk.name;
      EXPECT_FALSE(cpu::gemv_applies(2660, 1, 2 * vl - 1, g)) << mk.name;
      // M = 1 (a linear layer at batch 1): W's rows times A's one row.
      const cpu::DenseSchedule v =
          fit_dense(dense_schedule_of(mk.knobs), 1, 1000, 2048, "float32", kind, 1);
      EXPECT_EQ(v.rows, 4) << mk.name;
      EXPECT_TRUE(cpu::gemv_applies(1, 1000, 2048, v)) << mk.name;
    }
    EXPECT_EQ(fit_dense(dense_schedule_of(micro_kernels(kind, "dense", "float32")[0].knobs), 1,
                        1, 64, "float32", kind, 1)
                  .cols,
              vl)
        << "1x1 is no GEMV";
  }
}

TEST(CpuDispatch, ABucketsRangesReadAsTheyAreWritten) {
  // The shipped conv2d bucket of a stride-2 3x3 layer of 256 channels 14 wide, as `weft run
  // conv2d --target llvm` names it: open-ended ranges as "lo+".
  const CpuDispatchTable t = CpuDispatchTable::load(dispatch_table_path("avx512-vnni"));
  const CpuDispatchEntry* e = t.find(
      "conv2d", "float32", conv2d_dims(compiler::ops::Conv2dNchw{1, 256, 28, 28, 256, 3, 3, 2, 1}));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->describe(), "ic 192+, kh 2+, ow 8..27, stride 2+");
}

TEST(CpuDispatch, ShippedTablesCoverEveryBucket) {
  for (const std::string kind : {"avx512-vnni", "avx2"}) {
    const CpuDispatchTable t = CpuDispatchTable::load(dispatch_table_path(kind));
    EXPECT_EQ(t.host_kind(), kind);
    for (const std::string op : {"dense", "conv2d"})
      for (const char* dtype : {"float32", "int8"})
        for (const CpuBucket& b : family_buckets(op)) {
          const CpuDispatchEntry* e = t.find(op, dtype, b.home);
          ASSERT_NE(e, nullptr) << kind << " " << op << " " << dtype;
          EXPECT_EQ(e->when, b.when) << kind << " " << op << " " << dtype << ": the bucket's own entry";
        }
  }
}

void expect_table_error(const std::string& text, const std::string& what) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "weft_dispatch_bad.json").string();
  std::ofstream(path) << text;
  try {
    CpuDispatchTable::load(path);
    ADD_FAILURE() << "no error for " << text;
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr(what));
  }
  std::filesystem::remove(path);
}

TEST(CpuDispatch, MalformedTablesAreNamedErrors) {
  const std::string knobs = knobs_of(cpu::DenseSchedule{}).dump();
  auto entry = [&](const std::string& fields) {
    return R"({"host_kind": "avx2", "entries": [{"op": "dense", "dtype": "float32", "kernel": "k", )" +
           fields + "}]}";
  };
  expect_table_error("{not json", "not JSON");
  expect_table_error(R"({"entries": []})", "host_kind");
  expect_table_error(R"({"host_kind": "avx2"})", "'entries'");
  expect_table_error(
      R"({"host_kind": "avx2", "entries": [{"op": "gemm", "dtype": "float32", "kernel": "k", "knobs": )" +
          knobs + "}]}",
      "entry 1: unknown op 'gemm'");
  expect_table_error(entry(R"("when": {"m": [5, 2]}, "knobs": )" + knobs),
                     "entry 1: the range of 'm' [5, 2] is empty");
  expect_table_error(entry(R"("when": {"q": [1, 2]}, "knobs": )" + knobs),
                     "unknown dense dimension 'q'");
  expect_table_error(entry(R"("when": {"m": 3}, "knobs": )" + knobs), "must be [lo, hi]");
  expect_table_error(entry(R"("x": 1)"), "the field 'knobs' is missing");
  json bad = knobs_of(cpu::DenseSchedule{});
  bad["rows"] = 20;
  expect_table_error(entry(R"("knobs": )" + bad.dump()), "kernel 'k': dense: register tile 20x16");
  bad = knobs_of(cpu::DenseSchedule{});
  bad.erase("cols");
  expect_table_error(entry(R"("knobs": )" + bad.dump()), "knob 'cols' is missing");
  EXPECT_THROW(CpuDispatchTable::load("/nonexistent/table.json"), UserError);
}

// Runs the dense dispatched for this host on random inputs; EXPECTs the reference.
void expect_dense_reference(int64_t m, int64_t n, int64_t k, DType dt, int threads) {
  const std::string dtype = dt == DType::kInt8 ? "int8" : "float32";
  auto d = dispatch_dense(m, n, k, dtype, threads);
  ASSERT_TRUE(d.has_value()) << "this host kind has a shipped table";
  cpu::validate(d->schedule);
  rt::cpu::CpuKernel kernel(cpu::dense(m, n, k, dt, d->schedule));
  rt::cpu::ThreadPool pool(threads);
  std::mt19937 rng(static_cast<uint32_t>(m * 131 + n * 7 + k));
  const std::string what = dtype + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                           std::to_string(k) + " " + d->kernel;
  if (dt == DType::kFloat32) {
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> a(static_cast<size_t>(m * k)), w(static_cast<size_t>(n * k)),
        c(static_cast<size_t>(m * n));
    for (float& x : a) x = u(rng);
    for (float& x : w) x = u(rng);
    kernel.run({a.data(), w.data(), c.data()}, &pool);
    const auto ref = compiler::ops::dense_reference<float, double>(a, w, m, n, k);
    for (size_t i = 0; i < c.size(); ++i)
      ASSERT_NEAR(c[i], ref[i], 1e-5 * static_cast<double>(k) + 1e-5) << what << " at " << i;
  } else {
    std::uniform_int_distribution<int> u(-128, 127);
    std::vector<int8_t> a(static_cast<size_t>(m * k)), w(static_cast<size_t>(n * k));
    std::vector<int32_t> c(static_cast<size_t>(m * n));
    for (int8_t& x : a) x = static_cast<int8_t>(u(rng));
    for (int8_t& x : w) x = static_cast<int8_t>(u(rng));
    kernel.run({a.data(), w.data(), c.data()}, &pool);
    EXPECT_EQ(c, (compiler::ops::dense_reference<int8_t, int32_t>(a, w, m, n, k))) << what;
  }
}

const int64_t kOdd[][3] = {{1, 1, 1},    {1, 7, 33},     {7, 1, 1000},   {33, 7, 7},
                           {7, 33, 1},   {1, 1000, 7},   {1000, 33, 7},  {33, 1000, 33},
                           {17, 40, 2500}, {37, 1, 100}, {2660, 1, 1049}, {5, 1, 32},
                           {1, 1000, 2048}, {1, 37, 100}};

TEST(CpuDispatch, DispatchedDenseComputesTheReferenceOnOddShapes) {
  if (compiler::codegen::host_isa().key() == "generic") GTEST_SKIP() << "no table for this host";
  for (const auto& s : kOdd)
    for (DType dt : {DType::kFloat32, DType::kInt8})
      for (int threads : {1, 2}) expect_dense_reference(s[0], s[1], s[2], dt, threads);
}

TEST(CpuDispatch, AvxTwoCapComputesTheReferenceAndKeysTheAvxTwoTable) {
  if (!compiler::codegen::host_isa().avx2) GTEST_SKIP() << "the host has no AVX2";
  compiler::codegen::set_cpu_isa("avx2");
  EXPECT_EQ(compiler::codegen::host_isa().key(), "avx2");
  EXPECT_FALSE(compiler::codegen::host_isa().avx512f);
  EXPECT_THAT(compiler::codegen::host_cpu_description(), HasSubstr("capped to avx2"));
  for (const auto& s : {kOdd[1], kOdd[3], kOdd[7], kOdd[9]})
    for (DType dt : {DType::kFloat32, DType::kInt8}) expect_dense_reference(s[0], s[1], s[2], dt, 2);
  compiler::codegen::set_cpu_isa("native");
  EXPECT_THROW(compiler::codegen::set_cpu_isa("sse9"), UserError);
  EXPECT_EQ(compiler::codegen::cpu_isa(), "native");
}

TEST(CpuDispatch, DispatchedConvComputesTheReferenceOnOddShapes) {
  if (compiler::codegen::host_isa().key() == "generic") GTEST_SKIP() << "no table for this host";
  for (const compiler::ops::Conv2dNchw& s :
       {compiler::ops::Conv2dNchw{1, 3, 9, 11, 20, 3, 3, 1, 1},
        compiler::ops::Conv2dNchw{2, 16, 5, 33, 40, 1, 1, 1, 0},
        compiler::ops::Conv2dNchw{1, 24, 15, 15, 16, 3, 3, 2, 1}}) {
    auto d = dispatch_conv2d(s, "float32", 1);
    ASSERT_TRUE(d.has_value());
    rt::cpu::CpuKernel kernel(cpu::conv2d(s, DType::kFloat32, d->schedule));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(static_cast<size_t>(s.n * s.c * s.h * s.w)),
        w(static_cast<size_t>(s.o * s.c * s.kh * s.kw));
    for (float& v : x) v = u(rng);
    for (float& v : w) v = u(rng);
    const int64_t cb = cpu::conv_in_block(s.c), nob = (s.o + 15) / 16;
    auto xb = cpu::to_blocked(x, s.n, s.c, s.h, s.w, cb);
    auto wb = cpu::pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, cpu::kConvOutBlock);
    std::vector<float> yb(static_cast<size_t>(s.n * nob * s.oh() * s.ow() * 16));
    kernel.run({xb.data(), wb.data(), yb.data()});
    const auto y = cpu::from_blocked(yb, s.n, s.o, s.oh(), s.ow(), cpu::kConvOutBlock);
    const auto ref = compiler::ops::conv2d_reference<float, double>(x, w, s);
    ASSERT_EQ(y.size(), ref.size());
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], ref[i], 1e-4 * static_cast<double>(s.c * s.kh * s.kw)) << d->kernel << " " << i;
  }
}

// int8 convolutions take byte quads where the host kind has AVX-512 VNNI and int16 pairs
// elsewhere, whatever a table entry says (a table measured before quads names pairs).
TEST(CpuDispatch, Int8ConvolutionsTakeByteQuadsOnVnniHostKindsOnly) {
  const compiler::ops::Conv2dNchw s{1, 64, 14, 14, 64, 3, 3, 1, 1};
  const cpu::ConvSchedule pairs;
  EXPECT_EQ(fit_conv2d(pairs, s, "int8", "avx512-vnni").k_pack, 4);
  EXPECT_EQ(fit_conv2d(pairs, s, "int8", "avx2").k_pack, 2);
  EXPECT_EQ(fit_conv2d(pairs, s, "float32", "avx512-vnni").k_pack, 2);
  for (const CpuMicroKernel& k : micro_kernels("avx512-vnni", "conv2d", "int8"))
    EXPECT_EQ(conv_schedule_of(k.knobs).k_pack, 4) << k.name;
  for (const CpuMicroKernel& k : micro_kernels("avx2", "conv2d", "int8"))
    EXPECT_EQ(conv_schedule_of(k.knobs).k_pack, 2) << k.name;
  // ci_unroll is halved until it divides the block's quads: 8 channels are 2 quads.
  cpu::ConvSchedule unrolled;
  unrolled.ci_unroll = 4;
  EXPECT_EQ(fit_conv2d(unrolled, {1, 8, 14, 14, 16, 3, 3, 1, 1}, "int8", "avx512-vnni").ci_unroll,
            2);
}

// The dispatched int8 convolution (quads on this host when it has VNNI) is the reference
// exactly, on the full int8 range.
TEST(CpuDispatch, DispatchedInt8ConvIsTheReferenceExactly) {
  if (compiler::codegen::host_isa().key() == "generic") GTEST_SKIP() << "no table for this host";
  for (const compiler::ops::Conv2dNchw& s :
       {compiler::ops::Conv2dNchw{1, 3, 9, 11, 20, 3, 3, 1, 1},
        compiler::ops::Conv2dNchw{2, 16, 5, 33, 40, 1, 1, 1, 0},
        compiler::ops::Conv2dNchw{1, 24, 15, 15, 16, 3, 3, 2, 1}}) {
    auto d = dispatch_conv2d(s, "int8", 1);
    ASSERT_TRUE(d.has_value());
    rt::cpu::CpuKernel kernel(cpu::conv2d(s, DType::kInt8, d->schedule));
    std::mt19937 rng(4);
    std::uniform_int_distribution<int> u(-128, 127);
    std::vector<int8_t> x(static_cast<size_t>(s.n * s.c * s.h * s.w)),
        w(static_cast<size_t>(s.o * s.c * s.kh * s.kw));
    for (int8_t& v : x) v = static_cast<int8_t>(u(rng));
    for (int8_t& v : w) v = static_cast<int8_t>(u(rng));
    const int64_t cb = cpu::conv_in_block(s.c), nob = (s.o + 15) / 16;
    auto xb = cpu::to_blocked(x, s.n, s.c, s.h, s.w, cb);
    auto wp = cpu::pack_int8_conv_weights(
        cpu::pack_conv_weights(w, s.o, s.c, s.kh, s.kw, cb, cpu::kConvOutBlock),
        d->schedule.k_pack, nob, s.c / cb, s.kh, s.kw, cb, cpu::kConvOutBlock);
    std::vector<int32_t> yb(static_cast<size_t>(s.n * nob * s.oh() * s.ow() * 16));
    kernel.run({xb.data(), wp.data(), yb.data()});
    EXPECT_EQ(cpu::from_blocked(yb, s.n, s.o, s.oh(), s.ow(), cpu::kConvOutBlock),
              (compiler::ops::conv2d_reference<int8_t, int32_t>(x, w, s)))
        << d->kernel;
  }
}

}  // namespace
}  // namespace weft::rt::tune
