// The rtl backend; see rtl_device.h. Built only when Verilator is installed (WEFT_HAVE_RTL);
// otherwise make_rtl_device explains how to get it.
#include "driver/rtl_device.h"

#include "hardware/isa/errors.h"

#ifdef WEFT_HAVE_RTL
#include "driver/rtl/plugin.h"
#include "driver/rtl/rtl_engine.h"
#include "driver/sim_device.h"
#include "simulator/common/program_error.h"
#include "simulator/cycle/cycle_sim.h"
#endif

namespace weft::driver {

#ifdef WEFT_HAVE_RTL

bool rtl_backend_built() { return true; }

std::vector<std::string> rtl_builtin_configs() { return rtl::rtl_configs(); }

namespace {

class RtlDevice : public SimDevice {
 public:
  RtlDevice(const DeviceOptions& o, const std::string& wave)
      : SimDevice(o), engine_(rtl::make_rtl_engine(*o.layout, *o.platform)), wave_(wave) {}
  ~RtlDevice() override { stop_worker(); }
  std::string name() const override { return "rtl"; }

 protected:
  EngineResult execute(std::vector<uint8_t>& dram, uint64_t off, uint64_t count,
                       const std::atomic<bool>* cancel) override {
    if (off % 16 != 0) {
      throw sim::ProgramError(isa::reg::kErrIllegalInsn, sim::ProgramError::kNoInsn,
                              "the rtl engine needs 16-byte aligned instructions; the stream "
                              "starts at byte " + std::to_string(off));
    }
    rtl::RtlRunOptions ro;
    ro.wave_path = wave_;
    ro.cancel = cancel;
    ro.progress = options().progress;
    ro.faults = options().faults;
    const rtl::RtlRunResult rr = engine_->run(dram, off, count, ro);
    if (rr.error != 0) throw explain(rr, dram, off, count);
    const sim::cycle::CycleStats& s = rr.stats;
    EngineResult r;
    r.counters = s.counters;
    r.cycles = rr.reg_cycles;
    for (int i = 0; i < 3; ++i) {
      r.busy[i] = rr.reg_busy[i];
      r.stall[i] = rr.reg_stall[i];
    }
    r.details = sim::to_json(s.counters);
    const nlohmann::ordered_json cycle_json = sim::cycle::to_json(s);
    for (const auto& [k, v] : cycle_json.items()) r.details[k] = v;
    return r;
  }

 private:
  // The RTL reports an error as register bits (or, for a hang, the harness's watchdog). The
  // message is the cycle model's, which is cycle-exact with the RTL, when that model stops
  // with the same error on the image the RTL left; otherwise it is built from the bits.
  sim::ProgramError explain(const rtl::RtlRunResult& rr, const std::vector<uint8_t>& dram,
                            uint64_t off, uint64_t count) const {
    std::vector<uint8_t> copy = dram;
    try {
      sim::cycle::CycleSim(*options().layout, *options().platform).run(copy, off, count);
    } catch (const sim::ProgramError& e) {
      if (e.bit() == rr.error) return e;
    } catch (const std::exception&) {
    }
    std::string detail = rr.error_detail;
    if (detail.empty()) {
      detail = "rtl reported";
      for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if (rr.error & bit) detail += std::string(" ") + isa::reg::error_bit_name(bit) + ";";
      }
      detail.pop_back();
      detail += " at instruction " + std::to_string(rr.error_insn);
    }
    return sim::ProgramError(static_cast<isa::reg::ErrorBit>(rr.error),
                             static_cast<int64_t>(rr.error_insn), detail);
  }

  std::unique_ptr<rtl::RtlEngine> engine_;
  std::string wave_;
};

}  // namespace

std::unique_ptr<Device> make_rtl_device(const DeviceOptions& o, const std::string& wave) {
  if (o.layout == nullptr) throw InternalError("rtl device needs a layout");
  if (o.platform == nullptr) throw InternalError("rtl device needs a platform");
  return std::make_unique<RtlDevice>(o, wave);
}

RtlPluginBuild build_rtl_plugin(const isa::Layout& l, int jobs, bool force,
                                const std::function<void(const std::string&)>& log) {
  RtlPluginBuild b;
  for (const std::string& name : rtl::rtl_configs()) {
    if (isa::same_hardware(l.config, isa::find_config(name))) {
      b.builtin = true;
      return b;
    }
  }
  rtl::RtlBuildOptions o;
  o.jobs = jobs;
  o.force = force;
  o.log = log;
  const rtl::RtlBuildResult r = rtl::build_rtl_plugin(l, o);
  b.path = r.path;
  b.built = r.built;
  b.seconds = r.seconds;
  return b;
}

#else

bool rtl_backend_built() { return false; }

std::vector<std::string> rtl_builtin_configs() { return {}; }

namespace {
constexpr const char* kNoRtl =
    "the 'rtl' engine is not built: Verilator 5 was not found when this build was "
    "configured (install it with `sudo apt-get install verilator` and reconfigure)";
}

std::unique_ptr<Device> make_rtl_device(const DeviceOptions&, const std::string&) {
  throw UserError(kNoRtl);
}

RtlPluginBuild build_rtl_plugin(const isa::Layout&, int, bool,
                                const std::function<void(const std::string&)>&) {
  throw UserError(kNoRtl);
}

#endif

}  // namespace weft::driver
