// Write DMA schedule; see store_dma.h.
#include "simulator/cycle/store_dma.h"

#include <algorithm>

namespace weft::sim::cycle {

StoreTiming run_store(const isa::Layout& l, AxiMemory& mem, const isa::Insn& insn, uint64_t start,
                      const Datapath& dp, std::vector<uint8_t>& dram, DramPort* port,
                      int64_t index) {
  StoreTiming t;
  t.done = start;
  if (insn.x_size == 0 || insn.y_size == 0) return t;
  const int64_t elem = l.out_elem_bytes;
  std::vector<Burst> bursts;
  uint64_t next_beat = start + 1;  // the accumulator read takes the start cycle
  const isa::StoreRequant rq = isa::store_requant_of(l, insn);
  for (int64_t y = 0; y < insn.y_size; ++y) {
    const uint64_t addr = static_cast<uint64_t>(insn.dram_base + y * insn.x_stride) * elem;
    for (int64_t x = 0; x < insn.x_size; ++x) {
      dp.read_out_elem(insn.sram_base + y * insn.x_size + x, &dram[addr + x * elem], rq);
    }
    bursts.clear();
    split_bursts(mem.platform(), addr, static_cast<uint64_t>(insn.x_size * elem), bursts);
    for (const Burst& b : bursts) {
      if (port) port->after_write(start, b.first_byte, b.nbytes);
      const uint64_t first = mem.next_write_slot(next_beat);
      const uint64_t resp = mem.accept_write(first, b.beats, {"store", index, b.aligned_addr});
      next_beat = first + b.beats;
      t.beats += b.beats;
      t.done = std::max(t.done, resp);
    }
  }
  t.dram_stall = (t.done - start + 1) - 1 - t.beats;
  return t;
}

}  // namespace weft::sim::cycle
