// The cycle model's entry point: the on-chip state that persists between runs, and CycleSim::run,
// which decodes the program and hands it to one CycleRun (cycle_run.h: the steps of a cycle).
#include "simulator/cycle/cycle_sim.h"

#include <memory>

#include "hardware/isa/encoding.h"
#include "simulator/common/program.h"
#include "simulator/cycle/cycle_run.h"
#include "simulator/cycle/datapath.h"
#include "simulator/memory/axi_memory.h"

namespace weft::sim::cycle {

struct CycleSim::State {
  State(const isa::Layout& l, KernelIsa isa) : dp(l, isa) {}
  Datapath dp;
};

CycleSim::CycleSim(const isa::Layout& layout, const isa::Platform& platform,
                   const ModelOptions& model)
    : l_(layout),
      p_(platform),
      model_(model),
      state_(std::make_unique<State>(layout, model.kernel)) {
  AxiMemory check(platform);  // validates the platform now rather than at the first run
}

KernelIsa CycleSim::kernel_isa() const { return state_->dp.kernel().isa(); }

CycleSim::~CycleSim() = default;

CycleStats CycleSim::run(std::vector<uint8_t>& dram, uint64_t insn_offset, uint64_t insn_count,
                         const RunOptions& opts) {
  if (opts.port && insn_count > 0 && insn_offset <= dram.size() &&
      insn_count <= (dram.size() - insn_offset) / isa::kInsnBytes) {
    // The whole stream is decoded before cycle 0 (fetch_program), so it is read then.
    std::vector<Burst> bursts;
    split_bursts(p_, insn_offset, insn_count * isa::kInsnBytes, bursts);
    for (const Burst& b : bursts) opts.port->before_read(0, b.first_byte, b.nbytes);
  }
  const std::vector<isa::Insn> program = fetch_program(l_, dram, insn_offset, insn_count);
  CycleRun run(l_, p_, model_, state_->dp, program, dram, insn_offset, insn_count, opts);
  return run.execute();
}

}  // namespace weft::sim::cycle
