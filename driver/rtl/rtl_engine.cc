// The registry of built RTL configurations; see rtl_engine.h. WEFT_RTL_CONFIGS_LIST (from
// driver/rtl/CMakeLists.txt) is the list, as X(cfg) entries, so a build of a subset
// (WEFT_RTL_CONFIGS=tiny, as the fuzz preset) links.
#include "driver/rtl/rtl_engine.h"

#include "hardware/isa/errors.h"

namespace weft::driver::rtl {

#define X(cfg) \
  std::unique_ptr<RtlEngine> make_rtl_engine_##cfg(const isa::Layout&, const isa::Platform&);
WEFT_RTL_CONFIGS_LIST
#undef X

std::vector<std::string> rtl_configs() {
  return {
#define X(cfg) #cfg,
      WEFT_RTL_CONFIGS_LIST
#undef X
  };
}

std::unique_ptr<RtlEngine> make_rtl_engine(const isa::Layout& l, const isa::Platform& p) {
  if (p.axi_data_bits != 128 || p.max_burst_beats != 16) {
    throw UserError("the rtl engine is built for a 128-bit AXI bus with 16-beat bursts; platform '" +
                    p.name + "' has " + std::to_string(p.axi_data_bits) + "-bit data and " +
                    std::to_string(p.max_burst_beats) +
                    "-beat bursts (use the cycle engine, or a platform such as 'sim' or "
                    "'zcu104')");
  }
  const std::string& name = l.config.name;
#define X(cfg) \
  if (name == #cfg) return make_rtl_engine_##cfg(l, p);
  WEFT_RTL_CONFIGS_LIST
#undef X
  std::string known;
  for (const std::string& n : rtl_configs()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("the rtl engine has no RTL built for configuration '" + name +
                  "' (built: " + known + ")");
}

}  // namespace weft::driver::rtl
