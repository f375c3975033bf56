// The `rtl` backend: the Verilated RTL behind the Device interface (DESIGN.md §5). It shares
// SimDevice's memory, registers and worker thread with the simulator backends; a run checks
// the program like every engine does (same messages for a bad program), then drives the RTL's
// own AXI4-Lite registers and serves its AXI4 master (driver/rtl/rtl_harness.h).
#pragma once

#include <memory>
#include <string>

#include "driver/device.h"

namespace weft::driver {

/// Whether this binary has the rtl backend (Verilator was found at configure time).
bool rtl_backend_built();

/// The RTL backend; `wave_path` (FST) records a waveform of every run when not empty.
/// UserError when Verilator was not available at build time, when the configuration's RTL is
/// not built, or when the platform's bus differs from the RTL's.
std::unique_ptr<Device> make_rtl_device(const DeviceOptions& options,
                                        const std::string& wave_path = "");

}  // namespace weft::driver
