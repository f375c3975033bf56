// Simulator-backed devices; see sim_device.h.
#include "driver/sim_device.h"

#include <algorithm>
#include <cstring>

#include "hardware/isa/errors.h"
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"

namespace weft::driver {

namespace reg = isa::reg;

SimDevice::SimDevice(const DeviceOptions& options) : options_(options) {
  if (options.layout == nullptr) throw InternalError("SimDevice: no layout");
  if (options.memory_bytes == 0 || options.memory_bytes > (uint64_t{1} << 36)) {
    throw UserError("device memory of " + std::to_string(options.memory_bytes) +
                    " bytes is not supported (1 byte .. 64 GiB)");
  }
  memory_.assign(options.memory_bytes, 0);
  control_ = reg::kApIdle;
}

SimDevice::~SimDevice() { stop_worker(); }

void SimDevice::stop_worker() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel_ = true;  // a run in progress stops at its next look at the flag
    shutdown_ = true;
  }
  job_cv_.notify_one();
  worker_.join();
}

void SimDevice::abort() {
  std::unique_lock<std::mutex> lock(mu_);
  if (idle()) return;
  cancel_ = true;  // the engine stops at its next look at the flag (RunCancelled)
  hand_to_worker();  // a queued run: the worker takes it and stops it
  end_cv_.wait(lock, [this] { return idle(); });
  // ap_done of the cancelled run stays set for `wait` to see, with the error register.
}

void SimDevice::hand_to_worker() {
  if (job_) job_cv_.notify_one();
}

// One worker for the device's life: starting a thread per run cost more than many short
// kernels (about 0.13 ms each, with the waiter's wake-up), e.g. 60 ms of MobileNet V2's 480.
// It sleeps until run_here's deadline without being woken per run: deadlines come later and
// later, so only an earlier one wakes it.
void SimDevice::work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (shutdown_) return;
    if (job_) {
      const Job job = *job_;
      job_.reset();
      lock.unlock();
      run_engine(job.insn_addr, job.count, job.base);
      lock.lock();
      continue;
    }
    if (here_ && !cancel_ && Clock::now() >= here_deadline_) {
      deadline_passed_ = true;
      cancel_ = true;  // the caller's run stops at its next look at the flag
    }
    if (here_ && !cancel_) {
      worker_wakes_ = here_deadline_;
      job_cv_.wait_until(lock, worker_wakes_);
    } else {
      worker_wakes_ = Clock::time_point::max();
      job_cv_.wait(lock);
    }
  }
}

Device::HereEnd SimDevice::run_here(Clock::time_point deadline) {
  Job job;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!job_) return HereEnd::kNotHere;
    job = *job_;
    job_.reset();
    here_ = true;
    deadline_passed_ = false;
    here_deadline_ = deadline;
    if (deadline < worker_wakes_) job_cv_.notify_one();
  }
  run_engine(job.insn_addr, job.count, job.base);  // clears here_ as it sets ap_done
  std::lock_guard<std::mutex> lock(mu_);
  return deadline_passed_ ? HereEnd::kDeadline : HereEnd::kEnded;
}

void SimDevice::check_idle(const char* what) const {
  if (!idle()) {
    throw UserError("device '" + name() + "': " + what + " while a run is in progress");
  }
}

uint64_t SimDevice::alloc(uint64_t bytes) {
  if (bytes == 0) bytes = 1;
  check_idle("alloc");
  uint64_t addr = 0;  // first fit, 64-byte aligned; written so that no sum can wrap
  for (const auto& [a, n] : allocations_) {
    if (addr <= a && bytes <= a - addr) break;
    addr = (a + n + 63) / 64 * 64;
  }
  if (addr > memory_.size() || bytes > memory_.size() - addr) {
    throw UserError("device '" + name() + "': cannot allocate " + std::to_string(bytes) +
                    " bytes: " + std::to_string(memory_.size()) + " bytes of device memory, " +
                    std::to_string(allocations_.size()) + " allocation(s) in use");
  }
  allocations_[addr] = bytes;
  return addr;
}

