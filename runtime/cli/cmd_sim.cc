// `weft sim`: the raw-run contract (docs/isa.md): run a program held in a DRAM image on an
// engine and write the final image and statistics.
#include <chrono>
#include <iostream>
#include <memory>

#include "driver/engine.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/io/files.h"

namespace weft::cli {

void add_sim_command(CLI::App& app) {
  struct Opts {
    std::string config = isa::kDefaultConfig, engine = "functional", mem, out, stats;
    std::string insn_offset, insn_count;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "sim",
      "Run a program held in a DRAM image. IMAGE is a flat little-endian image from address 0;\n"
      "the program is --insn-count 16-byte instructions at byte --insn-offset. On success the\n"
      "final image goes to --out and the VTA counters to --stats (JSON). On any error nothing\n"
      "is written and the exit code is 1.");
  cmd->add_option("--config", o->config, "hardware configuration (gemm8x8, vta, tiny)")
      ->capture_default_str();
  cmd->add_option("--engine", o->engine, "simulation engine (functional)")->capture_default_str();
  cmd->add_option("--mem", o->mem, "input DRAM image")->required();
  cmd->add_option("--insn-offset", o->insn_offset, "byte offset of the first instruction")
      ->required();
  cmd->add_option("--insn-count", o->insn_count, "number of instructions")->required();
  cmd->add_option("--out", o->out, "output DRAM image")->required();
  cmd->add_option("--stats", o->stats, "write statistics as JSON to this file");
  cmd->add_flag("--json", o->json, "print statistics as JSON instead of a summary");
  cmd->callback([o] {
    const isa::Layout& layout = isa::layout_for(o->config);
    const uint64_t offset = rt::parse_size(o->insn_offset, "--insn-offset");
    const uint64_t count = rt::parse_size(o->insn_count, "--insn-count");
    std::unique_ptr<driver::Engine> engine = driver::make_engine(o->engine, layout);
    std::vector<uint8_t> dram = rt::read_file(o->mem);

    const auto t0 = std::chrono::steady_clock::now();
    const driver::RunResult r = engine->run(dram, offset, count);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    nlohmann::ordered_json stats;
    stats["config"] = o->config;
    stats["engine"] = engine->name();
    const nlohmann::ordered_json counters = sim::to_json(r.counters);
    for (const auto& [k, v] : counters.items()) stats[k] = v;
    for (const auto& [k, v] : r.extra.items()) stats[k] = v;
    stats["wall_seconds"] = seconds;

    rt::write_file(o->out, dram);
    if (!o->stats.empty()) rt::write_text_file(o->stats, stats.dump(2) + "\n");
    if (o->json) {
      std::cout << stats.dump(2) << "\n";
      return;
    }
    std::cout << "weft sim: " << engine->name() << " engine, config " << o->config << ", "
              << r.counters.insn_count << " instructions in " << seconds * 1e3 << " ms\n";
    for (const auto& [k, v] : counters.items()) {
      std::cout << "  " << k << std::string(18 - k.size(), ' ') << v.dump() << "\n";
    }
    std::cout << "  final image -> " << o->out << "\n";
  });
}

}  // namespace weft::cli
