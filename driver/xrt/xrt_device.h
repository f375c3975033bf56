// The `xrt` backend: Weft's Device interface over an XRT board (driver/xrt/xrt_seam.h), real
// or emulated. Device memory is one arena buffer object (dram_base, kernel argument 2) that
// Weft allocates from, so the compiler's addresses are arena offsets; copies to and from the
// device sync exactly the bytes copied. The control registers the shared register sequence
// (driver/launch.h) writes are collected into the kernel's arguments and started with
// xrt::run; the counters and the error register it reads come from the status buffer
// (argument 3) the kernel writes before ap_done.
#pragma once

#include <memory>

#include "driver/device.h"

namespace weft::driver {

/// Opens the xrt backend: options.xclbin on device options.xrt_device, or the emulated board
/// when options.xrt_emulate is `rtl` or `cycle`. UserError for every missing piece.
std::unique_ptr<Device> make_xrt_device(const DeviceOptions& options);

}  // namespace weft::driver
