// The xrt backend; see xrt_device.h.
#include "driver/xrt/xrt_device.h"

#include <array>
#include <cstring>
#include <map>

#include "driver/xrt/xrt_seam.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

namespace weft::driver {

namespace reg = isa::reg;

namespace {

class XrtDevice : public Device {
 public:
  XrtDevice(const DeviceOptions& o, std::unique_ptr<xrt::Board> board)
      : board_(std::move(board)), bytes_(o.memory_bytes) {
    xrt::Kernel& k = board_->kernel();
    const int want = k.arg_bank(2);
    int bank = want;
    if (o.xrt_bank >= 0 && o.xrt_bank != want) {
      throw UserError(board_->name() + ": memory bank " + std::to_string(o.xrt_bank) +
                      " is not connected to m_axi_gmem of " + reg::kKernelName +
                      " (its arguments live in bank " + std::to_string(want) +
                      "; relink with sp=" + reg::kKernelName + "_1.m_axi_gmem:<bank> or drop "
                      "--xrt-bank)");
    }
    if (k.arg_bank(3) != want) {
      throw UserError(board_->name() + ": the status argument lives in bank " +
                      std::to_string(k.arg_bank(3)) + ", dram_base in bank " +
                      std::to_string(want) + "; the kernel's one master needs both in one bank");
    }
    arena_ = board_->alloc(bytes_, bank);
    status_ = board_->alloc(4096, bank);
    regs_.fill(0);
  }
  ~XrtDevice() override {
    if (running_) board_->kernel().abort();
  }
  std::string name() const override { return "xrt"; }

  uint64_t alloc(uint64_t bytes) override {
    if (bytes == 0) bytes = 1;
    uint64_t addr = 0;
    for (const auto& [a, n] : allocations_) {
      if (addr <= a && bytes <= a - addr) break;
      addr = (a + n + 63) / 64 * 64;
    }
    if (addr > bytes_ || bytes > bytes_ - addr) {
      throw UserError("device '" + name() + "': cannot allocate " + std::to_string(bytes) +
                      " bytes: " + std::to_string(bytes_) + " bytes of device memory, " +
                      std::to_string(allocations_.size()) + " allocation(s) in use");
    }
    allocations_[addr] = bytes;
    return addr;
  }
  void free(uint64_t addr) override {
    if (allocations_.erase(addr) == 0) {
      throw UserError("device '" + name() + "': free of address " + std::to_string(addr) +
                      ", which is not an allocation");
    }
  }
  void copy_to_device(uint64_t addr, const void* src, uint64_t bytes) override {
    check(addr, bytes, "copy to device");
    std::memcpy(arena_->host() + addr, src, bytes);
    arena_->sync_to_device(addr, bytes);
  }
  void copy_from_device(uint64_t addr, void* dst, uint64_t bytes) override {
    check(addr, bytes, "copy from device");
    arena_->sync_from_device(addr, bytes);
    std::memcpy(dst, arena_->host() + addr, bytes);
  }

  void write_reg(uint32_t offset, uint32_t value) override {
    if (offset % 4 != 0 || offset >= reg::kMapEnd) {
      throw UserError("device '" + name() + "': no control register at offset " +
                      std::to_string(offset));
    }
    if (offset == reg::kControl) {
      if (value & reg::kApStart) start();
      return;
    }
    if (offset >= reg::kCycles) return;  // read-only
    idle("register write");
    regs_[offset / 4] = value;
  }
  uint32_t read_reg(uint32_t offset) override {
    if (offset % 4 != 0 || offset >= reg::kMapEnd) {
      throw UserError("device '" + name() + "': no control register at offset " +
                      std::to_string(offset));
    }
    if (offset == reg::kControl) {
      if (running_) poll(std::chrono::milliseconds(1));
      const uint32_t v = (running_ ? reg::kApStart : reg::kApIdle) | (done_ ? reg::kApDone : 0);
      done_ = false;  // ap_done clears on read
      return v;
    }
    if (offset >= reg::kCycles && running_) return 0;
    return regs_[offset / 4];
  }
  void abort() override {
    if (!running_) return;
    board_->kernel().abort();
    running_ = false;
    done_ = true;
    regs_[reg::kError / 4] = reg::kErrInternal;
    detail_ = "device '" + name() + "': the run was aborted";
  }
  std::string error_detail() const override { return detail_; }
  nlohmann::ordered_json run_details() const override { return details_; }

