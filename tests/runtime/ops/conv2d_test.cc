// conv2d end to end: kernel sizes, strides, zero padding through the DMA pads, channels and
// batch that are not multiples of the block, the bias/shift/clip epilogue on the ALU, 1 and 2
// virtual threads along output channels and rows, on the functional and cycle engines, each
// bit-exact against the CPU reference.
#include "runtime/ops/conv2d.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/ops/conv2d_floor.h"
#include "compiler/passes/bias_gemm.h"
#include "driver/device.h"
#include "hardware/isa/errors.h"
#include "runtime/bench/conv2d_study.h"

namespace weft::rt {
namespace {

using compiler::ops::Conv2dEpilogue;
using compiler::ops::Conv2dKnobs;
using compiler::ops::Conv2dShape;

struct Case {
  const char* config;
  Conv2dShape shape;
  int64_t vthreads;
};

uint64_t run_and_check(const isa::Layout& l, const Conv2dBuild& b, const char* engine,
                       const Conv2dEpilogue& e) {
  const Conv2dData d = random_conv2d_data(b.op.shape, 3);
  driver::DeviceOptions o;
  o.layout = &l;
  o.platform = &isa::find_platform("sim");
  o.memory_bytes = b.placed.image_bytes;
  auto dev = driver::open_device(engine, o);
  const auto out = run_conv2d(*dev, b, d, std::chrono::seconds(60));
  EXPECT_EQ(out, conv2d_reference(b.op.shape, d, e)) << engine << " " << b.op.knobs.describe();
  const auto details = dev->run_details();
  return details.contains("cycles") ? details["cycles"].get<uint64_t>() : 0;
}

class Conv2dOp : public ::testing::TestWithParam<Case> {};

TEST_P(Conv2dOp, MatchesTheReferenceOnBothEngines) {
  const Case& c = GetParam();
  const isa::Layout& l = isa::layout_for(c.config);
  const Conv2dEpilogue e{4, true, true};
  const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), c.shape,
                                                         c.vthreads, 1)
                            .at(0);
  const Conv2dBuild b = build_conv2d(l, c.shape, k, e);
  for (const char* engine : {"functional", "cycle"}) run_and_check(l, b, engine, e);
}

std::vector<Case> cases() {
  // N, H, W, IC, OC, K, stride, pad
  const Conv2dShape shapes[] = {{1, 8, 8, 16, 16, 3, 1, 1},  {2, 9, 7, 5, 20, 3, 2, 1},
                                {1, 6, 6, 16, 32, 1, 1, 0},  {1, 11, 11, 3, 16, 5, 2, 2},
                                {3, 14, 14, 32, 16, 3, 1, 1}, {1, 7, 7, 8, 8, 7, 2, 3},
                                {1, 8, 8, 24, 24, 1, 2, 0},  {1, 5, 5, 16, 16, 3, 1, 0}};
  std::vector<Case> v;
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    int t = 0;
    for (const Conv2dShape& s : shapes) v.push_back({config, s, int64_t{1} + (t++ % 2)});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dOp, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           const Conv2dShape& s = i.param.shape;
                           return std::string(i.param.config) + "_n" + std::to_string(s.n) + "_" +
                                  std::to_string(s.h) + "x" + std::to_string(s.w) + "_ic" +
                                  std::to_string(s.ic) + "_oc" + std::to_string(s.oc) + "_k" +
                                  std::to_string(s.k) + "s" + std::to_string(s.stride) + "p" +
                                  std::to_string(s.pad) + "_vt" + std::to_string(i.param.vthreads);
                         });

// Every knob setting in a sweep is correct, including both thread axes and tiles that do not
// divide the output (rounded-up rows computed on padding and dropped).
TEST(Conv2dKnobSweep, ManyTilingsAreCorrect) {
  const isa::Layout& l = isa::layout_for("vta");
  const Conv2dShape s{1, 10, 10, 32, 64, 3, 1, 1};
  const Conv2dEpilogue e{5, true, false};
  for (const Conv2dKnobs& k : {Conv2dKnobs{3, 4, 1, 1, 2, 'h'}, Conv2dKnobs{10, 10, 2, 2, 2, 'o'},
                               Conv2dKnobs{4, 3, 2, 1, 1, 'o'}, Conv2dKnobs{1, 10, 1, 4, 2, 'o'}}) {
    run_and_check(l, build_conv2d(l, s, k, e), "cycle", e);
  }
}

