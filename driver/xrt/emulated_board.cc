// The emulated board; see xrt_seam.h. Device memory is a Weft engine's memory (rtl or cycle
// backend): buffers are allocations in it, host copies are separate vectors, and sync copies
// between the two. A run whose buffers were written on the host and not synced is an error
// (the board would have run on stale memory). After the engine finishes, the kernel writes
// the register image 0x28..0x67 into the status buffer, as hardware/fpga/weft_kernel.sv does.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <map>
#include <thread>
#include <utility>

#include "driver/device.h"
#include "driver/rtl_device.h"
#include "driver/sim_device.h"
#include "driver/xrt/xrt_seam.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"
#include "simulator/common/program.h"
#include "simulator/common/program_error.h"
#include "simulator/common/stats.h"
#include "simulator/cycle/cycle_sim.h"

#ifdef WEFT_HAVE_RTL
#include "driver/rtl/core_stats.h"
#include "driver/rtl/kernel_top.h"
#endif

namespace weft::driver::xrt {

namespace reg = isa::reg;

namespace {

uint64_t fingerprint(const std::vector<uint8_t>& v) {
  uint64_t h = 1469598103934665603ull;
  const uint8_t* p = v.data();
  size_t n = v.size(), i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// Device memory of the emulated board: a Weft engine's (the cycle path) or a plain vector that
// the kernel top's m_axi_gmem is served from (the rtl path).
class EmuMemory {
 public:
  virtual ~EmuMemory() = default;
  virtual uint64_t alloc(uint64_t bytes) = 0;
  virtual void free(uint64_t addr) = 0;
  virtual void copy_to_device(uint64_t addr, const void* src, uint64_t bytes) = 0;
  virtual void copy_from_device(uint64_t addr, void* dst, uint64_t bytes) = 0;
};

class DeviceMemory : public EmuMemory {
 public:
  explicit DeviceMemory(Device& dev) : dev_(dev) {}
  uint64_t alloc(uint64_t bytes) override { return dev_.alloc(bytes); }
  void free(uint64_t addr) override { dev_.free(addr); }
  void copy_to_device(uint64_t a, const void* s, uint64_t n) override { dev_.copy_to_device(a, s, n); }
  void copy_from_device(uint64_t a, void* d, uint64_t n) override { dev_.copy_from_device(a, d, n); }

 private:
  Device& dev_;
};

class EmuBuffer : public Buffer {
 public:
  EmuBuffer(EmuMemory& dev, uint64_t bytes, int bank)
      : dev_(dev), host_(bytes, 0), addr_(dev.alloc(bytes)), bank_(bank) {
    synced_ = fingerprint(host_);
    dev_.copy_to_device(addr_, host_.data(), bytes);
  }
  ~EmuBuffer() override { dev_.free(addr_); }
  uint8_t* host() override { return host_.data(); }
  uint64_t size() const override { return host_.size(); }
  uint64_t device_address() const override { return addr_; }
  int bank() const override { return bank_; }
  void sync_to_device(uint64_t off, uint64_t n) override {
    check(off, n, "sync to device");
    dev_.copy_to_device(addr_ + off, host_.data() + off, n);
    if (off == 0 && n == host_.size()) synced_ = fingerprint(host_), partial_ = false;
    else partial_ = true;
  }
  void sync_from_device(uint64_t off, uint64_t n) override {
    check(off, n, "sync from device");
    dev_.copy_from_device(addr_ + off, host_.data() + off, n);
    if (off == 0 && n == host_.size()) synced_ = fingerprint(host_), partial_ = false;
    else partial_ = true;
  }
  /// Whether the host copy changed since the last whole-buffer sync (partial syncs are
  /// trusted: the caller synced what it wrote).
  /// Once a partial sync was made, the caller is trusted to sync what it writes (the xrt
  /// Device syncs exactly the bytes it copies), until the next whole-buffer sync. A run
  /// leaves the host copy alone, so the fingerprint of the last sync stays valid across it.
  bool unsynced() const { return !partial_ && fingerprint(host_) != synced_; }

 private:
  void check(uint64_t off, uint64_t n, const char* what) const {
    if (off > host_.size() || n > host_.size() - off) {
      throw UserError("xrt buffer: " + std::string(what) + " of bytes [" + std::to_string(off) +
                      ", " + std::to_string(off + n) + ") outside the " +
                      std::to_string(host_.size()) + "-byte buffer");
    }
  }
  EmuMemory& dev_;
  std::vector<uint8_t> host_;
  uint64_t addr_;
  int bank_;
  uint64_t synced_ = 0;
  bool partial_ = false;
};

// What both emulated kernels check at start, and the register image XRT writes.
std::vector<uint32_t> check_and_image(uint64_t count, uint64_t insn_addr, Buffer& dram,
                                      Buffer& status, uint64_t dram_offset) {
    for (Buffer* b : {&dram, &status}) {
      if (static_cast<EmuBuffer*>(b)->unsynced()) {
        throw UserError("xrt (emulated): a buffer of " + std::to_string(b->size()) +
                        " bytes at device address " + std::to_string(b->device_address()) +
                        " was written on the host and not synced to the device before the "
                        "run (call sync_to_device)");
      }
    }
    if (status.size() < reg::kStatusBytes) {
      throw UserError("xrt: the status buffer holds " + std::to_string(status.size()) +
                      " bytes; the kernel writes " + std::to_string(reg::kStatusBytes));
    }
    std::vector<uint32_t> image(reg::kKernelMapEnd / 4, 0);
    auto put = [&](uint32_t off, uint64_t v) {
      image[off / 4] = static_cast<uint32_t>(v);
      image[off / 4 + 1] = static_cast<uint32_t>(v >> 32);
    };
    put(reg::kInsnCount, count);
    put(reg::kInsnAddr, insn_addr);
    put(reg::kDramBase, dram.device_address() + dram_offset);
    put(reg::kStatusAddr, status.device_address());
    image[0] = reg::kApStart;
    return image;
}

class EmuKernel : public Kernel {
 public:
  explicit EmuKernel(Device& dev) : dev_(dev) {}
  uint32_t arg_offset(int index) const override {
    if (index < 0 || index >= reg::kNumKernelArgs) throw InternalError("no kernel argument");
    return reg::kKernelArgs[index].offset;
  }
  int arg_bank(int) const override { return 0; }
  void start(uint64_t count, uint64_t insn_addr, Buffer& dram, Buffer& status,
             uint64_t dram_offset) override {
    image_ = check_and_image(count, insn_addr, dram, status, dram_offset);
    dram_ = static_cast<EmuBuffer*>(&dram);
    status_ = static_cast<EmuBuffer*>(&status);
    // The same register writes the kernel's control slave takes (weft_top's part of the map).
    for (uint32_t off = reg::kInsnCount; off < reg::kCycles; off += 4) dev_.write_reg(off, image_[off / 4]);
    dev_.write_reg(reg::kControl, reg::kApStart);
    running_ = true;
  }
  RunState wait(std::chrono::milliseconds timeout) override {
    if (!running_) return RunState::kCompleted;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::microseconds(10);
    while ((dev_.read_reg(reg::kControl) & reg::kApDone) == 0) {
      if (timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) return RunState::kTimeout;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(5000));
    }
    finish();
    return RunState::kCompleted;
  }
  void abort() override {
    if (!running_) return;
    dev_.abort();
    finish();
  }
  std::vector<uint32_t> register_image() const override { return image_; }
  std::string error_detail() const override { return detail_; }
  nlohmann::ordered_json run_details() const override { return details_; }

 private:
  // weft_kernel's epilogue: the register image 0x28..0x67 into the status buffer.
  void finish() {
    running_ = false;
    std::vector<uint32_t> words(reg::kStatusBytes / 4);
    for (uint32_t i = 0; i < words.size(); ++i) words[i] = dev_.read_reg(reg::kCycles + 4 * i);
    detail_ = dev_.error_detail();
    details_ = dev_.run_details();
    dev_.copy_to_device(status_->device_address(), words.data(), reg::kStatusBytes);
  }
  Device& dev_;
  std::vector<uint32_t> image_;
  EmuBuffer* dram_ = nullptr;
  EmuBuffer* status_ = nullptr;
  bool running_ = false;
  std::string detail_;
  nlohmann::ordered_json details_;
};

#ifdef WEFT_HAVE_RTL
// The rtl path's device memory: the vector the kernel top's m_axi_gmem is served from.
class PlainMemory : public EmuMemory {
 public:
  explicit PlainMemory(uint64_t bytes) : bytes_(bytes, 0) {}
  std::vector<uint8_t>& bytes() { return bytes_; }
  uint64_t alloc(uint64_t bytes) override {
    if (bytes == 0) bytes = 1;
    uint64_t addr = 0;  // first fit, 64-byte aligned, as the rtl backend allocates
    for (const auto& [a, n] : allocations_) {
      if (addr <= a && bytes <= a - addr) break;
      addr = (a + n + 63) / 64 * 64;
    }
    if (addr > bytes_.size() || bytes > bytes_.size() - addr) {
      throw UserError("xrt (emulated): cannot allocate " + std::to_string(bytes) + " bytes of " +
                      std::to_string(bytes_.size()) + " bytes of device memory");
    }
    allocations_[addr] = bytes;
    return addr;
  }
  void free(uint64_t addr) override { allocations_.erase(addr); }
  void copy_to_device(uint64_t a, const void* s, uint64_t n) override {
    std::memcpy(bytes_.data() + a, s, n);
  }
  void copy_from_device(uint64_t a, void* d, uint64_t n) override {
    std::memcpy(d, bytes_.data() + a, n);
  }

