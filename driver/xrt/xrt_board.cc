// The real board on the XRT native C++ API (Debian's libxrt-dev, XRT 2.13); see xrt_seam.h.
// Built only when XRT's headers and libxrt_coreutil are found (WEFT_HAVE_XRT); otherwise
// open_xrt_board says how to get it. With XCL_EMULATION_MODE=noop the same code runs on XRT's
// noop shim (tests/driver/xrt), which accepts every command without a board.
#include <cstdlib>
#include <filesystem>

#include "driver/xrt/xrt_seam.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/registers.h"

#ifdef WEFT_HAVE_XRT
#include <ert.h>
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>
#endif

namespace weft::driver::xrt {

namespace reg = isa::reg;

namespace {

// What is wrong with the options themselves comes first, with or without XRT in the build.
void check_board_options(const std::string& xclbin, int index) {
  if (!std::filesystem::is_regular_file(xclbin)) {
    throw UserError("--xclbin '" + xclbin + "': no such file");
  }
  if (index < 0) throw UserError("--device " + std::to_string(index) + ": must be >= 0");
}

}  // namespace

#ifdef WEFT_HAVE_XRT

bool xrt_library_built() { return true; }

namespace {

class XrtBuffer : public Buffer {
 public:
  XrtBuffer(::xrt::device& dev, uint64_t bytes, int bank)
      : bo_(dev, bytes, ::xrt::bo::flags::normal, static_cast<::xrt::memory_group>(bank)),
        map_(bo_.map<uint8_t*>()), bank_(bank) {}
  uint8_t* host() override { return map_; }
  uint64_t size() const override { return bo_.size(); }
  uint64_t device_address() const override { return bo_.address(); }
  int bank() const override { return bank_; }
  void sync_to_device(uint64_t off, uint64_t n) override {
    bo_.sync(XCL_BO_SYNC_BO_TO_DEVICE, n, off);
  }
  void sync_from_device(uint64_t off, uint64_t n) override {
    bo_.sync(XCL_BO_SYNC_BO_FROM_DEVICE, n, off);
  }
  ::xrt::bo& bo() { return bo_; }

 private:
  ::xrt::bo bo_;
  uint8_t* map_;
  int bank_;
};

class XrtKernel : public Kernel {
 public:
  XrtKernel(const ::xrt::device& dev, const ::xrt::uuid& uuid, const std::string& file)
      : kernel_(open(dev, uuid, file)) {
    // The metadata's argument offsets must be the register map's.
    for (const reg::KernelArg& a : reg::kKernelArgs) {
      uint32_t off = 0;
      try {
        off = static_cast<uint32_t>(kernel_.offset(a.index));
      } catch (const std::exception& e) {
        throw UserError("'" + file + "': kernel " + reg::kKernelName + " has no argument " +
                        std::to_string(a.index) + " (" + a.name + "): " + e.what());
      }
      if (off != a.offset) {
        throw UserError("'" + file + "': argument " + std::to_string(a.index) + " (" + a.name +
                        ") of kernel " + reg::kKernelName + " is at register offset " +
                        std::to_string(off) + "; Weft's register map has it at " +
                        std::to_string(a.offset) + " (rebuild the .xclbin from this version)");
      }
    }
  }
  uint32_t arg_offset(int index) const override {
    return static_cast<uint32_t>(kernel_.offset(index));
  }
  int arg_bank(int index) const override { return kernel_.group_id(index); }
  void start(uint64_t count, uint64_t insn_addr, Buffer& dram, Buffer& status,
             uint64_t dram_offset) override {
    run_ = ::xrt::run(kernel_);
    run_.set_arg(0, count);
    run_.set_arg(1, insn_addr);
    ::xrt::bo& arena = static_cast<XrtBuffer&>(dram).bo();
    // a DRAM base inside the arena is a sub-buffer starting there
    window_ = dram_offset == 0 ? arena : ::xrt::bo(arena, arena.size() - dram_offset, dram_offset);
    run_.set_arg(2, window_);
    run_.set_arg(3, static_cast<XrtBuffer&>(status).bo());
    image_.clear();
    if (const auto* pkt = reinterpret_cast<const ert_start_kernel_cmd*>(run_.get_ert_packet())) {
      const uint32_t skip = 1 + pkt->extra_cu_masks;
      for (uint32_t i = skip; i < pkt->count; ++i) image_.push_back(pkt->data[i - 1]);
    }
    run_.start();
    started_ = true;
  }
  RunState wait(std::chrono::milliseconds timeout) override {
    if (!started_) return RunState::kCompleted;
    const ert_cmd_state s = run_.wait(timeout);
    switch (s) {
      case ERT_CMD_STATE_COMPLETED:
        started_ = false;
        return RunState::kCompleted;
      case ERT_CMD_STATE_TIMEOUT:
      case ERT_CMD_STATE_NEW:
      case ERT_CMD_STATE_QUEUED:
      case ERT_CMD_STATE_RUNNING:
        return RunState::kTimeout;
      case ERT_CMD_STATE_ABORT:
        started_ = false;
        return RunState::kAborted;
      default:
        started_ = false;
        return RunState::kError;
    }
  }
  void abort() override {
    if (!started_) return;
    run_.abort();
    started_ = false;
  }
  std::vector<uint32_t> register_image() const override { return image_; }