// A dense layer whose row count is a prime (ViT's 197 tokens): every row goes through one
// output tile (tile_n = 197), the reduction streamed a few input blocks at a time, so each
// weight block is loaded once; each step's input is one LOAD of all its rows (a plain copy:
// a dense layer reads no padding). Exact on both engines and within 10% of the ISA floor (it
// was 20 times the floor when each row reloaded the weights).
TEST(Conv2dDense, APrimeRowCountStreamsEveryRowPastOneWeightTile) {
  const isa::Layout& l = isa::layout_for("vta");
  const Conv2dShape s{197, 1, 1, 768, 256, 1, 1, 0};
  const Conv2dEpilogue e{6, true, false};
  const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, 2, 1).at(0);
  EXPECT_EQ(k.tile_n, 197) << k.describe();
  const Conv2dBuild b = build_conv2d(l, s, k, e);
  int inp_loads = 0;
  for (const auto& op : b.program.ops) {
    if (op.kind != compiler::accel::Op::Kind::kLoad || op.mem != isa::MemType::kInp) continue;
    ++inp_loads;
    EXPECT_EQ(op.y_size * op.x_size, 197 * k.tile_ic);
  }
  EXPECT_EQ(inp_loads, 48 / k.tile_ic * (16 / k.tile_oc));
  run_and_check(l, b, "functional", e);
  const uint64_t cycles = run_and_check(l, b, "cycle", e);
  const auto floor = compiler::ops::conv2d_floor(l, s, e, 16);
  EXPECT_LE(cycles, floor.cycles * 11 / 10) << "floor " << floor.cycles;
}

TEST(Conv2dLatencyHiding, TwoThreadsAreFaster) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const Conv2dShape s{8, 14, 14, 32, 32, 3, 1, 1};
  const Conv2dEpilogue e{};
  const uint64_t one = run_and_check(l, build_conv2d(l, s, Conv2dKnobs{7, 14, 1, 2, 1, 'o'}, e),
                                     "cycle", e);
  const uint64_t two = run_and_check(l, build_conv2d(l, s, Conv2dKnobs{7, 14, 1, 2, 2, 'o'}, e),
                                     "cycle", e);
  EXPECT_LT(two, one);
}

TEST(Conv2dErrors, BadShapesAndKnobsAreRejectedBeforeCodegen) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  auto msg = [&](const Conv2dShape& s, const Conv2dKnobs& k) {
    try {
      build_conv2d(l, s, k, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  using ::testing::HasSubstr;
  EXPECT_THAT(msg({1, 8, 8, 16, 16, 3, 0, 1}, {}), HasSubstr("stride = 0 is out of range"));
  EXPECT_THAT(msg({1, 2, 2, 16, 16, 5, 1, 0}, {}), HasSubstr("kernel is larger than the padded"));
  EXPECT_THAT(msg({1, 56, 56, 64, 64, 3, 1, 1}, {56, 56, 8, 8, 1, 'o'}),
              HasSubstr("buffer of gemm8x8 holds"));
  EXPECT_THAT(msg({1, 8, 8, 16, 16, 3, 1, 1}, {1, 1, 1, 1, 2, 'w'}), HasSubstr("vthread_axis"));
  EXPECT_THAT(msg({1, 8, 8, 16, 16, 3, 1, 1}, {9, 1, 1, 1, 1, 'o'}),
              HasSubstr("larger than the 8x8 output"));
}

// C11 (14x14, 1x1, stride 2) has 7 output rows; one-row tiles on two threads along the rows
// round them up to 8, and the last tile's only input row (14) lies beyond the input. Such a
// tile is all padding, so the knobs are refused before code generation (emission used to fail
// on it deep inside a search) and the chooser never proposes them.
TEST(Conv2dErrors, ATileOfNothingButPaddingIsRefusedAndNeverProposed) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const Conv2dShape c11{8, 14, 14, 256, 512, 1, 2, 0};
  // Columns: a padding of 2 around a 1x1 kernel puts the last output column's input at 5, past
  // the 4 input columns.
  const Conv2dShape wide_pad{1, 8, 4, 8, 8, 1, 1, 2};
  const std::pair<Conv2dShape, Conv2dKnobs> refused[] = {{c11, {1, 7, 4, 16, 2, 'h'}},
                                                         {wide_pad, {4, 3, 1, 1, 1, 'o'}}};
  for (const auto& [shape, k] : refused) {
    try {
      compiler::ops::check_conv2d_knobs(l, shape, k);
      ADD_FAILURE() << "accepted " << k.describe();
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("lie entirely in the padding beyond the input"));
    }
  }
  // Every candidate of C11's geometry (with few channels, to compile quickly) can be emitted.
  const Conv2dShape small{1, 14, 14, 16, 32, 1, 2, 0};
  for (int64_t threads : {1, 2}) {
    for (const Conv2dKnobs& k :
         compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), small, threads, 1000)) {
      EXPECT_NO_THROW(build_conv2d(l, small, k, {})) << k.describe();
    }
  }
}

