// bench_sim_speed: how fast the cycle model simulates, with full data, on one core. Runs a
// large blocked GEMM and a load-heavy program on the cycle model (median of --reps runs) and
// once on the functional model, checks that both give the same DRAM image, and prints
// simulated cycles per wall-clock second as a table and as JSON (--json FILE).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "scripts/bench/gemm_program.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

nlohmann::ordered_json measure(const weft::isa::Layout& l, const weft::isa::Platform& p,
                               const weft::bench::BenchProgram& b, int reps) {
  std::vector<double> times;
  weft::sim::cycle::CycleStats stats;
  std::vector<uint8_t> cycle_img;
  for (int r = 0; r < reps; ++r) {
    std::vector<uint8_t> img = b.image;
    weft::sim::cycle::CycleSim sim(l, p);
    const auto t0 = Clock::now();
    stats = sim.run(img, b.insn_offset, b.insn_count);
    times.push_back(seconds_since(t0));
    cycle_img = std::move(img);
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];

  std::vector<uint8_t> func_img = b.image;
  weft::sim::FunctionalSim fsim(l);
  const auto t0 = Clock::now();
  fsim.run(func_img, b.insn_offset, b.insn_count);
  const double func_s = seconds_since(t0);

  nlohmann::ordered_json j;
  j["program"] = b.name;
  j["instructions"] = b.insn_count;
  j["cycles"] = stats.cycles;
  j["utilization"] = stats.utilization();
  j["cycle_model_seconds_median"] = median;
  j["simulated_cycles_per_second"] = stats.cycles / median;
  j["functional_seconds"] = func_s;
  j["cycle_over_functional_time"] = median / func_s;
  j["images_identical"] = func_img == cycle_img;
  j["dram_read_beats"] = stats.read_beats;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the cycle model's speed (simulated cycles per second, one core)."};
  std::string config = "gemm8x8", platform = "sim", json_out;
  int64_t size = 1024, loads = 20000, tokens = 20000;
  std::vector<std::string> programs = {"gemm_heavy", "gemm", "load_heavy", "token_heavy"};
  int reps = 3, vthreads = 2;
  app.add_option("--config", config, "configuration")->capture_default_str();
  app.add_option("--platform", platform, "platform")->capture_default_str();
  app.add_option("--size", size, "M = N = K of the GEMM, in scalars (a multiple of the block)")
      ->capture_default_str();
  app.add_option("--program", programs,
                 "programs to run: gemm_heavy (30 GEMMs of 256 micro-ops x 16 x 16), gemm "
                 "(--size), load_heavy (--loads), token_heavy (--tokens)")
      ->capture_default_str();
  app.add_option("--tokens", tokens, "steps of the token-heavy program")->capture_default_str();
  app.add_option("--loads", loads, "steps of the load-heavy program")->capture_default_str();
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
    if (loads < 1) throw weft::UserError("--loads must be at least 1");
    if (vthreads < 1 || vthreads > 2) throw weft::UserError("--vthreads must be 1 or 2");
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    std::fprintf(stderr, "bench_sim_speed: %s on %s, GEMM %lldx%lldx%lld, %d thread(s)\n",
                 config.c_str(), platform.c_str(), static_cast<long long>(size),
                 static_cast<long long>(size), static_cast<long long>(size), vthreads);
    for (const std::string& name : programs) {
      if (name == "gemm_heavy") {
        results.push_back(measure(l, p, weft::bench::gemm_heavy(l, 30, 256, 7), reps));
      } else if (name == "gemm") {
        results.push_back(measure(l, p, weft::bench::square_gemm(l, size, vthreads, 7), reps));
      } else if (name == "load_heavy") {
        results.push_back(measure(l, p, weft::bench::load_heavy(l, loads, 9), reps));
      } else if (name == "token_heavy") {
        results.push_back(measure(l, p, weft::bench::token_heavy(l, tokens, 11), reps));
      } else {
        throw weft::UserError("unknown --program " + name);
      }
    }
    std::printf("%-12s %8s %12s %8s %12s %14s %10s\n", "program", "insns", "cycles", "util",
                "cycle_s", "Mcycles/s", "identical");
    for (const auto& r : results) {
      std::printf("%-12s %8llu %12llu %7.1f%% %12.3f %14.1f %10s\n",
                  r["program"].get<std::string>().c_str(),
                  r["instructions"].get<unsigned long long>(),
                  r["cycles"].get<unsigned long long>(), 100 * r["utilization"].get<double>(),
                  r["cycle_model_seconds_median"].get<double>(),
                  r["simulated_cycles_per_second"].get<double>() / 1e6,
                  r["images_identical"].get<bool>() ? "yes" : "NO");
    }
    nlohmann::ordered_json out = {{"config", config},
                                  {"platform", platform},
                                  {"size", size},
                                  {"vthreads", vthreads},
                                  {"results", results}};
    if (!json_out.empty()) std::ofstream(json_out) << out.dump(2) << "\n";
    for (const auto& r : results) {
      if (!r["images_identical"].get<bool>()) return 1;
    }
  } catch (const weft::UserError& e) {
    std::fprintf(stderr, "bench_sim_speed: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
