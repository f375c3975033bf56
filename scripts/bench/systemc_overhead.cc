// bench_systemc_overhead: what the SystemC TLM-2.0 wrapper (simulator/systemc) costs over the
// bare cycle model, same program, same process. Each ResNet-18 layer is compiled once (as
// `weft run conv2d` does); then every repetition runs it on the bare CycleSim and on a
// platform (memory, bus, accelerator, a host thread driving the registers) in each wrapper
// mode, in a rotating order, so that all of them see the same machine load. Every SystemC run
// must give the bare run's cycle count, memory image and completion time (cycles x clock
// period); the wall times are reported as medians and as the median of the per-repetition
// ratios to the bare run. SystemC elaborates once per process: one configuration per process
// (the script loops).
// SystemC first: the tlm_utils headers are not self-contained.
// clang-format off
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
// clang-format on

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ops/conv2d.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/ops/conv2d.h"
#include "simulator/cycle/cycle_sim.h"
#include "simulator/systemc/accelerator.h"
#include "simulator/systemc/memory.h"
#include "simulator/systemc/router.h"

namespace {

using namespace weft;
namespace sysc = sim::systemc;
namespace reg = isa::reg;
using Clock = std::chrono::steady_clock;
using sc_core::sc_time;

constexpr uint64_t kDram = 0x8000'0000, kControl = 0x4000'0000;

// The CPU side: the driver's register sequence over the bus, from a spawned thread.
struct Host : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Host> bus{"bus"};
  explicit Host(const sc_core::sc_module_name& n) : sc_module(n) {}
  void write32(uint64_t addr, uint32_t v) { access(tlm::TLM_WRITE_COMMAND, addr, &v); }
  uint32_t read32(uint64_t addr) {
    uint32_t v = 0;
    access(tlm::TLM_READ_COMMAND, addr, &v);
    return v;
  }
  void access(tlm::tlm_command cmd, uint64_t addr, uint32_t* v) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(reinterpret_cast<uint8_t*>(v));
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    bus->b_transport(t, delay);
    if (t.is_response_error()) throw InternalError("bench host: register access failed");
  }
};