// A candidate that cannot be compiled is recorded with its error and skipped; the search goes
// on with the others. Only when none works is the search itself an error.
TEST(Conv2dKnobSearch, ARejectedCandidateIsRecordedAndSkipped) {
  const isa::Layout& l = isa::layout_for("gemm8x8");
  const isa::Platform& p = isa::find_platform("sim");
  const Conv2dShape s{1, 8, 8, 16, 16, 3, 1, 1};
  const Conv2dKnobs too_big{8, 8, 2, 2, 64, 'o'}, good{4, 8, 2, 2, 1, 'o'}, also{8, 4, 2, 2, 1, 'o'};
  std::vector<std::string> notes;
  const KnobSearch r =
      measure_knobs(l, p, s, {too_big, good, also}, [&](const std::string& m) { notes.push_back(m); });
  EXPECT_EQ(r.candidates, 3u);
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_EQ(r.rejected[0].knobs.vthreads, 64);
  EXPECT_THAT(r.rejected[0].error, ::testing::HasSubstr("buffer of gemm8x8 holds"));
  EXPECT_EQ(r.best.vthreads, 1);
  EXPECT_GT(r.best_cycles, 0u);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_THAT(notes[0], ::testing::HasSubstr("1/3"));
  EXPECT_THAT(notes[0], ::testing::HasSubstr("rejected"));
  const auto j = r.to_json();
  EXPECT_EQ(j["rejected"], 1);
  EXPECT_EQ(j["measured"], 2);
  try {
    measure_knobs(l, p, s, {too_big, too_big});
    ADD_FAILURE() << "a search with no valid candidate succeeded";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("all 2 candidates"));
  }
}

}  // namespace
}  // namespace weft::rt

namespace weft::rt {
namespace {

// The shapes every epilogue test below runs: a 3x3 stage-like layer, odd sizes with stride 2
// and channels that fill no block, and a strided 1x1 with two output blocks.
const Conv2dShape kEpilogueShapes[] = {{1, 8, 8, 16, 16, 3, 1, 1}, {2, 9, 7, 5, 20, 3, 2, 1},
                                       {1, 6, 6, 16, 32, 1, 2, 0}};

// The graph layer's fused epilogue: bias before the shift (at the accumulator's scale) and an
// int8 residual added after it, loaded into the accumulator with ACC_8BIT; with and without
// ReLU, 1 and 2 virtual threads, every configuration, both engines.
TEST(Conv2dResidual, BiasFirstAndResidualMatchTheReference) {
  const auto& shapes = kEpilogueShapes;
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    int t = 0;
    for (const Conv2dShape& s : shapes) {
      Conv2dEpilogue e{5, true, (t % 2) == 0, true, true};
      const int64_t vt = 1 + (t++ % 2);
      const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, vt,
                                                             1, true)
                                .at(0);
      const Conv2dBuild b = build_conv2d(l, s, k, e);
      for (const char* engine : {"functional", "cycle"}) run_and_check(l, b, engine, e);
    }
  }
}

