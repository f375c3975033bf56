// bench_sim_speed: how fast the cycle model simulates, with full data, on one core. Runs each
// program on the cycle model (median of --reps runs) and once on the functional model, checks
// that both give the same DRAM image, and prints simulated cycles per second, by wall-clock
// time and by the thread's CPU time (which a busy, shared machine disturbs less), as a table
// and as JSON (--json FILE). Programs: the GEMM-heavy program of issue #19, a blocked GEMM,
// load-heavy and token-heavy programs, and ResNet-18 layers compiled by the tensor compiler.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "scripts/bench/bench_clock.h"
#include "scripts/bench/gemm_program.h"
#include "scripts/bench/resnet_program.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"

namespace {

using weft::bench::Stopwatch;

// The benchmark also builds against a cycle model from before ModelOptions existed (the
// "before" column of a before/after comparison); then --kernel and --stepped are refused.
#ifdef WEFT_CYCLE_MODEL_OPTIONS
using ModelOptions = weft::sim::cycle::ModelOptions;
#else
struct ModelOptions {};
#endif

nlohmann::ordered_json measure(const weft::isa::Layout& l, const weft::isa::Platform& p,
                               const weft::bench::BenchProgram& b, int reps,
                               const ModelOptions& model) {
  std::vector<double> wall, cpu;
  weft::sim::cycle::CycleStats stats;
  std::vector<uint8_t> cycle_img;
  for (int r = 0; r < reps; ++r) {
    std::vector<uint8_t> img = b.image;
#ifdef WEFT_CYCLE_MODEL_OPTIONS
    weft::sim::cycle::CycleSim sim(l, p, model);
#else
    weft::sim::cycle::CycleSim sim(l, p);
#endif
    const Stopwatch sw;
    stats = sim.run(img, b.insn_offset, b.insn_count);
    wall.push_back(sw.wall());
    cpu.push_back(sw.cpu());
    cycle_img = std::move(img);
  }
  std::vector<uint8_t> func_img = b.image;
  weft::sim::FunctionalSim fsim(l);
  const Stopwatch sw;
  fsim.run(func_img, b.insn_offset, b.insn_count);
  const double func_s = sw.wall();

  const double wall_s = weft::bench::median(wall), cpu_s = weft::bench::median(cpu);
  nlohmann::ordered_json j;
  j["program"] = b.name;
  j["instructions"] = b.insn_count;
  j["cycles"] = stats.cycles;
  j["utilization"] = stats.utilization();
  j["gemm_uops"] = stats.gemm_uops;
  j["macs"] = stats.counters.gemm_counter * static_cast<uint64_t>(l.macs_per_uop());
  j["cycle_model_seconds_median"] = wall_s;
  j["cycle_model_cpu_seconds_median"] = cpu_s;
  j["simulated_cycles_per_second"] = stats.cycles / wall_s;
  j["simulated_cycles_per_cpu_second"] = stats.cycles / cpu_s;
  j["macs_per_cpu_second"] = j["macs"].get<double>() / cpu_s;
  j["functional_seconds"] = func_s;
  j["images_identical"] = func_img == cycle_img;
  j["dram_read_beats"] = stats.read_beats;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the cycle model's speed (simulated cycles per second, one core)."};
  std::string config = "gemm8x8", platform = "sim", json_out, kernel = "auto";
  int64_t size = 1024, loads = 20000, tokens = 20000;
  std::vector<std::string> programs = {"gemm_heavy", "gemm", "load_heavy", "token_heavy"};
  int reps = 3, vthreads = 2;
  bool stepped = false;
  app.add_option("--config", config, "configuration")->capture_default_str();
  app.add_option("--platform", platform, "platform")->capture_default_str();
  app.add_option("--program", programs,
                 "programs to run: gemm_heavy (30 GEMMs of 256 micro-ops x 16 x 16), gemm "
                 "(--size), load_heavy (--loads), token_heavy (--tokens), C1 .. C12 (ResNet-18 "
                 "layers), resnet18 (all twelve)")
      ->capture_default_str();
  app.add_option("--size", size, "M = N = K of the GEMM, in scalars (a multiple of the block)")
      ->capture_default_str();
  app.add_option("--tokens", tokens, "steps of the token-heavy program")->capture_default_str();
  app.add_option("--loads", loads, "steps of the load-heavy program")->capture_default_str();
  app.add_option("--vthreads", vthreads, "virtual threads of the GEMM and layers (1 or 2)")
      ->capture_default_str();
  app.add_option("--reps", reps, "cycle-model repetitions (median reported)")
      ->capture_default_str();
  app.add_option("--kernel", kernel, "GEMM kernel: auto, generic, avx2, avx512vnni")
      ->capture_default_str();
  app.add_flag("--stepped", stepped,
               "step every GEMM micro-op one by one (the shortcuts' reference), for comparison");
  app.add_option("--json", json_out, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    const weft::isa::Layout& l = weft::isa::layout_for(config);
    const weft::isa::Platform& p = weft::isa::find_platform(platform);
    if (reps < 1) throw weft::UserError("--reps must be at least 1");
    if (loads < 1) throw weft::UserError("--loads must be at least 1");
    if (tokens < 1) throw weft::UserError("--tokens must be at least 1");
    if (vthreads < 1 || vthreads > 2) throw weft::UserError("--vthreads must be 1 or 2");
    ModelOptions model;
#ifdef WEFT_CYCLE_MODEL_OPTIONS
    model.shortcuts = !stepped;
    model.kernel = weft::sim::cycle::parse_kernel_isa(kernel);
    const weft::sim::cycle::CycleSim probe(l, p, model);
    const char* used = weft::sim::cycle::kernel_isa_name(probe.kernel_isa());
#else
    if (stepped || kernel != "auto") {
      throw weft::UserError("this cycle model has no --kernel or --stepped (it predates them)");
    }
    const char* used = "before ModelOptions";
#endif
    std::vector<std::string> names;
    for (const std::string& n : programs) {
      if (n == "resnet18") {
        for (int c = 1; c <= 12; ++c) names.push_back("C" + std::to_string(c));
      } else {
        names.push_back(n);
      }
    }
    std::fprintf(stderr, "bench_sim_speed: %s on %s, GEMM kernel %s%s\n", config.c_str(),
                 platform.c_str(), used, stepped ? ", stepped" : "");
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const std::string& name : names) {
      weft::bench::BenchProgram b;
      if (name == "gemm_heavy") {
        b = weft::bench::gemm_heavy(l, 30, 256, 7);
      } else if (name == "gemm") {
        b = weft::bench::square_gemm(l, size, vthreads, 7);
      } else if (name == "load_heavy") {
        b = weft::bench::load_heavy(l, loads, 9);
      } else if (name == "token_heavy") {
        b = weft::bench::token_heavy(l, tokens, 11);
      } else if (name.size() > 1 && name[0] == 'C') {
        b = weft::bench::resnet18_layer(l, p, name, vthreads, 13);
      } else {
        throw weft::UserError("unknown --program " + name);
      }
      results.push_back(measure(l, p, b, reps, model));
    }
    std::printf("%-12s %8s %12s %7s %10s %10s %11s %11s %10s\n", "program", "insns", "cycles",
                "util", "wall_s", "cpu_s", "Mc/s wall", "Mc/s cpu", "identical");
    for (const auto& r : results) {
      std::printf("%-12s %8llu %12llu %6.1f%% %10.4f %10.4f %11.1f %11.1f %10s\n",
                  r["program"].get<std::string>().c_str(),
                  r["instructions"].get<unsigned long long>(),
                  r["cycles"].get<unsigned long long>(), 100 * r["utilization"].get<double>(),
                  r["cycle_model_seconds_median"].get<double>(),
                  r["cycle_model_cpu_seconds_median"].get<double>(),
                  r["simulated_cycles_per_second"].get<double>() / 1e6,
                  r["simulated_cycles_per_cpu_second"].get<double>() / 1e6,
                  r["images_identical"].get<bool>() ? "yes" : "NO");
    }
    nlohmann::ordered_json out = {
        {"config", config}, {"platform", platform}, {"kernel", used}, {"stepped", stepped},
        {"size", size},     {"vthreads", vthreads}, {"reps", reps},   {"results", results}};
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
