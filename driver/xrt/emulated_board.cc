// The emulated board; see xrt_seam.h. Device memory is a Weft engine's memory (rtl or cycle
// backend): buffers are allocations in it, host copies are separate vectors, and sync copies
// between the two. A run whose buffers were written on the host and not synced is an error
// (the board would have run on stale memory). After the engine finishes, the kernel writes
// the register image 0x28..0x67 into the status buffer, as hardware/fpga/weft_kernel.sv does.
#include <algorithm>
#include <cstring>
#include <thread>

#include "driver/device.h"
#include "driver/rtl_device.h"
#include "driver/sim_device.h"
#include "driver/xrt/xrt_seam.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

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

class EmuBuffer : public Buffer {
 public:
  EmuBuffer(Device& dev, uint64_t bytes, int bank)
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
  Device& dev_;
  std::vector<uint8_t> host_;
  uint64_t addr_;
  int bank_;
  uint64_t synced_ = 0;
  bool partial_ = false;
};

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
    image_.assign(reg::kKernelMapEnd / 4, 0);
    auto put = [&](uint32_t off, uint64_t v) {
      image_[off / 4] = static_cast<uint32_t>(v);
      image_[off / 4 + 1] = static_cast<uint32_t>(v >> 32);
    };
    put(reg::kInsnCount, count);
    put(reg::kInsnAddr, insn_addr);
    put(reg::kDramBase, dram.device_address() + dram_offset);
    put(reg::kStatusAddr, status.device_address());
    image_[0] = reg::kApStart;
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

class EmuBoard : public Board {
 public:
  EmuBoard(const std::string& engine, std::unique_ptr<Device> dev)
      : engine_(engine), dev_(std::move(dev)), kernel_(*dev_) {}
  ~EmuBoard() override { dev_->abort(); }
  std::string name() const override { return "emulated " + engine_; }
  std::unique_ptr<Buffer> alloc(uint64_t bytes, int bank) override {
    if (bank != 0) {
      throw UserError("xrt (emulated): memory bank " + std::to_string(bank) +
                      " does not exist (the emulated board has one bank, 0)");
    }
    return std::make_unique<EmuBuffer>(*dev_, bytes, bank);
  }
  Kernel& kernel() override { return kernel_; }

 private:
  std::string engine_;
  std::unique_ptr<Device> dev_;
  EmuKernel kernel_;
};

}  // namespace

std::unique_ptr<Board> open_emulated_board(const std::string& engine, const isa::Layout& layout,
                                           const isa::Platform& platform, uint64_t bytes) {
  DeviceOptions o;
  o.layout = &layout;
  o.platform = &platform;
  o.memory_bytes = bytes + 4096;  // the arena and the status buffer
  std::unique_ptr<Device> dev;
  if (engine == "rtl") dev = make_rtl_device(o);
  else if (engine == "cycle") dev = make_cycle_device(o);
  else
    throw UserError("--xrt-emulate '" + engine + "': the emulated board runs on 'rtl' (the "
                    "Verilated RTL) or 'cycle' (the cycle model)");
  return std::make_unique<EmuBoard>(engine, std::move(dev));
}

}  // namespace weft::driver::xrt
