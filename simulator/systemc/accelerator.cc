// The SystemC TLM-2.0 accelerator: register map, run thread and interrupt; see accelerator.h.
#include "simulator/systemc/accelerator.h"

#include <cstring>
#include <limits>

#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "simulator/common/program_error.h"

namespace weft::sim::systemc {

namespace reg = isa::reg;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

// The run thread calls the whole cycle model and, through it, the memory's b_transport.
constexpr size_t kRunThreadStack = size_t{4} << 20;

sc_time period_of(const AcceleratorOptions& o, const isa::Platform& p) {
  if (o.clock_period != SC_ZERO_TIME) return o.clock_period;
  if (!(p.clock_mhz > 0)) {
    throw UserError("platform '" + p.name +
                    "' has no clock: give AcceleratorOptions::clock_period");
  }
  const sc_time t(1e6 / p.clock_mhz, sc_core::SC_PS);
  if (t == SC_ZERO_TIME) {
    throw UserError("the clock period of platform '" + p.name +
                    "' rounds to zero at the SystemC time resolution");
  }
  return t;
}

uint32_t half(uint64_t v, uint32_t offset) {
  return static_cast<uint32_t>((offset & 4) ? v >> 32 : v);
}

void set_half(uint64_t& v, uint32_t offset, uint32_t value) {
  if (offset & 4) {
    v = (v & 0xFFFFFFFFu) | (static_cast<uint64_t>(value) << 32);
  } else {
    v = (v & ~uint64_t{0xFFFFFFFFu}) | value;
  }
}

}  // namespace

Accelerator::Accelerator(const sc_core::sc_module_name& name, const isa::Layout& layout,
                         const isa::Platform& platform, const AcceleratorOptions& options)
    : sc_module(name),
      control("control"),
      gmem("gmem"),
      interrupt("interrupt"),
      options_(options),
      period_(period_of(options, platform)),
      sim_(layout, platform),
      port_(gmem) {
  if (options.dram_bytes == 0) throw UserError("AcceleratorOptions::dram_bytes must not be 0");
  control.register_b_transport(this, &Accelerator::control_b_transport);
  control.register_transport_dbg(this, &Accelerator::control_transport_dbg);
  gmem.register_invalidate_direct_mem_ptr(this, &Accelerator::gmem_invalidate);
  SC_THREAD(run_thread);
  set_stack_size(kRunThreadStack);
  SC_METHOD(drive_irq);
  sensitive << irq_event_;
  dont_initialize();
}

void Accelerator::drive_irq() { interrupt.write(regs_.gie && regs_.isr); }

uint32_t Accelerator::read_reg(uint32_t offset, bool side_effects) {
  switch (offset) {
    case reg::kControl: {
      const uint32_t v = (regs_.running ? reg::kApStart : 0) | (regs_.done ? reg::kApDone : 0) |
                         (regs_.running ? 0 : reg::kApIdle) | (regs_.done ? reg::kApReady : 0);
      if (side_effects) regs_.done = false;  // ap_done clears on read
      return v;
    }
    case reg::kGlobalIntEnable:
      return regs_.gie;
    case reg::kIpIntEnable:
      return regs_.ier;
    case reg::kIpIntStatus:
      return regs_.isr;
    default:
      break;
  }
  if (offset < reg::kInsnAddr) return half(regs_.insn_count, offset);
  if (offset < reg::kDramBase) return half(regs_.insn_addr, offset);
  if (offset < reg::kCycles) return half(regs_.dram_base, offset);
  if (regs_.running) return 0;  // the results of a run read 0 until it is done
  if (offset == reg::kError) return regs_.error;
  if (offset == reg::kErrorInsn) return regs_.error_insn;
  const uint32_t k = (offset - reg::kCycles) / 8;  // cycles, then busy/stall per module
  if (k == 0) return half(regs_.cycles, offset);
  return half((k % 2 == 1) ? regs_.busy[(k - 1) / 2] : regs_.stall[(k - 1) / 2], offset);
}

tlm::tlm_response_status Accelerator::write_reg(uint32_t offset, uint32_t value,
                                                const sc_time& delay) {
  const bool idle = !regs_.running;
  switch (offset) {
    case reg::kControl:
      if ((value & reg::kApStart) == 0) return tlm::TLM_OK_RESPONSE;
      if (!idle) return tlm::TLM_COMMAND_ERROR_RESPONSE;  // the RTL drops it
      regs_.running = true;
      regs_.done = false;
      regs_.cycles = 0;
      for (int m = 0; m < 3; ++m) regs_.busy[m] = regs_.stall[m] = 0;
      regs_.error = regs_.error_insn = 0;
      start_event_.notify(delay);  // the run starts at the write's annotated time
      return tlm::TLM_OK_RESPONSE;
    case reg::kIpIntStatus:
      if (value & 1u) regs_.isr = false;  // toggle on write: writing 1 clears
      irq_event_.notify(SC_ZERO_TIME);
      return tlm::TLM_OK_RESPONSE;
    default:
      break;
  }
  if (offset >= reg::kCycles) return tlm::TLM_COMMAND_ERROR_RESPONSE;  // read-only
  if (!idle) return tlm::TLM_COMMAND_ERROR_RESPONSE;  // the RTL ignores writes while running
  if (offset == reg::kGlobalIntEnable || offset == reg::kIpIntEnable) {
    (offset == reg::kGlobalIntEnable ? regs_.gie : regs_.ier) = value & 1u;
    irq_event_.notify(SC_ZERO_TIME);
  } else if (offset < reg::kInsnAddr) {
    set_half(regs_.insn_count, offset, value);
  } else if (offset < reg::kDramBase) {
    set_half(regs_.insn_addr, offset, value);
  } else {
    set_half(regs_.dram_base, offset, value);
  }
  return tlm::TLM_OK_RESPONSE;
}

