// The SystemC tests' shared platform; see test_platform.h.
#include "tests/simulator/systemc/test_platform.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "tests/support/test_configs.h"

namespace weft::test {

namespace reg = isa::reg;
using sc_core::sc_time;

tlm::tlm_response_status Host::transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data,
                                         unsigned len, unsigned streaming_width,
                                         const std::vector<uint8_t>* byte_enables) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(streaming_width ? streaming_width : len);
  if (byte_enables) {
    t.set_byte_enable_ptr(const_cast<uint8_t*>(byte_enables->data()));
    t.set_byte_enable_length(static_cast<unsigned>(byte_enables->size()));
  }
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(t, delay);
  if (delay > sc_core::SC_ZERO_TIME) wait(delay);  // an untimed host: no quantum keeper
  return t.get_response_status();
}

uint32_t Host::read32(uint64_t addr) {
  uint32_t v = 0;
  const auto s = transport(tlm::TLM_READ_COMMAND, addr, reinterpret_cast<uint8_t*>(&v), 4);
  EXPECT_EQ(s, tlm::TLM_OK_RESPONSE) << "read of 0x" << std::hex << addr;
  return v;
}

tlm::tlm_response_status Host::try_write32(uint64_t addr, uint32_t value) {
  return transport(tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<uint8_t*>(&value), 4);
}

void Host::write32(uint64_t addr, uint32_t value) {
  EXPECT_EQ(try_write32(addr, value), tlm::TLM_OK_RESPONSE) << "write of 0x" << std::hex << addr;
}

Probe::Probe(const sc_core::sc_module_name& name) : sc_module(name), in("in"), out("out") {
  in.register_b_transport(this, &Probe::b_transport);
  in.register_get_direct_mem_ptr(this, &Probe::get_direct_mem_ptr);
  in.register_transport_dbg(this, &Probe::transport_dbg);
  out.register_invalidate_direct_mem_ptr(this, &Probe::invalidate);
}

void Probe::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  if (recording) times.push_back(sc_core::sc_time_stamp() + delay);
  out->b_transport(trans, delay);
}

bool Probe::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  return out->get_direct_mem_ptr(trans, dmi);
}

unsigned Probe::transport_dbg(tlm::tlm_generic_payload& trans) { return out->transport_dbg(trans); }

void Probe::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  in->invalidate_direct_mem_ptr(start, end);
}

struct TestPlatform::Impl {
  struct Slot {
    std::string config;
    std::unique_ptr<sysc::Accelerator> accel;
    std::unique_ptr<sc_core::sc_signal<bool>> irq;
    uint64_t control = 0;
  };
  std::unique_ptr<sysc::Router> router;
  std::vector<Slot> slots;

  Slot& slot(const std::string& config) {
    for (Slot& s : slots) {
      if (s.config == config) return s;
    }
    throw std::out_of_range("no accelerator for configuration " + config);
  }
};

TestPlatform& TestPlatform::get() {
  // Never destroyed: SystemC's kernel may be torn down first at exit.
  static TestPlatform* platform = new TestPlatform();
  return *platform;
}

TestPlatform::TestPlatform() : impl_(std::make_unique<Impl>()) {
  memory_ = std::make_unique<sysc::Memory>("memory", kMemBytes, kMemLatency);
  probe_ = std::make_unique<Probe>("probe");
  probe_->out.bind(memory_->socket);
  host_ = std::make_unique<Host>("host");
  impl_->router = std::make_unique<sysc::Router>("bus");
  sysc::Router& bus = *impl_->router;
  host_->socket.bind(bus.targ);
  bus.init.bind(probe_->in);
  bus.map(0, kMemBase, kMemBytes);
  unsigned target = 1;
  // Every shipped configuration, and a configuration file (by its path, as a user gives it).
  std::vector<std::string> configs;
  for (const isa::HwConfig& c : isa::shipped_configs()) configs.push_back(c.name);
  configs.push_back(test_config_file());
  for (const std::string& config : configs) {
    const isa::Layout& l = isa::layout_for(config);
    Impl::Slot s;
    s.config = config;
    sysc::AcceleratorOptions o;
    o.dram_bytes = kWindowBytes;
    s.accel = std::make_unique<sysc::Accelerator>(("accel_" + l.config.name).c_str(), l,
                                                  isa::find_platform("sim"), o);
    s.irq = std::make_unique<sc_core::sc_signal<bool>>(("irq_" + l.config.name).c_str());
    s.accel->interrupt.bind(*s.irq);
    s.accel->gmem.bind(bus.targ);
    bus.init.bind(s.accel->control);
    s.control = kControlBase + 0x1000 * (target - 1);
    bus.map(target++, s.control, 0x1000);
    impl_->slots.push_back(std::move(s));
  }
}

