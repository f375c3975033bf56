// Functional model: programs rejected for their encoding, ranges, memory types or shape (token
// errors are in token_errors_test.cc). Each case must throw weft::UserError with a message
// that names the instruction (its index) and the offending field or buffer. Encodings that
// encode_insn refuses to produce (unknown opcodes, memory types, ALU opcodes) are made by
// overwriting bits of a built image.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/functional_fixture.h"
#include "tests/support/program_builder.h"

namespace weft::test {
namespace {

using isa::AluOp;
using isa::MemType;
using isa::Uop;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string str(int64_t v) { return std::to_string(v); }

class ErrorsTest : public FunctionalSimTest {
 protected:
  const isa::Field& field(const isa::Format& f, const char* name) const {
    const isa::Field* found = f.find(name);
    EXPECT_NE(found, nullptr) << name;
    return *found;
  }
  // An empty transfer: a harmless instruction that shifts the index of the next one.
  void nop(ProgramBuilder& b) { b.load(MemType::kUop, 0, 0, 0, 0, 0); }
};

// ---- Encodings that do not decode ----

TEST_P(ErrorsTest, UnknownOpcode) {
  for (uint64_t opcode : {5, 6, 7}) {
    ProgramBuilder b = builder();
    nop(b);
    b.gemm(0, 0);
    b.finish();
    Program p = b.build();
    p.set_insn_bits(1, 0, 3, opcode);
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 1"), HasSubstr("'opcode'"),
                                    HasSubstr("unknown opcode " + str(opcode))));
  }
}

TEST_P(ErrorsTest, UnknownMemoryType) {
  const isa::Field& f = field(layout().mem, "memory_type");
  for (uint64_t mem : {6, 7}) {
    ProgramBuilder b = builder();
    nop(b);
    nop(b);
    b.store(0, 0, 0, 0, 0);
    b.finish();
    Program p = b.build();
    p.set_insn_bits(2, f.lsb, f.width, mem);
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 2"), HasSubstr("'memory_type'"),
                                    HasSubstr("unknown memory type " + str(mem))));
  }
}

TEST_P(ErrorsTest, UnknownAluOpcode) {
  const isa::Field& f = field(layout().alu, "alu_opcode");
  for (uint64_t op : {5, 6, 7}) {
    ProgramBuilder b = builder();
    nop(b);
    b.alu_imm(AluOp::kAdd, 1, 0, 0);
    b.finish();
    Program p = b.build();
    p.set_insn_bits(1, f.lsb, f.width, op);
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 1"), HasSubstr("'alu_opcode'")));
  }
}

// ---- On-chip ranges ----

TEST_P(ErrorsTest, LoadSramBaseBeyondBuffer) {
  for (MemType t :
       {MemType::kUop, MemType::kInp, MemType::kWgt, MemType::kAcc, MemType::kAcc8Bit}) {
    const char* name = isa::mem_type_name(static_cast<int64_t>(t));
    SCOPED_TRACE(name);
    const int64_t depth = layout().sram_depth(t);
    const std::string buffer = t == MemType::kAcc8Bit ? "ACC" : name;
    {
      ProgramBuilder b = builder();
      const int64_t src = b.alloc(t, 2);
      nop(b);
      b.load_1d(t, depth - 1, src, 2);  // the second element lands at depth
      b.finish();
      Program p = b.build();
      EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 1 (LOAD " + std::string(name) + ")"),
                                      HasSubstr("'sram_base'"),
                                      HasSubstr(buffer + " buffer depth " + str(depth))));
    }
    {
      // Padding counts: one element plus two columns of padding from depth - 2.
      ProgramBuilder b = builder();
      const int64_t src = b.alloc(t, 1);
      b.load(t, depth - 2, src, 1, 1, 1, Pads{0, 0, 0, 2});
      b.finish();
      Program p = b.build();
      EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 0"), HasSubstr("'sram_base'"),
                                      HasSubstr("ends at element " + str(depth + 1))));
    }
  }
}

TEST_P(ErrorsTest, StoreSramBaseBeyondAccumulator) {
  const int64_t depth = layout().acc_depth;
  ProgramBuilder b = builder();
  const int64_t out = b.alloc(MemType::kOut, 4);
  nop(b);
  b.store(depth - 3, out, 2, 2, 2);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 1 (STORE OUT)"), HasSubstr("'sram_base'"),
                                  HasSubstr("ACC buffer depth " + str(depth))));
}

