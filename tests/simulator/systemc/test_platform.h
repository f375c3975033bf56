// The virtual platform of the SystemC model's tests. SystemC elaborates once per process, so
// every test of the binary shares one platform, built on first use: a memory (with a
// transaction latency the accelerator must not add to its own timing) behind a probe that
// records when each transaction takes place, a router, a host
// initiator and one accelerator per shipped configuration and for the test configuration
// file (tests/support/test_configs.h, keyed by its path), each with its interrupt line
// watched. A test runs host code as a SystemC thread (run_host) until the simulation has
// nothing left to do; tests depend only on times relative to their own start, never on the
// absolute time an earlier test left behind. ctest runs each test in its own process.
#pragma once

// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
// clang-format on

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "simulator/systemc/accelerator.h"
#include "simulator/systemc/memory.h"
#include "simulator/systemc/router.h"

namespace weft::test {

namespace sysc = sim::systemc;

/// A bus initiator for host code (runs inside run_host).
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> socket;
  explicit Host(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {}

  /// One transaction as given; returns its response. `byte_enables` (if any) must stay alive.
  tlm::tlm_response_status transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                                     unsigned len, unsigned streaming_width = 0,
                                     const std::vector<uint8_t>* byte_enables = nullptr);
  /// A 32-bit register access that must succeed (a test failure otherwise).
  uint32_t read32(uint64_t addr);
  void write32(uint64_t addr, uint32_t value);
  /// A 32-bit write and its response.
  tlm::tlm_response_status try_write32(uint64_t addr, uint32_t value);
};

/// Sits in front of the memory and records the time each b_transport takes place at
/// (SystemC time plus the initiator's annotation) while `recording`.
class Probe : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Probe> in;
  tlm_utils::simple_initiator_socket<Probe> out;
  explicit Probe(const sc_core::sc_module_name& name);

  bool recording = false;
  std::vector<sc_core::sc_time> times;

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);
};

/// What one run through the registers gave, as the host saw it.
struct RegisterRun {
  sc_core::sc_time started, interrupted;  // the ap_start write; the interrupt's rising edge
  uint64_t cycles = 0;
  uint64_t busy[3] = {0, 0, 0}, stall[3] = {0, 0, 0};
  uint32_t control_at_irq = 0, control_after = 0;  // 0x00 read twice after the interrupt
  uint32_t error = 0, error_insn = 0;
  bool irq_low_after_clear = false;
  /// The time the run took as the platform saw it.
  sc_core::sc_time elapsed() const { return interrupted - started; }
};

/// The shared platform.
class TestPlatform {
 public:
  static constexpr uint64_t kMemBase = 0x8000'0000;
  static constexpr uint64_t kMemBytes = uint64_t{48} << 20;
  static constexpr uint64_t kWindowBytes = uint64_t{16} << 20;  // each accelerator's DRAM window
  static constexpr uint64_t kControlBase = 0x4000'0000;         // + 0x1000 per accelerator
  static inline const sc_core::sc_time kMemLatency{10, sc_core::SC_NS};

  /// The platform, built on the first call.
  static TestPlatform& get();

  sysc::Memory& memory() { return *memory_; }
  Probe& probe() { return *probe_; }
  Host& host() { return *host_; }
  /// The accelerator of a configuration (a shipped name or the test file), and the base of its
  /// registers.
  sysc::Accelerator& accel(const std::string& config);
  uint64_t control(const std::string& config) const;
  /// A configuration's interrupt line, and the event of its rising edge.
  bool irq_level(const std::string& config) const;
  const sc_core::sc_event& irq_rise_event(const std::string& config);

  /// Runs `body` as a SystemC thread, then the simulation until nothing is left to do.
  void run_host(std::function<void()> body);

  /// Copies `image` into memory at byte `offset` of it (a backdoor, no simulated time).
  void load(uint64_t offset, const std::vector<uint8_t>& image);
  /// `bytes` of memory from byte `offset`.
  std::vector<uint8_t> dump(uint64_t offset, uint64_t bytes);

  /// Host code: programs the arguments, enables the interrupt, raises ap_start, waits for the
  /// interrupt, reads control twice, the counters and the error register, clears the
  /// interrupt. `dram_base` is the device address the accelerator's addresses start from.
  RegisterRun run_registers(const std::string& config, uint64_t dram_base, uint64_t insn_addr,
                            uint64_t insn_count);

 private:
  TestPlatform();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::unique_ptr<sysc::Memory> memory_;
  std::unique_ptr<Probe> probe_;
  std::unique_ptr<Host> host_;
};

}  // namespace weft::test