void SimDevice::free(uint64_t addr) {
  if (allocations_.erase(addr) == 0) {
    throw UserError("device '" + name() + "': free of address " + std::to_string(addr) +
                    ", which is not an allocation");
  }
}

void SimDevice::check_range(uint64_t addr, uint64_t bytes, const char* what) const {
  if (addr > memory_.size() || bytes > memory_.size() - addr) {
    throw UserError("device '" + name() + "': " + what + " of bytes [" + std::to_string(addr) +
                    ", " + std::to_string(addr + bytes) + ") is outside the " +
                    std::to_string(memory_.size()) + "-byte device memory");
  }
}

void SimDevice::copy_to_device(uint64_t addr, const void* src, uint64_t bytes) {
  check_idle("copy to device");
  check_range(addr, bytes, "copy to device");
  std::memcpy(memory_.data() + addr, src, bytes);
}

void SimDevice::copy_from_device(uint64_t addr, void* dst, uint64_t bytes) {
  check_idle("copy from device");
  check_range(addr, bytes, "copy from device");
  std::memcpy(dst, memory_.data() + addr, bytes);
}

void SimDevice::set64(uint32_t offset, uint64_t v) {
  regs_[offset / 4] = static_cast<uint32_t>(v);
  regs_[offset / 4 + 1] = static_cast<uint32_t>(v >> 32);
}

uint64_t SimDevice::get64(uint32_t offset) const {
  return regs_[offset / 4] | (static_cast<uint64_t>(regs_[offset / 4 + 1]) << 32);
}

void SimDevice::write_reg(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0 || offset >= reg::kMapEnd) {
    throw UserError("device '" + name() + "': no control register at offset " +
                    std::to_string(offset));
  }
  if (offset == reg::kControl) {
    if (value & reg::kApStart) start();
    return;
  }
  if (offset >= reg::kCycles) return;  // read-only counters and error register
  check_idle("register write");
  regs_[offset / 4] = value;
}

uint32_t SimDevice::read_reg(uint32_t offset) {
  if (offset % 4 != 0 || offset >= reg::kMapEnd) {
    throw UserError("device '" + name() + "': no control register at offset " +
                    std::to_string(offset));
  }
  if (offset == reg::kControl) {
    if (!idle()) {  // someone polls: a queued run must make progress
      std::lock_guard<std::mutex> lock(mu_);
      hand_to_worker();
    }
    return control_.fetch_and(~reg::kApDone, std::memory_order_acq_rel);  // ap_done clears on read
  }
  // Counters and the error register are written by the worker: they read 0 while it runs.
  if (offset >= reg::kCycles && !idle()) {
    return 0;
  }
  return regs_[offset / 4];
}

void SimDevice::start() {
  check_idle("ap_start");
  const uint64_t count = get64(reg::kInsnCount);
  const uint64_t insn_addr = get64(reg::kInsnAddr);
  const uint64_t base = get64(reg::kDramBase);
  for (uint32_t o = reg::kCycles; o < reg::kMapEnd; o += 4) regs_[o / 4] = 0;
  error_detail_.clear();
  details_ = nlohmann::ordered_json::object();
  cancel_ = false;
  control_.store(0, std::memory_order_release);  // running: neither idle nor done
  if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  std::lock_guard<std::mutex> lock(mu_);
  job_ = Job{insn_addr, count, base};  // queued: `wait` runs it here, a poll hands it over
}