// Micro-op indices are checked per iteration as the loops compute them.
TEST_P(ErrorsTest, MicroOpIndexBeyondBuffer) {
  const isa::Layout& l = layout();
  struct Case {
    const char* what;
    bool alu;
    Uop uop;
    Loops loops;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"GEMM dst", false, Uop{l.acc_depth - 1, 0, 0}, Loops{2, 1, 1},
       "micro-op 1 at iteration (1, 0) computes dst index " + str(l.acc_depth) +
           ", beyond the ACC buffer depth " + str(l.acc_depth)},
      {"GEMM src", false, Uop{0, l.inp_depth - 1, 0}, Loops{1, 2, 0, 0, 0, 1},
       "micro-op 1 at iteration (0, 1) computes src index " + str(l.inp_depth) +
           ", beyond the INP buffer depth " + str(l.inp_depth)},
      {"GEMM wgt", false, Uop{0, 0, l.wgt_depth - 2}, Loops{3, 1, 0, 0, 0, 0, 1, 0},
       "micro-op 1 at iteration (2, 0) computes wgt index " + str(l.wgt_depth) +
           ", beyond the WGT buffer depth " + str(l.wgt_depth)},
      {"ALU dst", true, Uop{l.acc_depth - 1, 0, 0}, Loops{1, 2, 0, 1},
       "micro-op 1 at iteration (0, 1) computes dst index " + str(l.acc_depth) +
           ", beyond the ACC buffer depth " + str(l.acc_depth)},
      {"ALU src", true, Uop{0, l.acc_depth - 1, 0}, Loops{2, 1, 0, 0, 1, 0},
       "micro-op 1 at iteration (1, 0) computes src index " + str(l.acc_depth) +
           ", beyond the ACC buffer depth " + str(l.acc_depth)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ProgramBuilder b = builder();
    const int64_t uops = b.add_uops({Uop{0, 0, 0}, c.uop});
    b.load_1d(MemType::kUop, 0, uops, 2);
    nop(b);
    if (c.alu) {
      b.alu(AluOp::kAdd, 0, 2, c.loops);
    } else {
      b.gemm(0, 2, c.loops);
    }
    b.finish();
    Program p = b.build();
    EXPECT_THAT(run_error(p),
                AllOf(HasSubstr(c.alu ? "instruction 2 (ALU ADD)" : "instruction 2 (GEMM)"),
                      HasSubstr(c.message)));
  }
}

TEST_P(ErrorsTest, UopEndBeforeUopBgn) {
  for (bool alu : {false, true}) {
    ProgramBuilder b = builder();
    nop(b);
    nop(b);
    nop(b);
    if (alu) {
      b.alu(AluOp::kMax, 3, 2);
    } else {
      b.gemm(3, 2);
    }
    b.finish();
    Program p = b.build();
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 3"), HasSubstr("'uop_end'"),
                                    HasSubstr("less than uop_bgn")));
  }
}

TEST_P(ErrorsTest, UopEndBeyondUopBuffer) {
  ProgramBuilder b = builder();
  b.gemm(0, layout().uop_depth + 1);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 0 (GEMM)"), HasSubstr("'uop_end'"),
                                  HasSubstr("UOP buffer depth " + str(layout().uop_depth))));
}

// ---- DRAM ranges ----

