// The cycle model's memory port (simulator/memory/dram_port.h) over a TLM-2.0 initiator
// socket: every burst the model reads or writes becomes one b_transport to the platform's
// memory, or a copy through a direct-memory-interface pointer once the target has granted one.
// In timed mode each transaction carries the local time of the cycle the model moves the data
// (start + cycle x clock period), kept by a tlm_quantumkeeper that yields to the rest of the
// platform once per global quantum; untimed, every transaction happens at the start time. The
// time a target adds to the annotation is recorded but not applied: the accelerator's memory
// timing is the cycle model's platform (isa::Platform), so its cycle count stays exact.
#pragma once

// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/tlm_quantumkeeper.h>
// clang-format on

#include <cstdint>
#include <vector>

#include "simulator/memory/dram_port.h"

namespace weft::sim::systemc {

/// What one run's DMA did on the initiator socket.
struct DmaStats {
  uint64_t transactions = 0;  // b_transport calls
  uint64_t dmi_copies = 0;    // bursts copied through a DMI pointer instead
  uint64_t dmi_grants = 0;    // DMI regions obtained
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t syncs = 0;             // quantum-keeper synchronisations (waits)
  sc_core::sc_time target_delay;  // time targets added to the annotations (not applied)
};

/// One accelerator's DMA initiator: the cycle model's DramPort on a TLM socket.
class DmaPort final : public DramPort {
 public:
  explicit DmaPort(tlm::tlm_initiator_socket<>& socket) : socket_(socket) {}

  /// Prepares a run over `image`, whose byte 0 is device address `device_base`, starting now.
  void begin(std::vector<uint8_t>& image, uint64_t device_base, const sc_core::sc_time& period,
             bool timed, bool use_dmi);
  /// The SystemC time of `cycle` of the current run (start + cycle x period).
  sc_core::sc_time time_of(uint64_t cycle) const;
  /// The latest cycle the run has reported.
  uint64_t last_cycle() const { return last_cycle_; }
  /// Drops every DMI region that overlaps [start, end] (the socket's backward call).
  void invalidate(uint64_t start, uint64_t end);
  /// The current run's traffic.
  const DmaStats& stats() const { return stats_; }

  void before_read(uint64_t cycle, uint64_t addr, uint64_t nbytes) override;
  void after_write(uint64_t cycle, uint64_t addr, uint64_t nbytes) override;
  void reached(uint64_t cycle) override { advance(cycle); }

 private:
  void advance(uint64_t cycle);  // local time = time_of(cycle) - now; sync once a quantum
  void transfer(tlm::tlm_command cmd, uint64_t addr, uint64_t nbytes);

  tlm::tlm_initiator_socket<>& socket_;
  tlm_utils::tlm_quantumkeeper qk_;
  tlm::tlm_generic_payload trans_;
  std::vector<tlm::tlm_dmi> dmi_;  // regions granted so far (device addresses)
  std::vector<uint8_t>* image_ = nullptr;
  uint64_t base_ = 0;
  sc_core::sc_time start_, period_;
  bool timed_ = true, use_dmi_ = true;
  uint64_t last_cycle_ = 0;
  DmaStats stats_;
};

}  // namespace weft::sim::systemc
