// bench_xrt_launch: the host-side cost of one launch through the xrt engine's emulated board
// against the same program on the bare engine (docs/fpga.md §Host overhead). Each launch is
// the full host sequence: copy the image in (sync to device), the register sequence (kernel
// arguments, start, wait), the status buffer read back (sync from device), the image out.
// Prints JSON: per arena size, the median wall time per launch on each path and the difference.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "driver/device.h"
#include "driver/launch.h"
#include "hardware/isa/spec.h"
#include "scripts/bench/gemm_program.h"

using namespace weft;

namespace {
double median_launch_us(driver::Device& dev, const std::vector<uint8_t>& image, uint64_t off,
                        uint64_t count, int repeats) {
  const uint64_t a = dev.alloc(image.size());
  std::vector<uint8_t> out(image.size());
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    dev.copy_to_device(a, image.data(), image.size());
    driver::run(dev, off, count, std::chrono::seconds(60));
    dev.copy_from_device(a, out.data(), out.size());
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  dev.free(a);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app("xrt engine host overhead per launch (emulated board vs bare engine)");
  std::string engine = "cycle", config = "gemm8x8";
  int repeats = 50;
  app.add_option("--engine", engine, "engine behind the emulated board (cycle or rtl)");
  app.add_option("--config", config, "configuration");
  app.add_option("--repeats", repeats, "launches per measurement");
  CLI11_PARSE(app, argc, argv);
  const isa::Layout& l = isa::layout_for(config);
  const bench::BenchProgram p = bench::square_gemm(l, 64, 2, 1);
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (uint64_t mib : {1, 16, 64}) {
    driver::DeviceOptions o;
    o.layout = &l;
    o.platform = &isa::find_platform("zcu104");
    o.memory_bytes = mib << 20;
    auto bare = driver::open_device(engine, o);
    o.xrt_emulate = engine;
    auto xrt = driver::open_device("xrt", o);
    const double b = median_launch_us(*bare, p.image, p.insn_offset, p.insn_count, repeats);
    const double x = median_launch_us(*xrt, p.image, p.insn_offset, p.insn_count, repeats);
    j.push_back({{"arena_mib", mib}, {"engine", engine}, {"bare_us", b}, {"xrt_emulated_us", x},
                 {"overhead_us", x - b}});
  }
  std::cout << j.dump(2) << "\n";
}