 private:
  void check(uint64_t addr, uint64_t bytes, const char* what) const {
    if (addr > bytes_ || bytes > bytes_ - addr) {
      throw UserError("device '" + name() + "': " + what + " of bytes [" + std::to_string(addr) +
                      ", " + std::to_string(addr + bytes) + ") is outside the " +
                      std::to_string(bytes_) + "-byte device memory");
    }
    idle(what);
  }
  void idle(const char* what) const {
    if (running_) {
      throw UserError("device '" + name() + "': " + what + " while a run is in progress");
    }
  }
  uint64_t get64(uint32_t off) const {
    return regs_[off / 4] | (static_cast<uint64_t>(regs_[off / 4 + 1]) << 32);
  }
  void start() {
    idle("ap_start");
    for (uint32_t o = reg::kCycles; o < reg::kMapEnd; o += 4) regs_[o / 4] = 0;
    const uint64_t base = get64(reg::kDramBase);
    if (base >= bytes_) {
      // the kernel's window would start past the arena: refused before it reaches the board
      regs_[reg::kError / 4] = reg::kErrDramRange;
      detail_ = "device '" + name() + "' (" + board_->name() + "): DRAM base " +
                std::to_string(base) + " is beyond the " + std::to_string(bytes_) +
                "-byte device memory";
      details_ = nlohmann::ordered_json::object();
      done_ = true;
      return;
    }
    // The status buffer is filled with a pattern the kernel overwrites: a status the kernel
    // never wrote is then an error, not zeros.
    std::memset(status_->host(), 0xA5, reg::kStatusBytes);
    status_->sync_to_device(0, reg::kStatusBytes);
    detail_.clear();
    details_ = nlohmann::ordered_json::object();
    board_->kernel().start(get64(reg::kInsnCount), get64(reg::kInsnAddr), *arena_, *status_, base);
    running_ = true;
    done_ = false;
  }
  void poll(std::chrono::milliseconds t) {
    const xrt::RunState s = board_->kernel().wait(t);
    if (s == xrt::RunState::kTimeout || s == xrt::RunState::kRunning) return;
    running_ = false;
    done_ = true;
    if (s != xrt::RunState::kCompleted) {
      regs_[reg::kError / 4] = reg::kErrInternal;
      detail_ = "device '" + name() + "': the run ended in state " +
                (s == xrt::RunState::kAborted ? std::string("aborted") : std::string("error")) +
                " (XRT command state)";
      return;
    }
    status_->sync_from_device(0, reg::kStatusBytes);
    std::memcpy(&regs_[reg::kCycles / 4], status_->host(), reg::kStatusBytes);
    const uint32_t err = regs_[reg::kError / 4];
    bool pattern = true;
    for (uint32_t i = 0; i < reg::kStatusBytes; ++i) pattern = pattern && status_->host()[i] == 0xA5;
    if (pattern) {
      regs_[reg::kError / 4] = reg::kErrInternal;
      detail_ = "device '" + name() + "': the kernel finished without writing its status "
                "buffer (is the .xclbin built from hardware/fpga/weft_kernel.sv?)";
      return;
    }
    if (err != 0) detail_ = board_->kernel().error_detail();
    details_ = board_->kernel().run_details();
    if (details_.empty()) {
      // a board: what its status buffer says (the engine-side details exist only emulated)
      const char* names[] = {"cycles", "load_busy", "load_stall", "compute_busy",
                             "compute_stall", "store_busy", "store_stall"};
      for (int i = 0; i < 7; ++i) details_["kernel_counters"][names[i]] = get64(reg::kCycles + 8 * i);
    }
  }

  std::unique_ptr<xrt::Board> board_;
  uint64_t bytes_;
  std::unique_ptr<xrt::Buffer> arena_, status_;
  std::map<uint64_t, uint64_t> allocations_;
  std::array<uint32_t, reg::kMapEnd / 4> regs_{};
  bool running_ = false, done_ = false;
  std::string detail_;
  nlohmann::ordered_json details_ = nlohmann::ordered_json::object();
};

}  // namespace

std::unique_ptr<Device> make_xrt_device(const DeviceOptions& o) {
  if (o.layout == nullptr) throw InternalError("xrt device needs a layout");
  std::unique_ptr<xrt::Board> board;
  if (!o.xrt_emulate.empty()) {
    if (o.platform == nullptr) throw InternalError("xrt device needs a platform");
    board = xrt::open_emulated_board(o.xrt_emulate, *o.layout, *o.platform, o.memory_bytes,
                                     o.faults);
  } else if (o.xclbin.empty()) {
    throw UserError("the 'xrt' engine needs --xclbin FILE (a board) or --xrt-emulate rtl|cycle "
                    "(the emulated board; docs/fpga.md)");
  } else {
    board = xrt::open_xrt_board(o.xclbin, o.xrt_device);
  }
  return std::make_unique<XrtDevice>(o, std::move(board));
}

}  // namespace weft::driver