// The same with the residual as the accumulator's initial value (compiler/passes/
// residual_init.h): every residual ADD goes (one per output tile and thread), the results stay
// exact on both engines, and the run is faster.
TEST(Conv2dResidual, ResidualInitDropsTheAddsAndMatchesTheReference) {
  const Conv2dShape shapes[] = {{1, 8, 8, 16, 16, 3, 1, 1}, {2, 9, 7, 5, 20, 3, 2, 1},
                                {1, 6, 6, 16, 32, 1, 2, 0}, {8, 7, 7, 16, 32, 3, 1, 1}};
  auto register_adds = [](const compiler::accel::Program& p) {
    int n = 0;
    for (const auto& op : p.ops)
      n += op.kind == compiler::accel::Op::Kind::kAlu && op.alu_op == isa::AluOp::kAdd && !op.use_imm;
    return n;
  };
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    int t = 0;
    for (const Conv2dShape& s : shapes) {
      Conv2dEpilogue e{t == 3 ? 20 : 5, true, (t % 2) == 0, true, true};
      const int64_t vt = 1 + (t++ % 2);
      const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, vt,
                                                             1, true)
                                .at(0);
      const Conv2dBuild plain = build_conv2d(l, s, k, e);
      compiler::ops::Conv2d op = compiler::ops::make_conv2d(l, s, k, e);
      compiler::PipelineOptions o;  // random_conv2d_data's biases are within [-128, 127]
      o.residual_init =
          compiler::ResidualInitOption{op.residual->buffer, s.ic * s.k * s.k, 128, e.shift};
      const Conv2dBuild b = build_conv2d(l, std::move(op), {}, o);
      SCOPED_TRACE(std::string(config) + " " + s.describe() + " " + k.describe());
      int residual_loads = 0;
      for (const auto& op : plain.program.ops)
        residual_loads +=
            op.kind == compiler::accel::Op::Kind::kLoad && op.mem == isa::MemType::kAcc8Bit;
      EXPECT_GT(residual_loads, 0);
      EXPECT_EQ(register_adds(b.program), register_adds(plain.program) - residual_loads);
      run_and_check(l, b, "functional", e);
      EXPECT_LT(run_and_check(l, b, "cycle", e), run_and_check(l, plain, "cycle", e));
    }
  }
}

// The bias through the GEMM (compiler/passes/bias_gemm.h): the constant block and the bias
// pieces in the tensors the operator's image reserves for them, every register ADD of the bias
// replaced by a GEMM, exact on both engines (with and without the residual rewrite), faster.
TEST(Conv2dBiasGemm, BiasAddsBecomeGemmsAndMatchTheReference) {
  const Conv2dShape shapes[] = {{1, 8, 8, 16, 16, 3, 1, 1}, {2, 9, 7, 5, 20, 3, 2, 1},
                                {1, 6, 6, 16, 32, 1, 2, 0}, {8, 7, 7, 16, 32, 3, 1, 1}};
  auto count = [](const compiler::accel::Program& p, bool gemm) {
    int n = 0;
    for (const auto& op : p.ops)
      n += gemm ? op.kind == compiler::accel::Op::Kind::kGemm && !op.reset
                : op.kind == compiler::accel::Op::Kind::kAlu && op.alu_op == isa::AluOp::kAdd &&
                      !op.use_imm;
    return n;
  };
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    int t = 0;
    for (const Conv2dShape& s : shapes) {
      const bool residual = t % 2 == 1;
      Conv2dEpilogue e{5, true, (t % 2) == 0, true, residual};
      const int64_t vt = 1 + (t++ % 2);
      const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, vt,
                                                             1, residual)
                                .at(0);
      SCOPED_TRACE(std::string(config) + " " + s.describe() + " " + k.describe());
      const Conv2dData d = random_conv2d_data(s, 3);
      std::vector<int8_t> ones, pieces;
      ASSERT_TRUE(compiler::passes::bias_pieces(l, d.bias.data(), s.oc, &ones, &pieces));
      const Conv2dBuild plain = build_conv2d(l, s, k, e);
      const int64_t blocks = plain.op.ocb;
      pieces.resize(static_cast<size_t>(blocks * l.config.block_out() * l.config.block_in()), 0);
      const auto ones_t = compiler::ir::make_buffer("ones", compiler::ir::DType::kInt8,
                                                    {l.config.batch(), l.config.block_in()});
      const auto w_t = compiler::ir::make_buffer(
          "bias_w", compiler::ir::DType::kInt8, {blocks, l.config.block_out(), l.config.block_in()});
      compiler::ops::Conv2d op = compiler::ops::make_conv2d(l, s, k, e);
      compiler::PipelineOptions o;
      o.bias_gemm = compiler::BiasGemmOption{op.bias->buffer, ones_t, w_t, blocks};
      const Conv2dBuild b = build_conv2d(l, std::move(op), {}, o,
                                         {{{w_t, pieces.size(), l.wgt_elem_bytes},
                                           std::vector<uint8_t>(pieces.begin(), pieces.end())},
                                          {{ones_t, ones.size(), l.inp_elem_bytes},
                                           std::vector<uint8_t>(ones.begin(), ones.end())}});
      const int rewritten = count(plain.program, false) - count(b.program, false);
      EXPECT_GT(rewritten, 0);
      EXPECT_EQ(count(b.program, false), count(plain.program, false) - rewritten);
      EXPECT_EQ(count(b.program, true), count(plain.program, true) + rewritten);
      run_and_check(l, b, "functional", e);
      EXPECT_LT(run_and_check(l, b, "cycle", e), run_and_check(l, plain, "cycle", e));
    }
  }
}

