// The backend registry.
#include "driver/device.h"

#include "driver/sim_device.h"
#include "hardware/isa/errors.h"

namespace weft::driver {

std::vector<std::string> device_names() { return {"functional", "cycle"}; }

std::unique_ptr<Device> open_device(const std::string& name, const DeviceOptions& options) {
  if (name == "functional") return make_functional_device(options);
  if (name == "cycle") return make_cycle_device(options);
  std::string known;
  for (const std::string& n : device_names()) known += (known.empty() ? "" : ", ") + n;
  const bool planned = name == "rtl" || name == "xrt";
  throw UserError("unknown engine '" + name + "' (available: " + known + ")" +
                  (planned ? "; '" + name + "' is planned but not built yet" : ""));
}

}  // namespace weft::driver
