// Fuzz target: differential testing of the functional (golden) model against the cycle model.
// The fuzzer's bytes are decoded into a structured program, in one of two ways (top bit of
// the first byte):
//   generator: a seed and options for tests/support's token-correct random program generator,
//     then up to four bit-field mutations of its instructions (which may break it);
//   free: valid-looking instructions with fields in or near range, random dependency flags,
//     random data and micro-ops, and two-level loops.
// Both models run it. When tests/support's static protocol checker proves the program
// race-free and balanced (and no queue can hold more tokens than it has room for), the two
// models must give the same DRAM image and the same counters, or both reject it with an error.
// Otherwise (a racy program may legitimately differ) each must still end: a UserError or a
// result, never an InternalError, a crash or a hang.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "fuzz/fuzz_common.h"
#include "hardware/isa/encoding.h"
#include "hardware/isa/errors.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"
#include "tests/support/program_builder.h"
#include "tests/support/program_check.h"
#include "tests/support/random_program.h"

using namespace weft;
using isa::MemType;

namespace {

// Micro-op executions plus DRAM bytes moved per input: the protocol checker follows every
// byte, so a mutated LOAD of thousands of rows would only burn time (it timed out the fuzzer).
constexpr uint64_t kMaxWork = 200000;

// Micro-op executions and DRAM bytes of a program (to skip inputs that only burn time).
uint64_t work_of(const test::Program& p) {
  uint64_t work = 0;
  for (uint64_t i = 0; i < p.insn_count; ++i) {
    isa::Insn in;
    try {
      in = isa::decode_insn(*p.layout, p.dram.data() + p.insn_offset + i * 16, "work");
    } catch (const UserError&) {
      return 0;  // both models reject it before running
    }
    if (in.op() == isa::Opcode::kGemm || in.op() == isa::Opcode::kAlu) {
      work += uint64_t(std::max<int64_t>(0, in.uop_end - in.uop_bgn)) * uint64_t(in.iter_out) *
              uint64_t(in.iter_in);
    } else if (in.op() == isa::Opcode::kLoad || in.op() == isa::Opcode::kStore) {
      const int64_t elem = in.op() == isa::Opcode::kStore ? p.layout->out_elem_bytes
                                                            : p.layout->elem_bytes(in.mem());
      work += uint64_t(in.y_size + in.y_pad_0 + in.y_pad_1) *
              uint64_t(in.x_size + in.x_pad_0 + in.x_pad_1) * uint64_t(std::max<int64_t>(1, elem));
      work += uint64_t(in.y_size) * uint64_t(in.x_stride);  // the DRAM span the checker walks
    }
    work += 1;
  }
  return work;
}

test::Program generated(FuzzedDataProvider& f, const isa::Layout& l) {
  test::RandomProgramOptions o;
  o.max_threads = f.ConsumeIntegralInRange(1, 4);
  o.min_threads = f.ConsumeIntegralInRange(1, o.max_threads);
  o.max_iterations = f.ConsumeIntegralInRange(1, 4);
  o.max_compute_ops = f.ConsumeIntegralInRange(1, 5);
  test::Program p = test::random_program(l, f.ConsumeIntegral<uint64_t>(), o).program;
  const int mutations = f.ConsumeIntegralInRange(0, 4);
  for (int m = 0; m < mutations && f.remaining_bytes() >= 4 && p.insn_count > 0; ++m) {
    const size_t index = f.ConsumeIntegralInRange<size_t>(0, p.insn_count - 1);
    const int width = f.ConsumeIntegralInRange(1, 8);
    const int word = f.ConsumeBool() ? 64 : 0;
    const int lsb = word + f.ConsumeIntegralInRange(0, 64 - width);
    p.set_insn_bits(index, lsb, width, f.ConsumeIntegral<uint8_t>() & ((1u << width) - 1));
  }
  return p;
}

test::Deps deps(FuzzedDataProvider& f) {
  const uint8_t b = f.ConsumeIntegral<uint8_t>();
  return test::Deps{(b & 1) != 0, (b & 2) != 0, (b & 4) != 0, (b & 8) != 0};
}

test::Program free_form(FuzzedDataProvider& f, const isa::Layout& l) {
  test::ProgramBuilder b(l);
  std::mt19937 rng(f.ConsumeIntegral<uint32_t>());
  auto random_bytes = [&](size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& x : v) x = static_cast<uint8_t>(rng());
    return v;
  };
  // Data: a few elements of each type (random contents), micro-ops from the input.
  const int64_t inp = b.alloc(MemType::kInp, 16), wgt = b.alloc(MemType::kWgt, 8);
  const int64_t acc = b.alloc(MemType::kAcc, 16), out = b.alloc(MemType::kOut, 32);
  b.put_bytes(MemType::kInp, inp, random_bytes(16 * l.inp_elem_bytes));
  b.put_bytes(MemType::kWgt, wgt, random_bytes(8 * l.wgt_elem_bytes));
  b.put_bytes(MemType::kAcc, acc, random_bytes(16 * l.acc_elem_bytes));
  std::vector<isa::Uop> uops(f.ConsumeIntegralInRange(1, 8));
  auto index = [&](int64_t depth) {  // mostly small, sometimes at or past the end
    const uint8_t r = f.ConsumeIntegral<uint8_t>();
    return r < 240 ? int64_t(r % 16) : depth - 4 + int64_t(r % 8);
  };
  for (auto& u : uops) {
    u.dst = std::min(index(l.acc_depth), l.uop.fields[0].max_value());
    u.src = std::min(index(l.inp_depth), l.uop.fields[1].max_value());
    u.wgt = std::min(index(l.wgt_depth), l.uop.fields[2].max_value());
  }
  const int64_t uop_at = b.add_uops(uops);
  const int n = f.ConsumeIntegralInRange(1, 40);
  for (int i = 0; i < n && f.remaining_bytes() > 0; ++i) {
    const int kind = f.ConsumeIntegralInRange(0, 8);
    test::Loops lp;
    lp.iter_out = f.ConsumeIntegralInRange(1, 4);
    lp.iter_in = f.ConsumeIntegralInRange(1, 4);
    lp.dst_out = f.ConsumeIntegralInRange(0, 4);
    lp.dst_in = f.ConsumeIntegralInRange(0, 2);
    lp.src_out = f.ConsumeIntegralInRange(0, 4);
    lp.src_in = f.ConsumeIntegralInRange(0, 2);
    lp.wgt_out = f.ConsumeIntegralInRange(0, 2);
    lp.wgt_in = f.ConsumeIntegralInRange(0, 2);
    const int64_t ub = f.ConsumeIntegralInRange<int64_t>(0, int64_t(uops.size()));
    const int64_t ue = f.ConsumeIntegralInRange<int64_t>(ub, int64_t(uops.size()) + 1);
    const int64_t sram = f.ConsumeIntegralInRange(0, 20);
    const int64_t y = f.ConsumeIntegralInRange(0, 3), x = f.ConsumeIntegralInRange(0, 4);
    test::Pads pads{f.ConsumeIntegralInRange(0, 1), f.ConsumeIntegralInRange(0, 1),
                    f.ConsumeIntegralInRange(0, 1), f.ConsumeIntegralInRange(0, 1)};
    const test::Deps d = deps(f);
    switch (kind) {
      case 0:
        b.load(MemType::kInp, sram, inp + f.ConsumeIntegralInRange(0, 4), y, x, 4, pads, d);
        break;
      case 1:
        b.load(MemType::kWgt, sram % 8, wgt + f.ConsumeIntegralInRange(0, 4), y, x % 3, 2, pads, d);
        break;
      case 2:
        b.load(MemType::kUop, sram % 8, uop_at, 1, int64_t(uops.size()), int64_t(uops.size()),
               {}, d);
        break;
      case 3:
        b.load(MemType::kAcc, sram, acc + f.ConsumeIntegralInRange(0, 4), y, x, 4, pads, d);
        break;
      case 4:
        b.gemm(ub, ue, lp, d);
        break;
      case 5:
        b.gemm_reset(ub, ue, lp, d);
        break;
      case 6: {
        const auto op = static_cast<isa::AluOp>(f.ConsumeIntegralInRange(0, 4));
        if (f.ConsumeBool()) {
          b.alu_imm(op, f.ConsumeIntegralInRange(-40, 40), ub, ue, lp, d);
        } else {
          b.alu(op, ub, ue, lp, d);
        }
        break;
      }
      case 7:
        b.store(sram, out + f.ConsumeIntegralInRange(0, 8), y, x, 8, d);
        break;
      default:
        b.finish(d);
        break;
    }
  }
  b.finish(deps(f));
  return b.build();
}

