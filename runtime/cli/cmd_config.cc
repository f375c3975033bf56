// `weft config list|show|resources`: the shipped configurations and platforms, their derived
// layout, and a configuration's arithmetic resource estimate (what synth.sh --skip reports).
#include <iostream>
#include <memory>

#include "hardware/cost/resource_estimate.h"
#include "hardware/isa/describe.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"

namespace weft::cli {

void add_config_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("config", "Inspect hardware configurations and platforms.");
  cmd->require_subcommand(1);

  auto list_json = std::make_shared<bool>(false);
  CLI::App* list = cmd->add_subcommand("list", "List the shipped configurations and platforms.");
  list->add_flag("--json", *list_json, "print JSON");
  list->callback([list_json] {
    if (*list_json) {
      nlohmann::ordered_json j;
      j["configs"] = nlohmann::ordered_json::array();
      for (const auto& c : isa::shipped_configs()) {
        j["configs"].push_back({{"name", c.name}, {"description", c.description}});
      }
      j["platforms"] = nlohmann::ordered_json::array();
      for (const auto& p : isa::shipped_platforms()) {
        j["platforms"].push_back(isa::platform_to_json(p));
      }
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << "configurations (default " << isa::kDefaultConfig << "):\n";
    for (const auto& c : isa::shipped_configs()) {
      std::cout << "  " << c.name << std::string(10 - std::min<size_t>(9, c.name.size()), ' ')
                << c.description << "\n";
    }
    std::cout << "platforms (default " << isa::shipped_platforms().front().name << "):\n";
    for (const auto& p : isa::shipped_platforms()) {
      std::cout << "  " << p.name << std::string(10 - std::min<size_t>(9, p.name.size()), ' ')
                << p.description << "\n";
    }
  });

  struct ShowOpts {
    std::string name;
    bool json = false;
  };
  auto so = std::make_shared<ShowOpts>();
  CLI::App* show = cmd->add_subcommand(
      "show",
      "Show a configuration (GEMM shape, buffer depths, element sizes and the position and width\n"
      "of every instruction and micro-op field) or a platform.");
  show->add_option("name", so->name, "configuration or platform name")->required();
  show->add_flag("--json", so->json, "print JSON");
  show->callback([so] {
    for (const auto& p : isa::shipped_platforms()) {
      if (p.name != so->name) continue;
      if (so->json) {
        std::cout << isa::platform_to_json(p).dump(2) << "\n";
      } else {
        std::cout << p.name << ": " << p.description << "\n"
                  << "  clock " << p.clock_mhz << " MHz, " << p.axi_data_bits << "-bit AXI\n"
                  << "  reads: latency " << p.read_latency << " cycles, up to "
                  << p.max_outstanding_reads << " outstanding\n"
                  << "  writes: latency " << p.write_latency << " cycles, up to "
                  << p.max_outstanding_writes << " outstanding\n"
                  << "  bursts of up to " << p.max_burst_beats << " beats\n";
      }
      return;
    }
    const isa::Layout& l = isa::layout_for(so->name);
    if (so->json) {
      std::cout << isa::layout_to_json(l).dump(2) << "\n";
    } else {
      std::cout << isa::layout_to_text(l);
    }
  });

  auto res_name = std::make_shared<std::string>();
  CLI::App* res = cmd->add_subcommand(
      "resources",
      "The arithmetic resource estimate of a configuration (no synthesis): block RAM of the\n"
      "buffers and the GEMM core's MACs per cycle, as the JSON `scripts/synth/synth.sh --skip`\n"
      "writes. Real LUT/FF/DSP/BRAM figures come from synth.sh without --skip (yosys).");
  res->add_option("config", *res_name, "configuration name or file (*.json)")->required();
  res->callback([res_name] {
    const isa::Layout& l = isa::layout_for(*res_name);
    std::cout << cost::estimate_to_json(l, cost::estimate_resources(l)).dump() << "\n";
  });
}

}  // namespace weft::cli
