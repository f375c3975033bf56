// The registry of RTL models: the shipped configurations' models built into the binary, found
// by the hardware they describe, and for any other configuration its RTL plugin (plugin.h);
// see rtl_engine.h. WEFT_RTL_CONFIGS_LIST (from driver/rtl/CMakeLists.txt) lists the built-in
// models as X(cfg) entries, so a build of a subset (WEFT_RTL_CONFIGS=tiny, as the fuzz preset)
// links.
#include "driver/rtl/rtl_engine.h"

#include "driver/rtl/plugin.h"
#include "driver/rtl/rtl_harness.h"
#include "hardware/isa/errors.h"

namespace weft::driver::rtl {

#define X(cfg) std::unique_ptr<TopModel> make_rtl_model_##cfg();
WEFT_RTL_CONFIGS_LIST
#undef X

namespace {

struct BuiltinModel {
  const char* config;
  std::unique_ptr<TopModel> (*make)();
};
constexpr BuiltinModel kBuiltin[] = {
#define X(cfg) {#cfg, make_rtl_model_##cfg},
    WEFT_RTL_CONFIGS_LIST
#undef X
};

}  // namespace

std::vector<std::string> rtl_configs() {
  std::vector<std::string> names;
  for (const BuiltinModel& b : kBuiltin) names.push_back(b.config);
  return names;
}

std::unique_ptr<RtlEngine> make_rtl_engine(const isa::Layout& l, const isa::Platform& p) {
  if (p.axi_data_bits != 128 || p.max_burst_beats != 16) {
    throw UserError("the rtl engine is built for a 128-bit AXI bus with 16-beat bursts; platform '" +
                    p.name + "' has " + std::to_string(p.axi_data_bits) + "-bit data and " +
                    std::to_string(p.max_burst_beats) +
                    "-beat bursts (use the cycle engine, or a platform such as 'sim' or "
                    "'zcu104')");
  }
  // A configuration file that describes a shipped configuration's hardware runs its model.
  for (const BuiltinModel& b : kBuiltin) {
    if (isa::same_hardware(l.config, isa::find_config(b.config)))
      return std::make_unique<Harness>(l, p, b.make());
  }
  if (std::unique_ptr<TopModel> model = open_rtl_plugin(l))
    return std::make_unique<Harness>(l, p, std::move(model));
  std::string known;
  for (const std::string& n : rtl_configs()) known += (known.empty() ? "" : ", ") + n;
  throw UserError("the rtl engine has no RTL for configuration '" + l.config.name +
                  "' (built in: " + known + "; no plugin at " + rtl_plugin_path(l) +
                  "): build it with `weft rtl build --config FILE` (Verilator; minutes)");
}

}  // namespace weft::driver::rtl