struct Mode {
  const char* name;
  sysc::Timing timing;
  bool dmi;
  sc_time quantum;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(int argc, char** argv) {
  std::string config = "vta", layers_arg = "C12", json_path;
  int64_t batch = 1;
  int reps = 11;
  bool header = false;
  CLI::App app{"The SystemC wrapper's overhead over the bare cycle model"};
  app.add_option("--config", config, "configuration")->capture_default_str();
  app.add_option("--layers", layers_arg, "comma-separated ResNet-18 layers")->capture_default_str();
  app.add_option("--batch", batch, "batch")->capture_default_str();
  app.add_option("--reps", reps, "repetitions (median)")->capture_default_str();
  app.add_option("--json", json_path, "write the results here");
  app.add_flag("--header", header, "print the table's header first");
  CLI11_PARSE(app, argc, argv);

  const isa::Layout& l = isa::layout_for(config);
  const isa::Platform& p = isa::find_platform("sim");
  const Mode modes[] = {
      {"timed, DMI, quantum 10 us", sysc::Timing::kTimed, true, sc_time(10, sc_core::SC_US)},
      {"timed, DMI, quantum 100 ns", sysc::Timing::kTimed, true, sc_time(100, sc_core::SC_NS)},
      {"timed, no DMI, quantum 10 us", sysc::Timing::kTimed, false, sc_time(10, sc_core::SC_US)},
      {"untimed, DMI", sysc::Timing::kUntimed, true, sc_time(10, sc_core::SC_US)},
  };

  struct Layer {
    std::string name;
    rt::Conv2dBuild build;
    std::vector<uint8_t> image;
  };
  std::vector<Layer> layers;
  uint64_t memory_bytes = 1 << 20;
  std::stringstream names(layers_arg);
  for (std::string name; std::getline(names, name, ',');) {
    compiler::ops::Conv2dShape s{};
    for (const rt::LayerSpec& spec : rt::resnet18_layers()) {
      if (spec.name == name) s = spec.shape;
    }
    if (s.ic <= 1) throw UserError("no ResNet-18 layer '" + name + "'");
    s.n = batch;
    Layer x{name,
            rt::build_conv2d(l, s, compiler::ops::conv2d_candidates(l, p, s, 2, 1).at(0), {}),
            {}};
    x.image = rt::conv2d_image(x.build, rt::random_conv2d_data(s, 3));
    memory_bytes = std::max<uint64_t>(memory_bytes, (x.image.size() + 0xFFFFF) & ~0xFFFFFull);
    layers.push_back(std::move(x));
  }

  sysc::AcceleratorOptions options;
  options.dram_bytes = memory_bytes;
  sysc::Memory memory("memory", memory_bytes, sc_time(10, sc_core::SC_NS));
  sysc::Router router("bus");
  sysc::Accelerator accel("accel", l, p, options);
  Host host("host");
  sc_core::sc_signal<bool> irq("irq");
  host.bus.bind(router.targ);
  accel.gmem.bind(router.targ);
  router.init.bind(memory.socket);
  router.init.bind(accel.control);
  router.map(0, kDram, memory_bytes);
  router.map(1, kControl, 0x1000);
  accel.interrupt.bind(irq);

  sim::cycle::CycleSim bare(l, p);
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  if (header) {
    std::printf("| layer | config | cycles | bare cycle model (ms) |");
    for (const Mode& m : modes) std::printf(" %s: ms (ratio) |", m.name);
    std::printf("\n|---|---|---|---|");
    for (size_t i = 0; i < std::size(modes); ++i) std::printf("---|");
    std::printf("\n");
  }
  // One SystemC run of `image` in `mode`: wall seconds of sc_start; what it gave in checks.
  struct Check {
    uint32_t error = 0;
    uint64_t cycles = 0;
    sc_time elapsed;
    std::vector<uint8_t> image;
  };
  std::vector<Check> checks(std::size(modes));
  auto run_mode = [&](const Mode& mode, const std::vector<uint8_t>& image, uint64_t count) {
    tlm::tlm_global_quantum::instance().set(mode.quantum);
    accel.set_timing(mode.timing);
    accel.set_use_dmi(mode.dmi);
    std::memcpy(memory.data(), image.data(), image.size());
    sc_time started, done;
    sc_core::sc_spawn([&] {
      host.write32(kControl + reg::kInsnCount, static_cast<uint32_t>(count));
      host.write32(kControl + reg::kInsnCount + 4, 0);
      host.write32(kControl + reg::kInsnAddr, 0);
      host.write32(kControl + reg::kInsnAddr + 4, 0);
      host.write32(kControl + reg::kDramBase, static_cast<uint32_t>(kDram));
      host.write32(kControl + reg::kDramBase + 4, 0);
      host.write32(kControl + reg::kGlobalIntEnable, 1);
      host.write32(kControl + reg::kIpIntEnable, 1);
      started = sc_core::sc_time_stamp();
      host.write32(kControl + reg::kControl, reg::kApStart);
      sc_core::wait(irq.posedge_event());
      done = sc_core::sc_time_stamp();
      host.write32(kControl + reg::kIpIntStatus, 1);
    });
    const auto t0 = Clock::now();
    sc_core::sc_start();
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    Check& c = checks[static_cast<size_t>(&mode - modes)];
    c.error = host.read32(kControl + reg::kError);
    c.cycles = accel.last_stats().cycles;
    c.elapsed = done - started;
    c.image.assign(memory.data(), memory.data() + image.size());
    return seconds;
  };

  for (const Layer& x : layers) {
    const uint64_t count = x.build.placed.stream.insn_count;
    std::vector<double> bare_s;
    std::vector<std::vector<double>> mode_s(std::size(modes)), ratio(std::size(modes));
    uint64_t cycles = 0;
    std::vector<uint8_t> want;
    for (int r = 0; r < reps; ++r) {
      // The bare run and the modes in a rotating order, so that none always runs first.
      double bare_now = 0;
      std::vector<double> now(std::size(modes));
      for (size_t k = 0; k <= std::size(modes); ++k) {
        const size_t v = (k + static_cast<size_t>(r)) % (std::size(modes) + 1);
        if (v == std::size(modes)) {
          std::vector<uint8_t> img = x.image;
          const auto t0 = Clock::now();
          cycles = bare.run(img, 0, count).cycles;
          bare_now = std::chrono::duration<double>(Clock::now() - t0).count();
          want = std::move(img);
          continue;
        }
        now[v] = run_mode(modes[v], x.image, count);
      }
      bare_s.push_back(bare_now);
      for (size_t m = 0; m < std::size(modes); ++m) {
        mode_s[m].push_back(now[m]);
        ratio[m].push_back(now[m] / bare_now);
        const sc_time expect = modes[m].timing == sysc::Timing::kTimed
                                   ? sc_time::from_value(accel.clock_period().value() * cycles)
                                   : sc_core::SC_ZERO_TIME;
        if (checks[m].error != 0 || checks[m].cycles != cycles || checks[m].elapsed != expect ||
            checks[m].image != want) {
          throw InternalError("layer " + x.name + ", " + modes[m].name +
                              ": the SystemC run differs from the bare cycle model");
        }
      }
    }
    nlohmann::ordered_json j;
    j["layer"] = x.name;
    j["config"] = config;
    j["batch"] = batch;
    j["cycles"] = cycles;
    j["reps"] = reps;
    j["bare_seconds_median"] = median(bare_s);
    std::printf("| %s | %s (N=%lld) | %llu | %.1f |", x.name.c_str(), config.c_str(),
                static_cast<long long>(batch), static_cast<unsigned long long>(cycles),
                1e3 * median(bare_s));
    for (size_t m = 0; m < std::size(modes); ++m) {
      j["modes"][modes[m].name] = {{"seconds_median", median(mode_s[m])},
                                   {"ratio_median", median(ratio[m])}};
      std::printf(" %.1f (%.3f) |", 1e3 * median(mode_s[m]), median(ratio[m]));
    }
    std::printf("\n");
    std::fflush(stdout);
    results.push_back(j);
  }
  if (!json_path.empty()) std::ofstream(json_path) << results.dump(2) << "\n";
  return 0;
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
