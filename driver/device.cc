// The backend registry.
#include "driver/device.h"

#include "driver/rtl_device.h"
#include "driver/sim_device.h"
#include "driver/xrt/xrt_device.h"
#include "hardware/isa/errors.h"

namespace weft::driver {

std::vector<std::string> device_names() {
  std::vector<std::string> names = {"functional", "cycle"};
  if (rtl_backend_built()) names.push_back("rtl");
  names.push_back("xrt");  // a board through XRT, or the emulated board (--xrt-emulate)
  return names;
}

std::unique_ptr<Device> open_device(const std::string& name, const DeviceOptions& options) {
  if (name == "functional") return make_functional_device(options);
  if (name == "cycle") return make_cycle_device(options);
  if (name == "rtl") return make_rtl_device(options);  // explains itself when not built
  if (name == "xrt") return make_xrt_device(options);  // explains itself when not built
  std::string known;
  for (const std::string& n : device_names()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("unknown engine '" + name + "' (available: " + known + ")");
}

}  // namespace weft::driver
