// When the compute module's tokens become visible, read off the cycle model's timeline
// (simulator/cycle/trace.h): a token that compute pushes means "everything before me is done",
// so a STORE that pops it must not start before the accumulator writes of earlier GEMM/ALU
// instructions have landed (docs/microarchitecture.md: the STORE reads the accumulator in its
// start cycle). The cycle model computes data at issue, so a violation never shows in its
// results; it is a hole in the timing contract that the RTL would turn into stale stores.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "hardware/isa/layout.h"
#include "hardware/isa/spec.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/cycle/trace.h"
#include "tests/support/program_builder.h"

namespace weft::test {
namespace {

using isa::AluOp;
using isa::MemType;
using isa::Uop;

// The trace slice of instruction `index` ("instruction N (...)").
nlohmann::json slice_of(const nlohmann::json& trace, size_t index) {
  const std::string prefix = "instruction " + std::to_string(index) + " (";
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e.value("cat", "") == "insn" && e.value("name", "").rfind(prefix, 0) == 0) return e;
  }
  ADD_FAILURE() << "no trace slice for instruction " << index;
  return nlohmann::json::object();
}

// LOAD UOP, LOAD ACC, ALU ADD on ACC[0] (one iteration), then `tail` ALU instructions that carry
// the compute->store push (`empty_tail`: with no micro-ops), a STORE of ACC[0] that pops it and
// a FINISH. Returns the STORE's start cycle minus the cycle the first ALU's write lands.
int64_t store_start_after_write(bool empty_tail) {
  const isa::Layout& l = isa::layout_for("tiny");
  ProgramBuilder b(l);
  const int64_t acc = b.alloc(MemType::kAcc, 2);
  const int64_t uop = b.add_uops({Uop{0, 0, 0}, Uop{1, 1, 0}});
  const int64_t out = b.alloc(MemType::kOut, 1);
  b.load_1d(MemType::kUop, 0, uop, 2);
  b.load_1d(MemType::kAcc, 0, acc, 2);
  const size_t alu = b.alu_imm(AluOp::kAdd, 5, 0, 1);
  if (empty_tail) {
    b.alu_imm(AluOp::kAdd, 7, 1, 1, Loops{}, kPushNext);  // uop_bgn == uop_end
  } else {
    b.alu_imm(AluOp::kAdd, 7, 1, 2, Loops{}, kPushNext);  // ACC[1], one iteration
  }
  const size_t store = b.store(0, out, 1, 1, 1, kPopPrev | kPushPrev);
  b.finish(kPopNext);
  const Program p = b.build();
  sim::cycle::Trace trace;
  sim::cycle::RunOptions options;
  options.trace = &trace;
  sim::cycle::CycleSim cycle(l, isa::find_platform("sim"));
  std::vector<uint8_t> dram = p.dram;
  cycle.run(dram, p.insn_offset, p.insn_count, options);
  const nlohmann::json t = trace.to_json();
  const int64_t lands = slice_of(t, alu)["args"].value("writes_land", int64_t{-1});
  const int64_t starts = slice_of(t, store).value("ts", int64_t{-1});
  EXPECT_GE(lands, 0);
  EXPECT_GE(starts, 0);
  return starts - lands;
}

TEST(PushTiming, StoreStartsAfterEarlierAccumulatorWritesLand) {
  EXPECT_GT(store_start_after_write(false), 0);
}

// Completion is in order: an instruction with no iterations must not push (and let the STORE
// read the accumulator) before earlier GEMM/ALU writes still in the pipeline have landed.
TEST(PushTiming, EmptyInstructionDoesNotPushBeforeEarlierWritesLand) {
  EXPECT_GT(store_start_after_write(true), 0);
}

}  // namespace
}  // namespace weft::test