// WEFT_FUZZ_DIFF_STATS=1: at exit, how many inputs were checked strictly and how they ended
// (e.g. `build-fuzz/fuzz/fuzz_diff -runs=0 CORPUS`), to see that the strict oracle is reached.
struct Tally {
  uint64_t inputs = 0, strict = 0, strict_ok = 0, strict_rejected = 0;
  ~Tally() {
    if (std::getenv("WEFT_FUZZ_DIFF_STATS")) {
      std::fprintf(stderr, "fuzz_diff: %llu programs, %llu checked strictly (%llu ran on both, "
                           "%llu rejected by both)\n",
                   (unsigned long long)inputs, (unsigned long long)strict,
                   (unsigned long long)strict_ok, (unsigned long long)strict_rejected);
    }
  }
} tally;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  FuzzedDataProvider f(data, size);
  const uint8_t mode = f.ConsumeIntegral<uint8_t>();
  const isa::Layout& l = fuzz::layout_of(mode);
  const auto& platforms = isa::shipped_platforms();
  const isa::Platform& platform = platforms[(mode >> 2) % platforms.size()];
  test::Program p;
  try {
    p = (mode & 0x80) ? generated(f, l) : free_form(f, l);
  } catch (const UserError&) {
    return 0;  // a field that does not fit its width: the builder refuses to encode it
  }
  if (work_of(p) > kMaxWork) return 0;
  bool strict = false;
  try {
    const test::ProtocolReport report = test::check_protocol(p);
    strict = report.ok();
    for (int64_t m : report.max_tokens) strict = strict && m <= l.config.token_queue_depth;
  } catch (const UserError&) {
    // The checker decodes every instruction; a mutation made one undecodable.
  }

  std::vector<uint8_t> f_img = p.dram, c_img = p.dram;
  sim::VtaCounters fc;
  sim::cycle::CycleStats cs;
  std::string f_err, c_err;
  try {
    sim::FunctionalSim functional(l);
    fc = functional.run(f_img, p.insn_offset, p.insn_count);
  } catch (const UserError& e) {
    f_err = e.what();
    fuzz::check(!f_err.empty(), "functional: an error without a message");
  }
  try {
    sim::cycle::CycleSim cycle(l, platform);
    cs = cycle.run(c_img, p.insn_offset, p.insn_count);
  } catch (const UserError& e) {
    c_err = e.what();
    fuzz::check(!c_err.empty(), "cycle: an error without a message");
  }
  ++tally.inputs;
  if (!strict) return 0;
  ++tally.strict;
  ++(f_err.empty() ? tally.strict_ok : tally.strict_rejected);
  fuzz::check(f_err.empty() == c_err.empty(),
              "a checked program: functional says '" + f_err + "', cycle says '" + c_err + "'");
  if (f_err.empty()) {
    fuzz::check(f_img == c_img, "a checked program: the final DRAM images differ");
    fuzz::check(fc == cs.counters, "a checked program: the counters differ");
  }
  return 0;
}
