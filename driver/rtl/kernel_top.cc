// The registry of built kernel tops; see kernel_top.h. WEFT_KERNEL_CONFIGS_LIST (from
// driver/rtl/CMakeLists.txt) is the list, as X(cfg) entries.
#include "driver/rtl/kernel_top.h"

#include "hardware/isa/errors.h"

namespace weft::driver::rtl {

#define X(cfg) std::unique_ptr<KernelTop> make_kernel_top_##cfg(const isa::Platform&);
WEFT_KERNEL_CONFIGS_LIST
#undef X

std::vector<std::string> kernel_top_configs() {
  return {
#define X(cfg) #cfg,
      WEFT_KERNEL_CONFIGS_LIST
#undef X
  };
}

std::unique_ptr<KernelTop> make_kernel_top(const isa::Layout& l, const isa::Platform& p) {
  if (p.axi_data_bits != 128 || p.max_burst_beats != 16) {
    throw UserError("the kernel top is built for a 128-bit AXI bus with 16-beat bursts; "
                    "platform '" + p.name + "' has " + std::to_string(p.axi_data_bits) +
                    "-bit data and " + std::to_string(p.max_burst_beats) + "-beat bursts");
  }
#define X(cfg) \
  if (l.config.name == #cfg) return make_kernel_top_##cfg(p);
  WEFT_KERNEL_CONFIGS_LIST
#undef X
  return nullptr;
}

}  // namespace weft::driver::rtl
