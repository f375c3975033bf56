// End to end through the compiler: the packed dense operator, scheduled the VTA way, lowered
// by the accelerator passes (detect_dma, allocate_onchip, fold_uops, emit_accel with token
// planning), built into an instruction stream, verified, and run on the functional and cycle
// engines through the driver; the output must equal a plain reference on every configuration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/pipeline.h"
#include "driver/device.h"
#include "driver/launch.h"
#include "runtime/stream/compiled_program.h"
#include "tests/compiler/packed_dense.h"

namespace weft::rt {
namespace {

using compiler::te::GemmIntrinsic;
using compiler::te::PackedDense;

struct Case {
  const char* config;
  int64_t mo, no, ko, tm, tn, tk;
};

class CompiledDense : public ::testing::TestWithParam<Case> {};

// Compiles, runs on both engines, checks the output; returns the cycle engine's cycles.
uint64_t compile_and_run(const Case& c, int64_t vthreads) {
  const isa::Layout& l = isa::layout_for(c.config);
  const GemmIntrinsic g = compiler::te::gemm_intrinsic(l);
  PackedDense d(g, c.mo, c.no, c.ko, c.tm, c.tn, c.tk, /*dma_pragmas=*/true, vthreads);
  const compiler::accel::Program prog = compiler::compile_accel(*d.s, l);

  // DRAM: instructions at 0, then A, W, C (int8 blocks) and the micro-op area, 4 KiB aligned.
  auto align = [](uint64_t v) { return (v + 4095) / 4096 * 4096; };
  const uint64_t a_at = 1 << 20;
  const uint64_t a_bytes = static_cast<uint64_t>(d.a->buffer->elements());
  const uint64_t w_at = align(a_at + a_bytes);
  const uint64_t w_bytes = static_cast<uint64_t>(d.w->buffer->elements());
  const uint64_t c_at = align(w_at + w_bytes);
  const uint64_t c_bytes = static_cast<uint64_t>(d.c->buffer->elements());
  const uint64_t uop_at = align(c_at + c_bytes);

  StreamBuilder b(l);
  append(b, prog,
         {{d.a->buffer.get(), static_cast<int64_t>(a_at) / l.inp_elem_bytes},
          {d.w->buffer.get(), static_cast<int64_t>(w_at) / l.wgt_elem_bytes},
          {d.c->buffer.get(), static_cast<int64_t>(c_at) / l.out_elem_bytes}});
  b.synchronize();
  const Program built = b.build(0, uop_at);
  EXPECT_LT(built.insn_count * 16, a_at);
  std::vector<uint8_t> image(align(uop_at + built.uop_bytes.size()), 0);
  built.place(image);
  std::mt19937 rng(5);
  for (uint64_t i = 0; i < a_bytes; ++i) image[a_at + i] = static_cast<uint8_t>(rng());
  for (uint64_t i = 0; i < w_bytes; ++i) image[w_at + i] = static_cast<uint8_t>(rng());

  // Reference: C = A . W^T in int32, stored as the low 8 bits (STORE narrows).
  const int64_t m = c.mo * g.batch, n = c.no * g.block_out, k = c.ko * g.block_in;
  auto A = [&](int64_t i, int64_t kk) {
    return static_cast<int8_t>(
        image[a_at + ((i / g.batch * c.ko + kk / g.block_in) * g.batch + i % g.batch) * g.block_in +
              kk % g.block_in]);
  };
  auto W = [&](int64_t j, int64_t kk) {
    return static_cast<int8_t>(
        image[w_at +
              ((j / g.block_out * c.ko + kk / g.block_in) * g.block_out + j % g.block_out) *
                  g.block_in +
              kk % g.block_in]);
  };
  std::vector<uint8_t> expect(c_bytes);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t s = 0;
      for (int64_t kk = 0; kk < k; ++kk) s += A(i, kk) * W(j, kk);
      expect[((i / g.batch * c.no + j / g.block_out) * g.batch + i % g.batch) * g.block_out +
             j % g.block_out] = static_cast<uint8_t>(s);
    }
  }

  uint64_t cycles = 0;
  for (const char* engine : {"functional", "cycle"}) {
    SCOPED_TRACE(engine);
    driver::DeviceOptions o;
    o.layout = &l;
    o.platform = &isa::find_platform("sim");
    o.memory_bytes = image.size();
    auto dev = driver::open_device(engine, o);
    EXPECT_EQ(dev->alloc(image.size()), 0u);
    dev->copy_to_device(0, image.data(), image.size());
    cycles = driver::run(*dev, 0, built.insn_count, std::chrono::seconds(60)).cycles;
    std::vector<uint8_t> out(image.size());
    dev->copy_from_device(0, out.data(), out.size());
    EXPECT_TRUE(
        std::equal(expect.begin(), expect.end(), out.begin() + static_cast<ptrdiff_t>(c_at)));
  }
  return cycles;
}

TEST_P(CompiledDense, MatchesTheReferenceOnBothEngines) { compile_and_run(GetParam(), 1); }

// Two virtual threads: per-thread tiles and planned tokens let one thread's loads run under
// the other's compute, so the same work takes fewer cycles.
TEST_P(CompiledDense, TwoVirtualThreadsAreCorrectAndFaster) {
  const uint64_t one = compile_and_run(GetParam(), 1);
  const uint64_t two = compile_and_run(GetParam(), 2);
  EXPECT_LT(two, one);
  RecordProperty("cycles_1_thread", std::to_string(one));
  RecordProperty("cycles_2_threads", std::to_string(two));
}

INSTANTIATE_TEST_SUITE_P(Configs, CompiledDense,
                         ::testing::Values(Case{"gemm8x8", 4, 4, 4, 1, 2, 2},
                                           Case{"vta", 4, 3, 6, 1, 3, 3},
                                           Case{"tiny", 6, 4, 8, 1, 2, 4}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(i.param.config);
                         });

}  // namespace
}  // namespace weft::rt