 private:
  std::vector<uint8_t> bytes_;
  std::map<uint64_t, uint64_t> allocations_;
};

// The rtl path: the Verilated kernel top (hardware/fpga/weft_kernel.sv), driven as XRT drives
// an ap_ctrl_hs kernel. start writes the register image of the arguments to s_axi_control
// word by word, GIE and IER, then ap_start; a worker clocks the kernel (its m_axi_gmem served
// from device memory) until `interrupt`; wait then reads 0x00 (ap_done, clear on read) and
// clears the ISR, as XRT's interrupt path does. Counters and errors reach the host only
// through the status buffer the kernel wrote.
class KernelTopKernel : public Kernel {
 public:
  KernelTopKernel(std::unique_ptr<rtl::KernelTop> top, PlainMemory& mem, const isa::Layout& l,
                  const isa::Platform& p, const sim::FaultPlan* faults)
      : top_(std::move(top)), mem_(mem), l_(l), p_(p), faults_(faults) {}
  ~KernelTopKernel() override { abort(); }
  uint32_t arg_offset(int index) const override {
    if (index < 0 || index >= reg::kNumKernelArgs) throw InternalError("no kernel argument");
    return reg::kKernelArgs[index].offset;
  }
  int arg_bank(int) const override { return 0; }
  void start(uint64_t count, uint64_t insn_addr, Buffer& dram, Buffer& status,
             uint64_t dram_offset) override {
    if (running_) throw UserError("xrt (emulated): start while a run is in progress");
    image_ = check_and_image(count, insn_addr, dram, status, dram_offset);
    base_ = dram.device_address() + dram_offset;
    status_addr_ = status.device_address();
    insn_addr_ = insn_addr;
    count_ = count;
    detail_.clear();
    details_ = nlohmann::ordered_json::object();
    top_->attach(&mem_.bytes(), faults_);
    if ((top_->read_reg(reg::kControl) & reg::kApIdle) == 0)
      throw InternalError("xrt (emulated): the kernel top is not idle before ap_start");
    for (const reg::KernelArg& a : reg::kKernelArgs) {
      for (uint32_t w = 0; w < a.size / 4; ++w)
        top_->write_reg(a.offset + 4 * w, image_[a.offset / 4 + w]);
    }
    top_->write_reg(reg::kGlobalIntEnable, 1);
    top_->write_reg(reg::kIpIntEnable, 1);
    top_->write_reg(reg::kControl, reg::kApStart);
    cancel_ = false;
    done_ = false;
    running_ = true;
    worker_ = std::thread([this] {
      try {
        done_ = top_->run_until_interrupt(&cancel_);
      } catch (...) {
        failed_ = std::current_exception();
        done_ = true;
      }
      finished_ = true;
    });
  }
  RunState wait(std::chrono::milliseconds timeout) override {
    if (!running_) return RunState::kCompleted;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::microseconds(10);
    while (!finished_) {
      if (timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) return RunState::kTimeout;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
    worker_.join();
    finished_ = false;
    running_ = false;
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
    // XRT's side of ap_ctrl_hs: read ap_done (clears it) and acknowledge the interrupt.
    const uint32_t ctrl = top_->read_reg(reg::kControl);
    if ((ctrl & reg::kApDone) == 0) throw InternalError("xrt (emulated): interrupt without ap_done");
    top_->write_reg(reg::kIpIntStatus, 1);
    explain();
    return RunState::kCompleted;
  }
  void abort() override {
    if (!running_) return;
    cancel_ = true;
    worker_.join();
    finished_ = false;
    running_ = false;
    failed_ = nullptr;
    top_->reset();  // a board needs its kernel reset after a hang; here the core is reset
  }
  std::vector<uint32_t> register_image() const override { return image_; }
  std::string error_detail() const override { return detail_; }
  nlohmann::ordered_json run_details() const override { return details_; }
  uint64_t kernel_clock_cycles() const override { return top_->kernel_cycles(); }

 private:
  // After a run: the engine's message for an error (the cycle model's, cycle-exact with the
  // RTL, when it stops with the same bit on the image the kernel left, as the rtl backend
  // does), or the run details of a clean run (the core's accounting through the probe).
  void explain() {
    std::vector<uint32_t> st(reg::kStatusBytes / 4);
    std::memcpy(st.data(), mem_.bytes().data() + status_addr_, reg::kStatusBytes);
    const uint32_t err = st[(reg::kError - reg::kCycles) / 4];
    const uint32_t err_insn = st[(reg::kErrorInsn - reg::kCycles) / 4];
    std::vector<uint8_t> window(mem_.bytes().begin() + static_cast<ptrdiff_t>(base_),
                                mem_.bytes().end());
    if (err != 0) {
      if ((err & reg::kErrBusResp) == 0) {
        try {
          sim::cycle::CycleSim(l_, p_).run(window, insn_addr_, count_);
        } catch (const sim::ProgramError& e) {
          if (e.bit() == err) {
            detail_ = e.what();
            return;
          }
        } catch (const std::exception&) {
        }
      }
      detail_ = "the kernel top reported";
      for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if (err & bit) detail_ += std::string(" ") + reg::error_bit_name(bit) + ";";
      }
      detail_.pop_back();
      detail_ += " at instruction " + std::to_string(err_insn);
      return;
    }
    sim::cycle::CycleStats s = top_->core_stats();
    s.cycles = st[0] | (static_cast<uint64_t>(st[1]) << 32);
    try {
      rtl::count_program(l_, sim::fetch_program(l_, window, insn_addr_, count_), s);
    } catch (const std::exception&) {
    }
    details_ = sim::to_json(s.counters);
    const nlohmann::ordered_json cycle_json = sim::cycle::to_json(s);
    for (const auto& [k, v] : cycle_json.items()) details_[k] = v;
  }

