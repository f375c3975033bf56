// The memory port of a cycle-model run: where its DMA traffic goes besides the DRAM image the
// model computes on. The model tells the port which bytes it is about to read (before it reads
// them) and which it has written (after it wrote them), and at which cycle, so that a wrapper
// can keep the image coherent with a memory elsewhere: the SystemC model (simulator/systemc)
// fills the bytes from, and writes them to, its TLM-2.0 initiator socket. Without a port the
// image is the memory, as for the `cycle` engine; with one, timing and data are unchanged.
#pragma once

#include <cstdint>

namespace weft::sim {

/// Receives a run's DMA traffic, one AXI burst at a time, at non-decreasing cycles.
class DramPort {
 public:
  virtual ~DramPort() = default;
  /// Bytes [addr, addr + nbytes) of the image are read at `cycle`: make them current.
  virtual void before_read(uint64_t cycle, uint64_t addr, uint64_t nbytes) = 0;
  /// Bytes [addr, addr + nbytes) of the image were written at `cycle`.
  virtual void after_write(uint64_t cycle, uint64_t addr, uint64_t nbytes) = 0;
  /// The run reached `cycle` (called now and then, also when no DMA moves): a chance to let
  /// the rest of a platform run.
  virtual void reached(uint64_t cycle) {}
};

}  // namespace weft::sim
