// bench_rtl_speed: how fast the Verilated RTL simulates, against the cycle model, in one run
// on one core. Runs one program (by default the GEMM-heavy program of issue #19) in rounds:
// each round runs the cycle model --cycle-reps times and the RTL once, so that both see the
// same machine load; medians of wall-clock and of thread CPU time are reported for each, with
// the ratio cycle-model speed / RTL speed. Checks that both give the same cycle count,
// per-module accounting and DRAM image (and the cycle model the functional model's image).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "driver/rtl/rtl_engine.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "scripts/bench/bench_clock.h"
#include "scripts/bench/gemm_program.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/functional/functional_sim.h"

namespace {
bool same_modules(const weft::sim::cycle::CycleStats& a, const weft::sim::cycle::CycleStats& b) {
  auto eq = [](const weft::sim::cycle::ModuleCycles& x, const weft::sim::cycle::ModuleCycles& y) {
    return x.busy == y.busy && x.stall_token == y.stall_token && x.stall_dram == y.stall_dram &&
           x.stall_cmd_empty == y.stall_cmd_empty && x.stall_hazard == y.stall_hazard &&
           x.stall_drain == y.stall_drain && x.idle == y.idle;
  };
  return eq(a.load, b.load) && eq(a.compute, b.compute) && eq(a.store, b.store);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Measures the RTL's simulation speed against the cycle model's (one core)."};
  std::string config = "gemm8x8", platform = "sim", program = "gemm_heavy", json_out;
  std::string kernel_isa = "auto";
  int64_t size = 1024;
  int rounds = 3, cycle_reps = 3, vthreads = 2;
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
  app.add_option("--rounds,--reps", rounds, "rounds (RTL runs; medians reported)")
      ->capture_default_str();
  app.add_option("--cycle-reps", cycle_reps, "cycle-model runs per round")->capture_default_str();
  app.add_option("--kernel", kernel_isa,
                 "the cycle model's GEMM kernel: auto, generic, avx2, avx512vnni (to see what a "
                 "host without AVX-512 would get)")
      ->capture_default_str();
  app.add_option("--json", json_out, "write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    const weft::isa::Layout& l = weft::isa::layout_for(config);
    const weft::isa::Platform& p = weft::isa::find_platform(platform);
    if (rounds < 1 || cycle_reps < 1) throw weft::UserError("--rounds and --cycle-reps >= 1");
    if (vthreads < 1 || vthreads > 2) throw weft::UserError("--vthreads must be 1 or 2");
    if (program != "gemm" && program != "gemm_heavy")
      throw weft::UserError("--program must be gemm or gemm_heavy");
    const weft::bench::BenchProgram b = program == "gemm"
                                            ? weft::bench::square_gemm(l, size, vthreads, 7)
                                            : weft::bench::gemm_heavy(l, 30, 256, 7);

    const auto engine = weft::driver::rtl::make_rtl_engine(l, p);
    std::vector<double> c_wall, c_cpu, r_wall, r_cpu;
    weft::sim::cycle::CycleStats cs;
    weft::driver::rtl::RtlRunResult rr;
    std::vector<uint8_t> cycle_img, rtl_img;
    std::string kernel = "-";  // a cycle model from before GEMM kernels were chosen: "-"
    for (int round = 0; round < rounds; ++round) {
      for (int r = 0; r < cycle_reps; ++r) {
        std::vector<uint8_t> img = b.image;
#ifdef WEFT_CYCLE_MODEL_OPTIONS
        weft::sim::cycle::ModelOptions model;
        model.kernel = weft::sim::cycle::parse_kernel_isa(kernel_isa);
        weft::sim::cycle::CycleSim sim(l, p, model);
        kernel = weft::sim::cycle::kernel_isa_name(sim.kernel_isa());
#else
        if (kernel_isa != "auto") throw weft::UserError("this cycle model has no --kernel");
        weft::sim::cycle::CycleSim sim(l, p);
#endif
        const weft::bench::Stopwatch sw;
        cs = sim.run(img, b.insn_offset, b.insn_count);
        c_wall.push_back(sw.wall());
        c_cpu.push_back(sw.cpu());
        cycle_img = std::move(img);
      }
      rtl_img = b.image;
      const weft::bench::Stopwatch sw;
      rr = engine->run(rtl_img, b.insn_offset, b.insn_count, {});
      r_wall.push_back(sw.wall());
      r_cpu.push_back(sw.cpu());
      if (rr.error != 0) throw weft::UserError("the RTL stopped with an error: " + rr.error_detail);
    }
    std::vector<uint8_t> func_img = b.image;
    weft::sim::FunctionalSim(l).run(func_img, b.insn_offset, b.insn_count);

    using weft::bench::median;
    const double cw = median(c_wall), cc = median(c_cpu), rw = median(r_wall), rc = median(r_cpu);
    const double c_speed = cs.cycles / cw, c_speed_cpu = cs.cycles / cc;
    const double r_speed = rr.stats.cycles / rw, r_speed_cpu = rr.stats.cycles / rc;
    const bool same = cs.cycles == rr.stats.cycles && same_modules(cs, rr.stats) &&
                      cycle_img == rtl_img && cycle_img == func_img;
    const double macs = static_cast<double>(cs.counters.gemm_counter) * l.macs_per_uop();
    nlohmann::ordered_json j = {{"config", config},
                                {"platform", platform},
                                {"program", b.name},
                                {"kernel", kernel},
                                {"instructions", b.insn_count},
                                {"cycles", cs.cycles},
                                {"rtl_cycles", rr.stats.cycles},
                                {"rounds", rounds},
                                {"cycle_reps_per_round", cycle_reps},
                                {"cycle_model_seconds_median", cw},
                                {"cycle_model_cpu_seconds_median", cc},
                                {"rtl_seconds_median", rw},
                                {"rtl_cpu_seconds_median", rc},
                                {"cycle_model_cycles_per_second", c_speed},
                                {"cycle_model_cycles_per_cpu_second", c_speed_cpu},
                                {"rtl_cycles_per_second", r_speed},
                                {"rtl_cycles_per_cpu_second", r_speed_cpu},
                                {"cycle_model_over_rtl_speed", c_speed / r_speed},
                                {"cycle_model_over_rtl_speed_cpu", c_speed_cpu / r_speed_cpu},
                                {"cycle_model_macs_per_cpu_second", macs / cc},
                                {"same_cycles_accounting_and_image", same}};
    std::printf("%-8s %-10s %10s %10s %10s %10s %10s %8s %8s %9s %5s\n", "config", "program",
                "cycles", "kernel", "cyc Mc/s", "cyc Mc/s", "rtl Mc/s", "ratio", "ratio", "GMAC/s",
                "same");
    std::printf("%-8s %-10s %10s %10s %10s %10s %10s %8s %8s %9s %5s\n", "", "", "", "", "(wall)",
                "(cpu)", "(cpu)", "(wall)", "(cpu)", "(cpu)", "");
    std::printf("%-8s %-10s %10llu %10s %10.1f %10.1f %10.3f %8.1f %8.1f %9.1f %5s\n",
                config.c_str(), b.name.c_str(), static_cast<unsigned long long>(cs.cycles),
                kernel.c_str(), c_speed / 1e6, c_speed_cpu / 1e6, r_speed_cpu / 1e6,
                c_speed / r_speed, c_speed_cpu / r_speed_cpu, macs / cc / 1e9, same ? "yes" : "NO");
    if (!json_out.empty()) std::ofstream(json_out) << j.dump(2) << "\n";
    if (!same) return 1;
  } catch (const weft::UserError& e) {
    std::fprintf(stderr, "bench_rtl_speed: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