  std::unique_ptr<rtl::KernelTop> top_;
  PlainMemory& mem_;
  const isa::Layout& l_;
  isa::Platform p_;
  const sim::FaultPlan* faults_;
  std::vector<uint32_t> image_;
  uint64_t base_ = 0, status_addr_ = 0, insn_addr_ = 0, count_ = 0;
  std::thread worker_;
  std::atomic<bool> cancel_{false}, finished_{false};
  bool done_ = false, running_ = false;
  std::exception_ptr failed_;
  std::string detail_;
  nlohmann::ordered_json details_ = nlohmann::ordered_json::object();
};
#endif

class EmuBoard : public Board {
 public:
  EmuBoard(const std::string& name, std::unique_ptr<Device> dev)
      : name_(name), dev_(std::move(dev)) {
    memory_ = std::make_unique<DeviceMemory>(*dev_);
    kernel_ = std::make_unique<EmuKernel>(*dev_);
  }
#ifdef WEFT_HAVE_RTL
  EmuBoard(const std::string& name, std::unique_ptr<rtl::KernelTop> top, uint64_t bytes,
           const isa::Layout& l, const isa::Platform& p, const sim::FaultPlan* faults)
      : name_(name) {
    auto mem = std::make_unique<PlainMemory>(bytes);
    kernel_ = std::make_unique<KernelTopKernel>(std::move(top), *mem, l, p, faults);
    memory_ = std::move(mem);
  }
#endif
  ~EmuBoard() override {
    kernel_.reset();  // stops a run in progress before the memory goes away
    if (dev_) dev_->abort();
  }
  std::string name() const override { return name_; }
  std::unique_ptr<Buffer> alloc(uint64_t bytes, int bank) override {
    if (bank != 0) {
      throw UserError("xrt (emulated): memory bank " + std::to_string(bank) +
                      " does not exist (the emulated board has one bank, 0)");
    }
    return std::make_unique<EmuBuffer>(*memory_, bytes, bank);
  }
  Kernel& kernel() override { return *kernel_; }

