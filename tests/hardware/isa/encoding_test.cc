// Binary encoding: VTA's bit positions checked on concrete words, round trips of random
// instructions for every configuration, and range errors that name the field.
#include "hardware/isa/encoding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "hardware/isa/errors.h"

namespace weft::isa {
namespace {

using ::testing::HasSubstr;

void words_of(const uint8_t* b, uint64_t* lo, uint64_t* hi) {
  std::memcpy(lo, b, 8);
  std::memcpy(hi, b + 8, 8);
}

TEST(Encoding, VtaLoadWordsAreBitExact) {
  const Layout& l = layout_for("vta");
  Insn i;
  i.opcode = 0;
  i.push_next_dep = 1;
  i.pop_next_dep = 1;
  i.memory_type = 2;  // INP
  i.sram_base = 0x1234;
  i.dram_base = 0xDEADBEEF;
  i.y_size = 3;
  i.x_size = 0xABCD;
  i.x_stride = 0x8001;
  i.y_pad_0 = 1;
  i.y_pad_1 = 2;
  i.x_pad_0 = 3;
  i.x_pad_1 = 15;
  uint8_t b[16];
  encode_insn(l, i, b, "test");
  uint64_t lo, hi;
  words_of(b, &lo, &hi);
  EXPECT_EQ(lo, (uint64_t{1} << 4) | (uint64_t{1} << 6) | (uint64_t{2} << 7) |
                    (uint64_t{0x1234} << 10) | (uint64_t{0xDEADBEEF} << 26));
  EXPECT_EQ(hi, uint64_t{3} | (uint64_t{0xABCD} << 16) | (uint64_t{0x8001} << 32) |
                    (uint64_t{1} << 48) | (uint64_t{2} << 52) | (uint64_t{3} << 56) |
                    (uint64_t{15} << 60));
  EXPECT_EQ(decode_insn(l, b, "test"), i);
}

TEST(Encoding, VtaGemmAndAluWordsAreBitExact) {
  const Layout& l = layout_for("vta");
  Insn g;
  g.opcode = 2;
  g.pop_prev_dep = 1;
  g.reset_reg = 1;
  g.uop_bgn = 8191;
  g.uop_end = 8192;
  g.iter_out = 16383;
  g.iter_in = 5;
  g.dst_factor_out = 2047;
  g.dst_factor_in = 1;
  g.src_factor_out = 2;
  g.src_factor_in = 3;
  g.wgt_factor_out = 1023;
  g.wgt_factor_in = 4;
  uint8_t b[16];
  encode_insn(l, g, b, "test");
  uint64_t lo, hi;
  words_of(b, &lo, &hi);
  EXPECT_EQ(lo, uint64_t{2} | (uint64_t{1} << 3) | (uint64_t{1} << 7) | (uint64_t{8191} << 8) |
                    (uint64_t{8192} << 21) | (uint64_t{16383} << 35) | (uint64_t{5} << 49));
  EXPECT_EQ(hi, uint64_t{2047} | (uint64_t{1} << 11) | (uint64_t{2} << 22) | (uint64_t{3} << 33) |
                    (uint64_t{1023} << 44) | (uint64_t{4} << 54));

  Insn a;
  a.opcode = 4;
  a.alu_opcode = 3;  // SHR
  a.use_imm = 1;
  a.imm = -2;
  a.uop_end = 1;
  a.iter_out = 1;
  a.iter_in = 1;
  encode_insn(l, a, b, "test");
  words_of(b, &lo, &hi);
  EXPECT_EQ(hi, (uint64_t{3} << 44) | (uint64_t{1} << 47) | (uint64_t{0xFFFE} << 48));
  EXPECT_EQ(decode_insn(l, b, "test").imm, -2);
}

TEST(Encoding, VtaMicroOpWordIsBitExact) {
  const Layout& l = layout_for("vta");
  uint8_t b[4];
  encode_uop(l, Uop{5, 6, 7}, b, "uop");
  uint32_t w;
  std::memcpy(&w, b, 4);
  EXPECT_EQ(w, 5u | (6u << 11) | (7u << 22));
  EXPECT_EQ(decode_uop(l, b), (Uop{5, 6, 7}));
}

// Random values for every field of every format round-trip through the encoding.
TEST(Encoding, RandomInstructionsRoundTripOnEveryConfiguration) {
  std::mt19937_64 rng(42);
  for (const HwConfig& c : shipped_configs()) {
    const Layout l = derive_layout(c);
    for (int opcode = 0; opcode <= 4; ++opcode) {
      const Format& fmt = *l.format_of(opcode);
      for (int n = 0; n < 200; ++n) {
        Insn i;
        for (const Field& f : fmt.fields) {
          const uint64_t span = static_cast<uint64_t>(f.max_value() - f.min_value()) + 1;
          i.*(f.insn_member) = f.min_value() + static_cast<int64_t>(rng() % span);
        }
        i.opcode = opcode;
        if (&fmt == &l.mem) i.memory_type = static_cast<int64_t>(rng() % 6);
        if (&fmt == &l.alu) i.alu_opcode = static_cast<int64_t>(rng() % 5);
        uint8_t b[16];
        encode_insn(l, i, b, "test");
        EXPECT_EQ(decode_insn(l, b, "test"), i) << c.name << " opcode " << opcode;
      }
    }
  }
}

TEST(Encoding, ValueTooWideNamesTheField) {
  const Layout& l = layout_for("vta");
  Insn i;
  i.opcode = 0;
  i.memory_type = 2;
  i.x_size = 70000;
  uint8_t b[16];
  EXPECT_THAT([&] { encode_insn(l, i, b, "instruction 7"); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("instruction 7: MEM field 'x_size' = 70000 does not fit its 16 bits")));
  Insn a;
  a.opcode = 4;
  a.imm = -40000;
  EXPECT_THAT([&] { encode_insn(l, a, b, "x"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("field 'imm' = -40000")));
  EXPECT_THAT(
      [&] {
        encode_uop(l, Uop{2048, 0, 0}, b, "micro-op 3");
      },
      ::testing::ThrowsMessage<UserError>(HasSubstr("micro-op 3: UOP field 'dst'")));
}

// insn_fits / uop_fits say exactly what encoding accepts: every field at its range's ends and
// one past them, on every configuration.
TEST(Encoding, FitsAgreesWithTheEncoder) {
  auto encodes = [](auto&& encode) {
    try {
      encode();
      return true;
    } catch (const UserError&) {
      return false;
    }
  };
  uint8_t b[16];
  for (const HwConfig& c : shipped_configs()) {
    const Layout l = derive_layout(c);
    for (int opcode = 0; opcode <= 4; ++opcode)
      for (const Field& f : l.format_of(opcode)->fields)
        for (int64_t v : {f.min_value() - 1, f.min_value(), f.max_value(), f.max_value() + 1}) {
          Insn i;
          i.opcode = opcode;
          i.*(f.insn_member) = v;
          EXPECT_EQ(insn_fits(l, i), encodes([&] { encode_insn(l, i, b, "x"); }))
              << c.name << " opcode " << opcode << " " << f.name << " = " << v;
        }
    for (const Field& f : l.uop.fields)
      for (int64_t v : {f.min_value() - 1, f.min_value(), f.max_value(), f.max_value() + 1}) {
        Uop u{0, 0, 0};
        u.*(f.uop_member) = v;
        EXPECT_EQ(uop_fits(l, u), encodes([&] { encode_uop(l, u, b, "x"); }))
            << c.name << " micro-op " << f.name << " = " << v;
      }
    Insn unknown;
    unknown.opcode = 7;
    EXPECT_FALSE(insn_fits(l, unknown));
  }
}

TEST(Encoding, UnknownOpcodeMemoryTypeAndAluOpcodeAreNamed) {
  const Layout& l = layout_for("gemm8x8");
  uint8_t b[16] = {};
  b[0] = 7;
  EXPECT_THAT([&] { decode_insn(l, b, "instruction 2"); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("instruction 2: unknown opcode 7 in field 'opcode'")));
  b[0] = static_cast<uint8_t>(0 | (6 << 7));  // LOAD with memory type 6
  b[1] = static_cast<uint8_t>(6 >> 1);
  EXPECT_THAT([&] { decode_insn(l, b, "instruction 4"); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("instruction 4: unknown memory type 6 in field 'memory_type'")));
  Insn a;
  a.opcode = 4;
  a.alu_opcode = 7;
  encode_insn(l, a, b, "x");
  EXPECT_THAT([&] { decode_insn(l, b, "instruction 5"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("unknown ALU opcode 7")));
}

TEST(Encoding, ProgramSizeMustBeAMultipleOf16) {
  const Layout& l = layout_for("tiny");
  EXPECT_THAT([&] { decode_program(l, std::vector<uint8_t>(20), "prog.bin"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("prog.bin: size 20 bytes")));
}

}  // namespace
}  // namespace weft::isa