// GEMM micro-ops on DMA padding dropped (compiler/passes/skip_pad_taps.h): padded shapes lose
// GEMM iterations and stay exact on both engines, every configuration, with the residual.
TEST(Conv2dSkipPadTaps, PaddedShapesLoseIterationsAndMatchTheReference) {
  const Conv2dShape shapes[] = {{1, 8, 8, 16, 16, 3, 1, 1}, {2, 9, 7, 5, 20, 3, 2, 1},
                                {8, 7, 7, 16, 32, 3, 1, 1}};
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    int t = 0;
    for (const Conv2dShape& s : shapes) {
      Conv2dEpilogue e{5, true, (t % 2) == 0, true, true};
      const int64_t vt = 1 + (t++ % 2);
      const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, vt,
                                                             1, true)
                                .at(0);
      SCOPED_TRACE(std::string(config) + " " + s.describe() + " " + k.describe());
      compiler::PipelineOptions o;
      o.skip_pad_taps = true;
      const Conv2dBuild b = build_conv2d(l, s, k, e, {}, o);
      auto iterations = [](const compiler::accel::Program& p) {
        int64_t n = 0;
        for (const auto& op : p.ops)
          if (op.kind == compiler::accel::Op::Kind::kGemm)
            n += static_cast<int64_t>(op.uops.size()) * op.iter_out * op.iter_in;
        return n;
      };
      EXPECT_LT(iterations(b.program), iterations(build_conv2d(l, s, k, e).program));
      run_and_check(l, b, "functional", e);
      run_and_check(l, b, "cycle", e);
    }
  }
}

}  // namespace
}  // namespace weft::rt

namespace weft::rt {
namespace {

// Per-channel requantization (per-channel weights): each output channel shifts by the common
// immediate part plus its own amount 0..15 from a shift tile loaded into the accumulator and
// applied by one SHR with a register operand; alone, and with bias first and a residual; 1 and
// 2 virtual threads; every configuration, both engines. The common parts 0, 4 and 16 cover no
// immediate SHR, one, and two (16 = 15 + 1) before the register one.
TEST(Conv2dPerChannel, ChannelShiftsMatchTheReference) {
  const auto& shapes = kEpilogueShapes;
  const int common[] = {0, 4, 16};
  for (const char* config : {"gemm8x8", "vta", "tiny"}) {
    const isa::Layout& l = isa::layout_for(config);
    int t = 0;
    for (const Conv2dShape& s : shapes) {
      const bool fused = t % 2 == 1;
      Conv2dEpilogue e{common[t % 3], true, t % 2 == 0, fused, fused};
      e.channel_shifts = true;
      const int64_t vt = 1 + (t++ % 2);
      const Conv2dKnobs k = compiler::ops::conv2d_candidates(l, isa::find_platform("sim"), s, vt,
                                                             1, e.residual, true)
                                .at(0);
      const Conv2dBuild b = build_conv2d(l, s, k, e);
      for (const char* engine : {"functional", "cycle"}) run_and_check(l, b, engine, e);
    }
  }
}

// The shift tile costs the accumulator tile_oc blocks per thread: a tiling that fills the
// accumulator with the bias alone is refused with the shift tile, naming the buffer.
TEST(Conv2dPerChannel, TheShiftTileCountsInTheAccumulator) {
  const isa::Layout& l = isa::layout_for("tiny");
  ASSERT_EQ(l.acc_depth, 256);
  const Conv2dShape s{1, 64, 64, 4, 4, 1, 1, 0};
  // 15 x 17 output blocks and one bias block fill tiny's 256 accumulator blocks exactly.
  const Conv2dKnobs k{15, 17, 1, 1, 1, 'o'};
  EXPECT_NO_THROW(compiler::ops::check_conv2d_knobs(l, s, k));
  EXPECT_THAT([&] { compiler::ops::check_conv2d_knobs(l, s, k, false, true); },
              ::testing::ThrowsMessage<UserError>(::testing::HasSubstr("the ACC tiles need")));
}

}  // namespace
}  // namespace weft::rt
