// The example platform's CPU; see host.h.
#include "examples/systemc_platform/host.h"

#include <algorithm>
#include <iostream>

#include "hardware/isa/registers.h"

namespace weft::example {

namespace reg = isa::reg;

namespace {
constexpr unsigned kChunk = 4096;  // bytes per bus transaction when copying the image
}  // namespace

Host::Host(const sc_core::sc_module_name& name, std::vector<uint8_t> image, uint64_t insn_count,
           uint64_t control, uint64_t dram)
    : sc_module(name),
      bus("bus"),
      irq("irq"),
      image_(std::move(image)),
      insn_count_(insn_count),
      control_(control),
      dram_(dram) {
  SC_THREAD(firmware);
}

bool Host::access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  bus->b_transport(t, delay);
  ++run_.bus_transactions;
  wait(delay);  // a simple host: it takes the time the target annotates, at once
  if (t.is_response_error()) {
    std::cerr << "host: bus " << (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") << " at 0x"
              << std::hex << addr << std::dec << " failed: " << t.get_response_string() << "\n";
    ok_ = false;
    return false;
  }
  return true;
}

uint32_t Host::read32(uint64_t addr) {
  uint32_t v = 0;
  access(tlm::TLM_READ_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), 4);
  return v;
}

void Host::write32(uint64_t addr, uint32_t value) {
  access(tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<uint8_t*>(&value), 4);
}

uint64_t Host::read64(uint64_t addr) {
  const uint64_t lo = read32(addr);
  return lo | (uint64_t{read32(addr + 4)} << 32);
}

void Host::write64(uint64_t addr, uint64_t value) {
  write32(addr, static_cast<uint32_t>(value));
  write32(addr + 4, static_cast<uint32_t>(value >> 32));
}

void Host::firmware() {
  // 1. The image (instructions, micro-ops, input, weights, bias) into the platform's memory.
  for (uint64_t off = 0; off < image_.size() && ok_; off += kChunk) {
    const auto n = static_cast<unsigned>(std::min<uint64_t>(kChunk, image_.size() - off));
    access(tlm::TLM_WRITE_COMMAND, dram_ + off, image_.data() + off, n);
  }
  run_.loaded = sc_core::sc_time_stamp();

  // 2. The driver's sequence: idle? arguments, interrupt enables, ap_start.
  if ((read32(control_ + reg::kControl) & reg::kApIdle) == 0) {
    std::cerr << "host: the accelerator is not idle\n";
    ok_ = false;
  }
  write64(control_ + reg::kInsnCount, insn_count_);
  write64(control_ + reg::kInsnAddr, 0);      // instructions at byte 0 of the image
  write64(control_ + reg::kDramBase, dram_);  // every DMA address is relative to the image
  write32(control_ + reg::kGlobalIntEnable, 1);
  write32(control_ + reg::kIpIntEnable, 1);  // bit 0: interrupt on ap_done
  run_.started = sc_core::sc_time_stamp();
  write32(control_ + reg::kControl, reg::kApStart);

  // 3. Sleep until the interrupt; then ap_done (clears on read), errors, counters.
  if (!ok_) return;
  wait(irq.posedge_event());
  run_.interrupted = sc_core::sc_time_stamp();
  run_.control = read32(control_ + reg::kControl);
  run_.error = read32(control_ + reg::kError);
  run_.error_insn = read32(control_ + reg::kErrorInsn);
  run_.cycles = read64(control_ + reg::kCycles);
  const uint32_t busy[3] = {reg::kLoadBusy, reg::kComputeBusy, reg::kStoreBusy};
  const uint32_t stall[3] = {reg::kLoadStall, reg::kComputeStall, reg::kStoreStall};
  for (int m = 0; m < 3; ++m) {
    run_.busy[m] = read64(control_ + busy[m]);
    run_.stall[m] = read64(control_ + stall[m]);
  }
  write32(control_ + reg::kIpIntStatus, 1);  // acknowledge: write 1 to clear

  // 4. The result back out of memory.
  run_.image.resize(image_.size());
  for (uint64_t off = 0; off < image_.size() && ok_; off += kChunk) {
    const auto n = static_cast<unsigned>(std::min<uint64_t>(kChunk, image_.size() - off));
    access(tlm::TLM_READ_COMMAND, dram_ + off, run_.image.data() + off, n);
  }
}

}  // namespace weft::example
