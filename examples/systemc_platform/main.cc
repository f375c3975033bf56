// An example virtual platform around the SystemC model of the accelerator: a CPU (host.h), a
// memory and the accelerator on one interconnect, the accelerator's interrupt wired to the
// CPU. The CPU runs a compiled ResNet-18 convolution layer (as `weft run conv2d` compiles it)
// through the registers and checks the output against the CPU reference, and the completion
// time against the cycle count. Run it with (docs/systemc.md):
//
//   build/examples/systemc_platform/weft_systemc_platform --layer C12 --config vta
//
// Address map: memory at 0x8000_0000, the accelerator's registers at 0x4000_0000.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <systemc>
#include <tlm>

#include "compiler/ops/conv2d.h"
#include "examples/systemc_platform/host.h"
#include "hardware/isa/errors.h"
#include "hardware/isa/layout.h"
#include "hardware/isa/registers.h"
#include "hardware/isa/spec.h"
#include "runtime/bench/conv2d_study.h"
#include "runtime/ops/conv2d.h"
#include "simulator/systemc/accelerator.h"
#include "simulator/systemc/memory.h"
#include "simulator/systemc/router.h"

namespace {

constexpr uint64_t kDram = 0x8000'0000;
constexpr uint64_t kControl = 0x4000'0000;

int run(int argc, char** argv) {
  using namespace weft;
  std::string layer = "C12", config = "vta", platform_name = "sim";
  int64_t batch = 1;
  double quantum_us = 10, memory_latency_ns = 10;
  bool no_dmi = false, untimed = false;
  uint32_t seed = 1;
  CLI::App app{
      "A virtual platform (CPU, memory, bus, Weft accelerator as SystemC TLM-2.0) "
      "running one ResNet-18 conv2d layer through the accelerator's registers"};
  app.add_option("--layer", layer, "ResNet-18 layer C1..C12")->capture_default_str();
  app.add_option("--config", config, "accelerator configuration")->capture_default_str();
  app.add_option("--batch", batch, "batch (8 suits gemm8x8)")->capture_default_str();
  app.add_option("--platform", platform_name, "memory platform and clock")->capture_default_str();
  app.add_option("--quantum-us", quantum_us, "global quantum, us")->capture_default_str();
  app.add_option("--memory-latency-ns", memory_latency_ns, "memory latency per transaction")
      ->capture_default_str();
  app.add_flag("--no-dmi", no_dmi, "all DMA through b_transport");
  app.add_flag("--untimed", untimed, "complete at the start time");
  app.add_option("--seed", seed, "random input, weights and bias")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  // Compile the layer as `weft run conv2d` does: the chooser's knobs, two virtual threads.
  const isa::Layout& l = isa::layout_for(config);
  const isa::Platform& p = isa::find_platform(platform_name);
  compiler::ops::Conv2dShape s{};
  bool found = false;
  for (const rt::LayerSpec& spec : rt::resnet18_layers()) {
    if (spec.name == layer) {
      s = spec.shape;
      found = true;
    }
  }
  if (!found) throw weft::UserError("no ResNet-18 layer '" + layer + "' (C1 to C12)");
  s.n = batch;
  const compiler::ops::Conv2dEpilogue epilogue;
  const rt::Conv2dBuild b =
      rt::build_conv2d(l, s, compiler::ops::conv2d_candidates(l, p, s, 2, 1).at(0), epilogue);
  const rt::Conv2dData data = rt::random_conv2d_data(s, seed);
  std::vector<uint8_t> image = rt::conv2d_image(b, data);
  const uint64_t insn_count = b.placed.stream.insn_count;
  const uint64_t memory_bytes = (image.size() + (1u << 20) - 1) / (1u << 20) * (1u << 20);

  // The platform.
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(quantum_us, sc_core::SC_US));
  sim::systemc::AcceleratorOptions options;
  options.timing = untimed ? sim::systemc::Timing::kUntimed : sim::systemc::Timing::kTimed;
  options.use_dmi = !no_dmi;
  options.dram_bytes = memory_bytes;
  sim::systemc::Memory memory("memory", memory_bytes,
                              sc_core::sc_time(memory_latency_ns, sc_core::SC_NS));
  sim::systemc::Router bus("bus");
  sim::systemc::Accelerator accel("accel", l, p, options);
  example::Host host("host", image, insn_count, kControl, kDram);
  sc_core::sc_signal<bool> irq("irq");
  host.bus.bind(bus.targ);
  accel.gmem.bind(bus.targ);
  bus.init.bind(memory.socket);
  bus.init.bind(accel.control);
  bus.map(0, kDram, memory_bytes);
  bus.map(1, kControl, 0x1000);
  accel.interrupt.bind(irq);
  host.irq.bind(irq);

