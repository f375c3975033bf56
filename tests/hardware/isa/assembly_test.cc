// The text and JSON-lines assembly: printing, parsing, round trips and located errors.
#include "hardware/isa/assembly.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"

namespace weft::isa {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr const char* kProgram = R"(# a small blocked GEMM
LOAD UOP sram_base=0 dram_base=1024 y_size=1 x_size=4 x_stride=4
LOAD INP sram_base=0 dram_base=128 y_size=1 x_size=2 x_stride=2 y_pad_0=1 x_pad_1=15
LOAD WGT sram_base=0 dram_base=130 y_size=1 x_size=4 x_stride=4 push_next_dep
GEMM reset_reg uop_bgn=0 uop_end=4 iter_out=1 iter_in=1
GEMM pop_prev_dep uop_bgn=0 uop_end=4 iter_out=2 iter_in=3 dst_factor_out=1 wgt_factor_in=2
ALU SHR use_imm imm=-3 uop_bgn=4 uop_end=6 iter_out=1 iter_in=1
ALU MAX uop_bgn=4 uop_end=6 iter_out=1 iter_in=1 src_factor_in=1   # register operand
STORE OUT sram_base=0 dram_base=256 y_size=1 x_size=2 x_stride=2 pop_prev_dep push_prev_dep
FINISH pop_next_dep
)";

TEST(Assembly, TextRoundTripsThroughTheListing) {
  const Layout& l = layout_for("gemm8x8");
  const std::vector<Insn> p = parse_program(l, kProgram, "demo.s");
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[1].y_pad_0, 1);
  EXPECT_EQ(p[1].x_pad_1, 15);
  EXPECT_EQ(p[5].imm, -3);
  EXPECT_EQ(p[5].alu(), AluOp::kShr);
  std::string listing;
  for (size_t i = 0; i < p.size(); ++i) {
    listing += std::to_string(i) + ": " + format_insn(l, p[i]) + "\n";
  }
  EXPECT_EQ(parse_program(l, listing, "listing"), p);
  EXPECT_EQ(format_insn(l, p[8]), "FINISH pop_next_dep");
  EXPECT_EQ(format_insn(l, p[0]),
            "LOAD UOP sram_base=0 dram_base=1024 y_size=1 x_size=4 x_stride=4");
}

