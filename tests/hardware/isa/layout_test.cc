// Field layouts derived from the spec: VTA's published positions for `vta`, the packing rule
// for the others, and the errors for configurations that cannot be encoded.
#include "hardware/isa/layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hardware/isa/errors.h"

namespace weft::isa {
namespace {

using ::testing::HasSubstr;

void expect_field(const Format& fmt, const char* name, int msb, int lsb) {
  const Field* f = fmt.find(name);
  ASSERT_NE(f, nullptr) << fmt.name << " has no field " << name;
  EXPECT_EQ(f->lsb, lsb) << fmt.name << "." << name;
  EXPECT_EQ(f->msb(), msb) << fmt.name << "." << name;
}

TEST(Layout, VtaMatchesTheApacheTvmVtaDefaultEncoding) {
  const Layout& l = layout_for("vta");
  for (const Format* fmt : {&l.mem, &l.gemm, &l.alu, &l.finish}) {
    expect_field(*fmt, "opcode", 2, 0);
    expect_field(*fmt, "pop_prev_dep", 3, 3);
    expect_field(*fmt, "pop_next_dep", 4, 4);
    expect_field(*fmt, "push_prev_dep", 5, 5);
    expect_field(*fmt, "push_next_dep", 6, 6);
  }
  expect_field(l.mem, "memory_type", 9, 7);
  expect_field(l.mem, "sram_base", 25, 10);
  expect_field(l.mem, "dram_base", 57, 26);
  expect_field(l.mem, "y_size", 79, 64);
  expect_field(l.mem, "x_size", 95, 80);
  expect_field(l.mem, "x_stride", 111, 96);
  expect_field(l.mem, "y_pad_0", 115, 112);
  expect_field(l.mem, "y_pad_1", 119, 116);
  expect_field(l.mem, "x_pad_0", 123, 120);
  expect_field(l.mem, "x_pad_1", 127, 124);
  for (const Format* fmt : {&l.gemm, &l.alu}) {
    expect_field(*fmt, "reset_reg", 7, 7);
    expect_field(*fmt, "uop_bgn", 20, 8);
    expect_field(*fmt, "uop_end", 34, 21);
    expect_field(*fmt, "iter_out", 48, 35);
    expect_field(*fmt, "iter_in", 62, 49);
    expect_field(*fmt, "dst_factor_out", 74, 64);
    expect_field(*fmt, "dst_factor_in", 85, 75);
    expect_field(*fmt, "src_factor_out", 96, 86);
    expect_field(*fmt, "src_factor_in", 107, 97);
  }
  expect_field(l.gemm, "wgt_factor_out", 117, 108);
  expect_field(l.gemm, "wgt_factor_in", 127, 118);
  expect_field(l.alu, "alu_opcode", 110, 108);
  expect_field(l.alu, "use_imm", 111, 111);
  expect_field(l.alu, "imm", 127, 112);
  EXPECT_TRUE(l.alu.find("imm")->is_signed);
  expect_field(l.uop, "dst", 10, 0);
  expect_field(l.uop, "src", 21, 11);
  expect_field(l.uop, "wgt", 31, 22);
}

TEST(Layout, DerivedDepthsAndElementSizes) {
  const Layout& g = layout_for("gemm8x8");
  EXPECT_EQ(g.macs_per_uop(), 512);
  EXPECT_EQ(g.inp_elem_bytes, 64);
  EXPECT_EQ(g.wgt_elem_bytes, 64);
  EXPECT_EQ(g.acc_elem_bytes, 256);
  EXPECT_EQ(g.out_elem_bytes, 64);
  EXPECT_EQ(g.elem_bytes(MemType::kAcc8Bit), 64);
  EXPECT_EQ(g.inp_depth, 512);
  EXPECT_EQ(g.wgt_depth, 4096);
  EXPECT_EQ(g.acc_depth, 512);
  EXPECT_EQ(g.uop_depth, 8192);
  const Layout& v = layout_for("vta");
  EXPECT_EQ(v.macs_per_uop(), 256);
  EXPECT_EQ(v.inp_depth, 2048);
  EXPECT_EQ(v.wgt_depth, 1024);
  EXPECT_EQ(v.acc_depth, 2048);
}

TEST(Layout, NoFieldStraddlesBit64AndFieldsDoNotOverlap) {
  for (const HwConfig& c : shipped_configs()) {
    const Layout l = derive_layout(c);
    for (const Format* fmt : {&l.mem, &l.gemm, &l.alu, &l.finish, &l.uop}) {
      int next = 0;
      for (const Field& f : fmt->fields) {
        EXPECT_EQ(f.lsb / 64, f.msb() / 64) << c.name << " " << fmt->name << "." << f.name;
        EXPECT_GE(f.lsb, next) << c.name << " " << fmt->name << "." << f.name;
        EXPECT_LT(f.msb(), fmt->total_bits);
        next = f.msb() + 1;
      }
    }
  }
}

TEST(Layout, MicroOpIndicesCoverEveryBuffer) {
  for (const HwConfig& c : shipped_configs()) {
    const Layout l = derive_layout(c);
    EXPECT_GE(int64_t{1} << l.uop.find("dst")->width, l.acc_depth) << c.name;
    EXPECT_GE(int64_t{1} << l.uop.find("src")->width, l.inp_depth) << c.name;
    EXPECT_GE(int64_t{1} << l.uop.find("wgt")->width, l.wgt_depth) << c.name;
    EXPECT_GE(int64_t{1} << l.mem.find("sram_base")->width, l.uop_depth) << c.name;
  }
}

// Deeper buffers widen the micro-op and the GEMM factors together; GEMM's second word holds
// two copies of the micro-op indices, so it overflows first and is the field named.
TEST(Layout, RejectsAConfigurationWithBuffersTooDeepToAddress) {
  HwConfig c = find_config("vta");
  c.name = "huge";
  c.acc_buf_bytes = uint64_t{1} << 24;  // 18-bit accumulator index
  c.wgt_buf_bytes = uint64_t{1} << 26;  // 18-bit weight index
  try {
    derive_layout(c);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("configuration 'huge'"));
    EXPECT_THAT(e.what(), HasSubstr("GEMM field 'src_factor_in' (18 bits)"));
    EXPECT_THAT(e.what(), HasSubstr("does not fit in 128 bits"));
  }
}

TEST(Layout, RejectsAConfigurationWhoseInstructionDoesNotFit128Bits) {
  HwConfig c = find_config("vta");
  c.name = "wide";
  c.log_batch = 6;
  c.uop_buf_bytes = uint64_t{1} << 26;  // 24-bit uop_bgn, 25-bit uop_end
  c.acc_buf_bytes = uint64_t{1} << 30;
  c.inp_buf_bytes = uint64_t{1} << 30;
  c.wgt_buf_bytes = uint64_t{1} << 30;
  try {
    derive_layout(c);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("configuration 'wide'"));
    EXPECT_THAT(e.what(), HasSubstr("does not fit in 128 bits"));
    EXPECT_THAT(e.what(), HasSubstr("field '"));
  }
}