sysc::Accelerator& TestPlatform::accel(const std::string& config) {
  return *impl_->slot(config).accel;
}

uint64_t TestPlatform::control(const std::string& config) const {
  return impl_->slot(config).control;
}

bool TestPlatform::irq_level(const std::string& config) const {
  return impl_->slot(config).irq->read();
}

const sc_core::sc_event& TestPlatform::irq_rise_event(const std::string& config) {
  return impl_->slot(config).irq->posedge_event();
}

void TestPlatform::run_host(std::function<void()> body) {
  sc_core::sc_spawn(std::move(body));
  sc_core::sc_start();
}

void TestPlatform::load(uint64_t offset, const std::vector<uint8_t>& image) {
  ASSERT_LE(offset + image.size(), kMemBytes);
  std::memcpy(memory_->data() + offset, image.data(), image.size());
}

std::vector<uint8_t> TestPlatform::dump(uint64_t offset, uint64_t bytes) {
  EXPECT_LE(offset + bytes, kMemBytes);
  return std::vector<uint8_t>(memory_->data() + offset, memory_->data() + offset + bytes);
}

RegisterRun TestPlatform::run_registers(const std::string& config, uint64_t dram_base,
                                        uint64_t insn_addr, uint64_t insn_count) {
  Host& h = host();
  const uint64_t c = control(config);
  auto write64 = [&](uint32_t off, uint64_t v) {
    h.write32(c + off, static_cast<uint32_t>(v));
    h.write32(c + off + 4, static_cast<uint32_t>(v >> 32));
  };
  auto read64 = [&](uint32_t off) {
    const uint64_t lo = h.read32(c + off);
    return lo | (uint64_t{h.read32(c + off + 4)} << 32);
  };
  RegisterRun r;
  h.write32(c + reg::kGlobalIntEnable, 1);
  h.write32(c + reg::kIpIntEnable, 1);
  write64(reg::kInsnCount, insn_count);
  write64(reg::kInsnAddr, insn_addr);
  write64(reg::kDramBase, dram_base);
  r.started = sc_core::sc_time_stamp();
  h.write32(c + reg::kControl, reg::kApStart);
  sc_core::wait(sc_time(10, sc_core::SC_SEC), irq_rise_event(config));
  r.interrupted = sc_core::sc_time_stamp();
  EXPECT_TRUE(irq_level(config)) << "no interrupt within 10 s of simulated time";
  r.control_at_irq = h.read32(c + reg::kControl);
  r.control_after = h.read32(c + reg::kControl);
  r.cycles = read64(reg::kCycles);
  const uint32_t busy[3] = {reg::kLoadBusy, reg::kComputeBusy, reg::kStoreBusy};
  const uint32_t stall[3] = {reg::kLoadStall, reg::kComputeStall, reg::kStoreStall};
  for (int m = 0; m < 3; ++m) {
    r.busy[m] = read64(busy[m]);
    r.stall[m] = read64(stall[m]);
  }
  r.error = h.read32(c + reg::kError);
  r.error_insn = h.read32(c + reg::kErrorInsn);
  h.write32(c + reg::kIpIntStatus, 1);   // write 1 to clear
  sc_core::wait(sc_core::SC_ZERO_TIME);  // the interrupt driver runs
  sc_core::wait(sc_core::SC_ZERO_TIME);  // the signal updates
  r.irq_low_after_clear = !irq_level(config);
  return r;
}

}  // namespace weft::test
