// The accelerator pipeline's one list (compiler/pipeline.h): its steps in order, the program
// rewrites as options (all off: the plain pipeline), each rewrite before and after through the
// pipeline on a small conv2d (the whole printed program where it is small), the observers
// seeing every pass and every program step that ran, and residual_init's legality check
// keeping it out where the sums could wrap.
#include <gtest/gtest.h>

#include <map>

#include "compiler/accel/printer.h"
#include "compiler/ops/conv2d.h"
#include "compiler/pipeline.h"

namespace weft::compiler {
namespace {

// A 3x3 conv over a 4x4 image, 16 channels in and out on `vta`: one output tile, one thread.
// vta's hardware with the store_requant option.
const char* const kVtaRq = WEFT_SOURCE_DIR "/examples/configs/vta_rq.json";

ops::Conv2d small_conv(bool residual, const std::string& config = "vta") {
  const isa::Layout& l = isa::layout_for(config);
  ops::Conv2dEpilogue e;
  e.shift = 5;
  e.bias_first = true;
  e.residual = residual;
  return ops::make_conv2d(l, {1, 4, 4, 16, 16, 3, 1, 1}, {4, 4, 1, 1, 1, 'o'}, e);
}

// The program after each program step of one compilation.
struct Steps {
  std::vector<std::string> names;
  std::map<std::string, accel::Program> after;
  std::string text(const std::string& step) const { return accel::to_string(after.at(step)); }
};

Steps compile(ops::Conv2d& op, const PipelineOptions& o, const std::string& config = "vta") {
  Steps s;
  compile_accel(*op.schedule, isa::layout_for(config), o, {},
                [&](const std::string& step, const accel::Program& p) {
                  s.names.push_back(step);
                  s.after[step] = p;
                });
  return s;
}

// Operations of a kind (and ALU operation, GEMM reset flag) in a program.
int count(const accel::Program& p, accel::Op::Kind kind, isa::AluOp alu = isa::AluOp::kAdd,
          bool reset = false) {
  int n = 0;
  for (const accel::Op& op : p.ops)
    n += op.kind == kind && (kind != accel::Op::Kind::kAlu || (op.alu_op == alu && !op.use_imm)) &&
         (kind != accel::Op::Kind::kGemm || op.reset == reset);
  return n;
}

int64_t gemm_iterations(const accel::Program& p) {
  int64_t n = 0;
  for (const accel::Op& op : p.ops)
    if (op.kind == accel::Op::Kind::kGemm && !op.reset)
      n += static_cast<int64_t>(op.uops.size()) * op.iter_out * op.iter_in;
  return n;
}

int loads_of(const accel::Program& p, const ir::Buffer& t) {
  int n = 0;
  for (const accel::Op& op : p.ops) n += op.kind == accel::Op::Kind::kLoad && op.tensor == t;
  return n;
}

TEST(AccelPipeline, OneListOfStepsInOrder) {
  std::vector<std::string> all;
  for (const PipelineStep& s : accel_pipeline_steps()) all.push_back(s.name);
  EXPECT_EQ(all, (std::vector<std::string>{"lower", "lower_alu", "detect_dma", "expand_vthreads",
                                           "allocate_onchip", "fold_uops", "assign_queues",
                                           "emit_accel", "residual_init", "bias_gemm",
                                           "store_requant", "skip_pad_taps", "plan_tokens"}));
  EXPECT_EQ(accel_pass_names().size(), 7u);
  EXPECT_EQ(accel_program_step_names(),
            (std::vector<std::string>{"emit_accel", "residual_init", "bias_gemm", "store_requant",
                                      "skip_pad_taps", "plan_tokens"}));
}

TEST(AccelPipeline, NoRewritesIsThePlainPipeline) {
  ops::Conv2d a = small_conv(true), b = small_conv(true);
  std::vector<std::string> passes;
  const accel::Program plain =
      compile_accel(*a.schedule, isa::layout_for("vta"),
                    [&](const std::string& p, const ir::Stmt&) { passes.push_back(p); });
  EXPECT_EQ(passes, accel_pass_names());
  const Steps s = compile(b, {});
  EXPECT_EQ(s.names, (std::vector<std::string>{"emit_accel", "plan_tokens"}));
  EXPECT_EQ(s.text("plan_tokens"), accel::to_string(plain));
}

using Kind = accel::Op::Kind;

// residual_init: the residual's register ADD and the tile's reset go, a left shift comes.
TEST(AccelPipeline, ResidualInitBeforeAfter) {
  ops::Conv2d op = small_conv(true);
  PipelineOptions o;
  o.residual_init = ResidualInitOption{op.residual->buffer, 16 * 9, 100, 5};
  const Steps s = compile(op, o);
  EXPECT_EQ(s.names, (std::vector<std::string>{"emit_accel", "residual_init", "plan_tokens"}));
  const accel::Program &before = s.after.at("emit_accel"), &after = s.after.at("residual_init");
  EXPECT_EQ(count(after, Kind::kAlu), count(before, Kind::kAlu) - 1);
  EXPECT_EQ(count(after, Kind::kGemm, {}, true), count(before, Kind::kGemm, {}, true) - 1);
  EXPECT_NE(s.text("residual_init").find("ALU SHR imm -5"), std::string::npos)
      << s.text("residual_init");
  EXPECT_EQ(s.text("emit_accel").find("ALU SHR imm -5"), std::string::npos);
  EXPECT_EQ(loads_of(after, op.residual->buffer), loads_of(before, op.residual->buffer));
}

// Its legality check keeps it out where r * 2^shift + sum + bias could wrap: the plain program.
TEST(AccelPipeline, ResidualInitLeftOutWhereItCouldWrap) {
  ops::Conv2d op = small_conv(true), plain = small_conv(true);
  PipelineOptions o;
  o.residual_init = ResidualInitOption{op.residual->buffer, 16 * 9, int64_t{1} << 31, 5};
  const Steps s = compile(op, o);
  EXPECT_EQ(s.names, (std::vector<std::string>{"emit_accel", "plan_tokens"}));
  EXPECT_EQ(s.text("plan_tokens"), compile(plain, {}).text("plan_tokens"));
}

// bias_gemm: the bias tile's LOAD ACC and register ADD become a GEMM against the constant block,
// whose two loads (the block and the bias weights) come first.
TEST(AccelPipeline, BiasGemmBeforeAfter) {
  ops::Conv2d op = small_conv(false);
  PipelineOptions o;
  const auto ones = ir::make_buffer("ones", ir::DType::kInt8, {1, 16});
  const auto w = ir::make_buffer("bias_w", ir::DType::kInt8, {op.ocb, 16, 16});
  o.bias_gemm = BiasGemmOption{op.bias->buffer, ones, w, op.ocb};
  const Steps s = compile(op, o);
  EXPECT_EQ(s.names, (std::vector<std::string>{"emit_accel", "bias_gemm", "plan_tokens"}));
  const accel::Program &before = s.after.at("emit_accel"), &after = s.after.at("bias_gemm");
  EXPECT_EQ(loads_of(before, op.bias->buffer), 1);
  EXPECT_EQ(loads_of(after, op.bias->buffer), 0);
  EXPECT_EQ(loads_of(after, ones), 1);
  EXPECT_EQ(loads_of(after, w), 1);
  EXPECT_EQ(count(after, Kind::kAlu), count(before, Kind::kAlu) - 1);
  EXPECT_EQ(count(after, Kind::kGemm), count(before, Kind::kGemm) + 1);
}

// skip_pad_taps: the 3x3 taps on the image's one-pixel border of padding go.
TEST(AccelPipeline, SkipPadTapsBeforeAfter) {
  ops::Conv2d op = small_conv(false);
  PipelineOptions o;
  o.skip_pad_taps = true;
  const Steps s = compile(op, o);
  EXPECT_EQ(s.names, (std::vector<std::string>{"emit_accel", "skip_pad_taps", "plan_tokens"}));
  // 16 output pixels x 9 taps, of which the border pixels' taps on padding (4 corners x 5 taps,
  // 8 edge pixels x 3 taps) go.
  EXPECT_EQ(gemm_iterations(s.after.at("emit_accel")), 16 * 9);
  EXPECT_EQ(gemm_iterations(s.after.at("skip_pad_taps")), 16 * 9 - 4 * 5 - 8 * 3);
}

// All four, in the list's order (store_requant: on a configuration with that option).
TEST(AccelPipeline, AllRewritesInOrder) {
  ops::Conv2d op = small_conv(true, kVtaRq);
  PipelineOptions o;
  o.residual_init = ResidualInitOption{op.residual->buffer, 16 * 9, 100, 5};
  o.bias_gemm =
      BiasGemmOption{op.bias->buffer, ir::make_buffer("ones", ir::DType::kInt8, {1, 16}),
                     ir::make_buffer("bias_w", ir::DType::kInt8, {op.ocb, 16, 16}), op.ocb};
  o.skip_pad_taps = true;
  const Steps s = compile(op, o, kVtaRq);
  EXPECT_EQ(s.names, accel_program_step_names());
  // After residual_init and bias_gemm the epilogue is the shift and the clip: all on the STORE.
  auto clips = [](const accel::Program& p) {
    int n = 0;
    for (const accel::Op& op : p.ops)
      n += op.kind == accel::Op::Kind::kAlu &&
           (op.alu_op == isa::AluOp::kMax || op.alu_op == isa::AluOp::kMin);
    return n;
  };
  EXPECT_GT(clips(s.after.at("bias_gemm")), 0);
  EXPECT_EQ(clips(s.after.at("store_requant")), 0);
  int requantizing = 0;
  for (const accel::Op& op : s.after.at("plan_tokens").ops) requantizing += op.requant.on;
  EXPECT_GT(requantizing, 0);
}

}  // namespace
}  // namespace weft::compiler
