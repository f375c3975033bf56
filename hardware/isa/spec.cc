// The shipped configurations and platforms: the one place their numbers are written.
#include "hardware/isa/spec.h"

#include "hardware/isa/errors.h"

namespace weft::isa {

const std::vector<HwConfig>& shipped_configs() {
  static const std::vector<HwConfig> configs = [] {
    std::vector<HwConfig> v;
    HwConfig g;
    g.name = "gemm8x8";
    g.description = "8x8x8 GEMM (512 MAC/cycle), the gemm8x8 tensor intrinsic";
    g.log_batch = 3;
    g.log_block_in = 3;
    g.log_block_out = 3;
    g.uop_buf_bytes = 32 << 10;
    g.inp_buf_bytes = 32 << 10;
    g.wgt_buf_bytes = 256 << 10;
    g.acc_buf_bytes = 128 << 10;
    g.token_queue_depth = 256;
    v.push_back(g);

    HwConfig vta;
    vta.name = "vta";
    vta.description = "1x16x16 GEMM (256 MAC/cycle), bit-compatible with Apache TVM VTA's default";
    vta.log_batch = 0;
    vta.log_block_in = 4;
    vta.log_block_out = 4;
    vta.uop_buf_bytes = 32 << 10;
    vta.inp_buf_bytes = 32 << 10;
    vta.wgt_buf_bytes = 256 << 10;
    vta.acc_buf_bytes = 128 << 10;
    vta.token_queue_depth = 256;
    v.push_back(vta);

    HwConfig tiny;
    tiny.name = "tiny";
    tiny.description = "1x4x4 GEMM (16 MAC/cycle) with small buffers, for fast RTL tests";
    tiny.log_batch = 0;
    tiny.log_block_in = 2;
    tiny.log_block_out = 2;
    tiny.uop_buf_bytes = 4 << 10;
    tiny.inp_buf_bytes = 1 << 10;
    tiny.wgt_buf_bytes = 4 << 10;
    tiny.acc_buf_bytes = 4 << 10;
    tiny.token_queue_depth = 16;
    tiny.cmd_queue_depth = 4;  // small queues so that tests exercise back-pressure
    tiny.fetch_fifo_depth = 8;
    v.push_back(tiny);
    return v;
  }();
  return configs;
}

const std::vector<Platform>& shipped_platforms() {
  static const std::vector<Platform> platforms = [] {
    std::vector<Platform> v;
    Platform sim;
    sim.name = "sim";
    sim.description = "default simulation platform: 128-bit AXI, modest DRAM latency";
    sim.axi_data_bits = 128;
    sim.read_latency = 32;
    sim.write_latency = 16;
    sim.max_outstanding_reads = 8;
    sim.max_outstanding_writes = 8;
    sim.max_burst_beats = 16;
    sim.clock_mhz = 200.0;
    v.push_back(sim);

    Platform pynq;
    pynq.name = "pynq";
    pynq.description = "Zynq-7020 (PYNQ-Z1) HP port: 64-bit AXI at 100 MHz";
    pynq.axi_data_bits = 64;
    pynq.read_latency = 40;
    pynq.write_latency = 20;
    pynq.max_outstanding_reads = 4;
    pynq.max_outstanding_writes = 4;
    pynq.max_burst_beats = 16;
    pynq.clock_mhz = 100.0;
    v.push_back(pynq);

    Platform zcu;
    zcu.name = "zcu104";
    zcu.description = "Zynq UltraScale+ ZCU104 HP port: 128-bit AXI at 300 MHz";
    zcu.axi_data_bits = 128;
    zcu.read_latency = 64;
    zcu.write_latency = 32;
    zcu.max_outstanding_reads = 16;
    zcu.max_outstanding_writes = 16;
    zcu.max_burst_beats = 16;
    zcu.clock_mhz = 300.0;
    v.push_back(zcu);
    return v;
  }();
  return platforms;
}

namespace {
template <typename T>
const T& find_named(const std::vector<T>& items, const std::string& name, const char* what) {
  std::string known;
  for (const T& item : items) {
    if (item.name == name) return item;
    known += (known.empty() ? "" : ", ") + item.name;
  }
  throw UserError("unknown " + std::string(what) + " '" + name + "' (known: " + known + ")");
}
}  // namespace

const HwConfig& find_config(const std::string& name) {
  return find_named(shipped_configs(), name, "configuration");
}

const Platform& find_platform(const std::string& name) {
  return find_named(shipped_platforms(), name, "platform");
}

}  // namespace weft::isa