TEST(Layout, RejectsBadParameters) {
  HwConfig c = find_config("tiny");
  c.inp_buf_bytes = 1000;
  EXPECT_THAT(
      [&] { derive_layout(c); },
      ::testing::ThrowsMessage<UserError>(HasSubstr("inp_buf_bytes = 1000 is not a power of two")));
  c = find_config("tiny");
  c.acc_bits = 16;
  EXPECT_THAT([&] { derive_layout(c); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("acc_bits = 16")));
  c = find_config("tiny");
  c.alu_pipeline_depth = c.gemm_pipeline_depth + 1;
  EXPECT_THAT([&] { derive_layout(c); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("must equal gemm_pipeline_depth")));
  c = find_config("tiny");
  c.wgt_buf_bytes = 16;  // a single weight element
  EXPECT_THAT([&] { derive_layout(c); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("wgt_buf_bytes = 16 must hold")));
}

TEST(Layout, UnknownNamesListTheKnownOnes) {
  EXPECT_THAT([] { layout_for("gemm9x9"); },
              ::testing::ThrowsMessage<UserError>(
                  HasSubstr("unknown configuration 'gemm9x9' (known: gemm8x8, vta, tiny)")));
  EXPECT_THAT([] { find_platform("nope"); },
              ::testing::ThrowsMessage<UserError>(HasSubstr("unknown platform 'nope'")));
}

}  // namespace
}  // namespace weft::isa
