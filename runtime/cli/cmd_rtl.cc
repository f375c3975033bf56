// `weft rtl build --config FILE`: the RTL of a configuration file (docs/codesign.md). Verilates
// weft_top with the configuration's generated package into an RTL plugin in the RTL cache, which
// the rtl engine then loads wherever that configuration is named (`--engine rtl --config FILE`).
#include <iostream>
#include <memory>

#include "driver/rtl_device.h"
#include "hardware/isa/layout.h"
#include "runtime/cli/commands.h"

namespace weft::cli {

void add_rtl_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("rtl", "The RTL of a configuration file.");
  cmd->require_subcommand(1);
  struct Opts {
    std::string config;
    int jobs = 2;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* build = cmd->add_subcommand(
      "build",
      "Verilate weft_top for a configuration (a configuration file, usually) into an RTL plugin\n"
      "that the rtl engine loads (in $WEFT_RTL_CACHE, else ~/.cache/weft/rtl). Needs Verilator.");
  build->add_option("--config", o->config, "configuration file (or shipped name)")->required();
  build->add_option("-j,--jobs", o->jobs, "parallel compile jobs")->capture_default_str();
  build->add_flag("--force", o->force, "rebuild even when the plugin exists");
  build->callback([o] {
    const isa::Layout& l = isa::layout_for(o->config);
    const driver::RtlPluginBuild b = driver::build_rtl_plugin(
        l, o->jobs, o->force, [](const std::string& m) { std::cerr << "weft rtl: " << m << "\n"; });
    if (b.builtin) {
      std::cout << "configuration '" << l.config.name
                << "' has the hardware of a shipped configuration: its RTL is built in\n";
    } else if (b.built) {
      std::cout << b.path << " (built in " << static_cast<int>(b.seconds + 0.5) << " s)\n";
    } else {
      std::cout << b.path << " (up to date)\n";
    }
  });
}

}  // namespace weft::cli