TEST(Assembly, JsonLinesRoundTripAndUseVtaFieldNames) {
  const Layout& l = layout_for("vta");
  const std::vector<Insn> p = parse_program(l, kProgram, "demo.s");
  std::string json_lines;
  for (const Insn& i : p) json_lines += insn_to_json(l, i).dump() + "\n";
  EXPECT_EQ(parse_program(l, json_lines, "demo.jsonl"), p);
  const auto j = insn_to_json(l, p[1]);
  EXPECT_EQ(j["opcode"], "LOAD");
  EXPECT_EQ(j["memory_type"], "INP");
  for (const char* k :
       {"pop_prev_dep", "pop_next_dep", "push_prev_dep", "push_next_dep", "sram_base", "dram_base",
        "y_size", "x_size", "x_stride", "y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  const auto a = insn_to_json(l, p[5]);
  EXPECT_EQ(a["alu_opcode"], "SHR");
  EXPECT_EQ(a["imm"], -3);
  for (const char* k : {"reset_reg", "uop_bgn", "uop_end", "iter_out", "iter_in", "dst_factor_out",
                        "dst_factor_in", "src_factor_out", "src_factor_in", "use_imm"}) {
    EXPECT_TRUE(a.contains(k)) << k;
  }
  EXPECT_TRUE(insn_to_json(l, p[4]).contains("wgt_factor_in"));
}

TEST(Assembly, JsonAcceptsNumbersForEnumerations) {
  const Layout& l = layout_for("vta");
  const auto p = parse_program(l, R"({"opcode": 0, "memory_type": 2, "x_size": 1})", "j");
  EXPECT_EQ(p.at(0).mem(), MemType::kInp);
}

TEST(Assembly, ErrorsNameFileLineAndField) {
  const Layout& l = layout_for("gemm8x8");
  EXPECT_THAT([&] { parse_program(l, "\nFINISH\nJUMP x=1\n", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:3: unknown mnemonic 'JUMP'")));
  EXPECT_THAT([&] { parse_program(l, "LOAD INP sram=1", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:1: unknown field 'sram' for MEM")));
  EXPECT_THAT([&] { parse_program(l, "LOAD XYZ", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:1: LOAD needs a memory type")));
  EXPECT_THAT([&] { parse_program(l, "ALU DIV", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:1: ALU needs an operation")));
  EXPECT_THAT([&] { parse_program(l, "GEMM uop_end=abc", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:1: field 'uop_end' has value 'abc'")));
  EXPECT_THAT([&] { parse_program(l, "GEMM iter_out", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:1: field 'iter_out' needs a value")));
  EXPECT_THAT([&] { parse_program(l, "STORE OUT y_pad_0=16", "a.s"); },
              ThrowsMessage<UserError>(HasSubstr("a.s:1: MEM field 'y_pad_0' = 16 does not fit")));
  EXPECT_THAT([&] { parse_program(l, "FINISH\n{\"opcode\": \"LOAD\",", "b.jsonl"); },
              ThrowsMessage<UserError>(HasSubstr("b.jsonl:2: not valid JSON")));
  // A number too large for a double is nlohmann's out_of_range, not a parse_error (fuzz_asm).
  EXPECT_THAT([&] { parse_program(l, R"({"opcode": "GEMM", "uop_end": 1e3000})", "b.jsonl"); },
              ThrowsMessage<UserError>(HasSubstr("b.jsonl:1: not valid JSON")));
  EXPECT_THAT([&] { parse_program(l, R"({"opcode": "GEMM", "imm": 3})", "b.jsonl"); },
              ThrowsMessage<UserError>(HasSubstr("b.jsonl:1: unknown field 'imm' for GEMM")));
  EXPECT_THAT([&] { parse_program(l, R"({"opcode": "STORE"})", "b.jsonl"); },
              ThrowsMessage<UserError>(HasSubstr("needs field 'memory_type'")));
}

TEST(Assembly, NumbersAreDecimalOrHexNeverOctal) {
  const Layout& l = layout_for("gemm8x8");
  const auto p = parse_program(l,
                               "LOAD INP sram_base=010 dram_base=0X1f y_size=08 x_size=0x10\n"
                               "ALU ADD use_imm imm=-010\nALU ADD use_imm imm=-0x10\n",
                               "n.s");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].sram_base, 10);
  EXPECT_EQ(p[0].dram_base, 31);
  EXPECT_EQ(p[0].y_size, 8);
  EXPECT_EQ(p[0].x_size, 16);
  EXPECT_EQ(p[1].imm, -10);
  EXPECT_EQ(p[2].imm, -16);
  EXPECT_EQ(parse_uops(l, "UOP dst=010 src=0x3", "u.s").at(0), (Uop{10, 3, 0}));
  // A minus sign only where negative values are allowed (imm); no '+', no bare "0x".
  EXPECT_THAT([&] { parse_program(l, "LOAD INP x_size=-1", "n.s"); },
              ThrowsMessage<UserError>(HasSubstr(
                  "n.s:1: MEM field 'x_size' = -1 does not fit its 16 bits (range 0..65535)")));
  for (const char* bad : {"+1", "0x", "1e3", "0x-1", " 1", "--1"}) {
    EXPECT_THAT([&] { parse_program(l, std::string("GEMM uop_end=") + bad, "n.s"); },
                ThrowsMessage<UserError>(HasSubstr("n.s:1: field 'uop_end' has value '")))
        << bad;
  }
  EXPECT_THAT([&] { parse_program(l, "LOAD INP dram_base=99999999999999999999", "n.s"); },
              ThrowsMessage<UserError>(HasSubstr("n.s:1: MEM field 'dram_base' = "
                                                 "99999999999999999999 does not fit its 32 bits")));
}

TEST(Assembly, LargeJsonIntegersAreRangeErrorsNotWrapped) {
  const Layout& l = layout_for("gemm8x8");
  EXPECT_THAT(
      [&] {
        parse_program(l,
                      R"({"opcode":"ALU","alu_opcode":"ADD","use_imm":1,)"
                      R"("imm":18446744073709551615})",
                      "j.jsonl");
      },
      ThrowsMessage<UserError>(HasSubstr("j.jsonl:1: ALU field 'imm' = 18446744073709551615 "
                                         "does not fit its 16 bits (range -32768..32767)")));
  EXPECT_THAT([&] { parse_program(l, R"({"opcode":"GEMM","uop_end":9223372036854775808})", "j"); },
              ThrowsMessage<UserError>(HasSubstr("GEMM field 'uop_end' = 9223372036854775808")));
  EXPECT_THAT([&] { parse_program(l, R"({"opcode":"ALU","alu_opcode":"ADD","imm":40000})", "j"); },
              ThrowsMessage<UserError>(HasSubstr("ALU field 'imm' = 40000 does not fit")));
  EXPECT_THAT([&] { parse_program(l, R"({"opcode":18446744073709551615})", "j"); },
              ThrowsMessage<UserError>(HasSubstr("j:1: unknown opcode 18446744073709551615")));
}

TEST(Assembly, FieldGivenTwiceIsAnError) {
  const Layout& l = layout_for("gemm8x8");
  EXPECT_THAT([&] { parse_program(l, "FINISH\nLOAD INP x_size=1 x_size=2", "d.s"); },
              ThrowsMessage<UserError>(HasSubstr("d.s:2: field 'x_size' given twice")));
  EXPECT_THAT([&] { parse_program(l, "GEMM reset_reg uop_end=1 reset_reg", "d.s"); },
              ThrowsMessage<UserError>(HasSubstr("d.s:1: field 'reset_reg' given twice")));
  EXPECT_THAT([&] { parse_program(l, "GEMM reset_reg=1 reset_reg", "d.s"); },
              ThrowsMessage<UserError>(HasSubstr("d.s:1: field 'reset_reg' given twice")));
  EXPECT_THAT([&] { parse_uops(l, "UOP dst=1\nUOP dst=1 src=2 dst=3", "u.s"); },
              ThrowsMessage<UserError>(HasSubstr("u.s:2: field 'dst' given twice")));
}

TEST(Assembly, CommentAfterAJsonLine) {
  const Layout& l = layout_for("gemm8x8");
  const auto p = parse_program(l,
                               "{\"opcode\": \"LOAD\", \"memory_type\": \"INP\", \"x_size\": 3} "
                               "# load {\"x\": 1}\n"
                               "  {\"opcode\": \"FINISH\"}#done\n",
                               "c.jsonl");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].x_size, 3);
  EXPECT_EQ(p[1].opcode, static_cast<int64_t>(Opcode::kFinish));
  // A '#' inside a string is not a comment.
  EXPECT_THAT([&] { parse_program(l, R"({"opcode": "FIN#ISH", "x": "}"} # c)", "c.jsonl"); },
              ThrowsMessage<UserError>(HasSubstr("c.jsonl:1: unknown opcode \"FIN#ISH\"")));
  // Anything else after the object is still malformed.
  EXPECT_THAT([&] { parse_program(l, R"({"opcode": "FINISH"} x # c)", "c.jsonl"); },
              ThrowsMessage<UserError>(HasSubstr("c.jsonl:1: not valid JSON")));
}

TEST(Assembly, MicroOps) {
  const Layout& l = layout_for("tiny");
  const auto uops = parse_uops(l, "UOP dst=1 src=2 wgt=3\n# c\nuop dst=4\n", "u.s");
  ASSERT_EQ(uops.size(), 2u);
  EXPECT_EQ(uops[0], (Uop{1, 2, 3}));
  EXPECT_EQ(uops[1], (Uop{4, 0, 0}));
  EXPECT_EQ(format_uop(uops[0]), "UOP dst=1 src=2 wgt=3");
  EXPECT_THAT([&] { parse_uops(l, "UOP dst=256", "u.s"); },
              ThrowsMessage<UserError>(HasSubstr("u.s:1: UOP field 'dst' = 256 does not fit")));
  EXPECT_THAT([&] { parse_uops(l, "GEMM", "u.s"); },
              ThrowsMessage<UserError>(HasSubstr("u.s:1: expected a micro-op line")));
}

}  // namespace
}  // namespace weft::isa