void Accelerator::control_b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (addr >= reg::kMapEnd || addr % 4 != 0) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  // Registers are 32 bits wide: one whole register per transaction, no streaming.
  if (len != 4 || trans.get_streaming_width() < len) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  if (const unsigned char* be = trans.get_byte_enable_ptr()) {
    const unsigned be_len = trans.get_byte_enable_length();
    for (unsigned i = 0; i < len; ++i) {
      if (be_len == 0 || be[i % be_len] != TLM_BYTE_ENABLED) {
        trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
      }
    }
  }
  const auto offset = static_cast<uint32_t>(addr);
  tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
  if (trans.is_read()) {
    const uint32_t v = read_reg(offset, true);
    std::memcpy(trans.get_data_ptr(), &v, 4);
  } else if (trans.is_write()) {
    uint32_t v;
    std::memcpy(&v, trans.get_data_ptr(), 4);
    status = write_reg(offset, v, delay);
  }  // TLM_IGNORE_COMMAND: nothing to do
  trans.set_dmi_allowed(false);
  trans.set_response_status(status);
}

unsigned Accelerator::control_transport_dbg(tlm::tlm_generic_payload& trans) {
  // Debug reads see every register without side effects (ap_done stays set); no debug writes.
  const uint64_t addr = trans.get_address();
  if (!trans.is_read() || addr % 4 != 0 || addr >= reg::kMapEnd) return 0;
  unsigned n = 0;
  for (uint64_t a = addr; n + 4 <= trans.get_data_length() && a < reg::kMapEnd; a += 4, n += 4) {
    const uint32_t v = read_reg(static_cast<uint32_t>(a), false);
    std::memcpy(trans.get_data_ptr() + n, &v, 4);
  }
  return n;
}

void Accelerator::execute() {
  const bool timed = options_.timing == Timing::kTimed;
  stats_ = cycle::CycleStats{};
  error_detail_.clear();
  port_.begin(image_, regs_.dram_base, period_, timed, options_.use_dmi);
  try {
    if (regs_.dram_base > std::numeric_limits<uint64_t>::max() - options_.dram_bytes) {
      throw ProgramError(reg::kErrDramRange, ProgramError::kNoInsn,
                         "DRAM base " + std::to_string(regs_.dram_base) + " plus the " +
                             std::to_string(options_.dram_bytes) +
                             "-byte DRAM window passes the end of the address space");
    }
    if (image_.size() != options_.dram_bytes) image_.assign(options_.dram_bytes, 0);
    cycle::RunOptions ro;
    ro.port = &port_;
    const cycle::CycleStats s = sim_.run(image_, regs_.insn_addr, regs_.insn_count, ro);
    if (timed) {
      const sc_time end = port_.time_of(s.cycles);
      if (end > sc_core::sc_time_stamp()) wait(end - sc_core::sc_time_stamp());
    }
    stats_ = s;
    regs_.cycles = s.cycles;
    const cycle::ModuleCycles* m[3] = {&s.load, &s.compute, &s.store};
    for (int i = 0; i < 3; ++i) {
      regs_.busy[i] = m[i]->busy;
      regs_.stall[i] = m[i]->total() - m[i]->busy - m[i]->idle;
    }
    return;
  } catch (const ProgramError& e) {
    regs_.error = e.bit();
    regs_.error_insn = static_cast<uint32_t>(e.insn());
    error_detail_ = e.what();
  } catch (const std::exception& e) {
    // Not a program error (out of memory, a bug): the device must still come back idle.
    regs_.error = reg::kErrInternal;
    error_detail_ =
        std::string(dynamic_cast<const InternalError*>(&e) ? "internal error: " : "") + e.what();
  }
  // A failed run ends at the last cycle the model reported (its last DMA or progress point).
  if (timed) {
    const sc_time end = port_.time_of(port_.last_cycle());
    if (end > sc_core::sc_time_stamp()) wait(end - sc_core::sc_time_stamp());
  }
}

void Accelerator::run_thread() {
  while (true) {
    wait(start_event_);
    execute();
    regs_.running = false;
    regs_.done = true;
    regs_.isr = regs_.isr || regs_.ier;
    irq_event_.notify(SC_ZERO_TIME);
  }
}

}  // namespace weft::sim::systemc
