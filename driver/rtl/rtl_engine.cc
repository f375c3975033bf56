// The registry of built RTL configurations; see rtl_engine.h.
#include "driver/rtl/rtl_engine.h"

#include "hardware/isa/errors.h"

namespace weft::driver::rtl {

#define WEFT_RTL_DECLARE(cfg) \
  std::unique_ptr<RtlEngine> make_rtl_engine_##cfg(const isa::Layout&, const isa::Platform&);
WEFT_RTL_DECLARE(tiny)
WEFT_RTL_DECLARE(gemm8x8)
WEFT_RTL_DECLARE(vta)

std::vector<std::string> rtl_configs() { return {"tiny", "gemm8x8", "vta"}; }

std::unique_ptr<RtlEngine> make_rtl_engine(const isa::Layout& l, const isa::Platform& p) {
  if (p.axi_data_bits != 128 || p.max_burst_beats != 16) {
    throw UserError("the rtl engine is built for a 128-bit AXI bus with 16-beat bursts; platform '" +
                    p.name + "' has " + std::to_string(p.axi_data_bits) + "-bit data and " +
                    std::to_string(p.max_burst_beats) +
                    "-beat bursts (use the cycle engine, or a platform such as 'sim' or "
                    "'zcu104')");
  }
  const std::string& name = l.config.name;
  if (name == "tiny") return make_rtl_engine_tiny(l, p);
  if (name == "gemm8x8") return make_rtl_engine_gemm8x8(l, p);
  if (name == "vta") return make_rtl_engine_vta(l, p);
  std::string known;
  for (const std::string& n : rtl_configs()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("the rtl engine has no RTL built for configuration '" + name +
                  "' (built: " + known + ")");
}

}  // namespace weft::driver::rtl