 private:
  static ::xrt::kernel open(const ::xrt::device& dev, const ::xrt::uuid& uuid,
                            const std::string& file) {
    try {
      return ::xrt::kernel(dev, uuid, reg::kKernelName, ::xrt::kernel::cu_access_mode::exclusive);
    } catch (const std::exception& e) {
      throw UserError("'" + file + "' has no usable kernel '" + reg::kKernelName + "': " +
                      e.what());
    }
  }
  ::xrt::kernel kernel_;
  ::xrt::run run_;
  ::xrt::bo window_;
  bool started_ = false;
  std::vector<uint32_t> image_;
};

class XrtBoard : public Board {
 public:
  XrtBoard(const std::string& file, int index) : index_(index), dev_(open(index)) {
    try {
      uuid_ = dev_.load_xclbin(file);
    } catch (const std::exception& e) {
      throw UserError("xrt device " + std::to_string(index) + ": cannot load '" + file +
                      "': " + e.what());
    }
    kernel_ = std::make_unique<XrtKernel>(dev_, uuid_, file);
  }
  ~XrtBoard() override {
    if (kernel_) kernel_->abort();
  }
  std::string name() const override { return "xrt device " + std::to_string(index_); }
  std::unique_ptr<Buffer> alloc(uint64_t bytes, int bank) override {
    try {
      return std::make_unique<XrtBuffer>(dev_, bytes, bank);
    } catch (const std::exception& e) {
      throw UserError("xrt device " + std::to_string(index_) + ": cannot allocate " +
                      std::to_string(bytes) + " bytes in memory bank " + std::to_string(bank) +
                      ": " + e.what());
    }
  }
  Kernel& kernel() override { return *kernel_; }

 private:
  static ::xrt::device open(int index) {
    if (std::getenv("XILINX_XRT") == nullptr) {
      throw UserError("no XRT runtime: XILINX_XRT is not set (source /opt/xilinx/xrt/setup.sh "
                      "on a machine with a board; see docs/fpga.md)");
    }
    try {
      return ::xrt::device(static_cast<unsigned>(index));
    } catch (const std::exception& e) {
      throw UserError("no XRT device " + std::to_string(index) + ": " + e.what() +
                      " (is a board installed and its xclmgmt/xocl drivers loaded? "
                      "`xbutil examine` lists them)");
    }
  }
  int index_;
  ::xrt::device dev_;
  ::xrt::uuid uuid_;
  std::unique_ptr<XrtKernel> kernel_;
};

}  // namespace

std::unique_ptr<Board> open_xrt_board(const std::string& xclbin, int index) {
  check_board_options(xclbin, index);
  return std::make_unique<XrtBoard>(xclbin, index);
}

#else

bool xrt_library_built() { return false; }

std::unique_ptr<Board> open_xrt_board(const std::string& xclbin, int index) {
  check_board_options(xclbin, index);
  throw UserError("the 'xrt' engine needs XRT, which was not found when this build was "
                  "configured (install libxrt-dev and reconfigure), or use --xrt-emulate rtl");
}

#endif

}  // namespace weft::driver::xrt
