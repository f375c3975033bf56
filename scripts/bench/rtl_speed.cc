// bench_rtl_speed: how fast the Verilated RTL simulates, against the cycle model, in one run
// on one core. Runs the same blocked GEMM as bench_sim_speed on the cycle model (median of
// --reps) and on the RTL (once), checks that both give the same cycle count and DRAM image,
// and prints simulated cycles per second of each and the ratio cycle-model speed / RTL speed.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "driver/rtl/rtl_engine.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "scripts/bench/gemm_program.h"
#include "simulator/cycle/cycle_sim.h"

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the RTL's simulation speed against the cycle model's (one core)."};
  std::string config = "gemm8x8", platform = "sim", program = "gemm_heavy", json_out;
  int64_t size = 1024;  // the cycle-model benchmark's GEMM
  int reps = 3, vthreads = 2;
  app.add_option("--config", config, "configuration")->capture_default_str();
  app.add_option("--platform", platform, "platform (a 128-bit one: sim, zcu104)")
      ->capture_default_str();
  app.add_option("--program", program,
                 "gemm_heavy (30 GEMMs of 256 micro-ops x 16 x 16) or gemm (the blocked GEMM of "
                 "bench_sim_speed, --size)")
      ->capture_default_str();
  app.add_option("--size", size, "M = N = K of the GEMM, in scalars")->capture_default_str();
  app.add_option("--vthreads", vthreads, "virtual threads of the GEMM (1 or 2)")
      ->capture_default_str();
  app.add_option("--reps", reps, "cycle-model repetitions (median reported)")
      ->capture_default_str();
  app.add_option("--json", json_out, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    const weft::isa::Layout& l = weft::isa::layout_for(config);
    const weft::isa::Platform& p = weft::isa::find_platform(platform);
    if (reps < 1) throw weft::UserError("--reps must be at least 1");
    if (vthreads < 1 || vthreads > 2) throw weft::UserError("--vthreads must be 1 or 2");
    if (program != "gemm" && program != "gemm_heavy")
      throw weft::UserError("--program must be gemm or gemm_heavy");
    const weft::bench::BenchProgram b = program == "gemm"
                                            ? weft::bench::square_gemm(l, size, vthreads, 7)
                                            : weft::bench::gemm_heavy(l, 30, 256, 7);

    std::vector<double> times;
    weft::sim::cycle::CycleStats cs;
    std::vector<uint8_t> cycle_img;
    for (int r = 0; r < reps; ++r) {
      std::vector<uint8_t> img = b.image;
      weft::sim::cycle::CycleSim sim(l, p);
      const auto t0 = Clock::now();
      cs = sim.run(img, b.insn_offset, b.insn_count);
      times.push_back(seconds_since(t0));
      cycle_img = std::move(img);
    }
    std::sort(times.begin(), times.end());
    const double cycle_s = times[times.size() / 2];

    const auto engine = weft::driver::rtl::make_rtl_engine(l, p);
    std::vector<uint8_t> rtl_img = b.image;
    const auto t0 = Clock::now();
    const weft::driver::rtl::RtlRunResult rr =
        engine->run(rtl_img, b.insn_offset, b.insn_count, {});
    const double rtl_s = seconds_since(t0);
    if (rr.error != 0) throw weft::UserError("the RTL stopped with an error: " + rr.error_detail);

    const double cycle_speed = cs.cycles / cycle_s, rtl_speed = rr.stats.cycles / rtl_s;
    nlohmann::ordered_json j = {{"config", config},
                                {"platform", platform},
                                {"program", b.name},
                                {"size", size},
                                {"instructions", b.insn_count},
                                {"cycles", cs.cycles},
                                {"rtl_cycles", rr.stats.cycles},
                                {"cycle_model_seconds_median", cycle_s},
                                {"rtl_seconds", rtl_s},
                                {"cycle_model_cycles_per_second", cycle_speed},
                                {"rtl_cycles_per_second", rtl_speed},
                                {"cycle_model_over_rtl_speed", cycle_speed / rtl_speed},
                                {"same_cycles", cs.cycles == rr.stats.cycles},
                                {"images_identical", cycle_img == rtl_img}};
    std::printf("%-10s %10s %12s %12s %14s %14s %8s %6s\n", "config", "insns", "cycles",
                "rtl_s", "cycle Mc/s", "rtl Mc/s", "ratio", "same");
    std::printf("%-10s %10llu %12llu %12.3f %14.2f %14.3f %8.1f %6s\n", config.c_str(),
                static_cast<unsigned long long>(b.insn_count),
                static_cast<unsigned long long>(cs.cycles), rtl_s, cycle_speed / 1e6,
                rtl_speed / 1e6, cycle_speed / rtl_speed,
                (cs.cycles == rr.stats.cycles && cycle_img == rtl_img) ? "yes" : "NO");
    if (!json_out.empty()) std::ofstream(json_out) << j.dump(2) << "\n";
    if (cs.cycles != rr.stats.cycles || cycle_img != rtl_img) return 1;
  } catch (const weft::UserError& e) {
    std::fprintf(stderr, "bench_rtl_speed: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
