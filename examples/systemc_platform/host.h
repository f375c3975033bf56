// The CPU of the example virtual platform: one SystemC thread that plays the firmware. It
// copies a DRAM image into the platform's memory over the bus, programs the accelerator's
// registers in the order of the driver's shared sequence (driver/launch.cc: arguments, then
// ap_start), sleeps until the interrupt, reads ap_done, the error register and the counters,
// clears the interrupt and copies the memory back.
#pragma once

// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
// clang-format on

#include <cstdint>
#include <string>
#include <vector>

namespace weft::example {

/// What the host saw of one accelerator run.
struct HostRun {
  sc_core::sc_time loaded, started, interrupted;  // image in memory; ap_start; interrupt
  uint32_t control = 0, error = 0, error_insn = 0;
  uint64_t cycles = 0, busy[3] = {0, 0, 0}, stall[3] = {0, 0, 0};
  uint64_t bus_transactions = 0;  // the host's own (image in and out, registers)
  std::vector<uint8_t> image;     // memory after the run
};

/// The CPU: a bus initiator and an interrupt input.
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> bus;
  sc_core::sc_in<bool> irq;

  SC_HAS_PROCESS(Host);
  /// Runs `image` (instructions at byte 0, `insn_count` of them) on the accelerator whose
  /// registers are at `control`, the image placed at device address `dram`.
  Host(const sc_core::sc_module_name& name, std::vector<uint8_t> image, uint64_t insn_count,
       uint64_t control, uint64_t dram);

  /// Valid once the simulation has ended: what happened.
  const HostRun& result() const { return run_; }
  /// False when a bus access failed (the reason is printed).
  bool ok() const { return ok_; }

 private:
  void firmware();  // the thread
  bool access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len);
  uint32_t read32(uint64_t addr);
  void write32(uint64_t addr, uint32_t value);
  uint64_t read64(uint64_t addr);
  void write64(uint64_t addr, uint64_t value);

  std::vector<uint8_t> image_;
  uint64_t insn_count_, control_, dram_;
  HostRun run_;
  bool ok_ = true;
};

}  // namespace weft::example