  std::printf("conv2d %s (%s) on %s, platform %s (clock period %s), quantum %s, DMI %s, %s\n",
              layer.c_str(), s.describe().c_str(), config.c_str(), p.name.c_str(),
              accel.clock_period().to_string().c_str(),
              tlm::tlm_global_quantum::instance().get().to_string().c_str(), no_dmi ? "off" : "on",
              untimed ? "untimed" : "timed");
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const example::HostRun& r = host.result();
  if (!host.ok()) return 1;
  const sc_core::sc_time elapsed = r.interrupted - r.started;
  std::printf("image: %zu bytes, %llu instructions, loaded by %s\n", image.size(),
              static_cast<unsigned long long>(insn_count), r.loaded.to_string().c_str());
  std::printf("ap_start at %s, interrupt at %s: %s after ap_start\n", r.started.to_string().c_str(),
              r.interrupted.to_string().c_str(), elapsed.to_string().c_str());
  if (r.error != 0) {
    std::printf("error register 0x%x (%s) at instruction %u: %s\n", r.error,
                isa::reg::error_bit_name(r.error & -r.error), r.error_insn,
                accel.error_detail().c_str());
    return 1;
  }
  const sc_core::sc_time timed_end =
      sc_core::sc_time::from_value(accel.clock_period().value() * r.cycles);
  const sc_core::sc_time expect = untimed ? sc_core::SC_ZERO_TIME : timed_end;
  std::printf("cycles %llu x %s = %s%s: %s\n", static_cast<unsigned long long>(r.cycles),
              accel.clock_period().to_string().c_str(), timed_end.to_string().c_str(),
              untimed ? " (untimed: the interrupt comes at ap_start)" : "",
              elapsed == expect ? "the interrupt agrees" : "the interrupt DISAGREES");
  const char* names[3] = {"load", "compute", "store"};
  for (int m = 0; m < 3; ++m) {
    std::printf("  %-7s busy %llu, stall %llu\n", names[m],
                static_cast<unsigned long long>(r.busy[m]),
                static_cast<unsigned long long>(r.stall[m]));
  }
  const sim::systemc::DmaStats& d = accel.last_dma_stats();
  std::printf(
      "DMA: %llu bytes read, %llu written; %llu b_transport, %llu DMI copies, %llu syncs\n",
      static_cast<unsigned long long>(d.read_bytes), static_cast<unsigned long long>(d.write_bytes),
      static_cast<unsigned long long>(d.transactions),
      static_cast<unsigned long long>(d.dmi_copies), static_cast<unsigned long long>(d.syncs));
  if (!untimed) {
    std::printf("%.2f GOP/s at the accelerator clock (%lld MACs)\n",
                2.0 * double(s.macs()) / elapsed.to_seconds() / 1e9,
                static_cast<long long>(s.macs()));
  }
  const std::vector<int8_t> out = rt::conv2d_output(b, r.image);
  const std::vector<int8_t> want = rt::conv2d_reference(s, data, epilogue);
  size_t bad = 0;
  for (size_t i = 0; i < out.size(); ++i) bad += out[i] != want[i];
  std::printf("output: %zu int8 values, %s the CPU reference (%zu differ); %.3f s wall\n",
              out.size(), bad == 0 ? "equal to" : "NOT equal to", bad, wall);
  return bad == 0 && elapsed == expect ? 0 : 1;
}

}  // namespace

int sc_main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