TEST_P(ErrorsTest, DramAccessBeyondImage) {
  const isa::Field& dram_base = field(layout().mem, "dram_base");
  for (MemType t : {MemType::kInp, MemType::kWgt, MemType::kAcc, MemType::kOut}) {
    SCOPED_TRACE(isa::mem_type_name(static_cast<int64_t>(t)));
    ProgramBuilder b = builder();
    b.alloc(t, 8);
    nop(b);
    // FINISH waits for the transfer with a token, so timed engines accept the program too.
    if (t == MemType::kOut) {
      b.store(0, 0, 2, 1, 3, kPushPrev);
      b.finish(kPopNext);
    } else if (t == MemType::kAcc) {
      b.load(t, 0, 0, 2, 1, 3);  // on the compute module itself: in order with FINISH
      b.finish();
    } else {
      b.load(t, 0, 0, 2, 1, 3, Pads{}, kPushNext);
      b.finish(kPopPrev);
    }
    Program fits = b.build();
    // Rows at dram_base and dram_base + 3, one element each: with dram_base = image_elems - 4
    // the last row ends within the last whole element of the image, and is accepted.
    const int64_t eb = layout().elem_bytes(t);
    const int64_t image_elems = static_cast<int64_t>(fits.dram.size()) / eb;
    fits.set_insn_bits(1, dram_base.lsb, dram_base.width, image_elems - 4);
    Program beyond = fits;
    EXPECT_NO_THROW(run(fits));
    // One element further: rejected.
    beyond.set_insn_bits(1, dram_base.lsb, dram_base.width, image_elems - 3);
    EXPECT_THAT(run_error(beyond), AllOf(HasSubstr("instruction 1"), HasSubstr("'dram_base'"),
                                         HasSubstr(str(static_cast<int64_t>(beyond.dram.size())) +
                                                   "-byte DRAM image")));
  }
}

// ---- Memory types a transfer cannot use ----

TEST_P(ErrorsTest, StoreFromAMemoryOtherThanOut) {
  for (MemType t :
       {MemType::kUop, MemType::kWgt, MemType::kInp, MemType::kAcc, MemType::kAcc8Bit}) {
    const char* name = isa::mem_type_name(static_cast<int64_t>(t));
    SCOPED_TRACE(name);
    ProgramBuilder b = builder();
    nop(b);
    b.at(b.store(0, 0, 1, 1, 1)).memory_type = static_cast<int64_t>(t);
    b.finish();
    Program p = b.build();
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 1 (STORE " + std::string(name) + ")"),
                                    HasSubstr("'memory_type'")));
  }
}

TEST_P(ErrorsTest, LoadIntoOut) {
  ProgramBuilder b = builder();
  b.load_1d(MemType::kOut, 0, 0, 1);
  b.finish();
  Program p = b.build();
  EXPECT_THAT(run_error(p),
              AllOf(HasSubstr("instruction 0 (LOAD OUT)"), HasSubstr("'memory_type'")));
}

TEST_P(ErrorsTest, StoreWithPadding) {
  const char* names[] = {"y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1"};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(names[i]);
    ProgramBuilder b = builder();
    const int64_t out = b.alloc(MemType::kOut, 1);
    isa::Insn& insn = b.at(b.store(0, out, 1, 1, 1));
    int64_t* pads[] = {&insn.y_pad_0, &insn.y_pad_1, &insn.x_pad_0, &insn.x_pad_1};
    *pads[i] = 1;
    b.finish();
    Program p = b.build();
    EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 0 (STORE OUT)"),
                                    HasSubstr(std::string("field '") + names[i] + "' = 1")));
  }
}

// ---- Program shape ----

TEST_P(ErrorsTest, NoFinish) {
  ProgramBuilder b = builder();
  nop(b);
  b.gemm(0, 0);
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("no FINISH"), HasSubstr("2 instructions")));
}

TEST_P(ErrorsTest, InstructionAfterFinish) {
  ProgramBuilder b = builder();
  nop(b);
  b.finish();
  b.load(MemType::kInp, 0, 0, 0, 0, 0);
  Program p = b.build();
  EXPECT_THAT(run_error(p), AllOf(HasSubstr("instruction 2 (LOAD INP)"),
                                  HasSubstr("follows FINISH (instruction 1)")));
}

TEST_P(ErrorsTest, BadInstructionWindow) {
  ProgramBuilder b = builder();
  b.finish();
  Program p = b.build();
  Program empty = p;
  empty.insn_count = 0;
  EXPECT_THAT(run_error(empty), HasSubstr("at least FINISH"));
  Program misaligned = p;
  misaligned.insn_offset += 8;
  EXPECT_THAT(run_error(misaligned), HasSubstr("16-byte"));
  Program beyond = p;
  beyond.insn_count = 2;
  EXPECT_THAT(run_error(beyond),
              HasSubstr("beyond the " + str(p.dram.size()) + "-byte DRAM image"));
}

WEFT_INSTANTIATE_FOR_ALL_CONFIGS(ErrorsTest);

}  // namespace
}  // namespace weft::test