 private:
  std::string name_;
  std::unique_ptr<Device> dev_;
  std::unique_ptr<EmuMemory> memory_;
  std::unique_ptr<Kernel> kernel_;
};

}  // namespace

std::unique_ptr<Board> open_emulated_board(const std::string& engine, const isa::Layout& layout,
                                           const isa::Platform& platform, uint64_t bytes,
                                           const sim::FaultPlan* faults) {
  DeviceOptions o;
  o.layout = &layout;
  o.platform = &platform;
  o.memory_bytes = bytes + 4096;  // the arena and the status buffer
  o.faults = faults;
  if (engine == "rtl") {
#ifdef WEFT_HAVE_RTL
    if (auto top = rtl::make_kernel_top(layout, platform)) {
      return std::make_unique<EmuBoard>("emulated rtl (kernel top weft_kernel)", std::move(top),
                                        o.memory_bytes, layout, platform, faults);
    }
#endif
    // No kernel top built for this configuration (driver/rtl WEFT_KERNEL_CONFIGS): weft_top
    // alone behind the rtl backend, the status buffer written as weft_kernel.sv would.
    return std::make_unique<EmuBoard>("emulated rtl (weft_top only: no kernel top built for '" +
                                          layout.config.name + "')",
                                      make_rtl_device(o));
  }
  if (engine == "cycle") return std::make_unique<EmuBoard>("emulated cycle", make_cycle_device(o));
  throw UserError("--xrt-emulate '" + engine + "': the emulated board runs on 'rtl' (the "
                  "Verilated RTL) or 'cycle' (the cycle model)");
}

}  // namespace weft::driver::xrt
