// The `rtl` backend: the Verilated RTL behind the Device interface (DESIGN.md §5). It shares
// SimDevice's memory, registers and worker thread with the simulator backends; a run checks
// the program like every engine does (same messages for a bad program), then drives the RTL's
// own AXI4-Lite registers and serves its AXI4 master (driver/rtl/rtl_harness.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"

namespace weft::driver {

/// Whether this binary has the rtl backend (Verilator was found at configure time).
bool rtl_backend_built();

/// The shipped configurations whose RTL is built into this binary (WEFT_RTL_CONFIGS; empty
/// without the rtl backend). Others need an RTL plugin (`weft rtl build`).
std::vector<std::string> rtl_builtin_configs();

/// The RTL backend; `wave_path` (FST) records a waveform of every run when not empty.
/// UserError when Verilator was not available at build time, when the configuration's RTL is
/// not built, or when the platform's bus differs from the RTL's.
std::unique_ptr<Device> make_rtl_device(const DeviceOptions& options,
                                        const std::string& wave_path = "");

/// What `weft rtl build` did (driver/rtl/plugin.h).
struct RtlPluginBuild {
  std::string path;    // the RTL plugin the rtl engine loads for the configuration
  bool built = false;  // false: the configuration's model is built in, or its plugin existed
  bool builtin = false;
  double seconds = 0;
};
/// Builds the RTL of a configuration (a configuration file's, usually) into an RTL plugin,
/// unless its model is built into the binary or the plugin exists (`force` rebuilds it);
/// `log` is told what happens. UserError when the rtl backend is not built, Verilator is
/// missing or the build fails.
RtlPluginBuild build_rtl_plugin(const isa::Layout& layout, int jobs, bool force,
                                const std::function<void(const std::string&)>& log);

}  // namespace weft::driver