void SimDevice::run_engine(uint64_t insn_addr, uint64_t count, uint64_t base) {
  try {
    // The accelerator sees memory from `base` on: run on that window.
    if (base > memory_.size()) {
      throw sim::ProgramError(reg::kErrDramRange, sim::ProgramError::kNoInsn,
                              "DRAM base " + std::to_string(base) + " is beyond the " +
                                  std::to_string(memory_.size()) + "-byte device memory");
    }
    EngineResult r;
    if (base == 0) {
      r = execute(memory_, insn_addr, count, &cancel_);
    } else {
      std::vector<uint8_t> window(memory_.begin() + static_cast<ptrdiff_t>(base), memory_.end());
      r = execute(window, insn_addr, count, &cancel_);
      std::copy(window.begin(), window.end(), memory_.begin() + static_cast<ptrdiff_t>(base));
    }
    set64(reg::kCycles, r.cycles);
    set64(reg::kLoadBusy, r.busy[0]);
    set64(reg::kLoadStall, r.stall[0]);
    set64(reg::kComputeBusy, r.busy[1]);
    set64(reg::kComputeStall, r.stall[1]);
    set64(reg::kStoreBusy, r.busy[2]);
    set64(reg::kStoreStall, r.stall[2]);
    details_ = r.details;
  } catch (const sim::ProgramError& e) {
    regs_[reg::kError / 4] = e.bit();
    regs_[reg::kErrorInsn / 4] = static_cast<uint32_t>(e.insn());
    error_detail_ = e.what();
  } catch (const std::exception& e) {
    // Not a program error (cancelled, out of memory, a bug): the device must still come back
    // idle, with the message, rather than stay busy for good.
    regs_[reg::kError / 4] = reg::kErrInternal;
    error_detail_ =
        std::string(dynamic_cast<const InternalError*>(&e) ? "internal error: " : "") + e.what();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    here_ = false;  // with ap_done, so that the worker never stops a run that has ended
    control_.store(reg::kApDone | reg::kApIdle | reg::kApReady, std::memory_order_release);
  }
  end_cv_.notify_all();
}

void SimDevice::wait_for_end(std::chrono::microseconds most) {
  std::unique_lock<std::mutex> lock(mu_);
  hand_to_worker();
  end_cv_.wait_for(lock, most, [this] { return idle(); });
}

namespace {

class FunctionalDevice : public SimDevice {
 public:
  explicit FunctionalDevice(const DeviceOptions& o) : SimDevice(o), sim_(*o.layout) {}
  ~FunctionalDevice() override { stop_worker(); }
  std::string name() const override { return "functional"; }

 protected:
  EngineResult execute(std::vector<uint8_t>& dram, uint64_t off, uint64_t count,
                       const std::atomic<bool>* cancel) override {
    EngineResult r;
    std::function<void(uint64_t, uint64_t)> progress;
    if (options().progress) {
      progress = [this](uint64_t done, uint64_t total) { options().progress(0, done, total); };
    }
    r.counters = sim_.run(dram, off, count, cancel, progress);
    r.details = sim::to_json(r.counters);
    return r;
  }

 private:
  sim::FunctionalSim sim_;
};

class CycleDevice : public SimDevice {
 public:
  explicit CycleDevice(const DeviceOptions& o) : SimDevice(o), sim_(*o.layout, *o.platform) {}
  ~CycleDevice() override { stop_worker(); }
  std::string name() const override { return "cycle"; }

 protected:
  EngineResult execute(std::vector<uint8_t>& dram, uint64_t off, uint64_t count,
                       const std::atomic<bool>* cancel) override {
    sim::cycle::RunOptions ro;
    ro.trace = options().trace;
    ro.progress = options().progress;
    ro.cancel = cancel;
    ro.faults = options().faults;
    const sim::cycle::CycleStats s = sim_.run(dram, off, count, ro);
    EngineResult r;
    r.counters = s.counters;
    r.cycles = s.cycles;
    const sim::cycle::ModuleCycles* m[3] = {&s.load, &s.compute, &s.store};
    for (int i = 0; i < 3; ++i) {
      r.busy[i] = m[i]->busy;
      r.stall[i] = m[i]->total() - m[i]->busy - m[i]->idle;
    }
    r.details = sim::to_json(s.counters);
    nlohmann::ordered_json cycle_json = sim::cycle::to_json(s);
    for (auto& [k, v] : cycle_json.items()) r.details[k] = std::move(v);
    return r;
  }

 private:
  sim::cycle::CycleSim sim_;
};

}  // namespace

std::unique_ptr<Device> make_functional_device(const DeviceOptions& o) {
  return std::make_unique<FunctionalDevice>(o);
}

std::unique_ptr<Device> make_cycle_device(const DeviceOptions& o) {
  if (o.platform == nullptr) throw InternalError("cycle device needs a platform");
  return std::make_unique<CycleDevice>(o);
}

}  // namespace weft::driver
