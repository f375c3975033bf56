// `weft sim`: the raw-run contract (docs/isa.md): run a program held in a DRAM image on an
// engine through the driver's Device interface and shared register sequence, and write the
// final image, the statistics and (cycle engine) a timeline: all of them or, on error, none.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "driver/device.h"
#include "driver/faults.h"
#include "driver/launch.h"
#include "driver/rtl_device.h"
#include "driver/timeline.h"
#include "hardware/isa/errors.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/device_run.h"
#include "runtime/cli/image_run.h"
#include "runtime/cli/progress.h"
#include "runtime/io/files.h"

namespace weft::cli {


void add_sim_command(CLI::App& app) {
  struct Opts {
    std::string config = isa::kDefaultConfig, platform = "sim", engine = "functional";
    std::string mem, out, stats, trace, wave, insn_offset, insn_count, inject_fault;
    double timeout_s = 3600;
    bool json = false, progress = false;
    std::string xclbin, xrt_emulate;
    int xrt_device = 0, xrt_bank = -1;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = app.add_subcommand(
      "sim",
      "Run a program held in a DRAM image. IMAGE is a flat little-endian image from address 0;\n"
      "the program is --insn-count 16-byte instructions at byte --insn-offset. On success the\n"
      "final image goes to --out and the statistics to --stats (JSON). On any error nothing\n"
      "is written and the exit code is 1. One of --out, --stats and --trace may be - (standard\n"
      "output); the summary (or --json) then goes to standard error instead.\n"
      "Engines: functional (the golden model), cycle (cycle-exact; adds cycles, per-module\n"
      "busy/stall cycles, DRAM traffic and utilization, and --trace), rtl (the Verilated\n"
      "RTL: the same statistics from the hardware's own counters, and --wave), xrt (a board\n"
      "through XRT with --xclbin, or the emulated board with --xrt-emulate rtl|cycle).");
  cmd->add_option("--config", o->config, "hardware configuration: gemm8x8, vta, tiny or a configuration file (*.json)")
      ->capture_default_str();
  cmd->add_option("--platform", o->platform,
                  "memory platform of the cycle and rtl engines (sim, pynq, zcu104)")
      ->capture_default_str();
  cmd->add_option("--engine", o->engine, "simulation engine (functional, cycle, rtl, xrt)")
      ->capture_default_str();
  add_xrt_options(*cmd, o->xclbin, o->xrt_device, o->xrt_emulate, o->xrt_bank);
  cmd->add_option("--mem", o->mem, "input DRAM image")->required();
  cmd->add_option("--insn-offset", o->insn_offset, "byte offset of the first instruction")
      ->required();
  cmd->add_option("--insn-count", o->insn_count, "number of instructions")->required();
  cmd->add_option("--out", o->out, "output DRAM image (- for standard output)")->required();
  cmd->add_option("--stats", o->stats, "write statistics as JSON to this file");
  cmd->add_option("--trace", o->trace,
                  "cycle engine: write a Chrome trace / Perfetto timeline (open in "
                  "ui.perfetto.dev or chrome://tracing)");
  cmd->add_option("--wave", o->wave,
                  "rtl engine: write an FST waveform of the run (open in GTKWave or Surfer)");
  cmd->add_option("--inject-fault", o->inject_fault,
                  "cycle and rtl engines, for testing error handling: AXI faults to inject, "
                  "e.g. read:slverr@0x1000, write:decerr#0, read:noresp#2 (docs/reliability.md)");
  cmd->add_option("--timeout", o->timeout_s, "seconds to wait for the device")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "print statistics as JSON instead of a summary");
  cmd->add_flag("--progress", o->progress,
                "show progress on stderr even when it is not a terminal");
  cmd->callback([o] {
    const isa::Layout& layout = isa::layout_for(o->config);
    const isa::Platform& platform = isa::find_platform(o->platform);
    const uint64_t offset = rt::parse_size(o->insn_offset, "--insn-offset");
    const uint64_t count = rt::parse_size(o->insn_count, "--insn-count");
    if (!o->trace.empty() && o->engine != "cycle") {
      throw UserError("--trace needs --engine cycle (the " + o->engine + " engine has no timing)");
    }
    if (!o->wave.empty()) {
      if (o->engine != "rtl") {
        throw UserError("--wave needs --engine rtl (the " + o->engine + " engine has no RTL)");
      }
      if (std::filesystem::path(o->wave).extension() != ".fst") {
        throw UserError("--wave '" + o->wave + "': the waveform is written as FST; name it *.fst");
      }
    }
    const bool uses_stdout = o->out == "-" || o->stats == "-" || o->trace == "-";
    if ((o->out == "-") + (o->stats == "-") + (o->trace == "-") > 1) {
      throw UserError("only one of --out, --stats and --trace can be - (standard output)");
    }
    driver::FaultPlan faults;
    if (!o->inject_fault.empty()) {
      check_fault_engine(o->engine, o->xrt_emulate);
      faults = driver::parse_fault_plan(o->inject_fault);
    }
    // Where the results go, checked before the run.
    rt::check_output_file(o->out, "--out");
    if (!o->stats.empty()) rt::check_output_file(o->stats, "--stats");
    if (!o->trace.empty()) rt::check_output_file(o->trace, "--trace");
    if (!o->wave.empty()) rt::check_output_file(o->wave, "--wave");
    std::vector<uint8_t> image = rt::read_file(o->mem);
    if (image.empty()) throw UserError("'" + o->mem + "' is empty: no DRAM image to run");

    driver::Timeline trace;
    Progress progress("weft sim", o->progress);
    driver::DeviceOptions opts;
    opts.layout = &layout;
    opts.platform = &platform;
    opts.memory_bytes = image.size();
    opts.trace = o->trace.empty() ? nullptr : &trace;
    opts.progress = [&progress](uint64_t c, uint64_t d, uint64_t t) { progress(c, d, t); };
    opts.faults = &faults;
    opts.xclbin = o->xclbin;
    opts.xrt_device = o->xrt_device;
    opts.xrt_emulate = o->xrt_emulate;
    opts.xrt_bank = o->xrt_bank;
    std::unique_ptr<driver::Device> dev = o->wave.empty()
                                              ? driver::open_device(o->engine, opts)
                                              : driver::make_rtl_device(opts, o->wave);

    // The image is the whole device memory, so the one allocation starts at address 0 and
    // the program's absolute dram_base fields address it directly.
    const uint64_t base = dev->alloc(image.size());
    if (base != 0) throw InternalError("first device allocation is not at address 0");
    dev->copy_to_device(0, image.data(), image.size());
    const auto t0 = std::chrono::steady_clock::now();
    try {
      driver::run(*dev, offset, count,
                  std::chrono::milliseconds(static_cast<int64_t>(o->timeout_s * 1000)));
    } catch (...) {
      progress.finish();
      if (!o->wave.empty()) {
        dev.reset();  // stops the run and closes the waveform
        std::error_code ec;
        std::filesystem::remove(o->wave, ec);  // all outputs or none
      }
      throw;
    }
    progress.finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    dev->copy_from_device(0, image.data(), image.size());

    nlohmann::ordered_json stats =
        raw_run_stats(layout, platform, o->engine, dev->name(), dev->run_details(), seconds);

    // All outputs or none: each is staged next to its destination and renamed into place
    // only once every one of them has been written.
    rt::OutputSet outputs;
    outputs.add(o->out, image);
    if (!o->stats.empty()) outputs.add_text(o->stats, stats.dump(2) + "\n");
    if (!o->trace.empty()) outputs.add_text(o->trace, trace.to_json().dump() + "\n");
    outputs.commit();
    // With an output on standard output, the summary goes to standard error.
    std::ostream& os = uses_stdout ? std::cerr : std::cout;
    if (o->json) {
      os << stats.dump(2) << "\n";
      return;
    }
    os << "weft sim: " << dev->name() << " engine, config " << o->config;
    if (o->engine == "cycle" || o->engine == "rtl") os << ", platform " << platform.name;
    os << ", " << stats["insn_count"] << " instructions in " << seconds * 1e3 << " ms\n";
    for (const char* k :
         {"inp_load_nbytes", "wgt_load_nbytes", "acc_load_nbytes", "uop_load_nbytes",
          "out_store_nbytes", "gemm_counter", "alu_counter", "insn_count"}) {
      os << "  " << k << std::string(18 - std::string(k).size(), ' ') << stats[k].dump() << "\n";
    }
    if (stats.contains("cycles")) {
      os << "  cycles            " << stats["cycles"].dump() << "\n";
      char line[256];
      std::snprintf(line, sizeof line,
                    "  utilization       %.1f%% (non-reset GEMM micro-ops / cycles)\n",
                    100.0 * stats["utilization"].get<double>());
      os << line;
      for (const char* m : {"load", "compute", "store"}) {
        const auto& mj = stats["modules"][m];
        std::snprintf(
            line, sizeof line,
            "  %-8s busy %llu, token %llu, dram %llu, cmd-empty %llu, hazard %llu, "
            "drain %llu, idle %llu\n",
            m, mj["busy"].get<unsigned long long>(), mj["stall_token"].get<unsigned long long>(),
            mj["stall_dram"].get<unsigned long long>(),
            mj["stall_cmd_empty"].get<unsigned long long>(),
            mj["stall_hazard"].get<unsigned long long>(),
            mj["stall_drain"].get<unsigned long long>(), mj["idle"].get<unsigned long long>());
        os << line;
      }
    }
    os << "  final image -> " << (o->out == "-" ? "standard output" : o->out) << "\n";
    if (!o->trace.empty()) {
      os << "  timeline -> " << (o->trace == "-" ? "standard output" : o->trace) << "\n";
    }
  });
}

}  // namespace weft::cli
